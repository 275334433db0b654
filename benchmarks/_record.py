"""Shared helpers of the benchmark scripts: timing and recording results with their provenance.

Every result file a script writes starts with its title and a provenance block: the command
that wrote it, the commit it started on (marked when the work tree had uncommitted changes), the
date, the machine and the machine's load average when the run ended (the machines are shared,
so wall-clock times move with the load). ``BAYESJUDGE_BENCH_RESULTS`` names another folder for
the results (``run.py --quick`` uses it so that a quick run never overwrites a full record).
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = Path(os.environ.get("BAYESJUDGE_BENCH_RESULTS") or HERE / "results")


def timed(function: Callable[[], object], *, repeat: int = 5) -> float:
    """Return the median wall time of ``repeat`` calls of ``function``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def machine() -> str:
    """Describe the machine the benchmark ran on."""
    return (
        f"{os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}"
    )


def commit() -> str:
    """Return the checkout's commit (short hash), marked when the work tree has changes."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=HERE, capture_output=True, text=True, check=False
        ).stdout.strip()

    head = git("rev-parse", "--short=12", "HEAD")
    if not head:
        return "unknown (not a git checkout)"
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "..")
    return f"{head} with uncommitted changes" if dirty else head


#: The commit when the script started (a commit made while it runs does not change what it ran).
STARTED_ON = commit()


def command_line() -> str:
    """Return the command that started this process, as run from the repository root."""
    script = Path(sys.argv[0]).resolve()
    try:
        shown = script.relative_to(HERE.parent).as_posix()
    except ValueError:
        shown = str(script)
    return " ".join(["python", shown, *sys.argv[1:]])


def provenance(command: str | None = None) -> str:
    """Return the provenance block: command, commit, date, machine and load average."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"- command: `{command or command_line()}`\n"
        f"- commit: {STARTED_ON}\n"
        f"- date: {stamp}\n"
        f"- machine: {machine()}\n"
        f"- load average at the end (1, 5, 15 min): {load}\n"
    )


def write_result(path: Path, text: str, command: str | None = None) -> Path:
    """Write ``text`` (a markdown page opening with its ``# title``) with its provenance.

    The provenance block goes after the title line; ``path`` is relative to :data:`RESULTS`
    unless absolute.
    """
    path = path if path.is_absolute() else RESULTS / path
    title, _, body = text.partition("\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{title}\n\n{provenance(command)}\n{body.lstrip(chr(10))}", encoding="utf-8")
    return path


def record(name: str, title: str, command: str, body: str) -> Path:
    """Write ``results/<name>.md``: the title, the provenance block and ``body``."""
    return write_result(Path(f"{name}.md"), f"# {title}\n\n{body}\n", command)
