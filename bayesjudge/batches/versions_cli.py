"""The ``bayesjudge judges`` command: two versions of a judge compared on the same items.

``bayesjudge judges OLD NEW --labels gold.csv`` reads the old and the new judge's verdicts (two
tables with ``item`` and ``verdict`` columns, or two eval logs) and pairs them by item id;
``bayesjudge judges DATA --old A --new B`` reads both from one file: two verdict columns of a
table, or two scorers of an Inspect AI log. Gold labels come from a ``label`` column or a
separate sheet (``--labels``, joined by id). It prints, per gold class, the paired table and
the flip rate with McNemar's exact test; each judge's Se, Sp and J and the posterior of their
change; each judge's corrected success rate on the unlabelled items and the paired posterior of
the difference; and which judge to keep (:func:`bayesjudge.batches.versions.compare_judges`).
With ``--json`` the output is :meth:`JudgeComparison.to_dict
<bayesjudge.batches.versions.JudgeComparison.to_dict>`; ``--out DIR`` also writes a report
folder (:mod:`bayesjudge.batches.versions_report`). Exit codes: 0 done, 2 bad input, 3 too
few Monte-Carlo draws of the difference of pi were kept (the data do not support it).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bayesjudge.cli.common import (
    EXIT_DIAGNOSTICS,
    EXIT_OK,
    UserError,
    add_input_options,
    echo,
    emit_json,
    fmt,
    input_options,
    named_paths,
    positive_int,
    print_answer,
)
from bayesjudge.cli.options import add_prob_and_seed, add_report_options
from bayesjudge.reporting.output import escape_terminal

__all__ = ["register"]


def register(commands: Any) -> None:
    """Add the ``judges`` subcommand to the ``bayesjudge`` subparsers object ``commands``."""
    sub = commands.add_parser(
        "judges",
        help="compare two versions of a judge on the same items (flip rates, change in Se/Sp)",
        description="Compare two judges (an old and a new model or prompt) that graded the same "
        "items, as a paired design: per gold class the 2x2 table of verdicts, the flip rate and "
        "McNemar's exact test (McNemar 1947); the posterior of the change in Se, Sp and Youden's "
        "J from the Dirichlet posterior of each class's paired cells; each judge's corrected "
        "success rate on the unlabelled items (exact posterior, with Rogan and Gladen 1978 "
        "beside it) and the paired posterior of their difference; which judge to keep. OLD and "
        "NEW are tables (item, verdict[, label]) or eval logs; or give one DATA file with "
        "--old and --new naming two verdict columns or two scorers.",
    )
    sub.add_argument("old_data", metavar="OLD", help="the old judge's verdicts (or DATA)")
    sub.add_argument(
        "new_data",
        metavar="NEW",
        nargs="?",
        default=None,
        help="the new judge's verdicts; omit it when OLD holds both judges (--old, --new)",
    )
    sub.add_argument(
        "--old",
        metavar="NAME",
        default=None,
        help="the old judge: a verdict column of DATA, a scorer of a log, or the verdict "
        "column of OLD",
    )
    sub.add_argument(
        "--new",
        metavar="NAME",
        default=None,
        help="the new judge: a verdict column of DATA, a scorer of a log, or the verdict "
        "column of NEW",
    )
    sub.add_argument(
        "--prior",
        choices=["jeffreys", "uniform"],
        default="jeffreys",
        help="Dirichlet prior of each class's paired cells: every cell 1/2 (jeffreys, the "
        "default) or 1 (uniform)",
    )
    sub.add_argument(
        "--draws",
        type=lambda text: positive_int(text),
        default=40_000,
        metavar="N",
        help="Monte-Carlo draws of the Dirichlet posteriors (default %(default)s, at least 1000)",
    )
    add_prob_and_seed(sub)
    add_report_options(sub, run_judges)
    add_input_options(sub, threshold=False)


def run_judges(args: argparse.Namespace) -> int:
    """Run ``bayesjudge judges``; return the exit code."""
    from bayesjudge.batches.versions import compare_judges
    from bayesjudge.batches.versions_data import load_judge_versions

    options = input_options(args, source="old_data")
    if options.scorer is not None:
        raise UserError("--scorer: name the two judges with --old and --new instead")
    if args.draws < 1000:
        raise UserError(f"--draws must be at least 1000; got {args.draws}")
    if args.new_data is None and (args.old is None or args.new is None):
        raise UserError(
            "OLD holds both judges when NEW is not given: name them with --old and --new (two "
            "verdict columns of a table, or two scorers of a log)"
        )
    data = load_judge_versions(
        options.source or args.old_data,
        args.new_data,
        old_judge=args.old,
        new_judge=args.new,
        labels=options.labels,
        columns=options.columns,
        label_columns=options.label_columns,
        positive=options.positive,
        negative=options.negative,
        partial=options.partial,
        epochs=options.epochs,
        system=options.system,
        filter=options.filter,
        item_field=options.item_field,
        strict=options.strict,
        format=options.format,
    )
    result = compare_judges(
        data,
        prob=args.prob,
        prior=args.prior,
        draws=args.draws,
        random_seed=args.random_seed,
    )
    if args.out is not None:
        from bayesjudge.reporting.write import write_report

        source = args.old_data if args.new_data is None else f"{args.old_data} and {args.new_data}"
        write_report(args.out, result, source=source, inputs=named_paths(args, skip=["out"]))
    if args.json:
        emit_json(result.to_dict())
    else:
        _print(result)
        print_answer(result.summary(), report=args.out)
    if result.passed:
        return EXIT_OK
    for failure in result.failures():
        echo(f"bayesjudge: {failure}", file=sys.stderr)
    return EXIT_DIAGNOSTICS


def _interval(summary: Any) -> str:
    if summary is None:
        return f"[{fmt(None, 7)}, {fmt(None, 7)}]"
    return f"[{fmt(summary.eti.low, 7)}, {fmt(summary.eti.high, 7)}]"


def _print(result: Any) -> None:
    data = result.data
    old, new = (escape_terminal(n) for n in data.names)
    n_fail, n_pass = data.n_labelled
    echo(
        f"{escape_terminal(data.source)}: {data.n_items} paired items ({n_pass} gold-PASS, "
        f"{n_fail} gold-FAIL, {data.n_unlabelled} unlabelled); old judge {old}, new judge {new}"
    )
    note = data.unpaired_note()
    if note is not None:
        echo(escape_terminal(note))
    echo(
        f"{'items':<12} {'n':>6} {'P->F':>6} {'F->P':>6} {'flip rate':>9} "
        f"{'interval':>19} {'McNemar p':>10}"
    )
    for klass, c in result.classes.items():
        echo(
            f"{klass:<12} {c.n:>6} {c.pass_to_fail:>6} {c.fail_to_pass:>6} "
            f"{fmt(c.flip_rate.mean, 9)} {_interval(c.flip_rate)} {fmt(c.mcnemar_p, 10)}"
        )
    echo("(P->F: the old judge passed, the new one failed; F->P: the other way round)")
    echo(f"{'':<4} {'old':>8} {'new':>8} {'change':>8} {'interval':>19} {'P(change>0)':>12}")
    rows = [(name, getattr(result, name), result.change[name]) for name in ("se", "sp", "j")]
    if result.pi is not None:
        rows.append(("pi", result.pi, result.pi_change))
    for name, each, change in rows:
        echo(
            f"{name:<4} {fmt(each['old'].mean)} {fmt(each['new'].mean)} "
            f"{fmt(None if change.summary is None else change.summary.mean)} "
            f"{_interval(change.summary)} "
            f"{fmt(change.prob_positive, 12)}"
        )
    if result.rogan_gladen is not None:
        parts = []
        for who in ("old", "new"):
            e = result.rogan_gladen[who]
            band = "" if e.interval is None else f" [{e.interval.low:.4f}, {e.interval.high:.4f}]"
            value = "-" if e.estimate is None else f"{e.estimate:.4f}"
            parts.append(f"{who} {value}{band}")
        echo("Rogan-Gladen pi (each judge alone): " + "; ".join(parts))
        kept = result.pi_change.kept
        echo(
            "pi: each judge's exact posterior; change: paired posterior on the same items "
            f"({kept} of {result.draws} draws kept: both judges J > 0, both rates in [0, 1])"
        )
    else:
        echo("pi: not compared (no unlabelled paired items)")
    echo(f"keep: {escape_terminal(result.reason())}")
    echo(f"prior {result.prior} Dirichlet on the paired cells; seed {result.seed}")
