r"""The data of two judge versions: their verdicts on shared items, paired by item id.

:class:`JudgeVersions` is the validated data: the items both judges gave a verdict on, each
with its two verdicts (1 PASS, 0 FAIL) and a gold label (NaN for unlabelled items). Items that
only one judge answered (or neither: an errored sample) are kept by id in
:attr:`~JudgeVersions.only_old`, :attr:`~JudgeVersions.only_new` and
:attr:`~JudgeVersions.neither`, and shown in every output; they are never dropped silently.
:func:`load_judge_versions` reads one table with two verdict columns, two tables (OLD, NEW)
joined by item id, one evaluation log with two scorers, or two logs, and joins gold labels kept
in a separate sheet by id (:func:`bayesjudge.io.join_labels`). The analysis is
:func:`bayesjudge.batches.versions.compare_judges`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bayesjudge.errors import DataError
from bayesjudge.io.labels import JoinReport, join_labels, read_labels
from bayesjudge.io.mapping import Field, conform
from bayesjudge.io.problems import row_names

__all__ = ["JudgeVersions", "load_judge_versions"]

_SHOWN = 5

type Source = pd.DataFrame | str | os.PathLike[str] | IO[bytes]


def _shown(ids: Sequence[object]) -> str:
    head = ", ".join(repr(i) for i in list(ids)[:_SHOWN])
    rest = len(ids) - _SHOWN
    return head + (f", and {rest} more" if rest > 0 else "")


@dataclass(frozen=True, slots=True, eq=False)
class JudgeVersions:
    """Two judges' verdicts on shared items, paired by item id, with gold labels on some.

    Build it with :meth:`from_frame` (one table with two verdict columns),
    :meth:`from_verdicts` (one verdict table per judge, joined by id) or
    :func:`load_judge_versions` (files and evaluation logs).

    Attributes
    ----------
    items : tuple of str
        The items both judges gave a verdict on, in order of first appearance.
    old, new : ndarray of float, shape (items,)
        The two judges' verdicts, 1.0 PASS and 0.0 FAIL.
    labels : ndarray of float, shape (items,)
        Gold label 1.0 / 0.0, NaN for unlabelled items.
    names : tuple of (str, str)
        The old and the new judge's names (columns, scorers, or ``"old"``/``"new"``).
    only_old, only_new : tuple of str
        Items only the old (new) judge gave a verdict on: not paired, so left out of the
        comparison, and listed in every output.
    neither : tuple of str
        Items neither judge gave a verdict on (e.g. a sample that errored).
    unpaired_labelled : int
        Gold-labelled items among ``only_old``, ``only_new`` and ``neither``.
    source : str
        What was read.
    join : JoinReport or None
        The label join, when gold labels came from a separate sheet.

    Examples
    --------
    >>> frame = pd.DataFrame({"item": ["a", "b", "c"], "v1": [1, 0, 1], "v2": [1, None, 0],
    ...                       "label": [1, None, None]})
    >>> data = JudgeVersions.from_frame(frame, old="v1", new="v2")
    >>> data.items, data.names, data.only_old
    (('a', 'c'), ('v1', 'v2'), ('b',))
    """

    items: tuple[str, ...]
    old: NDArray[np.float64]
    new: NDArray[np.float64]
    labels: NDArray[np.float64]
    names: tuple[str, str] = ("old", "new")
    only_old: tuple[str, ...] = ()
    only_new: tuple[str, ...] = ()
    neither: tuple[str, ...] = ()
    unpaired_labelled: int = 0
    source: str = "data"
    join: JoinReport | None = None

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        *,
        old: str,
        new: str,
        item: str = "item",
        label: str | None = "label",
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
    ) -> JudgeVersions:
        """Read one table with one row per item and one verdict column per judge.

        Verdicts and labels may be spelled as :mod:`bayesjudge.io.mapping` reads them
        (``PASS``/``FAIL``, ``yes``/``no``, ``1``/``0``, ...); a blank verdict means the judge
        gave none on that item.

        Parameters
        ----------
        frame : DataFrame
            The table.
        old, new : str
            The verdict columns of the old and the new judge (their names name the judges).
        item : str
            The item-id column.
        label : str or None
            The gold-label column (blank for unlabelled items), if the table has one.
        positive, negative : sequence of str
            Extra PASS and FAIL spellings.

        Raises
        ------
        DataError
            Naming the column and row of a bad value, a repeated item id, or the same column
            given as both judges.
        """
        merged = _one_table(
            frame, old=old, new=new, item=item, label=label, positive=positive, negative=negative
        )
        return cls._from_joined(
            merged, names=(old, new), source=str(frame.attrs.get("source", "data"))
        )

    @classmethod
    def from_verdicts(
        cls,
        old: pd.DataFrame,
        new: pd.DataFrame,
        *,
        names: tuple[str, str] = ("old", "new"),
        source: str = "data",
    ) -> JudgeVersions:
        """Pair two verdict tables by item id (an outer join: no item is lost).

        Parameters
        ----------
        old, new : DataFrame
            Conformed tables (see :func:`bayesjudge.io.conform`): ``item`` (text), ``verdict``
            (1.0/0.0, NaN for none) and optionally ``label``; one row per item.
        names : (str, str)
            The judges' names.
        source : str
            What was read, for messages.

        Raises
        ------
        DataError
            On an item given twice in one table (naming its rows), or an item whose gold
            labels in the two tables disagree.

        Examples
        --------
        >>> old = pd.DataFrame({"item": ["a", "b"], "verdict": [1.0, 0.0]})
        >>> new = pd.DataFrame({"item": ["b", "c"], "verdict": [1.0, 1.0]})
        >>> data = JudgeVersions.from_verdicts(old, new)
        >>> data.items, data.only_old, data.only_new
        (('b',), ('a',), ('c',))
        """
        return cls._from_joined(_merge(old, new, names=names), names=names, source=source)

    @classmethod
    def _from_joined(
        cls,
        frame: pd.DataFrame,
        *,
        names: tuple[str, str],
        source: str,
        join: JoinReport | None = None,
    ) -> JudgeVersions:
        """Split a table of (item, old, new[, label]) into paired and unpaired items."""
        if frame.empty:
            raise DataError(f"{source}: no items")
        items = frame["item"].astype(str).to_numpy(dtype=object)
        old = frame["old"].to_numpy(dtype=float)
        new = frame["new"].to_numpy(dtype=float)
        labels = (
            frame["label"].to_numpy(dtype=float)
            if "label" in frame.columns
            else np.full(len(frame), np.nan)
        )
        has_old, has_new = ~np.isnan(old), ~np.isnan(new)
        paired = has_old & has_new
        if not paired.any():
            raise DataError(
                f"{source}: no item has a verdict from both judges ({names[0]!r} on "
                f"{int(has_old.sum())} item(s), {names[1]!r} on {int(has_new.sum())}); check "
                "that both read the same items and that their ids agree"
            )

        def frozen(values: NDArray[np.float64]) -> NDArray[np.float64]:
            out = np.array(values, dtype=np.float64)
            out.flags.writeable = False
            return out

        return cls(
            items=tuple(str(i) for i in items[paired]),
            old=frozen(old[paired]),
            new=frozen(new[paired]),
            labels=frozen(labels[paired]),
            names=(str(names[0]), str(names[1])),
            only_old=tuple(str(i) for i in items[has_old & ~has_new]),
            only_new=tuple(str(i) for i in items[has_new & ~has_old]),
            neither=tuple(str(i) for i in items[~has_old & ~has_new]),
            unpaired_labelled=int((~paired & ~np.isnan(labels)).sum()),
            source=source,
            join=join,
        )

    @property
    def n_items(self) -> int:
        """Number of paired items."""
        return len(self.items)

    @property
    def n_labelled(self) -> tuple[int, int]:
        """Numbers of paired gold-FAIL and gold-PASS items, in that order."""
        return int((self.labels == 0.0).sum()), int((self.labels == 1.0).sum())

    @property
    def n_unlabelled(self) -> int:
        """Number of paired items without a gold label."""
        return int(np.isnan(self.labels).sum())

    def tables(self) -> NDArray[np.int64]:
        """Return the paired 2x2 tables, shape (3, 2, 2): class x old verdict x new verdict.

        The classes are :data:`bayesjudge.batches.versions.CLASSES` (gold PASS, gold FAIL,
        unlabelled).

        Examples
        --------
        >>> data = JudgeVersions.from_verdicts(
        ...     pd.DataFrame({"item": ["a", "b", "c"], "verdict": [1.0, 1.0, 0.0],
        ...                   "label": [1.0, 1.0, None]}),
        ...     pd.DataFrame({"item": ["a", "b", "c"], "verdict": [1.0, 0.0, 0.0]}))
        >>> data.tables()[0].tolist(), data.tables()[2].tolist()
        ([[0, 0], [1, 1]], [[1, 0], [0, 0]])
        """
        out = np.zeros((3, 2, 2), dtype=np.int64)
        klass = np.where(np.isnan(self.labels), 2, np.where(self.labels == 1.0, 0, 1))
        np.add.at(out, (klass, self.old.astype(int), self.new.astype(int)), 1)
        return out

    def input_dict(self) -> dict[str, Any]:
        """Return what was read and paired, for the ``input`` block of the JSON output."""
        n_fail, n_pass = self.n_labelled
        return {
            "source": self.source,
            "judges": {"old": self.names[0], "new": self.names[1]},
            "paired": self.n_items,
            "gold_pass": n_pass,
            "gold_fail": n_fail,
            "unlabelled": self.n_unlabelled,
            "only_old": list(self.only_old),
            "only_new": list(self.only_new),
            "neither": list(self.neither),
            "unpaired_labelled": self.unpaired_labelled,
            "join": None if self.join is None else self.join.to_dict(),
        }

    def unpaired_note(self) -> str | None:
        """Say which items were left out of the pairing, or None when none was."""
        parts = []
        for name, ids in (
            (f"only {self.names[0]!r}", self.only_old),
            (f"only {self.names[1]!r}", self.only_new),
            ("neither judge", self.neither),
        ):
            if ids:
                parts.append(f"{len(ids)} item(s) judged by {name}: {_shown(ids)}")
        if not parts:
            return None
        labelled = (
            f" ({self.unpaired_labelled} of them gold-labelled)" if self.unpaired_labelled else ""
        )
        return "not paired, so left out" + labelled + ": " + "; ".join(parts)


def _one_table(
    frame: pd.DataFrame,
    *,
    old: str,
    new: str,
    item: str,
    label: str | None,
    positive: Sequence[str],
    negative: Sequence[str],
    strict: bool = False,
) -> pd.DataFrame:
    """Conform a table with two verdict columns to (item, old, new[, label])."""
    if old == new:
        raise DataError(f"old and new name the same column {old!r}; name two judges")
    if "label" in (old, new) or item in (old, new):
        raise DataError(f"old and new must be verdict columns, not the item or label; got {old!r}")
    columns = {"item": item}
    # the verdict columns are read under their own names, so that messages name them
    fields = [
        Field("item", "text"),
        Field(old, "binary", missing=True),
        Field(new, "binary", missing=True),
    ]
    if label is not None and label in frame.columns:
        columns["label"] = label
        fields.append(Field("label", "binary", missing=True))
    conformed = conform(
        frame, fields, columns=columns, positive=positive, negative=negative, strict=strict
    )
    _check_unique(conformed, what=f"column {item!r}")
    return conformed.rename(columns={old: "old", new: "new"})


def _merge(old: pd.DataFrame, new: pd.DataFrame, *, names: tuple[str, str]) -> pd.DataFrame:
    """Outer-join two conformed verdict tables by item id to (item, old, new[, label])."""
    if names[0] == names[1]:
        raise DataError(f"names: both judges are called {names[0]!r}; give two names")
    for name, table in zip(names, (old, new), strict=True):
        missing = [c for c in ("item", "verdict") if c not in table.columns]
        if missing:
            raise DataError(f"judge {name!r}: the table has no column(s) {missing}")
        _check_unique(table, what=f"judge {name!r}: column 'item'")
    parts = []
    for suffix, table in (("old", old), ("new", new)):
        keep = ["item", "verdict", *(["label"] if "label" in table.columns else [])]
        part = table[keep].assign(item=table["item"].astype(str))
        parts.append(part.rename(columns={"verdict": suffix, "label": f"label_{suffix}"}))
    merged = parts[0].merge(parts[1], on="item", how="outer", sort=False)
    given = [c for c in ("label_old", "label_new") if c in merged.columns]
    if len(given) == 2:
        a, b = (merged[c].to_numpy(dtype=float) for c in given)
        clash = ~np.isnan(a) & ~np.isnan(b) & (a != b)
        if clash.any():
            ids = merged.loc[clash, "item"].tolist()
            raise DataError(
                f"the gold labels of the two tables disagree on {int(clash.sum())} item(s): "
                f"{_shown(ids)}; keep the labels in one place (or a separate --labels sheet)"
            )
        merged["label"] = np.where(np.isnan(a), b, a)
        merged = merged.drop(columns=given)
    elif given:
        merged = merged.rename(columns={given[0]: "label"})
    return merged


def _check_unique(frame: pd.DataFrame, *, what: str) -> None:
    ids = frame["item"].astype(str)
    repeated = ids.duplicated(keep=False).to_numpy()
    if repeated.any():
        first = np.flatnonzero(repeated)
        item = ids.iloc[first[0]]
        rows = np.flatnonzero((ids == item).to_numpy())
        where = ", ".join(row_names(frame.index, rows[:3]))
        raise DataError(
            f"{what}: item {item!r} appears more than once ({where}); "
            "keep one verdict per item and judge (an eval log with epochs: --epochs)"
        )


def _log_verdicts(
    path: str | os.PathLike[str],
    *,
    judge: str | None,
    partial: str | None,
    epochs: str | None,
    system: str | None,
    options: Mapping[str, str | None],
) -> pd.DataFrame:
    """Return one verdict per item (columns item, verdict) of one judge of an eval log."""
    from bayesjudge.io.logs import item_verdicts, read_eval_log

    log = read_eval_log(path, judge=judge, partial=partial, **options)  # type: ignore[arg-type]
    log = log.select(system=system)
    verdicts = item_verdicts(log, epochs=epochs)  # type: ignore[arg-type]
    return verdicts[["item", "verdict"]]


def _table_verdicts(
    source: Source,
    *,
    columns: Mapping[str, str] | None,
    positive: Sequence[str],
    negative: Sequence[str],
    format: str,
    strict: bool,
) -> pd.DataFrame:
    from bayesjudge.io.tables import read_table

    table = read_table(source, format=format, argument="judge verdicts")  # type: ignore[arg-type]
    fields = [
        Field("item", "text"),
        Field("verdict", "binary", missing=True),
        Field("label", "binary", required=False, missing=True),
    ]
    return conform(
        table, fields, columns=columns, positive=positive, negative=negative, strict=strict
    )


def _is_log(source: Source, format: str) -> bool:
    from bayesjudge.io.source import log_tool

    return log_tool(source, format=format) is not None  # type: ignore[arg-type]


def load_judge_versions(
    old: Source,
    new: Source | None = None,
    *,
    old_judge: str | None = None,
    new_judge: str | None = None,
    labels: Source | None = None,
    columns: Mapping[str, str] | None = None,
    label_columns: Mapping[str, str] | None = None,
    positive: Sequence[str] = (),
    negative: Sequence[str] = (),
    partial: str | None = None,
    epochs: str | None = None,
    system: str | None = None,
    filter: str | None = None,
    item_field: str | None = None,
    strict: bool = False,
    format: str = "auto",
) -> JudgeVersions:
    r"""Read two judges' verdicts on shared items, and gold labels, from files or logs.

    * **one table** (``new`` omitted, ``old_judge`` and ``new_judge`` name two verdict columns):
      one row per item, an ``item`` column (``columns={"item": "id"}``) and optionally
      ``label``;
    * **one evaluation log** (``new`` omitted; ``old_judge`` and ``new_judge`` name two scorers
      of an Inspect AI log, or two judges of another tool's log);
    * **two tables** (``old`` and ``new``: each with ``item`` and ``verdict`` columns, optionally
      ``label``), joined by item id;
    * **two logs**, each read with its judge (``old_judge`` / ``new_judge``, by default its
      only one).

    Gold labels kept in a separate sheet (``labels``: columns ``item``, ``label``) are joined by
    id exactly as ``bayesjudge estimate --labels`` does (:func:`bayesjudge.io.join_labels`):
    ids compared as text, a repeated label id refused, label ids absent from the verdicts warned
    of. Items only one judge answered are listed, never dropped silently
    (:class:`JudgeVersions`).

    Parameters
    ----------
    old, new : path, binary file or DataFrame
        The data (see above).
    old_judge, new_judge : str, optional
        The verdict columns (one table), scorers (one log) or judges of each log.
    labels : path, binary file or DataFrame, optional
        Gold labels apart.
    columns : mapping, optional
        ``{name: column}`` of the verdict tables (``item``, ``verdict``, ``label``).
    label_columns : mapping, optional
        Column mapping of the labels table.
    positive, negative : sequence of str
        Extra PASS and FAIL spellings.
    partial : {"fail", "pass", "drop"}, optional
        Inspect logs: what a partial grade counts as.
    epochs : {"first", "majority", "any", "all"}, optional
        Eval logs: how several rulings of one item become one verdict.
    system : str, optional
        Eval logs: the model to read, when a log holds several.
    filter, item_field : str, optional
        lm-eval logs: the filter; promptfoo and lm-eval logs: the item id field
        (see :func:`bayesjudge.io.logs.read_eval_log`).
    strict : bool
        Tables: reject columns the contract does not read.
    format : str
        The format of the data files (``"auto"``: recognised).

    Returns
    -------
    JudgeVersions

    Raises
    ------
    DataError
        Naming the file, column and row of every problem.

    Examples
    --------
    >>> import io
    >>> text = b"item,judge_v1,judge_v2\na,PASS,PASS\nb,FAIL,PASS\nc,FAIL,FAIL\n"
    >>> gold = b"item,label\na,1\nb,0\n"
    >>> data = load_judge_versions(io.BytesIO(text), old_judge="judge_v1",
    ...                            new_judge="judge_v2", labels=io.BytesIO(gold))
    >>> data.n_labelled, data.n_unlabelled
    ((1, 1), 1)
    """
    mapping = dict(columns or {})
    options = {k: v for k, v in (("filter", filter), ("item_field", item_field)) if v is not None}
    if new is None:
        if old_judge is None or new_judge is None:
            raise DataError(
                "one data file holds both judges: name them with --old and --new (old_judge= "
                "and new_judge= in Python): two verdict columns, or two scorers of a log"
            )
        names = (old_judge, new_judge)
        if _is_log(old, format):
            path = _log_path(old)
            first = _log_verdicts(
                path,
                judge=old_judge,
                partial=partial,
                epochs=epochs,
                system=system,
                options=options,
            )
            second = _log_verdicts(
                path,
                judge=new_judge,
                partial=partial,
                epochs=epochs,
                system=system,
                options=options,
            )
            merged = _merge(first, second, names=names)
            source = os.fspath(path)
        else:
            from bayesjudge.io.tables import read_table

            table = read_table(old, format=format, argument="judge verdicts")  # type: ignore[arg-type]
            merged = _one_table(
                table,
                old=old_judge,
                new=new_judge,
                item=mapping.get("item", "item"),
                label=mapping.get("label", "label"),
                positive=positive,
                negative=negative,
                strict=strict,
            )
            source = str(table.attrs.get("source", "data"))
    else:
        frames: list[pd.DataFrame] = []
        sources: list[str] = []
        for given, judge in ((old, old_judge), (new, new_judge)):
            if _is_log(given, format):
                path = _log_path(given)
                frame = _log_verdicts(
                    path,
                    judge=judge,
                    partial=partial,
                    epochs=epochs,
                    system=system,
                    options=options,
                )
                sources.append(os.fspath(path))
            else:
                one = mapping if judge is None else {**mapping, "verdict": judge}
                frame = _table_verdicts(
                    given,
                    columns=one,
                    positive=positive,
                    negative=negative,
                    format=format,
                    strict=strict,
                )
                sources.append(str(frame.attrs.get("source", "data")))
            frames.append(frame)
        names = ("old", "new")
        merged = _merge(frames[0], frames[1], names=names)
        source = " and ".join(sources)
    join = None
    if labels is not None:
        merged, join = _with_labels(merged, labels, label_columns, positive, negative)
    return JudgeVersions._from_joined(merged, names=names, source=source, join=join)


def _log_path(source: Source) -> str | os.PathLike[str]:
    if not isinstance(source, str | os.PathLike):
        raise DataError("an eval log is read from a file path, not a table or a stream")
    return source


def _with_labels(
    frame: pd.DataFrame,
    labels: Source,
    label_columns: Mapping[str, str] | None,
    positive: Sequence[str],
    negative: Sequence[str],
) -> tuple[pd.DataFrame, JoinReport]:
    """Join gold labels kept apart onto the (item, old, new) table, by id."""
    if "label" in frame.columns and frame["label"].notna().any():
        raise DataError(
            "the verdicts already carry gold labels in a 'label' column; give labels in one "
            "place only (drop the column or the --labels sheet)"
        )
    gold = read_labels(labels, columns=label_columns, positive=positive, negative=negative)
    return join_labels(frame.drop(columns="label", errors="ignore"), gold)
