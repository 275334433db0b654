r"""Where the gate model's chains start: moment estimates from the cells.

The gate model's posterior can hold a minor local mode far from the main one: with many
unlabelled items, chains started at PyMC's default point (:math:`\pi = \omega = \mu = 1/2`)
can settle in a mode whose log density is tens of units lower and never leave it (measured at
:math:`10^6` items: R-hat 1.74 on ``log_kappa``, two chains of four in the wrong mode). Its
ridge is also curved, so a chain that starts far away spends its warm-up crossing it. Starting
every chain near moment estimates avoids both; the sampler jitters each chain's start
(:data:`bayesjudge.inference.sampling.JITTER`), so R-hat still compares chains from different
points.

The estimates, per class :math:`c` from the gold-labelled cells, with :math:`z_c` the share of
items that never passed and :math:`m_c` the share of rulings passed:

.. math::

    \omega_c = \mathrm{clip}(z_c / 2, 0.02, 0.9), \quad
    \mu_c = \mathrm{clip}(m_c / (1 - \omega_c), 0.02, 0.98),

(half the zero share, as some all-FAIL items come from the beta-binomial part), and from the
unlabelled cells' share of rulings passed :math:`m_u`,

.. math::

    \pi = \mathrm{clip}\left(\frac{m_u - (1 - \omega_0)\mu_0}
    {(1 - \omega_1)\mu_1 - (1 - \omega_0)\mu_0}, 0.05, 0.95\right),

with :math:`\log\kappa_c` at its prior mean. They need not be good estimates, only inside the
main mode's basin: the sampler's warm-up does the rest.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit

from bayesjudge.gates.cells import GateCells
from bayesjudge.priors import GatePriors

__all__ = ["gate_start"]

_DEFAULT_OMEGA = 0.1
_DEFAULT_MU = 0.5


def _shares(cells: GateCells, where: np.ndarray) -> tuple[float, float] | None:
    """Share of items never passed and share of rulings passed among ``where``'s cells."""
    weight = cells.weight[where].astype(float)
    if weight.sum() == 0:
        return None
    zero = float(weight[cells.k[where] == 0].sum() / weight.sum())
    rulings = float((weight * cells.r[where]).sum())
    passed = float((weight * cells.k[where]).sum())
    return zero, passed / rulings


def gate_start(cells: GateCells, *, priors: GatePriors | None = None) -> dict[str, np.ndarray]:
    """Return where the gate model's chains start, in the sampler's unconstrained coordinates.

    Parameters
    ----------
    cells : GateCells
        The (label, r, k) cells the model is fitted to (label -1 for unlabelled items).
    priors : GatePriors, optional
        The model's priors; ``log_kappa`` starts at its prior mean.

    Returns
    -------
    dict of str to ndarray
        Values of the model's value variables: ``pi_logodds__`` (scalar), ``omega_logodds__``,
        ``mu_logodds__`` and ``log_kappa`` (per class, FAIL then PASS).

    Examples
    --------
    >>> from bayesjudge.gates.cells import gate_cells
    >>> cells = gate_cells([0, 0, 1, 1, np.nan, np.nan], [4, 4, 4, 4, 4, 4], [0, 1, 4, 3, 4, 0])
    >>> start = gate_start(cells)
    >>> sorted(start)
    ['log_kappa', 'mu_logodds__', 'omega_logodds__', 'pi_logodds__']
    >>> float(start["log_kappa"][0])
    1.0
    """
    priors = GatePriors() if priors is None else priors
    omega = np.full(2, _DEFAULT_OMEGA)
    mu = np.full(2, _DEFAULT_MU)
    for cls in (0, 1):
        shares = _shares(cells, cells.label == cls)
        if shares is not None:
            zero, passed = shares
            omega[cls] = np.clip(zero / 2.0, 0.02, 0.9)
            mu[cls] = np.clip(passed / (1.0 - omega[cls]), 0.02, 0.98)
    rate = (1.0 - omega) * mu  # share of rulings passed per class
    unlabelled = _shares(cells, cells.label < 0)
    pi = 0.5
    if unlabelled is not None and rate[1] > rate[0]:
        pi = float(np.clip((unlabelled[1] - rate[0]) / (rate[1] - rate[0]), 0.05, 0.95))
    return {
        "pi_logodds__": np.asarray(logit(pi)),
        "omega_logodds__": logit(omega),
        "mu_logodds__": logit(mu),
        "log_kappa": np.full(2, float(priors.log_kappa.mu)),
    }
