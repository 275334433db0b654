"""The ``bayesjudge gate`` command: retry-until-PASS gates and revise-then-rejudge loops.

``bayesjudge gate RULINGS [--k 1 2 5] [--prob 0.95] [--random-seed N] [--json] [--out DIR]``
fits the per-item pass-rate hierarchy to long-format rulings (``item``, ``verdict``[,
``label``][, ``ruling``][, ``slice``]; any table format, columns mapped with ``--map``, gold
labels joined by id with ``--labels``; or an eval log whose epochs are the rulings) through
:func:`bayesjudge.analyze_gate` and prints the posterior of pi, J(inf) and J, Se, Sp, R at each
cap beside the baselines at each cap and the lag-1 independence check. ``--loop LOGS`` adds (or,
without rulings, gives alone) the loop analysis (:func:`bayesjudge.gates.analysis.analyze_loop`).
With ``--json`` the output is :meth:`GateAnalysis.to_dict
<bayesjudge.gates.analysis.GateAnalysis.to_dict>` with an ``input`` block (what was read); a
loop-only run prints ``{"loop": {...}}``. Exit codes as for ``bayesjudge estimate``.
"""

from __future__ import annotations

import argparse
from typing import Any

from bayesjudge.cli.common import (
    EXIT_OK,
    UserError,
    add_input_options,
    bounded_int,
    echo,
    emit_json,
    estimates_table,
    fmt,
    input_options,
    print_answer,
    probability,
    report_failures,
)
from bayesjudge.cli.options import (
    SamplerOptions,
    add_prob_and_seed,
    add_report_options,
    add_sampler_options,
    emit_outputs,
)
from bayesjudge.inference import defaults

__all__ = ["register"]


def _cap(text: str) -> int:
    from bayesjudge.gates.caps import MAX_CAP

    return bounded_int(1, MAX_CAP)(text)


def register(commands: Any) -> None:
    """Add the ``gate`` subcommand to the ``bayesjudge`` subparsers object ``commands``."""
    sub = commands.add_parser(
        "gate",
        help="true success rate behind a retry-until-PASS gate, with J(K) at each cap",
        description="Fit the per-item pass-rate hierarchy of a retry gate to repeated rulings "
        "(columns item, verdict[, label][, ruling][, slice]), check it, and compare the "
        "posterior of pi with naive, Rogan-Gladen, PPI and PPI++ at each cap K. With --loop, "
        "also analyse revise-then-rejudge loop logs (item, attempt, verdict, correct).",
    )
    sub.add_argument(
        "rulings",
        nargs="?",
        metavar="RULINGS",
        help="long-format rulings, a file or - (stdin), or an eval log whose epochs or repeats "
        "are the rulings (with --labels)",
    )
    sub.add_argument(
        "--k",
        nargs="+",
        type=_cap,
        default=[1, 2, 5],
        metavar="K",
        help="caps K to report (default 1 2 5; any whole number, at most 1000 of them)",
    )
    add_prob_and_seed(sub)
    add_report_options(sub, run_gate)
    sub.add_argument(
        "--loop", metavar="LOGS", default=None, help="loop logs to analyse (a table file)"
    )
    sub.add_argument(
        "--loop-map",
        action="append",
        default=[],
        metavar="NAME=COLUMN",
        help="read column COLUMN of the loop logs as NAME (item, attempt, verdict, correct)",
    )
    sub.add_argument(
        "--calibration",
        choices=["by_class", "random"],
        default="by_class",
        help="by_class (default): the gold items may have been chosen by class; random: they "
        "are a random sample of all items (their labels then inform pi; a check warns when "
        "the data say otherwise)",
    )
    sub.add_argument(
        "--cal-fraction",
        type=probability,
        default=0.5,
        help="share of loop items used to estimate PPV (default 0.5)",
    )
    add_sampler_options(
        sub,
        target_accept=defaults.GATE_TARGET_ACCEPT,
        priors="pi (beta; jeffreys), omega (beta; uniform), mu (beta; uniform), "
        "log_kappa (normal; normal:1,1.5)",
    )
    add_input_options(sub, threshold=False, epochs=False)


def _load(args: argparse.Namespace) -> tuple[Any, Any]:
    """Read the rulings and the loop logs as the command line says (either may be absent)."""
    from bayesjudge.gates.data import LoopLog, Rulings
    from bayesjudge.io.mapping import parse_map

    options = input_options(args, source="rulings")
    log = None
    if args.loop is not None:
        log = LoopLog.from_frame(
            args.loop,
            strict=options.strict,
            columns=parse_map(args.loop_map, option="--loop-map"),
            positive=options.positive,
            negative=options.negative,
        )
    elif args.loop_map:
        raise UserError("--loop-map maps the columns of --loop LOGS; give --loop too")
    rulings = None
    if options.source is not None:
        rulings = Rulings.from_frame(
            options.data(),
            **options.reading(),
            labels=options.labels,
            label_columns=options.label_columns,
        )
    return rulings, log


def run_gate(args: argparse.Namespace) -> int:
    """Run ``bayesjudge gate``; return the exit code."""
    from bayesjudge.gates.caps import MAX_CAPS
    from bayesjudge.priors import GatePriors

    caps = sorted(set(args.k))
    if len(caps) > MAX_CAPS:
        raise UserError(f"--k: at most {MAX_CAPS} caps at once; got {len(caps)}")
    if args.rulings is None and args.loop is None:
        raise UserError("gate needs RULINGS, --loop LOGS, or both")
    sampler = SamplerOptions.from_args(args)
    priors = sampler.priors_of(GatePriors)
    rulings, log = _load(args)
    # the fitting stack is imported once the input has been read: bad input exits without it
    from bayesjudge.gates.analysis import analyze_gate, analyze_loop

    if rulings is None:
        assert log is not None
        loop = analyze_loop(
            log,
            caps=caps,
            prob=args.prob,
            calibration_fraction=args.cal_fraction,
            random_seed=args.random_seed,
        )
        if args.json:
            emit_json({"loop": loop.to_dict()})
        else:
            _print_loop(loop.to_dict())
        return EXIT_OK
    analysis = analyze_gate(
        rulings,
        caps=caps,
        prob=args.prob,
        priors=priors,
        calibration=args.calibration,
        loop=log,
        calibration_fraction=args.cal_fraction,
        **sampler.fit_kwargs(),
    )
    from bayesjudge.reporting.write import write_report

    source = getattr(args, "source_label", None) or args.rulings
    if not emit_outputs(args, analysis, write_report, source=source, origin=rulings.origin):
        _print_rulings(args.rulings, analysis)
        if analysis.loop is not None:
            _print_loop(analysis.loop.to_dict())
        echo(f"seed {analysis.seed}")
        from bayesjudge.gates.report import gate_summary

        print_answer(gate_summary(analysis), report=args.out)
    return report_failures(analysis.passed, [c.describe() for c in analysis.diagnostics.failures])


def _print_rulings(source: str, analysis: Any) -> None:
    rulings = analysis.rulings
    if rulings.origin is not None:
        for line in rulings.origin.lines():
            echo(line)
    echo(
        f"{source}: {rulings.items.size} items ({int(rulings.labelled.sum())} labelled), "
        f"{int(rulings.r.sum())} rulings; calibration {analysis.calibration}"
    )
    echo(f"{'posterior':<12} {'cap':>5} {'mean':>8} {'low':>8} {'high':>8}")
    for name in ("pi", "j_inf"):
        s = analysis.summary(name)
        echo(f"{name:<12} {'':>5} {fmt(s.mean)} {fmt(s.eti.low)} {fmt(s.eti.high)}")
    for name in ("j", "se", "sp", "judged_rate"):
        for cap in analysis.caps:
            s = analysis.summary(name, cap)
            echo(f"{name:<12} {cap:>5} {fmt(s.mean)} {fmt(s.eti.low)} {fmt(s.eti.high)}")
    verdict = "passed" if analysis.passed else "FAILED"
    retried = " after one retry" if len(analysis.attempts) > 1 else ""
    echo(f"diagnostics: {verdict}{retried}")
    by_cap: dict[int, list[Any]] = {}
    for row in analysis.estimates:
        by_cap.setdefault(row.cap, []).append(row.estimate)
    for cap, estimates in by_cap.items():
        echo(f"baselines at cap K={cap}:")
        echo(estimates_table(estimates, analysis.prob))
    independence = analysis.independence
    verdict = "consistent with" if independence.consistent else "NOT consistent with"
    echo(
        f"lag-1 same-verdict rate {independence.observed:.4f} vs {independence.expected:.4f} "
        f"expected (p = {independence.p_value:.3f}): {verdict} independent rulings"
    )


def _print_loop(loop: dict[str, Any]) -> None:
    law = loop["slip_law"]
    echo(
        f"loop: {loop['n_items']} items; a={law['a']:.3f} s={law['s']:.3f} "
        f"leak={law['leak']:.3f} rho={law['rho']:.3f}"
    )
    echo(
        f"{'cap':>5} {'reported':>9} {'delivered':>9} {'slip':>7} {'pred.slip':>9} {'PPV-corr':>9}"
    )
    for row in loop["caps"]:
        echo(
            f"{row['cap']:>5} {row['reported']:>9.4f} {row['delivered']:>9.4f} "
            f"{row['slip']:>7.4f} {row['slip_predicted']:>9.4f} "
            f"{row['ppv_corrected']['estimate']:>9.4f}"
        )
