"""Where the judge report's time goes beyond its fit, stage by stage, in one process.

``bayesjudge report --example judge`` fits the bundled judge example (as ``estimate`` does),
then plans labels, draws the figures, builds the tables and writes the files. This script
times each of those stages in one process, CPU (``time.process_time``) and wall side by side,
each figure's drawing (its builder, ``tight_layout`` included) apart from its encoding
(:func:`bayesjudge.reporting.html.png`), and lists the modules that the report imports and
``estimate`` does not (``python -X importtime`` of each command in a fresh process; its
self times, wall clock and so moved by the load, summed per top-level package). The plan
is computed here without the exact posterior the analysis already holds (one more exact
posterior than the report computes).

Usage (compile cache filled, so that the fit does not compile)::

    python benchmarks/profile_report_stages.py [--repeat 3] [--no-imports] [--name NAME]

The stages after the fit run ``--repeat`` times on the same analysis (medians shown); the
fit and the plan run once. With ``--name`` the tables go to ``results/NAME.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


class Stages:
    """CPU and wall seconds per named stage, each stage a list of repeats."""

    def __init__(self) -> None:
        self.cpu: dict[str, list[float]] = {}
        self.wall: dict[str, list[float]] = {}

    def run(self, name: str, function: Callable[[], Any]) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        result = function()
        self.cpu.setdefault(name, []).append(time.process_time() - cpu)
        self.wall.setdefault(name, []).append(time.perf_counter() - wall)
        return result

    def table(self) -> str:
        lines = ["| stage | CPU s (median) | wall s (median) | runs |", "|---|---|---|---|"]
        for name, cpu in self.cpu.items():
            wall = self.wall[name]
            lines.append(
                f"| {name} | {statistics.median(cpu):.3f} | {statistics.median(wall):.3f} "
                f"| {len(cpu)} |"
            )
        return "\n".join(lines)


def stages(repeat: int) -> Stages:
    """Time the report's stages in this process (the fit and plan once, the rest ``repeat``)."""
    clock = Stages()
    import bayesjudge as bj
    from bayesjudge.prevalence import report as prevalence_report
    from bayesjudge.prevalence.analysis import analyze_prevalence
    from bayesjudge.prevalence.plan import plan_labels
    from bayesjudge.reporting import html as report_html
    from bayesjudge.reporting.pipeline import render_html, render_markdown, with_record
    from bayesjudge.reporting.write import write_report

    data = bj.JudgeData.from_frame(bj.load_example("judge"))
    analysis = clock.run(
        "fit (analyze_prevalence without the plan)",
        lambda: analyze_prevalence(data, progressbar=False),
    )
    plan = clock.run(
        "label plan (plan_labels)",
        lambda: plan_labels(analysis.data, prob=analysis.prob, priors=analysis.priors),
    )
    analysis = dataclasses.replace(analysis, plan=plan)

    # each figure: drawing (builder with tight_layout) apart from encoding (png)
    original_png = report_html.png
    current: list[str] = []

    def timed_png(fig: Any, **kwargs: Any) -> str:
        return clock.run(f"figure encode: {current[0]}", lambda: original_png(fig, **kwargs))

    builders = {
        "interval_figure": prevalence_report,
        "plot_label_plan": None,
        "_threshold_figure": prevalence_report,
        "_ppc_figure": prevalence_report,
        "_j_figure": prevalence_report,
        "rank_figure": prevalence_report,
        "trace_figure": prevalence_report,
    }
    from bayesjudge.prevalence import plan as plan_module

    originals: dict[str, Any] = {}
    for name, module in builders.items():
        owner = plan_module if module is None else module
        function = getattr(owner, name)
        originals[name] = (owner, function)

        def drawn(*args: Any, _name: str = name, _f: Any = function, **kwargs: Any) -> Any:
            current[:] = [_name]
            return clock.run(f"figure draw: {_name}", lambda: _f(*args, **kwargs))

        setattr(owner, name, drawn)
    prevalence_report.png = timed_png  # type: ignore[attr-defined]
    try:
        for _ in range(repeat):
            content = clock.run(
                "report_content (tables + figures)",
                lambda: prevalence_report.report_content(analysis, source="bundled example"),
            )
    finally:
        prevalence_report.png = original_png  # type: ignore[attr-defined]
        for name, (owner, function) in originals.items():
            setattr(owner, name, function)
    content = with_record(content, analysis)
    for _ in range(repeat):
        clock.run("render report.html", lambda: render_html(content))
        clock.run("render summary.md", lambda: render_markdown(content))
        with tempfile.TemporaryDirectory() as tmp:
            from bayesjudge.reporting.netcdf import write_posterior

            clock.run(
                "write posterior.nc",
                lambda: write_posterior(content.posterior, Path(tmp) / "p.nc"),
            )
            clock.run(
                "write_report (whole, figures included)",
                lambda: write_report(Path(tmp) / "r", analysis, source="bundled example"),
            )
    return clock


_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)")


def imported(argv: list[str]) -> dict[str, int]:
    """Return each module ``bayesjudge ARGV`` imports with its self time (us), by importtime."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "bayesjudge", *argv, "--out", tmp + "/o"]
            if argv[0] == "report"
            else [sys.executable, "-X", "importtime", "-m", "bayesjudge", *argv],
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp,  # ``-m`` puts the working folder first on the path: not a source tree
        )
    modules: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        match = _LINE.match(line)
        if match:
            modules[match.group(4)] = int(match.group(1))
    return modules


def import_table() -> str:
    from bayesjudge.examples import example_file

    fit = imported(["estimate", str(example_file("judge"))])
    report = imported(["report", "--example", "judge"])
    extra = {name: us for name, us in report.items() if name not in fit}
    by_package: dict[str, list[int]] = {}
    for name, us in extra.items():
        by_package.setdefault(name.split(".")[0], []).append(us)
    rows = sorted(by_package.items(), key=lambda kv: -sum(kv[1]))
    lines = [
        f"Modules: estimate {len(fit)}, report {len(report)}, imported by the report only "
        f"{len(extra)} ({sum(extra.values()) / 1e6:.2f} s self time in all).",
        "",
        "| package | modules | self time s |",
        "|---|---|---|",
    ]
    lines += [f"| {p} | {len(v)} | {sum(v) / 1e6:.3f} |" for p, v in rows if sum(v) > 5000]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-imports", action="store_true")
    parser.add_argument("--name", default=None, help="write results/NAME.md")
    args = parser.parse_args()
    parts = []
    if not args.no_imports:
        parts.append("## Imports beyond estimate's\n\n" + import_table())
    parts.append("## Stages, in one process\n\n" + stages(args.repeat).table())
    body = "\n\n".join(parts)
    print(body)
    if args.name:
        sys.path.insert(0, str(HERE))
        from _record import command_line, write_result

        path = HERE / "results" / f"{args.name}.md"
        write_result(path, f"# The judge report's stages\n\n{body}\n", command_line())
        print(path)


if __name__ == "__main__":
    main()
