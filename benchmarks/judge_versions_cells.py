"""Frequentist coverage of the Dirichlet interval of a change in Se, many replicates, cells only.

Run from the repository root:

    python benchmarks/judge_versions_cells.py --reps 4000 --out judge_versions_cells.md

The full study (``judge_versions_coverage.py``) runs :func:`compare_judges` per replicate,
which also computes two exact posteriors of pi, so it affords few replicates. This script
checks the one piece that decides the coverage of the change in Se (and, by symmetry, Sp): the
paired table of one gold class, ``--gold`` items drawn from the cell probabilities of each
scenario of ``judge_versions_coverage.py``, its Jeffreys Dirichlet posterior drawn
``--draws`` times (as :func:`bayesjudge.batches.versions.compare_judges` does), and whether the
95 % equal-tailed interval of theta_01 - theta_10 holds the true change. McNemar's exact test
(:func:`bayesjudge.batches.versions.mcnemar_exact`) at 0.05 is counted beside it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from _record import write_result

from bayesjudge.batches.versions import PRIORS, mcnemar_exact

#: (old accuracy, new accuracy, probability the new judge repeats the old verdict)
SCENARIOS = {"better": (0.80, 0.90, 0.0), "same": (0.85, 0.85, 0.7)}


def cells(old: float, new: float, copy: float) -> np.ndarray:
    """Return the gold-PASS cell probabilities (00, 01, 10, 11) of (old, new) verdicts."""
    p11 = old * (copy + (1 - copy) * new)
    p10 = old * (1 - copy) * (1 - new)
    p01 = (1 - old) * (1 - copy) * new
    p00 = (1 - old) * (copy + (1 - copy) * (1 - new))
    return np.array([p00, p01, p10, p11])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=4000)
    parser.add_argument("--gold", type=int, default=60)
    parser.add_argument("--draws", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=20_261_128)
    parser.add_argument("--out", type=Path, default=None, help="record under results/")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    lines = [
        "| scenario | true change in Se | reps | 95 % interval covers | McNemar p < 0.05 |",
        "|---|---|---|---|---|",
    ]
    for name, spec in SCENARIOS.items():
        p = cells(*spec)
        true = p[1] - p[2]
        covered = declared = 0
        for _ in range(args.reps):
            n = rng.multinomial(args.gold, p)
            draws = rng.dirichlet(n + PRIORS["jeffreys"], size=args.draws)
            low, high = np.quantile(draws[:, 1] - draws[:, 2], [0.025, 0.975])
            covered += bool(low <= true <= high)
            declared += mcnemar_exact(n.reshape(2, 2)) < 0.05
        se = np.sqrt(0.95 * 0.05 / args.reps)
        lines.append(
            f"| {name} | {true:+.2f} | {args.reps} | {covered / args.reps:.3f} (± {se:.3f} at "
            f"nominal) | {declared / args.reps:.3f} |"
        )
    text = (
        "# Two judge versions: coverage of the Dirichlet interval of the change in Se\n\n"
        f"{args.gold} gold items of the class per replicate, {args.draws} Dirichlet draws, "
        "Jeffreys prior (1/2 per cell).\n\n" + "\n".join(lines) + "\n"
    )
    print(text)
    if args.out is not None:
        write_result(args.out, text, "python " + " ".join(sys.argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
