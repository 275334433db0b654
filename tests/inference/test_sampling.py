"""The shared model cache and sampler choice."""

from __future__ import annotations

import contextlib
import signal

import numpy as np
import pytest

from bayesjudge._interrupt import catching_ctrl_c
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
@pytest.mark.usefixtures("no_disk_cache")
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


# --------------------------------------------------------------------------- starting points
def _start_model():
    """A Beta scalar (log-odds transformed), a free normal vector and a deterministic."""
    import pymc as pm

    with pm.Model() as model:
        a = pm.Beta("a", 2.0, 2.0)
        pm.Normal("b", 0.0, 1.0, shape=3)
        pm.Deterministic("twice", 2.0 * a)
        pm.Binomial("y", 10, a, observed=4)
    return model


START = {"a_logodds__": np.array(1.5), "b": np.array([-2.0, 0.0, 3.0])}


def test_nutpie_starts_every_chain_at_the_jittered_start(monkeypatch):
    """The compiled model nutpie receives starts at ``start`` +- JITTER, the same per seed."""
    nutpie = pytest.importorskip("nutpie")
    from bayesjudge.inference.sampling import JITTER, sample_nuts

    seen = {}

    def fake_sample(compiled, **options):
        seen["compiled"], seen["options"] = compiled, options
        raise RuntimeError("stop before sampling")

    monkeypatch.setattr(nutpie, "sample", fake_sample)
    settings = {"draws": 10, "tune": 10, "chains": 2, "seed": 5, "target_accept": 0.8}
    with pytest.raises(RuntimeError, match="stop before sampling"):
        sample_nuts(
            ModelCache(maxsize=1), "m", _start_model, {}, **settings, progressbar=False,
            sampler="nutpie", start=START, adaptation="low_rank",
        )  # fmt: skip
    assert seen["options"]["adaptation"] == "low_rank"
    point = seen["compiled"].initial_point_func
    base = np.array([1.5, -2.0, 0.0, 3.0])  # value variables first, in nutpie's order
    first, again, other = point(11), point(11), point(12)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)
    for p in (first, other):
        assert p.shape == (4,)
        assert np.all(np.abs(p - base) <= JITTER)
        assert np.any(p != base)
    with pytest.raises(KeyError, match=r"start has no value for 'b'; it has \['a_logodds__'\]"):
        sample_nuts(
            ModelCache(maxsize=1), "m", _start_model, {}, **settings, progressbar=False,
            sampler="nutpie", start={"a_logodds__": np.array(0.0)},
        )  # fmt: skip
    with pytest.raises(ValueError, match=r"start\['b'\] must hold 3 values; it has 2"):
        sample_nuts(
            ModelCache(maxsize=1), "m", _start_model, {}, **settings, progressbar=False,
            sampler="nutpie", start={**START, "b": np.zeros(2)},
        )  # fmt: skip


def test_pymc_starts_every_chain_at_the_jittered_start_back_transformed(monkeypatch):
    """PyMC gets per-chain initial values on the constrained scale and no jitter of its own."""
    import pymc as pm
    from scipy.special import expit

    from bayesjudge.inference.sampling import JITTER, sample_nuts

    seen = {}

    def fake_sample(**options):
        seen.update(options)
        raise RuntimeError("stop before sampling")

    monkeypatch.setattr(pm, "sample", fake_sample)
    settings = {"draws": 10, "tune": 10, "chains": 3, "seed": 5, "target_accept": 0.8}

    def run(**extra):
        with pytest.raises(RuntimeError, match="stop before sampling"):
            sample_nuts(
                ModelCache(maxsize=1), "m", _start_model, {}, **settings, progressbar=False,
                sampler="pymc", **extra,
            )  # fmt: skip
        return dict(seen)

    first = run(start=START)
    assert first["init"] == "adapt_diag"  # the jitter is ours: PyMC adds none
    assert len(first["initvals"]) == 3
    for values in first["initvals"]:
        assert set(values) == {"a", "b"}
        assert abs(values["a"] - expit(1.5)) <= JITTER / 4  # logistic slope <= 1/4
        assert 0.0 < values["a"] < 1.0
        assert np.all(np.abs(values["b"] - START["b"]) <= JITTER)
    assert first["initvals"][0]["a"] != first["initvals"][1]["a"]  # each chain its own jitter
    again = run(start=START)
    for one, two in zip(first["initvals"], again["initvals"], strict=True):
        np.testing.assert_array_equal(one["b"], two["b"])  # the same seed, the same start
    assert run(start=START, adaptation="low_rank")["init"] == "adapt_full"
    default = run()
    assert default["initvals"] is None
    assert default["init"] == "jitter+adapt_diag"
    with pytest.raises(KeyError, match=r"start has no value for 'b'"):
        sample_nuts(
            ModelCache(maxsize=1), "m", _start_model, {}, **settings, progressbar=False,
            sampler="pymc", start={"a_logodds__": np.array(0.0)},
        )  # fmt: skip


@pytest.mark.parametrize(
    ("sampler", "adaptation"),
    [("nutpie", "low_rank"), ("pymc", "diag")],  # PyMC's full adaptation warns "experimental"
)
def test_sample_nuts_from_a_start_runs_and_records_adaptation(sampler, adaptation):
    """A short real run from ``start`` on each sampler; fit_model records the adaptation."""
    if sampler == "nutpie":
        pytest.importorskip("nutpie")
    from bayesjudge.inference.fit import ModelRun, NutsSettings, fit_model
    from bayesjudge.priors import PrevalencePriors

    run = ModelRun(
        name="start-test",
        key=("start-test", sampler),
        build=_start_model,
        data={},
        priors=PrevalencePriors(),
        start=START,
        adaptation=adaptation,
    )
    tree = fit_model(
        run,
        settings=NutsSettings(draws=500, tune=300, chains=2, target_accept=0.8),
        complete=lambda tree, rng: tree,
        random_seed=3,
        sampler=sampler,
        escalate=False,
        predictive_check=False,
        check_vars=["a"],
    )
    assert tree.attrs["adaptation"] == adaptation
    a = tree["posterior"]["a"].to_numpy()
    assert a.shape == (2, 500)
    assert 0.2 < float(a.mean()) < 0.6  # Beta(6, 8) posterior: mean 0.43, sd 0.13


def test_pymc_start_back_transforms_interval_and_zero_sum_variables():
    """Transforms that need a tensor or the variable's bounds (interval, zero-sum) work too."""
    import pymc as pm
    from pymc.distributions.transforms import ZeroSumTransform

    from bayesjudge.inference.sampling import JITTER, _pymc_initvals

    with pm.Model() as model:
        pm.Uniform("rate", lower=2.0, upper=4.0)
        pm.Flat("offset", shape=3, transform=ZeroSumTransform(zerosum_axes=[-1]))
    start = {"rate_interval__": np.array(0.0), "offset_zerosum__": np.array([0.5, -0.2])}
    (values,) = _pymc_initvals(model, start, chains=1, seed=2)
    assert abs(values["rate"] - 3.0) <= 2.0 * JITTER / 4  # 2 + 2 * logistic(0 +- jitter)
    assert values["offset"].shape == (3,)
    assert values["offset"].sum() == pytest.approx(0.0, abs=1e-12)


class _FakeCache:
    """A model cache whose compiled model is never sampled (nutpie is faked in these tests)."""

    def compiled(self, key, build, replaced):
        return object()


class _Background:
    """nutpie's background sampler: ``wait`` runs ``during`` (the Ctrl-C), then returns a trace."""

    def __init__(self, during):
        self.during, self.cancelled, self.aborted = during, False, False

    def wait(self):
        self.during()
        return "partial trace"  # what nutpie.sample would return after a swallowed Ctrl-C

    def abort(self):
        self.aborted = True
        return "partial trace"

    def cancel(self):
        self.cancelled = True


def _ctrl_c():
    signal.raise_signal(signal.SIGINT)


class _Swallowing:
    """A finaliser that gets the Ctrl-C: there Python prints and drops ``KeyboardInterrupt``."""

    def __del__(self):
        signal.raise_signal(signal.SIGINT)


def _swallowed_ctrl_c():
    _Swallowing()


@pytest.fixture
def ctrl_c_reaches_python():
    """Python's own Ctrl-C handler, even when the test runner was started with SIGINT ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


NUTS = {"draws": 10, "tune": 10, "chains": 2, "seed": 5, "target_accept": 0.8}


@pytest.mark.usefixtures("ctrl_c_reaches_python")
@pytest.mark.parametrize("during", [_ctrl_c, _swallowed_ctrl_c], ids=["raised", "swallowed"])
@pytest.mark.parametrize("function", ["sample_nuts", "sample_nuts_draws"])
def test_an_interrupted_nutpie_run_raises_and_never_returns_its_draws(
    monkeypatch, during, function
):
    """nutpie returns the draws made before a Ctrl-C (the rest NaN); the sampler call raises."""
    nutpie = pytest.importorskip("nutpie")
    backgrounds = []

    def fake_sample(compiled, *, blocking=True, **options):
        assert blocking is False  # the wait is ours, not nutpie's (which catches the Ctrl-C)
        backgrounds.append(_Background(during))
        return backgrounds[-1]

    monkeypatch.setattr(nutpie, "sample", fake_sample)
    args = (_FakeCache(), "m", lambda: None, {})
    call = {
        "sample_nuts": lambda: sampling.sample_nuts(
            *args, **NUTS, progressbar=False, sampler="nutpie"
        ),
        "sample_nuts_draws": lambda: sampling.sample_nuts_draws(
            *args, ["a"], **NUTS, sampler="nutpie"
        ),
    }[function]
    with pytest.raises(KeyboardInterrupt), catching_ctrl_c():
        call()
    (background,) = backgrounds
    assert not background.aborted  # the partial trace is never taken
    # a Ctrl-C raised in the wait stops the sampler; one swallowed elsewhere came after it
    assert background.cancelled == (during is _ctrl_c)


@pytest.mark.usefixtures("ctrl_c_reaches_python")
def test_a_ctrl_c_pymc_swallowed_is_raised_after_sampling(monkeypatch):
    """PyMC's NUTS, like nutpie, stops on a Ctrl-C and returns a shorter trace."""
    import pymc as pm

    class Cache:
        def model(self, key, build):
            return pm.Model()

    def fake_sample(**options):
        with contextlib.suppress(KeyboardInterrupt):  # as pymc.sampling.mcmc does
            _ctrl_c()
        return {}  # never read: the sampler call raises first

    monkeypatch.setattr(pm, "sample", fake_sample)
    with pytest.raises(KeyboardInterrupt), catching_ctrl_c():
        sampling.sample_nuts(
            Cache(), "m", lambda: None, {}, **NUTS, progressbar=False, sampler="pymc"
        )
    # without the command line's recording, PyMC's own behaviour stands: its trace is used
    with pytest.raises(KeyError, match="posterior"):
        sampling.sample_nuts(
            Cache(), "m", lambda: None, {}, **NUTS, progressbar=False, sampler="pymc"
        )
