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

__all__ = ["ppi_lambda", "ppi_mean"]


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
