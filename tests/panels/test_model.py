"""The panel model: structure, the compressed likelihood, the prior restriction, real fits."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import pytest
from scipy import stats

from bayesjudge.models.panel import CLASSES, pad_patterns, panel_model
from bayesjudge.panels.data import PanelData, PanelPatterns
from bayesjudge.panels.dependence import (
    log_pattern_probabilities,
)
from bayesjudge.panels.simulate import simulate_panel
from bayesjudge.panels.start import judge_accuracy, sampling_coordinates
from bayesjudge.prevalence import JudgeCounts, exact_posterior
from bayesjudge.priors import JEFFREYS, Beta, PanelPriors, PrevalencePriors

PAD = 48  # pattern rows of the compiled three-judge model (3 labels x 2 x 2 x 3 = 36 at most)


def _small() -> PanelData:
    return PanelData.from_arrays(
        [[1, 1, 0], [0, 0, 0], [1, 1, 1], [1, 0, 1], [0, np.nan, 1], [1, 1, np.nan]],
        labels=[1, 0, np.nan, np.nan, np.nan, 1],
        judges=["a", "b", "c"],
    )


def _values(model: pm.Model, seed: int) -> dict[str, np.ndarray]:
    """A random point in the unconstrained space of ``model``."""
    rng = np.random.default_rng(seed)
    return {
        name: value + rng.normal(0.0, 0.7, np.shape(value))
        for name, value in model.initial_point().items()
    }


def _evaluator(model: pm.Model, names: list[str]) -> Callable[[dict[str, np.ndarray]], list]:
    """The variables ``names`` of ``model`` as one compiled function of a point."""
    outs = model.replace_rvs_by_values([model[n] for n in names])
    fn = pytensor.function(model.value_vars, outs, on_unused_input="ignore")
    return lambda point: fn(**{v.name: point[v.name] for v in model.value_vars})


# --------------------------------------------------------------------------- structure
def test_model_structure():
    model = panel_model(_small().patterns(), n_patterns=12)
    assert model.coords["class"] == CLASSES == ("fail", "pass")
    assert model.coords["judge"] == ("a", "b", "c")
    assert len(model.coords["pattern"]) == 12
    assert {v.name for v in model.free_RVs} == {
        "pi",
        "judged_rate",
        "accuracy_mean",
        "accuracy_offset",
        "loading_share",
    }
    dims = model.named_vars_to_dims
    for name in ("judged_rate", "accuracy_offset", "accuracy", "se", "sp", "j"):
        assert dims[name] == ("judge",)
    for name in ("loading_share", "loading"):
        assert dims[name] == ("class", "judge")
    assert dims["pattern_verdict"] == ("pattern", "judge")
    assert dims["pattern_label"] == dims["pattern_count"] == ("pattern",)
    assert [p.name for p in model.potentials] == ["prior", "loglik"]
    independent = panel_model(_small().patterns(), dependence="none", calibration="random")
    assert "loading_share" not in independent.named_vars
    assert independent.named_vars_to_dims["loading"] == ("class", "judge")
    assert [p.name for p in independent.potentials] == ["prior", "loglik", "calibration_labels"]
    assert PanelPriors().as_dict() == {
        "pi": "Beta(0.5, 0.5)",
        "se": "Beta(1, 1)",
        "sp": "Beta(1, 1)",
        "loading": "Beta(1, 1)",
    }


def test_model_errors():
    unlabelled = PanelData.from_arrays([[1, 0, 1], [0, 0, 1]]).patterns()
    with pytest.raises(ValueError, match="needs gold-labelled items of both classes"):
        panel_model(unlabelled)
    two = PanelData.from_arrays([[1, 0], [0, 0]]).patterns()
    with pytest.raises(ValueError, match="needs at least three judges"):
        panel_model(two, dependence="none")
    panel_model(unlabelled, dependence="none")  # three judges, no gold: identified
    gold_only = PanelData.from_arrays([[1, 0], [0, 0]], labels=[1, 0]).patterns()
    with pytest.raises(ValueError, match="needs unlabelled items"):
        panel_model(gold_only)
    with pytest.raises(TypeError, match="patterns must be PanelPatterns"):
        panel_model(_small())  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"dependence must be one of \['random_effect', 'none'\]; got 'pairs'"
    ):
        panel_model(_small().patterns(), dependence="pairs")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"calibration must be one of \['by_class', 'random'\]"):
        panel_model(_small().patterns(), calibration="stratified")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="size must be a whole number >= the number of patterns"):
        panel_model(_small().patterns(), n_patterns=2)
    with pytest.raises(TypeError, match="priors must be a PanelPriors"):
        panel_model(_small().patterns(), priors=PrevalencePriors())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="the panel model has no prior 'probit'"):
        PanelPriors().updated(["probit=normal:0,1"])
    with pytest.raises(ValueError, match="prior 'se' of the panel model must be a beta"):
        PanelPriors().updated(["se=normal:0,1"])


# --------------------------------------------------------------------------- likelihood
def test_compressed_likelihood_equals_the_per_item_sum():
    sim = simulate_panel(
        pi=0.6,
        se=[0.9, 0.8, 0.85],
        sp=[0.75, 0.9, 0.8],
        loading=[[0.7, 0.2, 0.5], [0.4, 0.9, 0.1]],
        n_unlabelled=400,
        n_gold=100,
        missing=[0.0, 0.2, 0.1],
        random_seed=11,
    )
    patterns = sim.data.patterns()
    assert len(patterns) < 60
    # one row per item, count 1: the uncompressed likelihood
    data = sim.data
    per_item = PanelPatterns(
        judges=data.judges,
        label=np.where(np.isnan(data.labels), -1, data.labels).astype(np.int64),
        verdict=np.where(np.isnan(data.verdicts), -1, data.verdicts).astype(np.int8),
        count=np.ones(data.n_items, dtype=np.int64),
    )
    # calibration="random" adds the gold labels' Bernoulli(pi) term to the by-class likelihood
    for calibration in ("random",):
        compressed = panel_model(patterns, calibration=calibration, n_patterns=64)
        itemwise = panel_model(per_item, calibration=calibration)
        logp_compressed, logp_itemwise = compressed.compile_logp(), itemwise.compile_logp()
        evaluate = _evaluator(compressed, ["se", "sp", "loading", "pi", "loglik"])
        for seed in range(3):
            point = _values(compressed, seed)
            assert logp_compressed(point) == pytest.approx(logp_itemwise(point), rel=1e-12)
            # and the item-level sum from the numpy closed forms
            se, sp, lam, pi, loglik = evaluate(point)
            logp = log_pattern_probabilities(se, sp, lam, per_item.verdict)
            item = np.where(per_item.label == 1, logp[1], logp[0])
            mixed = np.logaddexp(np.log(pi) + logp[1], np.log1p(-pi) + logp[0])
            item = np.where(per_item.label < 0, mixed, item)
            # PyTensor's normal log-CDF errs by up to ~3e-8 (near -1), scipy's log_ndtr ~1e-16
            assert loglik == pytest.approx(item.sum(), abs=3e-8 * 3 * data.n_items)


def test_one_independent_judge_has_the_prevalence_likelihood():
    # m1=60, x1=50, m0=40, x0=8, n=500, k=300 as patterns of one judge
    patterns = PanelPatterns(
        judges=("j",),
        label=np.array([1, 1, 0, 0, -1, -1]),
        verdict=np.array([[1], [0], [1], [0], [1], [0]], dtype=np.int8),
        count=np.array([50, 10, 8, 32, 300, 200]),
    )
    model = panel_model(patterns, dependence="none")
    assert "accuracy_offset" not in model.named_vars
    evaluate = _evaluator(model, ["se", "sp", "pi", "loglik"])
    for seed in range(3):
        se, sp, pi, loglik = evaluate(_values(model, seed))
        rate = pi * se + (1 - pi) * (1 - sp)
        binomial = (
            (50 * np.log(se) + 10 * np.log1p(-se) + 8 * np.log1p(-sp) + 32 * np.log(sp))
            + 300 * np.log(rate)
            + 200 * np.log1p(-rate)
        )
        assert float(loglik) == pytest.approx(float(binomial[0]), abs=3e-8 * 1100)  # see above


def test_padding_and_new_data_leave_the_likelihood_unchanged():
    data = _small().patterns()
    plain = panel_model(data)
    padded = panel_model(data, n_patterns=20)
    point = _values(plain, 5)
    logp_padded = padded.compile_logp()
    assert logp_padded(point) == pytest.approx(plain.compile_logp()(point), rel=1e-13)
    # a refit swaps the pm.Data containers: same model, new data
    other = PanelData.from_arrays(
        [[0, 0, 0], [1, 1, 1], [1, 1, 1], [0, 1, 1]],
        labels=[0, 1, np.nan, np.nan],
        judges=["a", "b", "c"],
    )
    with padded:
        pm.set_data(pad_patterns(other.patterns(), 20))
    fresh = panel_model(other.patterns())
    # the compiled function reads the containers: no recompilation needed
    assert logp_padded(point) == pytest.approx(fresh.compile_logp()(point), rel=1e-13)


def _free_point(model: pm.Model, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    initial = model.initial_point()
    return {
        v.name: np.asarray(rng.normal(0.0, 0.8, initial[v.name].shape)) for v in model.value_vars
    }


@pytest.mark.parametrize("n_judges", [1, 3])
def test_prior_density_is_the_stated_prior_times_the_jacobian(n_judges):
    """In the sampled coordinates the model's prior is p(pi) prod p(Se) p(Sp) |d(pi,Se,Sp)/du|."""
    priors = PanelPriors(pi=Beta(2.0, 3.0), se=Beta(4.0, 1.5), sp=Beta(3.0, 2.0))
    verdict = np.array([[1] * n_judges, [0] * n_judges, [1] * n_judges], np.int8)
    patterns = PanelPatterns(
        tuple("abc"[:n_judges]), np.array([1, 0, -1]), verdict, np.ones(3, np.int64)
    )
    model = panel_model(patterns, priors=priors, dependence="none")
    names = [v.name for v in model.value_vars]
    prior_terms = [*model.free_RVs, model["prior"]]
    log_prior = model.compile_logp(vars=prior_terms, jacobian=True)
    outs = model.replace_rvs_by_values([model["pi"], model["se"], model["sp"]])
    forward = pytensor.function(model.value_vars, outs)
    shapes = {n: v.shape for n, v in model.initial_point().items()}
    sizes = [int(np.prod(shapes[n])) for n in names]

    def natural(flat: np.ndarray) -> np.ndarray:
        parts = np.split(flat, np.cumsum(sizes)[:-1])
        point = {n: p.reshape(shapes[n]) for n, p in zip(names, parts, strict=True)}
        pi, se, sp = forward(**point)
        return np.concatenate([[pi], se, sp])

    for seed in range(3):
        point = _free_point(model, seed)
        flat = np.concatenate([np.ravel(point[n]) for n in names])
        step = 1e-6
        jac = np.column_stack(
            [
                (natural(flat + step * e) - natural(flat - step * e)) / (2 * step)
                for e in np.eye(flat.size)
            ]
        )
        assert jac.shape == (2 * n_judges + 1, 2 * n_judges + 1)
        pi, se, sp = (
            natural(flat)[0],
            natural(flat)[1 : 1 + n_judges],
            natural(flat)[1 + n_judges :],
        )
        want = (
            stats.beta(2.0, 3.0).logpdf(pi)
            + stats.beta(4.0, 1.5).logpdf(se).sum()
            + stats.beta(3.0, 2.0).logpdf(sp).sum()
            + np.log(abs(np.linalg.det(jac)))
            # up to a constant: a = mean + B u with B PyMC's orthonormal zero-sum basis, and
            # det [1, B] = sqrt(J) (the ones vector has length sqrt(J), orthogonal to B)
            - 0.5 * np.log(n_judges)
        )
        assert float(log_prior(point)) == pytest.approx(want, abs=1e-6)


def test_sampled_coordinates_keep_the_mirror_half_and_invert_exactly():
    model = panel_model(_small().patterns())
    outs = model.replace_rvs_by_values(
        [model["pi"], model["judged_rate"], model["accuracy"], model["se"], model["sp"], model["j"]]
    )
    forward = pytensor.function(model.value_vars, outs, on_unused_input="ignore")
    for seed in range(5):
        pi, rate, accuracy, se, sp, j = forward(**_free_point(model, seed))
        assert accuracy.mean() > 0  # the panel's mirror half, by construction
        np.testing.assert_array_equal(np.sign(accuracy), np.sign(j))  # a_t = 0 <=> J_t = 0
        np.testing.assert_allclose(pi * se + (1 - pi) * (1 - sp), rate, atol=1e-12)
        # the numpy map of bayesjudge.panels.start is the model's map, and its inverse
        np_se, np_sp = judge_accuracy(pi, rate, accuracy)
        np.testing.assert_allclose(np_se, se, atol=1e-12)
        np.testing.assert_allclose(np_sp, sp, atol=1e-12)
        back = sampling_coordinates(float(pi), se, sp)
        np.testing.assert_allclose(back["judged_rate_interval__"], np.log(rate / (1 - rate)))
        np.testing.assert_allclose(np.exp(back["accuracy_mean_log__"]), accuracy.mean())


# --------------------------------------------------------------------------- independence limit
@pytest.mark.slow
def test_independence_limit_matches_the_exact_prevalence_posterior():
    """One judge, no dependence: the panel model is the prevalence model (Jeffreys priors)."""
    nutpie = pytest.importorskip("nutpie")
    patterns = PanelPatterns(
        judges=("j",),
        label=np.array([1, 1, 0, 0, -1, -1]),
        verdict=np.array([[1], [0], [1], [0], [1], [0]], dtype=np.int8),
        count=np.array([50, 10, 8, 32, 300, 200]),
    )
    priors = PanelPriors(se=JEFFREYS, sp=JEFFREYS)
    compiled = nutpie.compile_pymc_model(panel_model(patterns, priors=priors, dependence="none"))
    post = nutpie.sample(
        compiled, draws=2000, tune=500, chains=2, seed=3, progress_bar=False
    ).posterior
    exact = exact_posterior(
        JudgeCounts(m1=60, x1=50, m0=40, x0=8, n=500, k=300), priors=PrevalencePriors()
    )
    pi = post["pi"].to_numpy().ravel()
    # 4000 draws with a bulk ESS of about 1,100: MCSE of the mean about sd / 33; 4 MCSE allowed
    assert pi.mean() == pytest.approx(exact.mean, abs=4 * exact.sd / 33)
    assert pi.std() == pytest.approx(exact.sd, rel=0.1)
    low, high = np.quantile(pi, [0.025, 0.975])
    interval = exact.eti(0.95)
    assert low == pytest.approx(interval.low, abs=0.3 * exact.sd)
    assert high == pytest.approx(interval.high, abs=0.3 * exact.sd)


def test_log_ndtr_is_accurate_everywhere_with_finite_gradients():
    """The model's log Phi against scipy, across both switches, and its gradient."""
    from scipy import special

    from bayesjudge.models.panel import _log_ndtr

    x = pt.dvector("x")
    value = _log_ndtr(x)
    f = pytensor.function([x], [value, pytensor.grad(value.sum(), x)])
    grid = np.array(
        [-60.0, -30.0, -20.5, -20.0, -19.5, -8.0, -1.5, -1.0, -0.5, 0.0, 3.0, 9.0, 40.0]
    )
    got, gradient = f(grid)
    np.testing.assert_allclose(got, special.log_ndtr(grid), rtol=1e-13, atol=1e-300)
    # d log Phi / dx = phi(x) / Phi(x)
    want = np.exp(stats.norm.logpdf(grid) - special.log_ndtr(grid))
    np.testing.assert_allclose(gradient, want, rtol=1e-8)
    assert np.isfinite(gradient).all()
