"""Read a table from CSV, TSV, JSON Lines, Parquet or standard input, every column as text.

:func:`read_table` is the one reader every command uses. It returns a pandas DataFrame whose
columns are text (so an id written ``007`` stays ``"007"``) and whose index names each row the way
the file does, so that errors can point into the file:

* CSV, TSV and JSON Lines: the index is named ``line`` and holds the 1-based number of the line
  on which the row starts (the header is line 1 of a CSV file). Blank lines are skipped but
  counted, and a quoted value that spans several lines moves the next row down accordingly, so
  ``line 17`` is what an editor shows as line 17.
* Parquet: the index is named ``row`` and holds the 1-based row number in the file.

The pieces below :func:`read_table` (opening a source, sniffing its format, splitting a CSV or
JSONL byte stream into blocks of whole records, parsing a block with pyarrow, naming its rows)
are shared with the streaming reader in :mod:`bayesjudge.io.stream`.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import json
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, cast, get_args

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError
from bayesjudge.io.bounded import (
    MAX_HEADER_BYTES,
    MAX_LINE_BYTES,
    BoundedStream,
    read_all,
    size_text,
)
from bayesjudge.io.problems import Problems

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["TableFormat", "TableLike", "peek_columns", "read_table"]

type TableFormat = Literal["auto", "csv", "tsv", "jsonl", "parquet"]
type TableSource = pd.DataFrame | str | os.PathLike[str] | IO[bytes]
#: What a data contract reads: a DataFrame, a path, ``"-"`` (standard input) or a binary file.
type TableLike = TableSource

FORMATS: tuple[str, ...] = get_args(TableFormat.__value__)
EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"
_PARQUET_MAGIC = b"PAR1"
_NEWLINE, _RETURN, _QUOTE = 10, 13, 34
_INVALID_SHOWN = 5


# --------------------------------------------------------------------------- public reader
def read_table(
    source: TableSource,
    *,
    format: TableFormat = "auto",
    argument: str = "data",
) -> pd.DataFrame:
    r"""Read a table with every column as text, its rows named by their place in the file.

    Parameters
    ----------
    source : DataFrame, path, ``"-"`` or binary file object
        A DataFrame is copied and passed through (its values keep their types; its index names
        its rows). A path is read as CSV, TSV, JSON Lines or Parquet; ``"-"`` reads standard
        input; an open binary file is read to its end.
    format : {"auto", "csv", "tsv", "jsonl", "parquet"}
        ``"auto"`` chooses by the file extension (``.csv``, ``.tsv``/``.tab``,
        ``.jsonl``/``.ndjson``/``.json``, ``.parquet``/``.pq``), else by the content: Parquet's
        magic bytes, a first character ``{`` for JSON Lines, a header with more tabs than commas
        for TSV, CSV otherwise. A gzip-compressed file (``.csv.gz``, ...) is decompressed on the
        fly, whatever its name.
    argument : str
        What the table is called in error messages when it has no file name (e.g. ``"labels"``).

    Returns
    -------
    DataFrame
        Columns named as in the header (surrounding spaces stripped), all holding text: an empty
        CSV cell is ``""``, a JSON ``null`` or a Parquet null is missing (NaN); JSON and Parquet
        numbers and booleans become their text (``7``, ``0.5``, ``true``). The index is ``line``
        (CSV, TSV, JSONL: the 1-based line on which the row starts, header included) or ``row``
        (Parquet: 1-based). ``attrs["source"]`` holds the file name (``"<stdin>"`` for standard
        input, ``argument`` for a DataFrame).

    Raises
    ------
    DataError
        Naming the file and what is wrong: no such file, a directory, not readable, empty, no
        data rows, a header naming a column twice, text that is not UTF-8 (with its line), rows
        with the wrong number of fields (the first few, with their lines), lines that are not
        JSON objects, or a file the format cannot parse.

    Examples
    --------
    >>> import io
    >>> text = b"id,label,verdict\r\n007,correct,yes\r\n\r\n008,,no\r\n"
    >>> table = read_table(io.BytesIO(text))
    >>> table.index.name, table.index.tolist(), table["id"].tolist(), table["label"].tolist()
    ('line', [2, 4], ['007', '008'], ['correct', ''])
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {list(FORMATS)}; got {format!r}")
    if isinstance(source, pd.DataFrame):
        return _from_frame(source, argument=argument)
    name, raw = _read_bytes(source, argument=argument)
    chosen = choose_format(format, name=name, head=raw[:4096])
    table, rows = _parse_whole(raw, chosen, name=name)
    if table.num_rows == 0:
        raise DataError(f"{name}: the table has no data rows")
    frame = _to_pandas(table)
    frame.index = rows
    frame.attrs["source"] = name
    frame.attrs["format"] = chosen
    return frame


def _from_frame(source: pd.DataFrame, *, argument: str) -> pd.DataFrame:
    frame = source.copy()
    frame.columns = [str(c).strip() for c in frame.columns]
    _check_names(list(frame.columns), name=argument)
    if frame.empty:
        raise DataError(f"{argument}: the table has no rows")
    frame.attrs["source"] = argument
    frame.attrs["format"] = "frame"
    return frame


def peek_columns(
    source: str | os.PathLike[str], *, format: TableFormat = "auto", argument: str = "data"
) -> list[str]:
    r"""Return the column names of a table file without reading its rows.

    The header of a CSV/TSV file, the keys of the first record of a JSON Lines file, or the
    schema of a Parquet file; names stripped of surrounding spaces.

    Raises
    ------
    DataError
        As :func:`read_table` for a missing, unreadable, empty or undecodable file.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "judge.csv"
    >>> _ = path.write_text("human_label, judge_score\n1,0.5\n")
    >>> peek_columns(path)
    ['human_label', 'judge_score']
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {list(FORMATS)}; got {format!r}")
    name, stream, owned = open_source(source, argument=argument)
    try:
        head = stream.read(1 << 16)
        chosen = choose_format(format, name=name, head=head)
        if chosen == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            try:
                schema = pq.read_schema(name if os.path.isfile(name) else pa.BufferReader(head))
            except (pa.ArrowException, OSError) as exc:
                raise DataError(f"{name}: cannot be read as Parquet: {exc}") from None
            return [c.strip() for c in schema.names]
        head = read_header_bytes(stream, head.removeprefix(_BOM), name=name)
        if not head.strip():
            raise DataError(f"{name}: the file is empty")
        if chosen == "jsonl":
            line = head.lstrip().split(b"\n", 1)[0]
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise DataError(f"{name}: the first line is not a JSON object") from None
            if not isinstance(record, dict):
                raise DataError(f"{name}: the first line is not a JSON object")
            return [str(k).strip() for k in record]
        delimiter = "\t" if chosen == "tsv" else ","
        return parse_header(head, delimiter=delimiter, name=name).names
    finally:
        if owned:
            stream.close()


# --------------------------------------------------------------------------- opening a source
def source_name(source: str | os.PathLike[str] | IO[bytes]) -> str:
    """Return how messages name a source: its path, ``<stdin>``, or the file object's name."""
    if isinstance(source, str | os.PathLike):
        text = os.fspath(source)
        return "<stdin>" if text == "-" else text
    return str(getattr(source, "name", "<stream>"))


def open_source(
    source: str | os.PathLike[str] | IO[bytes], *, argument: str
) -> tuple[str, IO[bytes], bool]:
    """Open a path, ``"-"`` or binary file object for reading bytes, once, with limits.

    Returns the name for messages, the binary stream, and whether the caller owns (must close)
    it. The stream is a :class:`~bayesjudge.io.bounded.BoundedStream`: gzip is decompressed,
    a line longer than :data:`~bayesjudge.io.bounded.MAX_LINE_BYTES` is refused, and bare
    carriage returns read as newlines. A path is opened once (a pipe, a FIFO or ``/dev/stdin``
    cannot be opened again to see the same bytes), and gzip is detected by peeking at its
    buffer. A missing path, a directory or an unreadable file is a :class:`DataError`.
    """
    if isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        if path == "-":
            return "<stdin>", _bounded(sys.stdin.buffer, name="<stdin>", owned=False), False
        if not path:
            raise DataError(f"{argument}: the file name is empty")
        if os.path.isdir(path):
            raise DataError(f"{argument}: {path!r} is a directory, not a file")
        if not os.path.exists(path):
            raise DataError(f"{argument}: no such file {path!r}")
        try:
            handle = open(path, "rb")  # noqa: SIM115  # closed by the BoundedStream's close()
        except PermissionError:
            raise DataError(f"{argument}: {path!r} cannot be read (permission denied)") from None
        except OSError as exc:
            raise DataError(f"{argument}: {path!r} cannot be read ({exc.strerror})") from None
        try:
            return path, _bounded(handle, name=path, owned=True), True
        except OSError as exc:
            handle.close()
            raise DataError(f"{argument}: {path!r} cannot be read ({exc.strerror})") from None
    if hasattr(source, "read"):
        name = source_name(source)
        return name, _bounded(source, name=name, owned=False), False
    raise DataError(
        f"{argument} must be a pandas DataFrame, a file path, '-' (standard input) or a binary "
        f"file object; got {type(source).__name__}"
    )


def _bounded(stream: IO[bytes], *, name: str, owned: bool) -> IO[bytes]:
    """Wrap ``stream`` (decompressed when gzip) in a BoundedStream that closes it if ``owned``."""
    inner = _gunzipped(stream)
    closes = ((inner, stream) if inner is not stream else (stream,)) if owned else ()
    return cast("IO[bytes]", BoundedStream(inner, name=name, closes=closes))


def _gunzipped(stream: IO[bytes]) -> IO[bytes]:
    """Return a stream that decompresses ``stream`` if it starts with gzip's magic bytes."""
    if hasattr(stream, "peek"):  # buffered: a pipe's first bytes stay in the buffer
        head = stream.peek(2)[:2]
    elif stream.seekable():
        where = stream.tell()
        head = stream.read(2)
        stream.seek(where)
    else:
        return stream
    return gzip.GzipFile(fileobj=stream, mode="rb") if head == _GZIP_MAGIC else stream  # type: ignore[return-value]


def _read_bytes(source: str | os.PathLike[str] | IO[bytes], *, argument: str) -> tuple[str, bytes]:
    name, stream, owned = open_source(source, argument=argument)
    try:
        raw = read_all(stream, name=name)
    except (OSError, EOFError) as exc:
        raise DataError(
            f"{name}: cannot be read ({getattr(exc, 'strerror', None) or exc})"
        ) from None
    finally:
        if owned:
            stream.close()
    if not raw.strip() or raw.strip() == _BOM:
        raise DataError(f"{name}: the file is empty")
    return name, raw


def read_header_bytes(stream: IO[bytes], head: bytes, *, name: str, size: int = 1 << 16) -> bytes:
    """Read on until ``head`` holds its first non-blank line whole (or the stream ends).

    Raises
    ------
    DataError
        If :data:`~bayesjudge.io.bounded.MAX_HEADER_BYTES` bytes hold no whole non-blank line
        (a long first line is refused by the stream itself, naming its line).
    """
    start = 0
    while True:
        start = len(head) - len(head[start:].lstrip(b"\r\n"))
        if head.find(b"\n", start) >= 0:
            return head
        if len(head) > MAX_HEADER_BYTES:
            raise DataError(
                f"{name}: no header in the first {size_text(MAX_HEADER_BYTES)} (only blank "
                "lines): is this a data file?"
            )
        more = stream.read(size)
        if not more:
            return head
        head += more


def choose_format(
    format: str, *, name: str, head: bytes
) -> Literal["csv", "tsv", "jsonl", "parquet"]:
    """Return the format to read: the forced one, else by extension, else by content."""
    if format != "auto":
        return format  # type: ignore[return-value]
    suffixes = [x.lower() for x in Path(name).suffixes]
    if suffixes[-1:] == [".gz"]:
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in EXTENSIONS:
        return EXTENSIONS[suffixes[-1]]  # type: ignore[return-value]
    return sniff_format(head)


def sniff_format(head: bytes) -> Literal["csv", "tsv", "jsonl", "parquet"]:
    r"""Guess the format from the first bytes of a file.

    Parquet starts with ``PAR1``; JSON Lines with ``{`` (after spaces); a first line with more
    tabs than commas is TSV; anything else is CSV.

    Examples
    --------
    >>> sniff_format(b'{"label": 1}'), sniff_format(b"a\tb\n1\t0"), sniff_format(b"a,b")
    ('jsonl', 'tsv', 'csv')
    """
    if head.startswith(_PARQUET_MAGIC):
        return "parquet"
    text = head.removeprefix(_BOM).lstrip()
    if text.startswith(b"{"):
        return "jsonl"
    first = text.split(b"\n", 1)[0]
    return "tsv" if first.count(b"\t") > first.count(b",") else "csv"


def _check_names(names: Sequence[str], *, name: str) -> None:
    seen: dict[str, list[int]] = {}
    for position, column in enumerate(names, start=1):
        seen.setdefault(column, []).append(position)
    repeated = {c: p for c, p in seen.items() if len(p) > 1}
    if repeated:
        shown = "; ".join(f"{c!r} (columns {', '.join(map(str, p))})" for c, p in repeated.items())
        raise DataError(f"{name}: the header names a column more than once: {shown}")


# --------------------------------------------------------------------------- line numbers
def _physical_lines(buf: bytes) -> int:
    if not buf:
        return 0
    return buf.count(b"\n") + (0 if buf.endswith(b"\n") else 1)


def record_starts(buf: bytes, *, quoted: bool, whitespace_blank: bool) -> np.ndarray:
    r"""Return the 1-based line on which each record of ``buf`` starts (vectorised).

    A record starts on every line that is not blank and does not begin inside a quoted value.
    ``quoted``: double quotes open and close values (CSV/TSV; the quote parity before a line
    decides whether it is inside a value, which holds for RFC 4180 files). Blank lines are empty
    (or a lone ``\r``), or, with ``whitespace_blank``, only spaces, tabs and ``\r`` (JSONL).

    Examples
    --------
    >>> record_starts(b'a,b\n\n"x\ny",1\r\n\r\n2,3', quoted=True, whitespace_blank=False)
    array([1, 3, 6])
    """
    data = np.frombuffer(buf, dtype=np.uint8)
    newlines = np.flatnonzero(data == _NEWLINE)
    starts = np.concatenate(([0], newlines + 1))
    if starts[-1] == data.size:
        starts = starts[:-1]
    ends = np.append(newlines, data.size)[: starts.size]
    length = ends - starts
    blank = length == 0
    single = np.flatnonzero(length == 1)
    blank[single] = data[starts[single]] == _RETURN
    if whitespace_blank:
        maybe = np.flatnonzero(
            ~blank & np.isin(data[np.minimum(starts, data.size - 1)], (9, 13, 32))
        )
        for line in maybe:  # rare: lines that begin with white space
            blank[line] = not buf[starts[line] : ends[line]].strip()
    keep = ~blank
    if quoted and b'"' in buf:
        quotes = np.flatnonzero(data == _QUOTE)
        keep &= np.searchsorted(quotes, starts) % 2 == 0
    return np.flatnonzero(keep) + 1


class RowNamer:
    """Names the records of one parsed block by the line (or row) of the file they start on.

    The mapping from record to line is computed only when asked for (a block without problems
    never needs it), and in one step when the block has no blank or multi-line records.
    """

    def __init__(
        self,
        *,
        unit: Literal["line", "row"],
        first: int,
        records: int,
        buf: bytes | None = None,
        quoted: bool = False,
        whitespace_blank: bool = False,
        skipped: Sequence[int] = (),
    ) -> None:
        self.unit = unit
        self.first = first
        self.records = records
        self.skipped = np.asarray(skipped, dtype=np.intp)
        self._buf = buf
        self._quoted = quoted
        self._whitespace_blank = whitespace_blank
        self._numbers: np.ndarray | None = None

    def numbers(self) -> np.ndarray:
        """Return the line (or row) number of every record, in order."""
        if self._numbers is None:
            buf = self._buf
            if buf is None or _physical_lines(buf) == self.records:
                numbers = np.arange(self.first, self.first + self.records)
            else:
                starts = record_starts(
                    buf, quoted=self._quoted, whitespace_blank=self._whitespace_blank
                )
                if starts.size == self.records:
                    numbers = starts + (self.first - 1)
                else:  # unbalanced quotes (a stray quote mid-value): fall back to record order
                    self.unit = "row"
                    numbers = np.arange(1, self.records + 1)
            self._numbers = numbers
            self._buf = None
        return self._numbers

    def _kept(self) -> np.ndarray:
        numbers = self.numbers()
        return np.delete(numbers, self.skipped) if self.skipped.size else numbers

    def names(self, positions: Sequence[int] | np.ndarray) -> list[str]:
        """Return ``line N`` (or ``row N``) for rows of the parsed table at 0-based positions.

        Records skipped by the parser (rows with the wrong number of fields) are not rows of
        the table; :meth:`record_names` names those.
        """
        numbers = self._kept()[np.asarray(positions, dtype=np.intp)]
        return [f"{self.unit} {n}" for n in numbers.tolist()]

    def record_names(self, records: Sequence[int] | np.ndarray) -> list[str]:
        """Return ``line N`` (or ``row N``) for records (parsed or skipped) at 0-based positions."""
        numbers = self.numbers()[np.asarray(records, dtype=np.intp)]
        return [f"{self.unit} {n}" for n in numbers.tolist()]

    def index(self) -> pd.Index:
        """Return the numbers of the parsed table's rows as a pandas index named by the unit."""
        simple = self._buf is None or _physical_lines(self._buf) == self.records
        if self._numbers is None and simple and not self.skipped.size:
            return pd.RangeIndex(self.first, self.first + self.records, name=self.unit)
        numbers = self._kept()
        if numbers.size and numbers[-1] - numbers[0] == numbers.size - 1:
            return pd.RangeIndex(int(numbers[0]), int(numbers[-1]) + 1, name=self.unit)
        return pd.Index(numbers, name=self.unit)


# --------------------------------------------------------------------------- CSV and TSV
@dataclass(frozen=True, slots=True)
class CsvHeader:
    """The header record of a CSV/TSV byte stream and where its body starts."""

    raw_names: list[str]
    names: list[str]
    end: int  # byte offset just past the header record
    body_line: int  # line number of the first line after the header


def parse_header(head: bytes, *, delimiter: str, name: str) -> CsvHeader:
    """Parse the header record at the start of ``head`` (BOM already removed)."""
    position, line = 0, 1
    while True:  # skip blank lines before the header, as the parser does
        end = head.find(b"\n", position)
        if head[position : (len(head) if end < 0 else end)].strip(b"\r"):
            break
        if end < 0:
            raise DataError(f"{name}: the file is empty")
        position, line = end + 1, line + 1
    end = position
    while True:  # the header ends at the first newline outside quotes
        nl = head.find(b"\n", end)
        if nl < 0:
            end = len(head)
            break
        end = nl + 1
        if head.count(b'"', position, nl) % 2 == 0:
            break
    record = head[position:end]
    try:
        text = record.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{name}: line {line} is not valid UTF-8 text (byte {record[exc.start]:#04x}); "
            "save the file as UTF-8"
        ) from None
    try:
        raw_names = next(csv.reader(io.StringIO(text), delimiter=delimiter), [])
    except csv.Error as exc:
        raise DataError(f"{name}: line {line} (the header) cannot be parsed: {exc}") from None
    names = [n.strip() for n in raw_names]
    _check_names(names, name=name)
    return CsvHeader(raw_names, names, end, line + record.count(b"\n"))


@dataclass(slots=True)
class _Invalid:
    numbers: list[int]
    texts: list[str]
    total: int = 0


def parse_csv_body(
    body: bytes,
    *,
    header: CsvHeader,
    delimiter: str,
    first_line: int,
    include: Sequence[str] | None,
    use_threads: bool,
    name: str,
    problems: Problems | None = None,
) -> tuple[pa.Table, RowNamer]:
    """Parse header-less CSV/TSV records with pyarrow, every requested column as text.

    ``include`` holds stripped column names (all columns when None). Rows with the wrong number of
    fields are an error listing the first few with their lines: raised at once, or recorded in
    ``problems`` (the table then lacks those rows, and the namer skips them). The returned
    table's columns are named by the stripped names.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    lookup = dict(zip(header.names, header.raw_names, strict=True))
    wanted = header.names if include is None else list(include)
    text_type = pa.string()
    types = {lookup[c]: text_type for c in wanted}
    quoted = b'"' in body
    invalid = _Invalid([], [])

    def handler(row: Any) -> str:
        invalid.total += 1
        if row.number is not None:
            invalid.numbers.append(int(row.number))
            if len(invalid.texts) < _INVALID_SHOWN:
                invalid.texts.append(str(row.text))
        return "skip"

    def parse(threads: bool) -> pa.Table:
        return pacsv.read_csv(
            pa.BufferReader(body),
            read_options=pacsv.ReadOptions(
                use_threads=threads,
                column_names=header.raw_names,
                block_size=max(1 << 20, min(len(body) + 1, 1 << 24)) if not threads else None,
            ),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter,
                quote_char='"' if quoted else False,
                newlines_in_values=quoted,
                ignore_empty_lines=True,
                invalid_row_handler=handler,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=types,
                include_columns=[lookup[c] for c in wanted],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                null_values=[],
            ),
        )

    if not body.strip():
        return pa.table({c: pa.array([], text_type) for c in wanted}), RowNamer(
            unit="line", first=first_line, records=0
        )
    # pyarrow cannot hand a row that is not UTF-8 to the invalid-row handler (it prints
    # "Exception ignored" and goes on): such text is refused first, naming its line
    not_text = _utf8_error(body, first_line=first_line, name=name)
    if not_text is not None:
        raise not_text
    try:
        table = parse(use_threads)
        if invalid.total and not invalid.numbers:  # threaded parsing does not number rows
            invalid.total = 0
            table = parse(False)
    except pa.ArrowInvalid as exc:
        raise _arrow_error(exc, body, first_line=first_line, name=name) from None
    records = table.num_rows + invalid.total
    skipped = [n - 1 for n in invalid.numbers]
    namer = RowNamer(
        unit="line", first=first_line, records=records, buf=body, quoted=quoted, skipped=skipped
    )
    if invalid.total:
        collector = problems if problems is not None else Problems(name)
        shown = skipped[:_INVALID_SHOWN]
        collector.add_rows(
            f"every row must have the {len(header.raw_names)} fields of the header",
            rows=[
                f"{where} ({_plural(_fields(text, delimiter), 'field')})"
                for where, text in zip(namer.record_names(shown), invalid.texts, strict=True)
            ],
            total=invalid.total,
        )
        if problems is None:
            collector.raise_if_any()
    return table.rename_columns(wanted), namer


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _fields(text: str, delimiter: str) -> int:
    return len(next(csv.reader(io.StringIO(text), delimiter=delimiter), []))


def _arrow_error(exc: Exception, body: bytes, *, first_line: int, name: str) -> DataError:
    """Turn a pyarrow parse failure into a DataError that names the line where possible."""
    message = str(exc)
    if "UTF8" in message or "UTF-8" in message:
        bad = _utf8_error(body, first_line=first_line, name=name)
        if bad is not None:
            return bad
    return DataError(f"{name}: cannot be parsed near line {first_line}: {message}")


def _utf8_error(body: bytes, *, first_line: int, name: str) -> DataError | None:
    """Return the error naming the first line of ``body`` that is not UTF-8, or None.

    Decoded in blocks of 16 MB, so a large body never becomes one large string; ASCII (most
    files) is recognised without decoding.
    """
    if body.isascii():
        return None
    view, block, start = memoryview(body), 1 << 24, 0
    while start < len(body):
        final = start + block >= len(body)
        try:
            _, used = codecs.utf_8_decode(view[start : start + block], "strict", final)
        except UnicodeDecodeError as bad:
            at = start + bad.start
            line = first_line + body.count(b"\n", 0, at)
            return DataError(
                f"{name}: line {line} is not valid UTF-8 text (byte {body[at]:#04x}); "
                "save the file as UTF-8"
            )
        start += used
    return None


# --------------------------------------------------------------------------- JSON Lines
def parse_jsonl(
    body: bytes, *, first_line: int, use_threads: bool, name: str
) -> tuple[pa.Table, RowNamer]:
    """Parse JSON Lines with pyarrow (or, when its type inference fails, line by line).

    Every column comes back as text (see :func:`arrow_as_text`). A line that is not a JSON
    object is an error naming it.
    """
    import pyarrow as pa
    import pyarrow.json as pajson

    try:
        table = pajson.read_json(
            pa.BufferReader(body),
            read_options=pajson.ReadOptions(
                use_threads=use_threads, block_size=max(1 << 20, min(len(body) + 1, 1 << 26))
            ),
        )
    except pa.ArrowInvalid:
        table = _jsonl_by_line(body, first_line=first_line, name=name)
    table = pa.table({c: arrow_as_text(table.column(c)) for c in table.column_names})
    namer = RowNamer(
        unit="line", first=first_line, records=table.num_rows, buf=body, whitespace_blank=True
    )
    return table, namer


def _jsonl_by_line(body: bytes, *, first_line: int, name: str) -> pa.Table:
    import pyarrow as pa

    columns: dict[str, list[object]] = {}
    bad: list[str] = []
    n_bad = 0
    rows = 0
    for number, line in enumerate(body.split(b"\n"), start=first_line):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            n_bad += 1
            if len(bad) < _INVALID_SHOWN:
                reason = (
                    "is not valid UTF-8 text"
                    if isinstance(exc, UnicodeDecodeError)
                    else f"is not valid JSON ({exc.msg})"
                )
                bad.append(f"line {number} {reason}")
            continue
        if not isinstance(record, dict):
            n_bad += 1
            if len(bad) < _INVALID_SHOWN:
                bad.append(f"line {number} is a JSON {type(record).__name__}, not an object")
            continue
        for key, value in record.items():
            columns.setdefault(key, [None] * rows).append(_json_text(value))
        rows += 1
        for values in columns.values():
            if len(values) < rows:
                values.append(None)
    if n_bad:
        more = f", and {n_bad - len(bad)} more" if n_bad > len(bad) else ""
        raise DataError(
            f"{name}: every line of JSON Lines must hold one JSON object: {'; '.join(bad)}{more}"
        )
    return pa.table({k: pa.array(v, pa.string()) for k, v in columns.items()})


def _json_text(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float_text(value)
    return json.dumps(value, ensure_ascii=False)


def _float_text(value: float) -> str:
    """Write a JSON number read as a float the way pyarrow does for whole numbers (1.0 -> 1)."""
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def arrow_as_text(column: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    """Return a pyarrow column as text: strings as they are, numbers and booleans as their text.

    Booleans become ``true``/``false``; numbers their shortest text (``7``, ``0.5``, ``1`` for
    1.0); dictionaries their values; nested values (lists, structs) their JSON; nulls stay null.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_dictionary(kind):
        column = pc.cast(column, kind.value_type)
        kind = column.type
    if pa.types.is_string(kind):
        return column
    if pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return pc.cast(column, pa.string())
    if pa.types.is_null(kind):
        return pa.nulls(len(column), pa.string())
    if pa.types.is_nested(kind):
        return pa.array([_json_text(v) for v in column.to_pylist()], pa.string())
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        return pc.cast(column, pa.string())
    return pc.cast(column, pa.string())


# --------------------------------------------------------------------------- Parquet
def parquet_names(file: Any) -> list[str]:
    """Return the column names of an open ``pyarrow.parquet.ParquetFile``."""
    return list(file.schema_arrow.names)


def _parse_parquet(raw: bytes, *, name: str) -> tuple[pa.Table, RowNamer]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(pa.BufferReader(raw))
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"{name}: cannot be read as Parquet: {exc}") from None
    _check_names([c.strip() for c in table.column_names], name=name)
    table = pa.table({c.strip(): arrow_as_text(table.column(c)) for c in table.column_names})
    return table, RowNamer(unit="row", first=1, records=table.num_rows)


# --------------------------------------------------------------------------- whole files
def _parse_whole(
    raw: bytes, fmt: Literal["csv", "tsv", "jsonl", "parquet"], *, name: str
) -> tuple[pa.Table, pd.Index]:
    if fmt == "parquet":
        table, namer = _parse_parquet(raw, name=name)
        return table, namer.index()
    raw = raw.removeprefix(_BOM)
    if fmt == "jsonl":
        table, namer = parse_jsonl(raw, first_line=1, use_threads=True, name=name)
        _check_names([c.strip() for c in table.column_names], name=name)
        table = table.rename_columns([c.strip() for c in table.column_names])
        return table, namer.index()
    delimiter = "\t" if fmt == "tsv" else ","
    header = parse_header(raw, delimiter=delimiter, name=name)
    table, namer = parse_csv_body(
        raw[header.end :],
        header=header,
        delimiter=delimiter,
        first_line=header.body_line,
        include=None,
        use_threads=True,
        name=name,
    )
    return table, namer.index()


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    import pyarrow as pa

    text = pd.StringDtype(storage="pyarrow", na_value=np.nan)
    return table.to_pandas(types_mapper={pa.string(): text}.get)


# --------------------------------------------------------------------------- byte blocks
def iter_record_blocks(
    stream: IO[bytes],
    *,
    start: bytes,
    block_size: int,
    quoted: bool,
    name: str = "<stream>",
    first_line: int = 1,
) -> Iterator[tuple[bytes, int]]:
    """Yield blocks of whole records from a byte stream, each with its number of newlines.

    Each block ends just after a newline that is outside quoted values (when ``quoted``), so a
    parser sees whole records; ``start`` is what was already read of the stream (from line
    ``first_line`` on). Memory stays about ``block_size`` (more only while one quoted value is
    longer than a block, up to :data:`~bayesjudge.io.bounded.MAX_LINE_BYTES`).

    Raises
    ------
    DataError
        If one record (a quoted value over several lines) grows past
        :data:`~bayesjudge.io.bounded.MAX_LINE_BYTES`, naming the line it starts on.
    """
    pending = start
    line = first_line
    finished = False
    while pending or not finished:
        if not finished and len(pending) < block_size:
            chunk = stream.read(block_size - len(pending))
            if chunk:
                pending += chunk
                continue
            finished = True
        if finished:
            cut = len(pending)
        else:  # the last whole record within the first block_size bytes (else within them all)
            cut = _last_record_end(pending[:block_size], quoted=quoted)
            if cut <= 0 and len(pending) > block_size:
                cut = _last_record_end(pending, quoted=quoted)
        if cut <= 0:  # one record longer than the block: read on
            if len(pending) > MAX_LINE_BYTES:
                raise DataError(
                    f"{name}: the record that starts on line {line} is longer than "
                    f'{size_text(MAX_LINE_BYTES)}: is a quote (") left open?'
                )
            chunk = stream.read(block_size)
            if chunk:
                pending += chunk
            else:
                finished = True
            continue
        block, pending = pending[:cut], pending[cut:]
        newlines = block.count(b"\n")
        line += newlines
        yield block, newlines


def _last_record_end(buf: bytes, *, quoted: bool) -> int:
    """Return the offset just past the last newline of ``buf`` outside quotes (0 if none)."""
    last = buf.rfind(b"\n")
    if last < 0 or not quoted or b'"' not in buf:
        return last + 1
    for tail in (1 << 16, len(buf)):  # look near the end first; the quotes before it are counted
        begin = max(0, len(buf) - tail)
        data = np.frombuffer(buf, dtype=np.uint8, offset=begin)
        quotes = np.flatnonzero(data == _QUOTE)
        newlines = np.flatnonzero(data == _NEWLINE)
        before = buf.count(b'"', 0, begin)
        outside = newlines[(np.searchsorted(quotes, newlines) + before) % 2 == 0]
        if outside.size:
            return begin + int(outside[-1]) + 1
    return 0
