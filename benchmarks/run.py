"""Run every benchmark script (``bench_*.py``) in this folder, one process each.

Each script measures its own baseline in the same run, prints ratios, and rewrites its
recorded result under ``benchmarks/results/``. Usage: ``python benchmarks/run.py [NAME ...]``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    """Run the named benchmarks (all by default) and return the number that failed."""
    wanted = set(sys.argv[1:])
    scripts = sorted(p for p in HERE.glob("bench_*.py") if not wanted or p.stem in wanted)
    failed = 0
    for script in scripts:
        print(f"== {script.name}", flush=True)
        failed += subprocess.run([sys.executable, str(script)], check=False).returncode != 0
    return failed


if __name__ == "__main__":
    sys.exit(main())
