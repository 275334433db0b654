"""Tests of bayesjudge.io.mapping: column and value mapping, all problems at once, scores."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bayesjudge.errors import DataError
from bayesjudge.io import (
    Field,
    OneOf,
    Spellings,
    conform,
    parse_map,
    read_table,
    suggest_columns,
    verdicts_from_scores,
)
from bayesjudge.io.mapping import NEGATIVE_SPELLINGS, POSITIVE_SPELLINGS

JUDGE = (
    Field("label", "binary", missing=True),
    OneOf((Field("verdict", "binary"), Field("score", "score"))),
    Field("stratum", "text", required=False),
    Field("item", "text", required=False),
)

EXPORT = (
    "id,prompt,model_output,judge_score,judge_verdict,human_label\n"
    '001,"What is 2+2?","4",0.91,correct,correct\n'
    '002,"Capital of France?","Lyon\nor Paris",0.20,incorrect,incorrect\n'
    "003,q,a,0.75,correct,\n"
    "004,q,a,0.40,incorrect,NA\n"
)


def export_table() -> pd.DataFrame:
    return read_table(io.BytesIO(EXPORT.encode()))


# --------------------------------------------------------------------------- the ordinary export
def test_an_ordinary_export_gets_suggestions_for_every_missing_column() -> None:
    with pytest.raises(DataError) as info:
        conform(export_table(), JUDGE)
    message = str(info.value)
    assert message.startswith("<stream>: 2 problems:\n")
    assert (
        "no 'label' column; did you mean 'human_label'? use --map label=human_label "
        "(in Python: columns={'label': 'human_label'})" in message
    )
    assert "no 'verdict' or 'score' column; did you mean 'judge_verdict' or 'judge_score'" in (
        message
    )
    assert "use --map verdict=judge_verdict" in message


def test_an_ordinary_export_maps_and_parses() -> None:
    columns = parse_map(["label=human_label", "verdict=judge_verdict", "item=id"])
    table = conform(export_table(), JUDGE, columns=columns)
    assert table["item"].tolist() == ["001", "002", "003", "004"]
    np.testing.assert_array_equal(table["label"], [1.0, 0.0, np.nan, np.nan])
    np.testing.assert_array_equal(table["verdict"], [1.0, 0.0, 1.0, 0.0])
    assert table.index.tolist() == [2, 3, 5, 6]  # the second record spans lines 3-4
    assert table.attrs["columns"] == {
        "label": "human_label",
        "verdict": "judge_verdict",
        "item": "id",
    }


def test_a_score_column_becomes_verdicts_with_a_threshold() -> None:
    table = conform(export_table(), JUDGE, columns={"label": "human_label", "score": "judge_score"})
    np.testing.assert_allclose(table["score"], [0.91, 0.20, 0.75, 0.40])
    verdict = verdicts_from_scores(table["score"].to_numpy(), threshold=0.75)
    np.testing.assert_array_equal(verdict, [1.0, 0.0, 1.0, 0.0])  # 0.75 >= 0.75 passes


@pytest.mark.parametrize("threshold", [-0.1, 1.5, float("nan"), True, "0.5"])
def test_threshold_must_be_in_the_unit_interval(threshold: object) -> None:
    with pytest.raises(ValueError, match="threshold must be a number in \\[0, 1\\]"):
        verdicts_from_scores([0.5], threshold=threshold)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- parse_map
def test_parse_map_accepts_one_string_and_equals_in_column_names() -> None:
    assert parse_map("label = a=b") == {"label": "a=b"}


@pytest.mark.parametrize("pair", ["label", "=x", "label=", "  =  "])
def test_parse_map_refuses_malformed_pairs(pair: str) -> None:
    with pytest.raises(DataError, match=re.escape("--map takes NAME=COLUMN")):
        parse_map([pair])


def test_parse_map_refuses_a_name_twice() -> None:
    with pytest.raises(DataError, match="'label' is mapped twice"):
        parse_map(["label=a", "label=b"])


# --------------------------------------------------------------------------- suggestions
@pytest.mark.parametrize(
    ("name", "available", "expected"),
    [
        ("label", ["gold", "verdict"], ["gold"]),
        ("label", ["Label"], ["Label"]),
        ("label", ["is_correct"], ["is_correct"]),
        ("label", ["lable"], ["lable"]),
        ("verdict", ["grade", "prompt"], ["grade"]),
        ("item", ["doc_id", "text"], ["doc_id"]),
        ("score", ["probability"], ["probability"]),
        ("label", ["prompt", "output"], []),
    ],
)
def test_suggest_columns(name: str, available: list[str], expected: list[str]) -> None:
    assert suggest_columns(name, available) == expected


def test_no_suggestion_lists_the_columns() -> None:
    frame = pd.DataFrame({"a": [1], "b": [0]})
    with pytest.raises(DataError, match=r"no 'label' column; the table has 'a', 'b'; name one"):
        conform(frame, [Field("label", "binary")])


# --------------------------------------------------------------------------- values
SPELLINGS = [(s, 1.0) for s in POSITIVE_SPELLINGS] + [(s, 0.0) for s in NEGATIVE_SPELLINGS]


@pytest.mark.parametrize(("text", "expected"), SPELLINGS)
def test_builtin_spellings_in_any_case_with_spaces(text: str, expected: float) -> None:
    frame = pd.DataFrame({"verdict": [text, f"  {text.upper()} ", text.title()]})
    out = conform(frame, [Field("verdict", "binary")])
    np.testing.assert_array_equal(out["verdict"], [expected] * 3)


@given(
    st.lists(
        st.tuples(st.sampled_from(SPELLINGS), st.sampled_from(["", " ", "\t"]), st.booleans()),
        min_size=1,
        max_size=30,
    )
)
def test_spellings_property(cells: list[tuple[tuple[str, float], str, bool]]) -> None:
    raw = [pad + (t.upper() if up else t) + pad for (t, _), pad, up in cells]
    out = conform(pd.DataFrame({"label": raw}), [Field("label", "binary")])
    np.testing.assert_array_equal(out["label"], [v for (_, v), _, _ in cells])


def test_typed_dataframe_values() -> None:
    frame = pd.DataFrame(
        {"label": [True, False, None, np.nan], "verdict": [1, 0, 1.0, 0.0]}, dtype=object
    )
    out = conform(frame, [Field("label", "binary", missing=True), Field("verdict", "binary")])
    np.testing.assert_array_equal(out["label"], [1.0, 0.0, np.nan, np.nan])
    np.testing.assert_array_equal(out["verdict"], [1.0, 0.0, 1.0, 0.0])


@pytest.mark.parametrize(
    "text", ["", " ", "NA", "n/a", "N/A", "null", "NULL", "None", "NaN", "nan"]
)
def test_missing_label_spellings_mean_unlabelled(text: str) -> None:
    out = conform(pd.DataFrame({"label": [text, "1"]}), [Field("label", "binary", missing=True)])
    assert np.isnan(out["label"].iloc[0])
    assert out["label"].iloc[1] == 1.0


def test_missing_verdict_is_an_error_naming_lines(tmp_path: Path) -> None:
    path = tmp_path / "j.csv"
    path.write_text("label,verdict\n1,pass\n\n0,NA\n,\n")
    with pytest.raises(DataError, match=re.escape("must not be missing (blank, NA, N/A, null")):
        conform(read_table(path), JUDGE)
    with pytest.raises(DataError, match="line 4 has 'NA', line 5 has ''"):
        conform(read_table(path), JUDGE)


def test_user_spellings_win_and_conflicts_are_refused() -> None:
    frame = pd.DataFrame({"label": ["good", "BAD", "no"]})
    out = conform(frame, [Field("label", "binary")], positive=["good"], negative=("bad", "no"))
    np.testing.assert_array_equal(out["label"], [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=re.escape("positive and negative both hold ['x']")):
        Spellings(positive=("x",), negative=("X ",))


def test_spellings_codes() -> None:
    codes = Spellings().codes(["yes", "No", "", None, "maybe", 2, 1.0, np.int64(0), np.True_])
    assert codes.tolist() == [1, 0, -1, -1, -2, -2, 1, 0, 1]


# --------------------------------------------------------------------------- all problems at once
def test_every_bad_column_is_reported_with_five_rows_and_a_count(tmp_path: Path) -> None:
    rows = ["label,verdict,score_x,stratum"]
    for i in range(30):
        label = "maybe" if i % 3 == 0 else "1"
        verdict = "??" if i % 4 == 0 else "fail"
        stratum = "" if i in (7, 8) else "s"
        rows.append(f"{label},{verdict},0.5,{stratum}")
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(DataError) as info:
        conform(read_table(path), JUDGE)
    lines = str(info.value).splitlines()
    assert lines[0] == f"{path}: 3 problems:"
    assert lines[1].startswith("  - column 'label' must hold PASS/FAIL values (1/0, true/false")
    assert lines[1].endswith(
        "line 2 has 'maybe', line 5 has 'maybe', line 8 has 'maybe', line 11 has 'maybe', "
        "line 14 has 'maybe', and 5 more rows"
    )
    assert lines[2].startswith("  - column 'verdict' must hold PASS/FAIL values")
    assert lines[2].endswith("line 18 has '??', and 3 more rows")
    assert lines[3] == "  - column 'stratum' must not be blank: line 9, line 10"


def test_score_problems_are_listed() -> None:
    frame = pd.DataFrame({"label": ["1", "0", "", ""], "score": ["0.5", "1.5", "x", "NA"]})
    with pytest.raises(DataError) as info:
        conform(frame, JUDGE)
    message = str(info.value)
    assert "column 'score' must not be missing (blank, NA" in message
    assert "row 3 has 'NA'" in message
    assert "column 'score' must hold numbers in [0, 1]: row 1 has '1.5', row 2 has 'x'" in message


def test_column_problems_are_listed_together() -> None:
    frame = pd.DataFrame({"labels": ["1"], "verdict": ["1"], "score": ["0.5"], "x": ["1"]})
    with pytest.raises(DataError) as info:
        conform(
            frame,
            JUDGE,
            columns={"stratum": "grp", "judge": "x", "item": "verdict"},
            strict=True,
        )
    message = str(info.value)
    assert "cannot map 'stratum' to 'grp': the table has no such column" in message
    assert "cannot map 'judge': the columns read here are" in message
    assert "no 'label' column; did you mean 'labels'?" in message
    assert "use one of the columns 'verdict' or 'score', not both" not in message
    assert "unknown column(s) ['labels', 'x'] (strict)" in message


def test_both_alternatives_are_refused() -> None:
    frame = pd.DataFrame({"label": ["1"], "verdict": ["1"], "score": ["0.5"]})
    with pytest.raises(DataError, match="use one of the columns 'verdict' or 'score', not both"):
        conform(frame, JUDGE)


def test_one_column_mapped_twice() -> None:
    frame = pd.DataFrame({"a": ["1"]})
    with pytest.raises(DataError, match="column 'a' is mapped to both 'label' and 'verdict'"):
        conform(frame, JUDGE, columns={"label": "a", "verdict": "a"})


def test_an_explicit_mapping_wins_over_a_same_named_column() -> None:
    frame = pd.DataFrame({"label": ["junk"], "gold": ["yes"], "verdict": ["no"]})
    out = conform(frame, JUDGE, columns={"label": "gold"})
    assert out["label"].tolist() == [1.0]


def test_whole_numbers() -> None:
    frame = pd.DataFrame({"attempt": ["1", "2", "0", "1.5", "x", ""]})
    with pytest.raises(DataError) as info:
        conform(frame, [Field("attempt", "whole", minimum=1)])
    message = str(info.value)
    assert "must hold whole numbers >= 1: row 2 has '0', row 3 has '1.5', row 4 has 'x'" in message
    assert "must not be missing" in message
    out = conform(frame.iloc[:2], [Field("attempt", "whole", minimum=1)])
    assert out["attempt"].tolist() == [1, 2]
    assert out["attempt"].dtype == np.int64


def test_text_fields_keep_text_as_written() -> None:
    frame = pd.DataFrame({"item": [" 007 ", "NA", "None"]})
    assert conform(frame, [Field("item", "text")])["item"].tolist() == ["007", "NA", "None"]


def test_bad_field_kind() -> None:
    with pytest.raises(ValueError, match=re.escape("kind must be one of ['binary', 'score'")):
        Field("x", "bool")  # type: ignore[arg-type]


def test_a_dataframe_index_is_kept_even_with_repeated_labels() -> None:
    frame = pd.DataFrame({"label": ["1", "0", "x"], "verdict": ["y", "n", "y"]}, index=list("aab"))
    out = conform(frame.iloc[:2], JUDGE)
    assert out.index.tolist() == ["a", "a"]
    with pytest.raises(DataError, match="row 'b' has 'x'"):
        conform(frame, JUDGE)
