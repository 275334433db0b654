r"""Mixture shift: the accuracy after a step under a new mix of slices, from slice kernels.

A step's kernel may differ by slice (e.g. problem depth); under a target mixture of slices the
predicted accuracy after the step is the mixture of the slices' one-step laws (Correction and
Corruption, 2025).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    pass

from bayesjudge.channels.counts import check_counts, check_probability
from bayesjudge.channels.kernels import one_step
from bayesjudge.channels.rates import jeffreys_rates

__all__ = ["MixturePrediction", "mixture_prediction"]


@dataclass(frozen=True, slots=True)
class MixturePrediction:
    r"""Post-step accuracy predicted for a target slice mixture.

    Attributes
    ----------
    weights : ndarray, shape (..., S)
        Target mixture :math:`w(s)` (normalised).
    p0 : ndarray, shape (...)
        Baseline accuracy under the target mixture, :math:`\sum_s w_s p_0(s)`.
    sliced : ndarray, shape (...)
        Slice-conditioned prediction
        :math:`\sum_s w_s [p_0(s) + (1 - p_0(s)) c_s - p_0(s)\gamma_s]`.
    pooled : ndarray, shape (...)
        Pooled prediction :math:`p_0^w + (1 - p_0^w)\hat c - p_0^w\hat\gamma` from one channel
        fitted to all calibration items together.
    """

    weights: np.ndarray
    p0: np.ndarray
    sliced: np.ndarray
    pooled: np.ndarray


def _weights(weights: np.ndarray | Sequence[float], n_slices: int) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    if w.shape[-1:] != (n_slices,):
        raise ValueError(f"weights must have {n_slices} entries (one per slice); got {w.shape}")
    if (w < 0).any() or not np.isfinite(w).all():
        raise ValueError("weights must be finite and non-negative")
    total = w.sum(axis=-1, keepdims=True)
    if (total <= 0).any():
        raise ValueError("weights must not all be zero")
    return w / total


def mixture_prediction(
    counts: np.ndarray | Sequence,
    weights: np.ndarray | Sequence[float],
    *,
    p0: np.ndarray | Sequence[float] | None = None,
) -> MixturePrediction:
    r"""Predict post-step accuracy under a shifted slice mixture, pooled and slice-conditioned.

    The slice kernels :math:`(\hat c_s, \hat\gamma_s)` (Jeffreys) are fitted to the calibration
    counts of each slice; the pooled channel to their sum. Under a target mixture :math:`w(s)` with
    per-slice baselines :math:`p_0(s)`, the slice-conditioned prediction recombines the slice-wise
    one-step laws while the pooled one applies a single channel to the mixed baseline (Correction
    and Corruption, Sec. 5.2; the pooled channel is tied to the calibration mixture, so it is biased
    when :math:`c(s), \gamma(s)` vary and the mixture moves).

    Parameters
    ----------
    counts : array_like, shape (..., S, 2, 2)
        Calibration counts per slice.
    weights : array_like, shape (..., S)
        Target mixture (normalised here).
    p0 : array_like, shape (..., S), optional
        Target baseline accuracy per slice; by default the calibration's
        :math:`(n_{10}+n_{11})/n` per slice (a slice with no items then gets NaN).

    Returns
    -------
    MixturePrediction

    Examples
    --------
    >>> counts = [[[10, 30], [5, 55]], [[60, 10], [20, 10]]]
    >>> pred = mixture_prediction(counts, [0.0, 1.0])
    >>> round(float(pred.sliced), 3), round(float(pred.pooled), 3)
    (0.205, 0.471)
    """
    n = check_counts(counts)
    if n.ndim < 3:
        raise ValueError(f"counts must have shape (..., S, 2, 2); got {n.shape}")
    w = _weights(weights, n.shape[-3])
    if p0 is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            base = n[..., 1, :].sum(axis=-1) / n.sum(axis=(-2, -1))
    else:
        base = check_probability(p0, "p0")
    c_s, g_s = jeffreys_rates(n)
    c_pool, g_pool = jeffreys_rates(n.sum(axis=-3))
    used = w > 0
    sliced = np.where(used, w * one_step(base, c_s, g_s), 0.0).sum(axis=-1)
    p0_w = np.where(used, w * base, 0.0).sum(axis=-1)
    return MixturePrediction(w, p0_w, sliced, one_step(p0_w, c_pool, g_pool))
