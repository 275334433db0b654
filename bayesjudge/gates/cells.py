"""The gate's data reductions: per-item scores at each cap and the (label, r, k) cells.

The gate model's likelihood depends on an item only through its gold label (or none), its
number of rulings r and its number of passed rulings k, so items are reduced to distinct cells
with multiplicities, padded to a fixed length for the compiled model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from bayesjudge.gates.caps import check_caps
from bayesjudge.gates.rules import Rule, rule_threshold

__all__ = ["GateCells", "cap_scores", "gate_cells", "pad_cells"]


def cap_scores(
    r: ArrayLike, k: ArrayLike, caps: ArrayLike, *, rule: Rule = "any", t: int | None = None
) -> NDArray[np.float64]:
    r"""Unbiased per-item estimate of the ship probability at cap K from observed rulings.

    An item ruled ``r`` times with ``k`` passes: drawing ``K <= r`` of its rulings without
    replacement and applying the rule gives a hypergeometric tail, which is an unbiased estimate of
    :math:`P(\mathrm{Bin}(K, p) \ge t)` (for ``rule="any"``, :math:`\hat s(K) = 1 - \binom{r-k}{K} /
    \binom{r}{K}`, unbiased for :math:`1-(1-p)^K`). At ``K = 1`` it is the fraction of rulings
    passed, ``k / r``. Where :math:`K > r` the score would be an extrapolation and is NaN (Below the
    Reliability Floor caps every empirical cap at the number of rulings).

    Returns
    -------
    ndarray, shape (n_items, n_caps) (or (n_items,) for a scalar cap)

    Examples
    --------
    >>> cap_scores([4, 4, 2], [1, 0, 1], [1, 2, 3]).round(3).tolist()
    [[0.25, 0.5, 0.75], [0.0, 0.0, 0.0], [0.5, 1.0, nan]]
    """
    r_arr = np.asarray(r, dtype=np.int64)
    k_arr = np.asarray(k, dtype=np.int64)
    caps_arr = check_caps(caps)
    thresholds = rule_threshold(caps_arr, rule=rule, t=t)
    big_r, big_k = r_arr[..., None], k_arr[..., None]
    draws = np.minimum(caps_arr, big_r)
    out = stats.hypergeom.sf(thresholds - 1, big_r, big_k, draws)
    out = np.where(caps_arr <= big_r, out, np.nan)
    return np.asarray(out[..., 0] if np.ndim(caps) == 0 else out, dtype=float)


@dataclass(frozen=True, slots=True, eq=False)
class GateCells:
    """Distinct (label, r, k) cells of a rulings table, with how many items share each.

    The likelihood of the gate model depends on an item only through its cell, so each cell
    enters once weighted by ``weight`` (DESIGN.md, family 2).

    Attributes
    ----------
    label : ndarray of int
        1 compliant, 0 violation, -1 unlabelled.
    r, k : ndarray of int
        Rulings and passes.
    weight : ndarray of int
        Number of items in the cell.
    """

    label: NDArray[np.int64]
    r: NDArray[np.int64]
    k: NDArray[np.int64]
    weight: NDArray[np.int64]

    @property
    def n_unlabelled(self) -> int:
        """Number of unlabelled items."""
        return int(self.weight[self.label < 0].sum())

    @property
    def n_labelled(self) -> tuple[int, int]:
        """Numbers of labelled (violation, compliant) items."""
        return int(self.weight[self.label == 0].sum()), int(self.weight[self.label == 1].sum())

    def __len__(self) -> int:
        return int(self.label.size)


def gate_cells(label: ArrayLike, r: ArrayLike, k: ArrayLike) -> GateCells:
    """Collapse per-item (label, r, k) to distinct cells with multiplicities.

    ``label`` holds 1.0, 0.0 or NaN (unlabelled), as in :class:`bayesjudge.gates.data.Rulings`.

    Examples
    --------
    >>> cells = gate_cells([1, 1, np.nan, np.nan, 0], [3, 3, 3, 3, 3], [3, 3, 0, 0, 1])
    >>> cells.weight.tolist(), cells.n_unlabelled
    ([2, 1, 2], 2)
    """
    y = np.asarray(label, dtype=float)
    coded = np.where(np.isnan(y), -1, y).astype(np.int64)
    stack = np.column_stack([coded, np.asarray(r, dtype=np.int64), np.asarray(k, dtype=np.int64)])
    unique, counts = np.unique(stack, axis=0, return_counts=True)
    order = np.lexsort((unique[:, 2], unique[:, 1], -unique[:, 0]))
    unique, counts = unique[order], counts[order]
    return GateCells(
        label=unique[:, 0], r=unique[:, 1], k=unique[:, 2], weight=counts.astype(np.int64)
    )


def pad_cells(cells: GateCells, size: int) -> dict[str, np.ndarray]:
    """Return the cell arrays padded with weight-0 cells to length ``size``.

    Padding cells are unlabelled with one failed ruling and weight 0, so they add exactly 0 to
    the log likelihood.

    Raises
    ------
    ValueError
        If ``size`` is smaller than the number of cells.

    Examples
    --------
    >>> from bayesjudge.gates.cells import gate_cells
    >>> pad_cells(gate_cells([1.0], [2], [1]), 3)["cell_weight"].tolist()
    [1.0, 0.0, 0.0]
    """
    n = len(cells)
    if size < n:
        raise ValueError(f"size={size} is smaller than the number of cells ({n})")
    extra = size - n
    return {
        "cell_label": np.concatenate([cells.label, np.full(extra, -1)]).astype(np.int64),
        "cell_r": np.concatenate([cells.r, np.ones(extra)]).astype(np.int64),
        "cell_k": np.concatenate([cells.k, np.zeros(extra)]).astype(np.int64),
        "cell_weight": np.concatenate([cells.weight, np.zeros(extra)]).astype(np.float64),
    }
