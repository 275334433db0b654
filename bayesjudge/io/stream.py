"""Reduce judge files too large for memory to their sufficient statistics, block by block.

The prevalence model needs only six counts (DESIGN.md, family 1): ``m1`` gold-PASS items and
``x1`` of them judged PASS, ``m0`` gold-FAIL items and ``x0`` of them judged PASS, ``n``
unlabelled items and ``k`` of them judged PASS. :func:`judge_counts` reads a CSV, TSV, JSON
Lines or Parquet file (or several: a folder or a glob) in blocks of whole records and adds up
the counts, optionally per stratum, so memory stays about one block whatever the file size.
:func:`gate_cells` does the same for the retry gate's (label, r, k) cells of long-form rulings.
:func:`judge_counts_on_cluster` reduces many files on a Dask cluster.

Validation is the in-memory path's (:func:`bayesjudge.io.conform`): the same column mapping,
value spellings and missing-label rule, and every problem reported together with the file line
(or Parquet row) it is on. Values are parsed per block and per distinct value: each PASS/FAIL
column is dictionary-encoded and its few distinct spellings are looked up once.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError, MissingDependencyError
from bayesjudge.io.bounded import is_stream_path, read_all
from bayesjudge.io.groups import GroupCheck, GroupTally
from bayesjudge.io.mapping import (
    MISSING,
    NEGATIVE,
    POSITIVE,
    Field,
    OneOf,
    Spellings,
    check_threshold,
    report_codes,
    report_scores,
    resolve_columns,
    score_numbers,
)
from bayesjudge.io.problems import Problems, RepeatedIds
from bayesjudge.io.tables import (
    EXTENSIONS,
    FORMATS,
    RowNamer,
    TableFormat,
    arrow_as_text,
    choose_format,
    iter_record_blocks,
    open_source,
    parse_csv_body,
    parse_header,
    parse_jsonl,
    peek_columns,
    read_header_bytes,
)

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "DEFAULT_BLOCK_SIZE",
    "StreamCounts",
    "gate_cells",
    "judge_column",
    "judge_counts",
    "judge_counts_on_cluster",
]

DEFAULT_BLOCK_SIZE = 1 << 20
_FILE_SUFFIXES = tuple(EXTENSIONS)
_BOM = b"\xef\xbb\xbf"
COUNT_NAMES = ("m1", "x1", "m0", "x0", "n", "k")
_LABEL_CODES = np.array([MISSING, 0, 1], dtype=np.int8)  # labels kept apart: index = code + 1
_GROUP = "\x00group:"  # the prefix of an unread column carried along for the group check

JUDGE_FIELDS: tuple[Field | OneOf, ...] = (
    Field("label", "binary", missing=True),
    OneOf((Field("verdict", "binary"), Field("score", "score"))),
    Field("stratum", "text", required=False),
    Field("item", "text", required=False),
)
JUDGE_FIELDS_LABELS_APART: tuple[Field | OneOf, ...] = (
    Field("label", "binary", required=False, missing=True),
    OneOf((Field("verdict", "binary"), Field("score", "score"))),
    Field("stratum", "text", required=False),
    Field("item", "text"),
)
GATE_FIELDS: tuple[Field | OneOf, ...] = (
    Field("item", "text"),
    Field("verdict", "binary"),
    Field("label", "binary", required=False, missing=True),
)

type Source = str | os.PathLike[str] | IO[bytes]


# --------------------------------------------------------------------------- results
@dataclass(frozen=True, slots=True)
class StreamCounts:
    """The six prevalence counts of one or more judge files, with the rows they came from.

    Attributes
    ----------
    m1, x1, m0, x0, n, k : int
        As in :class:`bayesjudge.JudgeCounts` (build one with ``JudgeCounts(**c.as_dict())``
        or ``JudgeData.from_counts(**c.as_dict())``).
    rows : int
        Data rows read.
    files : int
        Files read.
    by_stratum : DataFrame or None
        The same counts per stratum (index ``stratum``, columns ``m1`` ... ``k``), when the data
        have a ``stratum`` column.
    """

    m1: int
    x1: int
    m0: int
    x0: int
    n: int
    k: int
    rows: int
    files: int
    by_stratum: pd.DataFrame | None = None

    def as_dict(self) -> dict[str, int]:
        """Return the six counts as a plain mapping."""
        return {name: int(getattr(self, name)) for name in COUNT_NAMES}

    def __repr__(self) -> str:
        counts = ", ".join(f"{k}={v}" for k, v in self.as_dict().items())
        strata = "" if self.by_stratum is None else f", strata={len(self.by_stratum)}"
        return f"StreamCounts({counts}, rows={self.rows}, files={self.files}{strata})"


@dataclass(frozen=True, slots=True)
class _Options:
    """What every file of one reduction is read with (picklable, for Dask workers)."""

    fields: tuple[Field | OneOf, ...]
    columns: tuple[tuple[str, str], ...]
    positive: tuple[str, ...]
    negative: tuple[str, ...]
    format: str
    block_size: int
    threshold: float | None = None
    label_ids: tuple[str, ...] | None = None  # gold labels kept apart, joined by item id
    label_codes: tuple[int, ...] | None = None  # 1, 0 or -1 (blank) per id
    groups: GroupCheck | None = None  # refuse unread columns that split the rows into groups


@dataclass(slots=True)
class _JudgePartial:
    """The counts of one file, per stratum, and its problems."""

    strata: list[str]
    counts: np.ndarray  # (len(strata), 6) cell counts: unlabelled F/P, gold-FAIL F/P, PASS F/P
    rows: int
    has_stratum: bool
    problems: Problems
    seen: np.ndarray | None = None  # result rows per label id, when labels are kept apart
    sample_ids: list[str] | None = None  # some result ids, for near-miss hints
    # rows and labels per item id, when the rows carry their own labels and an item column;
    # the files' tallies are merged, each bounded (RepeatedIds.limit distinct ids)
    repeated: RepeatedIds | None = None
    groups: GroupTally | None = None  # the unread columns' values, for the group check


@dataclass(slots=True)
class _Chunk:
    table: pa.Table  # columns named by field; PASS/FAIL and stratum columns dictionary-encoded
    namer: RowNamer


# --------------------------------------------------------------------------- sources and chunks
def _options(
    fields: tuple[Field | OneOf, ...],
    *,
    columns: Mapping[str, str] | None,
    positive: Sequence[str],
    negative: Sequence[str],
    format: str,
    block_size: int,
    threshold: float | None = None,
    labels: pd.DataFrame | None = None,
    groups: GroupCheck | None = None,
) -> _Options:
    if format not in FORMATS:
        raise ValueError(f"format must be one of {list(FORMATS)}; got {format!r}")
    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1024:
        raise ValueError(f"block_size must be a whole number of bytes >= 1024; got {block_size!r}")
    Spellings(tuple(positive), tuple(negative))  # check them once, here
    label_ids = label_codes = None
    if labels is not None:
        label_ids, label_codes = _label_table(labels)
        fields = JUDGE_FIELDS_LABELS_APART
    return _Options(
        label_ids=label_ids,
        label_codes=label_codes,
        fields=fields,
        columns=tuple((columns or {}).items()),
        positive=tuple(positive),
        negative=tuple(negative),
        format=format,
        block_size=block_size,
        threshold=None if threshold is None else check_threshold(threshold),
        groups=groups,
    )


def _judge_options(
    columns: Mapping[str, str] | None,
    positive: Sequence[str],
    negative: Sequence[str],
    format: str,
    block_size: int,
    threshold: float | None,
    labels: pd.DataFrame | None,
) -> _Options:
    """Return the checked options of a judge table (:func:`judge_counts` and its cluster form)."""
    return _options(
        JUDGE_FIELDS,
        columns=columns,
        positive=positive,
        negative=negative,
        format=format,
        block_size=block_size,
        threshold=threshold,
        labels=labels,
        groups=GroupCheck(by=True),
    )


def _label_table(labels: pd.DataFrame) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Check a conformed labels table (``item``, ``label``) and return its ids and codes."""
    problems = Problems(str(labels.attrs.get("source", "labels")))
    absent = [c for c in ("item", "label") if c not in labels.columns]
    if absent:
        problems.add(f"the labels have no column(s) {absent}; read them with read_labels()")
        problems.raise_if_any()
    ids = labels["item"].astype(object)
    repeated = ids[ids.duplicated(keep=False)]
    if len(repeated):
        counts = repeated.value_counts(sort=False)
        problems.add(
            f"labels: each id must appear once; {counts.size} id(s) appear more than once: "
            + _ids_shown(counts.index.tolist(), [f"{c} rows" for c in counts.tolist()])
        )
    problems.raise_if_any()
    values = labels["label"].to_numpy(dtype=float)
    codes = np.where(np.isnan(values), MISSING, values).astype(int)
    return tuple(str(i) for i in ids), tuple(int(c) for c in codes)


def _ids_shown(ids: Sequence[object], notes: Sequence[str] | None = None) -> str:
    shown = [
        repr(i) if notes is None else f"{i!r} ({n})"
        for i, n in zip(ids[:5], notes or [""] * len(ids), strict=False)
    ]
    rest = len(ids) - len(shown)
    return ", ".join(shown) + (f", and {rest} more" if rest else "")


def _is_data(path: Path) -> bool:
    """Whether a file's name says it holds data (``.csv``, ..., also gzipped: ``.csv.gz``)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes[-1:] == [".gz"]:
        suffixes = suffixes[:-1]
    return bool(suffixes) and suffixes[-1] in _FILE_SUFFIXES


def expand_sources(source: Source | Sequence[str | os.PathLike[str]]) -> list[Source]:
    """Return the files a source stands for: itself, the data files of a folder, a glob's matches.

    A folder contributes its ``.csv``, ``.tsv``, ``.jsonl``, ``.parquet`` (...) files, gzipped
    or not, sorted;
    a pattern with ``*``, ``?`` or ``[`` its sorted matches. A folder or pattern with no data file
    is a :class:`DataError`.
    """
    if isinstance(source, list | tuple):
        out: list[Source] = []
        for item in source:
            out.extend(expand_sources(item))
        return out
    if not isinstance(source, str | os.PathLike):
        return [source]  # type: ignore[list-item]  # an open binary file
    text = os.fspath(source)
    if text == "-":
        return [text]
    if os.path.isdir(text):
        files = sorted(str(p) for p in Path(text).iterdir() if p.is_file() and _is_data(p))
        if not files:
            raise DataError(f"folder {text!r} holds no data files ({', '.join(_FILE_SUFFIXES)})")
        return list(files)
    if any(ch in text for ch in "*?["):
        matches = sorted(p for p in glob.glob(text) if os.path.isfile(p))
        if not matches:
            raise DataError(f"no file matches {text!r}")
        return list(matches)
    return [text]


def judge_column(
    source: Source | Sequence[str | os.PathLike[str]],
    *,
    columns: Mapping[str, str] | None = None,
    format: TableFormat = "auto",
) -> Literal["verdict", "score"] | None:
    r"""Return which judge column a judge file holds, ``"verdict"`` or ``"score"``, from its header.

    Only the header (CSV, TSV), the first record (JSON Lines) or the schema (Parquet) is read; a
    folder or glob is judged by its first file. The column mapping applies as in
    :func:`judge_counts`.

    Returns
    -------
    str or None
        ``"verdict"`` or ``"score"``; None when the source is not a file path (standard input, a
        pipe, a FIFO, a device, a file object: read once, the header cannot be peeked at) or the
        header holds neither or both (the full reader then says what is wrong).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "judge.csv"
    >>> _ = path.write_text("gold,p\n1,0.9\n,0.2\n")
    >>> judge_column(path, columns={"label": "gold", "score": "p"})
    'score'
    """
    files = expand_sources(source)
    first = files[0]
    if not isinstance(first, str | os.PathLike) or is_stream_path(first):
        return None
    names = peek_columns(first, format=format)
    used = resolve_columns(
        names, JUDGE_FIELDS, columns=columns, strict=False, problems=Problems(_name(first))
    )
    found = [name for name in ("verdict", "score") if name in used]
    return found[0] if len(found) == 1 else None


def _chunks(source: Source, options: _Options, *, problems: Problems) -> Iterator[_Chunk]:
    """Yield blocks of a file as pyarrow tables of the fields present, columns renamed.

    CSV/TSV/JSONL columns are text; Parquet columns keep their types. Problems with the file
    itself or its columns are recorded in ``problems`` (and end the file); problems of values are
    the caller's.
    """
    import pyarrow as pa

    try:
        name, stream, owned = open_source(source, argument="data")
    except DataError as exc:
        problems.add(str(exc).removeprefix("data: "), source=_name(source))
        return
    try:
        head = stream.read(1 << 16)
        if not head.strip():  # blank lines only, so far: read on to the first line of text
            head = read_header_bytes(stream, head, name=name)
        if not head.strip() or head.strip() == _BOM:
            problems.add("the file is empty", source=name)
            return
        fmt = choose_format(options.format, name=name, head=head)
        mapping = dict(options.columns)

        def resolve(names: Sequence[str]) -> dict[str, str] | None:
            local = Problems(name)
            used = resolve_columns(
                names, options.fields, columns=mapping, strict=False, problems=local
            )
            problems.merge(local)
            if local:
                return None
            if options.groups is not None:  # unread columns come along, named apart
                tally = GroupTally.for_table(names, used, mapping)
                used = {**used, **{_GROUP + c: c for c in tally.columns}}
            return used

        if fmt == "parquet":
            yield from _parquet_chunks(
                name, stream, head, resolve, rows=max(1024, options.block_size // 8)
            )
            return
        head = head.removeprefix(_BOM)
        if fmt == "jsonl":
            line = 1
            used: dict[str, str] | None = None
            for block, newlines in iter_record_blocks(
                stream, start=head, block_size=options.block_size, quoted=False, name=name
            ):
                table, namer = parse_jsonl(block, first_line=line, use_threads=False, name=name)
                line += newlines
                table = table.rename_columns([c.strip() for c in table.column_names])
                if used is None:
                    used = resolve(table.column_names)
                    if used is None:
                        return
                columns = {
                    field_name: (
                        table.column(column)
                        if column in table.column_names
                        else pa.chunked_array([pa.nulls(table.num_rows, pa.string())])
                    )
                    for field_name, column in used.items()
                }
                yield _Chunk(pa.table(columns), namer)
            return
        delimiter = "\t" if fmt == "tsv" else ","
        head = read_header_bytes(stream, head, name=name)
        header = parse_header(head, delimiter=delimiter, name=name)
        used = resolve(header.names)
        if used is None:
            return
        inverse = {column: field_name for field_name, column in used.items()}
        line = header.body_line
        for block, newlines in iter_record_blocks(
            stream,
            start=head[header.end :],
            block_size=options.block_size,
            quoted=True,
            name=name,
            first_line=header.body_line,
        ):
            table, namer = parse_csv_body(
                block,
                header=header,
                delimiter=delimiter,
                first_line=line,
                include=list(used.values()),
                use_threads=False,
                name=name,
                problems=problems,
            )
            line += newlines
            yield _Chunk(table.rename_columns([inverse[c] for c in table.column_names]), namer)
    except DataError as exc:
        problems.add(str(exc).removeprefix(f"{name}: "), source=name)
    except (OSError, EOFError) as exc:
        problems.add(f"cannot be read ({getattr(exc, 'strerror', None) or exc})", source=name)
    finally:
        if owned:
            stream.close()


def _parquet_chunks(
    name: str,
    stream: IO[bytes],
    head: bytes,
    resolve: Callable[[Sequence[str]], dict[str, str] | None],
    *,
    rows: int,
) -> Iterator[_Chunk]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if name != "<stdin>" and os.path.isfile(name):
            handle: Any = name
        else:  # Parquet needs random access: a stream is read whole
            handle = pa.BufferReader(head + read_all(stream, name=name))
        file = pq.ParquetFile(handle)
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"{name}: cannot be read as Parquet: {exc}") from None
    raw_names = list(file.schema_arrow.names)
    stripped = [c.strip() for c in raw_names]
    if len(set(stripped)) < len(stripped):
        raise DataError(f"{name}: the schema names a column more than once: {raw_names}")
    used = resolve(stripped)
    if used is None:
        return
    raw = dict(zip(stripped, raw_names, strict=True))
    row = 1
    for batch in file.iter_batches(batch_size=rows, columns=[raw[c] for c in used.values()]):
        table = pa.table({f: batch.column(raw[c]) for f, c in used.items()})
        yield _Chunk(table, RowNamer(unit="row", first=row, records=batch.num_rows))
        row += batch.num_rows


# --------------------------------------------------------------------------- per-chunk parsing
@dataclass(slots=True)
class _Coded:
    """A dictionary-encoded column: each row's index into the distinct values, and their codes."""

    indices: np.ndarray  # int32, one per row
    codes: np.ndarray  # int8 (1, 0, -1 missing, -2 invalid), one per distinct value
    encoded: pa.Array  # the dictionary array, for the raw values shown in messages

    def row_codes(self) -> np.ndarray:
        return self.codes[self.indices]

    def values(self, positions: np.ndarray) -> list[object]:
        import pyarrow as pa

        return list(self.encoded.take(pa.array(positions, pa.int64())).to_pylist())


def _encode(column: pa.ChunkedArray, spellings: Spellings) -> _Coded:
    """Dictionary-encode a PASS/FAIL column and code each distinct value once."""
    import pyarrow.compute as pc

    array = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    encoded = pc.dictionary_encode(array, null_encoding="encode")
    indices = encoded.indices.to_numpy(zero_copy_only=False)
    return _Coded(indices, spellings.codes(encoded.dictionary.to_pylist()), encoded)


def _row_codes(
    chunk: _Chunk, column: str, spellings: Spellings, *, missing: bool, problems: Problems
) -> np.ndarray:
    """Code a PASS/FAIL column of a chunk row by row, reporting its bad rows."""
    coded = _encode(chunk.table.column(column), spellings)
    codes = coded.row_codes()
    report_codes(
        codes,
        column=column,
        missing=missing,
        problems=problems,
        names=chunk.namer.names,
        values=coded.values,
    )
    return codes


def _report(
    coded: _Coded,
    present: np.ndarray,
    *,
    column: str,
    missing: bool,
    chunk: _Chunk,
    problems: Problems,
) -> None:
    """Report the bad rows of a coded column, if a bad distinct value occurs (``present``)."""
    bad = coded.codes == -2
    if not missing:
        bad |= coded.codes == MISSING
    if (bad & present).any():
        report_codes(
            coded.row_codes(),
            column=column,
            missing=missing,
            problems=problems,
            names=chunk.namer.names,
            values=coded.values,
        )


def _scores(column: pa.ChunkedArray, *, chunk: _Chunk, problems: Problems) -> np.ndarray:
    """Parse a score column (vectorised cast; the in-memory parser only for a block with errors)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    text = column if pa.types.is_string(column.type) else arrow_as_text(column)
    try:
        if text.null_count:
            raise pa.ArrowInvalid("nulls")
        numbers = np.asarray(
            pc.cast(pc.utf8_trim_whitespace(text), pa.float64()).to_numpy(zero_copy_only=False),
            dtype=float,
        )
        missing = np.isnan(numbers)
        not_number = np.zeros_like(missing)
    except pa.ArrowInvalid:
        numbers, missing, not_number = score_numbers(text.to_pandas())
    report_scores(
        numbers,
        missing,
        not_number,
        column="score",
        problems=problems,
        names=chunk.namer.names,
        values=lambda p: list(text.take(pa.array(p, pa.int64())).to_pylist()),
    )
    with np.errstate(invalid="ignore"):
        bad = missing | not_number | ~((numbers >= 0) & (numbers <= 1))
    return np.where(bad, np.nan, numbers)


def _text_ids(
    column: pa.ChunkedArray, *, name: str, chunk: _Chunk, problems: Problems
) -> pa.ChunkedArray:
    """Strip a text column; record blank (or missing) values."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_string(column.type):
        column = arrow_as_text(column)
    stripped = pc.utf8_trim_whitespace(column)
    blank = pc.fill_null(pc.equal(stripped, ""), True)
    if pc.any(blank).as_py():
        positions = np.flatnonzero(blank.to_numpy(zero_copy_only=False))
        problems.add_rows(
            f"column {name!r} must not be blank",
            rows=chunk.namer.names(positions[: problems.limit]),
            total=int(positions.size),
        )
    return stripped


# --------------------------------------------------------------------------- judge counts
def _reduce_judge(source: Source, options: _Options) -> _JudgePartial:
    """Reduce one judge file to cell counts per stratum, collecting its problems.

    Per block, each column is dictionary-encoded; one ``bincount`` over the combined index
    (stratum, label spelling, verdict spelling) counts the rows of every combination, and the few
    combinations are then mapped to cells. Rows are located only for a bad value.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    problems = Problems(_name(source))
    spellings = Spellings(options.positive, options.negative)
    strata: dict[str, int] = {}
    counts = np.zeros((0, 6), dtype=np.int64)
    rows = 0
    has_stratum = False
    warned = False
    score_codes = np.array([NEGATIVE, POSITIVE, -2], dtype=np.int8)
    seen = sample_ids = None
    repeated: RepeatedIds | None = None
    groups: GroupTally | None = None
    if options.label_ids is not None and options.label_codes is not None:
        id_set = pa.array(options.label_ids, pa.string())
        id_codes = np.append(np.array(options.label_codes, dtype=np.int32) + 1, 0)  # 0: none
        seen = np.zeros(len(options.label_ids), dtype=np.int64)
    for chunk in _chunks(source, options, problems=problems):
        table = chunk.table
        size = table.num_rows
        rows += size
        extra = [c for c in table.column_names if c.startswith(_GROUP)]
        if options.groups is not None:
            if groups is None:
                groups = GroupTally(
                    [c.removeprefix(_GROUP) for c in extra], item="item" in table.column_names
                )
            ids = table.column("item").to_pandas() if "item" in table.column_names else None
            block = {c.removeprefix(_GROUP): table.column(c).to_pandas() for c in extra}
            groups.add(block, items=ids)
            table = table.drop_columns(extra)
        if seen is not None:
            if "label" in table.column_names:
                own = _encode(table.column("label"), spellings)
                if (own.codes[np.unique(own.indices)] != MISSING).any():
                    problems.add(
                        "these data have labels in column 'label' and labels were given apart; "
                        "give labels in one place only"
                    )
            items = _text_ids(table.column("item"), name="item", chunk=chunk, problems=problems)
            if sample_ids is None:
                sample_ids = items.slice(0, 100_000).to_pylist()
            where = pc.fill_null(pc.index_in(items, value_set=id_set), -1).to_numpy(
                zero_copy_only=False
            )
            found = where[where >= 0]
            seen += np.bincount(found, minlength=seen.size)
            label = _Coded(id_codes[where], _LABEL_CODES, pa.array([]))
        else:
            label = _encode(table.column("label"), spellings)
        if "verdict" in table.column_names:
            verdict = _encode(table.column("verdict"), spellings)
            if options.threshold is not None and not warned:
                problems.add(
                    "a threshold turns a 'score' column into verdicts, but these data have a "
                    "'verdict' column; drop the threshold"
                )
                warned = True
        else:
            score = _scores(table.column("score"), chunk=chunk, problems=problems)
            if options.threshold is None and not warned:
                problems.add(
                    "the judge output is a 'score' column; the six counts need verdicts: give "
                    "a threshold (score >= threshold is PASS)"
                )
                warned = True
            cut = 2.0 if options.threshold is None else options.threshold
            index = np.where(np.isnan(score), 2, score >= cut).astype(np.int32)
            verdict = _Coded(index, score_codes, pa.array(index))
        if "stratum" in table.column_names:
            has_stratum = True
            text = pc.utf8_trim_whitespace(arrow_as_text(table.column("stratum").combine_chunks()))
            encoded = pc.dictionary_encode(text, null_encoding="encode")
            names = encoded.dictionary.to_pylist()
            local = np.array(
                [strata.setdefault(v, len(strata)) if v else -1 for v in names], dtype=np.int64
            )
            group = encoded.indices.to_numpy(zero_copy_only=False)
            if (local < 0).any():
                blank = np.flatnonzero(local[group] < 0)
                if blank.size:
                    problems.add_rows(
                        "column 'stratum' must not be blank",
                        rows=chunk.namer.names(blank[: problems.limit]),
                        total=int(blank.size),
                    )
        else:
            strata.setdefault("", 0)
            local = np.zeros(1, dtype=np.int64)
            group = None
        if "item" in table.column_names and seen is None:
            own_ids = _text_ids(table.column("item"), name="item", chunk=chunk, problems=problems)
            repeated = repeated or RepeatedIds()
            repeated.add(own_ids.to_pylist(), label.row_codes())
        n_label, n_verdict = label.codes.size, verdict.codes.size
        width = local.size * n_label * n_verdict
        kind = np.dtype(np.int32 if width < 2**31 else np.int64)
        key: np.ndarray = label.indices.astype(kind, copy=False) * np.asarray(n_verdict, kind)
        key += verdict.indices
        if group is not None:
            key += group.astype(kind, copy=False) * np.asarray(n_label * n_verdict, kind)
        combos = np.bincount(key, minlength=width).reshape(local.size, n_label, n_verdict)
        _report(
            label,
            combos.sum(axis=(0, 2)) > 0,
            column="label",
            missing=True,
            chunk=chunk,
            problems=problems,
        )
        _report(
            verdict,
            combos.sum(axis=(0, 1)) > 0,
            column="verdict",
            missing=False,
            chunk=chunk,
            problems=problems,
        )
        if counts.shape[0] < len(strata):
            counts = np.vstack([counts, np.zeros((len(strata) - counts.shape[0], 6), np.int64)])
        for s, lab, ver in zip(*np.nonzero(combos), strict=True):
            y, v, g = int(label.codes[lab]), int(verdict.codes[ver]), int(local[s])
            if y >= -1 and v >= 0 and g >= 0:
                counts[g, (y + 1) * 2 + v] += combos[s, lab, ver]
    if rows == 0 and not problems:
        problems.add("the table has no data rows")
    return _JudgePartial(
        list(strata), counts, rows, has_stratum, problems, seen, sample_ids, repeated, groups
    )


def _name(source: Source) -> str:
    from bayesjudge.io.tables import source_name

    return source_name(source)


def _combine(partials: Sequence[_JudgePartial], *, label: str, options: _Options) -> StreamCounts:
    problems = Problems(label)
    for partial in partials:
        problems.merge(partial.problems)
    if options.label_ids is not None and not problems:
        _check_join(partials, options.label_ids, problems)
    if options.groups is not None and not problems:
        tallies = [p.groups for p in partials if p.groups is not None]
        for other in tallies[1:]:
            tallies[0].merge(other)
        spellings = Spellings(options.positive, options.negative)
        refusal = (
            tallies[0].refusal(source=label, check=options.groups, spellings=spellings)
            if tallies
            else None
        )
        if refusal is not None:
            problems.add(refusal)
    problems.raise_if_any()
    repeated = None
    for partial in partials:
        if partial.repeated is not None:
            repeated = repeated or RepeatedIds()
            repeated.merge(partial.repeated)
    if repeated is not None:
        repeated.warn(stacklevel=4)
    totals: dict[str, np.ndarray] = {}
    for partial in partials:
        for name, row in zip(partial.strata, partial.counts, strict=False):
            totals[name] = totals.get(name, np.zeros(6, np.int64)) + row
    cells = np.sum(list(totals.values()), axis=0) if totals else np.zeros(6, np.int64)
    by_stratum = None
    if any(p.has_stratum for p in partials):
        table = np.array([_six(totals[s]) for s in sorted(totals)], dtype=np.int64).reshape(-1, 6)
        by_stratum = pd.DataFrame(
            table, index=pd.Index(sorted(totals), name="stratum"), columns=list(COUNT_NAMES)
        )
    six = _six(cells)
    return StreamCounts(
        **dict(zip(COUNT_NAMES, six, strict=True)),
        rows=sum(p.rows for p in partials),
        files=len(partials),
        by_stratum=by_stratum,
    )


def _check_join(
    partials: Sequence[_JudgePartial], label_ids: tuple[str, ...], problems: Problems
) -> None:
    """Refuse label ids matching several result rows; absent ones follow the one rule.

    Label ids absent from the results are warned of, or refused, by
    :func:`~bayesjudge.io.labels.report_absent_ids`, as in the in-memory join.
    """
    from bayesjudge.io.labels import report_absent_ids

    seen = np.sum([p.seen for p in partials if p.seen is not None], axis=0)
    ids = np.asarray(label_ids, dtype=object)
    several = np.flatnonzero(seen > 1)
    if several.size:
        problems.add(
            f"results: {several.size} labelled id(s) have several rows: "
            + _ids_shown(ids[several].tolist(), [f"{c} rows" for c in seen[several].tolist()])
            + "; a streamed join needs one row per labelled id: say how to combine them with "
            "epochs='first', 'majority', 'any' or 'all' (JudgeData.from_frame(..., epochs=...), "
            "on the command line --epochs), which reads the data in memory"
        )
    sample = [i for p in partials for i in (p.sample_ids or [])]
    report_absent_ids(
        ids[seen == 0].tolist(),
        labelled=ids.size,
        results=pd.Series(sample, dtype=object),
        problems=problems,
        every_result=False,
    )


def _six(cells: np.ndarray) -> list[int]:
    """Cells (unlabelled F/P, gold-FAIL F/P, gold-PASS F/P) -> m1, x1, m0, x0, n, k."""
    c = [int(v) for v in cells]
    return [c[4] + c[5], c[5], c[2] + c[3], c[3], c[0] + c[1], c[1]]


def _sources_label(files: Sequence[Source]) -> str:
    return _name(files[0]) if len(files) == 1 else f"{len(files)} files"


def judge_counts(
    source: Source | Sequence[str | os.PathLike[str]],
    *,
    columns: Mapping[str, str] | None = None,
    positive: Sequence[str] = (),
    negative: Sequence[str] = (),
    threshold: float | None = None,
    labels: pd.DataFrame | None = None,
    format: TableFormat = "auto",
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> StreamCounts:
    r"""Stream judge data to the six prevalence counts, without loading the file.

    Reads ``label`` (blank, NA, ... = unlabelled) and ``verdict`` (or ``score`` with a
    ``threshold``), and ``stratum`` when present, block by block.

    Parameters
    ----------
    source : path, ``"-"``, folder, glob, list of paths or binary file object
        The judge data; a folder or glob stands for its data files, whose counts are added up.
    columns, positive, negative
        Column mapping and extra PASS/FAIL spellings, as in :func:`bayesjudge.io.conform`.
    threshold : float, optional
        Turns a ``score`` column in [0, 1] into verdicts: ``score >= threshold`` is PASS.
    labels : DataFrame, optional
        Gold labels kept apart (``item``, ``label``; from :func:`bayesjudge.io.read_labels`),
        joined by the data's ``item`` column as the blocks stream by: ids compared exactly, as
        text. Refused, naming the ids: an id twice in the labels, a label id absent from the data,
        a labelled id with several rows (unlabelled ids are not checked for repeats: that would
        need every id in memory), and labels also in the data's own ``label`` column.
    format : {"auto", "csv", "tsv", "jsonl", "parquet"}
        As in :func:`bayesjudge.io.read_table` (applied to every file).
    block_size : int
        Bytes read per block (CSV, TSV, JSONL); memory stays a small multiple of it.

    Returns
    -------
    StreamCounts
        The six counts (and per stratum, when there is a stratum column).

    Raises
    ------
    DataError
        Listing every problem of every file (missing columns with suggestions, bad values with
        their file lines), after reading all of them.

    Examples
    --------
    >>> import io
    >>> data = io.BytesIO(b"gold,judge\ncorrect,yes\nincorrect,yes\n,no\n,yes\n")
    >>> judge_counts(data, columns={"label": "gold", "verdict": "judge"}).as_dict()
    {'m1': 1, 'x1': 1, 'm0': 1, 'x0': 1, 'n': 2, 'k': 1}
    """
    options = _judge_options(columns, positive, negative, format, block_size, threshold, labels)
    files = expand_sources(source)
    partials = [_reduce_judge(f, options) for f in files]
    return _combine(partials, label=_sources_label(files), options=options)


# --------------------------------------------------------------------------- gate cells
def gate_cells(
    source: Source | Sequence[str | os.PathLike[str]],
    *,
    columns: Mapping[str, str] | None = None,
    positive: Sequence[str] = (),
    negative: Sequence[str] = (),
    format: TableFormat = "auto",
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> pd.DataFrame:
    r"""Stream long-form rulings (``item``, ``verdict``, optional ``label``) to (label, r, k) cells.

    Each item's rulings are counted (``r``) and passes added up (``k``) across blocks, whether
    the file is sorted by item or not (memory grows with the number of items, not of rulings);
    then items are grouped into cells, as :func:`bayesjudge.gates.cells.gate_cells` does in memory.

    Returns
    -------
    DataFrame
        Columns ``label`` (1 gold-PASS, 0 gold-FAIL, -1 unlabelled), ``r``, ``k`` and ``weight``
        (items in the cell), sorted by label (PASS first), r and k.

    Raises
    ------
    DataError
        Listing every problem, including items whose label differs between their rows.

    Examples
    --------
    >>> import io
    >>> data = io.BytesIO(b"item,verdict,label\na,1,1\nb,0,\na,0,1\nb,0,\n")
    >>> gate_cells(data).to_dict("list")
    {'label': [1, -1], 'r': [2, 2], 'k': [1, 0], 'weight': [1, 1]}
    """
    import pyarrow as pa

    options = _options(
        GATE_FIELDS,
        columns=columns,
        positive=positive,
        negative=negative,
        format=format,
        block_size=block_size,
    )
    files = expand_sources(source)
    problems = Problems(_sources_label(files))
    spellings = Spellings(options.positive, options.negative)
    partials: list[pa.Table] = []
    pending = 0
    limit = 1 << 20
    rows = 0
    for file in files:
        local = Problems(_name(file))
        for chunk in _chunks(file, options, problems=local):
            table = chunk.table
            verdict = _row_codes(chunk, "verdict", spellings, missing=False, problems=local)
            if "label" in table.column_names:
                label = _row_codes(chunk, "label", spellings, missing=True, problems=local)
            else:
                label = np.full(table.num_rows, MISSING, dtype=np.int8)
            item = _text_ids(table.column("item"), name="item", chunk=chunk, problems=local)
            rows += table.num_rows
            if local:  # the data will be refused: only look for more problems
                continue
            partials.append(
                _item_sums(
                    pa.table({"item": item, "k": verdict.astype(np.int64), "label": label}),
                    first=True,
                )
            )
            pending += partials[-1].num_rows
            if pending > limit:
                partials = [_item_sums(pa.concat_tables(partials), first=False)]
                pending = partials[0].num_rows
                limit = max(limit, 2 * pending)
        problems.merge(local)
        if rows == 0 and not local:
            problems.add("the table has no data rows", source=_name(file))
    problems.raise_if_any()
    items = _item_sums(pa.concat_tables(partials), first=False)
    clash = np.flatnonzero(
        items.column("label_min").to_numpy() != items.column("label_max").to_numpy()
    )
    if clash.size:
        shown = items.column("item").take(pa.array(clash[:5])).to_pylist()
        problems.add_rows(
            "column 'label' must be the same on every row of an item",
            rows=[f"item {i!r}" for i in shown],
            total=int(clash.size),
        )
        problems.raise_if_any()
    cells = (
        pa.table(
            {
                "label": items.column("label_min"),
                "r": items.column("r"),
                "k": items.column("k"),
            }
        )
        .group_by(["label", "r", "k"])
        .aggregate([([], "count_all")])
        .to_pandas()
        .rename(columns={"count_all": "weight"})
    )
    cells = cells.astype({"label": np.int64, "r": np.int64, "k": np.int64, "weight": np.int64})
    order = np.lexsort((cells["k"], cells["r"], -cells["label"]))
    return cells.iloc[order].reset_index(drop=True)[["label", "r", "k", "weight"]]


def _item_sums(table: pa.Table, *, first: bool) -> pa.Table:
    """Sum rulings per item: from rows (``first``) or from earlier partial sums."""
    if first:
        grouped = table.group_by("item").aggregate(
            [("k", "sum"), ("k", "count"), ("label", "min"), ("label", "max")]
        )
        names = {"k_sum": "k", "k_count": "r", "label_min": "label_min", "label_max": "label_max"}
    else:
        grouped = table.group_by("item").aggregate(
            [("k", "sum"), ("r", "sum"), ("label_min", "min"), ("label_max", "max")]
        )
        names = {
            "k_sum": "k",
            "r_sum": "r",
            "label_min_min": "label_min",
            "label_max_max": "label_max",
        }
    return grouped.rename_columns([names.get(c, c) for c in grouped.column_names])


# --------------------------------------------------------------------------- Dask
def judge_counts_on_cluster(
    source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    scheduler: str | None = None,
    columns: Mapping[str, str] | None = None,
    positive: Sequence[str] = (),
    negative: Sequence[str] = (),
    threshold: float | None = None,
    labels: pd.DataFrame | None = None,
    format: TableFormat = "auto",
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> StreamCounts:
    """Reduce many judge files to the six counts on a Dask cluster, one task per file.

    The same reduction as :func:`judge_counts` (so the same counts and the same problems, named
    by file and line), with the files spread over the workers; the workers must see the paths.

    Parameters
    ----------
    source : folder, glob or list of paths
        The files (Parquet, CSV, TSV, JSONL).
    scheduler : str, optional
        Address of a running Dask scheduler (``"tcp://host:8786"``). By default a
        ``LocalCluster`` is started for the call and closed after it.
    columns, positive, negative, threshold, labels, format, block_size
        As in :func:`judge_counts`.

    Raises
    ------
    MissingDependencyError
        If dask.distributed is not installed (``pip install 'bayesjudge[studies]'``).
    DataError
        Listing every problem of every file.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise MissingDependencyError(
            "reducing files on a Dask cluster needs dask.distributed, which is not installed; "
            "install it with `pip install 'bayesjudge[studies]'`"
        ) from None
    options = _judge_options(columns, positive, negative, format, block_size, threshold, labels)
    files = [f for f in expand_sources(source) if isinstance(f, str) and f != "-"]
    if not files:
        raise DataError("a cluster reads files by path; give a folder, a glob or paths")
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(dashboard_address=None)
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        futures = client.map(_reduce_judge, files, options=options, pure=False)
        partials = client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return _combine(partials, label=_sources_label(files), options=options)
