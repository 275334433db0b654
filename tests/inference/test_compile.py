"""The compile path and the on-disk model cache (bayesjudge.inference.compile, .cache).

One model is compiled per module (a few seconds); the tests load, corrupt and move copies of its
cache folder. The cross-process tests start fresh interpreters (one loads the prevalence model;
three fit the panel model: compiling, loading and with the cache off).
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from bayesjudge.inference import cache as cache_module
from bayesjudge.inference import compile as compile_module
from bayesjudge.inference.cache import (
    CacheInfo,
    ModelCache,
    canonical_key,
    clear_disk_cache,
    disk_cache_folder,
)
from bayesjudge.inference.compile import CachedCompiledModel
from bayesjudge.prevalence.data import JudgeCounts
from bayesjudge.priors import Beta, PrevalencePriors

nutpie = pytest.importorskip("nutpie")

COUNTS = JudgeCounts(m1=60, x1=50, m0=60, x0=12, n=500, k=300)
OTHER = {"m1": 100, "x1_obs": 90, "m0": 100, "x0_obs": 15, "n": 1000, "k_obs": 700}
DATA_NAMES = frozenset(OTHER)
KEY = ("prevalence-test", True, PrevalencePriors())
SAMPLE = {"draws": 150, "tune": 150, "chains": 2, "progress_bar": False, "save_warmup": False}


def _build():
    from bayesjudge.models.prevalence import prevalence_model

    return prevalence_model(COUNTS)


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ModelCache]:
    """A cache folder holding the compiled prevalence model, and the cache that filled it."""
    root = tmp_path_factory.mktemp("bj-cache")
    mp = pytest.MonkeyPatch()
    mp.setenv("BAYESJUDGE_CACHE_DIR", str(root))
    try:
        cache = ModelCache(maxsize=2)
        cache.compiled(KEY, _build, DATA_NAMES)
    finally:
        mp.undo()
    return root, cache


def _copy(root: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(root, target)
    return target


def _entry(root: Path) -> Path:
    (entry,) = (root / "models").iterdir()
    return entry


# --------------------------------------------------------------------------- compiling
def _log_density(model, points: np.ndarray) -> np.ndarray:
    """Rows of (log density, gradient) of a nutpie model at each point, through its C callback."""
    double_p = ctypes.POINTER(ctypes.c_double)
    rows = []
    for x in points:
        x = np.ascontiguousarray(x, dtype=float)
        grad, logp = np.zeros(model.n_dim), np.zeros(())
        code = model.compiled_logp_func.ctypes(
            ctypes.c_uint64(model.n_dim),
            x.ctypes.data_as(double_p),
            grad.ctypes.data_as(double_p),
            logp.ctypes.data_as(double_p),
            ctypes.c_void_p(model.user_data.ctypes.data),
        )
        assert code == 0
        rows.append(np.concatenate([[float(logp)], grad]))
    return np.array(rows)


def test_compiled_model_computes_what_nutpie_compiles(filled):
    """The same log density and gradient as ``nutpie.compile_pymc_model``, to rounding.

    Not necessarily bit for bit: the graph's code inside our callback is the callback's own copy
    (``compile._own_copies``), where nutpie's callback calls the graph's standalone code. On this
    model the two agreed exactly at every point (2026-11-28); on the panel model the copy's
    gradient differs in the last bit at about 3 % of points.
    """
    _, cache = filled
    before = cache.info()  # the fixture's cache is shared by the module's tests, in any order
    ours = cache.compiled(KEY, _build, DATA_NAMES)
    reference = nutpie.compile_pymc_model(_build())
    points = (
        np.random.default_rng(3).normal(size=(2000, ours.n_dim))
        * np.repeat([0.1, 1.0, 3.0, 6.0], 500)[:, None]
    )
    for data in ({}, OTHER):
        a = _log_density(ours.with_data(**data) if data else ours, points)
        b = _log_density(reference.with_data(**data) if data else reference, points)
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)
    # one more hit; the model was built and compiled once, by the fixture
    assert cache.info() == CacheInfo(builds=1, compiles=1, hits=before.hits + 1, size=1, loads=0)


def test_starting_points_reproduce_pymc(filled):
    from pymc.initial_point import make_initial_point_fn

    _, cache = filled
    compiled = cache.compiled(KEY, _build, DATA_NAMES)
    model = _build()
    pymc_rule = make_initial_point_fn(
        model=model, jitter_rvs=set(model.free_RVs), return_transformed=True
    )
    names = [model.rvs_to_values[rv].name for rv in model.free_RVs]
    for seed in [0, 5, 99, 2**40 + 3, *np.random.default_rng(1).integers(0, 2**63, 20)]:
        expected = np.array([pymc_rule(int(seed))[name] for name in names], dtype=float)
        np.testing.assert_array_equal(compiled.initial_point_func(int(seed)), expected)


def test_with_data_checks_names_and_ranks(filled):
    _, cache = filled
    compiled = cache.compiled(KEY, _build, DATA_NAMES)
    with pytest.raises(KeyError, match="'nope' is not a data container"):
        compiled.with_data(nope=1)
    with pytest.raises(ValueError, match="data 'n' must have rank 0; got rank 1"):
        compiled.with_data(n=[1, 2])
    swapped = compiled.with_data(n=2000)
    assert int(swapped.shared_data["n"]) == 2000
    assert int(compiled.shared_data["n"]) == COUNTS.n  # the cached model is untouched


# --------------------------------------------------------------------------- the disk cache
def test_entry_holds_the_spec_without_the_replaced_data(filled):
    root, _ = filled
    record = json.loads((_entry(root) / "spec.json").read_text())
    assert record["key"] == canonical_key(KEY)
    shared = {s["name"]: s for s in record["spec"]["shared"]}
    assert set(shared) == set(DATA_NAMES)
    assert all(s["value"] is None for s in shared.values())  # the data never reach the disk


def _sample_in_a_fresh_process(folder: Path, *, build: bool) -> dict:
    """Sample the test model in a new interpreter with the disk cache in ``folder``.

    With ``build`` the process builds and compiles the model (and writes the cache); without,
    building is an error, so the model must come from the disk.
    """
    counts = repr(COUNTS.as_dict())
    build_body = (
        "from bayesjudge.models.prevalence import prevalence_model\n"
        "            from bayesjudge.prevalence.data import JudgeCounts\n"
        f"            return prevalence_model(JudgeCounts(**{counts}))"
        if build
        else 'raise AssertionError("a disk hit must not build the model")'
    )
    script = textwrap.dedent(
        f"""
        import json, sys
        import numpy as np
        import nutpie
        from bayesjudge.inference.cache import ModelCache
        from bayesjudge.priors import PrevalencePriors
        cache = ModelCache(maxsize=1)
        key = ("prevalence-test", True, PrevalencePriors())
        def build():
            {build_body}
        compiled = cache.compiled(key, build, frozenset({sorted(DATA_NAMES)!r}))
        trace = nutpie.sample(compiled.with_data(**{OTHER!r}), seed=4, **{SAMPLE!r})
        print(json.dumps({{
            "loads": cache.info().loads, "builds": cache.info().builds,
            "compiles": cache.info().compiles,
            "pi": trace.posterior["pi"].values.ravel().tolist(),
            "imported": [
                m for m in ("pymc", "pytensor", "bayesjudge.models.prevalence") if m in sys.modules
            ],
        }}))
        """
    )
    env = {**os.environ, "BAYESJUDGE_CACHE_DIR": str(folder)}
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_a_fresh_process_loads_without_pymc_and_samples_the_same(filled, tmp_path):
    """The process that compiled the model, a later one that loads it, and this one draw the same.

    The test session's own process has compiled many models by then (nutpie's own compile of
    this one among them), and its copy of the model draws the same bit for bit as well.
    """
    folder = tmp_path / "cache"
    compiled = _sample_in_a_fresh_process(folder, build=True)
    assert (compiled["loads"], compiled["builds"], compiled["compiles"]) == (0, 1, 1)
    loaded = _sample_in_a_fresh_process(_copy(folder, tmp_path), build=False)
    assert (loaded["loads"], loaded["builds"], loaded["compiles"]) == (1, 0, 0)
    assert loaded["imported"] == []
    np.testing.assert_array_equal(loaded["pi"], compiled["pi"])
    # and the draws are the ones the test session's copy of the entry gives
    _, cache = filled
    session = nutpie.sample(
        cache.compiled(KEY, _build, DATA_NAMES).with_data(**OTHER), seed=4, **SAMPLE
    )
    np.testing.assert_array_equal(session.posterior["pi"].values.ravel(), loaded["pi"])


PANEL_SCRIPT = """
import hashlib, json, warnings
warnings.simplefilter("ignore")
from bayesjudge.inference.cache import model_cache_info
from bayesjudge.panels.fit import fit_panel
from bayesjudge.panels.simulate import panel_scenario, simulate_panel
data = simulate_panel(
    pi=0.7, **panel_scenario(3), n_unlabelled=300, n_gold=80, random_seed=5
).data
tree = fit_panel(
    data, random_seed=11, progressbar=False, draws=100, tune=100, chains=1, escalate=False
)
info = model_cache_info()
print(json.dumps({
    "pi": hashlib.sha256(tree["posterior"]["pi"].to_numpy().tobytes()).hexdigest(),
    "loads": info.loads, "compiles": info.compiles,
}))
"""


def _panel_draws(cache: str) -> dict[str, object]:
    env = {**os.environ, "BAYESJUDGE_CACHE_DIR": cache}
    run = subprocess.run(
        [sys.executable, "-c", PANEL_SCRIPT], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_compiling_loading_and_no_cache_draw_the_same_panel(tmp_path):
    """A seed's draws do not depend on whether the model was compiled, loaded or not cached.

    The panel model is the one where they did: the callbacks called the graph's code through
    weak symbols, which a process that had compiled the graph resolved to its own standalone
    code, a separate compilation whose gradient differed in the last bit at about 3 % of
    points (``compile._own_copies``; ``benchmarks/cache_reproducibility.py``).
    """
    folder = str(tmp_path / "cache")
    compiled = _panel_draws(folder)
    loaded = _panel_draws(folder)
    uncached = _panel_draws("off")
    assert (compiled["compiles"], compiled["loads"]) == (1, 0)
    assert (loaded["compiles"], loaded["loads"]) == (0, 1)
    assert (uncached["compiles"], uncached["loads"]) == (1, 0)
    assert compiled["pi"] == loaded["pi"] == uncached["pi"]


def test_python_free_tells_code_that_reaches_python_objects():
    import numba

    from bayesjudge.inference import compile as compile_module

    @numba.cfunc("int64(int64)")
    def pure(x):
        return x + 1

    @numba.cfunc("int64(int64)")
    def printing(x):
        print(x)  # boxes x and calls Python's print, under the GIL
        return x

    assert compile_module._python_free(pure)
    assert not compile_module._python_free(printing)

    # code loaded from numba's cache has no IR left to inspect: never called Python-free
    class Loaded:
        class _library:
            _disable_inspection = True

    assert not compile_module._python_free(pure, Loaded())


def test_entry_of_python_free_code_says_so(filled):
    root, _ = filled
    record = json.loads((_entry(root) / "spec.json").read_text())
    assert record["spec"]["python_free"] is True  # PyTensor's graphs of this model
    assert record["spec"]["format"] == 3


def test_load_needs_every_unstored_container_replaced(filled):
    root, _ = filled
    entry = _entry(root)
    # the spec holds no value of 'n': a caller that does not replace it must not get zeros
    assert cache_module._load(entry, DATA_NAMES - {"n"}) is None
    assert cache_module._load(entry, DATA_NAMES) is not None


@pytest.mark.parametrize("damage", ["spec", "code", "format", "missing"])
def test_a_damaged_entry_is_not_loaded(filled, tmp_path, damage):
    root, _ = filled
    entry = _entry(_copy(root, tmp_path))
    if damage == "spec":
        (entry / "spec.json").write_text("{not json")
    elif damage == "code":
        for path in entry.glob("*.nbc"):
            path.unlink()
    elif damage == "format":
        record = json.loads((entry / "spec.json").read_text())
        record["spec"]["format"] = -1
        (entry / "spec.json").write_text(json.dumps(record))
    else:
        (entry / "spec.json").unlink()
    assert cache_module._load(entry, DATA_NAMES) is None


def test_a_damaged_entry_is_compiled_afresh_and_rewritten(filled, tmp_path, monkeypatch):
    root, _ = filled
    folder = _copy(root, tmp_path)
    (_entry(folder) / "spec.json").write_text("{not json")
    monkeypatch.setenv("BAYESJUDGE_CACHE_DIR", str(folder))
    cache = ModelCache(maxsize=1)
    compiled = cache.compiled(KEY, _build, DATA_NAMES)
    assert (cache.info().loads, cache.info().compiles) == (0, 1)
    trace = nutpie.sample(compiled.with_data(**OTHER), seed=1, **SAMPLE)
    assert 0.6 < float(trace.posterior["pi"].mean()) < 0.9  # Rogan-Gladen value 0.74
    # numba still had the code: its IR could not be inspected, so the entry says not Python-free
    record = json.loads((_entry(folder) / "spec.json").read_text())
    assert record["spec"]["python_free"] is False
    # the rewritten entry serves the next process
    again = ModelCache(maxsize=1)
    again.compiled(KEY, _build, DATA_NAMES)
    assert (again.info().loads, again.info().compiles) == (1, 0)


def test_an_unwritable_folder_warns_once(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setattr(cache_module, "_WARNED", set())
    entry = blocker / "models" / "abc"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = [cache_module._writable(entry), cache_module._writable(entry)]
    assert results == [False, False]
    assert len(caught) == 1
    assert "could not write the model cache" in str(caught[0].message)


def test_the_disk_cache_can_be_turned_off(monkeypatch, tmp_path):
    monkeypatch.setenv("BAYESJUDGE_CACHE_DIR", "OFF")
    assert disk_cache_folder() is None
    assert clear_disk_cache() == 0


def test_clear_disk_cache_removes_entries(filled, tmp_path, monkeypatch):
    root, _ = filled
    folder = _copy(root, tmp_path)
    entry = _entry(folder)
    monkeypatch.setenv("BAYESJUDGE_CACHE_DIR", str(folder))
    assert clear_disk_cache() == 1
    assert list((folder / "models").iterdir()) == []
    assert cache_module._load(entry, DATA_NAMES) is None


# --------------------------------------------------------------------------- the key
def test_disk_cache_folder_follows_the_environment(monkeypatch):
    assert disk_cache_folder({"BAYESJUDGE_CACHE_DIR": "~/bj"}) == Path("~/bj").expanduser()
    # XDG_CACHE_HOME must be absolute to count (XDG Base Directory specification)
    home = Path.home() / ".cache" / "bayesjudge"
    assert disk_cache_folder({"XDG_CACHE_HOME": "relative/path"}) == home
    assert disk_cache_folder({"XDG_CACHE_HOME": "/x", "BAYESJUDGE_CACHE_DIR": " "}) == Path(
        "/x/bayesjudge"
    )
    assert disk_cache_folder({}) == home


def test_canonical_key_is_stable_and_refuses_what_is_not():
    priors = PrevalencePriors(pi=Beta(1, 1))
    text = canonical_key(("prevalence", True, priors, 3, np.int64(3), 0.1))
    assert text == canonical_key(
        ("prevalence", True, PrevalencePriors(pi=Beta(1, 1)), 3, np.int64(3), 0.1)
    )
    assert "bayesjudge.priors.PrevalencePriors(pi=bayesjudge.priors.Beta(" in text
    # values that print alike but differ stay apart
    assert canonical_key((1,)) != canonical_key((1.0,)) != canonical_key((True,))
    assert canonical_key((3,)) != canonical_key((np.int64(3),))
    assert canonical_key(("a,b",)) != canonical_key(("a", "b"))
    for bad in (b"bytes", np.arange(3), lambda: 1, object(), {"a": 1}):
        with pytest.raises(TypeError, match="no canonical text form"):
            canonical_key(("k", bad))


def test_the_folder_changes_with_the_key_and_the_environment(tmp_path, monkeypatch):
    base = cache_module._entry_folder(tmp_path, KEY)
    assert base is not None
    assert base.parent == tmp_path / "models"
    assert cache_module._entry_folder(tmp_path, KEY) == base
    other_priors = ("prevalence-test", True, PrevalencePriors(pi=Beta(1, 1)))
    assert cache_module._entry_folder(tmp_path, other_priors) != base
    assert (
        cache_module._entry_folder(tmp_path, ("prevalence-test", False, PrevalencePriors())) != base
    )
    assert cache_module._entry_folder(tmp_path, ("stack", b"data")) is None  # memory only
    fingerprint = cache_module.environment_fingerprint()
    for change in (
        {"versions": {**fingerprint["versions"], "numba": "0.0"}},
        {"sources": "0" * 64},
        {"settings": {"PYTENSOR_FLAGS": "floatX=float32"}},
        {"machine": "riscv64"},
    ):
        monkeypatch.setattr(
            cache_module, "environment_fingerprint", lambda c=change: {**fingerprint, **c}
        )
        assert cache_module._entry_folder(tmp_path, KEY) != base


def test_fingerprint_covers_sources_versions_and_settings():
    fingerprint = cache_module.environment_fingerprint()
    assert set(fingerprint["versions"]) >= {"bayesjudge", "pymc", "pytensor", "nutpie", "numba"}
    assert len(fingerprint["sources"]) == 64
    assert fingerprint["python"] == sys.version


# --------------------------------------------------------------------------- contained
@pytest.mark.parametrize("broken", ["private-name", "untested-version"])
def test_a_broken_private_path_falls_back_to_nutpie_with_the_same_draws(
    filled, monkeypatch, broken
):
    """The compiled form is an accelerator only: without it the fit is nutpie's own, the same."""
    _, cache = filled
    ours = cache.compiled(KEY, _build, DATA_NAMES).with_data(**OTHER)
    expected = nutpie.sample(ours, seed=4, **SAMPLE).posterior["pi"].values
    monkeypatch.setenv("BAYESJUDGE_CACHE_DIR", "off")
    monkeypatch.setattr(cache_module, "_WARNED", set())
    if broken == "private-name":
        # what a numba release without a private name our callbacks use would raise (nutpie's
        # own compilation uses numba's public cfunc, so the name cannot simply be deleted here)
        def gone(*args: object, **kwargs: object) -> None:
            raise AttributeError("type object 'CPUCodeLibrary' has no attribute '_final_module'")

        monkeypatch.setattr(compile_module, "_own_copies", gone)
        reason = "AttributeError: type object 'CPUCodeLibrary' has no attribute '_final_module'"
    else:
        monkeypatch.setitem(cache_module.TESTED_VERSIONS, "nutpie", ("0.0",))
        reason = r"untested \{'nutpie': '0\.16\.\d+'\}"
    fresh = ModelCache(maxsize=1)
    with pytest.warns(
        RuntimeWarning, match=f"compiles through nutpie.compile_pymc_model \\({reason}"
    ):
        compiled = fresh.compiled(KEY, _build, DATA_NAMES)
    assert not isinstance(compiled, CachedCompiledModel)
    assert fresh.info() == CacheInfo(builds=1, compiles=1, hits=0, size=1, loads=0, fallbacks=1)
    drawn = nutpie.sample(compiled.with_data(**OTHER), seed=4, **SAMPLE).posterior["pi"].values
    np.testing.assert_array_equal(drawn, expected)


def test_the_tested_versions_are_installed_here():
    # the suite checks the compiled form only where it is in use; a new numba or nutpie release
    # must be tested (and TESTED_VERSIONS and the fast extra's pins moved) before it is
    assert cache_module.untested_versions() == {}
