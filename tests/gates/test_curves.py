"""Closed forms of retry gates against brute-force Monte Carlo, quadrature and each other."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats

from bayesjudge.errors import DataError
from bayesjudge.estimators import judged_rate, rogan_gladen_pi
from bayesjudge.gates.cells import cap_scores, gate_cells
from bayesjudge.gates.checks import independence_check, independence_check_table, transfer_check
from bayesjudge.gates.curves import (
    PassRateDistribution,
    beta_tail_moment,
    empirical_gate_curve,
    gate_bias,
    gate_curve,
    optimal_cap,
    reliability_floor,
    rg_variance,
    ship_probability,
)
from bayesjudge.gates.data import LoopLog, Rulings
from bayesjudge.gates.loops import ppv_correction, replay_loop, slip_law, slip_parameters
from bayesjudge.gates.rules import rule_pass_probability, rule_threshold, stopping_rules
from bayesjudge.gates.simulate import TABLE4, rejudgment_gate, revise_loop, skewed_gate, table4_gate

COMPLIANT = PassRateDistribution(omega=0.05, mu=0.8, kappa=3.0)
VIOLATION = PassRateDistribution(omega=0.4, mu=0.35, kappa=1.5)


def _mc_ship(dist, caps, n, rng):
    """Brute force: draw p, then K Bernoulli rulings; ship iff one passes."""
    p = dist.sample(n, random_seed=rng)
    rulings = rng.random((n, max(caps))) < p[:, None]
    first = np.where(rulings.any(axis=1), rulings.argmax(axis=1) + 1, np.inf)
    return np.array([(first <= k).mean() for k in caps])


# --------------------------------------------------------------------------- ship probability
def test_ship_probability_matches_brute_force():
    rng = np.random.default_rng(0)
    p = np.array([0.0, 0.1, 0.5, 0.93])
    caps = [1, 3, 6]
    n = 100_000
    rulings = rng.random((n, p.size, 6)) < p[None, :, None]
    for j, k in enumerate(caps):
        mc = rulings[:, :, :k].any(axis=2).mean(axis=0)
        exact = ship_probability(p, caps)[:, j]
        # 5 binomial standard errors (at most 0.5 / sqrt(n) each)
        np.testing.assert_allclose(mc, exact, atol=5 * 0.5 / np.sqrt(n))


def test_ship_probability_shapes_and_scalars():
    assert ship_probability(np.zeros((2, 3)), [1, 2]).shape == (2, 3, 2)
    assert ship_probability(np.zeros((2, 3)), 4).shape == (2, 3)
    assert ship_probability(0.5, 2) == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("a", "b", "k"), [(0.3, 0.7, 1), (2.0, 5.0, 3), (8.0, 1.2, 10), (0.5, 0.5, 25)]
)
def test_beta_tail_moment_matches_quadrature(a, b, k):
    value, _ = integrate.quad(lambda p: (1 - p) ** k * stats.beta.pdf(p, a, b), 0, 1, limit=200)
    # quadrature of a smooth integrand (endpoint singularities are integrable): 1e-7 relative
    assert beta_tail_moment(a, b, k) == pytest.approx(value, rel=1e-7)


def test_beta_tail_moment_vectorises_over_parameters_and_caps():
    a = np.array([[1.0, 2.0], [3.0, 0.5]])
    out = beta_tail_moment(a, 2.0, [1, 2, 3])
    assert out.shape == (2, 2, 3)
    assert np.all(np.diff(out, axis=-1) < 0)  # more rulings, less chance all fail


def test_pass_rate_distribution_ship_rate_matches_brute_force():
    rng = np.random.default_rng(1)
    caps = [1, 2, 5, 10]
    n = 200_000
    for dist in (COMPLIANT, VIOLATION):
        mc = _mc_ship(dist, caps, n, rng)
        np.testing.assert_allclose(mc, dist.ship_rate(caps), atol=5 * 0.5 / np.sqrt(n))
    assert COMPLIANT.ship_rate(1) == pytest.approx(COMPLIANT.mean)


def test_gate_curve_matches_brute_force_and_identities():
    rng = np.random.default_rng(2)
    caps = [1, 2, 4, 8]
    n = 200_000
    se_mc = _mc_ship(COMPLIANT, caps, n, rng)
    fpr_mc = _mc_ship(VIOLATION, caps, n, rng)
    curve = gate_curve(COMPLIANT, VIOLATION, caps=caps, pi=0.3)
    tol = 5 * 0.5 / np.sqrt(n)
    np.testing.assert_allclose(curve.se, se_mc, atol=tol)
    np.testing.assert_allclose(1 - curve.sp, fpr_mc, atol=tol)
    np.testing.assert_allclose(curve.j, curve.se + curve.sp - 1, atol=1e-15)
    np.testing.assert_allclose(curve.reported, 0.3 * curve.se + 0.7 * (1 - curve.sp), atol=1e-15)
    np.testing.assert_allclose(curve.bias, curve.reported - 0.3, atol=1e-15)
    assert list(curve.to_frame().columns) == ["k", "se", "sp", "j", "reported", "bias"]


def test_j_converges_to_the_reliability_floor():
    curve = gate_curve(COMPLIANT, VIOLATION, caps=[1, 10, 100_000], pi=0.5)
    assert curve.j_inf == pytest.approx(0.4 - 0.05)
    # the Beta tail moment decays like K^-a; at K = 1e5 and a >= 0.5 it is below 1e-2
    assert curve.j[-1] == pytest.approx(curve.j_inf, abs=1e-2)
    assert reliability_floor(0.05, 0.4) == pytest.approx(curve.j_inf)


def test_empirical_curve_agrees_with_the_closed_form_on_a_large_sample():
    rng = np.random.default_rng(3)
    n = 100_000
    label = (rng.random(n) < 0.5).astype(int)
    p = np.where(
        label == 1, COMPLIANT.sample(n, random_seed=rng), VIOLATION.sample(n, random_seed=rng)
    )
    emp = empirical_gate_curve(p, label, caps=[1, 3, 6])
    exact = gate_curve(COMPLIANT, VIOLATION, caps=[1, 3, 6], pi=emp.pi)
    # class means of n/2 draws in [0, 1]: 5 standard errors of 0.5 / sqrt(n/2)
    np.testing.assert_allclose(emp.j, exact.j, atol=2 * 5 * 0.5 / np.sqrt(n / 2))
    assert emp.j_inf == pytest.approx(exact.j_inf, abs=5 * 0.5 / np.sqrt(n / 2) * 2)


@given(
    base=st.lists(st.floats(0.5, 1.0), min_size=2, max_size=30),
    shift=st.lists(st.floats(0.0, 0.5), min_size=30, max_size=30),
)
def test_j_is_non_increasing_under_the_sufficient_condition(base, shift):
    """Prop. 1: support on p >= 1/(K+1) (here p >= 1/2) and compliant FOSD violation."""
    comp = np.asarray(base)
    viol = np.clip(comp - np.asarray(shift[: comp.size]), 0.5, 1.0)  # coupling => FOSD
    p = np.concatenate([comp, viol])
    label = np.r_[np.ones(comp.size), np.zeros(viol.size)]
    curve = empirical_gate_curve(p, label, caps=range(1, 12))
    assert np.all(np.diff(curve.j) <= 1e-12)


def test_j_can_rise_when_the_condition_fails():
    # violations mostly never pass; compliant items pass rarely: retrying rescues them
    comp = PassRateDistribution(0.0, 0.1, 50.0)
    viol = PassRateDistribution(0.9, 0.1, 50.0)
    curve = gate_curve(comp, viol, caps=range(1, 8), pi=0.5)
    assert curve.j[-1] > curve.j[0]
    assert optimal_cap(curve, n=1000, m1=100, m0=100).k > 1


def test_skewed_gate_reproduces_the_section4_collapse():
    for q, j1 in ((0.10, 0.80), (0.89, 0.01)):
        curve = gate_curve(*skewed_gate(q), caps=[1], pi=0.5)
        assert curve.j[0] == pytest.approx(j1, abs=1e-12)
    collapse = gate_curve(*skewed_gate(0.5), caps=range(1, 31), pi=0.5)
    assert np.all(np.diff(collapse.j) <= 0)
    assert collapse.j[0] == pytest.approx(0.4)
    assert collapse.j[-1] < 0.01
    assert collapse.j_inf == 0.0


def test_table4_gate_reproduces_se1_leak_and_bias():
    for se1, leak, pi in TABLE4.values():
        c, v = table4_gate(se1, leak)
        curve = gate_curve(c, v, caps=[1], pi=pi)
        assert curve.se[0] == pytest.approx(se1, abs=1e-12)
        assert 1 - curve.sp[0] == pytest.approx(leak, abs=1e-12)
    # Table 4, first row: bias +0.351
    assert gate_bias(pi=0.5, se=0.969, sp=1 - 0.733) == pytest.approx(0.351, abs=5e-4)
    with pytest.raises(ValueError, match="cannot be reached"):
        table4_gate(0.99, 0.5, omega_compliant=0.1)


# --------------------------------------------------------------------------- recovery at cap K
@given(pi=st.floats(0.0, 1.0), se=st.floats(0.55, 1.0), sp=st.floats(0.55, 1.0))
def test_rogan_gladen_inverts_the_reported_rate(pi, se, sp):
    assert rogan_gladen_pi(rate=judged_rate(pi=pi, se=se, sp=sp), se=se, sp=sp) == pytest.approx(
        pi, abs=1e-9
    )


def test_rogan_gladen_is_nan_without_discrimination():
    assert np.isnan(rogan_gladen_pi(rate=0.5, se=0.4, sp=0.6))


def test_rg_variance_matches_monte_carlo():
    rng = np.random.default_rng(4)
    pi, se, sp, n, m1, m0 = 0.4, 0.85, 0.75, 4000, 400, 400
    reps = 200_000
    r_hat = rng.binomial(n, judged_rate(pi=pi, se=se, sp=sp), reps) / n
    se_hat = rng.binomial(m1, se, reps) / m1
    sp_hat = rng.binomial(m0, sp, reps) / m0
    draws = rogan_gladen_pi(rate=r_hat, se=se_hat, sp=sp_hat)
    # delta method is first order: agreement within 5% at these sizes
    assert np.var(draws) == pytest.approx(
        rg_variance(pi=pi, se=se, sp=sp, n=n, m1=m1, m0=m0), rel=0.05
    )


def test_optimal_cap_is_one_in_the_prop1_regime():
    curve = gate_curve(*skewed_gate(0.5), caps=range(1, 11), pi=0.3)
    choice = optimal_cap(curve, n=2000, m1=100, m0=100)
    assert choice.k == 1
    assert np.all(np.diff(choice.variance) > 0)


# --------------------------------------------------------------------------- stopping rules
def test_rule_thresholds_and_errors():
    assert rule_threshold([1, 4, 5], rule="any").tolist() == [1, 1, 1]
    assert rule_threshold([1, 4, 5], rule="unanimous").tolist() == [1, 4, 5]
    assert rule_threshold([6], rule="at_least", t=2).tolist() == [2]
    with pytest.raises(ValueError, match=r"rule must be one of \['any', 'majority'"):
        rule_threshold(3, rule="most")
    with pytest.raises(ValueError, match="needs a whole number t"):
        rule_threshold(3, rule="at_least")
    with pytest.raises(ValueError, match="exceeds the cap"):
        rule_threshold([2, 3], rule="at_least", t=3)
    with pytest.raises(ValueError, match="only used with rule='at_least'"):
        rule_threshold(3, rule="any", t=1)


def test_rule_probabilities_match_brute_force_and_nest():
    rng = np.random.default_rng(5)
    p = np.array([0.2, 0.5, 0.8])
    n = 100_000
    passes = (rng.random((n, p.size, 5)) < p[None, :, None]).sum(axis=2)
    for rule, t in (("any", 1), ("majority", 3), ("unanimous", 5)):
        mc = (passes >= t).mean(axis=0)
        np.testing.assert_allclose(
            rule_pass_probability(p, 5, rule=rule), mc, atol=5 * 0.5 / np.sqrt(n)
        )
    np.testing.assert_allclose(
        rule_pass_probability(p, [1, 4], rule="any"), ship_probability(p, [1, 4])
    )
    np.testing.assert_allclose(
        rule_pass_probability(p, 5, rule="at_least", t=5),
        rule_pass_probability(p, 5, rule="unanimous"),
    )


def test_class_rule_rate_matches_brute_force():
    rng = np.random.default_rng(6)
    n = 200_000
    for dist in (COMPLIANT, VIOLATION):
        p = dist.sample(n, random_seed=rng)
        passes = (rng.random((n, 4)) < p[:, None]).sum(axis=1)
        assert dist.rule_rate(4, rule="majority") == pytest.approx(
            (passes >= 3).mean(), abs=5 * 0.5 / np.sqrt(n)
        )


def test_stopping_rule_taxonomy_orders_the_bias():
    table = stopping_rules(COMPLIANT, VIOLATION, caps=[1, 3, 6], pi=0.5, t=2)
    for k in (3, 6):
        rows = table[table["k"] == k].set_index("rule")
        assert (
            rows.loc["any", "bias"] >= rows.loc["majority", "bias"] >= rows.loc["unanimous", "bias"]
        )
        assert rows.loc["any", "bias"] > 0 > rows.loc["unanimous", "bias"]  # opposite signs
    one = table[table["k"] == 1]
    assert one["bias"].nunique() == 1  # every rule is the same single ruling at K = 1
    assert set(table.loc[table["rule"] == "at_least", "k"]) == {3, 6}


# --------------------------------------------------------------------------- per-item scores
def test_cap_scores_are_unbiased_for_the_ship_probability():
    rng = np.random.default_rng(7)
    p, r, n = 0.3, 6, 200_000
    k = rng.binomial(r, p, n)
    scores = cap_scores(np.full(n, r), k, [1, 2, 4, 6])
    target = ship_probability(p, [1, 2, 4, 6])
    sd = scores.std(axis=0)
    np.testing.assert_allclose(scores.mean(axis=0), target, atol=float(5 * sd.max() / np.sqrt(n)))
    np.testing.assert_allclose(scores[:, 0], k / r)


def test_cap_scores_refuse_to_extrapolate():
    out = cap_scores([2, 6], [1, 1], [1, 3])
    assert np.isnan(out[0, 1])
    assert not np.isnan(out[1, 1])


def test_gate_cells_keep_every_item():
    rng = np.random.default_rng(8)
    label = np.where(rng.random(500) < 0.2, rng.integers(0, 2, 500), np.nan)
    r = rng.integers(3, 7, 500)
    k = rng.binomial(r, 0.5)
    cells = gate_cells(label, r, k)
    assert cells.weight.sum() == 500
    assert cells.n_unlabelled == int(np.isnan(label).sum())
    assert len(np.unique(np.c_[cells.label, cells.r, cells.k], axis=0)) == len(cells)


# --------------------------------------------------------------------------- loops
def test_slip_law_matches_a_simulated_loop():
    a, s, leak, n = 0.35, 0.9, 0.45, 40_000
    log = LoopLog.from_frame(revise_loop(n, a=a, s=s, leak=leak, cap=5, random_seed=9))
    replay = replay_loop(log, caps=[1, 2, 5])
    law = slip_law(a, s, leak, caps=[1, 2, 5])
    tol = 5 * 0.5 / np.sqrt(n)
    np.testing.assert_allclose(replay.reported, law.reported, atol=tol)
    np.testing.assert_allclose(replay.slip, law.slip, atol=tol)
    np.testing.assert_allclose(replay.delivered + replay.slip, replay.reported)
    params = slip_parameters(log)
    assert (params.a, params.s, params.leak) == pytest.approx((a, s, leak), abs=0.02)
    np.testing.assert_allclose(params.law([5]).slip, law.slip[-1:], atol=0.02)


def test_revision_benefit_makes_the_first_attempt_law_over_predict_slip():
    # revisions raise correctness from 0.3 to 0.6: the i.i.d. law at the first-attempt rate
    # over-predicts the slip, the gap being the revision benefit (Below the Reliability Floor,
    # section 5.1)
    log = LoopLog.from_frame(
        revise_loop(20_000, a=0.3, s=0.9, leak=0.5, a_revised=0.6, cap=5, random_seed=10)
    )
    predicted = slip_law(0.3, 0.9, 0.5, caps=[5]).slip[0]
    assert predicted - replay_loop(log, caps=[5]).slip[0] > 0.05


def test_slip_parameters_need_both_kinds_of_attempt():
    log = LoopLog.from_frame(
        pd.DataFrame({"item": [1, 2], "attempt": [1, 1], "verdict": [1, 0], "correct": [1, 1]})
    )
    with pytest.raises(DataError, match="every attempt is correct"):
        slip_parameters(log)


def test_ppv_correction_recovers_delivered_success():
    frame = revise_loop(20_000, a=0.4, s=0.85, leak=0.5, cap=3, random_seed=11)
    log = LoopLog.from_frame(frame)
    out = ppv_correction(log, k=3, calibration_fraction=0.3, random_seed=12)
    cal_items = set(np.unique(log.item)) - set()
    assert out.n_calibration + out.n_evaluation == len(cal_items)
    truth = replay_loop(log, caps=[3]).delivered[0]
    assert out.corrected.estimate == pytest.approx(truth, abs=4 * out.corrected.se)
    assert out.corrected.estimate < out.reported
    with pytest.raises(DataError, match="not in the loop log"):
        ppv_correction(log, k=3, calibration=["nope"])
    with pytest.raises(ValueError, match="calibration_fraction must lie in"):
        ppv_correction(log, k=3, calibration_fraction=1.0)


def test_ppv_correction_needs_a_shipped_calibration_item():
    log = LoopLog.from_frame(
        pd.DataFrame({"item": [1, 2], "attempt": [1, 1], "verdict": [0, 1], "correct": [0, 1]})
    )
    with pytest.raises(DataError, match="no calibration item shipped"):
        ppv_correction(log, k=1, calibration=["1"])


# --------------------------------------------------------------------------- checks
def test_transfer_check_verdicts():
    assert transfer_check(0.80, 0.83).transfers
    bad = transfer_check(0.60, 0.90)
    assert not bad.transfers
    assert bad.shift == pytest.approx(0.30)
    assert "re-calibrate" in bad.verdict
    assert transfer_check(0.5, 0.55, threshold=0.1).to_dict()["transfers"] is True
    with pytest.raises(ValueError, match="threshold must lie in"):
        transfer_check(0.5, 0.5, threshold=0.0)
    with pytest.raises(ValueError, match="r_eval must lie in"):
        transfer_check(0.5, 1.5)


def test_independence_check_accepts_independent_rulings():
    gate = rejudgment_gate(COMPLIANT, VIOLATION, pi=0.5, n_items=3000, rulings=6, random_seed=13)
    check = independence_check_table(gate.table, random_seed=0)
    # the exact expectation given the counts: the difference is pure noise, ~1/sqrt(pairs)
    assert abs(check.difference) < 4 / np.sqrt(check.n_pairs)
    assert check.consistent
    assert 0 < check.flippy < 1


def test_independence_check_detects_sticky_rulings():
    rng = np.random.default_rng(14)
    n, r = 2000, 6
    first = rng.random(n) < 0.5
    verdicts = np.empty((n, r), dtype=int)
    verdicts[:, 0] = first
    for j in range(1, r):  # repeat the previous verdict with probability 0.8
        keep = rng.random(n) < 0.8
        verdicts[:, j] = np.where(keep, verdicts[:, j - 1], rng.random(n) < 0.5)
    items = np.repeat(np.arange(n), r)
    check = independence_check(
        items, verdicts.reshape(-1), method="permutation", random_seed=1, n_permutations=200
    )
    assert check.difference > 0.05
    assert not check.consistent
    assert check.p_value == pytest.approx(1 / 201)
    moments = independence_check(items, verdicts.reshape(-1))
    assert moments.p_value < 1e-10
    assert not moments.consistent


def test_independence_moments_are_the_exact_permutation_moments():
    # one item with r rulings and k passes: enumerate every arrangement (equally likely under
    # exchangeability) and compare the mean and variance of the agreeing pairs with the formulas
    import itertools

    from bayesjudge.gates.checks import independence_check as check

    for r, k in ((4, 1), (5, 2), (6, 3), (7, 2)):
        counts = []
        for ones in itertools.combinations(range(r), k):
            seq = np.zeros(r)
            seq[list(ones)] = 1
            counts.append(float(np.sum(seq[1:] == seq[:-1])))
        mean, var = np.mean(counts), np.var(counts)
        mixed = 2.0 * k * (r - k)
        assert var == pytest.approx(mixed * (mixed - r) / (r**2 * (r - 1)), rel=1e-12)
        result = check(["a"] * r, [1] * k + [0] * (r - k))
        assert result.expected * (r - 1) == pytest.approx(mean, rel=1e-12)


def test_independence_moments_agree_with_the_permutation_test():
    # a mild stickiness: both p-values small but not extreme; they agree within Monte Carlo error
    rng = np.random.default_rng(15)
    n, r = 400, 6
    verdicts = np.empty((n, r), dtype=int)
    verdicts[:, 0] = rng.random(n) < 0.5
    for j in range(1, r):
        keep = rng.random(n) < 0.08
        verdicts[:, j] = np.where(keep, verdicts[:, j - 1], rng.random(n) < 0.5)
    items = np.repeat(np.arange(n), r)
    moments = independence_check(items, verdicts.reshape(-1))
    permutation = independence_check(
        items, verdicts.reshape(-1), method="permutation", n_permutations=4000, random_seed=2
    )
    se = np.sqrt(permutation.p_value * (1 - permutation.p_value) / 4000)
    assert abs(moments.p_value - permutation.p_value) < 4 * se + 0.01


def test_independence_expectation_corrects_the_plug_in_bias():
    # one item, rulings 1,0,1,0: plug-in p^2 + (1-p)^2 = 0.5; exact given counts = 1/3
    check = independence_check(["a"] * 4, [1, 0, 1, 0])
    assert check.expected == pytest.approx(1 / 3)
    assert check.observed == 0.0


def test_independence_check_errors_and_ordering():
    with pytest.raises(DataError, match="at least two rulings"):
        independence_check(["a", "b"], [1, 0])
    with pytest.raises(ValueError, match=r"method must be one of \['moments', 'permutation'\]"):
        independence_check(["a", "a"], [1, 0], method="exact")  # type: ignore[arg-type]
    with pytest.raises(DataError, match="rulings: no 'verdict' column"):
        independence_check_table(pd.DataFrame({"item": [1, 1]}))
    ordered = pd.DataFrame({"item": ["a"] * 4, "ruling": [4, 3, 2, 1], "verdict": [1, 1, 0, 0]})
    assert independence_check_table(ordered, random_seed=0).observed == pytest.approx(2 / 3)


# --------------------------------------------------------------------------- errors and simulators
def test_argument_errors():
    with pytest.raises(ValueError, match="p must lie in"):
        ship_probability(1.2, 1)
    with pytest.raises(ValueError, match="caps must be whole numbers from 1 to 1,000,000,000"):
        ship_probability(0.5, [0, 1])
    with pytest.raises(ValueError, match="Beta parameters must be positive"):
        beta_tail_moment(0.0, 1.0, 1)
    with pytest.raises(ValueError, match="omega must lie in"):
        PassRateDistribution(1.0, 0.5, 1.0)
    with pytest.raises(ValueError, match="both classes"):
        empirical_gate_curve([0.5, 0.5], [1, 1], caps=[1])
    with pytest.raises(ValueError, match="pi must lie in"):
        gate_curve(COMPLIANT, VIOLATION, caps=[1], pi=1.5)


def test_rejudgment_gate_reads_as_rulings():
    gate = rejudgment_gate(
        COMPLIANT, VIOLATION, pi=0.7, n_items=200, rulings=4, labelled_fraction=0.25, random_seed=15
    )
    rulings = Rulings.from_frame(gate.table)
    assert rulings.items.size == 200
    assert set(rulings.r) == {4}
    assert int(rulings.labelled.sum()) == 50
    np.testing.assert_array_equal(rulings.label[rulings.labelled], gate.label[gate.labelled])
    again = rejudgment_gate(
        COMPLIANT, VIOLATION, pi=0.7, n_items=200, rulings=4, labelled_fraction=0.25, random_seed=15
    )
    pd.testing.assert_frame_equal(gate.table, again.table)


def test_revise_loop_stops_at_the_first_pass():
    frame = revise_loop(500, a=0.3, s=0.9, leak=0.5, cap=4, random_seed=16)
    per_item = frame.groupby("item")
    assert per_item["verdict"].sum().max() == 1
    last = frame.loc[per_item["attempt"].idxmax()]
    assert ((last["verdict"] == 1) | (last["attempt"] == 4)).all()
    with pytest.raises(ValueError, match="a must lie in"):
        revise_loop(5, a=1.5, s=0.5, leak=0.5)
