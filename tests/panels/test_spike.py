"""One spike per judge: each judge's loadings exactly 0 or in the slab (``spike="judge"``).

Exact checks: the merged states against a brute-force sum over every indicator vector and an
item-by-item likelihood, the compiled model against its numpy twin, the states drawn after
sampling; one real fit (slow) on a panel with one dependent pair.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytensor
import pytest
import xarray as xr
from scipy.special import logsumexp

from bayesjudge.errors import DataError
from bayesjudge.models.panel import panel_model
from bayesjudge.panels.dependence import (
    MAX_SPIKE_JUDGES,
    STATES,
    log_pattern_probabilities,
    spike_states,
    state_log_likelihood,
    states_log_likelihood,
)
from bayesjudge.panels.fit import draw_dependence_states, fit_panel
from bayesjudge.panels.simulate import simulate_panel
from bayesjudge.panels.start import posterior_mode, sampling_log_density, sampling_order

SE = [0.85, 0.8, 0.9, 0.75]
SP = [0.8, 0.85, 0.75, 0.9]
PAIR = [[0.85, 0.85, 0.0, 0.0], [0.85, 0.85, 0.0, 0.0]]


@pytest.fixture(scope="module")
def sim():
    return simulate_panel(
        pi=0.6, se=SE, sp=SP, loading=PAIR, n_unlabelled=300, n_gold=60, random_seed=4
    )


@pytest.mark.parametrize("n_judges", [2, 3, 4, 6])
def test_states_are_the_distinct_subsets_with_their_prior_mass(n_judges):
    q = 0.3
    states = spike_states("judge", n_judges, q)
    assert len(states.names) == 2**n_judges - n_judges
    assert logsumexp(states.log_prior) == pytest.approx(0.0, abs=1e-12)
    # the merged state: no judge in the slab, or exactly one
    assert np.exp(states.log_prior[0]) == pytest.approx(
        q**n_judges + n_judges * q ** (n_judges - 1) * (1 - q)
    )
    assert not states.masks[0].any()
    in_slab = states.masks[1:, 0, :].sum(axis=1)
    assert in_slab.min() == 2
    np.testing.assert_array_equal(states.masks[:, 0], states.masks[:, 1])  # shared by classes
    assert len({tuple(m[0]) for m in states.masks}) == len(states.masks)


def test_class_states_are_the_four_per_class_states():
    states = spike_states("class", 3, 0.4)
    assert states.names == STATES
    np.testing.assert_allclose(np.exp(states.log_prior), [0.16, 0.24, 0.24, 0.36])
    assert states.masks[2].tolist() == [[False] * 3, [True] * 3]


def test_bad_spike_arguments_are_refused(sim):
    with pytest.raises(ValueError, match="spike must be one of"):
        spike_states("item", 3, 0.5)
    with pytest.raises(ValueError, match=f"at most {MAX_SPIKE_JUDGES} judges"):
        spike_states("judge", MAX_SPIKE_JUDGES + 1, 0.5)
    with pytest.raises(ValueError, match="independence must lie in"):
        spike_states("judge", 3, 0.0)
    with pytest.raises(ValueError, match="needs independence above 0"):
        panel_model(sim.data.patterns(), spike="judge")
    with pytest.raises(ValueError, match="spike must be one of"):
        panel_model(sim.data.patterns(), independence=0.5, spike="item")
    many = simulate_panel(
        pi=0.6,
        se=[0.8] * (MAX_SPIKE_JUDGES + 1),
        sp=[0.8] * (MAX_SPIKE_JUDGES + 1),
        n_unlabelled=50,
        n_gold=20,
        random_seed=1,
    )
    with pytest.raises(DataError, match="use spike='class'"):
        fit_panel(many.data, independence=0.5, spike="judge")


def test_judge_states_against_every_indicator_vector_item_by_item(sim):
    """The merged-state sum equals the sum over all 2^J indicator vectors, item by item."""
    data = sim.data
    label = np.where(np.isnan(data.labels), -1, data.labels).astype(int)
    verdict = data.verdicts.astype(int)
    slab = np.array([[0.5, 0.7, 0.1, 0.3], [0.6, 0.2, 0.8, 0.4]])
    q, pi = 0.35, 0.6
    want = []
    for d in itertools.product((0, 1), repeat=4):
        logp = log_pattern_probabilities(SE, SP, slab * np.array(d), verdict)  # (2, items)
        item = np.where(label == 1, logp[1], logp[0])
        mixed = np.logaddexp(np.log(pi) + logp[1], np.log1p(-pi) + logp[0])
        item = np.where(label < 0, mixed, item)
        prior = sum(np.log1p(-q) if x else np.log(q) for x in d)
        want.append(prior + item.sum())
    states = spike_states("judge", 4, q)
    log_state = log_pattern_probabilities(SE, SP, slab * states.masks, verdict)  # (S, 2, items)
    total, state = states_log_likelihood(
        log_state, states.log_prior, label, np.ones(label.size), pi
    )
    assert total == pytest.approx(logsumexp(want), abs=1e-8)
    assert logsumexp(state) == pytest.approx(0.0, abs=1e-12)
    # state a+b (judges 0 and 1 in the slab) is the indicator vector (1, 1, 0, 0) alone
    index = states.names.index("0+1")
    single = want[int("1100", 2)]
    assert state[index] == pytest.approx(single - logsumexp(want), abs=1e-8)


def test_general_states_reproduce_the_per_class_states(sim):
    p = sim.data.patterns()
    slab = np.array([[0.5, 0.7, 0.1, 0.3], [0.6, 0.2, 0.8, 0.4]])
    dep = log_pattern_probabilities(SE, SP, slab, p.verdict)
    ind = log_pattern_probabilities(SE, SP, np.zeros((2, 4)), p.verdict)
    want, want_state = state_log_likelihood(dep, ind, p.label, p.count, 0.6, independence=0.4)
    states = spike_states("class", 4, 0.4)
    log_state = log_pattern_probabilities(SE, SP, slab * states.masks, p.verdict)
    total, state = states_log_likelihood(log_state, states.log_prior, p.label, p.count, 0.6)
    assert total == pytest.approx(want, abs=1e-9)
    np.testing.assert_allclose(state, want_state, atol=1e-9)


def test_the_data_pick_the_pair_at_the_truth():
    """At the true Se, Sp and pi, the state of the one dependent pair is the likely one."""
    sim = simulate_panel(
        pi=0.6, se=SE, sp=SP, loading=PAIR, n_unlabelled=2000, n_gold=200, random_seed=5
    )
    p = sim.data.patterns()
    states = spike_states("judge", 4, 0.5, judges=("a", "b", "c", "d"))
    log_state = log_pattern_probabilities(SE, SP, np.array(PAIR) * states.masks, p.verdict)
    _, state = states_log_likelihood(log_state, states.log_prior, p.label, p.count, 0.6)
    assert states.names[int(np.argmax(state))] == "a+b"


def test_model_state_likelihood_is_the_numpy_twins(sim):
    """The compiled ``loglik`` and ``state_logp`` against the closed forms at random points."""
    patterns = sim.data.patterns()
    model = panel_model(patterns, independence=0.5, spike="judge")
    assert model.coords["state"][:2] == ("none", f"{patterns.judges[0]}+{patterns.judges[1]}")
    outs = model.replace_rvs_by_values(
        [model[n] for n in ("pi", "se", "sp", "loading", "loglik", "state_logp")]
    )
    fn = pytensor.function(model.value_vars, outs, on_unused_input="ignore")
    rng = np.random.default_rng(3)
    states = spike_states("judge", 4, 0.5)
    count = patterns.count.astype(float)
    tol = 3e-8 * 4 * count.sum()  # pytensor's log Phi errs by up to ~3e-8 per term
    for _ in range(3):
        point = {k: v + rng.normal(0.0, 0.5, np.shape(v)) for k, v in model.initial_point().items()}
        pi, se, sp, lam, total, state = fn(**point)
        log_state = log_pattern_probabilities(se, sp, lam * states.masks, patterns.verdict)
        want, want_state = states_log_likelihood(
            log_state, states.log_prior, patterns.label, count, pi
        )
        assert total == pytest.approx(want, abs=tol)
        np.testing.assert_allclose(state, want_state, atol=tol)


def test_numpy_twin_is_the_judge_spiked_models_log_density(sim):
    patterns = sim.data.patterns()
    start = posterior_mode(patterns, independence=0.5, spike="judge")
    model = panel_model(patterns, independence=0.5, spike="judge")
    order = sampling_order(4, dependent=True)
    logp = model.compile_logp()
    rng = np.random.default_rng(7)
    gaps = []
    for _ in range(3):
        point = {
            k: np.asarray(v) + rng.normal(scale=0.3, size=np.shape(v))
            for k, v in start.values.items()
        }
        flat = np.concatenate([np.ravel(point[name]) for name, _ in order])
        twin = sampling_log_density(flat, patterns, independence=0.5, spike="judge")[0]
        gaps.append(logp(point) - twin)
    assert np.ptp(gaps) < 1e-5
    assert abs(gaps[0]) < 1e-5


def test_judge_spiked_gradient_has_no_matrix_product(sim):
    """The state sum is broadcast arithmetic: no BLAS product to go multithreaded per chain.

    A matrix product over (judge) x (state, class, node) is large enough for OpenBLAS to
    thread it; inside nutpie's sampling threads that oversubscribed the cores (97 ms against
    3.8 ms per gradient on a loaded 2-core machine).
    """
    model = panel_model(sim.data.patterns(), independence=0.5, spike="judge")
    fn = model.compile_dlogp()
    ops = {type(node.op).__name__ for node in fn.f.maker.fgraph.toposort()}
    inner = {
        type(getattr(node.op, "core_op", None)).__name__ for node in fn.f.maker.fgraph.toposort()
    }
    products = {"Dot", "Dot22", "Dot22Scalar", "Gemm", "Gemv", "Ger", "BatchedDot", "Dot22Gemv"}
    assert not (ops | inner) & products, sorted((ops | inner) & products)


def test_judge_states_are_drawn_at_their_probabilities_and_zero_the_loadings():
    states = spike_states("judge", 3, 0.5)  # none, 0+1, 0+2, 1+2, 0+1+2
    probs = np.array([0.1, 0.4, 0.1, 0.1, 0.3])
    n = 20_000
    post = xr.Dataset(
        {
            "loading": (("chain", "draw", "class", "judge"), np.full((2, n, 2, 3), 0.6)),
            "state_logp": (("chain", "draw", "state"), np.broadcast_to(np.log(probs), (2, n, 5))),
        },
        coords={"class": ["fail", "pass"], "state": list(states.names)},
    )
    out = draw_dependence_states(post, np.random.default_rng(11), states.masks)
    # P(judge 0 in the slab) = 0.4 + 0.1 + 0.3 = 0.8; judge 1: 0.8; judge 2: 0.5 (sd 0.003)
    dependent = out["dependent"].to_numpy()
    assert out["dependent"].dims == ("chain", "draw", "judge")
    np.testing.assert_allclose(dependent.mean(axis=(0, 1)), [0.8, 0.8, 0.5], atol=0.015)
    np.testing.assert_allclose(
        out["dependence_probability"].to_numpy(), np.broadcast_to([0.8, 0.8, 0.5], (2, n, 3))
    )
    loading = out["loading"].to_numpy()
    np.testing.assert_array_equal(
        loading, np.broadcast_to(0.6 * dependent[:, :, None, :], loading.shape)
    )
    assert out["loading"].dims == post["loading"].dims
    np.testing.assert_array_equal(out["loading_slab"].to_numpy(), post["loading"].to_numpy())


@pytest.mark.slow
def test_one_dependent_pair_keeps_the_other_judges_independent():
    """One seeded fit (minutes): the pair's loadings in the slab, the others' mostly at 0."""
    pytest.importorskip("nutpie")
    sim = simulate_panel(
        pi=0.6, se=SE, sp=SP, loading=PAIR, n_unlabelled=2000, n_gold=200, random_seed=2700
    )
    tree = fit_panel(
        sim.data,
        random_seed=2700,
        draws=500,
        tune=500,
        chains=4,
        progressbar=False,
        independence=0.5,
        spike="judge",
    )
    assert tree.attrs["spike"] == "judge"
    p = tree["posterior"]["dependence_probability"].mean(("chain", "draw")).to_numpy()
    assert min(p[0], p[1]) > 0.99
    assert max(p[2], p[3]) < 0.5
    n_eff = tree["posterior"]["effective_judges"].to_numpy()
    low, high = np.quantile(n_eff, [0.025, 0.975])
    assert low <= float(sim.truth.effective_judges) <= high
