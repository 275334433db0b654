"""Bounded, correct reading: line endings, line and header limits, whole reads, pipes read once.

Every table reader reads through :class:`bayesjudge.io.bounded.BoundedStream`; these tests feed
it each line ending (``\\r\\n``, ``\\n``, a bare ``\\r``) in every reader (the in-memory reader,
the streaming reducer, the header peek), inputs that never end a line or a header, and pipes
that can be read only once.
"""

from __future__ import annotations

import gzip
import io
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bayesjudge.errors import DataError
from bayesjudge.io import bounded
from bayesjudge.io.bounded import MAX_LINE_BYTES, BoundedStream, is_stream_path
from bayesjudge.io.stream import judge_column, judge_counts
from bayesjudge.io.tables import peek_columns, read_table
from bayesjudge.prevalence.data import can_stream

ENDINGS = {"lf": b"\n", "crlf": b"\r\n", "cr": b"\r"}
ROWS = [("label", "verdict", "note"), ("1", "1", "a"), ("", "0", "b"), ("0", "1", "c")]
#: The counts of ROWS: m1=1 (x1=1), m0=1 (x0=1), n=1 (k=0).
COUNTS = {"m1": 1, "x1": 1, "m0": 1, "x0": 1, "n": 1, "k": 0}


def table_bytes(ending: bytes, delimiter: str = ",", *, blank: bool = True) -> bytes:
    """ROWS as a CSV/TSV with the given line ending and a blank line after the first data row."""
    lines = [delimiter.join(row).encode() for row in ROWS]
    if blank:
        lines.insert(2, b"")
    return ending.join(lines) + ending


# --------------------------------------------------------------------------- line endings
@pytest.mark.parametrize("ending", list(ENDINGS))
@pytest.mark.parametrize(("suffix", "delimiter"), [("csv", ","), ("tsv", "\t")])
def test_every_line_ending_reads_the_same_table_with_the_same_lines(
    tmp_path: Path, ending: str, suffix: str, delimiter: str
) -> None:
    path = tmp_path / f"judge.{suffix}"
    path.write_bytes(table_bytes(ENDINGS[ending], delimiter))
    table = read_table(path)
    assert list(table.columns) == ["label", "verdict", "note"]
    assert table["note"].tolist() == ["a", "b", "c"]
    assert table["label"].tolist() == ["1", "", "0"]
    assert table.index.tolist() == [2, 4, 5]  # the blank line 3 is counted, as an editor does
    assert peek_columns(path) == ["label", "verdict", "note"]


@pytest.mark.parametrize("ending", list(ENDINGS))
@pytest.mark.parametrize(("suffix", "delimiter"), [("csv", ","), ("tsv", "\t")])
def test_every_line_ending_streams_to_the_same_counts(
    tmp_path: Path, ending: str, suffix: str, delimiter: str
) -> None:
    # many rows and a small block, so that blocks (and a \r\n) are cut at every place
    body = ENDINGS[ending].join(delimiter.join(row).encode() for row in [ROWS[0], *ROWS[1:] * 400])
    path = tmp_path / f"judge.{suffix}"
    path.write_bytes(body + ENDINGS[ending])
    counts = judge_counts(path, block_size=1024)
    assert counts.as_dict() == {k: 400 * v for k, v in COUNTS.items()}
    assert counts.rows == 1200
    assert judge_column(path) == "verdict"


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_every_line_ending_reads_in_json_lines(ending: str) -> None:
    text = ENDINGS[ending].join([b'{"label": 1, "verdict": 0}', b"", b'{"label": 0, "verdict": 1}'])
    table = read_table(io.BytesIO(text), format="jsonl")
    assert table["label"].tolist() == ["1", "0"]
    assert table.index.tolist() == [1, 3]


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_a_line_ending_cut_between_reads_is_one_line_ending(ending: str) -> None:
    data = table_bytes(ENDINGS[ending], blank=False)
    for size in (1, 2, 3, 7):  # every cut, a \r\n split between two reads included
        stream = BoundedStream(io.BytesIO(data), name="t.csv")
        out = b"".join(iter(lambda s=stream, n=size: s.read(n), b""))  # type: ignore[misc]
        assert out == table_bytes(b"\r\n" if ending == "crlf" else b"\n", blank=False)
        assert stream.line == len(ROWS) + 1


def test_a_carriage_return_inside_quotes_of_a_newline_file_is_kept() -> None:
    table = read_table(io.BytesIO(b'label,note\n1,"one\rtwo"\n'))
    assert table["note"].tolist() == ["one\rtwo"]


def test_a_header_with_a_stray_carriage_return_is_an_error_naming_the_line(
    tmp_path: Path,
) -> None:
    # the first line ending (before the header) is \n, so the \r inside the header is a
    # character of its own, which the csv module refuses
    path = tmp_path / "t.csv"
    path.write_bytes(b"\nlabel,ver\rdict\n1,1\n")
    with pytest.raises(DataError, match=r"t\.csv: line 2 \(the header\) cannot be parsed"):
        read_table(path)
    with pytest.raises(DataError, match=r"t\.csv: line 2 \(the header\) cannot be parsed"):
        judge_counts(path)


def test_parquet_is_passed_through_without_line_endings_changed(tmp_path: Path) -> None:
    path = tmp_path / "judge.data"  # no extension: the content says Parquet
    values = ["a\rb", "c\r\nd", "e" * 40_000]
    pq.write_table(pa.table({"label": ["1", "0", ""], "note": values}), path, compression="none")
    table = read_table(path)
    assert table["note"].tolist() == values


# --------------------------------------------------------------------------- limits
def test_a_line_longer_than_the_limit_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "judge.csv"
    path.write_bytes(b"label,verdict\n1,1\n" + b"x" * (MAX_LINE_BYTES + 1) + b"\n0,0\n")
    message = r"judge\.csv: line 3 is longer than 16 MB: is this a data file\?"
    with pytest.raises(DataError, match=message):
        read_table(path)
    with pytest.raises(DataError, match=message):
        judge_counts(path)


def test_a_line_at_the_limit_reads() -> None:
    stream = BoundedStream(io.BytesIO(b"a" * 100 + b"\n" + b"b" * 100), name="t", max_line=100)
    assert len(stream.read()) == 201
    with pytest.raises(DataError, match="t: line 2 is longer than 10 bytes"):
        BoundedStream(io.BytesIO(b"short\n" + b"b" * 11), name="t", max_line=10).read()


def test_a_file_that_never_ends_a_line_stops_at_the_limit() -> None:
    stream = BoundedStream(io.BytesIO(b"\0" * (2 * MAX_LINE_BYTES)), name="zeros")
    read = 0
    while read < MAX_LINE_BYTES:  # up to the limit, the line is allowed
        read += len(stream.read(1 << 20))
    with pytest.raises(DataError, match="zeros: line 1 is longer than 16 MB"):
        stream.read(1 << 20)
    assert stream.raw.tell() == MAX_LINE_BYTES + (1 << 20)  # stopped at the limit


def test_blank_lines_without_a_header_stop_at_the_header_limit(tmp_path: Path) -> None:
    path = tmp_path / "blank.csv"
    path.write_bytes(b"\n" * (bounded.MAX_HEADER_BYTES + 2))
    message = r"blank\.csv: no header in the first 16 MB \(only blank lines\)"
    with pytest.raises(DataError, match=message):
        peek_columns(path)
    with pytest.raises(DataError, match=message):
        judge_counts(path)
    path.write_bytes(b"\n" * (1 << 17) + b"label,verdict\n1,1\n")  # a header after blank lines
    assert peek_columns(path) == ["label", "verdict"]
    assert judge_counts(path).m1 == 1
    assert read_table(path).index.tolist() == [(1 << 17) + 2]


def test_a_quote_left_open_stops_at_the_record_limit(tmp_path: Path) -> None:
    lines = b"1,0\n" * (MAX_LINE_BYTES // 4 + 1)
    path = tmp_path / "open.csv"
    path.write_bytes(b'label,verdict\n1,"1\n' + lines)
    with pytest.raises(DataError, match=r"the record that starts on line 2 is longer than 16 MB"):
        judge_counts(path)
    path.write_bytes(b'label,verdict\n1,"1"\n' + lines)  # the quote closed, as suggested
    assert judge_counts(path).m1 == 1 + MAX_LINE_BYTES // 4 + 1


def test_a_whole_read_larger_than_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "judge.csv"
    path.write_bytes(b"label,verdict\n" + b"1,1\n" * 600)
    monkeypatch.setattr(bounded, "MAX_READ_BYTES", 1024)
    with pytest.raises(DataError, match=r"judge\.csv: larger than 1 KB, the most a table read"):
        read_table(path)
    monkeypatch.setattr(bounded, "MAX_READ_BYTES", 4096)
    assert len(read_table(path)) == 600


# --------------------------------------------------------------------------- read once
@pytest.fixture
def pipe_path() -> Iterator[tuple[str, threading.Thread]]:
    """A pipe's read end as ``/dev/fd/N`` (as ``<(...)`` gives), fed by a thread, then closed."""
    read_fd, write_fd = os.pipe()
    data = table_bytes(b"\n")

    def feed() -> None:
        with os.fdopen(write_fd, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    yield f"/dev/fd/{read_fd}", writer
    writer.join()
    os.close(read_fd)


def test_a_pipe_path_is_read_once_in_memory(pipe_path: tuple[str, threading.Thread]) -> None:
    path, _writer = pipe_path
    assert is_stream_path(path)
    assert is_stream_path("-")
    assert not can_stream(path)  # peeking at its header would drain what the reader needs
    assert judge_column(path) is None
    table = read_table(path)
    assert table["note"].tolist() == ["a", "b", "c"]
    assert table.attrs["source"] == path


def test_a_gzip_pipe_is_decompressed(tmp_path: Path) -> None:
    read_fd, write_fd = os.pipe()
    with os.fdopen(write_fd, "wb") as out:
        out.write(gzip.compress(table_bytes(b"\r")))  # fits the pipe's buffer
    try:
        table = read_table(f"/dev/fd/{read_fd}")
    finally:
        os.close(read_fd)
    assert table["note"].tolist() == ["a", "b", "c"]


def test_regular_files_folders_and_missing_paths_are_not_streams(tmp_path: Path) -> None:
    path = tmp_path / "judge.csv"
    path.write_bytes(table_bytes(b"\n"))
    assert not is_stream_path(path)
    assert not is_stream_path(tmp_path)
    assert not is_stream_path(tmp_path / "missing.csv")
    assert can_stream(path)


def test_a_text_mode_file_object_is_refused() -> None:
    with pytest.raises(DataError, match=r"open the file in binary mode \('rb'\), not as text"):
        read_table(io.StringIO("label,verdict\n1,1\n"))  # type: ignore[arg-type]
    assert len(read_table(io.BytesIO(b"label,verdict\n1,1\n"))) == 1  # as suggested
