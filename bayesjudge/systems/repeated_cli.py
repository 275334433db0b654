"""``bayesjudge rank DATA --epoch COL``: systems compared on shared items, several answers each.

Reads one row per answer (:meth:`RepeatedSystemsData.read
<bayesjudge.systems.repeated.RepeatedSystemsData.read>`), fits the repeated-answers model once
(:func:`~bayesjudge.systems.repeated_analysis.analyze_repeated_systems`) and prints what it
returns: one JSON object with ``--json``, else a few lines and tables. Exit codes: 0 ok, 2 bad
input, 3 failed diagnostics (a failed posterior predictive check included).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from bayesjudge.cli.common import (
    EXIT_OK,
    UserError,
    echo,
    emit_json,
    estimates_table,
    fmt,
    input_options,
    print_answer,
    report_failures,
)
from bayesjudge.cli.options import SamplerOptions
from bayesjudge.reporting.output import escape_terminal

__all__ = ["run_repeated_rank"]


def echo_differences(differences: Sequence[Any]) -> None:
    """Print the table of differences ``b - a``: mean, interval and :math:`P(b > a)`."""
    echo(f"{'b - a':<33} {'diff':>8} {'low':>8} {'high':>8} {'P(b > a)':>9}")
    for d in differences:
        label = escape_terminal(f"{d.b} - {d.a}")
        echo(
            f"{label:<33} {fmt(d.diff.mean)} {fmt(d.diff.eti.low)} {fmt(d.diff.eti.high)} "
            f"{fmt(d.p_b_better, 9, 3)}"
        )


def _load(args: argparse.Namespace) -> Any:
    from bayesjudge.io.source import log_tool
    from bayesjudge.systems.repeated import RepeatedSystemsData

    sources = list(args.data)
    if len(sources) != 1:
        raise UserError("--epoch reads one table of answers (DATA) with a system column")
    first = argparse.Namespace(**{**vars(args), "data": sources[0]})
    options = input_options(first)
    if log_tool(sources[0], format=options.format) is not None:  # type: ignore[arg-type]
        raise UserError(
            "--epoch names a column of a table; an eval log's epochs are read with --epochs"
        )
    for flag, value in (
        ("--epochs", options.epochs),
        ("--scorer", args.scorer),
        ("--partial", args.partial),
        ("--labels", options.labels),
        ("--out", args.out),
    ):
        if value is not None:
            raise UserError(f"{flag}: not available with --epoch (several answers per item)")
    columns = dict(options.columns)
    for name in ("epoch", "cluster"):
        column = getattr(args, name)
        if column is not None:
            if name in columns and columns[name] != column:
                raise UserError(f"--{name} {column} and --map {name}={columns[name]} disagree")
            columns[name] = column
    return RepeatedSystemsData.read(
        options.table(),
        **options.reading(columns),
        gold_per=args.gold_per or "answer",
    )


def _judge(args: argparse.Namespace, data: Any) -> tuple[str, str | None]:
    """Resolve ``--judge auto`` and ``--pooling auto`` from the systems with both gold classes."""
    m1 = [int(data.m1[data.cell_system == s].sum()) for s in range(len(data.systems))]
    m0 = [int(data.m0[data.cell_system == s].sum()) for s in range(len(data.systems))]
    calibrated = sum(1 for a, b in zip(m1, m0, strict=True) if a > 0 and b > 0)
    judge = args.judge
    if judge == "auto":
        judge = "system" if calibrated >= 2 else "shared"
    pooling = args.pooling
    if pooling == "auto":
        both = len(data.systems) == 2 and calibrated == 2
        pooling = "none" if both else "partial"
    return judge, pooling if judge == "system" else None


def run_repeated_rank(args: argparse.Namespace) -> int:
    """Run ``bayesjudge rank DATA --epoch COL``; return the exit code."""
    from bayesjudge.priors import SystemsPriors
    from bayesjudge.systems.repeated_analysis import analyze_repeated_systems

    sampler = SamplerOptions.from_args(args)
    priors = sampler.priors_of(SystemsPriors)
    data = _load(args)
    judge, pooling = _judge(args, data)
    analysis = analyze_repeated_systems(
        data,
        judge=judge,
        pooling=pooling,
        calibration=args.calibration,
        priors=priors,
        prob=args.prob,
        **sampler.fit_kwargs(),
    )
    if args.json:
        from bayesjudge.inference.provenance import provenance

        payload = analysis.to_dict()
        if data.origin is not None:
            payload["input"] = data.origin.to_dict()
        payload["provenance"] = provenance(analysis.seed, priors=analysis.priors, method="nuts")
        emit_json(payload)
    else:
        _print(args, analysis)
        print_answer(analysis.summary())
    failures = [] if analysis.diagnostics is None else analysis.diagnostics.failures
    return report_failures(analysis.passed, [c.describe() for c in failures]) or EXIT_OK


def _print(args: argparse.Namespace, analysis: Any) -> None:
    data = analysis.data
    gold = int(data.m1.sum() + data.m0.sum())
    echo(
        f"{args.data[0]}: {len(analysis.systems)} systems, {analysis.design()}, "
        f"{data.n_answers} answers, {gold} gold-labelled; judge {analysis.judge}; "
        "estimand: each system's mean success rate over the population of items"
    )
    echo(f"{'system':<16} {'pi':>8} {'low':>8} {'high':>8} {'P(best)':>8} {'naive':>8}")
    for name in analysis.order:
        s = analysis.pi[name]
        echo(
            f"{escape_terminal(name):<16} {fmt(s.mean)} {fmt(s.eti.low)} {fmt(s.eti.high)} "
            f"{fmt(analysis.p_best[name], 8, 3)} {fmt(analysis.naive_rate[name])}"
        )
    echo()
    echo_differences(analysis.differences)
    echo()
    from dataclasses import replace

    rows = [replace(e, method=f"{k['b']} - {k['a']}: {e.method}") for k, e in analysis.estimates]
    echo("Judged differences b - a, uncorrected (clustered by item; every answer independent):")
    echo(estimates_table(rows, analysis.prob))
    verdict = "passed" if analysis.passed else "FAILED"
    echo(f"diagnostics: {verdict}; seed {analysis.seed}; priors {analysis.priors.describe()}")
