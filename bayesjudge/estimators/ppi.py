r"""Prediction-powered inference for a mean: PPI and the power-tuned PPI++.

With ``n`` gold-labelled items (labels :math:`Y_j`, judge outputs :math:`\hat Y_j`) and ``N``
unlabelled items (judge outputs :math:`\hat Y^u_i`), the prediction-powered estimate of the
mean label is the judge's mean on the unlabelled items plus the mean rectifier on the labelled
ones. Both assume the labelled items are a random sample of the same population as the
unlabelled ones.

References
----------
.. [1] A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic,
   "Prediction-powered inference", Science 382, 2023.
.. [2] A. N. Angelopoulos, J. C. Duchi and T. Zrnic, "PPI++: Efficient prediction-powered
   inference", arXiv:2311.01453, 2023.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["ppi_lambda", "ppi_lambda_counts", "ppi_mean", "ppi_mean_counts"]


def ppi_lambda(y: ArrayLike, yhat: ArrayLike, yhat_unlabelled: ArrayLike) -> float:
    r"""Power-tuning weight of PPI++ for a mean, clipped to [0, 1].

    .. math::

        \hat\lambda = \mathrm{clip}\left(\frac{\widehat{\mathrm{Cov}}(Y, \hat Y)}
            {(1 + n/N)\,\widehat{\mathrm{Var}}(\hat Y)}, 0, 1\right)

    (Angelopoulos, Duchi and Zrnic 2023, Example 6.1). As in ``ppi_py`` 0.2.3, the covariance
    is the plug-in (``1/n``) estimate on the labelled items and the variance the
    ``1/(n+N-1)`` estimate on the labelled and unlabelled predictions pooled; the clip to
    [0, 1] is ``ppi_py``'s ``clip=True``. When the predictions do not vary at all the weight
    is 0 (the classical estimate).

    Examples
    --------
    >>> print(f"{ppi_lambda([1, 0, 1, 0], [1, 0, 1, 1], [1, 0, 0, 1]):.4f}")
    0.2333
    """
    y_arr = np.asarray(y, dtype=float)
    yhat_arr = np.asarray(yhat, dtype=float)
    unl = np.asarray(yhat_unlabelled, dtype=float)
    n, big_n = y_arr.size, unl.size
    cov = float(np.mean((y_arr - y_arr.mean()) * (yhat_arr - yhat_arr.mean())))
    var = float(np.var(np.concatenate([yhat_arr, unl]), ddof=1))
    if not var > 0.0:
        return 0.0
    return float(np.clip(cov / ((1.0 + n / big_n) * var), 0.0, 1.0))


def ppi_mean(
    y: ArrayLike, yhat: ArrayLike, yhat_unlabelled: ArrayLike, *, lam: float = 1.0
) -> tuple[float, float]:
    r"""Prediction-powered estimate of a mean and its CLT standard error.

    .. math::

        \hat\theta_\lambda = \frac{\lambda}{N}\sum_{i=1}^N \hat Y^u_i
            + \frac1n\sum_{j=1}^n (Y_j - \lambda \hat Y_j),\qquad
        \widehat{\mathrm{se}}^2 = \frac{\lambda^2\hat\sigma^2(\hat Y^u)}{N}
            + \frac{\hat\sigma^2(Y - \lambda\hat Y)}{n}

    with plug-in (``1/n``) variances as in ``ppi_py``; ``lam=1`` is PPI (Angelopoulos et al.
    2023), ``lam=0`` the classical mean of the labels.

    Returns
    -------
    estimate, se : float

    Examples
    --------
    >>> est, se = ppi_mean([1, 0, 1, 0], [1, 0, 1, 1], [1, 0, 0, 1])
    >>> print(f"{est:.3f} {se:.3f}")
    0.250 0.331
    """
    y_arr = np.asarray(y, dtype=float)
    yhat_arr = np.asarray(yhat, dtype=float)
    unl = np.asarray(yhat_unlabelled, dtype=float)
    rectifier = y_arr - lam * yhat_arr
    estimate = lam * float(unl.mean()) + float(rectifier.mean())
    variance = lam**2 * float(np.var(unl)) / unl.size + float(np.var(rectifier)) / y_arr.size
    return estimate, float(np.sqrt(variance))


def ppi_lambda_counts(*, m1: int, x1: int, m0: int, x0: int, n: int, k: int) -> float:
    r""":func:`ppi_lambda` for binary labels and verdicts, from the six counts alone.

    With ``m = m1 + m0`` labelled items (``m1`` gold-PASS, of which the judge passed ``x1``;
    ``m0`` gold-FAIL, of which it passed ``x0``) and ``n`` unlabelled items (``k`` passed),
    the plug-in covariance is :math:`x_1/m - (m_1/m)(x_1 + x_0)/m` and the pooled variance of
    the :math:`s = x_1 + x_0 + k` passes among :math:`T = m + n` predictions is
    :math:`s(T - s)/\{T(T - 1)\}`: the same weight as the array form, without the arrays.

    Examples
    --------
    >>> print(f"{ppi_lambda_counts(m1=2, x1=2, m0=2, x0=1, n=4, k=2):.4f}")
    0.2333
    """
    m = m1 + m0
    total, passes = m + n, x1 + x0 + k
    cov = x1 / m - (m1 / m) * ((x1 + x0) / m)
    var = passes * (total - passes) / (total * (total - 1.0)) if total > 1 else 0.0
    if not var > 0.0:
        return 0.0
    return float(np.clip(cov / ((1.0 + m / n) * var), 0.0, 1.0))


def ppi_mean_counts(
    *, m1: int, x1: int, m0: int, x0: int, n: int, k: int, lam: float = 1.0
) -> tuple[float, float]:
    r""":func:`ppi_mean` for binary labels and verdicts, from the six counts alone.

    The rectifier :math:`Y - \lambda\hat Y` takes the values :math:`1 - \lambda` (``x1``
    items), :math:`1` (``m1 - x1``), :math:`-\lambda` (``x0``) and :math:`0` (``m0 - x0``), and
    the unlabelled predictions have plug-in variance :math:`\hat p(1 - \hat p)` with
    :math:`\hat p = k/n`, so the estimate and its standard error are those of the array form.

    Examples
    --------
    >>> est, se = ppi_mean_counts(m1=2, x1=2, m0=2, x0=1, n=4, k=2)
    >>> print(f"{est:.3f} {se:.3f}")
    0.250 0.331
    """
    m = m1 + m0
    values = np.array([1.0 - lam, 1.0, -lam, 0.0])
    weights = np.array([x1, m1 - x1, x0, m0 - x0], dtype=float)
    rectifier = float(weights @ values) / m
    spread = float(weights @ (values - rectifier) ** 2) / m
    p = k / n
    estimate = lam * p + rectifier
    variance = lam**2 * p * (1.0 - p) / n + spread / m
    return estimate, float(np.sqrt(variance))
