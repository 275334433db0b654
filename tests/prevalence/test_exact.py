"""Tests of the exact (numerical-integration) posterior of the prevalence model.

References used here are independent of bayesjudge.prevalence.exact: scipy.integrate.quad / dblquad
with closed forms for the innermost integral, scipy.stats.beta, and importance sampling.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, optimize, special, stats

from bayesjudge.errors import DataError
from bayesjudge.examples import load_example
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.exact import ExactPosterior, exact_posterior
from bayesjudge.priors import Beta, PrevalencePriors
from bayesjudge.results import Estimate, Interval

LOW = JudgeCounts(m1=122, x1=103, m0=401, x0=2, n=3330, k=50)
EXAMPLE = JudgeData.from_frame(load_example("judge")).counts
UNIFORM_PI = PrevalencePriors(pi=Beta(1.0, 1.0))


def _summary(post: ExactPosterior) -> np.ndarray:
    return np.array([post.mean, post.sd, *post.quantile([0.025, 0.5, 0.975])])


@pytest.fixture(scope="module")
def low_post() -> ExactPosterior:
    return exact_posterior(LOW)


@pytest.fixture(scope="module")
def example_post() -> ExactPosterior:
    return exact_posterior(EXAMPLE)


# --------------------------------------------------------------------------- (1) known Se, Sp
def test_known_se_sp_matches_one_dimensional_quad() -> None:
    # m = 1e8 calibration items: Se, Sp have sd ~4e-5, so the pi posterior is that of fixed
    # Se = 0.9, Sp = 0.85 up to a relative variance change of ~1e-6. Tolerance 2e-6 absolute.
    m = 10**8
    counts = JudgeCounts(m1=m, x1=9 * m // 10, m0=m, x0=15 * m // 100, n=500, k=350)
    post = exact_posterior(counts, restrict_j=False)
    se, sp = (0.5 + counts.x1) / (1.0 + m), (0.5 + m - counts.x0) / (1.0 + m)

    def log_lik(pi: float) -> float:
        r = pi * se + (1.0 - pi) * (1.0 - sp)
        return counts.k * np.log(r) + (counts.n - counts.k) * np.log1p(-r)

    top = log_lik(0.7)

    def moment(power: int, upper: float = 1.0) -> float:
        # Jeffreys prior as the algebraic weight pi^(-1/2) (1 - pi)^(-1/2) of QUADPACK
        return integrate.quad(
            lambda x: x**power * np.exp(log_lik(x) - top),
            0.0,
            upper,
            weight="alg",
            wvar=(-0.5, -0.5),
            limit=200,
            epsabs=0.0,
            epsrel=1e-12,
        )[0]

    z, m1, m2 = moment(0), moment(1), moment(2)
    mean, sd = m1 / z, np.sqrt(m2 / z - (m1 / z) ** 2)

    def cdf(x: float) -> float:
        return (
            integrate.quad(
                lambda u: np.exp(log_lik(u) - top) / np.sqrt(u * (1 - u)),
                0.0,
                x,
                limit=200,
                epsabs=0.0,
                epsrel=1e-12,
            )[0]
            / z
        )

    q_lo = optimize.brentq(lambda x: cdf(x) - 0.025, 0.4, 0.9, xtol=1e-12)
    q_hi = optimize.brentq(lambda x: cdf(x) - 0.975, 0.4, 0.99, xtol=1e-12)
    np.testing.assert_allclose(
        [post.mean, post.sd, *post.quantile([0.025, 0.975])], [mean, sd, q_lo, q_hi], atol=2e-6
    )


# --------------------------------------------------------------------------- (2) brute force
def _nested_quad_reference(
    counts: JudgeCounts, priors: PrevalencePriors, cdf_at: tuple[float, ...]
) -> dict[str, float]:
    """Posterior summaries with a uniform prior on pi, by adaptive quadrature over (Se, Sp).

    With pi ~ U(0, 1) the pi integral is closed form: R = 1 - Sp + J pi runs over
    (1 - Sp, Se), so int pi^j R^k (1-R)^(n-k) dpi is a combination of regularised incomplete
    Beta differences (in units of B(k+1, n-k+1)). The (Se, Sp) integral over Se + Sp > 1 is done
    by nested adaptive Gauss-Kronrod quadrature (scipy.integrate.quad_vec), all summaries at once.
    """
    assert priors.pi == Beta(1.0, 1.0)
    k, n = counts.k, counts.n
    a_e, b_e = priors.se.alpha + counts.x1, priors.se.beta + counts.m1 - counts.x1
    a_p, b_p = priors.sp.alpha + counts.m0 - counts.x0, priors.sp.beta + counts.x0
    fe, fp = stats.beta(a_e, b_e), stats.beta(a_p, b_p)
    ratio1 = (k + 1.0) / (n + 2.0)
    ratio2 = ratio1 * (k + 2.0) / (n + 3.0)
    ts = np.asarray(cdf_at, dtype=float)
    log_beta = special.betaln(a_e, b_e) + special.betaln(a_p, b_p)

    def delta(shift: int, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        return special.betainc(k + 1 + shift, n - k + 1, hi) - special.betainc(
            k + 1 + shift, n - k + 1, lo
        )

    def pieces(sp: float, se: float) -> np.ndarray:
        j, c = se + sp - 1.0, 1.0 - sp
        hi = np.concatenate([[se], c + j * ts])
        r0 = delta(0, np.full_like(hi, c), hi)
        r1, r2 = ratio1 * delta(1, c, se), ratio2 * delta(2, c, se)
        a0 = r0[0] / j
        a1 = (r1 - c * r0[0]) / j**2
        a2 = (r2 - 2 * c * r1 + c * c * r0[0]) / j**3
        w = np.exp(
            special.xlogy(a_e - 1, se)
            + special.xlog1py(b_e - 1, -se)
            + special.xlogy(a_p - 1, sp)
            + special.xlog1py(b_p - 1, -sp)
            - log_beta
        )
        # Z, E[pi], E[pi^2], E[Se], E[Sp], E[R - pi], then P(pi <= t) for each t
        head = [a0, a1, a2, se * a0, sp * a0, c * a0 + (j - 1.0) * a1]
        return w * np.concatenate([head, r0[1:] / j])

    se_lo, se_hi = fe.ppf(1e-13), fe.isf(1e-13)
    sp_lo, sp_hi = fp.ppf(1e-13), fp.isf(1e-13)

    def inner(se: float) -> np.ndarray:
        lo = max(sp_lo, 1.0 - se)
        if lo >= sp_hi:
            return np.zeros(6 + ts.size)
        return integrate.quad_vec(pieces, lo, sp_hi, args=(se,), epsabs=0.0, epsrel=1e-10)[0]

    total = integrate.quad_vec(inner, se_lo, se_hi, epsabs=0.0, epsrel=1e-10)[0]
    z = total[0]
    mean = total[1] / z
    return {
        "mean": mean,
        "sd": float(np.sqrt(total[2] / z - mean**2)),
        "se": total[3] / z,
        "sp": total[4] / z,
        "bias": total[5] / z,
        "cdf": total[6:] / z,
        "log_z": float(
            np.log(z)
            + special.betaln(k + 1, n - k + 1)
            + special.betaln(a_e, b_e)
            + special.betaln(a_p, b_p)
        ),
    }


@pytest.mark.parametrize("counts", [LOW, EXAMPLE], ids=["low_prevalence", "bundled_example"])
def test_against_nested_quad_reference(counts: JudgeCounts) -> None:
    post = exact_posterior(counts, priors=UNIFORM_PI)
    qs = (0.025, 0.975)
    ref = _nested_quad_reference(counts, UNIFORM_PI, tuple(post.quantile(np.array(qs))))
    # moments: agreement to 1e-7 absolute (measured: about 1e-10)
    assert post.mean == pytest.approx(ref["mean"], abs=1e-7)
    assert post.sd == pytest.approx(ref["sd"], abs=1e-7)
    summary = post.summary()
    assert summary.loc["se", "mean"] == pytest.approx(ref["se"], abs=1e-7)
    assert summary.loc["sp", "mean"] == pytest.approx(ref["sp"], abs=1e-7)
    assert summary.loc["j", "mean"] == pytest.approx(ref["se"] + ref["sp"] - 1.0, abs=1e-7)
    assert summary.loc["bias", "mean"] == pytest.approx(ref["bias"], abs=1e-7)
    # quantiles: the reference CDF at our 2.5 % / 97.5 % quantiles is 0.025 / 0.975 to 1e-7
    np.testing.assert_allclose(ref["cdf"], qs, atol=1e-7)
    # marginal likelihood: binomials * B(.)s * Z / P(J > 0), with P(J > 0) = 1/2 (Jeffreys Se, Sp)
    c = counts
    log_binom = sum(
        special.gammaln(t + 1) - special.gammaln(p + 1) - special.gammaln(t - p + 1)
        for t, p in ((c.m1, c.x1), (c.m0, c.x0), (c.n, c.k))
    )
    log_ev = log_binom + ref["log_z"] - 2 * special.betaln(0.5, 0.5) + np.log(2.0)
    assert post.log_evidence == pytest.approx(log_ev, abs=1e-7)


def _importance_reference(
    counts: JudgeCounts, *, draws: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Self-normalised importance sampling under the Jeffreys default, restricted to J > 0.

    Proposal: pi from its prior, Se and Sp from their calibration-only posteriors; weight
    R^k (1 - R)^(n - k) 1{J > 0}. Returns (mean, sd, q2.5, q97.5) and standard errors of the
    mean and of the two quantiles (delta method, via the weighted CDF).
    """
    rng = np.random.default_rng(seed)
    c = counts
    pi = rng.beta(0.5, 0.5, draws)
    se = rng.beta(0.5 + c.x1, 0.5 + c.m1 - c.x1, draws)
    sp = rng.beta(0.5 + c.m0 - c.x0, 0.5 + c.x0, draws)
    r = pi * se + (1 - pi) * (1 - sp)
    log_w = special.xlogy(c.k, r) + special.xlog1py(c.n - c.k, -r)
    log_w = np.where(se + sp > 1.0, log_w, -np.inf)
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    mean = np.sum(w * pi)
    var = np.sum(w * (pi - mean) ** 2)
    order = np.argsort(pi)
    cum = np.cumsum(w[order])
    quantiles = np.interp([0.025, 0.975], cum, pi[order])
    se_mean = np.sqrt(np.sum(w**2 * (pi - mean) ** 2))
    se_q = []
    for q, value in zip((0.025, 0.975), quantiles, strict=True):
        ind = (pi <= value).astype(float)
        se_p = np.sqrt(np.sum(w**2 * (ind - q) ** 2))
        # density at the quantile from the weighted histogram over +-0.25 sd
        h = 0.25 * np.sqrt(var)
        dens = np.sum(w * (np.abs(pi - value) < h)) / (2 * h)
        se_q.append(se_p / dens)
    value = np.array([mean, np.sqrt(var), *quantiles])
    errors = np.array([se_mean, se_mean, *se_q])  # sd's error taken as the mean's (rough)
    return value, errors


@pytest.mark.parametrize("counts", [LOW, EXAMPLE], ids=["low_prevalence", "bundled_example"])
def test_against_importance_sampling_jeffreys(counts: JudgeCounts) -> None:
    post = exact_posterior(counts)
    value, errors = _importance_reference(counts, draws=1_500_000, seed=20260101)
    got = np.array([post.mean, post.sd, *post.quantile([0.025, 0.975])])
    # within 5 Monte Carlo standard errors (the errors are ~1e-4 of the sd or larger)
    assert np.all(np.abs(got - value) < 5 * errors), (got, value, errors)


# --------------------------------------------------------------------------- (3) convergence
@pytest.mark.parametrize("counts", [LOW, EXAMPLE], ids=["low_prevalence", "bundled_example"])
def test_doubling_grid_and_nodes_changes_little(counts: JudgeCounts) -> None:
    base = _summary(exact_posterior(counts))
    fine = _summary(exact_posterior(counts, grid_size=1025, nodes=96))
    # measured: < 1e-7 for both data sets; tolerance 1e-6
    np.testing.assert_allclose(base, fine, rtol=0, atol=1e-6)


# --------------------------------------------------------------------------- (4) label switching
@pytest.mark.parametrize("restrict_j", [False, True])
def test_flipping_labels_mirrors_pi(restrict_j: bool) -> None:
    data = JudgeData.from_frame(load_example("judge"))
    post = exact_posterior(data, restrict_j=restrict_j)
    flipped = exact_posterior(data.flipped(), restrict_j=restrict_j)
    qs = np.array([0.025, 0.25, 0.5, 0.75, 0.975])
    # tolerance 1e-7 (the two runs use different quadrature orientations)
    assert post.mean == pytest.approx(1.0 - flipped.mean, abs=1e-7)
    assert post.sd == pytest.approx(flipped.sd, abs=1e-7)
    np.testing.assert_allclose(post.quantile(qs), 1.0 - flipped.quantile(1.0 - qs), atol=1e-7)
    assert post.log_evidence == pytest.approx(flipped.log_evidence, abs=1e-7)


def test_unrestricted_posterior_is_mixture_of_restricted_and_mirror() -> None:
    # A weak judge with few calibration items: the J < 0 mirror mode carries real mass.
    # Mapping (pi, Se, Sp) -> (1 - pi, 1 - Sp, 1 - Se) sends J < 0 to J > 0, keeps R, and turns
    # the calibration likelihood into that of the swapped counts (m1, x1) <-> (m0, x0). With
    # Jeffreys priors (symmetric) and P(J > 0) = 1/2:
    #   p_unres(pi) = w p_plus(pi) + (1 - w) p_swapped(1 - pi),  w = e_plus / (e_plus + e_swap),
    #   p(data)_unres = (p(data)_plus + p(data)_swap) / 2.
    counts = JudgeCounts(m1=20, x1=12, m0=20, x0=8, n=2000, k=1140)
    swapped = JudgeCounts(m1=20, x1=8, m0=20, x0=12, n=2000, k=1140)
    unres = exact_posterior(counts, restrict_j=False)
    plus = exact_posterior(counts)
    minus = exact_posterior(swapped)
    w = 1.0 / (1.0 + np.exp(minus.log_evidence - plus.log_evidence))
    xs = np.linspace(0.05, 0.95, 19)
    mixture = w * plus.cdf(xs) + (1.0 - w) * (1.0 - minus.cdf(1.0 - xs))
    np.testing.assert_allclose(unres.cdf(xs), mixture, atol=1e-7)
    assert unres.log_evidence == pytest.approx(
        np.logaddexp(plus.log_evidence, minus.log_evidence) - np.log(2.0), abs=1e-7
    )
    # the mirror (J < 0) component carries real mass here, and the restricted posterior is
    # exactly the unrestricted one with that component removed (the identities above):
    assert 1.0 - w > 0.1  # measured 0.12
    assert plus.summary().loc["j", "mean"] > 0
    # J -> -J under the mirror map, so E_unres[J] = w E_plus[J] - (1 - w) E_swap[J] (to 1e-7)
    j_mix = w * plus.summary().loc["j", "mean"] - (1.0 - w) * minus.summary().loc["j", "mean"]
    assert unres.summary().loc["j", "mean"] == pytest.approx(j_mix, abs=1e-7)


# --------------------------------------------------------------------------- (5) priors
def test_informative_prior_moves_posterior_towards_prior_mean(low_post: ExactPosterior) -> None:
    prior = Beta(20.0, 80.0)  # mean 0.2, far above the Jeffreys posterior mean ~0.01
    post = exact_posterior(LOW, priors=PrevalencePriors(pi=prior))
    assert low_post.mean < post.mean < prior.mean
    low_prior = Beta(1.0, 999.0)  # mean 0.001, below it
    post_low = exact_posterior(LOW, priors=PrevalencePriors(pi=low_prior))
    assert low_prior.mean < post_low.mean < low_post.mean


def test_perfect_known_judge_gives_conjugate_beta() -> None:
    # Se = Sp = 1 known: R = pi, so pi | k ~ Beta(a + k, b + n - k). With 1e8 perfect calibration
    # items the remaining error is ~1e-8 per item; tolerance 1e-6 absolute.
    m = 10**8
    counts = JudgeCounts(m1=m, x1=m, m0=m, x0=0, n=400, k=130)
    prior = Beta(2.0, 3.0)
    post = exact_posterior(counts, priors=PrevalencePriors(pi=prior))
    ref = stats.beta(prior.alpha + 130, prior.beta + 270)
    qs = np.array([0.01, 0.025, 0.5, 0.975, 0.99])
    np.testing.assert_allclose(
        [post.mean, post.sd, *post.quantile(qs)], [ref.mean(), ref.std(), *ref.ppf(qs)], atol=1e-6
    )
    xs = np.array([0.28, 0.32, 0.36])
    np.testing.assert_allclose(post.cdf(xs), ref.cdf(xs), atol=1e-6)
    np.testing.assert_allclose(post.pdf(xs), ref.pdf(xs), rtol=1e-5)


# --------------------------------------------------------------------------- result object
def test_distribution_functions_are_consistent(low_post: ExactPosterior) -> None:
    post = low_post
    # the Jeffreys pole at pi = 0 is integrable: the pdf integrates to 1 (QUADPACK over
    # pi = u^2, which removes the pole; tolerance 1e-6)
    total = integrate.quad(
        lambda u: 2 * u * post.pdf(u * u), 0.0, 1.0, points=[np.sqrt(post.mean)], limit=400
    )[0]
    assert total == pytest.approx(1.0, abs=1e-6)
    xs = post.quantile(np.array([0.1, 0.5, 0.9]))
    np.testing.assert_allclose(post.cdf(xs), [0.1, 0.5, 0.9], atol=1e-9)
    h = 1e-6
    slope = (post.cdf(xs + h) - post.cdf(xs - h)) / (2 * h)
    np.testing.assert_allclose(post.pdf(xs), slope, rtol=1e-4)
    assert post.cdf(-0.5) == 0.0
    assert post.cdf(1.5) == 1.0
    assert post.pdf(1.5) == 0.0
    assert post.quantile(np.zeros((2, 2))).shape == (2, 2)
    assert isinstance(post.quantile(0.5), float)
    assert np.all(np.isfinite(post.density[1:]))
    assert np.all(post.density >= 0)
    assert post.grid.shape == post.density.shape


@pytest.mark.parametrize("fixture", ["low_post", "example_post"])
def test_intervals(fixture: str, request: pytest.FixtureRequest) -> None:
    post: ExactPosterior = request.getfixturevalue(fixture)
    eti, hdi = post.eti(0.9), post.hdi(0.9)
    assert (eti.kind, hdi.kind, eti.prob, hdi.prob) == ("eti", "hdi", 0.9, 0.9)
    assert post.cdf(eti.low) == pytest.approx(0.05, abs=1e-9)
    assert post.cdf(eti.high) == pytest.approx(0.95, abs=1e-9)
    assert post.cdf(hdi.high) - post.cdf(hdi.low) == pytest.approx(0.9, abs=1e-8)
    assert hdi.width <= eti.width + 1e-12
    # shortest: moving the lower tail mass either way widens the interval
    alpha = float(post.cdf(hdi.low))
    for shift in (-0.002, 0.002):
        a = min(max(alpha + shift, 0.0), 0.1)
        if a != alpha:
            assert post.quantile(a + 0.9) - post.quantile(a) >= hdi.width - 1e-9


def test_hdi_of_low_prevalence_starts_at_zero(low_post: ExactPosterior) -> None:
    # the density has the Jeffreys pole at pi = 0, so the shortest interval starts there
    assert low_post.hdi(0.95).low < 1e-8


def test_to_estimate(example_post: ExactPosterior) -> None:
    est = example_post.to_estimate(0.9)
    assert isinstance(est, Estimate)
    assert est.method == "bayes_exact"
    assert est.estimate == example_post.mean
    assert est.se == example_post.sd
    assert est.interval == example_post.eti(0.9)
    assert est.j == pytest.approx(example_post.summary().loc["j", "mean"])
    assert est.notes
    assert "J" in est.notes[0]
    assert example_post.to_estimate(interval="hdi").interval == example_post.hdi(0.95)
    row = est.to_series()
    assert row["method"] == "bayes_exact"
    assert row["interval"] == "eti"


def test_summary_frame(example_post: ExactPosterior) -> None:
    frame = example_post.summary()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.index) == ["pi", "se", "sp", "j", "bias"]
    assert list(frame.columns) == ["mean", "sd"]
    assert frame.loc["pi", "mean"] == example_post.mean
    frame.loc["pi", "mean"] = -1.0  # a copy: the result object is unchanged
    assert example_post.mean > 0


def test_accepts_frames_and_counts(example_post: ExactPosterior) -> None:
    frame = load_example("judge")
    for data in (frame, JudgeData.from_frame(frame)):
        assert exact_posterior(data).mean == pytest.approx(example_post.mean, abs=1e-12)


@pytest.mark.parametrize(
    "counts",
    [
        JudgeCounts(m1=50, x1=45, m0=50, x0=0, n=5000, k=1200),  # x0 = 0: f_Sp has a pole at 1
        JudgeCounts(m1=100, x1=90, m0=100, x0=5, n=2000, k=0),  # k = 0
        JudgeCounts(m1=122, x1=103, m0=401, x0=2, n=10**6, k=15000),  # huge n, low prevalence
    ],
    ids=["x0_zero", "k_zero", "n_million"],
)
def test_edge_counts_are_finite_and_converged(counts: JudgeCounts) -> None:
    base = exact_posterior(counts)
    fine = exact_posterior(counts, grid_size=1025, nodes=64)
    assert np.isfinite(base.log_evidence)
    # measured: < 2e-7; tolerance 1e-6
    np.testing.assert_allclose(_summary(base), _summary(fine), rtol=0, atol=1e-6)


# --------------------------------------------------------------------------- (6) bad input
def test_score_data_is_rejected() -> None:
    frame = pd.DataFrame({"label": [1, 0, None, None], "score": [0.9, 0.2, 0.7, 0.4]})
    with pytest.raises(DataError, match="scores, not binary verdicts"):
        exact_posterior(frame)


@pytest.mark.parametrize("prob", [0.0, 1.0, 1.5, -0.1, "0.9"])
def test_invalid_prob_is_rejected(low_post: ExactPosterior, prob: object) -> None:
    with pytest.raises(ValueError, match=r"prob must (lie|be a number) in \(0, 1\)"):
        low_post.eti(prob)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"prob must (lie|be a number) in \(0, 1\)"):
        low_post.hdi(prob)  # type: ignore[arg-type]


def test_invalid_options_are_rejected(low_post: ExactPosterior) -> None:
    with pytest.raises(ValueError, match=r"q must lie in \[0, 1\]"):
        low_post.quantile([0.5, 1.2])
    with pytest.raises(ValueError, match="interval must be one of"):
        low_post.to_estimate(interval="wald")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="grid_size must be an integer >= 33"):
        exact_posterior(LOW, grid_size=10)
    with pytest.raises(ValueError, match="nodes must be an integer >= 8"):
        exact_posterior(LOW, nodes=2.5)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="x0 must not exceed m0"):
        exact_posterior(JudgeData.from_counts(10, 5, 10, 11, 100, 50))


def test_interval_type_is_shared(low_post: ExactPosterior) -> None:
    assert isinstance(low_post.eti(), Interval)
    assert isinstance(low_post.hdi(), Interval)


def test_a_posterior_that_vanishes_on_its_grid_is_a_data_error() -> None:
    # labels that make the judge inverted (Se = 0, Sp = 0 on 100 each) leave no mass with
    # J > 0 at any node: the error says so instead of returning NaN
    inverted = JudgeCounts(m1=100, x1=0, m0=100, x0=100, n=100, k=50)
    with pytest.raises(DataError, match="posterior of pi vanishes on its whole grid"):
        exact_posterior(inverted, grid_size=65, nodes=12)
