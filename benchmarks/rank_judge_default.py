"""Calibration of rank's default judge (the average of the shared and per-system fits).

Seeded replicates of the issue-27 design (two systems answering the same 1,500 items, 150 of
them gold-labelled for both; one judge with Se 0.90) in four cells: a shared judge (Sp 0.80
for both) or a strongly differential one (Sp 0.90 for A, 0.65 for B), at a true difference
of 0.10 (rates 0.60 and 0.70) or 0 (0.65 and 0.65). Each replicate fits the shared-judge and
the per-system models once and forms their average with the weight of
:func:`bayesjudge.systems.average.judge_evidence`, exactly as ``bayesjudge rank`` does by
default, and records for each of the three: whether the 95% interval of pi_B - pi_A covers
the truth, P(B > A), and whether a winner is declared (P(B > A) >= 0.975 or <= 0.025).

Run: ``nice python benchmarks/rank_judge_default.py [REPLICATES]`` (raw rows go to
``results/rank_judge_default_raw.csv`` as they come; ``--summarize`` rewrites the summary from
them).
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import RESULTS, record

RAW = RESULTS / "rank_judge_default_raw.csv"
CELLS = (
    ("shared", 0.10, (0.60, 0.70), (0.80, 0.80)),
    ("differential", 0.10, (0.60, 0.70), (0.90, 0.65)),
    ("shared", 0.0, (0.65, 0.65), (0.80, 0.80)),
    ("differential", 0.0, (0.65, 0.65), (0.90, 0.65)),
)
FIELDS = (
    "judge",
    "diff",
    "seed",
    "method",
    "weight_shared",
    "mean",
    "low",
    "high",
    "covers",
    "p_b_better",
    "declared",
    "passed",
    "seconds",
)


def replicate(judge: str, pi: tuple[float, float], sp: tuple[float, float], seed: int) -> list:
    from bayesjudge.inference.fit import diagnostics_of
    from bayesjudge.systems.average import average_posteriors, judge_evidence
    from bayesjudge.systems.data import SystemsData
    from bayesjudge.systems.fit import fit_systems
    from bayesjudge.systems.simulate import simulate_systems

    start = time.perf_counter()
    sim = simulate_systems(
        list(pi), n_unlabelled=1350, n_labelled=150, se=0.9, sp=list(sp), random_seed=seed
    )
    data = SystemsData.from_frame(sim.frame)
    counts = data.system_counts()
    evidence = judge_evidence(data.systems, x1=counts.x1, m1=counts.m1, x0=counts.x0, m0=counts.m0)
    fits = {
        kind: fit_systems(
            data, judge=kind, draws=1000, tune=1000, random_seed=seed, progressbar=False
        )
        for kind in ("shared", "system")
    }
    mixed = average_posteriors(
        fits["shared"]["posterior"].to_dataset(),
        fits["system"]["posterior"].to_dataset(),
        evidence.weight_shared,
        random_seed=seed,
    )
    passed = {k: diagnostics_of(t).passed for k, t in fits.items()}
    posteriors = {
        "shared": fits["shared"]["posterior"],
        "system": fits["system"]["posterior"],
        "average": mixed,
    }
    seconds = time.perf_counter() - start
    rows = []
    for method, post in posteriors.items():
        pi_draws = np.asarray(post["pi"].transpose("chain", "draw", "system").to_numpy())
        delta = (pi_draws[..., 1] - pi_draws[..., 0]).ravel()
        low, high = np.quantile(delta, [0.025, 0.975])
        p = float(np.mean(delta > 0))
        rows.append(
            {
                "method": method,
                "weight_shared": evidence.weight_shared,
                "mean": float(delta.mean()),
                "low": float(low),
                "high": float(high),
                "covers": bool(low <= sim.diff <= high),
                "p_b_better": p,
                "declared": bool(p >= 0.975 or p <= 0.025),
                "passed": passed["shared"] and passed["system"]
                if method == "average"
                else passed[method],
                "seconds": seconds,
            }
        )
    return rows


def weights(seeds: int = 100) -> str:
    """The weight of one judge over ``seeds`` data sets of each judge (no fits: seconds)."""
    from bayesjudge.systems.average import judge_evidence
    from bayesjudge.systems.data import SystemsData
    from bayesjudge.systems.simulate import simulate_systems

    lines = [
        "| judge Sp (A, B) | data sets | median weight | 10% and 90% quantiles | > 0.9 | < 0.1 |",
        "|---|---|---|---|---|---|",
    ]
    for sp, pi in (
        ((0.8, 0.8), (0.599, 0.697)),
        ((0.85, 0.75), (0.65, 0.65)),
        ((0.9, 0.65), (0.65, 0.65)),
    ):
        w = []
        for seed in range(seeds):
            sim = simulate_systems(
                list(pi), n_unlabelled=1350, n_labelled=150, se=0.9, sp=list(sp), random_seed=seed
            )
            c = SystemsData.from_frame(sim.frame).system_counts()
            w.append(judge_evidence(("A", "B"), x1=c.x1, m1=c.m1, x0=c.x0, m0=c.m0).weight_shared)
        arr = np.array(w)
        q10, q90 = np.quantile(arr, [0.1, 0.9])
        lines.append(
            f"| {sp[0]:.2f}, {sp[1]:.2f} | {seeds} | {np.median(arr):.3f} | {q10:.3f}, {q90:.3f} "
            f"| {np.mean(arr > 0.9):.2f} | {np.mean(arr < 0.1):.2f} |"
        )
    return "\n".join(lines)


def summarize(command: str, started: str) -> Path:
    with RAW.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    lines = [
        "| judge | true diff | method | replicates | coverage of the diff | P(winner declared) "
        "| mean P(B > A) | mean weight of one judge | fits passed |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for judge, diff, _, _ in CELLS:
        for method in ("shared", "system", "average"):
            sel = [
                r
                for r in rows
                if r["judge"] == judge and float(r["diff"]) == diff and r["method"] == method
            ]
            if not sel:
                continue
            cov = np.mean([r["covers"] == "True" for r in sel])
            dec = np.mean([r["declared"] == "True" for r in sel])
            pb = np.mean([float(r["p_b_better"]) for r in sel])
            w = np.mean([float(r["weight_shared"]) for r in sel])
            ok = sum(r["passed"] == "True" for r in sel)
            lines.append(
                f"| {judge} | {diff:.2f} | {method} | {len(sel)} | {cov:.2f} | {dec:.2f} | "
                f"{pb:.3f} | {w:.3f} | {ok}/{len(sel)} |"
            )
    secs = [float(r["seconds"]) for r in rows if r["method"] == "average"]
    body = (
        f"Started {started}; commit {commit()}; load average at the end "
        f"{os.getloadavg()[0]:.1f} (a 2-core machine shared with other jobs).\n\n"
        "Design: 1,500 paired items, 150 gold-labelled for both systems, judge Se 0.90; "
        "shared judge Sp 0.80 for both, differential judge Sp 0.90 for A and 0.65 for B. "
        "`shared` and `system` are `--judge shared` and `--judge system` (no pooling); "
        "`average` is the default, their average weighted by the posterior probability of "
        "one judge given the gold labels. A winner is declared when P(B > A) >= 0.975 or "
        "<= 0.025: at difference 0.10 that is the power, at 0 the false declarations. "
        f"Each replicate (two fits of 4 x 1,000 draws) took {np.median(secs):.0f} s "
        f"(median).\n\n" + "\n".join(lines) + "\n\nRaw rows: `rank_judge_default_raw.csv`.\n\n"
        "The weight of one judge alone (no fits), on 100 data sets of the same design per "
        "judge (seeds 0 to 99; true rates 0.599 and 0.697 for the shared judge, 0.65 and 0.65 "
        "otherwise):\n\n" + weights()
    )
    return record("rank_judge_default", "rank: the default judge, calibration", command, body)


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parent,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    command = "nice python benchmarks/rank_judge_default.py " + " ".join(sys.argv[1:])
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if "--summarize" in sys.argv:
        print(summarize(command, started))
        return
    replicates = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    RAW.parent.mkdir(exist_ok=True)
    with RAW.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        # round-robin over the cells, so a run stopped early has every cell alike
        for r in range(replicates):
            for c, (judge, diff, pi, sp) in enumerate(CELLS):
                seed = 27_000 + 100 * c + r
                for row in replicate(judge, pi, sp, seed):
                    writer.writerow({"judge": judge, "diff": diff, "seed": seed, **row})
                handle.flush()
            print(f"replicate {r + 1}/{replicates} done", flush=True)
    print(summarize(command, started))


if __name__ == "__main__":
    main()
