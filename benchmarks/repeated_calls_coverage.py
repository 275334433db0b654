"""Seeded coverage study of the judge-call model: several judge calls on each answer.

Issue 28 asks that k calls of a judge on one answer not count as k pieces of evidence. The
model (:func:`bayesjudge.repeated.fit_repeated` with a ``call`` column) gives each answer its own
pass probability around Se or 1 - Sp, logit-normal with a fitted spread; the data here are drawn
another way, by :func:`bayesjudge.repeated.simulate_repeated`: each answer's pass probability is
Beta-distributed with mean Se (a correct answer) or 1 - Sp and intra-answer correlation ``rho``
(Beta precision (1 - rho) / rho), each call passing with it. So the model meets a dependence form
it was not built from.

Design: 150 items, ``logit p_i = 0.3 + z_i`` (item spread 1), 1 or 4 answers (epochs) per item,
2, 3 or 5 calls per answer, call correlation 0, 0.3 or 0.6, judge Se 0.85 and Sp 0.80 per call,
a random 25% of the answers gold-labelled (every call of a labelled answer carries its label).
18 cells: epochs x calls x correlation.

Each replicate (seed ``[--seed, cell, replicate]``) fits the call model at the family's defaults
(4 chains x ``--draws`` after ``--tune``, the one retry when a check fails) and records whether the
95% intervals cover: ``population_rate`` against E[expit(0.3 + Z)], ``mean_rate`` against the
drawn items' mean rate, ``se`` and ``sp`` against the per-call truth (0.85, 0.80). Beside it, the
Rogan-Gladen delta interval with every call read as its own answer (no cluster) and clustered by
item (calls and epochs of an item together), both against the population mean.

Replicate-major and resumable like ``repeated_coverage.py``, whose loop it reuses:

    nice -n 19 python benchmarks/repeated_calls_coverage.py --time-limit 3000
    python benchmarks/repeated_calls_coverage.py --summarize
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
from _record import RESULTS
from repeated_coverage import MU, _with_interval, population_mean, study_main, write_summary

from bayesjudge.repeated import RepeatedData, fit_repeated, simulate_repeated
from bayesjudge.repeated.baselines import rogan_gladen_clustered

EPOCHS = (1, 4)
CALLS = (2, 3, 5)
CORRELATIONS = (0.0, 0.3, 0.6)
ITEMS = 150
SPREAD = 1.0
LABEL_SHARE = 0.25
SE, SP = 0.85, 0.80
BASE_SEED = 20261130
RAW = RESULTS / "repeated_calls_coverage_raw.csv"
#: The cells: (epochs, calls, call correlation).
CELLS = tuple((e, k, r) for e in EPOCHS for k in CALLS for r in CORRELATIONS)
#: Estimands and the truth each is checked against, by column stem.
MODEL_TARGETS = ("population_rate", "mean_rate", "se", "sp")


def replicate(cell: int, rep: int, *, seed: int, draws: int, tune: int) -> dict[str, object]:
    """Simulate one data set of ``cell``, fit the call model and return the coverage row."""
    epochs, calls, correlation = CELLS[cell]
    sim = simulate_repeated(
        ITEMS,
        epochs,
        mean_logit=MU,
        sigma=SPREAD,
        se=SE,
        sp=SP,
        gold_answers=round(LABEL_SHARE * ITEMS * epochs),
        calls=calls,
        call_correlation=correlation,
        random_seed=np.random.default_rng([seed, cell, rep]),
    )
    frame = sim.frame.drop(columns="truth")
    data = RepeatedData.from_frame(frame, columns={"call": "call"})
    start, wall = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = fit_repeated(
            data,
            draws=draws,
            tune=tune,
            random_seed=int(np.random.SeedSequence([seed, cell, rep]).generate_state(1)[0]),
            progressbar=False,
        )
    population = population_mean(SPREAD)
    truths = {
        "population_rate": population,
        "mean_rate": sim.truth.mean_rate,
        "se": SE,
        "sp": SP,
    }
    row: dict[str, object] = {
        "cell": cell,
        "epochs": epochs,
        "calls": calls,
        "correlation": correlation,
        "rep": rep,
        "draws": draws,
        "tune": tune,
        "cpu_s": time.process_time() - start,
        "wall_s": time.perf_counter() - wall,
        "passed": bool(tree.attrs["diagnostics_passed"]),
        "attempts": len(json.loads(tree.attrs["attempts"])),
        "failures": ";".join(json.loads(tree.attrs["diagnostics_failures"])),
        "divergences": json.loads(tree.attrs["diagnostics"])["divergences"],
        "rho_mean": float(tree.posterior["rho"].mean()) if "rho" in tree.posterior else np.nan,
        "population_target": population,
        "items_target": sim.truth.mean_rate,
    }
    for name, truth in truths.items():
        low, high = np.quantile(tree.posterior[name].to_numpy().ravel(), [0.025, 0.975])
        row[f"{name}_covers"] = bool(low <= truth <= high)
        row[f"{name}_width"] = float(high - low)
    verdict = frame["verdict"].to_numpy(dtype=float)
    gold = frame["label"].to_numpy(dtype=float, na_value=np.nan)
    for name, items in (
        ("rg_calls_independent", np.arange(verdict.size)),
        ("rg_clustered", frame["item"].to_numpy()),
    ):
        try:
            interval = rogan_gladen_clustered(verdict, gold, items, None).interval
        except ValueError:  # J <= 0 or an empty gold class: no interval, a miss
            interval = None
        low, high = (np.nan, np.nan) if interval is None else (interval.low, interval.high)
        row[f"{name}_covers"] = bool(low <= population <= high)
        row[f"{name}_width"] = float(high - low)
    return row


def summarize(args: argparse.Namespace) -> Path:
    """Write the coverage table from the raw CSV."""
    raw = pd.read_csv(args.raw).drop_duplicates(["cell", "rep"]).sort_values(["cell", "rep"])
    columns = {
        "population_rate": "model, population mean",
        "mean_rate": "model, items' mean",
        "se": "model, Se",
        "sp": "model, Sp",
        "rg_clustered": "RG delta (by item)",
        "rg_calls_independent": "RG delta (calls independent)",
    }
    rows = []
    for _, group in raw.groupby("cell", sort=True):
        epochs, calls, correlation = CELLS[int(group["cell"].iloc[0])]
        row: dict[str, object] = {
            "epochs": epochs,
            "calls": calls,
            "rho": correlation,
            "reps": len(group),
        }
        for key, label in columns.items():
            row[label] = _with_interval(group[f"{key}_covers"].astype(bool))
        row["width: model"] = float(group["population_rate_width"].median())
        row["width: calls independent"] = float(group["rg_calls_independent_width"].median())
        row["rho mean"] = float(group["rho_mean"].mean())
        row["passed"] = float(group["passed"].mean())
        row["CPU s"] = float(group["cpu_s"].mean())
        rows.append(row)
    table = pd.DataFrame(rows)
    reps = sorted(set(table["reps"]))
    settings = ", ".join(
        f"{d} / {t}" for d, t in sorted(set(zip(raw["draws"], raw["tune"], strict=True)))
    )
    failures = raw.loc[~raw["passed"].astype(bool), "failures"].fillna("")
    pooled = "; ".join(
        f"{label} {_with_interval(raw[f'{key}_covers'].astype(bool))}"
        for key, label in columns.items()
    )
    by_rho = ". ".join(
        f"rho {rho}: "
        + "; ".join(
            f"{label} {_with_interval(group[f'{key}_covers'].astype(bool))}"
            for key, label in columns.items()
        )
        for rho, group in raw.groupby("correlation", sort=True)
    )
    lines = [
        "# Repeated samples: coverage of the judge-call model",
        "",
        f"{len(raw)} fits: {', '.join(str(r) for r in reps)} replicates per cell "
        f"(replicate-major order, base seed {args.seed}). Design (module docstring of "
        f"`benchmarks/repeated_calls_coverage.py`): {ITEMS} items, logit rate {MU} + "
        f"{SPREAD} z, {LABEL_SHARE:.0%} of answers gold-labelled, judge Se {SE} / Sp {SP} per "
        "call, each answer's call pass probability Beta with intra-answer correlation rho (a "
        "dependence form the model, logit-normal per answer, was not built from). "
        f"`fit_repeated` with its call level, 4 chains x {settings} (draws per chain, tuning "
        "steps), one retry when a check fails. 95% intervals; in brackets the Clopper-Pearson "
        "95% interval of each coverage.",
        "",
        f"Pooled over the cells: {pooled}. Fits that passed their diagnostics: "
        f"{int(raw['passed'].sum())} of {len(raw)}; retried: {int((raw['attempts'] > 1).sum())}; "
        f"mean CPU per fit {raw['cpu_s'].mean():.1f} s.",
        "",
        f"Pooled by call correlation: {by_rho}.",
        "",
    ]
    return write_summary(args.out, lines, failures, table)


def main(argv: list[str] | None = None) -> int:
    return study_main(
        argv,
        description=__doc__.splitlines()[0],
        seed=BASE_SEED,
        raw=RAW,
        out=Path("repeated_calls_coverage.md"),
        cells=CELLS,
        fit_one=replicate,
        summarize=summarize,
    )


if __name__ == "__main__":
    sys.exit(main())
