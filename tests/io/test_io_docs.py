"""The 'bring your own data' page runs as a doctest, on the files it shows."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "bring-your-own-data.md"
CSV_BLOCK = re.compile(r"```\{code-block\} text\n:caption: (\S+\.csv)\n\n(.*?)```", re.DOTALL)


def test_bring_your_own_data_page_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = PAGE.read_text(encoding="utf-8")
    names = []
    for name, content in CSV_BLOCK.findall(text):
        (tmp_path / name).write_text(content, encoding="utf-8")
        names.append(name)
    assert names == ["export.csv", "bad.csv", "results.csv", "gold.csv"]
    monkeypatch.chdir(tmp_path)
    result = doctest.testfile(
        str(PAGE),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        verbose=False,
    )
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} example(s) failed in {PAGE.name}"
