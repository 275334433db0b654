r"""The data contract of a judge panel: several judges' verdicts on the same items.

A panel is ``J >= 2`` judges (different models, prompts or temperatures) that each give a binary
verdict (1 PASS, 0 FAIL) on the same items; some items also carry a gold label. A judge that
failed to answer an item leaves its verdict missing (NaN). Missing verdicts are treated as
*missing at random*: whether a judge answers does not depend on the item's true class or on the
verdict it would have given. They are never read as FAIL.

:class:`PanelData` is built once, from long form (one row per item and judge) or wide form (one
row per item, one verdict column per judge), and validated there; past it nothing re-checks.
Values must already be parsed to 0/1 with NaN for missing (the input layer maps spellings and
column names). :meth:`PanelData.patterns` reduces the items to their distinct (label, verdict
pattern) rows with counts, the sufficient statistic of every panel model in bayesjudge.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from bayesjudge.errors import DataError
from bayesjudge.io.groups import POOL, GroupCheck, is_label_like, item_column
from bayesjudge.io.labels import join_labels, read_labels
from bayesjudge.io.mapping import Field, conform, suggest_columns
from bayesjudge.io.problems import Problems, row_names
from bayesjudge.io.source import InputReport
from bayesjudge.io.tables import TableFormat, TableSource, read_table

__all__ = ["LAYOUTS", "MISSING", "UNLABELLED", "PanelData", "PanelPatterns", "load_panel"]

#: Code of a missing verdict in a pattern.
MISSING = -1
#: Code of an unlabelled item in a pattern's label.
UNLABELLED = -1

_ONE_JUDGE_HELP = (
    "a panel needs at least two judges; for one judge use `bayesjudge estimate` "
    "(bayesjudge.models.prevalence)"
)


def _frozen(values: ArrayLike) -> NDArray[np.float64]:
    """Return a read-only float copy."""
    out = np.array(values, dtype=np.float64)
    out.flags.writeable = False
    return out


def _row(frame: pd.DataFrame, position: int) -> str:
    """Name a row as messages do: ``line 17`` in a file read by bayesjudge, else ``row 3``."""
    return row_names(frame.index, [position])[0]


def _is_missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))


def _binary_column(
    frame: pd.DataFrame, column: str, *, allow_missing: bool, what: str = "values"
) -> NDArray[np.float64]:
    """Return a column of 0/1 values as floats (NaN where missing), or raise naming the row."""
    raw = frame[column].to_numpy(dtype=object)
    out = np.empty(raw.size, dtype=np.float64)
    for position, value in enumerate(raw):
        if _is_missing(value):
            if not allow_missing:
                raise DataError(
                    f"column {column!r} must not have missing {what}; "
                    f"{_row(frame, position)} is blank"
                )
            out[position] = np.nan
        elif isinstance(value, bool | np.bool_ | int | float | np.integer | np.floating) and (
            value in (0, 1)
        ):
            out[position] = float(value)
        else:
            shown = value.item() if isinstance(value, np.generic) else value
            raise DataError(
                f"column {column!r} must hold 0/1 {what} (NaN for missing); "
                f"{_row(frame, position)} has {shown!r}"
            )
    return out


def _require_columns(frame: pd.DataFrame, columns: Sequence[str], argument: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(
            f"{argument}: missing column(s) {missing}; the table has {list(frame.columns)}"
        )


def _check_frame(frame: object) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame; got {type(frame).__name__}")
    if frame.empty:
        raise DataError("frame: the table has no rows")
    return frame


@dataclass(frozen=True, slots=True, eq=False)
class PanelPatterns:
    """Distinct (label, verdict pattern) rows of a panel, with how many items share each.

    Every panel likelihood depends on an item only through its gold label (or its absence) and
    its pattern of verdicts (missing entries included), so each distinct row enters once,
    weighted by ``count``.

    Attributes
    ----------
    judges : tuple of str
        The judges, in column order of ``verdict``.
    label : ndarray of int, shape (P,)
        1 PASS, 0 FAIL, -1 unlabelled.
    verdict : ndarray of int8, shape (P, J)
        1 PASS, 0 FAIL, -1 missing.
    count : ndarray of int, shape (P,)
        Number of items with this row (at least 1).

    Examples
    --------
    >>> data = PanelData.from_arrays([[1, 1], [1, 1], [0, np.nan]], labels=[np.nan, np.nan, 0])
    >>> patterns = data.patterns()
    >>> patterns.count.tolist(), patterns.verdict.tolist()
    ([1, 2], [[0, -1], [1, 1]])
    """

    judges: tuple[str, ...]
    label: NDArray[np.int64]
    verdict: NDArray[np.int8]
    count: NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.label.size)

    @property
    def n_judges(self) -> int:
        """Number of judges ``J``."""
        return len(self.judges)

    @property
    def n_items(self) -> int:
        """Number of items."""
        return int(self.count.sum())

    @property
    def n_unlabelled(self) -> int:
        """Number of items without a gold label."""
        return int(self.count[self.label == UNLABELLED].sum())

    @property
    def n_labelled(self) -> tuple[int, int]:
        """Numbers of gold-FAIL and gold-PASS items, in that order (the ``class`` order)."""
        return int(self.count[self.label == 0].sum()), int(self.count[self.label == 1].sum())

    def to_frame(self) -> pd.DataFrame:
        """Return one row per pattern: ``label`` (nullable), one column per judge, ``count``.

        Missing verdicts and labels are ``<NA>``.
        """
        frame = pd.DataFrame(
            {
                "label": pd.array(
                    np.where(self.label == UNLABELLED, np.nan, self.label), dtype="Int64"
                )
            }
        )
        for position, judge in enumerate(self.judges):
            column = self.verdict[:, position].astype(float)
            frame[judge] = pd.array(np.where(column == MISSING, np.nan, column), dtype="Int64")
        frame["count"] = self.count
        return frame


@dataclass(frozen=True, slots=True, eq=False)
class PanelData:
    """Validated verdicts of a judge panel, one row per item and one column per judge.

    Build it with :meth:`from_long`, :meth:`from_wide` or :meth:`from_arrays`; they check that
    verdicts and labels are 0/1 (NaN for missing), that there are at least two judges, that no
    judge is given twice for an item, that an item's gold labels agree, and that every judge
    answered at least one item.

    Attributes
    ----------
    items : tuple
        Item identifiers, in order of first appearance.
    judges : tuple of str
        Judge names, in order of first appearance.
    verdicts : ndarray of float, shape (items, judges)
        1.0 PASS, 0.0 FAIL, NaN where the judge gave no verdict.
    labels : ndarray of float, shape (items,)
        Gold label 1.0 / 0.0, NaN for unlabelled items.
    origin : InputReport or None
        What :func:`load_panel` read, and how (None for data built from arrays or frames).

    Examples
    --------
    >>> frame = pd.DataFrame({"item": [1, 1, 2, 2], "judge": ["a", "b", "a", "b"],
    ...                       "verdict": [1, 1, 0, np.nan], "label": [1, 1, None, None]})
    >>> data = PanelData.from_long(frame)
    >>> data.judges, data.n_items, data.n_labelled
    (('a', 'b'), 2, (0, 1))
    """

    items: tuple[Hashable, ...]
    judges: tuple[str, ...]
    verdicts: NDArray[np.float64]
    labels: NDArray[np.float64]
    origin: InputReport | None = None

    # ---------------------------------------------------------------- constructors
    @classmethod
    def from_arrays(
        cls,
        verdicts: ArrayLike,
        *,
        labels: ArrayLike | None = None,
        judges: Sequence[str] | None = None,
        items: Sequence[Hashable] | None = None,
    ) -> PanelData:
        """Validate an (items x judges) array of 0/1/NaN verdicts and optional gold labels.

        Parameters
        ----------
        verdicts : array_like, shape (items, judges)
            1 PASS, 0 FAIL, NaN missing.
        labels : array_like, shape (items,), optional
            Gold labels 1/0, NaN for unlabelled items; all unlabelled when omitted.
        judges : sequence of str, optional
            Judge names (default ``"judge_0"``, ``"judge_1"``, ...).
        items : sequence, optional
            Item identifiers (default 0, 1, ...).

        Raises
        ------
        DataError
            On a value that is not 0/1/NaN (naming the judge and item), fewer than two judges,
            a repeated judge or item, or a judge with no verdict at all.

        Examples
        --------
        >>> PanelData.from_arrays([[1, 0, 1]], judges=["a", "b", "c"]).n_judges
        3
        """
        try:
            values = np.asarray(verdicts, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise DataError(f"verdicts must be numbers 0/1 (NaN for missing): {exc}") from None
        if values.ndim != 2:
            raise DataError(
                f"verdicts must be a 2-D (items x judges) array; got {values.ndim} dimension(s)"
            )
        n_items, n_judges = values.shape
        names = (
            tuple(f"judge_{k}" for k in range(n_judges))
            if judges is None
            else tuple(str(j) for j in judges)
        )
        ids: tuple[Hashable, ...] = tuple(range(n_items)) if items is None else tuple(items)
        if len(names) != n_judges:
            raise DataError(f"judges names {len(names)} judges; verdicts has {n_judges} columns")
        if len(ids) != n_items:
            raise DataError(f"items names {len(ids)} items; verdicts has {n_items} rows")
        if labels is None:
            gold = np.full(n_items, np.nan)
        else:
            try:
                gold = np.asarray(labels, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise DataError(f"labels must be numbers 0/1 (NaN for missing): {exc}") from None
            if gold.shape != (n_items,):
                raise DataError(
                    f"labels must have one value per item ({n_items}); got shape {gold.shape}"
                )
        bad = ~(np.isnan(values) | (values == 0.0) | (values == 1.0))
        if bad.any():
            i, t = np.argwhere(bad)[0]
            raise DataError(
                f"verdicts must be 0/1 (NaN for missing); judge {names[t]!r} on item "
                f"{ids[i]!r} has {float(values[i, t])!r}"
            )
        bad_label = ~(np.isnan(gold) | (gold == 0.0) | (gold == 1.0))
        if bad_label.any():
            i = int(np.flatnonzero(bad_label)[0])
            raise DataError(
                f"labels must be 0/1 (NaN for unlabelled); item {ids[i]!r} has {float(gold[i])!r}"
            )
        return cls._checked(ids, names, values, gold)

    @classmethod
    def from_long(
        cls,
        frame: pd.DataFrame,
        *,
        item: str = "item",
        judge: str = "judge",
        verdict: str = "verdict",
        label: str | None = "label",
    ) -> PanelData:
        """Read one row per (item, judge) verdict.

        A judge with no row for an item, or a row with a blank verdict, has a missing verdict
        there. The gold label may be given on every row of an item or on some of them; given
        values must agree.

        Parameters
        ----------
        frame : DataFrame
            The long table.
        item, judge, verdict : str
            Column names.
        label : str or None
            Column of gold labels (blank for unlabelled items); ``None`` when there is none.

        Raises
        ------
        DataError
            Naming the column and row of a bad value, the item and judge of a repeated verdict,
            the item and rows of disagreeing labels, a judge with no verdict, or a panel of one
            judge (pointing to ``bayesjudge estimate``).

        Examples
        --------
        >>> frame = pd.DataFrame({"item": ["x", "x", "y"], "judge": ["a", "b", "b"],
        ...                       "verdict": [1, 0, 1]})
        >>> PanelData.from_long(frame, label=None).verdicts.tolist()
        [[1.0, 0.0], [nan, 1.0]]
        """
        frame = _check_frame(frame)
        columns = [item, judge, verdict] + ([] if label is None else [label])
        _require_columns(frame, columns, "frame")
        for column in (item, judge):
            blank = frame[column].isna().to_numpy()
            if blank.any():
                position = int(np.flatnonzero(blank)[0])
                raise DataError(
                    f"column {column!r} must not have missing values; "
                    f"{_row(frame, position)} is blank"
                )
        votes = _binary_column(frame, verdict, allow_missing=True, what="verdicts")
        gold = (
            np.full(len(frame), np.nan)
            if label is None
            else _binary_column(frame, label, allow_missing=True, what="labels")
        )
        item_code, item_ids = pd.factorize(frame[item], sort=False)
        judge_code, judge_ids = pd.factorize(frame[judge].astype(str), sort=False)
        names = tuple(str(j) for j in judge_ids)
        ids = tuple(item_ids.tolist())
        if len(names) < 2:
            raise DataError(f"column {judge!r} names one judge ({names[0]!r}); {_ONE_JUDGE_HELP}")

        # a judge given twice for an item
        key = item_code.astype(np.int64) * len(names) + judge_code
        order = np.argsort(key, kind="stable")
        repeat = np.flatnonzero(np.diff(key[order]) == 0)
        if repeat.size:
            first, second = int(order[repeat[0]]), int(order[repeat[0] + 1])
            raise DataError(
                f"judge {names[judge_code[first]]!r} is given twice for item "
                f"{ids[item_code[first]]!r} ({_row(frame, first)} and "
                f"{_row(frame, second)}); keep one verdict per item and judge"
            )

        # one gold label per item: blanks are fine, given values must agree
        labels = np.full(len(ids), np.nan)
        known = np.flatnonzero(~np.isnan(gold))
        for row in known.tolist():
            code = int(item_code[row])
            if np.isnan(labels[code]):
                labels[code] = gold[row]
            elif labels[code] != gold[row]:
                earlier = int(known[(item_code[known] == code)][0])
                raise DataError(
                    f"column {label!r}: item {ids[code]!r} has gold label "
                    f"{int(labels[code])} in {_row(frame, earlier)} and "
                    f"{int(gold[row])} in {_row(frame, row)}"
                )

        values = np.full((len(ids), len(names)), np.nan)
        values[item_code, judge_code] = votes
        return cls._checked(ids, names, values, labels)

    @classmethod
    def from_wide(
        cls,
        frame: pd.DataFrame,
        *,
        judges: Sequence[str] | None = None,
        item: str | None = "item",
        label: str | None = "label",
    ) -> PanelData:
        """Read one row per item with one verdict column per judge.

        Parameters
        ----------
        frame : DataFrame
            The wide table; a blank verdict is a missing verdict.
        judges : sequence of str, optional
            The verdict columns (default: every column other than ``item`` and ``label``).
        item : str or None
            Column of item identifiers; ``None`` uses the frame's index.
        label : str or None
            Column of gold labels (blank for unlabelled items); ``None`` when there is none.

        Raises
        ------
        DataError
            Naming the column and row of a bad value, a repeated item (with its rows), a judge
            column with no verdict, or a panel of one judge (pointing to ``bayesjudge
            estimate``).

        Examples
        --------
        >>> frame = pd.DataFrame({"label": [1, None], "a": [1, 0], "b": [1, None]})
        >>> PanelData.from_wide(frame, item=None).n_labelled
        (0, 1)
        """
        frame = _check_frame(frame)
        fixed = [c for c in (item, label) if c is not None]
        _require_columns(frame, fixed, "frame")
        if judges is None:
            names = [str(c) for c in frame.columns if c not in fixed]
        else:
            names = [str(j) for j in judges]
            _require_columns(frame, names, "judges")
            if len(set(names)) != len(names):
                listed_twice = sorted({j for j in names if names.count(j) > 1})
                raise DataError(f"judges: column(s) {listed_twice} are listed more than once")
            clash = [j for j in names if j in fixed]
            if clash:
                raise DataError(f"judges: {clash} is also the item or label column")
        if len(names) < 2:
            shown = f"one judge column ({names[0]!r})" if names else "no judge column"
            raise DataError(f"frame has {shown}; {_ONE_JUDGE_HELP}")
        if item is None:
            ids_series = pd.Series(frame.index, index=frame.index)
        else:
            ids_series = frame[item]
            blank = ids_series.isna().to_numpy()
            if blank.any():
                position = int(np.flatnonzero(blank)[0])
                raise DataError(
                    f"column {item!r} must not have missing values; "
                    f"{_row(frame, position)} is blank"
                )
        twice = ids_series.duplicated(keep=False).to_numpy()
        if twice.any():
            rows = np.flatnonzero(twice)
            first = int(rows[0])
            same = rows[ids_series.to_numpy()[rows] == ids_series.iloc[first]]
            raise DataError(
                f"item {ids_series.iloc[first]!r} appears in more than one row ("
                f"{_row(frame, int(same[0]))} and {_row(frame, int(same[1]))}), so each judge "
                "is given twice for it; keep one row per item"
            )
        plain = frame.copy(deep=False)  # pandas deep-copies attrs on every column taken:
        plain.attrs = {}  # O(J^2) work for a wide table whose attrs name its J columns
        values = np.column_stack(
            [_binary_column(plain, j, allow_missing=True, what="verdicts") for j in names]
        )
        gold = (
            np.full(len(frame), np.nan)
            if label is None
            else _binary_column(frame, label, allow_missing=True, what="labels")
        )
        return cls._checked(tuple(ids_series.tolist()), tuple(names), values, gold)

    @classmethod
    def _checked(
        cls,
        items: tuple[Hashable, ...],
        judges: tuple[str, ...],
        verdicts: NDArray[np.float64],
        labels: NDArray[np.float64],
    ) -> PanelData:
        if len(judges) < 2:
            shown = f"one judge ({judges[0]!r})" if judges else "no judge"
            raise DataError(f"the panel has {shown}; {_ONE_JUDGE_HELP}")
        if len(set(judges)) != len(judges):
            repeated = sorted({j for j in judges if judges.count(j) > 1})
            raise DataError(f"judge name(s) {repeated} appear more than once")
        if len(items) == 0:
            raise DataError("the panel has no items")
        if len(set(items)) != len(items):
            seen: set[Hashable] = set()
            for i in items:
                if i in seen:
                    raise DataError(f"item {i!r} appears more than once")
                seen.add(i)
        silent = np.flatnonzero(np.all(np.isnan(verdicts), axis=0))
        if silent.size:
            raise DataError(
                f"judge {judges[int(silent[0])]!r} has no verdict on any of the "
                f"{len(items)} items; drop it from the panel"
            )
        return cls(items=items, judges=judges, verdicts=_frozen(verdicts), labels=_frozen(labels))

    # ---------------------------------------------------------------- views
    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)

    @property
    def n_judges(self) -> int:
        """Number of judges ``J``."""
        return len(self.judges)

    @property
    def n_unlabelled(self) -> int:
        """Number of items without a gold label."""
        return int(np.isnan(self.labels).sum())

    @property
    def n_labelled(self) -> tuple[int, int]:
        """Numbers of gold-FAIL and gold-PASS items, in that order (the ``class`` order)."""
        return int((self.labels == 0.0).sum()), int((self.labels == 1.0).sum())

    @property
    def missing_share(self) -> dict[str, float]:
        """Share of items each judge left without a verdict."""
        share = np.isnan(self.verdicts).mean(axis=0)
        return {j: float(s) for j, s in zip(self.judges, share, strict=True)}

    def judge(self, name: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Return (labels, verdicts) of the items one judge answered.

        Raises
        ------
        KeyError
            If ``name`` is not a judge of the panel.

        Examples
        --------
        >>> data = PanelData.from_arrays([[1, np.nan], [0, 1]], labels=[1, np.nan])
        >>> data.judge("judge_1")
        (array([nan]), array([1.]))
        """
        if name not in self.judges:
            raise KeyError(f"no judge {name!r}; the panel has {list(self.judges)}")
        column = self.verdicts[:, self.judges.index(name)]
        answered = ~np.isnan(column)
        return self.labels[answered], column[answered]

    def duplicate_judges(self) -> tuple[tuple[str, ...], ...]:
        """Return the groups of judges whose verdicts agree on every item.

        Two judges are duplicates when they gave the same verdict on every item and left the
        same items without one: a judge listed twice, the same column exported under two names,
        or a deterministic judge run twice. The latent-class model cannot represent judges
        that always agree (its loadings stay below 1), and reads their agreement as accuracy,
        so :meth:`merge_duplicates` keeps one judge of each group. Each group lists its judges
        in panel order; groups are ordered by their first judge.

        Examples
        --------
        >>> data = PanelData.from_arrays([[1, 1, 0], [0, 0, 0], [np.nan, np.nan, 1]],
        ...                              judges=["a", "a_copy", "b"])
        >>> data.duplicate_judges()
        (('a', 'a_copy'),)
        """
        coded = np.where(np.isnan(self.verdicts), MISSING, self.verdicts).astype(np.int8)
        _, first, inverse = np.unique(coded.T, axis=0, return_index=True, return_inverse=True)
        groups = [np.flatnonzero(inverse.ravel() == k) for k in np.argsort(first)]
        return tuple(tuple(self.judges[t] for t in g) for g in groups if g.size > 1)

    def merge_duplicates(self) -> PanelData:
        """Return the panel with one judge of each group of :meth:`duplicate_judges`.

        The first judge of each group is kept, under its own name; the data are returned
        unchanged when no two judges agree on every item.

        Raises
        ------
        DataError
            When fewer than two different judges remain: the panel is one judge listed
            several times, and the error says how to fit that judge alone.

        Examples
        --------
        >>> data = PanelData.from_arrays([[1, 1, 0], [0, 0, 0], [1, 1, 1]],
        ...                              judges=["a", "a_copy", "b"])
        >>> data.merge_duplicates().judges
        ('a', 'b')
        """
        groups = self.duplicate_judges()
        if not groups:
            return self
        dropped = {judge for group in groups for judge in group[1:]}
        keep = [t for t, judge in enumerate(self.judges) if judge not in dropped]
        if len(keep) < 2:
            names = " and ".join(repr(j) for j in groups[0])
            judge = self.judges[keep[0]]
            raise DataError(
                f"judges {names} gave the same verdict on every one of the {self.n_items} "
                "items: they are one judge listed twice, and a panel needs at least two "
                f"different judges. Fit the one judge alone: `bayesjudge estimate DATA --map "
                f"verdict={judge}` on a wide table (in Python, bayesjudge.fit_prevalence("
                f"JudgeData.from_frame(...)) with the gold labels and the verdicts of judge "
                f"{judge!r})"
            )
        return replace(
            self,
            judges=tuple(self.judges[t] for t in keep),
            verdicts=_frozen(self.verdicts[:, keep]),
        )

    def patterns(self) -> PanelPatterns:
        """Reduce the items to distinct (label, verdict pattern) rows with counts.

        Rows are ordered by label (PASS, FAIL, unlabelled), then by pattern.
        """
        coded = np.where(np.isnan(self.verdicts), MISSING, self.verdicts).astype(np.int8)
        label = np.where(np.isnan(self.labels), UNLABELLED, self.labels).astype(np.int64)
        stack = np.column_stack([label, coded.astype(np.int64)])
        unique, counts = np.unique(stack, axis=0, return_counts=True)
        order = np.lexsort((*unique[:, 1:].T[::-1], -unique[:, 0]))
        unique, counts = unique[order], counts[order]
        verdict = np.ascontiguousarray(unique[:, 1:], dtype=np.int8)
        return PanelPatterns(
            judges=self.judges,
            label=np.ascontiguousarray(unique[:, 0], dtype=np.int64),
            verdict=verdict,
            count=counts.astype(np.int64),
        )

    def to_wide(self) -> pd.DataFrame:
        """Return one row per item: ``item``, ``label`` (nullable) and one column per judge."""
        frame = pd.DataFrame({"item": list(self.items)})
        frame["label"] = pd.array(self.labels, dtype="Float64").astype("Int64")
        for position, judge in enumerate(self.judges):
            frame[judge] = pd.array(self.verdicts[:, position], dtype="Float64").astype("Int64")
        return frame


Layout = Literal["auto", "long", "wide"]
#: The table layouts :func:`load_panel` reads.
LAYOUTS: tuple[str, ...] = get_args(Layout)
_LONG = ("item", "judge", "verdict")


def load_panel(
    source: TableSource,
    *,
    judges: Sequence[str] | None = None,
    labels: TableSource | None = None,
    layout: Layout = "auto",
    strict: bool = False,
    format: TableFormat = "auto",
    columns: Mapping[str, str] | None = None,
    positive: Sequence[str] = (),
    negative: Sequence[str] = (),
    label_columns: Mapping[str, str] | None = None,
) -> PanelData:
    r"""Read a panel's verdicts from a file or table, optionally joining gold labels kept apart.

    The one loading function of the panel family (``bayesjudge panel`` calls it). Files are
    read with :func:`bayesjudge.io.read_table` (CSV, TSV, JSON Lines, Parquet, ``"-"`` for
    standard input) and every value spelling of :mod:`bayesjudge.io.mapping` is accepted
    (``PASS``/``FAIL``, ``yes``/``no``, ``1``/``0``, ...; a blank verdict is missing).

    * **long** layout: one row per (item, judge) verdict, columns ``item``, ``judge``,
      ``verdict`` and optionally ``label``;
    * **wide** layout: one row per item, one verdict column per judge (``judges``, or every
      column other than ``item`` and ``label``), optionally ``item`` and ``label``.

    Parameters
    ----------
    source : path, ``"-"``, binary file or DataFrame
        The verdicts.
    judges : sequence of str, optional
        The verdict columns of a wide table (implies ``layout="wide"``).
    labels : path, binary file or DataFrame, optional
        Gold labels in a table of their own (columns ``item``, ``label``), joined to the
        verdicts by item id (:func:`bayesjudge.io.join_labels`); the verdicts then carry none.
    layout : {"auto", "long", "wide"}
        ``"auto"``: long when the table has ``judge`` and ``verdict`` columns (after
        ``columns``) and no ``judges`` are named, wide otherwise.
    strict : bool
        Reject columns the layout does not read.
    format : {"auto", "csv", "tsv", "jsonl", "parquet"}
        The table format of a path (``"auto"``: by extension, then content).
    columns : mapping, optional
        ``{name: column of the table}`` for ``item``, ``label`` and, in long layout, ``judge``
        and ``verdict`` (e.g. ``{"item": "id"}``).
    positive, negative : sequence of str
        Extra PASS and FAIL spellings.
    label_columns : mapping, optional
        Column mapping of the labels table.

    Returns
    -------
    PanelData
        With :attr:`~PanelData.origin` saying what was read.

    Raises
    ------
    DataError
        Naming the file, column and line of every problem (see :class:`PanelData`).

    Examples
    --------
    >>> import io
    >>> text = b"item,judge,verdict,label\n1,a,PASS,\n1,b,fail,\n2,a,yes,1\n2,b,yes,1\n"
    >>> data = load_panel(io.BytesIO(text))
    >>> data.judges, data.verdicts.tolist(), data.labels.tolist()
    (('a', 'b'), [[1.0, 0.0], [1.0, 1.0]], [nan, 1.0])
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {list(LAYOUTS)}; got {layout!r}")
    mapping = dict(columns or {})
    table = read_table(source, format=format, argument="panel data")
    present = [str(c) for c in table.columns]
    if layout == "auto":
        long = judges is None and all(mapping.get(n, n) in present for n in ("judge", "verdict"))
        layout = "long" if long else "wide"
    if layout == "long":
        if judges is not None:
            raise DataError("judges names the verdict columns of a wide table; this one is long")
        fields = [
            Field("item", "text"),
            Field("judge", "text"),
            Field("verdict", "binary", missing=True),
            Field("label", "binary", required=False, missing=True),
        ]
        frame = conform(
            table,
            fields,
            columns=mapping,
            positive=positive,
            negative=negative,
            strict=strict,
            groups=GroupCheck(),
        )
    else:
        item = mapping.get("item") or item_column(present, mapping) or "item"
        if judges is None and "label" not in mapping and "label" not in present:
            mapping.update(_gold_column(present, mapping, apart=labels is not None))
        fixed = {item, mapping.get("label", "label"), *([mapping[POOL]] if POOL in mapping else [])}
        names = (
            [c for c in present if c not in fixed] if judges is None else [str(j) for j in judges]
        )
        clash = sorted(fixed & set(names))
        if clash:
            raise DataError(f"judges: {clash} is also the item or label column")
        if len(set(names)) != len(names):
            repeated = sorted({j for j in names if names.count(j) > 1})
            raise DataError(f"judges: column(s) {repeated} are listed more than once")
        unknown = sorted(set(mapping) - {"item", "label", POOL})
        if unknown:
            raise DataError(
                f"columns: a wide panel table maps only 'item' and 'label'; got {unknown} (its "
                "judge columns are read under their own names)"
            )
        fields = [
            Field("item", "text", required=labels is not None),
            Field("label", "binary", required=False, missing=True),
            *(Field(name, "binary", missing=True) for name in names),
        ]
        problems = Problems(str(table.attrs.get("source", "panel data")))
        frame = conform(
            table,
            fields,
            columns=mapping,
            positive=positive,
            negative=negative,
            strict=strict,
            problems=problems,
            groups=GroupCheck(),
        )
        if problems and item not in present and judges is None:
            for column in suggest_columns("item", names, limit=1):
                problems.add(
                    f"column {column!r} is read as a judge, but its name says it is the items' "
                    f"id: read it as the item with --map item={column} (columns= in Python)"
                )
        problems.raise_if_any()
    origin = InputReport(
        source=str(table.attrs.get("source", "panel data")),
        format=str(table.attrs.get("format", format)),
        rows=len(table),
        items=0,
        columns=dict(frame.attrs.get("columns", {})),
    )
    if labels is not None:
        gold = read_labels(labels, columns=label_columns, positive=positive, negative=negative)
        by = ("judge",) if layout == "long" else ()
        frame, join = join_labels(frame, gold, by=by)
        origin = replace(origin, labels=str(gold.attrs.get("source", "labels")), join=join)
    label = "label" if "label" in frame else None
    if layout == "long":
        data = PanelData.from_long(frame, label=label)
    else:
        data = PanelData.from_wide(
            frame, judges=names, item="item" if "item" in frame else None, label=label
        )
    return replace(data, origin=replace(origin, items=data.n_items))


def _gold_column(present: list[str], mapping: Mapping[str, str], *, apart: bool) -> dict[str, str]:
    """Return ``{"label": column}`` for the one column of a wide table named as a gold label.

    A column named as a gold label (``human_label``, ``gold``, ``truth``, ...; see
    :func:`bayesjudge.io.groups.is_label_like`) is never read as a judge: it is the label, or,
    when there are several such columns or labels are given apart, a :class:`DataError` says
    how to choose.
    """
    taken = set(mapping.values())
    like = [c for c in present if c not in taken and is_label_like(c)]
    if not like:
        return {}
    if apart:
        raise DataError(
            f"column {like[0]!r} is named as a gold label, and labels are given apart "
            "(--labels): drop the column, or name the judges with --judges (judges= in Python)"
        )
    if len(like) > 1:
        raise DataError(
            f"columns {like} are all named as gold labels; name the label with --map "
            f"label={like[0]} and the judges with --judges (judges= in Python)"
        )
    return {"label": like[0]}
