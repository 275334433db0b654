r"""The Rogan-Gladen correction of a judged pass rate, its variance and its adjusted interval.

A judge with sensitivity :math:`\mathrm{Se}` and specificity :math:`\mathrm{Sp}` passes items
whose true success rate is :math:`\pi` at the judged rate

.. math:: R = \pi\,\mathrm{Se} + (1 - \pi)(1 - \mathrm{Sp}) = J\pi + 1 - \mathrm{Sp},
    \qquad J = \mathrm{Se} + \mathrm{Sp} - 1,

and inverting it gives the Rogan-Gladen estimate :math:`\hat\pi = (R + \mathrm{Sp} - 1)/J`
whenever :math:`J > 0` (Rogan and Gladen 1978). The same map corrects a cap-K retry gate, with
:math:`\mathrm{Se}(K)`, :math:`\mathrm{Sp}(K)` and the reported rate :math:`R(K)` in place of
the one-ruling quantities. Every function takes keyword-only arguments and broadcasts them, so
leading batch axes (bootstrap resamples, posterior draws, caps) come for free.

References
----------
.. [1] W. J. Rogan and B. Gladen, "Estimating prevalence from the results of a screening test",
   American Journal of Epidemiology 107(1), 1978.
.. [2] C. Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations", 2026, eqs. 4-9.
.. [3] Z. Lang and J. Reiczigel, "Confidence limits for prevalence of disease adjusted for
   estimated sensitivity and specificity", Preventive Veterinary Medicine 113(1), 2014.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayesjudge.validation import z_value

__all__ = ["judged_rate", "lang_reiczigel_interval", "rogan_gladen_pi", "rogan_gladen_variance"]


def _floats(*values: ArrayLike) -> list[NDArray[np.float64]]:
    return [np.asarray(v, dtype=float) for v in values]


def judged_rate(*, pi: ArrayLike, se: ArrayLike, sp: ArrayLike) -> NDArray[np.float64]:
    r"""Return the judged pass rate :math:`R = \pi\,\mathrm{Se} + (1-\pi)(1-\mathrm{Sp})`.

    The forward map of an imperfect judge (Lee et al. 2026, Sec. 5.1); for a cap-K retry gate
    it is the reported rate :math:`R(K)`. :func:`rogan_gladen_pi` inverts it when
    :math:`J > 0`.

    Examples
    --------
    >>> print(f"{judged_rate(pi=0.6, se=0.90, sp=0.85):.4f}")
    0.6000
    """
    pi_arr, se_arr, sp_arr = _floats(pi, se, sp)
    return np.asarray(pi_arr * se_arr + (1.0 - pi_arr) * (1.0 - sp_arr), dtype=float)


def rogan_gladen_pi(*, rate: ArrayLike, se: ArrayLike, sp: ArrayLike) -> NDArray[np.float64]:
    r"""Return the Rogan-Gladen estimate of pi from a judged rate, unclipped.

    .. math:: \hat\pi = \frac{R + \mathrm{Sp} - 1}{\mathrm{Se} + \mathrm{Sp} - 1}

    (Rogan and Gladen 1978; Lee et al. 2026, eq. 5). Not clipped to [0, 1]; the estimators
    that report it clip and say so.

    Parameters
    ----------
    rate : array_like
        Judged pass rate(s) :math:`R`.
    se, sp : array_like
        The judge's sensitivity and specificity.

    Returns
    -------
    ndarray
        The corrected rate; NaN wherever :math:`J \le 0` or an input is NaN.

    Examples
    --------
    >>> print(f"{rogan_gladen_pi(rate=0.70, se=0.90, sp=0.85):.4f}")
    0.7333
    """
    rate_arr, se_arr, sp_arr = np.broadcast_arrays(*_floats(rate, se, sp))
    j = se_arr + sp_arr - 1.0
    out = np.full(j.shape, np.nan)
    np.divide(rate_arr + sp_arr - 1.0, j, out=out, where=j > 0)
    return out


def rogan_gladen_variance(
    *,
    rate: ArrayLike,
    se: ArrayLike,
    sp: ArrayLike,
    n: ArrayLike,
    m1: ArrayLike,
    m0: ArrayLike,
) -> NDArray[np.float64]:
    r"""Delta-method variance of the Rogan-Gladen estimate.

    .. math::

        \operatorname{Var}(\hat\pi) = \frac{1}{J^2}\left[\frac{R(1-R)}{n}
            + \pi^2\,\frac{\mathrm{Se}(1-\mathrm{Se})}{m_1}
            + (1-\pi)^2\,\frac{\mathrm{Sp}(1-\mathrm{Sp})}{m_0}\right],
        \qquad \pi = \frac{R + \mathrm{Sp} - 1}{J},

    with ``n`` unlabelled items and ``m1`` gold-PASS and ``m0`` gold-FAIL calibration items
    (Lee et al. 2026, eq. 9, at the plug-in estimates; the same expression at true values is
    the finite-sample variance at cap K of a retry gate). :math:`\pi` is the *unclipped*
    estimate: the derivative of the map is taken where the data put it.

    Returns
    -------
    ndarray
        The variance; NaN where :math:`J \le 0`.

    Examples
    --------
    >>> var = rogan_gladen_variance(rate=0.70, se=0.90, sp=0.85, n=1000, m1=100, m0=100)
    >>> print(f"{np.sqrt(var):.4f}")
    0.0373
    """
    rate_arr, se_arr, sp_arr, n_arr, m1_arr, m0_arr = _floats(rate, se, sp, n, m1, m0)
    pi = rogan_gladen_pi(rate=rate_arr, se=se_arr, sp=sp_arr)
    j = se_arr + sp_arr - 1.0
    numerator = (
        rate_arr * (1.0 - rate_arr) / n_arr
        + pi**2 * se_arr * (1.0 - se_arr) / m1_arr
        + (1.0 - pi) ** 2 * sp_arr * (1.0 - sp_arr) / m0_arr
    )
    return np.asarray(numerator / j**2, dtype=float)


def lang_reiczigel_interval(
    *,
    rate: ArrayLike,
    se: ArrayLike,
    sp: ArrayLike,
    n: ArrayLike,
    m1: ArrayLike,
    m0: ArrayLike,
    prob: float = 0.95,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    r"""Return the adjusted (Lang-Reiczigel) interval of the Rogan-Gladen estimate.

    Add :math:`z^2/2` successes and failures to the test count and one of each to each
    calibration class (Lee et al. 2026, eq. 7; Lang and Reiczigel 2014):

    .. math::

        \tilde n = n + z^2,\; \tilde R = \frac{nR + z^2/2}{n + z^2},\;
        \tilde m_c = m_c + 2,\; \widetilde{\mathrm{Se}} = \frac{m_1\mathrm{Se} + 1}{m_1 + 2},\;
        \widetilde{\mathrm{Sp}} = \frac{m_0\mathrm{Sp} + 1}{m_0 + 2},

    shift the centre :math:`\tilde\pi = (\tilde R + \widetilde{\mathrm{Sp}} - 1)/\tilde J` by
    (eq. 8)

    .. math::

        d\tilde\pi = 2z^2\left(-(1-\tilde\pi)\frac{\widetilde{\mathrm{Sp}}
            (1-\widetilde{\mathrm{Sp}})}{\tilde m_0}
            + \tilde\pi\,\frac{\widetilde{\mathrm{Se}}(1-\widetilde{\mathrm{Se}})}{\tilde m_1}
            \right)

    and take :math:`\tilde\pi + d\tilde\pi \pm z\,\widetilde{\mathrm{se}}` with the
    :func:`rogan_gladen_variance` standard error at the adjusted quantities (eq. 6). Both
    bounds are clipped to [0, 1], as in the paper.

    Returns
    -------
    low, high, centre : ndarray
        The clipped bounds and the unclipped shifted centre; all NaN where the adjusted
        :math:`\tilde J \le 0`.

    Examples
    --------
    >>> low, high, _ = lang_reiczigel_interval(
    ...     rate=0.70, se=0.90, sp=0.85, n=1000, m1=100, m0=100
    ... )
    >>> print(f"{low:.3f} {high:.3f}")
    0.664 0.816
    """
    z = z_value(prob)
    rate_arr, se_arr, sp_arr, n_arr, m1_arr, m0_arr = _floats(rate, se, sp, n, m1, m0)
    rate_t = (n_arr * rate_arr + z**2 / 2.0) / (n_arr + z**2)
    se_t = (m1_arr * se_arr + 1.0) / (m1_arr + 2.0)
    sp_t = (m0_arr * sp_arr + 1.0) / (m0_arr + 2.0)
    n_t, m1_t, m0_t = n_arr + z**2, m1_arr + 2.0, m0_arr + 2.0
    pi_t = rogan_gladen_pi(rate=rate_t, se=se_t, sp=sp_t)
    v1 = se_t * (1.0 - se_t) / m1_t
    v0 = sp_t * (1.0 - sp_t) / m0_t
    shift = 2.0 * z**2 * (-(1.0 - pi_t) * v0 + pi_t * v1)
    sd = np.sqrt(rate_t * (1.0 - rate_t) / n_t + (1.0 - pi_t) ** 2 * v0 + pi_t**2 * v1) / (
        se_t + sp_t - 1.0
    )
    centre = pi_t + shift
    return np.clip(centre - z * sd, 0.0, 1.0), np.clip(centre + z * sd, 0.0, 1.0), centre
