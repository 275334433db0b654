r"""Intervals for a proportion: Wilson's score interval and the normal (CLT) interval.

References
----------
.. [1] E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
   Journal of the American Statistical Association 22, 1927.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayesjudge.results import Estimate, Interval
from bayesjudge.validation import z_value

__all__ = ["clt_estimate", "wilson_interval"]


def wilson_interval(
    k: ArrayLike, n: ArrayLike, *, prob: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Wilson score interval for a binomial proportion, vectorised over ``k`` and ``n``.

    .. math::

        \frac{k + z^2/2}{n + z^2} \pm \frac{z}{n + z^2}\sqrt{\frac{k(n-k)}{n} + \frac{z^2}{4}}

    with :math:`z` the :math:`(1+\text{prob})/2` normal quantile (Wilson 1927).

    Parameters
    ----------
    k, n : array_like
        Successes and trials (``0 <= k <= n``, ``n > 0``); broadcast together.
    prob : float
        Interval mass.

    Returns
    -------
    low, high : ndarray
        The bounds, always inside [0, 1] and around ``k / n``.

    Examples
    --------
    >>> low, high = wilson_interval(700, 1000)
    >>> print(f"{low:.4f} {high:.4f}")
    0.6709 0.7276
    """
    z = z_value(prob)
    k_arr = np.asarray(k, dtype=float)
    n_arr = np.asarray(n, dtype=float)
    centre = (k_arr + z**2 / 2.0) / (n_arr + z**2)
    half = z / (n_arr + z**2) * np.sqrt(k_arr * (n_arr - k_arr) / n_arr + z**2 / 4.0)
    # exact ends at k = 0 and k = n (the formula gives them only up to rounding)
    low = np.where(k_arr == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(k_arr == n_arr, 1.0, np.clip(centre + half, 0.0, 1.0))
    return low, high


def clt_estimate(method: str, value: float, se: float, *, prob: float, **fields: Any) -> Estimate:
    r"""Return an :class:`~bayesjudge.results.Estimate` with a normal (CLT) interval.

    The interval is :math:`\hat\theta \pm z\,\mathrm{se}`, not clipped. ``fields`` are
    passed to the estimate (``j``, ``notes``, ...).

    Examples
    --------
    >>> est = clt_estimate("ppi", 0.5, 0.1, prob=0.95)
    >>> print(f"{est.interval.low:.3f} {est.interval.high:.3f}")
    0.304 0.696
    """
    z = z_value(prob)
    interval = Interval(value - z * se, value + z * se, prob, "clt")
    return Estimate(method, value, interval, se=se, **fields)
