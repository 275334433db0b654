"""Coverage of the two-system paired model with an unpooled judge, from a near-exact posterior.

Run from the repository root:

    python benchmarks/systems_unpooled_reference.py --reps 1000 \\
        --raw benchmarks/results/systems_unpooled_reference_raw.csv
    python benchmarks/systems_unpooled_reference.py --reps 1000 --calibration random \\
        --raw benchmarks/results/systems_unpooled_reference_random_raw.csv

The data sets are the coverage study's "paired, system" scenarios (``systems_coverage.py``:
replicate ``r`` of a difference is drawn from the same seed, so replicates 0-399 are the very
data sets the study fits). The model is the paired two-system model with a judge per system and
no pooling (:func:`bayesjudge.models.systems.two_system_model`, ``judge="system"``, the default
``pooling`` for two systems): Jeffreys priors on each system's Se and Sp restricted to J > 0,
Dirichlet(1/2) on the four joint outcomes.

Its posterior is computed without MCMC, by importance sampling
(:func:`bayesjudge.systems.exact.unpooled_two_system`, whose docstring has the method; 200,000
draws per replicate, the effective sample size of each recorded). The same function agrees with
nutpie fits of the model to Monte Carlo error (``tests/systems/test_fits.py``).

Per replicate: whether the equal-tailed 95 % interval of pi_B - pi_A covers the truth, the
posterior mean's error, the posterior sd and the interval. ``--summary`` tabulates a CSV.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import systems_coverage as study

from bayesjudge.systems.data import SystemsData
from bayesjudge.systems.exact import unpooled_two_system


def replicate(
    diff: float, seed: int, rng: np.random.Generator, *, calibration: str
) -> dict[str, float]:
    sim = study.simulate("paired", "system", diff, seed)
    post = unpooled_two_system(
        SystemsData.from_frame(sim.frame).patterns(), calibration=calibration, random_seed=rng
    )
    low, high = post.quantile([0.025, 0.975])
    return {
        "covered": bool(low <= sim.diff <= high),
        "error": post.mean - sim.diff,
        "sd": post.sd,
        "low": float(low),
        "high": float(high),
        "ess": post.ess,
    }


def summary(raw: pd.DataFrame) -> pd.DataFrame:
    def one(group: pd.DataFrame) -> pd.Series:
        cov = group["covered"].mean()
        return pd.Series(
            {
                "reps": len(group),
                "coverage": cov,
                "coverage_mcse": np.sqrt(cov * (1 - cov) / len(group)),
                "bias": group["error"].mean(),
                "sd_ratio": np.sqrt((group["error"] ** 2).mean() / (group["sd"] ** 2).mean()),
                "width": (group["high"] - group["low"]).mean(),
                "ess_min": group["ess"].min(),
            }
        )

    rows = raw.groupby(["calibration", "diff"]).apply(one, include_groups=False).reset_index()
    pooled = raw.groupby("calibration").apply(one, include_groups=False).reset_index()
    return pd.concat([rows, pooled.assign(diff="all")]).round(4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000, help="replicates per difference")
    parser.add_argument("--seed", type=int, default=20261123, help="the study's base seed")
    parser.add_argument("--calibration", choices=["by_class", "random"], default="by_class")
    parser.add_argument("--raw", type=Path, help="write one row per replicate here")
    parser.add_argument("--summary", type=Path, help="only tabulate this CSV")
    args = parser.parse_args(argv)
    if args.summary is not None:
        print(summary(pd.read_csv(args.summary)).to_markdown(index=False))
        return 0
    rng = np.random.default_rng([args.seed, 1 if args.calibration == "random" else 0])
    rows = []
    start = time.perf_counter()
    for k, diff in enumerate(study.DIFFS):
        seeds = study.scenario_seeds(args.seed, "system", "paired", k, args.reps)
        for r, seed in enumerate(seeds):
            row = replicate(diff, int(seed), rng, calibration=args.calibration)
            rows.append({"calibration": args.calibration, "diff": diff, "rep": r, **row})
        print(
            f"diff {diff}: {args.reps} replicates, {time.perf_counter() - start:.0f} s", flush=True
        )
    raw = pd.DataFrame(rows)
    if args.raw is not None:
        study.write_atomic(args.raw, raw)
    print(summary(raw).to_markdown(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
