"""Turn an EvalLog into what the models take: rulings in long form, or one verdict per item."""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np
import pandas as pd

from bayesjudge.errors import DataError
from bayesjudge.io.logs._evallog import EvalLog, choose, shown_items

__all__ = ["EpochRule", "item_scores", "item_verdicts", "rulings"]

#: How several rulings of one item become one verdict.
type EpochRule = Literal["first", "majority", "any", "all"]


def rulings(log: EvalLog, *, system: str | None = None, judge: str | None = None) -> pd.DataFrame:
    """Return one system's rulings by one judge in long form, for the retry-gate model.

    Parameters
    ----------
    log : EvalLog
        A log read by :func:`~bayesjudge.io.logs.read_eval_log` or a per-tool reader.
    system, judge : str, optional
        Which system and judge; by default the log's only one.

    Returns
    -------
    DataFrame
        Columns ``item``, ``epoch``, ``verdict``, ``status``, one row per ruling, sorted by
        item (in order of first appearance) and epoch. Rulings without a pass/fail verdict
        (status ``"unscored"`` or ``"error"``, continuous scores) are kept, with ``verdict``
        NaN: whether they are failures, retries or missing at random is the analyst's call,
        so keep ``frame[frame.verdict.notna()]`` only once that call is made.

    Raises
    ------
    DataError
        If the log holds several systems or judges and none was named, or the named one is
        not in it.

    Examples
    --------
    >>> from bayesjudge.io.logs._evallog import Ruling
    >>> log = EvalLog.from_rulings(
    ...     [Ruling("a", 1, "m", "j", 1.0, 1.0, "C", "ok"),
    ...      Ruling("a", 2, "m", "j", 0.0, 0.0, "I", "ok")], path="x", tool="inspect")
    >>> rulings(log)
      item  epoch  verdict status
    0    a      1      1.0     ok
    1    a      2      0.0     ok
    """
    frame = _selected(log, system=system, judge=judge)
    out = frame[["item", "epoch", "verdict", "status"]]
    order = pd.Categorical(out["item"], categories=pd.unique(out["item"]), ordered=True)
    out = out.assign(_order=order).sort_values(["_order", "epoch"], kind="stable")
    return out.drop(columns="_order").reset_index(drop=True)


def item_verdicts(
    log: EvalLog,
    *,
    epochs: EpochRule | None = None,
    system: str | None = None,
    judge: str | None = None,
) -> pd.DataFrame:
    r"""Return one verdict per item, reducing repeated rulings by an explicit rule.

    Only rulings with a pass/fail verdict take part. With ``r`` of them for an item, ``k`` of
    which passed, the item's verdict is, by ``epochs``:

    * ``"first"``: the verdict of the earliest epoch;
    * ``"majority"``: pass when :math:`k \ge \lfloor r/2 \rfloor + 1` (a tie fails), the
      majority stopping rule of the retry-gate model;
    * ``"any"``: pass when :math:`k \ge 1` (retry until PASS);
    * ``"all"``: pass when :math:`k = r` (unanimous).

    Parameters
    ----------
    log : EvalLog
        A log read by :func:`~bayesjudge.io.logs.read_eval_log` or a per-tool reader.
    epochs : {"first", "majority", "any", "all"}, optional
        The rule. Required when any item has more than one verdict.
    system, judge : str, optional
        Which system and judge; by default the log's only one.

    Returns
    -------
    DataFrame
        Columns ``item``, ``verdict`` (1.0/0.0, NaN for an item with no pass/fail verdict at
        all, e.g. every epoch errored), ``n_rulings`` (the verdicts reduced), ``n_pass`` and
        ``n_other`` (the item's rulings without a verdict: unscored, errors, scores), one row
        per item in order of first appearance.

    Raises
    ------
    ValueError
        If ``epochs`` is not one of the rules.
    DataError
        If an item has several verdicts and ``epochs`` is None (the message names the items),
        the judge gives no pass/fail verdicts at all, or the system or judge is ambiguous or
        missing.

    Examples
    --------
    >>> from bayesjudge.io.logs._evallog import Ruling
    >>> log = EvalLog.from_rulings(
    ...     [Ruling("a", 1, "m", "j", 1.0, 1.0, "C", "ok"),
    ...      Ruling("a", 2, "m", "j", 0.0, 0.0, "I", "ok"),
    ...      Ruling("b", 1, "m", "j", 0.0, 0.0, "I", "ok")], path="x", tool="inspect")
    >>> item_verdicts(log, epochs="any")
      item  verdict  n_rulings  n_pass  n_other
    0    a      1.0          2       1        0
    1    b      0.0          1       0        0
    """
    if epochs is not None and epochs not in get_args(EpochRule.__value__):
        raise ValueError(
            f"epochs must be one of {list(get_args(EpochRule.__value__))} or None; got {epochs!r}"
        )
    frame = _selected(log, system=system, judge=judge)
    has_verdict = frame["verdict"].notna()
    chosen_judge = str(frame["judge"].iloc[0]) if len(frame) else str(judge)
    if len(frame) and not has_verdict.any():
        raise DataError(
            f"{log.path}: judge {chosen_judge!r} gives no pass/fail verdicts (its rulings are "
            "scores, unscored or errors); read another scorer or metric, or threshold the "
            "scores yourself"
        )
    items = pd.unique(frame["item"])
    verdicts = frame[has_verdict].sort_values("epoch", kind="stable")
    grouped = verdicts.groupby("item", sort=False)["verdict"]
    r = grouped.size().reindex(items, fill_value=0).to_numpy(dtype=np.int64)
    k = grouped.sum().reindex(items, fill_value=0.0).to_numpy().astype(np.int64)
    first = grouped.first().reindex(items).to_numpy(dtype=float)
    other = (
        frame[~has_verdict]
        .groupby("item", sort=False)
        .size()
        .reindex(items, fill_value=0)
        .to_numpy(dtype=np.int64)
    )
    if epochs is None and (r > 1).any():
        several = [f"{item!r} ({n})" for item, n in zip(items, r, strict=True) if n > 1]
        raise DataError(
            f"{log.path}: {len(several)} item(s) have several rulings by {chosen_judge!r} "
            f"(item (rulings): {shown_items(several)}); reduce them with epochs='first', "
            "'majority', 'any' or 'all' (on the command line --epochs), or model every ruling "
            "with rulings(...) (bayesjudge gate)"
        )
    if epochs is None or epochs == "first":
        verdict = first
    elif epochs == "majority":
        verdict = (k >= r // 2 + 1).astype(float)
    elif epochs == "any":
        verdict = (k >= 1).astype(float)
    else:
        verdict = (k == r).astype(float)
    verdict = np.where(r > 0, verdict, np.nan)
    return pd.DataFrame(
        {
            "item": pd.Series(items, dtype=str),
            "verdict": verdict,
            "n_rulings": r,
            "n_pass": k,
            "n_other": other,
        }
    )


def _selected(log: EvalLog, *, system: str | None, judge: str | None) -> pd.DataFrame:
    frame = log.frame
    chosen_system = choose(
        log.path, field="system", what="system", option="system", name=system, names=log.systems
    )
    frame = frame[frame["system"] == chosen_system]
    judges = tuple(pd.unique(frame["judge"]))
    chosen_judge = choose(
        log.path, field="judge", what="judge", option="judge", name=judge, names=judges
    )
    return frame[frame["judge"] == chosen_judge]


def item_scores(
    log: EvalLog,
    *,
    epochs: Literal["first"] | None = None,
    system: str | None = None,
    judge: str | None = None,
) -> pd.DataFrame:
    """Return one numeric score per item, for a judge that scores rather than rules.

    Only rulings with a score take part. An item with one scored ruling keeps its score; with
    several, ``epochs="first"`` keeps the earliest epoch's (the other rules combine pass/fail
    verdicts, so scores must first be thresholded: :meth:`EvalLog.thresholded`).

    Parameters
    ----------
    log : EvalLog
        A log read by :func:`~bayesjudge.io.logs.read_eval_log` or a per-tool reader.
    epochs : {"first"}, optional
        The rule for items with several scores. Required when any item has several.
    system, judge : str, optional
        Which system and judge; by default the log's only one.

    Returns
    -------
    DataFrame
        Columns ``item``, ``score`` (NaN for an item without any score, e.g. every epoch
        errored) and ``n_rulings`` (the scores read), one row per item in order of first
        appearance.

    Raises
    ------
    ValueError
        If ``epochs`` is not ``"first"`` or None.
    DataError
        If an item has several scores and ``epochs`` is None, or the judge gives no scores.

    Examples
    --------
    >>> from bayesjudge.io.logs._evallog import Ruling, NAN
    >>> log = EvalLog.from_rulings(
    ...     [Ruling("a", 1, "m", "j", NAN, 0.25, "0.25", "ok"),
    ...      Ruling("a", 2, "m", "j", NAN, 0.75, "0.75", "ok"),
    ...      Ruling("b", 1, "m", "j", NAN, 0.5, "0.5", "ok")], path="x", tool="inspect")
    >>> item_scores(log, epochs="first")
      item  score  n_rulings
    0    a   0.25          2
    1    b   0.50          1
    """
    if epochs not in (None, "first"):
        raise ValueError(
            f"epochs must be 'first' or None for scores; got {epochs!r} ('majority', 'any' and "
            "'all' combine pass/fail verdicts: threshold the scores first)"
        )
    frame = _selected(log, system=system, judge=judge)
    scored = frame["score"].notna()
    chosen_judge = str(frame["judge"].iloc[0]) if len(frame) else str(judge)
    if len(frame) and not scored.any():
        raise DataError(f"{log.path}: judge {chosen_judge!r} gives no numeric scores")
    items = pd.unique(frame["item"])
    grouped = frame[scored].sort_values("epoch", kind="stable").groupby("item", sort=False)
    r = grouped.size().reindex(items, fill_value=0).to_numpy(dtype=np.int64)
    if epochs is None and (r > 1).any():
        several = [f"{item!r} ({n})" for item, n in zip(items, r, strict=True) if n > 1]
        raise DataError(
            f"{log.path}: {len(several)} item(s) have several scores by {chosen_judge!r} "
            f"(item (scores): {shown_items(several)}); keep the first with epochs='first', or "
            "threshold the scores and combine the verdicts"
        )
    first = grouped["score"].first().reindex(items).to_numpy(dtype=float)
    return pd.DataFrame({"item": pd.Series(items, dtype=str), "score": first, "n_rulings": r})
