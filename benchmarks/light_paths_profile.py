"""Where a process of ``baselines`` and ``estimate --method exact`` spends its time, stage by stage.

For each command, one fresh process first runs it and lists the modules it loaded, in the order
they were loaded. Then ``--runs`` fresh processes (default 5) each load those same modules in
stages, the libraries first so that each stage pays only for what it adds: NumPy (``import
numpy`` alone), pyarrow, pandas (beyond pyarrow), the NumPy submodules that only a later
library loads, SciPy's special functions, the rest of SciPy the command loads, any other
library, bayesjudge's own modules; then the parser is built once on its own, and finally
the command runs (``bayesjudge.cli.app.main``, the parser built again, the output captured) with
nothing left to import. Each stage's CPU time (user + system of the process) and wall time are
taken around it; the interpreter's start is the CPU time spent before the script's first line.
The table gives medians over the processes, beside the medians of plain ``python -m bayesjudge``
processes of the same command (from ``os.wait4``) so that the stages can be checked against the
whole. A cProfile of the command stage (one more process, everything imported first) lists the
functions that take longest, by cumulative time.

Usage::

    python benchmarks/light_paths_profile.py
    python benchmarks/light_paths_profile.py --runs 3 --name light_paths_profile_quick
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

HERE = Path(__file__).resolve().parent
TREE = HERE.parent

#: Stages, in the order they run: (label, test on a module's name); a module goes to the first
#: stage whose test it passes.
STAGES: list[tuple[str, str]] = [
    ("NumPy (`import numpy`)", "numpy"),
    ("pyarrow", "pyarrow"),
    ("pandas (beyond pyarrow)", "pandas"),
    ("SciPy: scipy.special (and what it loads)", "scipy.special"),
    ("SciPy: the rest the command loads", "scipy"),
    ("other libraries", "*"),
    ("bayesjudge's own modules", "bayesjudge"),
]

#: The stage of NumPy's submodules that ``import numpy`` does not load.
NUMPY_LATER = "NumPy submodules loaded later (numpy.testing, numpy.f2py, ...)"

_DISCOVER = """
import contextlib, io, json, sys
from bayesjudge.cli.app import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main({argv!r})
print(json.dumps({{"code": code, "modules": list(sys.modules)}}))
"""

_NUMPY_OWN = "import json, sys, numpy; print(json.dumps(list(sys.modules)))"

_STAGED = """
import contextlib, importlib, io, json, sys, time
start_cpu = time.process_time()
groups = json.loads(sys.argv[1])
argv = json.loads(sys.argv[2])
out = [("interpreter start", start_cpu, None)]
for label, names in groups:
    cpu, wall = time.process_time(), time.perf_counter()
    for name in names:
        if name not in sys.modules:
            try:
                importlib.import_module(name)
            except Exception:  # a module only importable as a side effect of its parent
                pass
    out.append((label, time.process_time() - cpu, time.perf_counter() - wall))
from bayesjudge.cli.app import build_parser, main
cpu, wall = time.process_time(), time.perf_counter()
build_parser()
out.append(("the parser, built once", time.process_time() - cpu, time.perf_counter() - wall))
cpu, wall = time.process_time(), time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    code = main(argv)
out.append(("the command (parser included)", time.process_time() - cpu, time.perf_counter() - wall))
print(json.dumps({"code": code, "stages": out}))
"""

_PROFILED = """
import contextlib, cProfile, importlib, io, json, pstats, sys
for name in json.loads(sys.argv[1]):
    if name not in sys.modules:
        try:
            importlib.import_module(name)
        except Exception:
            pass
from bayesjudge.cli.app import main
profile = cProfile.Profile()
with contextlib.redirect_stdout(io.StringIO()):
    profile.enable()
    main(json.loads(sys.argv[2]))
    profile.disable()
stats = pstats.Stats(profile).stats
rows = []
for (path, line, function), (_, calls, own, total, _) in stats.items():
    rows.append((total, own, calls, path, line, function))
rows.sort(reverse=True)
print(json.dumps(rows[:60]))
"""


def commands(example: str) -> dict[str, list[str]]:
    return {
        "baselines": ["baselines", example],
        "estimate --method exact": ["estimate", example, "--method", "exact"],
    }


def _env(tree: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]),
        "BJ_ROOT": str(tree),
    }


def _python(tree: Path, code: str, *args: str) -> str:
    run = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=_env(tree),
        cwd=tree,
        check=False,
    )
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-3000:])
    return run.stdout.strip().splitlines()[-1]


def _stage_of(name: str) -> str:
    for label, test in STAGES:
        if test == "*" and not name.startswith("bayesjudge"):
            return label
        if name == test or name.startswith(test + "."):
            return label
    raise AssertionError(name)  # every name passes "*" or "bayesjudge"


def _groups(modules: list[str], numpy_own: set[str]) -> list[tuple[str, list[str]]]:
    """The command's modules (load order kept) grouped into the stages, in stage order.

    The NumPy stage is ``import numpy`` alone; the NumPy submodules that only a later library
    loads (SciPy's vendored array-api-compat reads every attribute of ``numpy``, which loads
    ``numpy.testing`` and ``numpy.f2py``) get a stage of their own, after pandas (whatever
    pandas loads of them is counted with pandas) and before SciPy. ``numpy_own`` are the
    modules that ``import numpy`` loads.
    """
    found = [m for m in modules if m not in sys.builtin_module_names and m != "__main__"]
    groups = [(label, [m for m in found if _stage_of(m) == label]) for label, _ in STAGES]
    numpy_label, numpy_names = groups[0]
    groups[0] = (numpy_label, ["numpy"])
    later = (NUMPY_LATER, [m for m in numpy_names if m not in numpy_own])
    at = next(i for i, (label, _) in enumerate(groups) if label.startswith("pandas")) + 1
    return [*groups[:at], later, *groups[at:]]


def _whole(tree: Path, argv: list[str]) -> tuple[float, float]:
    """One plain ``python -m bayesjudge`` process: its wall and CPU seconds."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bayesjudge", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=_env(tree),
        cwd=tree,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"bayesjudge {' '.join(argv)} failed")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, default=TREE, help="source tree (default this one)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--name", default="light_paths_profile")
    args = parser.parse_args()
    from _record import RESULTS, command_line, write_result

    tree = args.tree.resolve()
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(tree / "bayesjudge"), str(tree / "models")],
        check=True,
    )
    example = str(tree / "bayesjudge" / "examples" / "judge_example.csv")
    started = time.perf_counter()
    numpy_own = set(json.loads(_python(tree, _NUMPY_OWN)))
    sections = []
    for name, argv in commands(example).items():
        found = json.loads(_python(tree, _DISCOVER.format(argv=argv)))
        if found["code"] != 0:
            raise RuntimeError(f"bayesjudge {name} exited {found['code']}")
        groups = _groups(found["modules"], numpy_own)
        per_stage: dict[str, list[tuple[float, float | None]]] = {}
        wholes = []
        for _ in range(args.runs):
            staged = json.loads(_python(tree, _STAGED, json.dumps(groups), json.dumps(argv)))
            for label, cpu, wall in staged["stages"]:
                per_stage.setdefault(label, []).append((cpu, wall))
            wholes.append(_whole(tree, argv))
        rows = [
            "| stage | modules | CPU s | wall s | share of the staged CPU |",
            "|---|---|---|---|---|",
        ]
        sizes = {label: len(names) for label, names in groups}
        medians = {
            label: (
                statistics.median(c for c, _ in values),
                None if values[0][1] is None else statistics.median(w or 0.0 for _, w in values),
            )
            for label, values in per_stage.items()
        }
        # the parser is built again inside the command: the staged total counts it once
        total = sum(cpu for label, (cpu, _) in medians.items() if label != "the parser, built once")
        for label, (cpu, wall) in medians.items():
            share = "" if label == "the parser, built once" else f"{cpu / total:.0%}"
            rows.append(
                f"| {label} | {sizes.get(label, '')} | {cpu:.3f} "
                f"| {'' if wall is None else f'{wall:.3f}'} | {share} |"
            )
        rows.append(f"| staged total (the parser once) | | {total:.3f} | | |")
        whole_wall = statistics.median(w for w, _ in wholes)
        whole_cpu = statistics.median(c for _, c in wholes)
        profile = json.loads(
            _python(
                tree,
                _PROFILED,
                json.dumps([m for _, names in groups for m in names]),
                json.dumps(argv),
            )
        )
        top = ["| cumulative s | own s | calls | function |", "|---|---|---|---|"]
        for cumulative, own, calls, path, line, function in profile[:15]:
            where = Path(path).name if path != "~" else ""
            top.append(f"| {cumulative:.3f} | {own:.3f} | {calls} | `{where}:{line}({function})` |")
        sections.append(
            f"## `bayesjudge {name}`\n\n"
            + "\n".join(rows)
            + f"\n\nPlain processes of the same command (medians of {args.runs}): "
            f"{whole_wall:.2f} s wall, {whole_cpu:.2f} s CPU.\n\n"
            "The command stage under cProfile (one process, everything imported first; "
            "cProfile slows it), the 15 longest by cumulative time:\n\n" + "\n".join(top)
        )
    elapsed = time.perf_counter() - started
    body = (
        f"Run of {elapsed:.0f} s in all, on the bundled judge example, source tree "
        f"`{tree.name}` compiled to bytecode first; {args.runs} staged processes per command, "
        "medians. Each stage loads the command's modules of its kind (counted in the "
        "modules column; the import of one also loads what it needs and is not yet loaded), "
        "after the stages above it. CPU is user + system time of the process.\n\n"
        + "\n\n".join(sections)
        + "\n"
    )
    path = write_result(
        RESULTS / f"{args.name}.md",
        f"# Where the answers without a sampler spend their time, per process\n\n{body}",
        command_line(),
    )
    print(path)


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
