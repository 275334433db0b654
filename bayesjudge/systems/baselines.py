r"""Frequentist baselines for the difference of two systems' success rates under one judge.

The difference is always :math:`\Delta = \pi_b - \pi_a` (second system minus first; by default
the first two systems of the data). Every public estimator takes a
:class:`~bayesjudge.systems.data.SystemsData` first, then keyword-only options, and returns one
:class:`~bayesjudge.results.Estimate`; the arithmetic lives in small vectorised numpy functions.

**Design.** With ``design="auto"`` a comparison is *paired* when the two systems share items
that neither has a gold label on; it then uses those items only (the 2 x 2 table of joint
verdicts, :meth:`SystemsData.paired_table <bayesjudge.systems.data.SystemsData.paired_table>`).
Otherwise it is *unpaired* and uses every unlabelled answer of each system.

Estimators
----------
* :func:`naive_difference`: the difference of the judge's pass rates, ignoring its errors.
  Paired: :math:`(n_{01} - n_{10})/n` with Newcombe's hybrid score interval for paired data
  (Newcombe 1998b, method 10; :func:`newcombe_paired_interval`) or Tango's score interval
  (Tango 1998; :func:`tango_paired_interval`), and McNemar's mid-p test in a note
  (:func:`mcnemar_mid_p`). Unpaired: Newcombe's hybrid score interval for independent
  proportions (Newcombe 1998a, method 10; :func:`newcombe_unpaired_interval`).
* :func:`rogan_gladen_difference`: the difference of the two Rogan-Gladen corrected rates with
  a shared judge, and its delta-method interval including the covariance the shared Se and Sp
  induce (:func:`rogan_gladen_difference_variance`, which derives it).
* :func:`ppi_difference`: prediction-powered inference (PPI, or PPI++ with the power-tuned
  weight) for the mean per-item difference :math:`y_b - y_a` with predictions
  :math:`v_b - v_a` (paired), or the difference of two independent PPI estimates (unpaired).
  Like every rectifier, it assumes the gold-labelled items are a random sample.

References
----------
.. [1] R. G. Newcombe, "Interval estimation for the difference between independent
   proportions: comparison of eleven methods", Stat. Med. 17, 873-890, 1998 (1998a).
.. [2] R. G. Newcombe, "Improved confidence intervals for the difference between binomial
   proportions based on paired data", Stat. Med. 17, 2635-2650, 1998 (1998b).
.. [3] T. Tango, "Equivalence test and confidence interval for the difference in proportions
   for the paired-sample design", Stat. Med. 17, 891-908, 1998.
.. [4] Q. McNemar, "Note on the sampling error of the difference between correlated proportions
   or percentages", Psychometrika 12, 153-157, 1947; the mid-p version as in M. W. Fagerland,
   S. Lydersen and P. Laake, "The McNemar test for binary matched-pairs data: mid-p and
   asymptotic are better than exact conditional", BMC Med. Res. Methodol. 13, 91, 2013.
.. [5] W. J. Rogan and B. Gladen, "Estimating prevalence from the results of a screening test",
   Am. J. Epidemiol. 107, 1978.
.. [6] A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic,
   "Prediction-powered inference", Science 382, 2023; A. N. Angelopoulos, J. C. Duchi and
   T. Zrnic, "PPI++: Efficient prediction-powered inference", arXiv:2311.01453, 2023.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, get_args

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats
from scipy.special import ndtri

from bayesjudge.errors import DataError
from bayesjudge.estimators.intervals import wilson_interval
from bayesjudge.estimators.ppi import ppi_lambda, ppi_mean
from bayesjudge.results import Estimate, Interval, estimates_frame
from bayesjudge.systems.data import SystemsData

__all__ = [
    "DIFFERENCE_METHODS",
    "McNemarTest",
    "difference_baselines",
    "difference_baselines_frame",
    "mcnemar_mid_p",
    "mcnemar_test",
    "naive_difference",
    "newcombe_paired_interval",
    "newcombe_unpaired_interval",
    "paired_difference_variance",
    "ppi_difference",
    "rogan_gladen_difference",
    "rogan_gladen_difference_variance",
    "system_baselines",
    "tango_paired_interval",
]

Design = Literal["auto", "paired", "unpaired"]
PairedInterval = Literal["newcombe", "tango"]

#: Method names of :func:`difference_baselines`, in row order (a paired design has all rows;
#: an unpaired one has no ``naive_difference_tango`` row).
DIFFERENCE_METHODS = (
    "naive_difference_newcombe",
    "naive_difference_tango",
    "rogan_gladen_difference",
    "ppi_difference",
    "ppi_plus_plus_difference",
)


def _check_prob(prob: float) -> float:
    if isinstance(prob, bool) or not isinstance(prob, int | float | np.floating):
        raise ValueError(f"prob must be a number in (0, 1); got {prob!r}")
    if not 0.0 < float(prob) < 1.0:
        raise ValueError(f"prob must lie in (0, 1); got {prob!r}")
    return float(prob)


def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}; got {value!r}")


def _z(prob: float) -> float:
    return float(ndtri(0.5 + prob / 2.0))


def _table(table: ArrayLike) -> NDArray[np.float64]:
    arr = np.asarray(table, dtype=float)
    if arr.shape[-2:] != (2, 2):
        raise ValueError(f"table must have shape (..., 2, 2); got {arr.shape}")
    if np.any(arr < 0):
        raise ValueError("table must hold non-negative counts")
    return arr


# --------------------------------------------------------------------------- numpy core
def mcnemar_mid_p(b: ArrayLike, c: ArrayLike) -> NDArray[np.float64]:
    r"""Two-sided McNemar mid-p value from the two discordant counts, vectorised.

    With :math:`X \sim \mathrm{Bin}(b + c, 1/2)` and :math:`k = \min(b, c)`,

    .. math:: p_{mid} = \min\{1,\; 2 P(X \le k) - P(X = k)\},

    the exact conditional p-value minus the probability of the observed table (Fagerland,
    Lydersen and Laake 2013); 1 when there are no discordant pairs.

    Examples
    --------
    >>> print(f"{mcnemar_mid_p(6, 16):.6f}")
    0.034690
    """
    b_arr, c_arr = np.broadcast_arrays(np.asarray(b, dtype=float), np.asarray(c, dtype=float))
    total = b_arr + c_arr
    k = np.minimum(b_arr, c_arr)
    p = 2.0 * stats.binom.cdf(k, total, 0.5) - stats.binom.pmf(k, total, 0.5)
    return np.asarray(np.where(total > 0, np.minimum(p, 1.0), 1.0), dtype=float)


def paired_difference_variance(table: ArrayLike) -> NDArray[np.float64]:
    r"""Plug-in variance of the paired difference of proportions from a 2 x 2 table.

    For ``table[i, j]`` (outcome ``i`` of a, ``j`` of b), :math:`\hat p_{ij} = n_{ij}/n` and
    :math:`\hat\Delta = \hat p_{01} - \hat p_{10}`:
    :math:`\widehat{\mathrm{Var}}(\hat\Delta) = (\hat p_{01} + \hat p_{10} - \hat\Delta^2)/n`.

    Examples
    --------
    >>> print(f"{paired_difference_variance([[80, 16], [6, 59]]):.3e}")
    8.248e-04
    """
    arr = _table(table)
    n = arr.sum(axis=(-2, -1))
    p01, p10 = arr[..., 0, 1] / n, arr[..., 1, 0] / n
    return np.asarray((p01 + p10 - (p01 - p10) ** 2) / n, dtype=float)


def newcombe_paired_interval(
    table: ArrayLike, *, prob: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Newcombe's hybrid score interval for a paired difference of proportions (method 10).

    For ``table[i, j]`` (outcome ``i`` of system a, ``j`` of b), :math:`\hat p_a`,
    :math:`\hat p_b` the margins and :math:`\hat\Delta = \hat p_b - \hat p_a`, with Wilson
    intervals :math:`(l_a, u_a)`, :math:`(l_b, u_b)`:

    .. math::

        L = \hat\Delta - \sqrt{(\hat p_b - l_b)^2 - 2\hat\phi(\hat p_b - l_b)(u_a - \hat p_a)
            + (u_a - \hat p_a)^2},

        U = \hat\Delta + \sqrt{(u_b - \hat p_b)^2 - 2\hat\phi(u_b - \hat p_b)(\hat p_a - l_a)
            + (\hat p_a - l_a)^2},

    where :math:`\hat\phi` is the phi coefficient of the table with Newcombe's correction: with
    :math:`A = n_{00}n_{11} - n_{01}n_{10}`, :math:`\hat\phi = (A - n/2)/\sqrt{P}` if
    :math:`A > n/2`, 0 if :math:`0 \le A \le n/2`, :math:`A/\sqrt{P}` if :math:`A < 0`
    (:math:`P` the product of the four margins; :math:`\hat\phi = 0` if a margin is empty).
    Newcombe, Stat. Med. 17, 2635-2650 (1998), method 10, as given by Fagerland, Lydersen and
    Laake, *Statistical Analysis of Contingency Tables* (2017), Sec. 8.5.

    Returns
    -------
    low, high : ndarray

    Examples
    --------
    >>> low, high = newcombe_paired_interval([[80, 6], [16, 59]])
    >>> print(f"{low:.4f} {high:.4f}")
    -0.1186 -0.0046
    """
    z_prob = _check_prob(prob)
    arr = _table(table)
    n = arr.sum(axis=(-2, -1))
    k_a = arr[..., 1, 0] + arr[..., 1, 1]
    k_b = arr[..., 0, 1] + arr[..., 1, 1]
    p_a, p_b = k_a / n, k_b / n
    l_a, u_a = wilson_interval(k_a, n, prob=z_prob)
    l_b, u_b = wilson_interval(k_b, n, prob=z_prob)
    margins = k_a * (n - k_a) * k_b * (n - k_b)
    cross = arr[..., 0, 0] * arr[..., 1, 1] - arr[..., 0, 1] * arr[..., 1, 0]
    numerator = np.where(cross > n / 2.0, cross - n / 2.0, np.where(cross < 0, cross, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.where(margins > 0, numerator / np.sqrt(margins), 0.0)
    diff = p_b - p_a
    down_b, up_a = p_b - l_b, u_a - p_a
    up_b, down_a = u_b - p_b, p_a - l_a
    low = diff - np.sqrt(np.maximum(down_b**2 - 2 * phi * down_b * up_a + up_a**2, 0.0))
    high = diff + np.sqrt(np.maximum(up_b**2 - 2 * phi * up_b * down_a + down_a**2, 0.0))
    return np.asarray(low, dtype=float), np.asarray(high, dtype=float)


def _tango_score(
    delta: NDArray[np.float64],
    b: NDArray[np.float64],
    c: NDArray[np.float64],
    n: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Tango's score statistic at ``delta`` (b: b right a wrong, c: a right b wrong)."""
    quad_a = 2.0 * n
    quad_b = -b - c + (2.0 * n - b + c) * delta
    quad_c = -c * delta * (1.0 - delta)
    q21 = (np.sqrt(np.maximum(quad_b**2 - 4.0 * quad_a * quad_c, 0.0)) - quad_b) / (2.0 * quad_a)
    variance = n * (2.0 * q21 + delta * (1.0 - delta))
    numerator = b - c - n * delta
    with np.errstate(divide="ignore", invalid="ignore"):
        score = numerator / np.sqrt(variance)
    # 0/0 (no discordant pairs at delta = 0) is no evidence either way
    return np.asarray(np.where(numerator == 0.0, 0.0, score), dtype=float)


def tango_paired_interval(
    table: ArrayLike, *, prob: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Tango's asymptotic score interval for a paired difference of proportions.

    With :math:`b = n_{01}` (b right, a wrong), :math:`c = n_{10}` and
    :math:`\Delta = \pi_b - \pi_a`, the score statistic is

    .. math::

        T(\Delta) = \frac{b - c - n\Delta}{\sqrt{n\,(2\tilde q + \Delta(1 - \Delta))}},

    where :math:`\tilde q` is the maximum-likelihood estimate of :math:`P(a \text{ right}, b
    \text{ wrong})` under the constraint, the root of :math:`2n q^2 + (-b - c + (2n - b + c)
    \Delta) q - c\Delta(1 - \Delta) = 0`; the interval is :math:`\{\Delta : |T(\Delta)| \le
    z\}`, found by vectorised bisection (:math:`T` decreases in :math:`\Delta`). Tango, Stat.
    Med. 17, 891-908 (1998).

    Examples
    --------
    >>> low, high = tango_paired_interval([[80, 6], [16, 59]])
    >>> print(f"{low:.4f} {high:.4f}")
    -0.1240 -0.0054
    """
    z = _z(_check_prob(prob))
    arr = _table(table)
    n = arr.sum(axis=(-2, -1))
    b, c = arr[..., 0, 1], arr[..., 1, 0]

    def solve(target: float) -> NDArray[np.float64]:
        low = np.full(n.shape, -1.0)
        high = np.full(n.shape, 1.0)
        for _ in range(60):
            mid = 0.5 * (low + high)
            above = _tango_score(mid, b, c, n) > target
            low = np.where(above, mid, low)
            high = np.where(above, high, mid)
        return 0.5 * (low + high)

    return solve(z), solve(-z)


def newcombe_unpaired_interval(
    k_a: ArrayLike, n_a: ArrayLike, k_b: ArrayLike, n_b: ArrayLike, *, prob: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Newcombe's hybrid score interval for :math:`p_b - p_a` from independent samples.

    .. math::

        L = \hat\Delta - \sqrt{(\hat p_b - l_b)^2 + (u_a - \hat p_a)^2}, \qquad
        U = \hat\Delta + \sqrt{(u_b - \hat p_b)^2 + (\hat p_a - l_a)^2},

    with Wilson intervals :math:`(l, u)` of each proportion (Newcombe, Stat. Med. 17, 873-890,
    1998, method 10).

    Examples
    --------
    >>> low, high = newcombe_unpaired_interval(56, 70, 48, 80)
    >>> print(f"{low:.4f} {high:.4f}")
    -0.3339 -0.0524
    """
    z_prob = _check_prob(prob)
    ka, na = np.asarray(k_a, dtype=float), np.asarray(n_a, dtype=float)
    kb, nb = np.asarray(k_b, dtype=float), np.asarray(n_b, dtype=float)
    p_a, p_b = ka / na, kb / nb
    l_a, u_a = wilson_interval(ka, na, prob=z_prob)
    l_b, u_b = wilson_interval(kb, nb, prob=z_prob)
    diff = p_b - p_a
    low = diff - np.sqrt((p_b - l_b) ** 2 + (u_a - p_a) ** 2)
    high = diff + np.sqrt((u_b - p_b) ** 2 + (p_a - l_a) ** 2)
    return np.asarray(low, dtype=float), np.asarray(high, dtype=float)


def rogan_gladen_difference_variance(
    diff: ArrayLike,
    judged_diff_variance: ArrayLike,
    q0: ArrayLike,
    q1: ArrayLike,
    m0: ArrayLike,
    m1: ArrayLike,
) -> NDArray[np.float64]:
    r"""Delta-method variance of the Rogan-Gladen difference under a shared judge.

    Each system's corrected rate is :math:`\hat\theta_s = (\hat p_s + \hat q_0 - 1)/\hat J`
    with the *same* :math:`\hat q_0` (specificity), :math:`\hat q_1` (sensitivity) and
    :math:`\hat J = \hat q_0 + \hat q_1 - 1`, so the difference is

    .. math:: \hat\Delta = \hat\theta_b - \hat\theta_a = \frac{\hat p_b - \hat p_a}{\hat J}

    (:math:`\hat q_0` cancels from the numerator). Its gradient is :math:`\partial\Delta /
    \partial p_b = 1/J`, :math:`\partial\Delta/\partial p_a = -1/J` and
    :math:`\partial\Delta/\partial q_0 = \partial\Delta/\partial q_1 = -\Delta/J`; with the
    calibration estimates independent of the test verdicts and of each other
    (:math:`V_c = q_c(1 - q_c)/m_c`),

    .. math::

        \operatorname{Var}(\hat\Delta) \approx
            \frac{\operatorname{Var}(\hat p_b - \hat p_a) + \Delta^2 (V_0 + V_1)}{J^2}.

    This equals :math:`\operatorname{Var}\hat\theta_a + \operatorname{Var}\hat\theta_b -
    2\operatorname{Cov}(\hat\theta_a, \hat\theta_b)`, where each variance is the Rogan-Gladen
    delta variance :math:`[\operatorname{Var}\hat p_s + (1 - \theta_s)^2 V_0 + \theta_s^2 V_1]
    / J^2` and the shared judge makes the corrections covary:
    :math:`\operatorname{Cov} = [\operatorname{Cov}(\hat p_a, \hat p_b) + (1 - \theta_a)
    (1 - \theta_b) V_0 + \theta_a\theta_b V_1]/J^2`. Treating the two corrections as
    independent would add :math:`2[(1 - \theta_a)(1 - \theta_b)V_0 + \theta_a\theta_b V_1]/J^2`,
    often the largest term; the judge's error largely cancels from a difference.

    Parameters
    ----------
    diff : array_like
        :math:`\hat\Delta` (unclipped).
    judged_diff_variance : array_like
        :math:`\operatorname{Var}(\hat p_b - \hat p_a)`: :func:`paired_difference_variance` for
        paired verdicts, :math:`\hat p_a(1 - \hat p_a)/n_a + \hat p_b(1 - \hat p_b)/n_b`
        otherwise.
    q0, q1 : array_like
        Calibration specificity and sensitivity.
    m0, m1 : array_like
        Gold-FAIL and gold-PASS calibration answers.

    Examples
    --------
    >>> v = rogan_gladen_difference_variance(0.1, 0.0004, 0.85, 0.9, 100, 100)
    >>> print(f"{np.sqrt(v):.4f}")
    0.0274
    """
    d = np.asarray(diff, dtype=float)
    q0_arr, q1_arr = np.asarray(q0, dtype=float), np.asarray(q1, dtype=float)
    j = q0_arr + q1_arr - 1.0
    v0 = q0_arr * (1.0 - q0_arr) / np.asarray(m0, dtype=float)
    v1 = q1_arr * (1.0 - q1_arr) / np.asarray(m1, dtype=float)
    return np.asarray((np.asarray(judged_diff_variance) + d**2 * (v0 + v1)) / j**2, dtype=float)


# --------------------------------------------------------------------------- public estimators
@dataclass(frozen=True, slots=True)
class McNemarTest:
    r"""McNemar's test of equal success rates on paired verdicts.

    Attributes
    ----------
    a, b : str
        The systems.
    a_only, b_only : int
        Discordant items: only ``a`` passed, only ``b`` passed.
    mid_p : float
        Two-sided mid-p value (:func:`mcnemar_mid_p`).
    exact_p : float
        Two-sided exact conditional p-value :math:`\min(1, 2P(X \le k))`.
    """

    a: str
    b: str
    a_only: int
    b_only: int
    mid_p: float
    exact_p: float


def _paired_design(data: SystemsData, a: str, b: str, design: str) -> bool:
    _check_choice("design", design, get_args(Design))
    shared = data.paired_items(a=a, b=b).unlabelled_verdict.shape[0]
    if design == "paired" and shared == 0:
        raise DataError(
            f"design='paired': systems {a!r} and {b!r} share no item that neither has a gold "
            "label on"
        )
    return design == "paired" or (design == "auto" and shared > 0)


def _unlabelled(data: SystemsData, system: str) -> NDArray[np.int64]:
    s = data.systems.index(system)
    keep = (data.system_index == s) & np.isnan(data.label)
    return data.verdict[keep]


def _labelled(data: SystemsData, system: str) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    s = data.systems.index(system)
    keep = (data.system_index == s) & ~np.isnan(data.label)
    return data.label[keep], data.verdict[keep]


def mcnemar_test(data: SystemsData, *, a: str | None = None, b: str | None = None) -> McNemarTest:
    """McNemar's mid-p test on the verdicts of the items unlabelled for both systems.

    Tests equal *judged* pass rates: with an imperfect judge that is not the same as equal
    success rates unless the judge treats both systems alike.

    Raises
    ------
    DataError
        If the two systems share no unlabelled item.

    Examples
    --------
    >>> from bayesjudge.systems.simulate import simulate_systems
    >>> sim = simulate_systems([0.6, 0.7], n_unlabelled=300, n_labelled=50, se=0.9, sp=0.85,
    ...                        random_seed=2)
    >>> test = mcnemar_test(SystemsData.from_frame(sim.frame))
    >>> test.a_only + test.b_only > 0
    True
    """
    a, b = data._pair(a, b)
    table = data.paired_table(a=a, b=b)
    if table.sum() == 0:
        raise DataError(f"McNemar's test: systems {a!r} and {b!r} share no unlabelled item")
    a_only, b_only = int(table[1, 0]), int(table[0, 1])
    k, total = min(a_only, b_only), a_only + b_only
    exact = 1.0 if total == 0 else min(1.0, 2.0 * float(stats.binom.cdf(k, total, 0.5)))
    return McNemarTest(a, b, a_only, b_only, float(mcnemar_mid_p(a_only, b_only)), exact)


def naive_difference(
    data: SystemsData,
    *,
    a: str | None = None,
    b: str | None = None,
    prob: float = 0.95,
    interval: PairedInterval = "newcombe",
    design: Design = "auto",
) -> Estimate:
    r"""Naive difference of the judge's pass rates, :math:`\hat p_b - \hat p_a`.

    Paired: on the items unlabelled for both, :math:`(n_{01} - n_{10})/n`, with Newcombe's
    (:func:`newcombe_paired_interval`) or Tango's (:func:`tango_paired_interval`) interval,
    :math:`\mathrm{se}^2` from :func:`paired_difference_variance` and the McNemar mid-p value
    in a note. Unpaired: every unlabelled answer of each system, Newcombe's unpaired interval
    (``interval`` must then be ``"newcombe"``). It ignores the judge's errors, so it is biased
    whenever the judge is imperfect; even with a judge that treats both systems alike it
    estimates :math:`J(\pi_b - \pi_a)`, the true difference shrunk by Youden's J.

    Parameters
    ----------
    data : SystemsData
    a, b : str, optional
        The systems; the first two of ``data.systems`` by default.
    prob : float
        Interval mass.
    interval : {"newcombe", "tango"}
        The paired interval.
    design : {"auto", "paired", "unpaired"}
        See the module docstring.

    Returns
    -------
    Estimate
        Method ``"naive_difference_<interval>"``.

    Examples
    --------
    >>> from bayesjudge.systems.simulate import simulate_systems
    >>> sim = simulate_systems([0.6, 0.7], n_unlabelled=300, n_labelled=50, se=0.9, sp=0.85,
    ...                        random_seed=2)
    >>> est = naive_difference(SystemsData.from_frame(sim.frame))
    >>> est.method, est.interval.kind
    ('naive_difference_newcombe', 'newcombe_paired')
    """
    prob = _check_prob(prob)
    _check_choice("interval", interval, get_args(PairedInterval))
    a, b = data._pair(a, b)
    method = f"naive_difference_{interval}"
    if _paired_design(data, a, b, design):
        table = data.paired_table(a=a, b=b)
        n = int(table.sum())
        estimate = float((table[0, 1] - table[1, 0]) / n)
        if interval == "newcombe":
            low, high = newcombe_paired_interval(table, prob=prob)
            kind = "newcombe_paired"
        else:
            low, high = tango_paired_interval(table, prob=prob)
            kind = "tango"
        se = float(np.sqrt(paired_difference_variance(table)))
        test = mcnemar_test(data, a=a, b=b)
        notes = (
            f"paired: {n} items unlabelled for both systems",
            f"McNemar mid-p = {test.mid_p:.4g} ({test.a_only} items passed for {a!r} only, "
            f"{test.b_only} for {b!r} only)",
        )
        return Estimate(
            method, estimate, Interval(float(low), float(high), prob, kind), se=se, notes=notes
        )
    if interval != "newcombe":
        raise ValueError(
            f"interval={interval!r} is for paired designs; systems {a!r} and {b!r} share no "
            "unlabelled item, so use interval='newcombe'"
        )
    va, vb = _unlabelled(data, a), _unlabelled(data, b)
    p_a, p_b = float(va.mean()), float(vb.mean())
    low, high = newcombe_unpaired_interval(va.sum(), va.size, vb.sum(), vb.size, prob=prob)
    se = float(np.sqrt(p_a * (1 - p_a) / va.size + p_b * (1 - p_b) / vb.size))
    return Estimate(
        method,
        p_b - p_a,
        Interval(float(low), float(high), prob, "newcombe_unpaired"),
        se=se,
        notes=(f"unpaired: {va.size} unlabelled answers of {a!r}, {vb.size} of {b!r}",),
    )


def rogan_gladen_difference(
    data: SystemsData,
    *,
    a: str | None = None,
    b: str | None = None,
    prob: float = 0.95,
    design: Design = "auto",
) -> Estimate:
    r"""Rogan-Gladen corrected difference under a shared judge, delta-method interval.

    .. math:: \hat\Delta = \frac{\hat p_b - \hat p_a}{\hat q_0 + \hat q_1 - 1}, \qquad
        \hat\Delta \pm z\,\mathrm{se}

    with :math:`\hat q_1, \hat q_0` the judge's sensitivity and specificity on the gold-labelled
    answers of ``a`` and ``b`` pooled, the judged rates :math:`\hat p` as in
    :func:`naive_difference`, and :math:`\mathrm{se}^2` from
    :func:`rogan_gladen_difference_variance` (which includes the covariance the shared judge
    induces). The interval is clipped to [-1, 1]. Only :math:`P(v \mid y)` is assumed to
    transfer, so the gold labels may have been chosen by class.

    Returns
    -------
    Estimate
        Method ``"rogan_gladen_difference"`` with ``j`` the calibration :math:`\hat J`;
        ``estimate=None`` with a note when :math:`\hat J \le 0` or a class has no gold answer.

    Examples
    --------
    >>> from bayesjudge.systems.simulate import simulate_systems
    >>> sim = simulate_systems([0.6, 0.7], n_unlabelled=300, n_labelled=50, se=0.9, sp=0.85,
    ...                        random_seed=2)
    >>> est = rogan_gladen_difference(SystemsData.from_frame(sim.frame))
    >>> est.interval.kind
    'delta'
    """
    prob = _check_prob(prob)
    a, b = data._pair(a, b)
    method = "rogan_gladen_difference"
    counts = data.system_counts((a, b))
    m1, x1 = int(counts.m1.sum()), int(counts.x1.sum())
    m0, x0 = int(counts.m0.sum()), int(counts.x0.sum())
    if m1 == 0 or m0 == 0:
        missing = "gold-PASS" if m1 == 0 else "gold-FAIL"
        return Estimate.not_identifiable(
            method, f"systems {a!r} and {b!r} have no {missing} answer to calibrate the judge"
        )
    q1, q0 = x1 / m1, (m0 - x0) / m0
    j = q0 + q1 - 1.0
    if not j > 0:
        return Estimate.not_identifiable(
            method, f"the judge is no better than chance (J={j:.4g} <= 0)", j=j
        )
    if _paired_design(data, a, b, design):
        table = data.paired_table(a=a, b=b)
        n = int(table.sum())
        judged = float((table[0, 1] - table[1, 0]) / n)
        judged_var = float(paired_difference_variance(table))
        note = f"paired: {n} items unlabelled for both systems"
    else:
        va, vb = _unlabelled(data, a), _unlabelled(data, b)
        p_a, p_b = float(va.mean()), float(vb.mean())
        judged = p_b - p_a
        judged_var = p_a * (1 - p_a) / va.size + p_b * (1 - p_b) / vb.size
        note = f"unpaired: {va.size} unlabelled answers of {a!r}, {vb.size} of {b!r}"
    diff = judged / j
    se = float(np.sqrt(rogan_gladen_difference_variance(diff, judged_var, q0, q1, m0, m1)))
    z = _z(prob)
    low, high = max(diff - z * se, -1.0), min(diff + z * se, 1.0)
    notes = [note, f"shared judge calibrated on {m1 + m0} gold answers of {a!r} and {b!r}"]
    estimate = min(max(diff, -1.0), 1.0)
    if estimate != diff:
        notes.append(f"clipped to [-1, 1] from {diff:.4g}")
    return Estimate(
        method,
        estimate,
        Interval(min(low, estimate), max(high, estimate), prob, "delta"),
        se=se,
        j=j,
        unclipped=diff,
        notes=tuple(notes),
    )


def ppi_difference(
    data: SystemsData,
    *,
    a: str | None = None,
    b: str | None = None,
    prob: float = 0.95,
    tuned: bool = True,
    design: Design = "auto",
) -> Estimate:
    r"""PPI or PPI++ estimate of :math:`\pi_b - \pi_a` with a CLT interval.

    Paired, when some items are gold-labelled for both systems: PPI for the mean of the per-item
    difference :math:`Y = y_b - y_a` with predictions :math:`\hat Y = v_b - v_a`, labelled set
    the items labelled for both, unlabelled set the items labelled for neither:

    .. math::

        \hat\Delta_\lambda = \frac{\lambda}{N}\sum_i \hat Y^u_i
            + \frac1n\sum_j (Y_j - \lambda \hat Y_j)

    (:func:`bayesjudge.estimators.ppi.ppi_mean`; :math:`\lambda` power-tuned and clipped to
    [0, 1] by :func:`bayesjudge.estimators.ppi.ppi_lambda` when ``tuned``, else 1).
    Otherwise: one PPI estimate per system from its own labelled and unlabelled answers,
    differenced, with
    :math:`\mathrm{se}^2 = \mathrm{se}_a^2 + \mathrm{se}_b^2` (independent samples). Both
    assume the gold-labelled items are a random sample of the same population.

    Returns
    -------
    Estimate
        Method ``"ppi_plus_plus_difference"`` (tuned) or ``"ppi_difference"``;
        ``estimate=None`` with a note when a system has no gold labels.

    Examples
    --------
    >>> from bayesjudge.systems.simulate import simulate_systems
    >>> sim = simulate_systems([0.6, 0.7], n_unlabelled=300, n_labelled=50, se=0.9, sp=0.85,
    ...                        random_seed=2)
    >>> est = ppi_difference(SystemsData.from_frame(sim.frame))
    >>> est.method, est.notes[0]
    ('ppi_plus_plus_difference', 'paired: 50 items labelled for both, 300 for neither')
    """
    prob = _check_prob(prob)
    if not isinstance(tuned, bool):
        raise ValueError(f"tuned must be True or False; got {tuned!r}")
    a, b = data._pair(a, b)
    method = "ppi_plus_plus_difference" if tuned else "ppi_difference"
    z = _z(prob)
    pairs = data.paired_items(a=a, b=b)
    notes: list[str] = []
    if _paired_design(data, a, b, design) and pairs.label.shape[0] > 0:
        y = (pairs.label[:, 1] - pairs.label[:, 0]).astype(float)
        yhat = (pairs.verdict[:, 1] - pairs.verdict[:, 0]).astype(float)
        unl = (pairs.unlabelled_verdict[:, 1] - pairs.unlabelled_verdict[:, 0]).astype(float)
        lam = ppi_lambda(y, yhat, unl) if tuned else 1.0
        estimate, se = ppi_mean(y, yhat, unl, lam=lam)
        notes.append(f"paired: {y.size} items labelled for both, {unl.size} for neither")
        lams = [lam]
    else:
        parts = []
        for system in (a, b):
            label, verdict = _labelled(data, system)
            if label.size == 0:
                return Estimate.not_identifiable(
                    method, f"system {system!r} has no gold-labelled answers for its rectifier"
                )
            unl_s = _unlabelled(data, system).astype(float)
            lam_s = ppi_lambda(label, verdict, unl_s) if tuned else 1.0
            parts.append((*ppi_mean(label, verdict.astype(float), unl_s, lam=lam_s), lam_s))
        estimate = parts[1][0] - parts[0][0]
        se = float(np.hypot(parts[0][1], parts[1][1]))
        lams = [parts[0][2], parts[1][2]]
        notes.append("unpaired: independent PPI estimates per system, differenced")
    if tuned:
        notes.append("lambda=" + ", ".join(f"{v:.4g}" for v in lams))
    notes.append("assumes the gold-labelled items are a random sample")
    return Estimate(
        method,
        float(estimate),
        Interval(estimate - z * se, estimate + z * se, prob, "clt"),
        se=float(se),
        notes=tuple(notes),
    )


def difference_baselines(
    data: SystemsData,
    *,
    a: str | None = None,
    b: str | None = None,
    prob: float = 0.95,
    design: Design = "auto",
) -> list[Estimate]:
    """Return every frequentist baseline for ``pi_b - pi_a``, in :data:`DIFFERENCE_METHODS` order.

    The Tango row is present only for a paired comparison.

    Examples
    --------
    >>> from bayesjudge.systems.simulate import simulate_systems
    >>> sim = simulate_systems([0.6, 0.7], n_unlabelled=300, n_labelled=50, se=0.9, sp=0.85,
    ...                        random_seed=2)
    >>> [e.method for e in difference_baselines(SystemsData.from_frame(sim.frame))][:2]
    ['naive_difference_newcombe', 'naive_difference_tango']
    """
    prob = _check_prob(prob)
    a, b = data._pair(a, b)
    paired = _paired_design(data, a, b, design)
    rows = [naive_difference(data, a=a, b=b, prob=prob, design=design)]
    if paired:
        rows.append(naive_difference(data, a=a, b=b, prob=prob, interval="tango", design=design))
    rows.append(rogan_gladen_difference(data, a=a, b=b, prob=prob, design=design))
    rows.append(ppi_difference(data, a=a, b=b, prob=prob, tuned=False, design=design))
    rows.append(ppi_difference(data, a=a, b=b, prob=prob, tuned=True, design=design))
    return rows


def difference_baselines_frame(
    data: SystemsData,
    *,
    a: str | None = None,
    b: str | None = None,
    prob: float = 0.95,
    design: Design = "auto",
) -> pd.DataFrame:
    """Return :func:`difference_baselines` as one DataFrame (columns of ``ROW_COLUMNS``)."""
    return estimates_frame(difference_baselines(data, a=a, b=b, prob=prob, design=design))


#: Method names of :func:`system_baselines`, in row order.
SYSTEM_METHODS = ("naive", "rogan_gladen_delta", "ppi_plus_plus")


def system_baselines(data: SystemsData, *, prob: float = 0.95) -> list[tuple[str, Estimate]]:
    r"""Return each system's success rate by the frequentist baselines, as (system, row) pairs.

    For each system, in order: ``naive`` (its judged pass rate :math:`k_s/n_s` on its unlabelled
    answers, Wilson interval); ``rogan_gladen_delta``, the Rogan-Gladen correction
    :math:`(k_s/n_s + \widehat{\mathrm{Sp}} - 1)/\hat J` with Se and Sp estimated from the
    gold-labelled answers of *every* system (the shared-judge assumption of the Bayesian model)
    and its delta-method interval (Rogan and Gladen 1978); ``ppi_plus_plus``, PPI++ from the
    system's own gold-labelled answers only (Angelopoulos, Duchi and Zrnic 2023), not
    identifiable for a system without them. All three come from
    :mod:`bayesjudge.prevalence` on the system's six counts. PPI++ assumes the system's gold
    answers are a random sample of its answers: when the judge passes them at a rate different
    from its unlabelled ones (:func:`bayesjudge.prevalence.calibration_check`, the rule of
    ``bayesjudge estimate`` and of the reports' warning), its row carries that note.

    Examples
    --------
    >>> from bayesjudge.systems.simulate import simulate_systems
    >>> sim = simulate_systems([0.6, 0.7], n_unlabelled=300, n_labelled=50, se=0.9, sp=0.85,
    ...                        random_seed=2)
    >>> [(s, e.method) for s, e in system_baselines(SystemsData.from_frame(sim.frame))][:3]
    [('A', 'naive'), ('A', 'rogan_gladen_delta'), ('A', 'ppi_plus_plus')]
    """
    from bayesjudge.errors import NotIdentifiableError
    from bayesjudge.prevalence import (
        JudgeCounts,
        calibration_check,
        naive,
        ppi_plus_plus,
        rogan_gladen,
    )

    def guarded(
        method: str, estimator: Callable[..., Estimate], counts: object, **kw: object
    ) -> Estimate:
        try:
            return estimator(counts, prob=prob, **kw)
        except NotIdentifiableError as exc:
            return Estimate.not_identifiable(method, str(exc).split(": ", 1)[-1])

    prob = _check_prob(prob)
    counts = data.system_counts()
    pooled = {name: int(getattr(counts, name).sum()) for name in ("m1", "x1", "m0", "x0")}
    rows: list[tuple[str, Estimate]] = []
    for s, system in enumerate(counts.systems):
        n, k = int(counts.n[s]), int(counts.k[s])
        own = {name: int(getattr(counts, name)[s]) for name in ("m1", "x1", "m0", "x0")}
        rows.append((system, naive(JudgeCounts(**pooled, n=n, k=k), prob=prob)))
        rg = guarded(
            "rogan_gladen_delta",
            rogan_gladen,
            JudgeCounts(**pooled, n=n, k=k),
            interval="delta",
        )
        rows.append(
            (system, replace(rg, notes=(*rg.notes, "Se and Sp from every system's gold labels")))
        )
        if own["m1"] + own["m0"] == 0:
            rows.append(
                (
                    system,
                    Estimate.not_identifiable(
                        "ppi_plus_plus", f"system {system!r} has no gold-labelled answers"
                    ),
                )
            )
        else:
            own_counts = JudgeCounts(**own, n=n, k=k)
            ppi = guarded("ppi_plus_plus", ppi_plus_plus, own_counts)
            # the rule of estimate's rows and of the reports' warning: the judge passes the
            # system's gold answers and its unlabelled ones at different rates
            check = calibration_check(own_counts)
            if not check.consistent and ppi.estimate is not None:
                ppi = replace(ppi, notes=(*ppi.notes, check.note()))
            rows.append((system, ppi))
    return rows
