"""A scoring judge's posterior ROC and recommended threshold (bayesjudge.prevalence.thresholds)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from bayesjudge.errors import DataError
from bayesjudge.prevalence.analysis import analyze_prevalence
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.exact import exact_posterior
from bayesjudge.prevalence.simulate import judge_scores_table
from bayesjudge.prevalence.thresholds import (
    _j_summary,
    candidate_thresholds,
    mixture_check,
    threshold_analysis,
)
from bayesjudge.priors import Beta, PrevalencePriors


def scores(seed: int, *, levels: int = 3, overlap: float = 0.05) -> JudgeData:
    frame = judge_scores_table(
        pi=0.6, n=1500, m1=80, m0=80, overlap=overlap, levels=levels, random_seed=seed
    )
    return JudgeData.from_frame(frame)


def test_the_known_best_threshold_is_recommended() -> None:
    # By construction (judge_scores_table) the lowest PASS-side grid point, 0.5 + 1/(4 L),
    # separates the classes best: there sensitivity and specificity are both 1 - overlap, at
    # every other candidate one of them drops by a third or more.
    data = scores(seed=5)
    analysis = threshold_analysis(data)
    best = 0.5 + 1 / 12
    assert [round(p.threshold, 6) for p in analysis.points] == pytest.approx(
        [1 / 4, 5 / 12, best, 3 / 4, 11 / 12], abs=1e-6
    )
    assert analysis.chosen == pytest.approx(best, abs=1e-9)
    assert analysis.best.j.mean == max(p.j.mean for p in analysis.points)
    widths = [p.width for p in analysis.points]
    assert analysis.best.width == min(widths)
    assert f"score >= {best:.4g}" in analysis.reason
    assert "slightly optimistic" in analysis.reason


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_the_known_best_threshold_over_seeds(seed: int) -> None:
    analysis = threshold_analysis(scores(seed, levels=5))
    assert analysis.chosen == pytest.approx(0.55, abs=1e-9)


def test_each_point_is_the_conjugate_posterior_of_its_counts() -> None:
    data = scores(seed=1)
    priors = PrevalencePriors(se=Beta(1, 1), sp=Beta(2, 1))
    analysis = threshold_analysis(data, thresholds=[0.5], prob=0.9, priors=priors)
    (point,) = analysis.points
    passed = data.cal_judge >= 0.5
    positive = data.cal_label == 1
    x1, x0 = int(np.sum(passed & positive)), int(np.sum(passed & ~positive))
    assert point.counts == JudgeCounts(
        m1=data.m1, x1=x1, m0=data.m0, x0=x0, n=data.n, k=int(np.sum(data.test_judge >= 0.5))
    )
    se = stats.beta(1 + x1, 1 + data.m1 - x1)
    sp = stats.beta(2 + data.m0 - x0, 1 + x0)
    # reference: scipy's Beta distribution (tolerance: floating point, 1e-12)
    assert point.se.mean == pytest.approx(se.mean(), abs=1e-12)
    assert point.se.sd == pytest.approx(se.std(), abs=1e-12)
    assert (point.se.eti.low, point.se.eti.high) == pytest.approx(se.ppf([0.05, 0.95]), abs=1e-12)
    assert (point.sp.eti.low, point.sp.eti.high) == pytest.approx(sp.ppf([0.05, 0.95]), abs=1e-12)
    exact = exact_posterior(point.counts, priors=priors)
    assert point.pi.mean == exact.mean
    assert (point.pi.eti.low, point.pi.eti.high) == (exact.eti(0.9).low, exact.eti(0.9).high)


@pytest.mark.parametrize(
    ("se", "sp"),
    [((40.5, 3.5), (30.5, 12.5)), ((2.5, 1.5), (200.5, 3.5)), ((0.5, 80.5), (90.5, 0.5))],
)
def test_j_quantiles_against_adaptive_quadrature(
    se: tuple[float, float], sp: tuple[float, float]
) -> None:
    # Reference: F_J(t) = int f_se(s) F_sp(t + 1 - s) ds by QUADPACK (scipy.integrate.quad);
    # at our quantiles it must give the nominal levels within 1e-6 (128 Gauss-Legendre nodes:
    # about 1e-7 at worst, for two Jeffreys-like Betas piled against 0 and 1).
    summary = _j_summary(se, sp, 0.95)

    def cdf(t: float) -> float:
        value, _ = integrate.quad(
            lambda s: stats.beta.pdf(s, *se) * stats.beta.cdf(t + 1 - s, *sp),
            0.0,
            1.0,
            limit=200,
            epsabs=1e-12,
        )
        return value

    assert cdf(summary.eti.low) == pytest.approx(0.025, abs=1e-6)
    assert cdf(summary.median) == pytest.approx(0.5, abs=1e-6)
    assert cdf(summary.eti.high) == pytest.approx(0.975, abs=1e-6)
    assert summary.mean == pytest.approx(stats.beta.mean(*se) + stats.beta.mean(*sp) - 1, abs=1e-12)


def test_candidates_and_their_thinning() -> None:
    data = scores(seed=2, levels=5)
    assert candidate_thresholds(data).tolist() == pytest.approx(
        [0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95]
    )
    thinned = candidate_thresholds(data, max_candidates=3)
    assert thinned.size <= 3
    assert set(np.round(thinned, 9)) <= set(np.round(np.unique(data.cal_judge), 9))


def test_output_shapes() -> None:
    analysis = threshold_analysis(scores(seed=3), thresholds=[0.4, 0.6])
    frame = analysis.to_frame()
    assert frame["threshold"].tolist() == [0.4, 0.6]
    assert frame["chosen"].sum() == 1
    assert {"se", "se_low", "se_high", "sp", "j", "j_low", "pi", "width", "m1", "k"} <= set(frame)
    block = analysis.to_dict()
    assert block["chosen"] == analysis.chosen
    assert block["criterion"] == "narrowest equal-tailed posterior interval of pi"
    assert [p["threshold"] for p in block["points"]] == [0.4, 0.6]
    assert set(block["points"][0]) == {"threshold", "counts", "se", "sp", "j", "pi", "width"}


def test_errors() -> None:
    verdicts = JudgeData.from_counts(5, 4, 5, 1, 10, 6)
    with pytest.raises(DataError, match=r"thresholds: these judge data hold verdicts"):
        threshold_analysis(verdicts)
    flat = JudgeData.from_frame(pd.DataFrame({"label": [1, 0, None], "score": [0.5, 0.5, 0.2]}))
    with pytest.raises(DataError, match=r"every calibration item has the same score"):
        threshold_analysis(flat)
    with pytest.raises(ValueError, match=r"threshold must be a number in \[0, 1\]; got 2"):
        threshold_analysis(scores(seed=1), thresholds=[2])
    with pytest.raises(ValueError, match=r"max_candidates must be"):
        candidate_thresholds(scores(seed=1), max_candidates=0)


def test_analysis_of_scores_thresholds_them_and_records_why() -> None:
    data = scores(seed=5)
    analysis = analyze_prevalence(data, method="exact")
    assert analysis.thresholds is not None
    chosen = analysis.thresholds.chosen
    assert analysis.data.kind == "verdict"
    assert analysis.counts == analysis.thresholds.best.counts
    assert analysis.summaries["pi"].mean == pytest.approx(analysis.thresholds.best.pi.mean)
    payload = analysis.to_dict()
    assert payload["thresholds"]["chosen"] == chosen
    assert payload["counts"] == analysis.thresholds.best.counts.as_dict()


def test_analysis_from_counts_equals_the_arrays() -> None:
    counts = JudgeCounts(m1=60, x1=52, m0=70, x0=9, n=900, k=540)
    from_counts = analyze_prevalence(counts, method="exact", n_boot=300).to_dict()
    from_arrays = analyze_prevalence(
        JudgeData.from_counts(**counts.as_dict()), method="exact", n_boot=300
    ).to_dict()
    assert from_counts == from_arrays
    with pytest.raises(ValueError, match=r"stratified=True needs judge data with strata"):
        analyze_prevalence(counts, stratified=True)


def test_a_prior_on_pi_too_sharp_for_the_exact_posterior_is_refused_with_the_way_out() -> None:
    from bayesjudge.prevalence.exact import MIN_PI_SHAPE

    data = scores(seed=3)
    sharp = PrevalencePriors(pi=Beta(0.05, 2.0))
    with pytest.raises(DataError, match=r"thresholds: .*JudgeData\.thresholded") as info:
        threshold_analysis(data, priors=sharp)
    assert f"at least {MIN_PI_SHAPE}" in str(info.value)
    # the way out the message names: the threshold fixed in advance gives verdict data, which
    # no longer goes through the threshold comparison (analyze_prevalence then samples)
    fixed = data.thresholded(0.5 + 1 / 12)
    assert fixed.kind == "verdict"
    with pytest.raises(DataError, match="thresholds: "):
        analyze_prevalence(data, priors=sharp)


def _shifted(seed: int, *, shift: bool, m: int = 200, n: int = 3000, pi: float = 0.6) -> JudgeData:
    """Gold-PASS scores Beta(8, 1), gold-FAIL Beta(1.2, 3); with ``shift`` the test set's PASS
    items score Beta(2, 2) instead (the judge's Se at 0.5 falls from 0.996 to 0.5)."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < pi
    test_pos = rng.beta(2.0, 2.0, n) if shift else rng.beta(8.0, 1.0, n)
    test = np.where(truth, test_pos, rng.beta(1.2, 3.0, n))
    cal = np.concatenate([rng.beta(8.0, 1.0, m), rng.beta(1.2, 3.0, m)])
    frame = pd.DataFrame(
        {
            "label": pd.array([*([1] * m), *([0] * m), *([None] * n)], dtype="Int64"),
            "score": np.round(np.concatenate([cal, test]), 2),
        }
    )
    return JudgeData.from_frame(frame)


def test_mixture_check_fires_when_the_judge_scores_the_test_items_differently() -> None:
    data = _shifted(4, shift=True)
    with pytest.warns(UserWarning, match="score mixture check: .*not a mixture"):
        analysis = threshold_analysis(data, max_candidates=6)
    check = analysis.mixture
    assert check is not None
    assert not check.passed
    assert check.p_value < 1e-6
    # why it matters: the corrected pi at the recommended threshold misses the truth
    assert not analysis.best.pi.eti.low <= 0.6 <= analysis.best.pi.eti.high
    block = analysis.to_dict()["mixture_check"]
    assert block["passed"] is False
    assert block["df"] == check.df


def test_mixture_check_stays_quiet_on_model_data_and_unshifted_scores() -> None:
    # 40 seeded datasets from the package's generator: at level 0.01 about 0.4 alarms are
    # expected; at most 2 (P(Bin(40, 0.01) > 2) = 0.008)
    alarms = 0
    for seed in range(40):
        frame = judge_scores_table(pi=0.6, n=1000, m1=50, m0=50, overlap=0.1, random_seed=seed)
        check = mixture_check(JudgeData.from_frame(frame))
        assert check is not None
        alarms += not check.passed
    assert alarms <= 2
    unshifted = mixture_check(_shifted(4, shift=False))
    assert unshifted is not None
    assert unshifted.passed


def test_mixture_check_statistic_is_the_likelihood_ratio() -> None:
    # the EM maximum of the mixture likelihood against a direct numerical maximisation
    data = _shifted(2, shift=True, m=60, n=400)
    check = mixture_check(data, thresholds=[0.3, 0.6, 0.85])
    assert check is not None
    edges = np.asarray(check.edges)
    bins = edges.size + 1

    def counts(x: np.ndarray) -> np.ndarray:
        return np.bincount(np.searchsorted(edges, x, side="right"), minlength=bins)

    positive = data.cal_label == 1.0
    c1, c0, t = (
        counts(data.cal_judge[positive]),
        counts(data.cal_judge[~positive]),
        counts(data.test_judge),
    )

    def negloglik(theta: np.ndarray) -> float:
        q1 = np.exp(np.append(theta[: bins - 1], 0.0))
        q0 = np.exp(np.append(theta[bins - 1 : 2 * bins - 2], 0.0))
        q1, q0 = q1 / q1.sum(), q0 / q0.sum()
        pi = 1.0 / (1.0 + np.exp(-theta[-1]))
        mix = pi * q1 + (1 - pi) * q0
        return -float(c1 @ np.log(q1) + c0 @ np.log(q0) + t @ np.log(mix))

    from scipy import optimize

    best = optimize.minimize(negloglik, np.zeros(2 * bins - 1), method="BFGS", tol=1e-10)
    free = float(
        c1 @ np.log(np.where(c1 > 0, c1 / c1.sum(), 1.0))
        + c0 @ np.log(np.where(c0 > 0, c0 / c0.sum(), 1.0))
        + t @ np.log(np.where(t > 0, t / t.sum(), 1.0))
    )
    assert check.statistic == pytest.approx(2 * (free + best.fun), rel=1e-5, abs=1e-6)
    assert check.df == bins - 2
    assert check.p_value == pytest.approx(stats.chi2.sf(check.statistic, check.df))


def test_mixture_check_needs_scores_and_three_bins() -> None:
    with pytest.raises(DataError, match="verdicts"):
        mixture_check(scores(seed=1).thresholded(0.5))
    # two bins (one threshold) leave no degrees of freedom
    assert mixture_check(scores(seed=1), thresholds=[0.5]) is None
