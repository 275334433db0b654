"""The systems data contract: validation errors and reductions to counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesjudge.errors import DataError
from bayesjudge.systems.data import (
    MISSING,
    STATES,
    Patterns,
    SystemsData,
    bucket_size,
    state_code,
)
from bayesjudge.systems.simulate import simulate_systems


def _frame(**columns) -> pd.DataFrame:
    base = {
        "system": ["a", "b", "a", "b", "a", "b"],
        "item": ["q1", "q1", "q2", "q2", "q3", "q3"],
        "label": [1, 0, None, None, None, None],
        "verdict": [1, 0, 1, 0, 0, 1],
    }
    base.update(columns)
    return pd.DataFrame(base)


# ----------------------------------------------------------------------------- errors
def test_one_system_only_is_an_error():
    frame = _frame(system=["a"] * 6, item=[f"q{i}" for i in range(6)])
    with pytest.raises(DataError, match=r"column 'system'.*at least two.*only 'a'"):
        SystemsData.from_frame(frame)


def test_system_without_unlabelled_answers_is_an_error():
    frame = _frame(label=[1, 0, None, 1, None, 0])
    with pytest.raises(DataError, match=r"system 'b' has no unlabelled answers"):
        SystemsData.from_frame(frame)


def test_item_twice_within_a_system_is_an_error_naming_item_system_and_rows():
    frame = _frame(item=["q1", "q1", "q2", "q2", "q2", "q3"])
    with pytest.raises(DataError, match=r"item 'q2' appears twice for system 'a' \(rows 2 and 4\)"):
        SystemsData.from_frame(frame)


def test_conflicting_labels_for_one_system_and_item_are_reported_first():
    frame = _frame(item=["q1", "q1", "q1", "q2", "q3", "q3"], label=[1, 0, 0, None, None, None])
    with pytest.raises(
        DataError,
        match=r"column 'label': item 'q1' of system 'a' has gold label 1 in row 0 and 0 in row 2",
    ):
        SystemsData.from_frame(frame)


def test_row_labels_follow_the_frame_index():
    frame = _frame(item=["q1", "q1", "q2", "q2", "q2", "q3"]).set_index(
        pd.Index(["r1", "r2", "r3", "r4", "r5", "r6"])
    )
    with pytest.raises(DataError, match=r"rows 'r3' and 'r5'"):
        SystemsData.from_frame(frame)


@pytest.mark.parametrize(
    ("column", "values", "message"),
    [
        ("verdict", [1, 0, 2, 0, 0, 1], r"column 'verdict' must hold 0/1; row 2 has 2"),
        ("verdict", [1, 0, None, 0, 0, 1], r"column 'verdict' must not have missing values; row 2"),
        ("label", [1, 0, "yes", None, None, None], r"column 'label' must hold 0/1 or a missing"),
        ("system", ["a", "b", None, "b", "a", "b"], r"column 'system' must not have missing"),
        ("item", ["q1", "q1", None, "q2", "q3", "q3"], r"column 'item' must not have missing"),
    ],
)
def test_bad_values_name_column_and_row(column, values, message):
    with pytest.raises(DataError, match=message):
        SystemsData.from_frame(_frame(**{column: values}))


def test_missing_columns_are_listed():
    with pytest.raises(DataError, match=r"missing required column\(s\) \['label'\]"):
        SystemsData.from_frame(_frame().drop(columns="label"))


@pytest.mark.parametrize(("label", "what"), [(1, "FAIL"), (0, "PASS")])
def test_a_gold_class_with_no_answers_is_an_error(label, what):
    frame = _frame(label=[label, label, None, None, None, None])
    with pytest.raises(DataError, match=rf"no answer of any system has a gold-{what}"):
        SystemsData.from_frame(frame)


def test_not_a_frame_is_an_error():
    with pytest.raises(DataError, match="must be a pandas DataFrame; got dict"):
        SystemsData.from_frame({"system": ["a"]})  # type: ignore[arg-type]


def test_unknown_system_in_a_reduction_is_an_error():
    data = SystemsData.from_frame(_frame())
    with pytest.raises(DataError, match=r"unknown system\(s\) \['c'\]"):
        data.patterns(["a", "c"])


# ----------------------------------------------------------------------------- reductions
def test_state_codes_cover_every_state_once():
    label = np.array([np.nan, np.nan, 0, 0, 1, 1])
    verdict = np.array([0, 1, 0, 1, 0, 1])
    assert state_code(label, verdict).tolist() == [1, 2, 3, 4, 5, 6]
    assert STATES[MISSING] == "missing"


def test_booleans_and_nullable_integers_are_accepted():
    frame = _frame(verdict=[True, False, True, False, False, True])
    frame["label"] = pd.array([1, 0, None, None, None, None], dtype="Int64")
    data = SystemsData.from_frame(frame)
    assert data.verdict.tolist() == [1, 0, 1, 0, 0, 1]


def test_unpaired_without_item_column():
    data = SystemsData.from_frame(_frame().drop(columns="item"))
    assert not data.paired
    assert data.items[0] == "row 0"
    assert data.states().shape == (6, 2)
    assert data.paired_table().sum() == 0


def test_patterns_and_counts_agree_with_a_brute_force_tally():
    sim = simulate_systems(
        [0.5, 0.7, 0.6],
        n_unlabelled=400,
        n_labelled=60,
        se=0.9,
        sp=0.8,
        labelled_systems=["A", "C"],
        random_seed=3,
    )
    data = SystemsData.from_frame(sim.frame)
    patterns = data.patterns()
    assert patterns.n_items == 460
    # brute force: one state row per item from the frame
    rows = {}
    for row in sim.frame.itertuples():
        code = 1 + row.verdict if pd.isna(row.label) else 3 + 2 * int(row.label) + row.verdict
        rows.setdefault(row.item, [0, 0, 0])[data.systems.index(row.system)] = code
    brute = pd.Series([tuple(v) for v in rows.values()]).value_counts()
    ours = {tuple(s): int(c) for s, c in zip(patterns.state.tolist(), patterns.count, strict=True)}
    assert ours == brute.to_dict()
    counts = data.system_counts()
    frame = sim.frame
    for s, name in enumerate(counts.systems):
        part = frame[frame.system == name]
        gold = part.label.notna()
        assert counts.m1[s] == int((part.label[gold] == 1).sum())
        assert counts.x1[s] == int(((part.label == 1) & (part.verdict == 1)).sum())
        assert counts.m0[s] == int((part.label[gold] == 0).sum())
        assert counts.x0[s] == int(((part.label == 0) & (part.verdict == 1)).sum())
        assert counts.n[s] == int((~gold).sum())
        assert counts.k[s] == int(part.verdict[~gold].sum())
    assert counts.m1[1] == counts.m0[1] == 0  # B has no labels


def test_paired_items_and_table_split_by_what_is_labelled():
    frame = pd.DataFrame(
        {
            "system": ["a", "b"] * 5 + ["a"],
            "item": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6],
            "label": [1, 0, None, None, 1, None, None, None, 0, 0, None],
            "verdict": [1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1],
        }
    )
    data = SystemsData.from_frame(frame)
    pairs = data.paired_items()
    assert pairs.label.tolist() == [[1, 0], [0, 0]]
    assert pairs.verdict.tolist() == [[1, 1], [0, 0]]
    assert sorted(pairs.unlabelled_verdict.tolist()) == [[0, 1], [1, 0]]
    assert data.paired_table().tolist() == [[0, 1], [1, 0]]
    # the item answered by 'a' only is a pattern with 'b' missing
    assert [2, 0] in data.patterns().state.tolist()


def test_padding_adds_weight_zero_missing_cells():
    p = Patterns(("a", "b"), np.array([[1, 2], [6, 3]], np.int8), np.array([3, 4]))
    padded = p.padded()
    assert padded["cell_state"].shape == (16, 2)
    assert padded["cell_weight"].sum() == 7
    assert np.all(padded["cell_state"][2:] == MISSING)
    with pytest.raises(ValueError, match="at least the number of patterns"):
        p.padded(1)
    assert [bucket_size(n) for n in (0, 16, 17, 100)] == [16, 16, 32, 128]
    assert [bucket_size(n, minimum=32) for n in (0, 1, 33)] == [32, 32, 64]
    with pytest.raises(ValueError, match="count must be non-negative; got -1"):
        bucket_size(-1)


def test_repr_names_design_and_labelled_systems():
    data = SystemsData.from_frame(_frame())
    assert "paired" in repr(data)
    assert data.labelled_systems == ("a", "b")
