"""Exact references of the paired two-system model against independent computations."""

from __future__ import annotations

import numpy as np
import pytest

from bayesjudge.systems.data import Patterns
from bayesjudge.systems.exact import dirichlet_difference, exact_two_system, unpooled_two_system

ALPHA = np.array([30.5, 12.5, 4.5, 55.5])


def test_dirichlet_difference_against_two_million_seeded_draws():
    draws = np.random.default_rng(0).dirichlet(ALPHA, size=2_000_000)
    diff = draws[:, 1] - draws[:, 2]
    post = dirichlet_difference(ALPHA)
    # Monte Carlo standard errors: mean 3e-5, sd 2e-5, P 1e-4, quantiles about 1e-4
    assert float(post.mean) == pytest.approx(diff.mean(), abs=1.2e-4)
    assert float(post.sd) == pytest.approx(diff.std(), abs=1e-4)
    assert float(post.prob_positive) == pytest.approx((diff > 0).mean(), abs=4e-4)
    for q in (0.025, 0.5, 0.975):
        assert post.quantile(q) == pytest.approx(np.quantile(diff, q), abs=5e-4)


def test_dirichlet_difference_closed_forms_are_consistent():
    post = dirichlet_difference(ALPHA)
    assert post.cdf(0.0) == pytest.approx(1 - float(post.prob_positive), abs=1e-12)
    assert post.cdf(post.quantile(0.3)) == pytest.approx(0.3, abs=1e-10)
    batch = dirichlet_difference(np.stack([ALPHA, ALPHA[::-1]]))
    # reversing the cells swaps the systems: the difference changes sign
    assert batch.mean[1] == pytest.approx(-batch.mean[0], abs=1e-15)
    assert batch.prob_positive[1] == pytest.approx(1 - batch.prob_positive[0], abs=1e-12)
    with pytest.raises(ValueError, match="alpha must be positive"):
        dirichlet_difference([1.0, 1.0, 1.0])


def test_exact_two_system_with_a_near_perfect_judge_is_the_dirichlet_posterior():
    counts = np.array([5, 3, 1, 9])
    cells = Patterns(
        ("a", "b"),
        np.array([[1, 1], [1, 2], [2, 1], [2, 2], [6, 6], [3, 3]], np.int8),
        np.array([*counts, 10**7, 10**7]),
    )
    ref = exact_two_system(cells)
    post = dirichlet_difference(0.5 + counts)
    # 1 - Se and 1 - Sp are about 2.5e-8: the mixture moves the summaries by far less than 1e-5
    assert ref.diff_mean == pytest.approx(float(post.mean), abs=1e-5)
    assert ref.diff_sd == pytest.approx(float(post.sd), abs=1e-5)
    assert ref.prob_b_better == pytest.approx(float(post.prob_positive), abs=1e-5)


def test_exact_two_system_against_seeded_importance_sampling():
    cells = Patterns(
        ("a", "b"),
        np.array([[6, 6], [3, 3], [6, 3], [1, 2], [2, 2], [2, 1], [1, 1], [0, 2], [5, 4]], np.int8),
        np.array([40, 30, 10, 4, 6, 2, 3, 2, 3]),
    )
    ref = exact_two_system(cells)
    assert ref.mass_j_nonpositive < 1e-30
    # importance sampling: Se, Sp from their calibration posteriors, theta from the prior
    rng = np.random.default_rng(7)
    size = 1_000_000
    gold = [  # (label, verdict, items) of every gold-labelled answer
        (divmod(state - 3, 2), count)
        for row, count in zip(cells.state.tolist(), cells.count, strict=True)
        for state in row
        if state >= 3
    ]
    m1 = sum(c for (y, _), c in gold if y == 1)
    x1 = sum(c for (y, v), c in gold if y == 1 and v == 1)
    m0 = sum(c for (y, _), c in gold if y == 0)
    x0 = sum(c for (y, v), c in gold if y == 0 and v == 1)
    assert (m1, x1, m0, x0) == (93, 90, 73, 3)
    se = rng.beta(0.5 + x1, 0.5 + m1 - x1, size)
    sp = rng.beta(0.5 + m0 - x0, 0.5 + x0, size)
    theta = rng.dirichlet(np.full(4, 0.5), size)
    log_w = np.zeros(size)

    def emit(state, y):
        if state == 0:
            return 1.0
        p = se if y else 1 - sp
        return p if state == 2 else 1 - p

    for (s_a, s_b), count in zip(cells.state.tolist(), cells.count, strict=True):
        if s_a >= 3 or s_b >= 3:
            continue
        lik = sum(theta[:, 2 * a + b] * emit(s_a, a) * emit(s_b, b) for a in (0, 1) for b in (0, 1))
        log_w += count * np.log(lik)
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    diff = theta[:, 1] - theta[:, 2]
    ess = 1 / np.sum(w**2)  # about 1e5: standard errors about 5e-4 (mean) and 1.2e-3 (P)
    assert ess > 5e4
    assert ref.diff_mean == pytest.approx(np.sum(w * diff), abs=2e-3)
    assert ref.prob_b_better == pytest.approx(np.sum(w * (diff > 0)), abs=5e-3)
    assert ref.pi_mean[0] == pytest.approx(np.sum(w * (theta[:, 2] + theta[:, 3])), abs=2e-3)
    assert ref.se_mean == pytest.approx(np.sum(w * se), abs=1e-3)


def test_exact_two_system_refuses_what_it_cannot_do():
    half = Patterns(("a", "b"), np.array([[6, 1], [3, 3]], np.int8), np.array([3, 3]))
    with pytest.raises(ValueError, match="labelled for each system"):
        exact_two_system(half)
    many = Patterns(("a", "b"), np.array([[1, 2], [6, 3]], np.int8), np.array([30, 3]))
    with pytest.raises(ValueError, match="at most 24 unlabelled items"):
        exact_two_system(many)


# --------------------------------------------------------------------- unpooled reference
_VERDICTS = np.array([[1, 1], [1, 2], [2, 1], [2, 2]], np.int8)


def _near_perfect(gold: np.ndarray) -> Patterns:
    """Unlabelled joint verdicts (31, 9, 4, 56); a million error-free gold items per class and
    system, plus the gold items ``gold`` (joint labels fail/fail, fail/pass, pass/fail, pass/pass)
    judged without error."""
    gold_states = np.array([[3, 3], [3, 6], [6, 3], [6, 6]], np.int8)
    return Patterns(
        ("A", "B"),
        np.vstack([_VERDICTS, gold_states, gold_states[[0, 3]]]),
        np.array([31, 9, 4, 56, *gold, 1_000_000, 1_000_000]),
    )


@pytest.mark.parametrize("calibration", ["by_class", "random"])
def test_unpooled_reference_with_a_perfect_judge_is_the_dirichlet_posterior(calibration):
    """Se = Sp = 1: Dirichlet(1/2 + verdicts), plus the gold labels under random calibration.

    Under by_class the two million gold items of the last two cells inform only the judge; under
    random they would swamp theta, so that case uses a judge pinned by the four gold cells alone
    (``gold`` large) and checks the label term through the Dirichlet's shift.
    """
    gold = np.array([200, 30, 10, 300])
    cells = _near_perfect(gold)
    if calibration == "random":
        cells = Patterns(
            cells.systems, cells.state[:-2], cells.count[:-2] * np.r_[[1] * 4, [50] * 4]
        )
        alpha = 0.5 + np.array([31, 9, 4, 56]) + 50 * gold
    else:
        alpha = 0.5 + np.array([31, 9, 4, 56])
    post = unpooled_two_system(cells, calibration=calibration, random_seed=3)
    exact = dirichlet_difference(alpha)
    # 200,000 proposal draws; with a pinned judge the weights are near uniform (ESS > 10^5),
    # so the mean and quantiles carry Monte Carlo errors below 1e-3
    assert post.ess > 1e5
    assert post.mean == pytest.approx(float(exact.mean), abs=1e-3)
    assert post.sd == pytest.approx(float(exact.sd), rel=0.01)
    for q in (0.025, 0.975):
        assert post.quantile(q) == pytest.approx(exact.quantile(q), abs=2e-3)


def test_unpooled_reference_refuses_other_designs():
    mixed = Patterns(("a", "b"), np.array([[6, 1], [1, 2], [3, 3]], np.int8), np.array([3, 9, 4]))
    with pytest.raises(ValueError, match="unlabelled for both or gold-labelled for both"):
        unpooled_two_system(mixed)
    missing = Patterns(("a", "b"), np.array([[0, 1], [3, 3]], np.int8), np.array([3, 4]))
    with pytest.raises(ValueError, match="no missing answers"):
        unpooled_two_system(missing)
    fine = Patterns(("a", "b"), np.array([[1, 2], [3, 6]], np.int8), np.array([3, 4]))
    with pytest.raises(ValueError, match="draws must be a whole number >= 1000"):
        unpooled_two_system(fine, draws=10)
    with pytest.raises(ValueError, match="calibration"):
        unpooled_two_system(fine, calibration="stratified")
    # gold labels that pin A's judge below chance (every gold answer judged wrong): no draw has
    # J_A > 0, the model's support
    inverted = Patterns(
        ("a", "b"), np.array([[1, 2], [4, 6], [5, 3]], np.int8), np.array([30, 200, 200])
    )
    with pytest.raises(ValueError, match="no proposal draw fell inside the model's support"):
        unpooled_two_system(inverted, draws=1000, random_seed=1)
