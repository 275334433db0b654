"""Closed forms of the panel model against adaptive quadrature, scipy and simulation."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from scipy import integrate, stats

from bayesjudge.panels.dependence import (
    class_probits,
    effective_judges,
    latent_correlation,
    latent_grid,
    log_pattern_probabilities,
    mean_error_correlation,
    pattern_probabilities,
    verdict_correlation,
)
from bayesjudge.panels.rules import complete_patterns
from bayesjudge.panels.simulate import panel_scenario, simulate_panel

SE = np.array([0.9, 0.75, 0.85, 0.6])
SP = np.array([0.7, 0.9, 0.8, 0.95])


def _adaptive(se, sp, loading, pattern, c):
    """P(pattern | class c) by scipy's adaptive quadrature (the reference)."""
    mu = class_probits(se, sp)[c]
    lam = np.asarray(loading)[c]

    def integrand(z):
        out = stats.norm.pdf(z)
        for m, l_, v in zip(mu, lam, pattern, strict=True):
            if v < 0:
                continue
            p = stats.norm.cdf((m + l_ * z) / np.sqrt(1.0 - l_**2))
            out *= p if v == 1 else 1.0 - p
        return out

    kinks = sorted({-m / l_ for m, l_ in zip(mu, lam, strict=True) if l_ > 0 and abs(m / l_) < 9})
    value, _ = integrate.quad(integrand, -12, 12, points=kinks or None, limit=400, epsabs=0)
    return value


@pytest.mark.parametrize("top", [0.0, 0.5, 0.9, 0.99])
def test_pattern_probabilities_match_adaptive_quadrature(top):
    loading = np.array([[top, 0.3, top * 0.8, 0.1], [top * 0.9, 0.5, 0.2, top]])
    patterns = np.array([[1, 1, 1, 1], [1, 0, 1, -1], [0, 0, 0, 0], [0, 1, -1, 1], [-1, 0, 1, 0]])
    got = pattern_probabilities(SE, SP, loading, patterns)
    for c in (0, 1):
        for k, pattern in enumerate(patterns):
            want = _adaptive(SE, SP, loading, pattern, c)
            # tolerance: see test_quadrature_size_is_enough_for_six_judges_...
            assert got[c, k] == pytest.approx(want, rel=1e-7, abs=1e-13)


@functools.cache
def _six_judge_cases(top: float, cases: int = 8) -> tuple:
    """Random six-judge cases with one loading at ``top``, and their adaptive references."""
    rng = np.random.default_rng(3)
    patterns = complete_patterns(6)
    out = []
    for _ in range(cases):
        se, sp = rng.uniform(0.55, 0.97, 6), rng.uniform(0.55, 0.97, 6)
        loading = rng.uniform(0.0, top, (2, 6))
        loading[:, 0] = top
        c = int(rng.integers(2))
        pattern = patterns[rng.integers(len(patterns))]
        out.append((se, sp, loading, pattern, c, _adaptive(se, sp, loading, pattern, c)))
    return tuple(out)


def _worst_relative_error(size: int, top: float) -> float:
    worst = 0.0
    for se, sp, loading, pattern, c, want in _six_judge_cases(top):
        got = pattern_probabilities(se, sp, loading, pattern[None, :], size=size)[c, 0]
        worst = max(worst, abs(got / want - 1.0))
    return worst


def test_quadrature_size_is_enough_for_six_judges_up_to_the_largest_loading():
    # the figures quoted in bayesjudge.panels.dependence (measured worst cases over 30 random
    # six-judge cases: 5e-8 at 0.99, 2e-10 at 0.95, and 5.5e-4 with 61 points at 0.99)
    assert _worst_relative_error(91, 0.99) < 2e-7
    assert _worst_relative_error(91, 0.95) < 1e-9
    # fewer points would not do near a step
    assert _worst_relative_error(61, 0.99) > 1e-4


def test_pattern_law_is_normalised_and_keeps_the_marginals():
    rng = np.random.default_rng(1)
    loading = rng.uniform(0, 0.99, size=(5, 2, 4))  # five parameter draws: batch axis first
    se = np.broadcast_to(SE, (5, 4))
    sp = np.broadcast_to(SP, (5, 4))
    full = pattern_probabilities(se, sp, loading, complete_patterns(4))
    assert full.shape == (5, 2, 16)
    np.testing.assert_allclose(full.sum(axis=-1), 1.0, atol=1e-12)
    # a pattern with one answered judge has that judge's marginal rate, whatever the loadings
    alone = np.full((4, 4), -1)
    np.fill_diagonal(alone, 1)
    single = pattern_probabilities(se, sp, loading, alone)
    np.testing.assert_allclose(single[:, 1], se, atol=1e-12)
    np.testing.assert_allclose(single[:, 0], 1.0 - sp, atol=1e-12)
    # missing verdicts marginalise: P(v1, missing) = sum over v2 of P(v1, v2)
    pair = pattern_probabilities(se, sp, loading, [[1, -1, -1, -1]])
    summed = pattern_probabilities(se, sp, loading, [[1, 0, -1, -1], [1, 1, -1, -1]]).sum(-1)
    np.testing.assert_allclose(pair[..., 0], summed, atol=1e-12)


def test_zero_loading_is_conditional_independence():
    patterns = complete_patterns(4)
    got = pattern_probabilities(SE, SP, np.zeros((2, 4)), patterns)
    for k, v in enumerate(patterns):
        pass_ = np.prod(np.where(v == 1, SE, 1 - SE))
        fail = np.prod(np.where(v == 1, 1 - SP, SP))
        assert got[1, k] == pytest.approx(pass_, rel=1e-12)
        assert got[0, k] == pytest.approx(fail, rel=1e-12)


def test_verdict_correlation_matches_the_bivariate_normal():
    loading = np.array([[0.2, 0.6, 0.95, 0.0], [0.8, 0.4, 0.7, 0.9]])
    corr = verdict_correlation(SE, SP, loading)
    mu = class_probits(SE, SP)
    for c, s, t in itertools.product((0, 1), range(4), range(4)):
        if s == t:
            assert corr[c, s, t] == 1.0
            continue
        rho = loading[c, s] * loading[c, t]
        both = stats.multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]]).cdf(
            [mu[c, s], mu[c, t]]
        )
        p_s, p_t = stats.norm.cdf(mu[c, s]), stats.norm.cdf(mu[c, t])
        want = (both - p_s * p_t) / np.sqrt(p_s * (1 - p_s) * p_t * (1 - p_t))
        assert corr[c, s, t] == pytest.approx(want, abs=2e-6)  # scipy's Genz CDF: ~1e-7
    assert corr[0, 0, 3] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(latent_correlation(loading)[1, 0, 1], 0.32)


def test_effective_judges_is_kish():
    corr = np.full((6, 6), 0.5)
    np.fill_diagonal(corr, 1.0)
    assert mean_error_correlation(corr) == pytest.approx(0.5)
    assert effective_judges(0.5, 6) == pytest.approx(6 / 3.5)
    assert effective_judges(0.0, 6) == 6.0
    assert effective_judges(1.0, 6) == 1.0
    # batch axes pass through
    batch = np.stack([np.eye(3), np.ones((3, 3))])
    np.testing.assert_allclose(effective_judges(mean_error_correlation(batch), 3), [3.0, 1.0])


def test_simulator_and_closed_forms_agree():
    scenario = panel_scenario(4)
    sim = simulate_panel(
        pi=0.5,
        se=scenario["se"],
        sp=scenario["sp"],
        loading=scenario["loading"],
        n_unlabelled=100_000,
        n_gold=0,
        random_seed=7,
    )
    codes = sim.data.verdicts @ (2 ** np.arange(3, -1, -1))
    probs = pattern_probabilities(
        scenario["se"], scenario["sp"], scenario["loading"], complete_patterns(4)
    )
    for c in (0, 1):
        members = sim.classes == c
        counts = np.bincount(codes[members].astype(int), minlength=16)
        expected = probs[c] * members.sum()
        z = (counts - expected) / np.sqrt(expected * (1 - probs[c]))
        assert np.max(np.abs(z)) < 4.5  # 32 cells: |z| > 4.5 has probability ~2e-4 in all
        empirical = np.corrcoef(sim.data.verdicts[members].T)
        np.testing.assert_allclose(empirical, sim.truth.error_correlation[c], atol=0.02)


def test_argument_checks():
    with pytest.raises(ValueError, match="loading must lie in"):
        pattern_probabilities(SE, SP, np.ones((2, 4)), complete_patterns(4))
    with pytest.raises(ValueError, match=r"patterns must have shape \(P, 4\)"):
        log_pattern_probabilities(SE, SP, np.zeros((2, 4)), [[1, 0]])
    with pytest.raises(ValueError, match="patterns must hold"):
        log_pattern_probabilities(SE, SP, np.zeros((2, 4)), [[1, 0, 2, 1]])
    with pytest.raises(ValueError, match="size must be"):
        latent_grid(2)
    with pytest.raises(ValueError, match="n_judges must be"):
        effective_judges(0.1, 0)
