"""Benchmark (a): a cold command-line ``bayesjudge estimate`` on the bundled example.

Each run is a fresh process (imports, model build, compilation, sampling, diagnostics,
baselines). The baseline measured in the same run is ``bayesjudge baselines`` on the same file,
a fresh process that imports the package and computes every frequentist estimate.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _record import record

import bayesjudge as bj


def run(*argv: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "bayesjudge", *argv], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "judge.csv"
        bj.load_example("judge").to_csv(data, index=False)
        rows = []
        for attempt in range(3):
            estimate = run("estimate", str(data), "--json", "--no-progress", "--random-seed", "1")
            baselines = run("baselines", str(data), "--json", "--random-seed", "1")
            rows.append((attempt + 1, estimate, baselines))
            print(f"run {attempt + 1}: estimate {estimate:.2f} s, baselines {baselines:.2f} s")
    table = "\n".join(f"| {n} | {e:.2f} | {b:.2f} | {e / b:.1f} |" for n, e, b in rows)
    body = (
        "Each row is one fresh process per command; run 1 may include compiling caches "
        "that later runs reuse (PyTensor's C cache persists across processes).\n\n"
        "| run | `estimate` (s) | `baselines` (s) | ratio |\n|---|---|---|---|\n" + table
    )
    print(
        record(
            "cli",
            "Cold command-line estimate on the bundled example",
            "python benchmarks/bench_cli.py",
            body,
        )
    )


if __name__ == "__main__":
    main()
