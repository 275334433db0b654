"""Read OpenAI evals record logs (``oaieval ... --record_path log.jsonl``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from bayesjudge.errors import DataError
from bayesjudge.io.logs._evallog import (
    NAN,
    EvalLog,
    Ruling,
    choose,
    fail,
    first_line,
    item_id,
    iter_jsonl,
    number,
    raw_text,
)

__all__ = ["MATCH", "read_openai_evals_log"]

#: The judge name of ``match`` events (``data.correct``).
MATCH = "match"

# What OpenAI evals' model-graded evals record when the grader's answer cannot be parsed.
_INVALID = "__invalid__"


def read_openai_evals_log(path: str | os.PathLike[str], *, metric: str | None = None) -> EvalLog:
    """Read an OpenAI evals record log into one ruling per sample and event.

    ``oaieval COMPLETION_FN EVAL --record_path log.jsonl`` writes, through
    ``evals.record.LocalRecorder``, a ``{"spec": ...}`` line, a ``{"final_report": ...}`` line
    and one line per event (``run_id``, ``event_id``, ``sample_id``, ``type``, ``data``). The
    item is the event's ``sample_id`` (``<eval>.<split>.<index in the samples file>``).

    ``metric="match"`` (the default when the log holds ``match`` events and no per-sample
    ``metrics`` events) reads ``match`` events: ``data.correct`` is the verdict. Another name
    reads that key of the ``metrics`` events (``evals.record.record_metrics``): a boolean is a
    verdict, a number a score (a verdict when every one is 0 or 1), text (a model-graded
    choice) is kept in ``raw`` with no verdict, ``"__invalid__"`` and null are unscored.
    Several events of one sample are successive rulings (``epoch`` in ``event_id`` order).
    A sample that has an ``error`` event and no ruling gives one ``"error"`` ruling; a sample
    seen in other events only gives one ``"unscored"`` ruling. ``system`` is the spec's
    completion functions joined by commas. The log records neither the version of evals nor
    one of its format, so ``version`` is empty and no format version is checked (unlike Inspect
    and promptfoo logs).

    Parameters
    ----------
    path : str or PathLike
        The record log.
    metric : str, optional
        ``"match"`` or a key of the ``metrics`` events; by default the only one.

    Returns
    -------
    EvalLog
        ``tool="openai_evals"``.

    Raises
    ------
    DataError
        On a line that is not JSON (a truncated file), a line that is not a spec, report or
        event, no events, a missing or unnamed metric, or a ``correct`` that is not a boolean.

    Examples
    --------
    >>> log = read_openai_evals_log("/tmp/evallogs/run.jsonl")  # doctest: +SKIP
    >>> log.judges  # doctest: +SKIP
    ('match',)
    """
    name = os.fspath(path)
    spec: Mapping[str, Any] | None = None
    events: list[tuple[int, Mapping[str, Any]]] = []
    for line, record in iter_jsonl(name):
        if isinstance(record, Mapping) and "spec" in record:
            spec = record["spec"] if isinstance(record["spec"], Mapping) else {}
        elif isinstance(record, Mapping) and "final_report" in record:
            continue
        elif isinstance(record, Mapping) and {"type", "sample_id", "data"} <= record.keys():
            events.append((line, record))
        else:
            raise fail(
                name,
                f"line {line}",
                "neither a spec, a final report nor an event: not an OpenAI evals record log "
                "(oaieval ... --record_path log.jsonl writes one)",
            )
    if not events:
        raise DataError(f"{name}: the log holds no events")
    judge = choose(
        name,
        field="match and metrics events",
        what="metric",
        option="metric",
        name=metric,
        names=_metrics(events),
    )
    system = ",".join(str(f) for f in (spec or {}).get("completion_fns") or []) or "unknown"
    by_sample: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
    for line, event in events:
        sample = item_id(event["sample_id"], path=name, field=f"line {line}: sample_id")
        by_sample.setdefault(sample, []).append((line, event))
    rulings: list[Ruling] = []
    for sample, sample_events in by_sample.items():
        sample_events.sort(key=lambda entry: _order(entry[1], entry[0]))
        ruled = [
            (line, event)
            for line, event in sample_events
            if (judge == MATCH and event["type"] == MATCH)
            or (judge != MATCH and event["type"] == "metrics" and judge in _data(event))
        ]
        for epoch, (line, event) in enumerate(ruled, start=1):
            rulings.append(_ruling(event, sample, epoch, system, judge, path=name, line=line))
        if not ruled:
            errors = [event for _, event in sample_events if event["type"] == "error"]
            if errors:
                message = first_line(_data(errors[0]).get("message", ""))
                rulings.append(Ruling(sample, 1, system, judge, NAN, NAN, message, "error"))
            else:
                rulings.append(Ruling(sample, 1, system, judge, NAN, NAN, "", "unscored"))
    return EvalLog.from_rulings(rulings, path=name, tool="openai_evals", version="")


def _data(event: Mapping[str, Any]) -> Mapping[str, Any]:
    data = event.get("data")
    return data if isinstance(data, Mapping) else {}


def _order(event: Mapping[str, Any], line: int) -> tuple[int, int]:
    event_id = event.get("event_id")
    return (event_id if isinstance(event_id, int) else line, line)


def _metrics(events: list[tuple[int, Mapping[str, Any]]]) -> list[str]:
    names: dict[str, None] = {}
    for _, event in events:
        if event["type"] == MATCH:
            names.setdefault(MATCH, None)
        elif event["type"] == "metrics":
            for key in _data(event):
                names.setdefault(str(key), None)
    return list(names)


def _ruling(
    event: Mapping[str, Any],
    sample: str,
    epoch: int,
    system: str,
    judge: str,
    *,
    path: str,
    line: int,
) -> Ruling:
    data = _data(event)
    if judge == MATCH:
        correct = data.get("correct")
        if not isinstance(correct, bool):
            raise fail(
                path,
                f"line {line}: data.correct",
                f"expected true or false; got {correct!r}",
                sample=repr(sample),
            )
        verdict = float(correct)
        return Ruling(sample, epoch, system, judge, verdict, verdict, raw_text(correct), "ok")
    value = data[judge]
    if isinstance(value, bool):
        verdict = float(value)
        return Ruling(sample, epoch, system, judge, verdict, verdict, raw_text(value), "ok")
    score = number(value)
    if score is not None:
        return Ruling(sample, epoch, system, judge, NAN, score, raw_text(value), "ok")
    if value is None or value == _INVALID or isinstance(value, float):  # float: NaN
        return Ruling(sample, epoch, system, judge, NAN, NAN, raw_text(value), "unscored")
    return Ruling(sample, epoch, system, judge, NAN, NAN, raw_text(value), "ok")
