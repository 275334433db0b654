r"""Correction and corruption: the two-rate channel of a protocol step, and its algebra.

Family 3 of bayesjudge (DESIGN.md), after seed 003 (*Correction and Corruption: A Two-Rate View
of Error Flow in LLM Protocols*). Each item is scored correct (1) or incorrect (0) before a step,
:math:`E_0`, and after it, :math:`E_1`. The paired counts

.. math:: n_{ij} = \#\{k : E_0 = i, E_1 = j\}, \qquad n_0 = n_{00} + n_{01},\; n_1 = n_{10} + n_{11}

(seed 003, eq. 4) give the correction rate :math:`c = P(E_1 = 1 \mid E_0 = 0)` and the
corruption rate :math:`\gamma = P(E_1 = 0 \mid E_0 = 1)`, packed into the row-stochastic kernel

.. math:: T = \begin{pmatrix} 1 - c & c \\ \gamma & 1 - \gamma \end{pmatrix}, \qquad
          \pi_1 = \pi_0 T

(eq. 8), whose first consequence is the one-step law
:math:`p_1 = p_0 + (1 - p_0) c - p_0 \gamma` (eq. 5).

Everything here is plain numpy and vectorised: counts are arrays of shape ``(..., 2, 2)``
(``counts[..., i, j] = n_ij``), kernels are arrays of shape ``(..., 2, 2)``, rates and
accuracies broadcast against each other. The posterior models live in
:mod:`bayesjudge.models.channel`, fitting and the Markov check in :mod:`bayesjudge.channel_fit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import special, stats

from bayesjudge.priors import JEFFREYS, Beta
from bayesjudge.simulate import rng_from

if TYPE_CHECKING:
    from bayesjudge.data import PairedOutcomes

__all__ = [
    "CompositionGap",
    "Headroom",
    "MixturePrediction",
    "RatePosterior",
    "Transfer",
    "break_even",
    "channel_posterior",
    "composition_gap",
    "gap_of_kernels",
    "gate",
    "jeffreys_kernel",
    "jeffreys_rates",
    "kernel",
    "kernel_rates",
    "kernels_from_joint",
    "mixture_prediction",
    "one_step",
    "oracle_headroom",
    "paired_counts",
    "predicted_gain",
    "propagate",
    "slice_counts",
    "stack_counts",
    "surplus",
    "surplus_from_rates",
    "transfer_test",
]


# --------------------------------------------------------------------------- validation
def _binary(values: np.ndarray | Sequence[int], name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.size and not np.isin(array, (0, 1)).all():
        bad = np.flatnonzero(~np.isin(array.reshape(-1), (0, 1)))[0]
        raise ValueError(
            f"{name} must hold 0/1 correctness values; position {int(bad)} has "
            f"{array.reshape(-1)[bad]!r}"
        )
    return array.astype(np.int64)


def _counts(counts: np.ndarray | Sequence, name: str = "counts") -> np.ndarray:
    array = np.asarray(counts, dtype=float)
    if array.ndim < 2 or array.shape[-2:] != (2, 2):
        raise ValueError(f"{name} must have shape (..., 2, 2); got {array.shape}")
    if (array < 0).any() or not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite and non-negative")
    return array


def _probability(value: np.ndarray | float | Sequence[float], name: str) -> np.ndarray:
    array = np.asarray(value, dtype=float)
    if ((array < 0) | (array > 1) | ~np.isfinite(array)).any():
        raise ValueError(f"{name} must lie in [0, 1]; got {value!r}")
    return array


# --------------------------------------------------------------------------- counts
def paired_counts(
    before: np.ndarray | Sequence[int], after: np.ndarray | Sequence[int]
) -> np.ndarray:
    r"""Count the paired outcomes :math:`n_{ij}` of one step (seed 003, eq. 4).

    Parameters
    ----------
    before, after : array_like of {0, 1}, shape (..., N)
        Correctness before (:math:`E_0`) and after (:math:`E_1`) the step; items on the last axis,
        any leading batch axes.

    Returns
    -------
    ndarray of int, shape (..., 2, 2)
        ``counts[..., i, j]`` is the number of items with :math:`E_0 = i, E_1 = j`.

    Examples
    --------
    >>> paired_counts([0, 0, 1, 1, 1], [0, 1, 1, 1, 0]).tolist()
    [[1, 1], [1, 2]]
    """
    e0 = _binary(before, "before")
    e1 = _binary(after, "after")
    if e0.shape != e1.shape:
        raise ValueError(
            f"before and after must have the same shape; got {e0.shape} and {e1.shape}"
        )
    cell = 2 * e0 + e1
    out = np.stack([(cell == k).sum(axis=-1) for k in range(4)], axis=-1)
    return out.reshape(*out.shape[:-1], 2, 2)


def stack_counts(outcomes: np.ndarray) -> np.ndarray:
    """Return the adjacent-step counts of a stack of steps.

    Parameters
    ----------
    outcomes : array_like of {0, 1}, shape (N, S + 1)
        Correctness of each item after 0, 1, ..., S steps.

    Returns
    -------
    ndarray of int, shape (S, 2, 2)
        ``counts[t]`` are the paired counts of step ``t -> t + 1``.

    Examples
    --------
    >>> stack_counts([[0, 1, 1], [1, 1, 0]])[1].tolist()
    [[0, 0], [1, 1]]
    """
    array = _binary(outcomes, "outcomes")
    if array.ndim != 2 or array.shape[1] < 2:
        raise ValueError(f"outcomes must have shape (N, S + 1) with S >= 1; got {array.shape}")
    return paired_counts(array[:, :-1].T, array[:, 1:].T)


def slice_counts(
    before: np.ndarray | Sequence[int],
    after: np.ndarray | Sequence[int],
    slices: np.ndarray | Sequence,
) -> tuple[np.ndarray, np.ndarray]:
    """Return the paired counts of one step within each slice.

    Parameters
    ----------
    before, after : array_like of {0, 1}, shape (N,)
        Correctness before and after the step.
    slices : array_like, shape (N,)
        Slice label of each item (e.g. a depth or a difficulty bin).

    Returns
    -------
    labels : ndarray, shape (S,)
        The sorted distinct slice labels.
    counts : ndarray of int, shape (S, 2, 2)
        The paired counts of each slice.

    Examples
    --------
    >>> labels, counts = slice_counts([0, 1, 1], [1, 1, 0], ["a", "b", "b"])
    >>> labels.tolist(), counts[1].tolist()
    (['a', 'b'], [[0, 0], [1, 1]])
    """
    labels_all = np.asarray(slices)
    e0 = _binary(before, "before")
    e1 = _binary(after, "after")
    if not (e0.shape == e1.shape == labels_all.shape) or e0.ndim != 1:
        raise ValueError("before, after and slices must be 1-d arrays of the same length")
    labels, index = np.unique(labels_all, return_inverse=True)
    cell = 2 * e0 + e1
    flat = np.zeros((labels.size, 4), dtype=np.int64)
    np.add.at(flat, (index, cell), 1)
    return labels, flat.reshape(labels.size, 2, 2)


# --------------------------------------------------------------------------- estimators
def jeffreys_rates(counts: np.ndarray | Sequence) -> tuple[np.ndarray, np.ndarray]:
    r"""Return the Jeffreys-smoothed correction and corruption rates (seed 003, eq. 14).

    .. math:: \hat c = \frac{n_{01} + 1/2}{n_0 + 1}, \qquad
              \hat\gamma = \frac{n_{10} + 1/2}{n_1 + 1}

    These are the posterior means under Beta(1/2, 1/2) priors; they stay inside (0, 1) when a
    conditioning event is rare or absent, and tend to the MLE as :math:`n_0, n_1 \to \infty`.

    Parameters
    ----------
    counts : array_like, shape (..., 2, 2)
        Paired counts (:func:`paired_counts`).

    Returns
    -------
    c, gamma : ndarray, shape (...)

    Examples
    --------
    >>> c, g = jeffreys_rates([[8, 2], [1, 9]])
    >>> round(float(c), 4), round(float(g), 4)
    (0.2273, 0.1364)
    """
    n = _counts(counts)
    c = (n[..., 0, 1] + 0.5) / (n[..., 0, :].sum(axis=-1) + 1.0)
    gamma = (n[..., 1, 0] + 0.5) / (n[..., 1, :].sum(axis=-1) + 1.0)
    return c, gamma


def jeffreys_kernel(counts: np.ndarray | Sequence) -> np.ndarray:
    r"""Return the Jeffreys-smoothed kernel :math:`\hat T[i, j] = (n_{ij} + 1/2) / (n_i + 1)`.

    Parameters
    ----------
    counts : array_like, shape (..., 2, 2)
        Paired counts of a step (or of any pair of stages, e.g. ``(E_0, E_2)``).

    Returns
    -------
    ndarray, shape (..., 2, 2)
        Row-stochastic kernel equal to ``kernel(*jeffreys_rates(counts))``.

    Examples
    --------
    >>> jeffreys_kernel([[8, 2], [1, 9]]).round(4).tolist()
    [[0.7727, 0.2273], [0.1364, 0.8636]]
    """
    n = _counts(counts)
    return (n + 0.5) / (n.sum(axis=-1, keepdims=True) + 1.0)


@dataclass(frozen=True, slots=True)
class RatePosterior:
    r"""Exact Beta posterior(s) of a rate: :math:`\mathrm{Beta}(\alpha, \beta)`, vectorised.

    Attributes
    ----------
    alpha, beta : ndarray
        Posterior parameters (broadcast together).
    """

    alpha: np.ndarray
    beta: np.ndarray

    @property
    def mean(self) -> np.ndarray:
        """Posterior mean alpha / (alpha + beta)."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def sd(self) -> np.ndarray:
        """Posterior standard deviation."""
        total = self.alpha + self.beta
        return np.sqrt(self.alpha * self.beta / (total**2 * (total + 1.0)))

    def interval(self, prob: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Return the equal-tailed interval of mass ``prob`` as ``(low, high)``."""
        if not 0.0 < prob < 1.0:
            raise ValueError(f"prob must lie in (0, 1); got {prob!r}")
        tail = (1.0 - prob) / 2.0
        low = special.betaincinv(self.alpha, self.beta, tail)
        high = special.betaincinv(self.alpha, self.beta, 1.0 - tail)
        return low, high

    def sample(
        self, size: int, *, random_seed: int | np.random.Generator | None = None
    ) -> np.ndarray:
        """Return ``size`` independent draws on a new last axis, shape ``(..., size)``."""
        rng = rng_from(random_seed)
        a = np.asarray(self.alpha, dtype=float)[..., None]
        b = np.asarray(self.beta, dtype=float)[..., None]
        shape = (*np.broadcast_shapes(a.shape, b.shape)[:-1], size)
        return rng.beta(np.broadcast_to(a, shape), np.broadcast_to(b, shape))


def channel_posterior(
    counts: np.ndarray | Sequence, *, prior: Beta = JEFFREYS
) -> tuple[RatePosterior, RatePosterior]:
    r"""Return the exact conjugate posteriors of correction and corruption.

    With :math:`c \sim \mathrm{Beta}(a, b)` and :math:`\gamma \sim \mathrm{Beta}(a, b)`
    independently (Jeffreys :math:`a = b = 1/2` by default, seed 003 App. A),

    .. math:: c \mid n \sim \mathrm{Beta}(n_{01} + a, n_{00} + b), \qquad
              \gamma \mid n \sim \mathrm{Beta}(n_{10} + a, n_{11} + b).

    Parameters
    ----------
    counts : array_like, shape (..., 2, 2)
        Paired counts.
    prior : Beta
        Prior of each rate.

    Returns
    -------
    c, gamma : RatePosterior

    Examples
    --------
    >>> c, g = channel_posterior([[8, 2], [1, 9]])
    >>> float(c.alpha), float(c.beta), float(g.alpha), float(g.beta)
    (2.5, 8.5, 1.5, 9.5)
    """
    n = _counts(counts)
    c = RatePosterior(n[..., 0, 1] + prior.alpha, n[..., 0, 0] + prior.beta)
    gamma = RatePosterior(n[..., 1, 0] + prior.alpha, n[..., 1, 1] + prior.beta)
    return c, gamma


# --------------------------------------------------------------------------- kernel algebra
def kernel(c: np.ndarray | float, gamma: np.ndarray | float) -> np.ndarray:
    r"""Build the kernel :math:`T = [[1 - c, c], [\gamma, 1 - \gamma]]` (seed 003, eq. 8).

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
    c_arr, g_arr = np.broadcast_arrays(_probability(c, "c"), _probability(gamma, "gamma"))
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
    p = _probability(p0, "p0")
    state = np.stack([1.0 - p, p], axis=-1)
    for t in kernels:
        state = np.einsum("...i,...ij->...j", state, np.asarray(t, dtype=float))
    return state[..., 1]


def one_step(
    p0: np.ndarray | float, c: np.ndarray | float, gamma: np.ndarray | float
) -> np.ndarray:
    r"""Apply the one-step law :math:`p_1 = p_0 + (1 - p_0) c - p_0 \gamma` (seed 003, eq. 5).

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
    r"""Return the predicted gain :math:`\Delta p = (1 - p_0) c - p_0 \gamma` (seed 003, eq. 6).

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
    p = _probability(p0, "p0")
    g = np.asarray(gamma, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(g == 0, 0.0, p / (1.0 - p) * g)
    return out


def surplus(p0: np.ndarray | float, p1: np.ndarray | float) -> np.ndarray:
    r"""Return the surplus above break-even from marginals, :math:`(p_1 - p_0)/(1 - p_0)`.

    Identifiable from reported :math:`(p_0, p_1)` alone (seed 003, Sec. 6.3 and Table 15), and
    equal to :math:`c - \frac{p_0}{1 - p_0}\gamma` (:func:`surplus_from_rates`). NaN at
    :math:`p_0 = 1`.

    Examples
    --------
    >>> round(float(surplus(0.955, 0.915)), 3)
    -0.889
    """
    p = _probability(p0, "p0")
    q = _probability(p1, "p1")
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

    ``threshold`` :math:`\tau` is the cost of running the step in accuracy points (seed 003,
    Sec. 8.1: invoke the step only when the predicted gain exceeds a cost-sensitive threshold).

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


# --------------------------------------------------------------------------- composition
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


def gap_of_kernels(direct: np.ndarray, composed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Return the composition gaps :math:`(\Delta^{max}, \Delta^{mean})` (seed 003, eqs. 12-13).

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
        Seed 003 eqs. 13 and 12.
    """

    steps: np.ndarray
    composed: np.ndarray
    direct: np.ndarray
    gap_max: float
    gap_mean: float


def composition_gap(outcomes: np.ndarray | PairedOutcomes) -> CompositionGap:
    r"""Compare the composed kernel :math:`\hat T_{01}\hat T_{12}\cdots` with the direct one.

    When the stack is Markov on the correctness bit (:math:`E_{t+1} \perp E_{t-1} \mid E_t`),
    the two agree up to sampling noise (seed 003, Sec. 7, eqs. 11-13); all kernels are
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
    array = _binary(values, "outcomes")
    if array.ndim != 2 or array.shape[1] < 2:
        raise ValueError(f"outcomes must have shape (N, S + 1) with S >= 1; got {array.shape}")
    return array


# --------------------------------------------------------------------------- mixture shift
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
    counts of each slice; the pooled channel to their sum. Under a target mixture :math:`w(s)`
    with per-slice baselines :math:`p_0(s)`, the slice-conditioned prediction recombines the
    slice-wise one-step laws while the pooled one applies a single channel to the mixed baseline
    (seed 003, Sec. 5.2; the pooled channel is tied to the calibration mixture, so it is biased
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
    n = _counts(counts)
    if n.ndim < 3:
        raise ValueError(f"counts must have shape (..., S, 2, 2); got {n.shape}")
    w = _weights(weights, n.shape[-3])
    if p0 is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            base = n[..., 1, :].sum(axis=-1) / n.sum(axis=(-2, -1))
    else:
        base = _probability(p0, "p0")
    c_s, g_s = jeffreys_rates(n)
    c_pool, g_pool = jeffreys_rates(n.sum(axis=-3))
    used = w > 0
    sliced = np.where(used, w * one_step(base, c_s, g_s), 0.0).sum(axis=-1)
    p0_w = np.where(used, w * base, 0.0).sum(axis=-1)
    return MixturePrediction(w, p0_w, sliced, one_step(p0_w, c_pool, g_pool))


# --------------------------------------------------------------------------- transfer
@dataclass(frozen=True, slots=True)
class Transfer:
    r"""Seed-holdout transfer test of a channel (seed 003, Sec. 3).

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
    a = _counts(calibration, "calibration")
    b = _counts(target, "target")
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


# --------------------------------------------------------------------------- oracle headroom
@dataclass(frozen=True, slots=True)
class Headroom:
    r"""The judge-K triple :math:`(p_0, p_1, p_{oracle})` and its channel (seed 003, Sec. 4).

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
        seed 003 Table 14 where :math:`\hat\gamma` is undefined when :math:`E_0 = 1` never occurs).
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
    e0 = _binary(anchor, "anchor")
    e1 = _binary(selected, "selected")
    eo = _binary(oracle, "oracle")
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
