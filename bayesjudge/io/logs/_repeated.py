"""Repeated answers in long form (item, epoch, verdict, cluster) from any eval log.

Inspect epochs, promptfoo ``--repeat`` and lm-evaluation-harness runs read together are all
read by the per-tool readers into rulings numbered by ``epoch``; :func:`answers` turns one
system's rulings by one judge into the rows the repeated-samples estimators take, one per
answer, and attaches each item's cluster (a task, a conversation) when one is given.
:func:`inspect_metadata` reads that cluster from the samples' metadata of an Inspect log, the
key inspect_ai's own ``stderr(cluster=...)`` reads.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal, get_args

import pandas as pd

from bayesjudge.errors import DataError, MissingDependencyError
from bayesjudge.io.logs._evallog import EvalLog, fail, item_id, shown_items
from bayesjudge.io.logs._reduce import rulings

__all__ = ["Unscored", "answers", "inspect_metadata"]

#: What :func:`answers` does with a ruling that has no pass/fail verdict.
type Unscored = Literal["error", "drop"]


def answers(
    log: EvalLog,
    *,
    system: str | None = None,
    judge: str | None = None,
    clusters: Mapping[str, object] | None = None,
    unscored: Unscored = "error",
) -> pd.DataFrame:
    """Return one row per answer: ``item``, ``epoch``, ``verdict`` (and ``cluster``).

    Every epoch (Inspect ``epochs``, promptfoo ``--repeat``, an lm-eval document read twice)
    is one answer of its item. A ruling without a pass/fail verdict (status ``"unscored"`` or
    ``"error"``) is an error naming the file, the item and the epoch, unless
    ``unscored="drop"`` leaves it out (then items may hold different numbers of answers, which
    the repeated-samples estimators say in a note).

    lm-evaluation-harness scores a document once, after its filter has reduced the ``repeats``
    generations (``take_first``, ``majority_vote``), so one samples file holds one answer per
    document; several runs (e.g. with different ``--seed``) written into one file give the
    epochs.

    Parameters
    ----------
    log : EvalLog
        A log read by :func:`~bayesjudge.io.logs.read_eval_log` or a per-tool reader.
    system, judge : str, optional
        Which system and judge; by default the log's only one.
    clusters : mapping of item to cluster, optional
        The cluster of every item (e.g. :func:`inspect_metadata`); every item of the log must
        have one.
    unscored : {"error", "drop"}
        What to do with a ruling that has no verdict.

    Returns
    -------
    DataFrame
        Columns ``item`` (text), ``epoch`` (int), ``verdict`` (0.0 or 1.0) and, with
        ``clusters``, ``cluster``; sorted by item (in order of first appearance) and epoch.

    Raises
    ------
    DataError
        If the judge gives scores rather than verdicts, a ruling has no verdict and
        ``unscored="error"``, or an item has no cluster.

    Examples
    --------
    >>> from bayesjudge.io.logs._evallog import Ruling
    >>> log = EvalLog.from_rulings(
    ...     [Ruling("a", 1, "m", "j", 1.0, 1.0, "C", "ok"),
    ...      Ruling("a", 2, "m", "j", 0.0, 0.0, "I", "ok"),
    ...      Ruling("b", 1, "m", "j", 1.0, 1.0, "C", "ok")], path="x", tool="inspect")
    >>> answers(log, clusters={"a": "t1", "b": "t2"})
      item  epoch  verdict cluster
    0    a      1      1.0      t1
    1    a      2      0.0      t1
    2    b      1      1.0      t2
    """
    if unscored not in get_args(Unscored.__value__):
        raise ValueError(
            f"unscored must be one of {list(get_args(Unscored.__value__))}; got {unscored!r}"
        )
    frame = rulings(log, system=system, judge=judge)
    missing = frame["verdict"].isna()
    if missing.all() and len(frame):
        raise DataError(
            f"{log.path}: no ruling of this judge is a pass/fail verdict (scores only?); "
            "threshold the scores into verdicts first"
        )
    if missing.any() and unscored == "error":
        shown = [
            f"item {row.item!r} epoch {row.epoch} ({row.status})"
            for row in frame[missing].itertuples()
        ]
        raise DataError(
            f"{log.path}: {int(missing.sum())} ruling(s) have no pass/fail verdict: "
            f"{shown_items(shown)}; drop them with unscored='drop' once you have decided they "
            "are missing at random"
        )
    out = frame.loc[~missing, ["item", "epoch", "verdict"]].reset_index(drop=True)
    if clusters is not None:
        absent = [item for item in pd.unique(out["item"]) if item not in clusters]
        if absent:
            raise DataError(
                f"{log.path}: clusters has no entry for {len(absent)} item(s): "
                f"{shown_items([repr(a) for a in absent])}"
            )
        out["cluster"] = pd.Series(
            [clusters[item] for item in out["item"]], index=out.index, dtype=object
        )
    return out


def inspect_metadata(path: str | os.PathLike[str], key: str) -> dict[str, object]:
    """Return each sample's metadata value ``key`` from an Inspect AI log, by sample id.

    The value inspect_ai's ``stderr(cluster=key)`` groups samples by. Every epoch of a sample
    carries the sample's metadata; a sample whose epochs disagree is an error.

    Parameters
    ----------
    path : str or PathLike
        The ``.eval`` or ``.json`` log.
    key : str
        The metadata key (e.g. ``"task"``, ``"conversation"``).

    Returns
    -------
    dict
        Sample id (as text, as :func:`~bayesjudge.io.logs.read_inspect_log` gives it) to value.

    Raises
    ------
    MissingDependencyError
        If inspect_ai is not installed.
    DataError
        If a sample has no value for ``key`` (or None, or NaN), naming the file and the sample,
        or two epochs of one sample disagree.

    Examples
    --------
    >>> clusters = inspect_metadata("run.eval", "task")  # doctest: +SKIP
    """
    try:
        from inspect_ai.log import read_eval_log as inspect_read_eval_log
    except ImportError as exc:
        raise MissingDependencyError(
            "reading Inspect AI logs needs the inspect_ai package: "
            "pip install 'bayesjudge[logs]' (or pip install inspect_ai)"
        ) from exc
    name = os.fspath(path)
    if not os.path.exists(name):
        raise FileNotFoundError(f"no such file: {name!r}")
    try:
        log = inspect_read_eval_log(name)
    except Exception as exc:  # Inspect raises whatever its zip/JSON/pydantic layer raises
        raise DataError(f"{name}: Inspect AI cannot read this log: {type(exc).__name__}") from exc
    out: dict[str, object] = {}
    for index, sample in enumerate(log.samples or []):
        field = f"samples[{index}].metadata[{key!r}]"
        item = item_id(sample.id, path=name, field=f"samples[{index}].id")
        value = (sample.metadata or {}).get(key)
        if value is None or (isinstance(value, float) and value != value):
            raise fail(name, field, "missing; every sample needs a value", sample=repr(item))
        if item in out and out[item] != value:
            raise fail(
                name,
                field,
                f"epoch {sample.epoch} has {value!r} but an earlier epoch {out[item]!r}",
                sample=repr(item),
            )
        out[item] = value
    return out
