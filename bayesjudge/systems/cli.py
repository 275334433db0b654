"""The systems family's command: ``bayesjudge rank``.

It reads DATA through the input layer (:meth:`SystemsData.read
<bayesjudge.systems.data.SystemsData.read>`), calls
:func:`~bayesjudge.systems.analysis.analyze_systems` once, and prints what it returns: one JSON
object with ``--json``, else a few sentences and aligned tables; ``--out`` writes the report
(:func:`bayesjudge.write_report`).
"""

from __future__ import annotations

import argparse
from typing import Any

from bayesjudge.cli.common import (
    EXIT_OK,
    UserError,
    add_input_options,
    echo,
    emit_json,
    estimates_table,
    fmt,
    input_options,
    named_paths,
    print_answer,
    report_failures,
)
from bayesjudge.cli.options import (
    SamplerOptions,
    add_prob_and_seed,
    add_report_options,
    add_sampler_options,
)
from bayesjudge.inference import defaults
from bayesjudge.reporting.output import escape_terminal

__all__ = ["register"]

_PRIORS = (
    "pi (beta), joint (dirichlet), se, sp (beta), ability (normal), difficulty_sd (halfnormal), "
    "judge_mu (normal), judge_sigma (halfnormal); see the docs for the defaults"
)
_DATA_HELP = (
    "judged answers: a file or - (stdin) with columns system, verdict[, label][, item] (mapped "
    "with --map), rows of different systems with the same item paired; or one or more eval logs "
    "(Inspect, promptfoo, lm-eval, OpenAI evals; e.g. one per system) with --labels; the "
    "bundled example when omitted"
)


def _source(args: argparse.Namespace) -> str:
    # report --example names the example rather than the path of its file
    return getattr(args, "source_label", None) or ", ".join(args.data) or "bundled example"


def _load(args: argparse.Namespace) -> Any:
    from bayesjudge.examples import load_example
    from bayesjudge.io.source import log_tool
    from bayesjudge.systems.data import SystemsData

    sources = list(args.data)
    first = argparse.Namespace(**{**vars(args), "data": sources[0] if sources else None})
    options = input_options(first)
    if options.source is None:
        return SystemsData.read(load_example("systems"))
    tools = [log_tool(source, format=options.format) for source in sources]  # type: ignore[arg-type]
    if any(tool is not None for tool in tools):
        tables = [s for s, tool in zip(sources, tools, strict=True) if tool is None]
        if tables:
            raise UserError(
                f"DATA mixes evaluation logs and tables ({tables[0]} is a table); give either "
                "one table with a system column, or one or more eval logs"
            )
        if options.columns:
            raise UserError("--map maps the columns of a table; eval logs are read as they are")
        if options.labels is None:
            raise UserError(
                "an eval log holds no gold labels; give them in a table with --labels FILE "
                "(columns item, system, label)"
            )
        return SystemsData.from_logs(
            sources,
            labels=options.labels,
            label_columns=options.label_columns,
            positive=options.positive,
            negative=options.negative,
            judge=args.scorer,
            epochs=options.epochs,  # type: ignore[arg-type]
            partial=args.partial,
        )
    if len(sources) > 1:
        raise UserError(
            "DATA: several files are read only as eval logs (one per system); put the answers "
            "of every system in one table with a system column"
        )
    for flag, value in (
        ("--epochs", options.epochs),
        ("--scorer", args.scorer),
        ("--partial", args.partial),
    ):
        if value is not None:
            raise UserError(f"{flag}: for eval logs only, and {options.source} is a table")
    return SystemsData.read(
        options.table(),
        **options.reading(),
        labels=options.labels,
        label_columns=options.label_columns,
    )


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _print(args: argparse.Namespace, analysis: Any) -> None:
    data, prob = analysis.data, analysis.prob
    mass = f"{100 * prob:g}%"
    if data.origin is not None:
        for line in data.origin.lines():
            echo(line)
    counts = data.system_counts()
    item = (data.origin.columns.get("item") if data.origin is not None else None) or "item"
    design = (
        f"paired on column {item!r} (the systems answered the same items)"
        if analysis.paired
        else "unpaired"
        + ("" if "item" in getattr(data.origin, "columns", {}) else ": no item column")
    )
    echo(
        f"{_source(args)}: {len(analysis.systems)} systems, {len(data.items)} items, "
        f"{int(counts.m1.sum() + counts.m0.sum())} gold-labelled answers; {design}; "
        f"model {analysis.model}"
    )
    from bayesjudge.systems.report import CLEAR_BEST, most_likely_best, ranking_sentence

    best = most_likely_best(analysis)
    p_best = analysis.p_best[best]
    lead = (
        f"Best system: {best}, with probability {p_best:.2f}"
        if p_best >= CLEAR_BEST
        else f"No system is clearly best; the most likely is {best}, with P(best) = {p_best:.2f}"
    )
    echo(
        f"{lead} (true success rate {_percent(analysis.pi[best].mean)}, {mass} interval "
        f"{_percent(analysis.pi[best].eti.low)} to {_percent(analysis.pi[best].eti.high)})."
    )
    echo(ranking_sentence(analysis))
    echo(f"Naive ranking (judge's pass rates): {' > '.join(analysis.naive_order)}")
    if analysis.reversals:
        for r in analysis.reversals:
            echo(
                f"The correction reverses {r.a} > {r.b}: P({r.b} better than {r.a}) = {r.prob:.2f}."
            )
    else:
        echo("The correction reverses no pair of the naive ranking.")
    judge = analysis.judge
    if judge.evidence is not None:
        echo(escape_terminal(judge.evidence.sentence()))
    elif judge.shared:
        echo(
            f"Judge: one Se and Sp for every system (Se {judge.se.mean:.3f}, Sp "
            f"{judge.sp.mean:.3f}); gold labels of both classes for "
            f"{len(judge.calibrated)} system(s)"
            + ("; --judge system would fit each." if len(judge.calibrated) >= 2 else ".")
        )
    else:
        assert judge.spread_se is not None
        assert judge.spread_sp is not None
        how = "pooled" if judge.pooled else "each with its own prior"
        echo(
            f"Judge: Se and Sp per system, {how} (spread between systems on the logit scale: "
            f"Se {judge.spread_se.mean:.2f}, Sp {judge.spread_sp.mean:.2f}). With one judge "
            f"for all, the ranking would be {' > '.join(judge.shared_order)}"
            + (" (different)." if judge.changes_ranking else " (the same).")
        )
    echo()
    echo(
        f"{'system':<16} {'pi':>8} {'low':>8} {'high':>8} {'P(best)':>8} {'rank':>6} "
        f"{'naive':>8} {'naive rank':>10} {'se':>7} {'sp':>7}"
    )
    for name in analysis.order:
        s = analysis.pi[name]
        se, sp = judge.by_system[name]
        echo(
            f"{escape_terminal(name):<16} {fmt(s.mean)} {fmt(s.eti.low)} {fmt(s.eti.high)} "
            f"{fmt(analysis.p_best[name], 8, 3)} {fmt(analysis.rank[name].mean, 6, 2)} "
            f"{fmt(analysis.naive_rate[name])} {analysis.naive_rank[name]:>10} "
            f"{fmt(se.mean, 7, 3)} {fmt(sp.mean, 7, 3)}"
        )
    echo()
    from bayesjudge.systems.repeated_cli import echo_differences

    echo_differences(analysis.differences)
    echo()
    rows = [
        _renamed(e, keys.get("system") or f"{keys['b']} - {keys['a']}")
        for keys, e in analysis.estimates
    ]
    echo("Frequentist baselines (each system's rate, then each difference b - a):")
    echo(estimates_table(rows, prob))
    verdict = "passed" if analysis.passed else "FAILED"
    retried = " after one retry" if len(analysis.attempts) > 1 else ""
    echo(
        f"diagnostics: {verdict}{retried}; seed {analysis.seed}; "
        f"priors {analysis.priors.describe()}"
    )


def _renamed(estimate: Any, label: str) -> Any:
    from dataclasses import replace

    return replace(estimate, method=f"{label}: {estimate.method}")


def _cmd_rank(args: argparse.Namespace) -> int:
    from bayesjudge.priors import SystemsPriors

    if args.epoch is not None:
        from bayesjudge.systems.repeated_cli import run_repeated_rank

        return run_repeated_rank(args)
    for flag, value in (("--cluster", args.cluster), ("--gold-per", args.gold_per)):
        if value is not None:
            raise UserError(f"{flag}: only with several answers per item, named by --epoch COL")
    sampler = SamplerOptions.from_args(args)
    priors = sampler.priors_of(SystemsPriors)
    data = _load(args)
    # the fitting stack is imported once the input has been read: bad input exits without it
    from bayesjudge.systems.analysis import analyze_systems

    analysis = analyze_systems(
        data,
        judge=args.judge,
        pooling=args.pooling,
        calibration=args.calibration,
        priors=priors,
        prob=args.prob,
        **sampler.fit_kwargs(),
    )
    if args.out is not None:
        from bayesjudge.reporting.write import write_report

        write_report(
            args.out, analysis, source=_source(args), inputs=named_paths(args, skip=["out"])
        )
    if args.json:
        from bayesjudge.inference.provenance import provenance

        # the keys, then what every command's JSON records: seed, priors, versions
        payload = analysis.to_dict()
        payload["provenance"] = provenance(analysis.seed, priors=analysis.priors, method="nuts")
        emit_json(payload)
    else:
        _print(args, analysis)
        from bayesjudge.systems.report import rank_summary

        print_answer(rank_summary(analysis), report=args.out)
    failures = [] if analysis.diagnostics is None else analysis.diagnostics.failures
    return report_failures(analysis.passed, [c.describe() for c in failures]) or EXIT_OK


def register(commands: Any) -> None:
    """Add ``rank`` to the subcommands."""
    sub = commands.add_parser(
        "rank",
        help="compare and rank systems judged by one imperfect judge",
        description="Posterior of each system's true success rate under one imperfect judge, "
        "every pairwise difference with P(b better than a), P(each system is best), the "
        "posterior of each rank, the ranking the judge's raw pass rates give and the pairs the "
        "correction reverses, beside frequentist baselines (McNemar, Newcombe, Tango, "
        "Rogan-Gladen, PPI++).",
    )
    sub.add_argument("data", nargs="*", metavar="DATA", help=_DATA_HELP)
    add_prob_and_seed(sub)
    add_input_options(sub, logs=False, threshold=False, epochs=True)
    logs = sub.add_argument_group("reading eval logs")
    logs.add_argument(
        "--scorer",
        metavar="NAME",
        default=None,
        help="the judge to read (Inspect scorer, promptfoo assertion metric, lm-eval metric, "
        "OpenAI evals metric); by default each log's only one",
    )
    logs.add_argument(
        "--partial",
        choices=["fail", "pass", "drop"],
        default=None,
        help="Inspect logs: what a partial grade (P) counts as",
    )
    add_sampler_options(sub, target_accept=defaults.SYSTEMS_TARGET_ACCEPT, priors=_PRIORS)
    sub.add_argument(
        "--judge",
        choices=["auto", "shared", "system"],
        default="auto",
        help="shared: one Se and Sp for every system; system: each system's Se and Sp; auto "
        "(default): for two systems with gold labels of both classes, the average of the two "
        "weighted by the posterior probability of one judge given the gold labels; otherwise "
        "system when two or more systems have gold labels of both classes, else shared",
    )
    sub.add_argument(
        "--pooling",
        choices=["auto", "partial", "none"],
        default="auto",
        help="with a judge per system: partial (pooled around shared values, the judge_sigma "
        "spread) or none (each system's own Beta priors); auto (default): none for two "
        "systems that both have gold labels of both classes, partial otherwise",
    )
    sub.add_argument(
        "--calibration",
        choices=["by_class", "random"],
        default="by_class",
        help="by_class (default): the gold-labelled answers may have been chosen by class, so "
        "they inform the judge only; random: they are a random sample and inform the rates too",
    )
    repeated = sub.add_argument_group("several answers per item (epochs, repeats)")
    repeated.add_argument(
        "--epoch",
        metavar="COL",
        default=None,
        help="the column numbering each system's answers to an item: fits the model of "
        "repeated answers (an item effect shared by the systems, each system-item pair its "
        "own success probability) to a table with several answers per (system, item)",
    )
    repeated.add_argument(
        "--cluster", metavar="COL", default=None, help="with --epoch: the items' cluster column"
    )
    repeated.add_argument(
        "--gold-per",
        choices=["answer", "item"],
        default=None,
        help="with --epoch: answer (default): a gold label is that answer's; item: the "
        "(system, item)'s, the same on each of its rows",
    )
    add_report_options(sub, _cmd_rank)
