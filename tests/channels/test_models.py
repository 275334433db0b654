"""PyMC channel models: structure, graph checks against numpy, and (slow) real fits."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
import xarray as xr
from scipy import stats

from bayesjudge import channels as ch
from bayesjudge.channels.counts import history_counts, markov_counts
from bayesjudge.channels.data import PairedOutcomes
from bayesjudge.channels.fit import fit_markov, fit_slices, fit_stack, fit_steps
from bayesjudge.channels.posterior import (
    composition_posterior,
    markov_check,
    mixture_summary,
    slice_summaries,
)
from bayesjudge.channels.simulate import simulate_slices, simulate_stack
from bayesjudge.errors import DataError
from bayesjudge.inference.diagnostics import check_fit
from bayesjudge.models.channel import markov_model, slice_model, stack_model, step_model


@pytest.fixture(scope="module")
def stack():
    return simulate_stack(400, p0=0.5, c=[0.3, 0.2], gamma=[0.1, 0.2], random_seed=7)


def test_step_model_structure(stack):
    counts = ch.stack_counts(stack.iloc[:, 1:].to_numpy())
    model = step_model(counts)
    assert model.coords["step"] == ("e0->e1", "e1->e2")
    assert {v.name for v in model.free_RVs} == {"p0", "c", "gamma"}
    assert {v.name for v in model.observed_RVs} == {"correct0", "corrected", "corrupted"}
    assert model.named_vars_to_dims["gain"] == ("step",)
    np.testing.assert_array_equal(model["n0"].get_value(), counts[:, 0].sum(axis=1))
    with pytest.raises(ValueError, match=r"shape \(S, 2, 2\)"):
        step_model(np.zeros((2, 2)))


def test_slice_model_structure_and_mixture_data():
    counts = np.array([[[10, 5], [2, 20]], [[20, 2], [5, 8]], [[1, 0], [0, 2]]])
    model = slice_model(counts, ["a", "b", "c"], weights=[0, 0, 2])
    assert model.coords["slice"] == ("a", "b", "c")
    free = {v.name for v in model.free_RVs}
    assert free == {"mu_c", "mu_gamma", "sigma_c", "sigma_gamma", "z_c", "z_gamma", "p0"}
    np.testing.assert_allclose(model["weights"].get_value(), [0, 0, 1])
    # the mixture is a deterministic function of the slice accuracies
    draws = pm.draw([model["p1"], model["p1_mixture"]], draws=5, random_seed=1)
    np.testing.assert_allclose(draws[1], draws[0][:, 2], atol=1e-12)
    with pytest.raises(ValueError, match="distinct labels"):
        slice_model(counts, ["a", "a", "b"])
    with pytest.raises(ValueError, match="not all zero"):
        slice_model(counts, ["a", "b", "c"], weights=[0, 0, 0])


def test_stack_model_graph_matches_numpy(stack):
    e = stack.iloc[:, 1:].to_numpy()
    model = stack_model(e)
    assert model.coords["history2"] == ("00", "01", "10", "11")
    names = ["p0", "q1", "q2", "kernel", "direct", "composed", "gap_max", "gap_mean"]
    values = pm.draw([model[n] for n in names], draws=20, random_seed=3)
    p0, q1, q2, kern, direct, composed, g_max, g_mean = values
    for k in range(20):
        joint = np.stack([1 - p0[k], p0[k]])
        joint = np.stack([joint * (1 - q1[k]), joint * q1[k]], axis=-1)
        q = q2[k].reshape(2, 2)
        joint = np.stack([joint * (1 - q), joint * q], axis=-1)
        adjacent, direct_np = ch.kernels_from_joint(joint)
        np.testing.assert_allclose(kern[k], adjacent, atol=1e-12)
        np.testing.assert_allclose(direct[k], direct_np, atol=1e-12)
        np.testing.assert_allclose(composed[k], adjacent[0] @ adjacent[1], atol=1e-12)
        gm, gmean = ch.gap_of_kernels(direct_np, adjacent[0] @ adjacent[1])
        assert g_max[k] == pytest.approx(float(gm), abs=1e-12)
        assert g_mean[k] == pytest.approx(float(gmean), abs=1e-12)
    with pytest.raises(ValueError, match="3 to 7 stages"):
        stack_model(e[:, :2])


def test_history_and_markov_counts(stack):
    e = stack.iloc[:, 1:].to_numpy()
    (n1, y1), (n2, y2) = history_counts(e)
    assert n1.tolist() == [int((e[:, 0] == 0).sum()), int((e[:, 0] == 1).sum())]
    assert n2.sum() == len(e)
    assert y2[3] == int(((e[:, 0] == 1) & (e[:, 1] == 1) & (e[:, 2] == 1)).sum())
    first_n, first_y, later_n, later_y = markov_counts(e)
    assert first_n.tolist() == n1.tolist()
    assert first_y.tolist() == y1.tolist()
    assert later_n[0].ravel().tolist() == n2.tolist()
    assert later_y[0].ravel().tolist() == y2.tolist()


def test_markov_model_predictive_check_matches_exact_path():
    # PyMC posterior predictive from exact conjugate posterior draws (no NUTS needed here)
    t = simulate_stack(600, p0=0.5, c=[0.3, 0.3], gamma=[0.1, 0.1], history=1.5, random_seed=2)
    e = t.iloc[:, 1:].to_numpy()
    model = markov_model(e)
    assert model.named_vars_to_dims["later"] == ("later_step", "previous", "current")
    counts = ch.stack_counts(e)
    c_post, g_post = ch.channel_posterior(counts)
    rng = np.random.default_rng(0)
    c = np.moveaxis(c_post.sample(1000, random_seed=rng), 0, -1)[None]
    g = np.moveaxis(g_post.sample(1000, random_seed=rng), 0, -1)[None]
    steps = ["e0->e1", "e1->e2"]
    posterior = xr.Dataset(
        {"c": (("chain", "draw", "step"), c), "gamma": (("chain", "draw", "step"), g)},
        coords={"step": steps},
    )
    with model:
        predictive = pm.sample_posterior_predictive(
            xr.DataTree.from_dict({"posterior": posterior}), random_seed=1, progressbar=False
        )
    _first_n, _first_y, later_n, later_y = markov_counts(e)
    tree = xr.DataTree.from_dict(
        {
            "posterior_predictive": predictive["posterior_predictive"].to_dataset(),
            "observed_data": xr.Dataset(
                {"later": (("later_step", "previous", "current"), later_y)}
            ),
            "constant_data": xr.Dataset(
                {"later_n": (("later_step", "previous", "current"), later_n)}
            ),
        }
    )
    via_pymc = markov_check(tree)
    exact = markov_check(e, random_seed=0)
    assert via_pymc.statistic == pytest.approx(exact.statistic)
    assert via_pymc.verdict == exact.verdict == "not_markov"
    with pytest.raises(ValueError, match="no 'posterior_predictive' group"):
        markov_check(xr.DataTree.from_dict({"posterior": posterior}))


def test_fit_slices_error_paths():
    no_slice = PairedOutcomes.from_frame(simulate_stack(20, p0=0.5, c=[0.3], gamma=[0.1]))
    with pytest.raises(DataError, match="needs a 'slice' column"):
        fit_slices(no_slice)
    data = PairedOutcomes.from_frame(simulate_slices(100, random_seed=0))
    with pytest.raises(DataError, match="unknown slices"):
        fit_slices(data, weights={"9": 1.0})
    with pytest.raises(ValueError, match="step must be in"):
        fit_slices(data, step=3)


# --------------------------------------------------------------------------- real fits (slow)
@pytest.mark.slow
def test_fit_slices_partial_pooling_and_mixture():
    # slice "5" is thin: it borrows strength; slice "1" is well supported and keeps its rate
    data = PairedOutcomes.from_frame(simulate_slices([800, 400, 400, 400, 40], random_seed=3))
    fit = fit_slices(data, weights={"5": 1.0}, draws=1000, chains=4, random_seed=1)
    assert check_fit(fit, var_names=["c", "gamma", "p0", "mu_c", "sigma_c"]).passed
    rows = {s.slice: s for s in slice_summaries(fit)}
    # well supported: partial pooling moves c by less than its posterior sd
    assert abs(rows["1"].c.mean - rows["1"].c_jeffreys) < rows["1"].c.sd
    mix = mixture_summary(fit)
    assert mix["weights"]["5"] == 1.0
    h = mix["hierarchical"]
    assert h["low"] <= mix["sliced"] + 0.05
    assert h["high"] >= mix["sliced"] - 0.05


@pytest.mark.slow
def test_fit_steps_matches_exact_beta(stack):
    e = stack.iloc[:, 1:].to_numpy()
    fit = fit_steps(e, draws=1000, chains=4, random_seed=2)
    assert check_fit(fit, var_names=["c", "gamma", "p0"]).passed
    c_post, _g_post = ch.channel_posterior(ch.stack_counts(e))
    for k, step in enumerate(["e0->e1", "e1->e2"]):
        draws = fit["posterior"]["c"].sel(step=step).to_numpy().ravel()
        ref = stats.beta(c_post.alpha[k], c_post.beta[k])
        # mean within 5 MC standard errors (ESS >= 400)
        assert draws.mean() == pytest.approx(ref.mean(), abs=5 * ref.std() / np.sqrt(400))
        assert draws.std() == pytest.approx(ref.std(), rel=0.1)


@pytest.mark.slow
def test_fit_stack_gap_matches_exact(stack):
    e = stack.iloc[:, 1:].to_numpy()
    fit = fit_stack(e, draws=1000, chains=4, random_seed=3)
    exact = composition_posterior(e, draws=8000, random_seed=0)
    for name in ("gap_max", "gap_mean"):
        a = fit["posterior"][name].to_numpy().ravel()
        b = exact["posterior"][name].to_numpy().ravel()
        assert a.mean() == pytest.approx(b.mean(), abs=5 * b.std() / np.sqrt(400))


@pytest.mark.slow
def test_fit_markov_posterior_predictive():
    t = simulate_stack(600, p0=0.5, c=[0.3, 0.3], gamma=[0.1, 0.1], history=1.5, random_seed=2)
    fit = fit_markov(t.iloc[:, 1:].to_numpy(), draws=500, chains=2, random_seed=1)
    assert "posterior_predictive" in fit.children
    assert markov_check(fit).verdict == "not_markov"
