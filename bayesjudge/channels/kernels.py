r"""Correction and corruption: the two-rate channel of a protocol step, and its algebra.

Family 3 of bayesjudge (DESIGN.md), after *Correction and Corruption: A Two-Rate View
of Error Flow in LLM Protocols*. Each item is scored correct (1) or incorrect (0) before a step,
:math:`E_0`, and after it, :math:`E_1`. The paired counts

.. math:: n_{ij} = \#\{k : E_0 = i, E_1 = j\}, \qquad n_0 = n_{00} + n_{01},\; n_1 = n_{10} + n_{11}

(Correction and Corruption, eq. 4) give the correction rate :math:`c = P(E_1 = 1 \mid E_0 = 0)` and
the corruption rate :math:`\gamma = P(E_1 = 0 \mid E_0 = 1)`, packed into the row-stochastic kernel

.. math:: T = \begin{pmatrix} 1 - c & c \\ \gamma & 1 - \gamma \end{pmatrix}, \qquad
          \pi_1 = \pi_0 T

(eq. 8), whose first consequence is the one-step law
:math:`p_1 = p_0 + (1 - p_0) c - p_0 \gamma` (eq. 5).

Everything here is plain numpy and vectorised: counts are arrays of shape ``(..., 2, 2)``
(``counts[..., i, j] = n_ij``), kernels are arrays of shape ``(..., 2, 2)``, rates and
accuracies broadcast against each other. The posterior models live in
:mod:`bayesjudge.models.channel`, fitting in :mod:`bayesjudge.channels.fit`, the Markov check in
:mod:`bayesjudge.channels.posterior`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from bayesjudge.channels.data import PairedOutcomes

from bayesjudge.channels.counts import check_binary, check_probability, paired_counts, stack_counts
from bayesjudge.channels.rates import jeffreys_kernel

__all__ = [
    "GAP_NAMES",
    "CompositionGap",
    "break_even",
    "composition_gap",
    "gap_of_kernels",
    "gate",
    "kernel",
    "kernel_rates",
    "kernels_from_joint",
    "one_step",
    "predicted_gain",
    "propagate",
    "surplus",
    "surplus_from_rates",
]


def kernel(c: np.ndarray | float, gamma: np.ndarray | float) -> np.ndarray:
    r"""Build the kernel :math:`T = [[1 - c, c], [\gamma, 1 - \gamma]]`.

    Reference: Correction and Corruption, eq. 8.

    Parameters
    ----------
    c, gamma : array_like
        Correction and corruption rates (broadcast together).

    Returns
    -------
    ndarray, shape (..., 2, 2)

    Examples
    --------
    >>> kernel(0.2, 0.1).tolist()
    [[0.8, 0.2], [0.1, 0.9]]
    """
    c_arr, g_arr = np.broadcast_arrays(check_probability(c, "c"), check_probability(gamma, "gamma"))
    row0 = np.stack([1.0 - c_arr, c_arr], axis=-1)
    row1 = np.stack([g_arr, 1.0 - g_arr], axis=-1)
    return np.stack([row0, row1], axis=-2)


def kernel_rates(kernels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(c, gamma) = (T[..., 0, 1], T[..., 1, 0])`` of kernels of shape ``(..., 2, 2)``.

    Examples
    --------
    >>> kernel_rates(kernel(0.3, 0.05))
    (array(0.3), array(0.05))
    """
    array = np.asarray(kernels, dtype=float)
    if array.shape[-2:] != (2, 2):
        raise ValueError(f"kernels must have shape (..., 2, 2); got {array.shape}")
    return array[..., 0, 1], array[..., 1, 0]


def propagate(p0: np.ndarray | float, *kernels: np.ndarray) -> np.ndarray:
    r"""Propagate the accuracy through kernels: :math:`\pi_k = \pi_0 T_{01} \cdots T_{k-1,k}`.

    Parameters
    ----------
    p0 : array_like
        Accuracy before the first kernel, :math:`P(E_0 = 1)`.
    *kernels : ndarray, shape (..., 2, 2)
        Kernels applied in order.

    Returns
    -------
    ndarray
        The accuracy :math:`P(E_k = 1)` after the last kernel.

    Examples
    --------
    >>> float(propagate(0.6, kernel(0.5, 0.1)))
    0.74
    """
    p = check_probability(p0, "p0")
    state = np.stack([1.0 - p, p], axis=-1)
    for t in kernels:
        state = np.einsum("...i,...ij->...j", state, np.asarray(t, dtype=float))
    return state[..., 1]


def one_step(
    p0: np.ndarray | float, c: np.ndarray | float, gamma: np.ndarray | float
) -> np.ndarray:
    r"""Apply the one-step law :math:`p_1 = p_0 + (1 - p_0) c - p_0 \gamma`.

    Reference: Correction and Corruption, eq. 5.

    Examples
    --------
    >>> float(one_step(0.6, 0.5, 0.1))
    0.74
    """
    p = np.asarray(p0, dtype=float)
    return p + (1.0 - p) * np.asarray(c, dtype=float) - p * np.asarray(gamma, dtype=float)


def predicted_gain(
    p0: np.ndarray | float, c: np.ndarray | float, gamma: np.ndarray | float
) -> np.ndarray:
    r"""Return the predicted gain :math:`\Delta p = (1 - p_0) c - p_0 \gamma`.

    Reference: Correction and Corruption, eq. 6.

    Examples
    --------
    >>> round(float(predicted_gain(0.955, 0.3, 0.05)), 4)
    -0.0342
    """
    p = np.asarray(p0, dtype=float)
    return (1.0 - p) * np.asarray(c, dtype=float) - p * np.asarray(gamma, dtype=float)


def break_even(p0: np.ndarray | float, gamma: np.ndarray | float) -> np.ndarray:
    r"""Return the break-even correction rate :math:`c_{be} = \frac{p_0}{1 - p_0}\gamma` (eq. 7).

    A step helps (:math:`p_1 > p_0`) exactly when :math:`c > c_{be}`; at :math:`p_0 = 1` the
    boundary is infinite when :math:`\gamma > 0`.

    Examples
    --------
    >>> round(float(break_even(0.955, 0.01)), 4)
    0.2122
    """
    p = check_probability(p0, "p0")
    g = np.asarray(gamma, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(g == 0, 0.0, p / (1.0 - p) * g)
    return out


def surplus(p0: np.ndarray | float, p1: np.ndarray | float) -> np.ndarray:
    r"""Return the surplus above break-even from marginals, :math:`(p_1 - p_0)/(1 - p_0)`.

    Identifiable from reported :math:`(p_0, p_1)` alone (Correction and Corruption, Sec. 6.3 and
    Table 15), and equal to :math:`c - \frac{p_0}{1 - p_0}\gamma` (:func:`surplus_from_rates`). NaN
    at :math:`p_0 = 1`.

    Examples
    --------
    >>> round(float(surplus(0.955, 0.915)), 3)
    -0.889
    """
    p = check_probability(p0, "p0")
    q = check_probability(p1, "p1")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p < 1.0, (q - p) / (1.0 - p), np.nan)


def surplus_from_rates(
    p0: np.ndarray | float, c: np.ndarray | float, gamma: np.ndarray | float
) -> np.ndarray:
    r"""Return the surplus :math:`\sigma = c - \frac{p_0}{1 - p_0}\gamma` from the rates.

    Examples
    --------
    >>> round(float(surplus_from_rates(0.5, 0.3, 0.1)), 3)
    0.2
    """
    return np.asarray(c, dtype=float) - break_even(p0, gamma)


def gate(
    p0: np.ndarray | float,
    c: np.ndarray | float,
    gamma: np.ndarray | float,
    *,
    threshold: float = 0.0,
) -> np.ndarray:
    r"""Apply the gain rule: switch a step on when :math:`(1 - p_0)\hat c - p_0\hat\gamma > \tau`.

    ``threshold`` :math:`\tau` is the cost of running the step in accuracy points (Correction and
    Corruption, Sec. 8.1: invoke the step only when the predicted gain exceeds a cost-sensitive
    threshold).

    Returns
    -------
    ndarray of bool

    Examples
    --------
    >>> gate([0.5, 0.95], 0.2, 0.05).tolist()
    [True, False]
    """
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be finite; got {threshold!r}")
    return np.asarray(predicted_gain(p0, c, gamma) > threshold)


def kernels_from_joint(
    joint: np.ndarray, *, stages: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    r"""Return the adjacent-step and the direct first-to-last kernels of a joint distribution.

    .. math:: T_{t,t+1}[i, j] = P(E_{t+1} = j \mid E_t = i), \qquad
              T_{0S}[i, j] = P(E_S = j \mid E_0 = i)

    Parameters
    ----------
    joint : ndarray, shape (..., 2, ..., 2)
        Probabilities of :math:`(E_0, \dots, E_S)` on the last ``stages`` axes (each of length
        2), summing to one; any leading axes are batch axes (e.g. posterior draws).
    stages : int, optional
        Number of stages ``S + 1`` (at least 3); by default every axis is a stage.

    Returns
    -------
    adjacent : ndarray, shape (..., S, 2, 2)
    direct : ndarray, shape (..., 2, 2)

    Examples
    --------
    >>> joint = np.full((2, 2, 2), 1 / 8)
    >>> adjacent, direct = kernels_from_joint(joint)
    >>> adjacent.shape, direct.tolist()
    ((2, 2, 2), [[0.5, 0.5], [0.5, 0.5]])
    """
    array = np.asarray(joint, dtype=float)
    k = array.ndim if stages is None else int(stages)
    if k < 2 or k > array.ndim or array.shape[array.ndim - k :] != (2,) * k:
        raise ValueError(
            f"joint must end in `stages` (>= 2) axes of length 2; got shape {array.shape} "
            f"with stages={stages!r}"
        )
    return _kernels_from_joint(array, k)


def _kernels_from_joint(array: np.ndarray, stages: int) -> tuple[np.ndarray, np.ndarray]:
    batch = array.ndim - stages
    axes = list(range(batch, array.ndim))

    def pair(a: int, b: int) -> np.ndarray:
        other = tuple(x for x in axes if x not in (axes[a], axes[b]))
        marginal = array.sum(axis=other) if other else array
        with np.errstate(divide="ignore", invalid="ignore"):
            return marginal / marginal.sum(axis=-1, keepdims=True)

    adjacent = np.stack([pair(t, t + 1) for t in range(stages - 1)], axis=-3)
    return adjacent, pair(0, stages - 1)


def _compose(kernels: np.ndarray) -> np.ndarray:
    out = kernels[..., 0, :, :]
    for t in range(1, kernels.shape[-3]):
        out = out @ kernels[..., t, :, :]
    return out


#: What each composition gap computes, in words. The paper's :math:`\Delta^{mean}` is half the
#: sum of the four absolute differences: it adds the differences of the two rows, so it is not
#: a mean of entries and can exceed :math:`\Delta^{max}` (up to twice it).
GAP_NAMES: dict[str, str] = {
    "gap_max": "largest entry difference max |T_direct - T_composed|",
    "gap_mean": "half the summed differences 1/2 sum |T_direct - T_composed|",
}


def gap_of_kernels(direct: np.ndarray, composed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Return the composition gaps :math:`(\Delta^{max}, \Delta^{mean})`.

    Reference: Correction and Corruption, eqs. 12-13.

    .. math:: \Delta^{mean} = \tfrac12 \sum_{a,b} |T_{0k}(a,b) - T^{comp}(a,b)|, \qquad
              \Delta^{max} = \max_{a,b} |T_{0k}(a,b) - T^{comp}(a,b)|

    Examples
    --------
    >>> g_max, g_mean = gap_of_kernels(kernel(0.3, 0.1), kernel(0.2, 0.1))
    >>> round(float(g_max), 3), round(float(g_mean), 3)
    (0.1, 0.1)
    """
    diff = np.abs(np.asarray(direct, dtype=float) - np.asarray(composed, dtype=float))
    return diff.max(axis=(-2, -1)), 0.5 * diff.sum(axis=(-2, -1))


@dataclass(frozen=True, slots=True)
class CompositionGap:
    r"""The direct first-to-last kernel of a stack against the product of its step kernels.

    Attributes
    ----------
    steps : ndarray, shape (S, 2, 2)
        Jeffreys kernels of the adjacent steps.
    composed : ndarray, shape (2, 2)
        Their product :math:`T_{01} T_{12} \\cdots`.
    direct : ndarray, shape (2, 2)
        Jeffreys kernel estimated from the first and last stages directly.
    gap_max, gap_mean : float
        Correction and Corruption eqs. 13 and 12.
    """

    steps: np.ndarray
    composed: np.ndarray
    direct: np.ndarray
    gap_max: float
    gap_mean: float


def composition_gap(outcomes: np.ndarray | PairedOutcomes) -> CompositionGap:
    r"""Compare the composed kernel :math:`\hat T_{01}\hat T_{12}\cdots` with the direct one.

    When the stack is Markov on the correctness bit (:math:`E_{t+1} \perp E_{t-1} \mid E_t`), the
    two agree up to sampling noise (Correction and Corruption, Sec. 7, eqs. 11-13); all kernels are
    Jeffreys-smoothed (:func:`jeffreys_kernel`).

    Parameters
    ----------
    outcomes : PairedOutcomes or array_like of {0, 1}, shape (N, S + 1)
        A stack of at least two steps (``S >= 2``).

    Returns
    -------
    CompositionGap

    Examples
    --------
    >>> e = np.array([[0, 0, 0], [0, 1, 1], [1, 1, 1], [1, 1, 0]] * 5)
    >>> round(composition_gap(e).gap_mean, 4)
    0.2604
    """
    array = _outcome_array(outcomes)
    if array.shape[1] < 3:
        raise ValueError(
            "the composition gap needs a stack of at least two steps (3 stages); "
            f"got {array.shape[1]} stages"
        )
    steps = jeffreys_kernel(stack_counts(array))
    composed = _compose(steps)
    direct = jeffreys_kernel(paired_counts(array[:, 0], array[:, -1]))
    g_max, g_mean = gap_of_kernels(direct, composed)
    return CompositionGap(steps, composed, direct, float(g_max), float(g_mean))


def _outcome_array(outcomes: np.ndarray | PairedOutcomes) -> np.ndarray:
    values: np.ndarray = np.asarray(getattr(outcomes, "outcomes", outcomes))
    array = check_binary(values, "outcomes")
    if array.ndim != 2 or array.shape[1] < 2:
        raise ValueError(f"outcomes must have shape (N, S + 1) with S >= 1; got {array.shape}")
    return array
