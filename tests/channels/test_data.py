"""PairedOutcomes read through the input layer: formats, stage mapping, text ids, all problems."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from bayesjudge.channels.data import PairedOutcomes
from bayesjudge.errors import DataError


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_ids_007_and_7_are_two_items(tmp_path: Path) -> None:
    path = write(tmp_path / "o.csv", "item,e0,e1\n007,0,1\n7,1,1\n")
    outcomes = PairedOutcomes.from_frame(path)
    assert outcomes.items.tolist() == ["007", "7"]
    assert outcomes.outcomes.tolist() == [[0, 1], [1, 1]]


def test_a_repeated_item_is_named_by_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "o.csv", "item,e0,e1\n007,0,1\n\n7,1,1\n007,1,0\n")
    with pytest.raises(DataError, match=re.escape("each item once: line 5 repeats '007'")):
        PairedOutcomes.from_frame(path)


def test_stages_mapped_from_other_names(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"id": ["a", "b"], "draft_ok": ["correct", "incorrect"], "revised_ok": ["yes", "no"]}
    )
    path = tmp_path / "o.parquet"
    frame.to_parquet(path, index=False)
    outcomes = PairedOutcomes.from_frame(
        path, columns={"item": "id", "e0": "draft_ok", "e1": "revised_ok"}
    )
    assert outcomes.stages == ("e0", "e1")
    assert outcomes.outcomes.tolist() == [[1, 1], [0, 0]]
    assert outcomes.origin is not None
    assert outcomes.origin.format == "parquet"


def test_every_problem_at_once(tmp_path: Path) -> None:
    path = write(tmp_path / "o.csv", "item,e0,e1,slice\na,0,maybe,s\n,1,1,t\nc,2,0,\n")
    with pytest.raises(DataError) as info:
        PairedOutcomes.from_frame(path)
    message = str(info.value)
    assert message.startswith(f"{path}: 4 problems:")
    for part in (
        "column 'item' must not be blank: line 3",
        "column 'e0' must hold PASS/FAIL values",
        "line 4 has '2'",
        "column 'e1' must hold PASS/FAIL values",
        "line 2 has 'maybe'",
        "column 'slice' must not be blank: line 4",
    ):
        assert part in message


def test_stage_gap_names_the_mapping(tmp_path: Path) -> None:
    path = write(tmp_path / "o.csv", "item,before,after\na,0,1\n")
    with pytest.raises(DataError, match=r"consecutive stage columns .*--map e0=COLUMN"):
        PairedOutcomes.from_frame(path)
    with pytest.raises(ValueError, match=r"format must be 'auto' or one of"):
        PairedOutcomes.from_frame(path, format="lm_eval")
