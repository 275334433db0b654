r"""Closed forms of retry-until-PASS gates, stopping rules, loop slips and their checks.

A judge rules PASS on item :math:`i` with an item-specific probability :math:`p_i`. A
*retry-until-PASS* gate with cap :math:`K` ships the item iff one of up to :math:`K`
independent rulings passes (seed 000, eq. 1):

.. math:: s_i(K) = 1 - (1 - p_i)^K.

Grouping items by their true label gives the gate's class-conditional ship rates, so the gate
is a binary classifier with sensitivity, specificity and Youden index (seed 000, eqs. 2-5)

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
   Loops" (seed 000), sections 2-5 and appendix A.
.. [2] W. J. Rogan and B. Gladen, "Estimating prevalence from the results of a screening
   test", Am. J. Epidemiol. 107(1), 1978.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats
from scipy.special import betaln

from bayesjudge.baselines import rogan_gladen_map
from bayesjudge.data import LoopLog, TableLike, parse_binary, read_table
from bayesjudge.errors import DataError
from bayesjudge.results import Estimate, Interval
from bayesjudge.simulate import rng_from

__all__ = [
    "STOPPING_RULES",
    "GateCells",
    "GateCurve",
    "IndependenceCheck",
    "LoopReplay",
    "OptimalCap",
    "PPVCorrection",
    "PassRateDistribution",
    "SlipLaw",
    "SlipParameters",
    "TransferCheck",
    "beta_tail_moment",
    "cap_scores",
    "empirical_gate_curve",
    "gate_bias",
    "gate_cells",
    "gate_curve",
    "independence_check",
    "independence_check_table",
    "optimal_cap",
    "ppv_correction",
    "reliability_floor",
    "replay_loop",
    "reported_rate",
    "rg_variance",
    "rogan_gladen_at_cap",
    "rule_pass_probability",
    "rule_threshold",
    "ship_probability",
    "slip_law",
    "slip_parameters",
    "stopping_rules",
    "transfer_check",
]

Rule = Literal["any", "majority", "unanimous", "at_least"]
#: The stopping rules of seed 000, section 3, ordered from most to least pass-prone.
STOPPING_RULES: tuple[str, ...] = ("any", "majority", "unanimous")


# --------------------------------------------------------------------------- argument checks
def _caps(caps: ArrayLike) -> NDArray[np.int64]:
    arr = np.asarray(caps)
    if arr.ndim > 1 or arr.size == 0:
        raise ValueError(f"caps must be a whole number or a 1-D sequence of them; got {caps!r}")
    flat = np.atleast_1d(arr)
    if (
        not np.issubdtype(flat.dtype, np.number)
        or np.any(flat != np.round(flat))
        or np.any(flat < 1)
    ):
        raise ValueError(f"caps must be whole numbers >= 1; got {caps!r}")
    return flat.astype(np.int64)


def _unit(name: str, value: ArrayLike) -> NDArray[np.float64]:
    arr = np.asarray(value, dtype=float)
    if np.any((arr < 0.0) | (arr > 1.0)):
        raise ValueError(f"{name} must lie in [0, 1]; got {value!r}")
    return arr


def _check_prob(prob: float) -> float:
    if not 0.0 < float(prob) < 1.0:
        raise ValueError(f"prob must lie in (0, 1); got {prob!r}")
    return float(prob)


def _z(prob: float) -> float:
    return float(stats.norm.ppf(0.5 + prob / 2.0))


# --------------------------------------------------------------------------- ship probability
def ship_probability(p: ArrayLike, caps: ArrayLike) -> NDArray[np.float64]:
    r"""Probability that a retry-until-PASS gate with cap :math:`K` ships an item.

    .. math:: s(p, K) = 1 - (1 - p)^K \qquad \text{(seed 000, eq. 1)}

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
    p_arr = _unit("p", p)
    k = _caps(caps)
    out = 1.0 - (1.0 - p_arr[..., None]) ** k
    return out[..., 0] if np.ndim(caps) == 0 else out


def beta_tail_moment(a: ArrayLike, b: ArrayLike, caps: ArrayLike) -> NDArray[np.float64]:
    r"""Return the moment :math:`E[(1-p)^K]` of :math:`p \sim \mathrm{Beta}(a, b)`.

    .. math:: E[(1-p)^K] = \frac{B(a, b + K)}{B(a, b)},

    computed on the log scale with :func:`scipy.special.betaln`. It is the probability that
    :math:`K` independent rulings all fail, so :math:`1 - B(a, b+K)/B(a, b)` is the ship rate
    of a Beta class at cap :math:`K` (seed 000, eqs. 1-2).

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
    k = _caps(caps)
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
        k = _caps(caps)
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


def reported_rate(pi: ArrayLike, se: ArrayLike, sp: ArrayLike) -> NDArray[np.float64]:
    r"""Return the reported (gated) rate :math:`R = \pi\mathrm{Se} + (1-\pi)(1-\mathrm{Sp})`.

    Seed 000, eq. 3; broadcasts its arguments.

    Examples
    --------
    >>> print(f"{reported_rate(0.5, 0.969, 1 - 0.733):.3f}")
    0.851
    """
    pi_arr = np.asarray(pi, dtype=float)
    return np.asarray(
        pi_arr * np.asarray(se, dtype=float) + (1.0 - pi_arr) * (1.0 - np.asarray(sp, dtype=float)),
        dtype=float,
    )


def gate_bias(pi: ArrayLike, se: ArrayLike, sp: ArrayLike) -> NDArray[np.float64]:
    r"""Bias of the reported rate, :math:`R - \pi = (1-\pi)(1-\mathrm{Sp}) - \pi(1-\mathrm{Se})`.

    Seed 000, section 2. Table 4's first row (Se 0.969, leak 0.733, pi 0.5) gives +0.351.

    Examples
    --------
    >>> print(f"{gate_bias(0.5, 0.969, 1 - 0.733):+.3f}")
    +0.351
    """
    return np.asarray(reported_rate(pi, se, sp) - np.asarray(pi, dtype=float), dtype=float)


def reliability_floor(omega_compliant: ArrayLike, omega_violation: ArrayLike) -> Any:
    r"""Return the reliability floor :math:`J(\infty) = \omega_0 - \omega_1` of two classes.

    :math:`J(\infty) = P(p>0 \mid \text{comp}) - P(p>0 \mid \text{viol})` (seed 000, eq. 5);
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
    module docstring (seed 000, eqs. 2-5).

    Examples
    --------
    >>> c = PassRateDistribution(0.0, 0.9, 20.0)
    >>> v = PassRateDistribution(0.0, 0.5, 20.0)
    >>> curve = gate_curve(c, v, caps=[1, 5], pi=0.5)
    >>> curve.j.round(3).tolist()
    [0.4, 0.047]
    """
    k = _caps(caps)
    _unit("pi", pi)
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
        reported=reported_rate(pi, se, sp),
        bias=gate_bias(pi, se, sp),
    )


def empirical_gate_curve(
    p: ArrayLike, label: ArrayLike, *, caps: ArrayLike, pi: float | None = None
) -> GateCurve:
    r"""Gate characteristics from known per-item pass probabilities and labels.

    :math:`\mathrm{Se}(K)` and :math:`1 - \mathrm{Sp}(K)` are the class means of
    :math:`s_i(K) = 1 - (1-p_i)^K`, :math:`J(\infty)` the difference of the class shares with
    :math:`p_i > 0` (seed 000, eqs. 2-5); ``pi`` defaults to the share of compliant items.

    Examples
    --------
    >>> curve = empirical_gate_curve([0.9, 0.6, 0.0, 0.3], [1, 1, 0, 0], caps=[1, 2])
    >>> curve.j.round(3).tolist()
    [0.6, 0.66]
    """
    p_arr = _unit("p", p)
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
    k = _caps(caps)
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
        reported=reported_rate(pi_value, se, sp),
        bias=gate_bias(pi_value, se, sp),
    )


# --------------------------------------------------------------------------- recovery at cap K
def rogan_gladen_at_cap(reported: ArrayLike, se: ArrayLike, sp: ArrayLike) -> NDArray[np.float64]:
    r"""Rogan-Gladen recovery of :math:`\pi` from the reported rate at cap K (unclipped).

    .. math:: \hat\pi(K) = \frac{R(K) - (1 - \mathrm{Sp}(K))}{J(K)} \qquad \text{(seed 000, eq. 6)}

    NaN where :math:`J(K) \le 0`. Uses :func:`bayesjudge.baselines.rogan_gladen_map`.

    Examples
    --------
    >>> print(f"{rogan_gladen_at_cap(0.851, 0.969, 0.267):.3f}")
    0.500
    """
    return rogan_gladen_map(reported, sp, se)


def rg_variance(
    pi: ArrayLike,
    se: ArrayLike,
    sp: ArrayLike,
    *,
    n: ArrayLike,
    m1: ArrayLike,
    m0: ArrayLike,
) -> NDArray[np.float64]:
    r"""Finite-sample delta-method variance of Rogan-Gladen at cap K (seed 000, eq. B.1).

    .. math::

        \mathrm{Var}(\hat\pi(K)) \approx \frac{1}{J^2}\left[\frac{R(1-R)}{n}
            + \pi^2\frac{\mathrm{Se}(1-\mathrm{Se})}{m_1}
            + (1-\pi)^2\frac{\mathrm{Sp}(1-\mathrm{Sp})}{m_0}\right]

    with :math:`R = \pi\mathrm{Se} + (1-\pi)(1-\mathrm{Sp})` and :math:`J = \mathrm{Se} +
    \mathrm{Sp} - 1`; ``n`` unlabelled items, ``m1`` compliant and ``m0`` violating
    calibration items. Infinite where :math:`J = 0`.

    Examples
    --------
    >>> print(f"{rg_variance(0.5, 0.9, 0.9, n=1000, m1=100, m0=100):.6f}")
    0.001094
    """
    pi_arr = np.asarray(pi, dtype=float)
    se_arr, sp_arr = np.asarray(se, dtype=float), np.asarray(sp, dtype=float)
    r = reported_rate(pi_arr, se_arr, sp_arr)
    j = se_arr + sp_arr - 1.0
    numerator = (
        r * (1.0 - r) / np.asarray(n, dtype=float)
        + pi_arr**2 * se_arr * (1.0 - se_arr) / np.asarray(m1, dtype=float)
        + (1.0 - pi_arr) ** 2 * sp_arr * (1.0 - sp_arr) / np.asarray(m0, dtype=float)
    )
    with np.errstate(divide="ignore"):
        return np.asarray(numerator / j**2, dtype=float)


@dataclass(frozen=True, slots=True, eq=False)
class OptimalCap:
    """The measurement cap K* minimising the Rogan-Gladen variance (seed 000, Prop. 2).

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

    Under Prop. 1 of seed 000 (J(K) non-increasing) the :math:`1/J(K)^2` factor is smallest at
    :math:`K = 1`, so :math:`K^* = 1` in that regime.

    Examples
    --------
    >>> c, v = PassRateDistribution(0, 0.9, 20.0), PassRateDistribution(0, 0.5, 20.0)
    >>> optimal_cap(gate_curve(c, v, caps=range(1, 7), pi=0.5), n=500, m1=50, m0=50).k
    1
    """
    variance = rg_variance(curve.pi, curve.se, curve.sp, n=n, m1=m1, m0=m0)
    variance = np.where(curve.j > 0, variance, np.inf)
    return OptimalCap(
        k=int(curve.caps[int(np.argmin(variance))]), caps=curve.caps, variance=variance
    )


# --------------------------------------------------------------------------- stopping rules
def rule_threshold(
    caps: ArrayLike, *, rule: Rule = "any", t: int | None = None
) -> NDArray[np.int64]:
    r"""Return the number of passes out of K rulings a stopping rule needs to ship.

    ``"any"`` (retry-until-PASS): 1; ``"majority"``: :math:`\lfloor K/2 \rfloor + 1`;
    ``"unanimous"``: :math:`K`; ``"at_least"``: ``t`` (seed 000, section 3).

    Examples
    --------
    >>> rule_threshold([1, 4, 5], rule="majority").tolist()
    [1, 3, 3]
    """
    if rule not in get_args(Rule):
        raise ValueError(f"rule must be one of {list(get_args(Rule))}; got {rule!r}")
    k = _caps(caps)
    if rule == "at_least":
        if t is None or isinstance(t, bool) or int(t) != t or t < 1:
            raise ValueError(f"rule='at_least' needs a whole number t >= 1; got t={t!r}")
        if np.any(t > k):
            raise ValueError(f"t={t} exceeds the cap K={int(k.min())}: the rule can never ship")
        return np.full(k.shape, int(t), dtype=np.int64)
    if t is not None:
        raise ValueError(f"t is only used with rule='at_least'; got rule={rule!r}, t={t!r}")
    if rule == "any":
        return np.ones_like(k)
    if rule == "majority":
        return k // 2 + 1
    return k.copy()


def rule_pass_probability(
    p: ArrayLike, caps: ArrayLike, *, rule: Rule = "any", t: int | None = None
) -> NDArray[np.float64]:
    r"""Probability that an item with pass probability p ships under a stopping rule.

    .. math:: P(\mathrm{Bin}(K, p) \ge t)

    with ``t`` from :func:`rule_threshold`; ``rule="any"`` reduces to :func:`ship_probability`.

    Examples
    --------
    >>> print(f"{rule_pass_probability(0.5, 3, rule='majority'):.3f}")
    0.500
    """
    p_arr = _unit("p", p)
    k = _caps(caps)
    thresholds = rule_threshold(k, rule=rule, t=t)
    out = np.asarray(stats.binom.sf(thresholds - 1, k, p_arr[..., None]))
    return np.asarray(out[..., 0] if np.ndim(caps) == 0 else out, dtype=float)


def stopping_rules(
    compliant: PassRateDistribution,
    violation: PassRateDistribution,
    *,
    caps: ArrayLike,
    pi: float,
    t: int | None = None,
) -> pd.DataFrame:
    r"""Se, Sp, J, reported rate and signed bias of each stopping rule at each cap.

    For a rule shipping on at least :math:`t` of :math:`K` passes, the class ship rate is
    :math:`(1-\omega)P(\mathrm{BetaBin}(K, a, b) \ge t)`; any-pass is the most inflationary,
    unanimous the most conservative (seed 000, section 3). With ``t`` given, an
    ``at_least`` row is added (only at caps :math:`K \ge t`).

    Returns
    -------
    DataFrame
        Columns rule, k, t, se, sp, j, reported, bias.

    Examples
    --------
    >>> c, v = PassRateDistribution(0, 0.8, 4.0), PassRateDistribution(0, 0.3, 4.0)
    >>> table = stopping_rules(c, v, caps=[3], pi=0.5)
    >>> table["rule"].tolist(), bool(table["bias"].is_monotonic_decreasing)
    (['any', 'majority', 'unanimous'], True)
    """
    k = _caps(caps)
    _unit("pi", pi)
    rows = []
    rules: list[tuple[Rule, int | None]] = [("any", None), ("majority", None), ("unanimous", None)]
    if t is not None:
        rules.append(("at_least", t))
    for rule, t_rule in rules:
        use = k if t_rule is None else k[k >= t_rule]
        if use.size == 0:
            continue
        se = np.atleast_1d(compliant.rule_rate(use, rule=rule, t=t_rule))
        fpr = np.atleast_1d(violation.rule_rate(use, rule=rule, t=t_rule))
        thresholds = rule_threshold(use, rule=rule, t=t_rule)
        for i, cap in enumerate(use):
            reported = pi * se[i] + (1.0 - pi) * fpr[i]
            rows.append(
                {
                    "rule": rule,
                    "k": int(cap),
                    "t": int(thresholds[i]),
                    "se": float(se[i]),
                    "sp": float(1.0 - fpr[i]),
                    "j": float(se[i] - fpr[i]),
                    "reported": float(reported),
                    "bias": float(reported - pi),
                }
            )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- per-item scores
def cap_scores(
    r: ArrayLike, k: ArrayLike, caps: ArrayLike, *, rule: Rule = "any", t: int | None = None
) -> NDArray[np.float64]:
    r"""Unbiased per-item estimate of the ship probability at cap K from observed rulings.

    An item ruled ``r`` times with ``k`` passes: drawing ``K <= r`` of its rulings without
    replacement and applying the rule gives a hypergeometric tail, which is an unbiased
    estimate of :math:`P(\mathrm{Bin}(K, p) \ge t)` (for ``rule="any"``,
    :math:`\hat s(K) = 1 - \binom{r-k}{K} / \binom{r}{K}`, unbiased for :math:`1-(1-p)^K`).
    At ``K = 1`` it is the fraction of rulings passed, ``k / r``. Where :math:`K > r` the score
    would be an extrapolation and is NaN (seed 000 caps every empirical cap at the number of
    rulings).

    Returns
    -------
    ndarray, shape (n_items, n_caps) (or (n_items,) for a scalar cap)

    Examples
    --------
    >>> cap_scores([4, 4, 2], [1, 0, 1], [1, 2, 3]).round(3).tolist()
    [[0.25, 0.5, 0.75], [0.0, 0.0, 0.0], [0.5, 1.0, nan]]
    """
    r_arr = np.asarray(r, dtype=np.int64)
    k_arr = np.asarray(k, dtype=np.int64)
    caps_arr = _caps(caps)
    thresholds = rule_threshold(caps_arr, rule=rule, t=t)
    big_r, big_k = r_arr[..., None], k_arr[..., None]
    draws = np.minimum(caps_arr, big_r)
    out = stats.hypergeom.sf(thresholds - 1, big_r, big_k, draws)
    out = np.where(caps_arr <= big_r, out, np.nan)
    return np.asarray(out[..., 0] if np.ndim(caps) == 0 else out, dtype=float)


# --------------------------------------------------------------------------- cells
@dataclass(frozen=True, slots=True, eq=False)
class GateCells:
    """Distinct (label, r, k) cells of a rulings table, with how many items share each.

    The likelihood of the gate model depends on an item only through its cell, so each cell
    enters once weighted by ``weight`` (DESIGN.md, family 2).

    Attributes
    ----------
    label : ndarray of int
        1 compliant, 0 violation, -1 unlabelled.
    r, k : ndarray of int
        Rulings and passes.
    weight : ndarray of int
        Number of items in the cell.
    """

    label: NDArray[np.int64]
    r: NDArray[np.int64]
    k: NDArray[np.int64]
    weight: NDArray[np.int64]

    @property
    def n_unlabelled(self) -> int:
        """Number of unlabelled items."""
        return int(self.weight[self.label < 0].sum())

    @property
    def n_labelled(self) -> tuple[int, int]:
        """Numbers of labelled (violation, compliant) items."""
        return int(self.weight[self.label == 0].sum()), int(self.weight[self.label == 1].sum())

    def __len__(self) -> int:
        return int(self.label.size)


def gate_cells(label: ArrayLike, r: ArrayLike, k: ArrayLike) -> GateCells:
    """Collapse per-item (label, r, k) to distinct cells with multiplicities.

    ``label`` holds 1.0, 0.0 or NaN (unlabelled), as in :class:`bayesjudge.data.Rulings`.

    Examples
    --------
    >>> cells = gate_cells([1, 1, np.nan, np.nan, 0], [3, 3, 3, 3, 3], [3, 3, 0, 0, 1])
    >>> cells.weight.tolist(), cells.n_unlabelled
    ([2, 1, 2], 2)
    """
    y = np.asarray(label, dtype=float)
    coded = np.where(np.isnan(y), -1, y).astype(np.int64)
    stack = np.column_stack([coded, np.asarray(r, dtype=np.int64), np.asarray(k, dtype=np.int64)])
    unique, counts = np.unique(stack, axis=0, return_counts=True)
    order = np.lexsort((unique[:, 2], unique[:, 1], -unique[:, 0]))
    unique, counts = unique[order], counts[order]
    return GateCells(
        label=unique[:, 0], r=unique[:, 1], k=unique[:, 2], weight=counts.astype(np.int64)
    )


# --------------------------------------------------------------------------- slip law
@dataclass(frozen=True, slots=True, eq=False)
class SlipLaw:
    r"""The slip-law forward model of a revise-then-rejudge loop at each cap (seed 000, 5.1).

    Attributes
    ----------
    caps : ndarray of int
    rho : float
        Per-attempt pass probability :math:`\rho = a s + (1 - a)\ell`.
    reported : ndarray
        :math:`1 - (1 - \rho)^K`.
    slip : ndarray
        :math:`\text{reported}(K)\,(1 - a)\ell / \rho` (shipped but wrong).
    delivered : ndarray
        :math:`\text{reported}(K)\,a s / \rho` (shipped and correct).
    """

    caps: NDArray[np.int64]
    rho: float
    reported: NDArray[np.float64]
    slip: NDArray[np.float64]
    delivered: NDArray[np.float64]

    def to_frame(self) -> pd.DataFrame:
        """Return one row per cap: k, reported, delivered, slip."""
        return pd.DataFrame(
            {
                "k": self.caps,
                "reported": self.reported,
                "delivered": self.delivered,
                "slip": self.slip,
            }
        )


def slip_law(a: float, s: float, leak: float, *, caps: ArrayLike) -> SlipLaw:
    r"""Forward model of the slip of a revise-then-rejudge loop (seed 000, section 5.1).

    Each attempt is independently correct with rate ``a``; the judge passes a correct attempt
    with probability ``s`` and a wrong one with the leak ``leak``, so an attempt passes with
    :math:`\rho = a s + (1-a)\ell`,

    .. math::

        \text{reported}(K) = 1 - (1 - \rho)^K, \quad
        \text{slip}(K) = \text{reported}(K)\,\frac{(1-a)\ell}{\rho}.

    Examples
    --------
    >>> law = slip_law(0.3, 0.9, 0.5, caps=[1, 5])
    >>> law.reported.round(3).tolist(), law.slip.round(3).tolist()
    ([0.62, 0.992], [0.35, 0.56])
    """
    for name, value in {"a": a, "s": s, "leak": leak}.items():
        _unit(name, value)
    k = _caps(caps)
    rho = a * s + (1.0 - a) * leak
    reported = np.asarray(1.0 - (1.0 - rho) ** k, dtype=float)
    slip = np.asarray(
        reported * (1.0 - a) * leak / rho if rho > 0 else np.zeros_like(reported), dtype=float
    )
    return SlipLaw(caps=k, rho=float(rho), reported=reported, slip=slip, delivered=reported - slip)


@dataclass(frozen=True, slots=True)
class SlipParameters:
    """Per-attempt loop statistics (a, s, leak) estimated from loop logs.

    Attributes
    ----------
    a : float
        Share of attempts that are correct.
    s : float
        Judge pass rate on correct attempts.
    leak : float
        Judge pass rate on wrong attempts.
    n_attempts : int
        Attempts used.
    """

    a: float
    s: float
    leak: float
    n_attempts: int

    def law(self, caps: ArrayLike) -> SlipLaw:
        """Return :func:`slip_law` at these parameters."""
        return slip_law(self.a, self.s, self.leak, caps=caps)


def slip_parameters(log: LoopLog) -> SlipParameters:
    r"""Estimate the slip law's (a, s, leak) from a loop's own attempt logs (seed 000, 5.1).

    :math:`\hat a` is the share of attempts that are correct, :math:`\hat s` the share of
    correct attempts the judge passed and :math:`\hat\ell` the share of wrong attempts it
    passed.

    Raises
    ------
    DataError
        If the logs have no correct or no wrong attempt (s or leak is then undefined).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesjudge.data import LoopLog
    >>> log = LoopLog.from_frame(pd.DataFrame({"item": [1, 1, 2], "attempt": [1, 2, 1],
    ...                                        "verdict": [0, 1, 1], "correct": [0, 1, 0]}))
    >>> slip_parameters(log)
    SlipParameters(a=0.3333333333333333, s=1.0, leak=0.5, n_attempts=3)
    """
    correct = log.correct == 1.0
    if not correct.any():
        raise DataError(
            "loop log: no attempt is correct, so the judge's sensitivity s is undefined"
        )
    if correct.all():
        raise DataError("loop log: every attempt is correct, so the judge's leak is undefined")
    return SlipParameters(
        a=float(correct.mean()),
        s=float(log.verdict[correct].mean()),
        leak=float(log.verdict[~correct].mean()),
        n_attempts=int(correct.size),
    )


@dataclass(frozen=True, slots=True, eq=False)
class LoopReplay:
    """What a loop would have reported and delivered at each cap, replayed from its logs.

    Attributes
    ----------
    caps : ndarray of int
    reported : ndarray
        Share of items shipped (a PASS within the first K attempts).
    delivered : ndarray
        Share of items shipped with a correct attempt (true delivered success).
    slip : ndarray
        ``reported - delivered``.
    ppv : ndarray
        ``delivered / reported`` (NaN where nothing shipped).
    n_items : int
    """

    caps: NDArray[np.int64]
    reported: NDArray[np.float64]
    delivered: NDArray[np.float64]
    slip: NDArray[np.float64]
    ppv: NDArray[np.float64]
    n_items: int

    def to_frame(self) -> pd.DataFrame:
        """Return one row per cap: k, reported, delivered, slip, ppv."""
        return pd.DataFrame(
            {
                "k": self.caps,
                "reported": self.reported,
                "delivered": self.delivered,
                "slip": self.slip,
                "ppv": self.ppv,
            }
        )


def _shipped(log: LoopLog, caps: NDArray[np.int64]) -> tuple[NDArray[Any], NDArray[Any]]:
    """Per item and cap: shipped within K, and shipped with a correct attempt."""
    codes, _ = pd.factorize(log.item, sort=False)
    n_items = int(codes.max()) + 1
    passed = log.verdict == 1.0
    big = np.iinfo(np.int64).max
    first = np.full(n_items, big, dtype=np.int64)
    np.minimum.at(first, codes[passed], log.attempt[passed])
    # correctness of each item's first passing attempt
    first_row = passed & (log.attempt == first[codes])
    first_correct = np.zeros(n_items, dtype=bool)
    first_correct[codes[first_row]] = log.correct[first_row] == 1.0
    shipped = first[:, None] <= caps[None, :]
    return shipped, shipped & first_correct[:, None]


def replay_loop(log: LoopLog, *, caps: ArrayLike) -> LoopReplay:
    """Replay a loop's logs at each cap K: reported, delivered, slip and PPV.

    An item ships at its first PASS; with cap K it ships iff that PASS came within the first K
    attempts. An item whose log ends without a PASS is not shipped.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesjudge.data import LoopLog
    >>> log = LoopLog.from_frame(pd.DataFrame({"item": [1, 1, 2], "attempt": [1, 2, 1],
    ...                                        "verdict": [0, 1, 1], "correct": [0, 0, 1]}))
    >>> replay_loop(log, caps=[1, 2]).to_frame()[["reported", "delivered"]].values.tolist()
    [[0.5, 0.5], [1.0, 0.5]]
    """
    k = _caps(caps)
    shipped, good = _shipped(log, k)
    reported = shipped.mean(axis=0)
    delivered = good.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ppv = np.where(reported > 0, delivered / reported, np.nan)
    return LoopReplay(
        caps=k,
        reported=reported,
        delivered=delivered,
        slip=reported - delivered,
        ppv=ppv,
        n_items=int(shipped.shape[0]),
    )


@dataclass(frozen=True, slots=True)
class PPVCorrection:
    """PPV correction of a loop's reported rate on evaluation items (seed 000, section 5.1).

    Attributes
    ----------
    k : int
        The cap.
    reported : float
        Reported (shipped) rate on the evaluation items.
    ppv : float
        Precision of the gate, P(correct | shipped), on the calibration items.
    corrected : Estimate
        ``reported x ppv`` with a delta-method interval (method ``"ppv_corrected"``).
    n_calibration, n_evaluation : int
        Items in each part.
    """

    k: int
    reported: float
    ppv: float
    corrected: Estimate
    n_calibration: int
    n_evaluation: int


def ppv_correction(
    log: LoopLog,
    *,
    k: int,
    calibration: ArrayLike | None = None,
    calibration_fraction: float = 0.5,
    prob: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
) -> PPVCorrection:
    r"""Correct a loop's reported rate by the gate's PPV from a calibration subset.

    A ship-on-PASS loop delivers :math:`\text{reported} \times \mathrm{PPV}` truly correct items,
    :math:`\mathrm{PPV} = P(\text{correct} \mid \text{shipped})` (seed 000, section 5.1). PPV is
    estimated on the calibration items' shipped items and applied to the evaluation items'
    reported rate :math:`\hat R`; delta-method standard error (independent parts)

    .. math:: \mathrm{se}^2 = \widehat{\mathrm{PPV}}^2\frac{\hat R(1-\hat R)}{n_{eval}}
        + \hat R^2\,\frac{\widehat{\mathrm{PPV}}(1-\widehat{\mathrm{PPV}})}{n_{shipped,cal}}.

    Parameters
    ----------
    log : LoopLog
        Loop logs with correctness of every attempt.
    k : int
        The cap.
    calibration : array_like of str, optional
        Item identifiers whose correctness is used; by default a random
        ``calibration_fraction`` of the items (seeded by ``random_seed``).
    calibration_fraction : float
        Share of items drawn for calibration when ``calibration`` is not given.
    prob : float
        Interval mass.
    random_seed : int, Generator or None
        Seed of the calibration draw.

    Raises
    ------
    DataError
        If the calibration or evaluation part is empty, or no calibration item shipped.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesjudge.data import LoopLog
    >>> log = LoopLog.from_frame(pd.DataFrame({"item": [1, 2, 3, 4], "attempt": [1, 1, 1, 1],
    ...                                        "verdict": [1, 1, 1, 0], "correct": [1, 0, 1, 0]}))
    >>> out = ppv_correction(log, k=1, calibration=["1", "2"])
    >>> out.ppv, out.reported, out.corrected.estimate
    (0.5, 0.5, 0.25)
    """
    prob = _check_prob(prob)
    cap = int(_caps(k)[0])
    items = np.unique(log.item)
    if calibration is None:
        if not 0.0 < calibration_fraction < 1.0:
            raise ValueError(
                f"calibration_fraction must lie in (0, 1); got {calibration_fraction!r}"
            )
        rng = rng_from(random_seed)
        size = round(calibration_fraction * items.size)
        cal_items = rng.choice(items, size=size, replace=False)
    else:
        cal_items = np.asarray(calibration, dtype=str)
        unknown = np.setdiff1d(cal_items, items)
        if unknown.size:
            raise DataError(f"calibration items {unknown[:5].tolist()} are not in the loop log")
    in_cal = np.isin(log.item, cal_items)
    if in_cal.all() or not in_cal.any():
        raise DataError(
            "ppv_correction needs both calibration and evaluation items; got "
            f"{np.unique(log.item[in_cal]).size} calibration and "
            f"{np.unique(log.item[~in_cal]).size} evaluation items"
        )
    cal = _subset(log, in_cal)
    ev = _subset(log, ~in_cal)
    shipped_c, good_c = _shipped(cal, np.array([cap]))
    shipped_e, _ = _shipped(ev, np.array([cap]))
    n_ship = int(shipped_c.sum())
    if n_ship == 0:
        raise DataError(f"no calibration item shipped within K={cap}, so PPV is undefined")
    ppv = float(good_c.sum() / n_ship)
    reported = float(shipped_e.mean())
    n_eval = int(shipped_e.shape[0])
    estimate = reported * ppv
    se = float(
        np.sqrt(
            ppv**2 * reported * (1 - reported) / n_eval + reported**2 * ppv * (1 - ppv) / n_ship
        )
    )
    z = _z(prob)
    corrected = Estimate(
        "ppv_corrected",
        estimate,
        Interval(max(estimate - z * se, 0.0), min(estimate + z * se, 1.0), prob, "delta"),
        se=se,
        notes=(f"K={cap}; PPV from {n_ship} shipped calibration items",),
    )
    return PPVCorrection(
        k=cap,
        reported=reported,
        ppv=ppv,
        corrected=corrected,
        n_calibration=int(shipped_c.shape[0]),
        n_evaluation=n_eval,
    )


def _subset(log: LoopLog, mask: NDArray[np.bool_]) -> LoopLog:
    return LoopLog(
        item=log.item[mask],
        attempt=log.attempt[mask],
        verdict=log.verdict[mask],
        correct=log.correct[mask],
    )


# --------------------------------------------------------------------------- transfer check
@dataclass(frozen=True, slots=True)
class TransferCheck:
    """Label-free check that calibration transfers: the gated-rate shift ``abs(R_cal - R_eval)``.

    Attributes
    ----------
    r_cal, r_eval : float
        Reported (gated) rates on the calibration and evaluation items.
    shift : float
        ``abs(r_cal - r_eval)``.
    threshold : float
        The shift above which the correction is not trusted.
    transfers : bool
        Whether ``shift <= threshold``.
    verdict : str
        A one-line reading.
    """

    r_cal: float
    r_eval: float
    shift: float
    threshold: float
    transfers: bool
    verdict: str

    def to_dict(self) -> dict[str, object]:
        """Return the check as plain values."""
        return asdict(self)


def transfer_check(r_cal: float, r_eval: float, *, threshold: float = 0.05) -> TransferCheck:
    r"""Label-free transfer check :math:`|R_{cal} - R_{eval}| \le` ``threshold``.

    Seed 000, section 4: the observed gated-rate shift between the calibration and the
    evaluation items predicts whether a correction will beat the naive rate (ROC-AUC 0.80 over
    76 transfers); trusting the correction only when the shift is below 0.05 gave precision
    0.94 there. The 0.05 default is that paper's in-sample, illustrative operating point.

    Examples
    --------
    >>> transfer_check(0.82, 0.90).verdict
    'shift 0.080 > 0.05: calibration may not transfer; report the raw rate or re-calibrate'
    """
    _unit("r_cal", r_cal)
    _unit("r_eval", r_eval)
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must lie in (0, 1); got {threshold!r}")
    shift = abs(float(r_cal) - float(r_eval))
    ok = shift <= threshold
    verdict = (
        f"shift {shift:.3f} <= {threshold:g}: calibration transfers; the correction can be trusted"
        if ok
        else f"shift {shift:.3f} > {threshold:g}: calibration may not transfer; report the raw "
        "rate or re-calibrate"
    )
    return TransferCheck(float(r_cal), float(r_eval), shift, float(threshold), ok, verdict)


# --------------------------------------------------------------------------- independence
@dataclass(frozen=True, slots=True)
class IndependenceCheck:
    """Lag-1 same-verdict check of the independence of repeated rulings (seed 000, section 2).

    Attributes
    ----------
    observed : float
        Share of consecutive ruling pairs of an item with the same verdict.
    expected : float
        Its expectation under independent rulings with a fixed per-item pass rate.
    difference : float
        ``observed - expected``.
    p_value : float
        Two-sided permutation p-value (rulings shuffled within items).
    n_pairs, n_items : int
        Consecutive pairs and items with at least two rulings.
    flippy : float
        Share of those items with both verdicts (0 < p_i < 1).
    consistent : bool
        Whether ``p_value >= 0.05`` (no detectable serial correlation).
    """

    observed: float
    expected: float
    difference: float
    p_value: float
    n_pairs: int
    n_items: int
    flippy: float
    consistent: bool

    def to_dict(self) -> dict[str, object]:
        """Return the check as plain values (the ``independence_check`` JSON object)."""
        return asdict(self)


def independence_check(
    item: ArrayLike,
    verdict: ArrayLike,
    *,
    n_permutations: int = 500,
    random_seed: int | np.random.Generator | None = None,
) -> IndependenceCheck:
    r"""Compare the lag-1 same-verdict rate of repeated rulings with independence.

    Under independent rulings with per-item rate :math:`p_i`, a consecutive pair agrees with
    probability :math:`p_i^2 + (1-p_i)^2` (seed 000, section 2). The plug-in
    :math:`\hat p_i = k_i/r_i` overstates this by :math:`2p_i(1-p_i)/r_i`, so the expectation
    here is the exact one given each item's counts (the rulings are then exchangeable):

    .. math:: E[\text{same pairs}_i] = (r_i - 1)\,
        \frac{k_i(k_i-1) + (r_i-k_i)(r_i-k_i-1)}{r_i(r_i-1)}.

    The p-value shuffles each item's rulings ``n_permutations`` times (vectorised, in chunks).

    Parameters
    ----------
    item, verdict : array_like
        One entry per ruling, in ruling order within each item (items may interleave).
    n_permutations : int
        Permutations of the p-value.
    random_seed : int, Generator or None
        Seed of the permutations.

    Raises
    ------
    DataError
        If no item has two rulings.

    Examples
    --------
    >>> check = independence_check(["a"] * 4 + ["b"] * 4, [1, 1, 0, 0, 0, 1, 0, 1],
    ...                            random_seed=0)
    >>> check.observed, round(check.expected, 3)
    (0.3333333333333333, 0.333)
    """
    items = np.asarray(item)
    v = np.asarray(verdict, dtype=float)
    if items.shape != v.shape or v.ndim != 1:
        raise ValueError("item and verdict must be 1-D of the same length")
    if isinstance(n_permutations, bool) or int(n_permutations) < 1:
        raise ValueError(f"n_permutations must be a positive whole number; got {n_permutations!r}")
    codes, _ = pd.factorize(items, sort=False)
    order = np.argsort(codes, kind="stable")
    codes, v = codes[order], v[order]
    r = np.bincount(codes)
    k = np.bincount(codes, weights=v)
    multi = r >= 2
    if not multi.any():
        raise DataError("the independence check needs items with at least two rulings; none has")
    same_pair = codes[1:] == codes[:-1]
    n_pairs = int(same_pair.sum())
    observed = float(np.mean(v[1:][same_pair] == v[:-1][same_pair]))
    rm, km = r[multi].astype(float), k[multi]
    expected_pairs = (km * (km - 1) + (rm - km) * (rm - km - 1)) / rm
    expected = float(expected_pairs.sum() / n_pairs)
    rng = rng_from(random_seed)
    deviation = abs(observed - expected)
    extreme = 0
    chunk = max(1, min(int(n_permutations), 5_000_000 // max(v.size, 1)))
    done = 0
    while done < n_permutations:
        size = min(chunk, int(n_permutations) - done)
        keys = rng.random((size, v.size)) + codes[None, :]
        shuffled = np.take_along_axis(np.broadcast_to(v, keys.shape), np.argsort(keys, axis=1), 1)
        same = (shuffled[:, 1:] == shuffled[:, :-1])[:, same_pair].mean(axis=1)
        extreme += int(np.sum(np.abs(same - expected) >= deviation - 1e-12))
        done += size
    p_value = (1 + extreme) / (1 + int(n_permutations))
    flippy = float(np.mean((k[multi] > 0) & (k[multi] < r[multi])))
    return IndependenceCheck(
        observed=observed,
        expected=expected,
        difference=observed - expected,
        p_value=float(p_value),
        n_pairs=n_pairs,
        n_items=int(multi.sum()),
        flippy=flippy,
        consistent=bool(p_value >= 0.05),
    )


def independence_check_table(
    table: TableLike,
    *,
    n_permutations: int = 500,
    random_seed: int | np.random.Generator | None = None,
) -> IndependenceCheck:
    """Run :func:`independence_check` on a long rulings table (``item``, ``verdict``[, ``ruling``]).

    Rulings are ordered by the ``ruling`` column when there is one, else by row order.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"item": ["a", "a", "a"], "ruling": [3, 1, 2], "verdict": [1, 0, 0]})
    >>> independence_check_table(t, random_seed=0).observed
    0.5
    """
    frame = read_table(table, argument="rulings")
    for column in ("item", "verdict"):
        if column not in frame.columns:
            raise DataError(
                f"rulings: missing required column {column!r}; the table has {list(frame.columns)}"
            )
    if "ruling" in frame.columns:
        frame = frame.sort_values("ruling", kind="stable")
    verdict = parse_binary(frame["verdict"], column="verdict", frame=frame)
    return independence_check(
        frame["item"].astype(str).str.strip().to_numpy(),
        verdict,
        n_permutations=n_permutations,
        random_seed=random_seed,
    )
