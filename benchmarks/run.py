"""Run benchmark scripts, one process each: the quick set, or the ``bench_*.py`` scripts.

Usage::

    python benchmarks/run.py --quick          # the quick set (``make bench``)
    python benchmarks/run.py [NAME ...]       # every bench_*.py (or the named ones), full size

The quick set runs small versions of the scripts listed in :data:`QUICK` and writes their
results under ``benchmarks/results/quick/`` (not kept in git), so that a quick run never
overwrites a full recorded result; a full run rewrites ``benchmarks/results/``. Every result
records its command, commit, date and machine load (``_record.py``). ``benchmarks/README.md``
lists every script, what it measures, the file it writes and how long it takes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: The quick set: script name -> its arguments for a small run (their measured times, and those of
#: the same work in the full records, are in benchmarks/README.md).
QUICK: dict[str, list[str]] = {
    "bench_bootstrap": ["--n-boot", "2000", "--repeats", "3"],
    "bench_stream": ["--sizes", "1e6", "--in-memory-max", "1e6", "--repeats", "1"],
    "bench_cli_large": ["--sizes", "1e5", "--repeats", "1"],
    "channel_studies": ["--quick"],
}


def run(script: str, arguments: list[str], env: dict[str, str]) -> tuple[int, float]:
    """Run ``script`` with ``arguments`` in a fresh process; return its exit code and seconds."""
    print(f"== {script}.py {' '.join(arguments)}".rstrip(), flush=True)
    start = time.perf_counter()
    code = subprocess.run(
        [sys.executable, str(HERE / f"{script}.py"), *arguments], check=False, env=env
    ).returncode
    return code, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks and return the number that failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="scripts to run (default: all of the set)")
    parser.add_argument("--quick", action="store_true", help="run the quick set (QUICK)")
    parser.add_argument(
        "--results",
        type=Path,
        help="folder for the results (default: results/quick with --quick, else results)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        pool = QUICK
        results = args.results or HERE / "results" / "quick"
    else:
        pool = {p.stem: [] for p in sorted(HERE.glob("bench_*.py"))}
        results = args.results or HERE / "results"
    unknown = sorted(set(args.names) - set(pool))
    if unknown:
        parser.error(f"unknown benchmark(s) {unknown}; choose from {sorted(pool)}")
    chosen = {name: pool[name] for name in pool if not args.names or name in args.names}
    env = {**os.environ, "BAYESJUDGE_BENCH_RESULTS": str(results.resolve())}
    failed, total = 0, 0.0
    for name, arguments in chosen.items():
        code, seconds = run(name, arguments, env)
        total += seconds
        failed += code != 0
        print(f"== {name}: {'ok' if code == 0 else f'FAILED (exit {code})'} in {seconds:.0f} s")
    print(f"== {len(chosen)} benchmark(s), {failed} failed, {total:.0f} s; results in {results}")
    return failed


if __name__ == "__main__":
    sys.exit(main())
