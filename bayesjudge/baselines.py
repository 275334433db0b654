r"""Frequentist baselines for the true success rate: naive, Rogan-Gladen, PPI and PPI++.

Every estimator here takes judge data first (a :class:`~bayesjudge.data.JudgeData`, or anything
:meth:`JudgeData.coerce <bayesjudge.data.JudgeData.coerce>` accepts), then keyword-only options,
and returns one :class:`~bayesjudge.results.Estimate`. The arithmetic lives in small vectorised
numpy functions (:func:`rogan_gladen_map`, :func:`rogan_gladen_variance`,
:func:`lang_reiczigel_interval`, :func:`wilson_interval`, :func:`ppi_mean`, :func:`ppi_lambda`)
that the public estimators wrap.

Notation (Lee et al., 2026, seed 004): on ``n`` unlabelled test items the judge passes ``k``,
:math:`\hat p = k/n`; on the calibration set, ``m1`` gold-PASS items of which the judge passed
``x1`` give the sensitivity :math:`\hat q_1 = x_1/m_1`, and ``m0`` gold-FAIL items of which the
judge passed ``x0`` give the specificity :math:`\hat q_0 = (m_0 - x_0)/m_0`. Youden's
:math:`J = q_0 + q_1 - 1`.

References
----------
.. [1] Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations" (seed 004), eqs. 5-9.
.. [2] W. J. Rogan and B. Gladen, "Estimating prevalence from the results of a screening test",
   Am. J. Epidemiol. 107(1), 1978.
.. [3] Z. Lang and J. Reiczigel, "Confidence limits for prevalence of disease adjusted for
   estimated sensitivity and specificity", Prev. Vet. Med. 113(1), 2014.
.. [4] A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic,
   "Prediction-powered inference", Science 382, 2023.
.. [5] A. N. Angelopoulos, J. C. Duchi and T. Zrnic, "PPI++: Efficient prediction-powered
   inference", arXiv:2311.01453, 2023.
.. [6] E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
   JASA 22, 1927.
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtri

from bayesjudge.data import JudgeCounts, JudgeData, TableLike
from bayesjudge.errors import DataError, NotIdentifiableError
from bayesjudge.results import Estimate, Interval, estimates_frame
from bayesjudge.simulate import rng_from

__all__ = [
    "BASELINE_METHODS",
    "baseline_estimates",
    "baselines",
    "calibration_only",
    "judged_pass_rate",
    "lang_reiczigel_interval",
    "naive",
    "ppi",
    "ppi_lambda",
    "ppi_mean",
    "ppi_plus_plus",
    "rogan_gladen",
    "rogan_gladen_bootstrap_draws",
    "rogan_gladen_map",
    "rogan_gladen_variance",
    "wilson_interval",
]

RGInterval = Literal["delta", "lang_reiczigel", "bootstrap"]
Resample = Literal["both", "calibration"]
JudgeInput = JudgeData | TableLike

#: The method names of :func:`baseline_estimates`, in row order.
BASELINE_METHODS = (
    "naive",
    "calibration_only",
    "rogan_gladen_delta",
    "rogan_gladen_lang_reiczigel",
    "rogan_gladen_bootstrap",
    "ppi",
    "ppi_plus_plus",
)

_RG_KIND = {
    "delta": "delta",
    "lang_reiczigel": "lang_reiczigel",
    "bootstrap": "bootstrap_percentile",
}


# --------------------------------------------------------------------------- argument checks
def _check_prob(prob: float) -> float:
    if isinstance(prob, bool) or not isinstance(prob, int | float | np.floating):
        raise ValueError(f"prob must be a number in (0, 1); got {prob!r}")
    if not 0.0 < float(prob) < 1.0:
        raise ValueError(f"prob must lie in (0, 1); got {prob!r}")
    return float(prob)


def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}; got {value!r}")


def _check_n_boot(n_boot: int) -> int:
    if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 1:
        raise ValueError(f"n_boot must be a positive whole number; got {n_boot!r}")
    return int(n_boot)


def _z(prob: float) -> float:
    """Two-sided standard-normal quantile for an interval of mass ``prob``."""
    return float(ndtri(0.5 + prob / 2.0))


def _verdict_counts(data: JudgeInput | JudgeCounts, method: str) -> JudgeCounts:
    """Return the six counts of binary judge data, or raise a DataError for score data."""
    if isinstance(data, JudgeCounts):
        return JudgeData.from_counts(**data.as_dict()).counts
    judge = JudgeData.coerce(data)
    if judge.kind != "verdict":
        raise DataError(
            f"{method}: Rogan-Gladen needs binary judge verdicts (a 'verdict' column); these data "
            "hold judge scores in [0, 1]. Use ppi or ppi_plus_plus for scores, or threshold the "
            "scores into verdicts first"
        )
    return judge.counts


# --------------------------------------------------------------------------- numpy core
def wilson_interval(
    k: ArrayLike, n: ArrayLike, *, prob: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Wilson score interval for a binomial proportion, vectorised over ``k`` and ``n``.

    .. math::

        \frac{k + z^2/2}{n + z^2} \pm \frac{z}{n + z^2}\sqrt{\frac{k(n-k)}{n} + \frac{z^2}{4}}

    with :math:`z` the :math:`(1+\text{prob})/2` normal quantile (Wilson, 1927).

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
    z = _z(_check_prob(prob))
    k_arr = np.asarray(k, dtype=float)
    n_arr = np.asarray(n, dtype=float)
    centre = (k_arr + z**2 / 2.0) / (n_arr + z**2)
    half = z / (n_arr + z**2) * np.sqrt(k_arr * (n_arr - k_arr) / n_arr + z**2 / 4.0)
    # exact ends at k = 0 and k = n (the formula gives them only up to rounding)
    low = np.where(k_arr == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(k_arr == n_arr, 1.0, np.clip(centre + half, 0.0, 1.0))
    return low, high


def rogan_gladen_map(p: ArrayLike, q0: ArrayLike, q1: ArrayLike) -> NDArray[np.float64]:
    r"""Rogan-Gladen correction of a judged pass rate, unclipped, vectorised.

    .. math:: \theta = \frac{p + q_0 - 1}{q_0 + q_1 - 1}

    (Rogan and Gladen, 1978; Lee et al., seed 004, eqs. 4-5). Arguments broadcast against each
    other, so leading batch axes (e.g. bootstrap resamples) come for free.

    Parameters
    ----------
    p : array_like
        Judged pass rate(s).
    q0, q1 : array_like
        Judge specificity and sensitivity.

    Returns
    -------
    ndarray
        The corrected rate, not clipped to [0, 1]; NaN wherever :math:`J = q_0 + q_1 - 1 \le 0`
        or an input is NaN.

    Examples
    --------
    >>> print(f"{rogan_gladen_map(0.70, 0.85, 0.90):.4f}")
    0.7333
    """
    p_arr, q0_arr, q1_arr = np.broadcast_arrays(
        np.asarray(p, dtype=float), np.asarray(q0, dtype=float), np.asarray(q1, dtype=float)
    )
    j = q0_arr + q1_arr - 1.0
    out = np.full(j.shape, np.nan)
    ok = j > 0
    np.divide(p_arr + q0_arr - 1.0, j, out=out, where=ok)
    return out


def judged_pass_rate(theta: ArrayLike, q0: ArrayLike, q1: ArrayLike) -> NDArray[np.float64]:
    r"""Forward map: the rate at which a judge passes items whose true success rate is theta.

    .. math:: p = q_1\theta + (1 - q_0)(1 - \theta) = J\theta + 1 - q_0

    (seed 004, Sec. 5.1). :func:`rogan_gladen_map` inverts it whenever :math:`J > 0`.

    Examples
    --------
    >>> print(f"{judged_pass_rate(0.6, 0.85, 0.90):.4f}")
    0.6000
    """
    theta_arr = np.asarray(theta, dtype=float)
    q0_arr, q1_arr = np.asarray(q0, dtype=float), np.asarray(q1, dtype=float)
    return np.asarray(q1_arr * theta_arr + (1.0 - q0_arr) * (1.0 - theta_arr), dtype=float)


def rogan_gladen_variance(
    p: ArrayLike,
    q0: ArrayLike,
    q1: ArrayLike,
    n: ArrayLike,
    m0: ArrayLike,
    m1: ArrayLike,
) -> NDArray[np.float64]:
    r"""Delta-method variance of the Rogan-Gladen estimator (seed 004, eq. 9), vectorised.

    .. math::

        \operatorname{Var}(\hat\theta) = \frac{\hat p(1-\hat p)/n
            + (1-\hat\theta)^2\,\hat q_0(1-\hat q_0)/m_0
            + \hat\theta^2\,\hat q_1(1-\hat q_1)/m_1}{(\hat q_0 + \hat q_1 - 1)^2}

    with :math:`\hat\theta` the *unclipped* estimate of :func:`rogan_gladen_map` (the derivative
    of the map is taken where the data put it).

    Returns
    -------
    ndarray
        The variance; NaN where :math:`J \le 0`.

    Examples
    --------
    >>> print(f"{np.sqrt(rogan_gladen_variance(0.70, 0.85, 0.90, 1000, 100, 100)):.4f}")
    0.0373
    """
    p_arr = np.asarray(p, dtype=float)
    q0_arr, q1_arr = np.asarray(q0, dtype=float), np.asarray(q1, dtype=float)
    theta = rogan_gladen_map(p_arr, q0_arr, q1_arr)
    j = q0_arr + q1_arr - 1.0
    numerator = (
        p_arr * (1.0 - p_arr) / np.asarray(n, dtype=float)
        + (1.0 - theta) ** 2 * q0_arr * (1.0 - q0_arr) / np.asarray(m0, dtype=float)
        + theta**2 * q1_arr * (1.0 - q1_arr) / np.asarray(m1, dtype=float)
    )
    return np.asarray(numerator / j**2, dtype=float)


def lang_reiczigel_interval(
    p: ArrayLike,
    q0: ArrayLike,
    q1: ArrayLike,
    n: ArrayLike,
    m0: ArrayLike,
    m1: ArrayLike,
    *,
    prob: float = 0.95,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    r"""Return the adjusted (Lang-Reiczigel) interval of seed 004, eqs. 6-8, vectorised.

    Add :math:`z^2/2` successes and failures to the test count and one of each to each
    calibration class (eq. 7):

    .. math::

        \tilde n = n + z^2,\; \tilde p = \frac{n\hat p + z^2/2}{n + z^2},\;
        \tilde m_c = m_c + 2,\; \tilde q_c = \frac{m_c\hat q_c + 1}{m_c + 2},\;
        \tilde\theta = \frac{\tilde p + \tilde q_0 - 1}{\tilde q_0 + \tilde q_1 - 1},

    shift the centre by (eq. 8)

    .. math::

        d\tilde\theta = 2z^2\left(-(1-\tilde\theta)\frac{\tilde q_0(1-\tilde q_0)}{\tilde m_0}
            + \tilde\theta\,\frac{\tilde q_1(1-\tilde q_1)}{\tilde m_1}\right)

    and take :math:`\tilde\theta + d\tilde\theta \pm z\,\widetilde{\mathrm{se}}` with the eq. 9
    standard error evaluated at the adjusted quantities (eq. 6). Both bounds are then clipped to
    [0, 1], as in the paper ("values outside the interval [0, 1] are truncated") and its
    reference code (Appendix C).

    Returns
    -------
    low, high, centre : ndarray
        The clipped bounds and the unclipped shifted centre :math:`\tilde\theta + d\tilde\theta`;
        all NaN where the adjusted :math:`\tilde J = \tilde q_0 + \tilde q_1 - 1 \le 0`.

    Examples
    --------
    >>> low, high, _ = lang_reiczigel_interval(0.70, 0.85, 0.90, 1000, 100, 100)
    >>> print(f"{low:.3f} {high:.3f}")
    0.664 0.816
    """
    z = _z(_check_prob(prob))
    n_arr = np.asarray(n, dtype=float)
    m0_arr, m1_arr = np.asarray(m0, dtype=float), np.asarray(m1, dtype=float)
    p_t = (n_arr * np.asarray(p, dtype=float) + z**2 / 2.0) / (n_arr + z**2)
    q0_t = (m0_arr * np.asarray(q0, dtype=float) + 1.0) / (m0_arr + 2.0)
    q1_t = (m1_arr * np.asarray(q1, dtype=float) + 1.0) / (m1_arr + 2.0)
    n_t, m0_t, m1_t = n_arr + z**2, m0_arr + 2.0, m1_arr + 2.0
    theta_t = rogan_gladen_map(p_t, q0_t, q1_t)
    v0 = q0_t * (1.0 - q0_t) / m0_t
    v1 = q1_t * (1.0 - q1_t) / m1_t
    shift = 2.0 * z**2 * (-(1.0 - theta_t) * v0 + theta_t * v1)
    se = np.sqrt(p_t * (1.0 - p_t) / n_t + (1.0 - theta_t) ** 2 * v0 + theta_t**2 * v1) / (
        q0_t + q1_t - 1.0
    )
    centre = theta_t + shift
    return np.clip(centre - z * se, 0.0, 1.0), np.clip(centre + z * se, 0.0, 1.0), centre


def rogan_gladen_bootstrap_draws(
    counts: JudgeCounts,
    *,
    n_boot: int,
    resample: Resample = "both",
    random_seed: int | np.random.Generator | None = None,
) -> NDArray[np.float64]:
    r"""Bootstrap replicates of the clipped Rogan-Gladen estimate, drawn without a Python loop.

    Resampling the ``m`` calibration pairs (gold label, verdict) with replacement only changes
    the four cell counts (PASS/pass, PASS/fail, FAIL/pass, FAIL/fail), so one bootstrap
    resample *is* one multinomial draw of ``m`` items over the four cells with the observed cell
    frequencies; resampling the ``n`` binary test verdicts is one binomial draw
    :math:`k^* \sim \mathrm{Bin}(n, \hat p)`. All ``n_boot`` resamples are drawn by a single
    ``Generator.multinomial`` call (and, for ``resample="both"``, one ``Generator.binomial``
    call). With ``resample="calibration"`` the test count stays fixed, as in seed 001 (judgy).

    Parameters
    ----------
    counts : JudgeCounts
        The six counts.
    n_boot : int
        Number of resamples ``B``.
    resample : {"both", "calibration"}
        Whether to resample the test set too, or the calibration set only.
    random_seed : int, Generator or None
        Seed for reproducibility.

    Returns
    -------
    ndarray, shape (n_boot,)
        :math:`\mathrm{clip}(\theta^*, 0, 1)` per resample, NaN for a resample with an empty
        calibration class or :math:`J^* \le 0` (the correction is undefined there).

    Examples
    --------
    >>> from bayesjudge.data import JudgeCounts
    >>> draws = rogan_gladen_bootstrap_draws(
    ...     JudgeCounts(100, 90, 100, 15, 1000, 700), n_boot=5, random_seed=0
    ... )
    >>> draws.shape
    (5,)
    """
    n_boot = _check_n_boot(n_boot)
    _check_choice("resample", resample, get_args(Resample))
    rng = rng_from(random_seed)
    m = counts.m1 + counts.m0
    cells = np.array(
        [counts.x1, counts.m1 - counts.x1, counts.x0, counts.m0 - counts.x0], dtype=float
    )
    draws = rng.multinomial(m, cells / m, size=n_boot)
    m1_star = draws[:, 0] + draws[:, 1]
    m0_star = draws[:, 2] + draws[:, 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        q1_star = draws[:, 0] / m1_star
        q0_star = draws[:, 3] / m0_star
    if resample == "both":
        p_star = rng.binomial(counts.n, counts.p_hat, size=n_boot) / counts.n
    else:
        p_star = np.full(n_boot, counts.p_hat)
    return np.clip(rogan_gladen_map(p_star, q0_star, q1_star), 0.0, 1.0)


def ppi_lambda(y: ArrayLike, yhat: ArrayLike, yhat_unlabelled: ArrayLike) -> float:
    r"""Power-tuning weight of PPI++ for a mean, clipped to [0, 1].

    .. math::

        \hat\lambda = \mathrm{clip}\left(\frac{\widehat{\mathrm{Cov}}(Y, \hat Y)}
            {(1 + n/N)\,\widehat{\mathrm{Var}}(\hat Y)}, 0, 1\right)

    (Angelopoulos, Duchi and Zrnic, 2023, Example 6.1), with ``n`` labelled and ``N`` unlabelled
    items. As in ``ppi_py`` 0.2.3 (``_calc_lam_glm``), the covariance is the plug-in
    (``1/n``) estimate on the labelled items and the variance is the ``1/(n+N-1)`` estimate on the
    labelled and unlabelled predictions pooled; the clip to [0, 1] is ``ppi_py``'s ``clip=True``.
    When the predictions do not vary at all, the weight is 0 (the classical estimate).

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

    with plug-in (``1/n``) variances as in ``ppi_py``; ``lam=1`` is PPI (Angelopoulos et al.,
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


# --------------------------------------------------------------------------- public estimators
def naive(data: JudgeInput, *, prob: float = 0.95) -> Estimate:
    r"""Naive estimate: the judge's pass rate on the unlabelled test items.

    For binary verdicts :math:`\hat p = k/n` with a Wilson score interval and
    :math:`\mathrm{se} = \sqrt{\hat p(1-\hat p)/n}`; for scores, the mean score with a CLT
    interval :math:`\bar s \pm z\,\hat\sigma/\sqrt n` (plug-in ``1/n`` variance, not clipped).
    It ignores the judge's errors, so it is biased whenever the judge is imperfect (seed 004,
    Sec. 5.1).

    Parameters
    ----------
    data : JudgeData, DataFrame or CSV path
        Judge data.
    prob : float
        Interval mass.

    Returns
    -------
    Estimate
        Method ``"naive"``.

    Examples
    --------
    >>> from bayesjudge.data import JudgeData
    >>> print(f"{naive(JudgeData.from_counts(100, 90, 100, 15, 1000, 700)).estimate:.2f}")
    0.70
    """
    prob = _check_prob(prob)
    judge = JudgeData.coerce(data)
    n = judge.n
    mean = float(np.mean(judge.test_judge))
    if judge.kind == "verdict":
        k = round(mean * n)
        low, high = wilson_interval(k, n, prob=prob)
        se = float(np.sqrt(mean * (1.0 - mean) / n))
        return Estimate("naive", mean, Interval(float(low), float(high), prob, "wilson"), se=se)
    se = float(np.std(judge.test_judge) / np.sqrt(n))
    z = _z(prob)
    notes = ("fewer than 2 test items: the CLT interval is meaningless",) if n < 2 else ()
    return Estimate(
        "naive", mean, Interval(mean - z * se, mean + z * se, prob, "clt"), se=se, notes=notes
    )


def calibration_only(data: JudgeInput, *, prob: float = 0.95) -> Estimate:
    r"""Calibration-only estimate: the mean gold label of the calibration items, Wilson interval.

    Unbiased for the test set's success rate only if the calibration items are a random sample
    of the same population (no label shift; seed 004, Table 1 (ii)). With a calibration set
    labelled by class, it estimates the class mix chosen by the labeller, not pi.

    Examples
    --------
    >>> from bayesjudge.data import JudgeData
    >>> print(f"{calibration_only(JudgeData.from_counts(30, 25, 10, 2, 500, 300)).estimate:.2f}")
    0.75
    """
    prob = _check_prob(prob)
    judge = JudgeData.coerce(data)
    m, m1 = judge.m, judge.m1
    mean = m1 / m
    low, high = wilson_interval(m1, m, prob=prob)
    se = float(np.sqrt(mean * (1.0 - mean) / m))
    return Estimate(
        "calibration_only", mean, Interval(float(low), float(high), prob, "wilson"), se=se
    )


def rogan_gladen(
    data: JudgeInput | JudgeCounts,
    *,
    prob: float = 0.95,
    interval: RGInterval = "delta",
    n_boot: int = 2000,
    resample: Resample = "both",
    random_seed: int | np.random.Generator | None = None,
) -> Estimate:
    r"""Rogan-Gladen bias-corrected success rate with a delta, adjusted or bootstrap interval.

    Point estimate (Rogan and Gladen, 1978; seed 004, eq. 5):

    .. math:: \hat\theta = \mathrm{clip}\left(\frac{\hat p + \hat q_0 - 1}
        {\hat q_0 + \hat q_1 - 1}, 0, 1\right)

    ``se`` is the delta-method standard error of eq. 9 for every interval kind. Intervals:

    * ``"delta"``: :math:`\hat\theta_{\mathrm{unclipped}} \pm z\,\mathrm{se}`, both bounds
      clipped to [0, 1] (so the interval always holds the clipped estimate);
    * ``"lang_reiczigel"``: the adjusted interval of eqs. 6-8
      (:func:`lang_reiczigel_interval`), clipped to [0, 1] as in the paper;
    * ``"bootstrap"``: percentile interval of ``n_boot`` resamples of the clipped estimate
      (:func:`rogan_gladen_bootstrap_draws`; vectorised multinomial/binomial draws, no Python
      loop). ``resample="calibration"`` resamples the calibration pairs only and keeps the test
      count fixed (seed 001, judgy); ``"both"`` also resamples the test verdicts. Resamples with
      an empty calibration class or :math:`J^* \le 0` have no corrected value: they are dropped
      (the interval is conditional on identifiable resamples, as in seed 001) and counted in a
      note. If none is left, the estimate has no interval and a note says why.

    Parameters
    ----------
    data : JudgeData, DataFrame, CSV path or JudgeCounts
        Judge data with binary verdicts.
    prob : float
        Interval mass.
    interval : {"delta", "lang_reiczigel", "bootstrap"}
        Which interval to attach.
    n_boot : int
        Bootstrap resamples (``interval="bootstrap"`` only).
    resample : {"both", "calibration"}
        What the bootstrap resamples.
    random_seed : int, Generator or None
        Seed of the bootstrap.

    Returns
    -------
    Estimate
        Method ``"rogan_gladen_<interval>"``; ``estimate`` clipped to [0, 1], ``unclipped`` the
        raw value (with a note when they differ), ``j`` the calibration
        :math:`\hat J = \hat q_0 + \hat q_1 - 1`.

    Raises
    ------
    NotIdentifiableError
        If :math:`\hat J \le 0` (the judge is no better than chance on the calibration data), or,
        for ``"lang_reiczigel"``, if the adjusted :math:`\tilde J \le 0`.
    DataError
        If the judge output is a score rather than a binary verdict.

    Examples
    --------
    >>> from bayesjudge.data import JudgeData
    >>> est = rogan_gladen(JudgeData.from_counts(100, 90, 100, 15, 1000, 700))
    >>> low, high = est.interval.low, est.interval.high
    >>> print(f"{est.estimate:.3f} se={est.se:.3f} [{low:.2f}, {high:.2f}]")
    0.733 se=0.037 [0.66, 0.81]
    """
    prob = _check_prob(prob)
    _check_choice("interval", interval, get_args(RGInterval))
    _check_choice("resample", resample, get_args(Resample))
    method = f"rogan_gladen_{interval}"
    if interval == "bootstrap":
        n_boot = _check_n_boot(n_boot)
    c = _verdict_counts(data, method)
    j = c.j
    if not j > 0.0:
        raise NotIdentifiableError(j, method)
    unclipped = float(rogan_gladen_map(c.p_hat, c.q0, c.q1))
    estimate = min(max(unclipped, 0.0), 1.0)
    se = float(np.sqrt(rogan_gladen_variance(c.p_hat, c.q0, c.q1, c.n, c.m0, c.m1)))
    notes: list[str] = []
    if estimate != unclipped:
        notes.append(f"clipped to [0, 1] from {unclipped:.4g}")
    z = _z(prob)
    iv: Interval | None
    if interval == "delta":
        low, high = min(max(unclipped - z * se, 0.0), 1.0), min(max(unclipped + z * se, 0.0), 1.0)
        iv = Interval(low, high, prob, _RG_KIND[interval])
    elif interval == "lang_reiczigel":
        lo_arr, hi_arr, _ = lang_reiczigel_interval(c.p_hat, c.q0, c.q1, c.n, c.m0, c.m1, prob=prob)
        if np.isnan(lo_arr):
            q0_t, q1_t = (c.m0 * c.q0 + 1) / (c.m0 + 2), (c.m1 * c.q1 + 1) / (c.m1 + 2)
            raise NotIdentifiableError(q0_t + q1_t - 1.0, method)
        iv = Interval(float(lo_arr), float(hi_arr), prob, _RG_KIND[interval])
    else:
        draws = rogan_gladen_bootstrap_draws(
            c, n_boot=n_boot, resample=resample, random_seed=random_seed
        )
        valid = draws[~np.isnan(draws)]
        dropped = n_boot - valid.size
        notes.append(f"percentile bootstrap, {n_boot} resamples of {resample}")
        if dropped:
            notes.append(
                f"{dropped} of {n_boot} resamples had an empty calibration class or J* <= 0 "
                "and were dropped"
            )
        if valid.size == 0:
            iv = None
            notes.append("no resample had J* > 0, so there is no bootstrap interval")
        else:
            tail = 50.0 * (1.0 - prob)
            lo_q, hi_q = np.percentile(valid, [tail, 100.0 - tail])
            iv = Interval(float(lo_q), float(hi_q), prob, _RG_KIND[interval])
    if iv is not None and not iv.contains(estimate):
        notes.append("the interval does not contain the point estimate")
    return Estimate(
        method, estimate, iv, se=se, j=float(j), unclipped=unclipped, notes=tuple(notes)
    )


def _ppi_estimate(
    data: JudgeInput, *, prob: float, stratified: bool, tuned: bool, method: str
) -> Estimate:
    prob = _check_prob(prob)
    if not isinstance(stratified, bool):
        raise ValueError(f"stratified must be True or False; got {stratified!r}")
    judge = JudgeData.coerce(data)
    parts: list[tuple[float, JudgeData]]
    if stratified:
        if not judge.strata:
            raise DataError(
                f"{method}: stratified=True needs a 'stratum' column; these data have none"
            )
        parts = []
        for name in judge.strata:
            part = judge.stratum(name)
            if part.n == 0:
                continue
            if part.m == 0:
                raise DataError(
                    f"{method}: stratum {name!r} has {part.n} unlabelled test items but no "
                    "calibration items, so its rectifier cannot be estimated"
                )
            parts.append((part.n / judge.n, part))
    else:
        parts = [(1.0, judge)]
    estimate, variance, lams = 0.0, 0.0, []
    for weight, part in parts:
        lam = ppi_lambda(part.cal_label, part.cal_judge, part.test_judge) if tuned else 1.0
        est, se = ppi_mean(part.cal_label, part.cal_judge, part.test_judge, lam=lam)
        estimate += weight * est
        variance += weight**2 * se**2
        lams.append(lam)
    se_total = float(np.sqrt(variance))
    z = _z(prob)
    notes: list[str] = []
    if stratified:
        notes.append(f"stratified over {len(parts)} strata, weighted by test-set stratum sizes")
    if tuned:
        if len(lams) == 1:
            notes.append(f"lambda={lams[0]:.4g}")
        else:
            notes.append(f"lambda in [{min(lams):.4g}, {max(lams):.4g}] across strata")
    if not 0.0 <= estimate <= 1.0:
        notes.append("the estimate lies outside [0, 1] (PPI does not clip)")
    return Estimate(
        method,
        estimate,
        Interval(estimate - z * se_total, estimate + z * se_total, prob, "clt"),
        se=se_total,
        notes=tuple(notes),
    )


def ppi(data: JudgeInput, *, prob: float = 0.95, stratified: bool = False) -> Estimate:
    r"""Prediction-powered inference (PPI) for the success rate, with a CLT interval.

    .. math::

        \hat\theta_{\mathrm{PPI}} = \frac1N\sum_i \hat Y^u_i + \frac1n\sum_j (Y_j - \hat Y_j)

    (Angelopoulos et al., 2023): the judge's mean on the ``N`` test items plus the mean
    rectifier (gold label minus judge output) on the ``n`` calibration items; interval
    :math:`\hat\theta \pm z\,\mathrm{se}` with the se of :func:`ppi_mean` (``lam=1``). Works for
    binary verdicts and for scores in [0, 1]. The estimate and interval are not clipped, so they
    equal ``ppi_py.ppi_mean_pointestimate`` / ``ppi_mean_ci`` with ``lam=1``.

    Unlike Rogan-Gladen, the rectifier assumes the calibration items are a random sample of the
    test population (no label shift; seed 004, Table 1 (iii)).

    With ``stratified=True`` the estimate is computed per stratum ``s`` and combined as
    :math:`\sum_s w_s\hat\theta_s` with :math:`w_s = N_s/N` (the share of *test* items in the
    stratum) and :math:`\mathrm{se}^2 = \sum_s w_s^2\,\mathrm{se}_s^2` (strata independent).
    Strata without test items get weight 0; a stratum with test items but no calibration items
    is an error.

    Parameters
    ----------
    data : JudgeData, DataFrame or CSV path
        Judge data (verdicts or scores).
    prob : float
        Interval mass.
    stratified : bool
        Combine per-stratum estimates (needs a ``stratum`` column).

    Returns
    -------
    Estimate
        Method ``"ppi"``.

    Raises
    ------
    DataError
        If ``stratified=True`` and the data have no strata, or a stratum has test items but no
        calibration items.

    Examples
    --------
    >>> from bayesjudge.data import JudgeData
    >>> print(f"{ppi(JudgeData.from_counts(100, 90, 100, 15, 1000, 700)).estimate:.3f}")
    0.675
    """
    return _ppi_estimate(data, prob=prob, stratified=stratified, tuned=False, method="ppi")


def ppi_plus_plus(data: JudgeInput, *, prob: float = 0.95, stratified: bool = False) -> Estimate:
    r"""PPI++: prediction-powered inference with the power-tuned weight lambda, CLT interval.

    .. math::

        \hat\theta_\lambda = \frac{\lambda}{N}\sum_i \hat Y^u_i
            + \frac1n\sum_j (Y_j - \lambda\hat Y_j)

    with :math:`\hat\lambda` from :func:`ppi_lambda` (clipped to [0, 1], as ``ppi_py`` does),
    which minimises the estimated variance (Angelopoulos, Duchi and Zrnic, 2023); the chosen
    lambda is reported in a note. ``lambda = 0`` is the calibration-only mean, ``lambda = 1``
    is :func:`ppi`. Stratification works as in :func:`ppi`, with one lambda per stratum.

    Examples
    --------
    >>> from bayesjudge.data import JudgeData
    >>> est = ppi_plus_plus(JudgeData.from_counts(100, 90, 100, 15, 1000, 700))
    >>> est.notes
    ('lambda=0.707',)
    """
    return _ppi_estimate(data, prob=prob, stratified=stratified, tuned=True, method="ppi_plus_plus")


# --------------------------------------------------------------------------- all baselines
def baseline_estimates(
    data: JudgeInput,
    *,
    prob: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
    n_boot: int = 2000,
) -> list[Estimate]:
    """Return every frequentist baseline as a list of estimates, in :data:`BASELINE_METHODS` order.

    Rows: naive, calibration_only, rogan_gladen_delta, rogan_gladen_lang_reiczigel,
    rogan_gladen_bootstrap (``resample="both"``), ppi, ppi_plus_plus (both unstratified). A
    Rogan-Gladen row the data cannot support is kept with ``estimate=None`` and a note: "not
    identifiable: ... J=..." when the calibration J is not positive, or a note that
    Rogan-Gladen needs binary verdicts when the data hold scores.

    Parameters
    ----------
    data : JudgeData, DataFrame or CSV path
        Judge data.
    prob : float
        Interval mass.
    random_seed : int, Generator or None
        Seed of the bootstrap.
    n_boot : int
        Bootstrap resamples.

    Examples
    --------
    >>> from bayesjudge.data import JudgeData
    >>> rows = baseline_estimates(JudgeData.from_counts(100, 90, 100, 15, 1000, 700), random_seed=0)
    >>> [r.method for r in rows][:3]
    ['naive', 'calibration_only', 'rogan_gladen_delta']
    """
    prob = _check_prob(prob)
    n_boot = _check_n_boot(n_boot)
    judge = JudgeData.coerce(data)
    rows = [naive(judge, prob=prob), calibration_only(judge, prob=prob)]
    for kind in get_args(RGInterval):
        method = f"rogan_gladen_{kind}"
        if judge.kind != "verdict":
            rows.append(
                Estimate(
                    method,
                    None,
                    notes=("Rogan-Gladen needs binary verdicts; these data hold judge scores",),
                )
            )
            continue
        try:
            rows.append(
                rogan_gladen(
                    judge, prob=prob, interval=kind, n_boot=n_boot, random_seed=random_seed
                )
            )
        except NotIdentifiableError as exc:
            reason = f"the judge is no better than chance (J={exc.j:.4g} <= 0)"
            rows.append(Estimate.not_identifiable(method, reason, j=exc.j))
    rows.append(ppi(judge, prob=prob))
    rows.append(ppi_plus_plus(judge, prob=prob))
    return rows


def baselines(
    data: JudgeInput,
    *,
    prob: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
    n_boot: int = 2000,
) -> pd.DataFrame:
    """Return every frequentist baseline as one DataFrame (see :func:`baseline_estimates`).

    Examples
    --------
    >>> from bayesjudge.data import JudgeData
    >>> frame = baselines(JudgeData.from_counts(100, 90, 100, 15, 1000, 700), random_seed=0)
    >>> frame["method"].tolist()[-2:]
    ['ppi', 'ppi_plus_plus']
    """
    return estimates_frame(
        baseline_estimates(data, prob=prob, random_seed=random_seed, n_boot=n_boot)
    )
