"""The loadings' spike-and-slab prior: each class's judges conditionally independent or not.

Exact checks of the state-summed likelihood (against the plain model's two limits and the numpy
twin), of the states drawn after sampling, and one real fit (slow): four conditionally
independent judges get an effective-number interval that reaches 4.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytest
import xarray as xr
from scipy.special import logsumexp

from bayesjudge.models.panel import panel_model
from bayesjudge.panels.dependence import (
    DEPENDENCE_STATES,
    STATES,
    log_pattern_probabilities,
    state_log_likelihood,
)
from bayesjudge.panels.fit import draw_dependence_states, fit_panel
from bayesjudge.panels.simulate import panel_scenario, simulate_panel
from bayesjudge.panels.start import (
    posterior_mode,
    sampling_log_density,
    sampling_order,
)

SE = [0.85, 0.8, 0.9, 0.75]
SP = [0.8, 0.85, 0.75, 0.9]


@pytest.fixture(scope="module")
def patterns():
    sim = simulate_panel(pi=0.7, **panel_scenario(3), n_unlabelled=500, n_gold=100, random_seed=1)
    return sim.data.patterns()


def test_model_state_likelihood_is_the_prior_weighted_sum_of_the_plain_ones(patterns):
    """The model's ``loglik`` and ``state_logp`` against the closed forms at random points.

    State ``both`` is the plain random-effect likelihood, state ``none`` the conditionally
    independent one; one compiled function (the compile takes minutes on a loaded machine).
    """
    spiked = panel_model(patterns, independence=0.3)
    outs = spiked.replace_rvs_by_values(
        [spiked[n] for n in ("pi", "se", "sp", "loading", "loglik", "state_logp")]
    )
    fn = pytensor.function(spiked.value_vars, outs, on_unused_input="ignore")
    rng = np.random.default_rng(3)
    label, count = patterns.label, patterns.count.astype(float)
    for _ in range(3):
        point = {
            k: v + rng.normal(0.0, 0.5, np.shape(v)) for k, v in spiked.initial_point().items()
        }
        pi, se, sp, lam, total, state = fn(**point)
        assert state.shape == (len(STATES),)
        np.testing.assert_allclose(logsumexp(state), 0.0, atol=1e-10)
        ends = []
        for loading in (np.zeros((2, 3)), lam):
            logp = log_pattern_probabilities(se, sp, loading, patterns.verdict)
            per = np.where(label == 1, logp[1], logp[0])
            mixed = np.logaddexp(np.log(pi) + logp[1], np.log1p(-pi) + logp[0])
            ends.append(np.where(label < 0, mixed, per) @ count)
        # log p(state | rest) = log prior(state) + log L_state - total; pytensor's log Phi
        # errs by up to ~3e-8 per term (see test_model.py)
        tol = 3e-8 * 3 * count.sum()
        assert state[0] == pytest.approx(np.log(0.3**2) + ends[0] - total, abs=tol)
        assert state[-1] == pytest.approx(np.log(0.7**2) + ends[1] - total, abs=tol)
        logp_dep = log_pattern_probabilities(se, sp, lam, patterns.verdict)
        logp_ind = log_pattern_probabilities(se, sp, np.zeros((2, 3)), patterns.verdict)
        want, want_state = state_log_likelihood(
            logp_dep, logp_ind, label, count, pi, independence=0.3
        )
        assert total == pytest.approx(want, abs=tol)
        np.testing.assert_allclose(state, want_state, atol=tol)


def test_state_likelihood_against_an_item_by_item_sum():
    sim = simulate_panel(
        pi=0.6,
        se=SE,
        sp=SP,
        loading=[[0.6, 0.6, 0, 0], [0.2, 0, 0.4, 0]],
        n_unlabelled=300,
        n_gold=60,
        random_seed=4,
    )
    data = sim.data
    label = np.where(np.isnan(data.labels), -1, data.labels).astype(int)
    verdict = data.verdicts.astype(int)
    lam = np.array([[0.5, 0.7, 0.1, 0.3], [0.6, 0.2, 0.8, 0.4]])
    dep = log_pattern_probabilities(SE, SP, lam, verdict)
    ind = log_pattern_probabilities(SE, SP, np.zeros((2, 4)), verdict)
    q = 0.4
    want = []
    for fail_dependent, pass_dependent in DEPENDENCE_STATES:
        lf = (dep if fail_dependent else ind)[0]
        lp = (dep if pass_dependent else ind)[1]
        item = np.where(label == 1, lp, lf)
        item = np.where(label < 0, np.logaddexp(np.log(0.6) + lp, np.log(0.4) + lf), item)
        prior = np.log(np.where([fail_dependent, pass_dependent], 1 - q, q)).sum()
        want.append(prior + item.sum())
    total, state = state_log_likelihood(dep, ind, label, np.ones(label.size), 0.6, independence=q)
    assert total == pytest.approx(logsumexp(want), abs=1e-9)
    np.testing.assert_allclose(state, np.array(want) - logsumexp(want), atol=1e-9)
    with pytest.raises(ValueError, match="independence must lie in"):
        state_log_likelihood(dep, ind, label, np.ones(label.size), 0.6, independence=1.0)


def test_the_data_pick_the_state_at_the_truth():
    """At the true Se, Sp, pi, the conditional state probabilities name the true dependence."""
    slab = np.full((2, 4), 0.7)
    for loading, want in ((0.0, "none"), (0.7, "both")):
        sim = simulate_panel(
            pi=0.6, se=SE, sp=SP, loading=loading, n_unlabelled=2000, n_gold=200, random_seed=5
        )
        p = sim.data.patterns()
        dep = log_pattern_probabilities(SE, SP, slab, p.verdict)
        ind = log_pattern_probabilities(SE, SP, np.zeros((2, 4)), p.verdict)
        _, state = state_log_likelihood(dep, ind, p.label, p.count, 0.6, independence=0.5)
        assert STATES[int(np.argmax(state))] == want
        assert np.exp(state.max()) > 0.99


def test_numpy_twin_is_the_spiked_models_log_density(patterns):
    start = posterior_mode(patterns, independence=0.5)
    model = panel_model(patterns, independence=0.5)
    order = sampling_order(3, dependent=True)
    logp = model.compile_logp()
    rng = np.random.default_rng(7)
    gaps = []
    for _ in range(4):
        point = {
            k: np.asarray(v) + rng.normal(scale=0.3, size=np.shape(v))
            for k, v in start.values.items()
        }
        flat = np.concatenate([np.ravel(point[name]) for name, _ in order])
        gaps.append(logp(point) - sampling_log_density(flat, patterns, independence=0.5)[0])
    assert np.ptp(gaps) < 1e-5
    assert abs(gaps[0]) < 1e-5


def test_independence_is_checked(patterns):
    with pytest.raises(ValueError, match=r"independence must be a probability in \[0, 1\)"):
        panel_model(patterns, independence=1.0)
    with pytest.raises(ValueError, match="needs dependence='random_effect'"):
        panel_model(patterns, dependence="none", independence=0.5)
    sim = simulate_panel(pi=0.7, **panel_scenario(3), n_unlabelled=50, n_gold=20, random_seed=1)
    with pytest.raises(ValueError, match=r"independence must be a probability in \[0, 1\)"):
        fit_panel(sim.data, independence=-0.1)
    with pytest.raises(ValueError, match="needs dependence='random_effect'"):
        fit_panel(sim.data, dependence="none", independence=0.5)


def test_states_are_drawn_at_their_probabilities_and_zero_the_loadings():
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    n = 20_000
    post = xr.Dataset(
        {
            "loading": (("chain", "draw", "class", "judge"), np.full((2, n, 2, 3), 0.6)),
            "state_logp": (("chain", "draw", "state"), np.broadcast_to(np.log(probs), (2, n, 4))),
        },
        coords={"class": ["fail", "pass"], "state": list(STATES)},
    )
    out = draw_dependence_states(post, np.random.default_rng(11))
    dependent = out["dependent"].to_numpy()
    # P(FAIL loadings in use) = P(fail) + P(both) = 0.6; PASS: 0.7 (binomial sd 0.0035)
    np.testing.assert_allclose(dependent.mean(axis=(0, 1)), [0.6, 0.7], atol=0.015)
    np.testing.assert_allclose(
        out["dependence_probability"].to_numpy(), np.broadcast_to([0.6, 0.7], (2, n, 2))
    )
    loading = out["loading"].to_numpy()
    np.testing.assert_array_equal(
        loading, np.broadcast_to(0.6 * dependent[..., None], loading.shape)
    )
    assert out["loading"].dims == post["loading"].dims
    np.testing.assert_array_equal(out["loading_slab"].to_numpy(), post["loading"].to_numpy())


@pytest.mark.slow
def test_four_independent_judges_can_count_as_four():
    """One seeded fit (minutes): the 95 % interval of the effective number reaches 4."""
    pytest.importorskip("nutpie")
    sim = simulate_panel(
        pi=0.6, se=SE, sp=SP, loading=0.0, n_unlabelled=2000, n_gold=200, random_seed=1
    )
    tree = fit_panel(sim.data, random_seed=1, draws=500, tune=500, chains=4, progressbar=False)
    assert tree.attrs["diagnostics_passed"]
    n_eff = tree["posterior"]["effective_judges"].to_numpy()
    low, high = np.quantile(n_eff, [0.025, 0.975])
    assert low < 4.0
    assert high == pytest.approx(4.0, abs=1e-9)
    # the spike holds most of the mass (measured 0.82 with this seed)
    assert np.mean(n_eff > 4.0 - 1e-9) > 0.5
