"""The shared model cache and sampler choice."""

from __future__ import annotations

import pytest

from bayesjudge import sampling
from bayesjudge.sampling import CacheInfo, ModelCache, resolve_sampler


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
