"""The data contract of the repeated-samples family: several judged answers per item.

One row per answer: the ``item`` it answers, the judge's ``verdict`` (PASS/FAIL), and
optionally the answer's gold ``label``, the ``epoch`` (attempt, repeat) that numbers the answers
of an item, and the ``cluster`` (task, conversation) the item belongs to. When the judge was
called several times on one answer, a ``call`` column numbers the calls: the rows of one
answer (same item and epoch) are then its judge calls, one verdict each, and share the
answer's gold label (the column must be mapped: a column that happens to be named ``call`` and
gives an answer several rows is refused); :meth:`RepeatedData.call_patterns` reduces them to
how many calls each answer had and how many passed, which the model with per-answer judge
randomness reads.

The gold label is read per answer by default; with ``gold_per="item"`` (or when it comes from
a separate labels table joined by item id) it is the item's label, must be the same on every
row of the item, and holds for each of the item's answers. A cluster must be the same on
every row of an item.

:class:`RepeatedData` keeps what every model and baseline of the family needs: the answers
themselves (item, epoch, verdict, label, in file order) and their reduction to counts per item,
in the prevalence family's vocabulary, ``n``/``k`` (unlabelled answers, of which the judge
passed ``k``), ``m1``/``x1`` (gold-PASS answers, of which the judge passed ``x1``) and
``m0``/``x0`` (gold-FAIL answers, judge-passed ``x0``). The model's likelihood depends on an item
only through these six counts, so its cost does not grow with the number of epochs. With judge
calls the rows are calls, so the six counts count calls (what a reading of every call as its
own answer would use), and the model reads :meth:`RepeatedData.call_patterns` instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import IO, TYPE_CHECKING, Literal, get_args

import numpy as np
import pandas as pd
from numpy.typing import NDArray

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

__all__ = ["GOLD_PER", "PATTERN_COLUMNS", "GoldPer", "RepeatedData"]

type GoldPer = Literal["answer", "item"]
#: Whether a gold label belongs to one answer or to every answer of its item.
GOLD_PER: tuple[str, ...] = get_args(GoldPer.__value__)
REPEATED_FIELDS = (
    Field("item", "text"),
    Field("verdict", "binary"),
    Field("label", "binary", required=False, missing=True),
    Field("epoch", "whole", required=False),
    Field("cluster", "text", required=False),
    Field("call", "text", required=False),
)
type LabelSource = pd.DataFrame | str | os.PathLike[str] | IO[bytes]
_COUNTS = ("n", "k", "m1", "x1", "m0", "x0")
#: The columns of :meth:`RepeatedData.call_patterns`.
PATTERN_COLUMNS = ("item", "calls", "passes", "label", "answers")


def _frozen(values: np.ndarray, dtype: type) -> np.ndarray:
    out: np.ndarray = np.array(values, dtype=dtype)
    out.flags.writeable = False
    return out


@dataclass(frozen=True, slots=True, eq=False)
class RepeatedData:
    """Validated judged answers, several per item, with their counts per item.

    Attributes
    ----------
    items : tuple of str
        Item ids, in order of first appearance.
    n, k : ndarray of int, shape (items,)
        Unlabelled answers of each item, and how many of them the judge passed.
    m1, x1 : ndarray of int, shape (items,)
        Gold-PASS answers of each item, and how many of them the judge passed.
    m0, x0 : ndarray of int, shape (items,)
        Gold-FAIL answers of each item, and how many of them the judge passed.
    clusters : tuple of str or None
        The clusters (tasks, conversations), in order of first appearance; None without a
        cluster column.
    cluster_index : ndarray of int or None, shape (items,)
        Each item's cluster (position in ``clusters``).
    answer_item : ndarray of int, shape (answers,)
        Each answer's item (position in ``items``), in file order.
    answer_verdict, answer_label : ndarray of float, shape (answers,)
        Each answer's verdict (1/0) and gold label (1/0, NaN when unlabelled).
    answer_epoch : ndarray of int or None, shape (answers,)
        Each answer's epoch, when the data number them.
    call_answer : ndarray of int or None, shape (rows,)
        With a ``call`` column: each row's answer (position among the answers, in order of
        first appearance); the rows are then judge calls, and the ``answer_*`` arrays and the
        six counts count calls. None when each row is one answer judged once.
    gold_per : {"answer", "item"}
        Whether the gold labels were given per answer or per item.
    origin : InputReport or None
        What was read and how.

    Examples
    --------
    >>> frame = pd.DataFrame({"item": ["a", "a", "b", "b"], "verdict": [1, 0, 1, 1],
    ...                       "label": [1, None, None, None]})
    >>> data = RepeatedData.from_frame(frame)
    >>> data.n.tolist(), data.k.tolist(), data.m1.tolist(), data.answers_per_item.tolist()
    ([1, 2], [0, 2], [1, 0], [2, 2])
    """

    items: tuple[str, ...]
    n: NDArray[np.int64]
    k: NDArray[np.int64]
    m1: NDArray[np.int64]
    x1: NDArray[np.int64]
    m0: NDArray[np.int64]
    x0: NDArray[np.int64]
    answer_item: NDArray[np.int64]
    answer_verdict: NDArray[np.float64]
    answer_label: NDArray[np.float64]
    answer_epoch: NDArray[np.int64] | None = None
    call_answer: NDArray[np.int64] | None = None
    clusters: tuple[str, ...] | None = None
    cluster_index: NDArray[np.int64] | None = None
    gold_per: GoldPer = "answer"
    origin: InputReport | None = None

    # ------------------------------------------------------------------ readers
    @classmethod
    def from_frame(
        cls,
        frame: TableLike,
        *,
        gold_per: GoldPer = "answer",
        strict: bool = False,
        format: InputFormat = "auto",
        columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
        labels: LabelSource | None = None,
        label_columns: Mapping[str, str] | None = None,
    ) -> RepeatedData:
        """Validate one row per judged answer (item, verdict; label, epoch, cluster optional).

        Parameters
        ----------
        frame : DataFrame, path, ``"-"`` or binary file
            The answers, read by :func:`bayesjudge.io.read_table` (CSV, TSV, JSON Lines,
            Parquet); values in any PASS/FAIL spelling of :mod:`bayesjudge.io.mapping`.
        gold_per : {"answer", "item"}
            ``"answer"``: each row's ``label`` is that answer's gold label (blank: unlabelled).
            ``"item"``: the label is the item's, the same on every row of the item (blank on
            every row, or given on every row), and holds for each of its answers.
        strict : bool
            Reject columns that none of the names reads.
        format : {"auto", "csv", "tsv", "jsonl", "parquet"}
            The table format of a path.
        columns : mapping, optional
            ``{name: column of the table}`` for ``item``, ``verdict``, ``label``, ``epoch``,
            ``cluster``, ``call``, e.g. ``{"label": "gold", "cluster": "task"}``.
        positive, negative : sequence of str
            Extra PASS and FAIL spellings.
        labels : DataFrame or path, optional
            Gold labels per item in a separate table (``item``, ``label``), joined by id onto
            every answer of the item (so ``gold_per`` is ``"item"``); the answers then carry
            no labels of their own.
        label_columns : mapping, optional
            Column mapping of the labels table.

        Returns
        -------
        RepeatedData

        Raises
        ------
        DataError
            Listing every problem at once, each with its column and file line: a missing column,
            a verdict or label that is not PASS/FAIL, a blank item, epoch or cluster, a repeated
            (item, epoch) pair (with ``call``: a repeated (item, epoch, call)), the judge calls
            of one answer with different gold labels, a cluster that is not the same on every
            row of its item, a gold label per item that differs between the item's rows; then a
            label join that does not match.

        Examples
        --------
        >>> frame = pd.DataFrame({"id": ["q1", "q1", "q2"], "judge": ["PASS", "FAIL", "PASS"],
        ...                       "task": ["t", "t", "u"]})
        >>> data = RepeatedData.from_frame(
        ...     frame, columns={"item": "id", "verdict": "judge", "cluster": "task"})
        >>> data.items, data.clusters, data.n_answers
        (('q1', 'q2'), ('t', 'u'), 3)
        """
        if gold_per not in GOLD_PER:
            raise ValueError(f"gold_per must be one of {list(GOLD_PER)}; got {gold_per!r}")
        check_format(format)
        if log_tool(frame, format=format) is not None:
            raise DataError(
                "frame: this is an evaluation tool's log; read it with RepeatedData.from_log "
                "(on the command line it is read as a log by itself)"
            )
        read = read_judged(
            frame,
            REPEATED_FIELDS,
            argument="answers",
            format=format,
            columns=columns,
            positive=positive,
            negative=negative,
            strict=strict,
            groups=GroupCheck(named_only=True),
        )
        read.problems.raise_if_any()
        name, parsed, problems, origin = read.name, read.parsed, read.problems, read.origin(0)
        if labels is not None:
            if "label" in parsed.columns and parsed["label"].notna().any():
                raise DataError(
                    f"{name}: the answers carry gold labels in column "
                    f"{origin.columns.get('label', 'label')!r} and labels are also given apart; "
                    "give them in one place"
                )
            parsed = parsed.drop(columns="label", errors="ignore")
            gold = read_labels(labels, columns=label_columns, positive=positive, negative=negative)
            parsed, join = join_labels(parsed, gold, repeats="keep")
            origin = replace(origin, labels=str(gold.attrs.get("source", "labels")), join=join)
            gold_per = "item"
        named_call = "call" in (columns or {})
        return cls._from_parsed(
            parsed, gold_per=gold_per, problems=problems, origin=origin, named_call=named_call
        )

    read = from_frame

    @classmethod
    def from_log(
        cls,
        log: EvalLog | str | os.PathLike[str],
        *,
        system: str | None = None,
        judge: str | None = None,
        labels: LabelSource | None = None,
        label_columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
        tool: str | None = None,
    ) -> RepeatedData:
        """Read an evaluation tool's log: one answer per epoch (repeat) of each sample.

        Each ruling with a pass/fail verdict is an answer, numbered by its epoch
        (:func:`bayesjudge.io.logs.rulings`); rulings without one (errors, unscored) are left
        out and counted in ``origin.without_verdict``.

        Parameters
        ----------
        log : EvalLog or path
            A log read by :func:`bayesjudge.io.logs.read_eval_log`, or its path.
        system, judge : str, optional
            Which system and judge (scorer); by default the log's only one.
        labels : DataFrame or path, optional
            Gold labels per item in a separate table (``item``, ``label``), joined by id onto
            every answer of the item.
        label_columns : mapping, optional
            Column mapping of the labels table.
        positive, negative : sequence of str
            Extra PASS and FAIL spellings of the labels table.
        tool : str, optional
            The tool that wrote a log given by path (detected by default).

        Raises
        ------
        DataError
            If the judge gives no pass/fail verdicts, or as :func:`~bayesjudge.io.logs.rulings`.
        """
        from bayesjudge.io.logs import EvalLog, read_eval_log, rulings

        read = log if isinstance(log, EvalLog) else read_eval_log(log, tool=tool)  # type: ignore[arg-type]
        long = rulings(read, system=system, judge=judge)
        ruled = long["verdict"].notna().to_numpy()
        if not ruled.any():
            raise DataError(
                f"{read.path}: the judge gives no pass/fail verdicts (its rulings are scores, "
                "unscored or errors); read another judge"
            )
        table = pd.DataFrame(
            {
                "item": long["item"].to_numpy()[ruled].astype(str),
                "verdict": long["verdict"].to_numpy(dtype=float)[ruled],
                "epoch": long["epoch"].to_numpy()[ruled].astype(np.int64),
            }
        )
        selected = read.select(system=system, judge=judge)
        origin = InputReport(
            source=read.path,
            format=read.tool,
            rows=len(long),
            items=0,
            columns={},
            tool_version=read.version or None,
            system=selected.systems[0] if selected.systems else None,
            judge=selected.judges[0] if selected.judges else None,
            without_verdict=int((~ruled).sum()),
        )
        gold_per: GoldPer = "answer"
        if labels is not None:
            gold = read_labels(labels, columns=label_columns, positive=positive, negative=negative)
            table, join = join_labels(table, gold, repeats="keep")
            origin = replace(origin, labels=str(gold.attrs.get("source", "labels")), join=join)
            gold_per = "item"
        return cls._from_parsed(
            table, gold_per=gold_per, problems=Problems(read.path), origin=origin
        )

    @classmethod
    def _from_parsed(
        cls,
        parsed: pd.DataFrame,
        *,
        gold_per: GoldPer,
        problems: Problems,
        origin: InputReport,
        named_call: bool = False,
    ) -> RepeatedData:
        """Check the per-item rules of conformed answers and count them per item.

        A ``call`` column found by its name alone (``named_call`` False) that gives an answer
        several rows is refused: they may be separate answers, and reading them as calls on one
        answer would change the estimand silently; mapping the column says which is meant.
        """
        if "label" not in parsed.columns:
            parsed = parsed.assign(label=np.nan)
        codes, uniques = pd.factorize(parsed["item"], sort=False)
        calls = "call" in parsed.columns
        answer_keys = ["item", "epoch"] if "epoch" in parsed.columns else ["item"]
        if calls:
            keys = [*answer_keys, "call"]
            report_repeated(parsed, keys, what=f"judge call ({', '.join(keys)})", problems=problems)
        elif "epoch" in parsed.columns:
            report_repeated(
                parsed, ["item", "epoch"], what="answer (item, epoch)", problems=problems
            )
        call_answer = None
        if calls:
            call_answer = pd.MultiIndex.from_arrays(
                [codes, *(parsed[key].to_numpy() for key in answer_keys[1:])]
            ).factorize()[0]
            if not named_call and np.bincount(call_answer).max() > 1:
                shared = "item and epoch" if "epoch" in parsed.columns else "item"
                problems.add(
                    f"column 'call' numbers several rows of one {shared}: if they are the "
                    "judge's calls on one answer, say so with --call call (columns={'call': "
                    "'call'}); if they are separate answers, rename the column so that it is "
                    "not read as judge calls"
                )
            if gold_per == "answer":
                report_inconsistent(
                    parsed,
                    call_answer,
                    "label",
                    problems=problems,
                    why="the judge calls of one answer share its gold label",
                    unit="answer",
                )
        if "cluster" in parsed.columns:
            report_inconsistent(
                parsed, codes, "cluster", problems=problems, why="an item lies in one cluster"
            )
        if gold_per == "item":
            report_inconsistent(
                parsed, codes, "label", problems=problems, why="gold labels are given per item"
            )
        problems.raise_if_any()
        n_items = len(uniques)
        verdict = parsed["verdict"].to_numpy(dtype=float)
        label = parsed["label"].to_numpy(dtype=float)

        def count(mask: np.ndarray) -> NDArray[np.int64]:
            return _frozen(np.bincount(codes[mask], minlength=n_items), np.int64)

        unlabelled = np.isnan(label)
        passed = verdict == 1.0
        clusters = cluster_index = None
        if "cluster" in parsed.columns:
            first = pd.Series(codes).drop_duplicates().index.to_numpy()
            cluster_codes, cluster_names = pd.factorize(
                parsed["cluster"].to_numpy(dtype=object)[first], sort=False
            )
            clusters = tuple(str(c) for c in cluster_names)
            cluster_index = _frozen(cluster_codes, np.int64)
        epoch = (
            _frozen(parsed["epoch"].to_numpy(dtype=np.int64), np.int64)
            if "epoch" in parsed.columns
            else None
        )
        return cls(
            items=tuple(str(u) for u in uniques),
            n=count(unlabelled),
            k=count(unlabelled & passed),
            m1=count(label == 1.0),
            x1=count((label == 1.0) & passed),
            m0=count(label == 0.0),
            x0=count((label == 0.0) & passed),
            answer_item=_frozen(codes, np.int64),
            answer_verdict=_frozen(verdict, np.float64),
            answer_label=_frozen(label, np.float64),
            answer_epoch=epoch,
            call_answer=None if call_answer is None else _frozen(call_answer, np.int64),
            clusters=clusters,
            cluster_index=cluster_index,
            gold_per=gold_per,
            origin=replace(origin, items=n_items),
        )

    # ------------------------------------------------------------------ counts
    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)

    @property
    def has_calls(self) -> bool:
        """Whether the rows are judge calls, several per answer (a ``call`` column)."""
        return self.call_answer is not None

    @property
    def n_calls(self) -> int:
        """Number of judge calls (rows): one per answer without a ``call`` column."""
        return int(self.answer_item.size)

    @property
    def n_answers(self) -> int:
        """Number of answers: the rows, or with judge calls the distinct (item, epoch)."""
        if self.call_answer is None:
            return int(self.answer_item.size)
        return int(self.call_answer.max()) + 1 if self.call_answer.size else 0

    @property
    def n_clusters(self) -> int:
        """Number of clusters (0 without a cluster column)."""
        return 0 if self.clusters is None else len(self.clusters)

    @property
    def answers_per_item(self) -> NDArray[np.int64]:
        """Answers of each item, labelled or not (``n + m1 + m0`` without judge calls)."""
        if self.call_answer is None:
            return self.n + self.m1 + self.m0
        patterns = self.call_patterns()
        return np.bincount(
            patterns["item"], weights=patterns["answers"], minlength=self.n_items
        ).astype(np.int64)

    def call_patterns(self) -> dict[str, NDArray[np.int64]]:
        """Return the answers reduced to patterns of judge calls, with how many share each.

        Each answer has ``calls`` judge calls, of which ``passes`` were PASS, and a gold
        ``label`` (1, 0, or -1 when unlabelled); answers of one ``item`` with the same three
        numbers form one pattern, and ``answers`` counts them. Without a ``call`` column each
        answer has one call. The model with per-answer judge randomness depends on the data
        only through these patterns.

        Returns
        -------
        dict of str to ndarray of int
            ``item`` (position in ``items``), ``calls``, ``passes``, ``label``, ``answers``,
            one entry per pattern, sorted by item.

        Examples
        --------
        >>> frame = pd.DataFrame({"item": ["a", "a", "a", "b", "b"],
        ...                       "epoch": [1, 1, 2, 1, 1], "call": [1, 2, 1, 1, 2],
        ...                       "verdict": [1, 1, 0, 1, 0]})
        >>> patterns = RepeatedData.from_frame(frame, columns={"call": "call"}).call_patterns()
        >>> [patterns[c].tolist() for c in ("item", "calls", "passes", "answers")]
        [[0, 0, 1], [1, 2, 2], [0, 2, 1], [1, 1, 1]]
        """
        rows = self.answer_item.size
        answer = np.arange(rows) if self.call_answer is None else self.call_answer
        n_answers = int(answer.max()) + 1 if rows else 0
        first = np.empty(n_answers, dtype=np.int64)
        first[answer[::-1]] = np.arange(rows)[::-1]  # the first row of each answer
        label = self.answer_label[first]
        table = np.stack(
            [
                self.answer_item[first],
                np.bincount(answer, minlength=n_answers),
                np.bincount(answer, weights=self.answer_verdict, minlength=n_answers).round(),
                np.where(np.isnan(label), -1, label),
            ],
            axis=1,
        ).astype(np.int64)
        unique, counts = np.unique(table.reshape(-1, 4), axis=0, return_counts=True)
        out = {name: unique[:, i].copy() for i, name in enumerate(PATTERN_COLUMNS[:4])}
        out["answers"] = counts.astype(np.int64)
        return out

    @property
    def n_labelled(self) -> tuple[int, int]:
        """Gold-PASS and gold-FAIL answers, in all."""
        return int(self.m1.sum()), int(self.m0.sum())

    def counts(self) -> dict[str, NDArray[np.int64]]:
        """Return the six counts per item, ``n``, ``k``, ``m1``, ``x1``, ``m0``, ``x0``."""
        return {name: getattr(self, name) for name in _COUNTS}

    def answers(self) -> pd.DataFrame:
        """Return the answers as a table, one row per answer in file order.

        Columns ``item``, ``verdict``, ``label``, and ``epoch`` and ``cluster`` when the data
        have them.
        """
        items = np.asarray(self.items, dtype=object)[self.answer_item]
        out = {"item": items, "verdict": self.answer_verdict, "label": self.answer_label}
        if self.answer_epoch is not None:
            out["epoch"] = self.answer_epoch
        if self.call_answer is not None:
            out["answer"] = self.call_answer
        if self.clusters is not None and self.cluster_index is not None:
            out["cluster"] = np.asarray(self.clusters, dtype=object)[
                self.cluster_index[self.answer_item]
            ]
        return pd.DataFrame(out)

    def describe(self) -> dict[str, object]:
        """Return the counts a reader checks first: items, answers per item, clusters, gold.

        Examples
        --------
        >>> frame = pd.DataFrame({"item": ["a", "a", "b"], "verdict": [1, 0, 1]})
        >>> RepeatedData.from_frame(frame).describe()["answers_per_item"]
        {'min': 1, 'median': 1.5, 'max': 2}
        """
        per = self.answers_per_item
        m1, m0 = self.n_labelled
        calls: dict[str, object] = {}
        if self.call_answer is not None:  # gold answers, not gold calls
            patterns = self.call_patterns()
            m1 = int(patterns["answers"][patterns["label"] == 1].sum())
            m0 = int(patterns["answers"][patterns["label"] == 0].sum())
            each = np.repeat(patterns["calls"], patterns["answers"])
            calls = {
                "judge_calls": self.n_calls,
                "calls_per_answer": {
                    "min": int(each.min()),
                    "median": float(np.median(each)),
                    "max": int(each.max()),
                },
            }
        return {
            **calls,
            "items": self.n_items,
            "answers": self.n_answers,
            "answers_per_item": {
                "min": int(per.min()),
                "median": float(np.median(per)),
                "max": int(per.max()),
            },
            "clusters": self.n_clusters,
            "gold_pass": m1,
            "gold_fail": m0,
            "gold_per": self.gold_per,
            "labelled_items": int(((self.m1 + self.m0) > 0).sum()),
        }

    def __repr__(self) -> str:
        m1, m0 = self.n_labelled
        calls = f", calls={self.n_calls}" if self.call_answer is not None else ""
        return (
            f"RepeatedData(items={self.n_items}, answers={self.n_answers}{calls}, "
            f"clusters={self.n_clusters}, gold={m1 + m0})"
        )
