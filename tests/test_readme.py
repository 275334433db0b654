"""The README's examples run as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from bayesjudge.cli.app import build_parser

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.DOTALL)


def test_readme_opens_with_exactly_two_commands():
    first = _blocks("bash")[0]
    commands = [line.split("#")[0].strip() for line in first.splitlines() if line.strip()]
    assert commands == ["make example", "make test"]
    assert README.index(first) < README.index("An LLM judge")


def test_python_example_runs(capsys):
    (source,) = _blocks("python")
    exec(compile(source, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "JudgeCounts(m1=150" in out
    assert "rogan_gladen_delta" in out


@pytest.mark.parametrize(
    "line",
    [
        line.split("#")[0].strip()
        for block in _blocks("bash")[2:]
        for line in block.splitlines()
        if line.startswith("bayesjudge ")
    ],
)
def test_command_line_examples_parse(line):
    # Every documented command line is accepted by the parser (running them is test_cli's job).
    build_parser().parse_args(shlex.split(line)[1:])
