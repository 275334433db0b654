"""Large judge files through the command line: ``baselines`` and ``estimate --method exact``.

Run: ``python benchmarks/bench_cli_large.py [--sizes 1e5 1e6 1e7 1e8] [--repeats 3]``

Each file is a two-column judge CSV (``label,verdict``; 1% of rows labelled, pi = 0.7, judge
Se 0.90 and Sp 0.85), written to a temporary folder and deleted afterwards (the 10^8-row file,
about 290 MB, exists only while it is measured). Rows are drawn once for a block of at most
10^6 and the block is repeated, so the counts are known; every run's JSON counts are checked
against them.

Each command runs as a fresh process under ``/usr/bin/time -v`` (GNU time), which reports its
wall time, user and system CPU time and peak resident memory (``Maximum resident set size``),
imports included. Commands: ``bayesjudge baselines FILE --json`` and ``bayesjudge estimate
FILE --method exact --json``: both stream a file of binary verdicts to the six counts
(``JudgeCounts.from_file``). The same two commands with ``--strict`` load the file instead
(``--strict`` needs every column checked in memory): the in-memory path of this version, for
comparison, up to 10^7 rows. The baseline of issue 16 (10^7 rows, before the streaming path:
``baselines`` 27.1 s and 764 MB, ``estimate`` 38.1 s and 764 MB) is shown beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from _record import command_line, record

PATTERNS = [b",0\n", b",1\n", b"0,0\n", b"0,1\n", b"1,0\n", b"1,1\n"]
BLOCK = 1_000_000
ISSUE = {"baselines": (27.1, 764.0), "estimate": (38.1, 764.0)}  # 10^7 rows, issue 16
COMMANDS = {
    "baselines": ["baselines", "--json"],
    "estimate": ["estimate", "--method", "exact", "--json"],
}


def write_judge_file(path: Path, rows: int, *, seed: int = 12) -> dict[str, int]:
    """Write ``rows`` judge rows (a block of at most 10^6 repeated); return the six counts."""
    block = min(rows, BLOCK)
    if rows % block:
        raise ValueError(f"rows must be a multiple of {block}; got {rows}")
    rng = np.random.default_rng(seed)
    labelled = rng.random(block) < 0.01
    truth = rng.random(block) < 0.7
    verdict = np.where(truth, rng.random(block) < 0.90, rng.random(block) < 0.15)
    code = np.where(labelled, 1 + truth, 0) * 2 + verdict
    body = b"".join(np.array(PATTERNS, dtype=object)[code].tolist())
    repeats = rows // block
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


def _seconds(text: str) -> float:
    parts = [float(p) for p in text.strip().split(":")]
    total = 0.0
    for part in parts:
        total = 60.0 * total + part
    return total


def measure(command: str, path: Path, *, strict: bool, stats: Path) -> dict[str, float]:
    """Run one command under /usr/bin/time -v; return wall, CPU and peak RSS, check counts."""
    argv = [
        "/usr/bin/time", "-v", "-o", str(stats), "nice", "-n", "10",
        sys.executable, "-m", "bayesjudge", COMMANDS[command][0], str(path),
        *COMMANDS[command][1:], *(["--strict"] if strict else []),
    ]  # fmt: skip
    done = subprocess.run(argv, check=True, capture_output=True, text=True)
    payload = json.loads(done.stdout)
    report = stats.read_text()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", report)
    user = re.search(r"User time \(seconds\): (\S+)", report)
    system = re.search(r"System time \(seconds\): (\S+)", report)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    if not (wall and user and system and rss):
        raise RuntimeError(f"/usr/bin/time gave no usable report:\n{report}")
    return {
        "seconds": _seconds(wall.group(1)),
        "cpu": float(user.group(1)) + float(system.group(1)),
        "rss": int(rss.group(1)) / 1024,
        "streamed": bool(payload["input"]["streamed"]),
        "counts": payload.get("counts")
        or {"n_labelled": payload["n_labelled"], "n_unlabelled": payload["n_unlabelled"]},
    }


def _check(result: dict[str, object], expected: dict[str, int], command: str) -> None:
    counts = result["counts"]
    if command == "estimate":
        assert counts == expected, (counts, expected)
    else:
        assert counts == {
            "n_labelled": expected["m1"] + expected["m0"],
            "n_unlabelled": expected["n"],
        }, (counts, expected)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e5, 1e6, 1e7, 1e8])
    parser.add_argument("--in-memory-max", type=float, default=1e7)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        stats = Path(folder) / "time.txt"
        for size in (int(s) for s in args.sizes):
            path = Path(folder) / f"judge-{size}.csv"
            expected = write_judge_file(path, size)
            megabytes = path.stat().st_size / 2**20
            for command in COMMANDS:
                paths = [("streamed", False)]
                if size <= args.in_memory_max:
                    paths.append(("loaded (--strict)", True))
                for label, strict in paths:
                    repeats = args.repeats if size <= 1e7 else 1
                    runs = [
                        measure(command, path, strict=strict, stats=stats) for _ in range(repeats)
                    ]
                    for run in runs:
                        _check(run, expected, command)
                        assert run["streamed"] is (not strict), run
                    seconds = statistics.median(r["seconds"] for r in runs)
                    cpu = statistics.median(r["cpu"] for r in runs)
                    rss = max(r["rss"] for r in runs)
                    issue = ""
                    if size == 10**7 and not strict:
                        issue_s, issue_mb = ISSUE[command]
                        issue = (
                            f"{issue_s:.1f} s / {issue_mb:.0f} MB "
                            f"({issue_s / seconds:.1f}x time, {issue_mb / rss:.1f}x memory)"
                        )
                    print(
                        f"{size:>11,} rows ({megabytes:.0f} MB) {command:>9} {label:>17}: "
                        f"{seconds:7.2f} s, CPU {cpu:7.2f} s, peak {rss:5.0f} MB {issue}",
                        flush=True,
                    )
                    lines.append(
                        f"| {size:,} | {megabytes:.0f} | `{command}` | {label} | {seconds:.2f} | "
                        f"{cpu:.2f} | {rss:.0f} | {issue or '-'} |"
                    )
            path.unlink()
    load = os.getloadavg()
    body = (
        "Two-column judge CSV (`label,verdict`, 1% labelled). Each command is a fresh process "
        "(`nice -n 10`) under `/usr/bin/time -v`: wall time and user + system CPU time are the "
        f"median of {args.repeats} runs up to 10^7 rows (one run at 10^8), peak memory is the "
        "largest `Maximum resident set size`, imports included. `baselines` is "
        "`bayesjudge baselines FILE --json`; `estimate` is `bayesjudge estimate FILE --method "
        "exact --json`. *streamed*: the default, the file reduced block by block to the six "
        "counts; *loaded (--strict)*: the same command with `--strict`, which loads the file "
        "(this version's in-memory path). Every run's counts were checked against the generated "
        "ones. The last column is issue 16's baseline at 10^7 rows (before this change, "
        "measured when the issue was filed) and how many times more time and memory it took. "
        f"Load average at the end: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}: the 2-core "
        "machine is shared by several jobs, so wall times are noisy; CPU time is the steadier "
        "measure.\n\n"
        "| rows | file (MB) | command | path | wall (s) | CPU (s) | peak RSS (MB) | "
        "issue 16 baseline |\n"
        "|---|---|---|---|---|---|---|---|\n" + "\n".join(lines)
    )
    print(
        record(
            "cli_large",
            "Large judge files through the command line",
            command_line(),
            body,
        )
    )


if __name__ == "__main__":
    main()
