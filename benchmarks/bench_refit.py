"""Refit of a cached, compiled prevalence model versus building and compiling afresh.

Run: /tmp/venv312/bin/python benchmarks/bench_refit.py [--repeats 3] [--out PATH]

(a) fresh: build the PyMC model, compile it for nutpie, sample (what a naive loop would do);
(b) refit: ``fit_prevalence`` on new counts of the same shape, which swaps the data into the
    cached compiled model. Both sample 4 chains x 2000 draws after 1000 tuning steps; the refit
    also assembles the DataTree and posterior predictive draws and runs the diagnostics
    (``escalate=False``), so the comparison is conservative.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from bayesjudge.inference.cache import clear_model_cache, model_cache_info
from bayesjudge.models.prevalence import prevalence_model
from bayesjudge.prevalence.data import JudgeData
from bayesjudge.prevalence.fit import fit_prevalence

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).with_name("results") / "refit.md"
    )
    args = parser.parse_args()
    data = datasets(2 * args.repeats + 1)
    clear_model_cache()
    first = refit(data[0], 0)  # builds and compiles once (cold)
    fresh_times = [fresh(d, i) for i, d in enumerate(data[1 : args.repeats + 1])]
    refit_times = [refit(d, i) for i, d in enumerate(data[args.repeats + 1 :])]
    info = model_cache_info()
    assert (info.builds, info.compiles) == (1, 1), info
    ratio = statistics.median(fresh_times) / statistics.median(refit_times)
    lines = [
        "# Refit benchmark: cached compiled model vs fresh build + compile",
        "",
        f"- date: {datetime.date.today().isoformat()}",
        f"- machine: {platform.machine()}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()} (2 cores shared with other jobs)",
        f"- command: `python benchmarks/bench_refit.py --repeats {args.repeats}`",
        "- sampling: nutpie, 4 chains x 2000 draws after 1000 tuning steps, unstratified model",
        "",
        "| path | median s | runs (s) |",
        "|---|---|---|",
        f"| first fit (build + compile, cold cache) | {first:.2f} | {first:.2f} |",
        f"| fresh build + compile + sample | {statistics.median(fresh_times):.2f} | "
        + ", ".join(f"{t:.2f}" for t in fresh_times)
        + " |",
        f"| refit via cached compiled model | {statistics.median(refit_times):.3f} | "
        + ", ".join(f"{t:.3f}" for t in refit_times)
        + " |",
        "",
        f"Refit speed-up (median fresh / median refit): **{ratio:.0f}x** (target >= 10x).",
        f"Cache after the run: {info}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.write_text(text)


if __name__ == "__main__":
    main()
