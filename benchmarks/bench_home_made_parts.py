"""Time the parts issue 25 moved from home-made numerics to SciPy and ArviZ, before and after.

Run: .venv/bin/python benchmarks/bench_home_made_parts.py --root BEFORE --root AFTER
[--repeats 5] [--tree PATH] [--skip-tests]

For each checkout ``--root`` (its ``bayesjudge`` imported through ``PYTHONPATH``), in rounds
that alternate between the checkouts so that both see the same machine load:

* ``bayesjudge estimate bayesjudge/examples/judge_example.csv --method exact --json`` (the exact
  posterior on the bundled example, a fresh process each time), one run per round;
* ``pytest tests/prevalence/test_exact.py tests/prevalence/test_exact_marginals.py``, one run
  per round;
* ``check_fit`` on one prevalence fit of the bundled example (4 chains x 2000 draws, pickled to
  ``--tree`` the first time so that every checkout checks the same draws), as
  ``fit_prevalence`` calls it: ten calls per round after one warm-up call, in a fresh process.

``--repeats`` rounds. Prints one Markdown table of medians and every run, with the load average
before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _run(command: list[str], root: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(root)}
    start = time.perf_counter()
    subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def _tree(path: Path) -> object:
    import pickle

    from bayesjudge.prevalence.data import JudgeData
    from bayesjudge.prevalence.fit import fit_prevalence

    if not path.exists():
        data = JudgeData.from_csv(
            Path(__file__).parents[1] / "bayesjudge/examples/judge_example.csv"
        )
        tree = fit_prevalence(data, random_seed=1, progressbar=False, escalate=False)
        path.write_bytes(pickle.dumps(tree))
    return pickle.loads(path.read_bytes())


def _check_fit_times(tree: object, count: int) -> list[float]:
    from bayesjudge.inference.diagnostics import check_fit
    from bayesjudge.prevalence.fit import REPORTED

    names = list(REPORTED[:6])
    check_fit(tree, mcse_var_names=names)  # type: ignore[arg-type]
    times = []
    for _ in range(count):
        start = time.perf_counter()
        check_fit(tree, mcse_var_names=names)  # type: ignore[arg-type]
        times.append(time.perf_counter() - start)
    return times


def _check_fit_main(tree_path: Path, count: int) -> None:
    """In the child process: print the times of ``count`` calls of ``check_fit``, one a line."""
    for seconds in _check_fit_times(_tree(tree_path), count):
        print(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, action="append", required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tree", type=Path, default=Path("/tmp/bench_home_made_fit.pickle"))
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--check-fit-only", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.check_fit_only:
        _check_fit_main(args.tree, args.check_fit_only)
        return
    roots = [r.resolve() for r in args.root]
    load_before = os.getloadavg()
    example = "bayesjudge/examples/judge_example.csv"
    cli = [sys.executable, "-m", "bayesjudge", "estimate", example, "--method", "exact", "--json"]
    tests = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    tests += ["tests/prevalence/test_exact.py", "tests/prevalence/test_exact_marginals.py"]
    rows: dict[tuple[str, Path], list[float]] = {}
    for _ in range(args.repeats):
        for root in roots:
            rows.setdefault(("`estimate --method exact` (s)", root), []).append(_run(cli, root))
            if not args.skip_tests:
                rows.setdefault(("exact tests (s)", root), []).append(_run(tests, root))
            child = [sys.executable, __file__, "--root", str(root), "--tree", str(args.tree)]
            out = subprocess.run(
                [*child, "--check-fit-only", "10"],
                cwd=root,
                env={**os.environ, "PYTHONPATH": str(root)},
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            times = [1e3 * float(line) for line in out.split()]
            rows.setdefault(("`check_fit` (ms)", root), []).extend(times)
    load_after = os.getloadavg()
    print(f"load average before: {load_before}, after: {load_after}")
    print("| what | checkout | median | runs |\n|---|---|---|---|")
    for (name, root), times in rows.items():
        runs = ", ".join(f"{t:.3g}" for t in times)
        print(f"| {name} | {root} | {statistics.median(times):.3g} | {runs} |")


if __name__ == "__main__":
    main()
