r"""The validated data of the systems family and its reductions to counts.

One row is one answer of one system, judged by one judge: columns ``system``, ``verdict``
(the judge's 0/1 verdict), ``label`` (the gold 0/1 label, NaN when the answer is not
gold-labelled) and, optionally, ``item`` (the prompt the answer responds to). Rows of different
systems with the same ``item`` are *paired*: they answer the same prompt, so their outcomes are
correlated. Without an ``item`` column every row is its own item and the design is unpaired.

:meth:`SystemsData.from_frame` takes parsed values (0/1 numbers or booleans, NaN or ``None`` for
a missing label); :meth:`SystemsData.read` reads any table through the input layer
(:mod:`bayesjudge.io`: CSV, TSV, JSON Lines, Parquet or standard input, the user's column names
and PASS/FAIL spellings, gold labels kept in a separate table and joined by id) and then
validates the same way.

Reductions
----------
Per (item, system) the data are one of seven *states*
(:data:`STATES`): the system did not answer the item (``missing``), an unlabelled answer with
verdict 0 or 1, or a gold-labelled answer with its label and verdict. An item's likelihood in
every model of the family depends on it only through its row of states, so items with the same
row (a *pattern*) enter once, weighted by how many items share it
(:meth:`SystemsData.patterns`). :meth:`SystemsData.system_counts` gives the six counts of the
prevalence family per system (unpaired model and Rogan-Gladen), and
:meth:`SystemsData.paired_table` the 2 x 2 table of joint verdicts of two systems on the items
unlabelled for both (McNemar, Newcombe, Tango).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import IO, TYPE_CHECKING, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bayesjudge.errors import DataError
from bayesjudge.inference.cache import bucket_size
from bayesjudge.io._judged import read_judged
from bayesjudge.io.groups import GroupCheck
from bayesjudge.io.labels import JoinReport, join_labels
from bayesjudge.io.mapping import Field, conform, suggest_columns
from bayesjudge.io.source import InputReport
from bayesjudge.io.tables import TableFormat, read_table

if TYPE_CHECKING:
    from bayesjudge.io.logs import EvalLog

__all__ = [
    "GOLD_FAIL_JUDGED_FAIL",
    "GOLD_FAIL_JUDGED_PASS",
    "GOLD_PASS_JUDGED_FAIL",
    "GOLD_PASS_JUDGED_PASS",
    "MISSING",
    "STATES",
    "UNLABELLED_FAIL",
    "UNLABELLED_PASS",
    "PairedItems",
    "Patterns",
    "SystemCounts",
    "SystemsData",
    "state_code",
]

#: Names of the per-(item, system) states, indexed by their code.
STATES = (
    "missing",
    "unlabelled_fail",
    "unlabelled_pass",
    "gold_fail_judged_fail",
    "gold_fail_judged_pass",
    "gold_pass_judged_fail",
    "gold_pass_judged_pass",
)
MISSING = 0
UNLABELLED_FAIL = 1
UNLABELLED_PASS = 2
GOLD_FAIL_JUDGED_FAIL = 3
GOLD_FAIL_JUDGED_PASS = 4
GOLD_PASS_JUDGED_FAIL = 5
GOLD_PASS_JUDGED_PASS = 6

_COLUMNS = ("system", "item", "label", "verdict")
#: The columns :meth:`SystemsData.read` reads (mapped with ``columns=``, ``--map``).
SYSTEM_FIELDS = (
    Field("system", "text"),
    Field("verdict", "binary"),
    Field("label", "binary", required=False, missing=True),
    Field("item", "text", required=False),
)
#: The columns of a separate gold-label table: ``item``, ``label`` and, when several systems
#: answered an item, ``system``.
SYSTEM_LABEL_FIELDS = (
    Field("item", "text"),
    Field("label", "binary", missing=True),
    Field("system", "text", required=False),
)
#: Joins an item id and a system name into the one id of an answer (for the label join).
_ANSWER = "{item} [{system}]"
type LabelSource = pd.DataFrame | str | os.PathLike[str] | IO[bytes]


def state_code(label: NDArray[np.float64], verdict: NDArray[np.integer]) -> NDArray[np.int8]:
    """Return the state code of answers with gold ``label`` (NaN if none) and ``verdict``.

    Unlabelled: ``1 + verdict``; labelled: ``3 + 2 * label + verdict`` (see :data:`STATES`).

    Examples
    --------
    >>> state_code(np.array([np.nan, 1.0, 0.0]), np.array([1, 0, 1])).tolist()
    [2, 5, 4]
    """
    label = np.asarray(label, dtype=float)
    verdict = np.asarray(verdict, dtype=np.int64)
    labelled = ~np.isnan(label)
    code = np.where(labelled, 3 + 2 * np.nan_to_num(label).astype(np.int64) + verdict, 1 + verdict)
    return code.astype(np.int8)


@dataclass(frozen=True, slots=True)
class Patterns:
    """Distinct rows of per-system states and how many items share each.

    Attributes
    ----------
    systems : tuple of str
        The systems, in column order.
    state : ndarray of int8, shape (cells, systems)
        State codes (:data:`STATES`) of each pattern.
    count : ndarray of int64, shape (cells,)
        Number of items with that pattern.
    """

    systems: tuple[str, ...]
    state: NDArray[np.int8]
    count: NDArray[np.int64]

    @property
    def n_items(self) -> int:
        """Number of items the patterns stand for."""
        return int(self.count.sum())

    def padded(self, size: int | None = None) -> dict[str, np.ndarray]:
        """Return the model's data arrays, padded with weight-0 all-missing cells to ``size``.

        An all-missing cell contributes ``0 * log 1 = 0`` to every model's log likelihood.

        Returns
        -------
        dict
            ``cell_state`` (int64, shape (size, systems)) and ``cell_weight`` (float64, shape
            (size,)); ``size`` defaults to :func:`~bayesjudge.inference.cache.bucket_size` of
            the number of patterns.

        Examples
        --------
        >>> p = Patterns(("a", "b"), np.array([[1, 2]], np.int8), np.array([5]))
        >>> p.padded(4)["cell_weight"].tolist()
        [5.0, 0.0, 0.0, 0.0]
        """
        cells = self.count.size
        size = bucket_size(cells) if size is None else int(size)
        if size < cells:
            raise ValueError(f"size must be at least the number of patterns ({cells}); got {size}")
        state = np.zeros((size, len(self.systems)), dtype=np.int64)
        state[:cells] = self.state
        weight = np.zeros(size, dtype=np.float64)
        weight[:cells] = self.count
        return {"cell_state": state, "cell_weight": weight}


@dataclass(frozen=True, slots=True)
class SystemCounts:
    """The six counts of the prevalence family for each system.

    Attributes
    ----------
    systems : tuple of str
    m1, x1 : ndarray of int64, shape (systems,)
        Gold-PASS answers and how many of them the judge passed.
    m0, x0 : ndarray of int64, shape (systems,)
        Gold-FAIL answers and how many of them the judge passed.
    n, k : ndarray of int64, shape (systems,)
        Unlabelled answers and how many of them the judge passed.
    """

    systems: tuple[str, ...]
    m1: NDArray[np.int64]
    x1: NDArray[np.int64]
    m0: NDArray[np.int64]
    x0: NDArray[np.int64]
    n: NDArray[np.int64]
    k: NDArray[np.int64]

    def as_dict(self) -> dict[str, np.ndarray]:
        """Return the counts keyed ``m1, x1, m0, x0, n, k``."""
        return {f: getattr(self, f) for f in ("m1", "x1", "m0", "x0", "n", "k")}


@dataclass(frozen=True, slots=True)
class PairedItems:
    """Two systems' labels and verdicts on their shared items, split by what is labelled.

    Attributes
    ----------
    systems : tuple of str
        ``(a, b)``.
    label, verdict : ndarray, shape (items, 2)
        On the items labelled for both systems: gold labels and verdicts (columns a, b).
    unlabelled_verdict : ndarray of int64, shape (items, 2)
        Verdicts on the items answered by both and labelled for neither.
    """

    systems: tuple[str, str]
    label: NDArray[np.int64]
    verdict: NDArray[np.int64]
    unlabelled_verdict: NDArray[np.int64]


def _row(frame: pd.DataFrame, position: int) -> str:
    index = frame.index
    return str(index[position]) if isinstance(index, pd.RangeIndex) else repr(index[position])


def _binary(frame: pd.DataFrame, column: str, *, allow_missing: bool) -> NDArray[np.float64]:
    series = frame[column]
    missing = series.isna().to_numpy()
    if missing.any() and not allow_missing:
        pos = int(np.flatnonzero(missing)[0])
        raise DataError(f"column {column!r} must not have missing values; row {_row(frame, pos)}")
    if series.dtype == bool:
        series = series.astype(np.int64)
    values = np.array(pd.to_numeric(series, errors="coerce").to_numpy(dtype=float, na_value=np.nan))
    bad = ~missing & ~np.isin(values, (0.0, 1.0))
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        allowed = "0/1 or a missing value" if allow_missing else "0/1"
        value = series.iloc[pos]
        shown = value.item() if isinstance(value, np.generic) else value
        raise DataError(
            f"column {column!r} must hold {allowed}; row {_row(frame, pos)} has {shown!r}"
        )
    values[missing] = np.nan
    return values


def _names(frame: pd.DataFrame, column: str) -> tuple[tuple[str, ...], NDArray[np.int64]]:
    """Return the distinct values of ``column`` as text, in order of appearance, and codes."""
    series = frame[column]
    missing = series.isna().to_numpy()
    if missing.any():
        pos = int(np.flatnonzero(missing)[0])
        raise DataError(f"column {column!r} must not have missing values; row {_row(frame, pos)}")
    text = series.astype(str).str.strip()
    codes, uniques = pd.factorize(text, sort=False)
    return tuple(str(u) for u in uniques), codes.astype(np.int64)


def _systems_of(
    frame: object, required: Sequence[str], *, what: str
) -> tuple[tuple[str, ...], NDArray[np.int64]]:
    """Check a frame of several systems' rows and return its systems and each row's system.

    Raises naming ``what`` (the data's name) on a missing column or an empty table, and naming
    the column when fewer than two systems are given.
    """
    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"data must be a pandas DataFrame; got {type(frame).__name__}")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise DataError(
            f"{what}: missing required column(s) {missing}; the table has "
            f"{[str(c) for c in frame.columns]}"
        )
    if len(frame) == 0:
        raise DataError(f"{what}: the table has no rows")
    systems, system_index = _names(frame, "system")
    if len(systems) < 2:
        raise DataError(
            f"column 'system': comparing systems needs at least two; the table has only "
            f"{systems[0]!r}"
        )
    return systems, system_index


def _check_labels(
    label: NDArray[np.float64], system_index: NDArray[np.int64], systems: Sequence[str]
) -> None:
    """Raise unless every system has an unlabelled answer and both gold classes are present."""
    unlabelled = np.isnan(label)
    per_system = np.bincount(system_index[unlabelled], minlength=len(systems))
    for s, count in enumerate(per_system):
        if count == 0:
            raise DataError(
                f"column 'label': system {systems[s]!r} has no unlabelled answers, so "
                "there is nothing to estimate for it; leave 'label' blank on the answers "
                "whose success rate is wanted"
            )
    classes = ((1.0, "PASS (1)", "sensitivity"), (0.0, "FAIL (0)", "specificity"))
    for value, name, what in classes:
        if not np.any(label == value):
            raise DataError(
                f"column 'label': no answer of any system has a gold-{name} label, so the "
                f"judge's {what} cannot be estimated"
            )


@dataclass(frozen=True, slots=True, eq=False)
class SystemsData:
    """Validated judge data of several systems, optionally paired by item.

    Build it with :meth:`from_frame`; the constructor does not validate.

    Attributes
    ----------
    systems : tuple of str
        The systems in order of first appearance (the first two are ``a`` and ``b`` of every
        two-system comparison unless chosen otherwise).
    items : tuple of str
        The items; with no ``item`` column, one per row (``"row <index>"``).
    system_index, item_index : ndarray of int64, shape (rows,)
        Each row's system and item.
    label : ndarray of float64, shape (rows,)
        Gold label, NaN when missing.
    verdict : ndarray of int64, shape (rows,)
        Judge verdict.
    has_item : bool
        Whether the table had an ``item`` column.
    """

    systems: tuple[str, ...]
    items: tuple[str, ...]
    system_index: NDArray[np.int64]
    item_index: NDArray[np.int64]
    label: NDArray[np.float64]
    verdict: NDArray[np.int64]
    has_item: bool
    origin: InputReport | None = None

    COLUMNS = _COLUMNS

    @classmethod
    def read(
        cls,
        source: pd.DataFrame | str | os.PathLike[str] | IO[bytes],
        *,
        format: TableFormat = "auto",
        columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
        strict: bool = False,
        labels: LabelSource | None = None,
        label_columns: Mapping[str, str] | None = None,
    ) -> SystemsData:
        r"""Read and validate systems data from any table the input layer reads.

        Parameters
        ----------
        source : DataFrame, path, ``"-"`` or binary file
            One row per judged answer: ``system``, ``verdict`` (PASS/FAIL in any built-in or
            given spelling), optional ``label`` (gold PASS/FAIL; missing = unlabelled) and
            ``item`` (the prompt; rows of different systems with one item are paired). Read by
            :func:`bayesjudge.io.read_table`.
        format : {"auto", "csv", "tsv", "jsonl", "parquet"}
            The table format.
        columns : mapping, optional
            ``{name: column}`` for columns named otherwise, e.g. ``{"system": "model"}``.
        positive, negative : sequence of str
            Extra PASS and FAIL spellings.
        strict : bool
            Reject columns that none of the names reads.
        labels : DataFrame or path, optional
            Gold labels kept apart: ``item``, ``label`` and ``system`` (which system's answer
            the label is for; it may be left out only when no item was answered by two
            systems). Joined to the data by (item, system), ids compared exactly as text; the
            data's own ``label`` column must then be empty.
        label_columns : mapping, optional
            Column mapping of the labels table.

        Raises
        ------
        DataError
            Listing every problem of the input (missing or badly mapped columns, values that
            are not PASS/FAIL, with their file lines), a label join that does not match, and
            then every check of :meth:`from_frame`.

        Examples
        --------
        >>> import io
        >>> text = io.BytesIO(b"model,q,judge\nold,1,pass\nnew,1,fail\nold,2,fail\nnew,2,pass")
        >>> gold = pd.DataFrame({"item": ["1", "1"], "system": ["old", "new"],
        ...                      "label": ["pass", "fail"]})
        >>> data = SystemsData.read(text, columns={"system": "model", "item": "q",
        ...                         "verdict": "judge"}, labels=gold)
        >>> data.systems, data.paired, data.origin.join.labelled
        (('old', 'new'), True, 2)
        """
        read = read_judged(
            source,
            SYSTEM_FIELDS,
            format=format,
            columns=columns,
            positive=positive,
            negative=negative,
            strict=strict,
            groups=GroupCheck(rank=False),
        )
        read.problems.raise_if_any()
        table, name, parsed, mapping = read.table, read.name, read.parsed, read.columns
        if "item" not in mapping:
            like = suggest_columns(
                "item", [str(c) for c in table.columns], exclude=mapping.values()
            )
            if like:
                warnings.warn(
                    f"{name}: unpaired: no item column, so every row is its own item; column "
                    f"{like[0]!r} looks like the items' id: pair the systems on it with "
                    f"--map item={like[0]} (columns={{'item': {like[0]!r}}} in Python)",
                    UserWarning,
                    stacklevel=2,
                )
        join = None
        label_name = None
        if labels is not None:
            parsed, join, label_name = _join_system_labels(
                parsed, labels, columns=label_columns, positive=positive, negative=negative
            )
        elif "label" not in parsed.columns:
            raise DataError(
                f"{name}: no 'label' column and no separate labels table; give the gold labels "
                "of some answers in a 'label' column (map it with --map label=COLUMN) or in a "
                "table joined by id (--labels FILE)"
            )
        data = cls.from_frame(parsed)
        return replace(data, origin=read.origin(len(data.items), labels=label_name, join=join))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> SystemsData:
        """Validate a table with columns ``system``, ``label``, ``verdict`` and optional ``item``.

        Parameters
        ----------
        frame : DataFrame
            One row per judged answer. Other columns are ignored.

        Raises
        ------
        DataError
            On a missing column; a blank system, item or verdict; a value that is not 0/1;
            fewer than two systems; an item answered twice by one system (or given two
            different gold labels for one system); a system with no unlabelled answers; or no
            gold-PASS or no gold-FAIL label at all (the judge could not be calibrated). Each
            message names the column, the system, the item and the row(s).

        Examples
        --------
        >>> frame = pd.DataFrame({
        ...     "system": ["a", "b", "a", "b", "a", "b"], "item": [1, 1, 2, 2, 3, 3],
        ...     "label": [1, 0, None, None, 0, 1], "verdict": [1, 0, 1, 0, 0, 1]})
        >>> data = SystemsData.from_frame(frame)
        >>> data.systems, data.paired
        (('a', 'b'), True)
        """
        systems, system_index = _systems_of(
            frame, ("system", "label", "verdict"), what="systems data"
        )
        has_item = "item" in frame.columns
        if has_item:
            items, item_index = _names(frame, "item")
        else:
            items = tuple(f"row {_row(frame, pos)}" for pos in range(len(frame)))
            item_index = np.arange(len(frame), dtype=np.int64)
        label = _binary(frame, "label", allow_missing=True)
        verdict = _binary(frame, "verdict", allow_missing=False).astype(np.int64)
        data = cls(systems, items, system_index, item_index, label, verdict, has_item)
        data._check(frame)
        return data

    def _check(self, frame: pd.DataFrame) -> None:
        key = self.item_index * len(self.systems) + self.system_index
        order = np.argsort(key, kind="stable")
        repeat = np.flatnonzero(np.diff(key[order]) == 0)
        if repeat.size:
            # report a pair with conflicting labels first: it is the more specific fault
            first, second = order[repeat], order[repeat + 1]
            la, lb = self.label[first], self.label[second]
            conflict = ~np.isnan(la) & ~np.isnan(lb) & (la != lb)
            pick = int(np.flatnonzero(conflict)[0]) if conflict.any() else 0
            i, j = int(first[pick]), int(second[pick])
            system = self.systems[self.system_index[i]]
            item = self.items[self.item_index[i]]
            if conflict.any():
                raise DataError(
                    f"column 'label': item {item!r} of system {system!r} has gold label "
                    f"{int(la[pick])} in row {_row(frame, i)} and {int(lb[pick])} in row "
                    f"{_row(frame, j)}; if these are two answers of the item, name the column "
                    "numbering a system's answers with --epoch COL (RepeatedSystemsData in Python)"
                )
            raise DataError(
                f"column 'item': item {item!r} appears twice for system {system!r} (rows "
                f"{_row(frame, i)} and {_row(frame, j)}); each system answers an item once, unless "
                "a column numbers its several answers: name it with --epoch COL "
                "(RepeatedSystemsData in Python)"
            )
        _check_labels(self.label, self.system_index, self.systems)

    @classmethod
    def from_logs(
        cls,
        logs: Sequence[str | os.PathLike[str] | EvalLog],
        *,
        labels: LabelSource,
        label_columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
        judge: str | None = None,
        epochs: Literal["first", "majority", "any", "all"] | None = None,
        partial: Literal["fail", "pass", "drop"] | None = None,
    ) -> SystemsData:
        """Read systems data from evaluation-tool logs: one log per system, or one with several.

        Each log (Inspect AI, promptfoo, lm-evaluation-harness, OpenAI evals; read by
        :func:`bayesjudge.io.logs.read_eval_log`) gives one verdict per item and system
        (:func:`bayesjudge.io.logs.item_verdicts`); the item ids pair the answers of different
        systems. Items without a pass/fail verdict (every epoch errored) are left out and
        counted in ``origin.without_verdict``. A log holds no gold labels, so ``labels`` (a
        table joined by item and system, as in :meth:`read`) is required.

        Parameters
        ----------
        logs : sequence of paths or EvalLog
            The logs; the same system in two logs is refused (each item would be answered
            twice).
        labels, label_columns, positive, negative
            The gold labels and how to read them (see :meth:`read`).
        judge : str, optional
            The scorer, assertion or metric to read (by default each log's only one).
        epochs : {"first", "majority", "any", "all"}, optional
            How several rulings of one item become one verdict.
        partial : {"fail", "pass", "drop"}, optional
            Inspect AI logs: what a partial grade counts as.

        Raises
        ------
        DataError
            Naming the log and the problem, then every check of :meth:`from_frame`.
        """
        from bayesjudge.io.logs import EvalLog, item_verdicts, read_eval_log

        if isinstance(logs, str | os.PathLike | EvalLog):
            logs = [logs]
        if not logs:
            raise DataError("logs: give at least one evaluation log")
        frames, names, tools = [], [], []
        seen: dict[str, str] = {}
        rows = without = 0
        for source in logs:
            log = (
                source.select(judge=judge)
                if isinstance(source, EvalLog)
                else read_eval_log(source, judge=judge, partial=partial)
            )
            names.append(log.path)
            tools.append(log.tool)
            rows += len(log.frame)
            for system in log.systems:
                if system in seen:
                    raise DataError(
                        f"{log.path}: system {system!r} is also in {seen[system]}; each system's "
                        "answers must come from one log"
                    )
                seen[system] = log.path
                verdicts = item_verdicts(log, epochs=epochs, system=system, judge=judge)
                judged = verdicts["verdict"].notna().to_numpy()
                without += int((~judged).sum())
                frames.append(
                    pd.DataFrame(
                        {
                            "system": system,
                            "item": verdicts["item"].to_numpy()[judged],
                            "verdict": verdicts["verdict"].to_numpy()[judged],
                        }
                    )
                )
        answers = pd.concat(frames, ignore_index=True)
        answers.index = pd.RangeIndex(1, len(answers) + 1, name="answer")
        joined, join, label_name = _join_system_labels(
            answers, labels, columns=label_columns, positive=positive, negative=negative
        )
        data = cls.from_frame(joined)
        origin = InputReport(
            source=names[0] if len(names) == 1 else f"{len(names)} logs",
            format=tools[0] if len(set(tools)) == 1 else "eval logs",
            rows=rows,
            items=len(data.items),
            files=len(names),
            labels=label_name,
            join=join,
            epochs=epochs,
            without_verdict=without,
        )
        return replace(data, origin=origin)

    # ---- views
    @property
    def n_rows(self) -> int:
        """Number of rows (judged answers)."""
        return int(self.verdict.size)

    @property
    def paired(self) -> bool:
        """Whether some item was answered by two or more systems."""
        if not self.has_item:
            return False
        per_item = np.bincount(self.item_index, minlength=len(self.items))
        return bool(np.any(per_item > 1))

    @property
    def labelled_systems(self) -> tuple[str, ...]:
        """The systems with at least one gold-labelled answer."""
        labelled = ~np.isnan(self.label)
        present = np.unique(self.system_index[labelled])
        return tuple(self.systems[s] for s in present)

    def _system_positions(self, systems: Sequence[str] | None) -> tuple[tuple[str, ...], list[int]]:
        if systems is None:
            return self.systems, list(range(len(self.systems)))
        names = tuple(str(s) for s in systems)
        unknown = [s for s in names if s not in self.systems]
        if unknown:
            raise DataError(f"unknown system(s) {unknown}; the data have {list(self.systems)}")
        if len(set(names)) != len(names):
            raise DataError(f"systems must be distinct; got {list(names)}")
        return names, [self.systems.index(s) for s in names]

    def states(self, systems: Sequence[str] | None = None) -> NDArray[np.int8]:
        """Return the state matrix, shape (items, systems): one code of :data:`STATES` each.

        Items that none of the chosen systems answered are dropped.

        Examples
        --------
        >>> frame = pd.DataFrame({"system": ["a", "b", "a", "b", "a"], "item": [1, 1, 2, 3, 4],
        ...                       "label": [1, None, 0, None, None], "verdict": [1, 0, 0, 1, 1]})
        >>> SystemsData.from_frame(frame).states().tolist()
        [[6, 1], [3, 0], [0, 2], [2, 0]]
        """
        names, positions = self._system_positions(systems)
        column = np.full(len(self.systems), -1, dtype=np.int64)
        column[positions] = np.arange(len(positions))
        keep = column[self.system_index] >= 0
        state = np.zeros((len(self.items), len(names)), dtype=np.int8)
        codes = state_code(self.label[keep], self.verdict[keep])
        state[self.item_index[keep], column[self.system_index[keep]]] = codes
        answered = np.zeros(len(self.items), dtype=bool)
        answered[self.item_index[keep]] = True
        return state[answered]

    def patterns(self, systems: Sequence[str] | None = None) -> Patterns:
        """Return the distinct state rows of the chosen systems and their item counts.

        Examples
        --------
        >>> frame = pd.DataFrame({"system": ["a", "b"] * 4, "item": [1, 1, 2, 2, 3, 3, 4, 4],
        ...                       "label": [1, 0] + [None] * 6,
        ...                       "verdict": [1, 0, 1, 1, 1, 1, 0, 1]})
        >>> p = SystemsData.from_frame(frame).patterns()
        >>> p.state.tolist(), p.count.tolist()
        ([[1, 2], [2, 2], [6, 3]], [1, 2, 1])
        """
        names, _ = self._system_positions(systems)
        state = self.states(names)
        unique, count = np.unique(state, axis=0, return_counts=True)
        return Patterns(names, unique.astype(np.int8), count.astype(np.int64))

    def system_counts(self, systems: Sequence[str] | None = None) -> SystemCounts:
        """Return ``m1, x1, m0, x0, n, k`` for each chosen system.

        Examples
        --------
        >>> frame = pd.DataFrame({"system": ["a", "a", "b", "b"], "label": [1, None, 0, None],
        ...                       "verdict": [1, 1, 1, 0]})
        >>> SystemsData.from_frame(frame).system_counts().x0.tolist()
        [0, 1]
        """
        names, positions = self._system_positions(systems)
        size = len(self.systems)
        labelled = ~np.isnan(self.label)
        passed = self.verdict == 1

        def tally(mask: NDArray[np.bool_]) -> NDArray[np.int64]:
            full = np.bincount(self.system_index[mask], minlength=size).astype(np.int64)
            return full[positions]

        return SystemCounts(
            names,
            m1=tally(labelled & (self.label == 1)),
            x1=tally(labelled & (self.label == 1) & passed),
            m0=tally(labelled & (self.label == 0)),
            x0=tally(labelled & (self.label == 0) & passed),
            n=tally(~labelled),
            k=tally(~labelled & passed),
        )

    def _pair(self, a: str | None, b: str | None) -> tuple[str, str]:
        a = self.systems[0] if a is None else str(a)
        b = self.systems[1] if b is None else str(b)
        self._system_positions((a, b))
        return a, b

    def paired_items(self, *, a: str | None = None, b: str | None = None) -> PairedItems:
        """Return the items shared by systems ``a`` and ``b``, split by what is labelled.

        Items labelled for only one of the two are left out (they are neither a calibration pair
        for a difference nor unlabelled for both).

        Examples
        --------
        >>> frame = pd.DataFrame({"system": ["a", "b"] * 3, "item": [1, 1, 2, 2, 3, 3],
        ...                       "label": [1, 0, None, None, 1, None],
        ...                       "verdict": [1, 0, 1, 0, 1, 1]})
        >>> pairs = SystemsData.from_frame(frame).paired_items()
        >>> pairs.label.tolist(), pairs.unlabelled_verdict.tolist()
        ([[1, 0]], [[1, 0]])
        """
        a, b = self._pair(a, b)
        state = self.states((a, b)).astype(np.int64)
        both = (state[:, 0] != MISSING) & (state[:, 1] != MISSING)
        labelled = state >= GOLD_FAIL_JUDGED_FAIL
        full = state[both & labelled.all(axis=1)] - GOLD_FAIL_JUDGED_FAIL
        open_ = state[both & ~labelled.any(axis=1)] - UNLABELLED_FAIL
        return PairedItems((a, b), full // 2, full % 2, open_)

    def paired_table(self, *, a: str | None = None, b: str | None = None) -> NDArray[np.int64]:
        """Return the 2 x 2 table of joint verdicts on the items unlabelled for ``a`` and ``b``.

        Entry ``[i, j]`` counts the items with verdict ``i`` for ``a`` and ``j`` for ``b``.

        Examples
        --------
        >>> frame = pd.DataFrame({"system": ["a", "b"] * 3, "item": [1, 1, 2, 2, 3, 3],
        ...                       "label": [1, 0, None, None, None, None],
        ...                       "verdict": [1, 0, 1, 0, 0, 1]})
        >>> SystemsData.from_frame(frame).paired_table().tolist()
        [[0, 1], [1, 0]]
        """
        verdicts = self.paired_items(a=a, b=b).unlabelled_verdict
        table = np.zeros((2, 2), dtype=np.int64)
        np.add.at(table, (verdicts[:, 0], verdicts[:, 1]), 1)
        return table

    def __repr__(self) -> str:
        design = "paired" if self.paired else "unpaired"
        return (
            f"SystemsData({len(self.systems)} systems, {len(self.items)} items, "
            f"{self.n_rows} rows, {design}, labelled systems {list(self.labelled_systems)})"
        )


def _join_system_labels(
    results: pd.DataFrame,
    labels: LabelSource,
    *,
    columns: Mapping[str, str] | None,
    positive: Sequence[str],
    negative: Sequence[str],
) -> tuple[pd.DataFrame, JoinReport, str]:
    """Join a gold-label table to systems data by (item, system), or by item when unpaired."""
    table = read_table(labels, argument="labels")
    label_name = str(table.attrs.get("source", "labels"))
    gold = conform(
        table,
        SYSTEM_LABEL_FIELDS,
        columns=columns,
        positive=positive,
        negative=negative,
        option="--labels-map",
    )
    if "item" not in results.columns:
        raise DataError(
            "data: gold labels in a separate table are joined by id, but the data have no "
            "'item' column; name it with --map item=COLUMN (columns= in Python)"
        )
    if "label" in results.columns and results["label"].notna().any():
        raise DataError(
            "data: the data already carry gold labels in column 'label'; give labels in one "
            "place only"
        )
    results = results.drop(columns=[c for c in ("label",) if c in results.columns])
    if "system" in gold.columns:
        keyed = results.assign(
            item=[
                _ANSWER.format(item=i, system=s)
                for i, s in zip(results["item"], results["system"], strict=True)
            ],
            _item=results["item"],
        )
        gold = gold.assign(
            item=[
                _ANSWER.format(item=i, system=s)
                for i, s in zip(gold["item"], gold["system"], strict=True)
            ]
        )[["item", "label"]]
        joined, join = join_labels(keyed, gold)
        joined = joined.assign(item=joined["_item"]).drop(columns=["_item"])
        return joined, join, label_name
    shared = results["item"].duplicated(keep=False)
    if shared.any():
        example = results.loc[shared, "item"].iloc[0]
        raise DataError(
            f"{label_name}: the labels table has no 'system' column, but item {example!r} of "
            "the data was answered by several systems, so a label by item alone does not say "
            "whose answer it grades; add a 'system' column to the labels (map it with "
            "--labels-map system=COLUMN)"
        )
    joined, join = join_labels(results, gold[["item", "label"]])
    return joined, join, label_name
