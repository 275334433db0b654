"""Time the exact (numerical-integration) posterior of the prevalence model against NUTS.

Run: ``python benchmarks/bench_exact.py`` (writes ``benchmarks/results/exact.md``).

For each data set: wall time of ``exact_posterior`` with the defaults (best and median of
``REPEATS`` runs, after one warm-up), the posterior summary, and how much the summary moves when
``grid_size`` and ``nodes`` are doubled (the convergence check of tests/test_exact.py). Then,
measured in the same run, a NUTS fit of the same data (``fit_prevalence`` with its defaults,
4 chains x 2000 draws, on the already compiled model so that only sampling, posterior
predictive draws and diagnostics count) and the ratio of the two.
"""

from __future__ import annotations

import platform
import statistics
import time
from pathlib import Path

import numpy as np
from _record import write_result

from bayesjudge import __version__
from bayesjudge.examples import load_example
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.exact import exact_posterior
from bayesjudge.prevalence.fit import fit_prevalence

REPEATS = 7
DATASETS = {
    "bundled example (load_example('judge'))": JudgeData.from_frame(load_example("judge")).counts,
    "low prevalence (m1=122 x1=103 m0=401 x0=2 n=3330 k=50)": JudgeCounts(
        122, 103, 401, 2, 3330, 50
    ),
    "n = 10^6 (m1=150 x1=135 m0=150 x0=22 k=700000)": JudgeCounts(
        150, 135, 150, 22, 10**6, 700_000
    ),
}


def summary(post) -> np.ndarray:  # type: ignore[no-untyped-def]
    return np.array([post.mean, post.sd, *post.quantile([0.025, 0.5, 0.975])])


def main() -> str:
    lines = [
        "# Exact posterior (bayesjudge.prevalence.exact) timings",
        "",
        f"bayesjudge {__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}; defaults grid_size=513, nodes=48; {REPEATS} runs after a warm-up.",
        "'change at 2x': largest absolute change of (mean, sd, 2.5 %, 50 %, 97.5 %) with",
        "grid_size=1025, nodes=96. The machine may be shared: the best time is the fairer figure.",
        "",
        "| data | best (ms) | median (ms) | mean | sd | 2.5 % | 97.5 % | change at 2x |",
        "|---|---|---|---|---|---|---|---|",
    ]
    exact_times: dict[str, float] = {}
    for name, counts in DATASETS.items():
        exact_posterior(counts)
        times = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            post = exact_posterior(counts)
            times.append(time.perf_counter() - start)
        fine = exact_posterior(counts, grid_size=1025, nodes=96)
        change = float(np.max(np.abs(summary(post) - summary(fine))))
        lo, hi = post.quantile([0.025, 0.975])
        lines.append(
            f"| {name} | {1e3 * min(times):.0f} | {1e3 * statistics.median(times):.0f} | "
            f"{post.mean:.6f} | {post.sd:.6f} | {lo:.6f} | {hi:.6f} | {change:.1e} |"
        )
        exact_times[name] = statistics.median(times)
    lines += [
        "",
        "## Exact fast path against NUTS (same run)",
        "",
        "| data | exact median (ms) | NUTS refit median (ms) | NUTS / exact | NUTS mean | "
        "exact mean |",
        "|---|---|---|---|---|---|",
    ]
    for name, counts in DATASETS.items():
        data = JudgeData.from_counts(**counts.as_dict())
        fit_prevalence(data, random_seed=0, progressbar=False, escalate=False)  # compile once
        nuts_times = []
        for seed in range(REPEATS):
            start = time.perf_counter()
            fit = fit_prevalence(data, random_seed=seed, progressbar=False)
            nuts_times.append(time.perf_counter() - start)
        nuts = statistics.median(nuts_times)
        lines.append(
            f"| {name} | {1e3 * exact_times[name]:.0f} | {1e3 * nuts:.0f} | "
            f"{nuts / exact_times[name]:.1f} | {float(fit['posterior']['pi'].mean()):.5f} | "
            f"{exact_posterior(counts).mean:.5f} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    text = main()
    print(text)
    print(f"wrote {write_result(Path('exact.md'), text)}")
