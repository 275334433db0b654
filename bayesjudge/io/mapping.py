"""Map a user's columns and value spellings onto bayesjudge's names, checking every row once.

Columns
    bayesjudge names its columns ``label``, ``verdict``, ``score``, ``item``, ... A table with other
    names is mapped with ``columns={"label": "human_label", "verdict": "judge_verdict"}`` (on the
    command line ``--map label=human_label``, parsed by :func:`parse_map`). When a required column
    is missing the error suggests the likeliest one (:func:`suggest_columns`): a known synonym
    (``gold``, ``human``, ``truth`` ... for ``label``), a name containing it (``human_label``), or a
    near spelling.

Values
    A PASS/FAIL value may be written, in any case and with surrounding spaces, as
    ``1``/``0`` (also ``1.0``/``0.0`` or any number equal to 1 or 0), ``true``/``false``,
    ``t``/``f``, ``yes``/``no``, ``y``/``n``, ``pass``/``fail``, ``passed``/``failed``,
    ``correct``/``incorrect`` or ``c``/``i``; booleans and the numbers 1 and 0 in a DataFrame too.
    Other spellings are added with ``positive=("good",)`` and ``negative=("bad",)``; these win over
    the built-in ones.

Missing values
    A cell that is blank, or holds ``NA``, ``N/A``, ``null``, ``None`` or ``NaN`` (any case), or
    is NaN/None in a DataFrame, is **missing**. A missing ``label`` marks an unlabelled item; a
    missing value where one is required is an error. Any other unrecognised value is an error.
    (Text columns such as ``item`` or ``stratum`` take every non-blank value as written.)

Scores
    A score is a number in [0, 1]. With a ``threshold`` it becomes a verdict:
    ``score >= threshold`` is PASS (a score equal to the threshold passes).
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError
from bayesjudge.io.groups import POOL, GroupCheck, GroupTally, item_column
from bayesjudge.io.problems import Problems, row_names

__all__ = [
    "MISSING_SPELLINGS",
    "NEGATIVE_SPELLINGS",
    "POSITIVE_SPELLINGS",
    "SYNONYMS",
    "Field",
    "FieldKind",
    "OneOf",
    "Spellings",
    "conform",
    "parse_map",
    "suggest_columns",
    "verdicts_from_scores",
]

POSITIVE_SPELLINGS: tuple[str, ...] = (
    "1", "1.0", "true", "t", "yes", "y", "pass", "passed", "correct", "c",
)  # fmt: skip
NEGATIVE_SPELLINGS: tuple[str, ...] = (
    "0", "0.0", "false", "f", "no", "n", "fail", "failed", "incorrect", "i",
)  # fmt: skip
MISSING_SPELLINGS: tuple[str, ...] = ("", "na", "n/a", "null", "none", "nan")

SYNONYMS: dict[str, tuple[str, ...]] = {
    "label": (
        "gold", "gold_label", "human", "human_label", "truth", "ground_truth", "target",
        "reference", "correct", "is_correct", "annotation", "y",
    ),
    "verdict": (
        "judge", "judge_verdict", "grade", "judgment", "judgement", "pass", "passed",
        "decision", "ruling",
    ),
    "item": (
        "id", "sample_id", "doc_id", "uid", "item_id", "example_id", "question_id", "task_id",
    ),
    "score": ("judge_score", "prob", "probability", "confidence", "p"),
    "stratum": ("group", "category", "subset", "task", "domain", "slice"),
    "slice": ("group", "category", "subset", "task", "domain", "stratum"),
    "epoch": ("repeat", "run", "trial", "sample"),
    "system": ("model", "system_name", "model_name"),
    "judge": ("grader", "judge_model", "evaluator"),
}  # fmt: skip

POSITIVE, NEGATIVE, MISSING, INVALID = 1, 0, -1, -2

_SPELLING_HELP = (
    "1/0, true/false, t/f, yes/no, y/n, pass/fail, passed/failed, correct/incorrect, c/i, "
    "in any case; add others with positive=/negative="
)
_MISSING_HELP = "blank, NA, N/A, null, None or NaN"

type FieldKind = Literal["binary", "score", "text", "whole"]
_FIELD_KINDS: tuple[str, ...] = get_args(FieldKind.__value__)
_TEXT = pd.StringDtype(storage="pyarrow", na_value=np.nan)


def _fold(value: str) -> str:
    return value.strip().casefold()


# --------------------------------------------------------------------------- value spellings
@dataclass(frozen=True, slots=True)
class Spellings:
    """How PASS/FAIL values may be written: the built-in spellings plus the user's own.

    Parameters
    ----------
    positive, negative : sequence of str
        Extra spellings of PASS (gold-correct) and FAIL; compared without case and surrounding
        spaces, and checked before the built-in ones (so they may override them).

    Examples
    --------
    >>> Spellings(positive=("good",)).codes(["Good", " no ", "NA", "maybe", True, 0.0])
    array([ 1,  0, -1, -2,  1,  0], dtype=int8)
    """

    positive: tuple[str, ...] = ()
    negative: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("positive", "negative"):
            values = getattr(self, name)
            if isinstance(values, str):
                values = (values,)
            if not all(isinstance(v, str) for v in values):
                raise ValueError(f"{name} must be a sequence of strings; got {values!r}")
            object.__setattr__(self, name, tuple(_fold(v) for v in values))
        both = sorted(set(self.positive) & set(self.negative))
        if both:
            raise ValueError(f"positive and negative both hold {both}; a value means one thing")

    def code(self, value: object) -> int:
        """Return 1 (PASS), 0 (FAIL), -1 (missing) or -2 (not a PASS/FAIL value)."""
        if value is None or value is pd.NA or value is pd.NaT:
            return MISSING
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, bool):
            return POSITIVE if value else NEGATIVE
        if isinstance(value, int | float):
            if isinstance(value, float) and math.isnan(value):
                return MISSING
            return POSITIVE if value == 1 else NEGATIVE if value == 0 else INVALID
        if not isinstance(value, str):
            return INVALID
        text = _fold(value)
        if text in self.positive:
            return POSITIVE
        if text in self.negative:
            return NEGATIVE
        if text in MISSING_SPELLINGS:
            return MISSING
        if text in POSITIVE_SPELLINGS:
            return POSITIVE
        if text in NEGATIVE_SPELLINGS:
            return NEGATIVE
        try:
            number = float(text)
        except ValueError:
            return INVALID
        return POSITIVE if number == 1 else NEGATIVE if number == 0 else INVALID

    def codes(self, values: Iterable[object]) -> np.ndarray:
        """Return :meth:`code` of each value (call it on the distinct values of a column)."""
        return np.fromiter((self.code(v) for v in values), dtype=np.int8)


def _factorize(series: pd.Series) -> tuple[np.ndarray, list[object]]:
    """Return each row's index into the distinct values (-1 where missing), and those values."""
    if isinstance(series.dtype, pd.StringDtype) and series.dtype.storage == "pyarrow":
        import pyarrow as pa
        import pyarrow.compute as pc

        array = pa.array(series.array)
        chunks = array if isinstance(array, pa.ChunkedArray) else pa.chunked_array([array])
        encoded = pc.dictionary_encode(chunks).unify_dictionaries()
        if not encoded.num_chunks:
            return np.zeros(0, dtype=np.int32), []
        indices = np.concatenate(
            [pc.fill_null(c.indices, -1).to_numpy(zero_copy_only=False) for c in encoded.chunks]
        )
        return indices, encoded.chunk(0).dictionary.to_pylist()
    indices, uniques = pd.factorize(series)
    return indices, list(uniques)


def binary_values(
    values: pd.Series | Sequence[object], spellings: Spellings, *, missing: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """Parse a PASS/FAIL column, each distinct value once: floats 1/0/NaN, and codes if bad.

    Returns the values (NaN where missing or invalid) and, only when some value is invalid (or
    missing while not allowed), the per-row codes 1/0/-1 (missing)/-2 (invalid) for reporting.
    """
    series = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    indices, uniques = _factorize(series)
    table = np.append(spellings.codes(uniques), np.int8(MISSING))  # index -1: NaN
    floats = np.where(table >= 0, table, np.nan).astype(float)
    bad = (table == INVALID) | ((table == MISSING) & (not missing))
    return floats[indices], (table[indices] if bad.any() else None)


def report_codes(
    codes: np.ndarray,
    *,
    column: str,
    missing: bool,
    problems: Problems,
    names: Callable[[np.ndarray], list[str]],
    values: Callable[[np.ndarray], list[object]],
) -> None:
    """Record the invalid (and, unless allowed, missing) values of a coded PASS/FAIL column."""
    checks = [
        (codes == INVALID, f"column {column!r} must hold PASS/FAIL values ({_SPELLING_HELP})")
    ]
    if not missing:
        checks.append(
            (codes == MISSING, f"column {column!r} must not be missing ({_MISSING_HELP})")
        )
    for bad, message in checks:
        positions = np.flatnonzero(bad)
        if positions.size:
            shown = positions[: problems.limit]
            problems.add_rows(
                message, rows=names(shown), values=values(shown), total=int(positions.size)
            )


def score_numbers(values: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parse a number column (vectorised): the numbers, a missing mask, a not-a-number mask."""
    if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values):
        numbers = values.to_numpy(dtype=float, na_value=np.nan)
        missing = np.isnan(numbers)
        return numbers, missing, np.zeros_like(missing)
    folded = values.astype(_TEXT).str.strip().str.lower()
    missing = (folded.isna() | folded.isin(MISSING_SPELLINGS)).to_numpy(dtype=bool)
    numbers = pd.to_numeric(folded.where(~missing), errors="coerce").to_numpy(
        dtype=float, na_value=np.nan
    )
    return numbers, missing, np.isnan(numbers) & ~missing


def report_scores(
    numbers: np.ndarray,
    missing: np.ndarray,
    not_number: np.ndarray,
    *,
    column: str,
    problems: Problems,
    names: Callable[[np.ndarray], list[str]],
    values: Callable[[np.ndarray], list[object]],
) -> None:
    """Record the missing, non-numeric and out-of-range values of a parsed score column."""
    with np.errstate(invalid="ignore"):
        outside = ~missing & ~not_number & ~((numbers >= 0.0) & (numbers <= 1.0))
    for bad, message in (
        (missing, f"column {column!r} must not be missing ({_MISSING_HELP})"),
        (not_number | outside, f"column {column!r} must hold numbers in [0, 1]"),
    ):
        positions = np.flatnonzero(bad)
        if positions.size:
            shown = positions[: problems.limit]
            problems.add_rows(
                message, rows=names(shown), values=values(shown), total=int(positions.size)
            )


def check_threshold(threshold: float) -> float:
    """Return ``threshold`` as a float, or raise if it is not a number in [0, 1]."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float | np.number):
        raise ValueError(f"threshold must be a number in [0, 1]; got {threshold!r}")
    value = float(threshold)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"threshold must be a number in [0, 1]; got {threshold!r}")
    return value


def verdicts_from_scores(scores: np.ndarray | Sequence[float], *, threshold: float) -> np.ndarray:
    """Turn scores in [0, 1] into verdicts: 1.0 (PASS) where ``score >= threshold``, else 0.0.

    A score exactly at the threshold passes. Missing scores (NaN) stay NaN.

    Examples
    --------
    >>> verdicts_from_scores([0.2, 0.5, 0.9, float("nan")], threshold=0.5)
    array([ 0.,  1.,  1., nan])
    """
    cut = check_threshold(threshold)
    values = np.asarray(scores, dtype=float)
    return np.where(np.isnan(values), np.nan, (values >= cut).astype(float))


# --------------------------------------------------------------------------- columns
@dataclass(frozen=True, slots=True)
class Field:
    """One column a data contract reads.

    Parameters
    ----------
    name : str
        Its bayesjudge name (``"label"``, ``"verdict"``, ...).
    kind : {"binary", "score", "text", "whole"}
        ``binary``: PASS/FAIL, parsed to 1.0/0.0 (NaN where missing); ``score``: a number in
        [0, 1]; ``text``: any non-blank text, stripped of surrounding spaces (ids, strata);
        ``whole``: a whole number of at least ``minimum`` (attempts, epochs).
    required : bool
        Whether the table must have the column.
    missing : bool
        Whether a value may be missing (``label``: an unlabelled item).
    minimum : int
        Smallest allowed value of a ``whole`` column.
    """

    name: str
    kind: FieldKind
    required: bool = True
    missing: bool = False
    minimum: int = 0

    def __post_init__(self) -> None:
        if self.kind not in _FIELD_KINDS:
            raise ValueError(f"kind must be one of {list(_FIELD_KINDS)}; got {self.kind!r}")


@dataclass(frozen=True, slots=True)
class OneOf:
    """Exactly one of several alternative columns (e.g. ``verdict`` or ``score``)."""

    fields: tuple[Field, ...]
    required: bool = True


def _normal(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", name.casefold()).strip("_")


def suggest_columns(
    name: str, available: Sequence[str], *, exclude: Iterable[str] = (), limit: int = 2
) -> list[str]:
    """Return the columns of ``available`` most likely meant as column ``name``, best first.

    In order of preference: the same name in another case or punctuation (``Label``), a known
    synonym (``gold`` for ``label``), a name holding the name or a synonym as a word
    (``human_label``, ``judge_verdict``), a near spelling (``lable``).

    Examples
    --------
    >>> suggest_columns("label", ["id", "judge_verdict", "human_label"])
    ['human_label']
    >>> suggest_columns("verdict", ["id", "judge_score", "judge_verdict"])
    ['judge_verdict', 'judge_score']
    """
    target = _normal(name)
    synonyms = {_normal(s) for s in SYNONYMS.get(name, ())}
    skip = set(exclude)
    ranked: list[tuple[int, int, str]] = []
    for position, column in enumerate(available):
        if column in skip or column == name:
            continue
        normal = _normal(column)
        words = set(normal.split("_"))
        if normal == target:
            rank = 0
        elif normal in synonyms:
            rank = 1
        elif target in words or words & synonyms:
            rank = 2
        elif difflib.SequenceMatcher(None, target, normal).ratio() >= 0.75:
            rank = 3
        else:
            continue
        ranked.append((rank, position, column))
    return [column for _, _, column in sorted(ranked)[:limit]]


def parse_map(pairs: str | Iterable[str], *, option: str = "--map") -> dict[str, str]:
    """Parse ``NAME=COLUMN`` pairs (the command line's ``--map``) into a column mapping.

    Parameters
    ----------
    pairs : str or iterable of str
        One or more ``NAME=COLUMN`` strings; surrounding spaces are stripped, and everything after
        the first ``=`` is the column (which may itself hold ``=``).
    option : str
        The option's name, for error messages.

    Raises
    ------
    DataError
        On a pair without ``=``, an empty name or column, or a name mapped twice.

    Examples
    --------
    >>> parse_map(["label=human_label", "verdict = judge_verdict"])
    {'label': 'human_label', 'verdict': 'judge_verdict'}
    """
    out: dict[str, str] = {}
    for pair in [pairs] if isinstance(pairs, str) else pairs:
        name, equals, column = pair.partition("=")
        name, column = name.strip(), column.strip()
        if not equals or not name or not column:
            raise DataError(
                f"{option} takes NAME=COLUMN (e.g. {option} label=human_label); got {pair!r}"
            )
        if name in out:
            raise DataError(f"{option}: {name!r} is mapped twice ({out[name]!r} and {column!r})")
        out[name] = column
    return out


#: The Python keyword of each command-line mapping option, for the hints.
_KEYWORDS = {"--map": "columns", "--labels-map": "label_columns"}


def _map_hint(name: str, column: str, option: str = "--map") -> str:
    keyword = _KEYWORDS.get(option, "columns")
    return f"use {option} {name}={column} (in Python: {keyword}={{{name!r}: {column!r}}})"


def resolve_columns(
    available: Sequence[str],
    fields: Sequence[Field | OneOf],
    *,
    columns: Mapping[str, str] | None,
    strict: bool,
    problems: Problems,
    option: str = "--map",
) -> dict[str, str]:
    """Return ``{name: column of the table}`` for every field present, recording what is wrong.

    An explicit mapping wins over a column that already has the name (and, in a :class:`OneOf`,
    over the other alternatives' columns). Without either, an ``item`` field reads a column
    named ``id``, ``sample_id``, ``item_id`` or ``question_id``
    (:func:`bayesjudge.io.groups.item_column`). The mapping name ``pool`` names a column whose
    groups are pooled on purpose (:mod:`bayesjudge.io.groups`); it is read by no field.
    Problems recorded: a
    mapping to a name no field has, to a column the table lacks (with near spellings), one column
    mapped to two names, a required column missing (with suggestions naming ``option``, the
    command-line option that maps these columns), two alternatives of a :class:`OneOf` both
    present, and (``strict``) unknown columns.
    """
    flat = [f for item in fields for f in (item.fields if isinstance(item, OneOf) else (item,))]
    known = [f.name for f in flat]
    mapping = dict(columns or {})
    present = list(available)
    pooled = mapping.pop(POOL, None)
    if pooled is not None and pooled not in present:
        near = difflib.get_close_matches(pooled, present, n=2, cutoff=0.6)
        hint = f"; did you mean {' or '.join(map(repr, near))}?" if near else ""
        problems.add(f"cannot map {POOL!r} to {pooled!r}: the table has no such column{hint}")
    used: dict[str, str] = {}
    for name, column in mapping.items():
        if name not in known:
            problems.add(f"cannot map {name!r}: the columns read here are {known}")
            continue
        if column not in present:
            near = difflib.get_close_matches(column, present, n=2, cutoff=0.6)
            hint = f"; did you mean {' or '.join(map(repr, near))}?" if near else ""
            problems.add(f"cannot map {name!r} to {column!r}: the table has no such column{hint}")
            continue
        if column in used.values():
            other = next(n for n, c in used.items() if c == column)
            problems.add(f"column {column!r} is mapped to both {other!r} and {name!r}")
            continue
        used[name] = column
    for name in known:
        if (
            name not in used
            and name not in mapping
            and name in present
            and name not in used.values()
        ):
            used[name] = name
    if "item" in known and "item" not in used:
        id_column = item_column(present, {**mapping, **used})
        if id_column is not None:
            used["item"] = id_column
    taken = set(used.values()) | ({pooled} if pooled is not None else set())
    for item in fields:
        if isinstance(item, OneOf):
            names = [f.name for f in item.fields]
            if any(n in mapping for n in names):  # an explicit choice wins over a column's name
                for n in names:
                    if n not in mapping:
                        used.pop(n, None)
            found = [n for n in names if n in used]
            if len(found) > 1:
                problems.add(
                    f"use one of the columns {' or '.join(map(repr, names))}, not both "
                    f"(found {' and '.join(repr(used[n]) for n in found)})"
                )
            elif not found and item.required and not any(n in mapping for n in names):
                options = [
                    (n, c)
                    for n in names
                    for c in suggest_columns(n, present, exclude=taken, limit=1)
                ]
                options.sort(key=lambda nc: _rank(nc[0], nc[1]))
                problems.add(
                    _missing_message(" or ".join(map(repr, names)), options, present, option)
                )
        elif item.required and item.name not in used and item.name not in mapping:
            options = [(item.name, c) for c in suggest_columns(item.name, present, exclude=taken)]
            problems.add(_missing_message(repr(item.name), options, present, option))
    if strict:
        unknown = [c for c in present if c not in taken]
        if unknown:
            problems.add(
                f"unknown column(s) {unknown} (strict): the columns read here are {known}; "
                f"map a column with {option} NAME=COLUMN"
            )
    return used


def _rank(name: str, column: str) -> int:
    normal, synonyms = _normal(column), {_normal(s) for s in SYNONYMS.get(name, ())}
    return 0 if normal == name else 1 if normal in synonyms else 2


def _missing_message(
    names: str, options: list[tuple[str, str]], present: Sequence[str], option: str = "--map"
) -> str:
    if options:
        name, column = options[0]
        also = "".join(f" or {c!r} (as {n!r})" for n, c in options[1:])
        hint = _map_hint(name, column, option)
        return f"no {names} column; did you mean {column!r}{also}? {hint}"
    first = names.split(" or ")[0].strip("'")
    shown = ", ".join(map(repr, present[:12])) + (", ..." if len(present) > 12 else "")
    return f"no {names} column; the table has {shown}; name one with {option} {first}=COLUMN"


# --------------------------------------------------------------------------- conform a table
def conform(
    frame: pd.DataFrame,
    fields: Sequence[Field | OneOf],
    *,
    columns: Mapping[str, str] | None = None,
    positive: Sequence[str] = (),
    negative: Sequence[str] = (),
    strict: bool = False,
    problems: Problems | None = None,
    groups: GroupCheck | None = None,
    option: str = "--map",
) -> pd.DataFrame:
    """Map, parse and check the columns of a table in one pass; report every problem together.

    Parameters
    ----------
    frame : DataFrame
        A table from :func:`bayesjudge.io.read_table` (text columns, rows named by the file) or a
        user's DataFrame.
    fields : sequence of Field or OneOf
        The columns to read.
    columns : mapping, optional
        ``{name: column of the table}`` for columns named otherwise.
    positive, negative : sequence of str
        Extra PASS and FAIL spellings (see :class:`Spellings`).
    strict : bool
        Whether a column that no field reads is an error.
    problems : Problems, optional
        Collect into this collector and do not raise (the caller raises, e.g. after more checks);
        by default problems are raised here.
    groups : GroupCheck, optional
        Refuse a table whose unread columns split it into groups (several models, tasks, ...)
        rather than pool them silently, with the fix this command offers
        (:class:`bayesjudge.io.groups.GroupTally`); by default no such check (a labels table).
    option : str
        The command-line option that maps these columns, named in the hints (``"--map"``, or
        ``"--labels-map"`` for a labels table).

    Returns
    -------
    DataFrame
        One column per field present, named by the field, with the table's index: ``binary`` as
        float 1.0/0.0 (NaN where missing), ``score`` as float, ``text`` as pandas ``str``
        stripped of surrounding spaces (NaN where blank or missing), ``whole`` as int64 (or float
        with NaN where missing is allowed). ``attrs["columns"]`` holds the mapping used,
        ``attrs["source"]`` the input's name.

    Raises
    ------
    DataError
        Listing every problem: missing or badly mapped columns (with suggestions), and for each
        column the first offending rows (named by their file line) and how many more.

    Examples
    --------
    >>> table = pd.DataFrame({"human_label": ["correct", "incorrect", ""],
    ...                       "judge": ["yes", "no", "YES"]})
    >>> fields = [Field("label", "binary", missing=True), Field("verdict", "binary")]
    >>> conform(table, fields, columns={"label": "human_label", "verdict": "judge"})
       label  verdict
    0    1.0      1.0
    1    0.0      0.0
    2    NaN      1.0
    """
    source = str(frame.attrs.get("source", "data"))
    collector = problems if problems is not None else Problems(source)
    spellings = Spellings(tuple(positive), tuple(negative))
    available = [str(c) for c in frame.columns]
    used = resolve_columns(
        available, fields, columns=columns, strict=strict, problems=collector, option=option
    )
    if groups is not None:
        tally = GroupTally.for_table(available, used, columns)
        item = frame[used["item"]] if "item" in used else None
        tally.add({c: frame[c] for c in tally.columns}, items=item)
        refusal = tally.refusal(source=source, check=groups, spellings=spellings)
        if refusal is not None:
            collector.add(refusal)
    flat = {
        f.name: f for item in fields for f in (item.fields if isinstance(item, OneOf) else (item,))
    }
    index = frame.index

    def names(positions: np.ndarray) -> list[str]:
        return row_names(index, positions)

    out: dict[str, object] = {}
    for name, column in used.items():
        field = flat[name]
        raw = frame[column]

        def values(positions: np.ndarray, raw: pd.Series = raw) -> list[object]:
            return list(raw.iloc[positions])

        if field.kind == "binary":
            parsed, codes = binary_values(raw, spellings, missing=field.missing)
            if codes is not None:
                report_codes(
                    codes,
                    column=name,
                    missing=field.missing,
                    problems=collector,
                    names=names,
                    values=values,
                )
            out[name] = parsed
        elif field.kind == "score":
            numbers, missing, not_number = score_numbers(raw)
            if field.missing:
                missing = np.zeros_like(missing)
            report_scores(
                numbers,
                missing,
                not_number,
                column=name,
                problems=collector,
                names=names,
                values=values,
            )
            out[name] = numbers
        elif field.kind == "text":
            out[name] = _text(raw, name=name, field=field, problems=collector, names=names)
        else:
            out[name] = _whole(raw, name=name, field=field, problems=collector, names=names)
    if problems is None:
        collector.raise_if_any()
    # one block per column, sharing the parsed arrays: no consolidating copy
    parts = [pd.DataFrame({n: v}, index=index, copy=False) for n, v in out.items()]
    result = pd.concat(parts, axis=1) if parts else pd.DataFrame(index=index)
    result.attrs["source"] = source
    result.attrs["columns"] = dict(used)
    return result


def _text(
    raw: pd.Series,
    *,
    name: str,
    field: Field,
    problems: Problems,
    names: Callable[[np.ndarray], list[str]],
) -> pd.api.extensions.ExtensionArray:
    stripped = raw.astype(_TEXT).str.strip()  # vectorised (pyarrow); missing stays missing
    blank = (stripped.isna() | (stripped == "")).to_numpy(dtype=bool)
    if blank.any() and not field.missing:
        positions = np.flatnonzero(blank)
        problems.add_rows(
            f"column {name!r} must not be blank",
            rows=names(positions[: problems.limit]),
            total=int(positions.size),
        )
    return stripped.mask(blank).array


def _whole(
    raw: pd.Series,
    *,
    name: str,
    field: Field,
    problems: Problems,
    names: Callable[[np.ndarray], list[str]],
) -> np.ndarray:
    numbers, missing, not_number = score_numbers(raw)
    with np.errstate(invalid="ignore"):
        bad = ~missing & (not_number | (numbers != np.round(numbers)) | (numbers < field.minimum))
    bad |= ~np.isfinite(numbers) & ~missing
    for mask, message in (
        (missing & (not field.missing), f"column {name!r} must not be missing ({_MISSING_HELP})"),
        (bad, f"column {name!r} must hold whole numbers >= {field.minimum}"),
    ):
        positions = np.flatnonzero(mask)
        if positions.size:
            shown = positions[: problems.limit]
            problems.add_rows(
                message, rows=names(shown), values=list(raw.iloc[shown]), total=int(positions.size)
            )
    if field.missing:
        return numbers
    return np.where(missing | bad, 0, numbers).astype(np.int64)
