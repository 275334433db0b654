r"""Numerics of the one-parameter item-response (Rasch) model of the systems family.

System :math:`s` answers item :math:`i` correctly with probability

.. math:: P(y_{is} = 1 \mid b_i) = \mathrm{expit}(\alpha_s - b_i), \qquad
    b_i = \sigma z_i, \; z_i \sim N(0, 1),

with ability :math:`\alpha_s` and item difficulty :math:`b_i` (Rasch 1960). Shared difficulties
make the outcomes of different systems on the same item positively correlated; :math:`\sigma = 0`
makes them independent. A system's success rate over the item population is

.. math:: \pi_s = E_z[\mathrm{expit}(\alpha_s - \sigma z)]
    \approx \sum_k w_k\,\mathrm{expit}(\alpha_s - \sigma z_k),

with probabilists' Gauss-Hermite nodes :math:`z_k` and weights :math:`w_k` normalised to sum to
1 (exact for polynomials of degree :math:`2K - 1` in :math:`z`). The logistic function has poles
at distance :math:`\pi/\sigma` from the real axis, so the rule converges more slowly as the
difficulty spread grows. Measured against adaptive quadrature (``scipy.integrate.quad``) for
:math:`\alpha \in \{-3, 0, 2\}`: with 32 nodes the error of :math:`\pi_s` is below 3e-14 at
:math:`\sigma = 1`, 4e-8 at :math:`\sigma = 2`, 1e-5 at :math:`\sigma = 3` and 2e-4 at
:math:`\sigma = 4`; with 64 nodes below 1e-15, 6e-11, 7e-8 and 5e-6.

These numpy functions are shared by the simulators and by the PyMC model in
:mod:`bayesjudge.models.systems` (which evaluates the same sums on tensors).
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

__all__ = ["ability_for_rate", "joint_rates", "normal_quadrature", "population_rate"]


@functools.lru_cache(maxsize=8)
def _hermite(nodes: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    z, w = np.polynomial.hermite_e.hermegauss(nodes)
    return z, np.log(w) - 0.5 * np.log(2.0 * np.pi)


def normal_quadrature(nodes: int = 32) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Return Gauss-Hermite nodes and log weights for an expectation over :math:`N(0, 1)`.

    :math:`E[g(Z)] \approx \sum_k \exp(\ell_k)\,g(z_k)`, with :math:`\sum_k \exp(\ell_k) = 1`.

    Examples
    --------
    >>> z, log_w = normal_quadrature(8)
    >>> print(f"{np.exp(log_w).sum():.12f} {np.sum(np.exp(log_w) * z**2):.12f}")
    1.000000000000 1.000000000000
    """
    if isinstance(nodes, bool) or not isinstance(nodes, int | np.integer) or nodes < 2:
        raise ValueError(f"nodes must be a whole number of at least 2; got {nodes!r}")
    z, log_w = _hermite(int(nodes))
    return z.copy(), log_w.copy()


def population_rate(
    ability: ArrayLike, difficulty_sd: ArrayLike, *, nodes: int = 64
) -> NDArray[np.float64]:
    r"""Return :math:`\pi_s = E_z[\mathrm{expit}(\alpha_s - \sigma z)]`, vectorised.

    Parameters
    ----------
    ability : array_like, shape (..., systems)
        Abilities :math:`\alpha_s` on the logit scale.
    difficulty_sd : array_like, shape (...)
        Standard deviation :math:`\sigma` of the item difficulties (broadcast against the
        leading axes of ``ability``).
    nodes : int
        Gauss-Hermite nodes.

    Examples
    --------
    >>> print(f"{population_rate([0.0, 1.0], 2.0)[1]:.4f}")
    0.6477
    """
    z, log_w = normal_quadrature(nodes)
    a = np.asarray(ability, dtype=float)
    sd = np.asarray(difficulty_sd, dtype=float)[..., None, None]
    p = expit(a[..., None, :] - sd * z[:, None])
    return np.asarray(np.einsum("k,...ks->...s", np.exp(log_w), p), dtype=float)


def joint_rates(
    ability: ArrayLike, difficulty_sd: ArrayLike, *, nodes: int = 64
) -> NDArray[np.float64]:
    r"""Return the joint outcome probabilities of two systems on a random item.

    .. math:: P(y_a = i, y_b = j) = E_z[p_a(z)^i (1 - p_a(z))^{1-i} p_b(z)^j (1 - p_b(z))^{1-j}]

    Parameters
    ----------
    ability : array_like, shape (..., 2)
        Abilities of the two systems.
    difficulty_sd : array_like, shape (...)
        Difficulty standard deviation.

    Returns
    -------
    ndarray, shape (..., 2, 2)
        Entry ``[i, j]`` is :math:`P(y_a = i, y_b = j)`.

    Examples
    --------
    >>> joint = joint_rates([0.0, 0.0], 0.0)
    >>> joint.round(3).tolist()
    [[0.25, 0.25], [0.25, 0.25]]
    """
    z, log_w = normal_quadrature(nodes)
    a = np.asarray(ability, dtype=float)
    if a.shape[-1] != 2:
        raise ValueError(f"ability must have a last axis of length 2; got shape {a.shape}")
    sd = np.asarray(difficulty_sd, dtype=float)[..., None, None]
    p = expit(a[..., None, :] - sd * z[:, None])  # (..., K, 2)
    pa = np.stack([1.0 - p[..., 0], p[..., 0]], axis=-1)  # (..., K, 2)
    pb = np.stack([1.0 - p[..., 1], p[..., 1]], axis=-1)
    return np.asarray(np.einsum("k,...ki,...kj->...ij", np.exp(log_w), pa, pb), dtype=float)


def ability_for_rate(
    pi: ArrayLike, difficulty_sd: float, *, nodes: int = 64, tol: float = 1e-13
) -> NDArray[np.float64]:
    r"""Return the abilities :math:`\alpha_s` whose population rates are ``pi`` (bisection).

    :math:`\pi(\alpha)` is increasing in :math:`\alpha`, so each root is bracketed in
    :math:`[-60, 60]` and found by vectorised bisection.

    Examples
    --------
    >>> a = ability_for_rate([0.3, 0.8], 1.5)
    >>> population_rate(a, 1.5).round(10).tolist()
    [0.3, 0.8]
    """
    target = np.asarray(pi, dtype=float)
    if np.any((target <= 0.0) | (target >= 1.0)):
        raise ValueError(f"pi must lie strictly between 0 and 1; got {target.tolist()}")
    low = np.full(target.shape, -60.0)
    high = np.full(target.shape, 60.0)
    for _ in range(200):
        mid = 0.5 * (low + high)
        above = population_rate(mid, difficulty_sd, nodes=nodes) > target
        high = np.where(above, mid, high)
        low = np.where(above, low, mid)
        if np.max(high - low) < tol:
            break
    return 0.5 * (low + high)
