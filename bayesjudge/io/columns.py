"""Reading tables and parsing their columns: the interim core of the input layer.

Every error names the column (or argument), what is allowed, and the first offending row, e.g.
``column 'label' must hold binary values (0/1, true/false, pass/fail); row 17 has 'maybe'``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError

__all__ = [
    "MISSING",
    "TableLike",
    "check_columns",
    "check_constant_per_item",
    "check_no_missing",
    "check_unique",
    "first_positions",
    "parse_binary",
    "parse_unit_interval",
    "read_table",
    "row_label",
    "shown",
]

type TableLike = pd.DataFrame | str | os.PathLike[str]

_TRUE = frozenset({"1", "1.0", "true", "pass", "t"})
_FALSE = frozenset({"0", "0.0", "false", "fail", "f"})
_BINARY_HELP = "binary values (0/1, true/false, pass/fail)"
#: Spellings of a missing value, in any case: an unlabelled item's label may be any of these.
MISSING = frozenset({"", "na", "n/a", "nan", "null", "none"})


def read_table(source: TableLike, *, argument: str = "data") -> pd.DataFrame:
    """Return ``source`` as a DataFrame: a DataFrame is copied, a path is read as CSV.

    Raises
    ------
    DataError
        If the path does not exist, cannot be parsed, or the table has no rows.
    """
    if isinstance(source, pd.DataFrame):
        frame = source.copy()
    elif isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        if not os.path.exists(path):
            raise DataError(f"{argument}: no such file {path!r}")
        if os.path.isdir(path):
            raise DataError(f"{argument}: {path!r} is a folder; give the path of a CSV file")
        try:
            # every column as text, so ids such as 007 stay 007; parsers convert what they need
            frame = pd.read_csv(path, skipinitialspace=True, dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise DataError(f"{argument}: cannot read {path!r} as CSV: {exc}") from exc
        except OSError as exc:
            raise DataError(f"{argument}: cannot read {path!r}: {exc.strerror or exc}") from exc
    else:
        raise DataError(
            f"{argument} must be a pandas DataFrame or a CSV path; got {type(source).__name__}"
        )
    frame.columns = [str(c).strip() for c in frame.columns]
    if frame.empty:
        raise DataError(f"{argument}: the table has no rows")
    return frame


def row_label(frame: pd.DataFrame, position: int) -> str:
    """Return how errors name row ``position`` of ``frame`` (its index label)."""
    return (
        repr(frame.index[position])
        if not isinstance(frame.index, pd.RangeIndex)
        else str(frame.index[position])
    )


def _plain(value: object) -> object:
    """Return a numpy scalar as the plain Python value (for readable error messages)."""
    return value.item() if isinstance(value, np.generic) else value


def shown(value: object) -> str:
    """Return ``repr(value)`` with numpy scalars shown as the plain Python value."""
    return repr(_plain(value))


def parse_binary(
    values: pd.Series | Sequence[object],
    *,
    column: str,
    allow_missing: bool = False,
    frame: pd.DataFrame | None = None,
) -> np.ndarray:
    """Parse a column of binary values into floats 0.0/1.0 (NaN where missing and allowed).

    Accepted spellings, in any case: ``0``/``1`` (numbers or text), ``true``/``false`` (booleans
    or text), ``pass``/``fail``.

    Parameters
    ----------
    values : Series or sequence
        The raw column.
    column : str
        Its name, for error messages.
    allow_missing : bool
        Whether missing values are allowed (they become NaN): a blank cell, NaN, or the text
        ``NA``, ``N/A``, ``NaN``, ``null`` or ``None`` in any case (:data:`MISSING`).
    frame : DataFrame, optional
        The table the column came from, to name rows by their index label.

    Raises
    ------
    DataError
        Naming the column and the first row holding a value that is not binary, or a missing
        value when ``allow_missing`` is false.

    Examples
    --------
    >>> parse_binary(["PASS", "fail", 1, "true"], column="verdict")
    array([1., 0., 1., 1.])
    """
    raw = (
        values.to_numpy(dtype=object)
        if isinstance(values, pd.Series)
        else np.asarray(list(values), dtype=object)
    )
    out = np.empty(len(raw), dtype=float)
    for position, value in enumerate(raw):
        row = row_label(frame, position) if frame is not None else str(position)
        if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
            if not allow_missing:
                raise DataError(
                    f"column {column!r} must not have missing values; row {row} is blank"
                )
            out[position] = np.nan
            continue
        if isinstance(value, bool | np.bool_):
            out[position] = float(value)
            continue
        if isinstance(value, int | float | np.integer | np.floating) and value in (0, 1):
            out[position] = float(value)
            continue
        text = str(value).strip().lower()
        if text in _TRUE:
            out[position] = 1.0
        elif text in _FALSE:
            out[position] = 0.0
        elif text in MISSING and allow_missing:
            out[position] = np.nan
        elif text in MISSING:
            raise DataError(f"column {column!r} must not have missing values; row {row} is blank")
        else:
            raise DataError(
                f"column {column!r} must hold {_BINARY_HELP}; row {row} has {shown(value)}"
            )
    return out


def parse_unit_interval(series: pd.Series, *, column: str, frame: pd.DataFrame) -> np.ndarray:
    """Parse a column of numbers in [0, 1], naming the first row that is not one."""
    numbers = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)
    for position in range(len(numbers)):
        value = numbers[position]
        row = row_label(frame, position)
        original = series.iloc[position]
        if np.isnan(value):
            if pd.isna(original) or str(original).strip() == "":
                raise DataError(
                    f"column {column!r} must not have missing values; row {row} is blank"
                )
            raise DataError(
                f"column {column!r} must hold numbers in [0, 1]; row {row} has {shown(original)}"
            )
        if not 0.0 <= value <= 1.0:
            raise DataError(
                f"column {column!r} must hold numbers in [0, 1]; row {row} has {shown(original)}"
            )
    return numbers


def check_columns(
    frame: pd.DataFrame,
    *,
    required: Iterable[str],
    optional: Iterable[str],
    strict: bool,
    argument: str,
    extra_pattern: str | None = None,
) -> None:
    """Check required and (with ``strict``) unknown columns, naming them."""
    required = list(required)
    allowed = set(required) | set(optional)
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise DataError(
            f"{argument}: missing required column(s) {missing}; the table has {list(frame.columns)}"
        )
    if strict:
        unknown = [
            c
            for c in frame.columns
            if c not in allowed and not (extra_pattern and matches(extra_pattern, c))
        ]
        if unknown:
            raise DataError(
                f"{argument}: unknown column(s) {unknown}; allowed columns are {sorted(allowed)}"
            )


def matches(pattern: str, name: str) -> bool:
    """Return whether ``name`` matches ``pattern`` in full."""
    return re.fullmatch(pattern, name) is not None


def check_no_missing(frame: pd.DataFrame, column: str) -> None:
    """Raise a DataError naming the first blank row of ``column``."""
    blank = frame[column].isna() | (frame[column].astype(str).str.strip() == "")
    if blank.any():
        position = int(np.flatnonzero(blank.to_numpy())[0])
        raise DataError(
            f"column {column!r} must not have missing values; row {row_label(frame, position)} "
            "is blank"
        )


def check_unique(frame: pd.DataFrame, columns: list[str], *, what: str) -> None:
    """Raise a DataError naming the first row that repeats a key of ``columns``."""
    duplicated = frame.duplicated(subset=columns, keep="first").to_numpy()
    if duplicated.any():
        position = int(np.flatnonzero(duplicated)[0])
        key = tuple(_plain(frame[c].iloc[position]) for c in columns)
        shown = key[0] if len(key) == 1 else key
        raise DataError(
            f"columns {columns} must identify each {what} once; row "
            f"{row_label(frame, position)} repeats {shown!r}"
        )


def first_positions(codes: np.ndarray, size: int) -> np.ndarray:
    """Return, for each of the ``size`` groups numbered in ``codes``, the row of its first entry."""
    groups, first = np.unique(codes, return_index=True)
    out = np.zeros(size, dtype=int)
    out[groups] = first
    return out


def check_constant_per_item(
    frame: pd.DataFrame, codes: np.ndarray, values: np.ndarray, *, column: str
) -> None:
    """Raise a DataError naming the first row whose ``column`` differs within its item."""
    reference = values[first_positions(codes, int(codes.max()) + 1)][codes]
    differs = ~((reference == values) | (np.isnan(reference) & np.isnan(values)))
    if differs.any():
        position = int(np.flatnonzero(differs)[0])
        raise DataError(
            f"column {column!r} must be the same on every row of an item; row "
            f"{row_label(frame, position)} gives item {frame['item'].iloc[position]!r} "
            f"{shown(frame[column].iloc[position])}, an earlier row gave another value"
        )
