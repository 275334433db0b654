"""The ``bayesjudge panel`` command: the true success rate behind a panel of judges.

``bayesjudge panel [DATA] [--labels LABELS] [--judges A B ...] [--prob 0.95] [--random-seed N]
[--json] [--out DIR]`` reads the verdicts of several judges (long form ``item, judge,
verdict[, label]``, or wide form with one verdict column per judge; any table format, columns
mapped with ``--map``, gold labels joined by id with ``--labels``) through
:func:`bayesjudge.panels.data.load_panel`, fits the latent-class model of the panel through
:func:`bayesjudge.analyze_panel` and prints pi, each judge's Se, Sp and J, the error
correlations, the effective number of judges and the vote rules beside the baselines. With
``--json`` the output is :meth:`PanelAnalysis.to_dict
<bayesjudge.panels.analysis.PanelAnalysis.to_dict>` with an ``input`` block (what was read).
Without DATA it runs on the bundled example panel. Exit codes as for ``bayesjudge estimate``.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from bayesjudge.cli.common import (
    UserError,
    add_input_options,
    echo,
    estimates_table,
    fmt,
    input_options,
    print_answer,
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
from bayesjudge.reporting.output import escape_terminal

__all__ = ["register"]

_PRIORS = "pi (beta; jeffreys), se, sp (beta; uniform), loading (beta; uniform)"


def register(commands: Any) -> None:
    """Add the ``panel`` subcommand to the ``bayesjudge`` subparsers object ``commands``."""
    sub = commands.add_parser(
        "panel",
        help="true success rate behind a panel of judges with correlated errors",
        description="Fit the latent-class model of a judge panel (judge-specific Se and Sp, "
        "errors correlated through an item-level random effect; Qu, Tan and Kutner 1996) to "
        "the verdicts of several judges and gold labels on some items, check it, and compare "
        "the posterior of pi with each judge alone (Rogan-Gladen, PPI++), the majority vote "
        "and Dawid-Skene. DATA is long (item, judge, verdict[, label]) or wide (one verdict "
        "column per judge[, item][, label]).",
    )
    sub.add_argument(
        "data",
        nargs="?",
        metavar="DATA",
        help="panel verdicts (CSV, TSV, JSONL, Parquet or - for stdin); the bundled example "
        "panel when omitted",
    )
    sub.add_argument(
        "--judges",
        nargs="+",
        metavar="NAME",
        default=None,
        help="the verdict columns of a wide table (default: every column but item and label)",
    )
    add_prob_and_seed(sub)
    add_report_options(sub, run_panel)
    sub.add_argument(
        "--dependence",
        choices=["random_effect", "none", "pairs", "auto"],
        default="random_effect",
        help="random_effect (default): judges' errors correlated through the item; none: "
        "conditionally independent judges (Dawid-Skene's assumption); pairs: a class-specific "
        "covariance for each pair of judges whose gold-item agreement exceeds independence "
        "(or --pairs), the others independent (exact for a judge that copies another); auto: "
        "fit random_effect and pairs and keep the one that fits better (PSIS-LOO, then the "
        "diagnostics; the JSON says which and why under dependence.choice)",
    )
    sub.add_argument(
        "--pairs",
        nargs="+",
        metavar="A+B",
        default=None,
        help="with --dependence pairs or auto: the pairs of judges of the pair form, each as "
        "two judge names joined by '+' (default: chosen from the gold items)",
    )
    sub.add_argument(
        "--independence",
        type=float,
        default=None,
        metavar="P",
        help="with --dependence random_effect: prior probability, for each class, that the "
        "judges' errors are conditionally independent (every loading 0); default "
        f"{defaults.PANEL_INDEPENDENCE}; 0 keeps the loadings away from 0",
    )
    sub.add_argument(
        "--spike",
        choices=["class", "judge"],
        default="class",
        help="with --dependence random_effect and --independence above 0: what one indicator "
        "of the spike switches: class (default): every loading of a class; judge: one judge's "
        "loadings, so that the other judges of a panel with one dependent pair can be exactly "
        "independent (small panels only: its cost doubles with each judge)",
    )
    sub.add_argument(
        "--calibration",
        choices=["by_class", "random"],
        default="by_class",
        help="by_class (default): the gold items may have been chosen by class; random: they "
        "are a random sample of all items (their labels then inform pi)",
    )
    add_sampler_options(sub, target_accept=defaults.PANEL_TARGET_ACCEPT, priors=_PRIORS)
    add_input_options(sub, logs=False, threshold=False, epochs=False)


def _load(args: argparse.Namespace) -> Any:
    """Read the panel as the command line says (the bundled example without DATA)."""
    from bayesjudge.panels.data import load_panel

    options = input_options(args)
    if options.source is None:
        if args.judges is not None:
            raise UserError("--judges names the verdict columns of DATA; give DATA too")
        from bayesjudge.examples import load_example

        return load_panel(load_example("panel"), strict=options.strict)
    return load_panel(
        options.table(),
        judges=args.judges,
        labels=options.labels,
        label_columns=options.label_columns,
        **options.reading(),
    )


def run_panel(args: argparse.Namespace) -> int:
    """Run ``bayesjudge panel``; return the exit code."""
    from bayesjudge.priors import PanelPriors

    sampler = SamplerOptions.from_args(args)
    priors = sampler.priors_of(PanelPriors)
    # report --example names the example rather than the path of its file
    source = getattr(args, "source_label", None) or args.data or "bundled example panel"
    if args.pairs is not None and args.dependence not in ("pairs", "auto"):
        raise UserError(
            f"--pairs goes with --dependence pairs or auto; got --dependence {args.dependence}"
        )
    if args.spike == "judge" and args.dependence not in ("random_effect", "auto"):
        raise UserError(
            "--spike judge goes with --dependence random_effect or auto (it is the loadings' "
            f"spike); got --dependence {args.dependence}"
        )
    if args.spike == "judge" and args.independence == 0:
        raise UserError("--spike judge needs --independence above 0 (the spike's probability)")
    data = _load(args)
    # the fitting stack is imported once the input has been read: bad input exits without it
    from bayesjudge.panels.analysis import analyze_panel

    analysis = analyze_panel(
        data,
        prob=args.prob,
        priors=priors,
        dependence=args.dependence,
        calibration=args.calibration,
        independence=args.independence,
        pairs=_pairs(args.pairs),
        spike=args.spike,
        **sampler.fit_kwargs(),
    )
    from bayesjudge.reporting.write import write_report

    origin = data.origin if args.data is not None else None
    if not emit_outputs(args, analysis, write_report, source=source, origin=origin):
        _print(source, analysis)
        from bayesjudge.panels.report import panel_summary

        print_answer(panel_summary(analysis), report=args.out)
    return report_failures(analysis.passed, [c.describe() for c in analysis.diagnostics.failures])


def _pairs(values: list[str] | None) -> tuple[tuple[str, str], ...] | None:
    """Parse ``--pairs A+B ...`` into pairs of judge names."""
    if values is None:
        return None
    out = []
    for value in values:
        parts = value.split("+")
        if len(parts) != 2 or not all(parts):
            raise UserError(f"--pairs: each pair is two judge names joined by '+'; got {value!r}")
        out.append((parts[0], parts[1]))
    return tuple(out)


def _print(source: str, analysis: Any) -> None:
    data = analysis.data
    n_fail, n_pass = data.n_labelled
    echo(
        f"{source}: {data.n_items} items ({n_pass} gold-PASS, {n_fail} gold-FAIL), "
        f"{data.n_judges} judges; dependence {analysis.dependence}, calibration "
        f"{analysis.calibration}"
    )
    if analysis.dependence_choice is not None:
        echo(f"dependence chosen by fit: {analysis.dependence_choice.reason}")
    naive = analysis.naive
    s = analysis.pi
    echo(
        f"pi {fmt(s.mean)} [{fmt(s.eti.low)}, {fmt(s.eti.high)}]   naive majority vote "
        f"{fmt(naive.estimate)}"
    )
    echo(f"{'judge':<16} {'Se':>8} {'Sp':>8} {'J':>8}")
    for judge, values in analysis.judges.items():
        echo(
            f"{escape_terminal(judge)[:16]:<16} {fmt(values['se'].mean)} {fmt(values['sp'].mean)} "
            f"{fmt(values['j'].mean)}"
        )
    e = analysis.effective_judges
    echo(f"effective judges {fmt(e.mean)} [{fmt(e.eti.low)}, {fmt(e.eti.high)}]")
    echo(f"{'error correlation':<24} {'PASS items':>10} {'FAIL items':>10}")
    for pair, values in analysis.correlation.items():
        echo(
            f"{escape_terminal(pair)[:24]:<24} {fmt(values['positive'].mean, 10)} "
            f"{fmt(values['negative'].mean, 10)}"
        )
    rg_sd = analysis.posterior["posterior"]["rule_pi_sd"].mean(("chain", "draw"))
    echo(f"{'rule':<20} {'Se':>8} {'Sp':>8} {'J':>8} {'RG sd':>8}")
    for rule in analysis.rules:
        mark = "  (best)" if rule.rule == analysis.best_rule else ""
        echo(
            f"{rule.rule:<20} {fmt(rule.se.mean)} {fmt(rule.sp.mean)} {fmt(rule.j.mean)} "
            f"{fmt(float(rg_sd.sel(rule=rule.rule)))}{mark}"
        )
    echo("(best): smallest RG sd, the most precise Rogan-Gladen estimate of pi (not largest J)")
    verdict = "passed" if analysis.passed else "FAILED"
    retried = " after one retry" if len(analysis.attempts) > 1 else ""
    echo(f"diagnostics: {verdict}{retried}")
    echo("baselines:")
    labelled = [
        replace(e.estimate, method=f"{e.judge or e.rule}: {e.estimate.method}")
        for e in analysis.estimates
    ]
    echo(estimates_table(labelled, analysis.prob))
    echo(f"seed {analysis.seed}; priors {analysis.priors.describe()}")
