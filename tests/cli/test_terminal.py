"""What the command line prints is inert on a terminal: no raw escape sequence from the data."""

from __future__ import annotations

import argparse
import warnings

import pytest

from bayesjudge.cli import app
from bayesjudge.cli.common import EXIT_BAD_INPUT, echo


@pytest.mark.parametrize("char", ["\x1b", "\x07", "\x9b", "\u202e", "\r", "\t", "\x00"])
def test_echo_escapes_what_a_terminal_acts_on_and_keeps_line_breaks(capsys, char: str) -> None:
    echo(f"system {char}x\nsecond line")
    out = capsys.readouterr().out
    assert char not in out
    assert out == f"system {repr(char)[1:-1]}x\nsecond line\n"


def test_errors_quoting_the_data_are_escaped(capsys) -> None:
    args = argparse.Namespace(command="rank")
    code = app._error(args, "column 'system': row 2 holds \x1b]0;owned\x07\nsecond line")
    err = capsys.readouterr().err
    assert code == EXIT_BAD_INPUT
    assert err == (
        "bayesjudge rank: error: column 'system': row 2 holds \\x1b]0;owned\\x07\nsecond line\n"
    )


def test_warnings_quoting_the_data_are_escaped(capsys) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("slice \x1b[2Jgone has few items", UserWarning, stacklevel=1)
    app._show_warnings("channel", caught)
    err = capsys.readouterr().err
    assert err == "bayesjudge channel: warning: slice \\x1b[2Jgone has few items\n"
