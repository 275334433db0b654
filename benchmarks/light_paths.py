"""Per-process cost of the answers that need no sampler, before and after a change, side by side.

``bayesjudge baselines`` and ``bayesjudge estimate --method exact`` on the bundled judge example
each run in a fresh process, from two source trees in the same run: ``--before DIR`` (a checkout
of the earlier commit, for example ``git worktree add /tmp/before COMMIT``) and this checkout.
``bayesjudge estimate`` (NUTS, compile cache filled by one untimed run per tree) runs beside them
so that each command's ratio to it is from the same run. ``bayesjudge --help`` runs too: the
command line and its parser alone, which every usage error also pays. Every command runs
``--runs`` times (default 5), the trees and commands interleaved so that a change in the
machine's load falls on both; the table gives medians of the wall time, of the CPU time (user +
system, every thread of the process, from ``os.wait4``) and of the peak resident memory. The
printed answers of the two trees are compared too (the text output, as a user reads it).

Both trees' modules are compiled to bytecode first (``compileall``), as installing a package
does: with ``PYTHONDONTWRITEBYTECODE=1`` and no ``__pycache__``, every process would compile
the package's sources again, a cost no installed copy pays. ``--no-compile`` measures that
case instead.

Usage::

    python benchmarks/light_paths.py --before /tmp/before
    python benchmarks/light_paths.py --before /tmp/before --runs 3 --name light_paths_quick
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
AFTER = HERE.parent

#: R's ``prevalence::truePrev`` (JAGS, its defaults) per process, as issue 30 measured it (R is
#: not installed here, so it is quoted, not rerun).
R_TRUEPREV_S = 0.55


def commands(example: str) -> dict[str, list[str]]:
    return {
        "estimate": ["estimate", example],
        "baselines": ["baselines", example],
        "estimate --method exact": ["estimate", example, "--method", "exact"],
        # the parser alone: what every --help and every usage error costs
        "--help": ["--help"],
    }


def run_once(tree: Path, argv: list[str], cache: Path, scratch: Path) -> dict[str, object]:
    """Run ``bayesjudge ARGV`` from ``tree`` in a fresh process; return its costs and output."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]),
        "BJ_ROOT": str(tree),  # where a development shim maps bayesjudge.models, if one is used
        "BAYESJUDGE_CACHE_DIR": str(cache),
    }
    out_path, err_path = scratch / "stdout.txt", scratch / "stderr.txt"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "bayesjudge", *argv, "--no-progress"]
            if argv[0] == "estimate" and "exact" not in argv
            else [sys.executable, "-m", "bayesjudge", *argv],
            stdout=out,
            stderr=err,
            env=env,
            cwd=scratch,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    code = proc.returncode
    if code not in (0, 3):
        raise RuntimeError(
            f"{tree}: bayesjudge {' '.join(argv)} exited {code}:\n"
            f"{err_path.read_text(encoding='utf-8')[-3000:]}"
        )
    return {
        "code": code,
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024.0,  # kilobytes on Linux
        "stdout": out_path.read_text(encoding="utf-8"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="source tree of the before")
    parser.add_argument(
        "--after",
        type=Path,
        default=AFTER,
        help="source tree of the after (default this checkout; a copy of it, such as "
        "`git archive HEAD | tar -x -C /tmp/after`, keeps edits made during the run out)",
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--name", default="light_paths")
    parser.add_argument(
        "--no-compile", action="store_true", help="do not compile the trees to bytecode first"
    )
    args = parser.parse_args()
    from _record import RESULTS, command_line, write_result

    before, after = args.before.resolve(), args.after.resolve()
    for option, tree in (("--before", before), ("--after", after)):
        if not (tree / "bayesjudge" / "__init__.py").exists():
            parser.error(f"{option} {tree} holds no bayesjudge package")
    trees = {"before": before, "after": after}
    if not args.no_compile:
        for tree in trees.values():
            folders = [str(tree / name) for name in ("bayesjudge", "models")]
            subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True)
    example = str(after / "bayesjudge" / "examples" / "judge_example.csv")
    todo = commands(example)
    runs: dict[tuple[str, str], list[dict[str, object]]] = {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        caches = {}
        for label, tree in trees.items():
            caches[label] = folder / f"cache_{label}"
            caches[label].mkdir()
            run_once(tree, todo["estimate"], caches[label], folder)  # fills the compile cache
        for i in range(args.runs):
            for name, argv in todo.items():
                for label, tree in trees.items():
                    result = run_once(tree, argv, caches[label], folder)
                    runs.setdefault((label, name), []).append(result)
                    print(
                        f"run {i + 1} {label} {name}: {result['wall']:.2f} s wall, "
                        f"{result['cpu']:.2f} s CPU",
                        file=sys.stderr,
                    )
    elapsed = time.perf_counter() - started

    def median(label: str, name: str, key: str) -> float:
        return statistics.median(float(r[key]) for r in runs[(label, name)])  # type: ignore[arg-type]

    lines = [
        "| command | tree | wall s | CPU s | peak memory MB | wall / estimate | CPU / estimate "
        "| CPU after / before | same printed answer |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in todo:
        for label in trees:
            wall, cpu = median(label, name, "wall"), median(label, name, "cpu")
            ratio_wall = wall / median(label, "estimate", "wall")
            ratio_cpu = cpu / median(label, "estimate", "cpu")
            change = ""
            same = ""
            if label == "after":
                change = f"{cpu / median('before', name, 'cpu'):.2f}"
                same = (
                    "yes"
                    if _answers(runs, name, "before") == _answers(runs, name, "after")
                    else "no"
                )
                if name == "estimate":
                    same = "(sampled)"
            lines.append(
                f"| {name} | {label} | {wall:.2f} | {cpu:.2f} "
                f"| {median(label, name, 'rss_mb'):.0f} "
                f"| {ratio_wall:.2f} | {ratio_cpu:.2f} | {change} | {same} |"
            )
    body = (
        f"Run of {elapsed:.0f} s in all; {args.runs} runs of each command from each tree, "
        "interleaved, medians. `before` is the source tree given with `--before` "
        f"(`{before.name}`), `after` the tree given with `--after` (`{after.name}`; this "
        "checkout unless given). Wall and CPU seconds and peak memory are per "
        "process (CPU: user + system over every thread, from `os.wait4`); ratios are to "
        "`bayesjudge estimate` (NUTS, compile cache filled) from the same tree in the same run. "
        '"Same printed answer" compares the text output of the two trees (the NUTS estimate '
        "is sampled, so not compared). "
        + (
            "The trees' sources were not compiled first (`--no-compile`): "
            f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}.\n\n"
            if args.no_compile
            else "Both trees were compiled to bytecode first, as an installed package is.\n\n"
        )
        + "## Medians\n\n"
        + "\n".join(lines)
        + "\n\n"
        f"R's `prevalence::truePrev` (JAGS, its defaults) took {R_TRUEPREV_S} s per process in "
        "issue 30's measurement on the same data; R is not installed here, so it was not rerun "
        "and is not a same-run comparison.\n"
    )
    path = write_result(
        RESULTS / f"{args.name}.md",
        f"# The answers without a sampler, per process: before and after\n\n{body}",
        command_line(),
    )
    print(path)


def _answers(
    runs: dict[tuple[str, str], list[dict[str, object]]], name: str, label: str
) -> set[str]:
    """The distinct text outputs of one command from one tree (the input line names the file)."""
    return {str(r["stdout"]) for r in runs[(label, name)]}


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
