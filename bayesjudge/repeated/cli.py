"""The ``bayesjudge repeated`` command: the mean success rate over items answered several times.

``bayesjudge repeated [DATA] [--item COL] [--epoch COL] [--cluster COL] [--call COL] [--gold COL]
[--gold-per answer|item] [--pass-at K ...] [--json] [--out DIR]`` reads one row per judged answer
(:meth:`bayesjudge.repeated.RepeatedData.from_frame`), fits the repeated-samples model through
:func:`bayesjudge.repeated.analysis.analyze_repeated` and prints the mean success rate over items,
pass@k, pass^k, the share of items never, sometimes and always solved, the judge's Se and Sp (with
``--call``, several judge calls per answer: their correlation too), and baselines that read every
answer as independent. With ``--json`` the output is :meth:`RepeatedAnalysis.to_dict
<bayesjudge.repeated.analysis.RepeatedAnalysis.to_dict>` with an ``input`` block. Without DATA it
runs on the bundled simulated example. Exit codes: 0 ok, 2 bad input, 3 failed diagnostics (a failed
posterior predictive check included).
"""

from __future__ import annotations

import argparse
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

__all__ = ["register"]

_PRIORS = (
    "pi (beta; jeffreys: the median item's rate), se, sp (beta; jeffreys), sigma "
    "(halfnormal; 2.5), tau (halfnormal; 1.5), rho (beta; 1,1: the judge calls' correlation)"
)
_COLUMNS = ("item", "epoch", "cluster", "call")


def register(commands: Any) -> None:
    """Add the ``repeated`` subcommand to the ``bayesjudge`` subparsers object ``commands``."""
    sub = commands.add_parser(
        "repeated",
        help="mean success rate over items answered several times (epochs, repeats)",
        description="Fit the repeated-samples model (each item its own success probability, "
        "logit-normal across items, a cluster level when given; each answer's verdict "
        "corrected for the judge's Se and Sp) to one row per judged answer, check it, and "
        "report the mean success rate over items, pass@k, pass^k and the share of items "
        "never, sometimes and always solved, beside clustered baselines and, to show what "
        "the clustering changes, baselines that read every answer as an independent item.",
    )
    sub.add_argument(
        "data",
        nargs="?",
        metavar="DATA",
        help="one row per judged answer (CSV, TSV, JSONL, Parquet or - for stdin); the "
        "bundled simulated example when omitted",
    )
    sub.add_argument("--item", metavar="COL", help="the item (prompt, sample) column")
    sub.add_argument("--epoch", metavar="COL", help="the column numbering an item's answers")
    sub.add_argument("--cluster", metavar="COL", help="the cluster (task, conversation) column")
    sub.add_argument(
        "--call",
        metavar="COL",
        help="the column numbering the judge's calls on one answer (several verdicts per "
        "answer: read with per-answer judge randomness, so k calls are not k answers)",
    )
    sub.add_argument("--gold", metavar="COL", help="the gold label column (blank: unlabelled)")
    sub.add_argument(
        "--gold-per",
        choices=["answer", "item"],
        default="answer",
        help="answer (default): a gold label is that answer's; item: the item's, the same on "
        "every row of the item",
    )
    sub.add_argument(
        "--pass-at",
        metavar="K",
        type=int,
        nargs="+",
        default=[1, 5],
        help="the k of pass@k and pass^k (default 1 5)",
    )
    sub.add_argument(
        "--calibration",
        choices=["by_class", "random"],
        default="by_class",
        help="by_class (default): the gold answers may have been chosen by class, so they "
        "inform only Se and Sp; random: they are a random sample of the answers, so their "
        "labels also inform their items' success rates",
    )
    add_prob_and_seed(sub)
    add_report_options(sub, run_repeated)
    add_sampler_options(sub, target_accept=defaults.REPEATED_TARGET_ACCEPT, priors=_PRIORS)
    add_input_options(sub, logs=False, threshold=False, epochs=False)


def _load(args: argparse.Namespace) -> Any:
    from bayesjudge.repeated.data import RepeatedData

    options = input_options(args)
    columns = dict(options.columns)
    for name in _COLUMNS:
        column = getattr(args, name)
        if column is not None:
            if name in columns and columns[name] != column:
                raise UserError(f"--{name} {column} and --map {name}={columns[name]} disagree")
            columns[name] = column
    if args.gold is not None:
        columns["label"] = args.gold
    if options.source is None:
        if columns:
            raise UserError("column options name columns of DATA; give DATA too")
        from bayesjudge.examples import load_example

        return RepeatedData.from_frame(load_example("repeated"), gold_per=args.gold_per)
    return RepeatedData.from_frame(
        options.table(),
        gold_per=args.gold_per,
        **options.reading(columns),
        labels=options.labels,
        label_columns=options.label_columns,
    )


def run_repeated(args: argparse.Namespace) -> int:
    """Run ``bayesjudge repeated``; return the exit code."""
    from bayesjudge.repeated.analysis import analyze_repeated
    from bayesjudge.repeated.priors import RepeatedPriors

    sampler = SamplerOptions.from_args(args)
    priors = sampler.priors_of(RepeatedPriors)
    if min(args.pass_at) < 1:
        raise UserError(f"--pass-at takes whole numbers of at least 1; got {args.pass_at}")
    source = getattr(args, "source_label", None) or args.data or "bundled example answers"
    data = _load(args)
    analysis = analyze_repeated(
        data,
        priors=priors,
        pass_k=sorted(set(args.pass_at)),
        gold_informs_items=args.calibration == "random",
        prob=args.prob,
        **sampler.fit_kwargs(),
    )
    from bayesjudge.reporting.write import write_report

    origin = data.origin if args.data is not None else None
    if not emit_outputs(args, analysis, write_report, source=source, origin=origin):
        _print(source, analysis)
        print_answer(analysis.summary(), report=args.out)
    return report_failures(analysis.passed, [c.describe() for c in analysis.diagnostics.failures])


def _print(source: str, analysis: Any) -> None:
    d = analysis.data
    calls = f" ({d['judge_calls']} judge calls)" if "judge_calls" in d else ""
    echo(
        f"{source}: {d['items']} items, {d['answers']} answers{calls}, {d['clusters']} "
        f"clusters, {d['gold_pass']} gold-PASS and {d['gold_fail']} gold-FAIL answers"
    )
    echo(f"{'quantity':<22} {'mean':>8} {'low':>8} {'high':>8}")
    for s in analysis.summaries():
        echo(f"{s.name:<22} {fmt(s.mean)} {fmt(s.eti.low)} {fmt(s.eti.high)}")
    if analysis.widening is not None:
        echo(f"interval width over the rows-as-independent one: {analysis.widening:.2f}")
    echo("baselines (clustered by item or --cluster; rows_as_independent: each answer an item):")
    echo(estimates_table(analysis.baselines, analysis.prob))
    echo(f"seed {analysis.seed}; priors {analysis.priors.describe()}")
