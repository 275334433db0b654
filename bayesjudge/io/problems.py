"""Collect every problem of an input in one pass and report them together.

A validation pass records what it finds in a :class:`Problems` collector instead of raising at
the first bad value; at the end :meth:`Problems.raise_if_any` raises one
:class:`~bayesjudge.errors.DataError` that lists every problem, one per line, each with the
first few offending rows and how many more there are.

Rows are named the way the input names them (see :func:`row_names`): ``line 17`` for a row that
starts on line 17 of a CSV/TSV/JSONL file, ``row 17`` for the 17th row of a Parquet file (both
1-based), and the index label for a DataFrame (``row 3``, ``row 'item-42'``).
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError

__all__ = ["Problems", "RepeatedIds", "report_inconsistent", "report_repeated", "row_names"]


def row_names(index: pd.Index, positions: Sequence[int] | np.ndarray) -> list[str]:
    """Name rows of a table, given their positions, the way messages show them.

    An index named ``"line"`` or ``"row"`` (as :func:`bayesjudge.io.read_table` makes for files)
    gives ``line 17`` / ``row 17``; any other index gives ``row`` and its label, quoted unless it
    is a whole number.

    Parameters
    ----------
    index : pandas.Index
        The table's index.
    positions : sequence of int
        0-based positions of the rows to name.

    Examples
    --------
    >>> row_names(pd.RangeIndex(2, 6, name="line"), [0, 3])
    ['line 2', 'line 5']
    >>> row_names(pd.Index(["a", "b"]), [1])
    ["row 'b'"]
    """
    unit = index.name if index.name in ("line", "row") else "row"
    labels = index[np.asarray(positions, dtype=np.intp)]
    names = []
    for label in labels:
        value = label.item() if isinstance(label, np.generic) else label
        shown = (
            str(value) if isinstance(value, int) and not isinstance(value, bool) else repr(value)
        )
        names.append(f"{unit} {shown}")
    return names


def _shown(value: object) -> str:
    """Return a short ``repr`` of an offending value (numpy scalars as plain Python values)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return "a missing value"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(slots=True)
class _Entry:
    source: str | None
    message: str
    rows: list[str] = field(default_factory=list)
    values: list[object] = field(default_factory=list)
    total: int = 0
    with_values: bool = True


class Problems:
    """Collect the problems of one validation pass; raise them together as one ``DataError``.

    Parameters
    ----------
    source : str
        What is being validated (a file name, ``"judge data"``): it opens the message.
    limit : int
        How many offending rows of each problem are shown; the rest are counted.

    Examples
    --------
    >>> problems = Problems("judge.csv")
    >>> problems.add("no 'label' column")
    >>> problems.add_rows(
    ...     "column 'verdict' must be PASS or FAIL",
    ...     rows=["line 4", "line 9"],
    ...     values=["maybe", ""],
    ... )
    >>> print(problems.message())
    judge.csv: 2 problems:
      - no 'label' column
      - column 'verdict' must be PASS or FAIL: line 4 has 'maybe', line 9 has ''
    >>> problems.raise_if_any()
    Traceback (most recent call last):
    ...
    bayesjudge.errors.DataError: judge.csv: 2 problems:
    ...
    """

    def __init__(self, source: str = "data", *, limit: int = 5) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1; got {limit!r}")
        self.source = source
        self.limit = limit
        self._entries: dict[tuple[str | None, str], _Entry] = {}

    def add(self, message: str, *, source: str | None = None) -> None:
        """Record a problem of the whole table (a missing column, an unreadable file).

        ``source`` names another input than the collector's own (e.g. one file of several).
        The same message is recorded once.
        """
        self._entries.setdefault((source, message), _Entry(source, message, total=0))

    def add_rows(
        self,
        message: str,
        *,
        rows: Sequence[str],
        values: Sequence[object] | None = None,
        total: int | None = None,
        source: str | None = None,
    ) -> None:
        """Record offending rows of one problem (e.g. bad values of one column).

        Calls with the same ``message`` (and ``source``) merge: the first :attr:`limit` rows are
        kept in the order given, the rest are counted. Give rows in file order.

        Parameters
        ----------
        message : str
            What is wrong, naming the column and what is allowed.
        rows : sequence of str
            Names of (at least the first few) offending rows, e.g. from :func:`row_names`.
        values : sequence, optional
            The offending value of each row in ``rows``, shown beside it.
        total : int, optional
            How many rows have the problem in all (default ``len(rows)``).
        source : str, optional
            The input these rows belong to, when it is not the collector's own.
        """
        count = len(rows) if total is None else total
        if count == 0:
            return
        if values is not None and len(values) != len(rows):
            raise ValueError("values must hold one value per row")
        entry = self._entries.setdefault(
            (source, message), _Entry(source, message, with_values=values is not None)
        )
        room = self.limit - len(entry.rows)
        if room > 0:
            entry.rows.extend(rows[:room])
            if values is not None:
                entry.values.extend(values[:room])
        entry.total += count

    def merge(self, other: Problems) -> None:
        """Add the problems of another collector (e.g. of another file or chunk) to these."""
        for (source, message), entry in other._entries.items():
            where: str | None = source if source is not None else other.source
            if where == self.source:
                where = None
            if entry.total == 0:
                self.add(message, source=where)
            else:
                self.add_rows(
                    message,
                    rows=entry.rows,
                    values=entry.values if entry.with_values else None,
                    total=entry.total,
                    source=where,
                )

    def __len__(self) -> int:
        return len(self._entries)

    def __bool__(self) -> bool:
        return bool(self._entries)

    def lines(self) -> list[str]:
        """Return one line per problem, in the order they were found."""
        out = []
        for entry in self._entries.values():
            text = entry.message if entry.source is None else f"{entry.source}: {entry.message}"
            if entry.total:
                if entry.with_values:
                    shown = [
                        f"{r} has {_shown(v)}"
                        for r, v in zip(entry.rows, entry.values, strict=True)
                    ]
                else:
                    shown = list(entry.rows)
                rest = entry.total - len(entry.rows)
                more = f", and {rest} more row{'s' if rest != 1 else ''}" if rest > 0 else ""
                text = f"{text}: {', '.join(shown)}{more}"
            out.append(text)
        return out

    def message(self) -> str:
        """Return the whole report: one line for a single problem, else a list."""
        lines = self.lines()
        if len(lines) == 1:
            return f"{self.source}: {lines[0]}"
        return f"{self.source}: {len(lines)} problems:\n" + "\n".join(f"  - {x}" for x in lines)

    def raise_if_any(self) -> None:
        """Raise one :class:`~bayesjudge.errors.DataError` listing every problem, if any.

        Raises
        ------
        DataError
            When at least one problem was recorded.
        """
        if self._entries:
            raise DataError(self.message())


def report_inconsistent(
    frame: pd.DataFrame,
    codes: np.ndarray,
    column: str,
    *,
    problems: Problems,
    why: str | None = None,
    unit: str = "item",
) -> None:
    """Record the rows whose ``column`` differs from the first row of their group (vectorised).

    ``codes`` numbers the groups of ``frame``'s rows: its items (``frame["item"]``), or with
    ``unit="answer"`` the answers of its items. A missing value differs from a present one.
    With ``why``, the message says why the column must agree, and each row names the value of
    its group's first row and where it stands.

    Examples
    --------
    >>> frame = pd.DataFrame({"item": ["a", "a", "b"], "label": [1.0, 0.0, 1.0]})
    >>> problems = Problems("rulings")
    >>> report_inconsistent(frame, np.array([0, 0, 1]), "label", problems=problems,
    ...                     why="gold labels are given per item")
    >>> print(problems.message())  # doctest: +NORMALIZE_WHITESPACE
    rulings: column 'label' must be the same on every row of an item (gold labels are given per
    item): row 1 (item 'a', which has 1.0 on row 0) has 0.0
    """
    values = frame[column]
    value_codes = pd.factorize(values, use_na_sentinel=True)[0]  # a missing value is -1
    first = np.full(int(codes.max()) + 1, -1, dtype=np.intp)
    first[codes[::-1]] = np.arange(codes.size)[::-1]  # the first row of each group
    differs = value_codes != value_codes[first[codes]]
    if not differs.any():
        return
    positions = np.flatnonzero(differs)
    shown = positions[: problems.limit]
    items = frame["item"].iloc[shown].tolist()
    names = row_names(frame.index, shown)
    of = "item" if unit == "item" else f"{unit} of item"
    message = f"column {column!r} must be the same on every row of an {unit}"
    if why is None:
        rows = [f"{r} ({of} {i!r})" for r, i in zip(names, items, strict=True)]
    else:
        message += f" ({why})"
        origin = first[codes[shown]]
        rows = [
            f"{r} ({of} {i!r}, which has {_plain(values.iloc[f])!r} on {fn})"
            for r, i, f, fn in zip(
                names, items, origin, row_names(frame.index, origin), strict=True
            )
        ]
    problems.add_rows(
        message,
        rows=rows,
        values=[_plain(v) for v in values.iloc[shown].tolist()],
        total=int(positions.size),
    )


def report_repeated(
    frame: pd.DataFrame, keys: Sequence[str], *, what: str, problems: Problems
) -> None:
    """Record the rows of ``frame`` that repeat the ``keys`` of an earlier row.

    Examples
    --------
    >>> frame = pd.DataFrame({"item": ["7", "007", "7"]}, index=pd.Index([2, 3, 5], name="line"))
    >>> problems = Problems("outcomes.csv")
    >>> report_repeated(frame, ["item"], what="item", problems=problems)
    >>> print(problems.message())
    outcomes.csv: columns ['item'] must identify each item once: line 5 repeats '7'
    """
    duplicated = frame.duplicated(subset=list(keys), keep="first").to_numpy()
    if not duplicated.any():
        return
    positions = np.flatnonzero(duplicated)
    shown = positions[: problems.limit]
    rows = []
    for name, position in zip(row_names(frame.index, shown), shown, strict=True):
        key = tuple(_plain(frame[c].iloc[position]) for c in keys)
        rows.append(f"{name} repeats {key[0] if len(key) == 1 else key!r}")
    problems.add_rows(
        f"columns {list(keys)} must identify each {what} once",
        rows=rows,
        total=int(positions.size),
    )


def _plain(value: object) -> object:
    return value.item() if isinstance(value, np.generic) else value


#: Most distinct ids a streamed read remembers (a set of text ids, about 100 MB at 10^6); past
#: it, ids not yet seen are no longer remembered, so repeats among them go unnoticed.
MAX_TALLIED_IDS = 1_000_000

_BOTH = 2  # the label code of an id seen with PASS on one row and FAIL on another


@dataclass(slots=True)
class RepeatedIds:
    """Item ids on several rows of a table whose rows should be items, tallied block by block.

    The ids seen are kept in a set (at most ``limit``, see :data:`MAX_TALLIED_IDS`), the rows
    of the ids that repeat in a dict, and the gold label of each labelled id, so a table read in
    blocks is checked without holding its rows; :meth:`warn` then says how many ids repeat,
    with an example, and which ones carry contradictory gold labels.

    Examples
    --------
    >>> tally = RepeatedIds()
    >>> tally.add(["a", "b", "a"], np.array([1, -1, 0]))
    >>> tally.add(["b"], np.array([-1]))
    >>> print(tally.message())  # doctest: +NORMALIZE_WHITESPACE
    column 'item': 2 id(s) are on several rows, e.g. 'a' (2 rows), and each row counts as an
    item; 1 id(s) have contradictory gold labels (PASS and FAIL), e.g. 'a'. If the rows are
    rulings of one item, combine them with epochs='first', 'majority', 'any' or 'all' (on the
    command line --epochs), which also refuses contradictory labels; if they are different
    items, give each its own id
    """

    limit: int = MAX_TALLIED_IDS
    seen: set[object] = field(default_factory=set)
    rows: dict[object, int] = field(default_factory=dict)  # rows of each repeated id
    labels: dict[object, int] = field(default_factory=dict)  # 1, 0 or _BOTH per labelled id
    full: bool = False

    def add(self, items: Sequence[object], labels: np.ndarray) -> None:
        """Tally one block: each row's id and its gold-label code (1 PASS, 0 FAIL, else none)."""
        counts = Counter(items)  # in order of first appearance
        known = self.seen.intersection(counts)
        for item in [i for i, c in counts.items() if c > 1 or i in known]:
            earlier = self.rows.get(item, 1 if item in known else 0)
            self.rows[item] = earlier + counts[item]
        fresh = [i for i in counts if i not in known] if known else list(counts)
        room = max(self.limit - len(self.seen), 0)
        if len(fresh) > room:  # beyond the bound: new ids are no longer remembered
            fresh = fresh[:room]
            self.full = True
        self.seen.update(fresh)
        labelled = np.flatnonzero((labels == 0) | (labels == 1))
        codes = labels[labelled].tolist()
        for position, code in zip(labelled.tolist(), codes, strict=True):
            self._label(items[position], int(code))

    def _label(self, item: object, code: int) -> None:
        before = self.labels.get(item)
        if before is None:
            if len(self.labels) < self.limit:
                self.labels[item] = code
        elif before != code:
            self.labels[item] = _BOTH

    def merge(self, other: RepeatedIds) -> None:
        """Add the tally of another part of the same table (another file)."""
        self.full = self.full or other.full
        for item in self.seen.intersection(other.seen):
            self.rows[item] = self.rows.get(item, 1) + other.rows.get(item, 1)
        for item, count in other.rows.items():
            if item not in self.seen:
                self.rows[item] = count
        self.seen.update(list(other.seen)[: max(self.limit - len(self.seen), 0)])
        for item, code in other.labels.items():
            self._label(item, code)

    def message(self) -> str | None:
        """Return the warning's text, or None when no id repeats."""
        if not self.rows:
            return None
        example, rows = next(iter(self.rows.items()))
        text = (
            f"column 'item': {len(self.rows)} id(s) are on several rows, e.g. {example!r} "
            f"({rows} rows), and each row counts as an item"
        )
        both = [item for item, code in self.labels.items() if code == _BOTH]
        if both:
            text += (
                f"; {len(both)} id(s) have contradictory gold labels (PASS and FAIL), "
                f"e.g. {both[0]!r}"
            )
        if self.full:
            text += f" (only the first {self.limit:,} distinct ids were checked)"
        return (
            f"{text}. If the rows are rulings of one item, combine them with epochs='first', "
            "'majority', 'any' or 'all' (on the command line --epochs), which also refuses "
            "contradictory labels; if they are different items, give each its own id"
        )

    def warn(self, *, stacklevel: int = 2) -> None:
        """Warn with :meth:`message` when some id repeats."""
        text = self.message()
        if text is not None:
            warnings.warn(text, UserWarning, stacklevel=stacklevel + 1)
