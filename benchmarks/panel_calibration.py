r"""Simulation-based calibration of the judge-panel model at small gold sets.

The recovery study (``panel_recovery.py``) fixes one scenario, a near-copy pair of judges with
loadings 0.95, and there the 95 % intervals of Se and Sp cover 0.85 to 0.87 with 50 gold items.
A Bayesian interval covers at its nominal rate on average over the prior, not at every fixed
parameter value; this script measures the first so that a shortfall at one scenario can be told
apart from an error in the model or the sampler (Cook, Gelman and Rubin, "Validation of software
for Bayesian models using posterior quantiles", JCGS, 2006; Talts et al., "Validating Bayesian
inference algorithms with simulation-based calibration", 2018).

Each replicate draws the parameters from the model's own prior
(:class:`bayesjudge.priors.PanelPriors` defaults: pi ~ Beta(1/2, 1/2); every Se and Sp ~ U(0, 1);
every loading 0.99 x U(0, 1) per class), conditioned as the model conditions it on the panel's mean
accuracy coordinate being positive (the mirror image removed; the coordinate from
:func:`bayesjudge.panels.start.sampling_coordinates`, tested against the model's own map),
simulates 2,000 unlabelled and ``--gold`` random gold items from those values, and fits the model
as a user would (:func:`bayesjudge.panels.fit.fit_panel`, ``calibration="random"``, mode start,
retry; 4 chains x 1,000 draws as in the recovery study). When the gold items lack a class (which
the model refuses), parameters and data are drawn again together: that rejects draws of the joint
law on the data alone, so each posterior is unchanged by it and the average coverage stays nominal
(the joint law is only restricted to the kept data sets; redrawing the data alone would change the
law of the parameters).

Reported: the coverage of the central 50 %, 80 % and 95 % intervals of pi, of every Se and of
every Sp, of the effective number of judges and of every loading against the drawn values, with
standard errors: binomial at the nominal level, and for the Se, Sp and loading rows, which pool
the judges of a replicate, also clustered by replicate, in brackets (from the spread of each
replicate's misses about the pooled rate, so the dependence between one panel's intervals
counts). For pi and the effective number the raw rows also hold ``NAME_u``, the
share of posterior draws below the drawn value (uniform over replicates when the model is
calibrated; rows written before 2026-11-28 10:00 UTC lack it), which shows on which side the
misses fall; for every judge's Se and Sp the same share is ``se_uK`` and ``sp_uK`` (judge ``K``;
rows written from 2026-11-28 11:00 UTC).

Usage::

    python benchmarks/panel_calibration.py --gold 50 --replicates 100 \
        --raw results/panel_calibration_raw.csv
    python benchmarks/panel_calibration.py --summary results/panel_calibration_raw.csv
    python benchmarks/panel_calibration.py --summary A.csv B.csv     # two seed series pooled

With ``--raw`` each replicate's row is added at once (in one rename) and a later run computes
only the replicates the file lacks; the seed of replicate ``r`` is ``--seed + r``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bayesjudge.panels.dependence import LOADING_MAX
from bayesjudge.panels.simulate import SimulatedPanel, simulate_panel
from bayesjudge.panels.start import sampling_coordinates

sys.path.insert(0, str(Path(__file__).resolve().parent))
from panel_recovery import N_UNLABELLED, _append, _covers

LEVELS = (0.5, 0.8, 0.95)
QUANTITIES = ("pi", "se", "sp", "effective_judges", "loading")


def prior_draw(
    rng: np.random.Generator, n_judges: int
) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """One draw of (pi, Se, Sp, loadings [class, judge]) from the panel model's default prior."""
    while True:
        pi = float(rng.beta(0.5, 0.5))
        se = rng.uniform(size=n_judges)
        sp = rng.uniform(size=n_judges)
        loading = LOADING_MAX * rng.uniform(size=(2, n_judges))
        if not 0.0 < pi < 1.0:
            continue
        try:  # the model's own coordinates: rejects the mirror half (mean accuracy <= 0)
            sampling_coordinates(pi, se, sp)
        except ValueError:
            continue
        return pi, se, sp, loading


def simulate(seed: int, n_judges: int, n_gold: int) -> SimulatedPanel:
    """Parameters from the prior and a data set with gold items of both classes.

    A draw whose gold items lack a class is rejected whole (parameters and data), which samples
    the joint law restricted to the kept data sets.
    """
    rng = np.random.default_rng(seed)
    while True:
        pi, se, sp, loading = prior_draw(rng, n_judges)
        sim = simulate_panel(
            pi=pi,
            se=se,
            sp=sp,
            loading=loading,
            n_unlabelled=N_UNLABELLED,
            n_gold=n_gold,
            judges=[f"j{t}" for t in range(n_judges)],
            random_seed=rng,
        )
        if set(np.unique(sim.data.labels[~np.isnan(sim.data.labels)])) == {0.0, 1.0}:
            return sim


def replicate_row(
    rep: int, *, seed: int, n_judges: int, n_gold: int, draws: int
) -> dict[str, object]:
    """Fit replicate ``rep`` and return its coverage indicators."""
    from bayesjudge.errors import FitWarning
    from bayesjudge.inference.fit import attempts_of
    from bayesjudge.panels.fit import fit_panel

    sim = simulate(seed + rep, n_judges, n_gold)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitWarning)
        tree = fit_panel(
            sim.data,
            calibration="random",
            draws=draws,
            random_seed=seed + rep,
            progressbar=False,
            # the prior drawn from here has continuous loadings only: the model without the
            # spike at independence (fit_panel's default since 2026-11-28 is independence=0.5)
            independence=0.0,
        )
    post = tree["posterior"]
    truth = sim.truth
    row: dict[str, object] = {
        "replicate": rep,
        "judges": n_judges,
        "gold": n_gold,
        "pi": truth.pi,
        "min_j": float((truth.se + truth.sp - 1.0).min()),
        "passed": bool(tree.attrs["diagnostics_passed"]),
        "attempts": len(attempts_of(tree)),
        "fit_s": time.perf_counter() - start,
    }
    for name in QUANTITIES:  # each one a posterior variable and an attribute of the truth
        values = getattr(truth, name)
        sample = post[name].to_numpy()
        for level in LEVELS:
            hits = np.atleast_1d(_covers(sample, values, level))
            row[f"{name}_{round(100 * level)}"] = int(hits.sum())
        row[f"{name}_n"] = int(np.size(values))
        # where each drawn value falls in its posterior (SBC's rank / draws)
        if np.size(values) == 1:
            row[f"{name}_u"] = float(np.mean(sample < float(np.asarray(values))))
        elif name in ("se", "sp"):
            flat = sample.reshape(-1, sample.shape[-1])
            for k, value in enumerate(np.asarray(values)):
                row[f"{name}_u{k}"] = float(np.mean(flat[:, k] < value))
    return row


def summary(raw: pd.DataFrame) -> pd.DataFrame:
    """Coverage per quantity and level, with binomial (and replicate-clustered) standard errors."""
    out = []
    for (judges, gold), cell in raw.groupby(["judges", "gold"]):
        for name in QUANTITIES:
            if f"{name}_n" not in cell:
                continue
            rows = cell[cell[f"{name}_n"].notna()]  # rows written before it was recorded lack it
            if rows.empty:
                continue
            n = int(rows[f"{name}_n"].sum())
            entry: dict[str, object] = {
                "judges": judges,
                "gold": gold,
                "quantity": name,
                "reps": len(rows),
                "intervals": n,
            }
            for level in LEVELS:
                hit = rows[f"{name}_{round(100 * level)}"].sum() / n
                se = np.sqrt(level * (1.0 - level) / n)
                cell_text = f"{hit:.3f} +- {se:.3f}"
                if rows[f"{name}_n"].max() > 1:  # several intervals per replicate
                    hits = rows[f"{name}_{round(100 * level)}"].to_numpy(dtype=float)
                    sizes = rows[f"{name}_n"].to_numpy(dtype=float)
                    clustered = np.sqrt(np.sum((hits - hit * sizes) ** 2)) / n
                    cell_text += f" ({clustered:.3f})"
                entry[f"cov_{round(100 * level)}"] = cell_text
            out.append(entry)
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judges", type=int, default=3, help="panel size")
    parser.add_argument("--gold", type=int, default=50, help="gold-set size")
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--draws", type=int, default=1000, help="draws per chain (4 chains)")
    parser.add_argument("--seed", type=int, default=70_000, help="seed of replicate 0")
    parser.add_argument("--raw", type=Path, help="CSV of one row per replicate (resumable)")
    parser.add_argument(
        "--summary", type=Path, nargs="+", help="only tabulate these CSVs (their rows pooled)"
    )
    args = parser.parse_args(argv)
    if args.summary is not None:
        raw = pd.concat([pd.read_csv(path) for path in args.summary], ignore_index=True)
        print(summary(raw).to_markdown(index=False))
        return 0
    done: set[int] = set()
    if args.raw is not None and args.raw.exists():
        old = pd.read_csv(args.raw)
        mine = old[(old["judges"] == args.judges) & (old["gold"] == args.gold)]
        done = set(mine["replicate"].astype(int))
    rows = []
    for rep in range(args.replicates):
        if rep in done:
            continue
        row = replicate_row(
            rep, seed=args.seed, n_judges=args.judges, n_gold=args.gold, draws=args.draws
        )
        rows.append(row)
        if args.raw is not None:
            _append(args.raw, pd.DataFrame([row]))
        print(
            f"{time.strftime('%H:%M:%S')} replicate {rep}: pi {row['pi']:.3f} "
            f"fit {row['fit_s']:.0f} s passed {row['passed']}",
            flush=True,
        )
    rows_frame = pd.read_csv(args.raw) if args.raw is not None else pd.DataFrame(rows)
    print(summary(rows_frame).to_markdown(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
