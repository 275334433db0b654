"""The repeated-samples data contract: counts per item, and errors that name column and row."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from bayesjudge.errors import DataError
from bayesjudge.io.logs._evallog import EvalLog, Ruling
from bayesjudge.repeated.data import RepeatedData


def test_counts_per_item_from_a_file() -> None:
    text = (
        b"id,epoch,judge,gold,task\n"
        b"q1,1,PASS,,t1\nq1,2,FAIL,,t1\nq1,3,PASS,PASS,t1\n"
        b"q2,1,FAIL,FAIL,t1\nq2,2,PASS,FAIL,t1\n"
        b"q3,1,PASS,,t2\n"
    )
    data = RepeatedData.from_frame(
        io.BytesIO(text),
        columns={"item": "id", "verdict": "judge", "label": "gold", "cluster": "task"},
    )
    assert data.items == ("q1", "q2", "q3")
    assert data.n.tolist() == [2, 0, 1]
    assert data.k.tolist() == [1, 0, 1]
    assert data.m1.tolist() == [1, 0, 0]
    assert data.x1.tolist() == [1, 0, 0]
    assert data.m0.tolist() == [0, 2, 0]
    assert data.x0.tolist() == [0, 1, 0]
    assert data.answers_per_item.tolist() == [3, 2, 1]
    assert data.clusters == ("t1", "t2")
    assert data.cluster_index.tolist() == [0, 0, 1]
    assert data.answer_epoch.tolist() == [1, 2, 3, 1, 2, 1]
    described = data.describe()
    assert described["items"] == 3
    assert described["answers"] == 6
    assert described["clusters"] == 2
    assert described["labelled_items"] == 2


def test_cluster_not_constant_within_an_item_names_the_line() -> None:
    text = b"item,verdict,cluster\na,1,x\na,0,y\n"
    with pytest.raises(DataError, match=r"column 'cluster' must be the same.*line 3 \(item 'a'"):
        RepeatedData.from_frame(io.BytesIO(text))


def test_gold_per_item_must_agree_within_the_item() -> None:
    frame = pd.DataFrame({"item": ["a", "a", "b"], "verdict": [1, 1, 0], "label": [1, 0, 0]})
    assert RepeatedData.from_frame(frame).m1.tolist() == [1, 0]  # per answer: fine
    with pytest.raises(DataError, match=r"'label' must be the same.*item 'a'"):
        RepeatedData.from_frame(frame, gold_per="item")


def test_repeated_epoch_is_an_error() -> None:
    text = b"item,verdict,epoch\na,1,1\na,0,1\n"
    with pytest.raises(DataError, match=r"\['item', 'epoch'\].*line 3 repeats \('a', 1\)"):
        RepeatedData.from_frame(io.BytesIO(text))


def test_bad_verdict_names_column_and_line() -> None:
    with pytest.raises(DataError, match=r"'verdict'.*line 3"):
        RepeatedData.from_frame(io.BytesIO(b"item,verdict\na,1\na,maybe\n"))


def test_labels_apart_are_per_item() -> None:
    frame = pd.DataFrame({"item": ["a", "a", "b"], "verdict": [1, 0, 0]})
    gold = pd.DataFrame({"item": ["a"], "label": ["PASS"]})
    data = RepeatedData.from_frame(frame, labels=gold)
    assert data.gold_per == "item"
    assert data.m1.tolist() == [2, 0]
    assert data.x1.tolist() == [1, 0]
    assert data.n.tolist() == [0, 1]
    assert data.origin is not None
    assert data.origin.join is not None


def test_bad_gold_per_is_refused() -> None:
    frame = pd.DataFrame({"item": ["a"], "verdict": [1]})
    with pytest.raises(ValueError, match="gold_per must be one of"):
        RepeatedData.from_frame(frame, gold_per="row")  # type: ignore[arg-type]


def test_from_log_reads_one_answer_per_epoch() -> None:
    rulings = [
        Ruling(item, epoch, "m", "j", verdict, verdict, "C" if verdict else "I", "ok")
        for item, epoch, verdict in [
            ("a", 1, 1.0), ("a", 2, 0.0), ("a", 3, 1.0), ("b", 1, 0.0), ("b", 2, 0.0),
            ("b", 3, 0.0),
        ]
    ]  # fmt: skip
    rulings.append(Ruling("c", 1, "m", "j", None, None, None, "error"))
    log = EvalLog.from_rulings(rulings, path="run.eval", tool="inspect")
    data = RepeatedData.from_log(log)
    assert data.items == ("a", "b")
    assert data.n.tolist() == [3, 3]
    assert data.k.tolist() == [2, 0]
    assert data.answer_epoch.tolist() == [1, 2, 3, 1, 2, 3]
    assert data.origin is not None
    assert data.origin.without_verdict == 1
    assert np.isnan(data.answer_label).all()


def test_from_a_live_inspect_log_with_epochs(inspect_run) -> None:
    """An Inspect log written by inspect_ai itself (mockllm, offline; tests/conftest.py)."""
    from bayesjudge.io.logs import read_eval_log

    log = read_eval_log(inspect_run.eval, judge="grade", partial="fail")
    data = RepeatedData.from_log(log)
    counts = dict(zip(data.items, zip(data.n.tolist(), data.k.tolist(), strict=True), strict=True))
    # 007: C C; 7: I C; a: P (read as FAIL) I; b: C and one unscored epoch; err: no verdicts
    assert counts == {"007": (2, 2), "7": (2, 1), "a": (2, 0), "b": (1, 1)}
    assert data.origin is not None
    assert data.origin.without_verdict == 3  # err's two errored epochs and b's unscored one
    assert data.origin.format == "inspect"
    assert sorted(set(data.answer_epoch.tolist())) == [1, 2]
