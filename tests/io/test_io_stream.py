"""Tests of bayesjudge.io.stream: the streamed counts equal the in-memory ones; errors name rows."""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bayesjudge.errors import DataError
from bayesjudge.gates.cells import gate_cells as gate_cells_in_memory
from bayesjudge.gates.data import Rulings
from bayesjudge.io import (
    Field,
    Spellings,
    conform,
    gate_cells,
    join_labels,
    judge_counts,
    read_labels,
    read_table,
    verdicts_from_scores,
)
from bayesjudge.io.stream import JUDGE_FIELDS
from bayesjudge.io.tables import iter_record_blocks

LABELS = np.array(["1", "0", "", "correct", "Incorrect", "NA", " yes", "no ", "null"])
VERDICTS = np.array(["pass", "FAIL", "1", "0", "true", "False", "y", "n"])
MAPPING = {"label": "human_label", "verdict": "judge", "stratum": "task"}


def judge_frame(n: int, *, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "id": [f"{i:07d}" for i in range(n)],
            "human_label": LABELS[rng.integers(0, LABELS.size, n)],
            "judge": VERDICTS[rng.integers(0, VERDICTS.size, n)],
            "task": np.array(["math", "code", "prose"])[rng.integers(0, 3, n)],
            "score": np.round(rng.random(n), 3),
        }
    )


def write(frame: pd.DataFrame, path: Path) -> Path:
    suffix = path.suffix
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    elif suffix == ".tsv":
        frame.to_csv(path, index=False, sep="\t")
    elif suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=700)
    return path


def in_memory(path: Path | pd.DataFrame, **options: object) -> tuple[dict[str, int], pd.DataFrame]:
    """The in-memory path: read the whole table, conform it, count with pandas."""
    threshold = options.pop("threshold", None)
    if isinstance(path, pd.DataFrame):
        table = path
    else:
        table = conform(read_table(path), JUDGE_FIELDS, **options)  # type: ignore[arg-type]
    if threshold is not None:
        table["verdict"] = verdicts_from_scores(table["score"], threshold=threshold)  # type: ignore[arg-type]
    label, verdict = table["label"], table["verdict"]
    cells = pd.DataFrame(
        {
            "m1": label == 1,
            "x1": (label == 1) & (verdict == 1),
            "m0": label == 0,
            "x0": (label == 0) & (verdict == 1),
            "n": label.isna(),
            "k": label.isna() & (verdict == 1),
        }
    ).astype(np.int64)
    if "stratum" in table:
        by = cells.groupby(table["stratum"].rename("stratum")).sum().sort_index()
    else:
        by = pd.DataFrame()
    return {k: int(v) for k, v in cells.sum().items()}, by


# --------------------------------------------------------------------------- same counts
@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl", ".parquet"])
@pytest.mark.parametrize("block_size", [1024, 1 << 20])
def test_streamed_counts_equal_the_in_memory_path(
    tmp_path: Path, suffix: str, block_size: int
) -> None:
    path = write(judge_frame(3000, seed=1), tmp_path / f"judge{suffix}")
    expected, by = in_memory(path, columns=MAPPING)
    counts = judge_counts(path, columns=MAPPING, block_size=block_size)
    assert counts.as_dict() == expected
    assert counts.rows == 3000
    assert counts.by_stratum is not None
    pd.testing.assert_frame_equal(counts.by_stratum, by, check_names=False)


def test_scores_with_a_threshold(tmp_path: Path) -> None:
    path = write(judge_frame(2000, seed=2), tmp_path / "judge.csv")
    columns = {"label": "human_label", "pool": "task"}  # pooled on purpose (issue 26)
    expected, _ = in_memory(path, columns=columns, threshold=0.5)
    counts = judge_counts(path, columns=columns, threshold=0.5, block_size=2048)
    assert counts.as_dict() == expected
    assert counts.by_stratum is None


def test_without_strata_and_from_a_stream() -> None:
    data = b"label,verdict\n1,1\n1,0\n0,1\n0,0\n0,0\n,1\n,1\n,0\n"
    counts = judge_counts(io.BytesIO(data))
    assert counts.as_dict() == {"m1": 2, "x1": 1, "m0": 3, "x0": 1, "n": 3, "k": 2}
    assert repr(counts).startswith("StreamCounts(m1=2, x1=1, m0=3, x0=1, n=3, k=2, rows=8")


def test_gzip_streams(tmp_path: Path) -> None:
    frame = judge_frame(1500, seed=9)
    expected, _ = in_memory(write(frame, tmp_path / "judge.csv"), columns=MAPPING)
    zipped = tmp_path / "judge.csv.gz"
    zipped.write_bytes(gzip.compress((tmp_path / "judge.csv").read_bytes()))
    assert judge_counts(zipped, columns=MAPPING, block_size=2048).as_dict() == expected


def test_standard_input_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    class Stdin:
        buffer = io.BytesIO(b'{"label": "yes", "verdict": 1}\n{"label": null, "verdict": 0}\n')

    monkeypatch.setattr(sys, "stdin", Stdin())
    assert judge_counts("-").as_dict() == {"m1": 1, "x1": 1, "m0": 0, "x0": 0, "n": 1, "k": 0}


def test_a_folder_a_glob_and_a_list_add_up(tmp_path: Path) -> None:
    frame = judge_frame(2500, seed=3)
    whole, _ = in_memory(write(frame, tmp_path / "all.csv"), columns=MAPPING)
    parts = tmp_path / "parts"
    parts.mkdir()
    write(frame.iloc[:1000], parts / "a.csv")
    write(frame.iloc[1000:1800], parts / "b.parquet")
    write(frame.iloc[1800:2100], parts / "c.jsonl")
    write(frame.iloc[2100:], parts / "d.tsv")
    (parts / "d.tsv.gz").write_bytes(gzip.compress((parts / "d.tsv").read_bytes()))
    (parts / "d.tsv").unlink()
    (parts / "notes.txt").write_text("not data")
    assert judge_counts(parts, columns=MAPPING).as_dict() == whole
    assert judge_counts(str(parts / "[abcd].*"), columns=MAPPING).files == 4
    listed = judge_counts(
        [parts / "a.csv", parts / "b.parquet", parts / "c.jsonl", parts / "d.tsv.gz"],
        columns=MAPPING,
    )
    assert listed.as_dict() == whole


# ------------------------------------------------------------------ rows named across blocks
def block_first_lines(body: bytes, *, first_line: int, block_size: int, quoted: bool) -> list[int]:
    lines, out = first_line, []
    for _, newlines in iter_record_blocks(
        io.BytesIO(body), start=b"", block_size=block_size, quoted=quoted
    ):
        out.append(lines)
        lines += newlines
    return out


def csv_lines(n: int) -> list[str]:
    """Records with some blank lines and quoted two-line notes; every label is one character."""
    rng = np.random.default_rng(4)
    out = []
    for i in range(n):
        note = '"two\nlines"' if i % 11 == 0 else "plain"
        out.append(f"{'10'[i % 2]},{'01'[rng.integers(2)]},{note}")
        if i % 17 == 0:
            out.append("")
    return out


def test_bad_rows_around_block_boundaries_are_named_by_their_file_line(tmp_path: Path) -> None:
    block_size = 1024
    header = "label,verdict,note\n"
    records = csv_lines(600)
    body = ("\n".join(records) + "\n").encode()
    starts = block_first_lines(body, first_line=2, block_size=block_size, quoted=True)
    assert len(starts) > 5
    # physical line -> index in `records` (a record with a two-line note takes two lines)
    line_of, line = {}, 2
    for index, record in enumerate(records):
        line_of[line] = index
        line += record.count("\n") + 1
    bad = []
    for boundary in starts[2:5]:
        before = max(ln for ln in line_of if ln < boundary and records[line_of[ln]])
        after = min(ln for ln in line_of if ln >= boundary and records[line_of[ln]])
        bad += [before, after]
    for ln in bad:
        records[line_of[ln]] = "x" + records[line_of[ln]][1:]
    path = tmp_path / "bad.csv"
    path.write_text(header + "\n".join(records) + "\n")
    with pytest.raises(DataError) as info:
        judge_counts(path, block_size=block_size)
    shown = ", ".join(f"line {ln} has 'x'" for ln in sorted(bad)[:5])
    assert shown in str(info.value)
    assert "and 1 more row" in str(info.value)
    # the in-memory path names the same lines
    with pytest.raises(DataError, match=shown):
        conform(read_table(path), JUDGE_FIELDS)


def test_wrong_field_counts_across_blocks_are_named(tmp_path: Path) -> None:
    rows = ["1,0"] * 2000
    rows[400] = "1,0,9"
    rows[1500] = "1"
    path = tmp_path / "bad.csv"
    path.write_text("label,verdict\n" + "\n".join(rows) + "\n")
    with pytest.raises(DataError, match=r"fields of the header: line 402 \(3 fields\), line 1502"):
        judge_counts(path, block_size=1024)


def test_jsonl_rows_are_named_across_blocks(tmp_path: Path) -> None:
    lines = []
    for i in range(800):
        lines.append(json.dumps({"label": i % 2, "verdict": "pass"}))
        if i % 13 == 0:
            lines.append("   ")
    lines[500] = json.dumps({"label": "maybe", "verdict": "pass"})
    lines[777] = json.dumps({"label": 1, "verdict": None})
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as info:
        judge_counts(path, block_size=1024)
    message = str(info.value)
    assert "column 'label' must hold PASS/FAIL values" in message
    assert "line 501 has 'maybe'" in message
    assert "column 'verdict' must not be missing" in message
    assert "line 778 has a missing value" in message


def test_parquet_rows_are_named_across_batches(tmp_path: Path) -> None:
    label = np.array(["1", "0"] * 1500, dtype=object)
    label[[1023, 1024, 2999]] = "?"
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"label": label, "verdict": ["1"] * 3000}), path, row_group_size=500)
    with pytest.raises(DataError, match="row 1024 has '\\?', row 1025 has '\\?', row 3000"):
        judge_counts(path, block_size=8192)  # batches of 1024 rows


def test_typed_parquet_columns(tmp_path: Path) -> None:
    path = tmp_path / "typed.parquet"
    label = pa.array([True, False, None, True, None])
    verdict = pa.array([1, 0, 1, 1, 0], pa.int8())
    pq.write_table(pa.table({"label": label, "verdict": verdict}), path)
    assert judge_counts(path).as_dict() == {"m1": 2, "x1": 2, "m0": 1, "x0": 0, "n": 2, "k": 1}


# --------------------------------------------------------------------------- refusals
def test_missing_columns_are_suggested_per_file(tmp_path: Path) -> None:
    path = write(judge_frame(10, seed=5).drop(columns="score"), tmp_path / "judge.csv")
    with pytest.raises(DataError) as info:
        judge_counts(path)
    message = str(info.value)
    assert "no 'label' column; did you mean 'human_label'? use --map label=human_label" in message
    assert (
        "no 'verdict' or 'score' column; did you mean 'judge'? use --map verdict=judge" in message
    )


def test_score_needs_a_threshold_and_verdicts_refuse_one(tmp_path: Path) -> None:
    path = write(judge_frame(10, seed=5), tmp_path / "judge.csv")
    with pytest.raises(DataError, match="the six counts need verdicts: give a threshold"):
        judge_counts(path, columns={"label": "human_label"})
    with pytest.raises(DataError, match="drop the threshold"):
        judge_counts(path, columns=MAPPING, threshold=0.5)


def test_bad_scores_are_named(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("label,score\n1,0.5\n0,1.5\n,\n,abc\n")
    with pytest.raises(DataError) as info:
        judge_counts(path, threshold=0.5)
    message = str(info.value)
    assert "column 'score' must not be missing" in message
    assert "line 4 has ''" in message
    assert "must hold numbers in [0, 1]: line 3 has '1.5', line 5 has 'abc'" in message


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"label,verdict\n", "the table has no data rows"),
        (b"label,verdict,label\n1,1,1\n", "names a column more than once"),
        (b"label,verdict\n1,1\n0,\xff\n", "line 3 is not valid UTF-8 text"),
        (b"label,verdict,stratum\n1,1, \n", "column 'stratum' must not be blank: line 2"),
        (b"label,verdict,item\n1,1,\n", "column 'item' must not be blank: line 2"),
    ],
)
def test_file_problems(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "j.csv"
    path.write_bytes(content)
    with pytest.raises(DataError, match=message):
        judge_counts(path)


def test_paths_that_are_not_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        judge_counts(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="holds no data files"):
        judge_counts(tmp_path)
    with pytest.raises(DataError, match="no file matches"):
        judge_counts(str(tmp_path / "*.csv"))


def test_problems_of_several_files_come_together(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("label,verdict\n1,maybe\n")
    (tmp_path / "b.csv").write_text("gold,verdict\n1,1\n")
    with pytest.raises(DataError) as info:
        judge_counts(tmp_path)
    message = str(info.value)
    assert message.startswith("2 files: 2 problems:")
    assert "a.csv: column 'verdict' must hold PASS/FAIL values" in message
    assert "b.csv: no 'label' column; did you mean 'gold'?" in message


def test_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="block_size must be a whole number of bytes >= 1024"):
        judge_counts(tmp_path, block_size=10)
    with pytest.raises(ValueError, match="format must be one of"):
        judge_counts(tmp_path, format="xls")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- gate cells
def rulings_frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    items = 300
    r = rng.integers(1, 6, items)
    label = np.where(rng.random(items) < 0.3, rng.integers(0, 2, items).astype(str), "")
    rows = np.repeat(np.arange(items), r)
    return pd.DataFrame(
        {
            "item": [f"i{j:04d}" for j in rows],
            "verdict": VERDICTS[rng.integers(0, VERDICTS.size, rows.size)],
            "label": label[rows],
        }
    )


@pytest.mark.parametrize("shuffle", [False, True])
def test_gate_cells_equal_the_in_memory_cells(tmp_path: Path, shuffle: bool) -> None:
    frame = rulings_frame(6)
    if shuffle:
        frame = frame.sample(frac=1.0, random_state=6)
    path = tmp_path / "rulings.csv"
    frame.to_csv(path, index=False)
    rulings = Rulings.from_frame(frame.assign(verdict=Spellings().codes(frame["verdict"])))
    expected = gate_cells_in_memory(rulings.label, rulings.r, rulings.k)
    cells = gate_cells(path, block_size=1024)
    np.testing.assert_array_equal(cells["label"], expected.label)
    np.testing.assert_array_equal(cells["r"], expected.r)
    np.testing.assert_array_equal(cells["k"], expected.k)
    np.testing.assert_array_equal(cells["weight"], expected.weight)


def test_gate_cells_refuse_an_item_with_two_labels() -> None:
    data = b"item,verdict,label\na,1,1\nb,0,0\na,1,0\nb,1,\n"
    with pytest.raises(DataError, match="must be the same on every row of an item: item 'a'"):
        gate_cells(io.BytesIO(data))


# --------------------------------------------------------------------------- labels kept apart
def results_and_labels(tmp_path: Path, n: int = 2000) -> tuple[Path, pd.DataFrame]:
    rng = np.random.default_rng(10)
    frame = pd.DataFrame(
        {
            "id": [f"{i:06d}" for i in range(n)],
            "judge": VERDICTS[rng.integers(0, VERDICTS.size, n)],
            "task": np.array(["a", "b"])[rng.integers(0, 2, n)],
        }
    )
    path = write(frame, tmp_path / "results.csv")
    chosen = rng.choice(n, size=n // 10, replace=False)
    gold = pd.DataFrame(
        {"sample_id": frame["id"].iloc[chosen], "gold": LABELS[rng.integers(0, 5, chosen.size)]}
    )
    gold.to_csv(tmp_path / "gold.csv", index=False)
    labels = read_labels(tmp_path / "gold.csv", columns={"item": "sample_id", "label": "gold"})
    return path, labels


def test_labels_kept_apart_give_the_in_memory_join(tmp_path: Path) -> None:
    path, labels = results_and_labels(tmp_path)
    columns = {"item": "id", "verdict": "judge", "stratum": "task"}
    results = conform(
        read_table(path),
        (Field("item", "text"), Field("verdict", "binary"), Field("stratum", "text")),
        columns=columns,
    )
    joined, report = join_labels(results, labels)
    expected, by = in_memory(joined)
    counts = judge_counts(path, columns=columns, labels=labels, block_size=2048)
    assert counts.as_dict() == expected
    assert counts.m1 + counts.m0 == report.labelled  # blank labels stay unlabelled
    assert counts.by_stratum is not None
    pd.testing.assert_frame_equal(counts.by_stratum, by, check_names=False)


def test_labels_kept_apart_refusals(tmp_path: Path) -> None:
    path = tmp_path / "results.csv"
    path.write_text("id,verdict,label\n007,1,\n008,0,\n008,1,\n009,1,\n")
    labels = pd.DataFrame({"item": ["7", "008", "x"], "label": [1.0, 0.0, 1.0]})
    with pytest.raises(DataError) as info:
        judge_counts(path, columns={"item": "id"}, labels=labels)
    message = str(info.value)
    assert "1 labelled id(s) have several rows: '008' (2 rows)" in message
    assert "2 of 3 label id(s) are not among the results' ids: '7', 'x'" in message
    assert "(e.g. label id '7' vs result id '007')" in message
    path.write_text("id,verdict,label\n007,1,1\n")
    with pytest.raises(DataError, match="labels in column 'label' and labels were given apart"):
        judge_counts(path, columns={"item": "id"}, labels=labels.iloc[:0])
    twice = pd.DataFrame({"item": ["a", "a"], "label": [1.0, 1.0]})
    with pytest.raises(DataError, match=r"appear more than once: 'a' \(2 rows\)"):
        judge_counts(path, labels=twice)


def test_crlf_without_a_final_newline() -> None:
    rows = ["1,1", "0,0", ",1"] * 400
    rows[700] = "x,1"
    data = ("label,verdict\r\n" + "\r\n".join(rows)).encode()
    with pytest.raises(DataError, match="line 702 has 'x'"):
        judge_counts(io.BytesIO(data), block_size=1024)
    rows[700] = "1,1"
    data = ("label,verdict\r\n" + "\r\n".join(rows)).encode()
    counts = judge_counts(io.BytesIO(data), block_size=1024)
    assert counts.as_dict() == {"m1": 401, "x1": 401, "m0": 399, "x0": 0, "n": 400, "k": 400}
