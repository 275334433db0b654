"""The bad-input matrix of issue 31, kept: every command that reads data, on hostile files.

Each hostile file is generated here. Every case ends the same way: exit code 2, one line on
standard error starting ``bayesjudge COMMAND: error:`` (or that line counting a file's
problems, then one line each), nothing on standard output, no traceback, no raw control
character, and nothing written in the working folder. No case reaches a fit, so the matrix
runs in seconds.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT

# an "Exception ignored" report (a library's callback failing) is a traceback the user sees
pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")

JUDGE = "label,verdict\n1,1\n0,0\n,1\n,0\n"
RULINGS = "item,label,ruling\na,1,1\na,1,0\nb,0,0\nc,,1\n"
OUTCOMES = "item,step,before,after\na,1,0,1\nb,1,1,1\n"
ANSWERS = "item,system,label,verdict\n1,A,1,1\n1,B,1,0\n2,A,,1\n2,B,,0\n"
PANEL = "item,judge,label,verdict\n1,a,1,1\n1,b,1,0\n2,a,,1\n2,b,,0\n"

# command -> (argv before DATA, argv after DATA, a valid table of its shape)
COMMANDS: dict[str, tuple[list[str], list[str], str]] = {
    "baselines": (["baselines"], [], JUDGE),
    "estimate": (["estimate"], [], JUDGE),
    "plan": (["plan"], ["--target-width", "0.1"], JUDGE),
    "report": (["report"], ["--out", "{out}"], JUDGE),
    "gate": (["gate"], [], RULINGS),
    "channel": (["channel"], [], OUTCOMES),
    "rank": (["rank"], [], ANSWERS),
    "panel": (["panel"], [], PANEL),
}


def _bytes(content: bytes) -> Callable[[Path, str], Path]:
    def make(folder: Path, valid: str) -> Path:
        path = folder / "data.csv"
        path.write_bytes(content)
        return path

    return make


def _header_of(valid: str) -> bytes:
    return valid.splitlines()[0].encode() + b"\n"


def _header_only(folder: Path, valid: str) -> Path:
    path = folder / "data.csv"
    path.write_bytes(_header_of(valid))
    return path


def _unknown_columns(folder: Path, valid: str) -> Path:
    path = folder / "data.csv"
    path.write_text("alpha,beta\n1,2\n", encoding="utf-8")
    return path


def _escape_in_header(folder: Path, valid: str) -> Path:
    path = folder / "data.csv"
    path.write_text("\x1b[31mcolumn,\x07other\n1,2\n", encoding="utf-8")
    return path


def _truncated_json(folder: Path, valid: str) -> Path:
    path = folder / "data.jsonl"
    path.write_text('{"label": 1, "verdict": ', encoding="utf-8")
    return path


def _latin1(folder: Path, valid: str) -> Path:
    path = folder / "data.csv"
    path.write_bytes(_header_of(valid) + "caf\xe9,\xff\n".encode("latin-1"))
    return path


def _missing(folder: Path, valid: str) -> Path:
    return folder / "no-such-file.csv"


def _directory(folder: Path, valid: str) -> Path:
    path = folder / "data.csv"
    path.mkdir()
    return path


def _unreadable_values(folder: Path, valid: str) -> Path:
    # the right columns, every value nonsense
    header = valid.splitlines()[0]
    path = folder / "data.csv"
    path.write_text(f"{header}\n" + ",".join(["<x>"] * header.count(",")) + ",<x>\n")
    return path


INPUTS: dict[str, Callable[[Path, str], Path]] = {
    "empty": _bytes(b""),
    "blank-lines": _bytes(b"\n\n\n"),
    "binary": _bytes(bytes(range(256)) * 4),
    "nul-bytes": _bytes(b"label,verdict\n1,\x00\x00\n"),
    "header-only": _header_only,
    "unknown-columns": _unknown_columns,
    "escape-in-header": _escape_in_header,
    "truncated-json": _truncated_json,
    "latin-1": _latin1,
    "missing": _missing,
    "directory": _directory,
    "nonsense-values": _unreadable_values,
}


@pytest.mark.parametrize("case", sorted(INPUTS))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_hostile_file_ends_in_one_line_and_exit_2(
    command: str,
    case: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    inputs, work = tmp_path / "inputs", tmp_path / "work"
    inputs.mkdir()
    work.mkdir()
    monkeypatch.chdir(work)
    before, after, valid = COMMANDS[command]
    data = INPUTS[case](inputs, valid)
    argv = [*before, str(data), *(part.format(out=tmp_path / "out") for part in after)]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == EXIT_BAD_INPUT, (out, err)
    assert out == ""
    first, *more = err.splitlines()
    assert first.startswith(f"bayesjudge {command}: error: "), err
    if more:  # several problems of one file: counted on the first line, one a line
        listed = re.search(r": (\d+) problems:$", first)
        assert listed is not None, err
        assert len(more) == int(listed.group(1)), err
    assert "Traceback" not in err
    assert not any(ord(c) < 32 and c != "\n" for c in err), repr(err)
    assert os.listdir(work) == []
    assert not (tmp_path / "out").exists()
