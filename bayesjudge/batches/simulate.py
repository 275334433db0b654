"""Seeded simulators of batches: counts of a judge over time, with drops and drifts."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesjudge.batches.data import COUNT_COLUMNS
from bayesjudge.validation import seed_stream

__all__ = ["batch_counts", "batch_counts_frame"]


def batch_counts(
    *,
    pi: np.ndarray | float,
    se: np.ndarray | float,
    sp: np.ndarray | float,
    n: int,
    m: int,
    batches: int,
    replicates: int = 1,
    random_seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    r"""Simulate the six counts of each batch: shape ``(replicates, batches, 6)``.

    Each batch has ``m + n`` items with true outcome :math:`Y \sim \mathrm{Bernoulli}(\pi_t)`;
    ``m`` of them, drawn at random, carry their gold label (so
    :math:`m_1 \sim \mathrm{Bin}(m, \pi_t)`), and the judge passes a gold-PASS item with
    probability :math:`S_{e,t}` and a gold-FAIL one with :math:`1 - S_{p,t}`.

    Parameters
    ----------
    pi, se, sp : float or ndarray of shape (batches,)
        The true success rate and the judge's sensitivity and specificity of each batch.
    n, m : int
        Unlabelled and gold-labelled items per batch.
    batches, replicates : int
        How many batches, and how many independent runs of them.
    random_seed : int, Generator or None
        Seed (the ``"simulate"`` stream of :func:`bayesjudge.validation.seed_stream`).

    Returns
    -------
    ndarray of int64, shape (replicates, batches, 6)
        ``m1, x1, m0, x0, n, k`` per batch.

    Examples
    --------
    >>> counts = batch_counts(pi=0.8, se=0.9, sp=0.9, n=100, m=20, batches=3, random_seed=1)
    >>> counts.shape, bool((counts[..., 0] + counts[..., 2] == 20).all())
    ((1, 3, 6), True)
    """
    rng = seed_stream(random_seed, "simulate")
    shape = (replicates, batches)
    p, s_e, s_p = (np.broadcast_to(np.asarray(v, dtype=float), (batches,)) for v in (pi, se, sp))
    m1 = rng.binomial(m, np.broadcast_to(p, shape))
    m0 = m - m1
    x1 = rng.binomial(m1, s_e)
    x0 = rng.binomial(m0, 1.0 - s_p)
    n1 = rng.binomial(n, np.broadcast_to(p, shape))
    k = rng.binomial(n1, s_e) + rng.binomial(n - n1, 1.0 - s_p)
    return np.stack([m1, x1, m0, x0, np.full(shape, n), k], axis=-1).astype(np.int64)


def batch_counts_frame(counts: np.ndarray, *, names: list[str] | None = None) -> pd.DataFrame:
    """Return one replicate's counts, shape ``(batches, 6)``, as a counts table.

    Examples
    --------
    >>> batch_counts_frame(np.array([[3, 2, 1, 0, 10, 6]])).columns.tolist()
    ['batch', 'm1', 'x1', 'm0', 'x0', 'n', 'k']
    """
    names = names or [f"b{i + 1:02d}" for i in range(len(counts))]
    frame = pd.DataFrame(np.asarray(counts, dtype=np.int64), columns=list(COUNT_COLUMNS[1:]))
    frame.insert(0, "batch", names)
    return frame
