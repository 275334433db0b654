"""Posterior predictive draws of counts: one binomial draw per posterior draw, one rule for all.

Every model in bayesjudge observes binomial counts (or sums of them), so a replicated dataset
is a set of binomial draws with the posterior's probabilities. Drawing them with numpy from
the posterior needs no compiled model and is exactly the model's likelihood.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike

__all__ = ["binomial_draws", "predictive_counts"]


def binomial_draws(trials: ArrayLike, prob: ArrayLike, rng: np.random.Generator) -> np.ndarray:
    """Draw ``Bin(trials, prob)`` elementwise, broadcasting, with ``prob`` clipped to [0, 1].

    Examples
    --------
    >>> binomial_draws([10, 10], [0.0, 1.0], np.random.default_rng(0)).tolist()
    [0, 10]
    """
    p = np.clip(np.asarray(prob, dtype=float), 0.0, 1.0)
    n = np.broadcast_to(
        np.asarray(trials, dtype=np.int64), np.broadcast_shapes(np.shape(trials), p.shape)
    )
    return rng.binomial(n, np.broadcast_to(p, n.shape))


def predictive_counts(
    specs: Mapping[str, tuple[ArrayLike, xr.DataArray]], rng: np.random.Generator
) -> xr.Dataset:
    """Return replicated counts ``name ~ Bin(trials, prob)`` at every posterior draw.

    Parameters
    ----------
    specs : mapping of name to (trials, prob)
        For each observed count, its number of trials (a scalar or an array along the
        non-sample dims of ``prob``) and the posterior draws of its probability.
    rng : Generator
        Source of the draws (drawn in the order of ``specs``).

    Returns
    -------
    Dataset
        One variable per name, with the dims and coords of its ``prob``.

    Examples
    --------
    >>> p = xr.DataArray(np.full((2, 3), 0.5), dims=("chain", "draw"))
    >>> predictive_counts({"k": (10, p)}, np.random.default_rng(0))["k"].shape
    (2, 3)
    """
    out = {}
    coords: dict[str, xr.DataArray] = {}
    for name, (trials, prob) in specs.items():
        out[name] = (prob.dims, binomial_draws(trials, prob.to_numpy(), rng))
        coords.update({str(d): prob.coords[d] for d in prob.dims if d in prob.coords})
    return xr.Dataset(out, coords=coords)
