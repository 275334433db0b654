"""Channel kernels: estimators, exact posteriors, kernel algebra, simulators."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from bayesjudge import channels as ch
from bayesjudge.channels.data import PairedOutcomes
from bayesjudge.channels.posterior import (
    composition_posterior,
    exact_draws_tree,
    markov_check,
    markov_statistic,
    step_summaries,
)
from bayesjudge.channels.simulate import (
    DEPTH_SLICES,
    SliceChannels,
    simulate_slices,
    simulate_stack,
    simulate_step,
)
from bayesjudge.priors import Beta

unit = st.floats(0.0, 1.0, allow_nan=False)


# --------------------------------------------------------------------------- counts, estimators
def test_paired_counts_by_hand_and_batched():
    e0 = np.array([0, 0, 0, 1, 1, 1, 1])
    e1 = np.array([0, 1, 1, 0, 1, 1, 1])
    assert ch.paired_counts(e0, e1).tolist() == [[1, 2], [1, 3]]
    batch = ch.paired_counts(np.stack([e0, e1]), np.stack([e1, e0]))
    assert batch.shape == (2, 2, 2)
    assert batch[1].tolist() == [[1, 1], [2, 3]]


def test_stack_and_slice_counts():
    e = np.array([[0, 1, 1], [1, 1, 0], [1, 0, 0], [0, 0, 1]])
    counts = ch.stack_counts(e)
    assert counts[0].tolist() == ch.paired_counts(e[:, 0], e[:, 1]).tolist()
    assert counts[1].tolist() == ch.paired_counts(e[:, 1], e[:, 2]).tolist()
    labels, per = ch.slice_counts(e[:, 0], e[:, 1], ["b", "a", "b", "a"])
    assert labels.tolist() == ["a", "b"]
    assert per.sum(axis=0).tolist() == counts[0].tolist()


@pytest.mark.parametrize(
    ("counts", "c", "g"),
    [([[8, 2], [1, 9]], 2.5 / 11, 1.5 / 11), ([[0, 0], [0, 5]], 0.5, 0.5 / 6)],
)
def test_jeffreys_rates_eq14(counts, c, g):
    c_hat, g_hat = ch.jeffreys_rates(counts)
    assert c_hat == pytest.approx(c, abs=1e-15)
    assert g_hat == pytest.approx(g, abs=1e-15)
    kern = ch.jeffreys_kernel(counts)
    np.testing.assert_allclose(kern, ch.kernel(c, g), atol=1e-15)


def test_exact_beta_posteriors_match_scipy():
    counts = np.array([[[30, 12], [4, 54]], [[3, 0], [0, 1]]])
    c_post, g_post = ch.channel_posterior(counts)
    for k in range(2):
        n = counts[k]
        ref_c = stats.beta(n[0, 1] + 0.5, n[0, 0] + 0.5)
        ref_g = stats.beta(n[1, 0] + 0.5, n[1, 1] + 0.5)
        for post, ref in ((c_post, ref_c), (g_post, ref_g)):
            sub = ch.RatePosterior(post.alpha[k], post.beta[k])
            assert sub.mean == pytest.approx(ref.mean(), rel=1e-12)
            assert sub.sd == pytest.approx(ref.std(), rel=1e-12)
            low, high = sub.interval(0.9)
            np.testing.assert_allclose([low, high], ref.interval(0.9), rtol=1e-10)
    # posterior means are the Jeffreys estimates
    np.testing.assert_allclose(c_post.mean, ch.jeffreys_rates(counts)[0], rtol=1e-14)
    # another prior is respected
    c_flat, _ = ch.channel_posterior(counts[0], prior=Beta(1, 1))
    assert float(c_flat.alpha) == 13
    assert float(c_flat.beta) == 31


def test_rate_posterior_sample_matches_moments():
    post = ch.RatePosterior(np.array([3.5, 40.5]), np.array([10.5, 2.5]))
    draws = post.sample(20000, random_seed=1)
    assert draws.shape == (2, 20000)
    # 5 Monte Carlo standard errors
    np.testing.assert_allclose(
        draws.mean(axis=1), post.mean, atol=5 * post.sd.max() / np.sqrt(20000)
    )
    with pytest.raises(ValueError, match="prob must lie in"):
        post.interval(1.5)


# --------------------------------------------------------------------------- kernel algebra
@given(unit, unit, unit)
def test_propagation_is_the_one_step_law(p0, c, g):
    t = ch.kernel(c, g)
    np.testing.assert_allclose(t.sum(axis=-1), 1.0, atol=1e-15)
    assert ch.propagate(p0, t) == pytest.approx(ch.one_step(p0, c, g), abs=1e-14)
    assert ch.one_step(p0, c, g) - p0 == pytest.approx(ch.predicted_gain(p0, c, g), abs=1e-14)
    assert tuple(map(float, ch.kernel_rates(t))) == pytest.approx((c, g), abs=1e-15)


@given(unit, unit, unit, unit, unit)
def test_products_of_kernels_compose(p0, c1, g1, c2, g2):
    t1, t2 = ch.kernel(c1, g1), ch.kernel(c2, g2)
    product = t1 @ t2
    np.testing.assert_allclose(product.sum(axis=-1), 1.0, atol=1e-14)
    two_steps = ch.propagate(p0, t1, t2)
    assert two_steps == pytest.approx(ch.propagate(p0, product), abs=1e-14)
    c12, g12 = ch.kernel_rates(product)
    # the composed rates give p2 by the same one-step law (Correction and Corruption, Sec. 7)
    assert two_steps == pytest.approx(ch.one_step(p0, c12, g12), abs=1e-14)
    assert float(c12) == pytest.approx((1 - c1) * c2 + c1 * (1 - g2), abs=1e-14)
    assert float(g12) == pytest.approx(g1 * (1 - c2) + (1 - g1) * g2, abs=1e-14)


def test_accounting_identity_on_any_sample():
    rng = np.random.default_rng(4)
    e0 = rng.integers(0, 2, 500)
    e1 = rng.integers(0, 2, 500)
    n = ch.paired_counts(e0, e1)
    c_mle = n[0, 1] / n[0].sum()
    g_mle = n[1, 0] / n[1].sum()
    # the one-step law with MLE rates reproduces the observed p1 exactly
    assert ch.one_step(e0.mean(), c_mle, g_mle) == pytest.approx(e1.mean(), abs=1e-14)


def test_break_even_surplus_and_gate():
    # Table 15 of Correction and Corruption (marginals only)
    assert float(ch.surplus(0.955, 0.915)) == pytest.approx(-0.889, abs=5e-4)
    assert float(ch.surplus(0.955, 0.975)) == pytest.approx(0.444, abs=5e-4)
    assert float(ch.surplus(0.748, 0.750)) == pytest.approx(0.008, abs=5e-4)
    # p0/(1-p0) at 0.955 is about 21.2 (Sec. 6.3)
    assert float(ch.break_even(0.955, 1.0)) == pytest.approx(21.2, abs=0.05)
    assert np.isnan(ch.surplus(1.0, 1.0))
    p0, c, g = 0.7, 0.4, 0.1
    assert float(ch.surplus(p0, ch.one_step(p0, c, g))) == pytest.approx(
        float(ch.surplus_from_rates(p0, c, g)), abs=1e-14
    )
    # break-even boundary: gain is zero exactly on it and the gate is off there
    c_be = float(ch.break_even(p0, g))
    assert float(ch.predicted_gain(p0, c_be, g)) == pytest.approx(0.0, abs=1e-14)
    assert ch.gate([0.5, 0.9], 0.2, 0.05).tolist() == [True, False]
    assert ch.gate(0.5, 0.2, 0.05, threshold=0.1).tolist() is False
    with pytest.raises(ValueError, match="threshold must be finite"):
        ch.gate(0.5, 0.2, 0.05, threshold=float("nan"))
    with pytest.raises(ValueError, match="p0 must lie in"):
        ch.break_even(1.5, 0.1)


# --------------------------------------------------------------------------- composition
def _markov_joint(p0, kernels):
    joint = np.array([1 - p0, p0])
    for t in kernels:
        joint = joint[..., None] * t.reshape((1,) * (joint.ndim - 1) + (2, 2))
    return joint


def test_markov_population_has_zero_gap_and_non_markov_does_not():
    kernels = [ch.kernel(0.3, 0.1), ch.kernel(0.2, 0.05), ch.kernel(0.5, 0.3)]
    joint = _markov_joint(0.6, kernels)
    adjacent, direct = ch.kernels_from_joint(joint)
    for t in range(3):
        np.testing.assert_allclose(adjacent[t], kernels[t], atol=1e-14)
    composed = adjacent[0] @ adjacent[1] @ adjacent[2]
    g_max, g_mean = ch.gap_of_kernels(direct, composed)
    assert float(g_max) == pytest.approx(0.0, abs=1e-14)
    assert float(g_mean) == pytest.approx(0.0, abs=1e-14)
    # make E2 depend on E0 beyond E1: move mass between (0,1,1) and (1,1,1) paths
    bad = _markov_joint(0.6, kernels[:2]).copy()
    bad[0, 1, 1] += 0.05
    bad[0, 1, 0] -= 0.05
    adjacent, direct = ch.kernels_from_joint(bad)
    g_max, _ = ch.gap_of_kernels(direct, adjacent[0] @ adjacent[1])
    assert float(g_max) > 0.01
    with pytest.raises(ValueError, match="stages"):
        ch.kernels_from_joint(np.ones((3, 3)))


def test_composition_gap_on_data_is_the_formula():
    t = simulate_stack(400, p0=0.5, c=[0.3, 0.2], gamma=[0.1, 0.2], random_seed=3)
    e = t[["e0", "e1", "e2"]].to_numpy()
    gap = ch.composition_gap(e)
    t01 = ch.jeffreys_kernel(ch.paired_counts(e[:, 0], e[:, 1]))
    t12 = ch.jeffreys_kernel(ch.paired_counts(e[:, 1], e[:, 2]))
    t02 = ch.jeffreys_kernel(ch.paired_counts(e[:, 0], e[:, 2]))
    diff = np.abs(t02 - t01 @ t12)
    assert gap.gap_max == pytest.approx(diff.max(), abs=1e-15)
    assert gap.gap_mean == pytest.approx(0.5 * diff.sum(), abs=1e-15)
    # a PairedOutcomes is accepted too
    assert ch.composition_gap(PairedOutcomes.from_frame(t)).gap_max == gap.gap_max
    with pytest.raises(ValueError, match="at least two steps"):
        ch.composition_gap(e[:, :2])


def test_markov_stack_gap_is_small_in_expectation():
    # mean of the plug-in gap over seeds shrinks like 1/sqrt(n) for a Markov stack
    gaps = [
        ch.composition_gap(
            simulate_stack(20000, p0=0.5, c=[0.3, 0.2], gamma=[0.1, 0.2], random_seed=s)
            .iloc[:, 1:]
            .to_numpy()
        ).gap_max
        for s in range(10)
    ]
    assert np.mean(gaps) < 0.01
    non = simulate_stack(20000, p0=0.5, c=[0.3, 0.2], gamma=[0.1, 0.2], history=1.0, random_seed=0)
    assert ch.composition_gap(non.iloc[:, 1:].to_numpy()).gap_max > 0.05


# --------------------------------------------------------------------------- mixture, transfer
def test_mixture_prediction_recovers_true_slice_mixture():
    ch_ = DEPTH_SLICES
    p0 = np.array(ch_.p0)
    c = np.array(ch_.c)
    g = np.array(ch_.gamma)
    big = 1e7
    counts = big * np.stack(
        [
            np.stack([(1 - p0) * (1 - c), (1 - p0) * c], -1),
            np.stack([p0 * g, p0 * (1 - g)], -1),
        ],
        -2,
    )
    shifted = [0.0, 0.0, 0.0, 0.2, 0.8]
    pred = ch.mixture_prediction(counts, shifted)
    assert float(pred.sliced) == pytest.approx(ch_.p1(shifted), abs=1e-6)
    # the pooled channel is tied to the calibration (uniform) mixture: biased under the shift
    assert abs(float(pred.pooled) - ch_.p1(shifted)) > 0.02
    # under the calibration mixture itself pooled and sliced agree (up to smoothing)
    matched = ch.mixture_prediction(counts, [1, 1, 1, 1, 1])
    assert float(matched.pooled) == pytest.approx(float(matched.sliced), abs=1e-6)
    # vectorised over a batch of mixtures
    batch = ch.mixture_prediction(counts, np.eye(5))
    np.testing.assert_allclose(batch.sliced, [ch_.p1(w) for w in np.eye(5)], atol=1e-6)
    with pytest.raises(ValueError, match="not all be zero"):
        ch.mixture_prediction(counts, [0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="5 entries"):
        ch.mixture_prediction(counts, [1, 1])


def test_transfer_test_is_calibrated_under_no_shift():
    rng = np.random.default_rng(11)
    z = []
    for _ in range(300):
        a = simulate_step(400, p0=0.6, c=0.3, gamma=0.1, random_seed=rng)
        b = simulate_step(400, p0=0.6, c=0.3, gamma=0.1, random_seed=rng)
        z.append(ch.transfer_test(ch.paired_counts(a.e0, a.e1), ch.paired_counts(b.e0, b.e1)).z)
    z = np.asarray(z)
    # |z| > 1.96 about 5% of the time: 300 trials, binomial sd about 1.3 points
    assert 0.01 <= np.mean(np.abs(z) > 1.96) <= 0.10
    assert abs(z.mean()) < 0.25  # mean z: sd about 0.06
    shifted = simulate_step(4000, p0=0.6, c=0.1, gamma=0.3, random_seed=1)
    calib = simulate_step(4000, p0=0.6, c=0.3, gamma=0.1, random_seed=2)
    t = ch.transfer_test(
        ch.paired_counts(calib.e0, calib.e1), ch.paired_counts(shifted.e0, shifted.e1)
    )
    assert t.tail_probability < 1e-6
    assert t.residual == pytest.approx(t.observed - t.predicted)
    with pytest.raises(ValueError, match="target has no items"):
        ch.transfer_test([[1, 1], [1, 1]], [[0, 0], [0, 0]])


def test_oracle_headroom():
    h = ch.oracle_headroom([0, 0, 0, 1], [1, 0, 0, 1], [1, 1, 0, 1])
    assert (h.n, h.p0, h.p1, h.p_oracle) == (4, 0.25, 0.5, 0.75)
    assert h.gap == pytest.approx(0.25)
    assert h.c == pytest.approx(1.5 / 4)
    # Correction and Corruption Table 14: gamma undefined when E0 = 1 never occurs
    assert np.isnan(ch.oracle_headroom([0, 0], [1, 0], [1, 1]).gamma)
    with pytest.raises(ValueError, match="item 1 has anchor=1"):
        ch.oracle_headroom([0, 1], [0, 0], [0, 0])
    with pytest.raises(ValueError, match="0/1 correctness"):
        ch.oracle_headroom([0, 2], [0, 0], [1, 1])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ch.paired_counts([0, 1], [0, 1, 1]), "same shape"),
        (lambda: ch.paired_counts([0, 3], [0, 1]), "position 1 has"),
        (lambda: ch.jeffreys_rates([[1, -1], [0, 1]]), "non-negative"),
        (lambda: ch.jeffreys_rates([1, 2, 3]), r"shape \(\.\.\., 2, 2\)"),
        (lambda: ch.kernel(1.2, 0.1), "c must lie in"),
        (lambda: ch.stack_counts([0, 1]), "outcomes must have shape"),
        (lambda: ch.slice_counts([0, 1], [1, 1], ["a"]), "same length"),
    ],
)
def test_error_paths(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --------------------------------------------------------------------------- simulators
def test_simulators_are_seeded_and_valid():
    a = simulate_slices(500, weights=[1, 0, 0, 0, 1], random_seed=5)
    b = simulate_slices(500, weights=[1, 0, 0, 0, 1], random_seed=5)
    pd.testing.assert_frame_equal(a, b)
    assert set(a["slice"]) == {"1", "5"}
    data = PairedOutcomes.from_frame(a)
    assert data.slice is not None
    big = simulate_step(100000, p0=0.3, c=0.25, gamma=0.15, random_seed=0)
    c_hat, g_hat = ch.jeffreys_rates(ch.paired_counts(big.e0, big.e1))
    assert float(c_hat) == pytest.approx(0.25, abs=0.01)  # sd about 0.0016
    assert float(g_hat) == pytest.approx(0.15, abs=0.01)
    stack = simulate_stack(10, p0=0.5, c=[0.2, 0.2, 0.2], gamma=[0.1, 0.1, 0.1], random_seed=0)
    assert list(stack.columns) == ["item", "e0", "e1", "e2", "e3"]
    with pytest.raises(ValueError, match="same length"):
        simulate_stack(10, p0=0.5, c=[0.2], gamma=[0.1, 0.1])
    with pytest.raises(ValueError, match="one value per slice"):
        SliceChannels(("a", "b"), (0.5,), (0.1, 0.1), (0.1, 0.1))
    with pytest.raises(ValueError, match="one non-negative size per slice"):
        simulate_slices([1, 2], random_seed=0)
    with pytest.raises(ValueError, match="positive whole number"):
        simulate_step(0, p0=0.5, c=0.1, gamma=0.1)


# --------------------------------------------------------------------------- exact fast paths
def test_step_summaries_exact():
    e = simulate_stack(800, p0=0.55, c=[0.3, 0.15], gamma=[0.05, 0.2], random_seed=8)
    summaries = step_summaries(e.iloc[:, 1:].to_numpy(), prob=0.9, draws=20000, random_seed=0)
    assert [s.source for s in summaries] == ["e0", "e1"]
    counts = ch.stack_counts(e.iloc[:, 1:].to_numpy())
    for s, n in zip(summaries, counts, strict=True):
        ref = stats.beta(n[0, 1] + 0.5, n[0, 0] + 0.5)
        assert s.c.mean == pytest.approx(ref.mean(), rel=1e-12)
        assert (s.c.eti.low, s.c.eti.high) == pytest.approx(ref.interval(0.9), rel=1e-10)
        p_mean = (n[1].sum() + 0.5) / (n.sum() + 1)
        expected_gain = (1 - p_mean) * s.c.mean - p_mean * s.gamma.mean
        # independent posteriors: E[gain] is the gain of the means; 5 MC standard errors
        assert s.gain.mean == pytest.approx(expected_gain, abs=5 * s.gain.sd / np.sqrt(20000))
        assert s.gate_on == bool(s.gain.mean > 0) or abs(s.gain.mean) < 0.01
    assert set(summaries[0].to_dict()) == {
        "from", "to", "n", "p0", "p1", "c_jeffreys", "gamma_jeffreys", "c", "gamma", "gain",
        "gate_on",
    }  # fmt: skip


def test_exact_draws_tree_passes_diagnostics():
    from bayesjudge.inference.diagnostics import check_fit

    e = simulate_stack(300, p0=0.5, c=[0.3, 0.2], gamma=[0.1, 0.1], random_seed=1)
    tree = exact_draws_tree(e.iloc[:, 1:].to_numpy(), draws=4000, random_seed=2)
    assert tree["posterior"]["c"].dims == ("chain", "draw", "step")
    assert check_fit(tree).passed


def test_markov_statistic_and_check():
    n = np.array([[[10, 20], [30, 40]]])
    # identical rates across E_{t-1}: statistic zero
    assert float(markov_statistic(n, n // 2)) == 0.0
    y = np.array([[[2, 5], [18, 20]]])
    by_hand = 0.0
    for b in range(2):
        table = np.array([[y[0, a, b], n[0, a, b] - y[0, a, b]] for a in range(2)])
        by_hand += stats.chi2_contingency(table, correction=False)[0]
    assert float(markov_statistic(n, y)) == pytest.approx(by_hand, rel=1e-12)
    markov = simulate_stack(600, p0=0.5, c=[0.3, 0.3], gamma=[0.1, 0.1], random_seed=21)
    non = simulate_stack(600, p0=0.5, c=[0.3, 0.3], gamma=[0.1, 0.1], history=1.5, random_seed=21)
    assert markov_check(non.iloc[:, 1:].to_numpy(), random_seed=0).verdict == "not_markov"
    result = markov_check(markov.iloc[:, 1:].to_numpy(), random_seed=0)
    assert 0.0 <= result.tail_probability <= 1.0
    assert result.to_dict() == {
        "tail_probability": result.tail_probability,
        "verdict": result.verdict,
    }
    with pytest.raises(ValueError, match="at least two steps"):
        markov_check(markov.iloc[:, 1:3].to_numpy())
    with pytest.raises(ValueError, match="level must lie in"):
        markov_check(markov.iloc[:, 1:].to_numpy(), level=0.0)


def test_markov_check_false_alarms_near_nominal_quick():
    # 60 Markov stacks of n=600: false alarms at level 0.1 (binomial sd about 3.9 points)
    alarms = [
        markov_check(
            simulate_stack(600, p0=0.5, c=[0.3, 0.25], gamma=[0.1, 0.15], random_seed=s)
            .iloc[:, 1:]
            .to_numpy(),
            level=0.1,
            draws=400,
            random_seed=s,
        ).verdict
        == "not_markov"
        for s in range(60)
    ]
    assert 0.0 <= np.mean(alarms) <= 0.22


def test_composition_posterior_exact():
    e = simulate_stack(500, p0=0.5, c=[0.3, 0.2], gamma=[0.1, 0.2], random_seed=4)
    arr = e.iloc[:, 1:].to_numpy()
    post = composition_posterior(arr, draws=4000, random_seed=0)["posterior"]
    assert post["kernel"].dims == ("chain", "draw", "step", "row", "col")
    # the first step's c draws have the exact Jeffreys posterior (saturated model, Sec. models)
    n = ch.paired_counts(arr[:, 0], arr[:, 1])
    c_draws = post["kernel"].sel(step="e0->e1", row=0, col=1).to_numpy().ravel()
    ref = stats.beta(n[0, 1] + 0.5, n[0, 0] + 0.5)
    assert stats.kstest(c_draws, ref.cdf).pvalue > 0.001
    gap = post["gap_mean"].to_numpy().ravel()
    assert (gap >= 0).all()
    # the plug-in gap lies inside the bulk of its posterior
    plug = ch.composition_gap(arr).gap_mean
    assert np.quantile(gap, 0.001) <= plug <= np.quantile(gap, 0.999)
    with pytest.raises(ValueError, match="3 to 7 stages"):
        composition_posterior(arr[:, :2])
