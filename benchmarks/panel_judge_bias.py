"""Which judge's Se and Sp does the panel model miss at small gold sets, and in which direction?

Run from the repository root:

    python benchmarks/panel_judge_bias.py GOLD FIRST STOP OUT.csv [--prior loading=beta:2,1]
        [--loading 0.3]

Refits replicates ``FIRST`` to ``STOP - 1`` of the three-judge cell with ``GOLD`` gold items of
``benchmarks/panel_recovery.py`` (the same seeds, data and sampler settings: 4 chains x 1000
draws after 1000 tuning steps, ``calibration="random"``; no retry, as in the study's first
runs, with each fit's diagnostic verdict kept in the ``passed`` column) and writes one row per
(replicate, judge, Se or Sp): the truth, the posterior mean and 95% interval, whether it
covers, and the judge's empirical rate on the gold items alone; plus one row per replicate with
the posterior means of the loadings (class x judge). The CSV is rewritten after each replicate.

Summarise with ``--summary OUT.csv``: coverage, mean error and root mean square error per judge
and quantity, beside the root mean square error of the gold-only rate.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from bayesjudge.panels.fit import fit_panel
from bayesjudge.panels.simulate import panel_scenario, simulate_panel
from bayesjudge.priors import PanelPriors

sys.path.insert(0, str(Path(__file__).resolve().parent))
from panel_recovery import N_UNLABELLED, PI, replicate_seed

N_JUDGES = 3


def refit(
    n_gold: int,
    first: int,
    stop: int,
    out: str,
    *,
    priors: Sequence[str] = (),
    loading: float | None = None,
) -> None:
    """Refit the replicates and write their rows to ``out``.

    ``priors``: prior specs for :meth:`PanelPriors.updated` (e.g. ``"loading=beta:2,1"``);
    the package's defaults when empty. ``loading``: give every judge this loading in both
    classes instead of the scenario's (the same seeds, so the same items and gold split).
    """
    panel_priors = PanelPriors().updated(list(priors))
    scenario = panel_scenario(N_JUDGES)
    if loading is not None:
        scenario["loading"] = np.full((2, N_JUDGES), float(loading))
    rows: list[dict[str, object]] = []
    for rep in range(first, stop):
        seed = replicate_seed(N_JUDGES, n_gold, rep)
        sim = simulate_panel(
            pi=PI, **scenario, n_unlabelled=N_UNLABELLED, n_gold=n_gold, random_seed=seed
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = fit_panel(
                sim.data,
                calibration="random",
                priors=panel_priors,
                draws=1000,
                tune=1000,
                chains=4,
                random_seed=seed,
                progressbar=False,
                escalate=False,
            )
        post = tree["posterior"]
        passed = bool(tree.attrs["diagnostics_passed"])
        for name, label in (("se", 1), ("sp", 0)):
            draws = post[name].to_numpy().reshape(-1, N_JUDGES)
            low, high = np.quantile(draws, [0.025, 0.975], axis=0)
            for j, judge in enumerate(sim.data.judges):
                truth = float(getattr(sim.truth, name)[j])
                labels, verdicts = sim.data.judge(judge)
                share = float(verdicts[labels == label].mean())
                rows.append(
                    {
                        "replicate": rep,
                        "quantity": name,
                        "judge": judge,
                        "truth": truth,
                        "mean": float(draws[:, j].mean()),
                        "low": float(low[j]),
                        "high": float(high[j]),
                        "covered": bool(low[j] <= truth <= high[j]),
                        "gold_rate": share if name == "se" else 1.0 - share,
                        "passed": passed,
                    }
                )
        loading = post["loading"].to_numpy().reshape(-1, 2, N_JUDGES).mean(axis=0)
        rows.append(
            {
                "replicate": rep,
                "quantity": "loading",
                "judge": "all",
                "mean": json.dumps(np.round(loading, 3).tolist()),
                "passed": passed,
            }
        )
        pd.DataFrame(rows).to_csv(out, index=False)
        print(rep, flush=True)


def summary(path: str) -> pd.DataFrame:
    """Coverage and errors per judge and quantity (Se, Sp) from a CSV written by :func:`refit`."""
    rows = pd.read_csv(path)
    rows = rows[rows["quantity"] != "loading"].copy()
    rows["mean"] = rows["mean"].astype(float)
    rows["error"] = rows["mean"] - rows["truth"]
    rows["gold_error"] = rows["gold_rate"] - rows["truth"]
    rows["width"] = rows["high"] - rows["low"]
    return (
        rows.groupby(["quantity", "judge"], sort=False)
        .agg(
            reps=("covered", "size"),
            coverage=("covered", "mean"),
            mean_error=("error", "mean"),
            rmse=("error", lambda e: float(np.sqrt((e**2).mean()))),
            mean_width=("width", "mean"),
            gold_only_rmse=("gold_error", lambda e: float(np.sqrt((e**2).mean()))),
        )
        .reset_index()
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("args", nargs="*", help="GOLD FIRST STOP OUT.csv")
    parser.add_argument("--summary", help="summarise this CSV instead of fitting")
    parser.add_argument(
        "--prior", action="append", default=[], help="a prior spec, e.g. loading=beta:2,1"
    )
    parser.add_argument("--loading", type=float, help="every judge's loading, both classes")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(args.summary).to_markdown(index=False, floatfmt=".3f"))
        return 0
    if len(args.args) != 4:
        parser.error("give GOLD FIRST STOP OUT.csv, or --summary CSV")
    gold, first, stop, out = args.args
    refit(int(gold), int(first), int(stop), out, priors=args.prior, loading=args.loading)
    return 0


if __name__ == "__main__":
    sys.exit(main())
