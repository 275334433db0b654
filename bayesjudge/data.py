"""Data contracts: turn tables, CSV files and counts into validated data objects.

This is the one place where input is checked. Every error names the column (or argument), what
is allowed, and the first offending row, e.g. ``column 'label' must hold binary values (0/1,
true/false, pass/fail); row 17 has 'maybe'``. Past this module nothing re-checks.

Four contracts:

* :class:`JudgeData` - gold labels on a calibration subset and a judge verdict (binary) or score
  (in [0, 1]) on every item, with an optional stratum;
* :class:`Rulings` - repeated judge rulings per item (long format), for retry gates;
* :class:`LoopLog` - revise-then-rejudge loop logs (item, attempt, verdict, correct);
* :class:`PairedOutcomes` - per-item correctness before and after each pipeline step.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Literal

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError

__all__ = [
    "JudgeCounts",
    "JudgeData",
    "LoopLog",
    "PairedOutcomes",
    "Rulings",
    "load_example",
    "parse_binary",
    "read_table",
]

type TableLike = pd.DataFrame | str | os.PathLike[str]

_TRUE = frozenset({"1", "1.0", "true", "pass", "t"})
_FALSE = frozenset({"0", "0.0", "false", "fail", "f"})
_BINARY_HELP = "binary values (0/1, true/false, pass/fail)"


# --------------------------------------------------------------------------- low-level parsing
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
        try:
            frame = pd.read_csv(path, skipinitialspace=True)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise DataError(f"{argument}: cannot read {path!r} as CSV: {exc}") from exc
    else:
        raise DataError(
            f"{argument} must be a pandas DataFrame or a CSV path; got {type(source).__name__}"
        )
    frame.columns = [str(c).strip() for c in frame.columns]
    if frame.empty:
        raise DataError(f"{argument}: the table has no rows")
    return frame


def _row_label(frame: pd.DataFrame, position: int) -> str:
    return (
        repr(frame.index[position])
        if not isinstance(frame.index, pd.RangeIndex)
        else str(frame.index[position])
    )


def _plain(value: object) -> object:
    """Return a numpy scalar as the plain Python value (for readable error messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _shown(value: object) -> str:
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
        Whether blanks/NaN are allowed (they become NaN).
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
        row = _row_label(frame, position) if frame is not None else str(position)
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
        elif text == "" and allow_missing:
            out[position] = np.nan
        elif text == "":
            raise DataError(f"column {column!r} must not have missing values; row {row} is blank")
        else:
            raise DataError(
                f"column {column!r} must hold {_BINARY_HELP}; row {row} has {_shown(value)}"
            )
    return out


def _parse_unit_interval(series: pd.Series, *, column: str, frame: pd.DataFrame) -> np.ndarray:
    numbers = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)
    for position in range(len(numbers)):
        value = numbers[position]
        row = _row_label(frame, position)
        original = series.iloc[position]
        if np.isnan(value):
            if pd.isna(original) or str(original).strip() == "":
                raise DataError(
                    f"column {column!r} must not have missing values; row {row} is blank"
                )
            raise DataError(
                f"column {column!r} must hold numbers in [0, 1]; row {row} has {_shown(original)}"
            )
        if not 0.0 <= value <= 1.0:
            raise DataError(
                f"column {column!r} must hold numbers in [0, 1]; row {row} has {_shown(original)}"
            )
    return numbers


def _check_columns(
    frame: pd.DataFrame,
    *,
    required: Iterable[str],
    optional: Iterable[str],
    strict: bool,
    argument: str,
    extra_pattern: str | None = None,
) -> None:
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
            if c not in allowed and not (extra_pattern and _matches(extra_pattern, c))
        ]
        if unknown:
            raise DataError(
                f"{argument}: unknown column(s) {unknown}; allowed columns are {sorted(allowed)}"
            )


def _matches(pattern: str, name: str) -> bool:
    import re

    return re.fullmatch(pattern, name) is not None


def _check_no_missing(frame: pd.DataFrame, column: str) -> None:
    blank = frame[column].isna() | (frame[column].astype(str).str.strip() == "")
    if blank.any():
        position = int(np.flatnonzero(blank.to_numpy())[0])
        raise DataError(
            f"column {column!r} must not have missing values; row {_row_label(frame, position)} "
            "is blank"
        )


def _check_unique(frame: pd.DataFrame, columns: list[str], *, what: str) -> None:
    duplicated = frame.duplicated(subset=columns, keep="first").to_numpy()
    if duplicated.any():
        position = int(np.flatnonzero(duplicated)[0])
        key = tuple(_plain(frame[c].iloc[position]) for c in columns)
        shown = key[0] if len(key) == 1 else key
        raise DataError(
            f"columns {columns} must identify each {what} once; row "
            f"{_row_label(frame, position)} repeats {shown!r}"
        )


# --------------------------------------------------------------------------- judge data
@dataclass(frozen=True, slots=True)
class JudgeCounts:
    """The six sufficient counts of a binary judge on a calibration and a test set.

    Attributes
    ----------
    m1, x1 : int
        Calibration items whose gold label is PASS, and how many of them the judge passed.
    m0, x0 : int
        Calibration items whose gold label is FAIL, and how many of them the judge passed.
    n, k : int
        Unlabelled test items, and how many of them the judge passed.
    """

    m1: int
    x1: int
    m0: int
    x0: int
    n: int
    k: int

    @property
    def q1(self) -> float:
        """Calibration sensitivity x1 / m1."""
        return self.x1 / self.m1

    @property
    def q0(self) -> float:
        """Calibration specificity (m0 - x0) / m0."""
        return (self.m0 - self.x0) / self.m0

    @property
    def p_hat(self) -> float:
        """Judged pass rate k / n on the test items."""
        return self.k / self.n

    @property
    def j(self) -> float:
        """Youden's J = q0 + q1 - 1 on the calibration items."""
        return self.q0 + self.q1 - 1.0

    def as_dict(self) -> dict[str, int]:
        """Return the counts as a plain mapping."""
        return {
            "m1": self.m1,
            "x1": self.x1,
            "m0": self.m0,
            "x0": self.x0,
            "n": self.n,
            "k": self.k,
        }


def _validate_counts(m1: int, x1: int, m0: int, x0: int, n: int, k: int) -> JudgeCounts:
    values = {"m1": m1, "x1": x1, "m0": m0, "x0": x0, "n": n, "k": k}
    for name, value in values.items():
        if (
            isinstance(value, bool | np.bool_)
            or not isinstance(value, int | float | np.integer | np.floating)
            or not float(value).is_integer()
            or value < 0
        ):
            raise DataError(f"{name} must be a non-negative whole number; got {value!r}")
    m1, x1, m0, x0, n, k = (int(v) for v in values.values())
    for total, part, t_name, p_name in (
        (m1, x1, "m1", "x1"),
        (m0, x0, "m0", "x0"),
        (n, k, "n", "k"),
    ):
        if part > total:
            raise DataError(
                f"{p_name} must not exceed {t_name}; got {p_name}={part} > {t_name}={total}"
            )
    if m1 == 0:
        raise DataError(
            "the calibration set has no gold-PASS items (m1=0): sensitivity is undefined"
        )
    if m0 == 0:
        raise DataError(
            "the calibration set has no gold-FAIL items (m0=0): specificity is undefined"
        )
    if n == 0:
        raise DataError("there are no unlabelled test items (n=0)")
    return JudgeCounts(m1, x1, m0, x0, n, k)


@dataclass(frozen=True, slots=True, eq=False)
class JudgeData:
    """Validated judge data: a gold-labelled calibration set and an unlabelled test set.

    Build it with :meth:`from_frame`, :meth:`from_csv` or :meth:`from_counts`; the constructor
    itself does not validate.

    Attributes
    ----------
    cal_label : ndarray of float, shape (m,)
        Gold labels (1.0 = PASS / correct, 0.0 = FAIL) of the calibration items.
    cal_judge : ndarray of float, shape (m,)
        Judge output on the calibration items: 0.0/1.0 verdicts or scores in [0, 1].
    test_judge : ndarray of float, shape (n,)
        Judge output on the unlabelled test items.
    kind : {"verdict", "score"}
        Whether the judge output is a binary verdict or a score in [0, 1].
    cal_stratum, test_stratum : ndarray of str or None
        Optional stratum of each item.
    """

    cal_label: np.ndarray
    cal_judge: np.ndarray
    test_judge: np.ndarray
    kind: Literal["verdict", "score"]
    cal_stratum: np.ndarray | None = None
    test_stratum: np.ndarray | None = None

    COLUMNS = ("label", "verdict", "score", "stratum")

    # ---- constructors
    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, strict: bool = False) -> JudgeData:
        """Validate a table with columns ``label``, ``verdict`` or ``score``, optional ``stratum``.

        Parameters
        ----------
        frame : DataFrame
            One row per item. ``label`` is the gold label (binary; blank/NaN marks an
            unlabelled test item). ``verdict`` is the judge's binary verdict, or ``score`` its
            score in [0, 1] (exactly one of the two). ``stratum`` is an optional group label.
        strict : bool
            If true, any other column is an error.

        Raises
        ------
        DataError
            On a missing or unknown column, a non-binary value, a score outside [0, 1], a
            missing judge output, no unlabelled rows, or a calibration class with no items.

        Examples
        --------
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"label": [1, 0, None, None], "verdict": ["pass", "fail", 1, 0]})
        >>> JudgeData.from_frame(frame).counts
        JudgeCounts(m1=1, x1=1, m0=1, x0=0, n=2, k=1)
        """
        frame = read_table(frame)
        has_verdict, has_score = "verdict" in frame.columns, "score" in frame.columns
        if has_verdict == has_score:
            raise DataError(
                "judge data need exactly one of the columns 'verdict' (binary) or 'score' "
                f"(in [0, 1]); the table has {list(frame.columns)}"
            )
        judge_column = "verdict" if has_verdict else "score"
        _check_columns(
            frame,
            required=["label", judge_column],
            optional=["stratum"],
            strict=strict,
            argument="judge data",
        )
        label = parse_binary(frame["label"], column="label", allow_missing=True, frame=frame)
        if has_verdict:
            judge = parse_binary(frame["verdict"], column="verdict", frame=frame)
        else:
            judge = _parse_unit_interval(frame["score"], column="score", frame=frame)
        stratum = None
        if "stratum" in frame.columns:
            _check_no_missing(frame, "stratum")
            stratum = frame["stratum"].astype(str).str.strip().to_numpy()
        labelled = ~np.isnan(label)
        data = cls(
            cal_label=label[labelled],
            cal_judge=judge[labelled],
            test_judge=judge[~labelled],
            kind="verdict" if has_verdict else "score",
            cal_stratum=None if stratum is None else stratum[labelled],
            test_stratum=None if stratum is None else stratum[~labelled],
        )
        data._check_classes()
        return data

    @classmethod
    def from_csv(cls, path: str | os.PathLike[str], *, strict: bool = False) -> JudgeData:
        """Read and validate a CSV file; see :meth:`from_frame` for the columns."""
        return cls.from_frame(read_table(path), strict=strict)

    @classmethod
    def from_counts(cls, m1: int, x1: int, m0: int, x0: int, n: int, k: int) -> JudgeData:
        """Build judge data from the six counts of a binary judge.

        Parameters
        ----------
        m1, x1 : int
            Gold-PASS calibration items and how many the judge passed.
        m0, x0 : int
            Gold-FAIL calibration items and how many the judge passed.
        n, k : int
            Unlabelled test items and how many the judge passed.

        Examples
        --------
        >>> JudgeData.from_counts(122, 103, 401, 2, 3330, 50).counts.q0
        0.9950124688279302
        """
        counts = _validate_counts(m1, x1, m0, x0, n, k)
        cal_label = np.repeat([1.0, 0.0], [counts.m1, counts.m0])
        cal_judge = np.concatenate(
            [
                np.repeat([1.0, 0.0], [counts.x1, counts.m1 - counts.x1]),
                np.repeat([1.0, 0.0], [counts.x0, counts.m0 - counts.x0]),
            ]
        )
        test_judge = np.repeat([1.0, 0.0], [counts.k, counts.n - counts.k])
        return cls(cal_label=cal_label, cal_judge=cal_judge, test_judge=test_judge, kind="verdict")

    @classmethod
    def coerce(cls, data: JudgeData | TableLike, *, strict: bool = False) -> JudgeData:
        """Return ``data`` if it is already validated, else validate it as a table or CSV path."""
        if isinstance(data, JudgeData):
            return data
        return cls.from_frame(read_table(data), strict=strict)

    def _check_classes(self) -> None:
        if self.n == 0:
            raise DataError(
                "column 'label': every row is labelled, so there are no unlabelled test items; "
                "leave 'label' blank for the items whose success rate is to be estimated"
            )
        if self.m1 == 0 or self.m0 == 0:
            missing = "PASS (1)" if self.m1 == 0 else "FAIL (0)"
            raise DataError(
                f"column 'label': the calibration set has no gold-{missing} items, so the judge's "
                f"{'sensitivity' if self.m1 == 0 else 'specificity'} cannot be estimated"
            )

    # ---- views
    @property
    def m(self) -> int:
        """Number of calibration (gold-labelled) items."""
        return int(self.cal_label.size)

    @property
    def m1(self) -> int:
        """Number of gold-PASS calibration items."""
        return int(np.sum(self.cal_label == 1.0))

    @property
    def m0(self) -> int:
        """Number of gold-FAIL calibration items."""
        return int(np.sum(self.cal_label == 0.0))

    @property
    def n(self) -> int:
        """Number of unlabelled test items."""
        return int(self.test_judge.size)

    @property
    def counts(self) -> JudgeCounts:
        """The six sufficient counts; only defined for binary verdicts.

        Raises
        ------
        DataError
            If the judge output is a score rather than a binary verdict.
        """
        if self.kind != "verdict":
            raise DataError(
                "these judge data hold scores, not binary verdicts; the six counts (and the "
                "models built on them) need a binary 'verdict' column"
            )
        positive = self.cal_label == 1.0
        return JudgeCounts(
            m1=self.m1,
            x1=int(np.sum(self.cal_judge[positive])),
            m0=self.m0,
            x0=int(np.sum(self.cal_judge[~positive])),
            n=self.n,
            k=int(np.sum(self.test_judge)),
        )

    @property
    def strata(self) -> tuple[str, ...]:
        """Sorted distinct strata, or an empty tuple when there is no stratum column."""
        if self.cal_stratum is None or self.test_stratum is None:
            return ()
        return tuple(
            sorted({str(s) for s in self.cal_stratum} | {str(s) for s in self.test_stratum})
        )

    def stratum(self, name: str) -> JudgeData:
        """Return the items of one stratum as judge data (without checking its classes)."""
        if self.cal_stratum is None or self.test_stratum is None:
            raise DataError("these judge data have no 'stratum' column")
        if name not in self.strata:
            raise DataError(f"unknown stratum {name!r}; the strata are {list(self.strata)}")
        cal, test = self.cal_stratum == name, self.test_stratum == name
        return JudgeData(
            cal_label=self.cal_label[cal],
            cal_judge=self.cal_judge[cal],
            test_judge=self.test_judge[test],
            kind=self.kind,
            cal_stratum=self.cal_stratum[cal],
            test_stratum=self.test_stratum[test],
        )

    def flipped(self) -> JudgeData:
        """Return the same data with PASS and FAIL swapped in both labels and judge output."""
        return JudgeData(
            cal_label=1.0 - self.cal_label,
            cal_judge=1.0 - self.cal_judge,
            test_judge=1.0 - self.test_judge,
            kind=self.kind,
            cal_stratum=self.cal_stratum,
            test_stratum=self.test_stratum,
        )

    def to_frame(self) -> pd.DataFrame:
        """Return the data as a table in the input format (calibration rows first)."""
        column = "verdict" if self.kind == "verdict" else "score"
        frame = pd.DataFrame(
            {
                "label": np.concatenate([self.cal_label, np.full(self.n, np.nan)]),
                column: np.concatenate([self.cal_judge, self.test_judge]),
            }
        )
        if self.kind == "verdict":
            frame[column] = frame[column].astype(int)
        if self.cal_stratum is not None and self.test_stratum is not None:
            frame["stratum"] = np.concatenate([self.cal_stratum, self.test_stratum])
        frame["label"] = frame["label"].astype("Int64")
        return frame

    def __repr__(self) -> str:
        strata = f", strata={len(self.strata)}" if self.strata else ""
        return f"JudgeData(kind={self.kind!r}, m1={self.m1}, m0={self.m0}, n={self.n}{strata})"


# --------------------------------------------------------------------------- repeated rulings
@dataclass(frozen=True, slots=True, eq=False)
class Rulings:
    """Validated repeated rulings, aggregated per item.

    Attributes
    ----------
    items : ndarray of str, shape (N,)
        Item identifiers, in order of first appearance.
    r : ndarray of int, shape (N,)
        Number of rulings of each item.
    k : ndarray of int, shape (N,)
        Number of those rulings that passed.
    label : ndarray of float, shape (N,)
        Gold label per item (NaN for unlabelled items).
    slice : ndarray of str or None
        Optional slice of each item.
    """

    items: np.ndarray
    r: np.ndarray
    k: np.ndarray
    label: np.ndarray
    slice: np.ndarray | None = None

    @classmethod
    def from_frame(
        cls, frame: TableLike, *, strict: bool = False, allow_duplicates: bool = True
    ) -> Rulings:
        """Validate rulings in long format: ``item``, ``verdict``, optional ``label``, ``slice``.

        One row per ruling. An optional ``ruling`` column numbers the rulings of an item; with
        it, or with ``allow_duplicates=False``, a repeated (item, ruling) row is an error. The
        gold label and the slice, when given, must be the same on every row of an item.

        Raises
        ------
        DataError
            On a missing or unknown column, a non-binary verdict or label, a missing value, a
            duplicated ruling, or an item whose label or slice differs between its rows.

        Examples
        --------
        >>> import pandas as pd
        >>> t = pd.DataFrame({"item": ["a", "a", "b"], "verdict": [1, 0, 0], "label": [1, 1, None]})
        >>> Rulings.from_frame(t).k
        array([1, 0])
        """
        frame = read_table(frame, argument="rulings")
        _check_columns(
            frame,
            required=["item", "verdict"],
            optional=["label", "slice", "ruling"],
            strict=strict,
            argument="rulings",
        )
        _check_no_missing(frame, "item")
        frame["item"] = frame["item"].astype(str).str.strip()
        verdict = parse_binary(frame["verdict"], column="verdict", frame=frame)
        if "ruling" in frame.columns:
            _check_no_missing(frame, "ruling")
            _check_unique(frame, ["item", "ruling"], what="ruling")
        elif not allow_duplicates:
            raise DataError(
                "rulings: duplicate rulings are not allowed here, so a 'ruling' column numbering "
                "each item's rulings is required"
            )
        label = (
            parse_binary(frame["label"], column="label", allow_missing=True, frame=frame)
            if "label" in frame.columns
            else np.full(len(frame), np.nan)
        )
        codes, items = pd.factorize(frame["item"], sort=False)
        _check_constant_per_item(frame, codes, label, column="label")
        slices = None
        if "slice" in frame.columns:
            _check_no_missing(frame, "slice")
            raw_slice = frame["slice"].astype(str).str.strip().to_numpy()
            slice_codes = pd.factorize(raw_slice)[0].astype(float)
            _check_constant_per_item(frame, codes, slice_codes, column="slice")
            slices = raw_slice[_first_positions(codes, len(items))]
        r = np.bincount(codes, minlength=len(items))
        k = np.bincount(codes, weights=verdict, minlength=len(items)).astype(int)
        item_label = label[_first_positions(codes, len(items))]
        return cls(items=np.asarray(items, dtype=str), r=r, k=k, label=item_label, slice=slices)

    @property
    def labelled(self) -> np.ndarray:
        """Boolean mask of gold-labelled items."""
        return ~np.isnan(self.label)

    @property
    def score(self) -> np.ndarray:
        """Fraction of each item's rulings that passed, k / r."""
        return self.k / self.r

    def __repr__(self) -> str:
        return (
            f"Rulings(items={self.items.size}, labelled={int(self.labelled.sum())}, "
            f"rulings={int(self.r.sum())})"
        )


def _first_positions(codes: np.ndarray, size: int) -> np.ndarray:
    """Return, for each of the ``size`` groups numbered in ``codes``, the row of its first entry."""
    groups, first = np.unique(codes, return_index=True)
    out = np.zeros(size, dtype=int)
    out[groups] = first
    return out


def _check_constant_per_item(
    frame: pd.DataFrame, codes: np.ndarray, values: np.ndarray, *, column: str
) -> None:
    reference = values[_first_positions(codes, int(codes.max()) + 1)][codes]
    differs = ~((reference == values) | (np.isnan(reference) & np.isnan(values)))
    if differs.any():
        position = int(np.flatnonzero(differs)[0])
        raise DataError(
            f"column {column!r} must be the same on every row of an item; row "
            f"{_row_label(frame, position)} gives item {frame['item'].iloc[position]!r} "
            f"{_shown(frame[column].iloc[position])}, an earlier row gave another value"
        )


# --------------------------------------------------------------------------- loop logs
@dataclass(frozen=True, slots=True, eq=False)
class LoopLog:
    """Validated revise-then-rejudge loop logs: one row per attempt of an item.

    Attributes
    ----------
    item : ndarray of str
        Item identifier of each attempt.
    attempt : ndarray of int
        Attempt number (1, 2, ...) within the item, sorted within each item.
    verdict : ndarray of float
        The judge's verdict on the attempt (1.0 = PASS).
    correct : ndarray of float
        Whether the attempt was truly correct (1.0), as gold labels say.
    """

    item: np.ndarray
    attempt: np.ndarray
    verdict: np.ndarray
    correct: np.ndarray

    @classmethod
    def from_frame(cls, frame: TableLike, *, strict: bool = False) -> LoopLog:
        """Validate loop logs with columns ``item``, ``attempt``, ``verdict``, ``correct``.

        Raises
        ------
        DataError
            On a missing or unknown column, a non-binary verdict or correctness, an attempt
            that is not a positive whole number, or a repeated (item, attempt) row.
        """
        frame = read_table(frame, argument="loop log")
        _check_columns(
            frame,
            required=["item", "attempt", "verdict", "correct"],
            optional=[],
            strict=strict,
            argument="loop log",
        )
        _check_no_missing(frame, "item")
        _check_no_missing(frame, "attempt")
        attempt = pd.to_numeric(frame["attempt"], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(attempt) | (attempt < 1) | (attempt != np.round(attempt))
        if bad.any():
            position = int(np.flatnonzero(bad)[0])
            raise DataError(
                f"column 'attempt' must hold whole numbers >= 1; row {_row_label(frame, position)} "
                f"has {_shown(frame['attempt'].iloc[position])}"
            )
        frame["item"] = frame["item"].astype(str).str.strip()
        frame["attempt"] = attempt.astype(int)
        _check_unique(frame, ["item", "attempt"], what="attempt")
        verdict = parse_binary(frame["verdict"], column="verdict", frame=frame)
        correct = parse_binary(frame["correct"], column="correct", frame=frame)
        order = np.lexsort((frame["attempt"].to_numpy(), frame["item"].to_numpy()))
        return cls(
            item=frame["item"].to_numpy(dtype=str)[order],
            attempt=frame["attempt"].to_numpy()[order],
            verdict=verdict[order],
            correct=correct[order],
        )

    def __repr__(self) -> str:
        return f"LoopLog(items={np.unique(self.item).size}, attempts={self.item.size})"


# --------------------------------------------------------------------------- paired outcomes
@dataclass(frozen=True, slots=True, eq=False)
class PairedOutcomes:
    """Validated per-item correctness before and after each step of a pipeline.

    Attributes
    ----------
    items : ndarray of str, shape (N,)
        Item identifiers.
    outcomes : ndarray of int, shape (N, S + 1)
        Correctness E0, E1, ..., ES of each item (1 = correct) after 0..S steps.
    stages : tuple of str
        The column names ``("e0", "e1", ...)``.
    slice : ndarray of str or None
        Optional slice of each item.
    """

    items: np.ndarray
    outcomes: np.ndarray
    stages: tuple[str, ...]
    slice: np.ndarray | None = None

    @classmethod
    def from_frame(cls, frame: TableLike, *, strict: bool = False) -> PairedOutcomes:
        """Validate a table with ``item``, ``e0``, ``e1`` [, ``e2``, ...] and optional ``slice``.

        The stage columns must be consecutive from ``e0``; each holds a binary correctness
        value with no blanks; each item appears once.

        Raises
        ------
        DataError
            On a missing stage column, a gap in the stages, a non-binary or missing value, a
            repeated item, or an unknown column when ``strict``.

        Examples
        --------
        >>> import pandas as pd
        >>> t = pd.DataFrame({"item": [1, 2], "e0": [0, 1], "e1": ["pass", "fail"]})
        >>> PairedOutcomes.from_frame(t).outcomes
        array([[0, 1],
               [1, 0]])
        """
        frame = read_table(frame, argument="paired outcomes")
        stage_columns = sorted(
            (c for c in frame.columns if _matches(r"e\d+", c)), key=lambda c: int(c[1:])
        )
        expected = [f"e{i}" for i in range(len(stage_columns))]
        if len(stage_columns) < 2 or stage_columns != expected:
            raise DataError(
                "paired outcomes need consecutive stage columns e0, e1[, e2, ...] (at least e0 "
                f"and e1); the table has {list(frame.columns)}"
            )
        _check_columns(
            frame,
            required=["item", *stage_columns],
            optional=["slice"],
            strict=strict,
            argument="paired outcomes",
        )
        _check_no_missing(frame, "item")
        frame["item"] = frame["item"].astype(str).str.strip()
        _check_unique(frame, ["item"], what="item")
        outcomes = np.column_stack(
            [parse_binary(frame[c], column=c, frame=frame) for c in stage_columns]
        ).astype(int)
        slices = None
        if "slice" in frame.columns:
            _check_no_missing(frame, "slice")
            slices = frame["slice"].astype(str).str.strip().to_numpy()
        return cls(
            items=frame["item"].to_numpy(dtype=str),
            outcomes=outcomes,
            stages=tuple(stage_columns),
            slice=slices,
        )

    def __repr__(self) -> str:
        return f"PairedOutcomes(items={self.items.size}, stages={list(self.stages)})"


# --------------------------------------------------------------------------- bundled examples
_EXAMPLES = {"judge": "judge_example.csv"}


def load_example(name: Literal["judge"] = "judge") -> pd.DataFrame:
    """Return a bundled example table.

    Parameters
    ----------
    name : {"judge"}
        ``"judge"``: 150 gold-PASS and 150 gold-FAIL calibration items and 2,000 unlabelled test
        items judged by a simulated judge with sensitivity 0.90 and specificity 0.85 (the judge of
        seed 002), true success rate 0.70 on the test items (simulated with
        ``bayesjudge.simulate.judge_table(..., random_seed=2002)``).

    Examples
    --------
    >>> load_example("judge").columns.tolist()
    ['label', 'verdict']
    """
    if name not in _EXAMPLES:
        raise ValueError(f"name must be one of {sorted(_EXAMPLES)}; got {name!r}")
    with resources.files("bayesjudge").joinpath("examples", _EXAMPLES[name]).open("r") as handle:
        return pd.read_csv(handle)
