r"""Closed forms of retry-until-PASS gates: ship probability, Se(K), Sp(K), J(K), recovery at K.

A judge rules PASS on item :math:`i` with an item-specific probability :math:`p_i`. A
*retry-until-PASS* gate with cap :math:`K` ships the item iff one of up to :math:`K`
independent rulings passes (Below the Reliability Floor, eq. 1):

.. math:: s_i(K) = 1 - (1 - p_i)^K.

Grouping items by their true label gives the gate's class-conditional ship rates, so the gate is a
binary classifier with sensitivity, specificity and Youden index (Below the Reliability Floor, eqs.
2-5)

.. math::

    \mathrm{Se}(K) = E[s(K) \mid \text{compliant}], \quad
    1 - \mathrm{Sp}(K) = E[s(K) \mid \text{violation}], \quad
    J(K) = \mathrm{Se}(K) + \mathrm{Sp}(K) - 1,

    J(\infty) = P(p > 0 \mid \text{compliant}) - P(p > 0 \mid \text{violation}), \quad
    R(K) = \pi\,\mathrm{Se}(K) + (1 - \pi)(1 - \mathrm{Sp}(K)).

When the pass probability of a class is zero-inflated Beta (weight :math:`\omega` on
:math:`p = 0`, else :math:`\mathrm{Beta}(a, b)`), :math:`E[(1-p)^K] = \omega + (1 - \omega)
B(a, b + K) / B(a, b)`, so every quantity above is a closed-form function of
:math:`(\omega, a, b)` (:func:`beta_tail_moment`, :class:`PassRateDistribution`).

Everything here is numpy, vectorised over items (leading axes) and caps (a trailing axis).

References
----------
.. [1] Anonymous, "Below the Reliability Floor: Recovering True Success from Judge-Gated
   Loops" (Below the Reliability Floor), sections 2-5 and appendix A.
.. [2] W. J. Rogan and B. Gladen, "Estimating prevalence from the results of a screening
   test", Am. J. Epidemiol. 107(1), 1978.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats
from scipy.special import betaln

from bayesjudge.estimators.rogan_gladen import judged_rate, rogan_gladen_variance
from bayesjudge.gates.caps import check_caps, check_unit_array
from bayesjudge.gates.rules import Rule, rule_threshold
from bayesjudge.validation import rng_from

__all__ = [
    "GateCurve",
    "OptimalCap",
    "PassRateDistribution",
    "beta_tail_moment",
    "empirical_gate_curve",
    "gate_bias",
    "gate_curve",
    "optimal_cap",
    "reliability_floor",
    "rg_variance",
    "ship_probability",
]


# --------------------------------------------------------------------------- ship probability
def ship_probability(p: ArrayLike, caps: ArrayLike) -> NDArray[np.float64]:
    r"""Probability that a retry-until-PASS gate with cap :math:`K` ships an item.

    .. math:: s(p, K) = 1 - (1 - p)^K \qquad \text{(Below the Reliability Floor, eq. 1)}

    Parameters
    ----------
    p : array_like, shape (...)
        Per-ruling pass probabilities in [0, 1].
    caps : int or 1-D array_like of int
        Caps :math:`K \ge 1`.

    Returns
    -------
    ndarray
        Shape ``p.shape + (len(caps),)``, or ``p.shape`` when ``caps`` is a scalar.

    Examples
    --------
    >>> ship_probability([0.0, 0.5, 1.0], [1, 2]).tolist()
    [[0.0, 0.0], [0.5, 0.75], [1.0, 1.0]]
    """
    p_arr = check_unit_array("p", p)
    k = check_caps(caps)
    out = 1.0 - (1.0 - p_arr[..., None]) ** k
    return out[..., 0] if np.ndim(caps) == 0 else out


def beta_tail_moment(a: ArrayLike, b: ArrayLike, caps: ArrayLike) -> NDArray[np.float64]:
    r"""Return the moment :math:`E[(1-p)^K]` of :math:`p \sim \mathrm{Beta}(a, b)`.

    .. math:: E[(1-p)^K] = \frac{B(a, b + K)}{B(a, b)},

    computed on the log scale with :func:`scipy.special.betaln`. It is the probability that
    :math:`K` independent rulings all fail, so :math:`1 - B(a, b+K)/B(a, b)` is the ship rate
    of a Beta class at cap :math:`K` (Below the Reliability Floor, eqs. 1-2).

    Parameters
    ----------
    a, b : array_like
        Positive Beta parameters; broadcast together, shape (...).
    caps : int or 1-D array_like of int
        Caps :math:`K \ge 1` (a trailing axis of the output unless scalar).

    Examples
    --------
    >>> print(f"{beta_tail_moment(1.0, 1.0, 1):.4f}")  # E[1 - p] under a uniform p
    0.5000
    >>> print(f"{beta_tail_moment(2.0, 3.0, 2):.4f}")  # E[(1 - p)^2] = (3*4)/(5*6)
    0.4000
    """
    a_arr, b_arr = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    if np.any(a_arr <= 0) or np.any(b_arr <= 0):
        raise ValueError(f"Beta parameters must be positive; got a={a!r}, b={b!r}")
    k = check_caps(caps)
    out = np.exp(betaln(a_arr[..., None], b_arr[..., None] + k) - betaln(a_arr, b_arr)[..., None])
    return out[..., 0] if np.ndim(caps) == 0 else out


@dataclass(frozen=True, slots=True)
class PassRateDistribution:
    r"""Zero-inflated Beta distribution of per-item pass probabilities in one class.

    With probability ``omega`` the judge never passes the item (:math:`p = 0`); otherwise
    :math:`p \sim \mathrm{Beta}(\mu\kappa, (1-\mu)\kappa)` (mean ``mu``, concentration
    ``kappa``). The model of :mod:`bayesjudge.models.gate` puts one of these on each class.

    Examples
    --------
    >>> d = PassRateDistribution(omega=0.2, mu=0.5, kappa=2.0)
    >>> print(f"{d.mean:.2f} {d.ship_rate(1):.2f} {d.ever_pass:.2f}")
    0.40 0.40 0.80
    """

    omega: float
    mu: float
    kappa: float

    def __post_init__(self) -> None:
        if not 0.0 <= self.omega < 1.0:
            raise ValueError(f"omega must lie in [0, 1); got {self.omega!r}")
        if not 0.0 < self.mu < 1.0:
            raise ValueError(f"mu must lie in (0, 1); got {self.mu!r}")
        if not self.kappa > 0.0:
            raise ValueError(f"kappa must be positive; got {self.kappa!r}")

    @property
    def a(self) -> float:
        r"""Beta shape :math:`a = \mu\kappa`."""
        return self.mu * self.kappa

    @property
    def b(self) -> float:
        r"""Beta shape :math:`b = (1 - \mu)\kappa`."""
        return (1.0 - self.mu) * self.kappa

    @property
    def mean(self) -> float:
        r"""Mean pass probability :math:`(1 - \omega)\mu`."""
        return (1.0 - self.omega) * self.mu

    @property
    def ever_pass(self) -> float:
        r"""Share of items the judge ever passes, :math:`P(p > 0) = 1 - \omega`."""
        return 1.0 - self.omega

    def ship_rate(self, caps: ArrayLike) -> NDArray[np.float64]:
        r"""Return :math:`E[s(K)] = (1 - \omega)(1 - B(a, b+K)/B(a, b))`."""
        return (1.0 - self.omega) * (1.0 - beta_tail_moment(self.a, self.b, caps))

    def rule_rate(self, caps: ArrayLike, *, rule: Rule = "any", t: int | None = None) -> Any:
        r"""Return :math:`P(\text{at least } t \text{ of } K \text{ rulings pass})`.

        A beta-binomial tail: :math:`(1-\omega)\,P(\mathrm{BetaBin}(K, a, b) \ge t)`; see
        :func:`rule_threshold` for ``t`` under each rule.
        """
        k = check_caps(caps)
        thresholds = rule_threshold(k, rule=rule, t=t)
        out = np.asarray((1.0 - self.omega) * stats.betabinom.sf(thresholds - 1, k, self.a, self.b))
        return float(out[0]) if np.ndim(caps) == 0 else np.asarray(out, dtype=float)

    def sample(self, size: int, *, random_seed: int | np.random.Generator | None = None) -> Any:
        """Draw ``size`` pass probabilities."""
        rng = rng_from(random_seed)
        p = rng.beta(self.a, self.b, size=size)
        return np.where(rng.random(size) < self.omega, 0.0, p)


# --------------------------------------------------------------------------- gate curve
@dataclass(frozen=True, slots=True, eq=False)
class GateCurve:
    """Se, Sp, J, R and bias of a gate at each cap, with its reliability floor J(inf).

    Attributes
    ----------
    caps : ndarray of int
        The caps K.
    se, sp, j : ndarray
        Sensitivity, specificity and Youden J at each cap.
    j_inf : float
        The reliability floor J(inf).
    pi : float
        True success rate used for ``reported`` and ``bias``.
    reported, bias : ndarray
        Expected reported rate R(K) and gate bias R(K) - pi.
    """

    caps: NDArray[np.int64]
    se: NDArray[np.float64]
    sp: NDArray[np.float64]
    j: NDArray[np.float64]
    j_inf: float
    pi: float
    reported: NDArray[np.float64]
    bias: NDArray[np.float64]

    def to_frame(self) -> pd.DataFrame:
        """Return one row per cap: k, se, sp, j, reported, bias."""
        return pd.DataFrame(
            {
                "k": self.caps,
                "se": self.se,
                "sp": self.sp,
                "j": self.j,
                "reported": self.reported,
                "bias": self.bias,
            }
        )


def gate_bias(*, pi: ArrayLike, se: ArrayLike, sp: ArrayLike) -> NDArray[np.float64]:
    r"""Bias of the reported rate, :math:`R - \pi = (1-\pi)(1-\mathrm{Sp}) - \pi(1-\mathrm{Se})`.

    Below the Reliability Floor, section 2. Table 4's first row (Se 0.969, leak 0.733, pi 0.5) gives
    +0.351.

    Examples
    --------
    >>> print(f"{gate_bias(pi=0.5, se=0.969, sp=1 - 0.733):+.3f}")
    +0.351
    """
    return np.asarray(judged_rate(pi=pi, se=se, sp=sp) - np.asarray(pi, dtype=float), dtype=float)


def reliability_floor(omega_compliant: ArrayLike, omega_violation: ArrayLike) -> Any:
    r"""Return the reliability floor :math:`J(\infty) = \omega_0 - \omega_1` of two classes.

    :math:`J(\infty) = P(p>0 \mid \text{comp}) - P(p>0 \mid \text{viol})`
    (Below the Reliability Floor, eq. 5);
    with a zero-inflated Beta per class :math:`P(p > 0) = 1 - \omega`.

    Examples
    --------
    >>> print(f"{reliability_floor(0.05, 0.6):.2f}")
    0.55
    """
    return np.asarray(omega_violation, dtype=float) - np.asarray(omega_compliant, dtype=float)


def gate_curve(
    compliant: PassRateDistribution,
    violation: PassRateDistribution,
    *,
    caps: ArrayLike,
    pi: float,
) -> GateCurve:
    r"""Closed-form operating characteristics of a gate over caps K.

    .. math::

        \mathrm{Se}(K) = (1-\omega_1)\left(1 - \frac{B(a_1, b_1+K)}{B(a_1, b_1)}\right), \quad
        1 - \mathrm{Sp}(K) = (1-\omega_0)\left(1 - \frac{B(a_0, b_0+K)}{B(a_0, b_0)}\right),

    :math:`J(K)`, :math:`J(\infty) = \omega_0 - \omega_1`, :math:`R(K)` and bias as in the
    module docstring (Below the Reliability Floor, eqs. 2-5).

    Examples
    --------
    >>> c = PassRateDistribution(0.0, 0.9, 20.0)
    >>> v = PassRateDistribution(0.0, 0.5, 20.0)
    >>> curve = gate_curve(c, v, caps=[1, 5], pi=0.5)
    >>> curve.j.round(3).tolist()
    [0.4, 0.047]
    """
    k = check_caps(caps)
    check_unit_array("pi", pi)
    se = compliant.ship_rate(k)
    fpr = violation.ship_rate(k)
    sp = 1.0 - fpr
    return GateCurve(
        caps=k,
        se=se,
        sp=sp,
        j=se - fpr,
        j_inf=float(reliability_floor(compliant.omega, violation.omega)),
        pi=float(pi),
        reported=judged_rate(pi=pi, se=se, sp=sp),
        bias=gate_bias(pi=pi, se=se, sp=sp),
    )


def empirical_gate_curve(
    p: ArrayLike, label: ArrayLike, *, caps: ArrayLike, pi: float | None = None
) -> GateCurve:
    r"""Gate characteristics from known per-item pass probabilities and labels.

    :math:`\mathrm{Se}(K)` and :math:`1 - \mathrm{Sp}(K)` are the class means of :math:`s_i(K) = 1 -
    (1-p_i)^K`, :math:`J(\infty)` the difference of the class shares with :math:`p_i > 0` (Below the
    Reliability Floor, eqs. 2-5); ``pi`` defaults to the share of compliant items.

    Examples
    --------
    >>> curve = empirical_gate_curve([0.9, 0.6, 0.0, 0.3], [1, 1, 0, 0], caps=[1, 2])
    >>> curve.j.round(3).tolist()
    [0.6, 0.66]
    """
    p_arr = check_unit_array("p", p)
    y = np.asarray(label, dtype=float)
    if p_arr.shape != y.shape or p_arr.ndim != 1:
        raise ValueError(
            f"p and label must be 1-D of the same length; got {p_arr.shape} and {y.shape}"
        )
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("label must hold 0/1 values")
    comp, viol = y == 1, y == 0
    if not comp.any() or not viol.any():
        raise ValueError("label must contain both classes (compliant 1 and violation 0)")
    k = check_caps(caps)
    s = ship_probability(p_arr, k)
    se = s[comp].mean(axis=0)
    fpr = s[viol].mean(axis=0)
    sp = 1.0 - fpr
    pi_value = float(comp.mean()) if pi is None else float(pi)
    j_inf = float(np.mean(p_arr[comp] > 0) - np.mean(p_arr[viol] > 0))
    return GateCurve(
        caps=k,
        se=se,
        sp=sp,
        j=se - fpr,
        j_inf=j_inf,
        pi=pi_value,
        reported=judged_rate(pi=pi_value, se=se, sp=sp),
        bias=gate_bias(pi=pi_value, se=se, sp=sp),
    )


# --------------------------------------------------------------------------- recovery at cap K
def rg_variance(
    *,
    pi: ArrayLike,
    se: ArrayLike,
    sp: ArrayLike,
    n: ArrayLike,
    m1: ArrayLike,
    m0: ArrayLike,
) -> NDArray[np.float64]:
    r"""Finite-sample delta-method variance of Rogan-Gladen at cap K.

    Reference: Below the Reliability Floor, eq. B.1.

    .. math::

        \mathrm{Var}(\hat\pi(K)) \approx \frac{1}{J^2}\left[\frac{R(1-R)}{n}
            + \pi^2\frac{\mathrm{Se}(1-\mathrm{Se})}{m_1}
            + (1-\pi)^2\frac{\mathrm{Sp}(1-\mathrm{Sp})}{m_0}\right]

    with :math:`R = \pi\mathrm{Se} + (1-\pi)(1-\mathrm{Sp})` and :math:`J = \mathrm{Se} +
    \mathrm{Sp} - 1`; ``n`` unlabelled items, ``m1`` compliant and ``m0`` violating
    calibration items (:func:`bayesjudge.estimators.rogan_gladen_variance` at the true
    values). NaN where :math:`J \le 0`.

    Examples
    --------
    >>> print(f"{rg_variance(pi=0.5, se=0.9, sp=0.9, n=1000, m1=100, m0=100):.6f}")
    0.001094
    """
    rate = judged_rate(pi=pi, se=se, sp=sp)
    return rogan_gladen_variance(rate=rate, se=se, sp=sp, n=n, m1=m1, m0=m0)


@dataclass(frozen=True, slots=True, eq=False)
class OptimalCap:
    """The measurement cap K* minimising the Rogan-Gladen variance.

    Reference: Below the Reliability Floor, Prop. 2.

    Attributes
    ----------
    k : int
        The minimising cap K*.
    caps : ndarray of int
        Caps compared.
    variance : ndarray
        Eq. B.1 variance at each cap.
    """

    k: int
    caps: NDArray[np.int64]
    variance: NDArray[np.float64]


def optimal_cap(curve: GateCurve, *, n: int, m1: int, m0: int) -> OptimalCap:
    r"""Return K*, the cap of ``curve`` with the smallest eq. B.1 variance.

    Under Prop. 1 of Below the Reliability Floor (J(K) non-increasing) the :math:`1/J(K)^2` factor
    is smallest at :math:`K = 1`, so :math:`K^* = 1` in that regime.

    Examples
    --------
    >>> c, v = PassRateDistribution(0, 0.9, 20.0), PassRateDistribution(0, 0.5, 20.0)
    >>> optimal_cap(gate_curve(c, v, caps=range(1, 7), pi=0.5), n=500, m1=50, m0=50).k
    1
    """
    variance = rg_variance(pi=curve.pi, se=curve.se, sp=curve.sp, n=n, m1=m1, m0=m0)
    variance = np.where(curve.j > 0, variance, np.inf)
    return OptimalCap(
        k=int(curve.caps[int(np.argmin(variance))]), caps=curve.caps, variance=variance
    )
