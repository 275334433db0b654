"""Names from the data are inert where they go out: CSV cells and terminal text.

:func:`~bayesjudge.reporting.output.inert_csv_cell` and
:func:`~bayesjudge.reporting.output.write_csv` (every report CSV goes through it) keep a
spreadsheet from reading a name as a formula; :func:`~bayesjudge.reporting.output.escape_terminal`
keeps escape sequences, control characters and bidirectional overrides off the terminal.
"""

from __future__ import annotations

import ast
import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.reporting.output import escape_terminal, inert_csv_cell, write_csv

REPO = Path(__file__).resolve().parents[2]

#: What a spreadsheet reads as the start of a formula (OWASP).
DANGEROUS_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
#: Names the issue's matrix of bad inputs used.
FORMULA_NAMES = ('=HYPERLINK("http://evil/?x","click")', "+1", "-2+3", "@SUM(A1)")
#: Characters a terminal may act on: ESC, other C0, DEL, C1 (CSI, NEL), bidi and separators.
UNPRINTABLE = (
    "\x1b",
    "\x00",
    "\x07",
    "\x08",
    "\t",
    "\n",
    "\r",
    "\x7f",
    "\x85",
    "\x9b",
    "\u200e",
    "\u202e",
    "\u2066",
    "\u2028",
)


def _rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as stream:
        return list(csv.reader(stream))


@pytest.mark.parametrize("prefix", DANGEROUS_PREFIXES)
def test_text_starting_a_formula_gets_a_quote(prefix: str) -> None:
    assert inert_csv_cell(prefix + "SUM(A1)") == "'" + prefix + "SUM(A1)"
    assert inert_csv_cell(prefix) == "'" + prefix


@pytest.mark.parametrize(
    "value", ["model a", "", "a=b", "'=1", " =1", "1-2", -2, -2.5, np.float64(-0.25), None, True]
)
def test_everything_else_is_returned_as_it_is(value: object) -> None:
    assert inert_csv_cell(value) is value


def test_missing_number_stays_missing() -> None:
    assert np.isnan(inert_csv_cell(float("nan")))  # type: ignore[arg-type]


def test_write_csv_quotes_names_and_keeps_numbers(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "system": [*FORMULA_NAMES, "plain"],
            "diff": [-0.25, -1.0, 0.5, -3.0, 0.0],
            "count": [-1, 2, 3, 4, 5],
            "passed": [True, False, True, True, False],
            "kind": pd.Categorical(["-a", "b", "-a", "b", "b"]),
            "=label": ["x", "y", "z", "w", "v"],
        }
    )
    before = frame.copy()
    path = write_csv(frame, tmp_path / "t.csv")
    pd.testing.assert_frame_equal(frame, before)  # the caller's frame is left alone
    header, *rows = _rows(path)
    assert header == ["system", "diff", "count", "passed", "kind", "'=label"]
    assert [row[0] for row in rows] == [*("'" + name for name in FORMULA_NAMES), "plain"]
    assert [row[1] for row in rows] == ["-0.25", "-1.0", "0.5", "-3.0", "0.0"]
    assert [row[2] for row in rows] == ["-1", "2", "3", "4", "5"]
    assert [row[4] for row in rows] == ["'-a", "b", "'-a", "b", "b"]
    back = pd.read_csv(path)
    assert back["diff"].dtype == float
    assert back["count"].dtype == np.int64


def test_write_csv_quotes_index_labels(tmp_path: Path) -> None:
    frame = pd.DataFrame({"pi": [0.5, 0.6]}, index=pd.Index(["@SUM(A1)", "b"], name="-system"))
    header, *rows = _rows(write_csv(frame, tmp_path / "t.csv", index=True))
    assert header == ["'-system", "pi"]
    assert rows == [["'@SUM(A1)", "0.5"], ["b", "0.6"]]
    pairs = pd.MultiIndex.from_tuples([("+1", "b"), ("a", "=2")], names=["a", "b"])
    header, *rows = _rows(write_csv(frame.set_index(pairs), tmp_path / "m.csv", index=True))
    assert rows == [["'+1", "b", "0.5"], ["a", "'=2", "0.6"]]


def test_write_csv_leaves_a_numeric_index_numeric(tmp_path: Path) -> None:
    frame = pd.DataFrame({"x": ["=1"]}, index=pd.Index([-3]))
    assert _rows(write_csv(frame, tmp_path / "t.csv", index=True)) == [["", "x"], ["-3", "'=1"]]


def test_every_csv_of_the_package_goes_through_write_csv() -> None:
    """A new report table written with ``DataFrame.to_csv`` would skip the quoting."""
    offenders = []
    for path in sorted((REPO / "bayesjudge").rglob("*.py")):
        if path == REPO / "bayesjudge" / "reporting" / "output.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "to_csv":
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []


def test_the_architecture_check_sees_a_to_csv_call() -> None:
    tree = ast.parse("frame.to_csv('x.csv')")
    assert any(isinstance(n, ast.Attribute) and n.attr == "to_csv" for n in ast.walk(tree))


@pytest.mark.parametrize("char", UNPRINTABLE)
def test_terminal_text_holds_no_unprintable_character(char: str) -> None:
    shown = escape_terminal(f"a{char}[31mb")
    assert shown.isprintable()
    assert shown == "a" + repr(char)[1:-1] + "[31mb"
    assert escape_terminal(shown) == shown  # applying it twice changes nothing more


def test_terminal_text_keeps_what_it_is_told_to_keep() -> None:
    assert escape_terminal("a\nb\x1b", keep="\n") == "a\nb\\x1b"
    assert escape_terminal("plain, ünïcode 名前 \\x1b") == "plain, ünïcode 名前 \\x1b"
    assert escape_terminal(3) == "3"
