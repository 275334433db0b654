"""Refit replicates of the panel calibration study without the package's sampling aids.

Run from the repository root:

    python benchmarks/panel_calibration_refit.py 6 12 63      # replicates of --seed 70000

For each replicate of ``panel_calibration.py`` (same seed rule: replicate ``r`` is drawn from
seed ``--seed + r``) it fits the model twice and prints the 95 % interval of the effective number
of judges from each, beside the drawn value:

* as the calibration study does, through :func:`bayesjudge.panels.fit.fit_panel` (chains
  started at the posterior mode, coordinates whitened there, the retry);
* with the plain :func:`bayesjudge.models.panel.panel_model` compiled by nutpie, six chains from
  nutpie's own dispersed starting points, 1,500 tuning steps and 1,000 draws each at
  target_accept 0.95, and the derived quantities from
  :func:`bayesjudge.panels.quantities.panel_quantities`.

If the mode start or the whitening hid part of the posterior (a second mode, say), the two
intervals, or the plain fit's chain means, would differ.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from panel_calibration import simulate


def _interval(values: np.ndarray) -> str:
    low, high = np.quantile(values, [0.025, 0.975])
    return f"{low:.3f}-{high:.3f}"


def refit(rep: int, seed: int, n_judges: int, n_gold: int) -> None:
    import nutpie

    from bayesjudge.models.panel import panel_model
    from bayesjudge.panels.fit import fit_panel
    from bayesjudge.panels.quantities import panel_quantities

    sim = simulate(seed + rep, n_judges, n_gold)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = fit_panel(
            sim.data, calibration="random", draws=1000, random_seed=seed + rep, progressbar=False
        )
    package = tree["posterior"]["effective_judges"].to_numpy().ravel()
    package_s = time.perf_counter() - start
    start = time.perf_counter()
    patterns = sim.data.patterns()
    compiled = nutpie.compile_pymc_model(panel_model(patterns, calibration="random"))
    trace = nutpie.sample(
        compiled,
        draws=1000,
        tune=1500,
        chains=6,
        cores=2,
        seed=seed + rep,
        progress_bar=False,
        target_accept=0.95,
    )
    plain = panel_quantities(trace.posterior, patterns)["effective_judges"].to_numpy()
    divergences = int(trace.sample_stats["diverging"].sum())
    print(
        f"replicate {rep}: truth {float(sim.truth.effective_judges):.3f}; "
        f"fit_panel {_interval(package)} ({package_s:.0f} s); "
        f"plain nutpie {_interval(plain.ravel())}, chain means "
        f"{np.round(plain.mean(axis=1), 3).tolist()}, {divergences} divergences "
        f"({time.perf_counter() - start:.0f} s)",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("replicates", type=int, nargs="+")
    parser.add_argument("--seed", type=int, default=70_000, help="seed of replicate 0")
    parser.add_argument("--judges", type=int, default=3)
    parser.add_argument("--gold", type=int, default=50)
    args = parser.parse_args(argv)
    for rep in args.replicates:
        refit(rep, args.seed, args.judges, args.gold)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
