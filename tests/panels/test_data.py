"""The panel data contract: long, wide and array input, errors that name the row, patterns."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from bayesjudge.errors import DataError
from bayesjudge.panels.data import MISSING, UNLABELLED, PanelData, load_panel


def _long() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item": ["x", "x", "x", "y", "y", "z", "z", "z"],
            "judge": ["a", "b", "c", "a", "c", "a", "b", "c"],
            "verdict": [1, 1, 0, 0, np.nan, 1, 1, 1],
            "label": [1, None, 1, None, None, 0, 0, None],
        }
    )


def test_long_form_fills_missing_verdicts_and_labels():
    data = PanelData.from_long(_long())
    assert data.items == ("x", "y", "z")
    assert data.judges == ("a", "b", "c")
    np.testing.assert_array_equal(data.verdicts, [[1, 1, 0], [0, np.nan, np.nan], [1, 1, 1]])
    np.testing.assert_array_equal(data.labels, [1, np.nan, 0])
    assert data.n_labelled == (1, 1)
    assert data.n_unlabelled == 1
    assert data.missing_share == pytest.approx({"a": 0.0, "b": 1 / 3, "c": 1 / 3})
    labels, verdicts = data.judge("b")
    np.testing.assert_array_equal(labels, [1, 0])
    np.testing.assert_array_equal(verdicts, [1, 1])
    with pytest.raises(KeyError, match="no judge 'q'"):
        data.judge("q")


def test_wide_form_and_round_trip():
    data = PanelData.from_long(_long())
    wide = data.to_wide()
    assert list(wide.columns) == ["item", "label", "a", "b", "c"]
    again = PanelData.from_wide(wide)
    assert again.items == data.items
    assert again.judges == data.judges
    np.testing.assert_array_equal(again.verdicts, data.verdicts)
    np.testing.assert_array_equal(again.labels, data.labels)
    chosen = PanelData.from_wide(wide, judges=["c", "a"])
    assert chosen.judges == ("c", "a")
    no_item = PanelData.from_wide(wide.drop(columns="item"), item=None, label=None)
    assert no_item.items == (0, 1, 2)
    assert no_item.n_unlabelled == 3


def test_patterns_are_a_lossless_compression_of_the_items():
    rng = np.random.default_rng(0)
    verdicts = rng.integers(0, 2, size=(500, 4)).astype(float)
    verdicts[rng.random((500, 4)) < 0.2] = np.nan
    labels = np.where(rng.random(500) < 0.3, rng.integers(0, 2, 500), np.nan)
    data = PanelData.from_arrays(verdicts, labels=labels)
    patterns = data.patterns()
    assert patterns.n_items == 500
    assert len(patterns) < 500
    assert patterns.n_labelled == data.n_labelled
    assert patterns.n_unlabelled == data.n_unlabelled
    # expanding the patterns by their counts gives back the items as a multiset
    coded = np.column_stack(
        [
            np.where(np.isnan(labels), UNLABELLED, labels),
            np.where(np.isnan(verdicts), MISSING, verdicts),
        ]
    ).astype(int)
    expanded = np.repeat(np.column_stack([patterns.label, patterns.verdict]), patterns.count, 0)
    assert sorted(map(tuple, coded)) == sorted(map(tuple, expanded))
    # rows are distinct and ordered PASS, FAIL, unlabelled
    rows = np.column_stack([patterns.label, patterns.verdict])
    assert len({tuple(r) for r in rows}) == len(rows)
    order = {1: 0, 0: 1, -1: 2}
    ranks = [order[int(v)] for v in patterns.label]
    assert ranks == sorted(ranks)
    frame = patterns.to_frame()
    assert list(frame.columns) == ["label", *data.judges, "count"]
    assert frame["count"].sum() == 500


# --------------------------------------------------------------------------- errors
def test_one_judge_points_to_estimate():
    frame = _long()
    one = frame[frame["judge"] == "a"]
    with pytest.raises(DataError, match=r"names one judge \('a'\).*bayesjudge estimate"):
        PanelData.from_long(one)
    with pytest.raises(DataError, match=r"one judge column \('a'\).*bayesjudge estimate"):
        PanelData.from_wide(pd.DataFrame({"item": [1, 2], "label": [1, None], "a": [1, 0]}))
    with pytest.raises(DataError, match=r"one judge \('judge_0'\).*bayesjudge estimate"):
        PanelData.from_arrays([[1], [0]])


def test_a_judge_repeated_for_an_item_is_named():
    frame = pd.concat([_long(), _long().iloc[[4]]], ignore_index=True)
    with pytest.raises(
        DataError, match=r"judge 'c' is given twice for item 'y' \(row 4 and row 8\)"
    ):
        PanelData.from_long(frame)
    wide = PanelData.from_long(_long()).to_wide()
    twice = pd.concat([wide, wide.iloc[[1]]], ignore_index=True)
    with pytest.raises(
        DataError, match=r"item 'y' appears in more than one row \(row 1 and row 3\)"
    ):
        PanelData.from_wide(twice)


def test_labels_that_disagree_for_an_item_are_named():
    frame = _long()
    frame.loc[2, "label"] = 0
    with pytest.raises(
        DataError, match=r"column 'label': item 'x' has gold label 1 in row 0 and 0 in row 2"
    ):
        PanelData.from_long(frame)


def test_a_judge_with_only_missing_verdicts_is_an_error():
    frame = _long()
    frame.loc[frame["judge"] == "b", "verdict"] = np.nan
    with pytest.raises(DataError, match=r"judge 'b' has no verdict on any of the 3 items"):
        PanelData.from_long(frame)
    with pytest.raises(DataError, match=r"judge 'judge_1' has no verdict"):
        PanelData.from_arrays([[1, np.nan], [0, np.nan]])


def test_bad_values_name_the_column_and_row():
    frame = _long()
    frame["verdict"] = frame["verdict"].astype(object)
    frame.loc[5, "verdict"] = "pass"
    with pytest.raises(
        DataError, match=r"column 'verdict' must hold 0/1 verdicts.*row 5 has 'pass'"
    ):
        PanelData.from_long(frame)
    frame = _long()
    frame.loc[3, "label"] = 2
    with pytest.raises(DataError, match=r"column 'label' must hold 0/1 labels.*row 3 has 2"):
        PanelData.from_long(frame)
    frame = _long()
    frame.loc[6, "judge"] = None
    with pytest.raises(DataError, match=r"column 'judge' must not have missing values; row 6"):
        PanelData.from_long(frame)
    with pytest.raises(DataError, match=r"missing column\(s\) \['verdict'\]"):
        PanelData.from_long(_long().drop(columns="verdict"))
    with pytest.raises(DataError, match=r"judge 'judge_1' on item 1 has 0.5"):
        PanelData.from_arrays([[1, 1], [0, 0.5]])
    with pytest.raises(DataError, match=r"item 0 has 3.0"):
        PanelData.from_arrays([[1, 1], [0, 1]], labels=[3, np.nan])
    with pytest.raises(DataError, match=r"judge name\(s\) \['a'\] appear more than once"):
        PanelData.from_arrays([[1, 1], [0, 1]], judges=["a", "a"])
    with pytest.raises(DataError, match=r"item 'x' appears more than once"):
        PanelData.from_arrays([[1, 1], [0, 1]], items=["x", "x"])
    with pytest.raises(DataError, match="the table has no rows"):
        PanelData.from_long(_long().iloc[:0])
    with pytest.raises(TypeError, match="frame must be a pandas DataFrame"):
        PanelData.from_long("panel.csv")  # type: ignore[arg-type]


def test_data_are_read_only():
    data = PanelData.from_long(_long())
    with pytest.raises(ValueError, match="read-only"):
        data.verdicts[0, 0] = 0.0


# --------------------------------------------------------------------------- reading files
def test_load_panel_long_with_mapped_columns_and_spellings():
    text = b"id,model,grade\nq1,a,good\nq1,b,bad\nq2,a,bad\nq2,b,\n"
    data = load_panel(
        io.BytesIO(text),
        columns={"item": "id", "judge": "model", "verdict": "grade"},
        positive=["good"],
        negative=["bad"],
    )
    assert data.judges == ("a", "b")
    np.testing.assert_array_equal(data.verdicts, [[1.0, 0.0], [0.0, np.nan]])
    assert data.origin is not None
    assert data.origin.columns["item"] == "id"
    assert (data.origin.rows, data.origin.items) == (4, 2)


def test_load_panel_wide_with_labels_joined_by_id():
    verdicts = b"id,a,b,c\nq1,PASS,FAIL,PASS\nq2,FAIL,FAIL,\nq3,PASS,PASS,PASS\n"
    gold = b"item,label\nq1,1\nq2,0\n"
    data = load_panel(io.BytesIO(verdicts), columns={"item": "id"}, labels=io.BytesIO(gold))
    assert data.judges == ("a", "b", "c")
    np.testing.assert_array_equal(data.labels, [1.0, 0.0, np.nan])
    assert data.origin is not None
    assert data.origin.join is not None
    with pytest.raises(DataError, match=r"a wide panel table maps only 'item' and 'label'"):
        load_panel(io.BytesIO(verdicts), columns={"item": "id", "judge": "a"})
    with pytest.raises(DataError, match=r"judges: \['id'\] is also the item or label column"):
        load_panel(io.BytesIO(verdicts), columns={"item": "id"}, judges=["id", "a"])
    with pytest.raises(DataError, match="judges names the verdict columns of a wide table"):
        load_panel(
            io.BytesIO(b"item,judge,verdict\n1,a,1\n1,b,0\n"), judges=["a", "b"], layout="long"
        )
