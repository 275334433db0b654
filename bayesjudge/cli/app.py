"""The ``bayesjudge`` command line: one parser, each family's subcommands, one error policy.

Exit codes: 0 success; 2 bad input (the message on stderr names the argument, column or row),
a missing optional dependency (the message says how to install it) or an output that cannot be
written (a refused ``--out``, a full disk: the message names the path); 3 the posterior failed
its diagnostics (the failures are printed); 130 interrupted (Ctrl-C: one line, no traceback).
A user error never shows a traceback, and a closed output pipe (``bayesjudge estimate ... |
head``) ends quietly with exit 0.

Output options are checked, and their folders locked, before a command does any work
(:func:`bayesjudge.cli.common.claimed_outputs`). A fit shows nutpie's progress bar on a
terminal and, otherwise, a progress line with the time left every few seconds
(:func:`bayesjudge.inference.progress.progress_lines`); ``--no-progress`` hides both.
"""

from __future__ import annotations

import argparse
import os
import select
import sys
import warnings
from collections.abc import Callable, Sequence

from bayesjudge._interrupt import catching_ctrl_c, interrupted_exit
from bayesjudge.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    Parser,
    UserError,
    claimed_outputs,
    echo,
)
from bayesjudge.errors import DataError, FitWarning, MissingDependencyError

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``bayesjudge`` command."""
    from bayesjudge._version import __version__
    from bayesjudge.batches.cli import register as register_batches
    from bayesjudge.batches.versions_cli import register as register_judge_versions
    from bayesjudge.channels.cli import register as register_channels
    from bayesjudge.gates.cli import register as register_gates
    from bayesjudge.panels.cli import register as register_panels
    from bayesjudge.prevalence.cli import register as register_prevalence
    from bayesjudge.repeated.cli import register as register_repeated
    from bayesjudge.studies.cli import register as register_studies
    from bayesjudge.systems.cli import register as register_systems

    parser = Parser(
        prog="bayesjudge",
        description="Bayesian measurement of AI systems judged by imperfect LLM judges.",
    )
    parser.add_argument("--version", action="version", version=f"bayesjudge {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    register_prevalence(commands)
    register_gates(commands)
    register_channels(commands)
    register_panels(commands)
    register_studies(commands)
    register_systems(commands)
    register_repeated(commands)
    register_batches(commands)
    register_judge_versions(commands)
    commands.choices["report"].set_defaults(example_report=_example_report)
    return parser


#: The command (and its options) that reports on each bundled example but the judge one.
_EXAMPLE_COMMANDS: dict[str, tuple[str, ...]] = {
    "gate": ("gate",),
    "channel": ("channel", "--by-slice"),
    "systems": ("rank",),
    "panel": ("panel",),
    "repeated": ("repeated", "--item", "item", "--epoch", "epoch", "--cluster", "cluster"),
}


def _example_report(args: argparse.Namespace) -> int:
    """Run ``bayesjudge report --example NAME``: that family's command on its example.

    The report's folder, seed and interval mass carry over, and the sampler options the user
    set (the family's own defaults hold otherwise); the output folder was already claimed for
    the ``report`` command.
    """
    from bayesjudge.cli.options import SAMPLER_SETTINGS
    from bayesjudge.examples import example_file

    command, *extra = _EXAMPLE_COMMANDS[args.example]
    argv = [command, example_file(args.example), "--out", args.out, "--prob", str(args.prob)]
    argv += extra
    if args.random_seed is not None:
        argv += ["--random-seed", str(args.random_seed)]
    defaults = build_parser().parse_args(["report"])
    for option in SAMPLER_SETTINGS:
        value = getattr(args, option, None)
        # only what the user set: the family's own defaults hold otherwise
        if value is not None and value != getattr(defaults, option):
            argv += [f"--{option.replace('_', '-')}", str(value)]
    if args.no_progress:
        argv.append("--no-progress")
    family = build_parser().parse_args(argv)
    family.source_label = f"example:{args.example}"  # the title, instead of the file's path
    handler: Callable[[argparse.Namespace], int] = family.handler
    return handler(family)


def _show_warnings(command: str, caught: list[warnings.WarningMessage]) -> None:
    seen: set[str] = set()
    for item in caught:
        if issubclass(item.category, FitWarning) or not issubclass(item.category, UserWarning):
            continue
        text = str(item.message)
        if text not in seen:
            seen.add(text)
            echo(f"bayesjudge {command}: warning: {text}", file=sys.stderr)


def _stdout_closed() -> bool:
    """Tell whether standard output is a pipe whose reader went away (``... | head``)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), 0)  # POLLERR is always reported
        return any(mask & select.POLLERR for _, mask in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll (Windows) or no real stdout
        return True


def _quiet_broken_pipe() -> int:
    """Point stdout at /dev/null after its reader went away, so exit does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return EXIT_OK


def _os_error(exc: OSError) -> str:
    """One line for an operating-system error: the path, then the reason."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is None:
        return reason
    return f"{os.fsdecode(exc.filename)}: {reason}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    args: argparse.Namespace | None = None
    try:
        from bayesjudge.inference.progress import progress_lines
        from bayesjudge.inference.provenance import recording_command

        args = build_parser().parse_args(arguments)
        handler: Callable[[argparse.Namespace], int] = args.handler
        with (
            catching_ctrl_c(),
            claimed_outputs(args),
            recording_command(["bayesjudge", *arguments]),
            # off a terminal, a fit reports its progress as a line every few seconds
            progress_lines(sys.stderr),
            warnings.catch_warnings(record=True) as caught,
        ):
            # a failed fit is reported by the command itself (exit 3 and the failed checks);
            # other warnings are shown once each, as one line, after the command's output
            warnings.simplefilter("always")
            code = handler(args)
        sys.stdout.flush()  # a closed pipe is noticed here, not at exit
        _show_warnings(args.command, caught)
        return code
    except (DataError, UserError, MissingDependencyError) as exc:
        return _error(args, str(exc))
    except KeyboardInterrupt:
        return interrupted_exit()
    except OSError as exc:
        if isinstance(exc, BrokenPipeError) and _stdout_closed():
            return _quiet_broken_pipe()
        return _error(args, _os_error(exc))


def _error(args: argparse.Namespace | None, message: str) -> int:
    command = getattr(args, "command", None)
    prefix = f"bayesjudge {command}" if command else "bayesjudge"
    echo(f"{prefix}: error: {message}", file=sys.stderr)  # a message may quote the data
    return EXIT_BAD_INPUT


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
