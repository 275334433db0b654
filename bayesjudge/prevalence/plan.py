r"""How many more gold labels: the expected width of :math:`\pi`'s interval after more labels.

A calibration set of gold labels pins down the judge's sensitivity and specificity; more labels
narrow the posterior of the true success rate :math:`\pi`, up to a floor set by the test items
themselves. :func:`plan_labels` answers the planning question *how many more gold-PASS and
gold-FAIL items must be labelled for the interval of* :math:`\pi` *to shrink to a target width*
by preposterior simulation on the exact posterior of :mod:`bayesjudge.prevalence.exact`.

Method
------
With the current counts :math:`(m_1, x_1, m_0, x_0, n, k)` and :math:`m` more gold labels,
:math:`m_1^+` on gold-PASS and :math:`m_0^+ = m - m_1^+` on gold-FAIL items, the expected width
of the equal-tailed interval of mass ``prob`` after labelling them is

.. math::

    \bar W(m) = E\left[W(x_1 + X_1, m_1 + m_1^+, x_0 + X_0, m_0 + m_0^+, n, k)\right],
    \quad X_1 \sim \mathrm{Bin}(m_1^+, S_e),\ X_0 \sim \mathrm{Bin}(m_0^+, 1 - S_p),

where :math:`(\pi, S_e, S_p)` follow their current posterior and :math:`W` is the width of the
exact posterior interval of :math:`\pi` refitted on the augmented counts (the test set stays as
it is). Three pieces:

1. **Posterior draws.** :math:`(S_e, S_p)` are drawn from their calibration-only Beta
   posteriors and the judged rate :math:`R` from :math:`\mathrm{Beta}(k+1, n-k+1)`, which is
   proportional to the test likelihood :math:`R^k(1-R)^{n-k}`; then
   :math:`\pi = (R - 1 + S_p)/J`. The change of variable from :math:`R` to :math:`\pi` has
   Jacobian :math:`J`, so each draw has importance weight :math:`f_\pi(\pi)/J` on
   :math:`\{J > 0,\ 0 < \pi < 1\}` (0 elsewhere), with :math:`f_\pi` the prior density of
   :math:`\pi`: the weighted draws follow the exact joint posterior under the prior restricted
   to :math:`J > 0`.
2. **Split of the labels.** The extra labels are split by the exact ratio of Lee et al. (2025)
   (:func:`~bayesjudge.prevalence.allocation.optimal_ratio`, the length-minimising split of
   eq. 6 before the Prop. 5.2 approximation) at the judged rate :math:`k/n` and the smoothed
   current estimates :math:`\tilde q_1 = (x_1 + 1)/(m_1 + 2)`,
   :math:`\tilde q_0 = (m_0 - x_0 + 1)/(m_0 + 2)` (Algorithm 1's smoothing, with the current
   calibration set as the pilot). The *totals* after labelling are brought as close to that
   ratio as the labels already held allow: the continuous optimum of
   :math:`r^2/(M_0 + 2) + 1/(M_1 + 2)` over :math:`M_0 + M_1 = m_0 + m_1 + m`,
   :math:`M_c \ge m_c`, rounded to the better neighbouring whole number.
3. **A control variate.** Each of ``draws`` replicates is refitted exactly; the
   Lang-Reiczigel interval of Lee et al. (2025), eqs. 6-8
   (:func:`~bayesjudge.estimators.rogan_gladen.lang_reiczigel_interval`), costs microseconds
   and its width :math:`V` tracks :math:`W` closely (on the bundled example after 500 more
   labels their correlation across replicates is 0.999997 and :math:`\mathrm{sd}(W - V)` is
   2.3% of :math:`\mathrm{sd}(W)`; ``benchmarks/bench_plan.py``), so

   .. math::

       \hat W(m) = \hat E[V] + \frac{1}{R}\sum_{i=1}^{R} (W_i - V_i),

   with :math:`\hat E[V]` the importance-weighted mean of :math:`V` over a pool of 20,000
   simulated datasets. Its Monte Carlo standard error is
   :math:`\sqrt{\widehat{\mathrm{Var}}(\hat E[V]) + s^2_{W - V}/R}`. The estimator is unbiased
   whatever the correlation; a weak correlation only shows as a larger Monte Carlo error.

The refits use the exact posterior with ``grid_size=129`` and ``nodes=24`` instead of the
defaults (513 and 48), a tenth of the time or less (0.05 s against 0.39 s of CPU on a
calibration set of 80); on the replicates of ``benchmarks/bench_plan.py`` the widths differ from
the full computation by at most 2e-4 (0.1% of the width; 2e-5 on the bundled example), below
the Monte Carlo errors of the same points. The current width (:math:`m = 0`) uses the full
computation. The replicates' refits of all the grid's points and of the floor are computed
together by :func:`~bayesjudge.prevalence.exact.eti_widths` (the same quadrature on arrays with
a leading batch axis, widths equal to the one-at-a-time ones to rounding), each distinct count
set once.

**The floor.** With an unlimited calibration set :math:`S_e` and :math:`S_p` are known and only
the test verdicts remain uncertain; the expected width then is the limit
:math:`\bar W(\infty)`, computed the same way with :math:`\max(10^8, 10^5 n)` extra labels in
each class, which makes the calibration terms of the eq. 9 variance about :math:`10^{-5}` of the
test term or less (on the bundled example :math:`10^8` and :math:`10^{12}` labels per class give
widths within 2e-7 of each other). No number of labels brings the interval below the floor;
only more test items or a better judge can.

**The answer.** The curve is evaluated on a grid of :math:`m`; when a target width is given and
the curve crosses it, the crossing is bracketed between grid points and narrowed by
interpolation of :math:`\log \hat W` against :math:`\log(m_0 + m_1 + m)`, each step a fresh
evaluation, until the bracket is within 2% (or one label) or its ends differ by less than twice
their Monte Carlo error. The answer is the smallest evaluated
:math:`m` whose expected width is at most the target.

References
----------
Lee et al. (2025), "How to Correctly Report LLM-as-a-Judge Evaluations": eqs. 6-9, Prop. 5.2,
Algorithm 1. The preposterior (expected posterior) width as a sample-size criterion is the
average length criterion of Joseph, Wolfson and du Berger (1995), "Sample size calculations for
binomial proportions via highest posterior density intervals", *The Statistician* 44(2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from scipy import special

from bayesjudge.errors import DataError
from bayesjudge.estimators.rogan_gladen import lang_reiczigel_interval
from bayesjudge.inference.provenance import provenance, seed_label
from bayesjudge.io.tables import TableLike
from bayesjudge.prevalence.allocation import optimal_ratio
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.exact import (
    DEFAULT_GRID_SIZE,
    ExactPosterior,
    eti_widths,
    exact_posterior,
)
from bayesjudge.priors import PrevalencePriors
from bayesjudge.results import Interval
from bayesjudge.validation import (
    PLAN_DEFAULT_MAX_LABELS,
    PLAN_MAX_DRAWS,
    PLAN_MAX_LABELS,
    check_int,
    check_prob,
    seed_stream,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "DEFAULT_MAX_LABELS",
    "MAX_LABELS",
    "MAX_REFITS",
    "LabelPlan",
    "PlanPoint",
    "plan_labels",
    "plot_label_plan",
    "posterior_draws",
]

#: Largest number of extra labels the default grid goes up to.
DEFAULT_MAX_LABELS = PLAN_DEFAULT_MAX_LABELS
#: Upper bound of ``max_labels`` (a guard against typos, not a statistical limit).
MAX_LABELS = PLAN_MAX_LABELS
#: Upper bound of ``draws``.
MAX_DRAWS = PLAN_MAX_DRAWS

_POOL = 20_000  # importance-sampling draws of the control variate's mean
_POOL_MAX = 320_000  # the pool doubles up to this while its effective size is small
_MIN_ESS = 2_000  # effective pool size wanted
_GRID, _NODES = 129, 24  # exact-posterior settings of the refits
_FLOOR_LABELS = 10**8  # extra labels per class standing in for an unlimited calibration set,
_FLOOR_PER_ITEM = 10**5  # ... or this many per test item, whichever is more
_RESOLUTION = 0.02  # the search stops when the bracket is within 2% (or one label)
_SEARCH_STEPS = 8
#: The most exact posterior refits one plan may do: ``draws`` per label count evaluated (the
#: curve's points, the floor and up to 8 search steps). A refit takes about 30 ms, so this
#: bounds a plan to a few minutes; the default (16 draws, 16 label counts) does 256.
MAX_REFITS = 10_000

Status = Literal["already_met", "reached", "needs_more_labels", "below_floor"]


# --------------------------------------------------------------------------- result objects
@dataclass(frozen=True, slots=True)
class PlanPoint:
    r"""The expected interval width after ``m`` more gold labels.

    Attributes
    ----------
    m : int
        Extra gold labels in all.
    m1, m0 : int
        How many of them go to gold-PASS and to gold-FAIL items.
    width : float
        Expected width of the equal-tailed interval of :math:`\pi` after labelling them.
    mcse : float
        Monte Carlo standard error of ``width`` (0 for ``m = 0``, which is computed exactly).
    lang_reiczigel_width : float
        Expected width of the Lang-Reiczigel interval of Lee et al. (2025), eqs. 6-8, after
        the same labels (the frequentist counterpart; it is also the control variate).
    searched : bool
        Whether the point was added by the search for the target rather than the grid.
    """

    m: int
    m1: int
    m0: int
    width: float
    mcse: float
    lang_reiczigel_width: float
    searched: bool = False

    def to_dict(self) -> dict[str, int | float | bool]:
        """Return the point as a plain mapping (one row of the curve)."""
        return {
            "m": self.m,
            "m1": self.m1,
            "m0": self.m0,
            "width": self.width,
            "mcse": self.mcse,
            "lang_reiczigel_width": self.lang_reiczigel_width,
            "searched": self.searched,
        }


@dataclass(frozen=True, slots=True, eq=False)
class LabelPlan:
    r"""How many more gold labels bring the interval of :math:`\pi` to a width.

    Made by :func:`plan_labels`.

    Attributes
    ----------
    counts : JudgeCounts
        The current counts.
    prob : float
        Mass of the intervals.
    current : Interval
        The current exact equal-tailed interval of :math:`\pi`.
    target_width : float or None
        The width asked for.
    curve : tuple of PlanPoint
        Expected width by number of extra labels, sorted by ``m``; starts at ``m = 0``.
    floor : float
        Expected width with an unlimited calibration set (Se and Sp known).
    floor_mcse : float
        Its Monte Carlo standard error.
    status : {"already_met", "reached", "needs_more_labels", "below_floor"} or None
        The answer: the current interval already meets the target; a number of labels up
        to ``max_labels`` reaches it; more than ``max_labels`` are needed; or the target lies
        below the floor, which no number of labels can cross. None without a target.
    answer : PlanPoint or None
        The smallest evaluated point reaching the target (status ``already_met`` or
        ``reached``).
    max_labels : int
        The largest number of extra labels considered.
    ratio : float
        The allocation ratio :math:`m_0/m_1` the split aims the totals at.
    q0_tilde, q1_tilde, p_hat : float
        The smoothed specificity and sensitivity and the judged rate the ratio was computed
        from.
    draws : int
        Exact refits per point.
    pool : int
        Simulated datasets per point for the control variate's mean.
    ess : float
        Effective size of the importance-weighted posterior draws.
    priors : PrevalencePriors
        The priors.
    seed : int or str
        The seed.
    notes : tuple of str
        Caveats (e.g. a small effective sample size, a fallback split).
    """

    counts: JudgeCounts
    prob: float
    current: Interval
    target_width: float | None
    curve: tuple[PlanPoint, ...]
    floor: float
    floor_mcse: float
    status: Status | None
    answer: PlanPoint | None
    max_labels: int
    ratio: float
    q0_tilde: float
    q1_tilde: float
    p_hat: float
    draws: int
    pool: int
    ess: float
    priors: PrevalencePriors = field(default_factory=PrevalencePriors)
    seed: int | str = 0
    notes: tuple[str, ...] = ()

    @property
    def current_width(self) -> float:
        """Width of the current interval."""
        return self.current.high - self.current.low

    def to_frame(self) -> pd.DataFrame:
        """Return the curve as a table, one row per number of extra labels.

        Columns ``m, m1, m0, width, mcse, lang_reiczigel_width, searched``.
        """
        return pd.DataFrame([p.to_dict() for p in self.curve])

    def reading(self) -> str:
        """Return the answer in sentences (what the command line prints first)."""
        mass = f"{100 * self.prob:g}%"
        now = f"{self.current_width:.3f}"
        floor = (
            f"With an unlimited calibration set the interval would be about {self.floor:.3f} "
            f"wide: that floor is set by the {self.counts.n} test verdicts themselves."
        )
        last = self.curve[-1]
        at_max = (
            f"{last.m} more ({last.m1} gold-PASS, {last.m0} gold-FAIL) leave it about "
            f"{last.width:.3f} wide"
        )
        if self.status is None:
            lines = [
                f"The {mass} interval of pi is now {now} wide; {at_max}.",
                floor,
            ]
        elif self.status == "already_met":
            lines = [
                f"The {mass} interval of pi is already {now} wide, within the target "
                f"{self.target_width:g}: no more gold labels are needed.",
                floor,
            ]
        elif self.status == "reached":
            point = self.answer
            assert point is not None
            lines = [
                f"Label {point.m1} more gold-PASS and {point.m0} more gold-FAIL items to bring "
                f"the {mass} interval of pi from {now} wide to about {point.width:.3f} (Monte "
                f"Carlo error {_error(point.mcse)}).",
                floor,
            ]
        elif self.status == "needs_more_labels":
            lines = [
                f"No number of extra gold labels up to {self.max_labels} brings the {mass} "
                f"interval of pi (now {now} wide) to {self.target_width:g}: {at_max}.",
                floor + " More labels than that can still reach the target.",
            ]
        else:
            lines = [
                f"No number of gold labels brings the {mass} interval of pi (now {now} wide) "
                f"to {self.target_width:g}: {at_max}.",
                floor + " Only more test items or a better judge can go below it.",
            ]
        lines.append(
            f"The extra labels are split as Lee et al. (2025)'s allocation rule advises "
            f"(gold-FAIL : gold-PASS = {self.ratio:.2f} : 1 for the totals, as far as the "
            "labels already held allow)."
        )
        return " ".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object of ``bayesjudge plan --json``.

        ``{"counts", "prob", "current": {"low", "high", "width"}, "target_width", "status",
        "answer": row or null, "floor": {"width", "mcse"}, "max_labels", "allocation":
        {"rule", "ratio", "q0_tilde", "q1_tilde", "p_hat"}, "curve": [row, ...],
        "simulation": {"draws", "pool", "ess", "grid_size", "nodes", "floor_labels"},
        "reading", "notes", "provenance"}``, a row being
        ``{"m", "m1", "m0", "width", "mcse", "lang_reiczigel_width", "searched"}``.
        """
        return {
            "counts": self.counts.as_dict(),
            "prob": self.prob,
            "current": {
                "low": self.current.low,
                "high": self.current.high,
                "width": self.current_width,
            },
            "target_width": self.target_width,
            "status": self.status,
            "answer": None if self.answer is None else self.answer.to_dict(),
            "floor": {"width": self.floor, "mcse": self.floor_mcse},
            "max_labels": self.max_labels,
            "allocation": {
                "rule": "exact",
                "ratio": self.ratio,
                "q0_tilde": self.q0_tilde,
                "q1_tilde": self.q1_tilde,
                "p_hat": self.p_hat,
            },
            "curve": [p.to_dict() for p in self.curve],
            "simulation": {
                "draws": self.draws,
                "pool": self.pool,
                "ess": self.ess,
                "grid_size": _GRID,
                "nodes": _NODES,
                "floor_labels": _floor_labels(self.counts.n),
            },
            "reading": self.reading(),
            "notes": list(self.notes),
            "provenance": provenance(self.seed, method="preposterior", priors=self.priors),
        }


def _error(value: float) -> str:
    """Format a Monte Carlo error with two significant digits (never as 0.000)."""
    return f"{value:.3f}" if value >= 0.001 else f"{value:.2g}"


# --------------------------------------------------------------------------- numerics
def _weighted_pool(
    counts: JudgeCounts, priors: PrevalencePriors, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""Importance-weighted draws of :math:`(\pi, S_e, S_p)` from the exact posterior.

    Returns ``pi, se, sp`` and normalised weights ``w`` (see the module docstring, step 1).
    """
    c = counts
    se = rng.beta(priors.se.alpha + c.x1, priors.se.beta + c.m1 - c.x1, size)
    sp = rng.beta(priors.sp.alpha + c.m0 - c.x0, priors.sp.beta + c.x0, size)
    rate = rng.beta(c.k + 1.0, c.n - c.k + 1.0, size)
    j = se + sp - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        pi = (rate - 1.0 + sp) / j
        valid = (j > 0.0) & (pi > 0.0) & (pi < 1.0)
        log_w = np.where(
            valid,
            special.xlogy(priors.pi.alpha - 1.0, pi)
            + special.xlog1py(priors.pi.beta - 1.0, -pi)
            - np.log(j),
            -np.inf,
        )
    if not np.any(valid):
        return pi, se, sp, np.zeros(size)
    w = np.exp(log_w - np.max(log_w))
    return pi, se, sp, w / np.sum(w)


def posterior_draws(
    data: JudgeData | JudgeCounts | TableLike,
    *,
    size: int = 4000,
    priors: PrevalencePriors | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    r"""Draw :math:`(\pi, S_e, S_p)` jointly from the exact posterior of the prevalence model.

    Sampling-importance-resampling: :math:`S_e, S_p` from their calibration-only Beta
    posteriors, the judged rate :math:`R \sim \mathrm{Beta}(k + 1, n - k + 1)` and
    :math:`\pi = (R - 1 + S_p)/J`, weighted by :math:`f_\pi(\pi)/J` on
    :math:`\{J > 0, 0 < \pi < 1\}` (:math:`J = S_e + S_p - 1`, :math:`f_\pi` the prior density of
    :math:`\pi`), then ``size`` draws resampled in proportion to the weights from a pool of
    20,000 (doubled while its effective size is below 2,000). The target is the posterior under
    independent Beta priors restricted to :math:`J > 0`, the same as
    :func:`~bayesjudge.prevalence.exact.exact_posterior`.

    Parameters
    ----------
    data : JudgeData, JudgeCounts, DataFrame or CSV path
        Binary judge data or their six counts.
    size : int
        Number of draws (resampled with replacement; draws repeat when ``size`` approaches
        the pool's effective size, reported as ``attrs["ess"]``).
    priors : PrevalencePriors, optional
        Beta priors; Jeffreys on each by default.
    random_seed : int, Generator or None
        Seed (None: the default seed).

    Returns
    -------
    DataFrame
        Columns ``pi, se, sp, j``; ``attrs["ess"]`` holds the pool's effective sample size.

    Raises
    ------
    DataError
        If the data hold scores rather than binary verdicts.

    Examples
    --------
    >>> draws = posterior_draws(JudgeCounts(150, 140, 150, 24, 2000, 1349), random_seed=1)
    >>> print(f"{draws['pi'].mean():.2f}")
    0.67
    """
    counts = _as_counts(data)
    priors = PrevalencePriors() if priors is None else priors
    size = check_int(size, name="size", minimum=1, maximum=10**7)
    rng = seed_stream(random_seed, "draws")
    pi, se, sp, w, ess = _pool_with_ess(counts, priors, rng)
    index = rng.choice(w.size, size=size, p=w)
    frame = pd.DataFrame({"pi": pi[index], "se": se[index], "sp": sp[index]})
    frame["j"] = frame["se"] + frame["sp"] - 1.0
    frame.attrs["ess"] = ess
    return frame


def _pool_with_ess(
    counts: JudgeCounts, priors: PrevalencePriors, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    size = _POOL
    while True:
        pi, se, sp, w = _weighted_pool(counts, priors, size, rng)
        total = float(np.sum(w))
        ess = 0.0 if total == 0.0 else total**2 / float(np.sum(w * w))
        if ess >= _MIN_ESS or size >= _POOL_MAX:
            break
        size *= 2
    if ess == 0.0:
        raise DataError(
            "no posterior draw of (pi, Se, Sp) has J = Se + Sp - 1 > 0 with pi in (0, 1); "
            "check the counts"
        )
    return pi, se, sp, w, ess


def _as_counts(data: JudgeData | JudgeCounts | TableLike) -> JudgeCounts:
    if isinstance(data, JudgeCounts):
        return data
    return JudgeData.coerce(data).counts


def _split(m: int, *, m1_now: int, m0_now: int, ratio: float) -> tuple[int, int]:
    """Split ``m`` extra labels so the totals approach ``M0/M1 = ratio`` (eq. 7 sizes + 2)."""
    if m == 0:
        return 0, 0
    total = m1_now + m0_now + m

    if math.isinf(ratio):
        return 0, m

    def length(m1: int) -> float:  # r^2/(M0 + 2) + 1/(M1 + 2): eq. 6 with the eq. 7 sizes
        return ratio**2 / (m0_now + m - m1 + 2.0) + 1.0 / (m1_now + m1 + 2.0)

    m1_cont = (total + 4.0) / (1.0 + ratio) - 2.0 - m1_now  # continuous optimum of m1 extra
    m1_cont = min(max(m1_cont, 0.0), float(m))
    candidates = sorted({math.floor(m1_cont), math.ceil(m1_cont)})
    m1 = min(candidates, key=length)
    return m1, m - m1


def _allocation_ratio(counts: JudgeCounts) -> tuple[float, float, float, str | None]:
    """Return the ratio m0/m1 to aim the totals at, the smoothed q0 and q1, and a fallback note.

    Lee et al. (2025)'s exact ratio at Algorithm 1's smoothed estimates; when the smoothed judge
    is no better than chance no split minimises the interval, and the current mix is kept.
    """
    c = counts
    q1_t, q0_t = (c.x1 + 1.0) / (c.m1 + 2.0), (c.m0 - c.x0 + 1.0) / (c.m0 + 2.0)
    if q0_t + q1_t > 1.0:
        return float(optimal_ratio(p_hat=c.p_hat, q0=q0_t, q1=q1_t)), q0_t, q1_t, None
    note = (
        "the smoothed calibration judge is no better than chance, so no split minimises the "
        "interval; the extra labels keep the current class mix"
    )
    return (c.m0 + 2.0) / (c.m1 + 2.0), q0_t, q1_t, note


def _lr_width(
    *,
    x1: np.ndarray | int,
    m1: np.ndarray | int,
    x0: np.ndarray | int,
    m0: np.ndarray | int,
    n: int,
    k: int,
    prob: float,
) -> np.ndarray:
    """Width of the Lang-Reiczigel interval (a full width 1 where it does not exist)."""
    x1, m1, x0, m0 = (np.asarray(v, dtype=float) for v in (x1, m1, x0, m0))
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high, _ = lang_reiczigel_interval(
            rate=k / n, se=x1 / m1, sp=(m0 - x0) / m0, n=n, m1=m1, m0=m0, prob=prob
        )
    width = high - low
    return np.where(np.isfinite(width), width, 1.0)


@dataclass(frozen=True, slots=True)
class _Replicates:
    """One split's simulated labels.

    The control variate's pool mean and variance, and the replicates to refit with their own
    control variates.
    """

    v_mean: float
    v_var: float
    v_r: np.ndarray
    sets: tuple[JudgeCounts, ...]


@dataclass(slots=True)
class _Simulator:
    """Evaluates the expected width at any split, with fixed posterior draws."""

    counts: JudgeCounts
    priors: PrevalencePriors
    prob: float
    draws: int
    root: int
    pool_se: np.ndarray
    pool_sp: np.ndarray
    pool_w: np.ndarray
    refit_se: np.ndarray
    refit_sp: np.ndarray
    ess: float
    #: exact widths already computed, by the six counts: replicates of a small split often
    #: draw the same counts, and the exact posterior is a deterministic function of them
    known: dict[tuple[int, ...], float] = field(default_factory=dict)
    #: each split's simulated labels, by (m1, m0, tag)
    replicates: dict[tuple[int, int, int], _Replicates] = field(default_factory=dict)

    def widths(self, sets: Sequence[JudgeCounts]) -> np.ndarray:
        """Return the exact widths of ``sets``, refitting those not computed yet all at once."""
        keys = [(c.m1, c.x1, c.m0, c.x0, c.n, c.k) for c in sets]
        missing = list(dict.fromkeys(key for key in keys if key not in self.known))
        if missing:
            fresh = eti_widths(
                [JudgeCounts(*key) for key in missing],
                self.prob,
                priors=self.priors,
                grid_size=_GRID,
                nodes=_NODES,
            )
            self.known.update(zip(missing, (float(w) for w in fresh), strict=True))
        return np.array([self.known[key] for key in keys])

    def _replicates(self, m1: int, m0: int, tag: int) -> _Replicates:
        """Draw (once) the pool's and the replicates' labels of a split; seeded by the split."""
        key = (m1, m0, tag)
        if key in self.replicates:
            return self.replicates[key]
        c = self.counts
        rng = np.random.default_rng([self.root, m1, m0, tag])
        # the control variate's mean, over the weighted pool
        x1 = c.x1 + rng.binomial(m1, self.pool_se)
        x0 = c.x0 + rng.binomial(m0, 1.0 - self.pool_sp)
        v = _lr_width(x1=x1, m1=c.m1 + m1, x0=x0, m0=c.m0 + m0, n=c.n, k=c.k, prob=self.prob)
        v_mean = float(np.sum(self.pool_w * v))
        v_var = float(np.sum(self.pool_w**2 * (v - v_mean) ** 2))
        # the replicates to refit exactly, each beside its own control variate
        x1_r = c.x1 + rng.binomial(m1, self.refit_se)
        x0_r = c.x0 + rng.binomial(m0, 1.0 - self.refit_sp)
        v_r = _lr_width(x1=x1_r, m1=c.m1 + m1, x0=x0_r, m0=c.m0 + m0, n=c.n, k=c.k, prob=self.prob)
        sets = tuple(
            JudgeCounts(c.m1 + m1, int(a), c.m0 + m0, int(b), c.n, c.k)
            for a, b in zip(x1_r, x0_r, strict=True)
        )
        self.replicates[key] = out = _Replicates(v_mean, v_var, v_r, sets)
        return out

    def prefetch(self, splits: Sequence[tuple[int, int, int]]) -> None:
        """Refit the replicates of several splits ``(m1, m0, tag)`` in one batch."""
        self.widths([s for split in splits for s in self._replicates(*split).sets])

    def expected(self, m1: int, m0: int, tag: int) -> tuple[float, float, float]:
        """Return the expected exact width, its Monte Carlo error and the expected LR width."""
        rep = self._replicates(m1, m0, tag)
        diff = self.widths(rep.sets) - rep.v_r
        estimate = rep.v_mean + float(np.mean(diff))
        mcse = math.sqrt(rep.v_var + float(np.var(diff, ddof=1)) / diff.size)
        return estimate, mcse, rep.v_mean


def _simulator(
    counts: JudgeCounts,
    *,
    priors: PrevalencePriors,
    prob: float,
    draws: int,
    rng: np.random.Generator,
) -> _Simulator:
    """Draw the posterior pool and the replicates to refit; the seed of every point's data."""
    root = int(rng.integers(2**63))
    _pi, se, sp, w, ess = _pool_with_ess(counts, priors, rng)
    refit = rng.choice(w.size, size=draws, p=w)
    return _Simulator(
        counts=counts,
        priors=priors,
        prob=prob,
        draws=draws,
        root=root,
        pool_se=se,
        pool_sp=sp,
        pool_w=w,
        refit_se=se[refit],
        refit_sp=sp[refit],
        ess=ess,
    )


# --------------------------------------------------------------------------- the public function
def _floor_labels(n: int) -> int:
    """Extra labels per class that stand in for an unlimited calibration set."""
    return max(_FLOOR_LABELS, _FLOOR_PER_ITEM * n)


def _default_grid(max_labels: int) -> list[int]:
    """1-2-5 series from 10 up to ``max_labels``, which is always included."""
    grid = [
        base * 10**power
        for power in range(1, 8)
        for base in (1, 2, 5)
        if base * 10**power < max_labels
    ]
    return [*grid, max_labels]


def plan_labels(
    data: JudgeData | JudgeCounts | TableLike,
    *,
    target_width: float | None = None,
    prob: float = 0.95,
    max_labels: int = DEFAULT_MAX_LABELS,
    m_grid: Sequence[int] | None = None,
    draws: int = 16,
    priors: PrevalencePriors | None = None,
    random_seed: int | np.random.Generator | None = None,
    current: ExactPosterior | None = None,
) -> LabelPlan:
    r"""Plan more gold labels: the expected width of :math:`\pi`'s interval after them.

    For each number :math:`m` of extra gold labels, split between gold-PASS and gold-FAIL items
    as Lee et al. (2025)'s allocation rule advises, the expected width of the exact
    equal-tailed interval of mass ``prob``,

    .. math::

        \bar W(m) = E_{(\pi, S_e, S_p) \mid \text{data}}\,
            E_{X_1 \sim \mathrm{Bin}(m_1^+, S_e),\ X_0 \sim \mathrm{Bin}(m_0^+, 1 - S_p)}
            \left[W(\text{data} + \text{new labels})\right],

    by preposterior simulation: posterior draws, simulated labels, exact refits, with the
    Lang-Reiczigel interval of Lee et al. (2025) as a control variate (see
    :mod:`bayesjudge.prevalence.plan` for the method and its measured accuracy). Also the floor
    :math:`\bar W(\infty)` that no number of labels crosses, and, given a target width, the
    smallest :math:`m` whose expected width reaches it.

    Parameters
    ----------
    data : JudgeData, JudgeCounts, DataFrame or CSV path
        Binary judge data (strata, if any, are pooled) or their six counts.
    target_width : float, optional
        Width asked for, in (0, 1].
    prob : float
        Interval mass.
    max_labels : int
        Largest number of extra labels considered (the default grid ends there).
    m_grid : sequence of int, optional
        Numbers of extra labels at which to evaluate the curve, each in [1, ``max_labels``];
        a 1-2-5 series from 10 by default. ``m = 0`` and ``max_labels`` are always included.
    draws : int
        Exact refits per point (the Monte Carlo error shrinks as :math:`1/\sqrt{draws}`).
    priors : PrevalencePriors, optional
        Beta priors; Jeffreys on each by default (restricted to :math:`J > 0`).
    random_seed : int, Generator or None
        Seed (None: the default seed). Each point's simulation is seeded from it and the
        point's split, so a point's value does not depend on the rest of the grid.
    current : ExactPosterior, optional
        The exact posterior of these counts and priors (:func:`exact_posterior` with its
        defaults), when the caller has it already: the current interval is read from it
        instead of being computed again. Computed here when not given.

    Returns
    -------
    LabelPlan

    Raises
    ------
    DataError
        If the data hold scores rather than binary verdicts, or fail validation.
    ValueError
        Naming the argument that is out of range, or when ``draws`` times the label counts to
        evaluate exceeds :data:`MAX_REFITS` (refused before any work).

    Examples
    --------
    >>> from bayesjudge.prevalence.data import JudgeCounts
    >>> counts = JudgeCounts(m1=40, x1=36, m0=40, x0=6, n=5000, k=3400)
    >>> plan = plan_labels(counts, m_grid=[100], max_labels=400, draws=4, random_seed=1)
    >>> [(p.m, p.m1, p.m0) for p in plan.curve]
    [(0, 0, 0), (100, 85, 15), (400, 292, 108)]
    >>> widths = [p.width for p in plan.curve]
    >>> widths[0] > widths[1] > widths[2] > plan.floor
    True
    """
    counts = _as_counts(data)
    priors = PrevalencePriors() if priors is None else priors
    prob = check_prob(prob)
    max_labels = check_int(max_labels, name="max_labels", minimum=1, maximum=MAX_LABELS)
    draws = check_int(draws, name="draws", minimum=2, maximum=MAX_DRAWS)
    if target_width is not None:
        if (
            isinstance(target_width, bool)
            or not isinstance(target_width, int | float | np.integer | np.floating)
            or not 0.0 < float(target_width) <= 1.0
        ):
            raise ValueError(f"target_width must be a number in (0, 1]; got {target_width!r}")
        target_width = float(target_width)
    if m_grid is None:
        grid = _default_grid(max_labels)
    else:
        values = {check_int(m, name="m_grid", minimum=1, maximum=max_labels) for m in m_grid}
        grid = sorted(values | {max_labels})
    points = len(grid) + 1 + (_SEARCH_STEPS if target_width is not None else 0)
    if draws * points > MAX_REFITS:
        search = f" and up to {_SEARCH_STEPS} search steps" if target_width is not None else ""
        raise ValueError(
            f"the plan would refit the posterior {draws * points:,} times (draws={draws} at each "
            f"of {len(grid)} label counts up to max_labels={max_labels}, the floor{search}); the "
            f"most it does is {MAX_REFITS:,}: lower draws to at most {MAX_REFITS // points}, or "
            "evaluate fewer label counts (a smaller max_labels, or m_grid)"
        )

    sim = _simulator(
        counts, priors=priors, prob=prob, draws=draws, rng=seed_stream(random_seed, "plan")
    )
    ess = sim.ess

    c = counts
    ratio, q0_t, q1_t, fallback = _allocation_ratio(counts)
    notes = [] if fallback is None else [fallback]
    p_hat = c.p_hat
    if ess < _MIN_ESS:
        notes.append(
            f"the importance-weighted posterior draws have a small effective size ({ess:.0f}); "
            "the Monte Carlo errors may be understated"
        )

    def point(m: int, *, searched: bool = False) -> PlanPoint:
        m1, m0 = _split(m, m1_now=c.m1, m0_now=c.m0, ratio=ratio)
        width, mcse, lr = sim.expected(m1, m0, tag=0)
        return PlanPoint(m, m1, m0, width, mcse, lr, searched)

    if current is None:
        current = exact_posterior(counts, priors=priors)
    elif (
        current.counts != counts
        or current.priors != priors
        or not current.restrict_j
        or current.grid.size != DEFAULT_GRID_SIZE
    ):
        raise ValueError(
            "current: the exact posterior given is not the default one of these counts and "
            "priors (exact_posterior(counts, priors=priors) with J > 0 and its default grid)"
        )
    interval = current.eti(prob)
    lr_now = float(
        _lr_width(
            x1=np.array(c.x1),
            m1=np.array(c.m1),
            x0=np.array(c.x0),
            m0=np.array(c.m0),
            n=c.n,
            k=c.k,
            prob=prob,
        )
    )
    curve = [PlanPoint(0, 0, 0, interval.width, 0.0, lr_now)]
    big = _floor_labels(c.n)
    # the refits of every grid point and of the floor, in one batch
    sim.prefetch(
        [(*_split(m, m1_now=c.m1, m0_now=c.m0, ratio=ratio), 0) for m in grid] + [(big, big, 1)]
    )
    curve.extend(point(m) for m in grid)
    floor, floor_mcse, _ = sim.expected(big, big, tag=1)

    status: Status | None = None
    answer: PlanPoint | None = None
    if target_width is not None:
        status, answer, extra = _answer(
            curve, target_width, floor=floor, m_now=c.m1 + c.m0, evaluate=point
        )
        curve = sorted([*curve, *extra], key=lambda p: p.m)
    return LabelPlan(
        counts=counts,
        prob=prob,
        current=interval,
        target_width=target_width,
        curve=tuple(curve),
        floor=floor,
        floor_mcse=floor_mcse,
        status=status,
        answer=answer,
        max_labels=max_labels,
        ratio=ratio,
        q0_tilde=q0_t,
        q1_tilde=q1_t,
        p_hat=p_hat,
        draws=draws,
        pool=int(sim.pool_w.size),
        ess=ess,
        priors=priors,
        seed=seed_label(random_seed),
        notes=tuple(notes),
    )


def _answer(
    curve: list[PlanPoint],
    target: float,
    *,
    floor: float,
    m_now: int,
    evaluate: Callable[..., PlanPoint],
) -> tuple[Status, PlanPoint | None, list[PlanPoint]]:
    """Find the smallest m whose expected width is at most ``target`` (see the module doc)."""
    if curve[0].width <= target:
        return "already_met", curve[0], []
    reaching = [p for p in curve if p.width <= target]
    if not reaching:
        return ("below_floor" if target <= floor else "needs_more_labels"), None, []
    hi = reaching[0]
    lo = max((p for p in curve if p.m < hi.m), key=lambda p: p.m)
    extra: list[PlanPoint] = []
    for _ in range(_SEARCH_STEPS):
        if hi.m - lo.m <= max(1, math.ceil(_RESOLUTION * hi.m)):
            break
        if lo.width - hi.width <= 2.0 * max(lo.mcse, hi.mcse):
            break  # the ends differ by less than their Monte Carlo error: narrowing is noise
        x_lo, x_hi = math.log(m_now + lo.m), math.log(m_now + hi.m)
        y_lo, y_hi = math.log(lo.width), math.log(hi.width)
        x = (
            x_hi
            if y_hi == y_lo
            else x_lo + (math.log(target) - y_lo) * (x_hi - x_lo) / (y_hi - y_lo)
        )
        guess = round(math.exp(x)) - m_now
        margin = max(1, (hi.m - lo.m) // 10)  # keep away from the ends: the bracket shrinks
        guess = min(max(guess, lo.m + margin), hi.m - margin)
        new = evaluate(guess, searched=True)
        extra.append(new)
        if new.width <= target:
            hi = new
        else:
            lo = new
    return "reached", hi, extra


# --------------------------------------------------------------------------- figure
def plot_label_plan(plan: LabelPlan, *, ax: Axes | None = None) -> Figure:
    r"""Draw the expected width of :math:`\pi`'s interval against the number of extra labels.

    The curve carries a band of two Monte Carlo standard errors; the Lang-Reiczigel interval's
    expected width (Lee et al. 2025) is drawn beside it, with the target width, the floor (an
    unlimited calibration set) and the answer marked.

    Parameters
    ----------
    plan : LabelPlan
        What :func:`plan_labels` returned.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.

    Returns
    -------
    matplotlib Figure

    Examples
    --------
    >>> from bayesjudge.prevalence.data import JudgeCounts
    >>> plan = plan_labels(JudgeCounts(40, 36, 40, 6, 5000, 3400), max_labels=50, draws=2)
    >>> fig = plot_label_plan(plan)
    >>> fig.axes[0].get_xlabel()
    'extra gold labels m (gold-PASS + gold-FAIL)'
    """
    from matplotlib.figure import Figure

    if ax is None:
        fig = Figure(figsize=(7.0, 4.0))
        ax = fig.subplots()
    else:
        parent = ax.get_figure()
        assert isinstance(parent, Figure)
        fig = parent
    frame = plan.to_frame()
    m = frame["m"].to_numpy(float)
    width, mcse = frame["width"].to_numpy(), frame["mcse"].to_numpy()
    mass = f"{100 * plan.prob:g}%"
    ax.fill_between(m, width - 2 * mcse, width + 2 * mcse, color="#4c72b0", alpha=0.25, lw=0)
    ax.plot(m, width, "o-", color="#4c72b0", ms=3.5, label=f"expected width, exact {mass} interval")
    ax.plot(
        m,
        frame["lang_reiczigel_width"],
        "--",
        color="#dd8452",
        label="expected width, Lang-Reiczigel interval (Lee et al. 2025)",
    )
    ax.axhspan(
        plan.floor - 2 * plan.floor_mcse, plan.floor + 2 * plan.floor_mcse, color="grey", alpha=0.2
    )
    ax.axhline(plan.floor, color="grey", ls=":", label="floor: unlimited calibration set")
    if plan.target_width is not None:
        ax.axhline(plan.target_width, color="black", ls="-.", lw=1, label="target width")
    if plan.answer is not None:
        ax.plot(plan.answer.m, plan.answer.width, "*", color="black", ms=11, label="answer")
    positive = m[m > 0]
    if positive.size:
        ax.set_xscale("symlog", linthresh=float(positive.min()))
    ax.set_xlim(0, float(m.max()) * 1.05 if m.max() > 0 else 1.0)
    ax.set_xlabel("extra gold labels m (gold-PASS + gold-FAIL)")
    ax.set_ylabel(f"width of the {mass} interval of pi")
    ax.set_title("How many more gold labels?")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
