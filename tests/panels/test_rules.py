"""Vote rules against brute-force enumeration and the independent-judge closed forms."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bayesjudge.estimators import rogan_gladen_variance
from bayesjudge.panels.dependence import pattern_probabilities
from bayesjudge.panels.rules import (
    at_least_rules,
    complete_patterns,
    likelihood_ratio_rule,
    rule_pi_sd,
    rule_rates,
)

SE = np.array([0.9, 0.75, 0.85])
SP = np.array([0.7, 0.9, 0.8])
LOADING = np.array([[0.6, 0.3, 0.8], [0.9, 0.5, 0.2]])


def _brute_force(prob_of, rule):
    """Se and Sp of a rule by enumerating every verdict pattern with itertools."""
    se = sum(prob_of(v, 1) for v in itertools.product((0, 1), repeat=3) if rule(v))
    fpr = sum(prob_of(v, 0) for v in itertools.product((0, 1), repeat=3) if rule(v))
    return se, 1.0 - fpr


def test_complete_patterns_enumerate_every_pattern_once():
    patterns = complete_patterns(4)
    assert patterns.shape == (16, 4)
    assert {tuple(p) for p in patterns} == set(itertools.product((0, 1), repeat=4))
    assert patterns[0].tolist() == [0, 0, 0, 0]
    assert patterns[-1].tolist() == [1, 1, 1, 1]


def test_at_least_rules_against_brute_force():
    patterns = complete_patterns(3)
    probs = pattern_probabilities(SE, SP, LOADING, patterns)
    index = {tuple(p): k for k, p in enumerate(patterns)}

    def prob_of(v, c):
        return probs[c, index[v]]

    names, passes = at_least_rules(3)
    se, sp = rule_rates(probs, passes)
    assert names == ("at_least_1_of_3", "at_least_2_of_3", "at_least_3_of_3")
    for t in (1, 2, 3):
        want = _brute_force(prob_of, lambda v, t=t: sum(v) >= t)
        assert (se[t - 1], sp[t - 1]) == pytest.approx(want, abs=1e-14)


def test_independent_judges_give_the_poisson_binomial_tail():
    probs = pattern_probabilities(SE, SP, np.zeros((2, 3)), complete_patterns(3))
    se, sp = rule_rates(probs, at_least_rules(3)[1])
    # any: 1 - prod(1 - Se); all: prod(Se)
    assert se[0] == pytest.approx(1 - np.prod(1 - SE), abs=1e-13)
    assert se[2] == pytest.approx(np.prod(SE), abs=1e-13)
    assert sp[0] == pytest.approx(np.prod(SP), abs=1e-13)
    assert sp[2] == pytest.approx(1 - np.prod(1 - SP), abs=1e-13)


def test_likelihood_ratio_rule_has_the_largest_j_of_all_256_rules():
    probs = pattern_probabilities(SE, SP, LOADING, complete_patterns(3))
    best = likelihood_ratio_rule(probs)
    every = np.array(list(itertools.product((False, True), repeat=8)))
    se, sp = rule_rates(probs, every)
    j_all = se + sp - 1
    se_best, sp_best = rule_rates(probs, best)
    assert se_best + sp_best - 1 == pytest.approx(j_all.max(), abs=1e-14)
    # and its J is the total-variation distance of the two pattern laws
    assert se_best + sp_best - 1 == pytest.approx(np.abs(probs[1] - probs[0]).sum() / 2, abs=1e-14)


def test_rule_rates_are_vectorised_over_draws():
    rng = np.random.default_rng(2)
    draws = 7
    se = rng.uniform(0.6, 0.95, (draws, 3))
    sp = rng.uniform(0.6, 0.95, (draws, 3))
    loading = rng.uniform(0, 0.9, (draws, 2, 3))
    probs = pattern_probabilities(se, sp, loading, complete_patterns(3))
    _, passes = at_least_rules(3)
    rule_se, rule_sp = rule_rates(probs, passes)
    assert rule_se.shape == rule_sp.shape == (draws, 3)
    for d in range(draws):
        one_se, one_sp = rule_rates(probs[d], passes)
        np.testing.assert_allclose(rule_se[d], one_se)
        np.testing.assert_allclose(rule_sp[d], one_sp)
    sd = rule_pi_sd(rule_se, rule_sp, rng.uniform(0.3, 0.7, draws), n=1000, m1=100, m0=100)
    assert sd.shape == (draws, 3)


def test_rule_pi_sd_is_the_rogan_gladen_delta_method():
    pi, se, sp = 0.6, 0.88, 0.8
    rate = pi * se + (1 - pi) * (1 - sp)
    want = np.sqrt(rogan_gladen_variance(rate=rate, se=se, sp=sp, n=2000, m1=120, m0=80))
    assert rule_pi_sd(se, sp, pi, n=2000, m1=120, m0=80) == pytest.approx(want)
    # by hand: Lee et al., eq. 9, at theta = pi
    manual = np.sqrt(
        rate * (1 - rate) / 2000 + (1 - pi) ** 2 * sp * (1 - sp) / 80 + pi**2 * se * (1 - se) / 120
    ) / (se + sp - 1)
    assert rule_pi_sd(se, sp, pi, n=2000, m1=120, m0=80) == pytest.approx(manual)
    assert np.isnan(rule_pi_sd(0.4, 0.5, 0.5, n=100, m1=10, m0=10))


def test_argument_checks():
    with pytest.raises(ValueError, match=r"n_judges must be a whole number in \[1, 16\]"):
        complete_patterns(0)
    with pytest.raises(ValueError, match=r"pattern_prob must have shape \(2, P\)"):
        likelihood_ratio_rule(np.ones((3, 4)))
    with pytest.raises(ValueError, match="passes covers 3 patterns; pattern_prob has 4"):
        rule_rates(np.ones((2, 4)) / 4, np.ones((1, 3), bool))
