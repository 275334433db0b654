"""Per-replicate cost of the prevalence model in a study vs a fresh model per replicate.

Fresh: clear the model cache, then :func:`bayesjudge.prevalence.fit.fit_prevalence` (build the PyMC
model, compile it for nutpie, sample). DataTree path (the study's per-replicate path before the
raw-trace change): a cached ``fit_prevalence(escalate=False)`` (nutpie's trace converted to an
ArviZ DataTree) plus R-hat, bulk and tail ESS of pi, Se, Sp through ``arviz_stats`` on xarray.
Study: :func:`bayesjudge.studies.run_study` with the ``bayes_nuts`` estimator only, one
scenario, ``--replicates`` replicates, one worker, after one warm-up fit; its wall time per
replicate includes data generation, the sampler (raw nutpie trace), the per-replicate
diagnostics (R-hat, ESS, divergences) and the chunk bookkeeping. "Every estimator" repeats the
study with all of Lee et al.'s (2025) estimators (``bayes_exact`` on one replicate in 40, as in the
design's 5 of 200). All sample 4 chains x 1000 draws after 500 tuning steps (the study default).

Optionally (``--design-dir`` and ``--design-wall``) it also records the wall time of a Lee et al.
(2025) design run already made with ``bayesjudge study`` (the command is given with
``--design-cmd``).

Run: ``python benchmarks/bench_study.py [--fresh 3] [--replicates 40]``.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _record import record

from bayesjudge.inference.cache import clear_model_cache
from bayesjudge.prevalence.data import JudgeCounts
from bayesjudge.prevalence.fit import fit_prevalence
from bayesjudge.studies.runner import StudySpec, builtin_study, load_results, run_study, summarize

COUNTS = JudgeCounts(m1=100, x1=90, m0=100, x0=28, n=1000, k=660)


def _fresh(repeats: int) -> list[float]:
    times = []
    for seed in range(repeats):
        clear_model_cache()
        start = time.perf_counter()
        fit_prevalence(
            COUNTS,
            draws=1000,
            tune=500,
            chains=4,
            random_seed=seed,
            progressbar=False,
            escalate=False,
        )
        times.append(time.perf_counter() - start)
    return times


def _datatree_path(repeats: int) -> tuple[float, float]:
    """Mean wall and CPU seconds of the former per-replicate path: DataTree fit + xarray
    diagnostics (nutpie's default threads)."""
    import arviz_stats as azs
    import numpy as np
    import xarray as xr

    fit_prevalence(COUNTS, draws=1000, tune=500, chains=4, random_seed=0, progressbar=False)
    start, cpu = time.perf_counter(), time.process_time()
    for seed in range(repeats):
        tree = fit_prevalence(
            COUNTS,
            draws=1000,
            tune=500,
            chains=4,
            random_seed=seed,
            progressbar=False,
            escalate=False,
        )
        posterior = tree["posterior"]
        draws = np.stack([posterior[v].to_numpy() for v in ("pi", "se", "sp")])[None]
        da = xr.DataArray(draws, dims=("replicate", "variable", "chain", "draw"))
        dims = ["chain", "draw"]
        azs.rhat(da, sample_dims=dims, method="rank").max("variable").to_numpy()
        azs.ess(da, sample_dims=dims, method="bulk").min("variable").to_numpy()
        azs.ess(da, sample_dims=dims, method="tail").min("variable").to_numpy()
        int(tree["sample_stats"]["diverging"].sum())
    return (time.perf_counter() - start) / repeats, (time.process_time() - cpu) / repeats


def _study(replicates: int, *, every: bool = False) -> tuple[float, float, float, int]:
    settings: dict[str, object] = {
        "name": "bench",
        "design": "prevalence",
        "replicates": replicates,
        "seed": 1,
        "chunk_size": replicates,
        "estimators": ["bayes_nuts"],
        "grid": {"theta": [0.6]},
        "fixed": {"q0": 0.7, "q1": 0.9, "n": 1000, "m1": 100, "m0": 100},
    }
    if every:
        design = builtin_study("lee2025")
        settings["estimators"] = list(design.estimators)
        settings["exact_replicates"] = max(1, replicates * design.exact_replicates // 200)
    spec = StudySpec.from_dict(settings)
    warm = StudySpec.from_dict(
        {**spec.to_dict(), "replicates": 1, "chunk_size": 1, "exact_replicates": 1}
    )
    run_study(warm, progressbar=False)
    start, cpu = time.perf_counter(), time.process_time()
    ds = run_study(spec, progressbar=False)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    failed = int(summarize(ds)["failed"].sum())
    return wall / replicates, cpu / replicates, float(ds["fit_time"].median()), failed


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3]) + " (1, 5, 15 min)"
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fresh", type=int, default=3, help="fresh build+compile+sample runs")
    parser.add_argument("--replicates", type=int, default=40, help="replicates in the study")
    parser.add_argument("--design-dir", default=None, help="folder of a lee2025 study run")
    parser.add_argument("--design-wall", type=float, default=None, help="its wall time, s")
    parser.add_argument("--design-cmd", default="", help="the command that produced it")
    parser.add_argument("--design-note", default="", help="a note on that run (e.g. the load)")
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fresh = _fresh(args.fresh)
        datatree, datatree_cpu = _datatree_path(args.replicates)
        per_rep, per_rep_cpu, median_fit, failed = _study(args.replicates)
        per_rep_all, per_rep_all_cpu, _, failed_all = _study(args.replicates, every=True)
    fresh_median = statistics.median(fresh)
    lines = [
        "| path | wall s per replicate | CPU s per replicate |",
        "|---|---|---|",
        f"| fresh model per replicate (build + compile + sample), median of {args.fresh} | "
        f"{fresh_median:.2f} (runs: {', '.join(f'{t:.2f}' for t in fresh)}) | |",
        f"| former study path: cached fit to a DataTree + xarray diagnostics (nutpie threads "
        f"as many as chains and cores), mean of {args.replicates} | {datatree:.3f} | "
        f"{datatree_cpu:.3f} |",
        f"| in a study (cached compiled model + with_data, raw nutpie trace on one thread, numpy "
        f"diagnostics), bayes_nuts only, {args.replicates} replicates | {per_rep:.3f} | "
        f"{per_rep_cpu:.3f} |",
        f"| in a study, median fit_time of one replicate (sampling + summary only) | "
        f"{median_fit:.3f} | |",
        f"| in a study, every Lee et al. (2025) estimator, {args.replicates} replicates | "
        f"{per_rep_all:.3f} | {per_rep_all_cpu:.3f} |",
        "",
        f"Ratio fresh / study (wall per replicate): **{fresh_median / per_rep:.0f}x** "
        "(target >= 50x). Former path / study, CPU per replicate (what bounds a study that "
        f"runs one process per core): **{datatree_cpu / per_rep_cpu:.1f}x**.",
        f"Replicates that failed their diagnostics in the study: {failed} of {args.replicates} "
        f"(bayes_nuts only), {failed_all} of {args.replicates} (every estimator).",
        f"Load average when the benchmark ended: {_load()}.",
    ]
    if args.design_dir is not None and args.design_wall is not None:
        ds = load_results(args.design_dir)
        table = summarize(ds)
        scenarios = int(ds["estimate"].isel(replicate=0, estimator=0).size)
        replicates = int(ds.sizes["replicate"])
        nuts = ds.sel(estimator="bayes_nuts")
        fits = int(nuts["defined"].sum())
        target = 21 * 4 * 200
        extrapolated = args.design_wall * target / (scenarios * replicates)
        lines += [
            "",
            "## Lee et al. (2025) design",
            "",
            f"Command: `{args.design_cmd}`",
            "",
            f"{scenarios} scenarios x {replicates} replicates = {scenarios * replicates} "
            f"replicates, every estimator ({', '.join(ds['estimator'].to_numpy().tolist())}); "
            f"{fits} NUTS fits, {int(table.query('estimator == "bayes_nuts"')['failed'].sum())}"
            " failed their diagnostics.",
            "",
            f"Wall time: **{args.design_wall:.0f} s** with 2 worker processes "
            f"({args.design_wall / (scenarios * replicates) * 1000:.1f} ms per replicate).",
        ]
        if scenarios * replicates == target:
            lines.append(
                f"That is the full design: **{args.design_wall / 60:.1f} minutes** "
                "(target < 10 minutes on this 2-core machine)."
            )
        else:
            lines.append(
                f"Linear extrapolation to the full design (21 x 4 x 200 = {target} replicates): "
                f"**{extrapolated / 60:.1f} minutes** (extrapolated, not run; target < 10 min)."
            )
        if args.design_note:
            lines += ["", args.design_note]
    record(
        "study",
        "Study benchmark: batched Bayesian fitting",
        "python benchmarks/bench_study.py " + shlex.join(sys.argv[1:]),
        "\n".join(lines),
    )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
