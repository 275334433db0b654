r"""Posterior predictive check of the panel model: verdict patterns and judges' gold rates.

The panel model (:mod:`bayesjudge.models.panel`) sees an item only through its gold label (or
its absence) and its verdict pattern, so what it must reproduce is how many items of each group
(gold-FAIL, gold-PASS, unlabelled) show each pattern. :func:`panel_predictive_check` compares,
with the posterior predictive distribution,

* the **count of every verdict pattern** in each group, per set of answering judges (items with
  missing verdicts are counted with the other items whose same judges answered): every one of the
  :math:`2^k` patterns of :math:`k \le` :data:`MAX_PATTERN_JUDGES` answering judges, those never
  observed included (a model that reads two judges who always agree as two accurate judges
  predicts discordant items that never occur); with more answering judges, where most of the
  :math:`2^k` patterns cannot be observed, the number of items on which :math:`m` of them
  passed, :math:`m = 0, \dots, k` (a Poisson-binomial count at each value of the latent
  difficulty, integrated over it), as for every set of a group whose sets would together have
  more than :data:`MAX_PATTERN_CELLS` patterns;
* each judge's **gold-item PASS rate**: the PASS verdicts among the gold-PASS items it answered
  (sensitivity) and among the gold-FAIL items (one minus specificity), which the unlabelled items
  can pull away from what the gold labels alone show when the model's dependence is wrong.

**Each statistic.** At a posterior draw :math:`s` a count :math:`y` of :math:`n` items is
:math:`\mathrm{Bin}(n, p_s)` with :math:`p_s = P(v \mid c)` for a gold class :math:`c`,
:math:`\pi P(v \mid 1) + (1 - \pi) P(v \mid 0)` for unlabelled items
(:func:`bayesjudge.panels.dependence.log_pattern_probabilities`), :math:`\mathrm{Se}_t` or
:math:`1 - \mathrm{Sp}_t` for a judge's gold rate. Its two-sided tail probability (that of
:func:`bayesjudge.inference.diagnostics.ppc_tail_probability`) is computed from these
binomials rather than from one replicate per draw, so it is accurate far below :math:`1/S`:

.. math:: p = \min\Big\{1,\; 2 \min\Big(\tfrac1S \sum_s F_s(y),\;
    \tfrac1S \sum_s \big(1 - F_s(y - 1)\big)\Big)\Big\}

with :math:`F_s` the :math:`\mathrm{Bin}(n, p_s)` distribution function; beside it, the central
99 % interval of the predictive distribution (:data:`INTERVAL_PROB`).

**The tests.** The statistics form four families: the patterns of gold-FAIL, of gold-PASS and
of unlabelled items, and the judges' gold rates. Each pattern family is tested as a whole by
its realised Pearson discrepancy (Gelman, Meng and Stern, "Posterior predictive assessment of
model fitness via realized discrepancies", 1996),
:math:`T(y, \theta) = \sum_k (y_k - n_k p_k)^2 / (n_k p_k)` over the family's cells, against
a replicated table (multinomial per set of answering judges) at every draw:
:math:`p = P(T(y^{rep}, \theta) \ge T(y, \theta) \mid y)`; the gold rates, which share items
and so have no simple joint replicate, by the smallest of their tail probabilities times their
number (Bonferroni). The check fails when a family's tail probability is below
:math:`\alpha / F` (:math:`\alpha` = :data:`PPC_LEVEL` = 0.05, :math:`F` the number of
families, at most 4), so that on data from the model a false alarm has probability at most
about :math:`\alpha` however many patterns a panel has (posterior predictive tail probabilities
are themselves conservative: Meng, "Posterior predictive p-values", 1994); it names the
failing family and its statistics outside their central 99 % predictive interval. A judge
listed twice (1,000 items, 100 gold; ``tests/panels/test_predictive.py``) fails it: the model
predicts about 17 unlabelled items on which the two disagree where none are, and 4 gold-FAIL
items passed by both where there are 12.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import xarray as xr
from numpy.typing import NDArray
from scipy.special import ndtr

from bayesjudge.inference.ppc import CountTest, TablePredictiveCheck, mixture_tail
from bayesjudge.panels.data import MISSING, UNLABELLED, PanelPatterns
from bayesjudge.panels.dependence import _latent_probits, latent_grid, log_pattern_probabilities

__all__ = [
    "MAX_PATTERN_CELLS",
    "MAX_PATTERN_JUDGES",
    "PPC_LEVEL",
    "PanelPredictiveCheck",
    "PredictiveStatistic",
    "PredictiveTest",
    "panel_predictive_check",
]

#: Family-wise level :math:`\alpha` of the check (Bonferroni over its families).
PPC_LEVEL = 0.05
#: Most answering judges whose :math:`2^k` patterns are each checked; beyond, the number of
#: PASS verdicts per item.
MAX_PATTERN_JUDGES = 8
#: Most pattern cells of one group (summed over its sets of answering judges, which missing
#: verdicts multiply); beyond, every set of that group is checked through its PASS counts.
MAX_PATTERN_CELLS = 1024
#: Posterior draws the check uses (evenly thinned): the tail probabilities average binomial
#: distribution functions over draws, and the family tests count exceedances among them.
MAX_CHECK_DRAWS = 2000
#: Mass of the central predictive interval reported beside each statistic.
INTERVAL_PROB = 0.99
_GROUPS = (("fail", 0), ("pass", 1), ("unlabelled", UNLABELLED))
_CHUNK = 16


@dataclass(frozen=True, slots=True)
class PredictiveStatistic:
    """One observed count and its posterior predictive distribution.

    Attributes
    ----------
    kind : {"pattern", "gold_rate"}
        A verdict pattern's count in a group, or a judge's PASS verdicts among gold items.
    group : {"fail", "pass", "unlabelled"}
        The items counted: gold-FAIL, gold-PASS or unlabelled.
    subject : str
        The pattern (``"a=PASS b=FAIL c=-"``, ``-`` for no verdict; ``"3 of 9 PASS among a b
        ..."`` for a set of answering judges too large to enumerate) or the judge.
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

    kind: str
    group: str
    subject: str
    trials: int
    observed: int
    expected: float
    low: int
    high: int
    tail_prob: float

    @property
    def label(self) -> str:
        """Return ``kind[group: subject]``, e.g. ``pattern[unlabelled: a=PASS b=FAIL]``."""
        return f"{self.kind}[{self.group}: {self.subject}]"

    def describe(self) -> str:
        """Return e.g. ``pattern[unlabelled: a=PASS b=FAIL] observed 0 of 900, predicted ...``."""
        return (
            f"{self.label} observed {self.observed} of {self.trials}, predicted "
            f"{self.expected:.1f} [{self.low}, {self.high}] (tail probability {self.tail_prob:.2g})"
        )


#: One of the check's tests: a family of statistics (``patterns[fail]``, ``patterns[pass]``,
#: ``patterns[unlabelled]``: the verdict patterns of one group; ``gold_rates``: every judge's
#: gold-item PASS rates) with its posterior predictive tail probability and the statistic most
#: off (the shared :class:`~bayesjudge.inference.ppc.CountTest`).
PredictiveTest = CountTest


@dataclass(frozen=True, slots=True)
class PanelPredictiveCheck(TablePredictiveCheck):
    r"""The result of :func:`panel_predictive_check`.

    The shared result of a posterior predictive check of counts
    (:class:`~bayesjudge.inference.ppc.TablePredictiveCheck`: threshold, failures, diagnostic
    checks, the JSON block), with the panel's statistics.

    Attributes
    ----------
    statistics : tuple of PredictiveStatistic
        Every statistic, with its own tail probability and predictive interval.
    tests : tuple of PredictiveTest
        One test per family of statistics.
    level : float
        Family-wise level :math:`\alpha`; a test fails below ``level / len(tests)``.
    """

    RULE = (
        "fails when a family's posterior predictive tail probability is below level / "
        "number of families (Bonferroni); each statistic's central "
        f"{INTERVAL_PROB:.0%} predictive interval is given"
    )

    def family_of(self, statistic: Any) -> str:
        """Return ``patterns[group]`` for a pattern statistic, ``gold_rates`` otherwise."""
        return _family(statistic)


def _family(statistic: PredictiveStatistic) -> str:
    if statistic.kind == "pattern":
        return f"patterns[{statistic.group}]"
    return "gold_rates"


class _Cell(NamedTuple):
    """One pattern statistic of a group.

    The items of one set of answering judges (``mask``, numbered ``block``) with one verdict
    pattern (``row``) or, for a set too large to enumerate (``row`` None), with ``passes`` PASS
    verdicts.
    """

    subject: str
    trials: int
    observed: int
    row: NDArray[np.int8] | None
    passes: int
    mask: NDArray[np.bool_]
    block: int


def _pattern_cells(patterns: PanelPatterns, code: int) -> list[_Cell]:
    """Return the pattern statistics of one group (:data:`_GROUPS`), answering set by set."""
    judges = patterns.judges
    rows = patterns.label == code
    verdict, count = patterns.verdict[rows], patterns.count[rows]
    answered = verdict != MISSING
    out: list[_Cell] = []
    if not answered.any():
        return out
    masks = np.unique(answered[answered.any(axis=1)], axis=0)
    sizes = masks.sum(axis=1)
    enumerate_all = int(np.sum(2.0 ** np.minimum(sizes, 62))) <= MAX_PATTERN_CELLS
    for block, mask in enumerate(masks[::-1]):  # the most answering judges first
        same = np.all(answered == mask, axis=1)
        trials = int(count[same].sum())
        k = int(mask.sum())
        if k > MAX_PATTERN_JUDGES or not enumerate_all:
            passes = (verdict[same] == 1).sum(axis=1)
            present = " ".join(j for j, m in zip(judges, mask, strict=True) if m)
            for m in range(k + 1):
                observed = int(count[same][passes == m].sum())
                subject = f"{m} of {k} PASS among {present}"
                out.append(_Cell(subject, trials, observed, None, m, mask, block))
            continue
        seen = {tuple(v): int(c) for v, c in zip(verdict[same], count[same], strict=True)}
        for values in itertools.product((1, 0), repeat=k):
            row = np.full(len(judges), MISSING, dtype=np.int8)
            row[mask] = values
            subject = " ".join(
                f"{j}={'-' if v == MISSING else ('PASS' if v == 1 else 'FAIL')}"
                for j, v in zip(judges, row, strict=True)
            )
            out.append(_Cell(subject, trials, seen.get(tuple(row), 0), row, 0, mask, block))
    return out


def _pass_count_probabilities(
    se: NDArray[np.float64],
    sp: NDArray[np.float64],
    loading: NDArray[np.float64],
    mask: NDArray[np.bool_],
    form: dict[str, Any] | None = None,
) -> NDArray[np.float64]:
    """P(m of the masked judges pass | class), shape (draws, 2, k + 1).

    Given the class and the latent value the judges are independent, so the count is
    Poisson-binomial at each quadrature node (built judge by judge), then integrated over
    :math:`z` (:func:`bayesjudge.panels.dependence.latent_grid`). With the pair form
    (``form`` holds ``pairs`` and ``pair_covariance``; at most :data:`MAX_PATTERN_JUDGES`
    judges) the :math:`2^k` patterns of the masked judges are enumerated and summed by count.
    """
    if form:
        k = int(mask.sum())
        rows = np.full((2**k, mask.size), MISSING, dtype=np.int8)
        rows[:, mask] = np.array(list(itertools.product((1, 0), repeat=k)), dtype=np.int8)
        prob = np.exp(log_pattern_probabilities(se, sp, loading, rows, **form))  # (S, 2, 2^k)
        counts = (rows[:, mask] == 1).sum(axis=1)
        return np.stack([prob[..., counts == m].sum(axis=-1) for m in range(k + 1)], axis=-1)
    z, log_w = latent_grid()
    p = ndtr(_latent_probits(se[:, mask], sp[:, mask], loading[:, :, mask], z))  # (S, 2, k, Q)
    k = p.shape[-2]
    dist = np.zeros((*p.shape[:2], p.shape[-1], k + 1))
    dist[..., 0] = 1.0
    for t in range(k):
        pt = p[:, :, t, :, None]
        shifted = np.zeros_like(dist)
        shifted[..., 1:] = dist[..., :-1]
        dist = dist * (1.0 - pt) + shifted * pt
    return np.asarray(np.einsum("scqm,q->scm", dist, np.exp(log_w)))


def _pearson(
    counts: NDArray[np.int64] | NDArray[np.float64], expected: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Pearson discrepancy over the last axis, cells with no expected count skipped."""
    safe = np.where(expected > 0, expected, 1.0)
    return np.asarray(np.where(expected > 0, (counts - expected) ** 2 / safe, 0.0).sum(axis=-1))


def panel_predictive_check(
    posterior: xr.Dataset,
    patterns: PanelPatterns,
    *,
    level: float = PPC_LEVEL,
    max_draws: int = MAX_CHECK_DRAWS,
    random_seed: int | np.random.Generator | None = None,
    pairs: NDArray[np.int64] | None = None,
) -> PanelPredictiveCheck:
    r"""Check a panel posterior against the verdict patterns and the judges' gold rates.

    See the module docstring for the statistics, the tests and the rule.

    Parameters
    ----------
    posterior : Dataset
        Draws of ``pi`` (chain, draw), ``se``, ``sp`` (chain, draw, judge) and ``loading``
        (chain, draw, class, judge).
    patterns : PanelPatterns
        The data the posterior was fitted to.
    level : float, default 0.05
        Family-wise level :math:`\alpha`.
    max_draws : int, default 2000
        Posterior draws used, evenly thinned.
    random_seed : int, Generator or None
        Source of the replicated pattern tables.
    pairs : ndarray of int, shape (K, 2), optional
        The pairs of the pair form; their covariances are read from the posterior's
        ``pair_covariance`` (chain, draw, class, pair).

    Returns
    -------
    PanelPredictiveCheck

    Examples
    --------
    >>> from bayesjudge.panels.data import PanelData
    >>> data = PanelData.from_arrays([[1, 1], [0, 0], [1, 0]] * 20,
    ...                              labels=[1, 0, np.nan] * 20, judges=["a", "b"])
    >>> draws = {"pi": (("chain", "draw"), np.full((1, 50), 0.5)),
    ...          "se": (("chain", "draw", "judge"), np.full((1, 50, 2), 0.9)),
    ...          "sp": (("chain", "draw", "judge"), np.full((1, 50, 2), 0.9)),
    ...          "loading": (("chain", "draw", "class", "judge"), np.zeros((1, 50, 2, 2)))}
    >>> check = panel_predictive_check(xr.Dataset(draws), data.patterns(), random_seed=0)
    >>> [(t.family, t.worst) for t in check.failures]
    [('patterns[unlabelled]', 'pattern[unlabelled: a=PASS b=FAIL]')]
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1); got {level!r}")
    rng = np.random.default_rng(random_seed)
    flat = posterior["pi"].size
    step = max(1, int(np.ceil(flat / max_draws)))
    pi = posterior["pi"].transpose("chain", "draw").to_numpy().reshape(flat)[::step]
    se = posterior["se"].transpose("chain", "draw", "judge").to_numpy().reshape(flat, -1)[::step]
    sp = posterior["sp"].transpose("chain", "draw", "judge").to_numpy().reshape(flat, -1)[::step]
    lam = posterior["loading"].transpose("chain", "draw", "class", "judge").to_numpy()
    lam = lam.reshape(flat, 2, -1)[::step]
    form: dict[str, Any] = {}
    if pairs is not None:
        gamma = posterior["pair_covariance"].transpose("chain", "draw", "class", "pair")
        form = {"pairs": pairs, "pair_covariance": gamma.to_numpy().reshape(flat, 2, -1)[::step]}

    def group_prob(rows: NDArray[np.int8], code: int) -> NDArray[np.float64]:
        out = []
        for start in range(0, len(rows), _CHUNK):
            prob = np.exp(
                log_pattern_probabilities(se, sp, lam, rows[start : start + _CHUNK], **form)
            )
            if code == UNLABELLED:
                out.append(pi[:, None] * prob[:, 1] + (1.0 - pi[:, None]) * prob[:, 0])
            else:
                out.append(prob[:, code])
        return np.clip(np.concatenate(out, axis=1), 0.0, 1.0)

    meta: list[tuple[str, str, str, int, int]] = []
    probs: list[NDArray[np.float64]] = []
    tail_probs: dict[str, float] = {}
    for group, code in _GROUPS:
        found = _pattern_cells(patterns, code)
        if not found:
            continue
        listed = np.array([c.row for c in found if c.row is not None], dtype=np.int8)
        prob = group_prob(listed, code) if len(listed) else np.zeros((len(pi), 0))
        counted: dict[int, NDArray[np.float64]] = {}
        cells = []
        position = 0
        for cell in found:
            if cell.row is not None:
                p = prob[:, position]
                position += 1
            else:
                if cell.block not in counted:
                    both = _pass_count_probabilities(se, sp, lam, cell.mask, form)
                    counted[cell.block] = (
                        pi[:, None] * both[:, 1] + (1.0 - pi[:, None]) * both[:, 0]
                        if code == UNLABELLED
                        else both[:, code]
                    )
                p = counted[cell.block][:, cell.passes]
            meta.append(("pattern", group, cell.subject, cell.trials, cell.observed))
            probs.append(p)
            cells.append(p)
        # the realised Pearson discrepancy of the group's table against its replicates, one
        # multinomial table per set of answering judges and draw
        cell_prob = np.stack(cells, axis=1)
        trials = np.array([c.trials for c in found], dtype=np.int64)
        observed = np.array([c.observed for c in found], dtype=np.int64)
        blocks = np.array([c.block for c in found])
        replicated = np.zeros(cell_prob.shape, dtype=np.int64)
        for block in np.unique(blocks):
            where = np.flatnonzero(blocks == block)
            pvals = np.clip(cell_prob[:, where], 0.0, None)
            pvals = pvals / pvals.sum(axis=1, keepdims=True)
            replicated[:, where] = rng.multinomial(trials[where[0]], pvals)
        expected = trials * cell_prob
        exceed = _pearson(replicated, expected) >= _pearson(observed, expected)
        tail_probs[f"patterns[{group}]"] = float(exceed.mean())
    rates: list[int] = []
    for group, code in _GROUPS[:2]:
        gold = patterns.label == code
        for t, judge in enumerate(patterns.judges):
            verdict, count = patterns.verdict[gold, t], patterns.count[gold]
            trials_t = int(count[verdict != MISSING].sum())
            if trials_t == 0:
                continue
            rates.append(len(meta))
            meta.append(("gold_rate", group, judge, trials_t, int(count[verdict == 1].sum())))
            probs.append(se[:, t] if code == 1 else 1.0 - sp[:, t])
    observed_all = np.array([m[4] for m in meta], dtype=np.int64)
    trials_all = np.array([m[3] for m in meta], dtype=np.int64)
    tail, expected_all, low, high = mixture_tail(
        observed_all, trials_all, np.clip(np.stack(probs, axis=1), 0.0, 1.0), interval=INTERVAL_PROB
    )
    if rates:  # Bonferroni over the judges' rates (they share items, so no joint replicate)
        tail_probs["gold_rates"] = float(min(1.0, len(rates) * tail[rates].min()))
    statistics = tuple(
        PredictiveStatistic(
            kind=kind,
            group=group,
            subject=subject,
            trials=int(n),
            observed=int(y),
            expected=float(e),
            low=int(a),
            high=int(b),
            tail_prob=float(p),
        )
        for (kind, group, subject, n, y), e, a, b, p in zip(
            meta, expected_all, low, high, tail, strict=True
        )
    )
    tests = []
    for family, value in tail_probs.items():
        members = [s for s in statistics if _family(s) == family]
        worst = min(members, key=lambda s: s.tail_prob)
        tests.append(PredictiveTest(family, value, worst.label))
    return PanelPredictiveCheck(statistics, tuple(tests), level)
