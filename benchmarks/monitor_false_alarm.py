"""False alarms and detection of the batch monitor, checked after every one of 50 batches.

Seeded simulation (``bayesjudge.batches.simulate.batch_counts``): 50 batches, each with ``m``
gold-labelled and ``n`` unlabelled items, a judge with Se 0.90 and Sp 0.85, threshold 0.80,
alpha 0.05. Scenarios: no change at the boundary (pi = 0.80 throughout: the worst case for a
false "below" alarm), no change above it (pi = 0.83), pi dropping by 0.05 (0.83 to 0.78) from
batch 25 on, and the judge's Sp falling by 0.15 (0.85 to 0.70) from batch 25 on with pi = 0.83.

Rules, each looked at after every batch:

* ``monitor below`` / ``monitor drift`` / ``monitor any``: the anytime-valid alarms of
  :func:`bayesjudge.batches.monitor_batches` (each at alpha/2; together at most alpha);
* ``fixed cumulative``: the 95% Wald interval of the prediction-powered estimate on all batches
  so far, alarm when its upper end is below the threshold;
* ``fixed per batch``: the same interval on the current batch alone;
* ``fixed Sp test``: a two-sided 5% z-test of the current batch's gold-FAIL pass rate against
  all earlier batches (a fixed-sample drift check);
* ``bayes per batch``: the exact posterior of the batch alone, alarm when P(pi < 0.80) > 0.95
  (fewer replicates: one exact posterior per batch).

Run: ``nice python benchmarks/monitor_false_alarm.py [--replicates R] [--bayes-replicates B]``;
writes ``results/monitor_false_alarm.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import record

from bayesjudge.batches.monitor import _p_below, below_alarms, drift_log_e, ppi_cells
from bayesjudge.batches.simulate import batch_counts

BATCHES, CHANGE = 50, 24  # 0-based index of the first changed batch (batch 25)
THRESHOLD, ALPHA, SE = 0.80, 0.05, 0.90
SCENARIOS = {
    "no change, pi = 0.80": (np.full(BATCHES, 0.80), np.full(BATCHES, 0.85)),
    "no change, pi = 0.83": (np.full(BATCHES, 0.83), np.full(BATCHES, 0.85)),
    "pi 0.83 -> 0.78 at batch 25": (
        np.r_[np.full(CHANGE, 0.83), np.full(BATCHES - CHANGE, 0.78)],
        np.full(BATCHES, 0.85),
    ),
    "Sp 0.85 -> 0.70 at batch 25": (
        np.full(BATCHES, 0.83),
        np.r_[np.full(CHANGE, 0.85), np.full(BATCHES - CHANGE, 0.70)],
    ),
}


def _moments(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per batch: item count, sum of Z and sum of Z^2 of the prediction-powered terms."""
    values, weights, _ = ppi_cells(counts)
    return weights.sum(-1), (values * weights).sum(-1), (values**2 * weights).sum(-1)


def _wald_upper(items: np.ndarray, total: np.ndarray, squares: np.ndarray) -> np.ndarray:
    mean = total / items
    var = np.maximum(squares / items - mean**2, 0.0)
    return mean + 1.959964 * np.sqrt(var / items)


def _fixed_sp_test(counts: np.ndarray) -> np.ndarray:
    m0, x0 = counts[..., 2], counts[..., 3]
    before_m = np.cumsum(m0, -1) - m0
    before_x = np.cumsum(x0, -1) - x0
    with np.errstate(divide="ignore", invalid="ignore"):
        p1, p0 = x0 / m0, before_x / before_m
        pool = (x0 + before_x) / (m0 + before_m)
        z = (p1 - p0) / np.sqrt(pool * (1 - pool) * (1 / m0 + 1 / before_m))
    return np.nan_to_num(np.abs(z), nan=0.0) > 1.959964


def _rules(counts: np.ndarray) -> dict[str, np.ndarray]:
    c = counts.astype(float)
    below = below_alarms(c, THRESHOLD, ALPHA / 2)
    log_e, _ = drift_log_e(c)
    drift = log_e >= np.log(2 / ALPHA)
    items, total, squares = _moments(c)
    cumulative = _wald_upper(*(np.cumsum(a, -1) for a in (items, total, squares))) < THRESHOLD
    per_batch = _wald_upper(items, total, squares) < THRESHOLD
    return {
        "monitor below": below,
        "monitor drift": drift,
        "monitor any": below | drift,
        "fixed cumulative": cumulative,
        "fixed per batch": per_batch,
        "fixed Sp test": _fixed_sp_test(c),
    }


def _summary(alarms: np.ndarray, changed: bool) -> tuple[float, float, float | None]:
    """(any alarm before the change, detection after it, median delay in batches)."""
    rang = alarms.any(-1)
    first = np.where(rang, alarms.argmax(-1), BATCHES)
    if not changed:
        return float(rang.mean()), float("nan"), None
    early = first < CHANGE
    detected = (first >= CHANGE) & (first < BATCHES)
    delay = first[detected] - CHANGE + 1  # 1 = the first changed batch
    return (
        float(early.mean()),
        float(detected.mean()),
        (float(np.median(delay)) if delay.size else None),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--bayes-replicates", type=int, default=60)
    parser.add_argument("--m", type=int, default=200, help="gold items per batch")
    parser.add_argument("--n", type=int, default=2000, help="unlabelled items per batch")
    parser.add_argument("--seed", type=int, default=2029)
    parser.add_argument("--name", default="monitor_false_alarm")
    args = parser.parse_args()
    start = time.time()
    rows = []
    for index, (name, (pi, sp)) in enumerate(SCENARIOS.items()):
        changed = "->" in name
        alarms: dict[str, list[np.ndarray]] = {}
        for chunk in range(0, args.replicates, 100):
            size = min(100, args.replicates - chunk)
            seed = args.seed + 1000 * index + chunk
            counts = batch_counts(pi=pi, se=SE, sp=sp, n=args.n, m=args.m, batches=BATCHES,
                                  replicates=size, random_seed=seed)  # fmt: skip
            for rule, value in _rules(counts).items():
                alarms.setdefault(rule, []).append(value)
        bayes_counts = batch_counts(pi=pi, se=SE, sp=sp, n=args.n, m=args.m, batches=BATCHES,
                                    replicates=args.bayes_replicates,
                                    random_seed=args.seed + 1000 * index + 999)  # fmt: skip
        bayes = np.zeros(bayes_counts.shape[:2], dtype=bool)
        for r, rep in enumerate(bayes_counts):
            for t, row in enumerate(rep):  # up to the first alarm: all the summary reads
                bayes[r, t] = (_p_below(row, THRESHOLD) or 0.0) > 0.95
                if bayes[r, t]:
                    break
        for rule, parts in alarms.items():
            rows.append((name, rule, args.replicates, *_summary(np.concatenate(parts), changed)))
        rows.append((name, "bayes per batch", args.bayes_replicates, *_summary(bayes, changed)))
        print(f"{name}: done at {time.time() - start:.0f} s", flush=True)
    elapsed = time.time() - start
    lines = [
        f"50 batches of {args.m} gold-labelled and {args.n} unlabelled items; judge Se 0.90, "
        f"Sp 0.85 unless stated; threshold 0.80; alpha 0.05 (each monitor alarm 0.025); every "
        f"rule checked after every batch. Seed {args.seed}. Wall time {elapsed:.0f} s.",
        "",
        "For the no-change scenarios the first number is the false-alarm rate: the fraction of "
        "runs with any alarm in 50 batches. For a change at batch 25: alarms before it (false), "
        "the fraction of runs alarmed at or after it, and the median delay (1 = the first "
        "changed batch) among those.",
        "",
        "| scenario | rule | runs | any alarm / before the change | detected after | "
        "median delay |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, rule, runs, early, detected, delay in rows:
        shown = "" if np.isnan(detected) else f"{detected:.3f}"
        lines.append(
            f"| {name} | {rule} | {runs} | {early:.3f} | {shown} | "
            f"{'' if delay is None else f'{delay:g}'} |"
        )
    command = (
        f"python benchmarks/monitor_false_alarm.py --replicates {args.replicates} "
        f"--bayes-replicates {args.bayes_replicates} --m {args.m} --n {args.n} --seed {args.seed}"
        + ("" if args.name == "monitor_false_alarm" else f" --name {args.name}")
    )
    path = record(args.name, "Batch monitor: false alarms and detection", command, "\n".join(lines))
    print("\n".join(lines))
    print(f"written {path}")


if __name__ == "__main__":
    main()
