"""Steps per draw and effective sample size of one short panel fit, at a given item count.

Run: python benchmarks/bench_panel_probe.py N [--chains 2] [--draws 500]

Fits ``panel_scenario(4)`` (pi 0.7, 200 gold items, N unlabelled items, seed 1) with
:func:`bayesjudge.panels.fit.fit_panel`, tuning steps equal to the draws and no escalation, and
prints the wall time (compile included on a cold cache), the mean leapfrog steps per draw, the
mean step size, the divergences and the diagnostics' smallest bulk and tail ESS.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

from bayesjudge.panels.fit import fit_panel
from bayesjudge.panels.simulate import panel_scenario, simulate_panel


def main() -> None:
    """Fit once and print one JSON line."""
    parser = argparse.ArgumentParser()
    parser.add_argument("items", type=float)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--draws", type=int, default=500)
    args = parser.parse_args()
    n = int(args.items)
    sim = simulate_panel(pi=0.7, **panel_scenario(4), n_unlabelled=n, n_gold=200, random_seed=1)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = fit_panel(
            sim.data,
            random_seed=1,
            progressbar=False,
            chains=args.chains,
            draws=args.draws,
            tune=args.draws,
            escalate=False,
        )
    seconds = time.perf_counter() - start
    stats = tree["sample_stats"]
    diagnostics = json.loads(tree.attrs["diagnostics"])
    print(
        json.dumps(
            {
                "items": n,
                "seconds": round(seconds, 1),
                "steps_per_draw": round(float(stats["n_steps"].mean()), 2),
                "step_size": round(float(stats["step_size"].mean()), 4),
                "divergences": int(stats["diverging"].sum()),
                "ess_bulk_min": round(diagnostics["ess_bulk_min"]),
                "ess_tail_min": round(diagnostics["ess_tail_min"]),
            }
        )
    )


if __name__ == "__main__":
    main()
