r"""Paired correctness counts of pipeline steps: the channel family's data reductions.

Each item is scored correct (1) or incorrect (0) before a step, :math:`E_0`, and after it,
:math:`E_1`; the paired counts :math:`n_{ij} = \#\{k : E_0 = i, E_1 = j\}` are arrays of shape
``(..., 2, 2)`` (``counts[..., i, j] = n_ij``). Also the counts of whole histories for the
composition and Markov models (Correction and Corruption, 2025, eq. 4).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    pass

__all__ = [
    "check_binary",
    "check_counts",
    "check_probability",
    "history_counts",
    "markov_counts",
    "paired_counts",
    "slice_counts",
    "stack_counts",
]


def check_binary(values: np.ndarray | Sequence[int], name: str) -> np.ndarray:
    """Return 0/1 correctness values as integers, naming the first position that is not 0/1."""
    array = np.asarray(values)
    if array.size and not np.isin(array, (0, 1)).all():
        bad = np.flatnonzero(~np.isin(array.reshape(-1), (0, 1)))[0]
        raise ValueError(
            f"{name} must hold 0/1 correctness values; position {int(bad)} has "
            f"{array.reshape(-1)[bad]!r}"
        )
    return array.astype(np.int64)


def check_counts(counts: np.ndarray | Sequence, name: str = "counts") -> np.ndarray:
    """Return paired counts of shape ``(..., 2, 2)`` as floats, checking they are non-negative."""
    array = np.asarray(counts, dtype=float)
    if array.ndim < 2 or array.shape[-2:] != (2, 2):
        raise ValueError(f"{name} must have shape (..., 2, 2); got {array.shape}")
    if (array < 0).any() or not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite and non-negative")
    return array


def check_probability(value: np.ndarray | float | Sequence[float], name: str) -> np.ndarray:
    """Return probabilities as floats, checking they lie in [0, 1]."""
    array = np.asarray(value, dtype=float)
    if ((array < 0) | (array > 1) | ~np.isfinite(array)).any():
        raise ValueError(f"{name} must lie in [0, 1]; got {value!r}")
    return array


def paired_counts(
    before: np.ndarray | Sequence[int], after: np.ndarray | Sequence[int]
) -> np.ndarray:
    r"""Count the paired outcomes :math:`n_{ij}` of one step (Correction and Corruption, eq. 4).

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
    e0 = check_binary(before, "before")
    e1 = check_binary(after, "after")
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
    array = check_binary(outcomes, "outcomes")
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
    e0 = check_binary(before, "before")
    e1 = check_binary(after, "after")
    if not (e0.shape == e1.shape == labels_all.shape) or e0.ndim != 1:
        raise ValueError("before, after and slices must be 1-d arrays of the same length")
    labels, index = np.unique(labels_all, return_inverse=True)
    cell = 2 * e0 + e1
    flat = np.zeros((labels.size, 4), dtype=np.int64)
    np.add.at(flat, (index, cell), 1)
    return labels, flat.reshape(labels.size, 2, 2)


def history_counts(outcomes: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Return, for each stage t >= 1, the items and the correct items per history of E_0..E_{t-1}.

    Parameters
    ----------
    outcomes : ndarray of {0, 1}, shape (N, S + 1)

    Returns
    -------
    list of (n, y)
        ``n[h]`` items with history ``h`` (binary number ``E_0 ... E_{t-1}``, E_0 most
        significant), ``y[h]`` of them correct at stage ``t``; arrays of length ``2**t``.

    Examples
    --------
    >>> [(n.tolist(), y.tolist()) for n, y in history_counts(np.array([[0, 1], [1, 1]]))]
    [([1, 1], [1, 1])]
    """
    e = np.asarray(outcomes, dtype=np.int64)
    out = []
    code = np.zeros(e.shape[0], dtype=np.int64)
    for t in range(1, e.shape[1]):
        code = 2 * code + e[:, t - 1]
        size = 2**t
        out.append(
            (
                np.bincount(code, minlength=size),
                np.bincount(code, weights=e[:, t], minlength=size).astype(np.int64),
            )
        )
    return out


def markov_counts(outcomes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the counts of the Markov model of a stack.

    Returns
    -------
    first_n, first_y : ndarray, shape (2,)
        Items with :math:`E_0 = b` and those of them with :math:`E_1 = 1`.
    later_n, later_y : ndarray, shape (S - 1, 2, 2)
        For step ``t >= 1`` (index ``t - 1``), items with :math:`(E_{t-1}, E_t) = (a, b)` and
        those of them with :math:`E_{t+1} = 1`.

    Examples
    --------
    >>> markov_counts(np.array([[0, 1, 1], [1, 1, 0]]))[2].tolist()
    [[[0, 1], [0, 1]]]
    """
    e = np.asarray(outcomes, dtype=np.int64)
    first_n = np.bincount(e[:, 0], minlength=2)
    first_y = np.bincount(e[:, 0], weights=e[:, 1], minlength=2).astype(np.int64)
    later_n = np.zeros((e.shape[1] - 2, 2, 2), dtype=np.int64)
    later_y = np.zeros_like(later_n)
    for t in range(1, e.shape[1] - 1):
        cell = 2 * e[:, t - 1] + e[:, t]
        later_n[t - 1] = np.bincount(cell, minlength=4).reshape(2, 2)
        later_y[t - 1] = np.bincount(cell, weights=e[:, t + 1], minlength=4).reshape(2, 2)
    return first_n, first_y, later_n, later_y
