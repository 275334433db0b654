"""Where the test suite's time goes: a pytest plugin that logs each test, and its summary.

As a plugin it writes one JSON line per test to ``$BJ_TIMING_DIR/<worker>.jsonl`` (one file per
pytest-xdist worker): the node id, wall start and end, the CPU time of the test's own process
(all its threads, so nutpie's sampling threads count) and the CPU time of the child processes
it waited for (command-line runs, notebook kernels), and the models it compiled in-process
(bayesjudge's model cache counter; a disk-cache load is not a compile). The lines are flushed
one by one, so a run stopped early still leaves what it measured. The machines are shared:
compare CPU seconds.

Profile the suite as CI runs it (from the repository root)::

    BJ_TIMING_DIR=/tmp/ci-profile PYTHONPATH=benchmarks \
        python -m pytest -q -p ci_profile -n 2 --dist loadscope

then summarise (per module, slowest tests, and each worker's span, which shows a worker left
idle at the end)::

    python benchmarks/ci_profile.py /tmp/ci-profile --top 25

The record it fed is ``results/ci_time.md`` (written by hand from this summary).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any, TextIO

import pytest

_STREAM: list[TextIO] = []


def _stream() -> TextIO:
    if not _STREAM:
        folder = Path(os.environ.get("BJ_TIMING_DIR", "ci-profile"))
        folder.mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _STREAM.append(open(folder / f"{worker}.jsonl", "a", encoding="utf-8"))  # noqa: SIM115
    return _STREAM[0]


def _write(record: dict[str, Any]) -> None:
    stream = _stream()
    stream.write(json.dumps(record) + "\n")
    stream.flush()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _compiles() -> int | None:
    """The models this process has compiled so far, if bayesjudge's model cache is loaded."""
    cache = sys.modules.get("bayesjudge.inference.cache")
    return None if cache is None else int(cache.model_cache_info().compiles)


def pytest_sessionstart(session: pytest.Session) -> None:
    _write({"session_start": time.time()})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    start, cpu, children = time.time(), time.process_time(), _children_cpu()
    compiles = _compiles()
    yield
    now = _compiles() or 0
    # a test that clears the model cache resets the counter: count from zero then
    compiled = now - compiles if compiles is not None and now >= compiles else now
    _write(
        {
            "id": item.nodeid,
            "t0": start,
            "t1": time.time(),
            "cpu": time.process_time() - cpu,
            "child": _children_cpu() - children,
            "compiles": compiled,
        }
    )


def summarize(folder: Path, top: int) -> str:
    """Return the per-module table, the ``top`` tests by CPU and the workers' spans."""
    rows, starts = [], {}
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if "session_start" in record:
                starts[path.stem] = record["session_start"]
            else:
                rows.append({**record, "worker": path.stem})
    if not rows:
        raise SystemExit(f"no test records in {folder}")
    modules: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for row in rows:
        totals = modules[row["id"].split("::")[0]]
        totals[0] += row["t1"] - row["t0"]
        totals[1] += row["cpu"] + row.get("child", 0.0)
        totals[2] += 1
        totals[3] += row.get("compiles", 0)
    cpu_all = sum(m[1] for m in modules.values())
    lines = [f"{len(rows)} tests, {cpu_all:.1f} s of CPU in tests", ""]
    lines += ["| module | wall s | CPU s | tests | compiles |", "|---|---|---|---|---|"]
    for name, (wall, cpu, count, made) in sorted(modules.items(), key=lambda kv: -kv[1][1])[:top]:
        lines.append(f"| `{name}` | {wall:.1f} | {cpu:.1f} | {count:.0f} | {made:.0f} |")
    lines += ["", "| test | wall s | CPU s | compiles |", "|---|---|---|---|"]
    for row in sorted(rows, key=lambda r: -(r["cpu"] + r.get("child", 0.0)))[:top]:
        cpu = row["cpu"] + row.get("child", 0.0)
        wall = row["t1"] - row["t0"]
        lines.append(f"| `{row['id']}` | {wall:.1f} | {cpu:.1f} | {row.get('compiles', 0)} |")
    origin = min(starts.values(), default=min(r["t0"] for r in rows))
    lines += ["", "| worker | first test s | last end s | busy s |", "|---|---|---|---|"]
    for worker in sorted({r["worker"] for r in rows}):
        mine = [r for r in rows if r["worker"] == worker]
        first = min(r["t0"] for r in mine) - origin
        last = max(r["t1"] for r in mine) - origin
        busy = sum(r["t1"] - r["t0"] for r in mine)
        lines.append(f"| {worker} | {first:.0f} | {last:.0f} | {busy:.0f} |")
    return "\n".join([*lines, "", *schedules(rows, workers=2)])


def _ends(costs: list[float], workers: int) -> list[float]:
    """Each worker's end when every unit goes, in turn, to the worker that is free first."""
    free = [0.0] * workers
    for cost in costs:
        free[free.index(min(free))] += cost
    return sorted(free)


def schedules(rows: list[dict[str, Any]], workers: int) -> list[str]:
    """Worker ends of ``--dist loadscope`` with the scopes in two orders, from the tests' CPU.

    A scope is xdist's (a module, or a class); each test lasts its CPU seconds on a core of its
    own, and the next scope goes to the worker free first (xdist hands it over two tests
    earlier). xdist's own order puts the scopes with the most tests first; the other order puts
    the costliest first (the longest-first rule of list scheduling).
    """
    scopes: dict[str, list[float]] = {}
    for row in sorted(rows, key=lambda r: r["t0"]):
        scope = scopes.setdefault(row["id"].rsplit("::", 1)[0], [0.0, 0.0])
        scope[0] += row["cpu"] + row.get("child", 0.0)
        scope[1] += 1
    by_count = [cost for cost, _ in sorted(scopes.values(), key=lambda s: -s[1])]
    by_cost = sorted((cost for cost, _ in scopes.values()), reverse=True)
    lines = [
        f"Simulated --dist loadscope on {workers} workers ({len(scopes)} scopes, a test's CPU s "
        "as its time):",
        "",
        "| scopes ordered | worker ends s | idle s at the end |",
        "|---|---|---|",
    ]
    for label, costs in (("by test count (xdist)", by_count), ("costliest first", by_cost)):
        ends = _ends(costs, workers)
        shown = ", ".join(f"{end:.0f}" for end in ends)
        lines.append(f"| {label} | {shown} | {sum(ends[-1] - e for e in ends):.0f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the BJ_TIMING_DIR of a profiled run")
    parser.add_argument("--top", type=int, default=25, help="rows in each table")
    args = parser.parse_args()
    print(summarize(args.folder, args.top))


if __name__ == "__main__":
    main()
