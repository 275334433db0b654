"""The shared count-table predictive check: each statistic, each family's test, the rule."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from bayesjudge.inference.ppc import (
    INTERVAL_PROB,
    PPC_LEVEL,
    CountFamily,
    count_table_check,
)


def test_a_binomial_family_at_a_point_is_the_exact_two_sided_test():
    """One binomial count: T = (y - np)^2 / (np(1-p)), so P(T_rep >= T) is exact."""
    n, p, y = 60, 0.3, 26
    family = CountFamily("one", ["y"], [y], np.full((20000, 1), p), [0], trials=[n])
    check = count_table_check([family], random_seed=0, max_draws=20000)
    k = np.arange(n + 1)
    exact = binom.pmf(k, n, p)[np.abs(k - n * p) >= abs(y - n * p) - 1e-9].sum()
    assert check.tests[0].tail_prob == pytest.approx(exact, abs=4 * np.sqrt(exact / 20000))
    (stat,) = check.statistics
    lower, upper = binom.cdf(y, n, p), binom.sf(y - 1, n, p)
    assert stat.tail_prob == pytest.approx(min(1.0, 2 * min(lower, upper)))
    assert stat.expected == pytest.approx(n * p)
    assert (stat.low, stat.high) == (
        binom.ppf((1 - INTERVAL_PROB) / 2, n, p),
        binom.ppf((1 + INTERVAL_PROB) / 2, n, p),
    )


def test_a_multinomial_block_is_one_table_and_the_rule_is_bonferroni():
    fair = np.full((500, 3), 1 / 3)
    even = CountFamily("even", ["a", "b", "c"], [33, 34, 33], fair, [0, 0, 0])
    lopsided = CountFamily("lopsided", ["a", "b", "c"], [80, 10, 10], fair, [0, 0, 0])
    empty = CountFamily("empty", [], [], np.zeros((500, 0)), [])
    check = count_table_check([even, lopsided, empty], random_seed=1)
    assert [t.family for t in check.tests] == ["even", "lopsided"]  # no cells: no test
    assert check.threshold == pytest.approx(PPC_LEVEL / 2)
    assert {s.trials for s in check.statistics} == {100}  # the block's total
    assert [t.family for t in check.failures] == ["lopsided"]
    assert check.tests[0].tail_prob > 0.9
    (failed,) = [c for c in check.checks() if not c.passed]
    assert failed.name == "ppc_tail_prob"
    assert failed.variable == "lopsided; most off: lopsided: a"
    block = check.to_dict()
    assert block["passed"] is False
    assert block["failures"][0].startswith("lopsided (tail probability 0): lopsided: a observed 80")
    assert len(block["statistics"]) == 6


def test_draws_are_thinned_evenly():
    prob = np.linspace(0.1, 0.9, 4000)[:, None]
    family = CountFamily("f", ["y"], [5], prob, [0], trials=[10])
    check = count_table_check([family], max_draws=1000, random_seed=0)
    assert check.statistics[0].expected == pytest.approx(10 * prob[::4].mean())


def test_bad_input_is_refused():
    good = CountFamily("f", ["y"], [5], np.full((10, 1), 0.5), [0], trials=[10])
    with pytest.raises(ValueError, match="level must lie in"):
        count_table_check([good], level=0.0)
    with pytest.raises(ValueError, match=r"family 'f': prob must have shape \(draws, 1\)"):
        count_table_check([CountFamily("f", ["y"], [5], np.full((10, 2), 0.5), [0])])
    with pytest.raises(ValueError, match="family 'f': 2 subjects for 1 cells"):
        count_table_check([CountFamily("f", ["y", "z"], [5], np.full((10, 1), 0.5), [0])])
