r"""Checks of a step: does its channel transfer, and how much could an oracle selector gain.

* :func:`transfer_test`: are the paired counts of a calibration and a target set drawn from the
  same kernel?
* :func:`oracle_headroom`: the accuracy an oracle choosing between the anchor and the selected
  answer would reach, beside the judge's (Correction and Corruption, 2025).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

if TYPE_CHECKING:
    pass

from bayesjudge.channels.counts import check_binary, check_counts, paired_counts
from bayesjudge.channels.rates import channel_posterior, jeffreys_rates

__all__ = ["Headroom", "Transfer", "oracle_headroom", "transfer_test"]


@dataclass(frozen=True, slots=True)
class Transfer:
    r"""Seed-holdout transfer test of a channel (Correction and Corruption, Sec. 3).

    Attributes
    ----------
    predicted : float
        :math:`\hat p_{0,B} + (1 - \hat p_{0,B})\hat c_A - \hat p_{0,B}\hat\gamma_A`.
    observed : float
        :math:`\hat p_{1,B}^{emp}`.
    residual : float
        ``observed - predicted``.
    se : float
        Finite-sample standard error of the residual (see :func:`transfer_test`).
    z : float
        ``residual / se``.
    tail_probability : float
        Two-sided normal tail :math:`2(1 - \Phi(|z|))`.
    """

    predicted: float
    observed: float
    residual: float
    se: float
    z: float
    tail_probability: float


def transfer_test(calibration: np.ndarray | Sequence, target: np.ndarray | Sequence) -> Transfer:
    r"""Fit the channel on sample A, predict post-step accuracy on sample B, and score the residual.

    Given B's baseline split :math:`(n_0^B, n_1^B)`, :math:`\hat p_{1,B}^{emp}` has variance
    :math:`[n_0^B c(1-c) + n_1^B\gamma(1-\gamma)] / n_B^2` and the prediction has variance
    :math:`[(n_0^B)^2 \mathrm{Var}(\hat c_A) + (n_1^B)^2 \mathrm{Var}(\hat\gamma_A)] / n_B^2`
    (Jeffreys posterior variances), independent of each other because A and B are. The residual
    is scored against the square root of their sum.

    Parameters
    ----------
    calibration, target : array_like, shape (2, 2)
        Paired counts of sample A (fit) and sample B (predict).

    Returns
    -------
    Transfer

    Examples
    --------
    >>> t = transfer_test([[40, 20], [5, 35]], [[45, 20], [4, 31]])
    >>> round(t.predicted, 3), round(t.observed, 3)
    (0.521, 0.51)
    """
    a = check_counts(calibration, "calibration")
    b = check_counts(target, "target")
    if a.shape != (2, 2) or b.shape != (2, 2):
        raise ValueError("calibration and target must each be one 2 x 2 table of counts")
    n_b = b.sum()
    if n_b == 0:
        raise ValueError("target has no items")
    c_post, g_post = channel_posterior(a)
    c, g = float(c_post.mean), float(g_post.mean)
    n0, n1 = b[0].sum(), b[1].sum()
    predicted = float((n1 + n0 * c - n1 * g) / n_b)
    observed = float(b[:, 1].sum() / n_b)
    var = (n0 * c * (1 - c) + n1 * g * (1 - g)) / n_b**2
    var += (n0**2 * float(c_post.sd) ** 2 + n1**2 * float(g_post.sd) ** 2) / n_b**2
    se = float(np.sqrt(var))
    residual = observed - predicted
    z = residual / se
    return Transfer(predicted, observed, residual, se, z, float(2 * stats.norm.sf(abs(z))))


@dataclass(frozen=True, slots=True)
class Headroom:
    r"""The judge-K triple :math:`(p_0, p_1, p_{oracle})` and its channel.

    Reference: Correction and Corruption, Sec. 4.

    Attributes
    ----------
    n : int
        Items.
    p0, p1, p_oracle : float
        Anchor accuracy, judge-selected accuracy and best-of-K oracle accuracy.
    gap : float
        Oracle headroom :math:`p_{oracle} - p_1`.
    c, gamma : float
        Jeffreys rates of the anchor -> selected step (NaN for a rate with no support, as in
        Correction and Corruption Table 14 where :math:`\hat\gamma` is undefined when :math:`E_0 =
        1` never occurs).
    """

    n: int
    p0: float
    p1: float
    p_oracle: float
    gap: float
    c: float
    gamma: float


def oracle_headroom(
    anchor: np.ndarray | Sequence[int],
    selected: np.ndarray | Sequence[int],
    oracle: np.ndarray | Sequence[int],
) -> Headroom:
    """Return the oracle headroom of a best-of-K selection step.

    Parameters
    ----------
    anchor : array_like of {0, 1}, shape (N,)
        Correctness of the designated anchor candidate (:math:`E_0`).
    selected : array_like of {0, 1}, shape (N,)
        Correctness of the judge-selected candidate (:math:`E_1`).
    oracle : array_like of {0, 1}, shape (N,)
        Whether any of the K candidates is correct. The anchor and the selection are among the
        candidates, so ``oracle`` must be 1 wherever either is 1.

    Returns
    -------
    Headroom

    Examples
    --------
    >>> h = oracle_headroom([0, 0, 1, 1], [1, 0, 1, 1], [1, 1, 1, 1])
    >>> h.p0, h.p1, h.p_oracle, h.gap
    (0.5, 0.75, 1.0, 0.25)
    """
    e0 = check_binary(anchor, "anchor")
    e1 = check_binary(selected, "selected")
    eo = check_binary(oracle, "oracle")
    if not (e0.shape == e1.shape == eo.shape) or e0.ndim != 1 or e0.size == 0:
        raise ValueError("anchor, selected and oracle must be non-empty 1-d arrays of one length")
    bad = np.flatnonzero(eo < np.maximum(e0, e1))
    if bad.size:
        raise ValueError(
            f"oracle must be 1 wherever the anchor or the selected candidate is correct; "
            f"item {int(bad[0])} has anchor={e0[bad[0]]}, selected={e1[bad[0]]}, oracle=0"
        )
    n = paired_counts(e0, e1)
    c, g = jeffreys_rates(n)
    p1 = float(e1.mean())
    p_oracle = float(eo.mean())
    return Headroom(
        n=int(e0.size),
        p0=float(e0.mean()),
        p1=p1,
        p_oracle=p_oracle,
        gap=p_oracle - p1,
        c=float(c) if n[0].sum() else float("nan"),
        gamma=float(g) if n[1].sum() else float("nan"),
    )
