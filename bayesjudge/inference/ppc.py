r"""Posterior predictive check of tables of counts: one test per family, Bonferroni over families.

The models of bayesjudge observe counts whose law at a posterior draw is binomial or
multinomial. :func:`count_table_check` checks a posterior against such counts, grouped into
**families** (say, the histogram of passes among the gold-violation items of a gate), each made
of **blocks** (the histogram at one number of rulings): the cells of a block are the
categories of one multinomial draw of the block's items, and a block of a single cell is a
binomial count.

**Each statistic.** At a posterior draw :math:`s` a cell's count :math:`y` of :math:`n` items
is :math:`\mathrm{Bin}(n, p_s)`; its two-sided tail probability is computed from these
binomials rather than from one replicate per draw, so it is accurate far below :math:`1/S`,

.. math:: p = \min\Big\{1,\; 2 \min\Big(\tfrac1S \sum_s F_s(y),\;
    \tfrac1S \sum_s \big(1 - F_s(y - 1)\big)\Big)\Big\}

with :math:`F_s` the :math:`\mathrm{Bin}(n, p_s)` distribution function (the tail probability
of :func:`bayesjudge.inference.diagnostics.ppc_tail_probability`); beside it, the central
:data:`INTERVAL_PROB` interval of the predictive distribution.

**Each family** is tested as a whole by its realised Pearson discrepancy (Gelman, Meng and
Stern, "Posterior predictive assessment of model fitness via realized discrepancies", 1996),

.. math:: T(y, \theta) = \sum_{\text{cells}} \frac{(y_k - n_k p_k)^2}{n_k p_k}

over the cells of its multi-cell blocks, plus
:math:`(y - np)^2 / (n p (1 - p))` for each single-cell (binomial) block, against a replicated
table drawn at every draw (a multinomial per block): :math:`p_F = P(T(y^{rep}, \theta) \ge
T(y, \theta) \mid y)`; ties count as exceedances, so the test is conservative for small
discrete tables. The check fails when a family's :math:`p_F` is below :math:`\alpha / F`
(:math:`\alpha` = :data:`PPC_LEVEL` = 0.05, :math:`F` the number of families; Bonferroni), so
that on data from the model a false alarm has probability at most about :math:`\alpha`
(posterior predictive tail probabilities are themselves conservative: Meng, "Posterior
predictive p-values", 1994). A failure names the family, its cell most off and its cells
outside their central predictive interval.

The panel family has its own check of the same rule (:mod:`bayesjudge.panels.predictive`);
the gate, systems and channel families build theirs on this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import binom

from bayesjudge.inference.diagnostics import Check

__all__ = [
    "INTERVAL_PROB",
    "MAX_CHECK_DRAWS",
    "PPC_LEVEL",
    "CountFamily",
    "CountStatistic",
    "CountTest",
    "TablePredictiveCheck",
    "count_table_check",
    "mixture_tail",
]

#: Family-wise level :math:`\alpha` of the check (Bonferroni over its families).
PPC_LEVEL = 0.05
#: Mass of the central predictive interval reported beside each statistic.
INTERVAL_PROB = 0.99
#: Posterior draws the check uses (evenly thinned).
MAX_CHECK_DRAWS = 2000


@dataclass(frozen=True, slots=True)
class CountFamily:
    """The observed counts of one test and their probabilities at each posterior draw.

    Attributes
    ----------
    name : str
        The family, e.g. ``"passes[violation]"``.
    subjects : sequence of str
        What each cell counts, e.g. ``"2 of 6 rulings passed"``.
    observed : array_like of int, shape (cells,)
        The counts.
    prob : array_like of float, shape (draws, cells)
        Each cell's probability at each posterior draw; within a multi-cell block they sum to 1.
    blocks : array_like of int, shape (cells,)
        The block of each cell: the cells of a block are the categories of one multinomial
        draw of the block's items (their counts' sum); a block of one cell is a binomial count
        out of ``trials``.
    trials : array_like of int, shape (cells,), optional
        Items each cell is out of; the block's total by default (needed for one-cell blocks).
    """

    name: str
    subjects: Sequence[str]
    observed: ArrayLike
    prob: ArrayLike
    blocks: ArrayLike
    trials: ArrayLike | None = None


@dataclass(frozen=True, slots=True)
class CountStatistic:
    """One observed count and its posterior predictive distribution.

    Attributes
    ----------
    family : str
        The test it belongs to.
    subject : str
        What it counts.
    trials : int
        Items the count is out of.
    observed : int
        The count.
    expected : float
        Its posterior predictive mean.
    low, high : int
        The central :data:`INTERVAL_PROB` interval of its posterior predictive distribution.
    tail_prob : float
        Two-sided posterior predictive tail probability (module docstring).
    """

    family: str
    subject: str
    trials: int
    observed: int
    expected: float
    low: int
    high: int
    tail_prob: float

    @property
    def label(self) -> str:
        """Return ``family: subject``, e.g. ``passes[violation]: 3 of 6 rulings passed``."""
        return f"{self.family}: {self.subject}"

    def describe(self) -> str:
        """Return the label, the count, its predicted mean and interval and tail probability."""
        return (
            f"{self.label} observed {self.observed} of {self.trials}, predicted "
            f"{self.expected:.1f} [{self.low}, {self.high}] (tail probability {self.tail_prob:.2g})"
        )


@dataclass(frozen=True, slots=True)
class CountTest:
    r"""One family's test: its Pearson tail probability and its cell most off.

    Attributes
    ----------
    family : str
    tail_prob : float
        :math:`P(T(y^{rep}) \ge T(y))` (module docstring).
    worst : str
        The label of the family's statistic with the smallest tail probability.
    """

    family: str
    tail_prob: float
    worst: str

    @property
    def label(self) -> str:
        """Return ``family; most off: worst``, the variable of its diagnostic check."""
        return f"{self.family}; most off: {self.worst}"


@dataclass(frozen=True, slots=True)
class TablePredictiveCheck:
    """The result of :func:`count_table_check` (and, as a subclass, of the panel family's check).

    Attributes
    ----------
    statistics : tuple of CountStatistic
        Every statistic (a dataclass with ``observed``, ``low``, ``high`` and ``describe()``;
        a subclass may use its own statistic type and say by :meth:`family_of` which test each
        belongs to).
    tests : tuple of CountTest
    level : float
        Family-wise level; a test fails below ``level / len(tests)``.
    """

    statistics: tuple[Any, ...]
    tests: tuple[CountTest, ...]
    level: float

    #: The ``rule`` line of :meth:`to_dict`.
    RULE = (
        "fails when a family's posterior predictive tail probability (realised Pearson "
        "discrepancy) is below level / number of families (Bonferroni); each "
        f"statistic's central {INTERVAL_PROB:.0%} predictive interval is given"
    )

    def family_of(self, statistic: Any) -> str:
        """Return the family (test) a statistic belongs to: its ``family`` field here."""
        return str(statistic.family)

    @property
    def threshold(self) -> float:
        """The smallest tail probability a test passes with: ``level / len(tests)``."""
        return self.level / max(len(self.tests), 1)

    @property
    def failures(self) -> tuple[CountTest, ...]:
        """The tests whose tail probability is below :attr:`threshold`."""
        return tuple(t for t in self.tests if t.tail_prob < self.threshold)

    @property
    def passed(self) -> bool:
        """Whether every test passed."""
        return not self.failures

    @property
    def outside(self) -> tuple[Any, ...]:
        """The statistics outside the central interval of their predictive distribution."""
        return tuple(s for s in self.statistics if not s.low <= s.observed <= s.high)

    def checks(self) -> tuple[Check, ...]:
        """Return one diagnostic check per test (``ppc_tail_prob``, threshold ``level / m``)."""
        return tuple(
            Check(
                "ppc_tail_prob",
                t.label,
                t.tail_prob,
                self.threshold,
                ">=",
                t.tail_prob >= self.threshold,
            )
            for t in self.tests
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the ``predictive_check`` block of a JSON ``diagnostics`` object.

        ``{"passed", "level", "threshold", "rule", "failures": [text, ...], "outside": [text,
        ...], "tests": [{"family", "tail_prob", "worst"}, ...], "statistics": [{"family",
        "subject", "trials", "observed", "expected", "low", "high", "tail_prob"}, ...]}``;
        ``failures`` names each failed family and its statistics outside their central
        predictive interval (as the panel family's check).
        """
        failures = []
        for test in self.failures:
            family = [s for s in self.outside if self.family_of(s) == test.family]
            named = "; ".join(s.describe() for s in family) or test.worst
            failures.append(f"{test.family} (tail probability {test.tail_prob:.2g}): {named}")
        return {
            "passed": self.passed,
            "level": self.level,
            "threshold": self.threshold,
            "rule": self.RULE,
            "failures": failures,
            "outside": [s.describe() for s in self.outside],
            "tests": [asdict(t) for t in self.tests],
            "statistics": [asdict(s) for s in self.statistics],
        }


def mixture_tail(
    observed: NDArray[np.int64],
    trials: NDArray[np.int64],
    prob: NDArray[np.float64],
    *,
    interval: float = INTERVAL_PROB,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    r"""Tail probability, mean and central interval of binomial mixtures over draws (axis 0).

    With :math:`F(y) = \frac{1}{S}\sum_s \mathrm{Bin}(Y \le y;\, n, p_s)` the posterior
    predictive distribution of a count out of :math:`n` (a mixture over the :math:`S` draws):
    the two-sided tail probability :math:`\min(1, 2\min(F(y), 1 - F(y - 1)))` of the observed
    :math:`y`, the mean :math:`\frac{1}{S}\sum_s n p_s`, and the central ``interval``
    interval, the smallest counts with :math:`F \ge (1 \mp \text{interval})/2` (Gelman, Meng
    and Stern, "Posterior predictive assessment of model fitness via realized discrepancies",
    1996).

    Parameters
    ----------
    observed, trials : ndarray of int
        Each count and the items it is out of (the trailing shape of ``prob``).
    prob : ndarray
        The success probability at each draw (axis 0) of each count.
    interval : float, default :data:`INTERVAL_PROB`
        Mass of the central interval.

    Returns
    -------
    tuple of ndarray
        Tail probability, mean, lower and upper bound of the interval, per count.

    Examples
    --------
    >>> tail, mean, low, high = mixture_tail(np.array([5]), np.array([10]), np.full((4, 1), 0.5))
    >>> round(float(tail[0]), 3), float(mean[0]), int(low[0]), int(high[0])
    (1.0, 5.0, 1, 9)
    """
    lower = np.asarray(binom.cdf(observed, trials, prob)).mean(axis=0)
    upper = np.asarray(binom.sf(observed - 1, trials, prob)).mean(axis=0)
    tail = np.minimum(1.0, 2.0 * np.minimum(lower, upper))
    expected = (trials * prob).mean(axis=0)
    bounds = []
    for q in ((1.0 - interval) / 2.0, (1.0 + interval) / 2.0):
        # the smallest y with mixture cdf(y) >= q, by bisection on the integers of [0, n]
        lo, hi = np.full(trials.shape, -1, dtype=np.int64), trials.astype(np.int64).copy()
        while np.any(hi - lo > 1):
            mid = (lo + hi) // 2
            ok = np.asarray(binom.cdf(mid, trials, prob)).mean(axis=0) >= q
            hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid)
        bounds.append(hi)
    return tail, expected, bounds[0], bounds[1]


def _discrepancy(
    counts: NDArray[Any], mean: NDArray[np.float64], scale: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Pearson discrepancy over the last axis; cells with no variance are skipped."""
    safe = np.where(scale > 0, scale, 1.0)
    return np.asarray(np.where(scale > 0, (counts - mean) ** 2 / safe, 0.0).sum(axis=-1))


def count_table_check(
    families: Sequence[CountFamily],
    *,
    level: float = PPC_LEVEL,
    max_draws: int = MAX_CHECK_DRAWS,
    random_seed: int | np.random.Generator | None = None,
) -> TablePredictiveCheck:
    r"""Check posterior draws of cell probabilities against observed tables of counts.

    See the module docstring for the statistics, the tests and the rule.

    Parameters
    ----------
    families : sequence of CountFamily
        One test each (a family without cells is skipped).
    level : float, default 0.05
        Family-wise level :math:`\alpha`.
    max_draws : int, default 2000
        Posterior draws used, evenly thinned.
    random_seed : int, Generator or None
        Source of the replicated tables.

    Returns
    -------
    TablePredictiveCheck

    Raises
    ------
    ValueError
        If ``level`` is not in (0, 1), or a family's arrays disagree in shape.

    Examples
    --------
    A die thrown 60 times that shows only ones and sixes, checked against a fair die:

    >>> fair = np.full((200, 6), 1 / 6)
    >>> family = CountFamily("faces", [f"face {f}" for f in range(1, 7)],
    ...                      [30, 0, 0, 0, 0, 30], fair, np.zeros(6, int))
    >>> check = count_table_check([family], random_seed=0)
    >>> check.passed, check.tests[0].worst
    (False, 'faces: face 1')
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1); got {level!r}")
    rng = np.random.default_rng(random_seed)
    statistics: list[CountStatistic] = []
    tests: list[CountTest] = []
    for family in families:
        observed = np.asarray(family.observed, dtype=np.int64).reshape(-1)
        if observed.size == 0:
            continue
        prob = np.clip(np.asarray(family.prob, dtype=float), 0.0, 1.0)
        blocks = np.asarray(family.blocks).reshape(-1)
        if prob.ndim != 2 or prob.shape[1] != observed.size or blocks.size != observed.size:
            raise ValueError(
                f"family {family.name!r}: prob must have shape (draws, {observed.size}) and "
                f"blocks {observed.size} entries; got {prob.shape} and {blocks.size}"
            )
        if len(family.subjects) != observed.size:
            raise ValueError(
                f"family {family.name!r}: {len(family.subjects)} subjects for {observed.size} cells"
            )
        step = max(1, int(np.ceil(prob.shape[0] / max_draws)))
        prob = prob[::step]
        totals = {b: int(observed[blocks == b].sum()) for b in np.unique(blocks)}
        trials = (
            np.array([totals[b] for b in blocks], dtype=np.int64)
            if family.trials is None
            else np.asarray(family.trials, dtype=np.int64).reshape(-1)
        )
        replicated = np.zeros(prob.shape, dtype=np.int64)
        scale = trials * prob
        for block in np.unique(blocks):
            where = np.flatnonzero(blocks == block)
            if where.size == 1:  # a binomial count
                i = where[0]
                replicated[:, i] = rng.binomial(trials[i], prob[:, i])
                scale[:, i] = trials[i] * prob[:, i] * (1.0 - prob[:, i])
                continue
            pvals = prob[:, where]
            total = pvals.sum(axis=1, keepdims=True)
            pvals = np.where(total > 0, pvals / np.where(total > 0, total, 1.0), 1.0 / where.size)
            replicated[:, where] = rng.multinomial(trials[where[0]], pvals)
        mean = trials * prob
        exceed = _discrepancy(replicated, mean, scale) >= _discrepancy(observed, mean, scale)
        tail, expected, low, high = mixture_tail(observed, trials, prob)
        members = [
            CountStatistic(
                family=family.name,
                subject=str(subject),
                trials=int(n),
                observed=int(y),
                expected=float(e),
                low=int(a),
                high=int(b),
                tail_prob=float(p),
            )
            for subject, n, y, e, a, b, p in zip(
                family.subjects, trials, observed, expected, low, high, tail, strict=True
            )
        ]
        statistics.extend(members)
        worst = min(members, key=lambda s: s.tail_prob)
        tests.append(CountTest(family.name, float(exceed.mean()), worst.label))
    return TablePredictiveCheck(tuple(statistics), tuple(tests), float(level))
