"""Seeded coverage study of the paired comparison of two judge versions (compare_judges).

Run from the repository root:

    python benchmarks/judge_versions_coverage.py --reps 10      # a small run to see it works
    python benchmarks/judge_versions_coverage.py --reps 100 --out judge_versions_coverage.md

Each replicate draws ``--gold`` gold-PASS and ``--gold`` gold-FAIL items and ``--unlabelled``
unlabelled items with true success rate 0.7, and two judges' verdicts on all of them:

* ``better``: the old judge has Se = Sp = 0.80, the new one Se = Sp = 0.90, their errors
  independent given the truth (true change in Se and Sp +0.10);
* ``same``: the new judge has the old one's Se = Sp = 0.85 and repeats the old verdict with
  probability 0.7, else judges afresh (true change 0; correlated errors, as a prompt tweak).

In both, each judge's Se and Sp are the same on gold and unlabelled items, so the true change in
the corrected success rate is 0. Per replicate it records whether the 95 % intervals of the
change in Se, Sp and J cover the truth, whether the paired interval of pi_new - pi_old covers 0
(its complement is the false-alarm rate of "the rate moves with the judge"), McNemar's exact
p-value on the gold-PASS and gold-FAIL tables (p < 0.05: a change declared), and which judge
:func:`compare_judges` says to keep.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _record import write_result

from bayesjudge.batches.versions import compare_judges
from bayesjudge.batches.versions_data import JudgeVersions

PI = 0.7
SCENARIOS = {
    "better": {"old": 0.80, "new": 0.90, "copy": 0.0},
    "same": {"old": 0.85, "new": 0.85, "copy": 0.7},
}


def simulate(
    scenario: str, *, gold: int, unlabelled: int, rng: np.random.Generator
) -> JudgeVersions:
    """Draw one replicate of a scenario."""
    spec = SCENARIOS[scenario]
    labels = np.r_[np.ones(gold), np.zeros(gold), np.full(unlabelled, np.nan)]
    n = labels.size
    truth = np.where(np.isnan(labels), rng.random(n) < PI, labels == 1.0)

    def judge(accuracy: float) -> np.ndarray:
        right = rng.random(n) < accuracy
        return np.where(right, truth, ~truth).astype(float)

    old = judge(spec["old"])
    fresh = judge(spec["new"])
    new = np.where(rng.random(n) < spec["copy"], old, fresh)
    frame = pd.DataFrame({"item": np.arange(n), "old": old, "new": new, "label": labels})
    return JudgeVersions.from_frame(frame, old="old", new="new")


def run(reps: int, *, gold: int, unlabelled: int, draws: int, seed: int) -> pd.DataFrame:
    """Return one row per (scenario, replicate)."""
    rows = []
    for scenario, spec in SCENARIOS.items():
        change = spec["new"] - spec["old"]
        truth = {"se": change, "sp": change, "j": 2 * change}
        for rep in range(reps):
            rng = np.random.default_rng([seed, list(SCENARIOS).index(scenario), rep])
            data = simulate(scenario, gold=gold, unlabelled=unlabelled, rng=rng)
            start = time.perf_counter()
            result = compare_judges(data, draws=draws, random_seed=rng)
            row: dict[str, object] = {
                "scenario": scenario,
                "rep": rep,
                "seconds": time.perf_counter() - start,
            }
            for name, value in truth.items():
                summary = result.change[name].summary
                assert summary is not None
                row[f"cover_{name}"] = summary.eti.contains(value)
                row[f"width_{name}"] = summary.eti.width
            pi = result.pi_change
            row["cover_pi_zero"] = (
                pi is not None and pi.summary is not None and pi.summary.eti.contains(0.0)
            )
            row["kept"] = None if pi is None else pi.kept
            row["mcnemar_pass"] = result.classes["gold_pass"].mcnemar_p
            row["mcnemar_fail"] = result.classes["gold_fail"].mcnemar_p
            row["keep_new"] = result.keep == "new"
            row["passed"] = result.passed
            rows.append(row)
    return pd.DataFrame(rows)


def summarise(raw: pd.DataFrame) -> str:
    """Tabulate the study: rates with their Monte-Carlo standard errors."""

    def rate(values: pd.Series) -> str:
        p = float(values.mean())
        return f"{p:.3f} ± {np.sqrt(p * (1 - p) / len(values)):.3f}"

    lines = [
        "| scenario | reps | cover dSe | cover dSp | cover dJ | pi interval holds 0 | "
        "McNemar p<0.05 (PASS) | McNemar p<0.05 (FAIL) | keeps new | passed | "
        "mean width dSe | s / replicate |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for scenario, group in raw.groupby("scenario", sort=False):
        lines.append(
            f"| {scenario} | {len(group)} | {rate(group.cover_se)} | {rate(group.cover_sp)} | "
            f"{rate(group.cover_j)} | {rate(group.cover_pi_zero)} | "
            f"{rate(group.mcnemar_pass < 0.05)} | {rate(group.mcnemar_fail < 0.05)} | "
            f"{rate(group.keep_new)} | {rate(group.passed)} | {group.width_se.mean():.3f} | "
            f"{group.seconds.mean():.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--gold", type=int, default=60, help="gold items per class")
    parser.add_argument("--unlabelled", type=int, default=400)
    parser.add_argument("--draws", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=20_261_128)
    parser.add_argument("--out", type=Path, default=None, help="record under results/")
    args = parser.parse_args(argv)
    raw = run(
        args.reps, gold=args.gold, unlabelled=args.unlabelled, draws=args.draws, seed=args.seed
    )
    table = summarise(raw)
    text = (
        "# Two judge versions: coverage of the paired comparison\n\n"
        f"{args.reps} replicates per scenario; {args.gold} gold items per class, "
        f"{args.unlabelled} unlabelled, true pi {PI}; {args.draws} Monte-Carlo draws; 95 % "
        "intervals; ± is the Monte-Carlo standard error of each rate. See the script's "
        "docstring for the scenarios.\n\n" + table + "\n"
    )
    print(text)
    if args.out is not None:
        write_result(args.out, text, "python " + " ".join(sys.argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
