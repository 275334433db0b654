"""Seeded simulation studies of the channel family; results in results/channel.md.

Run from the repository root:

    python benchmarks/channel_studies.py            # full study (a few minutes on 2 cores)
    python benchmarks/channel_studies.py --quick    # fewer replicates, for a smoke test

Studies
-------
1. False-alarm rate of the Markov check (:func:`bayesjudge.channels.posterior.markov_check`) on
   stacks that are Markov on the correctness bit, by sample size and level.
2. Power of the same check on non-Markov stacks (the second step depends on E0 beyond E1 with
   log-odds shift ``history``), at n = 600 and beside it n = 200 and 2000.
3. Mixture shift: calibrate on a depth suite whose deepest slice is thin, predict post-step
   accuracy under a target mixture concentrated on deep items, and compare the error of the
   pooled channel, independent per-slice (Jeffreys) channels and the slice hierarchy.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _record import RESULTS, write_result

from bayesjudge.channels.counts import slice_counts
from bayesjudge.channels.data import PairedOutcomes
from bayesjudge.channels.fit import fit_slices
from bayesjudge.channels.mixture import mixture_prediction
from bayesjudge.channels.posterior import markov_check
from bayesjudge.channels.simulate import DEPTH_SLICES, simulate_slices, simulate_stack

STACK = {"p0": 0.5, "c": [0.3, 0.25], "gamma": [0.1, 0.15]}
TARGET = {"1": 0.0, "2": 0.0, "3": 0.0, "4": 0.2, "5": 0.8}


def _alarm_rate(n: int, history: float, reps: int, levels: tuple[float, ...], seed: int) -> dict:
    rng = np.random.default_rng(seed)
    tails = []
    for _ in range(reps):
        table = simulate_stack(n, history=history, random_seed=rng, **STACK)
        check = markov_check(table.iloc[:, 1:].to_numpy(), draws=1000, random_seed=rng)
        tails.append(check.tail_probability)
    tails_arr = np.asarray(tails)
    return {f"rate at level {lv:g}": float(np.mean(tails_arr < lv)) for lv in levels}


def study_false_alarms(reps: int) -> pd.DataFrame:
    rows = []
    for n in (200, 600, 2000):
        rates = _alarm_rate(n, 0.0, reps, (0.05, 0.10), seed=100 + n)
        rows.append({"n": n, "replicates": reps, **rates})
    return pd.DataFrame(rows)


def study_power(reps: int) -> pd.DataFrame:
    rows = []
    for history in (0.5, 1.0, 1.5):
        for n in (200, 600, 2000):
            rates = _alarm_rate(n, history, reps, (0.05,), seed=int(1000 * history) + n)
            rows.append({"history (log-odds)": history, "n": n, "replicates": reps, **rates})
    return pd.DataFrame(rows)


def study_mixture(reps: int, thin: tuple[int, ...]) -> pd.DataFrame:
    weights = np.array([TARGET[s] for s in DEPTH_SLICES.labels])
    truth = DEPTH_SLICES.p1(weights)
    rows = []
    for n_thin in thin:
        rng = np.random.default_rng(7000 + n_thin)
        errors: dict[str, list[float]] = {"pooled": [], "independent": [], "hierarchical": []}
        for _ in range(reps):
            table = simulate_slices([400, 400, 400, 400, n_thin], random_seed=rng)
            data = PairedOutcomes.from_frame(table)
            _, counts = slice_counts(data.outcomes[:, 0], data.outcomes[:, 1], data.slice)
            plug = mixture_prediction(counts, weights)
            fit = fit_slices(data, weights=TARGET, draws=500, tune=500, chains=2, random_seed=rng)
            hier = float(fit["posterior"]["p1_mixture"].mean())
            errors["pooled"].append(float(plug.pooled) - truth)
            errors["independent"].append(float(plug.sliced) - truth)
            errors["hierarchical"].append(hier - truth)
        for method, values in errors.items():
            e = np.asarray(values)
            rows.append(
                {
                    "thin slice n": n_thin,
                    "method": method,
                    "bias": e.mean(),
                    "sd": e.std(ddof=1),
                    "rmse": float(np.sqrt(np.mean(e**2))),
                    "mean abs error": float(np.mean(np.abs(e))),
                    "replicates": reps,
                }
            )
    return pd.DataFrame(rows)


def _markdown(frame: pd.DataFrame) -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        cells = [f"{v:.4f}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few replicates (smoke test)")
    parser.add_argument("--out", default=str(RESULTS / "channel.md"), help="output")
    args = parser.parse_args(argv)
    reps_check = 40 if args.quick else 1000
    reps_mix = 5 if args.quick else 150
    command = "python benchmarks/channel_studies.py" + (" --quick" if args.quick else "")
    start = time.perf_counter()
    false_alarms = study_false_alarms(reps_check)
    print("false alarms done", file=sys.stderr)
    power = study_power(reps_check)
    print("power done", file=sys.stderr)
    mixture = study_mixture(reps_mix, (20, 60))
    elapsed = time.perf_counter() - start
    weights = np.array([TARGET[s] for s in DEPTH_SLICES.labels])
    text = f"""# Channel studies (Correction and Corruption family)

Produced by `{command}` ({elapsed:.0f} s). Every number below comes from that run.

Stack: p0 = {STACK["p0"]}, c = {STACK["c"]}, gamma = {STACK["gamma"]}; the Markov check
(`bayesjudge.channels.posterior.markov_check`, exact conjugate posterior predictive, 1000 replicated
tables per data set) flags a stack when its tail probability is below the level.

## 1. False-alarm rate under a Markov stack

{_markdown(false_alarms)}

## 2. Power under non-Markov stacks (second step depends on E0 beyond E1)

The log-odds of E2 = 1 are shifted by history * (2 E0 - 1).

{_markdown(power)}

## 3. Mixture shift: pooled vs independent per-slice vs hierarchical

Depth suite `DEPTH_SLICES` (p0 = {list(DEPTH_SLICES.p0)}, c = {list(DEPTH_SLICES.c)},
gamma = {list(DEPTH_SLICES.gamma)}); calibration 400 items in each of depths 1-4 and a thin
depth 5; target mixture {TARGET}; true shifted p1 = {DEPTH_SLICES.p1(weights):.4f}. Error =
prediction - truth. Hierarchical: posterior mean of `p1_mixture` from `fit_slices` (nutpie,
2 chains x 500 draws).

{_markdown(mixture)}
"""
    write_result(Path(args.out).resolve(), text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
