"""Recovery and coverage study of the judge-panel model, and its speed (DESIGN.md family 5).

Recovery: panels of 3 to 6 judges drawn from the random-effects latent-class model with known
Se, Sp and loadings (:func:`bayesjudge.panels.simulate.panel_scenario`: judge ``a`` and its
near-copy ``a_copy`` load 0.95 on the latent difficulty, the others 0.3 to 0.5), pi = 0.7,
2,000 unlabelled items and a random gold set of 50 to 300 items. Each replicate is fitted with
:func:`bayesjudge.panels.fit.fit_panel` as a user's call would be (chains started at the
posterior mode; one compiled model per panel size, refitted through ``pm.Data``; the fit's own
retry when a sampler check fails) and compared with the
baselines on the same split: majority vote then Rogan-Gladen, PPI++ of the judge with the best
gold-set J (chosen on the gold set, not by the truth), and unsupervised Dawid-Skene. Reported
per panel size and gold size: MAE of pi against the unlabelled items' true PASS share; the
coverage of the model's 95% intervals of pi, every judge's Se and Sp, and the effective number
of judges (against the population values); the interval width of pi; divergences and the
largest R-hat.

Speed: compile time and fit time (2 chains x 1,000 draws after 1,000 tuning steps) of a
four-judge panel with 200 gold items and 10^3 or 10^5 unlabelled items; the pattern compression
keeps the likelihood at most 3 x 2^J rows whatever the number of items.

Usage::

    python benchmarks/panel_recovery.py            # full study, rewrites results/panels.md
    python benchmarks/panel_recovery.py --quick    # a small version (also rewrites it)
    python benchmarks/panel_recovery.py --raw results/panels_raw.csv   # resumable
    python benchmarks/panel_recovery.py --raw results/panels_raw.csv --table-only   # tabulate

With ``--raw`` every finished replicate's rows are added to that CSV at once (written beside it
and renamed over it), and a later run with the same CSV computes only the (panel size, gold
size, replicate) triples it lacks; the seeds are keyed on the triple, so an interrupted study
resumed later gives the rows an uninterrupted one would. The table is made from every row in
the CSV for the cells asked for.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError, NotIdentifiableError
from bayesjudge.inference.fit import attempts_of
from bayesjudge.models.panel import pad_patterns, panel_model
from bayesjudge.panels.baselines import dawid_skene, judge_ppi_plus_plus, majority_rogan_gladen
from bayesjudge.panels.simulate import SimulatedPanel, panel_scenario, simulate_panel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _record import record

PI = 0.7
N_UNLABELLED = 2000


def replicate_seed(n_judges: int, n_gold: int, rep: int, random_seed: int = 0) -> int:
    """The seed of replicate ``rep`` of the (panel size, gold size) cell: data and sampler."""
    return random_seed + 1000 * n_judges + 10 * n_gold + rep


def _best_judge(sim: SimulatedPanel) -> str:
    """The judge with the largest J on the gold items (ties: the first)."""
    best, best_j = sim.data.judges[0], -np.inf
    for judge in sim.data.judges:
        labels, verdicts = sim.data.judge(judge)
        passed, failed = labels == 1, labels == 0
        if passed.any() and failed.any():
            j = verdicts[passed].mean() - verdicts[failed].mean()
            if j > best_j:
                best, best_j = judge, j
    return best


def _estimate(run) -> float:  # type: ignore[no-untyped-def]
    try:
        value = run().estimate
    except (DataError, NotIdentifiableError):
        return np.nan
    return np.nan if value is None else float(value)


def _covers(draws: np.ndarray, truth: np.ndarray | float, level: float = 0.95) -> np.ndarray:
    """Whether the central ``level`` interval of ``draws`` (chain, draw, ...) holds ``truth``."""
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(draws, [tail, 1.0 - tail], axis=(0, 1))
    return (low <= truth) & (truth <= high)


def recovery_records(
    *,
    judges: list[int],
    gold_sizes: list[int],
    replicates: int,
    draws: int,
    tune: int,
    chains: int,
    calibration: str = "random",
    random_seed: int = 0,
    done: frozenset[tuple[int, int, int]] = frozenset(),
    sink=None,  # type: ignore[no-untyped-def]
) -> pd.DataFrame:
    """One row per (panel size, gold size, replicate, method).

    The gold sets are random samples of the population, so the model is fitted with
    ``calibration="random"`` by default (its gold labels then inform pi, as they do PPI++'s).
    Triples in ``done`` are skipped; ``sink(rows)`` receives each replicate's rows as soon as
    they exist.
    """
    from bayesjudge.errors import FitWarning
    from bayesjudge.panels.fit import fit_panel

    rows = []
    for n_judges in judges:
        scenario = panel_scenario(n_judges)
        for n_gold in gold_sizes:
            for rep in range(replicates):
                if (n_judges, n_gold, rep) in done:
                    continue
                first = len(rows)
                seed = replicate_seed(n_judges, n_gold, rep, random_seed)
                sim = simulate_panel(
                    pi=PI, **scenario, n_unlabelled=N_UNLABELLED, n_gold=n_gold, random_seed=seed
                )
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", FitWarning)
                    tree = fit_panel(
                        sim.data,
                        calibration=calibration,  # type: ignore[arg-type]
                        draws=draws,
                        tune=tune,
                        chains=chains,
                        random_seed=seed,
                        progressbar=False,
                    )
                fit_time = time.perf_counter() - start  # the first fit of a size also compiles
                post = tree["posterior"]
                diagnostics = json.loads(tree.attrs["diagnostics"])
                truth = sim.truth
                pi_draws = post["pi"].to_numpy()
                low, high = np.quantile(pi_draws, [0.025, 0.975])
                base = {
                    "judges": n_judges,
                    "gold": n_gold,
                    "replicate": rep,
                    "target": sim.sample_pi,
                }
                rows.append(
                    {
                        **base,
                        "method": "panel_model",
                        "estimate": float(pi_draws.mean()),
                        "coverage_pi": float(low <= PI <= high),
                        "width": float(high - low),
                        "coverage_se": float(_covers(post["se"].to_numpy(), truth.se).mean()),
                        "coverage_sp": float(_covers(post["sp"].to_numpy(), truth.sp).mean()),
                        "coverage_n_eff": float(
                            _covers(post["effective_judges"].to_numpy(), truth.effective_judges)
                        ),
                        "n_eff_true": float(truth.effective_judges),
                        "n_eff_mean": float(post["effective_judges"].mean()),
                        "best_rule": tree.attrs["best_rule"],
                        "passed": bool(tree.attrs["diagnostics_passed"]),
                        "attempts": len(attempts_of(tree)),
                        "divergences": int(diagnostics["divergences"]),
                        "max_rhat": float(diagnostics["r_hat_max"]),
                        "fit_s": fit_time,
                    }
                )
                best = _best_judge(sim)
                for method, run in (
                    ("majority_rogan_gladen", lambda s=sim: majority_rogan_gladen(s.data)),
                    (
                        "best_judge_ppi_plus_plus",
                        lambda s=sim, b=best: judge_ppi_plus_plus(s.data, b),
                    ),
                    ("dawid_skene", lambda s=sim: dawid_skene(s.data)),
                ):
                    rows.append({**base, "method": method, "estimate": _estimate(run)})
                if sink is not None:
                    sink(_with_error(pd.DataFrame(rows[first:])))
    return _with_error(pd.DataFrame(rows))


def _with_error(frame: pd.DataFrame) -> pd.DataFrame:
    if not frame.empty:
        frame["abs_error"] = (frame["estimate"] - frame["target"]).abs()
    return frame


def _append(path: Path, rows: pd.DataFrame) -> None:
    """Add ``rows`` to the CSV at ``path`` in one rename (never a half-written file)."""
    old = pd.read_csv(path) if path.exists() else None
    combined = rows if old is None else pd.concat([old, rows], ignore_index=True)
    partial = path.with_name(path.name + ".partial")
    combined.to_csv(partial, index=False)
    os.replace(partial, path)


def recovery_table(records: pd.DataFrame) -> pd.DataFrame:
    """MAE per method and the model's coverage, per (panel size, gold size)."""
    mae = records.pivot_table(
        index=["judges", "gold"], columns="method", values="abs_error", aggfunc="mean"
    )
    mae.columns = [f"mae_{c}" for c in mae.columns]
    model = records[records["method"] == "panel_model"]
    cover = model.groupby(["judges", "gold"]).agg(
        reps=("replicate", "size"),
        coverage_pi=("coverage_pi", "mean"),
        coverage_se=("coverage_se", "mean"),
        coverage_sp=("coverage_sp", "mean"),
        coverage_n_eff=("coverage_n_eff", "mean"),
        width_pi=("width", "mean"),
        n_eff_true=("n_eff_true", "first"),
        n_eff_mean=("n_eff_mean", "mean"),
        passed=("passed", "mean"),
        retried=("attempts", lambda a: float((a > 1).mean())),
        divergences=("divergences", "sum"),
        max_rhat=("max_rhat", "max"),
        fit_s=("fit_s", "median"),
    )
    return cover.join(mae).reset_index()


def speed_rows(*, sizes: list[int], draws: int = 1000, tune: int = 1000) -> pd.DataFrame:
    """Compile and fit times of a four-judge panel with 200 gold items at each size."""
    import nutpie

    scenario = panel_scenario(4)
    size = 3 * 2**4
    compiled = None
    rows = []
    for n in sizes:
        sim = simulate_panel(pi=PI, **scenario, n_unlabelled=n, n_gold=200, random_seed=n)
        patterns = sim.data.patterns()
        compile_time = np.nan
        if compiled is None:
            start = time.perf_counter()
            compiled = nutpie.compile_pymc_model(panel_model(patterns, n_patterns=size))
            compile_time = time.perf_counter() - start
        start = time.perf_counter()
        trace = nutpie.sample(
            compiled.with_data(**pad_patterns(patterns, size)),
            draws=draws,
            tune=tune,
            chains=2,
            seed=1,
            progress_bar=False,
        )
        rows.append(
            {
                "unlabelled_items": n,
                "patterns": len(patterns),
                "compile_s": compile_time,
                "fit_s": time.perf_counter() - start,
                "divergences": int(trace.sample_stats["diverging"].sum()),
                "pi_sd": float(trace.posterior["pi"].std()),
            }
        )
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    """Run the study and record it in results/panels.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small version")
    parser.add_argument("--judges", type=int, nargs="+", help="panel sizes (3 to 6)")
    parser.add_argument("--gold", type=int, nargs="+", help="gold-set sizes")
    parser.add_argument("--replicates", type=int, help="replicates per cell")
    parser.add_argument("--no-speed", action="store_true", help="skip the speed benchmark")
    parser.add_argument(
        "--calibration",
        choices=["random", "by_class"],
        default="random",
        help="the model's calibration option (the simulated gold sets are random samples)",
    )
    parser.add_argument(
        "--raw", type=Path, help="CSV of every replicate's rows: resume from it and add to it"
    )
    parser.add_argument(
        "--table-only",
        action="store_true",
        help="with --raw: print the table of every row the CSV holds for the cells asked; fit "
        "nothing and record nothing",
    )
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.table_only:
        if args.raw is None:
            parser.error("--table-only needs --raw")
        rows = pd.read_csv(args.raw)
        if args.judges is not None:
            rows = rows[rows["judges"].isin(args.judges)]
        if args.gold is not None:
            rows = rows[rows["gold"].isin(args.gold)]
        print(recovery_table(rows).to_markdown(index=False, floatfmt=".3f"))
        return 0
    if args.quick:
        settings = {
            "judges": [3, 6],
            "gold_sizes": [50, 300],
            "replicates": 3,
            "draws": 500,
            "tune": 500,
            "chains": 2,
        }
    else:
        settings = {
            "judges": [3, 4, 6],
            "gold_sizes": [50, 100, 300],
            "replicates": 50,
            "draws": 1000,
            "tune": 1000,
            "chains": 4,
        }
    for key, value in (
        ("judges", args.judges),
        ("gold_sizes", args.gold),
        ("replicates", args.replicates),
    ):
        if value is not None:
            settings[key] = value
    command = " ".join(["python", "benchmarks/panel_recovery.py", *(argv or sys.argv[1:])])
    start = time.perf_counter()
    if args.raw is None:
        records = recovery_records(**settings, calibration=args.calibration)
    else:
        old = pd.read_csv(args.raw) if args.raw.exists() else pd.DataFrame()
        done = (
            frozenset(
                (int(r.judges), int(r.gold), int(r.replicate))
                for r in old[old["method"] == "panel_model"].itertuples()
            )
            if not old.empty
            else frozenset()
        )
        recovery_records(
            **settings,
            calibration=args.calibration,
            done=done,
            sink=lambda rows: _append(args.raw, rows),
        )
        records = pd.read_csv(args.raw)
        records = records[
            records["judges"].isin(settings["judges"])
            & records["gold"].isin(settings["gold_sizes"])
            & (records["replicate"] < settings["replicates"])
        ]
    table = recovery_table(records)
    study_time = time.perf_counter() - start
    body = (
        "## Recovery and coverage\n\n"
        f"pi = {PI}, {N_UNLABELLED} unlabelled items, a random gold set (model fitted with "
        f"calibration={args.calibration!r}); the scenario of "
        "`panel_scenario` (judge a and its near-copy a_copy with loadings 0.95). "
        f"{settings['replicates']} replicates per cell, {settings['chains']} chains x "
        f"{settings['draws']} draws. MAE against the unlabelled items' PASS share; coverage of "
        "95% intervals against population values. Study time "
        f"{study_time:.0f} s.\n\n" + table.to_markdown(index=False, floatfmt=".3f")
    )
    if not args.no_speed:
        speed = speed_rows(sizes=[1_000, 100_000])
        body += (
            "\n\n## Speed (4 judges, 200 gold items, 2 chains x 1000 draws + 1000 tuning)\n\n"
            + speed.to_markdown(index=False, floatfmt=".2f")
        )
    print(body)
    record("panels", "Judge panels: recovery study and speed", command, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
