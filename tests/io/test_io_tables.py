"""Tests of bayesjudge.io.tables.read_table: formats, text columns, file lines, refusals."""

from __future__ import annotations

import gzip
import io
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bayesjudge.errors import DataError
from bayesjudge.io import tables
from bayesjudge.io.tables import iter_record_blocks, read_table, record_starts, sniff_format


def write(tmp_path: Path, name: str, content: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


# --------------------------------------------------------------------------- formats
def test_csv_columns_are_text_and_ids_keep_leading_zeros(tmp_path: Path) -> None:
    path = write(tmp_path, "j.csv", "id,label,verdict\n007,1,0\n7,,1\n")
    frame = read_table(path)
    assert frame["id"].tolist() == ["007", "7"]
    assert frame["label"].tolist() == ["1", ""]
    assert all(pd.api.types.is_string_dtype(frame[c]) for c in frame.columns)
    assert frame.index.name == "line"
    assert frame.index.tolist() == [2, 3]
    assert frame.attrs["source"] == str(path)


def test_bom_and_crlf_are_handled(tmp_path: Path) -> None:
    path = write(tmp_path, "j.csv", b"\xef\xbb\xbfid,label\r\na,1\r\nb,0\r\n")
    frame = read_table(path)
    assert list(frame.columns) == ["id", "label"]
    assert frame["label"].tolist() == ["1", "0"]


def test_blank_lines_and_multiline_values_keep_file_lines(tmp_path: Path) -> None:
    text = 'id,note,label\n\na,"two\nlines",1\n\r\nb,x,0\n"c",",",1\n\n'
    frame = read_table(write(tmp_path, "j.csv", text))
    assert frame.index.tolist() == [3, 6, 7]
    assert frame["note"].tolist() == ["two\nlines", "x", ","]


def test_header_after_blank_lines(tmp_path: Path) -> None:
    frame = read_table(write(tmp_path, "j.csv", "\n\nlabel,verdict\n1,0\n"))
    assert frame.index.tolist() == [4]


def test_column_names_are_stripped(tmp_path: Path) -> None:
    frame = read_table(write(tmp_path, "j.csv", " label , verdict\n1,0\n"))
    assert list(frame.columns) == ["label", "verdict"]


def test_tsv_by_extension_and_by_content(tmp_path: Path) -> None:
    by_name = read_table(write(tmp_path, "j.tsv", "label\tverdict\n1\tpass, really\n"))
    assert by_name["verdict"].tolist() == ["pass, really"]
    by_content = read_table(io.BytesIO(b"label\tverdict\n1\t0\n"))
    assert list(by_content.columns) == ["label", "verdict"]


def test_jsonl_values_become_text(tmp_path: Path) -> None:
    text = (
        '{"id": "007", "label": 1, "verdict": true, "score": 0.5, "meta": {"a": 1}}\n'
        "\n"
        '{"id": "8", "label": null, "verdict": false, "score": 1.0}\n'
    )
    frame = read_table(write(tmp_path, "j.jsonl", text))
    assert frame.index.tolist() == [1, 3]
    assert frame["id"].tolist() == ["007", "8"]
    assert frame["label"].iloc[0] == "1"
    assert pd.isna(frame["label"].iloc[1])
    assert frame["verdict"].tolist() == ["true", "false"]
    assert frame["score"].tolist() == ["0.5", "1"]
    assert frame["meta"].iloc[0] == '{"a": 1}'


def test_jsonl_with_mixed_types_falls_back_to_lines(tmp_path: Path) -> None:
    text = '{"id": 7, "label": "correct"}\n  \n{"id": "x7", "label": 0}\n'
    frame = read_table(write(tmp_path, "j.jsonl", text))
    assert frame["id"].tolist() == ["7", "x7"]
    assert frame["label"].tolist() == ["correct", "0"]
    assert frame.index.tolist() == [1, 3]


def test_jsonl_bad_lines_are_named(tmp_path: Path) -> None:
    text = '{"a": 1}\n{"a": \n\n[1, 2]\n{"a": 2}\n'
    with pytest.raises(DataError, match=r"line 2 is not valid JSON.*line 4 is a JSON list"):
        read_table(write(tmp_path, "j.jsonl", text))


def test_jsonl_array_file_is_refused_with_a_reason(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"line 1 is a JSON list, not an object"):
        read_table(write(tmp_path, "j.json", '[{"a": 1}, {"a": 2}]\n'))


def test_parquet_rows_and_typed_columns(tmp_path: Path) -> None:
    path = tmp_path / "j.parquet"
    table = pa.table(
        {
            "id": pa.array([7, 8, 9], pa.int64()),
            "label": pa.array([True, None, False]),
            "score": pa.array([0.25, 1.0, 0.0]),
        }
    )
    pq.write_table(table, path)
    frame = read_table(path)
    assert frame.index.name == "row"
    assert frame.index.tolist() == [1, 2, 3]
    assert frame["id"].tolist() == ["7", "8", "9"]
    assert frame["label"].iloc[0] == "true"
    assert pd.isna(frame["label"].iloc[1])
    assert frame["score"].tolist() == ["0.25", "1", "0"]


def test_parquet_is_sniffed_without_extension(tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    pq.write_table(pa.table({"label": ["1"]}), path)
    assert read_table(path)["label"].tolist() == ["1"]


def test_stdin_is_read_and_sniffed(monkeypatch: pytest.MonkeyPatch) -> None:
    class Stdin:
        buffer = io.BytesIO(b'{"label": 1, "verdict": "pass"}\n')

    monkeypatch.setattr(sys, "stdin", Stdin())
    frame = read_table("-")
    assert frame.attrs["source"] == "<stdin>"
    assert frame["verdict"].tolist() == ["pass"]


def test_gzip_is_decompressed(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"id": "007", "label": 1}\n\n{"id": "8", "label": 0}\n'))
    frame = read_table(path)
    assert frame["id"].tolist() == ["007", "8"]
    assert frame.index.tolist() == [1, 3]
    assert read_table(io.BytesIO(gzip.compress(b"a,b\n1,2\n")))["b"].tolist() == ["2"]
    broken = tmp_path / "broken.csv.gz"
    broken.write_bytes(gzip.compress(b"a,b\n1,2\n")[:-6])
    with pytest.raises(DataError, match=re.escape("broken.csv.gz: cannot be read")):
        read_table(broken)


def test_format_forces_the_parser(tmp_path: Path) -> None:
    path = write(tmp_path, "j.txt", "label;x\n1;2\n")
    assert list(read_table(path, format="csv").columns) == ["label;x"]
    assert list(read_table(write(tmp_path, "j.dat", "a\tb\n1\t2\n"), format="tsv").columns) == [
        "a",
        "b",
    ]


def test_unknown_format_lists_the_allowed_ones(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=re.escape("format must be one of ['auto', 'csv'")):
        read_table(write(tmp_path, "j.csv", "a\n1\n"), format="xlsx")  # type: ignore[arg-type]


def test_sniff_format() -> None:
    assert sniff_format(b"PAR1....") == "parquet"
    assert sniff_format(b'\xef\xbb\xbf  {"a": 1}') == "jsonl"
    assert sniff_format(b"a\tb,c\tx\n") == "tsv"
    assert sniff_format(b"a,b\n") == "csv"


def test_dataframe_passes_through_as_a_copy() -> None:
    source = pd.DataFrame({" label ": [1, 0], "verdict": [True, False]})
    frame = read_table(source, argument="judge data")
    assert list(frame.columns) == ["label", "verdict"]
    assert frame["verdict"].dtype == bool
    frame.iloc[0, 0] = 5
    assert source.iloc[0, 0] == 1
    assert frame.attrs["source"] == "judge data"


# --------------------------------------------------------------------------- refusals
def test_duplicate_column_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=re.escape("'verdict' (columns 2, 3)")):
        read_table(write(tmp_path, "j.csv", "label,verdict,verdict\n1,1,0\n"))
    with pytest.raises(DataError, match=re.escape("'label' (columns 1, 2)")):
        read_table(write(tmp_path, "k.csv", "label, label\n1,1\n"))
    frame = pd.DataFrame([[1, 0]], columns=["verdict", "verdict"])
    with pytest.raises(DataError, match="more than once: 'verdict'"):
        read_table(frame)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p, "is a directory"),
        (lambda p: p / "nope.csv", "no such file"),
        (lambda p: write(p, "e.csv", ""), "the file is empty"),
        (lambda p: write(p, "w.csv", "\n \r\n"), "the file is empty"),
        (lambda p: write(p, "h.csv", "label,verdict\n"), "no data rows"),
        (lambda p: write(p, "b.csv", b"\xef\xbb\xbf"), "the file is empty"),
    ],
)
def test_bad_paths_name_the_path(tmp_path: Path, make: object, message: str) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(DataError, match=re.escape(message)) as info:
        read_table(path)
    assert str(path) in str(info.value)


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "j.csv", "a\n1\n")

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tables, "open", refuse, raising=False)
    with pytest.raises(DataError, match=re.escape(f"{str(path)!r} cannot be read (permission")):
        read_table(path)


def test_undecodable_bytes_name_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "j.csv", b"id,label\na,1\n\nb\xe9,0\n")
    with pytest.raises(DataError, match=r"j\.csv: line 4 is not valid UTF-8 text \(byte 0xe9\)"):
        read_table(path)


def test_wrong_field_counts_are_listed_with_lines(tmp_path: Path) -> None:
    rows = ["1,0"] * 20
    for line in (3, 5, 9, 11, 12, 15, 20):  # 1-based line numbers (header is line 1)
        rows[line - 2] = "1,0,extra"
    text = "label,verdict\n" + "\n".join(rows) + "\n"
    with pytest.raises(DataError) as info:
        read_table(write(tmp_path, "j.csv", text))
    message = str(info.value)
    assert "must have the 2 fields of the header" in message
    assert "line 3 (3 fields), line 5 (3 fields), line 9 (3 fields), line 11" in message
    assert "line 15" not in message
    assert "and 2 more rows" in message


def test_a_stray_quote_falls_back_to_row_numbers(tmp_path: Path) -> None:
    # a quote inside an unquoted value is literal to the parser but upsets quote counting:
    # rows are then named by their order among the data rows
    path = write(tmp_path, "j.csv", 'a,b\n5" screen,1\n\nfoo,bar,baz\n')
    with pytest.raises(DataError, match=re.escape("row 2 (3 fields)")):
        read_table(path)


def test_a_source_of_the_wrong_type() -> None:
    with pytest.raises(DataError, match="must be a pandas DataFrame, a file path"):
        read_table(42)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- line helpers
def test_record_starts_handles_quotes_blank_and_whitespace_lines() -> None:
    buf = b'a\n\n"x\n\ny"\n \nb\r\n\r\n'
    assert record_starts(buf, quoted=True, whitespace_blank=False).tolist() == [1, 3, 6, 7]
    assert record_starts(buf, quoted=True, whitespace_blank=True).tolist() == [1, 3, 7]


def test_blocks_end_on_record_boundaries() -> None:
    rng = np.random.default_rng(3)
    rows = [
        f'{i},"{"x" * int(n)}\n{"y" * int(m)}"\n' if i % 7 == 0 else f"{i},z\n"
        for i, (n, m) in enumerate(rng.integers(0, 50, size=(500, 2)))
    ]
    body = "".join(rows).encode()
    blocks = list(
        iter_record_blocks(io.BytesIO(body[100:]), start=body[:100], block_size=256, quoted=True)
    )
    assert b"".join(b for b, _ in blocks) == body
    assert all(b.count(b'"') % 2 == 0 and b.endswith(b"\n") for b, _ in blocks)
    assert sum(n for _, n in blocks) == body.count(b"\n")
