r"""Correction and corruption rates of one step: Jeffreys estimates and exact Beta posteriors.

The correction rate :math:`c = P(E_1 = 1 \mid E_0 = 0)` and corruption rate
:math:`\gamma = P(E_1 = 0 \mid E_0 = 1)` with Jeffreys Beta(1/2, 1/2) priors have conjugate
posteriors; their means are the smoothed estimates :math:`(n_{01} + 1/2)/(n_0 + 1)` and
:math:`(n_{10} + 1/2)/(n_1 + 1)` (Correction and Corruption, 2025, App. A).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import special

from bayesjudge.priors import JEFFREYS, Beta
from bayesjudge.validation import seed_stream

if TYPE_CHECKING:
    pass

from bayesjudge.channels.counts import check_counts

__all__ = ["RatePosterior", "channel_posterior", "jeffreys_kernel", "jeffreys_rates"]


def jeffreys_rates(counts: np.ndarray | Sequence) -> tuple[np.ndarray, np.ndarray]:
    r"""Return the Jeffreys-smoothed correction and corruption rates.

    Reference: Correction and Corruption, eq. 14.

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
    n = check_counts(counts)
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
    n = check_counts(counts)
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
        rng = seed_stream(random_seed, "draws")
        a = np.asarray(self.alpha, dtype=float)[..., None]
        b = np.asarray(self.beta, dtype=float)[..., None]
        shape = (*np.broadcast_shapes(a.shape, b.shape)[:-1], size)
        return rng.beta(np.broadcast_to(a, shape), np.broadcast_to(b, shape))


def channel_posterior(
    counts: np.ndarray | Sequence, *, prior: Beta = JEFFREYS
) -> tuple[RatePosterior, RatePosterior]:
    r"""Return the exact conjugate posteriors of correction and corruption.

    With :math:`c \sim \mathrm{Beta}(a, b)` and :math:`\gamma \sim \mathrm{Beta}(a, b)`
    independently (Jeffreys :math:`a = b = 1/2` by default, Correction and Corruption App. A),

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
    n = check_counts(counts)
    c = RatePosterior(n[..., 0, 1] + prior.alpha, n[..., 0, 0] + prior.beta)
    gamma = RatePosterior(n[..., 1, 0] + prior.alpha, n[..., 1, 1] + prior.beta)
    return c, gamma
