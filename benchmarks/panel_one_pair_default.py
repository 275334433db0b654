r"""What the panel command answers today on a panel with one dependent pair (seeded, small).

The one-pair scenario of ``panel_independence.py`` (four judges, judges 1 and 2 sharing the item
effect with loading 0.85 in both classes, true effective number 3.249; pi = 0.6, 2,000
unlabelled and 200 random gold items), fitted three ways on each seed:

* ``analyze_panel(dependence="auto")``: fits the random-effect form with the per-class spike
  (``independence`` 0.5, ``spike="class"``: exactly the default ``analyze_panel`` /
  ``bayesjudge panel`` fit, same seed and settings) and the pair form, and keeps one by PSIS-LOO
  (:func:`bayesjudge.panels.choice.choose_dependence`); printed: the form kept, the elpd
  difference and its standard error, and the effective number under the form kept;
* the pair form alone (``fit_panel(dependence="none", pairs="auto")``): its effective number.

4 chains x ``--draws`` after ``--tune``, ``calibration="by_class"`` (the default).

Usage::

    python benchmarks/panel_one_pair_default.py --seeds 2700 2701 2702
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from bayesjudge.panels.analysis import analyze_panel
from bayesjudge.panels.fit import fit_panel
from bayesjudge.panels.simulate import simulate_panel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from panel_independence import PI, SE, SP, loadings


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[2700, 2701, 2702])
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--tune", type=int, default=500)
    args = parser.parse_args(argv)
    for seed in args.seeds:
        sim = simulate_panel(
            pi=PI,
            se=SE,
            sp=SP,
            loading=loadings("one_pair", 0.85),
            n_unlabelled=2000,
            n_gold=200,
            random_seed=seed,
        )
        settings = {"random_seed": seed, "draws": args.draws, "tune": args.tune}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            auto = analyze_panel(sim.data, dependence="auto", progressbar=False, **settings)
            auto_s = time.perf_counter() - start
            start = time.perf_counter()
            pairs = fit_panel(
                sim.data, dependence="none", pairs="auto", progressbar=False, **settings
            )
            pairs_s = time.perf_counter() - start
        choice = auto.dependence_choice
        n_pairs = pairs["posterior"]["effective_judges"].to_numpy().ravel()
        row = {
            "seed": seed,
            "truth": float(sim.truth.effective_judges),
            "kept": auto.dependence,
            "elpd_pairs_minus_random_effect": None if choice is None else choice.difference,
            "se": None if choice is None else choice.difference_se,
            "n_eff_kept": auto.effective_judges.to_dict(),
            "passed_kept": auto.passed,
            "seconds_auto": round(auto_s, 1),
            "pairs": json.loads(pairs.attrs["pairs"]),
            "n_eff_pairs": {
                "mean": float(n_pairs.mean()),
                "low": float(np.quantile(n_pairs, 0.025)),
                "high": float(np.quantile(n_pairs, 0.975)),
            },
            "passed_pairs": bool(pairs.attrs["diagnostics_passed"]),
            "seconds_pairs": round(pairs_s, 1),
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
