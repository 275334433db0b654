"""Fit time of the judge-panel model against the number of judges, through ``fit_panel``.

Run: python benchmarks/bench_panel_fit.py [--judges 3 4 6] [--unlabelled 2000] [--no-refit]

For each panel size a panel is simulated from :func:`bayesjudge.panels.panel_scenario` (judge
``a`` and its near-copy ``a_copy`` load 0.95 on the latent difficulty), pi = 0.7, 2,000
unlabelled items and a random gold set of 200, and fitted twice in one process with the
command's defaults (4 chains x 2,000 draws after 1,000 tuning steps, dependence
``random_effect``): the first fit pays the posterior-mode search, the model build and nutpie's
compile; the second is a refit on a new simulated panel of the same size (same padded pattern
length, so the compiled model is reused). Reported per size: pattern rows, time of the mode
search, of the first and second fit, whether the diagnostics passed (and after how many
attempts), the smallest bulk ESS over the checked variables, and the posterior sd of pi.
Results: ``benchmarks/results/panel_fit.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _record import record  # noqa: E402


def one_size(
    n_judges: int, *, n_unlabelled: int, n_gold: int, refit: bool = True
) -> dict[str, object]:
    """Simulate, search the mode, and fit (twice with ``refit``); return timings and checks."""
    from bayesjudge.errors import FitWarning
    from bayesjudge.panels.fit import fit_panel
    from bayesjudge.panels.simulate import panel_scenario, simulate_panel
    from bayesjudge.panels.start import posterior_mode

    row: dict[str, object] = {"judges": n_judges}
    for attempt, seed in (("first", 1), ("second", 2))[: 2 if refit else 1]:
        sim = simulate_panel(
            pi=0.7,
            **panel_scenario(n_judges),  # type: ignore[arg-type]
            n_unlabelled=n_unlabelled,
            n_gold=n_gold,
            random_seed=seed,
        )
        patterns = sim.data.patterns()
        if attempt == "first":
            row["patterns"] = len(patterns)
            start = time.perf_counter()
            posterior_mode(patterns)
            row["mode_s"] = round(time.perf_counter() - start, 2)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FitWarning)
            tree = fit_panel(sim.data, random_seed=seed, progressbar=False)
        row[f"{attempt}_fit_s"] = round(time.perf_counter() - start, 1)
        diagnostics = json.loads(tree.attrs["diagnostics"])
        row[f"{attempt}_passed"] = bool(tree.attrs["diagnostics_passed"])
        row[f"{attempt}_attempts"] = len(json.loads(tree.attrs["attempts"]))
        row[f"{attempt}_ess_bulk_min"] = round(float(diagnostics["ess_bulk_min"]), 0)
        row[f"{attempt}_pi_sd"] = round(float(tree["posterior"]["pi"].std()), 4)
    return row


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and record it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judges", type=int, nargs="+", default=[3, 4, 6])
    parser.add_argument("--unlabelled", type=int, default=2000)
    parser.add_argument("--gold", type=int, default=200)
    parser.add_argument("--no-refit", action="store_true", help="fit each size once")
    args = parser.parse_args(argv)
    rows = []
    for n in sorted(args.judges):
        rows.append(
            one_size(n, n_unlabelled=args.unlabelled, n_gold=args.gold, refit=not args.no_refit)
        )
        print(rows[-1], flush=True)
    frame = pd.DataFrame(rows)
    print(frame.to_string(index=False))
    command = "python benchmarks/bench_panel_fit.py " + " ".join(argv or sys.argv[1:])
    body = (
        f"{args.unlabelled} unlabelled items, a random gold set of {args.gold}, pi = 0.7, the "
        "`panel_scenario` panel; 4 chains x 2000 draws after 1000 tuning steps (the defaults). "
        "`first_fit_s` includes the mode search, the build and nutpie's compile; `second_fit_s` "
        "(without `--no-refit`) is a refit on a new panel of the same size (compiled model "
        "reused). Wall times on a shared machine: other jobs ran on the same 2 cores (load "
        f"average {os.getloadavg()[0]:.1f} at the end).\n\n" + frame.to_markdown(index=False)
    )
    record("panel_fit", "Judge panels: fit time against the number of judges", command, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
