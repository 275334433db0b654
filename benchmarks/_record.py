"""Shared helpers of the benchmark scripts: timing and recording results."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


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


def record(name: str, title: str, command: str, body: str) -> Path:
    """Write ``results/<name>.md`` with the date, machine and command beside ``body``."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.md"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    path.write_text(
        f"# {title}\n\nMeasured {stamp} on {machine()}.\n\nCommand: `{command}`\n\n{body}\n",
        encoding="utf-8",
    )
    return path
