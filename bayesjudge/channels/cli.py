"""The ``bayesjudge channel`` subcommand: correction, corruption, gating and composition.

``bayesjudge channel OUTCOMES [--prob 0.95] [--random-seed N] [--by-slice]
[--mixture SLICE=W ...] [--threshold T] [--json] [--out DIR]``

The table has columns ``item``, ``e0``, ``e1`` [, ``e2``, ...] [, ``slice``] (any table format,
or ``-`` for standard input; columns mapped with ``--map``, spellings added with ``--positive``
and ``--negative``). Wire it into the main parser with :func:`register`.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from bayesjudge.cli.common import (
    UserError,
    add_input_options,
    echo,
    input_options,
    print_answer,
    report_failures,
)
from bayesjudge.cli.options import (
    ModelDefault,
    SamplerOptions,
    add_prob_and_seed,
    add_report_options,
    add_sampler_options,
    emit_outputs,
)
from bayesjudge.inference import defaults
from bayesjudge.reporting.output import escape_terminal

__all__ = ["parse_mixture", "register"]


def _weight_pair(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"must look like SLICE=WEIGHT; got {text!r}")
    try:
        weight = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"the weight of {name.strip()!r} must be a number; got {value!r}"
        ) from None
    if not math.isfinite(weight) or weight < 0:
        raise argparse.ArgumentTypeError(
            f"the weight of {name.strip()!r} must be a non-negative number; got {value!r}"
        )
    return name.strip(), weight


def parse_mixture(pairs: list[tuple[str, float]] | None) -> dict[str, float] | None:
    """Turn ``[("1", 0.2), ("5", 0.8)]`` into a normalised ``{"1": 0.2, "5": 0.8}``.

    Raises
    ------
    argparse.ArgumentTypeError
        If a slice is named twice or every weight is zero.

    Examples
    --------
    >>> parse_mixture([("a", 1.0), ("b", 3.0)])
    {'a': 0.25, 'b': 0.75}
    """
    if not pairs:
        return None
    names = [name for name, _ in pairs]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(f"--mixture names slice(s) {repeated} more than once")
    total = sum(w for _, w in pairs)
    if total <= 0:
        raise argparse.ArgumentTypeError("--mixture weights must not all be zero")
    return {name: w / total for name, w in pairs}


def _threshold(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number in [-1, 1]; got {text!r}") from None
    if not -1.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number in [-1, 1]; got {text!r}")
    return value


def _print_table(analysis: Any, source: str) -> None:
    echo(f"{source}: {analysis.steps[0].n} items, stages {', '.join(analysis.stages)}")
    echo(
        f"{'step':<10} {'p0':>6} {'p1':>6} {'c':>7} {'gamma':>7} {'gain':>8} "
        f"{'gain interval':>19}  gate"
    )
    for s in analysis.steps:
        echo(
            f"{s.source + '->' + s.target:<10} {s.p0:>6.3f} {s.p1:>6.3f} {s.c_jeffreys:>7.4f} "
            f"{s.gamma_jeffreys:>7.4f} {s.gain.mean:>8.4f} "
            f"[{s.gain.eti.low:>7.4f}, {s.gain.eti.high:>7.4f}]  {'ON' if s.gate_on else 'OFF'}"
        )
    composition = analysis.composition
    if composition is not None:
        echo(
            f"composition gap: largest entry difference {composition.gap_max.mean:.4f}, "
            f"half the summed differences {composition.gap_mean.mean:.4f}; Markov check tail "
            f"probability {composition.markov.tail_probability:.3f} ({composition.markov.words})"
        )
    slices = analysis.slices
    if slices is not None and slices.by_slice:
        echo(f"{'slice':<10} {'n':>6} {'p0':>6} {'c':>7} {'gamma':>7} {'gain':>8}  gate")
        for s in slices.by_slice:
            echo(
                f"{escape_terminal(s.slice):<10} {s.n:>6d} {s.p0:>6.3f} {s.c.mean:>7.4f} "
                f"{s.gamma.mean:>7.4f} "
                f"{s.gain.mean:>8.4f}  {'ON' if s.gate_on else 'OFF'}"
            )
    if slices is not None and slices.mixture is not None:
        m = slices.mixture
        h = m["hierarchical"]
        echo(
            f"mixture prediction of p1: pooled {m['pooled']:.4f}, slice-conditioned "
            f"{m['sliced']:.4f}, hierarchical {h['mean']:.4f} [{h['low']:.4f}, {h['high']:.4f}]"
        )
    verdict = "passed" if analysis.passed else "FAILED"
    echo(f"diagnostics: {verdict} ({analysis.method})")
    echo(f"(intervals of mass {analysis.prob:g})")


def _cmd_channel(args: argparse.Namespace) -> int:
    from bayesjudge.channels.analysis import analyze_channel
    from bayesjudge.channels.data import PairedOutcomes
    from bayesjudge.priors import ChannelPriors

    try:
        mixture = parse_mixture(args.mixture)
    except argparse.ArgumentTypeError as exc:
        raise UserError(str(exc)) from exc
    sampler = SamplerOptions.from_args(args, quiet=args.json)
    priors = sampler.priors_of(ChannelPriors)
    options = input_options(args, source="outcomes")
    data = PairedOutcomes.from_frame(
        options.source,  # type: ignore[arg-type]
        **options.reading(),
    )
    analysis = analyze_channel(
        data,
        priors=priors,
        prob=args.prob,
        threshold=args.threshold,
        by_slice=args.by_slice,
        mixture=mixture,
        **sampler.fit_kwargs(),
    )
    from bayesjudge.reporting.write import write_report

    source = getattr(args, "source_label", None) or args.outcomes
    if not emit_outputs(args, analysis, write_report, source=source, origin=data.origin):
        if data.origin is not None:
            for line in data.origin.lines():
                echo(line)
        _print_table(analysis, args.outcomes)
        echo(f"seed {args.random_seed}")
        from bayesjudge.channels.report import channel_summary

        print_answer(channel_summary(analysis), report=args.out)
    return report_failures(analysis.passed, [c.describe() for c in analysis.diagnostics.failures])


def register(commands: Any) -> None:
    """Add the ``channel`` subcommand to the ``bayesjudge`` subparsers object ``commands``."""
    sub = commands.add_parser(
        "channel",
        help="correction and corruption rates of protocol steps, gating and composition",
        description="Paired correctness outcomes (columns item, e0, e1[, e2, ...][, slice]) -> "
        "Jeffreys correction/corruption rates with exact posteriors, the predicted gain and "
        "the gate of each step, the composition gap and Markov check of a stack, and (with a "
        "slice column) the slice hierarchy and mixture-shift prediction (Correction and "
        "Corruption: A Two-Rate View of Error Flow in LLM Protocols, 2025).",
    )
    sub.add_argument(
        "outcomes",
        metavar="OUTCOMES",
        help="paired outcomes table: a file or - (stdin); columns item, e0, e1[, ...][, slice], "
        "mapped with --map (e.g. --map e0=draft_ok)",
    )
    add_prob_and_seed(sub)
    sub.add_argument(
        "--by-slice", action="store_true", help="fit the slice hierarchy (needs a slice column)"
    )
    sub.add_argument(
        "--mixture",
        nargs="+",
        type=_weight_pair,
        metavar="SLICE=W",
        default=None,
        help="target slice mixture for the mixture-shift prediction, e.g. 1=0.1 5=0.9",
    )
    sub.add_argument(
        "--threshold",
        type=_threshold,
        default=0.0,
        help="gate a step on when its predicted gain exceeds this cost (default 0)",
    )
    add_sampler_options(
        sub,
        target_accept=defaults.CHANNEL_TARGET_ACCEPT,
        priors="rate (beta; default jeffreys)",
        draws=ModelDefault(defaults.CHANNEL_DRAWS),
        auto_draws=False,  # draws * chains exact draws too
    )
    add_input_options(sub, logs=False, labels=False, threshold=False, epochs=False)
    add_report_options(sub, _cmd_channel)
