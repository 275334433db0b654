"""Command-line plumbing shared by every family's commands: argument types, options, output.

A family's command module (e.g. :mod:`bayesjudge.prevalence.cli`) registers its subcommand
with :func:`add_fit_options` and friends, calls one analysis function, and prints what it
returns with :func:`emit_json` or the table helpers here. Exit codes: 0 success, 2 bad input
(one message naming the argument, column or row, never a traceback), 3 a posterior that failed
its diagnostics, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from bayesjudge.validation import DEFAULT_SEED

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_DIAGNOSTICS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "Parser",
    "UserError",
    "add_fit_options",
    "add_seed_option",
    "clean",
    "emit_json",
    "fmt",
    "positive_int",
    "probability",
    "report_failures",
    "seed",
    "unit",
]

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_DIAGNOSTICS = 3
EXIT_INTERRUPTED = 130


class UserError(Exception):
    """An error in what the user asked for, reported in one line with exit code 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors exit with code 2 and one line of explanation."""

    def error(self, message: str) -> NoReturn:
        """Print the usage and the error, then exit with code 2."""
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


# --------------------------------------------------------------------------- argument types
def _parsed(text: str, cast: Callable[[str], Any], valid: Callable[[Any], bool], what: str) -> Any:
    """Return ``cast(text)`` when it is ``valid``, else raise argparse's error naming ``what``."""
    try:
        value = cast(text)
    except ValueError:
        value = None
    if value is None or not valid(value):
        raise argparse.ArgumentTypeError(f"must be {what}; got {text!r}")
    return value


def probability(text: str) -> float:
    """Argument type: a number in (0, 1)."""
    return float(_parsed(text, float, lambda v: 0.0 < v < 1.0, "a number in (0, 1)"))


def unit(text: str) -> float:
    """Argument type: a number in [0, 1]."""
    return float(_parsed(text, float, lambda v: 0.0 <= v <= 1.0, "a number in [0, 1]"))


def positive_int(text: str, *, maximum: int | None = None) -> int:
    """Argument type: a whole number >= 1 (and <= ``maximum``)."""
    what = "a positive whole number" + (f" up to {maximum:,}" if maximum else "")
    return int(_parsed(text, int, lambda v: v >= 1 and (maximum is None or v <= maximum), what))


def bounded_int(minimum: int, maximum: int) -> Callable[[str], int]:
    """Return an argument type for a whole number in ``[minimum, maximum]``."""

    def parse(text: str) -> int:
        return int(
            _parsed(
                text,
                int,
                lambda v: minimum <= v <= maximum,
                f"a whole number from {minimum} to {maximum:,}",
            )
        )

    return parse


def seed(text: str) -> int:
    """Argument type: a non-negative integer seed."""
    return int(_parsed(text, int, lambda v: 0 <= v < 2**63, "a non-negative integer"))


# --------------------------------------------------------------------------- shared options
def add_seed_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--random-seed`` (default: the documented default seed)."""
    parser.add_argument(
        "--random-seed",
        type=seed,
        default=DEFAULT_SEED,
        metavar="N",
        help=f"seed of every random draw (default {DEFAULT_SEED}: results are reproducible)",
    )


def add_fit_options(
    parser: argparse.ArgumentParser,
    *,
    draws: int = 2000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: str = "0.95",
    priors: str,
) -> None:
    """Add the sampler options every fitting command has, and ``--prior``.

    Parameters
    ----------
    parser : ArgumentParser
        The subcommand's parser.
    draws, tune, chains : int
        The defaults shown in the help.
    target_accept : str
        The default target acceptance as shown in the help (None -> the model's default).
    priors : str
        The names of the model's priors and their defaults, for the help of ``--prior``.
    """
    from bayesjudge.inference.fit import MAX_CHAINS, MAX_DRAWS

    parser.add_argument(
        "--draws",
        type=bounded_int(1, MAX_DRAWS),
        default=draws,
        metavar="N",
        help=f"posterior draws per chain (default {draws})",
    )
    parser.add_argument(
        "--tune",
        type=bounded_int(0, MAX_DRAWS),
        default=tune,
        metavar="N",
        help=f"tuning steps per chain (default {tune})",
    )
    parser.add_argument(
        "--chains",
        type=bounded_int(1, MAX_CHAINS),
        default=chains,
        metavar="N",
        help=f"chains (default {chains})",
    )
    parser.add_argument(
        "--target-accept",
        type=probability,
        default=None,
        metavar="P",
        help=f"NUTS target acceptance in (0, 1) (default {target_accept}); a fit that fails "
        "its diagnostics is retried once with a higher one",
    )
    parser.add_argument(
        "--prior",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help=f"replace a prior, e.g. pi=beta:1,1 (repeatable; SPEC is beta:A,B, normal:MU,SIGMA, "
        f"jeffreys or uniform). Priors: {priors}",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


# --------------------------------------------------------------------------- output helpers
def clean(value: Any) -> Any:
    """Make a value JSON-safe: NaN/inf -> None, numpy scalars -> Python scalars, tuples -> lists."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def emit_json(payload: dict[str, Any]) -> None:
    """Print one JSON object (strict: no NaN) on stdout."""
    sys.stdout.write(json.dumps(clean(payload), indent=2, allow_nan=False) + "\n")


def fmt(value: float | None, width: int = 8, digits: int = 4) -> str:
    """Format a number right-aligned, or ``-`` when missing."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return f"{'-':>{width}}"
    return f"{value:>{width}.{digits}f}"


def estimates_table(estimates: Sequence[Any], prob: float) -> str:
    """Return estimates as an aligned text table: method, estimate, interval, note."""
    width = max([len("method"), *(len(e.method) for e in estimates)])
    lines = [f"{'method':<{width}} {'estimate':>9} {'low':>8} {'high':>8}  note"]
    for est in estimates:
        row = est.to_row()
        lines.append(
            f"{row['method']:<{width}} {fmt(row['estimate'], 9)} {fmt(row['low'])} "
            f"{fmt(row['high'])}  {row['note'] or ''}".rstrip()
        )
    lines.append(f"(intervals of mass {prob:g})")
    return "\n".join(lines)


def report_failures(passed: bool, failures: Sequence[str]) -> int:
    """Print the failed diagnostic checks to stderr and return the exit code they imply."""
    if passed:
        return EXIT_OK
    print("bayesjudge: the posterior FAILED its diagnostics:", file=sys.stderr)
    for failure in failures:
        print(f"  - {failure}", file=sys.stderr)
    print(
        "  (the fit was retried once with smaller steps and longer runs; try "
        "--target-accept 0.995 --tune 5000 --draws 5000, or check the data and priors)",
        file=sys.stderr,
    )
    return EXIT_DIAGNOSTICS
