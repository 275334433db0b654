"""The batches family's commands: ``bayesjudge monitor`` and ``bayesjudge drift``.

Each parses its arguments, reads the batches (:class:`~bayesjudge.batches.data.BatchedData`),
calls the family once and prints what it returns. ``monitor``
(:func:`~bayesjudge.batches.monitor.monitor_batches`) exits 0 with no alarm at the last batch,
1 on an anytime-valid alarm ("pi below the threshold" or "judge drifted"), 2 on bad input.
``drift`` (:func:`~bayesjudge.batches.statespace.fit_drift`) fits pi, Se and Sp as random walks
across the batches and exits 0, 2 on bad input or 3 when the posterior fails its diagnostics.
"""

from __future__ import annotations

import argparse
from typing import Any

from bayesjudge.cli.common import (
    EXIT_ALARM,
    EXIT_OK,
    UserError,
    add_input_options,
    echo,
    emit_json,
    input_options,
    print_answer,
    probability,
    report_failures,
)
from bayesjudge.cli.options import (
    SamplerOptions,
    add_json_option,
    add_prob_and_seed,
    add_report_options,
    add_sampler_options,
    emit_outputs,
)
from bayesjudge.inference import defaults

__all__ = ["register"]


def _load(args: argparse.Namespace) -> Any:
    from bayesjudge.batches.data import BatchedData
    from bayesjudge.io.source import log_tool

    sources = list(args.data)
    args.first_data = sources[0]  # the shared options read one DATA; logs may be several
    options = input_options(args, source="first_data")
    common = {
        "positive": options.positive,
        "negative": options.negative,
        "threshold": args.score_threshold,
        "labels": options.labels,
        "label_columns": options.label_columns,
        "epochs": options.epochs,
    }
    tools = [log_tool(s, format=options.format) for s in sources]  # type: ignore[arg-type]
    if all(t is not None for t in tools):
        if options.columns:
            raise UserError("--map maps the columns of a table; DATA are eval logs")
        return BatchedData.from_logs(
            sources, judge=options.scorer, order=args.order or "appearance", **common
        )
    if len(sources) > 1:
        raise UserError(
            "several DATA are read as eval logs, one batch each; a table holds its batches in "
            "the --batch column: give one table"
        )
    return BatchedData.read(
        options.table(),
        batch=args.batch,
        order=args.order or "auto",
        strict=options.strict,
        format=options.table_format,  # type: ignore[arg-type]
        columns=options.columns,
        **common,
    )


def _cmd_monitor(args: argparse.Namespace) -> int:
    from bayesjudge.batches.monitor import monitor_batches

    data = _load(args)
    analysis = monitor_batches(
        data,
        threshold=args.threshold,
        alpha=args.alpha,
        level=args.level,
        bayes=not args.no_bayes,
    )
    if args.json:
        emit_json(analysis.to_dict())
    else:
        _print(analysis)
    return EXIT_ALARM if analysis.alarm else EXIT_OK


def _print(analysis: Any) -> None:
    echo(
        f"{'batch':<14} {'items':>6} {'gold':>5} {'ppi':>6} {'cs low':>7} {'cs high':>7} "
        f"{'recent':>7} {'drift e':>8} {'P(pi<t)':>8}  alarms"
    )
    for s in analysis.statuses:
        alarms = [n for n, on in (("below", s.below), ("drift", s.drift)) if on]
        if s.bayes_below:
            alarms.append("(bayes below)")
        estimate = "-" if s.estimate is None else f"{s.estimate:.3f}"
        p = "-" if s.p_below is None else f"{s.p_below:.3f}"
        echo(
            f"{s.batch[:14]:<14} {s.items:>6} {s.labelled:>5} {estimate:>6} {s.low:>7.3f} "
            f"{s.high:>7.3f} {s.recent_high:>7.3f} {s.drift_e:>8.3g} {p:>8}  {' '.join(alarms)}"
        )
    echo(analysis.summary())


def _cmd_drift(args: argparse.Namespace) -> int:
    from bayesjudge.batches.statespace import fit_drift
    from bayesjudge.priors import PrevalencePriors

    sampler = SamplerOptions.from_args(args)
    priors = sampler.priors_of(PrevalencePriors)
    data = _load(args)
    fit = fit_drift(
        data.counts(),
        priors=priors,
        drift_size=args.drift_size,
        drift_prob=args.drift_prob,
        prob=args.prob,
        **sampler.fit_kwargs(),
    )
    from bayesjudge.reporting.write import write_report

    if not emit_outputs(args, fit, write_report, source=", ".join(args.data)):
        frame = fit.to_frame()
        echo(
            f"{'batch':<14} {'items':>6} {'gold':>5} {'naive':>6} {'pi':>6} {'low':>6} "
            f"{'high':>6} {'change':>7} {'drift':>6}"
        )
        for batch, row in frame.iterrows():
            change = "-" if row["pi_change"] != row["pi_change"] else f"{row['pi_change']:+.3f}"
            drift = "-" if row["drift"] != row["drift"] else f"{row['drift']:.2f}"
            naive = "-" if row["naive"] != row["naive"] else f"{row['naive']:.3f}"
            flag = "  drifted" if row["drifted"] else ""
            echo(
                f"{str(batch)[:14]:<14} {int(row['n'] + row['m1'] + row['m0']):>6} "
                f"{int(row['m1'] + row['m0']):>5} {naive:>6} {row['pi']:>6.3f} "
                f"{row['pi_low']:>6.3f} {row['pi_high']:>6.3f} {change:>7} {drift:>6}{flag}"
            )
        print_answer(fit.summary(), report=args.out)
    return report_failures(fit.passed, [c.describe() for c in fit.diagnostics.failures])


def _add_batch_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "data",
        nargs="+",
        metavar="DATA",
        help="a table with a batch column, label (blank: unlabelled) and verdict, or several "
        "eval logs, each one batch (gold labels with --labels)",
    )
    parser.add_argument(
        "--batch", default="batch", metavar="COLUMN", help="the batch column (default batch)"
    )
    parser.add_argument(
        "--order",
        choices=["auto", "appearance"],
        default=None,
        help="batch order: auto (dates when every batch name is one, else first appearance; the "
        "default for a table) or appearance (the default for logs: their order)",
    )
    parser.add_argument(
        "--score-threshold",
        type=probability,
        default=None,
        metavar="T",
        help="turn judge scores into verdicts: score >= T is PASS",
    )


def _register_drift(commands: Any) -> None:
    drift = commands.add_parser(
        "drift",
        help="pi, Se and Sp across batches as random walks: judge drift and change by release",
        description="Fit the state-space model across batches: the logits of each batch's "
        "success rate pi and of the judge's Se and Sp take a Gaussian random-walk step from "
        "the batch before (step sizes learned), each batch's gold and unlabelled counts enter "
        "as in the prevalence model, so a batch with few gold labels borrows its judge from "
        "its neighbours. Prints each batch's corrected and naive rate, the change since the "
        "batch before, and the batches where the judge drifted. Exit 0; 2 bad input; 3 failed "
        "diagnostics.",
    )
    _add_batch_options(drift)
    drift.add_argument(
        "--drift-size",
        type=probability,
        default=0.05,
        metavar="D",
        help="the judge drifted when Se or Sp moved by more than D (default 0.05)",
    )
    drift.add_argument(
        "--drift-prob",
        type=probability,
        default=0.9,
        metavar="P",
        help="flag a batch when P(drift) >= P (default 0.9)",
    )
    add_prob_and_seed(drift)
    add_report_options(drift, _cmd_drift)
    add_sampler_options(
        drift,
        target_accept=defaults.BATCHES_TARGET_ACCEPT,
        priors="pi, se, sp of the first batch (each beta; default jeffreys)",
        draws=1000,
    )
    add_input_options(drift, threshold=False)


def register(commands: Any) -> None:
    """Add ``monitor`` and ``drift`` to the subcommands."""
    _register_drift(commands)
    monitor = commands.add_parser(
        "monitor",
        help="anytime-valid monitor over batches: pi below a threshold, judge drift",
        description="After every batch: an anytime-valid confidence sequence for the corrected "
        "success rate pi (betting on prediction-powered terms; Waudby-Smith and Ramdas 2024; "
        "Kilian, Cortinovis and Caron 2025) with the alarm 'pi below the threshold', and an "
        "e-process for 'judge drifted' (the gold items against constant Se/Sp); together a "
        "false alarm with probability at most --alpha however often one looks. Beside them, "
        "the per-batch Bayesian rule P(pi < threshold | batch) > --level, whose false-alarm "
        "rate has no such guarantee. Exit 0: no alarm at the last batch; 1: alarm; 2: bad "
        "input.",
    )
    _add_batch_options(monitor)
    monitor.add_argument(
        "--threshold",
        type=probability,
        required=True,
        help="the success rate pi below which to raise the alarm, in (0, 1)",
    )
    monitor.add_argument(
        "--alpha",
        type=probability,
        default=0.05,
        help="false-alarm probability of the anytime-valid alarms together (default 0.05)",
    )
    monitor.add_argument(
        "--level",
        type=probability,
        default=0.95,
        help="posterior probability of the Bayesian rule (default 0.95)",
    )
    monitor.add_argument(
        "--no-bayes", action="store_true", help="skip the per-batch Bayesian rule (faster)"
    )
    add_input_options(monitor, threshold=False)
    add_json_option(monitor)
    monitor.set_defaults(handler=_cmd_monitor)
