r"""A judge that scores: its posterior ROC on the calibration set, and the threshold to use.

A judge that returns a score in [0, 1] becomes a PASS/FAIL judge once a threshold is fixed:
``score >= t`` is PASS. Each threshold gives the six counts of a binary judge
(:class:`~bayesjudge.prevalence.data.JudgeCounts`), so each has its own sensitivity,
specificity and posterior of the true success rate :math:`\pi`. :func:`threshold_analysis`
computes, at each candidate threshold :math:`t`:

* the exact conjugate posteriors of the judge's sensitivity and specificity from the
  calibration counts alone, with the prevalence model's Beta priors
  (Jeffreys Beta(1/2, 1/2) by default):

  .. math::

      S_e \mid t \sim \mathrm{Beta}(a_e + x_1(t),\; b_e + m_1 - x_1(t)), \qquad
      S_p \mid t \sim \mathrm{Beta}(a_p + m_0 - x_0(t),\; b_p + x_0(t)),

  where :math:`x_1(t)` and :math:`x_0(t)` count the gold-PASS and gold-FAIL items scoring at
  least :math:`t` (a posterior ROC curve, with equal-tailed bands);
* Youden's :math:`J = S_e + S_p - 1` under those two independent posteriors: its mean and sd
  exactly, its quantiles from the CDF
  :math:`F_J(u) = E\,[F_{\mathrm{wide}}(u + 1 - X_{\mathrm{narrow}})]`, integrated by
  Gauss-Legendre quadrature in the normal score of the narrower of the two (to about 1e-7 in
  probability, against adaptive QUADPACK quadrature);
* the exact posterior of :math:`\pi` (:func:`bayesjudge.exact_posterior`, restricted to
  :math:`J > 0`) from the six counts at :math:`t`, and its equal-tailed interval.

The recommended threshold is the one whose interval of :math:`\pi` is narrowest: the most
precise answer the calibration set supports. Choosing it from the same data that then estimate
:math:`\pi` makes that interval slightly optimistic (the minimum of several widths); for a
confirmatory estimate, fix the threshold in advance.

References
----------
Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations" (2025) (the six counts and the
correction); W. J. Youden, "Index for rating diagnostic tests", Cancer 3(1), 1950 (J).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import special, stats

from bayesjudge.errors import DataError
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.exact import MIN_PI_SHAPE, exact_posterior
from bayesjudge.priors import PrevalencePriors
from bayesjudge.results import Interval, PosteriorSummary
from bayesjudge.validation import check_int, check_prob

__all__ = [
    "MIXTURE_CHECK_LEVEL",
    "MixtureCheck",
    "ThresholdAnalysis",
    "ThresholdPoint",
    "candidate_thresholds",
    "mixture_check",
    "threshold_analysis",
]

_NODES = 128
#: The check :func:`mixture_check` fails when its p-value is below this level.
MIXTURE_CHECK_LEVEL = 0.01
_MIN_BIN_CAL = 10  # calibration items per bin of the mixture check (adjacent bins are merged)
_EM_STEPS, _EM_TOL = 5000, 1e-10


@dataclass(frozen=True, slots=True)
class ThresholdPoint:
    """The judge at one threshold: its counts, Se, Sp, J and the posterior of pi.

    Attributes
    ----------
    threshold : float
        ``score >= threshold`` is PASS.
    counts : JudgeCounts
        The six counts at this threshold.
    se, sp, j : PosteriorSummary
        Posterior of the sensitivity, specificity and Youden's J from the calibration counts.
    pi : PosteriorSummary
        The exact posterior of the true success rate at this threshold (mean, sd, median, ETI).
    """

    threshold: float
    counts: JudgeCounts
    se: PosteriorSummary
    sp: PosteriorSummary
    j: PosteriorSummary
    pi: PosteriorSummary

    @property
    def width(self) -> float:
        """Width of the equal-tailed interval of pi."""
        return self.pi.eti.high - self.pi.eti.low

    def to_dict(self) -> dict[str, Any]:
        """Return the point as plain values (one row of the JSON ``thresholds.points``)."""
        return {
            "threshold": self.threshold,
            "counts": self.counts.as_dict(),
            "se": self.se.to_dict(),
            "sp": self.sp.to_dict(),
            "j": self.j.to_dict(),
            "pi": self.pi.to_dict(),
            "width": self.width,
        }


@dataclass(frozen=True, slots=True)
class MixtureCheck:
    r"""Whether the test items' scores are a mixture of the calibration classes' scores.

    Made by :func:`mixture_check`.

    Attributes
    ----------
    edges : tuple of float
        Lower edges of the score bins after the first (a bin is ``edge <= score < next``).
    statistic : float
        The likelihood-ratio statistic :math:`G`.
    df : int
        Its degrees of freedom, the number of bins minus 2.
    p_value : float
        :math:`P(\chi^2_{df} \ge G)`.
    pi_hat : float
        The maximum-likelihood :math:`\pi` of the mixture.
    level : float
        The check fails when ``p_value < level``.
    """

    edges: tuple[float, ...]
    statistic: float
    df: int
    p_value: float
    pi_hat: float
    level: float = MIXTURE_CHECK_LEVEL

    @property
    def passed(self) -> bool:
        """Whether the test scores are consistent with the calibration classes' scores."""
        return self.p_value >= self.level

    @property
    def message(self) -> str:
        """One sentence: what was checked and what it found."""
        head = (
            f"score mixture check: G = {self.statistic:.1f} on {self.df} df over "
            f"{len(self.edges) + 1} score bins, p = {self.p_value:.3g}"
        )
        if self.passed:
            return f"{head}: the test scores fit a mixture of the calibration classes' scores"
        return (
            f"{head}: the test items' scores are not a mixture of the gold-PASS and gold-FAIL "
            "calibration scores, so the judge scores the test items differently from the "
            "calibration items (its Se or Sp differs between them) or the calibration set is "
            "not drawn from the same items; the corrected pi assumes the same Se and Sp on both "
            "and its interval may miss: label a random sample of the test items"
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the check as plain values (the JSON ``thresholds.mixture_check``)."""
        return {
            "edges": list(self.edges),
            "statistic": self.statistic,
            "df": self.df,
            "p_value": self.p_value,
            "pi_hat": self.pi_hat,
            "level": self.level,
            "passed": self.passed,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class ThresholdAnalysis:
    """The posterior ROC of a scoring judge and the threshold it recommends.

    Attributes
    ----------
    points : tuple of ThresholdPoint
        One per candidate threshold, in increasing order.
    chosen : float
        The recommended threshold: the narrowest interval of pi.
    prob : float
        Mass of every interval.
    priors : PrevalencePriors
        The Beta priors of pi, Se and Sp.
    mixture : MixtureCheck or None
        Whether the test scores are a mixture of the calibration classes' scores
        (:func:`mixture_check`); None where too few distinct scores leave no bins to check.
    """

    points: tuple[ThresholdPoint, ...]
    chosen: float
    prob: float
    priors: PrevalencePriors = field(default_factory=PrevalencePriors)
    mixture: MixtureCheck | None = None

    @property
    def best(self) -> ThresholdPoint:
        """The point at the chosen threshold."""
        return next(p for p in self.points if p.threshold == self.chosen)

    @property
    def reason(self) -> str:
        """One sentence on why the threshold was chosen, and what that choice costs."""
        best = self.best
        others = sorted((p for p in self.points if p is not best), key=lambda p: p.width)
        runner = (
            f"; next narrowest at {others[0].threshold:.4g} ({others[0].width:.4f})"
            if others
            else ""
        )
        return (
            f"score >= {best.threshold:.4g} gives the narrowest {self.prob:g} posterior interval "
            f"of pi among {len(self.points)} thresholds ({best.width:.4f} wide, J = "
            f"{best.j.mean:.3f}{runner}); chosen on the same calibration data, so the interval is "
            "slightly optimistic: fix the threshold in advance for a confirmatory estimate"
        )

    def to_frame(self) -> pd.DataFrame:
        """Return one row per threshold: counts, Se/Sp/J means and bands, pi and its width."""
        rows = []
        for p in self.points:
            row: dict[str, Any] = {"threshold": p.threshold, **p.counts.as_dict()}
            for name in ("se", "sp", "j", "pi"):
                summary = getattr(p, name)
                row[name] = summary.mean
                row[f"{name}_low"] = summary.eti.low
                row[f"{name}_high"] = summary.eti.high
            row["width"] = p.width
            row["chosen"] = p.threshold == self.chosen
            rows.append(row)
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON block ``thresholds``: the choice, why, and every point."""
        return {
            "chosen": self.chosen,
            "criterion": "narrowest equal-tailed posterior interval of pi",
            "reason": self.reason,
            "prob": self.prob,
            "points": [p.to_dict() for p in self.points],
            "mixture_check": None if self.mixture is None else self.mixture.to_dict(),
        }


def candidate_thresholds(data: JudgeData, *, max_candidates: int = 20) -> np.ndarray:
    """Return the thresholds worth trying: distinct calibration scores, at most ``max_candidates``.

    Every distinct score of a calibration item except the smallest (where everything passes)
    is a threshold at which the calibration ROC changes; when there are more than
    ``max_candidates``, those at evenly spaced quantiles of the calibration scores are kept.

    Raises
    ------
    DataError
        If the data hold verdicts, or every calibration score is the same.

    Examples
    --------
    >>> data = JudgeData.from_frame(pd.DataFrame(
    ...     {"label": [1, 1, 0, 0, None], "score": [0.9, 0.6, 0.6, 0.1, 0.5]}))
    >>> candidate_thresholds(data).tolist()
    [0.6, 0.9]
    """
    max_candidates = check_int(max_candidates, name="max_candidates", minimum=1)
    if data.kind != "score":
        raise DataError("thresholds: these judge data hold verdicts, not scores")
    values = np.unique(data.cal_judge)[1:]
    if values.size == 0:
        raise DataError(
            "thresholds: every calibration item has the same score, so no threshold separates them"
        )
    if values.size > max_candidates:
        levels = np.linspace(0.0, 1.0, max_candidates + 2)[1:-1]
        picks = np.quantile(data.cal_judge, levels, method="higher")
        values = np.unique(picks[picks > data.cal_judge.min()])
    return values


def _bins(cal: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """Merge adjacent bins from the left until each holds ``_MIN_BIN_CAL`` calibration items."""
    edges: list[float] = []
    below = cal < cuts[0]
    held = int(np.sum(below))
    for lo, hi in zip(cuts, [*cuts[1:], np.inf], strict=True):
        inside = int(np.sum((cal >= lo) & (cal < hi)))
        if held >= _MIN_BIN_CAL and int(np.sum(cal >= lo)) >= _MIN_BIN_CAL:
            edges.append(float(lo))
            held = inside
        else:
            held += inside
    return np.asarray(edges)


def _xlogx_ratio(counts: np.ndarray, probs: np.ndarray) -> float:
    """Return sum of counts * log(probs) over the cells with counts (0 log 0 = 0)."""
    return float(np.sum(special.xlogy(counts, probs)))


def mixture_check(
    data: JudgeData,
    *,
    thresholds: Sequence[float] | None = None,
    level: float = MIXTURE_CHECK_LEVEL,
) -> MixtureCheck | None:
    r"""Test whether the test items' scores are a mixture of the calibration classes' scores.

    The correction of :math:`\pi` at any threshold assumes that the judge scores a test item of
    each class as it scores a calibration item of that class. Then, in bins
    :math:`b = 1..B` of the score, the test items' bin probabilities are
    :math:`\pi q_{1b} + (1 - \pi) q_{0b}`, with :math:`q_{1b}, q_{0b}` the gold-PASS and
    gold-FAIL calibration items' bin probabilities. The check is the likelihood-ratio test of
    that mixture against free test bin probabilities (calibration classes free in both):

    .. math::

        G = 2\left[\max \ell_{\mathrm{free}} - \max_{\pi, q_1, q_0} \ell_{\mathrm{mixture}}\right]
        \sim \chi^2_{B - 2}

    asymptotically, the constrained maximum found by EM over the labelled and unlabelled items.
    The bins are cut at the candidate thresholds, adjacent bins merged until each holds at least
    10 calibration items. A judge whose Se or Sp differs between the calibration and the test
    items usually moves the test scores off the mixture; it cannot be detected when the changed
    class's test scores are themselves a mixture of the two calibration classes' scores (that
    change is the same, in the test scores, as a different :math:`\pi`).

    Parameters
    ----------
    data : JudgeData
        Judge data holding scores.
    thresholds : sequence of float, optional
        Bin edges to start from; by default :func:`candidate_thresholds`.
    level : float
        The check fails when its p-value is below ``level``.

    Returns
    -------
    MixtureCheck or None
        None when fewer than 3 bins are left (no degrees of freedom to test).

    Raises
    ------
    DataError
        If the data hold verdicts.

    References
    ----------
    S. S. Wilks, "The large-sample distribution of the likelihood ratio for testing composite
    hypotheses", Ann. Math. Statist. 9(1), 1938; A. P. Dempster, N. M. Laird and D. B. Rubin,
    "Maximum likelihood from incomplete data via the EM algorithm", JRSS B 39(1), 1977.

    Examples
    --------
    >>> from bayesjudge.prevalence.simulate import judge_scores_table
    >>> frame = judge_scores_table(pi=0.6, n=2000, m1=100, m0=100, random_seed=1)
    >>> check = mixture_check(JudgeData.from_frame(frame))
    >>> check.df, check.passed
    (8, True)
    """
    level = check_prob(level, name="level")
    if data.kind != "score":
        raise DataError("thresholds: these judge data hold verdicts, not scores")
    if thresholds is None:
        cuts = candidate_thresholds(data, max_candidates=20)
    else:
        cuts = np.unique(np.asarray(thresholds, dtype=float))
    if cuts.size == 0:
        return None
    edges = _bins(data.cal_judge, cuts)
    if edges.size < 2:
        return None
    positive = data.cal_label == 1.0
    n_bins = edges.size + 1

    def counts(scores: np.ndarray) -> np.ndarray:
        return np.bincount(np.searchsorted(edges, scores, side="right"), minlength=n_bins)

    c1 = counts(data.cal_judge[positive]).astype(float)
    c0 = counts(data.cal_judge[~positive]).astype(float)
    t = counts(data.test_judge).astype(float)
    m1, m0, n = c1.sum(), c0.sum(), t.sum()
    free = (
        _xlogx_ratio(c1, c1 / max(m1, 1.0))
        + _xlogx_ratio(c0, c0 / max(m0, 1.0))
        + _xlogx_ratio(t, t / max(n, 1.0))
    )
    # EM for the mixture: test items' classes are the missing data
    q1 = (c1 + 0.5) / (m1 + 0.5 * n_bins)
    q0 = (c0 + 0.5) / (m0 + 0.5 * n_bins)
    pi = 0.5
    for _ in range(_EM_STEPS):
        mix = pi * q1 + (1.0 - pi) * q0
        resp = np.divide(pi * q1, mix, out=np.zeros_like(mix), where=mix > 0)
        t1 = t * resp
        new_pi = float(t1.sum() / n) if n > 0 else 0.5
        q1 = (c1 + t1) / (m1 + t1.sum())
        q0 = (c0 + t - t1) / (m0 + n - t1.sum())
        done = abs(new_pi - pi) < _EM_TOL
        pi = new_pi
        if done:
            break
    mixture = (
        _xlogx_ratio(c1, q1) + _xlogx_ratio(c0, q0) + _xlogx_ratio(t, pi * q1 + (1.0 - pi) * q0)
    )
    statistic = max(2.0 * (free - mixture), 0.0)
    df = n_bins - 2
    return MixtureCheck(
        edges=tuple(float(e) for e in edges),
        statistic=statistic,
        df=df,
        p_value=float(stats.chi2.sf(statistic, df)),
        pi_hat=pi,
        level=level,
    )


def _beta_summary(name: str, a: float, b: float, prob: float) -> PosteriorSummary:
    quantiles = np.atleast_1d(stats.beta.ppf([(1 - prob) / 2, 0.5, (1 + prob) / 2], a, b))
    low, median, high = (float(q) for q in quantiles)
    mean = a / (a + b)
    sd = float(np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1))))
    return PosteriorSummary(name, mean, sd, median, Interval(low, high, prob, "eti"))


def _j_summary(se: tuple[float, float], sp: tuple[float, float], prob: float) -> PosteriorSummary:
    """Posterior of J = Se + Sp - 1 for independent Beta posteriors of Se and Sp."""
    sd_se = np.sqrt(se[0] * se[1] / ((se[0] + se[1]) ** 2 * (se[0] + se[1] + 1)))
    sd_sp = np.sqrt(sp[0] * sp[1] / ((sp[0] + sp[1]) ** 2 * (sp[0] + sp[1] + 1)))
    narrow, wide = (se, sp) if sd_se <= sd_sp else (sp, se)
    # F_J(t) = P(X <= t) + int_{t < x < t + 1} f_narrow(x) F_wide(t + 1 - x) dx (where x <= t
    # the wider variable's CDF is 1). The integral is Gauss-Legendre in the normal score z of
    # the narrower variable over exactly that range, so its density is phi(z) dz and the
    # integrand has no kink inside (a Jeffreys Beta's CDF has one at 0 and 1).
    nodes, weights = np.polynomial.legendre.leggauss(_NODES)

    def cdf(t: np.ndarray) -> np.ndarray:
        below = special.betainc(narrow[0], narrow[1], np.clip(t, 0.0, 1.0))
        inside = special.betainc(narrow[0], narrow[1], np.clip(t + 1.0, 0.0, 1.0))
        z_lo = np.clip(special.ndtri(below), -9.0, 9.0)[:, None]
        z_hi = np.clip(special.ndtri(inside), -9.0, 9.0)[:, None]
        half = (z_hi - z_lo) / 2.0
        z = z_lo + half * (nodes + 1.0)
        w = half * weights * np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)
        x = special.betaincinv(narrow[0], narrow[1], special.ndtr(z))
        arg = np.clip(t[:, None] + 1.0 - x, 0.0, 1.0)
        return below + np.sum(w * special.betainc(wide[0], wide[1], arg), axis=1)

    levels = np.array([(1 - prob) / 2, 0.5, (1 + prob) / 2])
    lo, hi = np.full(3, -1.0), np.full(3, 1.0)
    for _ in range(45):  # the bracket [-1, 1] halved 45 times: 6e-14
        mid = (lo + hi) / 2.0
        below = cdf(mid) < levels
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    bounds: list[float] = [float(v) for v in np.atleast_1d((lo + hi) / 2.0)]
    low, median, high = bounds
    mean = se[0] / (se[0] + se[1]) + sp[0] / (sp[0] + sp[1]) - 1.0
    return PosteriorSummary(
        "j",
        float(mean),
        float(np.hypot(sd_se, sd_sp)),
        float(median),
        Interval(float(low), float(high), prob, "eti"),
    )


def threshold_analysis(
    data: JudgeData,
    *,
    thresholds: Sequence[float] | None = None,
    max_candidates: int = 20,
    prob: float = 0.95,
    priors: PrevalencePriors | None = None,
) -> ThresholdAnalysis:
    r"""Posterior ROC of a scoring judge, and the threshold with the narrowest interval of pi.

    At each threshold :math:`t` (``score >= t`` is PASS) the calibration counts give the exact
    conjugate posteriors :math:`S_e \sim \mathrm{Beta}(a_e + x_1, b_e + m_1 - x_1)` and
    :math:`S_p \sim \mathrm{Beta}(a_p + m_0 - x_0, b_p + x_0)`, Youden's :math:`J = S_e + S_p - 1`
    under them, and, from all six counts, the exact posterior of :math:`\pi`
    (:func:`bayesjudge.exact_posterior`, restricted to :math:`J > 0`). The recommended threshold
    minimises the width of the equal-tailed interval of :math:`\pi` (ties: the lowest threshold).

    Parameters
    ----------
    data : JudgeData
        Judge data holding scores (``kind == "score"``).
    thresholds : sequence of float, optional
        The thresholds to try; by default :func:`candidate_thresholds`.
    max_candidates : int
        At most this many default candidates (each needs one exact posterior, about 0.1-0.3 s).
    prob : float
        Mass of every interval.
    priors : PrevalencePriors, optional
        Beta priors of pi, Se and Sp (Jeffreys by default).

    Returns
    -------
    ThresholdAnalysis

    Raises
    ------
    DataError
        If the data hold verdicts, or no threshold was left to try; also if a shape of the
        prior on pi is below :data:`~bayesjudge.prevalence.exact.MIN_PI_SHAPE` (the thresholds
        are compared by exact posteriors, which need it): fix the threshold in advance
        (``--threshold`` on the command line, :meth:`JudgeData.thresholded` here), and the
        estimate is then sampled under that prior.
    ValueError
        If a threshold is not a number in [0, 1].

    Examples
    --------
    >>> from bayesjudge.prevalence.simulate import judge_scores_table
    >>> frame = judge_scores_table(pi=0.6, n=400, m1=60, m0=60, random_seed=1)
    >>> analysis = threshold_analysis(JudgeData.from_frame(frame), max_candidates=5)
    >>> len(analysis.points), analysis.best.j.mean > 0.5
    (5, True)
    """
    from bayesjudge.io.mapping import check_threshold

    prob = check_prob(prob)
    priors = PrevalencePriors() if priors is None else priors
    if data.kind != "score":
        raise DataError("thresholds: these judge data hold verdicts, not scores")
    if min(priors.pi.alpha, priors.pi.beta) < MIN_PI_SHAPE:
        raise DataError(
            "thresholds: the threshold is chosen by comparing exact posteriors of pi, which need "
            f"a Beta prior on pi with both shapes at least {MIN_PI_SHAPE}; got pi ~ {priors.pi}. "
            "Fix the threshold in advance (--threshold T on the command line, "
            "JudgeData.thresholded(T) in Python): the estimate is then sampled under this prior"
        )
    if thresholds is None:
        cuts = candidate_thresholds(data, max_candidates=max_candidates)
    else:
        cuts = np.unique([check_threshold(t) for t in thresholds])
    if cuts.size == 0:
        raise DataError("thresholds: no threshold to try")
    positive = data.cal_label == 1.0
    points = []
    for t in cuts:
        passed = data.cal_judge >= t
        counts = JudgeCounts(
            m1=data.m1,
            x1=int(np.sum(passed & positive)),
            m0=data.m0,
            x0=int(np.sum(passed & ~positive)),
            n=data.n,
            k=int(np.sum(data.test_judge >= t)),
        )
        se = (priors.se.alpha + counts.x1, priors.se.beta + counts.m1 - counts.x1)
        sp = (priors.sp.alpha + counts.m0 - counts.x0, priors.sp.beta + counts.x0)
        exact = exact_posterior(counts, priors=priors)
        pi = PosteriorSummary(
            "pi", exact.mean, exact.sd, float(exact.quantile(0.5)), exact.eti(prob)
        )
        points.append(
            ThresholdPoint(
                threshold=float(t),
                counts=counts,
                se=_beta_summary("se", *se, prob),
                sp=_beta_summary("sp", *sp, prob),
                j=_j_summary(se, sp, prob),
                pi=pi,
            )
        )
    best = min(points, key=lambda p: (p.width, p.threshold))
    mixture = mixture_check(data, thresholds=cuts.tolist())
    if mixture is not None and not mixture.passed:
        warnings.warn(mixture.message, UserWarning, stacklevel=2)
    return ThresholdAnalysis(
        points=tuple(points), chosen=best.threshold, prob=prob, priors=priors, mixture=mixture
    )
