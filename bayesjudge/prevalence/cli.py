"""The prevalence family's commands: estimate, report, check, baselines, allocate and plan.

Each command parses its arguments, calls one function of the family
(:func:`~bayesjudge.prevalence.analysis.analyze_prevalence`,
:func:`~bayesjudge.prevalence.baselines.baseline_estimates`,
:func:`~bayesjudge.prevalence.allocation.allocate`,
:func:`~bayesjudge.prevalence.plan.plan_labels`) and prints what it returns.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from bayesjudge.cli.by import (
    BY_SHOWN,
    GroupOutcome,
    add_by_option,
    group_name,
    groups_json,
    groups_table,
    run_groups,
)
from bayesjudge.cli.common import (
    EXIT_ALARM,
    EXIT_OK,
    UserError,
    add_input_options,
    bounded_int,
    echo,
    emit_json,
    estimates_table,
    fmt,
    input_options,
    named_paths,
    positive_int,
    print_answer,
    probability,
    report_failures,
    unit,
)
from bayesjudge.cli.options import (
    REPORT_FOLDER,
    ModelDefault,
    SamplerOptions,
    add_json_option,
    add_prior_option,
    add_prob_and_seed,
    add_report_options,
    add_sampler_options,
    parse_priors,
)
from bayesjudge.inference import defaults

__all__ = ["register"]

_PRIORS = "pi, se, sp (each beta; default jeffreys)"
_DATA_HELP = (
    "judge data: a file or - (stdin) with columns label, verdict or score[, stratum][, item] "
    "(mapped with --map), or an eval log (Inspect, promptfoo, lm-eval, OpenAI evals) with "
    "--labels"
)


def _load(args: argparse.Namespace, *, counts: bool) -> Any:
    """Read DATA as the command line says: streamed to counts where it can be, else loaded.

    With ``counts``, a table file, folder or glob of binary verdicts (or scores and
    ``--threshold``) read without ``--epochs`` or ``--strict`` is reduced block by block to the
    six counts (:meth:`JudgeCounts.from_file`), so memory stays flat in the number of rows;
    anything else is loaded as :class:`JudgeData`.
    """
    from bayesjudge.examples import load_example
    from bayesjudge.prevalence.data import JudgeCounts, JudgeData, can_stream

    options = input_options(args)
    if options.source is None:
        return JudgeData.from_frame(load_example("judge"), strict=options.strict)
    streams = (
        counts
        and not options.strict
        and can_stream(
            options.source,
            format=options.format,  # type: ignore[arg-type]
            columns=options.columns,
            threshold=options.threshold,
            epochs=options.epochs,  # type: ignore[arg-type]
        )
    )
    if streams:
        return JudgeCounts.from_file(
            options.table(),
            format=options.format,  # type: ignore[arg-type]
            columns=options.columns,
            positive=options.positive,
            negative=options.negative,
            threshold=options.threshold,
            labels=options.labels,
            label_columns=options.label_columns,
            scheduler=options.scheduler,
        )
    if options.scheduler is not None:
        raise UserError(
            "--scheduler reduces judge files to counts, which needs binary verdicts (or scores "
            "and --threshold), no --epochs and no --strict" + ("" if counts else " or --stratified")
        )
    return JudgeData.from_frame(
        options.data(),
        **options.reading(),
        threshold=options.threshold,
        labels=options.labels,
        label_columns=options.label_columns,
        epochs=options.epochs,  # type: ignore[arg-type]
    )


def _split(args: argparse.Namespace) -> Any:
    """Read DATA as one table and split it by ``--by`` (see :mod:`bayesjudge.io.split`)."""
    from bayesjudge.examples import load_example
    from bayesjudge.io.split import split_table
    from bayesjudge.io.stream import JUDGE_FIELDS, JUDGE_FIELDS_LABELS_APART
    from bayesjudge.io.tables import read_table
    from bayesjudge.prevalence.data import _many_files as many_files

    options = input_options(args)
    if options.scheduler is not None:
        raise UserError("--by reads DATA as one table and splits it; drop --scheduler")
    if options.source is None:
        table = read_table(load_example("judge"), argument="bundled example")
    else:
        source = options.data()
        if not isinstance(source, str):
            raise UserError(
                f"--by splits a table by one of its columns, and {options.source} is an eval "
                "log: read one system with --system NAME"
            )
        if many_files(source):
            raise UserError(
                f"--by splits one table, and {source} stands for several files (a folder or a "
                "glob): give one file"
            )
        table = read_table(source, format=options.table_format, argument="data")  # type: ignore[arg-type]
    labels = None if options.labels is None else read_table(options.labels, argument="labels")
    return split_table(
        table,
        args.by,
        fields=JUDGE_FIELDS if labels is None else JUDGE_FIELDS_LABELS_APART,
        columns=options.columns,
        labels=labels,
        label_columns=options.label_columns,
        positive=options.positive,
        negative=options.negative,
        option="--by",
    )


def _group_data(args: argparse.Namespace, groups: Any, group: Any, *, counts: bool) -> Any:
    """Read one group's rows as the command reads a table holding only them.

    As :func:`_load`: binary verdicts (or scores and ``--threshold``) read without ``--epochs``
    or ``--strict`` become the six counts; anything else stays :class:`JudgeData`. The input
    report names the file and the group.
    """
    from dataclasses import replace

    from bayesjudge.errors import DataError
    from bayesjudge.prevalence.data import JudgeData

    options = input_options(args)
    if group.labels is not None and group.labels.empty:
        raise DataError(
            "no gold labels: no row of the labels file is for this group's items, so the "
            "judge's sensitivity and specificity cannot be estimated"
        )
    try:
        data = JudgeData.from_frame(
            group.data,
            strict=options.strict,
            columns=options.columns,
            positive=options.positive,
            negative=options.negative,
            threshold=options.threshold,
            labels=group.labels,
            label_columns=options.label_columns,
            epochs=options.epochs,  # type: ignore[arg-type]
        )
    except DataError as exc:  # the group's rows are a DataFrame named "data": name the file
        text = str(exc)
        raise DataError(f"{groups.source}: {text.removeprefix('data: ')}") from None
    assert data.origin is not None  # a table read by the contract always has one
    origin = replace(
        data.origin,
        source=f"{groups.source} ({group_name(groups.column, group.value)})",
        format=str(group.data.attrs.get("format", "frame")),
        labels=None if group.labels is None else str(group.labels.attrs.get("source")),
    )
    data = replace(data, origin=origin)
    if counts and data.kind == "verdict" and options.epochs is None and not options.strict:
        return replace(data.counts, origin=origin)
    return data


def _print_input(data: Any) -> None:
    if data.origin is not None:
        for line in data.origin.lines():
            echo(line)


def _priors(specs: Sequence[str]) -> Any:
    from bayesjudge.priors import PrevalencePriors

    return parse_priors(PrevalencePriors, specs)


def _stratified(value: dict[bool, float]) -> str:
    """Describe the default target acceptance: unstratified, then stratified."""
    return f"{value[False]:g}; {value[True]:g} stratified"


def _source(args: argparse.Namespace) -> str:
    return args.data or "bundled example"


# --------------------------------------------------------------------------- baselines
def _baselines(args: argparse.Namespace, data: Any) -> tuple[Any, list[Any]]:
    from bayesjudge.prevalence.analysis import calibration_check, flag_random_sample_estimators
    from bayesjudge.prevalence.baselines import baseline_estimates

    estimates = flag_random_sample_estimators(
        baseline_estimates(data, prob=args.prob, random_seed=args.random_seed, n_boot=args.n_boot),
        calibration_check(data),
    )
    return data, estimates


def _baselines_json(result: tuple[Any, list[Any]]) -> dict[str, Any]:
    data, estimates = result
    payload: dict[str, Any] = {
        "n_labelled": data.m,
        "n_unlabelled": data.n,
        "estimates": [e.to_dict() for e in estimates],
    }
    if data.origin is not None:
        payload["input"] = data.origin.to_dict()
    return payload


def _print_baselines(args: argparse.Namespace, result: tuple[Any, list[Any]], source: str) -> None:
    data, estimates = result
    _print_input(data)
    echo(f"{source}: {data.m} labelled, {data.n} unlabelled items")
    echo(estimates_table(estimates, args.prob))
    echo(f"seed {args.random_seed}")


def _cmd_baselines(args: argparse.Namespace) -> int:
    if args.by is not None:
        return _by(args, counts=True, analyse=_baselines)
    result = _baselines(args, _load(args, counts=True))
    if args.json:
        emit_json(_baselines_json(result))
    else:
        _print_baselines(args, result, _source(args))
    return EXIT_OK


# --------------------------------------------------------------------------- allocate
def _cmd_allocate(args: argparse.Namespace) -> int:
    from bayesjudge.prevalence.allocation import allocate

    try:
        allocation = allocate(
            args.budget,
            p_hat=args.p_hat,
            pilot_q0=args.pilot_q0,
            pilot_q1=args.pilot_q1,
            pilot_size=args.pilot_size,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    payload = allocation.to_dict()
    if args.json:
        emit_json(payload)
    else:
        echo(allocation)
    return EXIT_OK


# --------------------------------------------------------------------------- estimate, report
def _check_method(args: argparse.Namespace) -> None:
    if getattr(args, "method", "nuts") == "exact" and args.stratified:
        raise UserError("--method exact covers the unstratified model only; drop --stratified")


def _analyze(args: argparse.Namespace, *, plan: bool = False) -> Any:
    _check_method(args)
    data = _load(args, counts=not args.stratified)  # the stratified model needs the items
    return _analyze_data(args, data, plan=plan)


def _analyze_data(args: argparse.Namespace, data: Any, *, plan: bool = False) -> Any:
    from bayesjudge.prevalence.analysis import analyze_prevalence

    sampler = SamplerOptions.from_args(args)
    return analyze_prevalence(
        data,
        method=getattr(args, "method", "nuts"),
        priors=_priors(sampler.priors),
        stratified=args.stratified,
        prob=args.prob,
        n_boot=args.n_boot,
        plan=plan,
        **sampler.fit_kwargs(),
    )


def _write(args: argparse.Namespace, analysis: Any) -> Any:
    from bayesjudge.reporting.write import write_report

    return write_report(
        args.out, analysis, source=_source(args), inputs=named_paths(args, skip=["out"])
    )


def _exit(analysis: Any) -> int:
    if analysis.diagnostics is None:
        return EXIT_OK
    return report_failures(analysis.passed, [c.describe() for c in analysis.diagnostics.failures])


def _print_thresholds(thresholds: Any) -> None:
    echo(
        f"no --threshold given: judge scores turned into verdicts at the threshold with the "
        f"narrowest interval of pi ({thresholds.prob:g} intervals, calibration set):"
    )
    echo(
        f"{'threshold':>9} {'se':>6} {'se band':>15} {'sp':>6} {'sp band':>15} {'j':>6} "
        f"{'j band':>15} {'pi width':>8}"
    )
    for p in thresholds.points:
        bands = "".join(
            f" {s.mean:>6.3f} [{s.eti.low:>5.3f}, {s.eti.high:>5.3f}]" for s in (p.se, p.sp, p.j)
        )
        mark = "  <- chosen" if p.threshold == thresholds.chosen else ""
        echo(f"{p.threshold:>9.4g}{bands} {p.width:>8.4f}{mark}")
    echo(f"threshold {thresholds.chosen:g}: {thresholds.reason}")
    if thresholds.mixture is not None:
        echo(thresholds.mixture.message)


def _print_estimate(args: argparse.Namespace, analysis: Any, source: str, *, out: Any) -> None:
    data = analysis.data
    _print_input(data)
    if analysis.thresholds is not None:
        _print_thresholds(analysis.thresholds)
    echo(f"{source}: {data.m} labelled, {data.n} unlabelled items")
    echo(f"{'posterior':<12} {'mean':>8} {'sd':>8} {'low':>8} {'high':>8}")
    for name, s in analysis.summaries.items():
        echo(f"{name:<12} {fmt(s.mean)} {fmt(s.sd)} {fmt(s.eti.low)} {fmt(s.eti.high)}")
    if analysis.method == "exact":
        echo("posterior: exact (numerical integration; no sampling, no diagnostics needed)")
    else:
        verdict = "passed" if analysis.passed else "FAILED"
        retried = " after one retry" if len(analysis.attempts) > 1 else ""
        echo(f"diagnostics: {verdict}{retried}")
    echo(estimates_table(analysis.estimates, args.prob))
    echo(f"seed {analysis.seed}; priors {analysis.priors.describe()}")
    _print_answer(analysis, out)


def _print_answer(analysis: Any, out: Any) -> None:
    """Print the report summary's answer and warnings, and the report to open if one was written."""
    from bayesjudge.prevalence.report import report_summary

    print_answer(report_summary(analysis), report=out)


def _cmd_estimate(args: argparse.Namespace) -> int:
    if args.out is not None and args.method == "exact":
        raise UserError("--out writes a report of a sampled posterior; drop --method exact")
    if args.by is not None:
        _check_method(args)
        return _by(
            args,
            counts=not args.stratified,
            analyse=lambda a, d: _analyze_data(a, d, plan=a.out is not None),
        )
    analysis = _analyze(args, plan=args.out is not None)
    if args.out is not None:
        _write(args, analysis)
    if args.json:
        emit_json(analysis.to_dict())
    else:
        _print_estimate(args, analysis, _source(args), out=args.out)
    return _exit(analysis)


def _cmd_report(args: argparse.Namespace) -> int:
    example = getattr(args, "example", None)
    if example is not None and args.data is not None:
        raise UserError("give DATA or --example, not both")
    if example is not None and args.by is not None:
        raise UserError("--by splits DATA by one of its columns; give DATA instead of --example")
    if example not in (None, "judge"):
        # another family's example: the command line's top level runs that family's command
        return int(args.example_report(args))
    if args.by is not None:
        return _by(
            args, counts=not args.stratified, analyse=lambda a, d: _analyze_data(a, d, plan=True)
        )
    analysis = _analyze(args, plan=True)
    files = _write(args, analysis)
    _print_input(analysis.data)
    if analysis.thresholds is not None:
        _print_thresholds(analysis.thresholds)
    echo(f"{_source(args)}: {analysis.data.m} labelled, {analysis.data.n} unlabelled items")
    echo(f"files in {args.out}: {files.html.name}, {files.markdown.name}, {files.posterior.name}")
    echo(f"seed {analysis.seed}")
    _print_answer(analysis, args.out)
    return _exit(analysis)


# --------------------------------------------------------------------------- --by
def _counts_row(data: Any) -> dict[str, Any]:
    return {
        "items": data.m + data.n,
        "gold PASS": data.m1,
        "gold FAIL": data.m0,
        "unlabelled": data.n,
    }


def _estimate_row(analysis: Any) -> dict[str, Any]:
    pi = analysis.summaries["pi"]
    return {**_counts_row(analysis.data), "pi": pi.mean, "low": pi.eti.low, "high": pi.eti.high}


def _baselines_row(result: tuple[Any, list[Any]]) -> dict[str, Any]:
    data, estimates = result
    main = next(e for e in estimates if e.method == _BASELINE_SHOWN)
    return {
        **_counts_row(data),
        _BASELINE_SHOWN: main.estimate,
        "low": None if main.interval is None else main.interval.low,
        "high": None if main.interval is None else main.interval.high,
    }


def _plan_row(plan: Any) -> dict[str, Any]:
    c = plan.counts
    answer = plan.answer
    return {
        "items": c.m1 + c.m0 + c.n,
        "gold PASS": c.m1,
        "gold FAIL": c.m0,
        "unlabelled": c.n,
        "width now": plan.curve[0].width,
        "extra labels": "-" if answer is None else str(answer.m),
        "expected width": None if answer is None else answer.width,
        "floor": plan.floor,
    }


#: The baseline shown in the table of groups of ``baselines --by`` (every one is in --json).
_BASELINE_SHOWN = "rogan_gladen_lang_reiczigel"


def _by(args: argparse.Namespace, *, counts: bool, analyse: Any) -> int:
    """Run a command on each group of ``--by COLUMN`` and print one answer per group."""
    from bayesjudge.reporting.write import write_report

    command = args.command
    groups = _split(args)
    if groups.shared:
        _suggest_rank(args, groups)
    outcomes = run_groups(
        groups, lambda group: analyse(args, _group_data(args, groups, group, counts=counts))
    )
    column = groups.column
    out = args.out if command in ("estimate", "report") else None
    if out is not None:
        write_report(
            out,
            {o.value: o.result if o.result is not None else str(o.error) for o in outcomes},
            column=column,
            source=_source(args),
            inputs=named_paths(args, skip=["out"]),
        )
    row, payload = {
        "baselines": (_baselines_row, _baselines_json),
        "plan": (_plan_row, lambda plan: plan.to_dict()),
    }.get(command, (_estimate_row, lambda analysis: analysis.to_dict()))
    if getattr(args, "json", False):
        emit_json(groups_json(column, outcomes, payload))
    else:
        _print_groups(args, groups, outcomes, row)
        if out is not None:
            page = f"{out.rstrip('/')}/report.html"
            echo(f"report written to {out}: open {page} (a section per {column})")
    failures = [
        f"{group_name(column, o.value)}: {c.describe()}"
        for o in outcomes
        if getattr(o.result, "diagnostics", None) is not None
        for c in o.result.diagnostics.failures  # type: ignore[union-attr]
    ]
    passed = all(getattr(o.result, "passed", True) for o in outcomes)
    return report_failures(passed, failures)


def _suggest_rank(args: argparse.Namespace, groups: Any) -> None:
    """Warn that the groups answer the same items, and give the ``rank`` command that pairs them."""
    import shlex
    import warnings

    options = input_options(args)
    maps = {"system": groups.column, **options.columns, "item": groups.item}
    command = ["bayesjudge", "rank", str(options.source)]
    for name, column in maps.items():
        command += ["--map", f"{name}={column}"]
    if options.labels is not None:
        command += ["--labels", options.labels]
        for name, column in options.label_columns.items():
            command += ["--labels-map", f"{name}={column}"]
    warnings.warn(
        f"the groups answer the same items ({groups.shared} item id(s) in more than one "
        f"group, e.g. {groups.shared_example!r}); each group is answered on its own here. To "
        "compare the groups with each other, item by item, under one judge: " + shlex.join(command),
        UserWarning,
        stacklevel=2,
    )


def _print_groups(
    args: argparse.Namespace, groups: Any, outcomes: list[GroupOutcome[Any]], row: Any
) -> None:
    """Print the table of groups, then each group's usual text when there are few groups."""
    column = groups.column
    source = _source(args)
    answered = sum(o.result is not None for o in outcomes)
    echo(f"{source}: {len(outcomes)} groups by {column!r}, {answered} answered")
    if args.command == "baselines":
        echo(f"(the {_BASELINE_SHOWN} row of each group; every baseline with --json)")
    echo(groups_table(column, outcomes, row))
    if args.command == "plan":
        echo(
            f"(expected widths of the {100 * args.prob:g}% interval of pi; extra labels: the "
            f"fewest that reach width {args.target_width:g}, - where none up to "
            f"{args.max_labels} does; floor: the width unlimited labels would leave)"
        )
    else:
        echo(f"(intervals of mass {args.prob:g})")
    if len(outcomes) > BY_SHOWN:
        echo(
            f"{len(outcomes)} groups: each group's full answer is in --json"
            + (" and in the report" if getattr(args, "out", None) else "")
        )
        return
    for o in outcomes:
        if o.result is None:
            continue
        name = group_name(column, o.value)
        echo()
        echo(f"== {name} ==")
        label = f"{source} ({name})"
        if args.command == "baselines":
            _print_baselines(args, o.result, label)
        elif args.command == "plan":
            _print_plan(o.result, label)
        else:  # estimate, report: the one-screen answer (every table is in --json)
            _print_answer(o.result, None)


# --------------------------------------------------------------------------- parser
def _add_data_options(parser: argparse.ArgumentParser, *, optional: bool, counts: bool) -> None:
    if optional:
        parser.add_argument(
            "data",
            nargs="?",
            metavar="DATA",
            help=f"{_DATA_HELP}; the bundled example when omitted",
        )
    else:
        many = "; a folder or glob of files is reduced to counts" if counts else ""
        parser.add_argument("data", metavar="DATA", help=_DATA_HELP + many)
    add_prob_and_seed(parser)
    add_input_options(parser, scheduler=counts)


def _n_boot(text: str) -> int:
    from bayesjudge.prevalence.baselines import MAX_BOOT

    return positive_int(text, maximum=MAX_BOOT)


def register(commands: Any) -> None:
    """Add ``baselines``, ``allocate``, ``estimate``, ``report`` and ``plan`` to the subcommands."""
    baselines = commands.add_parser(
        "baselines",
        help="frequentist estimates of the true success rate",
        description="Naive, calibration-only, Rogan-Gladen (delta, Lang-Reiczigel, bootstrap), "
        "PPI and PPI++ estimates of the true success rate.",
    )
    _add_data_options(baselines, optional=False, counts=True)
    baselines.add_argument(
        "--n-boot", type=_n_boot, default=2000, help="bootstrap resamples (default 2000)"
    )
    add_json_option(baselines)
    add_by_option(baselines)
    baselines.set_defaults(handler=_cmd_baselines)

    allocate = commands.add_parser(
        "allocate",
        help="split a calibration budget between gold-PASS and gold-FAIL items",
        description="Adaptive calibration allocation (Lee et al. 2025, Algorithm 1): how many "
        "gold-FAIL (m0) and gold-PASS (m1) items to label for the shortest interval.",
    )
    allocate.add_argument(
        "--budget",
        type=bounded_int(1, 10**9),
        required=True,
        help="total calibration labels",
    )
    allocate.add_argument(
        "--p-hat",
        type=probability,
        required=True,
        help="judged pass rate on the test set, in (0, 1)",
    )
    allocate.add_argument("--pilot-q0", type=unit, required=True, help="pilot specificity")
    allocate.add_argument("--pilot-q1", type=unit, required=True, help="pilot sensitivity")
    allocate.add_argument(
        "--pilot-size",
        type=bounded_int(1, 10**9),
        required=True,
        help="pilot items per class",
    )
    add_json_option(allocate)
    allocate.set_defaults(handler=_cmd_allocate)

    for name, optional_data, helptext in (
        ("estimate", False, "posterior of the true success rate, beside the baselines"),
        ("report", True, "fit, check and write an HTML + Markdown report with the posterior"),
    ):
        sub = commands.add_parser(
            name,
            help=helptext,
            description="Fit the Bayesian prevalence model (pi, Se, Sp with Jeffreys priors, "
            "J > 0), check its diagnostics and compare it with the frequentist baselines.",
        )
        _add_data_options(sub, optional=optional_data, counts=name == "estimate")
        add_sampler_options(
            sub,
            target_accept=ModelDefault(defaults.PREVALENCE_TARGET_ACCEPT, describe=_stratified),
            priors=_PRIORS,
        )
        sub.add_argument(
            "--n-boot", type=_n_boot, default=2000, help="bootstrap resamples (default 2000)"
        )
        sub.add_argument(
            "--stratified",
            action="store_true",
            help="per-stratum Se and Sp, partially pooled (needs a stratum column)",
        )
        add_by_option(sub)
        if name == "estimate":
            sub.add_argument(
                "--method",
                choices=["nuts", "exact"],
                default="nuts",
                help="nuts: sample the PyMC model (default); exact: the posterior by numerical "
                "integration, without PyMC (fast; unstratified model only)",
            )
            add_report_options(sub, _cmd_estimate)
        else:
            sub.add_argument(
                "--out",
                metavar="DIR",
                default="bayesjudge-report",
                help=f"report folder (default bayesjudge-report; {REPORT_FOLDER})",
            )
            sub.add_argument(
                "--example",
                choices=["judge", "gate", "channel", "systems", "panel", "repeated"],
                default=None,
                help="report on a bundled example instead of DATA: judge (this command's "
                "prevalence report, the default without DATA), gate (bayesjudge gate), "
                "channel (bayesjudge channel --by-slice), systems (bayesjudge rank), panel "
                "(bayesjudge panel) or repeated (bayesjudge repeated --item item --epoch epoch "
                "--cluster cluster)",
            )
            sub.set_defaults(handler=_cmd_report, outputs={"out": "report"})
    _register_check(commands)
    _register_plan(commands)


# --------------------------------------------------------------------------- check
def _cmd_check(args: argparse.Namespace) -> int:
    from bayesjudge.prevalence.bar import check_bar

    analysis = _analyze(args)
    bar = check_bar(analysis, min_pi=args.min_pi, prob=args.prob)
    if args.json:
        emit_json({**bar.to_dict(), "analysis": analysis.to_dict()})
    else:
        mcse = "" if bar.mcse is None else f" (Monte-Carlo error {bar.mcse:.3f})"
        echo(f"{_source(args)}: {bar.reason}{mcse}")
    if not analysis.passed:
        return _exit(analysis)
    return EXIT_OK if bar.passed else EXIT_ALARM


def _register_check(commands: Any) -> None:
    check = commands.add_parser(
        "check",
        help="CI gate: exit 1 when P(pi > --min-pi) is below --prob",
        description="One-shot gate for continuous integration on one batch of judge data: fit "
        "the prevalence model as `estimate` does and pass when the posterior probability that "
        "the true success rate exceeds --min-pi is at least --prob. Exit 0: clears the bar; "
        "1: below the bar (one line says why); 2: bad input; 3: the posterior failed its "
        "diagnostics.",
    )
    _add_data_options(check, optional=False, counts=True)
    check.add_argument(
        "--min-pi",
        type=probability,
        required=True,
        help="the bar: the true success rate that must be exceeded, in (0, 1)",
    )
    add_sampler_options(
        check,
        target_accept=ModelDefault(defaults.PREVALENCE_TARGET_ACCEPT, describe=_stratified),
        priors=_PRIORS,
    )
    check.add_argument(
        "--method",
        choices=["nuts", "exact"],
        default="nuts",
        help="nuts: sample the PyMC model (default, as estimate); exact: the posterior by "
        "numerical integration (fast, no diagnostics needed)",
    )
    add_json_option(check)
    check.set_defaults(handler=_cmd_check, stratified=False, n_boot=2000)


# --------------------------------------------------------------------------- plan
def _width(text: str) -> float:
    """Argument type: an interval width in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a width in (0, 1]; got {text!r}")
    return value


def _plan(args: argparse.Namespace, data: Any) -> Any:
    from bayesjudge.prevalence.plan import plan_labels

    try:
        return plan_labels(
            data,
            target_width=args.target_width,
            prob=args.prob,
            max_labels=args.max_labels,
            draws=args.draws,
            priors=_priors(args.prior),
            random_seed=args.random_seed,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from exc


def _cmd_plan(args: argparse.Namespace) -> int:
    if args.by is not None:
        return _by(args, counts=True, analyse=_plan)
    plan = _plan(args, _load(args, counts=True))
    if args.json:
        emit_json(plan.to_dict())
    else:
        _print_plan(plan, _source(args))
    return EXIT_OK


def _print_plan(plan: Any, source: str) -> None:
    c = plan.counts
    echo(
        f"{source}: {c.m1 + c.m0} labelled ({c.m1} gold-PASS, {c.m0} gold-FAIL), "
        f"{c.n} unlabelled items"
    )
    echo(plan.reading())
    echo()
    echo(
        f"{'extra labels':>12} {'gold-PASS':>9} {'gold-FAIL':>9} {'expected width':>14} "
        f"{'MC error':>9} {'Lang-Reiczigel':>14}"
    )
    for p in plan.curve:
        mark = " *" if plan.answer is not None and p.m == plan.answer.m else ""
        error = "exact" if p.m == 0 else f"{p.mcse:.1e}"
        echo(
            f"{p.m:>12} {p.m1:>9} {p.m0:>9} {fmt(p.width, 14)} {error:>9} "
            f"{fmt(p.lang_reiczigel_width, 14)}{mark}"
        )
    echo(f"{'unlimited':>12} {'':>9} {'':>9} {fmt(plan.floor, 14)} {plan.floor_mcse:>9.1e}")
    echo(
        f"(expected widths of the {100 * plan.prob:g}% equal-tailed interval of pi; "
        f"{plan.draws} exact refits per row; * the answer)"
    )
    for note in plan.notes:
        echo(f"note: {note}")
    echo(f"seed {plan.seed}; priors {plan.priors.describe()}")


def _register_plan(commands: Any) -> None:
    from bayesjudge.validation import PLAN_DEFAULT_MAX_LABELS as DEFAULT_MAX_LABELS
    from bayesjudge.validation import PLAN_MAX_DRAWS as MAX_DRAWS
    from bayesjudge.validation import PLAN_MAX_LABELS as MAX_LABELS

    sub = commands.add_parser(
        "plan",
        help="how many more gold labels bring the interval of pi to a target width",
        description="Expected width of the interval of the true success rate after more gold "
        "labels, split between gold-PASS and gold-FAIL items by the allocation rule of Lee et "
        "al. (2025), by preposterior simulation on the exact posterior; the floor an unlimited "
        "calibration set would leave; and the number of labels that reaches --target-width.",
    )
    _add_data_options(sub, optional=True, counts=True)
    sub.add_argument(
        "--target-width",
        type=_width,
        required=True,
        metavar="W",
        help="width of the interval of pi to reach, in (0, 1]",
    )
    sub.add_argument(
        "--max-labels",
        type=bounded_int(1, MAX_LABELS),
        default=DEFAULT_MAX_LABELS,
        metavar="N",
        help=f"most extra gold labels to consider (default {DEFAULT_MAX_LABELS})",
    )
    sub.add_argument(
        "--draws",
        type=bounded_int(2, MAX_DRAWS),
        default=16,
        metavar="N",
        help="exact refits per number of labels (default 16)",
    )
    add_prior_option(sub, _PRIORS)
    add_json_option(sub)
    add_by_option(sub)
    sub.set_defaults(handler=_cmd_plan)
