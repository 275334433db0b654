"""Coverage of the mean success rate over items by the repeated-samples baselines.

Seeded simulation: ``--items`` items drawn from a population whose success probabilities are
logit-normal, ``logit p_i = mu + u_c + s z_i`` (``s`` the item-difficulty spread: none 0,
moderate 1, large 2.5; ``u_c`` a cluster effect with sd 0.7 when the items are grouped in
``--clusters`` clusters, absent otherwise). Each item gets 1, 3, 5 or 10 answers (epochs), each
answer's true label is Bernoulli(p_i), an imperfect judge (Se 0.80, Sp 0.90, independent given
the truth) rules on every answer, and a random share ``--label-share`` of the answers carries
its gold label. The target is the population mean success rate E[p] (computed by Gauss-Hermite
quadrature), the quantity "accuracy" estimates when the items are a sample of a task's items.

For every baseline of :mod:`bayesjudge.repeated.baselines` the clustered interval (clustered by
cluster when there are clusters, else by item) and, beside it, the interval that treats every
answer as independent (each answer its own item) are recorded, with the naive pass rate and
the per-item majority rows (another estimand, shown for comparison). Coverage is the share of
replicates whose interval holds the target; its Monte Carlo standard error is
sqrt(0.95 * 0.05 / reps).

    python benchmarks/repeated_baselines_coverage.py --reps 280 --n-boot 400 \
        --out benchmarks/results/repeated_baselines_coverage.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _record import write_result

from bayesjudge.repeated.baselines import (
    majority_baselines,
    naive_clustered,
    ppi_plus_plus_clustered,
    rogan_gladen_cluster_bootstrap,
    rogan_gladen_clustered,
)

EPOCHS = (1, 3, 5, 10)
SPREADS = {"none": 0.0, "moderate": 1.0, "large": 2.5}
CLUSTER_SD = 0.7
MU = 0.3
SE, SP = 0.80, 0.90


def population_mean(sd: float) -> float:
    """E[expit(MU + sd Z)], Z standard normal, by 80-point Gauss-Hermite quadrature."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    values = 1.0 / (1.0 + np.exp(-(MU + sd * nodes)))
    return float(values @ weights / weights.sum())


def simulate(
    rng: np.random.Generator,
    *,
    items: int,
    epochs: int,
    spread: float,
    clusters: int | None,
    label_share: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return verdict, gold (NaN unlabelled), item and cluster of every answer."""
    if clusters is None:
        cluster_of_item = np.arange(items)
        effect = np.zeros(items)
    else:
        cluster_of_item = rng.integers(0, clusters, size=items)
        effect = rng.normal(0.0, CLUSTER_SD, size=clusters)[cluster_of_item]
    p_item = 1.0 / (1.0 + np.exp(-(MU + effect + spread * rng.normal(size=items))))
    item = np.repeat(np.arange(items), epochs)
    truth = rng.random(item.size) < p_item[item]
    verdict = np.where(truth, rng.random(item.size) < SE, rng.random(item.size) > SP)
    gold = np.where(rng.random(item.size) < label_share, truth.astype(float), np.nan)
    return verdict.astype(float), gold, item, cluster_of_item[item]


def one_replicate(
    rng: np.random.Generator, *, n_boot: int, clusters: int | None, **design: object
) -> list[tuple[str, str, float, float]]:
    """Return (method, grouping, low, high) rows of one simulated data set."""
    verdict, gold, item, cluster = simulate(rng, clusters=clusters, **design)  # type: ignore[arg-type]
    flat = np.arange(verdict.size)
    group = cluster if clusters is not None else None
    rows: list[tuple[str, str, float, float]] = []

    def add(name: str, grouping: str, estimate: object) -> None:
        iv = getattr(estimate, "interval", None)
        low, high = (np.nan, np.nan) if iv is None else (iv.low, iv.high)
        rows.append((name, grouping, low, high))

    for grouping, (it, cl) in (("clustered", (item, group)), ("independent", (flat, None))):
        add("naive", grouping, naive_clustered(verdict, it, cl))
        for name, fn in (
            ("rogan_gladen_delta", rogan_gladen_clustered),
            ("ppi_plus_plus", ppi_plus_plus_clustered),
        ):
            try:
                add(name, grouping, fn(verdict, gold, it, cl))
            except ValueError:  # J <= 0 or an empty gold class: no interval, counted as a miss
                add(name, grouping, None)
        try:
            add(
                "rogan_gladen_bootstrap",
                grouping,
                rogan_gladen_cluster_bootstrap(
                    verdict, gold, it, cl, n_boot=n_boot, random_seed=rng
                ),
            )
        except ValueError:
            add("rogan_gladen_bootstrap", grouping, None)
    for name, fn in (
        ("rogan_gladen_delta", rogan_gladen_clustered),
        ("ppi_plus_plus", ppi_plus_plus_clustered),
    ):
        try:
            add(name, "clustered, small-sample", fn(verdict, gold, item, group, small_sample=True))
        except ValueError:
            add(name, "clustered, small-sample", None)
    for estimate in majority_baselines(verdict, gold, item, group):
        add(estimate.method, "clustered", estimate)
    return rows


def run(args: argparse.Namespace) -> pd.DataFrame:
    records = []
    cells = [
        (epochs, spread_name, with_clusters)
        for with_clusters in (False, True)
        for spread_name in SPREADS
        for epochs in EPOCHS
    ]
    for cell, (epochs, spread_name, with_clusters) in enumerate(cells):
        spread = SPREADS[spread_name]
        clusters = args.clusters if with_clusters else None
        sd = float(np.hypot(spread, CLUSTER_SD if with_clusters else 0.0))
        target = population_mean(sd)
        rng = np.random.default_rng([args.seed, cell])
        start = time.perf_counter()
        for rep in range(args.reps):
            for method, grouping, low, high in one_replicate(
                rng,
                n_boot=args.n_boot,
                clusters=clusters,
                items=args.items,
                epochs=epochs,
                spread=spread,
                label_share=args.label_share,
            ):
                records.append(
                    {
                        "clusters": "yes" if with_clusters else "no",
                        "spread": spread_name,
                        "epochs": epochs,
                        "rep": rep,
                        "method": method,
                        "grouping": grouping,
                        "covered": bool(low <= target <= high),
                        "width": high - low,
                    }
                )
        print(
            f"cell {cell + 1}/{len(cells)} epochs={epochs} spread={spread_name} "
            f"clusters={with_clusters}: {time.perf_counter() - start:.1f} s",
            file=sys.stderr,
        )
    return pd.DataFrame.from_records(records)


def markdown(raw: pd.DataFrame, args: argparse.Namespace, seconds: float) -> str:
    raw = raw.assign(column=raw["method"] + " (" + raw["grouping"] + ")")
    order = [
        "rogan_gladen_delta (clustered)",
        "rogan_gladen_bootstrap (clustered)",
        "ppi_plus_plus (clustered)",
        "rogan_gladen_delta (clustered, small-sample)",
        "ppi_plus_plus (clustered, small-sample)",
        "naive (clustered)",
        "rogan_gladen_delta (independent)",
        "rogan_gladen_bootstrap (independent)",
        "ppi_plus_plus (independent)",
        "naive (independent)",
        "majority_rogan_gladen_delta (clustered)",
        "majority_ppi_plus_plus (clustered)",
    ]
    keys = ["clusters", "spread", "epochs"]
    coverage = raw.pivot_table(index=keys, columns="column", values="covered", aggfunc="mean")
    width = raw.pivot_table(index=keys, columns="column", values="width", aggfunc="median")
    spread_order = {name: i for i, name in enumerate(SPREADS)}

    def table(frame: pd.DataFrame, digits: int) -> str:
        frame = frame[order].reset_index()
        frame = frame.sort_values(
            ["clusters", "spread", "epochs"],
            key=lambda s: s.map(spread_order) if s.name == "spread" else s,
        )
        short = {
            c: c.replace("rogan_gladen", "RG").replace("ppi_plus_plus", "PPI++") for c in order
        }
        frame = frame.rename(columns=short)
        return frame.to_markdown(index=False, floatfmt=f".{digits}f")

    mcse = float(np.sqrt(0.95 * 0.05 / args.reps))
    in_band = coverage[order[:3]].stack()
    in_band_ss = coverage[[order[3], order[1], order[4]]].stack()
    lines = [
        "# Repeated samples: coverage of the mean success rate by the baselines",
        "",
        f"{args.reps} replicates per cell (base seed {args.seed}), {args.items} items, "
        f"{args.label_share:.0%} of answers labelled, judge Se {SE} / Sp {SP}, "
        f"mu {MU} on the logit scale, {args.clusters} clusters (sd {CLUSTER_SD}) in the "
        f"clustered rows, {args.n_boot} bootstrap resamples; 95% intervals; Monte Carlo "
        f"standard error of a coverage near 0.95: {mcse:.3f}. Run time {seconds:.0f} s.",
        "",
        'Target: the population mean success rate E[p] over items. "clustered" intervals '
        'cluster by cluster (rows with clusters) or by item; "independent" ones treat every '
        "answer as its own item, as an evaluation tool does without a cluster key; "
        '"small-sample" ones multiply the clustered variance by C/(C-1) and use t with C-1 '
        "degrees of freedom (small_sample=True). The "
        "majority rows reduce each item to its majority verdict first (a different estimand).",
        "",
        f"Clustered Rogan-Gladen and PPI++ cells with coverage in [0.93, 0.97]: "
        f"{int(((in_band >= 0.93) & (in_band <= 0.97)).sum())} of {in_band.size}; lowest "
        f"{float(in_band.min()):.3f}, highest {float(in_band.max()):.3f}. With the "
        f"small-sample correction (variance times C/(C-1), t with C-1 df) on the delta and "
        f"PPI++ intervals: {int(((in_band_ss >= 0.93) & (in_band_ss <= 0.97)).sum())} of "
        f"{in_band_ss.size}; lowest {float(in_band_ss.min()):.3f}, highest "
        f"{float(in_band_ss.max()):.3f}.",
        "",
        "## Coverage",
        "",
        table(coverage, 3),
        "",
        "## Median interval width",
        "",
        table(width, 3),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200, help="replicates per cell")
    parser.add_argument("--seed", type=int, default=20261128, help="base seed")
    parser.add_argument("--items", type=int, default=200, help="items per data set")
    parser.add_argument("--clusters", type=int, default=25, help="clusters, when clustered")
    parser.add_argument("--label-share", type=float, default=0.25, help="labelled answers")
    parser.add_argument("--n-boot", type=int, default=500, help="bootstrap resamples")
    parser.add_argument("--out", type=Path, help="write the summary as Markdown here")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    raw = run(args)
    text = markdown(raw, args, time.perf_counter() - start)
    print(text)
    if args.out is not None:
        write_result(args.out.resolve(), text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
