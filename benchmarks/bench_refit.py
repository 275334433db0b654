"""Refit of a cached, compiled prevalence model versus building and compiling afresh.

Run: .venv/bin/python benchmarks/bench_refit.py [--repeats 5] [--out PATH]

(a) fresh: build the PyMC model, compile it for nutpie, sample (what a naive loop would do);
(b) refit: ``fit_prevalence`` on new counts of the same shape, which swaps the data into the
    cached compiled model. Both sample 4 chains x 2000 draws after 1000 tuning steps; the refit
    also assembles the DataTree and posterior predictive draws and runs the diagnostics
    (``escalate=False``), so the comparison is conservative.

Each refit is split into its parts, timed inside the same call: nutpie's sampling (until its
raw trace is ready), the conversion of the raw trace to the DataTree, ``check_fit``, and the
rest (posterior predictive draws, attrs). On each refit's own draws the benchmark also times
what those two steps cost before (nutpie's own conversion of the same raw trace, and
``check_fit`` with the ArviZ array functions it called until now), so the old and new costs
are measured under the same machine load. The load average is recorded before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr
from _record import RESULTS, write_result

import bayesjudge.inference.fit as fit_module
import bayesjudge.inference.sampling as sampling_module
from bayesjudge.inference import _nutpie_tree, diagnostics
from bayesjudge.inference.cache import clear_model_cache, model_cache_info
from bayesjudge.models.prevalence import prevalence_model
from bayesjudge.prevalence.data import JudgeData
from bayesjudge.prevalence.fit import REPORTED, fit_prevalence

SAMPLE = {"draws": 2000, "tune": 1000, "chains": 4}  # fit_prevalence's defaults


def datasets(count: int) -> list[JudgeData]:
    rng = np.random.default_rng(0)
    out = []
    for _ in range(count):
        m1, m0, n = 150, 150, 2000
        x1, x0 = rng.binomial(m1, 0.9), rng.binomial(m0, 0.15)
        k = rng.binomial(n, 0.7 * 0.9 + 0.3 * 0.15)
        out.append(JudgeData.from_counts(m1, int(x1), m0, int(x0), n, int(k)))
    return out


def fresh(data: JudgeData, seed: int) -> float:
    import nutpie

    start = time.perf_counter()
    compiled = nutpie.compile_pymc_model(prevalence_model(data.counts))
    nutpie.sample(compiled, seed=seed, progress_bar=False, save_warmup=False, **SAMPLE)
    return time.perf_counter() - start


def refit(data: JudgeData, seed: int) -> float:
    start = time.perf_counter()
    fit_prevalence(data, random_seed=seed, progressbar=False, escalate=False, **SAMPLE)
    return time.perf_counter() - start


def _timed(store: list[float], function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            store.append(time.perf_counter() - start)

    return wrapper


def arviz_check(tree: xr.DataTree) -> None:
    """``check_fit`` as the refit calls it, with ArviZ's array functions for the statistics.

    Since issue 25 ``check_fit`` itself takes its statistics from ArviZ, so this column and the
    ``check_fit`` column time the same code; until then this one swapped ArviZ's functions in
    for the numpy ones of ``bayesjudge.inference._convergence``.
    """
    diagnostics.check_fit(tree, mcse_var_names=list(REPORTED[:6]))


def nutpie_conversion(raw_batches: Any, settings: dict[str, Any], coords: Any) -> float:
    """Time nutpie's own conversion (``_arrow_to_arviz``, as ``nutpie.sample`` calls it)."""
    import json

    import nutpie
    import pandas as pd
    from nutpie.sample import _arrow_to_arviz

    draw_batches, stat_batches = raw_batches
    start = time.perf_counter()
    _arrow_to_arviz(
        draw_batches,
        stat_batches,
        skip_vars=sorted(_nutpie_tree.skipped_stats(settings)),
        reparameterized_names=[],
        keep_unconstrained_draw=False,
        coords={name: pd.Index(values) for name, values in coords.items()},
        save_warmup=False,
        attrs={
            "sample_stats": {
                "inference_library": "nutpie",
                "inference_library_version": nutpie.__version__,
                "inference_library_settings": json.dumps(settings),
            }
        },
    )
    return time.perf_counter() - start


def instrumented_refits(data: list[JudgeData]) -> dict[str, list[float]]:
    """Refit each dataset, timing the parts and the old conversion and diagnostics."""
    parts: dict[str, list[float]] = {
        "total": [],
        "sample_call": [],
        "conversion": [],
        "check_fit": [],
        "old_conversion": [],
        "old_check": [],
    }
    original_tree = _nutpie_tree.tree_from_raw
    original_sample = sampling_module._nutpie_sample
    original_check = fit_module.check_fit
    captured: dict[str, Any] = {}

    def capture_tree(raw: Any, **kwargs: Any) -> xr.DataTree:
        batches = raw.get_arrow_trace()

        class Raw:  # hands the same batches to the timed conversion
            def is_arrow(self) -> bool:
                return True

            def get_arrow_trace(self) -> Any:
                return batches

        captured.update(batches=batches, settings=kwargs["settings"], coords=kwargs["coords"])
        return _timed(parts["conversion"], original_tree)(Raw(), **kwargs)

    _nutpie_tree.tree_from_raw = capture_tree
    sampling_module._nutpie_sample = _timed(parts["sample_call"], original_sample)
    fit_module.check_fit = _timed(parts["check_fit"], original_check)
    try:
        for seed, dataset in enumerate(data):
            start = time.perf_counter()
            tree = fit_prevalence(
                dataset, random_seed=seed, progressbar=False, escalate=False, **SAMPLE
            )
            parts["total"].append(time.perf_counter() - start)
            parts["old_conversion"].append(
                nutpie_conversion(captured["batches"], captured["settings"], captured["coords"])
            )
            start = time.perf_counter()
            arviz_check(tree)
            parts["old_check"].append(time.perf_counter() - start)
    finally:
        _nutpie_tree.tree_from_raw = original_tree
        sampling_module._nutpie_sample = original_sample
        fit_module.check_fit = original_check
    parts["sampling"] = [
        call - conv for call, conv in zip(parts["sample_call"], parts["conversion"], strict=True)
    ]
    parts["rest"] = [
        total - call - check
        for total, call, check in zip(
            parts["total"], parts["sample_call"], parts["check_fit"], strict=True
        )
    ]
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS / "refit.md")
    args = parser.parse_args()
    # the first fit must build and compile: no compiled model from the on-disk cache
    os.environ["BAYESJUDGE_CACHE_DIR"] = "off"
    load_before = os.getloadavg()
    data = datasets(2 * args.repeats + 1)
    clear_model_cache()
    first = refit(data[0], 0)  # builds and compiles once (cold)
    fresh_times = [fresh(d, i) for i, d in enumerate(data[1 : args.repeats + 1])]
    parts = instrumented_refits(data[args.repeats + 1 :])
    load_after = os.getloadavg()
    info = model_cache_info()
    assert (info.builds, info.compiles) == (1, 1), info
    med = {name: statistics.median(values) for name, values in parts.items()}
    ratio = statistics.median(fresh_times) / med["total"]
    old_total = med["sampling"] + med["old_conversion"] + med["old_check"] + med["rest"]

    def runs(values: list[float]) -> str:
        return ", ".join(f"{t:.3f}" for t in values)

    lines = [
        "# Refit benchmark: cached compiled model vs fresh build + compile",
        "",
        f"- load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load_before)}; "
        f"after: {', '.join(f'{x:.2f}' for x in load_after)}",
        "- sampling: nutpie, 4 chains x 2000 draws after 1000 tuning steps, unstratified model",
        "",
        "| path | median s | runs (s) |",
        "|---|---|---|",
        f"| first fit (build + compile, cold cache) | {first:.2f} | {first:.2f} |",
        f"| fresh build + compile + sample | {statistics.median(fresh_times):.2f} | "
        f"{runs(fresh_times)} |",
        f"| refit via cached compiled model | {med['total']:.3f} | {runs(parts['total'])} |",
        "",
        "Each refit split into its parts (median over the refits, seconds); the old parts are "
        "timed on the same refit's draws:",
        "",
        "| part | now | before | runs now |",
        "|---|---|---|---|",
        f"| nutpie sampling (until the raw trace is ready) | {med['sampling']:.3f} | "
        f"{med['sampling']:.3f} | {runs(parts['sampling'])} |",
        f"| raw trace -> DataTree | {med['conversion']:.3f} | {med['old_conversion']:.3f} "
        f"(nutpie's conversion) | {runs(parts['conversion'])} |",
        f"| `check_fit` | {med['check_fit']:.3f} | at least {med['old_check']:.3f} "
        f"(with ArviZ's statistics) | {runs(parts['check_fit'])} |",
        f"| the rest (predictive draws, attrs) | {med['rest']:.3f} | {med['rest']:.3f} | "
        f"{runs(parts['rest'])} |",
        f"| **refit** | **{med['total']:.3f}** | at least {old_total:.3f} | |",
        "",
        f"Refit speed-up over a fresh build (median fresh / median refit): **{ratio:.0f}x**.",
        f"Cache after the run: {info}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    write_result(args.out.resolve(), text)


if __name__ == "__main__":
    main()
