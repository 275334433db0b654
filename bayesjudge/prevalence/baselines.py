r"""Frequentist baselines for the true success rate: naive, Rogan-Gladen, PPI and PPI++.

Every estimator here takes judge data first (a :class:`~bayesjudge.prevalence.data.JudgeData`,
anything :meth:`JudgeData.coerce <bayesjudge.prevalence.data.JudgeData.coerce>` accepts, or the
six counts of a binary judge as a :class:`~bayesjudge.prevalence.data.JudgeCounts`), then
keyword-only options, and returns one :class:`~bayesjudge.results.Estimate`. For binary
verdicts every estimator is a function of the six counts, so counts (e.g. streamed from a file
too large to load, :meth:`JudgeCounts.from_file
<bayesjudge.prevalence.data.JudgeCounts.from_file>`) give the same results as the arrays.
The arithmetic lives in small vectorised numpy functions (:mod:`bayesjudge.estimators`) that
the public estimators wrap.

Notation (Lee et al., 2026, Lee et al. (2025)): on ``n`` unlabelled test items the judge passes
``k``, :math:`\hat p = k/n`; on the calibration set, ``m1`` gold-PASS items of which the judge
passed ``x1`` give the sensitivity :math:`\hat q_1 = x_1/m_1`, and ``m0`` gold-FAIL items of which
the judge passed ``x0`` give the specificity :math:`\hat q_0 = (m_0 - x_0)/m_0`. Youden's :math:`J =
q_0 + q_1 - 1`.

References
----------
.. [1] Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations" (Lee et al. 2025), eqs. 5-9.
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
from numpy.typing import NDArray

from bayesjudge.errors import DataError, NotIdentifiableError
from bayesjudge.estimators import (
    lang_reiczigel_interval,
    ppi_lambda,
    ppi_lambda_counts,
    ppi_mean,
    ppi_mean_counts,
    rogan_gladen_pi,
    rogan_gladen_variance,
    wilson_interval,
)
from bayesjudge.io.tables import TableLike
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.results import Estimate, Interval, estimates_frame
from bayesjudge.validation import check_choice, check_int, check_prob, seed_stream, z_value

__all__ = [
    "BASELINE_METHODS",
    "MAX_BOOT",
    "RANDOM_SAMPLE_METHODS",
    "baseline_estimates",
    "baselines",
    "calibration_only",
    "naive",
    "ppi",
    "ppi_plus_plus",
    "rogan_gladen",
    "rogan_gladen_bootstrap_draws",
]

RGInterval = Literal["delta", "lang_reiczigel", "bootstrap"]
Resample = Literal["both", "calibration"]
JudgeInput = JudgeData | JudgeCounts | TableLike

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

#: Baselines that assume the gold items are a random sample of the test population; they are
#: biased when the gold set was drawn by class with another class mix.
RANDOM_SAMPLE_METHODS = ("calibration_only", "ppi", "ppi_plus_plus")

#: Largest number of bootstrap resamples accepted (one multinomial draw each: about 40 MB).
MAX_BOOT = 1_000_000

_RG_KIND = {
    "delta": "delta",
    "lang_reiczigel": "lang_reiczigel",
    "bootstrap": "bootstrap_percentile",
}


def _judge(data: JudgeInput) -> JudgeData | JudgeCounts:
    """Return validated judge data, or validated counts (the counts path: no arrays)."""
    if isinstance(data, JudgeCounts):
        return data.checked()
    return JudgeData.coerce(data)


def _verdict_counts(data: JudgeInput, method: str) -> JudgeCounts:
    """Return the six counts of binary judge data, or raise a DataError for score data."""
    judge = _judge(data)
    if isinstance(judge, JudgeCounts):
        return judge
    if judge.kind != "verdict":
        raise DataError(
            f"{method}: Rogan-Gladen needs binary judge verdicts (a 'verdict' column); these data "
            "hold judge scores in [0, 1]. Use ppi or ppi_plus_plus for scores, or threshold the "
            "scores into verdicts first"
        )
    return judge.counts


def _check_n_boot(n_boot: int) -> int:
    return check_int(n_boot, name="n_boot", minimum=1, maximum=MAX_BOOT)


def rogan_gladen_bootstrap_draws(
    counts: JudgeCounts,
    *,
    n_boot: int,
    resample: Resample = "both",
    random_seed: int | np.random.Generator | None = None,
) -> NDArray[np.float64]:
    r"""Bootstrap replicates of the clipped Rogan-Gladen estimate, drawn without a Python loop.

    Resampling the ``m`` calibration pairs (gold label, verdict) with replacement only changes the
    four cell counts (PASS/pass, PASS/fail, FAIL/pass, FAIL/fail), so one bootstrap resample *is*
    one multinomial draw of ``m`` items over the four cells with the observed cell frequencies;
    resampling the ``n`` binary test verdicts is one binomial draw :math:`k^* \sim \mathrm{Bin}(n,
    \hat p)`. All ``n_boot`` resamples are drawn by a single ``Generator.multinomial`` call (and,
    for ``resample="both"``, one ``Generator.binomial`` call). With ``resample="calibration"`` the
    test count stays fixed, as in the judgy procedure (judgy).

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
    >>> from bayesjudge.prevalence.data import JudgeCounts
    >>> draws = rogan_gladen_bootstrap_draws(
    ...     JudgeCounts(100, 90, 100, 15, 1000, 700), n_boot=5, random_seed=0
    ... )
    >>> draws.shape
    (5,)
    """
    n_boot = _check_n_boot(n_boot)
    check_choice(resample, name="resample", allowed=get_args(Resample))
    rng = seed_stream(random_seed, "resample")
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
    return np.clip(rogan_gladen_pi(rate=p_star, se=q1_star, sp=q0_star), 0.0, 1.0)


# --------------------------------------------------------------------------- public estimators
def naive(data: JudgeInput, *, prob: float = 0.95) -> Estimate:
    r"""Naive estimate: the judge's pass rate on the unlabelled test items.

    For binary verdicts :math:`\hat p = k/n` with a Wilson score interval and
    :math:`\mathrm{se} = \sqrt{\hat p(1-\hat p)/n}`; for scores, the mean score with a CLT
    interval :math:`\bar s \pm z\,\hat\sigma/\sqrt n` (plug-in ``1/n`` variance, not clipped).
    It ignores the judge's errors, so it is biased whenever the judge is imperfect (Lee et al. 2025,
    Sec. 5.1).

    Parameters
    ----------
    data : JudgeData, JudgeCounts, DataFrame or path
        Judge data.
    prob : float
        Interval mass.

    Returns
    -------
    Estimate
        Method ``"naive"``.

    Examples
    --------
    >>> from bayesjudge.prevalence.data import JudgeData
    >>> print(f"{naive(JudgeData.from_counts(100, 90, 100, 15, 1000, 700)).estimate:.2f}")
    0.70
    """
    prob = check_prob(prob)
    judge = _judge(data)
    n = judge.n
    mean = judge.k / n if isinstance(judge, JudgeCounts) else float(np.mean(judge.test_judge))
    if isinstance(judge, JudgeCounts) or judge.kind == "verdict":
        k = round(mean * n)
        low, high = wilson_interval(k, n, prob=prob)
        se = float(np.sqrt(mean * (1.0 - mean) / n))
        return Estimate("naive", mean, Interval(float(low), float(high), prob, "wilson"), se=se)
    assert isinstance(judge, JudgeData)
    se = float(np.std(judge.test_judge) / np.sqrt(n))
    z = z_value(prob)
    notes = ("fewer than 2 test items: the CLT interval is meaningless",) if n < 2 else ()
    return Estimate(
        "naive", mean, Interval(mean - z * se, mean + z * se, prob, "clt"), se=se, notes=notes
    )


def calibration_only(data: JudgeInput, *, prob: float = 0.95) -> Estimate:
    r"""Calibration-only estimate: the mean gold label of the calibration items, Wilson interval.

    Unbiased for the test set's success rate only if the calibration items are a random sample
    of the same population (no label shift; Lee et al. (2025), Table 1 (ii)). With a calibration set
    labelled by class, it estimates the class mix chosen by the labeller, not pi.

    Examples
    --------
    >>> from bayesjudge.prevalence.data import JudgeData
    >>> print(f"{calibration_only(JudgeData.from_counts(30, 25, 10, 2, 500, 300)).estimate:.2f}")
    0.75
    """
    prob = check_prob(prob)
    judge = _judge(data)
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

    Point estimate (Rogan and Gladen, 1978; Lee et al. (2025), eq. 5):

    .. math:: \hat\theta = \mathrm{clip}\left(\frac{\hat p + \hat q_0 - 1}
        {\hat q_0 + \hat q_1 - 1}, 0, 1\right)

    ``se`` is the delta-method standard error of eq. 9 for every interval kind. Intervals:

    * ``"delta"``: :math:`\hat\theta_{\mathrm{unclipped}} \pm z\,\mathrm{se}`, both bounds
      clipped to [0, 1] (so the interval always holds the clipped estimate);
    * ``"lang_reiczigel"``: the adjusted interval of eqs. 6-8
      (:func:`lang_reiczigel_interval`), clipped to [0, 1] as in the paper;
    * ``"bootstrap"``: percentile interval of ``n_boot`` resamples of the clipped estimate
      (:func:`rogan_gladen_bootstrap_draws`; vectorised multinomial/binomial draws, no Python loop).
      ``resample="calibration"`` resamples the calibration pairs only and keeps the test count fixed
      (the judgy procedure, judgy); ``"both"`` also resamples the test verdicts. Resamples with an
      empty calibration class or :math:`J^* \le 0` have no corrected value: they are dropped (the
      interval is conditional on identifiable resamples, as in the judgy procedure) and counted in a
      note. If none is left, the estimate has no interval and a note says why.

    Parameters
    ----------
    data : JudgeData, JudgeCounts, DataFrame or path
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
    >>> from bayesjudge.prevalence.data import JudgeData
    >>> est = rogan_gladen(JudgeData.from_counts(100, 90, 100, 15, 1000, 700))
    >>> low, high = est.interval.low, est.interval.high
    >>> print(f"{est.estimate:.3f} se={est.se:.3f} [{low:.2f}, {high:.2f}]")
    0.733 se=0.037 [0.66, 0.81]
    """
    prob = check_prob(prob)
    check_choice(interval, name="interval", allowed=get_args(RGInterval))
    check_choice(resample, name="resample", allowed=get_args(Resample))
    method = f"rogan_gladen_{interval}"
    if interval == "bootstrap":
        n_boot = _check_n_boot(n_boot)
    c = _verdict_counts(data, method)
    j = c.j
    if not j > 0.0:
        raise NotIdentifiableError(j, method)
    unclipped = float(rogan_gladen_pi(rate=c.p_hat, se=c.q1, sp=c.q0))
    estimate = min(max(unclipped, 0.0), 1.0)
    se = float(
        np.sqrt(rogan_gladen_variance(rate=c.p_hat, se=c.q1, sp=c.q0, n=c.n, m1=c.m1, m0=c.m0))
    )
    notes: list[str] = []
    if estimate != unclipped:
        notes.append(f"clipped to [0, 1] from {unclipped:.4g}")
    z = z_value(prob)
    iv: Interval | None
    if interval == "delta":
        low, high = min(max(unclipped - z * se, 0.0), 1.0), min(max(unclipped + z * se, 0.0), 1.0)
        iv = Interval(low, high, prob, _RG_KIND[interval])
    elif interval == "lang_reiczigel":
        lo_arr, hi_arr, _ = lang_reiczigel_interval(
            rate=c.p_hat, se=c.q1, sp=c.q0, n=c.n, m1=c.m1, m0=c.m0, prob=prob
        )
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
    prob = check_prob(prob)
    if not isinstance(stratified, bool):
        raise ValueError(f"stratified must be True or False; got {stratified!r}")
    judge = _judge(data)
    if isinstance(judge, JudgeCounts):
        if stratified:
            raise DataError(f"{method}: stratified=True needs judge data with a 'stratum' column")
        return _ppi_from_counts(judge, prob=prob, tuned=tuned, method=method)
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
    return _ppi_result(
        estimate,
        float(np.sqrt(variance)),
        lams,
        prob=prob,
        stratified=len(parts) if stratified else 0,
        tuned=tuned,
        method=method,
    )


def _ppi_from_counts(c: JudgeCounts, *, prob: float, tuned: bool, method: str) -> Estimate:
    """PPI and PPI++ for binary verdicts from the six counts (equal to the array path)."""
    counts = c.as_dict()
    lam = ppi_lambda_counts(**counts) if tuned else 1.0
    estimate, se = ppi_mean_counts(**counts, lam=lam)
    return _ppi_result(estimate, se, [lam], prob=prob, stratified=0, tuned=tuned, method=method)


def _ppi_result(
    estimate: float,
    se_total: float,
    lams: list[float],
    *,
    prob: float,
    stratified: int,
    tuned: bool,
    method: str,
) -> Estimate:
    z = z_value(prob)
    notes: list[str] = []
    if stratified:
        notes.append(f"stratified over {stratified} strata, weighted by test-set stratum sizes")
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
    test population (no label shift; Lee et al. (2025), Table 1 (iii)).

    With ``stratified=True`` the estimate is computed per stratum ``s`` and combined as
    :math:`\sum_s w_s\hat\theta_s` with :math:`w_s = N_s/N` (the share of *test* items in the
    stratum) and :math:`\mathrm{se}^2 = \sum_s w_s^2\,\mathrm{se}_s^2` (strata independent).
    Strata without test items get weight 0; a stratum with test items but no calibration items
    is an error.

    Parameters
    ----------
    data : JudgeData, JudgeCounts, DataFrame or path
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
    >>> from bayesjudge.prevalence.data import JudgeData
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
    >>> from bayesjudge.prevalence.data import JudgeData
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
    data : JudgeData, JudgeCounts, DataFrame or path
        Judge data.
    prob : float
        Interval mass.
    random_seed : int, Generator or None
        Seed of the bootstrap.
    n_boot : int
        Bootstrap resamples.

    Examples
    --------
    >>> from bayesjudge.prevalence.data import JudgeData
    >>> rows = baseline_estimates(JudgeData.from_counts(100, 90, 100, 15, 1000, 700), random_seed=0)
    >>> [r.method for r in rows][:3]
    ['naive', 'calibration_only', 'rogan_gladen_delta']
    """
    prob = check_prob(prob)
    n_boot = _check_n_boot(n_boot)
    judge = _judge(data)
    rows = [naive(judge, prob=prob), calibration_only(judge, prob=prob)]
    for kind in get_args(RGInterval):
        method = f"rogan_gladen_{kind}"
        if isinstance(judge, JudgeData) and judge.kind != "verdict":
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
    >>> from bayesjudge.prevalence.data import JudgeData
    >>> frame = baselines(JudgeData.from_counts(100, 90, 100, 15, 1000, 700), random_seed=0)
    >>> frame["method"].tolist()[-2:]
    ['ppi', 'ppi_plus_plus']
    """
    return estimates_frame(
        baseline_estimates(data, prob=prob, random_seed=random_seed, n_boot=n_boot)
    )
