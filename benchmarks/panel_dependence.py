r"""Panels whose judges depend in ways the random-effect model was not built from.

Issue 27, item 3. Four dependence forms of the three-judge near-copy panel
(:func:`bayesjudge.panels.simulate.dependence_scenario`: pi = 0.39, Se (0.85, 0.85, 0.75),
Sp (0.80, 0.80, 0.90), 1,800 unlabelled and 200 random gold items):

* ``independent``: conditionally independent judges;
* ``copy``: judge 1 repeats judge 0's verdict with probability 0.8, otherwise judges alone;
* ``one_class_noise``: judge 1 equals judge 0 on the PASS items, and repeats it with
  probability 0.6 on the FAIL items (judging alone otherwise);
* ``shared_base``: judges 0 and 1 share an item effect (loading 0.8), judge 2 independent.

Each replicate is fitted with the Gaussian random-effect model (``fit_panel`` defaults:
``dependence="random_effect"``, the loadings' spike-and-slab) and with the pair form
(``dependence="none", pairs="auto"``: class-specific covariance of the pair whose gold-item
agreement exceeds independence), and the choice between them
(:func:`bayesjudge.panels.choice.choose_dependence`: PSIS-LOO, then the diagnostics) gives the
third answer, ``chosen``. Recorded per answer: whether the central 95 % interval covers pi,
each judge's Se and Sp, and the effective number of judges (its truth from
``sim.truth.effective_judges``), whether the fit passed its diagnostics (misfit reported when
not), and the chosen form with its elpd difference.

Usage::

    python benchmarks/panel_dependence.py --replicates 1 --raw results/panel_dependence_raw.csv
    python benchmarks/panel_dependence.py --summary results/panel_dependence_raw.csv \
        --out results/panel_dependence.md

The issue's own check, through the command line (``--issue-csv`` writes the near-copy panel
``dependence_scenario("copy", random_seed=27)`` as a wide CSV; ``--issue-summary`` records the
``--json`` outputs of ``bayesjudge panel`` on it, one per ``--dependence``)::

    python benchmarks/panel_dependence.py --issue-csv copy27.csv
    bayesjudge panel copy27.csv --json --random-seed 1 > random_effect.json
    bayesjudge panel copy27.csv --json --random-seed 1 --dependence auto > auto.json
    python benchmarks/panel_dependence.py --issue-summary random_effect.json auto.json \
        --out results/panel_dependence_issue.md

Replicates run replicate-major (every form once, then the next replicate), so the forms have
equal counts whenever the run stops; a later run computes only the rows the ``--raw`` file
lacks. Replicate ``r`` uses seed ``--seed + r`` for the data and the sampler.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bayesjudge.inference.fit import diagnostics_of
from bayesjudge.panels.choice import choose_dependence
from bayesjudge.panels.fit import fit_panel
from bayesjudge.panels.simulate import DEPENDENCE_FORMS, dependence_scenario

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import write_result
from panel_recovery import _append

PROB = 0.95


def _covers(draws: np.ndarray, truth: float) -> bool:
    low, high = np.quantile(draws, [(1 - PROB) / 2, (1 + PROB) / 2])
    return bool(low - 1e-9 <= truth <= high + 1e-9)


def _answer(model: str, tree: Any, sim: Any, seconds: float) -> dict[str, object]:
    post = tree["posterior"]
    truth = sim.truth
    row: dict[str, object] = {"model": model}
    pi = post["pi"].to_numpy().ravel()
    row["pi_mean"] = float(pi.mean())
    row["covers_pi"] = _covers(pi, truth.pi)
    for j, judge in enumerate(sim.data.judges):
        for name, value in (("se", truth.se[j]), ("sp", truth.sp[j])):
            draws = post[name].sel(judge=judge).to_numpy().ravel()
            row[f"{name}_{j}_mean"] = float(draws.mean())
            row[f"covers_{name}_{j}"] = _covers(draws, float(value))
    n_eff = post["effective_judges"].to_numpy().ravel()
    row["n_eff_true"] = float(truth.effective_judges)
    row["n_eff_mean"] = float(n_eff.mean())
    row["covers_n_eff"] = _covers(n_eff, float(truth.effective_judges))
    diagnostics = diagnostics_of(tree)
    row["passed"] = bool(diagnostics.passed)
    row["failures"] = "; ".join(c.describe() for c in diagnostics.failures)
    row["seconds"] = round(seconds, 1)
    return row


def replicate(form: str, r: int, *, seed: int, draws: int, tune: int) -> list[dict[str, object]]:
    """Simulate one panel of ``form`` and fit it both ways; return the three answers' rows."""
    sim = dependence_scenario(form, random_seed=seed + r)
    common: dict[str, Any] = {
        "random_seed": seed + r,
        "draws": draws,
        "tune": tune,
        "progressbar": False,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        effect = fit_panel(sim.data, **common)
        effect_s = time.perf_counter() - start
        start = time.perf_counter()
        pairs = fit_panel(sim.data, dependence="none", pairs="auto", **common)
        pairs_s = time.perf_counter() - start
    import json

    names = json.loads(pairs.attrs["pairs"])
    index = np.array([[sim.data.judges.index(a), sim.data.judges.index(b)] for a, b in names])
    choice = choose_dependence(effect, pairs, sim.data.patterns(), pairs=index)
    chosen = pairs if choice.chosen == "pairs" else effect
    base = {
        "form": form,
        "replicate": r,
        "seed": seed + r,
        "pairs": " ".join("+".join(p) for p in names),
        "chosen": choice.chosen,
        "elpd_difference": round(choice.difference, 2),
        "elpd_difference_se": round(choice.difference_se, 2),
    }
    return [
        {**base, **_answer("random_effect", effect, sim, effect_s)},
        {**base, **_answer("pairs", pairs, sim, pairs_s)},
        {**base, **_answer("chosen", chosen, sim, 0.0)},
    ]


def summary(raw: pd.DataFrame) -> str:
    """Coverage per form and answer, with the share of fits that reported misfit.

    Only the replicates every form has are counted (the forms keep equal counts).
    """
    forms = raw["form"].nunique()
    complete = raw.groupby("replicate")["form"].nunique()
    raw = raw[raw["replicate"].isin(complete[complete == forms].index)]
    cover = [c for c in raw.columns if c.startswith("covers_")]
    rows = []
    for (form, model), part in raw.groupby(["form", "model"], sort=False):
        row: dict[str, object] = {"form": form, "answer": model, "replicates": len(part)}
        for c in cover:
            row[c.removeprefix("covers_")] = round(float(part[c].mean()), 2)
        row["misfit_reported"] = round(float((~part["passed"].astype(bool)).mean()), 2)
        row["chosen_pairs"] = round(float((part["chosen"] == "pairs").mean()), 2)
        row["n_eff_true"] = round(float(part["n_eff_true"].iloc[0]), 3)
        row["n_eff_mean"] = round(float(part["n_eff_mean"].mean()), 3)
        rows.append(row)
    table = pd.DataFrame(rows).to_markdown(index=False)
    keep = [
        "form",
        "replicate",
        "model",
        "chosen",
        "elpd_difference",
        "elpd_difference_se",
        "pi_mean",
        "sp_0_mean",
        "sp_1_mean",
        "n_eff_mean",
        "passed",
        "seconds",
    ]
    each = raw[keep].round(3).to_markdown(index=False)
    n = int(raw.groupby("form")["replicate"].nunique().min())
    return (
        "# Judge panels under dependence forms outside the random-effect family\n\n"
        "Three judges, pi = 0.39, Se (0.85, 0.85, 0.75), Sp (0.80, 0.80, 0.90), 1,800 "
        "unlabelled and 200 random gold items (see the script's docstring). Each column is "
        "the share of replicates whose central 95 % interval holds the truth (`se_0` is judge "
        "0's Se, ...); `misfit_reported`: share of fits that failed their diagnostics "
        "(convergence or the posterior predictive check); `chosen_pairs`: share of replicates "
        f"where the choice took the pair form. {n} replicate(s) per form: the machine is a "
        "shared 2-core CPU and each fit takes minutes, so these shares are single outcomes, "
        "not coverage estimates.\n\n"
        f"{table}\n\n## Each replicate\n\n{each}\n"
    )


ISSUE_SEED = 27


def write_issue_csv(path: Path) -> None:
    """Write the issue's near-copy panel (seed :data:`ISSUE_SEED`) as a wide CSV."""
    sim = dependence_scenario("copy", random_seed=ISSUE_SEED)
    frame = pd.DataFrame(sim.data.verdicts.astype(int), columns=list(sim.data.judges))
    frame.insert(0, "item", np.arange(len(frame)))
    labels = sim.data.labels
    frame["label"] = pd.array([None if np.isnan(x) else int(x) for x in labels], dtype="Int64")
    frame.to_csv(path, index=False)


def issue_summary(paths: list[Path]) -> str:
    """One table of the command's answers on the issue's panel, one row per JSON output."""
    import json

    sim = dependence_scenario("copy", random_seed=ISSUE_SEED)

    def cell(s: dict[str, float]) -> str:
        return f"{s['mean']:.3f} [{s['low']:.3f}, {s['high']:.3f}]"

    rows = []
    for path in paths:
        out = json.loads(path.read_text())
        block = out["dependence"]
        row = {
            "command": out["provenance"]["command"],
            "form": out["provenance"]["dependence"],
            "pi": cell(out["posterior"]["pi"]),
        }
        for judge, values in out["judges"].items():
            row[f"se {judge}"] = cell(values["se"])
            row[f"sp {judge}"] = cell(values["sp"])
        row["effective judges"] = cell(block["effective_judges"])
        row["diagnostics passed"] = out["diagnostics"]["passed"]
        row["predictive check passed"] = out["diagnostics"]["predictive_check"]["passed"]
        row["choice"] = block["choice"]["reason"] if "choice" in block else ""
        rows.append(row)
    table = pd.DataFrame(rows).T.to_markdown()
    return (
        "# The issue's near-copy panel through bayesjudge panel\n\n"
        "Judge 1 repeats judge 0's verdict with probability 0.8 and otherwise judges alone "
        "(Se 0.85, Sp 0.80 each), judge 2 Se 0.75 Sp 0.90; pi = 0.39 (the unlabelled items' "
        f"share of PASS: {sim.sample_pi:.3f}); 1,800 unlabelled and 200 random gold items "
        f"(`dependence_scenario('copy', random_seed={ISSUE_SEED})`, written by "
        "`--issue-csv`). True effective number of judges "
        f"{sim.truth.effective_judges:.3f}. Each column is one `--json` output "
        "(posterior mean and 95 % interval).\n\n"
        f"{table}\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=4, help="per form")
    parser.add_argument("--seed", type=int, default=2727)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--forms", nargs="+", choices=DEPENDENCE_FORMS, default=DEPENDENCE_FORMS)
    parser.add_argument("--raw", type=Path)
    parser.add_argument("--summary", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=Path("panel_dependence.md"))
    parser.add_argument("--issue-csv", type=Path, help="write the issue's panel and stop")
    parser.add_argument("--issue-summary", type=Path, nargs="+", help="record these outputs")
    args = parser.parse_args(argv)
    if args.issue_csv:
        write_issue_csv(args.issue_csv)
        return
    if args.issue_summary:
        print(write_result(args.out, issue_summary(args.issue_summary)))
        return
    if args.summary:
        raw = pd.concat([pd.read_csv(p) for p in args.summary], ignore_index=True)
        print(write_result(args.out, summary(raw)))
        return
    for r in range(args.replicates):
        for form in args.forms:
            done = pd.read_csv(args.raw) if args.raw is not None and args.raw.exists() else None
            if done is not None and ((done["form"] == form) & (done["replicate"] == r)).any():
                continue
            rows = replicate(form, r, seed=args.seed, draws=args.draws, tune=args.tune)
            for row in rows:
                print(row, flush=True)
            if args.raw is not None:
                _append(args.raw, pd.DataFrame(rows))


if __name__ == "__main__":
    main()
