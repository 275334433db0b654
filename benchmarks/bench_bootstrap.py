"""Benchmark: vectorised Rogan-Gladen bootstrap against judgy's per-resample Python loop.

Run from the repository root::

    python benchmarks/bench_bootstrap.py

Both estimators get the same data and the same number of resamples (B = 20,000, the judgy
procedure's default). Ours is ``rogan_gladen(..., interval="bootstrap", resample="calibration")``,
which resamples exactly what judgy resamples (the labelled pairs; test count fixed). The two are
timed in the same run, interleaved, after one warm-up call each; the table reports the median of the
repeats and writes it, with the machine and the command, to benchmarks/results/bootstrap.md.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from _record import write_result

from bayesjudge.examples import load_example
from bayesjudge.prevalence.baselines import rogan_gladen
from bayesjudge.prevalence.data import JudgeData
from bayesjudge.prevalence.simulate import judge_table

RESULT = "bootstrap.md"


def datasets() -> dict[str, JudgeData]:
    """The benchmark datasets: the judgy procedure's example, the bundled example, a larger one."""
    seed001 = JudgeData.from_counts(m1=50, x1=45, m0=50, x0=8, n=500, k=440)
    bundled = JudgeData.from_frame(load_example("judge"))
    large = JudgeData.from_frame(
        judge_table(pi=0.7, se=0.9, sp=0.85, n=5000, m1=500, m0=500, random_seed=7)
    )
    return {
        "the judgy procedure example (m=100, n=500)": seed001,
        "bundled example (m=300, n=2000)": bundled,
        "simulated (m=1000, n=5000)": large,
    }


def time_once(func) -> tuple[float, float]:
    """Return the wall-clock and the CPU time (this process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    func()
    return time.perf_counter() - wall, time.process_time() - cpu


def run(n_boot: int, repeats: int) -> list[dict[str, object]]:
    import judgy

    rows = []
    for name, data in datasets().items():
        labels = data.cal_label.astype(int)
        preds = data.cal_judge.astype(int)
        unlabelled = data.test_judge.astype(int)

        def ours(seed: int, data: JudgeData = data):
            return rogan_gladen(
                data,
                interval="bootstrap",
                n_boot=n_boot,
                resample="calibration",
                random_seed=seed,
            )

        def theirs(labels=labels, preds=preds, unlabelled=unlabelled):
            return judgy.estimate_success_rate(
                labels, preds, unlabelled, bootstrap_iterations=n_boot
            )

        ours(0)  # warm-up
        theirs()
        ours_times, judgy_times = [], []
        for rep in range(repeats):
            # ours is ~50x shorter: time it 5 times per judgy call, all interleaved
            for inner in range(5):
                ours_times.append(time_once(lambda s=5 * rep + inner: ours(s + 1)))
            judgy_times.append(time_once(theirs))
        ours_wall = statistics.median(t[0] for t in ours_times)
        ours_cpu = statistics.median(t[1] for t in ours_times)
        judgy_wall = statistics.median(t[0] for t in judgy_times)
        judgy_cpu = statistics.median(t[1] for t in judgy_times)
        est = ours(12345)
        point, low, high = theirs()
        rows.append(
            {
                "data": name,
                "ours_ms": 1e3 * ours_wall,
                "judgy_ms": 1e3 * judgy_wall,
                "ratio": judgy_wall / ours_wall,
                "ours_cpu_ms": 1e3 * ours_cpu,
                "judgy_cpu_ms": 1e3 * judgy_cpu,
                "cpu_ratio": judgy_cpu / ours_cpu,
                "ours_ci": (est.interval.low, est.interval.high),
                "judgy_ci": (low, high),
                "point_equal": abs(est.estimate - point) < 1e-12,
            }
        )
    return rows


def machine() -> str:
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    versions = ", ".join(
        f"{pkg} {importlib.metadata.version(pkg)}" for pkg in ("numpy", "judgy", "bayesjudge")
    )
    return (
        f"{platform.platform()}; {platform.processor() or platform.machine()}; "
        f"nproc {affinity or os.cpu_count()}; Python {platform.python_version()}; {versions}"
    )


def to_markdown(rows: list[dict[str, object]], *, n_boot: int, repeats: int, command: str) -> str:
    lines = [
        "# Bootstrap benchmark: vectorised Rogan-Gladen bootstrap vs judgy",
        "",
        f"- B = {n_boot:,} resamples for both; one warm-up call each, then {repeats} rounds of "
        "5 calls of ours and 1 call of judgy, interleaved; medians of the wall-clock time and of "
        "the CPU time of this process (`time.process_time`) of one full call (validation, point "
        "estimate, resampling, percentiles).",
        '- ours: `bayesjudge.estimators.rogan_gladen(data, interval="bootstrap", '
        'resample="calibration")` (one multinomial draw of the four calibration cells for all '
        "resamples); judgy: `judgy.estimate_success_rate(..., bootstrap_iterations=B)` (a Python "
        "loop over resamples). Both resample the labelled pairs and keep the test count fixed.",
        "- the machine is shared with other jobs, so wall-clock times move between runs (see the "
        "load average above); the CPU time is less sensitive to that, and both ratios are "
        "measured within one run.",
        "",
        "| data | ours wall (ms) | judgy wall (ms) | speed-up (wall) | ours CPU (ms) "
        "| judgy CPU (ms) | speed-up (CPU) | our 95% CI | judgy 95% CI | same point |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for r in rows:
        ours_ci = "[{:.4f}, {:.4f}]".format(*r["ours_ci"])  # type: ignore[str-format]
        judgy_ci = "[{:.4f}, {:.4f}]".format(*r["judgy_ci"])  # type: ignore[str-format]
        lines.append(
            f"| {r['data']} | {r['ours_ms']:.2f} | {r['judgy_ms']:.1f} | {r['ratio']:.0f}x | "
            f"{r['ours_cpu_ms']:.2f} | {r['judgy_cpu_ms']:.1f} | {r['cpu_ratio']:.0f}x | "
            f"{ours_ci} | {judgy_ci} | {'yes' if r['point_equal'] else 'NO'} |"
        )
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-boot", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    rows = run(args.n_boot, args.repeats)
    command = (
        "python benchmarks/bench_bootstrap.py"
        + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip()
    )
    text = to_markdown(rows, n_boot=args.n_boot, repeats=args.repeats, command=command)
    print(text)
    for r in rows:
        print(f"{r['data']}: judgy / ours = {r['ratio']:.1f} (wall), {r['cpu_ratio']:.1f} (CPU)")
    if not args.no_write:
        print(f"wrote {write_result(Path(RESULT), text, command)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
