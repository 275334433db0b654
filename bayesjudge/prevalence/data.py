"""The data contract of the prevalence family: judge verdicts on a calibration and a test set.

:class:`JudgeData` holds gold labels on a calibration subset and a judge verdict (binary) or
score (in [0, 1]) on every item, with an optional stratum; :class:`JudgeCounts` its six
sufficient counts. Both read through the input layer (:mod:`bayesjudge.io`): any table format or
an evaluation tool's log, the user's column names and value spellings, gold labels kept in a
separate table and joined by id, every problem of the input reported at once. Past this module
nothing re-checks.

The missing-label rule
----------------------
A gold label that is blank, or holds ``NA``, ``N/A``, ``null``, ``None`` or ``NaN`` (any case),
or is NaN/None in a DataFrame, is **missing**: the item is an unlabelled test item. In a
separate labels table such a row leaves its item unlabelled and is counted as a blank label in
the join report; an item that the labels table does not list is unlabelled too. Any other value
that is not a PASS/FAIL spelling is an error naming its row.
"""

from __future__ import annotations

import glob as _glob
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import IO, TYPE_CHECKING, Literal, get_args

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError
from bayesjudge.io._judged import read_judged, verdicts_and_labels
from bayesjudge.io.bounded import is_stream_path
from bayesjudge.io.groups import GroupCheck
from bayesjudge.io.labels import JoinReport, LabelSource, join_labels, read_labels
from bayesjudge.io.mapping import check_threshold, verdicts_from_scores
from bayesjudge.io.problems import Problems, RepeatedIds, row_names
from bayesjudge.io.source import (
    TABLE_FORMATS,
    InputFormat,
    InputReport,
    check_format,
    log_tool,
)
from bayesjudge.io.stream import (
    JUDGE_FIELDS,
    JUDGE_FIELDS_LABELS_APART,
    judge_column,
    judge_counts,
)
from bayesjudge.io.tables import TableLike
from bayesjudge.validation import check_choice

if TYPE_CHECKING:
    from bayesjudge.io.logs import EvalLog

__all__ = ["EPOCH_RULES", "EpochRule", "JudgeCounts", "JudgeData", "JudgeSource", "can_stream"]

#: How several rulings of one item (epochs, repeated judging) become one verdict.
type EpochRule = Literal["first", "majority", "any", "all"]
EPOCH_RULES: tuple[str, ...] = get_args(EpochRule.__value__)
#: What judge data are read from: a table (DataFrame, path, ``"-"``, binary file) or an eval log.
type JudgeSource = "TableLike | EvalLog"


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
    origin : InputReport or None
        What was read to get them (:meth:`from_file`); not part of equality.
    """

    m1: int
    x1: int
    m0: int
    x0: int
    n: int
    k: int
    origin: InputReport | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_file(
        cls,
        source: str | os.PathLike[str] | IO[bytes] | Sequence[str | os.PathLike[str]],
        *,
        format: InputFormat = "auto",
        columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
        threshold: float | None = None,
        labels: LabelSource | None = None,
        label_columns: Mapping[str, str] | None = None,
        scheduler: str | None = None,
    ) -> JudgeCounts:
        r"""Stream judge data to the six counts without loading them: memory stays flat.

        The file (or every data file of a folder, or every match of a glob) is read block by
        block by :func:`bayesjudge.io.judge_counts`, with the same column mapping, spellings
        and missing-label rule as :meth:`JudgeData.from_frame`. With ``scheduler``, the files
        are reduced on a Dask cluster (:func:`bayesjudge.io.judge_counts_on_cluster`).

        Parameters
        ----------
        source : path, ``"-"``, folder, glob, list of paths or binary file object
            Judge data with a binary ``verdict`` (or a ``score`` and a ``threshold``).
        format : {"auto", "csv", "tsv", "jsonl", "parquet"}
            The table format (eval logs are read by :meth:`JudgeData.from_frame`).
        columns, positive, negative
            Column mapping and extra PASS/FAIL spellings (see :func:`bayesjudge.io.conform`).
        threshold : float, optional
            Turns a ``score`` column into verdicts: ``score >= threshold`` is PASS.
        labels : DataFrame or path, optional
            Gold labels kept apart (columns ``item`` and ``label``, mapped by
            ``label_columns``), joined by the data's ``item`` column as the blocks stream by.
        label_columns : mapping, optional
            Column mapping of the labels table.
        scheduler : str, optional
            Address of a Dask scheduler (``"tcp://host:8786"``).

        Raises
        ------
        DataError
            Listing every problem of every file; also a calibration class without items or no
            unlabelled items.

        Examples
        --------
        >>> import io
        >>> text = io.BytesIO(b"gold,judge\nyes,pass\nno,pass\nno,fail\n,pass\n,fail\n")
        >>> JudgeCounts.from_file(text, columns={"label": "gold", "verdict": "judge"})
        JudgeCounts(m1=1, x1=1, m0=2, x0=1, n=2, k=1)
        """
        check_format(format)
        if format not in ("auto", *TABLE_FORMATS):
            raise ValueError(
                f"format must be 'auto' or a table format {list(TABLE_FORMATS)} to stream; got "
                f"{format!r} (read eval logs with JudgeData.from_frame)"
            )
        cut = None if threshold is None else check_threshold(threshold)
        gold = None
        if labels is not None:
            gold = read_labels(labels, columns=label_columns, positive=positive, negative=negative)
        options = {
            "columns": columns,
            "positive": positive,
            "negative": negative,
            "threshold": cut,
            "labels": gold,
            "format": format,
        }
        if scheduler is not None:
            from bayesjudge.io.stream import judge_counts_on_cluster

            if not isinstance(source, str | os.PathLike | list | tuple):
                raise DataError("a Dask cluster reads files by path; give a file, folder or glob")
            reduced = judge_counts_on_cluster(source, scheduler=scheduler, **options)  # type: ignore[arg-type]
        else:
            reduced = judge_counts(source, **options)  # type: ignore[arg-type]
        join = None
        if gold is not None:
            labelled = reduced.m1 + reduced.m0
            join = JoinReport(
                result_rows=reduced.rows,
                items=reduced.rows,
                labelled=labelled,
                unlabelled=reduced.rows - labelled,
                label_rows=len(gold),
                blank_labels=int(gold["label"].isna().sum()),
                combined_rows=0,
                repeats="error",
            )
        origin = InputReport(
            source=_sources_name(source, reduced.files),
            format=_streamed_format(source, format),
            rows=reduced.rows,
            items=reduced.rows,
            files=reduced.files,
            streamed=True,
            columns=dict(columns or {}),
            labels=None if gold is None else str(gold.attrs.get("source", "labels")),
            join=join,
            threshold=cut,
        )
        counts = _validate_counts(**reduced.as_dict())
        return replace(counts, origin=origin)

    def checked(self) -> JudgeCounts:
        """Return the counts after checking them as :meth:`JudgeData.from_counts` does.

        Raises
        ------
        DataError
            On a count that is not a non-negative whole number, ``x1 > m1``, ``x0 > m0``,
            ``k > n``, or ``m1``, ``m0`` or ``n`` zero.

        Examples
        --------
        >>> JudgeCounts(3, 4, 4, 1, 5, 3).checked()
        Traceback (most recent call last):
        ...
        bayesjudge.errors.DataError: x1 must not exceed m1; got x1=4 > m1=3
        """
        return replace(_validate_counts(**self.as_dict()), origin=self.origin)

    @property
    def m(self) -> int:
        """Calibration items m1 + m0."""
        return self.m1 + self.m0

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


def _sources_name(source: object, files: int) -> str:
    if files > 1:
        return f"{files} files"
    if isinstance(source, list | tuple) and source:
        source = source[0]
    if isinstance(source, str | os.PathLike):
        text = os.fspath(source)
        return "<stdin>" if text == "-" else text
    return str(getattr(source, "name", "<stream>"))


def _streamed_format(source: object, format: str) -> str:
    if format != "auto":
        return format
    from bayesjudge.io.stream import expand_sources
    from bayesjudge.io.tables import choose_format

    try:
        first = expand_sources(source)[0]  # type: ignore[arg-type]
    except DataError:
        return "auto"
    if not isinstance(first, str | os.PathLike) or os.fspath(first) == "-":
        return "auto"
    with open(first, "rb") as handle:
        head = handle.read(4096)
    return choose_format("auto", name=os.fspath(first), head=head)


def _many_files(source: object) -> bool:
    """Whether a source stands for several files: a folder, a glob or a list of paths."""
    if isinstance(source, list | tuple):
        return True
    if not isinstance(source, str | os.PathLike):
        return False
    text = os.fspath(source)
    return os.path.isdir(text) or (not os.path.exists(text) and _glob.has_magic(text))


def can_stream(
    source: object,
    *,
    format: InputFormat = "auto",
    columns: Mapping[str, str] | None = None,
    threshold: float | None = None,
    epochs: EpochRule | None = None,
) -> bool:
    r"""Whether judge data can be streamed to counts (:meth:`JudgeCounts.from_file`).

    True for a table file, folder or glob (not standard input, a pipe, a FIFO or a device, which are
    read once, into memory; not a file object, a DataFrame or an eval log) whose judge column is a
    binary ``verdict``, or a ``score`` with a ``threshold``, read without an ``epochs`` rule
    (combining repeated rows needs them in memory). Only the header of the (first) file is read. A
    source whose header cannot be read streams, so that the streaming reader reports every problem
    of every file.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "verdicts.csv").write_text("label,verdict\n1,1\n")
    >>> _ = (folder / "scores.csv").write_text("label,score\n1,0.9\n")
    >>> can_stream(folder / "verdicts.csv"), can_stream(folder / "scores.csv")
    (True, False)
    >>> can_stream(folder / "scores.csv", threshold=0.5)
    True
    """
    if epochs is not None or format not in ("auto", *TABLE_FORMATS):
        return False
    if isinstance(source, list | tuple):
        paths = list(source)
    elif isinstance(source, str | os.PathLike) and not is_stream_path(source):
        paths = [source]
    else:
        return False
    if not _many_files(source) and log_tool(paths[0], format=format) is not None:
        return False
    try:
        kind = judge_column(paths, columns=columns, format=format)  # type: ignore[arg-type]
    except DataError:
        return True
    return kind != "score" or threshold is not None


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
    origin : InputReport or None
        What was read and how (file, format, column mapping, label join, threshold, epochs).
    """

    cal_label: np.ndarray
    cal_judge: np.ndarray
    test_judge: np.ndarray
    kind: Literal["verdict", "score"]
    cal_stratum: np.ndarray | None = None
    test_stratum: np.ndarray | None = None
    origin: InputReport | None = None

    COLUMNS = ("label", "verdict", "score", "stratum")

    # ---- constructors
    @classmethod
    def from_frame(
        cls,
        frame: JudgeSource,
        *,
        strict: bool = False,
        format: InputFormat = "auto",
        columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
        threshold: float | None = None,
        labels: LabelSource | None = None,
        label_columns: Mapping[str, str] | None = None,
        epochs: EpochRule | None = None,
    ) -> JudgeData:
        """Validate judge data: columns ``label``, ``verdict`` or ``score``, optional ``stratum``.

        Parameters
        ----------
        frame : DataFrame, path, ``"-"``, binary file or EvalLog
            One row per item. ``label`` is the gold label (PASS/FAIL; missing marks an
            unlabelled test item, see the module's missing-label rule). ``verdict`` is the
            judge's PASS/FAIL verdict, or ``score`` its score in [0, 1] (exactly one of the
            two). ``stratum`` is an optional group label, ``item`` an optional id. A path is
            read as CSV, TSV, JSON Lines or Parquet (:func:`bayesjudge.io.read_table`) or, when
            it is an evaluation tool's log, by :func:`bayesjudge.io.logs.read_eval_log`; an
            :class:`~bayesjudge.io.logs.EvalLog` is used as it is (one system, one judge).
        strict : bool
            If true, a column that none of these names reads is an error.
        format : {"auto", "csv", "tsv", "jsonl", "parquet", "inspect", "promptfoo", "lm_eval", \
"openai_evals"}
            The format of a path; ``"auto"`` recognises eval logs by their content and tables
            by extension, then content.
        columns : mapping, optional
            ``{name: column of the table}`` for columns named otherwise, e.g.
            ``{"label": "human_label", "verdict": "judge_verdict", "item": "id"}``.
        positive, negative : sequence of str
            Extra PASS and FAIL spellings (``1/0``, ``true/false``, ``yes/no``, ``pass/fail``,
            ``correct/incorrect`` and others are built in; see :class:`bayesjudge.io.Spellings`).
        threshold : float, optional
            Turns a ``score`` column into verdicts: ``score >= threshold`` is PASS (a score
            equal to the threshold passes). An error with a ``verdict`` column.
        labels : DataFrame or path, optional
            Gold labels kept in a separate table (``item``, ``label``), joined by the data's
            ``item`` column: ids compared exactly, as text (``"007"`` is not ``"7"``). Required
            for an eval log, which holds no gold labels. Every label id must be among the
            data's ids; the data's own ``label`` column must then be empty.
        label_columns : mapping, optional
            Column mapping of the labels table, e.g. ``{"item": "sample_id", "label": "gold"}``.
        epochs : {"first", "majority", "any", "all"}, optional
            How several rows (epochs, repeated rulings) of one item become one verdict, when
            labels are joined by id, read from an eval log, or carried by rows with an ``item``
            column (whose rows of one item must then agree on its label): the first row's
            verdict; PASS when more than half passed (a tie fails), when any passed, or when all
            passed. Required when an item has several rows and labels are joined by id;
            ``"first"`` only for scores without a threshold. Without it, rows with their own
            labels that repeat an ``item`` id are each an item, with a warning.

        Raises
        ------
        DataError
            Listing every problem of the input at once: missing or badly mapped columns (with
            suggestions), values that are not PASS/FAIL or not scores in [0, 1] (with their file
            lines), a blank verdict, score or stratum; then a label join that does not match, a
            calibration class with no items, or no unlabelled rows.

        Examples
        --------
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"label": [1, 0, None, None], "verdict": ["pass", "fail", 1, 0]})
        >>> JudgeData.from_frame(frame).counts
        JudgeCounts(m1=1, x1=1, m0=1, x0=0, n=2, k=1)
        >>> export = pd.DataFrame({"human_label": ["correct", "incorrect", "NA", ""],
        ...                        "judge_score": [0.9, 0.4, 0.7, 0.2]})
        >>> data = JudgeData.from_frame(
        ...     export, columns={"label": "human_label", "score": "judge_score"}, threshold=0.5
        ... )
        >>> data.counts
        JudgeCounts(m1=1, x1=1, m0=1, x0=0, n=2, k=1)
        """
        return _read_judge(
            frame,
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
    def from_csv(
        cls,
        path: str | os.PathLike[str] | IO[bytes],
        *,
        strict: bool = False,
        format: InputFormat = "auto",
        columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
        threshold: float | None = None,
        labels: LabelSource | None = None,
        label_columns: Mapping[str, str] | None = None,
        epochs: EpochRule | None = None,
    ) -> JudgeData:
        """Read and validate a file (CSV, or any format :meth:`from_frame` reads); ``"-"`` is stdin.

        The options are those of :meth:`from_frame`.
        """
        if isinstance(path, pd.DataFrame):
            raise DataError("from_csv reads a file; pass a DataFrame to JudgeData.from_frame")
        return _read_judge(
            path,
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
    def coerce(cls, data: JudgeData | JudgeSource, *, strict: bool = False) -> JudgeData:
        """Return ``data`` if it is already validated, else validate it with :meth:`from_frame`."""
        if isinstance(data, JudgeData):
            return data
        return cls.from_frame(data, strict=strict)

    def thresholded(self, threshold: float) -> JudgeData:
        """Return score data as verdict data: ``score >= threshold`` is PASS.

        The threshold is recorded in :attr:`origin`.

        Raises
        ------
        DataError
            If the data already hold binary verdicts.
        ValueError
            If ``threshold`` is not a number in [0, 1].

        Examples
        --------
        >>> frame = pd.DataFrame({"label": [1, 0, None], "score": [0.8, 0.3, 0.6]})
        >>> JudgeData.from_frame(frame).thresholded(0.5).counts
        JudgeCounts(m1=1, x1=1, m0=1, x0=0, n=1, k=1)
        """
        cut = check_threshold(threshold)
        if self.kind != "score":
            raise DataError(
                "threshold: these judge data hold binary verdicts already; a threshold turns "
                "scores into verdicts"
            )
        origin = self.origin
        if origin is not None:
            origin = replace(origin, threshold=cut)
        return replace(
            self,
            cal_judge=verdicts_from_scores(self.cal_judge, threshold=cut),
            test_judge=verdicts_from_scores(self.test_judge, threshold=cut),
            kind="verdict",
            origin=origin,
        )

    def _check_classes(self) -> None:
        where = "" if self.origin is None else f"{self.origin.source}: "
        if self.n == 0:
            raise DataError(
                f"{where}column 'label': every row is labelled, so there are no unlabelled test "
                "items; leave 'label' blank for the items whose success rate is to be estimated"
            )
        if self.m1 == 0 or self.m0 == 0:
            missing = "PASS (1)" if self.m1 == 0 else "FAIL (0)"
            raise DataError(
                f"{where}column 'label': the calibration set has no gold-{missing} items, so the "
                f"judge's {'sensitivity' if self.m1 == 0 else 'specificity'} cannot be estimated"
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

    def stratified_counts(self) -> dict[str, np.ndarray]:
        """Return the six counts per stratum, each an integer array along :attr:`strata`.

        Raises
        ------
        DataError
            If the data have no stratum column or hold scores rather than binary verdicts.

        Examples
        --------
        >>> frame = pd.DataFrame({"label": [1, 0, None, 1, 0, None],
        ...                       "verdict": [1, 0, 1, 1, 1, 0],
        ...                       "stratum": ["a", "a", "a", "b", "b", "b"]})
        >>> JudgeData.from_frame(frame).stratified_counts()["x0"].tolist()
        [0, 1]
        """
        if not self.strata:
            raise DataError("the stratified model needs judge data with a 'stratum' column")
        per = [self.stratum(name).counts for name in self.strata]
        return {
            field: np.array([getattr(c, field) for c in per], dtype=np.int64)
            for field in ("m1", "x1", "m0", "x0", "n", "k")
        }

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
            origin=self.origin,
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


# --------------------------------------------------------------------------- reading
def _read_judge(
    source: JudgeSource,
    *,
    strict: bool,
    format: InputFormat,
    columns: Mapping[str, str] | None,
    positive: Sequence[str],
    negative: Sequence[str],
    threshold: float | None,
    labels: LabelSource | None,
    label_columns: Mapping[str, str] | None,
    epochs: EpochRule | None,
) -> JudgeData:
    check_format(format)
    if epochs is not None:
        check_choice(epochs, name="epochs", allowed=EPOCH_RULES)
    cut = None if threshold is None else check_threshold(threshold)
    if isinstance(source, pd.DataFrame) and format not in ("auto", *TABLE_FORMATS):
        raise ValueError(f"format={format!r} reads an eval log from a path, not a DataFrame")
    if _many_files(source):
        raise DataError(
            f"data: {os.fspath(source)!r} stands for several files (a folder or a glob); "  # type: ignore[arg-type]
            "several files are reduced to counts with JudgeCounts.from_file, which needs "
            "binary verdicts or a threshold"
        )
    tool = log_tool(source, format=format)
    if tool is None:
        parsed, origin = _read_table(
            source,  # type: ignore[arg-type]
            strict=strict,
            format=format,
            columns=columns,
            positive=positive,
            negative=negative,
            threshold=cut,
            labels=labels,
            label_columns=label_columns,
            epochs=epochs,
        )
    else:
        parsed, origin = _read_log(
            source,
            tool=tool,
            columns=columns,
            positive=positive,
            negative=negative,
            threshold=cut,
            labels=labels,
            label_columns=label_columns,
            epochs=epochs,
        )
    label = parsed["label"].to_numpy(dtype=float)
    kind: Literal["verdict", "score"] = "verdict" if "verdict" in parsed.columns else "score"
    judge = parsed[kind].to_numpy(dtype=float)
    stratum = None
    if "stratum" in parsed.columns:
        stratum = parsed["stratum"].to_numpy(dtype=object).astype(str)
    labelled = ~np.isnan(label)
    data = JudgeData(
        cal_label=label[labelled],
        cal_judge=judge[labelled],
        test_judge=judge[~labelled],
        kind=kind,
        cal_stratum=None if stratum is None else stratum[labelled],
        test_stratum=None if stratum is None else stratum[~labelled],
        origin=origin,
    )
    data._check_classes()
    return data


def _read_table(
    source: TableLike,
    *,
    strict: bool,
    format: InputFormat,
    columns: Mapping[str, str] | None,
    positive: Sequence[str],
    negative: Sequence[str],
    threshold: float | None,
    labels: LabelSource | None,
    label_columns: Mapping[str, str] | None,
    epochs: EpochRule | None,
) -> tuple[pd.DataFrame, InputReport]:
    """Read, map and parse a judge table (and join labels kept apart); report all problems."""
    apart = labels is not None
    read = read_judged(
        source,
        JUDGE_FIELDS_LABELS_APART if apart else JUDGE_FIELDS,
        format=format,
        columns=columns,
        positive=positive,
        negative=negative,
        strict=strict,
        groups=GroupCheck(by=True),
        threshold=threshold,
    )
    name, problems, parsed, mapping = read.name, read.problems, read.parsed, read.columns
    if epochs is not None and not apart and "item" not in parsed.columns:
        problems.add(
            f"epochs={epochs!r} combines the rows of one item when gold labels are joined by id "
            "(labels=) or the rows carry an 'item' column; these data have neither (name the id "
            "column with columns={'item': ...}, on the command line --map item=COLUMN)"
        )
    elif epochs not in (None, "first") and "score" in mapping and threshold is None:
        problems.add(
            f"epochs={epochs!r} combines pass/fail verdicts, but the judge output is a 'score' "
            "column: give a threshold (score >= threshold is PASS), or epochs='first'"
        )
    problems.raise_if_any()
    parsed, join, label_name = verdicts_and_labels(
        parsed,
        threshold=threshold,
        labels=labels,
        label_columns=label_columns,
        positive=positive,
        negative=negative,
        repeats=epochs or "error",
    )
    if not apart and "item" in parsed.columns and epochs is not None:
        parsed = _combined_rows(parsed, epochs, source=name)
    elif not apart and "item" in parsed.columns:
        repeated = RepeatedIds(limit=len(parsed))
        labels_ = parsed["label"].to_numpy(dtype=float)
        repeated.add(
            parsed["item"].tolist(), np.where(np.isnan(labels_), -1, labels_).astype(np.int8)
        )
        repeated.warn(stacklevel=4)
    origin = read.origin(
        len(parsed), labels=label_name, join=join, threshold=threshold, epochs=epochs
    )
    return parsed, origin


def _combined_rows(parsed: pd.DataFrame, epochs: EpochRule, *, source: str) -> pd.DataFrame:
    """Combine the rows of each item of a table that carries its own labels, by ``epochs``.

    The rows of one item must agree on its gold label (blank rows take the others' label); the
    verdicts are combined as in a join of labels kept apart (:func:`~bayesjudge.io.join_labels`).

    Raises
    ------
    DataError
        Naming the items, and the lines of the first, whose rows hold both PASS and FAIL labels.
    """
    items = parsed["item"].astype(object)
    by_item = parsed["label"].groupby(items, sort=False)
    both = (by_item.max() > by_item.min()).to_numpy()
    if both.any():
        ids = by_item.max().index[both]
        lines = row_names(parsed.index, np.flatnonzero((items == ids[0]).to_numpy()))
        problems = Problems(source)
        problems.add(
            f"column 'label': {int(both.sum())} item(s) have contradictory gold labels (PASS and "
            f"FAIL) on their rows, e.g. {ids[0]!r} ({', '.join(lines[:5])}); an item has one "
            "gold label: correct the rows"
        )
        problems.raise_if_any()
    gold = by_item.first().rename_axis("item").reset_index()
    joined, _ = join_labels(parsed.drop(columns="label"), gold, repeats=epochs, option="epochs")
    return joined


def _read_log(
    source: JudgeSource,
    *,
    tool: str,
    columns: Mapping[str, str] | None,
    positive: Sequence[str],
    negative: Sequence[str],
    threshold: float | None,
    labels: LabelSource | None,
    label_columns: Mapping[str, str] | None,
    epochs: EpochRule | None,
) -> tuple[pd.DataFrame, InputReport]:
    """Reduce an eval log to one verdict (or score) per item and join the gold labels."""
    from bayesjudge.io.logs import EvalLog, item_scores, item_verdicts, read_eval_log

    log = source if isinstance(source, EvalLog) else read_eval_log(source, tool=tool)  # type: ignore[arg-type]
    log = log.select()
    if columns:
        raise DataError(
            f"{log.path}: columns= (--map) maps the columns of a table; an eval log is read by "
            "its tool's own fields (choose the id with item_field, the judge with judge=)"
        )
    if labels is None:
        raise DataError(
            f"{log.path}: an eval log holds no gold labels; give the gold labels of some items "
            "in a separate table joined by id (labels=, on the command line --labels FILE)"
        )
    kind = log.kind
    if threshold is not None:
        if kind == "verdict":
            raise DataError(
                f"{log.path}: judge {log.judges[0]!r} gives pass/fail verdicts; a threshold turns "
                "scores into verdicts: drop the threshold"
            )
        log = log.thresholded(threshold)
        kind = log.kind
    if kind == "none":
        raise DataError(
            f"{log.path}: judge {log.judges[0]!r} gives no verdict or score on any item "
            f"(statuses: {dict(log.counts)})"
        )
    if kind == "verdict":
        results = item_verdicts(log, epochs=epochs)[["item", "verdict"]]
    else:
        if epochs not in (None, "first"):
            raise DataError(
                f"{log.path}: epochs={epochs!r} combines pass/fail verdicts, but judge "
                f"{log.judges[0]!r} gives scores: give a threshold (score >= threshold is PASS), "
                "or epochs='first'"
            )
        results = item_scores(log, epochs=epochs)[["item", "score"]]
    gold = read_labels(labels, columns=label_columns, positive=positive, negative=negative)
    joined, join = join_labels(results, gold, option="epochs")
    judged = joined[kind].notna().to_numpy()
    origin = InputReport(
        source=log.path,
        format=log.tool,
        rows=len(log.frame),
        items=int(judged.sum()),
        labels=str(gold.attrs.get("source", "labels")),
        join=join,
        threshold=threshold,
        epochs=epochs,
        tool_version=log.version or None,
        system=log.systems[0] if log.systems else None,
        judge=log.judges[0] if log.judges else None,
        without_verdict=int((~judged).sum()),
    )
    return joined[judged], origin
