"""Refit time now against the refit of the code issue 9 was filed on, measured in one run.

Issue 9 asks that a refit in the same process stay at or below the 0.19 s it measured on the
code of the first wave (commit ``b7cf44e``), on that day's machine. These machines are shared
and their speed changes from day to day, so the comparison here is made in one run: the same
refits (the same datasets and seeds as ``bench_refit.py``) timed alternately in processes of
this checkout and of an environment where the first wave's code is installed.

Set up the baseline once (a worktree of the old commit with its own environment):

    git worktree add ../bayesjudge-wave1 b7cf44e
    make -C ../bayesjudge-wave1 setup

then run from this repository's root:

    .venv/bin/python benchmarks/bench_refit_baseline.py \\
        --baseline-python ../bayesjudge-wave1/.venv/bin/python --rounds 4 --repeats 7

Each round starts one process per side; a process fits once (build and compile, not timed)
and then times ``repeats`` refits of ``fit_prevalence`` with its defaults. The sides alternate
within each round, so both see the same machine load. The result is the median refit of each
side and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _record import record

HERE = Path(__file__).resolve()


def _child(repeats: int) -> None:
    """Time ``repeats`` refits in this process and print them as JSON (either code base)."""
    import numpy as np

    import bayesjudge as bj

    rng = np.random.default_rng(0)
    data = []
    # the datasets of bench_refit.py, drawn here: that script imports modules the first
    # wave's code does not have, and this function runs under either code base
    for _ in range(repeats + 1):
        m1, m0, n = 150, 150, 2000
        x1, x0 = rng.binomial(m1, 0.9), rng.binomial(m0, 0.15)
        k = rng.binomial(n, 0.7 * 0.9 + 0.3 * 0.15)
        data.append(bj.JudgeData.from_counts(m1, int(x1), m0, int(x0), n, int(k)))
    bj.fit_prevalence(data[0], random_seed=0, progressbar=False)  # build and compile
    times = []
    for seed, dataset in enumerate(data[1:], start=1):
        start = time.perf_counter()
        tree = bj.fit_prevalence(dataset, random_seed=seed, progressbar=False)
        times.append(time.perf_counter() - start)
        if not tree.attrs.get("diagnostics_passed", True):
            raise SystemExit(f"refit {seed} failed its diagnostics")
    print(json.dumps({"version": bj.__version__, "times": times}))


def _side(python: str, repeats: int) -> dict[str, Any]:
    # run outside the repository, so each interpreter imports its own installed bayesjudge
    done = subprocess.run(
        [python, str(HERE), "--child", str(repeats)],
        cwd="/",
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-python", help="interpreter of the first wave's environment")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=7, help="timed refits per process")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", default="refit_baseline", help="name of the results file")
    args = parser.parse_args()
    if args.child is not None:
        _child(args.child)
        return
    if args.baseline_python is None:
        # run.py starts every benchmark without arguments: without a baseline, say so and skip
        print("bench_refit_baseline: skipped, no --baseline-python (see the module docstring)")
        return
    sides = {"first wave (b7cf44e)": args.baseline_python, "this checkout": sys.executable}
    times: dict[str, list[float]] = {name: [] for name in sides}
    versions: dict[str, str] = {}
    load_before = os.getloadavg()
    for _ in range(args.rounds):
        for name, python in sides.items():
            result = _side(python, args.repeats)
            versions[name] = str(result["version"])
            times[name].extend(float(t) for t in result["times"])
    load_after = os.getloadavg()
    median = {name: statistics.median(values) for name, values in times.items()}
    old, new = median["first wave (b7cf44e)"], median["this checkout"]
    rows = [
        "| code | bayesjudge | refits | median s | fastest s | slowest s |",
        "|---|---|---|---|---|---|",
    ]
    for name, values in times.items():
        rows.append(
            f"| {name} | {versions[name]} | {len(values)} | {median[name]:.3f} | "
            f"{min(values):.3f} | {max(values):.3f} |"
        )
    body = "\n".join(
        [
            f"Load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load_before)};"
            f" after: {', '.join(f'{x:.2f}' for x in load_after)}. {args.rounds} rounds, each"
            f" one process per side timing {args.repeats} refits after one untimed fit; the"
            " sides alternate within each round. Refit: `fit_prevalence` with its defaults"
            " (4 chains x 2000 draws after 1000 tuning steps, diagnostics included) on the"
            " datasets of `bench_refit.py`.",
            "",
            *rows,
            "",
            f"Refit now / refit of the first wave, same run: **{new / old:.2f}** "
            f"({new:.3f} s against {old:.3f} s).",
        ]
    )
    command = (
        "python benchmarks/bench_refit_baseline.py --baseline-python "
        f"../bayesjudge-wave1/.venv/bin/python --rounds {args.rounds} --repeats {args.repeats}"
    )
    path = record(args.out, "Refit: this checkout against the first wave, one run", command, body)
    print(path.read_text())


if __name__ == "__main__":
    main()
