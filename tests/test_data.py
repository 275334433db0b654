"""Tests of the data contracts: JudgeData, Rulings, LoopLog and PairedOutcomes.

Every error path is checked with a ``match`` that names both the column (or argument) and the
first offending row, as the contract promises. Rows are named by the table's index label; for a
CSV file (or any table with a default RangeIndex) that is the 0-based data-row position.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import bayesjudge
from bayesjudge import DataError
from bayesjudge.channels.data import PairedOutcomes
from bayesjudge.examples import load_example
from bayesjudge.gates.data import LoopLog, Rulings
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.simulate import judge_table


def both(*parts: str) -> str:
    """Regex that requires every literal part, in order (e.g. the column, then the row)."""
    return ".*".join(re.escape(p) for p in parts)


def write_csv(tmp_path: Path, text: str, name: str = "data.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def judge_frame(**overrides: object) -> pd.DataFrame:
    """A small valid judge table: 2 gold-PASS, 2 gold-FAIL and 3 unlabelled items."""
    columns: dict[str, object] = {
        "label": [1, 1, 0, 0, None, None, None],
        "verdict": [1, 0, 1, 0, 1, 1, 0],
    }
    columns.update(overrides)
    return pd.DataFrame(columns)


def assert_same_judge_data(a: JudgeData, b: JudgeData) -> None:
    assert a.kind == b.kind
    np.testing.assert_array_equal(a.cal_label, b.cal_label)
    np.testing.assert_array_equal(a.cal_judge, b.cal_judge)
    np.testing.assert_array_equal(a.test_judge, b.test_judge)
    for left, right in ((a.cal_stratum, b.cal_stratum), (a.test_stratum, b.test_stratum)):
        assert (left is None) == (right is None)
        if left is not None and right is not None:
            assert left.tolist() == right.tolist()


# =========================================================================== spellings
# Today's spellings (and the new ones) read through every contract, in any case.
TRUE_SPELLINGS = [1, 1.0, np.int64(1), np.float32(1), "1", "1.0", True, np.True_]
TRUE_SPELLINGS += ["true", "TRUE", "True", "tRuE", "pass", "PASS", "Pass", "t", "T", "  pass "]
TRUE_SPELLINGS += ["yes", "Y", "correct", "Passed", "c"]
FALSE_SPELLINGS = [0, 0.0, np.int64(0), np.float32(0), "0", "0.0", False, np.False_]
FALSE_SPELLINGS += ["false", "FALSE", "False", "fAlSe", "fail", "FAIL", "Fail", "f", "F", " fail"]
FALSE_SPELLINGS += ["no", "N", "incorrect", "Failed", "i"]


@pytest.mark.parametrize("value", TRUE_SPELLINGS, ids=repr)
def test_true_spellings_read_as_pass(value: object) -> None:
    frame = judge_frame(verdict=[value, 0, 1, 0, 1, 1, 0])
    assert JudgeData.from_frame(frame).counts.x1 == 1


@pytest.mark.parametrize("value", FALSE_SPELLINGS, ids=repr)
def test_false_spellings_read_as_fail(value: object) -> None:
    frame = judge_frame(verdict=[1, 0, 1, 0, value, 1, 0])
    assert JudgeData.from_frame(frame).counts.k == 1


@given(
    words=st.lists(
        st.sampled_from(["pass", "fail", "true", "false", "correct", "incorrect"]).flatmap(
            lambda w: st.tuples(
                st.just(w), st.lists(st.booleans(), min_size=len(w), max_size=len(w))
            )
        ),
        min_size=1,
        max_size=20,
    )
)
def test_spellings_in_any_case_mix(words: list[tuple[str, list[bool]]]) -> None:
    spelled = [
        "".join(c.upper() if up else c for c, up in zip(w, ups, strict=True)) for w, ups in words
    ]
    expected = [1.0 if w in ("pass", "true", "correct") else 0.0 for w, _ in words]
    frame = pd.DataFrame({"label": [1, 0, *[None] * len(spelled)], "verdict": [1, 0, *spelled]})
    assert JudgeData.from_frame(frame).test_judge.tolist() == expected


def test_extra_spellings_and_overrides() -> None:
    frame = judge_frame(verdict=["good", "bad", "good", "bad", "good", "good", "bad"])
    data = JudgeData.from_frame(frame, positive=["good"], negative=["bad"])
    assert data.counts == JudgeCounts(m1=2, x1=1, m0=2, x0=1, n=3, k=2)
    with pytest.raises(DataError, match=both("column 'verdict'", "PASS/FAIL", "row 0 has 'good'")):
        JudgeData.from_frame(frame)


# =========================================================================== JudgeData.from_frame
def test_from_frame_splits_calibration_and_test_in_order() -> None:
    data = JudgeData.from_frame(judge_frame())
    assert data.kind == "verdict"
    np.testing.assert_array_equal(data.cal_label, [1.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(data.cal_judge, [1.0, 0.0, 1.0, 0.0])
    np.testing.assert_array_equal(data.test_judge, [1.0, 1.0, 0.0])
    assert data.cal_stratum is None
    assert data.test_stratum is None
    assert (data.m, data.m1, data.m0, data.n) == (4, 2, 2, 3)
    assert data.counts == JudgeCounts(m1=2, x1=1, m0=2, x0=1, n=3, k=2)


def test_from_frame_does_not_mutate_input() -> None:
    frame = judge_frame(verdict=["pass", "fail", "PASS", "Fail", 1, "true", "f"])
    before = frame.copy()
    JudgeData.from_frame(frame)
    pd.testing.assert_frame_equal(frame, before)


def test_from_frame_accepts_mixed_spellings() -> None:
    frame = judge_frame(
        label=[True, "PASS", "false", 0, "", np.nan, None],
        verdict=["pass", "0", True, "FALSE", 1.0, "T", "fail"],
    )
    data = JudgeData.from_frame(frame)
    assert data.counts == JudgeCounts(m1=2, x1=1, m0=2, x0=1, n=3, k=2)


def test_from_frame_nullable_dtypes() -> None:
    frame = pd.DataFrame(
        {
            "label": pd.array([1, 0, None, None], dtype="Int64"),
            "verdict": pd.array([True, False, True, False], dtype="boolean"),
        }
    )
    assert JudgeData.from_frame(frame).counts == JudgeCounts(1, 1, 1, 0, 2, 1)


@pytest.mark.parametrize(
    ("column", "values", "expected"),
    [
        ("label", [1, "maybe", 0, 0, None, None, None], "row 1 has 'maybe'"),
        ("label", [1, 1, 0, 2, None, None, None], "row 3 has 2.0"),
        ("verdict", [1, 0, 1, 0, 1, "ok", 0], "row 5 has 'ok'"),
        ("verdict", [1, 0, 1, 0, 0.5, 1, 0], "row 4 has 0.5"),
    ],
)
def test_from_frame_non_binary(column: str, values: list[object], expected: str) -> None:
    with pytest.raises(DataError, match=both(f"column {column!r}", "PASS/FAIL", expected)):
        JudgeData.from_frame(judge_frame(**{column: values}))


@pytest.mark.parametrize("blank", [None, np.nan, ""], ids=repr)
def test_from_frame_missing_verdict(blank: object) -> None:
    frame = judge_frame(verdict=[1, 0, 1, 0, 1, blank, 0])
    with pytest.raises(DataError, match=both("column 'verdict'", "not be missing", "row 5 has")):
        JudgeData.from_frame(frame)


@pytest.mark.parametrize("blank", [None, np.nan, "", "  "], ids=repr)
def test_from_frame_missing_stratum(blank: object) -> None:
    frame = judge_frame(stratum=["a", "a", "b", blank, "a", "b", "b"])
    with pytest.raises(DataError, match=both("column 'stratum'", "not be blank", "row 3")):
        JudgeData.from_frame(frame)


def test_from_frame_names_rows_by_index_label() -> None:
    frame = judge_frame(verdict=[1, 0, 1, 0, 1, "x", 0])
    frame.index = [f"item-{i}" for i in range(len(frame))]
    with pytest.raises(DataError, match=both("column 'verdict'", "row 'item-5' has 'x'")):
        JudgeData.from_frame(frame)


def test_from_frame_scores() -> None:
    frame = pd.DataFrame({"label": [1, 0, None, None], "score": [0.9, 0.2, 0.0, 1.0]})
    data = JudgeData.from_frame(frame)
    assert data.kind == "score"
    np.testing.assert_array_equal(data.cal_judge, [0.9, 0.2])
    np.testing.assert_array_equal(data.test_judge, [0.0, 1.0])
    with pytest.raises(DataError, match=r"hold scores, not binary verdicts.*'verdict' column"):
        _ = data.counts


def test_from_frame_scores_given_as_text() -> None:
    frame = pd.DataFrame({"label": ["1", "0", ""], "score": ["0.25", "0.5", "1"]})
    np.testing.assert_array_equal(JudgeData.from_frame(frame).cal_judge, [0.25, 0.5])


@pytest.mark.parametrize(
    ("value", "shown"),
    [(1.5, "1.5"), (-0.1, "-0.1"), (np.inf, "inf"), ("high", "'high'"), ("0.5x", "'0.5x'")],
)
def test_from_frame_bad_scores(value: object, shown: str) -> None:
    frame = pd.DataFrame({"label": [1, 0, None, None], "score": [0.5, 0.5, value, 0.5]})
    with pytest.raises(DataError, match=both("column 'score'", "[0, 1]", f"row 2 has {shown}")):
        JudgeData.from_frame(frame)


@pytest.mark.parametrize("blank", [None, np.nan, ""], ids=repr)
def test_from_frame_missing_score(blank: object) -> None:
    frame = pd.DataFrame({"label": [1, 0, None, None], "score": [0.5, blank, 0.5, 0.5]})
    with pytest.raises(DataError, match=both("column 'score'", "not be missing", "row 1 has")):
        JudgeData.from_frame(frame)


def test_from_frame_needs_exactly_one_of_verdict_and_score() -> None:
    both_columns = judge_frame(score=[0.5] * 7)
    with pytest.raises(DataError, match=both("one of the columns 'verdict' or 'score', not both")):
        JudgeData.from_frame(both_columns)
    neither = pd.DataFrame({"label": [1, 0, None]})
    with pytest.raises(DataError, match=both("no 'verdict' or 'score' column", "'label'")):
        JudgeData.from_frame(neither)


def test_from_frame_missing_label_column() -> None:
    frame = pd.DataFrame({"verdict": [1, 0, 1]})
    with pytest.raises(DataError, match=both("no 'label' column", "--map label=COLUMN")):
        JudgeData.from_frame(frame)


def test_from_frame_no_gold_pass() -> None:
    frame = judge_frame(label=[0, 0, 0, 0, None, None, None])
    with pytest.raises(DataError, match=both("column 'label'", "no gold-PASS", "sensitivity")):
        JudgeData.from_frame(frame)


def test_from_frame_no_gold_fail() -> None:
    frame = judge_frame(label=[1, 1, 1, "pass", None, None, None])
    with pytest.raises(DataError, match=both("column 'label'", "no gold-FAIL", "specificity")):
        JudgeData.from_frame(frame)


def test_from_frame_no_unlabelled_rows() -> None:
    frame = judge_frame(label=[1, 1, 0, 0, 1, 0, 1])
    with pytest.raises(DataError, match=both("column 'label'", "no unlabelled test items")):
        JudgeData.from_frame(frame)


def test_from_frame_unknown_columns_strict_and_lenient() -> None:
    frame = judge_frame(note=["x"] * 7, model=["m"] * 7)
    with pytest.raises(DataError, match=both("unknown column(s) ['note', 'model']", "strict")):
        JudgeData.from_frame(frame, strict=True)
    data = JudgeData.from_frame(frame, strict=False)
    assert data.counts == JudgeCounts(m1=2, x1=1, m0=2, x0=1, n=3, k=2)


def test_from_frame_strict_accepts_stratum() -> None:
    frame = judge_frame(stratum=list("aabbabb"))
    assert JudgeData.from_frame(frame, strict=True).strata == ("a", "b")


def test_from_frame_empty_table() -> None:
    with pytest.raises(DataError, match=r"the table has no rows"):
        JudgeData.from_frame(pd.DataFrame({"label": [], "verdict": []}))


# =========================================================================== from_csv / coerce
def test_from_csv_matches_from_frame(tmp_path: Path) -> None:
    text = (
        "label, verdict, stratum\n"
        "TRUE, pass, math\n"
        "false, FAIL, code\n"
        "1, True, code\n"
        "0, 0, math\n"
        ", 1, math\n"
        ", Fail, code\n"
    )
    path = write_csv(tmp_path, text)
    from_file = JudgeData.from_csv(path)
    from_str_path = JudgeData.from_csv(str(path))
    expected = JudgeData.from_frame(
        pd.DataFrame(
            {
                "label": [1, 0, 1, 0, None, None],
                "verdict": [1, 0, 1, 0, 1, 0],
                "stratum": ["math", "code", "code", "math", "math", "code"],
            }
        )
    )
    assert_same_judge_data(from_file, expected)
    assert_same_judge_data(from_str_path, expected)
    assert from_file.strata == ("code", "math")


def test_from_csv_blank_labels_are_unlabelled(tmp_path: Path) -> None:
    path = write_csv(tmp_path, "label,verdict\n1,1\n0,0\n,1\n,0\n,1\n")
    assert JudgeData.from_csv(path).counts == JudgeCounts(1, 1, 1, 0, 3, 2)


def test_from_csv_error_names_column_and_row(tmp_path: Path) -> None:
    path = write_csv(tmp_path, "label,verdict\n1,pass\n0,maybe\n,1\n")
    with pytest.raises(DataError, match=both("data.csv", "column 'verdict'", "line 3 has 'maybe'")):
        JudgeData.from_csv(path)


def test_from_csv_score_out_of_range(tmp_path: Path) -> None:
    path = write_csv(tmp_path, "label,score\n1,0.9\n0,0.1\n,1.2\n")
    with pytest.raises(DataError, match=both("column 'score'", "line 4 has '1.2'")):
        JudgeData.from_csv(path)


def test_from_csv_strict(tmp_path: Path) -> None:
    path = write_csv(tmp_path, "label,verdict,extra\n1,1,a\n0,0,b\n,1,c\n")
    with pytest.raises(DataError, match=both("unknown column(s) ['extra']")):
        JudgeData.from_csv(path, strict=True)
    assert JudgeData.from_csv(path).n == 1


def test_from_csv_missing_path(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=both("no such file", "absent.csv")):
        JudgeData.from_csv(tmp_path / "absent.csv")


def test_coerce(tmp_path: Path) -> None:
    data = JudgeData.from_frame(judge_frame())
    assert JudgeData.coerce(data) is data
    assert_same_judge_data(JudgeData.coerce(judge_frame()), data)
    path = write_csv(tmp_path, judge_frame().to_csv(index=False))
    assert_same_judge_data(JudgeData.coerce(path), data)
    assert_same_judge_data(JudgeData.coerce(str(path)), data)
    with pytest.raises(DataError, match=r"unknown column\(s\) \['x'\]"):
        JudgeData.coerce(judge_frame(x=[0] * 7), strict=True)
    with pytest.raises(DataError, match=r"a file path, '-' \(standard input\) .*; got int"):
        JudgeData.coerce(3)  # type: ignore[arg-type]


# =========================================================================== from_counts
def test_from_counts_arrays_and_counts() -> None:
    data = JudgeData.from_counts(3, 2, 4, 1, 5, 3)
    assert data.kind == "verdict"
    assert data.counts == JudgeCounts(m1=3, x1=2, m0=4, x0=1, n=5, k=3)
    np.testing.assert_array_equal(data.cal_label, [1, 1, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(data.cal_judge, [1, 1, 0, 1, 0, 0, 0])
    np.testing.assert_array_equal(data.test_judge, [1, 1, 1, 0, 0])
    assert data.strata == ()


def test_from_counts_accepts_whole_floats_and_numpy_ints() -> None:
    data = JudgeData.from_counts(np.int64(3), 2.0, 4, np.int32(1), 5.0, 3)  # type: ignore[arg-type]
    assert data.counts == JudgeCounts(3, 2, 4, 1, 5, 3)
    assert all(type(v) is int for v in data.counts.as_dict().values())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1, 0, 4, 1, 5, 3), "m1 must be a non-negative whole number; got -1"),
        ((3, 2, 4, -1, 5, 3), "x0 must be a non-negative whole number; got -1"),
        ((3, 2.5, 4, 1, 5, 3), "x1 must be a non-negative whole number; got 2.5"),
        ((3, 2, 4, 1, 5, float("nan")), "k must be a non-negative whole number; got nan"),
        ((3, 2, 4, 1, float("inf"), 3), "n must be a non-negative whole number; got inf"),
        ((3, 2, True, 1, 5, 3), "m0 must be a non-negative whole number; got True"),
        (("3", 2, 4, 1, 5, 3), "m1 must be a non-negative whole number; got '3'"),
        ((None, 2, 4, 1, 5, 3), "m1 must be a non-negative whole number; got None"),
        ((3, 4, 4, 1, 5, 3), "x1 must not exceed m1; got x1=4 > m1=3"),
        ((3, 2, 4, 5, 5, 3), "x0 must not exceed m0; got x0=5 > m0=4"),
        ((3, 2, 4, 1, 5, 6), "k must not exceed n; got k=6 > n=5"),
        ((0, 0, 4, 1, 5, 3), "no gold-PASS items (m1=0)"),
        ((3, 2, 0, 0, 5, 3), "no gold-FAIL items (m0=0)"),
        ((3, 2, 4, 1, 0, 0), "no unlabelled test items (n=0)"),
    ],
)
def test_from_counts_validation(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(DataError, match=re.escape(message)):
        JudgeData.from_counts(*args)  # type: ignore[arg-type]


def test_counts_derived_values_exact() -> None:
    # q1 = x1/m1 = 103/122, q0 = (m0-x0)/m0 = 399/401, p_hat = k/n = 50/3330,
    # J = q0 + q1 - 1; compared with exact fractions (tolerance: 1 ulp-level, 1e-15).
    counts = JudgeData.from_counts(122, 103, 401, 2, 3330, 50).counts
    assert counts.q1 == pytest.approx(float(Fraction(103, 122)), abs=1e-15)
    assert counts.q0 == pytest.approx(float(Fraction(399, 401)), abs=1e-15)
    assert counts.p_hat == pytest.approx(float(Fraction(50, 3330)), abs=1e-15)
    exact_j = Fraction(399, 401) + Fraction(103, 122) - 1
    assert counts.j == pytest.approx(float(exact_j), abs=1e-15)
    assert counts.as_dict() == {"m1": 122, "x1": 103, "m0": 401, "x0": 2, "n": 3330, "k": 50}


def test_counts_of_a_useless_and_an_inverted_judge() -> None:
    # A judge that passes everything has q1 = 1, q0 = 0, so J = 0 exactly.
    assert JudgeData.from_counts(5, 5, 7, 7, 3, 3).counts.j == 0.0
    # A judge that inverts every label has J = -1.
    assert JudgeData.from_counts(5, 0, 7, 7, 3, 1).counts.j == -1.0


valid_counts = st.integers(1, 400).flatmap(
    lambda m1: st.integers(1, 400).flatmap(
        lambda m0: st.integers(1, 2000).flatmap(
            lambda n: st.tuples(
                st.just(m1),
                st.integers(0, m1),
                st.just(m0),
                st.integers(0, m0),
                st.just(n),
                st.integers(0, n),
            )
        )
    )
)


@given(valid_counts)
def test_from_counts_round_trips_any_valid_counts(args: tuple[int, ...]) -> None:
    data = JudgeData.from_counts(*args)
    assert data.counts == JudgeCounts(*args)
    assert (data.m1, data.m0, data.n) == (args[0], args[2], args[4])


@given(valid_counts)
def test_flipped_swaps_the_classes(args: tuple[int, ...]) -> None:
    m1, x1, m0, x0, n, k = args
    data = JudgeData.from_counts(*args)
    flipped = data.flipped()
    assert flipped.counts == JudgeCounts(m1=m0, x1=m0 - x0, m0=m1, x0=m1 - x1, n=n, k=n - k)
    # Youden's J is symmetric under swapping PASS and FAIL (tolerance: rounding, 1e-12).
    assert flipped.counts.j == pytest.approx(data.counts.j, abs=1e-12)
    assert_same_judge_data(flipped.flipped(), data)


@given(valid_counts)
def test_to_frame_round_trips_counts_data(args: tuple[int, ...]) -> None:
    data = JudgeData.from_counts(*args)
    assert_same_judge_data(JudgeData.from_frame(data.to_frame()), data)


# =========================================================================== views
def stratified() -> JudgeData:
    return JudgeData.from_frame(
        pd.DataFrame(
            {
                "label": [1, 0, 1, 0, 1, None, None, None, None],
                "verdict": [1, 0, 0, 1, 1, 1, 0, 1, 1],
                "stratum": ["b", "b", "a", "a", "a", "a", "b", "c", "a"],
            }
        )
    )


def test_strata_and_stratum_views() -> None:
    data = stratified()
    assert data.strata == ("a", "b", "c")
    assert all(type(s) is str for s in data.strata)
    a = data.stratum("a")
    np.testing.assert_array_equal(a.cal_label, [1, 0, 1])
    np.testing.assert_array_equal(a.cal_judge, [0, 1, 1])
    np.testing.assert_array_equal(a.test_judge, [1, 1])
    assert a.counts == JudgeCounts(m1=2, x1=1, m0=1, x0=1, n=2, k=2)
    # A stratum with only test items is returned without checking its classes.
    c = data.stratum("c")
    assert (c.m, c.n) == (0, 1)
    # The strata partition the items.
    parts = [data.stratum(s) for s in data.strata]
    assert sum(p.m for p in parts) == data.m
    assert sum(p.n for p in parts) == data.n


def test_stratum_errors() -> None:
    with pytest.raises(DataError, match=both("unknown stratum 'z'", "['a', 'b', 'c']")):
        stratified().stratum("z")
    plain = JudgeData.from_frame(judge_frame())
    assert plain.strata == ()
    with pytest.raises(DataError, match=r"no 'stratum' column"):
        plain.stratum("a")


def test_flipped_keeps_strata_and_kind() -> None:
    data = stratified()
    flipped = data.flipped()
    assert flipped.kind == "verdict"
    assert flipped.strata == data.strata
    np.testing.assert_array_equal(flipped.cal_label, 1 - data.cal_label)
    scores = JudgeData.from_frame(pd.DataFrame({"label": [1, 0, None], "score": [0.8, 0.3, 0.6]}))
    np.testing.assert_allclose(scores.flipped().cal_judge, [0.2, 0.7], atol=1e-15)
    np.testing.assert_allclose(scores.flipped().test_judge, [0.4], atol=1e-15)


def test_to_frame_round_trip_verdicts_with_strata() -> None:
    data = stratified()
    frame = data.to_frame()
    assert list(frame.columns) == ["label", "verdict", "stratum"]
    assert frame["label"].isna().sum() == data.n
    assert_same_judge_data(JudgeData.from_frame(frame), data)
    assert_same_judge_data(JudgeData.from_frame(frame, strict=True), data)


def test_to_frame_round_trip_scores() -> None:
    data = JudgeData.from_frame(
        pd.DataFrame({"label": [1, None, 0, None], "score": [0.9, 0.4, 0.15, 0.0]})
    )
    frame = data.to_frame()
    assert list(frame.columns) == ["label", "score"]
    assert_same_judge_data(JudgeData.from_frame(frame), data)


def test_to_frame_round_trip_through_csv(tmp_path: Path) -> None:
    data = stratified()
    path = tmp_path / "round.csv"
    data.to_frame().to_csv(path, index=False)
    assert_same_judge_data(JudgeData.from_csv(path), data)


def test_repr() -> None:
    assert repr(stratified()) == "JudgeData(kind='verdict', m1=3, m0=2, n=4, strata=3)"
    assert repr(JudgeData.from_counts(3, 2, 4, 1, 5, 3)) == (
        "JudgeData(kind='verdict', m1=3, m0=4, n=5)"
    )


# =========================================================================== Rulings
def rulings_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item": ["q2", "q1", "q2", "q3", "q1", "q2", "q3"],
            "verdict": ["pass", 0, 1, "FAIL", "true", 0, 0],
            "label": [1, None, 1, 0, None, 1, 0],
            "slice": ["math", "code", "math", "code", "code", "math", "code"],
        }
    )


def test_rulings_aggregate_per_item() -> None:
    rulings = Rulings.from_frame(rulings_frame())
    assert rulings.items.tolist() == ["q2", "q1", "q3"]  # order of first appearance
    np.testing.assert_array_equal(rulings.r, [3, 2, 2])
    np.testing.assert_array_equal(rulings.k, [2, 1, 0])
    assert rulings.k.dtype.kind == "i"
    np.testing.assert_array_equal(rulings.label, [1.0, np.nan, 0.0])
    np.testing.assert_array_equal(rulings.labelled, [True, False, True])
    assert rulings.slice is not None
    assert rulings.slice.tolist() == ["math", "code", "code"]
    np.testing.assert_allclose(rulings.score, [2 / 3, 1 / 2, 0.0], atol=1e-15)
    assert repr(rulings) == "Rulings(items=3, labelled=2, rulings=7)"


def test_rulings_without_optional_columns() -> None:
    frame = pd.DataFrame({"item": [7, 7, 8], "verdict": [1, 1, 0]})
    rulings = Rulings.from_frame(frame)
    assert rulings.items.tolist() == ["7", "8"]
    assert np.isnan(rulings.label).all()
    assert rulings.slice is None


def test_rulings_from_csv(tmp_path: Path) -> None:
    path = write_csv(tmp_path, "item,ruling,verdict,label\na,1,PASS,1\na,2,fail,1\nb,1,pass,\n")
    rulings = Rulings.from_frame(path)
    np.testing.assert_array_equal(rulings.r, [2, 1])
    np.testing.assert_array_equal(rulings.k, [1, 1])


def test_rulings_duplicate_ruling_rows() -> None:
    frame = rulings_frame()
    frame["ruling"] = [1, 1, 2, 1, 2, 2, 2]
    with pytest.raises(DataError, match=both("['item', 'ruling']", "row 5 repeats ('q2', 2)")):
        Rulings.from_frame(frame)
    frame["ruling"] = [1, 1, 2, 1, 2, 3, 2]
    assert Rulings.from_frame(frame, allow_duplicates=False).r.tolist() == [3, 2, 2]


def test_rulings_allow_duplicates_false_needs_ruling_column() -> None:
    with pytest.raises(DataError, match=both("rulings: duplicate rulings", "'ruling' column")):
        Rulings.from_frame(rulings_frame(), allow_duplicates=False)


def test_rulings_inconsistent_label() -> None:
    frame = rulings_frame()
    frame.loc[5, "label"] = 0
    with pytest.raises(
        DataError, match=both("column 'label'", "same on every row", "row 5 (item 'q2') has 0.0")
    ):
        Rulings.from_frame(frame)


def test_rulings_label_missing_on_some_rows_of_an_item_is_inconsistent() -> None:
    frame = rulings_frame()
    frame.loc[2, "label"] = None
    with pytest.raises(
        DataError, match=both("column 'label'", "row 2 (item 'q2') has a missing value")
    ):
        Rulings.from_frame(frame)


def test_rulings_inconsistent_slice() -> None:
    frame = rulings_frame()
    frame.loc[4, "slice"] = "math"
    with pytest.raises(DataError, match=both("column 'slice'", "row 4 (item 'q1') has 'math'")):
        Rulings.from_frame(frame)


@pytest.mark.parametrize(
    ("column", "row", "value", "expected"),
    [
        ("verdict", 3, "maybe", "row 3 has 'maybe'"),
        ("verdict", 6, None, "not be missing (blank, NA, N/A, null, None or NaN): row 6"),
        ("label", 1, 5, "row 1 has 5"),
        ("item", 4, None, "not be blank: row 4"),
        ("item", 2, "  ", "not be blank: row 2"),
        ("slice", 0, None, "not be blank: row 0"),
    ],
)
def test_rulings_bad_values(column: str, row: int, value: object, expected: str) -> None:
    frame = rulings_frame().astype(object)
    frame.loc[row, column] = value
    with pytest.raises(DataError, match=both(f"column {column!r}", expected)):
        Rulings.from_frame(frame)


def test_rulings_missing_ruling_number() -> None:
    frame = rulings_frame()
    frame["ruling"] = [1, 1, 2, 1, None, 3, 2]
    with pytest.raises(DataError, match=both("column 'ruling'", "not be missing", "row 4")):
        Rulings.from_frame(frame)


def test_rulings_columns() -> None:
    with pytest.raises(
        DataError, match=both("rulings: no 'verdict' column", "did you mean 'pass'")
    ):
        Rulings.from_frame(pd.DataFrame({"item": ["a"], "pass": [1]}))
    frame = rulings_frame()
    frame["model"] = "x"
    with pytest.raises(DataError, match=both("rulings: unknown column(s) ['model'] (strict)")):
        Rulings.from_frame(frame, strict=True)
    assert Rulings.from_frame(frame).items.size == 3


# =========================================================================== LoopLog
def loop_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item": ["b", "a", "b", "a", "b", "c"],
            "attempt": [2, 2, 1, 1, 3, "1"],
            "verdict": [0, "pass", 0, "fail", 1, 1],
            "correct": [0, 1, 0, 0, "true", 0],
        }
    )


def test_loop_log_sorted_by_item_then_attempt() -> None:
    log = LoopLog.from_frame(loop_frame())
    assert log.item.tolist() == ["a", "a", "b", "b", "b", "c"]
    assert log.attempt.tolist() == [1, 2, 1, 2, 3, 1]
    assert log.attempt.dtype.kind == "i"
    np.testing.assert_array_equal(log.verdict, [0, 1, 0, 0, 1, 1])
    np.testing.assert_array_equal(log.correct, [0, 1, 0, 0, 1, 0])
    assert repr(log) == "LoopLog(items=3, attempts=6)"


def test_loop_log_whole_float_attempts(tmp_path: Path) -> None:
    path = write_csv(tmp_path, "item,attempt,verdict,correct\nx,2.0,1,1\nx,1.0,0,0\n")
    log = LoopLog.from_frame(path)
    assert log.attempt.tolist() == [1, 2]


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0, "0"), (-1, "-1"), (1.5, "1.5"), ("x", "'x'"), (np.inf, "inf")],
)
def test_loop_log_attempt_must_be_whole_and_positive(value: object, shown: str) -> None:
    frame = loop_frame().astype(object)
    frame.loc[3, "attempt"] = value
    with pytest.raises(DataError, match=both("column 'attempt'", ">= 1", f"row 3 has {shown}")):
        LoopLog.from_frame(frame)


def test_loop_log_missing_attempt() -> None:
    frame = loop_frame().astype(object)
    frame.loc[2, "attempt"] = None
    with pytest.raises(DataError, match=both("column 'attempt'", "not be missing", "row 2")):
        LoopLog.from_frame(frame)


def test_loop_log_unique_item_attempt() -> None:
    frame = loop_frame()
    frame.loc[4, "attempt"] = 1
    with pytest.raises(DataError, match=both("['item', 'attempt']", "row 4 repeats ('b', 1)")):
        LoopLog.from_frame(frame)


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        ("verdict", "ok", "row 1 has 'ok'"),
        ("correct", 2, "row 1 has 2"),
        ("correct", None, "not be missing (blank, NA, N/A, null, None or NaN): row 1"),
        ("item", None, "not be blank: row 1"),
    ],
)
def test_loop_log_bad_values(column: str, value: object, expected: str) -> None:
    frame = loop_frame().astype(object)
    frame.loc[1, column] = value
    with pytest.raises(DataError, match=both(f"column {column!r}", expected)):
        LoopLog.from_frame(frame)


def test_loop_log_columns() -> None:
    with pytest.raises(DataError, match=both("loop log: no 'correct' column")):
        LoopLog.from_frame(loop_frame().drop(columns="correct"))
    frame = loop_frame()
    frame["note"] = ""
    with pytest.raises(DataError, match=both("loop log: unknown column(s) ['note'] (strict)")):
        LoopLog.from_frame(frame, strict=True)
    assert LoopLog.from_frame(frame).item.size == 6


# =========================================================================== PairedOutcomes
def test_paired_outcomes_stages_and_slices() -> None:
    frame = pd.DataFrame(
        {
            "e1": ["pass", "fail", 1],
            "item": [10, 11, 12],
            "e0": [0, 1, "true"],
            "e2": [1, 0, 0],
            "slice": ["a", "b", "a"],
        }
    )
    paired = PairedOutcomes.from_frame(frame, strict=True)
    assert paired.stages == ("e0", "e1", "e2")
    np.testing.assert_array_equal(paired.outcomes, [[0, 1, 1], [1, 0, 0], [1, 1, 0]])
    assert paired.outcomes.dtype.kind == "i"
    assert paired.items.tolist() == ["10", "11", "12"]
    assert paired.slice is not None
    assert paired.slice.tolist() == ["a", "b", "a"]
    assert repr(paired) == "PairedOutcomes(items=3, stages=['e0', 'e1', 'e2'])"


def test_paired_outcomes_many_stages_sorted_numerically() -> None:
    columns = {f"e{i}": [i % 2, (i + 1) % 2] for i in range(12)}
    paired = PairedOutcomes.from_frame(pd.DataFrame({"item": ["x", "y"], **columns}))
    assert paired.stages == tuple(f"e{i}" for i in range(12))
    np.testing.assert_array_equal(paired.outcomes[0], [i % 2 for i in range(12)])
    assert paired.slice is None


@pytest.mark.parametrize(
    "stages",
    [["e0"], ["e0", "e2"], ["e1", "e2"], ["e0", "e1", "e3"], []],
    ids=str,
)
def test_paired_outcomes_need_consecutive_stages(stages: list[str]) -> None:
    frame = pd.DataFrame({"item": ["a", "b"], **{s: [0, 1] for s in stages}})
    with pytest.raises(DataError, match=both("consecutive stage columns e0, e1", "the table has")):
        PairedOutcomes.from_frame(frame)


def test_paired_outcomes_unique_items() -> None:
    frame = pd.DataFrame({"item": ["a", "b", " a"], "e0": [0, 1, 1], "e1": [1, 1, 0]})
    with pytest.raises(DataError, match=both("['item']", "each item once", "row 2 repeats 'a'")):
        PairedOutcomes.from_frame(frame)


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        ("e1", "improved", "row 1 has 'improved'"),
        ("e0", None, "not be missing (blank, NA, N/A, null, None or NaN): row 1"),
        ("item", None, "not be blank: row 1"),
        ("slice", "", "not be blank: row 1"),
    ],
)
def test_paired_outcomes_bad_values(column: str, value: object, expected: str) -> None:
    frame = pd.DataFrame(
        {"item": ["a", "b", "c"], "e0": [0, 1, 1], "e1": [1, 1, 0], "slice": ["s", "t", "s"]}
    ).astype(object)
    frame.loc[1, column] = value
    with pytest.raises(DataError, match=both(f"column {column!r}", expected)):
        PairedOutcomes.from_frame(frame)


def test_paired_outcomes_columns(tmp_path: Path) -> None:
    path = write_csv(tmp_path, "e0,e1\n0,1\n1,1\n")
    with pytest.raises(DataError, match=both("data.csv: no 'item' column")):
        PairedOutcomes.from_frame(path)
    path = write_csv(tmp_path, "item,e0,e1,step\na,0,1,x\n", name="extra.csv")
    with pytest.raises(DataError, match=both("extra.csv: unknown column(s) ['step'] (strict)")):
        PairedOutcomes.from_frame(path, strict=True)
    assert PairedOutcomes.from_frame(path).outcomes.tolist() == [[0, 1]]


# =========================================================================== load_example
def test_load_example_judge() -> None:
    frame = load_example("judge")
    assert list(frame.columns) == ["label", "verdict"]
    assert frame.shape == (2300, 2)
    data = JudgeData.from_frame(frame, strict=True)
    assert (data.m1, data.m0, data.n) == (150, 150, 2000)
    assert load_example() is not load_example()  # a fresh table each call
    assert bayesjudge.load_example is load_example


def test_load_example_matches_its_documented_simulation() -> None:
    frame = load_example("judge")
    simulated = judge_table(pi=0.7, se=0.9, sp=0.85, n=2000, m1=150, m0=150, random_seed=2002)
    np.testing.assert_array_equal(frame["verdict"].to_numpy(), simulated["verdict"].to_numpy())
    np.testing.assert_array_equal(
        frame["label"].to_numpy(dtype=float, na_value=np.nan),
        simulated["label"].to_numpy(dtype=float, na_value=np.nan),
    )


def test_load_example_unknown_name() -> None:
    message = (
        "name must be one of ['channel', 'gate', 'judge', 'panel', 'repeated', 'systems']; "
        "got 'nope'"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        load_example("nope")  # type: ignore[arg-type]


# =========================================================================== documentation
DOCS = Path(__file__).resolve().parents[1] / "docs"
CSV_BLOCK = re.compile(r"```\{code-block\} text\n:caption: (\S+\.csv)\n\n(.*?)```", re.DOTALL)


@pytest.mark.parametrize("page", ["getting-started.md", "data.md"])
def test_docs_pages_run_as_doctests(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import doctest

    path = DOCS / page
    text = path.read_text(encoding="utf-8")
    for name, content in CSV_BLOCK.findall(text):  # the files the page shows, written verbatim
        (tmp_path / name).write_text(content, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = doctest.testfile(
        str(path),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        verbose=False,
    )
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in docs/{page}"


def test_docs_data_page_shows_its_files() -> None:
    names = [name for name, _ in CSV_BLOCK.findall((DOCS / "data.md").read_text())]
    assert names == ["judge.csv", "bad.csv", "rulings.csv", "loop.csv", "paired.csv"]


@pytest.mark.parametrize("name", ["judge", "gate", "channel", "systems", "panel"])
def test_bundled_examples_load_into_their_contracts(name: str) -> None:
    import bayesjudge as bj
    from bayesjudge.channels import PairedOutcomes
    from bayesjudge.gates import Rulings

    frame = bj.load_example(name)
    if name == "judge":
        data = bj.JudgeData.from_frame(frame)
        assert (data.m1, data.m0, data.n) == (150, 150, 2000)
    elif name == "gate":
        rulings = Rulings.from_frame(frame)
        assert (rulings.items.size, int(rulings.labelled.sum())) == (1000, 160)
        assert set(rulings.r.tolist()) == {6}
        # the gold set was drawn by class: 80 compliant and 80 violating items
        assert int((rulings.label == 1).sum()) == int((rulings.label == 0).sum()) == 80
    elif name == "channel":
        outcomes = PairedOutcomes.from_frame(frame)
        assert outcomes.stages == ("e0", "e1", "e2")
        assert sorted(set(outcomes.slice.tolist())) == ["easy", "hard", "medium"]
    elif name == "systems":
        answers = bj.SystemsData.read(frame)
        assert answers.systems == ("assistant-a", "assistant-b", "assistant-c")
        assert (len(answers.items), answers.paired) == (400, True)
    else:
        panel = bj.PanelData.from_wide(frame)
        assert panel.judges == ("a", "a_copy", "b", "c")
    with pytest.raises(ValueError, match=r"name must be one of \['channel', 'gate', 'judge'"):
        bj.load_example("jury")  # type: ignore[arg-type]
