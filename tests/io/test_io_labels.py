"""Tests of bayesjudge.io.labels: gold labels joined by id, nothing dropped uncounted."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.errors import DataError
from bayesjudge.io import Field, conform, join_labels, read_labels, read_table

RESULTS = (
    Field("item", "text"),
    Field("verdict", "binary"),
    Field("system", "text", required=False),
)


def results_frame(text: str) -> pd.DataFrame:
    return conform(read_table(io.BytesIO(text.encode())), RESULTS, columns={"item": "id"})


def labels_frame(text: str) -> pd.DataFrame:
    return read_labels(io.BytesIO(text.encode()), columns={"item": "id", "label": "gold"})


def test_join_from_files_with_a_report(tmp_path: Path) -> None:
    results = tmp_path / "results.csv"
    results.write_text("id,judge_verdict\n001,yes\n002,no\n003,yes\n004,no\n")
    labels = tmp_path / "labels.csv"
    labels.write_text("sample_id,human_label\n002,correct\n001,incorrect\n004,\n")
    joined, report = join_labels(
        conform(read_table(results), RESULTS, columns={"item": "id", "verdict": "judge_verdict"}),
        read_labels(labels, columns={"item": "sample_id", "label": "human_label"}),
    )
    np.testing.assert_array_equal(joined["label"], [0.0, 1.0, np.nan, np.nan])
    assert joined.index.tolist() == [2, 3, 4, 5]  # file lines of the results
    assert report.to_dict() == {
        "result_rows": 4,
        "items": 4,
        "labelled": 2,
        "unlabelled": 2,
        "label_rows": 3,
        "blank_labels": 1,
        "combined_rows": 0,
        "repeats": "error",
    }


def test_duplicate_and_absent_label_ids_are_named_together() -> None:
    results = results_frame("id,verdict\na,1\nb,0\n")
    labels = labels_frame("id,gold\na,1\na,0\nz,1\ny,0\nb,1\nb,1\nb,0\n")
    with pytest.raises(DataError) as info:
        join_labels(results, labels)
    message = str(info.value)
    assert message.startswith("label join: 2 problems:")
    assert "2 id(s) appear more than once: 'a' (2 rows), 'b' (3 rows) (first at line 2" in message
    assert "2 of 4 label id(s) are not among the results' ids: 'z', 'y'" in message


def test_leading_zeros_are_never_coerced_but_hinted() -> None:
    results = results_frame("id,verdict\n007,1\n008,0\n")
    labels = labels_frame("id,gold\n7,1\n 8,0\n")
    with pytest.raises(DataError) as info:
        join_labels(results, labels)
    message = str(info.value)
    assert "2 of 2 label id(s) are not among the results' ids: '7', '8'" in message
    assert re.search(
        r"2 of them match a result id once case, spaces and leading zeros are ignored "
        r"\(e\.g\. label id '7' vs result id '007'\)",
        message,
    )


def test_repeated_result_ids_need_a_rule() -> None:
    results = results_frame("id,verdict\na,1\na,0\nb,1\nb,1\nb,0\nc,0\n")
    labels = labels_frame("id,gold\na,1\nb,0\n")
    with pytest.raises(DataError, match=r"2 id\(s\) have several rows .*'a' \(2 rows\), 'b' \(3"):
        join_labels(results, labels)


@pytest.mark.parametrize(
    ("rule", "verdicts"),
    [
        ("first", [1.0, 1.0, 0.0]),
        ("majority", [0.0, 1.0, 0.0]),  # a is a 1-1 tie: FAIL
        ("any", [1.0, 1.0, 0.0]),
        ("all", [0.0, 0.0, 0.0]),
    ],
)
def test_repeat_rules(rule: str, verdicts: list[float]) -> None:
    results = results_frame("id,verdict\na,1\nb,1\na,0\nb,1\nb,0\nc,0\n")
    labels = labels_frame("id,gold\na,1\nb,0\n")
    joined, report = join_labels(results, labels, repeats=rule)  # type: ignore[arg-type]
    assert joined["item"].tolist() == ["a", "b", "c"]
    assert joined.index.tolist() == [2, 3, 7]
    np.testing.assert_array_equal(joined["verdict"], verdicts)
    np.testing.assert_array_equal(joined["label"], [1.0, 0.0, np.nan])
    assert (report.items, report.combined_rows, report.labelled) == (3, 3, 2)


def test_keep_attaches_the_label_to_every_row() -> None:
    results = results_frame("id,verdict\na,1\na,0\nb,1\n")
    joined, report = join_labels(results, labels_frame("id,gold\na,yes\n"), repeats="keep")
    np.testing.assert_array_equal(joined["label"], [1.0, 1.0, np.nan])
    assert (report.items, report.labelled, report.unlabelled) == (3, 2, 1)


def test_by_other_columns() -> None:
    results = results_frame("id,system,verdict\na,s1,1\na,s2,0\nb,s1,1\nb,s2,1\n")
    joined, _ = join_labels(results, labels_frame("id,gold\na,1\nb,0\n"), by=("system",))
    assert joined["label"].tolist() == [1.0, 1.0, 0.0, 0.0]


def test_argument_problems() -> None:
    results = results_frame("id,verdict\na,1\n")
    with pytest.raises(ValueError, match=re.escape("repeats must be one of ['error', 'keep'")):
        join_labels(results, labels_frame("id,gold\na,1\n"), repeats="mean")  # type: ignore[arg-type]
    labelled = results.assign(label=[1.0])
    with pytest.raises(DataError, match="already carry labels"):
        join_labels(labelled, labels_frame("id,gold\na,1\n"))
    with pytest.raises(DataError, match="combines verdicts, but the results have no 'verdict'"):
        join_labels(results.drop(columns="verdict"), labels_frame("id,gold\na,1\n"), repeats="all")
    with pytest.raises(DataError, match=re.escape("the results have no column(s) ['system']")):
        join_labels(results, labels_frame("id,gold\na,1\n"), by=("system",))
