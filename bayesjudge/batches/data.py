"""The data contract of the batches family: judge verdicts in batches over time.

:class:`BatchedData` holds one row per judged item: its batch (a date, a release, a judge
version), its judge verdict and, for the gold-labelled items, its gold label. Its
:meth:`~BatchedData.counts` gives per batch the six sufficient counts of
:class:`bayesjudge.prevalence.data.JudgeCounts`, the input of every model of the family.

It reads through the input layer (:mod:`bayesjudge.io`) as ``bayesjudge estimate`` does: any
table format, the user's column names (``columns=``, ``--map``) and value spellings, gold labels
in a separate table joined by id, the missing-label rule of :mod:`bayesjudge.prevalence.data` (a
blank or ``NA`` label marks an unlabelled item); or from evaluation-tool logs, each log one batch
(:meth:`BatchedData.from_logs`).

The order of the batches
------------------------
When every batch name reads as an ISO 8601 date or time (``2026-03-01``, ``2026-03-01T12:00``,
``2026``), the batches are in date order. Otherwise they are in order of first appearance in the
table (or the order of the logs given). ``order="appearance"`` keeps the order of appearance even
for dates. Two names that read as the same date (``2026-03-01`` and ``2026-03-01T00:00``) are an
error.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Literal, get_args

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError
from bayesjudge.io._judged import read_judged, verdicts_and_labels
from bayesjudge.io.groups import GroupCheck
from bayesjudge.io.labels import LabelSource, join_labels, read_labels
from bayesjudge.io.mapping import Field, OneOf, check_threshold
from bayesjudge.io.source import InputReport, check_format
from bayesjudge.io.tables import TableFormat, TableLike
from bayesjudge.validation import check_choice

__all__ = ["COUNT_COLUMNS", "BatchOrder", "BatchedData"]

#: The columns of :meth:`BatchedData.counts`, in order.
COUNT_COLUMNS: tuple[str, ...] = ("batch", "m1", "x1", "m0", "x0", "n", "k")
#: How the batches are ordered: dates when every name is one, else first appearance.
type BatchOrder = Literal["auto", "appearance"]
_ORDERS: tuple[str, ...] = get_args(BatchOrder.__value__)
#: Rules that combine several rows of one item (as in :mod:`bayesjudge.prevalence.data`).
type EpochRule = Literal["first", "majority", "any", "all"]
_EPOCHS: tuple[str, ...] = get_args(EpochRule.__value__)


def _fields(*, apart: bool) -> tuple[Field | OneOf, ...]:
    return (
        Field("label", "binary", required=not apart, missing=True),
        OneOf((Field("verdict", "binary"), Field("score", "score"))),
        Field("item", "text", required=apart),
        Field("batch", "text"),
    )


@dataclass(frozen=True, slots=True, eq=False)
class BatchedData:
    """Validated judge verdicts in ordered batches; some items carry a gold label.

    Build it with :meth:`from_frame`, :meth:`read` or :meth:`from_logs`; the constructor itself
    does not validate.

    Attributes
    ----------
    batches : tuple of str
        The batch names, in order (see the module's rule).
    batch : ndarray of int, shape (items,)
        Each item's batch, as a position in :attr:`batches`.
    label : ndarray of float, shape (items,)
        Gold label: 1.0 PASS, 0.0 FAIL, NaN for an unlabelled item.
    verdict : ndarray of float, shape (items,)
        The judge's verdict, 1.0 PASS or 0.0 FAIL.
    order : {"date", "appearance"}
        How :attr:`batches` was ordered.
    origin : tuple of InputReport
        What was read: one report for a table, one per log.
    """

    batches: tuple[str, ...]
    batch: np.ndarray
    label: np.ndarray
    verdict: np.ndarray
    order: Literal["date", "appearance"]
    origin: tuple[InputReport, ...] = ()

    # ---- constructors
    @classmethod
    def from_frame(
        cls,
        frame: TableLike,
        *,
        batch: str = "batch",
        order: BatchOrder = "auto",
        strict: bool = False,
        format: TableFormat = "auto",
        columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
        threshold: float | None = None,
        labels: LabelSource | None = None,
        label_columns: Mapping[str, str] | None = None,
        epochs: EpochRule | None = None,
    ) -> BatchedData:
        r"""Validate a table of judged items with a batch column.

        Parameters
        ----------
        frame : DataFrame, path, ``"-"`` or binary file
            One row per judged item: ``batch`` (the column named by ``batch``), ``label`` (gold
            PASS/FAIL; blank for an unlabelled item), ``verdict`` (PASS/FAIL) or ``score`` with a
            ``threshold``, and an optional ``item`` id. Read by
            :func:`bayesjudge.io.read_table` (CSV, TSV, JSON Lines, Parquet).
        batch : str
            The table's batch column (a date, release or judge-version label).
        order : {"auto", "appearance"}
            ``"auto"``: date order when every batch name is an ISO 8601 date, else order of first
            appearance; ``"appearance"``: order of first appearance.
        strict : bool
            If true, a column that none of these names reads is an error.
        format : {"auto", "csv", "tsv", "jsonl", "parquet"}
            The table format.
        columns : mapping, optional
            ``{name: column of the table}`` for the other columns, as for ``bayesjudge estimate``
            (``{"label": "human_label", "verdict": "judge"}``).
        positive, negative : sequence of str
            Extra PASS and FAIL spellings (see :class:`bayesjudge.io.Spellings`).
        threshold : float, optional
            Turns a ``score`` column into verdicts: ``score >= threshold`` is PASS.
        labels : DataFrame or path, optional
            Gold labels kept apart (``item``, ``label``), joined by ``item`` in every batch: an
            item's label applies to its row in each batch.
        label_columns : mapping, optional
            Column mapping of the labels table.
        epochs : {"first", "majority", "any", "all"}, optional
            With ``labels``: how several rows of one item in one batch become one verdict.

        Raises
        ------
        DataError
            Listing every problem of the table at once (missing columns with suggestions, values
            that are not PASS/FAIL with their file lines, a blank batch name); then scores
            without a threshold, a failed label join, or two batch names for one date.

        Examples
        --------
        >>> import pandas as pd
        >>> frame = pd.DataFrame({
        ...     "release": ["v2", "v2", "v2", "v1", "v1", "v1"],
        ...     "gold": ["pass", "fail", None, "pass", None, None],
        ...     "verdict": [1, 1, 0, 1, 1, 0],
        ... })
        >>> data = BatchedData.from_frame(frame, batch="release", columns={"label": "gold"})
        >>> data.counts()
          batch  m1  x1  m0  x0  n  k
        0    v2   1   1   1   1  1  0
        1    v1   1   1   0   0  2  1
        """
        check_choice(order, name="order", allowed=_ORDERS)
        check_format(format, table_for="a batch table (read eval logs with BatchedData.from_logs)")
        if epochs is not None:
            check_choice(epochs, name="epochs", allowed=_EPOCHS)
        cut = None if threshold is None else check_threshold(threshold)
        mapping = dict(columns or {})
        if "batch" in mapping and batch != "batch" and mapping["batch"] != batch:
            raise ValueError(
                f"batch={batch!r} and columns['batch']={mapping['batch']!r} name two batch "
                "columns; give one"
            )
        if batch != "batch":
            mapping["batch"] = batch
        apart = labels is not None
        read = read_judged(
            frame,
            _fields(apart=apart),
            format=format,
            columns=mapping,
            positive=positive,
            negative=negative,
            strict=strict,
            groups=GroupCheck(by=False),
            threshold=cut,
        )
        name, problems, used = read.name, read.problems, read.columns
        if "score" in used and cut is None:
            problems.add(
                f"column {used['score']!r} holds judge scores; the batches family needs pass/fail "
                "verdicts: give a threshold (score >= threshold is PASS; --threshold)"
            )
        if epochs is not None and not apart:
            problems.add(
                f"epochs={epochs!r} combines the rows of one item when gold labels are joined by "
                "id (labels=, --labels); these data carry their own labels: give one row per item"
            )
        problems.raise_if_any()
        parsed, join, label_name = verdicts_and_labels(
            read.parsed,
            threshold=cut,
            labels=labels,
            label_columns=label_columns,
            positive=positive,
            negative=negative,
            repeats=epochs or "error",
            by=("batch",),
        )
        names = parsed["batch"].astype(str).to_numpy()
        batches, kind = _ordered(names, order=order, source=name)
        origin = read.origin(
            len(parsed), labels=label_name, join=join, threshold=cut, epochs=epochs
        )
        position = {b: i for i, b in enumerate(batches)}
        return cls(
            batches=batches,
            batch=np.array([position[b] for b in names], dtype=np.int64),
            label=parsed["label"].to_numpy(dtype=float),
            verdict=parsed["verdict"].to_numpy(dtype=float),
            order=kind,
            origin=(origin,),
        )

    @classmethod
    def read(
        cls,
        path: str | os.PathLike[str] | IO[bytes],
        *,
        batch: str = "batch",
        order: BatchOrder = "auto",
        strict: bool = False,
        format: TableFormat = "auto",
        columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
        threshold: float | None = None,
        labels: LabelSource | None = None,
        label_columns: Mapping[str, str] | None = None,
        epochs: EpochRule | None = None,
    ) -> BatchedData:
        r"""Read a table file (``"-"`` is standard input); the options are :meth:`from_frame`'s.

        Examples
        --------
        >>> import io
        >>> text = io.BytesIO(b"date,label,verdict\n2026-03-02,1,1\n2026-03-02,0,0\n"
        ...                   b"2026-03-02,,1\n2026-03-01,1,1\n2026-03-01,,0\n")
        >>> data = BatchedData.read(text, batch="date")
        >>> data.batches, data.order
        (('2026-03-01', '2026-03-02'), 'date')
        """
        if isinstance(path, pd.DataFrame):
            raise DataError("read takes a file; pass a DataFrame to BatchedData.from_frame")
        return cls.from_frame(
            path,
            batch=batch,
            order=order,
            strict=strict,
            format=format,
            columns=columns,
            positive=positive,
            negative=negative,
            threshold=threshold,
            labels=labels,
            label_columns=label_columns,
            epochs=epochs,
        )

    @classmethod
    def from_logs(
        cls,
        paths: Sequence[str | os.PathLike[str]],
        *,
        names: Sequence[str] | None = None,
        order: BatchOrder = "appearance",
        labels: LabelSource | Sequence[LabelSource | None] | None = None,
        label_columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
        threshold: float | None = None,
        epochs: EpochRule | None = None,
        judge: str | None = None,
        tool: str = "auto",
    ) -> BatchedData:
        """Read evaluation-tool logs, each log one batch (in the order given by default).

        Each log is read by :func:`bayesjudge.io.logs.read_eval_log` and reduced to one verdict
        per item by :func:`bayesjudge.io.logs.item_verdicts` (``epochs`` combines repeated
        rulings); items without any verdict are left out and counted in the log's
        :class:`~bayesjudge.io.InputReport` (``without_verdict``).

        Parameters
        ----------
        paths : sequence of path
            The logs, one per batch.
        names : sequence of str, optional
            The batch names; by default each log's file name.
        order : {"appearance", "auto"}
            ``"appearance"`` (default): the order of ``paths``; ``"auto"``: date order when every
            name is an ISO 8601 date.
        labels : table, or a sequence of tables (or None) one per log, optional
            Gold labels (``item``, ``label``) joined by id. One table applies to every log (its
            ids need not all be in each log); a sequence gives each log its own.
        label_columns : mapping, optional
            Column mapping of the labels tables.
        positive, negative : sequence of str
            Extra PASS and FAIL spellings of the labels.
        threshold : float, optional
            Turns a judge's scores into verdicts (``score >= threshold`` is PASS).
        epochs : {"first", "majority", "any", "all"}, optional
            How several rulings of one item become one verdict.
        judge : str, optional
            The scorer, assertion or metric to read, when a log has several.
        tool : str
            The log format (``"auto"`` recognises it).

        Raises
        ------
        DataError
            On an unreadable log, a log with no verdict on any item (an empty batch), repeated
            batch names, or a sequence of labels whose length is not that of ``paths``.
        """
        from bayesjudge.io.logs import item_verdicts, read_eval_log

        check_choice(order, name="order", allowed=_ORDERS)
        if epochs is not None:
            check_choice(epochs, name="epochs", allowed=_EPOCHS)
        paths = list(paths)
        if not paths:
            raise DataError("paths: give at least one eval log (each log is one batch)")
        names = [os.path.basename(os.fspath(p)) for p in paths] if names is None else list(names)
        if len(names) != len(paths):
            raise DataError(f"names: {len(names)} batch names for {len(paths)} logs")
        per_log = _labels_per_log(labels, len(paths))
        cut = None if threshold is None else check_threshold(threshold)
        frames: list[pd.DataFrame] = []
        origins: list[InputReport] = []
        for path, name, gold_source in zip(paths, names, per_log, strict=True):
            log = read_eval_log(path, tool=tool, judge=judge)  # type: ignore[arg-type]
            log = log.select()
            if cut is not None:
                if log.kind == "verdict":
                    raise DataError(
                        f"{log.path}: judge {log.judges[0]!r} gives pass/fail verdicts; drop the "
                        "threshold"
                    )
                log = log.thresholded(cut)
            if log.kind != "verdict":
                raise DataError(
                    f"{log.path}: judge {log.judges[0] if log.judges else '?'!r} gives "
                    f"{'scores' if log.kind == 'score' else 'no verdict'} (statuses: "
                    f"{dict(log.counts)}); the batches family needs pass/fail verdicts"
                    + (": give a threshold" if log.kind == "score" else "")
                )
            results = item_verdicts(log, epochs=epochs)[["item", "verdict"]]
            judged = results["verdict"].notna().to_numpy()
            if not judged.any():
                raise DataError(f"{log.path}: batch {name!r} is empty: no item has a verdict")
            results = results[judged]
            join = None
            label_name = None
            if gold_source is None:
                results = results.assign(label=np.nan)
            else:
                gold = read_labels(
                    gold_source, columns=label_columns, positive=positive, negative=negative
                )
                if isinstance(labels, pd.DataFrame | str | os.PathLike) or hasattr(labels, "read"):
                    # one table for every log: its ids need not all be in this log
                    gold = gold[gold["item"].isin(set(results["item"]))]
                label_name = str(gold.attrs.get("source", "labels"))
                results, join = join_labels(results, gold, option="epochs")
            frames.append(results.assign(batch=name))
            origins.append(
                InputReport(
                    source=log.path,
                    format=log.tool,
                    rows=len(log.frame),
                    items=len(results),
                    labels=label_name,
                    join=join,
                    threshold=cut,
                    epochs=epochs,
                    tool_version=log.version or None,
                    system=log.systems[0] if log.systems else None,
                    judge=log.judges[0] if log.judges else None,
                    without_verdict=int((~judged).sum()),
                )
            )
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise DataError(
                f"names: batch name(s) {repeated} given to several logs; name each log's batch "
                "once (names=)"
            )
        joined = pd.concat(frames, ignore_index=True)
        batches, kind = _ordered(np.asarray(names, dtype=object), order=order, source="names")
        position = {b: i for i, b in enumerate(batches)}
        return cls(
            batches=batches,
            batch=np.array([position[b] for b in joined["batch"]], dtype=np.int64),
            label=joined["label"].to_numpy(dtype=float),
            verdict=joined["verdict"].to_numpy(dtype=float),
            order=kind,
            origin=tuple(origins),
        )

    # ---- views
    @property
    def n_batches(self) -> int:
        """Number of batches."""
        return len(self.batches)

    def counts(self) -> pd.DataFrame:
        """Return the six counts of each batch, one row per batch in order.

        Returns
        -------
        DataFrame
            Columns ``batch, m1, x1, m0, x0, n, k``: gold-PASS items and how many the judge
            passed, gold-FAIL items and how many the judge passed, unlabelled items and how many
            the judge passed (the meaning of :class:`bayesjudge.prevalence.data.JudgeCounts`).

        Examples
        --------
        >>> data = BatchedData.from_frame(pd.DataFrame(
        ...     {"batch": ["a", "a", "b"], "label": [1, None, 0], "verdict": [1, 0, 1]}))
        >>> data.counts().to_dict("records")[1]
        {'batch': 'b', 'm1': 0, 'x1': 0, 'm0': 1, 'x0': 1, 'n': 0, 'k': 0}
        """
        size = self.n_batches
        gold = ~np.isnan(self.label)
        pos = gold & (self.label == 1.0)
        neg = gold & (self.label == 0.0)
        passed = self.verdict == 1.0

        def tally(mask: np.ndarray) -> np.ndarray:
            return np.bincount(self.batch[mask], minlength=size).astype(np.int64)

        frame = pd.DataFrame(
            {
                "batch": list(self.batches),
                "m1": tally(pos),
                "x1": tally(pos & passed),
                "m0": tally(neg),
                "x0": tally(neg & passed),
                "n": tally(~gold),
                "k": tally(~gold & passed),
            }
        )
        return frame[list(COUNT_COLUMNS)]

    def require_gold(self, *, each: bool = True, classes: bool = False) -> None:
        """Check that the batches carry the gold labels a method needs.

        Parameters
        ----------
        each : bool
            Whether every batch needs gold labels (else at least one batch).
        classes : bool
            Whether a batch with gold labels needs both gold classes (PASS and FAIL).

        Raises
        ------
        DataError
            Naming the first batches without gold labels (or without one class).

        Examples
        --------
        >>> data = BatchedData.from_frame(pd.DataFrame(
        ...     {"batch": ["a", "a", "b"], "label": [1, 0, None], "verdict": [1, 0, 1]}))
        >>> data.require_gold()
        Traceback (most recent call last):
        ...
        bayesjudge.errors.DataError: column 'label': batch 'b' has no gold-labelled items; ...
        """
        counts = self.counts()
        gold = (counts["m1"] + counts["m0"]).to_numpy()
        if each and (gold == 0).any():
            missing = counts["batch"][gold == 0].tolist()
            raise DataError(
                f"column 'label': batch {_listed(missing)} has no gold-labelled items; this "
                "needs gold labels in every batch"
            )
        if not each and (gold == 0).all():
            raise DataError("column 'label': no batch has gold-labelled items")
        if classes:
            for cls_name, column in (("PASS", "m1"), ("FAIL", "m0")):
                lacking = (gold > 0) & (counts[column].to_numpy() == 0)
                if lacking.any():
                    raise DataError(
                        f"column 'label': batch {_listed(counts['batch'][lacking].tolist())} has "
                        f"no gold-{cls_name} items; the judge's "
                        f"{'sensitivity' if column == 'm1' else 'specificity'} is not estimable "
                        "in it"
                    )

    def to_frame(self) -> pd.DataFrame:
        """Return the items as a table: ``batch``, ``label`` (nullable), ``verdict``."""
        return pd.DataFrame(
            {
                "batch": np.asarray(self.batches, dtype=object)[self.batch],
                "label": pd.array(self.label, dtype="Float64").astype("Int64"),
                "verdict": self.verdict.astype(int),
            }
        )

    def __repr__(self) -> str:
        labelled = int(np.sum(~np.isnan(self.label)))
        return (
            f"BatchedData(batches={self.n_batches}, items={self.label.size}, "
            f"labelled={labelled}, order={self.order!r})"
        )


def _listed(names: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    more = len(names) - limit
    return shown + (f" (and {more} more)" if more > 0 else "")


def _labels_per_log(
    labels: LabelSource | Sequence[LabelSource | None] | None, count: int
) -> list[LabelSource | None]:
    if labels is None:
        return [None] * count
    if isinstance(labels, pd.DataFrame | str | os.PathLike) or hasattr(labels, "read"):
        return [labels] * count  # type: ignore[list-item]
    per = list(labels)
    if len(per) != count:
        raise DataError(f"labels: {len(per)} label tables for {count} logs; give one per log")
    return per


def _ordered(
    names: np.ndarray, *, order: BatchOrder, source: str
) -> tuple[tuple[str, ...], Literal["date", "appearance"]]:
    """Distinct batch names in order: by date when every one is an ISO 8601 date, else seen."""
    seen = tuple(str(n) for n in pd.unique(pd.Series(names, dtype=object)))
    if order == "appearance":
        return seen, "appearance"
    try:
        dates = pd.to_datetime(pd.Series(seen, dtype=object), format="ISO8601")
    except (ValueError, TypeError, OverflowError):
        return seen, "appearance"
    if dates.isna().any():
        return seen, "appearance"
    same = dates[dates.duplicated(keep=False)]
    if len(same):
        clash = [seen[i] for i in same.index[:2]]
        raise DataError(
            f"{source}: column 'batch': the batch names {clash[0]!r} and {clash[1]!r} are the "
            "same date; write each date once"
        )
    ranks = np.argsort(dates.to_numpy(), kind="stable")
    return tuple(seen[i] for i in ranks), "date"
