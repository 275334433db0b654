"""What a data contract reads: a table or an evaluation tool's log, and a record of the reading.

* :data:`InputFormat` - the formats every contract and command reads: the table formats of
  :func:`bayesjudge.io.read_table` (CSV, TSV, JSON Lines, Parquet) and the eval-log formats of
  :mod:`bayesjudge.io.logs` (Inspect AI, promptfoo, lm-evaluation-harness, OpenAI evals);
* :func:`log_tool` - whether a source is an eval log, and which tool wrote it;
* :class:`InputReport` - what was read and how: the file, its format, rows, the column mapping,
  the label join, the threshold, the epochs rule, and what was left out (never silently).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Literal, get_args

import pandas as pd

from bayesjudge.errors import DataError

if TYPE_CHECKING:
    from bayesjudge.io.labels import JoinReport
    from bayesjudge.io.logs import EvalLog, Tool

__all__ = [
    "INPUT_FORMATS",
    "LOG_FORMATS",
    "TABLE_FORMATS",
    "InputFormat",
    "InputReport",
    "check_format",
    "log_tool",
]

#: The ``format`` of every contract and of the command line's ``--format``.
type InputFormat = Literal[
    "auto", "csv", "tsv", "jsonl", "parquet", "inspect", "promptfoo", "lm_eval", "openai_evals"
]
INPUT_FORMATS: tuple[str, ...] = get_args(InputFormat.__value__)
TABLE_FORMATS: tuple[str, ...] = ("csv", "tsv", "jsonl", "parquet")
LOG_FORMATS: tuple[str, ...] = ("inspect", "promptfoo", "lm_eval", "openai_evals")


def check_format(format: str, *, table_for: str | None = None) -> str:
    """Return ``format`` if it is one of :data:`INPUT_FORMATS`, else raise a ValueError.

    With ``table_for`` (what is read, e.g. ``"loop logs"``), which only tables hold, a log
    format is refused too.

    Examples
    --------
    >>> check_format("csv", table_for="loop logs")
    'csv'
    >>> check_format("inspect", table_for="loop logs")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: format must be 'auto' or one of ['csv', ...] for loop logs; got 'inspect'
    """
    if format not in INPUT_FORMATS:
        raise ValueError(f"format must be one of {list(INPUT_FORMATS)}; got {format!r}")
    if table_for is not None and format in LOG_FORMATS:
        raise ValueError(
            f"format must be 'auto' or one of {list(TABLE_FORMATS)} for {table_for}; got {format!r}"
        )
    return format


def log_tool(
    source: pd.DataFrame | str | os.PathLike[str] | IO[bytes] | EvalLog,
    *,
    format: InputFormat = "auto",
) -> Tool | None:
    """Return which evaluation tool wrote ``source``, or None when it is a table.

    A forced log format is returned as it is; a forced table format gives None. With
    ``format="auto"``, an :class:`~bayesjudge.io.logs.EvalLog` is a log, a DataFrame, standard
    input (``"-"``), a file object, a folder or a glob are tables, and a file is a log when
    :func:`bayesjudge.io.logs.detect_tool` recognises it (an Inspect zip or JSON log, a promptfoo
    result file, an lm-eval samples file, an OpenAI evals record log), a table otherwise.

    Raises
    ------
    ValueError
        If ``format`` is not one of :data:`INPUT_FORMATS`.
    DataError
        If a log format is forced on something that is not a file path (a log is read from a
        file, not from standard input or a DataFrame).

    Examples
    --------
    >>> import pandas as pd
    >>> log_tool(pd.DataFrame({"label": [1]})) is None, log_tool("run.eval", format="inspect")
    (True, 'inspect')
    """
    from bayesjudge.io.logs import EvalLog, detect_tool

    check_format(format)
    if isinstance(source, EvalLog):
        return source.tool
    if format in TABLE_FORMATS:
        return None
    is_path = isinstance(source, str | os.PathLike) and os.fspath(source) != "-"
    if format in LOG_FORMATS:
        if not is_path:
            raise DataError(
                f"format={format!r}: an eval log is read from a file path, not from "
                f"{'standard input' if isinstance(source, str) else type(source).__name__}"
            )
        return format  # type: ignore[return-value]
    if not is_path:
        return None
    path = os.fspath(source)  # type: ignore[arg-type]
    if not os.path.isfile(path):
        return None  # a folder, a glob or a missing file: the table reader says what is wrong
    try:
        return detect_tool(path)
    except (DataError, OSError):
        return None


@dataclass(frozen=True, slots=True)
class InputReport:
    """What a data contract read, and how: every choice and every count, for the output.

    Attributes
    ----------
    source : str
        The file read (``"<stdin>"``, ``"DataFrame"``, ``"5 files"``).
    format : str
        ``"csv"``, ``"tsv"``, ``"jsonl"``, ``"parquet"``, ``"frame"`` (a DataFrame), or the eval
        tool (``"inspect"``, ``"promptfoo"``, ``"lm_eval"``, ``"openai_evals"``).
    rows : int
        Rows read (for an eval log: its rulings of the chosen system and judge).
    items : int
        Items in the data after combining repeated rows and leaving out items without a
        verdict (for rulings: items; for loop logs: attempts).
    columns : dict of str to str
        The column mapping used: ``{bayesjudge name: the table's column}``.
    files : int
        Files read (more than one for a folder or glob).
    streamed : bool
        Whether the file was reduced to counts block by block rather than loaded.
    labels : str or None
        The labels file joined by id, if any.
    join : JoinReport or None
        What the label join did (labelled and unlabelled items, blank labels, rows combined).
    threshold : float or None
        The score threshold that made the verdicts (``score >= threshold`` is PASS).
    epochs : str or None
        The rule that combined several rulings of one item into one verdict.
    tool_version : str or None
        For an eval log: the version of the tool that wrote it, as the log records it.
    system, judge : str or None
        For an eval log: the system evaluated and the scorer, assertion or metric read.
    without_verdict : int
        Items (or rulings) left out because they have no verdict or score: every epoch errored
        or was unscored. Counted here, never dropped silently.
    """

    source: str
    format: str
    rows: int
    items: int
    columns: Mapping[str, str] = field(default_factory=dict)
    files: int = 1
    streamed: bool = False
    labels: str | None = None
    join: JoinReport | None = None
    threshold: float | None = None
    epochs: str | None = None
    tool_version: str | None = None
    system: str | None = None
    judge: str | None = None
    without_verdict: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Return the report as plain values (the ``input`` block of the JSON output)."""
        return {
            "source": self.source,
            "format": self.format,
            "rows": self.rows,
            "items": self.items,
            "files": self.files,
            "streamed": self.streamed,
            "columns": dict(self.columns),
            "labels": self.labels,
            "join": None if self.join is None else self.join.to_dict(),
            "threshold": self.threshold,
            "epochs": self.epochs,
            "tool_version": self.tool_version,
            "system": self.system,
            "judge": self.judge,
            "without_verdict": self.without_verdict,
        }

    def lines(self) -> list[str]:
        r"""Return the report as short lines of text, as the command line prints them.

        Examples
        --------
        >>> report = InputReport("run.eval", "inspect", rows=10, items=5, judge="grade",
        ...                      epochs="majority", without_verdict=1)
        >>> print("\n".join(report.lines()))
        read run.eval (inspect): 10 rows, 5 items; judge grade
        several rulings of an item combined by epochs=majority
        1 left out: no verdict or score (every ruling errored or unscored)
        """
        what = f"read {self.source} ({self.format}"
        what += f" {self.tool_version})" if self.tool_version else ")"
        what += f": {self.rows} rows"
        if self.files > 1:
            what += f" in {self.files} files"
        if self.streamed:
            what += ", streamed to counts"
        else:
            what += f", {self.items} items"
        extras = [f"{n}={c}" for n, c in self.columns.items() if n != c]
        if self.system:
            extras.append(f"system {self.system}")
        if self.judge:
            extras.append(f"judge {self.judge}")
        if extras:
            what += "; " + ", ".join(extras)
        out = [what]
        if self.labels is not None and self.join is not None:
            join = self.join
            out.append(
                f"labels from {self.labels}: {join.labelled} of {join.items} items joined by id "
                f"({join.label_rows} label rows, {join.blank_labels} blank)"
            )
        elif self.labels is not None:
            out.append(f"labels from {self.labels}, joined by id")
        if self.threshold is not None:
            out.append(f"verdicts from scores: score >= {self.threshold:g} is PASS")
        if self.epochs is not None:
            out.append(f"several rulings of an item combined by epochs={self.epochs}")
        if self.without_verdict:
            out.append(
                f"{self.without_verdict} left out: no verdict or score (every ruling errored or "
                "unscored)"
            )
        return out
