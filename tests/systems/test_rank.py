"""Ranking summaries of posterior draws against brute-force loops over the draws."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bayesjudge.systems.rank import (
    competition_ranks,
    mean_rank,
    pairwise_differences,
    pairwise_table,
    prob_best,
    prob_better,
    rank_probabilities,
    ranking_table,
    reversal_pairs,
    reversals_table,
)


@pytest.fixture(scope="module")
def draws() -> np.ndarray:
    rng = np.random.default_rng(11)
    centre = np.array([0.60, 0.62, 0.55, 0.70, 0.61])
    return centre + 0.03 * rng.standard_normal((400, centre.size))


def _brute_ranks(row: np.ndarray) -> list[int]:
    """Rank 0 = highest; ties by system order (a sort over (-value, index))."""
    order = sorted(range(row.size), key=lambda s: (-row[s], s))
    ranks = [0] * row.size
    for r, s in enumerate(order):
        ranks[s] = r
    return ranks


def test_prob_best_matches_a_loop(draws):
    counts = np.zeros(draws.shape[1])
    for row in draws:
        counts[int(np.argmax(row))] += 1
    np.testing.assert_allclose(prob_best(draws), counts / len(draws), rtol=0, atol=1e-15)


def test_prob_best_shares_ties():
    assert prob_best([[0.5, 0.5, 0.1]]).tolist() == [0.5, 0.5, 0.0]


def test_rank_probabilities_and_mean_rank_match_a_loop(draws):
    size = draws.shape[1]
    brute = np.zeros((size, size))
    for row in draws:
        for s, r in enumerate(_brute_ranks(row)):
            brute[s, r] += 1
    brute /= len(draws)
    ours = rank_probabilities(draws)
    np.testing.assert_allclose(ours, brute, rtol=0, atol=1e-15)
    np.testing.assert_allclose(ours.sum(axis=0), 1.0, atol=1e-12)
    np.testing.assert_allclose(ours.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(mean_rank(draws), brute @ np.arange(1, size + 1), atol=1e-12)


def test_prob_better_matches_a_loop(draws):
    size = draws.shape[1]
    brute = np.zeros((size, size))
    for i, j in itertools.permutations(range(size), 2):
        brute[i, j] = np.mean([row[i] > row[j] for row in draws])
    np.testing.assert_allclose(prob_better(draws), brute, rtol=0, atol=1e-15)
    assert np.all(np.diag(prob_better(draws)) == 0)


def test_pairwise_differences_match_numpy_per_pair(draws):
    mean, low, high = pairwise_differences(draws, prob=0.9)
    for i, j in itertools.permutations(range(draws.shape[1]), 2):
        d = draws[:, j] - draws[:, i]
        assert mean[i, j] == pytest.approx(d.mean(), abs=1e-15)
        assert low[i, j] == pytest.approx(np.quantile(d, 0.05), abs=1e-15)
        assert high[i, j] == pytest.approx(np.quantile(d, 0.95), abs=1e-15)


def test_functions_vectorise_over_leading_batch_axes(draws):
    batch = np.stack([draws, draws[::-1] + 0.01])
    assert prob_best(batch).shape == (2, 5)
    np.testing.assert_allclose(rank_probabilities(batch)[0], rank_probabilities(draws))
    np.testing.assert_allclose(prob_better(batch)[1], prob_better(draws[::-1] + 0.01))


def test_competition_ranks():
    assert competition_ranks([0.7, 0.9, 0.7, 0.5]).tolist() == [2, 1, 2, 4]


def test_reversals_against_a_loop(draws):
    naive = np.array([0.70, 0.60, 0.65, 0.62, 0.50])
    pairs, prob = reversal_pairs(naive, draws)
    brute = []
    for i, j in itertools.permutations(range(5), 2):
        if naive[i] > naive[j]:
            p = np.mean(draws[:, j] > draws[:, i])
            if p > 0.5:
                brute.append((i, j, p))
    assert [(int(i), int(j)) for i, j in pairs] == [(i, j) for i, j, _ in brute]
    np.testing.assert_allclose(prob, [p for *_, p in brute], atol=1e-15)
    table = reversals_table(naive, draws, list("abcde"))
    assert len(table) == len(brute)
    assert (table["reference_gap"] > 0).all()


def test_no_reversal_when_the_posterior_keeps_the_order(draws):
    centre = draws.mean(axis=0)
    assert reversal_pairs(centre, draws)[0].shape == (0, 2)


def test_tables_have_one_row_per_system_and_pair(draws):
    table = ranking_table(draws, list("abcde"), naive=draws.mean(axis=0))
    assert table.index.tolist()[0] == "d"
    assert table.filter(like="p_rank_").sum(axis=1).round(12).eq(1).all()
    pairs = pairwise_table(draws, list("abcde"))
    assert len(pairs) == 10
    row = pairs[(pairs.a == "a") & (pairs.b == "d")].iloc[0]
    assert row.prob_b_better == pytest.approx(np.mean(draws[:, 3] > draws[:, 0]))


@pytest.mark.parametrize(
    "bad", [np.zeros(3), np.zeros((3, 1)), np.array([[0.1, np.nan]])], ids=["1d", "one", "nan"]
)
def test_bad_draws_are_rejected(bad):
    with pytest.raises(ValueError, match="pi must"):
        prob_best(bad)


def test_rank_draws_match_a_loop(draws):
    from bayesjudge.systems.rank import rank_draws

    expected = np.array([[r + 1 for r in _brute_ranks(row)] for row in draws])
    np.testing.assert_array_equal(rank_draws(draws), expected)
    np.testing.assert_allclose(rank_draws(draws).mean(axis=0), mean_rank(draws))
