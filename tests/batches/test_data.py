"""The batches contract: BatchedData readers, order of batches, counts and errors."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.batches.data import COUNT_COLUMNS, BatchedData
from bayesjudge.errors import DataError
from bayesjudge.io.logs import item_verdicts, read_eval_log

LOG = Path(__file__).resolve().parents[1] / "data" / "logs" / "openai_evals" / "match.jsonl"


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "when": ["2026-03-02"] * 5 + ["2026-03-01"] * 4,
            "gold": ["yes", "no", "no", None, None, "yes", "no", None, None],
            "judge": ["pass", "pass", "fail", "pass", "fail", "pass", "fail", "pass", "pass"],
        }
    )


def test_counts_have_the_contract_columns_in_date_order() -> None:
    data = BatchedData.from_frame(
        _frame(), batch="when", columns={"label": "gold", "verdict": "judge"}
    )
    counts = data.counts()
    assert tuple(counts.columns) == COUNT_COLUMNS
    assert data.order == "date"
    assert counts.to_dict("records") == [
        {"batch": "2026-03-01", "m1": 1, "x1": 1, "m0": 1, "x0": 0, "n": 2, "k": 2},
        {"batch": "2026-03-02", "m1": 1, "x1": 1, "m0": 2, "x0": 1, "n": 2, "k": 1},
    ]
    # every item is counted once
    assert int(counts[["m1", "m0", "n"]].to_numpy().sum()) == len(_frame())


def test_names_that_are_not_dates_keep_the_order_of_appearance() -> None:
    frame = _frame().assign(when=["v10"] * 5 + ["v9"] * 4)
    data = BatchedData.from_frame(
        frame, batch="when", columns={"label": "gold", "verdict": "judge"}
    )
    assert data.batches == ("v10", "v9")
    assert data.order == "appearance"
    dated = BatchedData.from_frame(
        _frame(), batch="when", order="appearance", columns={"label": "gold", "verdict": "judge"}
    )
    assert dated.batches == ("2026-03-02", "2026-03-01")


def test_read_csv_with_scores_and_threshold() -> None:
    text = io.BytesIO(b"batch,label,score\nr1,1,0.9\nr1,0,0.2\nr1,,0.7\nr2,1,0.4\nr2,,0.6\n")
    data = BatchedData.read(text, threshold=0.5)
    assert data.counts()[["m1", "x1", "m0", "x0", "n", "k"]].to_numpy().tolist() == [
        [1, 1, 1, 0, 1, 1],
        [1, 0, 0, 0, 1, 1],
    ]


def test_scores_without_threshold_are_refused() -> None:
    text = io.BytesIO(b"batch,label,score\nr1,1,0.9\nr1,,0.7\n")
    with pytest.raises(DataError, match="needs pass/fail verdicts: give a threshold"):
        BatchedData.read(text)


def test_blank_batch_names_its_row() -> None:
    text = io.BytesIO(b"batch,label,verdict\nr1,1,1\n,0,0\nr1,,1\n")
    with pytest.raises(DataError, match=r"batch.*line 3"):
        BatchedData.read(text)


def test_missing_batch_column_is_named() -> None:
    with pytest.raises(DataError, match="release"):
        BatchedData.from_frame(
            pd.DataFrame({"label": [1, None], "verdict": [1, 0]}), batch="release"
        )


def test_two_names_of_one_date_are_an_error() -> None:
    frame = pd.DataFrame(
        {"batch": ["2026-03-01", "2026-03-01T00:00"], "label": [1, None], "verdict": [1, 0]}
    )
    with pytest.raises(DataError, match="same date"):
        BatchedData.from_frame(frame)


def test_labels_apart_join_within_each_batch() -> None:
    results = pd.DataFrame(
        {"item": ["a", "b", "c", "a", "b", "c"], "batch": ["v1"] * 3 + ["v2"] * 3,
         "verdict": [1, 0, 1, 1, 1, 1]}
    )  # fmt: skip
    gold = pd.DataFrame({"item": ["a", "b"], "label": ["pass", "fail"]})
    counts = BatchedData.from_frame(results, labels=gold).counts()
    assert counts[["m1", "x1", "m0", "x0", "n", "k"]].to_numpy().tolist() == [
        [1, 1, 1, 0, 1, 1],
        [1, 1, 1, 1, 1, 1],
    ]


def test_require_gold_names_the_batch() -> None:
    frame = pd.DataFrame(
        {"batch": ["a", "a", "b", "c", "c"], "label": [1, 0, None, 1, None],
         "verdict": [1, 0, 1, 1, 0]}
    )  # fmt: skip
    data = BatchedData.from_frame(frame)
    with pytest.raises(DataError, match="batch 'b' has no gold-labelled items"):
        data.require_gold()
    data.require_gold(each=False)
    with pytest.raises(DataError, match="batch 'c' has no gold-FAIL items"):
        data.require_gold(each=False, classes=True)


def test_to_frame_round_trips() -> None:
    data = BatchedData.from_frame(
        _frame(), batch="when", columns={"label": "gold", "verdict": "judge"}
    )
    again = BatchedData.from_frame(data.to_frame())
    assert again.counts().equals(data.counts())


def test_from_logs_each_log_is_one_batch(tmp_path: Path) -> None:
    first, second = tmp_path / "r1.jsonl", tmp_path / "r2.jsonl"
    shutil.copy(LOG, first)
    shutil.copy(LOG, second)
    verdicts = item_verdicts(read_eval_log(LOG))
    ids = verdicts["item"].tolist()
    gold = pd.DataFrame({"item": ids[:2], "label": [1, 0]})
    data = BatchedData.from_logs([first, second], labels=[gold, None])
    counts = data.counts()
    assert counts["batch"].tolist() == ["r1.jsonl", "r2.jsonl"]
    passed = int(verdicts["verdict"].sum())
    first_two = verdicts["verdict"].to_numpy()[:2]
    assert counts.iloc[0][["m1", "x1", "m0", "x0"]].tolist() == [1, first_two[0], 1, first_two[1]]
    assert counts.iloc[0]["n"] == len(ids) - 2
    assert counts.iloc[1][["m1", "m0", "n", "k"]].tolist() == [0, 0, len(ids), passed]
    assert [o.format for o in data.origin] == ["openai_evals", "openai_evals"]
    # one labels table for every log
    both = BatchedData.from_logs([first, second], labels=gold, names=["a", "b"]).counts()
    assert both[["m1", "m0"]].to_numpy().tolist() == [[1, 1], [1, 1]]


def test_from_logs_refuses_repeated_names_and_wrong_label_count(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="several logs"):
        BatchedData.from_logs([LOG, LOG])
    with pytest.raises(DataError, match="1 label tables for 2 logs"):
        BatchedData.from_logs([LOG, LOG], names=["a", "b"], labels=[None])


def test_counts_are_integers() -> None:
    data = BatchedData.from_frame(
        _frame(), batch="when", columns={"label": "gold", "verdict": "judge"}
    )
    assert all(np.issubdtype(t, np.integer) for t in data.counts().dtypes.iloc[1:])
