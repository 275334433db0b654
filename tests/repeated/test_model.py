"""The repeated-samples model: structure, log density, estimands, predictive check; no sampling."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import special, stats

from bayesjudge.models.repeated import repeated_model
from bayesjudge.repeated import RepeatedData, pass_histogram_check, simulate_repeated

COUNTS = {
    "n": np.array([5, 3, 0]),
    "k": np.array([4, 0, 0]),
    "m1": np.array([1, 0, 2]),
    "x1": np.array([1, 0, 2]),
    "m0": np.array([0, 2, 0]),
    "x0": np.array([0, 1, 0]),
}


def test_structure_dims_and_names() -> None:
    model = repeated_model(
        ("a", "b", "c"), COUNTS, clusters=("t", "u"), cluster_index=np.array([0, 0, 1]), ks=(1, 3)
    )
    assert model.coords["item"] == ("a", "b", "c")
    assert model.coords["pass_k"] == (1, 3)
    assert model.coords["band"] == ("never", "sometimes", "always")
    assert {v.name for v in model.free_RVs} == {
        "se_z", "fpr_share_z", "median_z", "sigma", "item_z", "tau", "cluster_z",
    }  # fmt: skip
    assert model.named_vars_to_dims["pass_at_k"] == ("pass_k",)
    assert model.named_vars_to_dims["item_rate"] == ("item",)
    assert {v.name for v in model.observed_RVs} == {"k", "x1", "x0"}


def test_log_density_is_the_stated_likelihood_and_prior() -> None:
    """At a point, the model's log density equals the formula written out with scipy."""
    model = repeated_model(("a", "b", "c"), COUNTS, gold_informs_items=True)
    point = {
        "se_z": 0.7,
        "fpr_share_z": -0.4,
        "median_z": 0.3,
        "sigma_log__": np.log(1.2),
        "item_z": np.array([0.5, -1.0, 0.2]),
    }
    logp = float(model.compile_logp()(point))
    se = stats.norm.cdf(0.7)
    fpr = se * stats.norm.cdf(-0.4)
    sp = 1.0 - fpr
    median = stats.norm.cdf(0.3)
    sigma = 1.2
    p = special.expit(special.logit(median) + sigma * point["item_z"])
    rate = p * se + (1 - p) * fpr
    c = COUNTS
    expected = (
        stats.binom.logpmf(c["k"], c["n"], rate).sum()
        + stats.binom.logpmf(c["x1"], c["m1"], se).sum()
        + stats.binom.logpmf(c["x0"], c["m0"], fpr).sum()
        + stats.binom.logpmf(c["m1"], c["m1"] + c["m0"], p).sum()
        # priors: Jeffreys on the median rate, Se and Sp, the Jacobian Se of f = Se b,
        # the standard normal scores, HalfNormal(2.5) on sigma with its log Jacobian
        + stats.beta.logpdf(median, 0.5, 0.5)
        + stats.beta.logpdf(se, 0.5, 0.5)
        + stats.beta.logpdf(sp, 0.5, 0.5)
        + np.log(se)
        + stats.norm.logpdf([0.7, -0.4, 0.3]).sum()
        + stats.norm.logpdf(point["item_z"]).sum()
        + stats.halfnorm.logpdf(sigma, scale=2.5)
        + np.log(sigma)
    )
    assert logp == pytest.approx(expected, rel=1e-9)


def test_estimands_as_written() -> None:
    model = repeated_model(("a", "b", "c"), COUNTS, ks=(1, 4))
    point = {
        "se_z": 0.7,
        "fpr_share_z": -0.4,
        "median_z": 0.3,
        "sigma_log__": np.log(2.0),
        "item_z": np.array([1.8, -1.5, 0.0]),
    }
    names = ["item_rate", "mean_rate", "pass_at_k", "pass_all_k", "band_share", "population_rate"]
    outputs = model.replace_rvs_by_values([model[n] for n in names])
    fn = model.compile_fn(outputs, inputs=model.value_vars, on_unused_input="ignore")
    values = dict(zip(names, fn(point), strict=True))
    p = special.expit(special.logit(stats.norm.cdf(0.3)) + 2.0 * point["item_z"])
    # PyTensor's normal log CDF agrees with scipy's to about 3e-9 relative
    np.testing.assert_allclose(values["item_rate"], p, rtol=1e-7)
    assert values["mean_rate"] == pytest.approx(p.mean(), rel=1e-7)
    np.testing.assert_allclose(
        values["pass_at_k"], [p.mean(), np.mean(1 - (1 - p) ** 4)], rtol=1e-7
    )
    np.testing.assert_allclose(values["pass_all_k"], [p.mean(), np.mean(p**4)], rtol=1e-7)
    bands = [np.mean(p < 0.1), np.mean((p >= 0.1) & (p <= 0.9)), np.mean(p > 0.9)]
    np.testing.assert_allclose(values["band_share"], bands)
    # E[expit(mu + 2 x)], x ~ N(0, 1), by adaptive quadrature
    from scipy import integrate

    mu = special.logit(stats.norm.cdf(0.3))
    exact = integrate.quad(lambda x: special.expit(mu + 2.0 * x) * stats.norm.pdf(x), -12, 12)[0]
    assert values["population_rate"] == pytest.approx(exact, abs=1e-7)


def _posterior(rate: np.ndarray, draws: int = 200) -> xr.Dataset:
    shape = (1, draws)
    return xr.Dataset(
        {
            "item_rate": (("chain", "draw", "item"), np.broadcast_to(rate, (*shape, rate.size))),
            "se": (("chain", "draw"), np.ones(shape)),
            "sp": (("chain", "draw"), np.ones(shape)),
        }
    )


def test_histogram_check_fails_on_underdispersed_items() -> None:
    """Every item passed on exactly 4 of 8 answers: binomial answers cannot do that."""
    frame = pd.DataFrame(
        {
            "item": np.repeat([f"q{i}" for i in range(40)], 8),
            "verdict": np.tile([1, 1, 1, 1, 0, 0, 0, 0], 40),
        }
    )
    data = RepeatedData.from_frame(frame)
    check = pass_histogram_check(_posterior(np.full(40, 0.5)), data, random_seed=1)
    assert not check.passed
    assert check.value < 0.01


def test_histogram_check_passes_on_data_from_the_model() -> None:
    sim = simulate_repeated(60, 6, sigma=1.5, se=1.0, sp=1.0, gold_answers=0, random_seed=4)
    data = RepeatedData.from_frame(sim.frame.drop(columns=["truth", "label"]))
    check = pass_histogram_check(_posterior(sim.truth.item_rate), data, random_seed=1)
    assert check.passed
