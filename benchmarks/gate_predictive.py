"""False alarms and power of the gate's posterior predictive check, with real fits.

Seeded replicates of three gates of 1,000 items, 30% of them gold-labelled, half compliant:

* ``model``: drawn from the model (the TruthfulQA / Gemini-Flash row of Below the Reliability
  Floor's Table 4, 6 rulings per item);
* ``bimodal``: violation items pass with probability 0.15 or 0.85 (half each), compliant items
  Beta(18, 2), 8 rulings: two interior modes, which no beta-binomial makes;
* ``drifting``: a judge that passes violations with probability 0.95 in its first three
  rulings and 0.05 in the last three (compliant 0.9 throughout), 6 rulings.

Each replicate is fitted by :func:`bayesjudge.fit_gate` (``--draws``/``--tune`` per chain, 2
chains) and records whether the pass-histogram check failed, which groups, whether any sampler
check failed, and whether the older per-count checks of the never- and always-passed items
failed.

Run: ``nice python benchmarks/gate_predictive.py [REPLICATES] [--draws N] [--tune N]``.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import record


def _table(rng: np.random.Generator, y: np.ndarray, verdict: np.ndarray) -> pd.DataFrame:
    n, rulings = verdict.shape
    label = np.where(rng.random(n) < 0.3, y.astype(float), np.nan)
    return pd.DataFrame(
        {
            "item": np.repeat([f"i{j}" for j in range(n)], rulings),
            "verdict": verdict.reshape(-1),
            "label": np.repeat(label, rulings),
        }
    )


def gate_table(scenario: str, seed: int, n: int = 1000) -> pd.DataFrame:
    """The rulings of one replicate of a scenario (module docstring)."""
    from bayesjudge.gates.simulate import TABLE4, rejudgment_gate, table4_gate

    if scenario == "model":
        truth = table4_gate(*TABLE4["TruthfulQA / Gemini-Flash"][:2])
        return rejudgment_gate(
            *truth, pi=0.5, n_items=n, rulings=6, labelled_fraction=0.3, random_seed=seed
        ).table
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.5
    if scenario == "bimodal":
        p = np.where(y, rng.beta(18, 2, n), np.where(rng.random(n) < 0.5, 0.15, 0.85))
        return _table(rng, y, (rng.random((n, 8)) < p[:, None]).astype(int))
    drift = np.r_[np.full(3, 0.95), np.full(3, 0.05)]
    p = np.where(y[:, None], 0.9, drift[None, :])
    return _table(rng, y, (rng.random((n, 6)) < p).astype(int))


def main() -> None:
    from bayesjudge.errors import FitWarning
    from bayesjudge.gates.data import Rulings
    from bayesjudge.gates.fit import fit_gate

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("replicates", type=int, nargs="?", default=6)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--tune", type=int, default=500)
    args = parser.parse_args()
    rows = []
    for scenario in ("model", "bimodal", "drifting"):
        for r in range(args.replicates):
            seed = 1000 * ("model", "bimodal", "drifting").index(scenario) + r
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FitWarning)
                tree = fit_gate(
                    Rulings.from_frame(gate_table(scenario, seed)),
                    draws=args.draws,
                    tune=args.tune,
                    chains=2,
                    random_seed=seed,
                    progressbar=False,
                )
            block = json.loads(tree.attrs["predictive_check"])
            failures = json.loads(tree.attrs["diagnostics_failures"])
            rows.append(
                {
                    "scenario": scenario,
                    "seed": seed,
                    "check_failed": not block["passed"],
                    "groups": " ".join(
                        t["family"] for t in block["tests"] if t["tail_prob"] < block["threshold"]
                    ),
                    "extremes_failed": any(
                        f.startswith(("ppc_tail_prob(never", "ppc_tail_prob(always"))
                        for f in failures
                    ),
                    "sampler_failed": any(not f.startswith("ppc_tail_prob") for f in failures),
                    "seconds": round(time.perf_counter() - start, 1),
                }
            )
            print(rows[-1], flush=True)
    frame = pd.DataFrame(rows)
    summary = (
        frame.groupby("scenario", sort=False)
        .agg(
            replicates=("seed", "size"),
            check_failed=("check_failed", "sum"),
            extremes_failed=("extremes_failed", "sum"),
            sampler_failed=("sampler_failed", "sum"),
            seconds=("seconds", "sum"),
        )
        .reset_index()
    )
    body = (
        "Replicates per scenario, fits of "
        f"{args.draws} draws and {args.tune} tuning steps on 2 chains. `check_failed`: the "
        "pass-histogram check (`bayesjudge.gates.predictive`) failed; `extremes_failed`: a "
        "per-count check of the never- or always-passed items failed; `sampler_failed`: a "
        "convergence check failed.\n\n"
        + summary.to_markdown(index=False)
        + "\n\n## Replicates\n\n"
        + frame.to_markdown(index=False)
    )
    record("gate_predictive", "Gate posterior predictive check: false alarms and power", "", body)


if __name__ == "__main__":
    main()
