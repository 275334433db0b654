"""Seeded coverage study of the difference of two systems' success rates under one judge.

Run from the repository root:

    python benchmarks/systems_coverage.py --reps 200          # the full study (phase 2)
    python benchmarks/systems_coverage.py --reps 10           # a small run to see it works
    python benchmarks/systems_coverage.py --reps 10 --out benchmarks/results/systems.md

Scenarios: design (paired, unpaired) x judge (shared; system-specific: the judge is kinder to
one system) x true difference pi_B - pi_A in {0, 0.05, 0.1} with pi_A = 0.6. Each replicate
draws 600 unlabelled items (per system when unpaired) and 150 gold-labelled items (labels for
both systems) from the item-response simulator with difficulty_sd = 1.5, so outcomes on the same
item are correlated (phi about 0.3).

Per replicate and method it records whether the 95 % interval covers the true difference, the
interval width, and whether a winner is declared: for the posterior,
P(pi_B > pi_A) > 0.975 or < 0.025; for McNemar's test, mid-p < 0.05; for every interval, that it
excludes 0. At difference 0 the declaration rate is the false-winner rate (nominal 5 %).
Bayesian fits: paired designs use the paired two-system model (and, for comparison, the unpaired
model on the same data, which ignores the pairing); unpaired designs use the unpaired model.
Each is fitted with ``calibration="by_class"`` (the default: gold labels inform the judge only)
and ``calibration="random"`` (gold labels inform the success rates too: PPI's assumption, and
true in this simulation). Bias and RMSE use the posterior mean or the point estimate.
Each model is compiled once and refitted through ``CompiledModel.with_data``; every fit is
nutpie, 2 chains x 500 draws after 500 tuning steps, and its divergences are counted.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from bayesjudge.models.systems import systems_model, two_system_model
from bayesjudge.priors import HalfNormal, SystemsPriors
from bayesjudge.systems.baselines import difference_baselines, mcnemar_test
from bayesjudge.systems.data import SystemsData
from bayesjudge.systems.simulate import simulate_systems

PI_A = 0.6
DIFFS = (0.0, 0.05, 0.1)
N_UNLABELLED = 600
N_LABELLED = 150
DIFFICULTY_SD = 1.5
JUDGES = {
    "shared": {"se": 0.88, "sp": 0.82},
    # kinder to B (self-preference): B's wrong answers pass more often
    "system": {"se": [0.86, 0.92], "sp": [0.85, 0.74]},
}
SIZE = 64
PROB = 0.95
#: by_class (the default: labels inform the judge only) and random (labels inform pi too; the
#: assumption PPI makes, and true in this simulation)
CALIBRATIONS = ("by_class", "random")
DESIGNS = ("paired", "unpaired")


def _compiled(judge: str, priors: SystemsPriors) -> dict[str, object]:
    import nutpie

    sim = simulate_systems(
        [0.6, 0.6], n_unlabelled=20, n_labelled=10, se=0.9, sp=0.8, random_seed=0
    )
    data = SystemsData.from_frame(sim.frame)
    models = {}
    for calibration in CALIBRATIONS:
        paired = two_system_model(
            data.patterns(), priors=priors, judge=judge, calibration=calibration, size=SIZE
        )
        unpaired = systems_model(
            data.system_counts(), priors=priors, judge=judge, calibration=calibration
        )
        models[f"paired_{calibration}"] = nutpie.compile_pymc_model(paired)
        models[f"unpaired_{calibration}"] = nutpie.compile_pymc_model(unpaired)
    return models


def _posterior_diff(compiled, data: dict, *, seed: int, target_accept: float) -> tuple:
    import nutpie

    trace = nutpie.sample(
        compiled.with_data(**data),
        draws=500,
        tune=500,
        chains=2,
        cores=2,
        seed=seed,
        progress_bar=False,
        target_accept=target_accept,
    )
    pi = trace.posterior["pi"].values.reshape(-1, 2)
    return pi[:, 1] - pi[:, 0], int(trace.sample_stats["diverging"].sum())


def _row(method: str, low: float, high: float, truth: float, declared: bool, **extra) -> dict:
    return {
        "method": method,
        "covered": bool(low <= truth <= high),
        "width": high - low,
        "declared": bool(declared),
        **extra,
    }


def replicate(design: str, judge: str, diff: float, seed: int, models: dict) -> list[dict]:
    sim = simulate_systems(
        [PI_A, PI_A + diff],
        n_unlabelled=N_UNLABELLED,
        n_labelled=N_LABELLED,
        design=design,
        difficulty_sd=DIFFICULTY_SD,
        random_seed=seed,
        **JUDGES[judge],
    )
    data = SystemsData.from_frame(sim.frame)
    truth = sim.diff
    target_accept = 0.95 if judge == "system" else 0.8
    rows = []
    counts = data.system_counts().as_dict()
    unpaired_data = {
        "m1": counts["m1"],
        "x1_obs": counts["x1"],
        "m0": counts["m0"],
        "x0_obs": counts["x0"],
        "n": counts["n"],
        "k_obs": counts["k"],
    }
    fits = []
    for calibration in CALIBRATIONS:
        if design == "paired":
            fits.append(
                (
                    f"bayes_paired_{calibration}",
                    models[f"paired_{calibration}"],
                    data.patterns().padded(SIZE),
                )
            )
        fits.append(
            (f"bayes_unpaired_{calibration}", models[f"unpaired_{calibration}"], unpaired_data)
        )
    for name, compiled, values in fits:
        draws, divergences = _posterior_diff(
            compiled, values, seed=seed, target_accept=target_accept
        )
        low, high = np.quantile(draws, [0.025, 0.975])
        p_better = float(np.mean(draws > 0))
        rows.append(
            _row(
                name,
                low,
                high,
                truth,
                p_better > 0.975 or p_better < 0.025,
                estimate=float(draws.mean()),
                divergences=divergences,
            )
        )
    for est in difference_baselines(data, prob=PROB):
        if est.interval is None:
            continue
        iv = est.interval
        rows.append(
            _row(
                est.method, iv.low, iv.high, truth, iv.low > 0 or iv.high < 0, estimate=est.estimate
            )
        )
    if design == "paired":
        test = mcnemar_test(data)
        rows.append({"method": "mcnemar_mid_p", "declared": test.mid_p < 0.05})
    for row in rows:
        row.update({"design": design, "judge": judge, "diff": diff, "seed": seed})
        if "estimate" in row:
            row["error"] = row["estimate"] - truth
    return rows


def run(
    reps: int,
    designs: Iterable[str],
    judges: Iterable[str],
    base_seed: int,
    priors: SystemsPriors,
) -> pd.DataFrame:
    rows: list[dict] = []
    for judge in judges:
        start = time.perf_counter()
        models = _compiled(judge, priors)
        print(
            f"compiled the {judge}-judge models in {time.perf_counter() - start:.0f} s", flush=True
        )
        for design in designs:
            for k, diff in enumerate(DIFFS):
                start = time.perf_counter()
                # keyed on the scenario, so a subset run draws the same data as the full run
                key = [base_seed, sorted(JUDGES).index(judge), DESIGNS.index(design), k]
                seeds = np.random.SeedSequence(key).generate_state(reps)
                for seed in seeds:
                    rows.extend(replicate(design, judge, diff, int(seed), models))
                print(
                    f"{design:8s} {judge:6s} diff={diff:.2f}: {reps} replicates in "
                    f"{time.perf_counter() - start:.0f} s",
                    flush=True,
                )
    return pd.DataFrame(rows)


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    keys = ["design", "judge", "diff", "method"]
    raw = raw.astype({"covered": float, "width": float, "declared": float, "error": float})
    grouped = raw.groupby(keys, sort=False)
    table = grouped.agg(
        reps=("declared", "size"),
        coverage=("covered", "mean"),
        bias=("error", "mean"),
        rmse=("error", lambda e: float(np.sqrt(np.mean(e**2)))),
        mean_width=("width", "mean"),
        declared=("declared", "mean"),
    )
    if "divergences" in raw:
        table["divergences"] = grouped["divergences"].sum()
    table["coverage_mcse"] = np.sqrt(table.coverage * (1 - table.coverage) / table.reps)
    return table.reset_index()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200, help="replicates per scenario")
    parser.add_argument("--seed", type=int, default=20261123, help="base seed")
    parser.add_argument("--design", choices=["paired", "unpaired"], action="append")
    parser.add_argument("--judge", choices=sorted(JUDGES), action="append")
    parser.add_argument("--out", type=Path, help="write the summary as Markdown here")
    parser.add_argument(
        "--judge-sigma-scale",
        type=float,
        default=SystemsPriors().judge_sigma.sigma,
        help="HalfNormal scale of the between-system spread of the judge (system judge)",
    )
    parser.add_argument("--raw", type=Path, help="write one row per replicate and method (CSV)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    priors = SystemsPriors(judge_sigma=HalfNormal(args.judge_sigma_scale))
    raw = run(
        args.reps,
        args.design or ["paired", "unpaired"],
        args.judge or list(JUDGES),
        args.seed,
        priors,
    )
    if args.raw is not None:
        raw.to_csv(args.raw, index=False)
    table = summarise(raw)
    text = table.to_markdown(index=False, floatfmt=".3f")
    print(text)
    if args.out is not None:
        header = (
            f"# Systems coverage study\n\nProduced by `python benchmarks/systems_coverage.py "
            f"--reps {args.reps}` in {time.perf_counter() - start:.0f} s.\n\n"
        )
        args.out.write_text(header + text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
