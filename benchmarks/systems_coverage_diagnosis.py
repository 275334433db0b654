"""Why does the paired model's 95 % interval of pi_B - pi_A cover less often than nominal?

Run from the repository root after ``benchmarks/systems_coverage.py`` (same data, same seeds):

    python benchmarks/systems_coverage.py --reps 200 --judge shared --design paired \\
        --raw benchmarks/results/systems_coverage_raw.csv
    python benchmarks/systems_coverage_diagnosis.py --reps 200 \\
        --out benchmarks/results/systems_coverage_diagnosis.md

For the paired design with a shared judge (the scenarios of the coverage study, replicate r of
each difference drawn from the same seed) it refits the paired model with
``calibration="by_class"`` under two sampler settings, the study's (nutpie, 2 chains x 500
draws after 500 tuning steps: the same draws as the study) and the package's default (4 chains
x 2000 draws after 1000), and with the study's settings the paired model with
``calibration="random"`` and the unpaired model with ``"by_class"``.
From the draws of each fit it records the posterior mean and sd of the difference, the
equal-tailed 95 % interval and the posterior quantile of the truth, u = P(diff < truth | data).

What separates the candidate causes:

* the sampler: if the short runs undercover and the long ones do not, the Monte Carlo error of
  the interval bounds is the cause;
* the interval's width against the estimator's spread: ``sd_ratio`` is the root mean square of
  (posterior mean - truth) divided by the root mean square posterior sd; above 1 the posterior
  is too narrow for the sampling variation of its own mean;
* location: the mean of (posterior mean - truth), against its standard error.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import systems_coverage as study
from _record import write_result

from bayesjudge.priors import SystemsPriors
from bayesjudge.systems.data import SystemsData

SETTINGS = {
    "study (2 x 500)": {"draws": 500, "tune": 500, "chains": 2},
    "default (4 x 2000)": {"draws": 2000, "tune": 1000, "chains": 4},
}
#: (model, calibration, sampler settings) refitted on each replicate
FITS = (
    ("paired", "by_class", tuple(SETTINGS)),
    ("paired", "random", ("study (2 x 500)",)),
    ("unpaired", "by_class", ("study (2 x 500)",)),
)


def _draws(compiled, data: dict, *, seed: int, draws: int, tune: int, chains: int) -> np.ndarray:
    import nutpie
    import pyarrow as pa

    raw = nutpie.sample(
        compiled.with_data(**data),
        draws=draws,
        tune=tune,
        chains=chains,
        cores=2,
        seed=seed,
        progress_bar=False,
        target_accept=0.8,
        return_raw_trace=True,
    )
    pi = []
    for batch, stats in zip(*raw.get_arrow_trace(), strict=True):
        kept = ~pa.array(stats.column("tuning")).to_numpy(zero_copy_only=False)
        pi.append(pa.array(batch.column("pi")).flatten().to_numpy().reshape(-1, 2)[kept])
    stacked = np.concatenate(pi)
    return stacked[:, 1] - stacked[:, 0]


def run(
    reps: int, base_seed: int, diffs: list[float], raw_path: Path | None = None
) -> pd.DataFrame:
    models = study._compiled("shared", SystemsPriors())
    rows: list[dict] = []
    for diff in diffs:
        k = study.DIFFS.index(diff)
        seeds = study.scenario_seeds(base_seed, "shared", "paired", k, reps)
        for r, seed in enumerate(seeds):
            sim = study.simulate("paired", "shared", diff, int(seed))
            data = SystemsData.from_frame(sim.frame)
            counts = data.system_counts().as_dict()
            unpaired = {
                "m1": counts["m1"],
                "x1_obs": counts["x1"],
                "m0": counts["m0"],
                "x0_obs": counts["x0"],
                "n": counts["n"],
                "k_obs": counts["k"],
            }
            values = {"paired": data.patterns().padded(study.SIZE), "unpaired": unpaired}
            for model, calibration, settings in FITS:
                compiled = models[f"{model}_{calibration}"]
                for setting in settings:
                    draws = _draws(compiled, values[model], seed=int(seed), **SETTINGS[setting])
                    low, high = np.quantile(draws, [0.025, 0.975])
                    rows.append(
                        {
                            "diff": diff,
                            "rep": r,
                            "model": model,
                            "calibration": calibration,
                            "setting": setting,
                            "mean": float(draws.mean()),
                            "sd": float(draws.std()),
                            "covered": bool(low <= sim.diff <= high),
                            "u": float(np.mean(draws < sim.diff)),
                            "error": float(draws.mean() - sim.diff),
                        }
                    )
            if raw_path is not None and (r + 1) % 25 == 0:
                study.write_atomic(raw_path, pd.DataFrame(rows))
                stamp = time.strftime("%H:%M:%S")
                print(f"{stamp} diff={diff:.2f}: {r + 1} replicates", flush=True)
    return pd.DataFrame(rows)


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """Coverage, its MCSE, bias with its standard error, sd ratio and tail shares of u."""
    keys = ["diff", "model", "calibration", "setting"]

    def one(group: pd.DataFrame) -> pd.Series:
        n = len(group)
        coverage = group["covered"].mean()
        return pd.Series(
            {
                "reps": n,
                "coverage": coverage,
                "coverage_mcse": np.sqrt(coverage * (1 - coverage) / n),
                "bias": group["error"].mean(),
                "bias_se": group["error"].std(ddof=1) / np.sqrt(n),
                "sd_ratio": np.sqrt(np.mean(group["error"] ** 2) / np.mean(group["sd"] ** 2)),
                "u_below_0.025": float(np.mean(group["u"] < 0.025)),
                "u_above_0.975": float(np.mean(group["u"] > 0.975)),
            }
        )

    rows = [one(group).rename(name) for name, group in raw.groupby(keys)]
    table = pd.DataFrame(rows)
    table.index = pd.MultiIndex.from_tuples(table.index, names=keys)
    return table.reset_index()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200, help="replicates per difference")
    parser.add_argument("--seed", type=int, default=20261123, help="base seed of the study")
    parser.add_argument("--raw", type=Path, help="write one row per fit (CSV)")
    parser.add_argument("--out", type=Path, help="write the summary as Markdown here")
    parser.add_argument(
        "--diff", type=float, action="append", choices=study.DIFFS, help="differences to run"
    )
    parser.add_argument(
        "--summary-only", action="store_true", help="tabulate --raw without fitting"
    )
    parser.add_argument(
        "--pooling-scale",
        type=float,
        action="append",
        help="instead: refit the paired system-judge by_class model with judge_sigma "
        "HalfNormal(SCALE) on the study's replicates (--diff, --reps) and write --raw",
    )
    parser.add_argument(
        "--sampler",
        choices=["study", "default"],
        default="study",
        help="with --pooling-scale: the study's sampler settings (2 x 500, no retry) or the "
        "package's fit_systems defaults (4 x 2000, start at the mode, one retry)",
    )
    args = parser.parse_args(argv)
    if args.pooling_scale:
        diffs = args.diff or list(study.DIFFS)
        pooled = pooling_check(
            args.reps, args.seed, diffs, args.pooling_scale, sampler=args.sampler, raw_path=args.raw
        )
        table = pooled.groupby(["scale", "diff"]).agg(
            reps=("covered", "size"),
            coverage=("covered", "mean"),
            above=("above", "sum"),
            below=("below", "sum"),
            bias=("error", "mean"),
            mean_sd=("sd", "mean"),
            divergences=("divergences", "sum"),
        )
        print(table.reset_index().to_markdown(index=False, floatfmt=".3f"))
        return 0
    if args.summary_only:
        if args.raw is None:
            parser.error("--summary-only needs --raw")
        raw = pd.read_csv(args.raw)
    else:
        raw = run(args.reps, args.seed, args.diff or list(study.DIFFS), args.raw)
        if args.raw is not None:
            study.write_atomic(args.raw, raw)
    text = summarise(raw).to_markdown(index=False, floatfmt=".3f")
    print(text)
    if args.out is not None:
        header = (
            "# Systems coverage: diagnosis of the paired design with a shared judge\n\n"
            f"Produced by `python benchmarks/systems_coverage_diagnosis.py --reps {args.reps}` "
            f"({len(raw)} fits; differences {sorted(raw['diff'].unique().tolist())}, "
            f"replicates per difference and fit as in the reps column).\n\n"
        )
        write_result(args.out.resolve(), header + text + "\n")
    return 0


def pooling_check(
    reps: int,
    base_seed: int,
    diffs: list[float],
    scales: list[float],
    *,
    sampler: str = "study",
    raw_path: Path | None = None,
) -> pd.DataFrame:
    """Refit the paired model (system judge, by_class) with judge_sigma HalfNormal(scale).

    The replicates are the coverage study's "paired, system" ones. With ``sampler="study"``
    the sampler settings are the study's too (nutpie, 2 x 500, target_accept 0.95, no retry),
    so with the default scale 1.5 the fits are the study's. With ``sampler="default"`` each
    replicate is fitted by :func:`bayesjudge.systems.fit.fit_systems` as a user's call would
    be (4 chains x 2000 draws after 1000 tuning steps, chains started at the mode, one retry
    when a sampler check fails).

    With ``raw_path`` every row so far is rewritten there (atomically) after every ten fits and
    at the end, and rows already in it (same scale, sampler, difference and replicate) are
    kept and not refitted: a stopped run resumes where it stopped. Returns the rows of this
    call's scales, sampler, differences and first ``reps`` replicates.
    """
    from bayesjudge.priors import HalfNormal

    rows = [] if raw_path is None or not raw_path.exists() else _read_rows(raw_path)
    done = {(r["scale"], r["sampler"], r["diff"], r["rep"]) for r in rows}
    fitted = 0
    for scale in scales:
        priors = SystemsPriors(judge_sigma=HalfNormal(scale))
        compiled = None
        if sampler == "study":  # fit_systems compiles (and caches) its own model
            models = study._compiled("system", priors, ("paired",), ("by_class",), "partial")
            compiled = models["paired_by_class"]
        for diff in diffs:
            fits = _pooling_rows(reps, base_seed, diff, scale, priors, compiled, sampler, done)
            for row in fits:
                rows.append(row)
                fitted += 1
                if raw_path is not None and fitted % 10 == 0:
                    study.write_atomic(raw_path, pd.DataFrame(rows))
            print(f"{time.strftime('%H:%M:%S')} scale {scale} diff={diff:.2f}: {reps}", flush=True)
    frame = pd.DataFrame(rows)
    if raw_path is not None:
        study.write_atomic(raw_path, frame)
    keep = frame["sampler"].eq(sampler) & frame["scale"].isin(scales) & frame["diff"].isin(diffs)
    return frame[keep & frame["rep"].lt(reps)]


def _read_rows(path: Path) -> list[dict]:
    """The rows of an earlier run; those written before the sampler column are the study's."""
    frame = pd.read_csv(path)
    frame["sampler"] = frame["sampler"].fillna("study")
    return frame.to_dict("records")


def _pooling_rows(
    reps: int,
    base_seed: int,
    diff: float,
    scale: float,
    priors: SystemsPriors,
    compiled: object | None,
    sampler: str,
    done: set,
) -> Iterator[dict]:
    """Fit the replicates of one difference that are not in ``done``, one row per fit.

    ``compiled`` is the study's paired by_class model under ``priors`` (``sampler="study"``).
    """
    k = study.DIFFS.index(diff)
    for r, seed in enumerate(study.scenario_seeds(base_seed, "system", "paired", k, reps)):
        if (scale, sampler, diff, r) in done:
            continue
        sim = study.simulate("paired", "system", diff, int(seed))
        data = SystemsData.from_frame(sim.frame)
        passed, attempts = True, 1
        if sampler == "default":
            draws, divergences, passed, attempts = _default_fit(data, priors, int(seed))
        else:
            draws, divergences = study._posterior_diff(
                compiled, data.patterns().padded(study.SIZE), seed=int(seed), target_accept=0.95
            )
        low, high = np.quantile(draws, [0.025, 0.975])
        yield {
            "diff": diff,
            "rep": r,
            "scale": scale,
            "mean": float(draws.mean()),
            "sd": float(draws.std()),
            "covered": bool(low <= sim.diff <= high),
            "above": bool(low > sim.diff),
            "below": bool(high < sim.diff),
            "error": float(draws.mean() - sim.diff),
            "divergences": divergences,
            "sampler": sampler,
            "passed": passed,
            "attempts": attempts,
        }


def _default_fit(
    data: SystemsData, priors: SystemsPriors, seed: int
) -> tuple[np.ndarray, int, bool, int]:
    """Draws of pi_B - pi_A from the package's own fit, its divergences, verdict and attempts."""
    import warnings

    from bayesjudge.errors import FitWarning
    from bayesjudge.inference.fit import attempts_of
    from bayesjudge.systems.fit import fit_systems

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitWarning)
        tree = fit_systems(
            data,
            judge="system",
            pooling="partial",  # the hierarchical judge these rows measured
            calibration="by_class",
            priors=priors,
            random_seed=seed,
            progressbar=False,
        )
    pi = tree["posterior"]["pi"]
    diff = (pi.sel(system="B") - pi.sel(system="A")).to_numpy().ravel()  # simulate_systems' names
    divergences = int(tree["sample_stats"]["diverging"].sum())
    attempts = len(attempts_of(tree))
    return diff, divergences, bool(tree.attrs["diagnostics_passed"]), attempts


if __name__ == "__main__":
    sys.exit(main())
