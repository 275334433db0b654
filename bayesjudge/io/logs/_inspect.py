"""Read Inspect AI evaluation logs (``.eval`` and ``.json``) through Inspect's own reader."""

from __future__ import annotations

import math
import os
from typing import Any, Literal, get_args

from bayesjudge.errors import DataError, MissingDependencyError
from bayesjudge.io.logs._evallog import (
    NAN,
    EvalLog,
    Ruling,
    choose,
    fail,
    first_line,
    item_id,
    raw_text,
    shown_items,
    status_counts,
)

__all__ = ["Partial", "read_inspect_log"]

#: What to make of Inspect's partial grade ``"P"``: a fail, a pass, or no ruling at all.
type Partial = Literal["fail", "pass", "drop"]

# Inspect's grade letters (inspect_ai.scorer: CORRECT, INCORRECT, NOANSWER) and the plain
# spellings its value_to_float also reads as pass or fail.
_PASS = frozenset({"C", "yes", "true"})
_FAIL = frozenset({"I", "N", "no", "false"})
_PARTIAL = "P"

_INSTALL = (
    "reading Inspect AI logs needs the inspect_ai package: "
    "pip install 'bayesjudge[logs]' (or pip install inspect_ai)"
)


def read_inspect_log(
    path: str | os.PathLike[str],
    *,
    scorer: str | None = None,
    partial: Partial | None = None,
) -> EvalLog:
    """Read an Inspect AI log (``.eval`` or ``.json``) into one ruling per sample and epoch.

    The log is opened with ``inspect_ai.log.read_eval_log``, so every log format Inspect reads
    is read: Inspect checks the log's format ``version`` itself, reading older ones and refusing
    newer ones (an error that says to upgrade inspect_ai). Each sample and epoch gives one
    ruling of the chosen scorer: ``item`` is the sample id as text, ``epoch`` Inspect's epoch,
    ``system`` the model, ``judge`` the scorer.

    ========================================  ==========  ===========  ============
    Inspect score value                       ``status``  verdict      score
    ========================================  ==========  ===========  ============
    ``"C"`` (correct), ``"yes"``, ``"true"``  ok          1            1
    ``"I"``, ``"N"`` (no answer), ``"no"``    ok          0            0
    ``"P"`` (partial credit)                  partial     ``partial``  0.5
    ``True`` / ``False``                      ok          1 / 0        1 / 0
    a number (or numeric text)                ok          see below    the number
    NaN (``Score.unscored()``), no score      unscored    NaN          NaN
    sample with an error                      error       NaN          NaN
    ========================================  ==========  ===========  ============

    A numeric scorer whose scores are all exactly 0 or 1 is read as pass/fail; otherwise its
    verdicts stay NaN and its scores are kept. The letters and their values are Inspect's own
    (``inspect_ai.scorer.value_to_float``).

    Parameters
    ----------
    path : str or PathLike
        The log file.
    scorer : str, optional
        The scorer whose values are the judge's verdicts; by default the log's only scorer.
    partial : {"fail", "pass", "drop"}, optional
        What a partial grade ``"P"`` counts as: a fail, a pass, or no ruling (the row is left
        out of the table and counted in ``dropped``). Required when the log holds any; the
        count of partial grades is in ``counts["partial"]`` whatever the choice.

    Returns
    -------
    EvalLog
        ``tool="inspect"``; ``version`` is the inspect_ai version that wrote the log.

    Raises
    ------
    MissingDependencyError
        If inspect_ai is not installed.
    DataError
        If Inspect cannot read the file (truncated, corrupt, not a log), the log holds no
        samples, the scorer is missing or was not named among several, a score value is not
        one bayesjudge reads (a list, a dict, unknown text), or partial grades are present and
        ``partial`` is None.

    Examples
    --------
    >>> log = read_inspect_log("run.eval", scorer="match", partial="fail")  # doctest: +SKIP
    >>> log.counts  # doctest: +SKIP
    {'ok': 38, 'partial': 2, 'unscored': 0, 'error': 1}
    """
    if partial is not None and partial not in get_args(Partial.__value__):
        raise ValueError(
            f"partial must be one of {list(get_args(Partial.__value__))} or None; got {partial!r}"
        )
    try:
        from inspect_ai.log import read_eval_log as inspect_read_eval_log
    except ImportError as exc:
        raise MissingDependencyError(_INSTALL) from exc
    name = os.fspath(path)
    if not os.path.exists(name):
        raise FileNotFoundError(f"no such file: {name!r}")
    try:
        log = inspect_read_eval_log(name)
    # Inspect raises whatever its zip, JSON or pydantic layer raises on a damaged file.
    except Exception as exc:
        text = first_line(exc)
        if text.startswith("Unable to read version"):  # Inspect refuses a newer log format
            from inspect_ai import __version__ as installed

            raise DataError(
                f"{name}: the log's format is newer than inspect_ai {installed} reads ({text}): "
                "upgrade it, pip install -U inspect_ai"
            ) from exc
        raise DataError(
            f"{name}: Inspect AI cannot read this log (truncated, corrupt or not a log?): "
            f"{type(exc).__name__}: {first_line(exc)}"
        ) from exc
    samples = log.samples
    if not samples:
        raise fail(
            name,
            "samples",
            "the log holds no samples (written with log_samples=False, or a header only)",
        )
    chosen = choose(
        name,
        field="samples[].scores",
        what="scorer",
        option="scorer",
        name=scorer,
        names=_scorers(log),
    )
    system = str(log.eval.model)
    rulings = [_ruling(sample, index, chosen, system, name) for index, sample in enumerate(samples)]
    counts = status_counts(r.status for r in rulings)
    rulings, dropped = _resolve_partial(rulings, partial, path=name, scorer=chosen)
    return EvalLog.from_rulings(
        rulings,
        path=name,
        tool="inspect",
        version=str(log.eval.packages.get("inspect_ai", "")),
        counts=counts,
        dropped=dropped,
    )


def _scorers(log: Any) -> list[str]:
    """Return the scorer names, in order: those the samples hold, else those the header lists."""
    names: dict[str, None] = {}
    for sample in log.samples:
        for key in sample.scores or {}:
            names.setdefault(str(key), None)
    if not names:
        for spec in log.eval.scorers or []:
            names.setdefault(str(spec.name), None)
    return list(names)


def _ruling(sample: Any, index: int, scorer: str, system: str, path: str) -> Ruling:
    field = f"samples[{index}]"
    item = item_id(sample.id, path=path, field=f"{field}.id")
    epoch = int(sample.epoch)
    label = f"{item!r}, epoch {epoch}"
    if sample.error is not None:
        message = first_line(getattr(sample.error, "message", sample.error))
        return Ruling(item, epoch, system, scorer, NAN, NAN, message, "error")
    score = (sample.scores or {}).get(scorer)
    if score is None:
        return Ruling(item, epoch, system, scorer, NAN, NAN, "", "unscored")
    value = score.value
    verdict, number, status = _read_value(
        value, path=path, field=f"{field}.scores[{scorer!r}].value", sample=label
    )
    return Ruling(item, epoch, system, scorer, verdict, number, raw_text(value), status)


def _read_value(
    value: object, *, path: str, field: str, sample: str
) -> tuple[float, float, Literal["ok", "partial", "unscored"]]:
    """Return (verdict, score, status) for one Inspect score value."""
    if isinstance(value, bool):
        return float(value), float(value), "ok"
    if isinstance(value, int | float):
        if math.isnan(value):
            return NAN, NAN, "unscored"
        return NAN, float(value), "ok"
    if isinstance(value, str):
        text = value.strip()
        if text == _PARTIAL:
            return NAN, 0.5, "partial"
        if text in _PASS or text.lower() in _PASS:
            return 1.0, 1.0, "ok"
        if text in _FAIL or text.lower() in _FAIL:
            return 0.0, 0.0, "ok"
        try:
            number = float(text)
        except ValueError:
            number = NAN
        if math.isfinite(number):
            return NAN, number, "ok"
        raise fail(
            path,
            field,
            f"{value!r} is not a grade bayesjudge reads: expected 'C' (correct), 'I' "
            "(incorrect), 'P' (partial), 'N' (no answer), a boolean or a number",
            sample=sample,
        )
    raise fail(
        path,
        field,
        f"a {type(value).__name__} value ({value!r}); bayesjudge reads one scalar per scorer, "
        "so pick a scorer that returns one",
        sample=sample,
    )


def _resolve_partial(
    rulings: list[Ruling], partial: Partial | None, *, path: str, scorer: str
) -> tuple[list[Ruling], int]:
    """Apply the ``partial`` rule to the partial grades; return the rulings and the drop count."""
    partials = [r for r in rulings if r.status == "partial"]
    if not partials:
        return rulings, 0
    if partial is None:
        where = shown_items([f"{r.item!r} (epoch {r.epoch})" for r in partials])
        raise DataError(
            f"{path}: samples[].scores[{scorer!r}]: {len(partials)} partial grade(s) 'P', for "
            f"samples {where}; say what they count as with partial='fail', 'pass' or 'drop' "
            "(on the command line --partial)"
        )
    if partial == "drop":
        return [r for r in rulings if r.status != "partial"], len(partials)
    verdict = 1.0 if partial == "pass" else 0.0
    resolved = [
        Ruling(r.item, r.epoch, r.system, r.judge, verdict, r.score, r.raw, r.status)
        if r.status == "partial"
        else r
        for r in rulings
    ]
    return resolved, 0
