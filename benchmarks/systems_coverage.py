"""Seeded coverage study of the difference of two systems' success rates under one judge.

Run from the repository root:

    python benchmarks/systems_coverage.py --reps 10           # a small run to see it works
    python benchmarks/systems_coverage.py --reps 200 \
        --raw benchmarks/results/systems_coverage_raw.csv        # the full study, resumable
    python benchmarks/systems_coverage.py --summary-only \
        --raw benchmarks/results/systems_coverage_raw.csv --out benchmarks/results/summary.md

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
nutpie, 2 chains x 500 draws after 500 tuning steps, and its divergences are counted. Only
``pi`` and the divergence flags are read from nutpie's raw Arrow trace (building the ArviZ
tree took half of a replicate's time and changes no draw).

The study is resumable. Replicate ``r`` of a scenario uses the ``r``-th seed of a stream keyed
on the scenario (base seed, judge, design, difference), so a run with more replicates extends a
smaller one with the same data and fits. With ``--raw`` the rows of each finished chunk of
replicates are appended to the CSV atomically (the file is rewritten to a temporary name and
renamed), and a rerun computes only the (scenario, replicate) pairs the file does not hold yet,
round-robin over the scenarios in chunks of ``--chunk`` replicates, so a run stopped at any
point leaves every scenario with about the same number of replicates. ``--time-limit`` stops
starting new chunks after that many seconds; ``--summary-only`` tabulates the CSV without
fitting.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
from _record import write_result

from bayesjudge.models.systems import systems_model, two_system_model
from bayesjudge.priors import HalfNormal, SystemsPriors
from bayesjudge.systems.baselines import difference_baselines, mcnemar_test
from bayesjudge.systems.data import SystemsData
from bayesjudge.systems.simulate import SimulatedSystems, simulate_systems

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


def _compiled(
    judge: str,
    priors: SystemsPriors,
    designs: tuple[str, ...] = ("paired", "unpaired"),
    calibrations: tuple[str, ...] = CALIBRATIONS,
    pooling: str | None = None,
) -> dict[str, object]:
    """The study's models compiled for nutpie, keyed ``"{design}_{calibration}"``.

    ``pooling`` is the system-specific judge's (``None``: the package's default, no pooling
    for two systems; ``"partial"``: the hierarchical judge with the ``judge_sigma`` prior).
    """
    import nutpie

    sim = simulate_systems(
        [0.6, 0.6], n_unlabelled=20, n_labelled=10, se=0.9, sp=0.8, random_seed=0
    )
    data = SystemsData.from_frame(sim.frame)
    models = {}
    for calibration in calibrations:
        if "paired" in designs:
            paired = two_system_model(
                data.patterns(),
                priors=priors,
                judge=judge,
                calibration=calibration,
                size=SIZE,
                pooling=pooling,
            )
            models[f"paired_{calibration}"] = nutpie.compile_pymc_model(paired)
        if "unpaired" in designs:
            unpaired = systems_model(
                data.system_counts(),
                priors=priors,
                judge=judge,
                calibration=calibration,
                pooling=pooling,
            )
            models[f"unpaired_{calibration}"] = nutpie.compile_pymc_model(unpaired)
    return models


def _posterior_diff(compiled, data: dict, *, seed: int, target_accept: float) -> tuple:
    import nutpie
    import pyarrow as pa

    raw = nutpie.sample(
        compiled.with_data(**data),
        draws=500,
        tune=500,
        chains=2,
        cores=2,
        seed=seed,
        progress_bar=False,
        target_accept=target_accept,
        return_raw_trace=True,
    )
    pi, divergences = [], 0
    for draws, stats in zip(*raw.get_arrow_trace(), strict=True):
        kept = ~pa.array(stats.column("tuning")).to_numpy(zero_copy_only=False)
        values = pa.array(draws.column("pi")).flatten().to_numpy().reshape(-1, 2)
        pi.append(values[kept])
        diverging = pa.array(stats.column("diverging")).to_numpy(zero_copy_only=False)
        divergences += int(diverging[kept].sum())
    stacked = np.concatenate(pi)
    return stacked[:, 1] - stacked[:, 0], divergences


def _row(method: str, low: float, high: float, truth: float, declared: bool, **extra) -> dict:
    return {
        "method": method,
        "covered": bool(low <= truth <= high),
        "width": high - low,
        "declared": bool(declared),
        **extra,
    }


def simulate(design: str, judge: str, diff: float, seed: int) -> SimulatedSystems:
    """The data set of one replicate: the study's design with pi_B - pi_A = ``diff``."""
    return simulate_systems(
        [PI_A, PI_A + diff],
        n_unlabelled=N_UNLABELLED,
        n_labelled=N_LABELLED,
        design=design,
        difficulty_sd=DIFFICULTY_SD,
        random_seed=seed,
        **JUDGES[judge],
    )


def replicate(design: str, judge: str, diff: float, seed: int, models: dict) -> list[dict]:
    sim = simulate(design, judge, diff, seed)
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


#: Columns of the raw CSV, in order; ``rep`` is the replicate's index in its scenario's seed
#: stream and ``seconds`` its wall time (all methods together).
COLUMNS = (
    "method",
    "covered",
    "width",
    "declared",
    "estimate",
    "divergences",
    "design",
    "judge",
    "diff",
    "seed",
    "error",
    "rep",
    "seconds",
)


def scenario_seeds(base_seed: int, judge: str, design: str, k: int, reps: int) -> np.ndarray:
    """Seeds of the first ``reps`` replicates of a scenario (a prefix of one stream)."""
    key = [base_seed, sorted(JUDGES).index(judge), DESIGNS.index(design), k]
    return np.random.SeedSequence(key).generate_state(reps)


def load_raw(path: Path, base_seed: int) -> pd.DataFrame:
    """Read the raw CSV, filling ``rep`` from the seed streams for rows written without it."""
    if not path.exists():
        return pd.DataFrame(columns=list(COLUMNS))
    raw = pd.read_csv(path)
    if "rep" not in raw or raw["rep"].isna().any():
        rep = np.full(len(raw), -1)
        for (design, judge, diff), rows in raw.groupby(["design", "judge", "diff"]):
            k = DIFFS.index(diff)
            seeds = scenario_seeds(base_seed, judge, design, k, int(rows["seed"].nunique()) * 4)
            index = {int(seed): r for r, seed in enumerate(seeds)}
            rep[rows.index] = [index.get(int(seed), -1) for seed in rows["seed"]]
        if (rep < 0).any():
            raise SystemExit(f"{path}: some seeds are not in their scenario's seed stream")
        raw["rep"] = rep
    for column in COLUMNS:
        if column not in raw:
            raw[column] = np.nan
    return raw[list(COLUMNS)]


def write_atomic(path: Path, frame: pd.DataFrame) -> None:
    """Write ``frame`` as CSV to ``path`` through a temporary file and a rename."""
    tmp = path.with_name(f".{path.name}.tmp")
    frame.to_csv(tmp, index=False)
    tmp.replace(path)


def run(
    reps: int,
    designs: Iterable[str],
    judges: Iterable[str],
    base_seed: int,
    priors: SystemsPriors,
    *,
    raw_path: Path | None = None,
    chunk: int = 10,
    time_limit: float | None = None,
    pooling: str | None = None,
) -> pd.DataFrame:
    """Compute the missing replicates (all of them without ``raw_path``) and return every row."""
    start = time.perf_counter()
    raw = load_raw(raw_path, base_seed) if raw_path is not None else pd.DataFrame()
    if raw_path is not None:
        write_atomic(raw_path, raw)
    done = set()
    if len(raw):
        done = set(
            zip(raw["design"], raw["judge"], raw["diff"], raw["rep"].astype(int), strict=True)
        )
    todo: dict[tuple[str, str, int], list[tuple[int, int]]] = {}
    for judge in judges:
        for design in designs:
            for k, diff in enumerate(DIFFS):
                seeds = scenario_seeds(base_seed, judge, design, k, reps)
                todo[(judge, design, k)] = [
                    (r, int(seed))
                    for r, seed in enumerate(seeds)
                    if (design, judge, diff, r) not in done
                ]
    total = sum(len(pairs) for pairs in todo.values())
    print(f"{len(done)} replicates on file; {total} to compute", flush=True)
    models: dict[str, dict[str, object]] = {}
    frames = [raw] if len(raw) else []
    computed = 0
    while any(todo.values()):
        for (judge, design, k), pairs in todo.items():
            if not pairs:
                continue
            if time_limit is not None and time.perf_counter() - start > time_limit:
                print(f"time limit reached after {computed} replicates", flush=True)
                return pd.concat(frames, ignore_index=True)
            if judge not in models:
                tic = time.perf_counter()
                models[judge] = _compiled(judge, priors, pooling=pooling)
                print(f"compiled the {judge}-judge models in {time.perf_counter() - tic:.0f} s")
            batch, todo[(judge, design, k)] = pairs[:chunk], pairs[chunk:]
            tic = time.perf_counter()
            rows = []
            for r, seed in batch:
                t0 = time.perf_counter()
                new = replicate(design, judge, DIFFS[k], seed, models[judge])
                for row in new:
                    row.update({"rep": r, "seconds": time.perf_counter() - t0})
                rows.extend(new)
            frame = pd.DataFrame(rows).reindex(columns=list(COLUMNS))
            frames.append(frame)
            computed += len(batch)
            if raw_path is not None:
                write_atomic(raw_path, pd.concat(frames, ignore_index=True))
            print(
                f"{time.strftime('%H:%M:%S')} {design:8s} {judge:6s} diff={DIFFS[k]:.2f}: "
                f"replicates {batch[0][0]}-{batch[-1][0]} in {time.perf_counter() - tic:.0f} s "
                f"({computed}/{total})",
                flush=True,
            )
    return pd.concat(frames, ignore_index=True)


METHOD_ORDER = (
    "bayes_paired_by_class",
    "bayes_paired_random",
    "bayes_unpaired_by_class",
    "bayes_unpaired_random",
    "naive_difference_newcombe",
    "naive_difference_tango",
    "rogan_gladen_difference",
    "ppi_difference",
    "ppi_plus_plus_difference",
    "mcnemar_mid_p",
)


def _ordered(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    table = table.reset_index()
    table["_m"] = table["method"].map(METHOD_ORDER.index)
    return table.sort_values([*keys[:-1], "_m"]).drop(columns="_m").reset_index(drop=True)


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """One row per scenario and method: coverage with its Monte Carlo error, bias, width."""
    keys = ["design", "judge", "diff", "method"]
    raw = raw.astype({"covered": float, "width": float, "declared": float, "error": float})
    grouped = raw.groupby(keys)
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
    return _ordered(table, keys)


def pooled(raw: pd.DataFrame) -> pd.DataFrame:
    """Coverage over the three differences per design, judge and method, with its MCSE.

    The MCSE is the binomial standard error of a proportion, sqrt(c (1 - c) / n), with the
    number of replicates n of the row.
    """
    keys = ["design", "judge", "method"]
    raw = raw[raw["method"] != "mcnemar_mid_p"].astype(
        {"covered": float, "width": float, "error": float}
    )
    grouped = raw.groupby(keys)
    table = grouped.agg(
        reps=("covered", "size"),
        coverage=("covered", "mean"),
        mean_width=("width", "mean"),
        bias=("error", "mean"),
    )
    table["coverage_mcse"] = np.sqrt(table.coverage * (1 - table.coverage) / table.reps)
    return _ordered(table, keys)


def false_winners(raw: pd.DataFrame) -> pd.DataFrame:
    """Rate of declaring a winner at difference 0 (nominal 0.05), with its MCSE."""
    keys = ["design", "judge", "method"]
    null = raw[raw["diff"] == 0.0].astype({"declared": float})
    table = null.groupby(keys).agg(reps=("declared", "size"), declared=("declared", "mean"))
    table["declared_mcse"] = np.sqrt(table.declared * (1 - table.declared) / table.reps)
    return _ordered(table, keys)


def markdown(raw: pd.DataFrame) -> str:
    """The three tables of the study as Markdown."""
    fmt = {"index": False, "floatfmt": ".3f"}
    return (
        "## Coverage pooled over the three differences\n\n"
        + pooled(raw).to_markdown(**fmt)
        + "\n\n## Declaring a winner when there is none (difference 0)\n\n"
        + false_winners(raw).to_markdown(**fmt)
        + "\n\n## Every scenario\n\n"
        + summarise(raw).to_markdown(**fmt)
        + "\n"
    )


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
        help="HalfNormal scale of the between-system spread of the judge (system judge, "
        "--pooling partial)",
    )
    parser.add_argument(
        "--pooling",
        choices=["none", "partial"],
        help="the system-specific judge's pooling (default: the package's, none for two "
        "systems; the rows before 2026-11-28 08:00 UTC used partial)",
    )
    parser.add_argument(
        "--raw",
        type=Path,
        help="CSV of one row per replicate and method: extended in place, only missing "
        "replicates computed",
    )
    parser.add_argument("--chunk", type=int, default=10, help="replicates per scenario chunk")
    parser.add_argument(
        "--time-limit", type=float, help="start no new chunk after this many seconds"
    )
    parser.add_argument(
        "--summary-only", action="store_true", help="tabulate --raw without fitting"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    priors = SystemsPriors(judge_sigma=HalfNormal(args.judge_sigma_scale))
    if args.summary_only:
        if args.raw is None:
            parser.error("--summary-only needs --raw")
        raw = load_raw(args.raw, args.seed)
    else:
        raw = run(
            args.reps,
            args.design or ["paired", "unpaired"],
            args.judge or list(JUDGES),
            args.seed,
            priors,
            raw_path=args.raw,
            chunk=args.chunk,
            time_limit=args.time_limit,
            pooling=args.pooling,
        )
    text = markdown(raw)
    print(text)
    if args.out is not None:
        seconds = raw.drop_duplicates(["design", "judge", "diff", "rep"])["seconds"]
        header = (
            "# Systems coverage study\n\nTables produced by `python "
            "benchmarks/systems_coverage.py --summary-only --raw RAW --out OUT` from "
            f"{raw.drop_duplicates(['design', 'judge', 'diff', 'rep']).shape[0]} replicates "
            f"(base seed {args.seed}); the replicates timed in the raw file took "
            f"{seconds.sum():.0f} s of wall time ({seconds.notna().sum()} timed), this call "
            f"{time.perf_counter() - start:.0f} s.\n\n"
        )
        write_result(args.out.resolve(), header + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
