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


def test_padding_adds_only_prior_terms_and_keeps_the_estimands() -> None:
    """Padded to 5 items and 4 clusters, the log density is the unpadded one plus standard
    normal terms of the padded scores, and every estimand averages the observed items only."""
    args = (("a", "b", "c"), COUNTS)
    options = {"clusters": ("t", "u"), "cluster_index": np.array([0, 0, 1]), "ks": (1, 3)}
    plain = repeated_model(*args, **options)
    padded = repeated_model(*args, **options, pad_to={"item": 5, "cluster": 4})
    assert padded.coords["item"][:3] == ("a", "b", "c")
    assert len(padded.coords["item"]) == 5
    assert len(padded.coords["cluster"]) == 4
    rng = np.random.default_rng(3)
    point = {k: rng.normal(size=np.shape(v)) for k, v in plain.initial_point().items()}
    extra = {"item_z": rng.normal(size=2), "cluster_z": rng.normal(size=2)}
    wide = {k: np.concatenate([v, extra[k]]) if k in extra else v for k, v in point.items()}
    prior = sum(float(stats.norm.logpdf(v).sum()) for v in extra.values())
    assert padded.compile_logp()(wide) == pytest.approx(plain.compile_logp()(point) + prior)
    names = ["mean_rate", "pass_at_k", "pass_all_k", "band_share", "population_rate"]
    short = _at(plain, names, point)
    long = _at(padded, names, wide)
    for name, a, b in zip(names, short, long, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-13, err_msg=name)


def test_padded_patterns_carry_no_answers() -> None:
    sim = simulate_repeated(6, 2, gold_answers=4, calls=3, call_correlation=0.4, random_seed=2)
    data = RepeatedData.from_frame(sim.frame.drop(columns="truth"), columns={"call": "call"})
    counts, patterns = data.counts(), data.call_patterns()
    plain = repeated_model(data.items, counts, spread=False, patterns=patterns)
    size = patterns["item"].size + 5
    padded = repeated_model(data.items, counts, spread=False, patterns=patterns,
                            pad_to={"pattern": size, "item": 9})  # fmt: skip
    assert padded["pattern_answers"].get_value().tolist()[-5:] == [0] * 5
    point = {k: np.asarray(0.3) for k in plain.initial_point()}
    assert padded.compile_logp()(point) == pytest.approx(plain.compile_logp()(point), rel=1e-12)
    with pytest.raises(ValueError, match=r"pad_to\['item'\] must be a whole number of at least 6"):
        repeated_model(data.items, counts, pad_to={"item": 4})


def _at(model, names, point):  # type: ignore[no-untyped-def]
    """Return the values of the variables ``names`` of ``model`` at a point of its values."""
    outputs = model.replace_rvs_by_values([model[n] for n in names])
    return model.compile_fn(outputs, inputs=model.value_vars, on_unused_input="ignore")(point)
