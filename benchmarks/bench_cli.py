"""Benchmark (a): a cold command-line ``bayesjudge estimate`` on the bundled example.

Each run is a fresh process (imports, model build or load, sampling, diagnostics, baselines),
in three settings: the on-disk model cache turned off (``BAYESJUDGE_CACHE_DIR=off``: every
process builds and compiles the model), the cache empty (the first process compiles and writes
it) and the cache filled (later processes load the compiled model without importing PyMC).
``--method exact`` (quadrature, no sampler) is timed beside them, and, where ``Rscript`` with
R's ``prevalence`` package (and JAGS) is installed, ``prevalence::truePrev`` with its defaults
(2 chains of 10,000 draws after 10,000 burn-in) on the same counts, the calibration counts
entering as Beta(count + 1/2) laws of Se and Sp. The baseline measured in the same run is
``bayesjudge baselines`` on the same file, a fresh process that imports the package and
computes every frequentist estimate; ratios are to its median.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _record import command_line, record

import bayesjudge as bj

RUNS = 3


def run(*argv: str, cache: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bayesjudge", *argv],
        check=True,
        capture_output=True,
        env={**os.environ, "BAYESJUDGE_CACHE_DIR": cache},
    )
    return time.perf_counter() - start


def r_script(counts: bj.JudgeCounts) -> list[str] | None:
    """The ``Rscript`` call of ``truePrev`` on ``counts``, or None without R's prevalence."""
    if shutil.which("Rscript") is None:
        return None
    probe = subprocess.run(
        ["Rscript", "-e", "library(prevalence)"], capture_output=True, check=False
    )
    if probe.returncode != 0:
        return None
    c = counts
    code = (
        "suppressMessages(library(prevalence)); "
        f"print(truePrev(x = {c.k}, n = {c.n}, "
        f"SE = ~dbeta({c.x1 + 0.5}, {c.m1 - c.x1 + 0.5}), "
        f"SP = ~dbeta({c.m0 - c.x0 + 0.5}, {c.x0 + 0.5})))"
    )
    return ["Rscript", "-e", code]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "judge.csv"
        bj.load_example("judge").to_csv(data, index=False)
        cache = str(Path(folder) / "cache")
        estimate = ("estimate", str(data), "--json", "--no-progress", "--random-seed", "1")
        times: dict[str, list[float]] = {}
        rscript = r_script(bj.JudgeData.from_frame(bj.load_example("judge")).counts)

        def timed(label: str, *argv: str, cache: str) -> None:
            seconds = run(*argv, cache=cache)
            times.setdefault(label, []).append(seconds)
            print(f"{label}: {seconds:.2f} s", flush=True)

        timed("`estimate`, cache empty (compiles, writes the cache)", *estimate, cache=cache)
        for _ in range(RUNS):
            timed("`baselines`", "baselines", str(data), "--json", cache="off")
            timed("`estimate`, cache off", *estimate, cache="off")
            timed("`estimate`, cache filled", *estimate, cache=cache)
            timed("`estimate --method exact`", *estimate, "--method", "exact", cache="off")
            if rscript is not None:
                start = time.perf_counter()
                subprocess.run(rscript, check=True, capture_output=True)
                seconds = time.perf_counter() - start
                times.setdefault("R `prevalence::truePrev` (JAGS)", []).append(seconds)
                print(f"R truePrev: {seconds:.2f} s", flush=True)
    reference = statistics.median(times["`baselines`"])
    rows = "\n".join(
        f"| {label} | {len(values)} | {statistics.median(values):.2f} | "
        f"{min(values):.2f}-{max(values):.2f} | {statistics.median(values) / reference:.1f} |"
        for label, values in times.items()
    )
    body = (
        "Each run is one fresh process. PyTensor's own C cache persists across processes in "
        "every setting; 'cache' is bayesjudge's on-disk cache of the compiled model "
        "(`BAYESJUDGE_CACHE_DIR`). Ratio: median time over the median time of `baselines` "
        "measured in the same run."
        + (
            ""
            if "R `prevalence::truePrev` (JAGS)" in times
            else " R's prevalence package was not installed: no R row."
        )
        + "\n\n"
        "| command | runs | median (s) | range (s) | ratio to `baselines` |\n"
        "|---|---|---|---|---|\n" + rows
    )
    print(
        record(
            "cli",
            "Cold command-line estimate on the bundled example",
            command_line(),
            body,
        )
    )


if __name__ == "__main__":
    main()
