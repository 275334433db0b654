"""Seeded coverage check of the repeated-samples model against rows read as independent.

Run from the repository root:

    python benchmarks/repeated_coverage.py --reps 12 --time-limit 1500

Cells: 100 items answered ``epochs`` times, difficulty spread ``sigma`` on the logit scale
around a median rate of 0.6, judge Se 0.9 and Sp 0.85, 150 answers gold-labelled at random.
Each replicate draws a new set of items (seed ``SeedSequence([base, cell, replicate])``), fits
:func:`bayesjudge.repeated.fit_repeated` (4 chains x 500 draws after 500 tuning steps) and
records whether the 95 % intervals cover their truths:

* ``population_rate`` against the mean of the population the items are drawn from,
  :math:`E[\\mathrm{logit}^{-1}(\\mu + \\sigma x)]` (quadrature);
* ``mean_rate`` against the mean of the drawn items' own rates;
* the Rogan-Gladen delta interval on the rows read as independent items, against the population
  mean (what a clustered interval targets).

This is a small check of the model's calibration, not the issue's full coverage study (1, 3, 5,
10 epochs, with and without clusters, the clustered baselines): the replicate counts are small
on the shared machine, and the record says how many ran.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _record import write_result
from scipy import integrate, special, stats

from bayesjudge.prevalence import rogan_gladen
from bayesjudge.repeated import RepeatedData, fit_repeated, rows_counts, simulate_repeated

CELLS = ((5, 0.5), (5, 2.5))
ITEMS = 100
MEDIAN = 0.6
BASE_SEED = 2028


def population_mean(sigma: float) -> float:
    """Return E[expit(logit(MEDIAN) + sigma x)], x ~ N(0, 1)."""
    mu = special.logit(MEDIAN)
    return float(
        integrate.quad(lambda x: special.expit(mu + sigma * x) * stats.norm.pdf(x), -12, 12)[0]
    )


def replicate(cell: int, rep: int) -> dict[str, object]:
    epochs, sigma = CELLS[cell]
    seed = int(np.random.SeedSequence([BASE_SEED, cell, rep]).generate_state(1)[0])
    sim = simulate_repeated(
        ITEMS,
        epochs,
        mean_logit=float(special.logit(MEDIAN)),
        sigma=sigma,
        se=0.9,
        sp=0.85,
        gold_answers=150,
        random_seed=seed,
    )
    data = RepeatedData.from_frame(sim.frame.drop(columns="truth"))
    start = time.process_time()
    tree = fit_repeated(
        data, draws=500, tune=500, chains=4, random_seed=seed, progressbar=False, escalate=False
    )
    cpu = time.process_time() - start
    truth = population_mean(sigma)
    row: dict[str, object] = {"cell": cell, "epochs": epochs, "sigma": sigma, "rep": rep}
    for name, target in (("population_rate", truth), ("mean_rate", sim.truth.mean_rate)):
        low, high = np.quantile(tree.posterior[name].to_numpy().ravel(), [0.025, 0.975])
        row[f"{name}_covers"] = bool(low <= target <= high)
        row[f"{name}_width"] = float(high - low)
    rg = rogan_gladen(rows_counts(data), interval="delta")
    assert rg.interval is not None
    row["rows_rg_covers"] = bool(rg.interval.low <= truth <= rg.interval.high)
    row["rows_rg_width"] = float(rg.interval.high - rg.interval.low)
    row["passed"] = bool(tree.attrs["diagnostics_passed"])
    row["cpu_s"] = cpu
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=12)
    parser.add_argument("--time-limit", type=float, default=1500.0)
    parser.add_argument("--out", default="repeated_coverage.md")
    args = parser.parse_args()
    began = time.monotonic()
    rows = []
    for rep in range(args.reps):
        if time.monotonic() - began > args.time_limit:
            break
        for cell in range(len(CELLS)):
            rows.append(replicate(cell, rep))
    frame = pd.DataFrame(rows)
    table = (
        frame.groupby(["epochs", "sigma"])
        .agg(
            reps=("rep", "size"),
            population_rate_coverage=("population_rate_covers", "mean"),
            mean_rate_coverage=("mean_rate_covers", "mean"),
            rows_rg_coverage=("rows_rg_covers", "mean"),
            population_rate_width=("population_rate_width", "mean"),
            mean_rate_width=("mean_rate_width", "mean"),
            rows_rg_width=("rows_rg_width", "mean"),
            diagnostics_passed=("passed", "mean"),
            cpu_s=("cpu_s", "mean"),
        )
        .reset_index()
    )
    text = (
        "# Repeated samples: coverage of the model and of rows read as independent\n\n"
        f"{ITEMS} items, median rate {MEDIAN}, judge Se 0.9 / Sp 0.85, 150 random gold answers; "
        "4 chains x 500 draws, no retry. Nominal coverage 0.95; with these few replicates a "
        "coverage is known only to about +-0.1 (binomial standard error at 12 replicates: "
        "0.06).\n\n" + table.to_markdown(index=False, floatfmt=".3f") + "\n"
    )
    print(write_result(Path(args.out), text))


if __name__ == "__main__":
    main()
