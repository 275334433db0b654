"""Where each command's time goes: a per-phase profile of the bundled examples' commands.

Every command runs in a fresh process (``python benchmarks/profile_commands.py --child ...``)
that times, wall and CPU side by side (the machines are shared, so wall time moves with the
load; CPU time, which counts every thread of the process, including the sampler's, moves
less), the phases below. Each phase is the *exclusive* time of the functions listed for it
(time inside a nested phase, say an import inside the sampler's wrapper, is counted once, in
the inner phase); "other" is the rest of the process (argument parsing, data reading, the
analysis' own arithmetic, printing):

- import: every ``import`` statement (``builtins.__import__``), at start-up and lazily later;
- build: building the PyMC model (``ModelCache._built``);
- compile: compiling it or loading it from the on-disk compile cache
  (``ModelCache._load_or_compile``), measured twice: *cold* (an empty cache folder) and
  *cached* (the same folder, filled by the cold run);
- sampling: nutpie's tuning and sampling together (``sampling._wait``; nutpie does not keep the
  tuning draws' statistics, so they are not split), with the leapfrog steps per kept draw from
  ``sample_stats.n_steps`` and the CPU time per leapfrog step, estimated as the sampling CPU
  time over (tune + draws) x chains x steps per draw (assuming tuning draws take as many
  steps as kept ones);
- trace: turning nutpie's raw trace into the posterior tree;
- exact: the exact (quadrature) posteriors, and the batched interval widths of the label
  plan's refits (``eti_widths``);
- diagnostics: ``check_fit``;
- predictive: the posterior predictive checks (every public function of
  ``bayesjudge.*.predictive`` and ``bayesjudge.inference.ppc``/``predictive``);
- baselines: every public function of ``bayesjudge.*.baselines``;
- plan: the label plan (``bayesjudge.prevalence.plan``);
- averaging: the judge evidence and model averaging of ``rank`` (``bayesjudge.systems.average``);
- figures: ``bayesjudge.reporting.figures`` and ``bayesjudge.*.report`` content builders;
- writing: rendering and writing report files (``bayesjudge.reporting.pipeline``,
  ``.netcdf``, ``.html``).

The commands: ``estimate``, ``baselines``, ``estimate --method exact``, ``rank`` (the bundled
three systems, and a simulated two-system file of 1,500 paired items), ``panel``, ``gate`` and
``report --example judge`` (plus ``systems``, ``panel``, ``gate`` in the full run), each on its
bundled example, with each command's ratio to ``bayesjudge estimate``'s total (cached) time in
the same run. ``--quick`` runs ``estimate``, ``baselines``, ``estimate --method exact`` and
``rank`` on the two-system file with 500 draws and 500 tuning steps (the ratio is then to an
``estimate`` with the same settings) and writes to ``results/quick/``.

Usage::

    python benchmarks/profile_commands.py            # every command, full defaults
    python benchmarks/profile_commands.py --quick    # four commands, short fits
    python benchmarks/profile_commands.py --only estimate rank
    # each bundled example's fitting command beside its report, before and after a change:
    python benchmarks/profile_commands.py --reports --cache /tmp/c1 --save before.json
    python benchmarks/profile_commands.py --reports --cache /tmp/c2 --save after.json
    python benchmarks/profile_commands.py --compare before.json after.json --name profile_reports
"""

from __future__ import annotations

import argparse
import builtins
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: phase -> (module, attribute or "*" for every public function of the module)
PHASES: dict[str, list[tuple[str, str]]] = {
    "build": [("bayesjudge.inference.cache", "ModelCache._built")],
    "compile": [("bayesjudge.inference.cache", "ModelCache._load_or_compile")],
    "sampling": [("bayesjudge.inference.sampling", "_wait")],
    "trace": [("bayesjudge.inference._nutpie_tree", "tree_from_raw")],
    "exact": [
        ("bayesjudge.prevalence.exact", "exact_posterior"),
        ("bayesjudge.prevalence.exact", "eti_widths"),
        ("bayesjudge.systems.exact", "*"),
    ],
    "diagnostics": [("bayesjudge.inference.diagnostics", "check_fit")],
    "predictive": [
        ("bayesjudge.inference.ppc", "*"),
        ("bayesjudge.inference.predictive", "*"),
        ("bayesjudge.systems.predictive", "*"),
        ("bayesjudge.panels.predictive", "*"),
        ("bayesjudge.gates.predictive", "*"),
    ],
    "baselines": [
        ("bayesjudge.prevalence.baselines", "*"),
        ("bayesjudge.systems.baselines", "*"),
        ("bayesjudge.panels.baselines", "*"),
        ("bayesjudge.gates.baselines", "*"),
        ("bayesjudge.repeated.baselines", "*"),
    ],
    "plan": [("bayesjudge.prevalence.plan", "*")],
    "averaging": [("bayesjudge.systems.average", "*")],
    "figures": [
        ("bayesjudge.reporting.figures", "*"),
        ("bayesjudge.reporting.html", "png"),
        ("bayesjudge.prevalence.report", "report_content"),
        ("bayesjudge.systems.report", "report_content"),
        ("bayesjudge.panels.report", "report_content"),
        ("bayesjudge.gates.report", "report_content"),
        ("bayesjudge.channels.report", "report_content"),
        ("bayesjudge.repeated.report", "report_content"),
    ],
    "writing": [
        ("bayesjudge.reporting.pipeline", "write_files"),
        ("bayesjudge.reporting.netcdf", "*"),
    ],
}
ORDER = ["import", *PHASES, "other"]


# --------------------------------------------------------------------------- child
class _Clock:
    """Exclusive wall and CPU time per phase, kept on a stack of the phases entered."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.stack: list[list[float]] = []  # [wall start, cpu start, child wall, child cpu]
        self.stats: dict[str, float] = {}

    def run(self, phase: str, function, *args, **kwargs):  # type: ignore[no-untyped-def]
        frame = [time.perf_counter(), time.process_time(), 0.0, 0.0]
        self.stack.append(frame)
        try:
            return function(*args, **kwargs)
        finally:
            self.stack.pop()
            wall = time.perf_counter() - frame[0]
            cpu = time.process_time() - frame[1]
            self.wall[phase] = self.wall.get(phase, 0.0) + wall - frame[2]
            self.cpu[phase] = self.cpu.get(phase, 0.0) + cpu - frame[3]
            if self.stack:
                self.stack[-1][2] += wall
                self.stack[-1][3] += cpu


CLOCK = _Clock()


def _wrap(phase: str, function):  # type: ignore[no-untyped-def]
    def wrapped(*args, **kwargs):  # type: ignore[no-untyped-def]
        return CLOCK.run(phase, function, *args, **kwargs)

    wrapped.__wrapped__ = function  # type: ignore[attr-defined]
    wrapped.__name__ = getattr(function, "__name__", "wrapped")
    return wrapped


def _record_trace(result):  # type: ignore[no-untyped-def]
    try:
        steps = result["sample_stats"]["n_steps"].values
        CLOCK.stats["steps"] = CLOCK.stats.get("steps", 0.0) + float(steps.sum())
        CLOCK.stats["draws_kept"] = CLOCK.stats.get("draws_kept", 0.0) + float(steps.size)
    except (KeyError, TypeError):
        pass
    return result


def _patch(module_name: str, attribute: str, phase: str) -> None:
    module = sys.modules[module_name]
    if attribute == "*":
        names = [
            name
            for name, value in vars(module).items()
            if callable(value)
            and not name.startswith("_")
            and getattr(value, "__module__", None) == module_name
            and not isinstance(value, type)
        ]
        for name in names:
            _replace(module, name, phase)
        return
    owner_name, _, name = attribute.rpartition(".")
    owner = getattr(module, owner_name) if owner_name else module
    _replace(owner, name, phase)


def _replace(owner, name: str, phase: str) -> None:  # type: ignore[no-untyped-def]
    original = getattr(owner, name)
    if hasattr(original, "__wrapped__") and getattr(original, "__name__", "") == name:
        return
    if phase == "trace":

        def traced(*args, **kwargs):  # type: ignore[no-untyped-def]
            return _record_trace(CLOCK.run(phase, original, *args, **kwargs))

        traced.__wrapped__ = original  # type: ignore[attr-defined]
        traced.__name__ = name
        wrapped = traced
    else:
        wrapped = _wrap(phase, original)
    setattr(owner, name, wrapped)
    # modules that bound the function by name before it was wrapped (``from m import f``)
    for other in list(sys.modules.values()):
        namespace = getattr(other, "__dict__", None)
        if (
            namespace is not None
            and getattr(other, "__name__", "").startswith("bayesjudge")
            and namespace.get(name) is original
        ):
            namespace[name] = wrapped


def _targets() -> dict[str, list[tuple[str, str]]]:
    targets: dict[str, list[tuple[str, str]]] = {}
    for phase, entries in PHASES.items():
        for module, attribute in entries:
            targets.setdefault(module, []).append((attribute, phase))
    return targets


def child(argv: list[str], out: Path) -> None:
    """Run ``bayesjudge ARGV`` in this process with the phases timed; write them to ``out``."""
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    pending = _targets()
    original_import = builtins.__import__

    def timed_import(*args, **kwargs):  # type: ignore[no-untyped-def]
        module = CLOCK.run("import", original_import, *args, **kwargs)
        if pending:
            for name in [n for n in pending if n in sys.modules]:
                # patch only a module whose body has run (partially initialised ones wait)
                spec = getattr(sys.modules[name], "__spec__", None)
                if spec is not None and getattr(spec, "_initializing", False):
                    continue
                for attribute, phase in pending.pop(name):
                    _patch(name, attribute, phase)
        return module

    builtins.__import__ = timed_import
    from bayesjudge.cli.app import main

    code = CLOCK.run("other", lambda: _main_code(main, argv))
    wall = time.perf_counter() - start_wall
    cpu = time.process_time() - start_cpu
    # "other" holds everything outside the listed phases (its own exclusive time)
    CLOCK.wall["other"] = CLOCK.wall.get("other", 0.0)
    CLOCK.cpu["other"] = CLOCK.cpu.get("other", 0.0)
    accounted_wall = sum(CLOCK.wall.values())
    accounted_cpu = sum(CLOCK.cpu.values())
    CLOCK.wall["other"] += wall - accounted_wall
    CLOCK.cpu["other"] += cpu - accounted_cpu
    out.write_text(
        json.dumps(
            {
                "code": code,
                "wall": wall,
                "cpu": cpu,
                "phases_wall": CLOCK.wall,
                "phases_cpu": CLOCK.cpu,
                "stats": CLOCK.stats,
            }
        ),
        encoding="utf-8",
    )


def _main_code(main, argv: list[str]) -> int:  # type: ignore[no-untyped-def]
    try:
        return int(main(argv) or 0)
    except SystemExit as exc:
        return int(exc.code or 0)


# --------------------------------------------------------------------------- parent
def two_system_file(folder: Path) -> Path:
    """Write the two-system file: 1,500 paired items, 200 of them gold-labelled."""
    from bayesjudge.systems.simulate import simulate_systems

    sim = simulate_systems(
        [0.70, 0.76], n_unlabelled=1300, n_labelled=200, se=0.9, sp=0.85, random_seed=30
    )
    path = folder / "two_systems_1500.csv"
    sim.frame.to_csv(path, index=False)
    return path


def commands(folder: Path, quick: bool) -> dict[str, list[str]]:
    from bayesjudge.examples import example_file

    pair = str(two_system_file(folder))
    judge = example_file("judge")
    report = str(folder / "report")
    full = {
        "estimate": ["estimate", judge],
        "baselines": ["baselines", judge],
        "estimate --method exact": ["estimate", judge, "--method", "exact"],
        "rank (bundled, 3 systems)": ["rank", example_file("systems")],
        "rank (2 systems, 1,500 paired items)": ["rank", pair],
        "panel": ["panel", example_file("panel")],
        "gate": ["gate", example_file("gate")],
        "report --example judge": ["report", "--example", "judge", "--out", report + "_judge"],
        "report --example systems": [
            "report",
            "--example",
            "systems",
            "--out",
            report + "_systems",
        ],
        "report --example panel": ["report", "--example", "panel", "--out", report + "_panel"],
        "report --example gate": ["report", "--example", "gate", "--out", report + "_gate"],
    }
    if quick:
        keep = [
            "estimate",
            "baselines",
            "estimate --method exact",
            "rank (2 systems, 1,500 paired items)",
        ]
        short = ["--draws", "500", "--tune", "500"]
        return {
            name: [*argv, *short] if name not in ("baselines", "estimate --method exact") else argv
            for name, argv in full.items()
            if name in keep
        }
    return full


#: The fitting command (and its options) of each bundled example, as ``report --example``
#: runs it (``bayesjudge.cli.app._EXAMPLE_COMMANDS``; the judge example's is ``estimate``).
REPORT_EXAMPLES: dict[str, tuple[str, ...]] = {
    "judge": ("estimate",),
    "gate": ("gate",),
    "channel": ("channel", "--by-slice"),
    "systems": ("rank",),
    "panel": ("panel",),
    "repeated": ("repeated", "--item", "item", "--epoch", "epoch", "--cluster", "cluster"),
}


def report_pairs(folder: Path, examples: list[str]) -> dict[str, tuple[list[str], list[str]]]:
    """Each example's fitting command on its bundled file and its ``report --example``."""
    from bayesjudge.examples import example_file

    pairs = {}
    for name in examples:
        command, *extra = REPORT_EXAMPLES[name]
        fit = [command, example_file(name), *extra]  # type: ignore[arg-type]
        report = ["report", "--example", name, "--out", str(folder / f"report_{name}")]
        pairs[name] = (fit, report)
    return pairs


def run_reports(args: argparse.Namespace) -> None:
    """``--reports``: each example's fitting command and its report, one process each.

    One compile cache (``--cache``, kept between runs so that a before and an after run
    share it) serves every command; unless ``--warm`` says it is filled already, each fitting
    command first runs once unrecorded to fill it. The raw timings go to ``--save`` (JSON);
    ``--compare BEFORE AFTER`` writes the side-by-side table from two such files.
    """
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    examples = args.examples or list(REPORT_EXAMPLES)
    from _record import STARTED_ON, command_line, machine

    record: dict = {  # type: ignore[type-arg]
        "commit": STARTED_ON,
        "command": command_line(),
        "machine": machine(),
        "elapsed": 0.0,
        "runs": {},
    }
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, (fit, report) in report_pairs(folder, examples).items():
            if not args.warm:
                run_child(fit, cache, folder)
            for kind, argv in (("fit", fit), ("report", report)):
                load_before = os.getloadavg()[0]
                result = run_child(argv, cache, folder)
                result["load"] = [load_before, os.getloadavg()[0]]
                result["argv"] = argv
                record["runs"][f"{name}/{kind}"] = result
                record["elapsed"] = time.perf_counter() - started
                # saved after every command, so that a run cut short keeps what it measured
                Path(args.save).write_text(json.dumps(record, indent=1), encoding="utf-8")
                print(
                    f"{name} {kind}: {result['wall']:.1f} s wall, {result['cpu']:.1f} s CPU",
                    file=sys.stderr,
                )
    print(args.save)


REPORT_PHASES = ["import", "exact", "plan", "figures", "writing"]


def _load(run: dict) -> str:  # type: ignore[type-arg]
    return f"{run['load'][1]:.1f}" if "load" in run else "n/a"


def compare_reports(before_path: Path, after_path: Path, name: str) -> Path:
    """Write ``results/NAME.md``: each example's fit and report, before and after, side by side."""
    from _record import command_line, write_result

    sides = {
        "before": json.loads(before_path.read_text(encoding="utf-8")),
        "after": json.loads(after_path.read_text(encoding="utf-8")),
    }
    examples = list(dict.fromkeys(k.split("/")[0] for k in sides["before"]["runs"]))
    lines = [
        "| example | side | fit wall s | fit CPU s | report wall s | report CPU s "
        "| wall ratio | CPU ratio | load (fit, report) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    phase_lines = [
        "| example | side | command | "
        + " | ".join([*REPORT_PHASES, "other phases"])
        + " | total |",
        "|---|---|---|" + "---|" * (len(REPORT_PHASES) + 2),
    ]
    for example in examples:
        for side, record in sides.items():
            runs = record["runs"]
            if f"{example}/report" not in runs:
                continue
            fit, report = runs[f"{example}/fit"], runs[f"{example}/report"]
            lines.append(
                f"| {example} | {side} | {_fmt(fit['wall'])} | {_fmt(fit['cpu'])} "
                f"| {_fmt(report['wall'])} | {_fmt(report['cpu'])} "
                f"| {report['wall'] / fit['wall']:.2f} | {report['cpu'] / fit['cpu']:.2f} "
                f"| {_load(fit)}, {_load(report)} |"
            )
            for kind, r in (("fit", fit), ("report", report)):
                if "phases_cpu" not in r:  # a record of totals only (a run cut short)
                    continue
                cpu = r["phases_cpu"]
                named = [cpu.get(p, 0.0) for p in REPORT_PHASES]
                rest = r["cpu"] - sum(named)
                cells = " | ".join(f"{v:.2f}" for v in [*named, rest])
                phase_lines.append(f"| {example} | {side} | {kind} | {cells} | {r['cpu']:.2f} |")
    header = "\n".join(
        f"- {side}: commit {record['commit']}, `{record['command']}`, "
        f"{record['elapsed']:.0f} s in all, {record['machine']}"
        for side, record in sides.items()
    )
    body = (
        "Each bundled example's fitting command (as `report --example` runs it, on the bundled "
        "file) and `bayesjudge report --example NAME`, each in a fresh process with the compile "
        "cache filled, timed by `benchmarks/profile_commands.py --reports`; ratios are report "
        "over fit, from the same run. The load is the 1-minute load average when each command "
        "ended (two shared cores).\n\n"
        f"{header}\n\n## Totals\n\n" + "\n".join(lines) + "\n\n"
        "## Phases, CPU seconds\n\n"
        "Exclusive CPU time per phase as the script's docstring defines them (exact: the "
        "exact posteriors, including the label plan's refits; plan: the plan's own arithmetic; "
        "figures: drawing and encoding the figures and building the report content); "
        "other phases: everything else (sampling, diagnostics, argument parsing...).\n\n"
        + "\n".join(phase_lines)
        + "\n"
    )
    from _record import RESULTS

    return write_result(
        RESULTS / f"{name}.md", f"# Reports against their fits\n\n{body}", command_line()
    )


def run_child(argv: list[str], cache: Path, folder: Path) -> dict:  # type: ignore[type-arg]
    out = folder / "phase.json"
    if out.exists():
        out.unlink()
    env = {**os.environ, "BAYESJUDGE_CACHE_DIR": str(cache)}
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", str(out), "--", *argv],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if not out.exists():
        raise RuntimeError(f"bayesjudge {' '.join(argv)} failed:\n{proc.stderr[-3000:]}")
    result = json.loads(out.read_text(encoding="utf-8"))
    if result["code"] not in (0, 3):  # 3: a failed diagnostic is still a timed run
        raise RuntimeError(
            f"bayesjudge {' '.join(argv)} exited {result['code']}:\n{proc.stderr[-3000:]}"
        )
    return result


def _fmt(value: float) -> str:
    return f"{value:.2f}"


def table(results: dict[str, dict], cold: dict[str, dict]) -> str:  # type: ignore[type-arg]
    base = results["estimate"]["wall"]
    base_cpu = results["estimate"]["cpu"]
    lines = [
        "| command | exit | wall s | CPU s | wall / estimate | CPU / estimate | cold wall s "
        "| cold compile wall s | cached compile wall s | steps per draw | CPU us per step |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        stats = r["stats"]
        steps = stats.get("steps", 0.0) / stats["draws_kept"] if stats.get("draws_kept") else None
        per_step = ""
        if steps and r.get("sampled_iterations"):
            sampling_cpu = r["phases_cpu"].get("sampling", 0.0)
            per_step = f"{1e6 * sampling_cpu / (r['sampled_iterations'] * steps):.0f}"
        c = cold.get(name)
        lines.append(
            f"| {name} | {r['code']} | {_fmt(r['wall'])} | {_fmt(r['cpu'])} "
            f"| {r['wall'] / base:.2f} | {r['cpu'] / base_cpu:.2f} "
            f"| {_fmt(c['wall']) if c else ''} "
            f"| {_fmt(c['phases_wall'].get('compile', 0.0)) if c else ''} "
            f"| {_fmt(r['phases_wall'].get('compile', 0.0))} "
            f"| {f'{steps:.1f}' if steps else ''} | {per_step} |"
        )
    return "\n".join(lines)


def phase_table(results: dict[str, dict], key: str) -> str:  # type: ignore[type-arg]
    lines = [
        "| command | " + " | ".join(ORDER) + " |",
        "|---|" + "---|" * len(ORDER),
    ]
    for name, r in results.items():
        cells = [f"{r[key].get(phase, 0.0):.2f}" for phase in ORDER]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", nargs="*", help="command names (prefixes) to run")
    parser.add_argument("--name", default="profile_commands")
    parser.add_argument(
        "--reports", action="store_true", help="each example's fit and report (see run_reports)"
    )
    parser.add_argument("--examples", nargs="*", choices=list(REPORT_EXAMPLES))
    parser.add_argument("--cache", default=None, help="compile cache folder kept between runs")
    parser.add_argument("--warm", action="store_true", help="the --cache folder is filled")
    parser.add_argument("--save", default=None, help="JSON file of the --reports timings")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("argv", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.argv, args.child)
        return
    if args.compare:
        print(compare_reports(args.compare[0], args.compare[1], args.name))
        return
    if args.reports:
        if not args.cache or not args.save:
            parser.error("--reports needs --cache and --save")
        run_reports(args)
        return
    from _record import RESULTS, command_line, write_result

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        todo = commands(folder, args.quick)
        if args.only:
            todo = {
                n: a
                for n, a in todo.items()
                if n == "estimate" or any(n.startswith(p) for p in args.only)
            }
        results: dict[str, dict] = {}  # type: ignore[type-arg]
        cold: dict[str, dict] = {}  # type: ignore[type-arg]
        started = time.perf_counter()
        for name, argv in todo.items():
            cache = folder / f"cache_{len(results)}"
            cache.mkdir()
            sampled = name not in ("baselines", "estimate --method exact")
            if sampled:
                cold[name] = run_child(argv, cache, folder)
            results[name] = run_child(argv, cache, folder)
            if results[name]["stats"].get("draws_kept"):
                # tuning steps beside the kept draws, in the proportion of the settings
                kept = results[name]["stats"]["draws_kept"]
                draws = int(argv[argv.index("--draws") + 1]) if "--draws" in argv else 2000
                tune = int(argv[argv.index("--tune") + 1]) if "--tune" in argv else 1000
                results[name]["sampled_iterations"] = kept * (draws + tune) / draws
            print(f"{name}: {results[name]['wall']:.1f} s", file=sys.stderr)
        elapsed = time.perf_counter() - started
    base = results["estimate"]
    body = (
        f"Run of {elapsed:.0f} s in all. `bayesjudge estimate` (bundled judge example, compile "
        f"cache filled): **{base['wall']:.2f} s wall, {base['cpu']:.2f} s CPU**; the other "
        "commands' ratios are to it, from the same run. Each command ran twice in fresh "
        "processes, first with an empty compile cache (cold), then with the cache it filled "
        "(the rows below). Steps per draw are the mean leapfrog steps per kept draw over every "
        "sampler run of the process (a refit or the second model of an average counted too); "
        "CPU per step is the sampling phase's CPU time over the estimated leapfrog steps "
        "(tuning assumed as long as sampling).\n\n"
        "## Totals\n\n"
        f"{table(results, cold)}\n\n"
        "## Phases, wall seconds (compile cache filled)\n\n"
        f"{phase_table(results, 'phases_wall')}\n\n"
        "## Phases, CPU seconds (compile cache filled)\n\n"
        f"{phase_table(results, 'phases_cpu')}\n\n"
        "Phases as the script's docstring defines them (exclusive times: an import made "
        "inside a phase counts as import).\n"
    )
    folder_out = RESULTS / "quick" if args.quick else RESULTS
    path = write_result(
        folder_out / f"{args.name}.md",
        f"# Per-command profile{' (quick)' if args.quick else ''}\n\n{body}",
        command_line(),
    )
    print(path)


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
