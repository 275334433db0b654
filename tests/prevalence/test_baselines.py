"""Tests of the frequentist baselines (bayesjudge.baselines).

Tiers: closed-form checks and the published worked numbers of the judgy procedure and the
bias-correction article; cross-checks against the reference implementations ppi_py (PPI, PPI++) and
judgy (Rogan-Gladen + bootstrap); hypothesis properties; error paths; a small seeded coverage study
(a bigger one is marked slow).
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from bayesjudge.errors import DataError, NotIdentifiableError
from bayesjudge.estimators import (
    judged_rate,
    lang_reiczigel_interval,
    ppi_lambda,
    rogan_gladen_pi,
    rogan_gladen_variance,
    wilson_interval,
)
from bayesjudge.prevalence.baselines import (
    BASELINE_METHODS,
    baseline_estimates,
    baselines,
    calibration_only,
    naive,
    ppi,
    ppi_plus_plus,
    rogan_gladen,
    rogan_gladen_bootstrap_draws,
)
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.simulate import judge_table
from bayesjudge.results import ROW_COLUMNS, Estimate
from bayesjudge.validation import seed_stream

Z95 = 1.959963984540054

# the bias-correction article's worked inputs: q1 = 90/100, q0 = 85/100, p = 700/1000
SEED002 = JudgeCounts(m1=100, x1=90, m0=100, x0=15, n=1000, k=700)
# the judgy procedure's worked example: TPR 45/50, TNR 42/50, 440 of 500 unlabelled items judged
# PASS
SEED001_LABELS = [1] * 50 + [0] * 50
SEED001_PREDS = [1] * 45 + [0] * 5 + [0] * 42 + [1] * 8
SEED001_UNLABELLED = [1] * 440 + [0] * 60


def seed001_data() -> JudgeData:
    frame = pd.DataFrame(
        {
            "label": SEED001_LABELS + [None] * len(SEED001_UNLABELLED),
            "verdict": SEED001_PREDS + SEED001_UNLABELLED,
        }
    )
    return JudgeData.from_frame(frame)


def from_counts(c: JudgeCounts) -> JudgeData:
    return JudgeData.from_counts(**c.as_dict())


def score_data(seed: int, *, m: int = 60, n: int = 400, noise: float = 0.6) -> JudgeData:
    """Continuous judge scores, correlated with the gold label, possibly with strata."""
    rng = np.random.default_rng(seed)
    label = (rng.random(m) < 0.6).astype(float)
    cal = np.clip((1 - noise) * label + noise * rng.random(m), 0, 1)
    truth = (rng.random(n) < 0.7).astype(float)
    test = np.clip((1 - noise) * truth + noise * rng.random(n), 0, 1)
    return JudgeData(cal_label=label, cal_judge=cal, test_judge=test, kind="score")


def verdict_data(seed: int, *, m: int = 60, n: int = 400, acc: float = 0.8) -> JudgeData:
    rng = np.random.default_rng(seed)
    label = (rng.random(m) < 0.5).astype(float)
    label[:2] = [0.0, 1.0]
    cal = np.where(rng.random(m) < acc, label, 1 - label)
    truth = (rng.random(n) < 0.65).astype(float)
    test = np.where(rng.random(n) < acc, truth, 1 - truth)
    return JudgeData(cal_label=label, cal_judge=cal, test_judge=test, kind="verdict")


# --------------------------------------------------------------------------- reference modules
@pytest.fixture(scope="module")
def ppi_py():
    # ppi_py calls warnings.simplefilter("ignore") at import; keep that out of the session.
    with warnings.catch_warnings():
        module = pytest.importorskip("ppi_py")
    return module


@pytest.fixture
def judgy_rng():
    """judgy draws from numpy's global RandomState: seed it for the test, then restore it."""
    judgy = pytest.importorskip("judgy")
    state = np.random.get_state()  # noqa: NPY002 - judgy only uses the legacy global state
    np.random.seed(20260722)  # noqa: NPY002
    yield judgy
    np.random.set_state(state)  # noqa: NPY002


# --------------------------------------------------------------------------- published numbers
def test_seed002_worked_numbers():
    """The bias-correction article rounds to 3 decimals (estimate 0.733, se 0.037) and 2 for the
    CI [0.66, 0.81],
    so the tolerance is half a unit in the last published digit."""
    est = rogan_gladen(SEED002)
    assert est.method == "rogan_gladen_delta"
    assert est.estimate == pytest.approx(0.733, abs=0.0005)
    assert est.se == pytest.approx(0.037, abs=0.0005)
    assert est.interval is not None
    assert est.interval.low == pytest.approx(0.66, abs=0.005)
    assert est.interval.high == pytest.approx(0.81, abs=0.005)
    # "±7.3 pp" half-width of the corrected interval, 1 decimal in percentage points
    assert Z95 * est.se == pytest.approx(0.073, abs=0.0005)
    assert est.j == pytest.approx(0.75, abs=1e-12)
    # exact arithmetic of step 3: 0.55 / 0.75
    assert est.estimate == pytest.approx(0.55 / 0.75, abs=1e-12)


def test_seed002_naive_interval_and_crossover():
    """Naive: 0.70 with 95% interval about [0.67, 0.73] ("±2.8 pp"); the naive rate equals the
    truth only at theta = 0.60 for q0=0.85, q1=0.90 (published to 2 decimals)."""
    est = naive(from_counts(SEED002))
    assert est.estimate == pytest.approx(0.70, abs=1e-12)
    assert est.interval.low == pytest.approx(0.67, abs=0.005)
    assert est.interval.high == pytest.approx(0.73, abs=0.005)
    assert est.interval.width / 2 == pytest.approx(0.028, abs=0.0005)
    # the crossover is the fixed point of the forward map (exact: 0.15 / 0.25)
    assert judged_rate(pi=0.60, sp=0.85, se=0.90) == pytest.approx(0.60, abs=1e-12)
    assert rogan_gladen_pi(rate=0.60, sp=0.85, se=0.90) == pytest.approx(0.60, abs=1e-12)
    # below the crossover the naive rate overstates, above it understates
    assert judged_rate(pi=0.5, sp=0.85, se=0.90) > 0.5
    assert judged_rate(pi=0.7, sp=0.85, se=0.90) < 0.7
    # "about two and a half times wider" (one significant figure after the point)
    ratio = rogan_gladen(SEED002).interval.width / est.interval.width
    assert ratio == pytest.approx(2.5, abs=0.15)


def test_seed001_worked_example():
    """The judgy procedure: TPR 0.90, TNR 0.84, 440/500 judged PASS -> (0.88 + 0.84 - 1)/0.74."""
    data = seed001_data()
    c = data.counts
    assert (c.q1, c.q0, c.p_hat) == (0.90, 0.84, 0.88)
    est = rogan_gladen(data)
    assert est.estimate == pytest.approx(0.72 / 0.74, abs=1e-12)
    assert est.j == pytest.approx(0.74, abs=1e-12)


# --------------------------------------------------------------------------- closed forms
@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (700, 1000), (1, 2)])
@pytest.mark.parametrize("prob", [0.8, 0.95, 0.99])
def test_wilson_matches_scipy(k, n, prob):
    """scipy.stats.binomtest(...).proportion_ci(method="wilson"); tolerance 1e-12."""
    ref = binomtest(k, n).proportion_ci(confidence_level=prob, method="wilson")
    low, high = wilson_interval(k, n, prob=prob)
    assert low == pytest.approx(ref.low, abs=1e-12)
    assert high == pytest.approx(ref.high, abs=1e-12)


def test_rogan_gladen_map_broadcasts_and_marks_undefined():
    p = np.array([[0.2, 0.5, 0.9]])  # (1, 3)
    q0 = np.array([[0.9], [0.4]])  # (2, 1): second row has J <= 0 with q1 = 0.6
    out = rogan_gladen_pi(rate=p, sp=q0, se=0.6)
    assert out.shape == (2, 3)
    np.testing.assert_allclose(out[0], (p[0] + 0.9 - 1) / 0.5, rtol=0, atol=1e-15)
    assert np.isnan(out[1]).all()


def test_delta_variance_closed_form():
    """Eq. 9 written out by hand on the bias-correction article's inputs; tolerance 1e-15."""
    theta = 0.55 / 0.75
    expected = (
        0.7 * 0.3 / 1000 + (1 - theta) ** 2 * 0.85 * 0.15 / 100 + theta**2 * 0.9 * 0.1 / 100
    ) / 0.75**2
    assert rogan_gladen_variance(
        rate=0.7, sp=0.85, se=0.9, n=1000, m0=100, m1=100
    ) == pytest.approx(expected, abs=1e-15)


def test_lang_reiczigel_closed_form():
    """Eqs. 6-8 by hand, scalar by scalar, on the bias-correction article's inputs; tol 1e-12."""
    z = Z95
    n, m0, m1 = 1000, 100, 100
    p = (700 + z**2 / 2) / (n + z**2)
    q0 = (85 + 1) / (m0 + 2)
    q1 = (90 + 1) / (m1 + 2)
    th = (p + q0 - 1) / (q0 + q1 - 1)
    a0 = q0 * (1 - q0) / (m0 + 2)
    a1 = q1 * (1 - q1) / (m1 + 2)
    shift = 2 * z**2 * (-(1 - th) * a0 + th * a1)
    half = z * math.sqrt(p * (1 - p) / (n + z**2) + (1 - th) ** 2 * a0 + th**2 * a1) / (q0 + q1 - 1)
    low, high, centre = lang_reiczigel_interval(
        rate=0.7, sp=0.85, se=0.9, n=n, m0=m0, m1=m1, prob=0.95
    )
    assert centre == pytest.approx(th + shift, abs=1e-12)
    assert low == pytest.approx(th + shift - half, abs=1e-12)
    assert high == pytest.approx(th + shift + half, abs=1e-12)
    est = rogan_gladen(SEED002, interval="lang_reiczigel")
    assert (est.interval.low, est.interval.high) == (pytest.approx(low), pytest.approx(high))
    assert est.interval.kind == "lang_reiczigel"


def test_lang_reiczigel_approaches_delta_for_large_samples():
    """The adjustments vanish as n, m0, m1 grow: at 10^7 items per set the two intervals agree
    to 1e-5 (the shift is O(1/m))."""
    big = 10**7
    low, high, _ = lang_reiczigel_interval(rate=0.7, sp=0.85, se=0.9, n=big, m0=big, m1=big)
    half = Z95 * math.sqrt(rogan_gladen_variance(rate=0.7, sp=0.85, se=0.9, n=big, m0=big, m1=big))
    assert low == pytest.approx(0.55 / 0.75 - half, abs=1e-5)
    assert high == pytest.approx(0.55 / 0.75 + half, abs=1e-5)


def test_lang_reiczigel_interval_is_clipped_to_unit_interval():
    # q0 = q1 = 1 and every test item passes: the unclipped band runs past 1
    est = rogan_gladen(JudgeCounts(20, 20, 20, 0, 50, 50), interval="lang_reiczigel")
    assert est.interval.high == 1.0
    assert 0.0 <= est.interval.low <= 1.0


def test_delta_interval_clipped_and_estimate_clipped_note():
    # judged pass rate below 1 - q0: unclipped estimate is negative
    est = rogan_gladen(JudgeCounts(50, 45, 50, 5, 200, 4))
    assert est.unclipped == pytest.approx((0.02 + 0.9 - 1) / 0.8, abs=1e-12)
    assert est.estimate == 0.0
    assert est.interval.low == 0.0
    assert any(re.search(r"clipped to \[0, 1\] from -0\.1", note) for note in est.notes)


# --------------------------------------------------------------------------- reference: ppi_py
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("kind", ["verdict", "score"])
@pytest.mark.parametrize("prob", [0.9, 0.95])
def test_ppi_and_ppi_plus_plus_match_ppi_py(ppi_py, seed, kind, prob):
    """Point estimates and CLT intervals equal ppi_py 0.2.3 to 1e-8 (ppi_py's alpha = 1 - prob;
    lam=1 is PPI, lam=None its power tuning with lambda clipped to [0, 1])."""
    data = verdict_data(seed) if kind == "verdict" else score_data(seed, noise=0.6 + 0.1 * seed)
    y, yhat, unl = (data.cal_label.astype(float), data.cal_judge.astype(float), data.test_judge)
    for estimator, lam in ((ppi, 1), (ppi_plus_plus, None)):
        est = estimator(data, prob=prob)
        ref_point = ppi_py.ppi_mean_pointestimate(y, yhat, unl, lam=lam)
        ref_low, ref_high = ppi_py.ppi_mean_ci(y, yhat, unl, alpha=1 - prob, lam=lam)
        assert est.estimate == pytest.approx(float(np.squeeze(ref_point)), abs=1e-8)
        assert est.interval.low == pytest.approx(float(np.squeeze(ref_low)), abs=1e-8)
        assert est.interval.high == pytest.approx(float(np.squeeze(ref_high)), abs=1e-8)
        assert est.interval.kind == "clt"


def test_ppi_lambda_cases_are_exercised(ppi_py):
    """The cross-check datasets include interior lambdas and one clipped at 0 (a judge that
    anti-correlates with the gold label) and some clipped at 1, which ppi_py clips the same way."""
    datasets = [score_data(s, noise=0.6 + 0.1 * s) for s in range(4)]
    lams = [ppi_lambda(d.cal_label, d.cal_judge, d.test_judge) for d in datasets]
    assert 1.0 in lams  # clipped at 1 (the regression slope of Y on the score exceeds 1)
    assert sum(0.0 < lam < 1.0 for lam in lams) >= 2
    verdict_lams = [
        ppi_lambda(d.cal_label, d.cal_judge, d.test_judge) for d in map(verdict_data, range(4))
    ]
    assert all(0.0 < lam < 1.0 for lam in verdict_lams)
    rng = np.random.default_rng(5)
    label = (rng.random(40) < 0.5).astype(float)
    data = JudgeData(cal_label=label, cal_judge=1 - label, test_judge=rng.random(100), kind="score")
    assert ppi_lambda(data.cal_label, data.cal_judge, data.test_judge) == 0.0
    est = ppi_plus_plus(data)
    ref = ppi_py.ppi_mean_pointestimate(data.cal_label, data.cal_judge, data.test_judge)
    assert est.estimate == pytest.approx(float(np.squeeze(ref)), abs=1e-8)
    assert est.estimate == pytest.approx(label.mean(), abs=1e-12)  # lambda = 0: classical


@pytest.mark.parametrize("estimator", [ppi, ppi_plus_plus])
@pytest.mark.parametrize("kind", ["verdict", "score"])
def test_stratified_ppi_combines_ppi_py_per_stratum(ppi_py, estimator, kind):
    """Stratified estimate = sum_s (N_s / N) theta_s, se^2 = sum_s (N_s / N)^2 se_s^2, with each
    stratum's theta_s and se_s from ppi_py; tolerance 1e-8."""
    base = verdict_data(7, m=90, n=600) if kind == "verdict" else score_data(7, m=90, n=600)
    rng = np.random.default_rng(11)
    data = JudgeData(
        cal_label=base.cal_label,
        cal_judge=base.cal_judge,
        test_judge=base.test_judge,
        kind=base.kind,
        cal_stratum=rng.choice(["a", "b", "c"], size=base.m),
        test_stratum=rng.choice(["a", "b", "c"], size=base.n, p=[0.5, 0.3, 0.2]),
    )
    lam = 1 if estimator is ppi else None
    est = estimator(data, prob=0.9, stratified=True)
    point, var = 0.0, 0.0
    for name in data.strata:
        part = data.stratum(name)
        w = part.n / data.n
        theta = float(
            np.squeeze(
                ppi_py.ppi_mean_pointestimate(
                    part.cal_label, part.cal_judge, part.test_judge, lam=lam
                )
            )
        )
        low, high = ppi_py.ppi_mean_ci(
            part.cal_label, part.cal_judge, part.test_judge, alpha=0.1, lam=lam
        )
        se = float(np.squeeze(high - low)) / 2 / 1.6448536269514722
        point += w * theta
        var += w**2 * se**2
    assert est.estimate == pytest.approx(point, abs=1e-8)
    assert est.se == pytest.approx(math.sqrt(var), abs=1e-8)
    assert "stratified over 3 strata" in est.notes[0]


def test_stratified_errors():
    with pytest.raises(DataError, match="stratified=True needs a 'stratum' column"):
        ppi(verdict_data(0), stratified=True)
    data = verdict_data(0)
    lonely = JudgeData(
        cal_label=data.cal_label,
        cal_judge=data.cal_judge,
        test_judge=data.test_judge,
        kind="verdict",
        cal_stratum=np.full(data.m, "a"),
        test_stratum=np.where(np.arange(data.n) < 5, "b", "a"),
    )
    with pytest.raises(DataError, match="stratum 'b' has 5 unlabelled test items but no calib"):
        ppi_plus_plus(lonely, stratified=True)
    with pytest.raises(ValueError, match="stratified must be True or False"):
        ppi(data, stratified="yes")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- reference: judgy
def test_rogan_gladen_point_equals_judgy(judgy_rng):
    for data in (seed001_data(), verdict_data(3, m=200, n=1500)):
        theta, _, _ = judgy_rng.estimate_success_rate(
            data.cal_label.astype(int),
            data.cal_judge.astype(int),
            data.test_judge.astype(int),
            bootstrap_iterations=10,
        )
        assert rogan_gladen(data).estimate == pytest.approx(theta, abs=1e-12)


@pytest.mark.parametrize("which", ["seed001", "simulated"])
def test_calibration_bootstrap_agrees_with_judgy(judgy_rng, which):
    """judgy resamples the labelled pairs, keeps the test count fixed, drops resamples with an
    empty class or J* <= 0, clips and takes percentiles: our resample="calibration" bootstrap.

    Tolerance from Monte-Carlo error measured here: the spread (sd) of each of our endpoints
    over 40 seeds at the same B; two independent runs differ by sd * sqrt(2), and we allow 4 of
    those (plus 1e-12 for endpoints pinned at 1)."""
    data = seed001_data() if which == "seed001" else verdict_data(8, m=120, n=800, acc=0.75)
    b = 20_000
    _, ref_low, ref_high = judgy_rng.estimate_success_rate(
        data.cal_label.astype(int),
        data.cal_judge.astype(int),
        data.test_judge.astype(int),
        bootstrap_iterations=b,
    )
    ends = np.array(
        [
            (e.interval.low, e.interval.high)
            for e in (
                rogan_gladen(
                    data, interval="bootstrap", resample="calibration", n_boot=b, random_seed=s
                )
                for s in range(40)
            )
        ]
    )
    tol = 4 * math.sqrt(2) * ends.std(axis=0, ddof=1) + 1e-12
    assert abs(ends[:, 0].mean() - ref_low) <= tol[0]
    assert abs(ends[:, 1].mean() - ref_high) <= tol[1]


# --------------------------------------------------------------------------- bootstrap
class SpyGenerator(np.random.Generator):
    """A Generator that records which of its sampling methods were called, and with what."""

    def __init__(self, seed: int) -> None:
        super().__init__(np.random.PCG64(seed))
        self.calls: list[tuple[str, dict]] = []

    def multinomial(self, *args, **kwargs):
        self.calls.append(("multinomial", kwargs))
        return super().multinomial(*args, **kwargs)

    def binomial(self, *args, **kwargs):
        self.calls.append(("binomial", kwargs))
        return super().binomial(*args, **kwargs)

    def choice(self, *args, **kwargs):  # what a per-resample loop would use
        self.calls.append(("choice", kwargs))
        return super().choice(*args, **kwargs)

    def integers(self, *args, **kwargs):
        self.calls.append(("integers", kwargs))
        return super().integers(*args, **kwargs)


@pytest.mark.parametrize(
    ("resample", "expected"),
    [("calibration", ["multinomial"]), ("both", ["multinomial", "binomial"])],
)
def test_bootstrap_is_vectorised(resample, expected):
    """All B resamples come from one multinomial call (four calibration cells) and, when the
    test set is resampled too, one binomial call, each with size=B: no per-resample loop."""
    rng = SpyGenerator(0)
    est = rogan_gladen(
        SEED002, interval="bootstrap", n_boot=3000, resample=resample, random_seed=rng
    )
    assert [name for name, _ in rng.calls] == expected
    assert all(kwargs["size"] == 3000 for _, kwargs in rng.calls)
    assert est.interval.kind == "bootstrap_percentile"


def test_bootstrap_draws_follow_the_multinomial_cells():
    """The bootstrap replicates are the RG map of multinomial cell counts: recompute them from
    the same seed by hand; tolerance 1e-15."""
    draws = rogan_gladen_bootstrap_draws(SEED002, n_boot=500, resample="both", random_seed=3)
    rng = seed_stream(3, "resample")  # the bootstrap's own stream of seed 3
    cells = rng.multinomial(200, np.array([90, 10, 15, 85]) / 200, size=500)
    k = rng.binomial(1000, 0.7, size=500)
    q1 = cells[:, 0] / (cells[:, 0] + cells[:, 1])
    q0 = cells[:, 3] / (cells[:, 2] + cells[:, 3])
    expected = np.clip((k / 1000 + q0 - 1) / (q0 + q1 - 1), 0, 1)
    np.testing.assert_allclose(draws, expected, rtol=0, atol=1e-15)


def test_bootstrap_both_is_wider_than_calibration_on_a_small_test_set():
    """With n = 20 test items, test-set noise is a large part of the variance, so resampling it
    too must widen the interval (seeded, B = 4000)."""
    small = JudgeCounts(m1=200, x1=180, m0=200, x0=30, n=20, k=14)
    cal = rogan_gladen(
        small, interval="bootstrap", resample="calibration", n_boot=4000, random_seed=1
    )
    both = rogan_gladen(small, interval="bootstrap", resample="both", n_boot=4000, random_seed=1)
    assert both.interval.width > 1.5 * cal.interval.width
    # with a huge test set the two agree (test noise negligible): widths within 10 %
    big = JudgeCounts(m1=200, x1=180, m0=200, x0=30, n=10**6, k=7 * 10**5)
    cal = rogan_gladen(
        big, interval="bootstrap", resample="calibration", n_boot=4000, random_seed=1
    )
    both = rogan_gladen(big, interval="bootstrap", resample="both", n_boot=4000, random_seed=1)
    assert both.interval.width == pytest.approx(cal.interval.width, rel=0.1)


def test_bootstrap_counts_dropped_resamples():
    """Tiny calibration classes make many resamples lose a class or have J* <= 0: they are
    dropped and the note counts exactly the NaN replicates of the same seeded draw."""
    tiny = JudgeCounts(m1=3, x1=2, m0=3, x0=1, n=100, k=60)
    est = rogan_gladen(tiny, interval="bootstrap", n_boot=2000, random_seed=9)
    draws = rogan_gladen_bootstrap_draws(tiny, n_boot=2000, resample="both", random_seed=9)
    dropped = int(np.isnan(draws).sum())
    assert dropped > 0
    assert f"{dropped} of 2000 resamples had an empty calibration class or J* <= 0" in "; ".join(
        est.notes
    )


def test_bootstrap_without_valid_resamples_has_no_interval():
    tiny = JudgeCounts(m1=1, x1=1, m0=1, x0=0, n=10, k=5)
    seed = next(
        s
        for s in range(100)
        if np.isnan(rogan_gladen_bootstrap_draws(tiny, n_boot=1, random_seed=s)).all()
    )
    est = rogan_gladen(tiny, interval="bootstrap", n_boot=1, random_seed=seed)
    assert est.interval is None
    assert est.estimate == 0.5
    assert any("no resample had J* > 0" in note for note in est.notes)


def test_bootstrap_is_reproducible_from_a_seed():
    a = rogan_gladen(SEED002, interval="bootstrap", random_seed=42)
    b = rogan_gladen(SEED002, interval="bootstrap", random_seed=42)
    c = rogan_gladen(SEED002, interval="bootstrap", random_seed=43)
    assert a == b
    assert a.interval != c.interval


# --------------------------------------------------------------------------- errors
def test_not_identifiable_raises():
    chance = JudgeCounts(m1=50, x1=25, m0=50, x0=25, n=100, k=50)  # J = 0
    for kind in ("delta", "lang_reiczigel", "bootstrap"):
        with pytest.raises(NotIdentifiableError, match="no better than chance") as info:
            rogan_gladen(chance, interval=kind)
        assert info.value.j == 0.0
        assert info.value.method == f"rogan_gladen_{kind}"
    inverted = JudgeCounts(m1=50, x1=10, m0=50, x0=40, n=100, k=50)  # J = -0.6
    with pytest.raises(NotIdentifiableError, match=r"no better than chance .*J=-0\.6"):
        rogan_gladen(inverted)


def test_lang_reiczigel_not_identifiable_after_adjustment():
    """J = 0.05 > 0 on the raw counts, but the adjusted q~0 + q~1 - 1 < 0 (one gold-PASS item)."""
    counts = JudgeCounts(m1=1, x1=1, m0=20, x0=19, n=100, k=60)
    assert counts.j == pytest.approx(0.05)
    rogan_gladen(counts)  # the delta interval exists
    with pytest.raises(NotIdentifiableError, match="no better than chance") as info:
        rogan_gladen(counts, interval="lang_reiczigel")
    assert info.value.j == pytest.approx(2 / 3 + 2 / 22 - 1)


def test_rogan_gladen_rejects_scores():
    with pytest.raises(DataError, match="Rogan-Gladen needs binary judge verdicts"):
        rogan_gladen(score_data(0))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"prob": 1.0}, r"prob must lie in \(0, 1\); got 1.0"),
        ({"prob": 0}, r"prob must lie in \(0, 1\)"),
        ({"prob": "0.9"}, "prob must be a number"),
        ({"interval": "wald"}, r"interval must be one of \['delta', 'lang_reiczigel', 'boot"),
        ({"resample": "test"}, r"resample must be one of \['both', 'calibration'\]"),
        ({"interval": "bootstrap", "n_boot": 0}, "n_boot must be a whole number"),
        ({"interval": "bootstrap", "n_boot": 2.5}, "n_boot must be a whole number"),
    ],
)
def test_rogan_gladen_argument_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        rogan_gladen(SEED002, **kwargs)


@pytest.mark.parametrize("estimator", [naive, calibration_only, ppi, ppi_plus_plus])
def test_prob_is_validated_everywhere(estimator):
    with pytest.raises(ValueError, match=r"prob must lie in \(0, 1\)"):
        estimator(from_counts(SEED002), prob=95)


def test_baselines_argument_errors():
    with pytest.raises(ValueError, match="n_boot must be a whole number"):
        baseline_estimates(from_counts(SEED002), n_boot=-1)


# --------------------------------------------------------------------------- table of baselines
def test_baseline_estimates_rows_and_frame():
    data = from_counts(SEED002)
    rows = baseline_estimates(data, random_seed=0, n_boot=500)
    assert tuple(r.method for r in rows) == BASELINE_METHODS
    assert all(isinstance(r, Estimate) and r.identifiable for r in rows)
    assert rows[2] == rogan_gladen(data)
    assert rows[4] == rogan_gladen(data, interval="bootstrap", n_boot=500, random_seed=0)
    frame = baselines(data, random_seed=0, n_boot=500)
    assert list(frame.columns) == list(ROW_COLUMNS)
    assert frame["method"].tolist() == list(BASELINE_METHODS)
    assert frame["estimate"].to_numpy() == pytest.approx([r.estimate for r in rows])


def test_baseline_estimates_not_identifiable_rows():
    rows = baseline_estimates(JudgeData.from_counts(50, 25, 50, 25, 100, 50), random_seed=0)
    by_method = {r.method: r for r in rows}
    for kind in ("delta", "lang_reiczigel", "bootstrap"):
        row = by_method[f"rogan_gladen_{kind}"]
        assert row.estimate is None
        assert row.j == 0.0
        assert re.search(r"not identifiable: .*no better than chance \(J=0 <= 0\)", row.notes[0])
    assert by_method["naive"].estimate == 0.5
    assert by_method["ppi"].identifiable


def test_baseline_estimates_on_scores():
    rows = baseline_estimates(score_data(1), random_seed=0)
    assert tuple(r.method for r in rows) == BASELINE_METHODS
    for row in rows[2:5]:
        assert row.estimate is None
        assert row.interval is None
        assert row.notes == ("Rogan-Gladen needs binary verdicts; these data hold judge scores",)
    assert rows[0].interval.kind == "clt"
    assert all(r.identifiable for r in (rows[0], rows[1], rows[5], rows[6]))


def test_baselines_accept_a_dataframe_and_a_csv(tmp_path):
    frame = seed001_data().to_frame()
    path = tmp_path / "judge.csv"
    frame.to_csv(path, index=False)
    a = baselines(frame, random_seed=1, n_boot=200)
    b = baselines(str(path), random_seed=1, n_boot=200)
    pd.testing.assert_frame_equal(a, b)


def test_naive_and_calibration_only_values():
    data = JudgeData.from_counts(30, 25, 10, 2, 500, 300)
    est = naive(data, prob=0.9)
    assert est.estimate == 0.6
    assert est.se == pytest.approx(math.sqrt(0.24 / 500), abs=1e-15)
    ref = binomtest(300, 500).proportion_ci(confidence_level=0.9, method="wilson")
    assert (est.interval.low, est.interval.high) == (
        pytest.approx(ref.low),
        pytest.approx(ref.high),
    )
    cal = calibration_only(data)
    assert cal.estimate == 0.75
    assert cal.interval.kind == "wilson"
    scores = score_data(2)
    est = naive(scores)
    assert est.estimate == pytest.approx(scores.test_judge.mean(), abs=1e-15)
    assert est.se == pytest.approx(scores.test_judge.std() / math.sqrt(scores.n), abs=1e-15)
    assert est.interval.kind == "clt"


# --------------------------------------------------------------------------- properties
@st.composite
def counts_strategy(draw, *, min_class: int = 1, min_j: float = 1e-9):
    m1 = draw(st.integers(min_class, 300))
    m0 = draw(st.integers(min_class, 300))
    x1 = draw(st.integers(0, m1))
    x0 = draw(st.integers(0, m0))
    n = draw(st.integers(1, 3000))
    k = draw(st.integers(0, n))
    counts = JudgeCounts(m1, x1, m0, x0, n, k)
    assume(counts.j >= min_j)
    return counts


@settings(max_examples=200, deadline=None)
@given(
    theta=st.floats(0, 1),
    q0=st.floats(0.01, 1),
    q1=st.floats(0.01, 1),
)
def test_rogan_gladen_inverts_the_forward_map(theta, q0, q1):
    """With known q0, q1 (J >= 0.01) the correction recovers theta; float error ~ eps / J."""
    assume(q0 + q1 - 1 >= 0.01)
    assert rogan_gladen_pi(rate=judged_rate(pi=theta, sp=q0, se=q1), sp=q0, se=q1) == pytest.approx(
        theta, abs=1e-12
    )


# Relabelling PASS <-> FAIL swaps q0 and q1 and maps p to 1 - p, so every point estimate maps to
# one minus itself exactly, and every interval except the bootstrap mirrors exactly (Wilson,
# delta, Lang-Reiczigel and CLT are symmetric in the relabelling; the bootstrap's draws are not
# the same random numbers after relabelling, so only its distribution mirrors).
MIRRORED_INTERVALS = {
    "naive",
    "calibration_only",
    "rogan_gladen_delta",
    "rogan_gladen_lang_reiczigel",
    "ppi",
    "ppi_plus_plus",
}


@settings(max_examples=60, deadline=None)
@given(counts=counts_strategy(min_j=1e-3))
def test_flipping_labels_maps_each_estimate_to_one_minus_itself(counts):
    data = from_counts(counts)
    q0_t = (counts.m0 * counts.q0 + 1) / (counts.m0 + 2)
    q1_t = (counts.m1 * counts.q1 + 1) / (counts.m1 + 2)
    assume(q0_t + q1_t - 1 > 1e-3)  # keep the Lang-Reiczigel row identifiable
    rows = baseline_estimates(data, random_seed=0, n_boot=200)
    flipped = baseline_estimates(data.flipped(), random_seed=0, n_boot=200)
    for a, b in zip(rows, flipped, strict=True):
        assert b.estimate == pytest.approx(1 - a.estimate, abs=1e-9), a.method
        if a.method in MIRRORED_INTERVALS:
            assert b.interval.low == pytest.approx(1 - a.interval.high, abs=1e-9), a.method
            assert b.interval.high == pytest.approx(1 - a.interval.low, abs=1e-9), a.method
            assert b.se == pytest.approx(a.se, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), noise=st.floats(0.05, 0.95))
def test_flipping_scores_maps_ppi_and_naive(seed, noise):
    data = score_data(seed, noise=noise)
    for estimator in (naive, calibration_only, ppi, ppi_plus_plus):
        a, b = estimator(data), estimator(data.flipped())
        assert b.estimate == pytest.approx(1 - a.estimate, abs=1e-12)
        assert b.interval.low == pytest.approx(1 - a.interval.high, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(counts=counts_strategy(), prob=st.sampled_from([0.5, 0.8, 0.95, 0.999]))
def test_intervals_contain_their_estimates_by_construction(counts, prob):
    """Wilson, delta (clipped after centring on the unclipped value) and CLT intervals always
    contain their point estimate."""
    data = from_counts(counts)
    for est in (
        naive(data, prob=prob),
        calibration_only(data, prob=prob),
        rogan_gladen(data, prob=prob),
        ppi(data, prob=prob),
        ppi_plus_plus(data, prob=prob),
    ):
        assert est.interval.low <= est.estimate <= est.interval.high, est.method


@settings(max_examples=100, deadline=None)
@given(counts=counts_strategy(min_class=10, min_j=0.1))
def test_lang_reiczigel_contains_estimate_with_ten_items_per_class(counts):
    """The adjusted interval is centred on theta~ + d theta~, not on the estimate, so it can miss
    it when a class has 1-2 items (1,326 of 956,694 random cases with classes of 1-59 items;
    none of 1.49 million with classes of 10-199 items, measured while writing this test). With
    at least 10 items per class and J >= 0.1 it contains the estimate."""
    est = rogan_gladen(counts, interval="lang_reiczigel")
    assert est.interval.contains(est.estimate)


def test_lang_reiczigel_notes_an_interval_that_misses_the_estimate():
    est = rogan_gladen(JudgeCounts(1, 1, 31, 1, 387, 364), interval="lang_reiczigel")
    assert not est.interval.contains(est.estimate)
    assert "the interval does not contain the point estimate" in est.notes


@pytest.mark.parametrize("seed", range(5))
def test_bootstrap_contains_estimate_on_moderate_data(seed):
    """Percentile intervals need not contain the estimate; on 100+ items per class they do."""
    data = verdict_data(seed, m=250, n=800, acc=0.85)
    est = rogan_gladen(data, interval="bootstrap", n_boot=2000, random_seed=seed)
    assert est.interval.contains(est.estimate)


# --------------------------------------------------------------------------- coverage
def _coverage(pi: float, reps: int, seed: int, *, n: int = 1000, m: int = 100) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    hits = {"delta": 0, "lang_reiczigel": 0}
    for _ in range(reps):
        table = judge_table(pi=pi, se=0.9, sp=0.85, n=n, m1=m, m0=m, random_seed=rng)
        data = JudgeData.from_frame(table)
        for kind in hits:
            hits[kind] += rogan_gladen(data, interval=kind).interval.contains(pi)
    return {kind: h / reps for kind, h in hits.items()}


def test_delta_and_lang_reiczigel_cover_near_nominal():
    """300 seeded datasets at pi = 0.7 (the bias-correction article's judge, n = 1000, 100 + 100):
    binomial sd of a 95 % coverage estimate is 1.3 pp, so [0.90, 0.995] is about 4 sd wide."""
    coverage = _coverage(0.7, 300, seed=2026)
    for kind, value in coverage.items():
        assert 0.90 <= value <= 0.995, (kind, value)


@pytest.mark.slow
@pytest.mark.parametrize("pi", [0.1, 0.5, 0.9])
def test_coverage_study(pi):
    """2,000 datasets per point: sd 0.5 pp, tolerance [0.93, 0.97] is about 4 sd."""
    coverage = _coverage(pi, 2000, seed=int(pi * 1000), m=150)
    for kind, value in coverage.items():
        assert 0.93 <= value <= 0.97, (kind, value)


# =========================================================================== the counts path
@settings(max_examples=40)
@given(
    counts=st.tuples(st.integers(1, 60), st.integers(1, 60), st.integers(1, 400)).flatmap(
        lambda sizes: st.tuples(
            st.just(sizes[0]),
            st.integers(0, sizes[0]),
            st.just(sizes[1]),
            st.integers(0, sizes[1]),
            st.just(sizes[2]),
            st.integers(0, sizes[2]),
        )
    )
)
def test_the_counts_path_gives_the_array_results(counts: tuple[int, ...]) -> None:
    # Every baseline of binary verdicts is a function of the six counts: from JudgeCounts
    # (no arrays) the rows equal those from the arrays. Tolerance 1e-12: the counts forms of
    # the PPI variance and covariance sum the same terms in another order.
    data = JudgeData.from_counts(*counts)
    from_arrays = baseline_estimates(data, random_seed=3, n_boot=200)
    from_counts = baseline_estimates(JudgeCounts(*counts), random_seed=3, n_boot=200)
    for a, b in zip(from_arrays, from_counts, strict=True):
        assert a.method == b.method
        assert a.notes == b.notes
        for field in ("estimate", "se", "j", "unclipped"):
            left, right = getattr(a, field), getattr(b, field)
            assert (left is None) == (right is None)
            if left is not None:
                assert right == pytest.approx(left, abs=1e-12, nan_ok=True)
        assert (a.interval is None) == (b.interval is None)
        if a.interval is not None and b.interval is not None:
            assert b.interval.low == pytest.approx(a.interval.low, abs=1e-12)
            assert b.interval.high == pytest.approx(a.interval.high, abs=1e-12)


def test_ppi_counts_functions_equal_the_array_ones() -> None:
    from bayesjudge.estimators import ppi_lambda_counts, ppi_mean, ppi_mean_counts

    data = JudgeData.from_counts(37, 30, 52, 9, 800, 430)
    counts = data.counts.as_dict()
    arrays = (data.cal_label, data.cal_judge, data.test_judge)
    lam = ppi_lambda(*arrays)
    assert ppi_lambda_counts(**counts) == pytest.approx(lam, abs=1e-14)
    for weight in (0.0, lam, 1.0):
        est, se = ppi_mean(*arrays, lam=weight)
        est_c, se_c = ppi_mean_counts(**counts, lam=weight)
        assert est_c == pytest.approx(est, abs=1e-14)
        assert se_c == pytest.approx(se, abs=1e-14)
    # predictions that never vary: the weight is 0, as in the array form
    assert ppi_lambda_counts(m1=2, x1=2, m0=2, x0=2, n=3, k=3) == 0.0


def test_counts_are_checked_and_stratified_ppi_needs_strata() -> None:
    with pytest.raises(DataError, match=r"x1 must not exceed m1; got x1=4 > m1=3"):
        naive(JudgeCounts(3, 4, 4, 1, 5, 3))
    with pytest.raises(DataError, match=r"ppi: stratified=True needs judge data with a 'stratum'"):
        ppi(JudgeCounts(3, 2, 4, 1, 5, 3), stratified=True)
