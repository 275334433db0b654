"""The data contracts of the retry-gate family: repeated rulings and revise-then-rejudge logs.

* :class:`Rulings` - repeated judge rulings per item (long format, or an evaluation tool's log
  whose epochs or repeats are the rulings), aggregated per item;
* :class:`LoopLog` - loop logs (item, attempt, verdict, correct).

Both read through the input layer (:mod:`bayesjudge.io`): any table format, the user's column
names (``columns=``) and PASS/FAIL spellings (``positive=``, ``negative=``), every problem of
the input reported at once with the file line it is on. Ids are text: ``"007"`` and ``"7"`` are
two items. Past this module nothing re-checks.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import IO, TYPE_CHECKING

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError
from bayesjudge.io._judged import read_judged
from bayesjudge.io.groups import GroupCheck
from bayesjudge.io.labels import join_labels, read_labels
from bayesjudge.io.mapping import Field
from bayesjudge.io.problems import Problems, report_inconsistent, report_repeated
from bayesjudge.io.source import InputFormat, InputReport, check_format, log_tool
from bayesjudge.io.tables import TableLike

if TYPE_CHECKING:
    from bayesjudge.io.logs import EvalLog

__all__ = ["LoopLog", "Rulings"]

RULING_FIELDS = (
    Field("item", "text"),
    Field("verdict", "binary"),
    Field("label", "binary", required=False, missing=True),
    Field("slice", "text", required=False),
    Field("ruling", "whole", required=False),
)
LOOP_FIELDS = (
    Field("item", "text"),
    Field("attempt", "whole", minimum=1),
    Field("verdict", "binary"),
    Field("correct", "binary"),
)
type LabelSource = pd.DataFrame | str | os.PathLike[str] | IO[bytes]
_SHOWN = 5


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
    sequence : tuple of (ndarray of str, ndarray of float) or None
        Every ruling in order (by the ``ruling`` column when there is one, else by row): the
        item of each ruling and its verdict; what the lag-1 independence check reads.
    origin : InputReport or None
        What was read and how (file, format, column mapping, label join).
    """

    items: np.ndarray
    r: np.ndarray
    k: np.ndarray
    label: np.ndarray
    slice: np.ndarray | None = None
    sequence: tuple[np.ndarray, np.ndarray] | None = None
    origin: InputReport | None = None

    @classmethod
    def from_frame(
        cls,
        frame: TableLike | EvalLog,
        *,
        strict: bool = False,
        allow_duplicates: bool = True,
        format: InputFormat = "auto",
        columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
        labels: LabelSource | None = None,
        label_columns: Mapping[str, str] | None = None,
    ) -> Rulings:
        """Validate rulings in long format: ``item``, ``verdict``, optional ``label``, ``slice``.

        One row per ruling. An optional ``ruling`` column (whole numbers) numbers the rulings
        of an item; with it, or with ``allow_duplicates=False``, a repeated (item, ruling) row
        is an error. The gold label and the slice, when given, must be the same on every row
        of an item. An evaluation tool's log (a path, or an
        :class:`~bayesjudge.io.logs.EvalLog` of one system and one judge) gives one ruling per
        epoch or repeat, numbered by its epoch; rulings without a pass/fail verdict (errors,
        unscored) are left out and counted in :attr:`origin`.

        Parameters
        ----------
        frame : DataFrame, path, ``"-"``, binary file or EvalLog
            The rulings.
        strict : bool
            If true, a column none of these names reads is an error.
        allow_duplicates : bool
            If false, a ``ruling`` column is required.
        format : {"auto", "csv", "tsv", "jsonl", "parquet", "inspect", "promptfoo", "lm_eval", \
"openai_evals"}
            The format of a path (see :meth:`bayesjudge.JudgeData.from_frame`).
        columns : mapping, optional
            ``{name: column of the table}``, e.g. ``{"item": "sample_id"}``.
        positive, negative : sequence of str
            Extra PASS and FAIL spellings.
        labels : DataFrame or path, optional
            Gold labels in a separate table (``item``, ``label``), joined by id onto every
            ruling of the item (required for an eval log).
        label_columns : mapping, optional
            Column mapping of the labels table.

        Raises
        ------
        DataError
            Listing every problem at once: a missing or unknown column, a verdict or label that
            is not PASS/FAIL, a blank item, verdict or slice, text in the ``ruling`` column, a
            duplicated ruling, an item whose label or slice differs between its rows; then a
            label join that does not match.

        Examples
        --------
        >>> import pandas as pd
        >>> t = pd.DataFrame({"item": ["a", "a", "b"], "verdict": [1, 0, 0], "label": [1, 1, None]})
        >>> Rulings.from_frame(t).k
        array([1, 0])
        """
        check_format(format)
        tool = log_tool(frame, format=format)
        if tool is not None:
            return _rulings_from_log(
                frame,
                tool=tool,
                columns=columns,
                positive=positive,
                negative=negative,
                labels=labels,
                label_columns=label_columns,
            )
        read = read_judged(
            frame,  # type: ignore[arg-type]  # an eval log went to _rulings_from_log
            RULING_FIELDS,
            argument="rulings",
            format=format,
            columns=columns,
            positive=positive,
            negative=negative,
            strict=strict,
            groups=GroupCheck(named_only=True),
        )
        parsed, problems, origin = read.parsed, read.problems, read.origin(0)
        if "ruling" not in read.columns and not allow_duplicates:
            problems.add(
                "duplicate rulings are not allowed here, so a 'ruling' column numbering each "
                "item's rulings is required"
            )
        problems.raise_if_any()
        if labels is not None:
            gold = read_labels(labels, columns=label_columns, positive=positive, negative=negative)
            parsed, join = join_labels(parsed, gold, repeats="keep")
            origin = replace(origin, labels=str(gold.attrs.get("source", "labels")), join=join)
        return _aggregate(parsed, problems=problems, origin=origin)

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


def _aggregate(parsed: pd.DataFrame, *, problems: Problems, origin: InputReport) -> Rulings:
    """Check the per-item rules and sum the rulings of each item."""
    if "label" not in parsed.columns:
        parsed = parsed.assign(label=np.nan)
    codes, items = pd.factorize(parsed["item"], sort=False)
    order = np.arange(len(parsed))
    if "ruling" in parsed.columns:
        report_repeated(parsed, ["item", "ruling"], what="ruling", problems=problems)
        order = np.argsort(parsed["ruling"].to_numpy(), kind="stable")
    report_inconsistent(parsed, codes, "label", problems=problems)
    if "slice" in parsed.columns:
        report_inconsistent(parsed, codes, "slice", problems=problems)
    problems.raise_if_any()
    first = pd.Series(codes).drop_duplicates().index.to_numpy()
    verdict = parsed["verdict"].to_numpy(dtype=float)
    r = np.bincount(codes, minlength=len(items))
    k = np.bincount(codes, weights=verdict, minlength=len(items)).astype(int)
    item_ids = parsed["item"].to_numpy(dtype=object).astype(str)
    slices = None
    if "slice" in parsed.columns:
        slices = parsed["slice"].to_numpy(dtype=object).astype(str)[first]
    report = replace(origin, items=len(items))
    return Rulings(
        items=np.asarray(items, dtype=object).astype(str),
        r=r,
        k=k,
        label=parsed["label"].to_numpy(dtype=float)[first],
        slice=slices,
        sequence=(item_ids[order], verdict[order]),
        origin=report,
    )


def _rulings_from_log(
    source: TableLike | EvalLog,
    *,
    tool: str,
    columns: Mapping[str, str] | None,
    positive: Sequence[str],
    negative: Sequence[str],
    labels: LabelSource | None,
    label_columns: Mapping[str, str] | None,
) -> Rulings:
    from bayesjudge.io.logs import EvalLog, read_eval_log, rulings

    log = source if isinstance(source, EvalLog) else read_eval_log(source, tool=tool)  # type: ignore[arg-type]
    log = log.select()
    if columns:
        raise DataError(
            f"{log.path}: columns= (--map) maps the columns of a table; an eval log is read by "
            "its tool's own fields"
        )
    if labels is None:
        raise DataError(
            f"{log.path}: an eval log holds no gold labels; give the gold labels of some items "
            "in a separate table joined by id (labels=, on the command line --labels FILE)"
        )
    if log.kind != "verdict":
        raise DataError(
            f"{log.path}: judge {log.judges[0]!r} gives no pass/fail verdicts (its rulings are "
            "scores, unscored or errors); the gate model counts passes: read another judge"
        )
    long = rulings(log)
    ruled = long["verdict"].notna().to_numpy()
    table = pd.DataFrame(
        {
            "item": long["item"].to_numpy()[ruled],
            "verdict": long["verdict"].to_numpy(dtype=float)[ruled],
            "ruling": long["epoch"].to_numpy()[ruled],
        }
    )
    gold = read_labels(labels, columns=label_columns, positive=positive, negative=negative)
    joined, join = join_labels(table, gold, repeats="keep")
    origin = InputReport(
        source=log.path,
        format=log.tool,
        rows=len(log.frame),
        items=0,
        labels=str(gold.attrs.get("source", "labels")),
        join=join,
        tool_version=log.version or None,
        system=log.systems[0] if log.systems else None,
        judge=log.judges[0] if log.judges else None,
        without_verdict=int((~ruled).sum()),
    )
    return _aggregate(joined, problems=Problems(log.path), origin=origin)


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
    origin : InputReport or None
        What was read and how.
    """

    item: np.ndarray
    attempt: np.ndarray
    verdict: np.ndarray
    correct: np.ndarray
    origin: InputReport | None = None

    @classmethod
    def from_frame(
        cls,
        frame: TableLike,
        *,
        strict: bool = False,
        format: InputFormat = "auto",
        columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
    ) -> LoopLog:
        """Validate loop logs with columns ``item``, ``attempt``, ``verdict``, ``correct``.

        Parameters
        ----------
        frame : DataFrame, path, ``"-"`` or binary file
            One row per attempt.
        strict : bool
            If true, a column none of these names reads is an error.
        format : {"auto", "csv", "tsv", "jsonl", "parquet"}
            The table format of a path.
        columns : mapping, optional
            ``{name: column of the table}``.
        positive, negative : sequence of str
            Extra PASS and FAIL spellings.

        Raises
        ------
        DataError
            Listing every problem at once: a missing or unknown column, a verdict or
            correctness that is not PASS/FAIL, an attempt that is not a whole number >= 1, a
            blank item, or a repeated (item, attempt) row.

        Examples
        --------
        >>> import pandas as pd
        >>> t = pd.DataFrame({"item": ["a", "a"], "attempt": [2, 1], "verdict": [1, 0],
        ...                   "correct": ["yes", "no"]})
        >>> LoopLog.from_frame(t).attempt
        array([1, 2])
        """
        check_format(format, table_for="loop logs")
        read = read_judged(
            frame,
            LOOP_FIELDS,
            argument="loop log",
            format=format,
            columns=columns,
            positive=positive,
            negative=negative,
            strict=strict,
            groups=GroupCheck(named_only=True),
        )
        parsed, problems = read.parsed, read.problems
        problems.raise_if_any()
        report_repeated(parsed, ["item", "attempt"], what="attempt", problems=problems)
        problems.raise_if_any()
        item = parsed["item"].to_numpy(dtype=object).astype(str)
        attempt = parsed["attempt"].to_numpy(dtype=np.int64)
        order = np.lexsort((attempt, item))
        return cls(
            item=item[order],
            attempt=attempt[order],
            verdict=parsed["verdict"].to_numpy(dtype=float)[order],
            correct=parsed["correct"].to_numpy(dtype=float)[order],
            origin=read.origin(len(parsed)),
        )

    def __repr__(self) -> str:
        return f"LoopLog(items={np.unique(self.item).size}, attempts={self.item.size})"
