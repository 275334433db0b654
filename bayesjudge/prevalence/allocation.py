r"""How to spend a calibration budget, and where the Rogan-Gladen variance comes from.

* :func:`allocate` - Algorithm 1 of Lee et al. (Lee et al. 2025): smooth a pilot estimate of the
  judge's specificity and sensitivity, then split a budget of gold labels between the FAIL and PASS
  classes by the Prop. 5.2 ratio (or by the exact length-minimising ratio);
* :func:`optimal_ratio` - the ratio :math:`m_0/m_1` that exactly minimises the length of the
  eq. 6 interval for a fixed budget, before the Prop. 5.2 approximation;
* :func:`variance_decomposition` - the delta-method variance of eq. 9 split into the shares
  contributed by the test set, by the specificity estimate and by the sensitivity estimate
  (the bias-correction article).

References
----------
.. [1] Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations" (Lee et al. 2025): eqs. 6-9,
   Prop. 5.2 / B.2, Algorithm 1 (Appendix A).
.. [2] "Bias-correct your LLM-as-a-judge eval before reporting it" (the bias-correction
   article): variance
   decomposition and label allocation.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayesjudge.errors import NotIdentifiableError
from bayesjudge.io.tables import TableLike
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.validation import check_int, check_unit

__all__ = [
    "Allocation",
    "VarianceDecomposition",
    "allocate",
    "optimal_ratio",
    "variance_decomposition",
]

Rule = Literal["approximate", "exact"]


# --------------------------------------------------------------------------- exact ratio
def _ratio(p: NDArray[np.float64], q0: NDArray[np.float64], q1: NDArray[np.float64]) -> NDArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(
            np.abs(q1 - p) / np.abs(p + q0 - 1.0) * np.sqrt(q0 * (1.0 - q0) / (q1 * (1.0 - q1))),
            dtype=float,
        )


def optimal_ratio(*, p_hat: ArrayLike, q0: ArrayLike, q1: ArrayLike) -> float | NDArray[np.float64]:
    r"""Ratio :math:`m_0/m_1` that minimises the eq. 6 interval length for a fixed budget.

    For a fixed total, the length of the interval of Lee et al. (2025), eq. 6, depends on the split
    only through :math:`A/m_0 + B/m_1` with :math:`A = (1-\theta)^2 q_0(1-q_0)` and :math:`B =
    \theta^2 q_1(1-q_1)`; minimising under :math:`m_0 + m_1` fixed gives :math:`m_0/m_1 =
    \sqrt{A/B}`, that is (proof of Prop. B.2, before its approximation)

    .. math::

        \frac{m_0}{m_1} = \frac{|q_1 - p|}{|p + q_0 - 1|}
            \sqrt{\frac{q_0(1 - q_0)}{q_1(1 - q_1)}}

    using :math:`1-\theta = (q_1 - p)/J` and :math:`\theta = (p + q_0 - 1)/J`. Prop. 5.2
    approximates it by :math:`(1/p - 1)\sqrt{\kappa}`, :math:`\kappa = (1-q_0)/(1-q_1)`,
    for :math:`q_0, q_1` near 1. Vectorised: arguments broadcast.

    Parameters
    ----------
    p_hat : array_like
        Judged pass rate of the test items, in [0, 1].
    q0, q1 : array_like
        Specificity and sensitivity, in (0, 1) with :math:`q_0 + q_1 > 1`; in Algorithm 1 these
        are the smoothed pilot estimates :math:`\tilde q_0, \tilde q_1`.

    Returns
    -------
    float or ndarray
        The ratio :math:`m_0/m_1` (``inf`` when :math:`\theta = 0`, ``0`` when
        :math:`\theta = 1`).

    Raises
    ------
    ValueError
        Naming the argument that is out of range, or when :math:`q_0 + q_1 \le 1`.

    Examples
    --------
    The worked inputs of the bias-correction article ask for about 2.3 PASS labels per FAIL label:

    >>> print(f"{1 / optimal_ratio(p_hat=0.70, q0=0.85, q1=0.90):.2f}")
    2.31
    """
    p_arr = np.asarray(p_hat, dtype=float)
    q0_arr, q1_arr = np.asarray(q0, dtype=float), np.asarray(q1, dtype=float)
    if not np.all((p_arr >= 0.0) & (p_arr <= 1.0)):
        raise ValueError(f"p_hat must lie in [0, 1]; got {p_hat!r}")
    for name, arr, raw in (("q0", q0_arr, q0), ("q1", q1_arr, q1)):
        if not np.all((arr > 0.0) & (arr < 1.0)):
            raise ValueError(f"{name} must lie in (0, 1); got {raw!r}")
    if not np.all(q0_arr + q1_arr > 1.0):
        raise ValueError(
            f"q0 + q1 must exceed 1 (a judge better than chance); got q0={q0!r}, q1={q1!r}"
        )
    out = _ratio(p_arr, q0_arr, q1_arr)
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------------------------- Algorithm 1
@dataclass(frozen=True, slots=True)
class Allocation:
    r"""A split of a calibration budget between the gold-FAIL and gold-PASS classes.

    Attributes
    ----------
    budget : int
        Total number of gold labels ``m = m0 + m1``.
    m0, m1 : int
        Labels to collect on gold-FAIL and gold-PASS items (each at least ``pilot_size``; the
        pilot items count towards them).
    ratio : float
        The target ratio :math:`m_0/m_1` the split was computed from.
    kappa : float
        The error ratio :math:`\hat\kappa = (1-\tilde q_0)/(1-\tilde q_1)` of the smoothed pilot.
    q0_tilde, q1_tilde : float
        Smoothed pilot specificity and sensitivity, :math:`(\text{correct} + 1)/(m_{pilot} + 2)`.
    p_hat : float
        The judged pass rate used.
    pilot_size : int
        Pilot items per class.
    rule : {"approximate", "exact"}
        Which ratio was used.
    """

    budget: int
    m0: int
    m1: int
    ratio: float
    kappa: float
    q0_tilde: float
    q1_tilde: float
    p_hat: float
    pilot_size: int
    rule: str

    def to_dict(self) -> dict[str, int | float | str]:
        """Return the allocation as a plain mapping (for JSON output)."""
        return asdict(self)


def allocate(
    budget: int,
    *,
    p_hat: float,
    pilot_q0: float,
    pilot_q1: float,
    pilot_size: int,
    rule: Rule = "approximate",
) -> Allocation:
    r"""Split a calibration budget between the classes (Lee et al. 2025, Algorithm 1).

    1. Smooth the pilot estimates from ``pilot_size`` items per class by adding one success and
       one failure: :math:`\tilde q_c = (m_{pilot}\hat q_c + 1)/(m_{pilot} + 2)` (so
       :math:`\tilde q_c` is never 0 or 1 and :math:`\hat\kappa` is finite).
    2. :math:`\hat\kappa = (1-\tilde q_0)/(1-\tilde q_1)`.
    3. Target ratio :math:`r = m_0/m_1`: with ``rule="approximate"`` the Prop. 5.2 ratio
       :math:`r = (1/\hat p - 1)\sqrt{\hat\kappa}` and
       :math:`m_1^* = \mathrm{round}(m/(1 + r))` exactly as in Algorithm 1; with
       ``rule="exact"`` the ratio of :func:`optimal_ratio` at
       :math:`(\hat p, \tilde q_0, \tilde q_1)`, applied to the adjusted sizes
       :math:`\tilde m_c = m_c + 2` of eq. 7, and :math:`m_1^*` the whole number that gives the
       shorter eq. 6 interval of the two around the continuous optimum.
    4. Enforce the pilot: :math:`m_1 = \min(\max(m_1^*, m_{pilot}), m - m_{pilot})`,
       :math:`m_0 = m - m_1`.

    Parameters
    ----------
    budget : int
        Total number of gold labels ``m`` (pilot included), at least ``2 * pilot_size``.
    p_hat : float
        Judged pass rate on the test items, in [0, 1].
    pilot_q0, pilot_q1 : float
        Raw pilot specificity and sensitivity (fractions of the ``pilot_size`` items per class
        the judge got right), in [0, 1].
    pilot_size : int
        Pilot items per class (the paper suggests 10).
    rule : {"approximate", "exact"}
        Prop. 5.2 ratio (Algorithm 1 as published) or the exact length-minimising ratio.

    Returns
    -------
    Allocation

    Raises
    ------
    ValueError
        Naming the argument that is out of range, or when the smoothed pilot judge is no
        better than chance (:math:`\tilde q_0 + \tilde q_1 \le 1`).

    Examples
    --------
    >>> a = allocate(200, p_hat=0.7, pilot_q0=0.8, pilot_q1=0.9, pilot_size=10)
    >>> (a.m0, a.m1)
    (69, 131)
    >>> b = allocate(200, p_hat=0.7, pilot_q0=0.8, pilot_q1=0.9, pilot_size=10, rule="exact")
    >>> (b.m0, b.m1)
    (50, 150)
    """
    if rule not in get_args(Rule):
        raise ValueError(f"rule must be one of {list(get_args(Rule))}; got {rule!r}")
    pilot_size = check_int(pilot_size, name="pilot_size", minimum=1)
    budget = check_int(budget, name="budget", minimum=1)
    if budget < 2 * pilot_size:
        raise ValueError(
            f"budget must be at least 2 * pilot_size = {2 * pilot_size}; got budget={budget}"
        )
    p = check_unit(p_hat, name="p_hat")
    q0_raw, q1_raw = check_unit(pilot_q0, name="pilot_q0"), check_unit(pilot_q1, name="pilot_q1")
    q0_t = (pilot_size * q0_raw + 1.0) / (pilot_size + 2.0)
    q1_t = (pilot_size * q1_raw + 1.0) / (pilot_size + 2.0)
    if not q0_t + q1_t > 1.0:
        raise ValueError(
            "the pilot judge is no better than chance (smoothed q0~ + q1~ = "
            f"{q0_t + q1_t:.4g} <= 1): its verdicts carry no information about the true label, "
            "so no allocation helps; improve the judge or check the pilot labels"
        )
    kappa = (1.0 - q0_t) / (1.0 - q1_t)
    if rule == "approximate":
        ratio = math.inf if p == 0.0 else (1.0 / p - 1.0) * math.sqrt(kappa)
        m1_star = 0 if math.isinf(ratio) else round(budget / (1.0 + ratio))
    else:
        ratio = float(_ratio(np.asarray(p), np.asarray(q0_t), np.asarray(q1_t)))
        m1_star = _exact_m1(budget, ratio)
    m1 = min(max(m1_star, pilot_size), budget - pilot_size)
    return Allocation(
        budget=budget,
        m0=budget - m1,
        m1=m1,
        ratio=ratio,
        kappa=kappa,
        q0_tilde=q0_t,
        q1_tilde=q1_t,
        p_hat=p,
        pilot_size=pilot_size,
        rule=rule,
    )


def _exact_m1(budget: int, ratio: float) -> int:
    """Whole m1 minimising r/(m0 + 2) + 1/(m1 + 2) (length ~ A/m0~ + B/m1~ with r^2 = A/B)."""
    if math.isinf(ratio):
        return 0
    if ratio == 0.0:
        return budget
    total = budget + 4.0  # m0~ + m1~
    m1_cont = total / (1.0 + ratio) - 2.0
    candidates = [c for c in {math.floor(m1_cont), math.ceil(m1_cont)} if 0 <= c <= budget]
    if not candidates:
        return min(max(round(m1_cont), 0), budget)

    def length(m1: int) -> float:
        return ratio**2 / (budget - m1 + 2.0) + 1.0 / (m1 + 2.0)

    return min(sorted(candidates), key=length)


# --------------------------------------------------------------------------- decomposition
@dataclass(frozen=True, slots=True)
class VarianceDecomposition:
    """The delta-method variance of the Rogan-Gladen estimate (eq. 9) and where it comes from.

    Attributes
    ----------
    variance, se : float
        Total variance and its square root.
    share_test, share_q0, share_q1 : float
        Fractions of the variance from the test-set pass rate, the specificity estimate and the
        sensitivity estimate; they sum to 1 (NaN when the variance is zero).
    theta : float
        The unclipped Rogan-Gladen estimate at which the variance is evaluated.
    j : float
        Calibration Youden's J.
    """

    variance: float
    se: float
    share_test: float
    share_q0: float
    share_q1: float
    theta: float
    j: float

    def to_dict(self) -> dict[str, float]:
        """Return the decomposition as a plain mapping."""
        return asdict(self)


def variance_decomposition(
    data_or_counts: JudgeData | JudgeCounts | TableLike,
) -> VarianceDecomposition:
    r"""Split the eq. 9 variance of the Rogan-Gladen estimate into its three sources.

    Reference: the bias-correction article.

    .. math::

        \operatorname{Var}(\hat\theta) = \frac{1}{J^2}\Big[
            \underbrace{\hat p(1-\hat p)/n}_{\text{test}}
            + \underbrace{(1-\hat\theta)^2\hat q_0(1-\hat q_0)/m_0}_{\text{specificity}}
            + \underbrace{\hat\theta^2\hat q_1(1-\hat q_1)/m_1}_{\text{sensitivity}}\Big]

    Each share is its term over the bracket. A large sensitivity share says the next labels
    should go to gold-PASS items, and vice versa (see :func:`allocate`).

    Parameters
    ----------
    data_or_counts : JudgeData, JudgeCounts, DataFrame or path
        Binary judge data, or its six counts.

    Returns
    -------
    VarianceDecomposition

    Raises
    ------
    NotIdentifiableError
        If the calibration :math:`J \le 0`.
    DataError
        If the data hold scores rather than binary verdicts.

    Examples
    --------
    >>> d = variance_decomposition(JudgeCounts(100, 90, 100, 15, 1000, 700))
    >>> print(f"se={d.se:.3f} test={d.share_test:.2f} q0={d.share_q0:.2f} q1={d.share_q1:.2f}")
    se=0.037 test=0.27 q0=0.12 q1=0.62
    """
    if isinstance(data_or_counts, JudgeCounts):
        c = JudgeData.from_counts(**data_or_counts.as_dict()).counts
    else:
        c = JudgeData.coerce(data_or_counts).counts
    j = c.j
    if not j > 0.0:
        raise NotIdentifiableError(j, "variance_decomposition")
    theta = (c.p_hat + c.q0 - 1.0) / j
    terms = np.array(
        [
            c.p_hat * (1.0 - c.p_hat) / c.n,
            (1.0 - theta) ** 2 * c.q0 * (1.0 - c.q0) / c.m0,
            theta**2 * c.q1 * (1.0 - c.q1) / c.m1,
        ]
    )
    total = float(terms.sum())
    shares = terms / total if total > 0.0 else np.full(3, np.nan)
    variance = total / j**2
    return VarianceDecomposition(
        variance=variance,
        se=math.sqrt(variance),
        share_test=float(shares[0]),
        share_q0=float(shares[1]),
        share_q1=float(shares[2]),
        theta=float(theta),
        j=float(j),
    )
