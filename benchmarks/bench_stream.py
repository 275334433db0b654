"""Streaming a large judge file to the six counts, beside the in-memory paths, on one core.

Run: ``python benchmarks/bench_stream.py [--sizes 1e6 1e7 1e8] [--in-memory-max 1e7]``

The file is a two-column judge CSV (``label,verdict``; 1% of rows labelled, pi = 0.7, judge
Se 0.90 and Sp 0.85), written to a temporary folder and deleted afterwards. Rows are drawn once
for a block of 10^6 and that block is repeated, so the 10^8-row file (about 320 MB) is written
in seconds; the counts are checked against the block's counts times the repeats.

Each measurement is a fresh process pinned to one CPU (``os.sched_setaffinity``), which reports
its own wall time, CPU time and peak resident memory (``ru_maxrss``); an ``import`` process
gives the memory of importing bayesjudge alone. Three paths:

* ``stream``: :func:`bayesjudge.io.judge_counts` (blocks of 1 MiB, pyarrow, no threads);
* ``new in-memory``: :func:`bayesjudge.io.read_table` + :func:`bayesjudge.io.conform` + counts;
* ``old in-memory``: ``JudgeData.from_csv(path).counts`` (pandas ``read_csv`` and a per-row
  parse), what every command does today: the baseline the ratios are taken against.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from _record import command_line, record

PATTERNS = [b",0\n", b",1\n", b"0,0\n", b"0,1\n", b"1,0\n", b"1,1\n"]
BLOCK = 1_000_000

CHILD = r"""
import json, os, resource, sys, time
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
import pyarrow
pyarrow.set_cpu_count(1)
pyarrow.set_io_thread_count(1)
kind, path = sys.argv[1], sys.argv[2]
import numpy as np
import bayesjudge.io as bio
from bayesjudge import JudgeData
from bayesjudge.io.stream import JUDGE_FIELDS
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu0 = usage.ru_utime + usage.ru_stime
start = time.perf_counter()
if kind == "stream":
    counts = bio.judge_counts(path).as_dict()
elif kind == "new":
    table = bio.conform(bio.read_table(path), JUDGE_FIELDS)
    label, verdict = table["label"].to_numpy(), table["verdict"].to_numpy()
    counts = {
        "m1": int((label == 1).sum()), "x1": int(((label == 1) & (verdict == 1)).sum()),
        "m0": int((label == 0).sum()), "x0": int(((label == 0) & (verdict == 1)).sum()),
        "n": int(np.isnan(label).sum()), "k": int((np.isnan(label) & (verdict == 1)).sum()),
    }
elif kind == "old":
    counts = JudgeData.from_csv(path).counts.as_dict()
else:
    counts = {}
seconds = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu = usage.ru_utime + usage.ru_stime - cpu0
rss = usage.ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "cpu": cpu, "rss_mb": rss, "counts": counts}))
"""


def write_judge_file(path: Path, rows: int, *, seed: int = 12) -> dict[str, int]:
    """Write ``rows`` judge rows (a multiple of 10^6) and return their six counts."""
    rng = np.random.default_rng(seed)
    labelled = rng.random(BLOCK) < 0.01
    truth = rng.random(BLOCK) < 0.7
    verdict = np.where(truth, rng.random(BLOCK) < 0.90, rng.random(BLOCK) < 0.15)
    code = np.where(labelled, 1 + truth, 0) * 2 + verdict
    body = b"".join(np.array(PATTERNS, dtype=object)[code].tolist())
    repeats = rows // BLOCK
    with path.open("wb") as handle:
        handle.write(b"label,verdict\n")
        for _ in range(repeats):
            handle.write(body)
    c = np.bincount(code, minlength=6) * repeats
    return {
        "m1": int(c[4] + c[5]),
        "x1": int(c[5]),
        "m0": int(c[2] + c[3]),
        "x0": int(c[3]),
        "n": int(c[0] + c[1]),
        "k": int(c[1]),
    }


def measure(kind: str, path: Path) -> dict[str, object]:
    done = subprocess.run(
        ["nice", "-n", "10", sys.executable, "-c", CHILD, kind, str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e6, 1e7, 1e8])
    parser.add_argument("--in-memory-max", type=float, default=1e7)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    uneven = [s for s in args.sizes if int(s) < BLOCK or int(s) % BLOCK]
    if uneven:
        parser.error(f"--sizes must be multiples of {BLOCK:,} rows (whole blocks); got {uneven}")
    imported = measure("import", Path(os.devnull))
    print(f"import only: {imported['rss_mb']:.0f} MB", flush=True)
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        for size in (int(s) for s in args.sizes):
            path = Path(folder) / f"judge-{size}.csv"
            expected = write_judge_file(path, size)
            megabytes = path.stat().st_size / 2**20
            kinds = ["stream"] + (["new", "old"] if size <= args.in_memory_max else [])
            results: dict[str, dict[str, float]] = {}
            for kind in kinds:
                repeats = args.repeats if size <= 1e7 and kind != "old" else 1
                runs = [measure(kind, path) for _ in range(repeats)]
                for run in runs:
                    if run["counts"] != expected:
                        raise AssertionError(
                            f"{kind} at {size} rows: {run['counts']} != {expected}"
                        )
                seconds = statistics.median(float(r["seconds"]) for r in runs)  # type: ignore[arg-type]
                cpu = statistics.median(float(r["cpu"]) for r in runs)  # type: ignore[arg-type]
                rss = max(float(r["rss_mb"]) for r in runs)  # type: ignore[arg-type]
                results[kind] = {"seconds": seconds, "cpu": cpu, "rss": rss}
                print(
                    f"{size:>11,} rows ({megabytes:.0f} MB) {kind:>6}: {seconds:7.2f} s, "
                    f"{size / seconds / 1e6:5.2f} M rows/s, CPU {cpu:7.2f} s "
                    f"({size / cpu / 1e6:5.2f} M rows per CPU-s), peak {rss:5.0f} MB",
                    flush=True,
                )
            old = results.get("old")
            for kind, label in (
                ("stream", "stream"),
                ("new", "new in-memory"),
                ("old", "old in-memory"),
            ):
                if kind not in results:
                    continue
                r = results[kind]
                speedup = f"{old['seconds'] / r['seconds']:.1f}x" if old else "n/a"
                memory = f"{old['rss'] / r['rss']:.1f}x" if old else "n/a"
                lines.append(
                    f"| {size:,} | {megabytes:.0f} | {label} | {r['seconds']:.2f} | "
                    f"{size / r['seconds'] / 1e6:.2f} | {r['cpu']:.2f} | "
                    f"{size / r['cpu'] / 1e6:.2f} | {r['rss']:.0f} | {speedup} | {memory} |"
                )
            path.unlink()
    load = os.getloadavg()
    body = (
        "Two-column judge CSV (`label,verdict`, 1% labelled), one fresh process per run pinned to "
        "one CPU; time is the median of "
        f"{args.repeats} runs up to 10^7 rows (one run at 10^8, and one of the old path), peak "
        "memory is the process's `ru_maxrss`, which includes importing bayesjudge "
        f"({imported['rss_mb']:.0f} MB alone). "
        "Ratios are against the old in-memory path (`JudgeData.from_csv`) measured in the same "
        "run; it and the new in-memory path are not run at 10^8 rows (they would need several "
        "GB). Every run's counts were checked against the generated counts. Load average at the "
        f"end: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}: the 2-core machine is shared, so wall "
        "times are noisy; the process's CPU time (user + system, after imports) is the steadier "
        "measure of one core's throughput. Speed ratios use wall time.\n\n"
        "| rows | file (MB) | path | wall (s) | M rows/s | CPU (s) | M rows per CPU-s | "
        "peak RSS (MB) | speed vs old | memory vs old |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n" + "\n".join(lines)
    )
    print(
        record(
            "stream",
            "Streaming a judge file to the six counts",
            command_line(),
            body,
        )
    )


if __name__ == "__main__":
    main()
