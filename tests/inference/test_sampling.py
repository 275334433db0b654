"""The shared model cache and sampler choice."""

from __future__ import annotations

import numpy as np
import pytest

from bayesjudge.inference import sampling
from bayesjudge.inference.cache import CacheInfo, ModelCache
from bayesjudge.inference.sampling import resolve_sampler


def test_cache_counts_builds_hits_and_evicts_least_recently_used():
    cache = ModelCache(maxsize=2)
    built = []

    def build(name):
        return lambda: built.append(name) or name

    assert cache.model("a", build("a")) == "a"
    assert cache.model("b", build("b")) == "b"
    assert cache.model("a", build("a-again")) == "a"  # a hit: not rebuilt
    assert cache.model("c", build("c")) == "c"  # evicts "b", the least recently used
    assert cache.model("b", build("b2")) == "b2"
    assert built == ["a", "b", "c", "b2"]
    assert cache.info() == CacheInfo(builds=4, compiles=0, hits=1, size=2)


def test_resolve_sampler(monkeypatch):
    assert resolve_sampler("pymc") == ("pymc", "PyMC NUTS, as requested")
    with pytest.raises(ValueError, match=r"sampler must be one of \['auto', 'nutpie', 'pymc'\]"):
        resolve_sampler("metropolis")
    monkeypatch.setattr(sampling, "nutpie_installed", lambda: True)
    assert resolve_sampler("auto")[0] == "nutpie"
    monkeypatch.setattr(sampling, "nutpie_installed", lambda: False)
    assert resolve_sampler("auto")[0] == "pymc"
    assert "not installed" in resolve_sampler("auto")[1]
    with pytest.raises(ImportError, match="needs nutpie"):
        resolve_sampler("nutpie")


# --------------------------------------------------------------------------- raw draws
def test_sample_nuts_draws_equal_the_datatree_path():
    """The raw-trace path returns exactly the draws and divergences of ``sample_nuts``."""
    pytest.importorskip("nutpie")
    from bayesjudge.inference.sampling import NutsDraws, sample_nuts, sample_nuts_draws
    from bayesjudge.models.prevalence import prevalence_model
    from bayesjudge.prevalence import fit as fitting
    from bayesjudge.prevalence.data import JudgeCounts
    from bayesjudge.priors import PrevalencePriors

    counts = JudgeCounts(m1=60, x1=50, m0=60, x0=12, n=500, k=300)
    priors = PrevalencePriors()
    arrays = {k: np.asarray(v, dtype=np.int64) for k, v in counts.as_dict().items()}
    common = {
        "cache": ModelCache(maxsize=1),
        "key": "pooled",
        "build": lambda: prevalence_model(counts, priors=priors, restrict_j=True),
        "data": fitting._model_data(arrays),
    }
    settings = {"draws": 200, "tune": 100, "chains": 3, "seed": 7, "target_accept": 0.9}
    tree = sample_nuts(**common, **settings, progressbar=False, sampler="nutpie")
    names = ("pi", "se", "sp", "j")
    fast = sample_nuts_draws(**common, var_names=names, **settings, sampler="nutpie")
    single = sample_nuts_draws(**common, var_names=names, **settings, sampler="nutpie", cores=1)
    assert isinstance(fast, NutsDraws)
    for name in names:
        expected = tree["posterior"][name].to_numpy()
        assert fast.draws[name].shape == (3, 200)
        np.testing.assert_array_equal(fast.draws[name], expected)  # bit for bit
        np.testing.assert_array_equal(single.draws[name], expected)  # cores do not matter
    diverging = tree["sample_stats"]["diverging"].to_numpy().sum(axis=1)
    np.testing.assert_array_equal(fast.divergences, diverging)
    assert fast.stacked(["pi", "se"]).shape == (2, 3, 200)
    assert common["cache"].info().compiles == 1  # one compiled model served all three runs
    with pytest.raises(KeyError, match=r"\['nope'\] are not variables of the model"):
        sample_nuts_draws(**common, var_names=["nope"], **settings, sampler="nutpie")


def test_sample_nuts_draws_with_pymc_sampler_uses_the_datatree():
    import pymc as pm

    from bayesjudge.inference.sampling import sample_nuts_draws

    def build():
        with pm.Model() as model:
            pm.Normal("mu", 0.0, 1.0)
        return model

    fit = sample_nuts_draws(
        ModelCache(maxsize=1),
        "normal",
        build,
        {},
        ["mu"],
        draws=50,
        tune=50,
        chains=2,
        seed=3,
        target_accept=0.8,
        sampler="pymc",
    )
    assert fit.draws["mu"].shape == (2, 50)
    assert fit.divergences.shape == (2,)
    assert abs(float(np.mean(fit.draws["mu"]))) < 0.5  # 100 draws of N(0, 1): sd of mean ~0.1
    with pytest.raises(KeyError, match=r"\['sigma'\] are not variables"):
        sample_nuts_draws(
            ModelCache(maxsize=1),
            "normal",
            build,
            {},
            ["sigma"],
            draws=20,
            tune=20,
            chains=1,
            seed=3,
            target_accept=0.8,
            sampler="pymc",
        )
