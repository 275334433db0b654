"""The canonical table every eval-log reader returns, and the helpers the readers share.

One row per ruling (one judgement of one item by one judge): ``item``, ``epoch``, ``system``,
``judge``, ``verdict``, ``score``, ``raw``, ``status``. See :class:`EvalLog`.
"""

from __future__ import annotations

import json
import math
import os
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError

__all__ = ["COLUMNS", "STATUSES", "TOOLS", "EvalLog", "Status", "Tool"]

#: The tools whose logs bayesjudge reads.
type Tool = Literal["inspect", "promptfoo", "lm_eval", "openai_evals"]
TOOLS: tuple[str, ...] = get_args(Tool.__value__)

#: What became of one ruling: scored (``ok``), a partial grade, no score, or an error.
type Status = Literal["ok", "partial", "unscored", "error"]
STATUSES: tuple[str, ...] = get_args(Status.__value__)

#: The columns of :attr:`EvalLog.frame`, in order.
COLUMNS = ("item", "epoch", "system", "judge", "verdict", "score", "raw", "status")

#: Not a number, for rulings without a verdict or a score.
NAN = float("nan")
_SHOWN = 5  # how many offending items an error message lists


@dataclass(frozen=True, slots=True)
class Ruling:
    """One row of the canonical table, as a reader builds it."""

    item: str
    epoch: int
    system: str
    judge: str
    verdict: float
    score: float
    raw: str
    status: Status


@dataclass(frozen=True, slots=True, eq=False)
class EvalLog:
    """An evaluation tool's log, read into one canonical table of rulings.

    Every reader (:func:`~bayesjudge.io.logs.read_eval_log` and the per-tool readers) returns
    this type, whatever the tool.

    Attributes
    ----------
    frame : DataFrame
        One row per ruling, with the columns of :data:`COLUMNS`:

        ``item`` (str)
            The tool's own id of the sample or test, kept as text (``"007"`` stays ``"007"``).
        ``epoch`` (int)
            1-based number of the ruling among the rulings of the same item, system and judge
            (Inspect epochs, promptfoo ``--repeat``, repeated OpenAI evals events).
        ``system`` (str)
            The model or provider evaluated.
        ``judge`` (str)
            The scorer, assertion or metric that ruled.
        ``verdict`` (float)
            1.0 pass, 0.0 fail, NaN when the ruling is not a pass/fail verdict (a continuous
            score, no score, an error).
        ``score`` (float)
            The tool's numeric score, NaN when it has none.
        ``raw`` (str)
            The tool's own value as text (``"C"``, ``"true"``, ``"0.25"``, an error message).
        ``status`` (str)
            ``"ok"``, ``"partial"`` (a partial grade, resolved by the reader's ``partial`` rule),
            ``"unscored"`` or ``"error"``.
    path : str
        The file read.
    tool : str
        ``"inspect"``, ``"promptfoo"``, ``"lm_eval"`` or ``"openai_evals"``.
    version : str
        The version of the tool that wrote the log, as the log records it (empty when the log
        does not record one).
    counts : Mapping[str, int]
        Rulings of each status found in the log, before any were dropped.
    dropped : int
        Rulings the reader left out of ``frame`` on request (Inspect ``partial="drop"``).

    Examples
    --------
    >>> log = EvalLog.from_rulings(
    ...     [Ruling("007", 1, "m", "grade", 1.0, 1.0, "C", "ok")], path="x.eval", tool="inspect"
    ... )
    >>> log
    EvalLog(tool='inspect', path='x.eval', items=1, rulings=1, ok=1, partial=0, unscored=0, error=0)
    >>> log.frame.loc[0, "item"]
    '007'
    """

    frame: pd.DataFrame
    path: str
    tool: Tool
    version: str
    counts: Mapping[str, int]
    dropped: int = 0

    @classmethod
    def from_rulings(
        cls,
        rulings: Sequence[Ruling],
        *,
        path: str,
        tool: Tool,
        version: str = "",
        counts: Mapping[str, int] | None = None,
        dropped: int = 0,
    ) -> EvalLog:
        """Build the table from a reader's rulings and check it.

        A judge whose every scored ruling has a score of exactly 0 or 1 and no verdict yet (a
        numeric scorer that only ever said 0 or 1) gets those scores as its verdicts; any other
        numeric judge keeps ``verdict`` NaN and its scores.

        Raises
        ------
        DataError
            If two rulings share item, epoch, system and judge (e.g. sample ids ``7`` and
            ``"7"`` in one log).
        """
        frame = pd.DataFrame(
            {
                "item": pd.Series([r.item for r in rulings], dtype=str),
                "epoch": np.array([r.epoch for r in rulings], dtype=np.int64),
                "system": pd.Series([r.system for r in rulings], dtype=str),
                "judge": pd.Series([r.judge for r in rulings], dtype=str),
                "verdict": np.array([r.verdict for r in rulings], dtype=float),
                "score": np.array([r.score for r in rulings], dtype=float),
                "raw": pd.Series([r.raw for r in rulings], dtype=str),
                "status": pd.Series([r.status for r in rulings], dtype=str),
            },
            columns=list(COLUMNS),
        )
        key = ["item", "epoch", "system", "judge"]
        duplicated = frame.duplicated(key, keep=False)
        if duplicated.any():
            shown = frame.loc[duplicated, key].drop_duplicates().head(_SHOWN)
            where = ", ".join(
                f"item {row.item!r} epoch {row.epoch} ({row.system}, {row.judge})"
                for row in shown.itertuples()
            )
            raise DataError(
                f"{path}: several rulings share one item, epoch, system and judge: {where}; "
                "two samples whose ids read the same as text (e.g. 7 and '7')?"
            )
        _promote_binary_scores(frame)
        if counts is None:
            counts = status_counts(r.status for r in rulings)
        return cls(
            frame=frame,
            path=path,
            tool=tool,
            version=version,
            counts=MappingProxyType(dict(counts)),
            dropped=dropped,
        )

    @property
    def items(self) -> tuple[str, ...]:
        """The item ids, in order of first appearance."""
        return tuple(pd.unique(self.frame["item"]))

    @property
    def systems(self) -> tuple[str, ...]:
        """The systems evaluated, in order of first appearance."""
        return tuple(pd.unique(self.frame["system"]))

    @property
    def judges(self) -> tuple[str, ...]:
        """The judges (scorers, assertions, metrics), in order of first appearance."""
        return tuple(pd.unique(self.frame["judge"]))

    def to_frame(self) -> pd.DataFrame:
        """Return a copy of the rulings table."""
        return self.frame.copy()

    def select(self, *, system: str | None = None, judge: str | None = None) -> EvalLog:
        """Return the rulings of one system by one judge, as a log of its own.

        Parameters
        ----------
        system, judge : str, optional
            Which system and judge; by default the log's only one.

        Raises
        ------
        DataError
            If the log holds several systems (or judges) and none was named, or the named one
            is not in it; the message lists them.

        Examples
        --------
        >>> log = EvalLog.from_rulings(
        ...     [Ruling("a", 1, "m1", "j", 1.0, 1.0, "C", "ok"),
        ...      Ruling("a", 1, "m2", "j", 0.0, 0.0, "I", "ok")], path="x", tool="inspect")
        >>> log.select(system="m2").frame["verdict"].tolist()
        [0.0]
        """
        chosen_system = choose(
            self.path,
            field="system",
            what="system",
            option="system",
            name=system,
            names=self.systems,
        )
        frame = self.frame[self.frame["system"] == chosen_system]
        chosen_judge = choose(
            self.path,
            field="judge",
            what="judge",
            option="judge",
            name=judge,
            names=tuple(pd.unique(frame["judge"])),
        )
        frame = frame[frame["judge"] == chosen_judge].reset_index(drop=True)
        return replace(self, frame=frame)

    @property
    def kind(self) -> Literal["verdict", "score", "none"]:
        """What the log's rulings hold: pass/fail verdicts, numeric scores, or neither.

        ``verdict`` when any ruling has a verdict (a numeric judge that only said 0 or 1 counts);
        else ``score`` when any has a score; else ``none`` (every ruling unscored or an error).
        """
        if self.frame["verdict"].notna().any():
            return "verdict"
        return "score" if self.frame["score"].notna().any() else "none"

    def thresholded(self, threshold: float) -> EvalLog:
        """Return the log with every scored ruling's verdict set to ``score >= threshold``.

        Rulings without a score keep no verdict. A score equal to the threshold passes.

        Raises
        ------
        ValueError
            If ``threshold`` is not a number in [0, 1].

        Examples
        --------
        >>> log = EvalLog.from_rulings(
        ...     [Ruling("a", 1, "m", "j", NAN, 0.25, "0.25", "ok"),
        ...      Ruling("b", 1, "m", "j", NAN, 0.75, "0.75", "ok")], path="x", tool="inspect")
        >>> log.thresholded(0.5).frame["verdict"].tolist()
        [0.0, 1.0]
        """
        from bayesjudge.io.mapping import verdicts_from_scores

        frame = self.frame.copy()
        frame["verdict"] = verdicts_from_scores(
            frame["score"].to_numpy(dtype=float), threshold=threshold
        )
        return replace(self, frame=frame)

    def __repr__(self) -> str:
        counts = ", ".join(f"{status}={self.counts.get(status, 0)}" for status in STATUSES)
        dropped = f", dropped={self.dropped}" if self.dropped else ""
        return (
            f"EvalLog(tool={self.tool!r}, path={os.path.basename(self.path)!r}, "
            f"items={len(self.items)}, rulings={len(self.frame)}, {counts}{dropped})"
        )


def status_counts(statuses: Iterable[str]) -> dict[str, int]:
    """Return the number of rulings of each status, every status present as a key."""
    found = Counter(statuses)
    return {status: found.get(status, 0) for status in STATUSES}


def _promote_binary_scores(frame: pd.DataFrame) -> None:
    """Give 0/1-only numeric judges their scores as verdicts (in place)."""
    open_ = frame["status"].eq("ok") & frame["verdict"].isna() & frame["score"].notna()
    for _, rows in frame[open_].groupby("judge", sort=False):
        if rows["score"].isin([0.0, 1.0]).all():
            frame.loc[rows.index, "verdict"] = rows["score"]


# --------------------------------------------------------------------------- shared helpers
@contextmanager
def format_version(
    path: str, *, tool: str, field: str, found: object, known: Sequence[object]
) -> Iterator[None]:
    """Read a log under the format version it records: the one rule of every log reader.

    A version among ``known`` (those the reader was tested on), or none recorded, is read as
    is. An unknown one is read with a warning when the fields the reader needs are present (the
    block raises nothing); when they are not (the block raises a :class:`DataError`), the error
    says that the version is unknown and which ones are known.

    Parameters
    ----------
    path : str
        The log's path, for the messages.
    tool : str
        The tool's name, for the messages.
    field : str
        Where the log records its format version (``results.version``).
    found : object
        The version the log records (None: none).
    known : sequence
        The versions the reader was tested on.

    Examples
    --------
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with format_version(
    ...         "r.json", tool="promptfoo", field="results.version", found=2, known=(3,)
    ...     ):
    ...         pass  # the reading, which found its fields
    >>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE, +ELLIPSIS
    r.json: results.version is 2, a promptfoo format version bayesjudge was not tested on (it
    reads version 3); the fields bayesjudge needs are there and were read as in version 3: ...
    >>> with format_version("r.json", tool="promptfoo", field="results.version", found=2,
    ...                     known=(3,)):
    ...     raise DataError("r.json: results.results: missing")
    Traceback (most recent call last):
    ...
    bayesjudge.errors.DataError: r.json: results.results: missing; results.version is 2, ...
    """
    if found is None or found in known:
        yield
        return
    versions = ", ".join(repr(v) for v in known)
    note = (
        f"{field} is {found!r}, a {tool} format version bayesjudge was not tested on "
        f"(it reads version {versions})"
    )
    try:
        yield
    except DataError as exc:
        raise DataError(
            f"{exc}; {note}: write the log with a {tool} that writes version {known[-1]!r}"
        ) from exc
    warnings.warn(
        f"{path}: {note}; the fields bayesjudge needs are there and were read as in version "
        f"{known[-1]!r}: check the counts it reports",
        UserWarning,
        stacklevel=3,
    )


def fail(path: str, field: str, message: str, *, sample: str | None = None) -> DataError:
    """Return a DataError naming the file, the field and (when known) the sample."""
    where = f"{path}: {field}"
    if sample is not None:
        where += f" (sample {sample})"
    return DataError(f"{where}: {message}")


def choose(
    path: str, *, field: str, what: str, option: str, name: str | None, names: Sequence[str]
) -> str:
    """Return ``name``, or the only one of ``names``; a DataError listing them otherwise."""
    if name is not None:
        if name not in names:
            raise DataError(
                f"{path}: {field}: no {what} {name!r} in the log; it holds {_listed(names)}"
            )
        return name
    if len(names) == 1:
        return names[0]
    if not names:
        raise DataError(f"{path}: {field}: the log holds no {what}")
    raise DataError(
        f"{path}: {field}: the log holds several {what}s, {_listed(names)}; name one with "
        f"{option}=...{_ALIASES.get(option, '')}; on the command line "
        f"{_FLAGS.get(option, '--' + option)} NAME"
    )


# The per-tool option names that read_eval_log calls `judge`.
_ALIASES = {option: " (judge=... in read_eval_log)" for option in ("scorer", "assertion", "metric")}
# The command line's flag for each option (every kind of judge is --scorer).
_FLAGS = {"scorer": "--scorer", "assertion": "--scorer", "metric": "--scorer", "judge": "--scorer"}


def _listed(names: Sequence[str]) -> str:
    return "[" + ", ".join(repr(n) for n in names) + "]"


def shown_items(labels: Sequence[str]) -> str:
    """Return the first few labels joined, with the count of the rest."""
    head = ", ".join(labels[:_SHOWN])
    rest = len(labels) - _SHOWN
    return head + (f" and {rest} more" if rest > 0 else "")


def item_id(value: object, *, path: str, field: str) -> str:
    """Return a tool's sample id as text, never through a number (``"007"`` stays ``"007"``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise fail(path, field, f"a sample id must be text or a whole number; got {value!r}")


def raw_text(value: object) -> str:
    """Return a tool's value as text: JSON spelling for booleans and None, str otherwise."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return str(value)


def first_line(message: object, *, limit: int = 200) -> str:
    """Return the first line of an error message, cut to ``limit`` characters."""
    text = str(message).strip().splitlines()
    line = text[0] if text else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def number(value: object) -> float | None:
    """Return a finite JSON number as a float (None for anything else: booleans, NaN, text)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def load_json(path: str) -> Any:
    """Parse a whole JSON file; a DataError naming the file and position if it is not JSON."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text (a binary or corrupt file?): {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(
            f"{path}: not valid JSON (truncated or corrupt?): {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}"
        ) from exc


def iter_jsonl(path: str) -> Iterator[tuple[int, Any]]:
    """Yield (line number, parsed object) for each non-blank line of a JSON Lines file."""
    with open(path, encoding="utf-8", errors="strict") as handle:
        lines = enumerate(handle, start=1)
        while True:
            try:
                number_, line = next(lines)
            except StopIteration:
                return
            except UnicodeDecodeError as exc:
                raise DataError(
                    f"{path}: not UTF-8 text (a binary or corrupt file?): {exc}"
                ) from exc
            if not line.strip():
                continue
            try:
                yield number_, json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"{path}: line {number_} is not valid JSON (truncated or corrupt?): {exc.msg}"
                ) from exc


def epochs_in_order(keys: Sequence[tuple[str, ...]]) -> list[int]:
    """Return 1, 2, ... numbering each repeat of a key in the order the keys come."""
    seen: dict[tuple[str, ...], int] = {}
    out = []
    for key in keys:
        seen[key] = seen.get(key, 0) + 1
        out.append(seen[key])
    return out
