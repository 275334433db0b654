"""The exact posterior's quadrature of this checkout against a base commit's: numbers, time.

Run: ``python benchmarks/bench_exact_paths.py [--base 09bbc9b] [--repeats 7]`` (writes
``benchmarks/results/exact_paths.md``; about a minute of CPU at the defaults).

The base commit's ``bayesjudge/prevalence/exact.py`` is read with ``git show`` and loaded beside
this checkout's, in one process, so that both run on the same data and machine load:

1. **Numbers.** ``exact_posterior`` on the bundled example and on four edge count sets (with and
   without the J > 0 restriction): grid, density, log evidence, moments, 41 quantiles, the HDI
   and the Se/Sp/J marginals' quantiles; ``eti_widths`` on the batch the label plan refits for
   the bundled example; ``plan_labels`` on the bundled example (its ``to_dict``). The largest
   absolute difference of each is recorded (0 means bit-identical).
2. **Time.** ``exact_posterior`` on the bundled example and ``eti_widths`` on the plan's batch,
   the two versions alternated call by call; medians and minima.
3. **Imports.** The time to import each version of ``exact.py`` once its own package's
   dependencies (``bayesjudge.prevalence.data`` and the rest, which load numpy and pandas) are
   loaded, each in fresh interpreters (median); and the modules it adds. Beside them, the same
   for the SciPy subpackages alone: ``scipy.special`` (which the quadrature cannot do without)
   and then ``scipy.integrate`` with ``scipy.interpolate`` (Simpson's rule, its cumulative
   form and the Hermite CDF), which pull in ``scipy.optimize`` and ``scipy.sparse``.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from _record import record

from bayesjudge.examples import load_example
from bayesjudge.prevalence import exact as current
from bayesjudge.prevalence import plan as plan_module
from bayesjudge.prevalence.data import JudgeCounts, JudgeData

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = JudgeData.from_frame(load_example("judge")).counts
EDGES = [
    JudgeCounts(122, 103, 401, 2, 3330, 50),
    JudgeCounts(5, 5, 5, 0, 10, 0),
    JudgeCounts(40, 36, 40, 6, 10**6, 680_000),
    JudgeCounts(10**8, 9 * 10**7, 10**8, 10**7, 2000, 1349),
]
_DEPENDENCIES = (
    "import numpy, pandas, bayesjudge.errors, bayesjudge.io.tables, bayesjudge.prevalence.data, "
    "bayesjudge.priors, bayesjudge.results, bayesjudge.validation"
)
_LOAD_FILE = """
spec = importlib.util.spec_from_file_location("exact_x", {path!r})
module = importlib.util.module_from_spec(spec)
sys.modules["exact_x"] = module
spec.loader.exec_module(module)
"""
_IMPORT = """
import importlib.util, sys, time
{dependencies}
before = set(sys.modules)
start = time.perf_counter()
{timed}
print(time.perf_counter() - start, len(set(sys.modules) - before))
"""


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _outputs(module: Any, batch: list[JudgeCounts], kwargs: dict[str, Any]) -> dict[str, Any]:
    post = module.exact_posterior(EXAMPLE)
    out: dict[str, Any] = {
        "exact_posterior (bundled example)": [
            post.grid,
            post.density,
            post.log_evidence,
            post.summary().to_numpy(),
            post.quantile(np.linspace(0.001, 0.999, 41)),
            [post.hdi(0.95).low, post.hdi(0.95).high],
            *(post.marginal(n).quantile(np.linspace(0.01, 0.99, 21)) for n in ("se", "sp", "j")),
        ],
        "exact_posterior (4 edge count sets, J > 0 and not)": [
            [p.grid, p.density, p.log_evidence, p.summary().to_numpy()]
            for p in (
                module.exact_posterior(c, restrict_j=rj) for c in EDGES for rj in (True, False)
            )
        ],
        f"eti_widths (the plan's batch of {len(batch)})": module.eti_widths(batch, **kwargs),
    }
    saved = plan_module.eti_widths
    plan_module.eti_widths = module.eti_widths
    try:
        out["plan_labels (bundled example), to_dict"] = plan_module.plan_labels(EXAMPLE).to_dict()
    finally:
        plan_module.eti_widths = saved
    return out


def _difference(a: Any, b: Any) -> float:
    if isinstance(a, dict):
        return max((_difference(a[key], b[key]) for key in a), default=0.0)
    if isinstance(a, list | tuple) and not (a and isinstance(a[0], float | int)):
        return max((_difference(x, y) for x, y in zip(a, b, strict=True)), default=0.0)
    if isinstance(a, str | bool) or a is None:
        return 0.0 if a == b else float("inf")
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or not np.array_equal(np.isfinite(x), np.isfinite(y)):
        return float("inf")
    same = x[np.isfinite(x)] - y[np.isfinite(y)]
    return float(np.max(np.abs(same), initial=0.0))


def _alternate(calls: dict[str, Callable[[], object]], repeats: int) -> dict[str, list[float]]:
    for call in calls.values():
        call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return times


def _import_cost(timed: str, repeats: int, dependencies: str = _DEPENDENCIES) -> tuple[float, int]:
    code = _IMPORT.format(dependencies=dependencies, timed=timed)
    seconds, modules = [], 0
    for _ in range(repeats):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        value, count = done.stdout.split()
        seconds.append(float(value))
        modules = int(count)
    return statistics.median(seconds), modules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="09bbc9b", help="the commit to compare with")
    parser.add_argument("--repeats", type=int, default=7, help="timed calls per version")
    args = parser.parse_args()
    source = subprocess.run(
        ["git", "show", f"{args.base}:bayesjudge/prevalence/exact.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    with tempfile.TemporaryDirectory() as folder:
        base_path = Path(folder) / "exact_base.py"
        base_path.write_text(source, encoding="utf-8")
        base = _load(base_path, "exact_base")
        batches: list[tuple[list[JudgeCounts], dict[str, Any]]] = []
        saved = plan_module.eti_widths

        def spy(sets: list[JudgeCounts], prob: float, **kwargs: Any) -> np.ndarray:
            batches.append((list(sets), {"prob": prob, **kwargs}))
            return saved(sets, prob, **kwargs)

        plan_module.eti_widths = spy  # type: ignore[assignment]
        try:
            plan_module.plan_labels(EXAMPLE)
        finally:
            plan_module.eti_widths = saved
        batch, kwargs = max(batches, key=lambda item: len(item[0]))
        old, new = _outputs(base, batch, kwargs), _outputs(current, batch, kwargs)
        lines = [
            f"Base: `{args.base}`; this checkout's `bayesjudge/prevalence/exact.py` against it, "
            "loaded side by side in one process.",
            "",
            "## Numbers (largest absolute difference; 0 means bit-identical)",
            "",
            "| output | max abs difference |",
            "|---|---|",
        ]
        lines += [f"| {name} | {_difference(old[name], new[name]):.3g} |" for name in old]
        timings = _alternate(
            {
                "exact_posterior, bundled example: base": lambda: base.exact_posterior(EXAMPLE),
                "exact_posterior, bundled example: this checkout": lambda: current.exact_posterior(
                    EXAMPLE
                ),
                f"eti_widths, plan batch of {len(batch)}: base": lambda: base.eti_widths(
                    batch, **kwargs
                ),
                f"eti_widths, plan batch of {len(batch)}: this checkout": lambda: (
                    current.eti_widths(batch, **kwargs)
                ),
            },
            args.repeats,
        )
        lines += [
            "",
            f"## Time ({args.repeats} calls each after a warm-up, the versions alternated)",
            "",
            "| call | median (s) | min (s) |",
            "|---|---|---|",
        ]
        lines += [
            f"| {name} | {statistics.median(ts):.3f} | {min(ts):.3f} |"
            for name, ts in timings.items()
        ]
        lines += [
            "",
            f"## Import of exact.py after its package dependencies ({args.repeats} fresh "
            "interpreters, median)",
            "",
            "| version | seconds | modules it adds |",
            "|---|---|---|",
        ]
        this = ROOT / "bayesjudge" / "prevalence" / "exact.py"
        for name, timed, before in (
            ("exact.py, base", _LOAD_FILE.format(path=str(base_path)), _DEPENDENCIES),
            ("exact.py, this checkout", _LOAD_FILE.format(path=str(this)), _DEPENDENCIES),
            ("scipy.special alone", "import scipy.special", _DEPENDENCIES),
            (
                "scipy.integrate + scipy.interpolate after scipy.special",
                "import scipy.integrate, scipy.interpolate",
                _DEPENDENCIES + ", scipy.special",
            ),
        ):
            seconds, modules = _import_cost(timed, args.repeats, before)
            lines.append(f"| {name} | {seconds:.3f} | {modules} |")
    path = record(
        "exact_paths",
        "Exact posterior: this checkout's quadrature against a base commit's",
        "python benchmarks/bench_exact_paths.py " + " ".join(sys.argv[1:]),
        "\n".join(lines),
    )
    print(path.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
