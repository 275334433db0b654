"""Tests of bayesjudge.io.problems: one DataError listing every problem."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesjudge.errors import DataError
from bayesjudge.io import Problems, row_names


def test_no_problems_raises_nothing() -> None:
    problems = Problems("x.csv")
    problems.raise_if_any()
    assert not problems
    assert len(problems) == 0


def test_one_problem_is_one_line() -> None:
    problems = Problems("x.csv")
    problems.add("no 'label' column")
    problems.add("no 'label' column")  # recorded once
    with pytest.raises(DataError) as info:
        problems.raise_if_any()
    assert str(info.value) == "x.csv: no 'label' column"


def test_rows_merge_up_to_the_limit_and_count_the_rest() -> None:
    problems = Problems("x.csv", limit=3)
    message = "column 'verdict' must be PASS or FAIL"
    problems.add_rows(message, rows=["line 2", "line 3"], values=["a", "b"])
    problems.add_rows(message, rows=["line 9", "line 10"], values=["c", None], total=7)
    assert problems.lines() == [
        f"{message}: line 2 has 'a', line 3 has 'b', line 9 has 'c', and 6 more rows"
    ]


def test_rows_without_values_and_a_single_extra_row() -> None:
    problems = Problems("x.csv", limit=1)
    problems.add_rows("column 'item' must not be blank", rows=["line 4", "line 5"])
    assert problems.lines() == ["column 'item' must not be blank: line 4, and 1 more row"]


def test_merge_keeps_sources_apart() -> None:
    first, second = Problems("a.csv"), Problems("b.csv")
    first.add_rows("bad", rows=["line 2"], values=["x"])
    second.add_rows("bad", rows=["line 7"], values=[np.float64("nan")])
    total = Problems("2 files")
    total.merge(first)
    total.merge(second)
    assert total.message() == (
        "2 files: 2 problems:\n"
        "  - a.csv: bad: line 2 has 'x'\n"
        "  - b.csv: bad: line 7 has a missing value"
    )


def test_long_values_are_shortened() -> None:
    problems = Problems("x")
    problems.add_rows("bad", rows=["row 0"], values=["z" * 100])
    assert problems.lines()[0].endswith("...")
    assert len(problems.lines()[0]) < 70


def test_mismatched_values_and_bad_limit() -> None:
    with pytest.raises(ValueError, match="one value per row"):
        Problems("x").add_rows("bad", rows=["row 1"], values=[])
    with pytest.raises(ValueError, match="limit must be at least 1"):
        Problems("x", limit=0)


def test_row_names() -> None:
    assert row_names(pd.RangeIndex(5, 9, name="row"), [0, 2]) == ["row 5", "row 7"]
    assert row_names(pd.RangeIndex(3), np.array([2])) == ["row 2"]
    assert row_names(pd.Index(["a", "b"], name="item"), [0]) == ["row 'a'"]
