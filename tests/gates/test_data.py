"""Rulings and LoopLog read through the input layer: formats, mapping, labels, eval logs."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.errors import DataError
from bayesjudge.gates.checks import independence_check_table
from bayesjudge.gates.data import LoopLog, Rulings
from bayesjudge.io.logs import EvalLog
from bayesjudge.io.logs._evallog import NAN, Ruling


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_rulings_with_their_own_names_and_spellings(tmp_path: Path) -> None:
    path = write(
        tmp_path / "r.tsv",
        "sample_id\tgrade\tgold\n007\tgood\tcorrect\n007\tbad\tcorrect\n7\tbad\t\n",
    )
    rulings = Rulings.from_frame(
        path,
        columns={"item": "sample_id", "verdict": "grade", "label": "gold"},
        positive=["good"],
        negative=["bad"],
    )
    assert rulings.items.tolist() == ["007", "7"]  # ids are text: two items
    assert rulings.r.tolist() == [2, 1]
    assert rulings.k.tolist() == [1, 0]
    np.testing.assert_array_equal(rulings.label, [1.0, np.nan])
    assert rulings.origin is not None
    assert rulings.origin.format == "tsv"


def test_text_in_the_ruling_column_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "r.csv", "item,ruling,verdict\na,1,1\na,two,0\n\nb,1,x\n")
    with pytest.raises(DataError) as info:
        Rulings.from_frame(path)
    message = str(info.value)
    assert "column 'ruling' must hold whole numbers >= 0: line 3 has 'two'" in message
    assert "column 'verdict' must hold PASS/FAIL values" in message
    assert "line 5 has 'x'" in message  # the blank line 4 is counted


def test_ruling_numbers_order_as_numbers(tmp_path: Path) -> None:
    path = write(tmp_path / "r.csv", "item,ruling,verdict\na,10,1\na,2,0\na,1,0\n")
    rulings = Rulings.from_frame(path)
    assert rulings.sequence is not None
    assert rulings.sequence[1].tolist() == [0.0, 0.0, 1.0]  # 1, 2, 10: not "1" < "10" < "2"


def test_repeated_rulings_are_named_by_line(tmp_path: Path) -> None:
    path = write(tmp_path / "r.csv", "item,ruling,verdict\n007,1,1\n7,1,0\n007,1,0\n")
    with pytest.raises(DataError, match=re.escape("line 4 repeats ('007', 1)")):
        Rulings.from_frame(path)


def test_labels_joined_onto_every_ruling(tmp_path: Path) -> None:
    path = write(tmp_path / "r.csv", "item,verdict\na,1\na,0\nb,0\nc,1\n")
    gold = write(tmp_path / "g.csv", "id,label\na,yes\nb,no\n")
    rulings = Rulings.from_frame(path, labels=gold, label_columns={"item": "id"})
    np.testing.assert_array_equal(rulings.label, [1.0, 0.0, np.nan])
    assert rulings.origin is not None
    assert rulings.origin.join is not None
    assert rulings.origin.join.labelled == 3  # rulings carrying a label


def _log() -> EvalLog:
    rows = [
        Ruling("007", 1, "m", "grade", 1.0, 1.0, "C", "ok"),
        Ruling("007", 2, "m", "grade", 0.0, 0.0, "I", "ok"),
        Ruling("7", 1, "m", "grade", 0.0, 0.0, "I", "ok"),
        Ruling("7", 2, "m", "grade", NAN, NAN, "boom", "error"),
        Ruling("x", 1, "m", "grade", 1.0, 1.0, "C", "ok"),
    ]
    return EvalLog.from_rulings(rows, path="run.eval", tool="inspect")


def test_a_log_gives_its_epochs_as_rulings() -> None:
    gold = pd.DataFrame({"item": ["007", "7"], "label": [1, 0]})
    rulings = Rulings.from_frame(_log(), labels=gold)
    assert rulings.items.tolist() == ["007", "7", "x"]
    assert rulings.r.tolist() == [2, 1, 1]
    assert rulings.k.tolist() == [1, 0, 1]
    assert rulings.origin is not None
    assert rulings.origin.without_verdict == 1
    with pytest.raises(DataError, match=r"an eval log holds no gold labels"):
        Rulings.from_frame(_log())


def test_independence_check_reads_any_table(tmp_path: Path) -> None:
    path = write(
        tmp_path / "r.jsonl",
        "".join(
            f'{{"item": "a", "ruling": {r}, "verdict": {v}}}\n'
            for r, v in [(4, 1), (3, 1), (2, 0), (1, 0)]
        ),
    )
    assert independence_check_table(path, random_seed=0).observed == pytest.approx(2 / 3)


def test_loop_log_mapping_and_problems(tmp_path: Path) -> None:
    path = write(
        tmp_path / "loop.csv",
        "id,try,judge,gold\nq1,1,no,incorrect\nq1,2,yes,correct\nq2,1,yes,incorrect\n",
    )
    columns = {"item": "id", "attempt": "try", "verdict": "judge", "correct": "gold"}
    log = LoopLog.from_frame(path, columns=columns)
    assert log.item.tolist() == ["q1", "q1", "q2"]
    assert log.verdict.tolist() == [0.0, 1.0, 1.0]
    bad = write(tmp_path / "bad.csv", "item,attempt,verdict,correct\nq1,0,1,1\nq1,1,1,maybe\n")
    with pytest.raises(DataError) as info:
        LoopLog.from_frame(bad)
    assert "column 'attempt' must hold whole numbers >= 1: line 2 has '0'" in str(info.value)
    assert "column 'correct' must hold PASS/FAIL values" in str(info.value)
    with pytest.raises(ValueError, match=r"format must be 'auto' or one of"):
        LoopLog.from_frame(path, format="inspect")
