"""Seeded coverage study of the repeated-samples model, beside rows read as independent.

The grid of the baselines' study (``repeated_baselines_coverage.py``), same design: 200 items
drawn from a logit-normal population, ``logit p_i = mu + u_c + s z_i`` (``mu`` 0.3; item spread
``s`` none 0, moderate 1, large 2.5; a cluster effect ``u_c`` with sd 0.7 when the items are
grouped in 25 clusters), 1, 3, 5 or 10 answers (epochs) per item, each answer's true label
Bernoulli(p_i), a judge with Se 0.80 and Sp 0.90 on every answer, and a random 25% of the
answers gold-labelled. 24 cells: clusters no/yes x spread none/moderate/large x 1/3/5/10 epochs.

Each replicate draws a new data set (seed ``[--seed, cell, replicate]``) and fits
:func:`bayesjudge.repeated.fit_repeated` with its cluster level when the data have clusters
(``--draws``/``--tune`` per chain, 4 chains, the one retry of the shared fitting path when a
sampler check fails, as a user gets it). It records whether the 95% intervals cover:

* ``population_rate`` against the population mean success rate
  :math:`E[\\mathrm{logit}^{-1}(\\mu + \\sqrt{s^2 + 0.7^2}\\,x)]` (quadrature), the quantity the
  baselines' study targets;
* ``mean_rate`` against the mean of the drawn items' own rates, :math:`\\frac1N\\sum_i p_i`;

and, beside them, the Rogan-Gladen delta interval on the rows read as independent answers (no
cluster, every answer its own item: what a tool without a cluster key reports) and the
clustered one (by cluster, else by item), both against the population mean.

Replicate-major order: every cell gets replicate r before any gets r + 1, so a run stopped at
any time leaves the cells equally covered. Every fit appends one row to the raw CSV, and a
rerun skips the (cell, replicate) pairs already there, so the study resumes where it stopped.

    nice -n 19 python benchmarks/repeated_coverage.py --time-limit 3000
    python benchmarks/repeated_coverage.py --summarize

``--summarize`` writes ``results/repeated_coverage.md`` from the raw CSV: per cell the number of
replicates, each coverage with its Clopper-Pearson 95% interval, median interval widths, the
share of fits that passed their diagnostics, retries, and the mean CPU seconds per fit.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from _record import RESULTS, write_result
from scipy import stats

from bayesjudge.repeated import RepeatedData, fit_repeated
from bayesjudge.repeated.baselines import rogan_gladen_clustered

EPOCHS = (1, 3, 5, 10)
SPREADS = {"none": 0.0, "moderate": 1.0, "large": 2.5}
CLUSTER_SD = 0.7
CLUSTERS = 25
ITEMS = 200
LABEL_SHARE = 0.25
MU = 0.3
SE, SP = 0.80, 0.90
BASE_SEED = 20261129
RAW = RESULTS / "repeated_coverage_raw.csv"
#: The cells in the baselines' study's order: (clusters, spread name, epochs).
CELLS = tuple(
    (with_clusters, spread, epochs)
    for with_clusters in (False, True)
    for spread in SPREADS
    for epochs in EPOCHS
)


def population_mean(sd: float) -> float:
    """E[expit(MU + sd Z)], Z standard normal, by 80-point Gauss-Hermite quadrature."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    values = 1.0 / (1.0 + np.exp(-(MU + sd * nodes)))
    return float(values @ weights / weights.sum())


def simulate(
    rng: np.random.Generator, *, epochs: int, spread: float, clustered: bool
) -> tuple[pd.DataFrame, float]:
    """Return the answers (item, verdict, label, cluster) and the drawn items' mean rate."""
    if clustered:
        cluster_of_item = rng.integers(0, CLUSTERS, size=ITEMS)
        effect = rng.normal(0.0, CLUSTER_SD, size=CLUSTERS)[cluster_of_item]
    else:
        cluster_of_item = np.arange(ITEMS)
        effect = np.zeros(ITEMS)
    p_item = 1.0 / (1.0 + np.exp(-(MU + effect + spread * rng.normal(size=ITEMS))))
    item = np.repeat(np.arange(ITEMS), epochs)
    truth = rng.random(item.size) < p_item[item]
    verdict = np.where(truth, rng.random(item.size) < SE, rng.random(item.size) > SP)
    labelled = rng.random(item.size) < LABEL_SHARE
    frame = pd.DataFrame(
        {
            "item": [f"item{i:03d}" for i in item],
            "epoch": np.tile(np.arange(1, epochs + 1), ITEMS),
            "verdict": verdict.astype(int),
            "label": pd.array(truth.astype(np.int64), dtype="Int64"),
        }
    )
    frame.loc[~labelled, "label"] = pd.NA
    if clustered:
        frame["cluster"] = [f"task{c:02d}" for c in cluster_of_item[item]]
    return frame, float(p_item.mean())


def replicate(cell: int, rep: int, *, seed: int, draws: int, tune: int) -> dict[str, object]:
    """Simulate one data set of ``cell``, fit it and return the coverage row."""
    with_clusters, spread_name, epochs = CELLS[cell]
    spread = SPREADS[spread_name]
    rng = np.random.default_rng([seed, cell, rep])
    frame, items_mean = simulate(rng, epochs=epochs, spread=spread, clustered=with_clusters)
    target = population_mean(float(np.hypot(spread, CLUSTER_SD if with_clusters else 0.0)))
    data = RepeatedData.from_frame(frame)
    start = time.process_time()
    wall = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = fit_repeated(
            data,
            draws=draws,
            tune=tune,
            random_seed=int(np.random.SeedSequence([seed, cell, rep]).generate_state(1)[0]),
            progressbar=False,
        )
    diagnostics = json.loads(tree.attrs["diagnostics"])
    row: dict[str, object] = {
        "cell": cell,
        "clusters": "yes" if with_clusters else "no",
        "spread": spread_name,
        "epochs": epochs,
        "rep": rep,
        "draws": draws,
        "tune": tune,
        "cpu_s": time.process_time() - start,
        "wall_s": time.perf_counter() - wall,
        "passed": bool(tree.attrs["diagnostics_passed"]),
        "attempts": len(json.loads(tree.attrs["attempts"])),
        "failures": ";".join(json.loads(tree.attrs["diagnostics_failures"])),
        "divergences": diagnostics["divergences"],
        **{
            f"{check['name']}_{check['variable']}": check["value"]
            for check in diagnostics["checks"]
            if check["variable"] in ("sigma", "tau") and check["name"].startswith("ess")
        },
        "population_target": target,
        "items_target": items_mean,
    }
    for name, truth in (("population_rate", target), ("mean_rate", items_mean)):
        low, high = np.quantile(tree.posterior[name].to_numpy().ravel(), [0.025, 0.975])
        row[f"{name}_covers"] = bool(low <= truth <= high)
        row[f"{name}_width"] = float(high - low)
    verdict = frame["verdict"].to_numpy(dtype=float)
    gold = frame["label"].to_numpy(dtype=float, na_value=np.nan)
    item = frame["item"].to_numpy()
    group = frame["cluster"].to_numpy() if with_clusters else None
    for name, (it, cl) in (
        ("rg_independent", (np.arange(verdict.size), None)),
        ("rg_clustered", (item, group)),
    ):
        try:
            interval = rogan_gladen_clustered(verdict, gold, it, cl).interval
        except ValueError:  # J <= 0 or an empty gold class: no interval, a miss
            interval = None
        low, high = (np.nan, np.nan) if interval is None else (interval.low, interval.high)
        row[f"{name}_covers"] = bool(low <= target <= high)
        row[f"{name}_width"] = float(high - low)
    return row


def run(
    args: argparse.Namespace,
    cells: tuple[tuple[object, ...], ...] = CELLS,
    fit_one: Callable[..., dict[str, object]] | None = None,
) -> None:
    """Fit replicates in replicate-major order, appending rows to the raw CSV, until done.

    ``cells`` are the grid's cells and ``fit_one(cell, rep, seed=, draws=, tune=)`` returns one
    replicate's row (default: this study's :func:`replicate`); the calls study reuses the loop.
    """
    fit_one = replicate if fit_one is None else fit_one
    done: set[tuple[int, int]] = set()
    columns: list[str] = []
    if args.raw.exists():
        old = pd.read_csv(args.raw)
        done = set(zip(old["cell"].astype(int), old["rep"].astype(int), strict=True))
        columns = list(old.columns)
    began = time.monotonic()
    for rep in range(args.reps):
        for cell in range(len(cells)):
            if (cell, rep) in done:
                continue
            if time.monotonic() - began > args.time_limit:
                print("time limit reached", file=sys.stderr)
                return
            row = fit_one(cell, rep, seed=args.seed, draws=args.draws, tune=args.tune)
            if columns and set(row) - set(columns):  # new columns: rewrite with them
                old = pd.read_csv(args.raw)
                columns += [name for name in row if name not in columns]
                old.reindex(columns=columns).to_csv(args.raw, index=False)
            frame = pd.DataFrame([row])
            if columns:  # the file's column order (a column a fit lacks stays empty)
                frame = frame.reindex(columns=columns)
            frame.to_csv(args.raw, mode="a", header=not args.raw.exists(), index=False)
            columns = list(frame.columns)
            print(
                f"rep {rep} cell {cell} {cells[cell]}: passed={row['passed']} "
                f"cpu={row['cpu_s']:.1f}s",
                file=sys.stderr,
                flush=True,
            )


def _with_interval(covered: pd.Series) -> str:
    """Return 'rate [low, high]' with the Clopper-Pearson 95% interval of the coverage."""
    hits, reps = int(covered.sum()), int(covered.size)
    ci = stats.binomtest(hits, reps).proportion_ci(0.95, method="exact")
    return f"{hits / reps:.3f} [{ci.low:.2f}, {ci.high:.2f}]"


def summarize(args: argparse.Namespace) -> Path:
    """Write the coverage table from the raw CSV."""
    raw = pd.read_csv(args.raw)
    raw = raw.drop_duplicates(["cell", "rep"]).sort_values(["cell", "rep"])
    columns = {
        "population_rate": "model, population mean",
        "mean_rate": "model, items' mean",
        "rg_clustered": "RG delta (clustered)",
        "rg_independent": "RG delta (rows independent)",
    }
    rows = []
    for _, group in raw.groupby("cell", sort=True):
        with_clusters, spread, epochs = CELLS[int(group["cell"].iloc[0])]
        row: dict[str, object] = {
            "clusters": "yes" if with_clusters else "no",
            "spread": spread,
            "epochs": epochs,
            "reps": len(group),
        }
        for key, label in columns.items():
            row[label] = _with_interval(group[f"{key}_covers"].astype(bool))
        for key, label in columns.items():
            row[f"width: {label}"] = float(group[f"{key}_width"].median())
        row["passed"] = float(group["passed"].mean())
        row["retried"] = float((group["attempts"] > 1).mean())
        row["CPU s"] = float(group["cpu_s"].mean())
        rows.append(row)
    table = pd.DataFrame(rows)
    pooled = {key: raw[f"{key}_covers"].astype(bool) for key in columns}
    widths = table[[f"width: {columns['population_rate']}", f"width: {columns['rg_independent']}"]]
    reps = sorted(set(table["reps"]))
    settings = ", ".join(
        f"{d} / {t}" for d, t in sorted(set(zip(raw["draws"], raw["tune"], strict=True)))
    )
    passed = raw[raw["passed"].astype(bool)]
    failures = raw.loc[~raw["passed"].astype(bool), "failures"].fillna("")
    lines = [
        "# Repeated samples: coverage of the mean success rate by the model",
        "",
        f"{len(raw)} fits: {', '.join(str(r) for r in reps)} replicates per cell (replicate-major "
        f"order, base seed {args.seed}). Design of `repeated_baselines_coverage.py`: {ITEMS} "
        f"items, mu {MU} on the logit scale, item spread none 0 / moderate 1 / large 2.5, "
        f"{CLUSTERS} clusters (sd {CLUSTER_SD}) in the clustered rows, {LABEL_SHARE:.0%} of "
        f"answers gold-labelled at random, judge Se {SE} / Sp {SP}. `fit_repeated` with the "
        f"cluster level where there are clusters, 4 chains x {settings} (draws per chain, "
        "tuning steps), one retry when a sampler check fails. 95% intervals; in "
        "brackets the Clopper-Pearson 95% interval of each coverage (with this few replicates "
        "a coverage is known only roughly).",
        "",
        "Targets: the model's `population_rate` and the two Rogan-Gladen intervals against the "
        "population mean success rate E[p]; the model's `mean_rate` against the mean of the "
        "drawn items' own rates. 'rows independent' reads every answer as its own item with no "
        "cluster, as a tool without a cluster key does.",
        "",
        "Pooled over the cells: "
        + "; ".join(f"{label} {_with_interval(pooled[key])}" for key, label in columns.items())
        + f". Fits that passed their diagnostics: {int(raw['passed'].sum())} of {len(raw)}"
        + (
            f" (coverage of the population mean among them "
            f"{_with_interval(passed['population_rate_covers'].astype(bool))})"
            if len(passed)
            else ""
        )
        + f"; retried: {int((raw['attempts'] > 1).sum())}. Median ratio of the model's "
        f"interval width to the rows-independent one over the cells: "
        f"{float((widths.iloc[:, 0] / widths.iloc[:, 1]).median()):.2f}. Mean CPU per fit "
        f"{raw['cpu_s'].mean():.1f} s.",
        "",
    ]
    by_clusters = []
    for grouped, group in raw.groupby("clusters", sort=True):
        by_clusters.append(
            f"clusters {grouped}: "
            + "; ".join(
                f"{label} {_with_interval(group[f'{key}_covers'].astype(bool))}"
                for key, label in columns.items()
            )
        )
    lines += ["Pooled by clusters: " + ". ".join(by_clusters) + ".", ""]
    ess = [
        f"{name.replace('_', ' ')} {raw[name].min():.0f} (median {raw[name].median():.0f}, "
        f"{int(raw[name].notna().sum())} fits)"
        for name in ("ess_bulk_sigma", "ess_tail_sigma", "ess_bulk_tau", "ess_tail_tau")
        if name in raw and raw[name].notna().any()
    ]
    if ess:
        lines += [
            "Fewest effective draws (of 4 x the draws per chain; the check asks 400): "
            + ", ".join(ess)
            + f"; divergent transitions in {int((raw['divergences'] > 0).sum())} fits.",
            "",
        ]
    return write_summary(args.out, lines, failures, table)


def write_summary(out: Path, lines: list[str], failures: pd.Series, table: pd.DataFrame) -> Path:
    """Write a study's summary: ``lines``, the failed checks counted by name, the cell table.

    Shared by this study and ``repeated_calls_coverage.py``; ``failures`` holds each failed
    fit's ``;``-separated check names.
    """
    counts = pd.Series([f for text in failures for f in str(text).split(";") if f]).value_counts()
    if len(counts):
        named = ", ".join(f"{name} ({n})" for name, n in counts.items())
        lines = [*lines, f"Failed checks: {named}.", ""]
    return write_result(
        out, "\n".join([*lines, table.to_markdown(index=False, floatfmt=".3f"), ""])
    )


def study_main(
    argv: list[str] | None,
    *,
    description: str,
    seed: int,
    raw: Path,
    out: Path,
    cells: tuple[tuple[object, ...], ...],
    fit_one: Callable[..., dict[str, object]],
    summarize: Callable[[argparse.Namespace], Path],
) -> int:
    """The command line of a resumable coverage study: run its replicates or ``--summarize``.

    Shared by this study and ``repeated_calls_coverage.py``; ``seed``, ``raw`` and ``out`` are
    the defaults of ``--seed``, ``--raw`` and ``--out``.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--reps", type=int, default=200, help="replicates per cell, at most")
    parser.add_argument("--time-limit", type=float, default=3000.0, help="stop after (s)")
    parser.add_argument("--seed", type=int, default=seed, help="base seed")
    parser.add_argument("--draws", type=int, default=2000, help="draws per chain")
    parser.add_argument("--tune", type=int, default=1000, help="tuning steps per chain")
    parser.add_argument("--raw", type=Path, default=raw, help="raw CSV, appended to")
    parser.add_argument("--out", type=Path, default=out)
    parser.add_argument("--summarize", action="store_true", help="write the table and stop")
    args = parser.parse_args(argv)
    if args.summarize:
        print(summarize(args))
    else:
        run(args, cells, fit_one)
    return 0


def main(argv: list[str] | None = None) -> int:
    return study_main(
        argv,
        description=__doc__.splitlines()[0],
        seed=BASE_SEED,
        raw=RAW,
        out=Path("repeated_coverage.md"),
        cells=CELLS,
        fit_one=replicate,
        summarize=summarize,
    )


if __name__ == "__main__":
    sys.exit(main())
