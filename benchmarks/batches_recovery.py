"""Recovery study of the state-space model across batches (bayesjudge.batches.statespace).

Each replicate draws ten batches from known paths (:func:`simulate_drift`): the true success
rate falls linearly from 0.75 to 0.70 over the ten batches (the issue's "drop of pi by 0.05"),
the judge's Se holds at 0.88, and its Sp falls from 0.90 to 0.75 at batch 6 (the issue's "Sp
falls by 0.15"); each batch has ``--labelled`` gold items drawn from it (100) and
``--unlabelled`` judged items (500). :func:`fit_drift` is fitted with its defaults (learned step
sizes, 4 chains of 1,000 draws, one retry when a sampler check fails).

Reported: coverage of the 95% equal-tailed intervals of pi_t, Se_t and Sp_t over all batches
and replicates, with its Monte Carlo error (the standard error of the replicate means, since
batches within a replicate are correlated); the same for the naive k/n Wilson interval as an
interval for pi_t; mean interval widths and absolute errors; how often batch 6 is flagged as a
judge drift (P(|change in Se or Sp| > 0.05) >= 0.9) and how often any other batch is; fits whose
diagnostics failed; fit times.

Each replicate's row is appended to ``results/batches_raw.csv`` as it finishes (a rerun
resumes after the replicates already there); ``--summary-only`` rewrites the record from it.

Usage::

    nice python benchmarks/batches_recovery.py --replicates 20   # rewrites results/batches.md
    python benchmarks/batches_recovery.py --replicates 20 --summary-only
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bayesjudge.batches.statespace import fit_drift, simulate_drift

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import RESULTS, record

BATCHES = 10
TRUE_PI = np.linspace(0.75, 0.70, BATCHES)
TRUE_SE = np.full(BATCHES, 0.88)
TRUE_SP = np.r_[np.full(5, 0.90), np.full(5, 0.75)]
DRIFT_BATCH = "b6"


def replicate(index: int, labelled: int, unlabelled: int) -> dict[str, float]:
    """Fit one simulated dataset; return its coverage, widths, errors, flags and time."""
    frame = simulate_drift(
        TRUE_PI,
        TRUE_SE,
        TRUE_SP,
        labelled=labelled,
        unlabelled=unlabelled,
        random_seed=10_000 + index,
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_drift(frame, random_seed=index, progressbar=False)
    seconds = time.perf_counter() - start
    table = fit.to_frame()
    row: dict[str, float] = {"replicate": index, "seconds": seconds, "passed": fit.passed}
    for name, truth in (("pi", TRUE_PI), ("se", TRUE_SE), ("sp", TRUE_SP)):
        low, high = table[f"{name}_low"].to_numpy(), table[f"{name}_high"].to_numpy()
        row[f"cover_{name}"] = float(np.mean((low <= truth) & (truth <= high)))
        row[f"width_{name}"] = float(np.mean(high - low))
        row[f"abs_error_{name}"] = float(np.mean(np.abs(table[name].to_numpy() - truth)))
    low, high = table["naive_low"].to_numpy(), table["naive_high"].to_numpy()
    row["cover_naive"] = float(np.mean((low <= TRUE_PI) & (high >= TRUE_PI)))
    row["abs_error_naive"] = float(np.mean(np.abs(table["naive"].to_numpy() - TRUE_PI)))
    drift = fit.drift_probability()
    row["drift_b6"] = float(drift[DRIFT_BATCH])
    row["flag_b6"] = DRIFT_BATCH in fit.drifted
    row["flag_other"] = any(b != DRIFT_BATCH for b in fit.drifted)
    row["attempts"] = len(json.loads(fit.tree.attrs["attempts"]))
    return row


def summarise(rows: pd.DataFrame) -> str:
    """Return the markdown tables of the study."""
    count = len(rows)

    def mean_se(column: str) -> str:
        values = rows[column].astype(float)
        return f"{values.mean():.3f} ± {values.std(ddof=1) / np.sqrt(count):.3f}"

    lines = [
        "| quantity | coverage of 95% intervals (± MC s.e.) | mean width | mean abs. error |",
        "|---|---|---|---|",
    ]
    for name, label in (("pi", "pi_t (model)"), ("se", "Se_t"), ("sp", "Sp_t")):
        lines.append(
            f"| {label} | {mean_se(f'cover_{name}')} | {rows[f'width_{name}'].mean():.3f} | "
            f"{rows[f'abs_error_{name}'].mean():.3f} |"
        )
    lines.append(
        f"| pi_t (naive k/n, Wilson) | {mean_se('cover_naive')} | - | "
        f"{rows['abs_error_naive'].mean():.3f} |"
    )
    flags = [
        "",
        "| drift read-out | value |",
        "|---|---|",
        f"| batch 6 flagged (Sp 0.90 -> 0.75) | {int(rows['flag_b6'].sum())} of {count} |",
        f"| mean P(drift > 0.05) at batch 6 | {rows['drift_b6'].mean():.3f} |",
        f"| any other batch flagged | {int(rows['flag_other'].sum())} of {count} |",
        f"| fits passing every diagnostic | {int(rows['passed'].sum())} of {count} |",
        f"| fits that needed the retry | {int((rows['attempts'] > 1).sum())} of {count} |",
        f"| fit time, median (max) | {rows['seconds'].median():.1f} s "
        f"({rows['seconds'].max():.1f} s) |",
        f"| total fitting time | {rows['seconds'].sum():.0f} s |",
    ]
    return "\n".join(lines + flags)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=30)
    parser.add_argument("--labelled", type=int, default=100)
    parser.add_argument("--unlabelled", type=int, default=500)
    parser.add_argument("--no-record", action="store_true", help="print only")
    parser.add_argument("--summary-only", action="store_true", help="summarise the raw rows")
    args = parser.parse_args(argv)
    raw = RESULTS / "batches_raw.csv"
    done = pd.read_csv(raw) if raw.exists() else pd.DataFrame()
    if not args.summary_only:
        for index in range(len(done), args.replicates):
            row = replicate(index, args.labelled, args.unlabelled)
            pd.DataFrame([row]).to_csv(raw, mode="a", header=not raw.exists(), index=False)
            print(f"replicate {index}: {row}", flush=True)
        done = pd.read_csv(raw)
    rows = done.iloc[: args.replicates]
    body = (
        f"{len(rows)} replicates of {BATCHES} batches; pi 0.75 -> 0.70 linearly, Se 0.88, "
        f"Sp 0.90 -> 0.75 at batch 6; {args.labelled} gold items drawn from each batch, "
        f"{args.unlabelled} judged items; fit_drift defaults (learned steps, half-normal scale "
        "0.5, 4 x 1,000 draws). Coverage is pooled over batches; its Monte Carlo standard "
        "error is that of the replicate means (batches of one replicate are correlated).\n\n"
        + summarise(rows)
        + "\n\nRaw rows (one per replicate): `results/batches_raw.csv`."
    )
    command = "python benchmarks/batches_recovery.py " + " ".join(argv or sys.argv[1:])
    if args.no_record:
        print(body)
    else:
        path = record("batches", "Recovery of the state-space model across batches", command, body)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
