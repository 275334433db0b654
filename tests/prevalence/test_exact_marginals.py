"""The exact marginal posteriors of Se, Sp and J (bayesjudge.prevalence.exact).

Independent references: nested adaptive quadrature (scipy.integrate.quad_vec) with the pi
integral in closed form under a uniform prior on pi, and importance sampling under the Jeffreys
default. Internal consistency: the three marginals and pi's carry the same total mass, and
their means equal the moments from pi's quadrature (a different set of nodes).
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from scipy import integrate, special, stats

from bayesjudge.examples import load_example
from bayesjudge.prevalence import exact as exact_module
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.exact import ExactMarginal, exact_posterior
from bayesjudge.priors import Beta, PrevalencePriors

LOW = JudgeCounts(m1=122, x1=103, m0=401, x0=2, n=3330, k=50)
EXAMPLE = JudgeData.from_frame(load_example("judge")).counts
NEAR_ONE = JudgeCounts(m1=100, x1=95, m0=100, x0=10, n=1000, k=945)  # pi close to 1
NO_FALSE_PASS = JudgeCounts(m1=300, x1=280, m0=20, x0=0, n=500, k=300)  # f_f has a pole at 0
UNIFORM_PI = PrevalencePriors(pi=Beta(1.0, 1.0))
QS = np.array([0.025, 0.5, 0.975])
NAMES = ("se", "sp", "j")


def _uniform_pi_cdf_reference(counts: JudgeCounts, at: dict[str, np.ndarray]) -> dict[str, float]:
    """P(Se <= a), P(Sp <= b), P(J <= c) under a uniform prior on pi, J > 0, by quad_vec.

    With pi ~ U(0, 1), the integral over pi of R^k (1 - R)^(n - k), R = 1 - Sp + J pi, is
    B(k + 1, n - k + 1) [I(Se) - I(1 - Sp)] / J with I the regularised incomplete Beta function
    of (k + 1, n - k + 1). The (Se, Sp) integral over Se + Sp > 1 is nested adaptive
    Gauss-Kronrod quadrature (scipy.integrate.quad_vec) of the vector of the total and every
    event's indicator, with the events' edges given as break points.
    """
    k, n = counts.k, counts.n
    a_e, b_e = 0.5 + counts.x1, 0.5 + counts.m1 - counts.x1
    a_p, b_p = 0.5 + counts.m0 - counts.x0, 0.5 + counts.x0
    fe, fp = stats.beta(a_e, b_e), stats.beta(a_p, b_p)
    se_lo, se_hi = fe.ppf(1e-14), fe.isf(1e-14)
    sp_lo, sp_hi = fp.ppf(1e-14), fp.isf(1e-14)
    log_norm = special.betaln(a_e, b_e) + special.betaln(a_p, b_p)
    cut_se, cut_sp, cut_j = at["se"], at["sp"], at["j"]

    def inner(se: float) -> np.ndarray:
        lo = max(sp_lo, 1.0 - se)
        out = np.zeros(1 + cut_sp.size + cut_j.size + cut_se.size)
        if sp_hi <= lo:
            return out
        sp_edges = 1.0 + cut_j - se  # J <= c  <=>  Sp <= 1 + c - Se
        log_fe = special.xlogy(a_e - 1, se) + special.xlog1py(b_e - 1, -se) - log_norm

        def integrand(sp: float) -> np.ndarray:
            j = se + sp - 1.0
            pi_integral = special.betainc(k + 1, n - k + 1, se) - special.betainc(
                k + 1, n - k + 1, 1.0 - sp
            )
            w = np.exp(log_fe + special.xlogy(a_p - 1, sp) + special.xlog1py(b_p - 1, -sp))
            w *= pi_integral / j
            return w * np.concatenate([[1.0], sp <= cut_sp, sp <= sp_edges])

        points = [p for p in (*cut_sp, *sp_edges) if lo < p < sp_hi]
        part = integrate.quad_vec(integrand, lo, sp_hi, points=points, epsabs=0, epsrel=1e-10)
        out[: -cut_se.size] = part[0]
        out[-cut_se.size :] = part[0][0] * (se <= cut_se)
        return out

    points = [p for p in cut_se if se_lo < p < se_hi]
    total = integrate.quad_vec(inner, se_lo, se_hi, points=points, epsabs=0, epsrel=1e-10)[0]
    cdf = total[1:] / total[0]
    return {
        "sp": cdf[: cut_sp.size],
        "j": cdf[cut_sp.size : cut_sp.size + cut_j.size],
        "se": cdf[cut_sp.size + cut_j.size :],
    }


@pytest.mark.parametrize(
    "counts",
    [pytest.param(LOW, marks=pytest.mark.slow, id="low_prevalence"), EXAMPLE],
    ids=["low_prevalence", "bundled_example"],
)
def test_against_nested_quad_with_uniform_pi(counts: JudgeCounts) -> None:
    post = exact_posterior(counts, priors=UNIFORM_PI)
    at = {name: np.asarray(post.marginal(name).quantile(QS)) for name in NAMES}
    reference = _uniform_pi_cdf_reference(counts, at)
    for name in NAMES:
        # the reference CDF at our quantiles is the quantile level to 2e-7
        # (measured: <= 2e-8 on the bundled example, <= 5.1e-8 on the low-prevalence data)
        np.testing.assert_allclose(reference[name], QS, atol=2e-7, err_msg=name)


def _importance_quantiles(
    counts: JudgeCounts, *, draws: int, seed: int
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Quantiles of Se, Sp, J under the Jeffreys default (J > 0) with their standard errors.

    Proposal: pi from its prior, Se and Sp from their calibration-only posteriors; weight
    R^k (1 - R)^(n - k) 1{J > 0}. The standard error of a quantile is the delta-method one,
    sqrt(sum w^2 (1{x <= q} - p)^2) over the density at q (from a weighted histogram).
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
    out = {}
    for name, x in (("se", se), ("sp", sp), ("j", se + sp - 1.0)):
        order = np.argsort(x)
        cum = np.cumsum(w[order])
        values = np.interp(QS, cum, x[order])
        sd = np.sqrt(np.sum(w * (x - np.sum(w * x)) ** 2))
        errors = []
        for q, value in zip(QS, values, strict=True):
            se_p = np.sqrt(np.sum(w**2 * ((x <= value) - q) ** 2))
            h = 0.1 * sd
            density = np.sum(w * (np.abs(x - value) < h)) / (2 * h)
            errors.append(se_p / density)
        out[name] = (values, np.array(errors))
    return out


@pytest.mark.parametrize(
    "counts", [LOW, EXAMPLE, NEAR_ONE], ids=["low_prevalence", "bundled_example", "pi_near_1"]
)
def test_against_importance_sampling_jeffreys(counts: JudgeCounts) -> None:
    post = exact_posterior(counts)
    reference = _importance_quantiles(counts, draws=1_000_000, seed=20260102)
    for name in NAMES:
        got = np.asarray(post.marginal(name).quantile(QS))
        values, errors = reference[name]
        # within 5 Monte Carlo standard errors (measured: at most 2.3)
        assert np.all(np.abs(got - values) < 5 * errors), (name, got, values, errors)


@pytest.mark.parametrize(
    "counts",
    [LOW, EXAMPLE, NEAR_ONE, NO_FALSE_PASS],
    ids=["low_prevalence", "bundled_example", "pi_near_1", "no_false_pass"],
)
@pytest.mark.parametrize("restrict_j", [True, False])
def test_marginals_agree_with_pi_quadrature(counts: JudgeCounts, restrict_j: bool) -> None:
    post = exact_posterior(counts, restrict_j=restrict_j)
    moments = post.summary()
    for name in NAMES:
        marginal = post.marginal(name)
        # its own grid's mean against the moment from pi's nodes
        t = marginal._t
        x = marginal._value(t)
        density = marginal._spline.dydx  # the normalised density at the grid points
        own_mean = integrate.simpson(density * x, x=t)
        # measured: <= 1.8e-8, in the no-false-pass data, where both quadratures, refined
        # (grid_size=2049, nodes=192; 64 nodes, panel tolerance 1e-11), agree to 1e-10
        assert own_mean == pytest.approx(moments.loc[name, "mean"], abs=3e-8), name
        assert marginal.mean == moments.loc[name, "mean"]
        assert marginal.sd == moments.loc[name, "sd"]
    # the same total posterior mass from each marginal: 1e-6 relative (measured: <= 8e-7)
    masses = [post.marginal(name)._log_mass for name in NAMES]
    assert np.ptp(masses) < 1e-6


def test_convergence_when_nodes_and_tolerance_tighten(monkeypatch: pytest.MonkeyPatch) -> None:
    base = exact_posterior(EXAMPLE)
    before = [base.marginal(name).quantile(QS) for name in NAMES]
    monkeypatch.setattr(exact_module, "_R_NODES", 48)
    monkeypatch.setattr(exact_module, "_F_NODES", 48)
    monkeypatch.setattr(exact_module, "_PANEL_TOL", 1e-10)
    fine = exact_posterior(EXAMPLE)
    for name, quantiles in zip(NAMES, before, strict=True):
        # measured: <= 2.4e-8 on four data sets (also with 64 nodes and 1e-11); tolerance 1e-7
        np.testing.assert_allclose(quantiles, fine.marginal(name).quantile(QS), atol=1e-7)


def test_flipping_labels_swaps_se_and_sp() -> None:
    data = JudgeData.from_frame(load_example("judge"))
    post, flipped = exact_posterior(data), exact_posterior(data.flipped())
    # the two runs use different orientations and grids: 1e-6
    np.testing.assert_allclose(
        post.marginal("se").quantile(QS), flipped.marginal("sp").quantile(QS), atol=1e-6
    )
    np.testing.assert_allclose(
        post.marginal("j").quantile(QS), flipped.marginal("j").quantile(QS), atol=1e-6
    )


def test_a_perfectly_known_judge_leaves_the_calibration_posterior() -> None:
    # with ~1e8 calibration items the test set cannot move Se: its marginal is the conjugate
    # Beta(x1 + 1/2, m1 - x1 + 1/2) up to relative changes of ~1e-6
    m = 10**8
    counts = JudgeCounts(m1=m, x1=9 * m // 10, m0=m, x0=15 * m // 100, n=500, k=350)
    post = exact_posterior(counts)
    beta = stats.beta(0.5 + counts.x1, 0.5 + m - counts.x1)
    np.testing.assert_allclose(post.marginal("se").quantile(QS), beta.ppf(QS), atol=1e-9)


def test_distribution_functions_and_summaries() -> None:
    post = exact_posterior(LOW)
    marginal = post.marginal("sp")
    assert isinstance(marginal, ExactMarginal)
    assert post.marginal("sp") is marginal  # computed once
    q = marginal.quantile(QS)
    np.testing.assert_allclose(marginal.cdf(q), QS, atol=1e-9)
    assert marginal.cdf(0.0) == 0.0
    assert marginal.cdf(1.0) == 1.0
    assert marginal.median == pytest.approx(q[1])
    interval = marginal.eti(0.9)
    assert (interval.kind, interval.prob) == ("eti", 0.9)
    assert interval.low == pytest.approx(marginal.quantile(0.05))
    summaries = post.summaries(0.9)
    assert list(summaries) == ["pi", "se", "sp", "j"]
    for name in NAMES:
        s = summaries[name]
        assert s.hdi is None
        assert s.eti == post.marginal(name).eti(0.9)
        assert s.to_dict()["prob"] == 0.9
    assert summaries["pi"].hdi is not None
    with pytest.raises(ValueError, match=r"name must be one of \['se', 'sp', 'j'\]; got 'pi'"):
        post.marginal("pi")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="q must lie in"):
        marginal.quantile(1.5)


def test_unrestricted_j_can_be_negative() -> None:
    # a weak judge with few calibration items: the J < 0 mirror mode carries real mass
    counts = JudgeCounts(m1=10, x1=6, m0=10, x0=4, n=200, k=100)
    post = exact_posterior(counts, restrict_j=False)
    j = post.marginal("j")
    assert j.quantile(0.025) < 0.0 < j.quantile(0.975)
    restricted = exact_posterior(counts).marginal("j")
    assert restricted.quantile(0.0) >= 0.0


def test_docstring_examples_run() -> None:
    result = doctest.testmod(exact_module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
