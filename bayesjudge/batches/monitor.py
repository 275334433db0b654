r"""A monitor that may be looked at after every batch: anytime-valid alarms beside a Bayesian rule.

After each batch :func:`monitor_batches` decides two things, each with a false-alarm guarantee
that holds however often one looks (Ville's inequality: a nonnegative supermartingale that
starts at 1 ever reaches :math:`1/a` with probability at most :math:`a`):

**"pi below the threshold".** Each item of batch :math:`t` gives the prediction-powered term

.. math::

    Z_i = f_i + \frac{L_i}{p_t}\,(Y_i - f_i),\qquad E[Z_i] = \pi_t,

with :math:`f_i` the judge's verdict, :math:`Y_i` the gold label, :math:`L_i` whether the item
was gold-labelled and :math:`p_t` the batch's labelled fraction (Angelopoulos, Bates, Fannjiang,
Jordan and Zrnic, "Prediction-powered inference", 2023; its sequential form: Kilian, Cortinovis
and Caron, "Anytime-valid, Bayes-assisted, prediction-powered inference", 2025; Csillag,
Struchiner and Goedert, "Prediction-powered e-values", ICML 2025). :math:`Z_i` lies in
:math:`[1 - 1/p_t, 1/p_t]`, so the betting construction of a confidence sequence for a bounded
mean applies (Waudby-Smith and Ramdas, "Estimating means of bounded random variables by
betting", 2024): for the null :math:`H_c: \pi_u \ge c` for every batch :math:`u \ge s`, the
wealth

.. math::

    K^{(s)}_t(c) = \frac{1}{J}\sum_{j=1}^{J} \prod_{u=s}^{t} \prod_{i \in u}
    \bigl(1 + \lambda_{j,u}(c)\,(c - Z_i)\bigr),\qquad
    \lambda_{j,u}(c) = \frac{2^{-j}}{1/p_u - c},

is a nonnegative supermartingale under :math:`H_c` (each factor has mean
:math:`1 - \lambda(\pi_u - c) \le 1` and stays positive), a mixture over :math:`J = 12` bets so
that no bet is tuned on the data. A batch's product depends only on its six counts, so the
wealth is exact and cheap. The confidence sequence of the mean :math:`\pi` since batch
:math:`s` is the set of :math:`c` not rejected; the alarm rings when, for some start
:math:`s \le t`, it lies wholly below the threshold: :math:`K^{(s)}_t(\pi_0) \ge
1/(\alpha_1 w_s)` with :math:`w_s = 1/\{s(s+1)\}` (summing to 1), so that a drop is detected
soon after it happens and not only once it has pulled down the mean since the first batch.
With :math:`\alpha_1 = \alpha/2`, the probability of ever raising this alarm while every
:math:`\pi_t \ge \pi_0` is at most :math:`\alpha/2`.

**"judge drifted".** The null: the judge's :math:`S_e, S_p` are the same in every batch (its
gold items' verdicts are Bernoulli(:math:`S_e`) for gold-PASS and Bernoulli(:math:`1 - S_p`) for
gold-FAIL items). The e-process is a universal-inference ratio (Wasserman, Ramdas and
Balakrishnan, "Universal inference", 2020): a Bayes mixture over a change point :math:`\tau`
(prior :math:`1/\{\tau(\tau - 1)\}`) and over which rates changed there (:math:`S_e`,
:math:`S_p` or both, 1/3 each; Jeffreys Beta(1/2, 1/2) rates in each segment) over the
maximised likelihood of constant rates,

.. math::

    E_t = \frac{\sum_\tau \pi(\tau)\, m(\text{gold}_{<\tau})\, m(\text{gold}_{\ge\tau})}
    {\sup_{S_e, S_p} L(S_e, S_p; \text{gold}_{\le t})} ,

which under the null is bounded by a test martingale; the alarm rings when
:math:`E_t \ge 2/\alpha`. Both alarms together: a false alarm with probability at most
:math:`\alpha`.

**The Bayesian rule, beside them.** Per batch, the exact posterior of the prevalence model on
that batch alone (:func:`bayesjudge.prevalence.exact_posterior`) and the alarm
:math:`P(\pi_t < \pi_0 \mid \text{batch}) > \text{level}`. It has no guarantee under repeated
looking; its false-alarm rate is measured by simulation (``benchmarks/monitor_false_alarm.py``)
and reported as such.

Assumptions: within a batch the gold items are a random sample of the batch's items (each item
labelled with the same probability :math:`p_t`, read as the labelled fraction), as PPI assumes;
a batch without gold labels leaves the wealth unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import betaln, logsumexp, xlogy

from bayesjudge.batches.data import COUNT_COLUMNS, BatchedData
from bayesjudge.validation import check_prob

__all__ = [
    "BatchStatus",
    "MonitorAnalysis",
    "below_log_wealth",
    "drift_log_e",
    "monitor_batches",
    "ppi_cells",
    "start_weights",
]

#: The bets mixed in the wealth: fractions :math:`2^{-j}`, ``j = 1..12``, of the largest bet.
BET_FRACTIONS: np.ndarray = 2.0 ** -np.arange(1, 13)
_C_GRID = np.linspace(0.0, 1.0, 401)


def ppi_cells(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Return the values of the prediction-powered terms :math:`Z_i` of each batch, and counts.

    Parameters
    ----------
    counts : ndarray, shape (..., batches, 6)
        The six counts ``m1, x1, m0, x0, n, k`` of each batch (leading axes: replicates).

    Returns
    -------
    values : ndarray, shape (..., batches, 6)
        :math:`Z` of each kind of item: unlabelled PASS (1) and FAIL (0); gold-PASS judged PASS
        (1) and FAIL (:math:`1/p`); gold-FAIL judged PASS (:math:`1 - 1/p`) and FAIL (0).
    weights : ndarray, shape (..., batches, 6)
        How many items of each kind.
    inverse_p : ndarray, shape (..., batches)
        :math:`1/p_t` (``inf`` for a batch without gold labels, whose weights are then zero
        but for the unlabelled cells).

    Examples
    --------
    >>> values, weights, w = ppi_cells(np.array([[2, 1, 2, 1, 4, 3]]))
    >>> float((values * weights).sum() / weights.sum())  # mean judge verdict + rectifier
    0.625
    """
    c = np.asarray(counts, dtype=float)
    m1, x1, m0, x0, n, k = np.moveaxis(c, -1, 0)
    gold = m1 + m0
    with np.errstate(divide="ignore"):
        inverse_p = np.where(gold > 0, (gold + n) / np.where(gold > 0, gold, 1.0), np.inf)
    w = np.where(np.isfinite(inverse_p), inverse_p, 0.0)
    one, zero = np.ones_like(w), np.zeros_like(w)
    values = np.stack([one, zero, one, w, 1.0 - w, zero], axis=-1)
    weights = np.stack([k, n - k, x1, m1 - x1, x0, m0 - x0], axis=-1)
    return values, weights, inverse_p


def below_log_wealth(
    counts: np.ndarray, c: float | np.ndarray, *, side: str = "below"
) -> np.ndarray:
    r"""Each batch's log wealth factor of the bets against :math:`\pi \ge c` (or :math:`\le c`).

    Parameters
    ----------
    counts : ndarray, shape (..., batches, 6)
        The six counts of each batch.
    c : float or ndarray of shape (grid,)
        The candidate value(s) of :math:`\pi`.
    side : {"below", "above"}
        ``"below"`` bets that the mean is below ``c`` (:math:`1 + \lambda(c - Z)`, against
        :math:`H: \pi \ge c`); ``"above"`` that it is above (:math:`1 + \lambda(Z - c)`).

    Returns
    -------
    ndarray, shape (..., batches, grid, 12)
        :math:`\sum_{i \in t} \log(1 + \lambda_j (c - Z_i))` for each bet :math:`j` of
        :data:`BET_FRACTIONS` (zero for a batch without gold labels). ``grid`` is 1 for a
        scalar ``c``.
    """
    values, weights, inverse_p = ppi_cells(counts)
    grid = np.atleast_1d(np.asarray(c, dtype=float))
    labelled = np.isfinite(inverse_p)[..., None, None]  # (..., T, 1, 1)
    w = np.where(np.isfinite(inverse_p), inverse_p, 2.0)[..., None]  # (..., T, 1)
    if side == "below":
        largest = 1.0 / np.maximum(w - grid, 1e-12)  # Z <= 1/p: 1 + lam (c - Z) > 0
        step = grid[:, None] - values[..., None, :]  # (..., T, G, 6)
    elif side == "above":
        largest = 1.0 / np.maximum(grid + w - 1.0, 1e-12)  # Z >= 1 - 1/p
        step = values[..., None, :] - grid[:, None]
    else:
        raise ValueError(f"side must be 'below' or 'above'; got {side!r}")
    lam = largest[..., None] * BET_FRACTIONS  # (..., T, G, J)
    terms = np.log1p(lam[..., None, :] * step[..., None]).swapaxes(-1, -2)  # (..., T, G, J, 6)
    logs = np.einsum("...tgjc,...tc->...tgj", terms, weights)
    return np.where(labelled, logs, 0.0)


def start_weights(batches: int) -> np.ndarray:
    r"""Weights :math:`w_s = 1/\{s(s+1)\}` of the start batches ``s = 1..batches`` (sum < 1)."""
    s = np.arange(1, batches + 1, dtype=float)
    return 1.0 / (s * (s + 1.0))


def _mixed(log_factors: np.ndarray) -> np.ndarray:
    """Return log mean over bets (axis -1) of exp(cumulated log factors)."""
    return np.asarray(logsumexp(log_factors, axis=-1) - np.log(log_factors.shape[-1]))


def below_since(counts: np.ndarray, threshold: float) -> np.ndarray:
    r"""Log wealth :math:`\log K^{(s)}_t(\pi_0)` for every start ``s`` and batch ``t``.

    Parameters
    ----------
    counts : ndarray, shape (..., batches, 6)
    threshold : float

    Returns
    -------
    ndarray, shape (..., batches t, batches s)
        ``-inf`` where ``s > t``.
    """
    logs = below_log_wealth(counts, threshold)[..., 0, :]  # (..., T, J)
    total = np.cumsum(logs, axis=-2)
    before = np.concatenate([np.zeros_like(total[..., :1, :]), total[..., :-1, :]], axis=-2)
    since = total[..., :, None, :] - before[..., None, :, :]  # (..., t, s, J)
    out = _mixed(since)
    size = counts.shape[-2]
    later = np.arange(size)[None, :] > np.arange(size)[:, None]
    return np.where(later, -np.inf, out)


def below_alarms(counts: np.ndarray, threshold: float, alpha: float) -> np.ndarray:
    r"""Whether the "pi below the threshold" alarm rings after each batch (level ``alpha``).

    Rings at batch :math:`t` when :math:`K^{(s)}_t(\pi_0) \ge 1/(\alpha w_s)` for some
    :math:`s \le t`. Vectorised over leading replicate axes: shape ``(..., batches)``.
    """
    log_k = below_since(counts, threshold)
    bar = -np.log(alpha * start_weights(counts.shape[-2]))
    return (log_k >= bar).any(axis=-1)


def _bb_log(success: np.ndarray, failure: np.ndarray) -> np.ndarray:
    """Log marginal likelihood of a Bernoulli sequence under a Jeffreys Beta(1/2, 1/2) rate."""
    return betaln(success + 0.5, failure + 0.5) - betaln(0.5, 0.5)


def _ml_log(success: np.ndarray, failure: np.ndarray) -> np.ndarray:
    total = success + failure
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(total > 0, success / np.where(total > 0, total, 1.0), 0.5)
    return xlogy(success, rate) + xlogy(failure, 1.0 - rate)


def drift_log_e(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Log e-process against "the judge's Se and Sp never changed", after each batch.

    Parameters
    ----------
    counts : ndarray, shape (..., batches, 6)

    Returns
    -------
    log_e : ndarray, shape (..., batches)
        :math:`\log E_t` (see the module docstring).
    change : ndarray of int, shape (..., batches)
        The change batch :math:`\tau` (0-based) weighing most in the numerator at each
        :math:`t`; -1 when no change point does better than none.
    """
    c = np.asarray(counts, dtype=float)
    m1, x1, m0, x0 = (c[..., i] for i in range(4))
    streams = [(x1, m1 - x1), (x0, m0 - x0)]  # successes, failures per batch
    size = c.shape[-2]
    cum = [(np.cumsum(s, axis=-1), np.cumsum(f, axis=-1)) for s, f in streams]

    def zero_first(a: np.ndarray) -> np.ndarray:
        return np.concatenate([np.zeros_like(a[..., :1]), a[..., :-1]], axis=-1)

    whole = [_bb_log(s, f) for s, f in cum]  # one segment 1..t, per stream: (..., T)
    den = sum(_ml_log(s, f) for s, f in cum)
    # two segments: batches before tau and tau..t (tau = 1..t, 0-based), per stream
    split = []
    for s_cum, f_cum in cum:
        s_before, f_before = zero_first(s_cum), zero_first(f_cum)  # totals of batches < tau
        # tau > t holds no data after tau; clipped at 0 here and left out below
        s_after = np.maximum(s_cum[..., :, None] - s_before[..., None, :], 0.0)
        f_after = np.maximum(f_cum[..., :, None] - f_before[..., None, :], 0.0)
        split.append(_bb_log(s_before, f_before)[..., None, :] + _bb_log(s_after, f_after))
    # which rates changed at tau: Se only, Sp only or both (weight 1/3 each)
    se_only = split[0] + whole[1][..., :, None]
    sp_only = whole[0][..., :, None] + split[1]
    both = split[0] + split[1]
    kinds = np.stack([se_only, sp_only, both], axis=-1)
    log_terms = _mixed(kinds)
    whole_sum = whole[0] + whole[1]
    tau = np.arange(size, dtype=float)
    prior = np.where(tau >= 1, 1.0 / np.maximum(tau * (tau + 1.0), 1.0), 0.0)  # 1-based tau+1
    t_index = np.arange(size)
    valid = (tau[None, :] >= 1) & (tau[None, :] <= t_index[:, None])
    with np.errstate(divide="ignore"):
        weighted = np.where(valid, log_terms + np.log(np.where(prior > 0, prior, 1.0)), -np.inf)
        rest = np.log(1.0 / (t_index + 1.0))  # prior mass of change points after t
    stacked = np.concatenate([weighted, (whole_sum + rest)[..., None]], axis=-1)
    num = logsumexp(stacked, axis=-1)
    best = np.argmax(stacked, axis=-1)
    change = np.where(best == size, -1, best)
    return num - den, change


@dataclass(frozen=True, slots=True)
class BatchStatus:
    r"""What the monitor says after one batch.

    Attributes
    ----------
    batch : str
        The batch.
    items, labelled : int
        Its items, and how many carry a gold label.
    estimate : float or None
        Its prediction-powered estimate of pi (None without gold labels).
    low, high : float
        The confidence sequence of pi, were it constant since the first batch (two-sided,
        level ``1 - alpha``; the running intersection, so nested). ``low > high`` (an empty
        sequence) is evidence that pi is not constant: see ``changed``.
    changed : bool
        Whether the sequence is empty: pi has not been the same in every batch (an
        anytime-valid conclusion at level ``alpha``).
    recent_high : float
        The lowest upper bound over start batches ``s`` of the confidence sequences of the
        mean pi since ``s`` (each at its level ``alpha/2 * w_s``).
    since : str
        The start batch of ``recent_high``.
    below : bool
        The "pi below the threshold" alarm.
    drift_e : float
        The judge-drift e-value :math:`E_t`.
    drift : bool
        The "judge drifted" alarm (:math:`E_t \ge 2/\alpha`).
    change_at : str or None
        The batch where the judge most likely changed, when ``drift``.
    p_below : float or None
        Bayesian :math:`P(\pi_t < \pi_0 \mid \text{batch})` (None when the batch cannot be
        fitted alone: no gold item of a class, or no unlabelled item).
    bayes_below : bool
        Whether ``p_below > level``.
    """

    batch: str
    items: int
    labelled: int
    estimate: float | None
    low: float
    high: float
    changed: bool
    recent_high: float
    since: str
    below: bool
    drift_e: float
    drift: bool
    change_at: str | None
    p_below: float | None
    bayes_below: bool

    def to_dict(self) -> dict[str, Any]:
        """Return the status as a JSON-ready mapping."""
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class MonitorAnalysis:
    r"""The monitor's answer after every batch (:func:`monitor_batches`).

    Attributes
    ----------
    counts : DataFrame
        The six counts of each batch (:meth:`BatchedData.counts`).
    threshold, alpha, level : float
        The threshold :math:`\pi_0`, the false-alarm level of the anytime-valid alarms, and
        the posterior probability of the Bayesian rule.
    statuses : tuple of BatchStatus
        One per batch, in order.
    """

    counts: pd.DataFrame
    threshold: float
    alpha: float
    level: float
    statuses: tuple[BatchStatus, ...] = field(default=())

    @property
    def alarm(self) -> bool:
        """Whether an anytime-valid alarm rang at the last batch (what the exit code reads)."""
        last = self.statuses[-1]
        return last.below or last.drift

    @property
    def passed(self) -> bool:
        """No anytime-valid alarm at the last batch (the Bayesian rule does not enter)."""
        return not self.alarm

    @property
    def first_alarm(self) -> str | None:
        """The first batch at which an anytime-valid alarm rang, if any."""
        for status in self.statuses:
            if status.below or status.drift:
                return status.batch
        return None

    def reasons(self) -> list[str]:
        """One line per alarm of the last batch."""
        last = self.statuses[-1]
        out = []
        if last.below:
            out.append(
                f"pi below the threshold: the mean pi since batch {last.since!r} is at most "
                f"{last.recent_high:.3f} < {self.threshold:g} (anytime-valid, false-alarm "
                f"level {self.alpha / 2:g})"
            )
        if last.drift:
            where = (
                "" if last.change_at is None else f" (most likely from batch {last.change_at!r})"
            )
            out.append(
                f"judge drifted: its gold items disagree with constant Se/Sp{where}, e-value "
                f"{last.drift_e:.3g} >= {2 / self.alpha:g} (false-alarm level {self.alpha / 2:g})"
            )
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per batch: the counts beside every column of :class:`BatchStatus`."""
        rows = pd.DataFrame([s.to_dict() for s in self.statuses])
        return pd.concat([self.counts.drop(columns="batch"), rows], axis=1)[
            ["batch", *[c for c in COUNT_COLUMNS[1:]], *[c for c in rows if c != "batch"]]
        ]

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object of ``bayesjudge monitor --json``."""
        return {
            "threshold": self.threshold,
            "alpha": self.alpha,
            "level": self.level,
            "alarm": self.alarm,
            "first_alarm": self.first_alarm,
            "reasons": self.reasons(),
            "batches": [
                {**c, **s.to_dict()}
                for c, s in zip(
                    self.counts.drop(columns="batch").to_dict("records"),
                    self.statuses,
                    strict=True,
                )
            ],
        }

    def summary(self) -> str:
        """Return a one-screen text summary: the last batch's answer and any alarm."""
        last = self.statuses[-1]
        if last.changed:
            head = (
                f"after {len(self.statuses)} batches (last {last.batch!r}): pi has not been "
                f"constant (the anytime-valid {1 - self.alpha:g} sequence of a constant pi is "
                "empty)"
            )
        else:
            head = (
                f"after {len(self.statuses)} batches (last {last.batch!r}): pi, if constant, in "
                f"[{last.low:.3f}, {last.high:.3f}] (anytime-valid, {1 - self.alpha:g})"
            )
        lines = [head, *(self.reasons() or ["no alarm"])]
        if last.p_below is not None:
            lines.append(
                f"Bayesian rule (no anytime guarantee): P(pi < {self.threshold:g} | last batch) "
                f"= {last.p_below:.3f}"
            )
        return "\n".join(lines)


def monitor_batches(
    data: BatchedData | pd.DataFrame,
    *,
    threshold: float,
    alpha: float = 0.05,
    level: float = 0.95,
    bayes: bool = True,
) -> MonitorAnalysis:
    r"""Monitor the corrected success rate and the judge after every batch.

    Parameters
    ----------
    data : BatchedData or DataFrame
        The batches, or their counts (columns ``batch, m1, x1, m0, x0, n, k``).
    threshold : float
        :math:`\pi_0`: the alarm "pi below the threshold" rings when the mean pi since some
        batch is confidently below it.
    alpha : float
        The false-alarm probability of the two anytime-valid alarms together (each gets
        ``alpha / 2``), over all batches and however often one looks.
    level : float
        The posterior probability above which the Bayesian rule says "below".
    bayes : bool
        Whether to compute the per-batch Bayesian rule (one exact posterior per batch).

    Returns
    -------
    MonitorAnalysis

    Raises
    ------
    DataError
        If no batch carries gold labels.
    ValueError
        If ``threshold``, ``alpha`` or ``level`` is not in (0, 1).

    Examples
    --------
    >>> counts = pd.DataFrame({"batch": ["r1", "r2", "r3"], "m1": [170, 170, 120],
    ...                        "x1": [153, 153, 108], "m0": [30, 30, 80], "x0": [5, 5, 12],
    ...                        "n": [2000, 2000, 2000], "k": [1610, 1610, 1150]})
    >>> result = monitor_batches(counts, threshold=0.8, bayes=False)
    >>> [s.below for s in result.statuses]
    [False, False, True]
    >>> print(result.reasons()[0])  # doctest: +NORMALIZE_WHITESPACE
    pi below the threshold: the mean pi since batch 'r3' is at most 0.695 < 0.8
    (anytime-valid, false-alarm level 0.025)
    """
    threshold = check_prob(threshold, name="threshold")
    alpha = check_prob(alpha, name="alpha")
    level = check_prob(level, name="level")
    if isinstance(data, BatchedData):
        data.require_gold(each=False)
        frame = data.counts()
    else:
        frame = _checked_counts(data)
    names = [str(b) for b in frame["batch"]]
    counts = frame[list(COUNT_COLUMNS[1:])].to_numpy(dtype=float)
    size = len(names)

    half = alpha / 2.0
    log_k = below_since(counts, threshold)  # (t, s)
    weights = start_weights(size)
    bars = -np.log(half * weights)
    below = (log_k >= bars[None, :]).any(axis=-1)
    # confidence sequences: since the first batch (two-sided, alpha) and since each start
    low, high = _cs_since_first(counts, alpha)
    recent_high, since = _recent_upper(counts, half * weights)
    log_e, change = drift_log_e(counts)
    drift = log_e >= np.log(2.0 / alpha)

    values, cell_weights, inverse_p = ppi_cells(counts)
    statuses = []
    for t in range(size):
        labelled = int(counts[t, 0] + counts[t, 2])
        items = labelled + int(counts[t, 4])
        estimate = (
            float((values[t] * cell_weights[t]).sum() / items)
            if np.isfinite(inverse_p[t])
            else None
        )
        p_below = _p_below(counts[t], threshold) if bayes else None
        statuses.append(
            BatchStatus(
                batch=names[t],
                items=items,
                labelled=labelled,
                estimate=estimate,
                low=float(low[t]),
                high=float(high[t]),
                changed=bool(low[t] > high[t]),
                recent_high=float(recent_high[t]),
                since=names[int(since[t])],
                below=bool(below[t]),
                drift_e=float(np.exp(min(log_e[t], 700.0))),
                drift=bool(drift[t]),
                change_at=names[int(change[t])] if drift[t] and change[t] >= 0 else None,
                p_below=p_below,
                bayes_below=p_below is not None and p_below > level,
            )
        )
    return MonitorAnalysis(
        counts=frame.reset_index(drop=True),
        threshold=threshold,
        alpha=alpha,
        level=level,
        statuses=tuple(statuses),
    )


def _checked_counts(frame: pd.DataFrame) -> pd.DataFrame:
    from bayesjudge.errors import DataError

    missing = [c for c in COUNT_COLUMNS if c not in frame.columns]
    if missing:
        raise DataError(f"counts: missing column(s) {missing}; need {list(COUNT_COLUMNS)}")
    if len(frame) == 0:
        raise DataError("counts: no batches")
    values = frame[list(COUNT_COLUMNS[1:])]
    for row, record in enumerate(values.itertuples(index=False)):
        m1, x1, m0, x0, n, k = record
        for name, value in zip(COUNT_COLUMNS[1:], record, strict=True):
            if not float(value).is_integer() or value < 0:
                raise DataError(f"counts: column {name!r} row {row} holds {value!r}")
        if x1 > m1 or x0 > m0 or k > n:
            raise DataError(f"counts: row {row}: x1 <= m1, x0 <= m0 and k <= n must hold")
        if m1 + m0 + n == 0:
            raise DataError(f"counts: row {row}: batch {frame['batch'].iloc[row]!r} is empty")
    if int((values["m1"] + values["m0"]).sum()) == 0:
        raise DataError("counts: column 'm1'/'m0': no batch has gold-labelled items")
    return frame[list(COUNT_COLUMNS)].reset_index(drop=True)


def _bound(log_k: np.ndarray, bar: float, *, upper: bool) -> np.ndarray:
    """Return the edge of {c on the grid : log K(c) < bar} per batch; log_k is (T, G)."""
    inside = log_k < bar
    grid = _C_GRID
    if upper:
        edge = np.where(inside, grid[None, :], -np.inf).max(axis=-1)
        return np.where(np.isfinite(edge), edge, 0.0)
    edge = np.where(inside, grid[None, :], np.inf).min(axis=-1)
    return np.where(np.isfinite(edge), edge, 1.0)


def _cs_since_first(counts: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    bar = -np.log(alpha / 2.0)
    below = _mixed(np.cumsum(below_log_wealth(counts, _C_GRID), axis=0))  # (T, G)
    above = _mixed(np.cumsum(below_log_wealth(counts, _C_GRID, side="above"), axis=0))
    high = np.minimum.accumulate(_bound(below, bar, upper=True))
    low = np.maximum.accumulate(_bound(above, bar, upper=False))
    return low, high


def _recent_upper(counts: np.ndarray, levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lowest upper bound over starts s of the CS of the mean pi since s (level levels[s])."""
    logs = below_log_wealth(counts, _C_GRID)  # (T, G, J)
    size = counts.shape[0]
    best = np.full(size, np.inf)
    since = np.zeros(size, dtype=np.int64)
    for s in range(size):
        wealth = _mixed(np.cumsum(logs[s:], axis=0))  # (T - s, G)
        upper = _bound(wealth, -np.log(levels[s]), upper=True)
        better = upper < best[s:]
        best[s:] = np.where(better, upper, best[s:])
        since[s:] = np.where(better, s, since[s:])
    return best, since


def _p_below(row: np.ndarray, threshold: float) -> float | None:
    """Exact posterior P(pi < threshold) of one batch alone, or None when it cannot be fitted."""
    from bayesjudge.prevalence import JudgeCounts, exact_posterior

    m1, x1, m0, x0, n, k = (int(v) for v in row)
    if m1 == 0 or m0 == 0 or n == 0:
        return None
    # grid 129 x 24 nodes: P(pi > 0.8) agrees with the default 513 x 48 to 2e-6 (measured)
    posterior = exact_posterior(JudgeCounts(m1, x1, m0, x0, n, k), grid_size=129, nodes=24)
    return float(posterior.cdf(threshold))
