r"""Calibration of the effective number of judges under the loadings' spike-and-slab prior.

The panel model's loadings (Qu, Tan and Kutner, "Random effects models in latent class analysis
for evaluating accuracy of diagnostic tests", Biometrics, 1996) used to be continuous on
[0, 0.99]: conditionally independent judges could never get loadings of exactly 0, so the
effective number of judges (Kish's :math:`J/(1 + (J - 1)\bar\rho)`) was biased low and its
interval could not reach J. :func:`bayesjudge.panels.fit.fit_panel` now puts prior probability
``independence`` (0.5 by default) on each class's loadings being all 0. This script measures,
over seeded replicates of two fixed four-judge panels, how often the central 95 % interval of
the effective number covers its true value:

* ``independent``: four conditionally independent judges (every loading 0; truth 4);
* ``one_pair``: judges 1 and 2 share the item effect with loading ``--pair-loading`` in both
  classes, judges 3 and 4 independent (truth from
  :attr:`bayesjudge.panels.simulate.PanelTruth.effective_judges`).

Both: pi = 0.6, Se = (0.85, 0.80, 0.90, 0.75), Sp = (0.80, 0.85, 0.75, 0.90), 2,000 unlabelled
and 200 random gold items; ``fit_panel`` with its defaults except the draws (4 chains x
``--draws`` after ``--tune``). Also recorded per replicate: the coverage of pi, the posterior
probability that each class's judges depend (Rao-Blackwellised), the diagnostics, divergent
transitions and the wall time.

``--spike judge`` fits the form with one spike per judge instead of one per class
(``spike="judge"`` in :func:`bayesjudge.panels.fit.fit_panel`: each judge's loadings are 0 or in
the slab, so the independent judges of the one-pair panel can be exactly independent); its rows
carry ``spike`` = judge and each judge's posterior probability of dependence
(``p_dependent_judge1`` ...). The summary groups by scenario, ``independence`` and ``spike``
(rows without a ``spike`` column are the per-class form).

Usage::

    python benchmarks/panel_independence.py --replicates 4 --raw results/panel_independence_raw.csv
    python benchmarks/panel_independence.py --spike judge --replicates 8 \
        --raw results/panel_independence_judge_raw.csv
    python benchmarks/panel_independence.py --summary results/panel_independence_raw.csv \
        results/panel_independence_judge_raw.csv

Rows are added to ``--raw`` one replicate at a time (one rename each), alternating the two
scenarios, and a later run computes only the replicates the file lacks; replicate ``r`` of a
scenario uses seed ``--seed + r``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bayesjudge.panels.fit import fit_panel
from bayesjudge.panels.simulate import simulate_panel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import write_result
from panel_recovery import _append

PI = 0.6
SE = (0.85, 0.80, 0.90, 0.75)
SP = (0.80, 0.85, 0.75, 0.90)
SCENARIOS = ("independent", "one_pair")


def loadings(scenario: str, pair_loading: float) -> np.ndarray:
    """Loadings [class, judge] of a scenario."""
    lam = np.zeros((2, len(SE)))
    if scenario == "one_pair":
        lam[:, :2] = pair_loading
    return lam


def replicate(
    scenario: str,
    r: int,
    *,
    seed: int,
    pair_loading: float,
    draws: int,
    tune: int,
    independence: float | None,
    spike: str = "class",
) -> dict[str, object]:
    """Simulate and fit one replicate; return its row."""
    sim = simulate_panel(
        pi=PI,
        se=SE,
        sp=SP,
        loading=loadings(scenario, pair_loading),
        n_unlabelled=2000,
        n_gold=200,
        random_seed=seed + r,
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = fit_panel(
            sim.data,
            random_seed=seed + r,
            draws=draws,
            tune=tune,
            chains=4,
            progressbar=False,
            calibration="random",
            independence=independence,
            spike=spike,
        )
    seconds = time.perf_counter() - start
    post = tree["posterior"]
    truth = float(sim.truth.effective_judges)
    n_eff = post["effective_judges"].to_numpy().ravel()
    pi = post["pi"].to_numpy().ravel()
    low, high = np.quantile(n_eff, [0.025, 0.975])
    pi_low, pi_high = np.quantile(pi, [0.025, 0.975])
    row: dict[str, object] = {
        "scenario": scenario,
        "replicate": r,
        "seed": seed + r,
        "independence": tree.attrs["independence"],
        "spike": spike,
        "n_eff_true": truth,
        "n_eff_mean": float(n_eff.mean()),
        "n_eff_low": float(low),
        "n_eff_high": float(high),
        "covers_n_eff": bool(low <= truth + 1e-9 and truth - 1e-9 <= high),
        "p_n_eff_is_j": float(np.mean(n_eff > len(SE) - 1e-9)),
        "pi_mean": float(pi.mean()),
        "covers_pi": bool(pi_low <= PI <= pi_high),
        "passed": bool(tree.attrs["diagnostics_passed"]),
        "divergences": int(tree["sample_stats"]["diverging"].sum()),
        "steps_per_draw": round(float(tree["sample_stats"]["n_steps"].mean()), 2),
        "seconds": round(seconds, 1),
    }
    if "dependence_probability" in post and spike == "class":
        dep = post["dependence_probability"].mean(("chain", "draw")).to_numpy()
        row["p_dependent_fail"], row["p_dependent_pass"] = float(dep[0]), float(dep[1])
    elif "dependence_probability" in post:
        dep = post["dependence_probability"].mean(("chain", "draw")).to_numpy()
        for t, value in enumerate(dep, start=1):
            row[f"p_dependent_judge{t}"] = float(value)
    return row


def summary(raw: pd.DataFrame) -> str:
    """The coverage table, with binomial Monte Carlo standard errors."""
    rows = []
    raw = raw.assign(spike=raw["spike"].fillna("class") if "spike" in raw else "class")
    keys = ["scenario", "independence", "spike"]
    for (scenario, q, spike), part in raw.groupby(keys, sort=False):
        n = len(part)
        cover = part["covers_n_eff"].mean()
        rows.append(
            {
                "scenario": scenario,
                "independence": q,
                "spike": spike,
                "replicates": n,
                "n_eff_true": round(float(part["n_eff_true"].iloc[0]), 3),
                "n_eff_mean": round(float(part["n_eff_mean"].mean()), 3),
                "coverage_n_eff": round(float(cover), 3),
                "mc_se": round(float(np.sqrt(0.95 * 0.05 / n)), 3),
                "coverage_pi": round(float(part["covers_pi"].mean()), 3),
                "p_dependent_fail": round(float(part.get("p_dependent_fail", np.nan).mean()), 3),
                "p_dependent_pass": round(float(part.get("p_dependent_pass", np.nan).mean()), 3),
                **{
                    f"p_dep_j{t}": round(float(part.get(f"p_dependent_judge{t}", np.nan).mean()), 3)
                    for t in range(1, len(SE) + 1)
                },
                "passed": round(float(part["passed"].mean()), 3),
                "divergences": int(part["divergences"].sum()),
                "median_s": float(part["seconds"].median()),
            }
        )
    table = pd.DataFrame(rows).to_markdown(index=False)
    each = raw.round(3).to_markdown(index=False)
    return (
        "# Judge panels: calibration of the effective number of judges (spike-and-slab loadings)"
        "\n\n"
        "Four judges, pi = 0.6, 2,000 unlabelled and 200 random gold items (see the script's "
        "docstring). `coverage_n_eff`: share of replicates whose central 95 % interval of the "
        "effective number holds the truth; `mc_se`: the binomial standard error of a coverage "
        "of 0.95 at this many replicates (the replicate counts are small: the machine is a "
        "shared 2-core CPU and each fit takes minutes).\n\n"
        f"{table}\n\n## Each replicate\n\n{each}\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=4, help="per scenario")
    parser.add_argument("--seed", type=int, default=2700)
    parser.add_argument("--pair-loading", type=float, default=0.85)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--tune", type=int, default=500)
    parser.add_argument("--independence", type=float, default=None)
    parser.add_argument("--spike", choices=["class", "judge"], default="class")
    parser.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--raw", type=Path)
    parser.add_argument("--summary", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=Path("panel_independence.md"))
    args = parser.parse_args(argv)
    if args.summary:
        raw = pd.concat([pd.read_csv(p) for p in args.summary], ignore_index=True)
        print(write_result(args.out, summary(raw)))
        return
    done = pd.read_csv(args.raw) if args.raw is not None and args.raw.exists() else None
    for r in range(args.replicates):
        for scenario in args.scenarios:
            if (
                done is not None
                and (
                    (done["scenario"] == scenario)
                    & (done["replicate"] == r)
                    & (done.get("spike", pd.Series("class", index=done.index)) == args.spike)
                ).any()
            ):
                continue
            row = replicate(
                scenario,
                r,
                seed=args.seed,
                pair_loading=args.pair_loading,
                draws=args.draws,
                tune=args.tune,
                independence=args.independence,
                spike=args.spike,
            )
            print(row, flush=True)
            if args.raw is not None:
                _append(args.raw, pd.DataFrame([row]))


if __name__ == "__main__":
    main()
