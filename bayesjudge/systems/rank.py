r"""Rankings from posterior draws of the systems' success rates.

Every numpy function takes draws of :math:`\pi` with shape ``(..., draws, systems)`` (any
leading batch axes, e.g. replicates of a study) and reduces over the draws axis; the pandas
functions at the end label the results with system names. With :math:`D` draws
:math:`\pi^{(d)}`:

* :func:`prob_best`: :math:`P(s \text{ is best}) = \frac1D\sum_d \mathbf 1\{\pi^{(d)}_s =
  \max_t \pi^{(d)}_t\}` (a tie shares the draw equally);
* :func:`rank_probabilities`: :math:`P(\mathrm{rank}_s = r)`, rank 1 the highest rate (ties,
  which have probability 0 for continuous posteriors, are broken by system order, so the
  matrix is doubly stochastic);
* :func:`prob_better`: :math:`P(\pi_i > \pi_j)` for every ordered pair;
* :func:`pairwise_differences`: posterior mean and equal-tailed interval of
  :math:`\pi_j - \pi_i`;
* :func:`reversal_pairs`: the pairs whose order under a reference ranking (typically the naive
  judged pass rates) the posterior more likely than not reverses.

Ranking with posterior rank probabilities rather than by point estimates follows the
literature on league tables (e.g. Goldstein and Spiegelhalter, "League tables and their
limitations", JRSS A 1996).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "competition_ranks",
    "mean_rank",
    "pairwise_differences",
    "pairwise_table",
    "prob_best",
    "prob_better",
    "rank_draws",
    "rank_probabilities",
    "ranking_table",
    "reversal_pairs",
    "reversals_table",
]


def _draws(pi: ArrayLike) -> NDArray[np.float64]:
    arr = np.asarray(pi, dtype=float)
    if arr.ndim < 2 or arr.shape[-1] < 2 or arr.shape[-2] < 1:
        raise ValueError(
            f"pi must have shape (..., draws, systems) with two or more systems; got {arr.shape}"
        )
    if np.isnan(arr).any():
        raise ValueError("pi must not contain NaN")
    return arr


def _check_prob(prob: float) -> float:
    if isinstance(prob, bool) or not isinstance(prob, int | float) or not 0.0 < prob < 1.0:
        raise ValueError(f"prob must be a number in (0, 1); got {prob!r}")
    return float(prob)


def prob_best(pi: ArrayLike) -> NDArray[np.float64]:
    """Return the posterior probability that each system has the highest success rate.

    Parameters
    ----------
    pi : array_like, shape (..., draws, systems)

    Returns
    -------
    ndarray, shape (..., systems)
        Sums to 1 over systems.

    Examples
    --------
    >>> prob_best([[0.5, 0.6], [0.7, 0.6], [0.4, 0.6], [0.6, 0.6]]).tolist()
    [0.375, 0.625]
    """
    arr = _draws(pi)
    top = arr == arr.max(axis=-1, keepdims=True)
    share = top / top.sum(axis=-1, keepdims=True)
    return np.asarray(share.mean(axis=-2), dtype=float)


def _ordinal_ranks(arr: NDArray[np.float64]) -> NDArray[np.int64]:
    """Rank 0 = highest; ties broken by system order."""
    order = np.argsort(-arr, axis=-1, kind="stable")
    return np.argsort(order, axis=-1, kind="stable")


def rank_draws(pi: ArrayLike) -> NDArray[np.int64]:
    """Return each system's rank at every draw (1 = highest; ties broken by system order).

    Returns
    -------
    ndarray of int64, shape (..., draws, systems)

    Examples
    --------
    >>> rank_draws([[0.5, 0.6, 0.1], [0.7, 0.6, 0.1]]).tolist()
    [[2, 1, 3], [1, 2, 3]]
    """
    return np.asarray(_ordinal_ranks(_draws(pi)) + 1, dtype=np.int64)


def rank_probabilities(pi: ArrayLike) -> NDArray[np.float64]:
    """Return the posterior of each system's rank: entry ``[s, r]`` is P(rank of s = r + 1).

    Rank 1 is the highest success rate.

    Returns
    -------
    ndarray, shape (..., systems, systems)
        Rows and columns each sum to 1.

    Examples
    --------
    >>> rank_probabilities([[0.5, 0.6, 0.1], [0.7, 0.6, 0.1]]).tolist()
    [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]
    """
    arr = _draws(pi)
    ranks = _ordinal_ranks(arr)
    size = arr.shape[-1]
    return np.asarray(np.eye(size)[ranks].mean(axis=-3), dtype=float)


def mean_rank(pi: ArrayLike) -> NDArray[np.float64]:
    """Return each system's posterior mean rank (1 = highest success rate).

    Examples
    --------
    >>> mean_rank([[0.5, 0.6, 0.1], [0.7, 0.6, 0.1]]).tolist()
    [1.5, 1.5, 3.0]
    """
    arr = _draws(pi)
    return np.asarray((_ordinal_ranks(arr) + 1).mean(axis=-2), dtype=float)


def prob_better(pi: ArrayLike) -> NDArray[np.float64]:
    r"""Return the matrix of :math:`P(\pi_i > \pi_j)`: row ``i`` better than column ``j``.

    Strict inequality, so the diagonal is 0 and ``P[i, j] + P[j, i] = 1`` unless draws tie.

    Returns
    -------
    ndarray, shape (..., systems, systems)

    Examples
    --------
    >>> prob_better([[0.5, 0.6], [0.7, 0.6], [0.4, 0.6], [0.8, 0.6]]).tolist()
    [[0.0, 0.5], [0.5, 0.0]]
    """
    arr = _draws(pi)
    return np.asarray((arr[..., :, None] > arr[..., None, :]).mean(axis=-3), dtype=float)


def pairwise_differences(
    pi: ArrayLike, *, prob: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    r"""Return the posterior mean and equal-tailed interval of every :math:`\pi_j - \pi_i`.

    Returns
    -------
    mean, low, high : ndarray, shape (..., systems, systems)
        Entry ``[i, j]`` describes :math:`\pi_j - \pi_i` (column minus row), so row ``i`` is
        the baseline.

    Examples
    --------
    >>> mean, low, high = pairwise_differences([[0.5, 0.6], [0.7, 0.6], [0.6, 0.6]], prob=0.5)
    >>> print(f"{mean[0, 1]:.3f} {low[0, 1]:.3f} {high[0, 1]:.3f}")
    0.000 -0.050 0.050
    """
    prob = _check_prob(prob)
    arr = _draws(pi)
    diff = arr[..., None, :] - arr[..., :, None]  # (..., draws, i, j) = pi_j - pi_i
    tail = 0.5 * (1.0 - prob)
    low, high = np.quantile(diff, [tail, 1.0 - tail], axis=-3)
    return np.asarray(diff.mean(axis=-3)), np.asarray(low), np.asarray(high)


def competition_ranks(rates: ArrayLike) -> NDArray[np.int64]:
    """Return the ranks point values give (1 = highest; ties share the best rank, '1224').

    Use it on the naive judged pass rates to get the ranking an uncorrected analysis reports.

    Examples
    --------
    >>> competition_ranks([0.7, 0.9, 0.7, 0.5]).tolist()
    [2, 1, 2, 4]
    """
    arr = np.asarray(rates, dtype=float)
    return np.asarray(1 + (arr[..., None, :] > arr[..., :, None]).sum(axis=-1), dtype=np.int64)


def reversal_pairs(
    reference: ArrayLike, pi: ArrayLike, *, threshold: float = 0.5
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    r"""Return the pairs the posterior reverses relative to a reference ordering.

    A pair :math:`(i, j)` with reference values :math:`r_i > r_j` is *reversed* when
    :math:`P(\pi_j > \pi_i) > \text{threshold}`.

    Parameters
    ----------
    reference : array_like, shape (systems,)
        Point values that define the reference order (e.g. the naive judged pass rates, or the
        posterior means of another fit).
    pi : array_like, shape (draws, systems)
        Posterior draws.
    threshold : float
        Posterior probability above which the order counts as reversed.

    Returns
    -------
    pairs : ndarray of int64, shape (reversals, 2)
        ``[i, j]``: ``i`` ranked above ``j`` by the reference, below it by the posterior.
    prob : ndarray, shape (reversals,)
        :math:`P(\pi_j > \pi_i)`.

    Examples
    --------
    >>> pairs, p = reversal_pairs([0.8, 0.7], [[0.6, 0.7], [0.65, 0.7], [0.8, 0.7]])
    >>> pairs.tolist(), p.round(3).tolist()
    ([[0, 1]], [0.667])
    """
    if not 0.0 <= threshold < 1.0:
        raise ValueError(f"threshold must lie in [0, 1); got {threshold!r}")
    ref = np.asarray(reference, dtype=float)
    arr = _draws(pi)
    if arr.ndim != 2 or ref.shape != arr.shape[-1:]:
        raise ValueError(
            f"reference must have shape (systems,) and pi (draws, systems); got {ref.shape} "
            f"and {arr.shape}"
        )
    better = prob_better(arr)  # [i, j] = P(pi_i > pi_j)
    above = ref[:, None] > ref[None, :]
    reversed_prob = better.T  # [i, j] = P(pi_j > pi_i)
    flipped = above & (reversed_prob > threshold)
    pairs = np.argwhere(flipped)
    return pairs.astype(np.int64), reversed_prob[flipped]


# --------------------------------------------------------------------------- pandas edge
def _names(systems: Sequence[str], size: int) -> list[str]:
    names = [str(s) for s in systems]
    if len(names) != size:
        raise ValueError(f"systems must name the {size} columns of pi; got {len(names)} names")
    return names


def ranking_table(
    pi: ArrayLike, systems: Sequence[str], *, naive: ArrayLike | None = None
) -> pd.DataFrame:
    """Return one row per system: posterior mean, P(best), mean rank, rank probabilities.

    Parameters
    ----------
    pi : array_like, shape (draws, systems)
    systems : sequence of str
    naive : array_like, shape (systems,), optional
        Naive judged pass rates; adds columns ``naive_rate`` and ``naive_rank``.

    Returns
    -------
    DataFrame
        Indexed by ``system``, sorted by mean rank; columns ``pi_mean``, ``prob_best``,
        ``mean_rank``, (``naive_rate``, ``naive_rank``), ``p_rank_1`` ... ``p_rank_S``.

    Examples
    --------
    >>> ranking_table([[0.5, 0.6], [0.7, 0.6]], ["a", "b"])["prob_best"].tolist()
    [0.5, 0.5]
    """
    arr = _draws(pi)
    names = _names(systems, arr.shape[-1])
    frame = pd.DataFrame(
        {
            "pi_mean": arr.mean(axis=0),
            "prob_best": prob_best(arr),
            "mean_rank": mean_rank(arr),
        },
        index=pd.Index(names, name="system"),
    )
    if naive is not None:
        rates = np.asarray(naive, dtype=float)
        frame["naive_rate"] = rates
        frame["naive_rank"] = competition_ranks(rates)
    ranks = rank_probabilities(arr)
    for r in range(arr.shape[-1]):
        frame[f"p_rank_{r + 1}"] = ranks[:, r]
    return frame.sort_values("mean_rank", kind="stable")


def pairwise_table(pi: ArrayLike, systems: Sequence[str], *, prob: float = 0.95) -> pd.DataFrame:
    r"""Return every unordered pair (a, b), a before b in ``systems``, with pi_b - pi_a.

    Columns ``a``, ``b``, ``diff_mean``, ``low``, ``high``, ``prob`` (interval mass) and
    ``prob_b_better`` (:math:`P(\pi_b > \pi_a)`).

    Examples
    --------
    >>> pairwise_table([[0.5, 0.6], [0.7, 0.6]], ["a", "b"])["prob_b_better"].tolist()
    [0.5]
    """
    arr = _draws(pi)
    names = _names(systems, arr.shape[-1])
    mean, low, high = pairwise_differences(arr, prob=prob)
    better = prob_better(arr)
    rows = [
        {
            "a": names[i],
            "b": names[j],
            "diff_mean": mean[i, j],
            "low": low[i, j],
            "high": high[i, j],
            "prob": prob,
            "prob_b_better": better[j, i],
        }
        for i in range(len(names))
        for j in range(i + 1, len(names))
    ]
    return pd.DataFrame(rows)


def reversals_table(
    reference: ArrayLike, pi: ArrayLike, systems: Sequence[str], *, threshold: float = 0.5
) -> pd.DataFrame:
    r"""Return the reversed pairs of :func:`reversal_pairs` with system names.

    Columns ``higher`` (ranked higher by the reference), ``lower``, ``reference_gap``
    (reference difference, positive) and ``prob_reversed`` (:math:`P(\pi_{lower} >
    \pi_{higher})`); empty when the posterior keeps the reference order.

    Examples
    --------
    >>> t = reversals_table([0.8, 0.7], [[0.6, 0.7], [0.65, 0.7], [0.8, 0.7]], ["a", "b"])
    >>> t[["higher", "lower"]].values.tolist()
    [['a', 'b']]
    """
    ref = np.asarray(reference, dtype=float)
    arr = _draws(pi)
    names = _names(systems, arr.shape[-1])
    pairs, p = reversal_pairs(ref, arr, threshold=threshold)
    return pd.DataFrame(
        {
            "higher": [names[i] for i in pairs[:, 0]],
            "lower": [names[j] for j in pairs[:, 1]],
            "reference_gap": ref[pairs[:, 0]] - ref[pairs[:, 1]],
            "prob_reversed": p,
        }
    )
