"""JudgeData and JudgeCounts read through the input layer: formats, mapping, labels, epochs.

Every input below is written by the test; each error path checks the message names the file,
the column or the row (by its line in the file).
"""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.errors import DataError
from bayesjudge.io.logs import EvalLog
from bayesjudge.io.logs._evallog import NAN, Ruling
from bayesjudge.prevalence.data import JudgeCounts, JudgeData, can_stream

EXPORT = (
    "id,prompt,model_output,judge_score,judge_verdict,human_label\n"
    "001,q1,a,0.91,correct,correct\n"
    "002,q2,a,0.20,incorrect,incorrect\n"
    "003,q3,a,0.75,correct,\n"
    "004,q4,a,0.40,incorrect,NA\n"
    "005,q5,a,0.80,correct,correct\n"
    "006,q6,a,0.10,incorrect,incorrect\n"
    "007,q7,a,0.95,correct,null\n"
)
EXPORT_MAP = {"label": "human_label", "verdict": "judge_verdict"}
EXPORT_COUNTS = JudgeCounts(m1=2, x1=2, m0=2, x0=0, n=3, k=2)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def both(*parts: str) -> str:
    return ".*".join(re.escape(p) for p in parts)


# --------------------------------------------------------------------------- formats
def test_an_ordinary_export_with_its_own_names(tmp_path: Path) -> None:
    data = JudgeData.from_csv(write(tmp_path / "export.csv", EXPORT), columns=EXPORT_MAP)
    assert data.counts == EXPORT_COUNTS
    assert data.origin is not None
    assert data.origin.columns == {**EXPORT_MAP, "item": "id"}  # id read as the item (issue 26)
    assert (data.origin.format, data.origin.rows, data.origin.items) == ("csv", 7, 7)


@pytest.mark.parametrize("fmt", ["tsv", "jsonl", "parquet"])
def test_every_table_format_gives_the_same_data(tmp_path: Path, fmt: str) -> None:
    frame = pd.read_csv(io.StringIO(EXPORT), dtype=str, keep_default_na=False)
    path = tmp_path / f"export.{fmt}"
    if fmt == "tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif fmt == "jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_parquet(path, index=False)
    data = JudgeData.from_csv(path, columns=EXPORT_MAP)
    assert data.counts == EXPORT_COUNTS
    assert data.origin is not None
    assert data.origin.format == fmt


def test_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(EXPORT.encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    data = JudgeData.from_csv("-", columns=EXPORT_MAP)
    assert data.counts == EXPORT_COUNTS
    assert data.origin is not None
    assert data.origin.source == "<stdin>"


def test_forced_format_reads_a_file_without_its_extension(tmp_path: Path) -> None:
    path = write(tmp_path / "export.txt", EXPORT.replace(",", "\t"))
    data = JudgeData.from_csv(path, format="tsv", columns=EXPORT_MAP)
    assert data.counts == EXPORT_COUNTS
    with pytest.raises(ValueError, match=r"format must be one of \[.*'openai_evals'\]; got 'xls'"):
        JudgeData.from_csv(path, format="xls")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- problems
def test_every_problem_at_once_named_by_file_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "bad.csv",
        "human_label,judge_verdict\ncorrect,yes\n\nperhaps,no\n,maybe\n\n,\nincorrect,no\n",
    )
    with pytest.raises(DataError) as info:
        JudgeData.from_csv(path, columns=EXPORT_MAP)
    lines = str(info.value).splitlines()
    assert lines[0] == f"{path}: 3 problems:"
    assert "column 'label'" in lines[1]
    assert lines[1].endswith("line 4 has 'perhaps'")
    assert "column 'verdict'" in lines[2]
    assert lines[2].endswith("line 5 has 'maybe'")
    assert "must not be missing" in lines[3]
    assert lines[3].endswith("line 7 has ''")


def test_a_missing_column_suggests_the_mapping(tmp_path: Path) -> None:
    path = write(tmp_path / "export.csv", EXPORT)
    with pytest.raises(DataError) as info:
        JudgeData.from_csv(path)
    message = str(info.value)
    assert "no 'label' column; did you mean 'human_label'? use --map label=human_label" in message
    assert "no 'verdict' or 'score' column; did you mean 'judge_verdict'" in message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("label,verdict,label\n1,1,1\n", "names a column more than once: 'label' (columns 1, 3)"),
        ("", "the file is empty"),
        ("label,verdict\n", "no data rows"),
    ],
)
def test_bad_files(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(DataError, match=re.escape(message)):
        JudgeData.from_csv(write(tmp_path / "data.csv", text))


def test_a_directory_is_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"stands for several files .*JudgeCounts\.from_file"):
        JudgeData.from_csv(tmp_path)


def test_duplicate_column_names_in_a_dataframe() -> None:
    frame = pd.DataFrame([[1, 1, 0]], columns=["label", "verdict", "verdict"])
    with pytest.raises(DataError, match=r"names a column more than once: 'verdict'"):
        JudgeData.from_frame(frame)


def test_the_class_checks_name_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "d.csv", "label,verdict\n1,1\n1,0\n,1\n")
    with pytest.raises(DataError, match=both(f"{path}: column 'label'", "no gold-FAIL")):
        JudgeData.from_csv(path)


# --------------------------------------------------------------------------- missing labels
@pytest.mark.parametrize("missing", ["", "NA", "n/a", "null", "None", "NaN", "nan", " NULL "])
def test_the_missing_label_rule(tmp_path: Path, missing: str) -> None:
    path = write(tmp_path / "d.csv", f"label,verdict\n1,1\n0,0\n{missing},1\n")
    assert JudgeData.from_csv(path).counts == JudgeCounts(1, 1, 1, 0, 1, 1)


def test_missing_labels_in_a_dataframe() -> None:
    frame = pd.DataFrame({"label": [1, 0, None, np.nan, pd.NA], "verdict": [1, 0, 1, 0, 1]})
    assert JudgeData.from_frame(frame).n == 3


# --------------------------------------------------------------------------- scores
def test_threshold_turns_scores_into_verdicts(tmp_path: Path) -> None:
    path = write(tmp_path / "export.csv", EXPORT)
    columns = {"label": "human_label", "score": "judge_score"}
    data = JudgeData.from_csv(path, columns=columns, threshold=0.8)
    # 0.80 is exactly at the threshold, so it passes
    assert data.counts == JudgeCounts(m1=2, x1=2, m0=2, x0=0, n=3, k=1)
    assert data.origin is not None
    assert data.origin.threshold == 0.8
    scores = JudgeData.from_csv(path, columns=columns)
    assert scores.kind == "score"
    np.testing.assert_array_equal(scores.thresholded(0.8).cal_judge, data.cal_judge)
    assert scores.thresholded(0.8).origin.threshold == 0.8  # type: ignore[union-attr]


def test_threshold_errors(tmp_path: Path) -> None:
    path = write(tmp_path / "export.csv", EXPORT)
    with pytest.raises(DataError, match=r"threshold turns a 'score' column into verdicts"):
        JudgeData.from_csv(path, columns=EXPORT_MAP, threshold=0.5)
    with pytest.raises(ValueError, match=r"threshold must be a number in \[0, 1\]; got 1.5"):
        JudgeData.from_csv(path, columns=EXPORT_MAP, threshold=1.5)
    with pytest.raises(DataError, match=r"threshold: these judge data hold binary verdicts"):
        JudgeData.from_csv(path, columns=EXPORT_MAP).thresholded(0.5)


# --------------------------------------------------------------------------- labels apart
RESULTS = "sample_id,judge\n007,yes\n7,no\n008,yes\n009,no\n010,yes\n"


def test_labels_joined_by_id_as_text(tmp_path: Path) -> None:
    results = write(tmp_path / "results.csv", RESULTS)
    gold = write(tmp_path / "gold.csv", "sample_id,truth\n007,correct\n7,incorrect\n010,NA\n")
    data = JudgeData.from_csv(
        results,
        columns={"item": "sample_id", "verdict": "judge"},
        labels=gold,
        label_columns={"item": "sample_id", "label": "truth"},
    )
    # "007" and "7" are two items; 010's label is missing, so it stays unlabelled
    assert data.counts == JudgeCounts(m1=1, x1=1, m0=1, x0=0, n=3, k=2)
    join = data.origin.join  # type: ignore[union-attr]
    assert join is not None
    assert (join.labelled, join.unlabelled, join.blank_labels) == (2, 3, 1)


def test_a_label_id_absent_from_the_data_is_named(tmp_path: Path) -> None:
    results = write(tmp_path / "results.csv", RESULTS)
    gold = write(tmp_path / "gold.csv", "item,label\n0007,1\n7,0\n")
    with pytest.raises(DataError, match=both("not among the results' ids: '0007'", "'007'")):
        JudgeData.from_csv(results, columns={"item": "sample_id", "verdict": "judge"}, labels=gold)


def test_labels_in_both_places_are_refused(tmp_path: Path) -> None:
    results = write(tmp_path / "r.csv", "item,label,verdict\na,1,1\nb,0,0\nc,,1\n")
    gold = write(tmp_path / "g.csv", "item,label\na,1\n")
    with pytest.raises(DataError, match=r"already carry labels in column 'label'"):
        JudgeData.from_csv(results, labels=gold)


REPEATS = "item,verdict\na,1\na,0\na,1\nb,0\nb,0\nc,1\nc,0\nd,1\n"


@pytest.mark.parametrize(
    ("epochs", "expected"),
    [
        ("first", JudgeCounts(m1=1, x1=1, m0=1, x0=0, n=2, k=2)),
        ("majority", JudgeCounts(m1=1, x1=1, m0=1, x0=0, n=2, k=1)),  # c ties: fails
        ("any", JudgeCounts(m1=1, x1=1, m0=1, x0=0, n=2, k=2)),
        ("all", JudgeCounts(m1=1, x1=0, m0=1, x0=0, n=2, k=1)),
    ],
)
def test_epochs_combine_repeated_rows(tmp_path: Path, epochs: str, expected: JudgeCounts) -> None:
    results = write(tmp_path / "r.csv", REPEATS)
    gold = write(tmp_path / "g.csv", "item,label\na,1\nb,0\n")
    data = JudgeData.from_csv(results, labels=gold, epochs=epochs)  # type: ignore[arg-type]
    assert data.counts == expected
    assert data.origin is not None
    assert data.origin.join is not None
    assert data.origin.join.combined_rows == 4


def test_epochs_errors(tmp_path: Path) -> None:
    results = write(tmp_path / "r.csv", REPEATS)
    gold = write(tmp_path / "g.csv", "item,label\na,1\nb,0\n")
    with pytest.raises(DataError, match=both("several rows", "'a' (3 rows)", "epochs='first'")):
        JudgeData.from_csv(results, labels=gold)
    with pytest.raises(ValueError, match=r"epochs must be one of \['first', 'majority', 'any'"):
        JudgeData.from_csv(results, labels=gold, epochs="mean")  # type: ignore[arg-type]
    own = write(tmp_path / "own.csv", "label,verdict\n1,1\n0,0\n,1\n")
    with pytest.raises(DataError, match=r"epochs='any' combines the rows of one item when gold"):
        JudgeData.from_csv(own, epochs="any")
    scores = write(tmp_path / "s.csv", "item,score\na,0.2\na,0.9\nb,0.1\nc,0.5\n")
    with pytest.raises(DataError, match=r"epochs='majority' combines pass/fail verdicts"):
        JudgeData.from_csv(scores, labels=gold, epochs="majority")
    first = JudgeData.from_csv(scores, labels=gold, epochs="first")
    assert first.kind == "score"
    np.testing.assert_array_equal(first.cal_judge, [0.2, 0.1])


# --------------------------------------------------------------------------- eval logs
def _log(rulings: list[Ruling]) -> EvalLog:
    return EvalLog.from_rulings(rulings, path="run.eval", tool="inspect", version="0.3.1")


def test_an_eval_log_with_labels() -> None:
    log = _log(
        [
            Ruling("007", 1, "m", "grade", 1.0, 1.0, "C", "ok"),
            Ruling("007", 2, "m", "grade", 1.0, 1.0, "C", "ok"),
            Ruling("7", 1, "m", "grade", 0.0, 0.0, "I", "ok"),
            Ruling("7", 2, "m", "grade", 1.0, 1.0, "C", "ok"),
            Ruling("a", 1, "m", "grade", 1.0, 1.0, "C", "ok"),
            Ruling("a", 2, "m", "grade", 0.0, 0.0, "I", "ok"),
            Ruling("err", 1, "m", "grade", NAN, NAN, "boom", "error"),
            Ruling("err", 2, "m", "grade", NAN, NAN, "boom", "error"),
        ]
    )
    gold = pd.DataFrame({"item": ["007", "7", "err"], "label": [1, 0, 1]})
    data = JudgeData.from_frame(log, labels=gold, epochs="any")
    assert data.counts == JudgeCounts(m1=1, x1=1, m0=1, x0=1, n=1, k=1)
    origin = data.origin
    assert origin is not None
    assert (origin.format, origin.tool_version, origin.judge, origin.system) == (
        "inspect",
        "0.3.1",
        "grade",
        "m",
    )
    assert origin.without_verdict == 1  # "err" errored in every epoch: counted, not silent
    with pytest.raises(DataError, match=r"an eval log holds no gold labels.*--labels FILE"):
        JudgeData.from_frame(log, epochs="any")
    with pytest.raises(DataError, match=both("3 item(s) have several rulings", "epochs='first'")):
        JudgeData.from_frame(log, labels=gold)
    with pytest.raises(DataError, match=r"columns= \(--map\) maps the columns of a table"):
        JudgeData.from_frame(log, labels=gold, epochs="any", columns={"item": "id"})


def test_an_eval_log_of_scores_needs_a_threshold_to_combine() -> None:
    log = _log(
        [
            Ruling(i, e, "m", "length", NAN, s, str(s), "ok")
            for i, e, s in [("a", 1, 0.2), ("a", 2, 0.7), ("b", 1, 0.9), ("c", 1, 0.4)]
        ]
    )
    gold = pd.DataFrame({"item": ["a", "b"], "label": [0, 1]})
    data = JudgeData.from_frame(log, labels=gold, threshold=0.5, epochs="all")
    assert data.counts == JudgeCounts(m1=1, x1=1, m0=1, x0=0, n=1, k=0)
    with pytest.raises(DataError, match=r"epochs='any' combines pass/fail verdicts"):
        JudgeData.from_frame(log, labels=gold, epochs="any")
    scores = JudgeData.from_frame(log, labels=gold, epochs="first")
    np.testing.assert_array_equal(scores.cal_judge, [0.2, 0.9])


# --------------------------------------------------------------------------- streaming
def test_counts_streamed_from_a_file_equal_the_loaded_ones(tmp_path: Path) -> None:
    path = write(tmp_path / "export.csv", EXPORT)
    streamed = JudgeCounts.from_file(path, columns=EXPORT_MAP)
    assert streamed == JudgeData.from_csv(path, columns=EXPORT_MAP).counts
    assert streamed.origin is not None
    assert (streamed.origin.streamed, streamed.origin.rows) == (True, 7)


def test_counts_of_a_folder_and_a_glob(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    write(folder / "a.csv", "label,verdict\n1,1\n0,0\n,1\n")
    pd.DataFrame({"label": ["0", "", ""], "verdict": ["1", "0", "1"]}).to_parquet(
        folder / "b.parquet", index=False
    )
    write(folder / "notes.txt", "not data")
    expected = JudgeCounts(m1=1, x1=1, m0=2, x0=1, n=3, k=2)
    assert JudgeCounts.from_file(folder) == expected
    assert JudgeCounts.from_file(str(folder / "*.csv")) == JudgeCounts(1, 1, 1, 0, 1, 1)
    counts = JudgeCounts.from_file(folder)
    assert counts.origin is not None
    assert counts.origin.files == 2


def test_streamed_counts_with_labels_apart(tmp_path: Path) -> None:
    results = write(tmp_path / "results.csv", RESULTS)
    gold = write(tmp_path / "gold.csv", "id,gold\n007,correct\n7,incorrect\n")
    counts = JudgeCounts.from_file(
        results,
        columns={"item": "sample_id", "verdict": "judge"},
        labels=gold,
        label_columns={"item": "id", "label": "gold"},
    )
    assert counts == JudgeCounts(m1=1, x1=1, m0=1, x0=0, n=3, k=2)
    assert counts.origin is not None
    assert counts.origin.join is not None
    assert counts.origin.join.labelled == 2


def test_streamed_counts_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DataError, match=r"folder .* holds no data files"):
        JudgeCounts.from_file(empty)
    one_class = write(tmp_path / "d.csv", "label,verdict\n1,1\n,0\n")
    with pytest.raises(DataError, match=r"no gold-FAIL items \(m0=0\)"):
        JudgeCounts.from_file(one_class)
    with pytest.raises(ValueError, match=r"format must be 'auto' or a table format"):
        JudgeCounts.from_file(one_class, format="inspect")


def test_can_stream(tmp_path: Path) -> None:
    verdicts = write(tmp_path / "v.csv", "label,verdict\n1,1\n")
    scores = write(tmp_path / "s.csv", "label,score\n1,0.5\n")
    assert can_stream(verdicts)
    assert not can_stream(scores)
    assert can_stream(scores, threshold=0.5)
    assert not can_stream(verdicts, epochs="first")
    assert not can_stream("-")
    assert not can_stream(pd.DataFrame({"label": [1], "verdict": [1]}))
    assert not can_stream(verdicts, format="inspect")
    assert can_stream(tmp_path / "missing.csv")  # the streaming reader names the problem


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "locked.csv", "label,verdict\n1,1\n0,0\n,1\n")
    path.chmod(0)
    if os.access(path, os.R_OK):  # root reads anything: make open() refuse instead

        def refuse(*args: object, **kwargs: object) -> None:
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr("bayesjudge.io.tables.open", refuse, raising=False)
    try:
        with pytest.raises(DataError, match=r"locked\.csv' cannot be read \(permission denied\)"):
            JudgeData.from_csv(path)
    finally:
        path.chmod(0o644)
