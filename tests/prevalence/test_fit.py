"""Tests of fit_prevalence: real short fits, caching, reproducibility, flagged bad fits."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pymc as pm
import pytest
import xarray as xr
from scipy import stats

import bayesjudge
from bayesjudge.errors import DataError, FitWarning
from bayesjudge.inference import cache as model_cache_module
from bayesjudge.inference import sampling
from bayesjudge.inference.cache import model_cache_info
from bayesjudge.inference.diagnostics import check_fit
from bayesjudge.inference.fit import attempts_of
from bayesjudge.models.prevalence import prevalence_model
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.fit import fit_prevalence
from bayesjudge.prevalence.simulate import judge_table
from bayesjudge.priors import Beta, PrevalencePriors

FAST = {"draws": 500, "tune": 500, "chains": 4, "progressbar": False}
LOW_PREVALENCE = JudgeCounts(m1=122, x1=103, m0=401, x0=2, n=3330, k=50)


@pytest.fixture(scope="module")
def example():
    return JudgeData.from_frame(bayesjudge.load_example("judge"))


@pytest.fixture(scope="module")
def example_fit(example):
    return fit_prevalence(example, random_seed=2002, **FAST)


def test_example_fit_passes_and_recovers_pi(example_fit):
    fit = example_fit
    assert set(fit.children) == {
        "posterior",
        "posterior_predictive",
        "sample_stats",
        "observed_data",
        "constant_data",
    }
    assert fit.attrs["diagnostics_passed"] is True
    assert json.loads(fit.attrs["diagnostics_failures"]) == []
    pi = fit["posterior"]["pi"].to_numpy().ravel()
    # simulated with pi = 0.70; the posterior sd is about 0.03, so 0.70 must be inside the
    # central 99% interval and the mean within 0.08 (about 2.5 sd)
    low, high = np.quantile(pi, [0.005, 0.995])
    assert low < 0.70 < high
    assert abs(pi.mean() - 0.70) < 0.08
    # derived quantities follow their definitions draw by draw
    post = fit["posterior"].to_dataset()
    np.testing.assert_allclose(post["j"], post["se"] + post["sp"] - 1.0, atol=1e-12)
    rate = post["pi"] * post["se"] + (1 - post["pi"]) * (1 - post["sp"])
    np.testing.assert_allclose(post["judged_rate"], rate, atol=1e-12)
    np.testing.assert_allclose(post["bias"], post["judged_rate"] - post["pi"], atol=1e-12)
    assert float(post["j"].min()) > 0.0


def test_attrs_and_data_groups(example_fit, example):
    attrs = example_fit.attrs
    assert attrs["bayesjudge_version"] == bayesjudge.__version__
    assert attrs["model"] == "prevalence"
    assert attrs["restrict_j"] is True
    assert attrs["sampler"] == "nutpie"
    assert json.loads(attrs["priors"]) == {k: "Beta(0.5, 0.5)" for k in ("pi", "se", "sp")}
    assert json.loads(attrs["counts"]) == example.counts.as_dict()
    # the attrs give the settings of the last attempt; the first is what was asked for (an
    # R-hat a hair above 1.01 from 4 x 500 draws can escalate the fit: that is the policy)
    attempts = json.loads(attrs["attempts"])
    assert [attempts[0][k] for k in ("draws", "tune", "chains")] == [500, 500, 4]
    last = attempts[-1]
    assert (attrs["draws"], attrs["tune"], attrs["chains"]) == (
        last["draws"], last["tune"], last["chains"]
    )  # fmt: skip
    assert last["passed"] is True
    observed = example_fit["observed_data"].to_dataset()
    assert {k: int(observed[k]) for k in ("x1", "x0", "k")} == {"x1": 140, "x0": 24, "k": 1349}
    constant = example_fit["constant_data"].to_dataset()
    assert {k: int(constant[k]) for k in ("m1", "m0", "n")} == {"m1": 150, "m0": 150, "n": 2000}
    predictive = example_fit["posterior_predictive"].to_dataset()
    assert predictive["k"].dims == ("chain", "draw")
    assert int(predictive["x1"].max()) <= 150


def test_posterior_predictive_matches_pymc(example_fit, example):
    """Our numpy replicates follow the model: compare with pm.sample_posterior_predictive.

    Same posterior draws, independent randomness: the two samples of each count must agree by
    a two-sample KS test (p > 0.001) and in mean within 4 Monte Carlo standard errors.
    """
    model = prevalence_model(example.counts)
    ours = example_fit["posterior_predictive"].to_dataset()
    posterior_only = xr.DataTree.from_dict({"posterior": example_fit["posterior"].to_dataset()})
    # PyMC warns that the Potential (our J > 0 prior term) is ignored when replicating data; it
    # plays no part in the likelihood, so the warning does not apply
    with pytest.warns(UserWarning, match="Potentials"):
        theirs = pm.sample_posterior_predictive(
            posterior_only, model=model, random_seed=4, progressbar=False
        )["posterior_predictive"].to_dataset()
    for name in ("x1", "x0", "k"):
        a, b = ours[name].to_numpy().ravel(), theirs[name].to_numpy().ravel()
        assert stats.ks_2samp(a, b).pvalue > 0.001, name
        se = np.sqrt((a.var() + b.var()) / a.size)
        assert abs(a.mean() - b.mean()) < 4 * se, name


def test_low_prevalence_has_no_divergences():
    fit = fit_prevalence(LOW_PREVALENCE, random_seed=7, progressbar=False)  # 4 x 1000 draws
    assert int(fit["sample_stats"]["diverging"].sum()) == 0
    assert fit.attrs["diagnostics_passed"] is True
    pi = fit["posterior"]["pi"]
    # about 50 passes of 3330, most of them explained by true successes: pi is near 0.01
    assert 0.0 < float(pi.mean()) < 0.03


@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
def test_same_seed_same_draws_and_refit_is_clean(example):
    other = JudgeData.from_counts(m1=80, x1=60, m0=90, x0=20, n=900, k=400)
    first = fit_prevalence(other, random_seed=123, escalate=False, **FAST)
    fit_prevalence(example, random_seed=99, escalate=False, **FAST)  # a different dataset between
    again = fit_prevalence(other, random_seed=123, escalate=False, **FAST)
    for group in ("posterior", "posterior_predictive"):
        xr.testing.assert_equal(first[group].to_dataset(), again[group].to_dataset())
    assert json.loads(again.attrs["counts"]) == other.counts.as_dict()
    different = fit_prevalence(other, random_seed=124, escalate=False, **FAST)
    assert not np.array_equal(first["posterior"]["pi"], different["posterior"]["pi"])
    # a Generator seed is accepted too
    fit_prevalence(other, random_seed=np.random.default_rng(0), escalate=False, **FAST)


@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
@pytest.mark.usefixtures("no_disk_cache")
def test_refit_reuses_the_compiled_model():
    model_cache_module.clear_model_cache()
    assert model_cache_info() == model_cache_module.CacheInfo(0, 0, 0, 0)
    a = JudgeData.from_counts(m1=100, x1=90, m0=100, x0=10, n=500, k=300)
    b = JudgeData.from_counts(m1=50, x1=40, m0=70, x0=14, n=800, k=200)
    fit_a = fit_prevalence(a, random_seed=1, escalate=False, **FAST)
    fit_b = fit_prevalence(b, random_seed=1, escalate=False, **FAST)
    fit_prevalence(LOW_PREVALENCE, random_seed=1, escalate=False, **FAST)
    assert model_cache_info() == model_cache_module.CacheInfo(builds=1, compiles=1, hits=2, size=1)
    # each fit used its own data: the posterior means sit near the naive Rogan-Gladen values
    for data, fit in ((a, fit_a), (b, fit_b)):
        c = data.counts
        rogan_gladen = (c.p_hat + c.q0 - 1.0) / c.j
        assert abs(float(fit["posterior"]["pi"].mean()) - rogan_gladen) < 0.05
    assert json.loads(fit_b.attrs["counts"]) == b.counts.as_dict()
    # other priors or restrict_j make a new cache entry
    other_priors = bayesjudge.PrevalencePriors(pi=bayesjudge.priors.Beta(1, 1))
    model_key = ("prevalence", True, other_priors)
    model_cache_module.model_cache().model(
        model_key, lambda: prevalence_model(a.counts, priors=other_priors)
    )
    assert model_cache_info().builds == 2


def test_bad_fit_is_flagged(example):
    with pytest.warns(
        FitWarning, match=r"failed \d+ diagnostic check\(s\) after a retry.*ess_bulk"
    ):
        fit = fit_prevalence(example, draws=20, tune=0, chains=2, random_seed=3, progressbar=False)
    assert fit.attrs["diagnostics_passed"] is False
    # the sampler checks failed (R-hat among them), so the fit was retried once with smaller
    # steps and longer runs
    first, retry = attempts_of(fit)
    assert (first.settings.target_accept, first.settings.tune, first.settings.draws) == (
        0.95,
        0,
        20,
    )
    assert (retry.settings.target_accept, retry.settings.tune, retry.settings.draws) == (
        0.99,
        3000,
        40,
    )
    assert not first.passed
    assert not retry.passed
    assert fit.attrs["target_accept"] == 0.99
    assert fit.attrs["sampler_seed"] == retry.sampler_seed
    failures = json.loads(fit.attrs["diagnostics_failures"])
    assert "ess_bulk(pi)" in failures
    reported = ["pi", "se", "sp", "j", "judged_rate", "bias"]
    diagnostics = check_fit(fit, mcse_var_names=reported)
    assert not diagnostics.passed
    assert [c.label for c in diagnostics.failures] == failures
    assert diagnostics.ess_bulk_min < 400


def _strata(names: tuple[str, ...], seed: int) -> JudgeData:
    settings = [(0.2, 0.9, 0.85), (0.5, 0.85, 0.9), (0.8, 0.92, 0.8)]
    frames = []
    for i, (name, (pi, se, sp)) in enumerate(zip(names, settings, strict=True)):
        frame = judge_table(pi=pi, se=se, sp=sp, n=1000, m1=100, m0=100, random_seed=seed + i)
        frame["stratum"] = name
        frames.append(frame)
    return JudgeData.from_frame(pd.concat(frames, ignore_index=True))


@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
def test_stratified_fit_recovers_strata():
    data = _strata(("a", "b", "c"), seed=40)
    fit = fit_prevalence(data, stratified=True, random_seed=5, progressbar=False)  # 4 x 1000
    assert fit.attrs["diagnostics_passed"] is True
    assert fit.attrs["model"] == "stratified_prevalence"
    assert fit.attrs["strata"] == ["a", "b", "c"]
    post = fit["posterior"].to_dataset()
    assert list(post["stratum"].values) == ["a", "b", "c"]
    assert post["pi_stratum"].dims == ("chain", "draw", "stratum")
    # true per-stratum rates 0.2, 0.5, 0.8; posterior sds are about 0.03-0.04: within 0.12
    np.testing.assert_allclose(
        post["pi_stratum"].mean(("chain", "draw")), [0.2, 0.5, 0.8], atol=0.12
    )
    # overall pi is the test-share weighted mean of the strata (equal shares here)
    np.testing.assert_allclose(post["pi"], post["pi_stratum"].mean("stratum"), atol=1e-12)
    assert float(post["j"].min()) > 0.0
    assert fit["observed_data"]["k"].dims == ("stratum",)
    assert fit["posterior_predictive"]["k"].dims == ("chain", "draw", "stratum")

    # refit on three differently named strata: same compiled model, new labels and counts
    before = model_cache_info()
    renamed = _strata(("x", "y", "z"), seed=60)
    refit = fit_prevalence(renamed, stratified=True, random_seed=5, escalate=False, **FAST)
    after = model_cache_info()
    assert (after.builds, after.compiles, after.hits) == (
        before.builds,
        before.compiles,
        before.hits + 1,
    )
    assert list(refit["posterior"]["stratum"].values) == ["x", "y", "z"]
    assert list(refit["observed_data"]["stratum"].values) == ["x", "y", "z"]
    assert refit["observed_data"]["k"].values.tolist() == [
        renamed.stratum(s).counts.k for s in ("x", "y", "z")
    ]


@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
def test_pymc_fallback_when_nutpie_is_missing(monkeypatch):
    monkeypatch.setattr(sampling, "nutpie_installed", lambda: False)
    with pytest.raises(ImportError, match="sampler='nutpie' needs nutpie"):
        fit_prevalence(LOW_PREVALENCE, sampler="nutpie")
    fit = fit_prevalence(
        JudgeCounts(m1=100, x1=90, m0=100, x0=10, n=500, k=300),
        draws=300,
        tune=300,
        chains=2,
        random_seed=2,
        progressbar=False,
        escalate=False,
    )
    assert fit.attrs["sampler"] == "pymc"
    assert "nutpie is not installed" in fit.attrs["sampler_note"]
    assert abs(float(fit["posterior"]["pi"].mean()) - (0.6 - 0.1) / 0.8) < 0.05


def test_progressbar_default_follows_the_terminal(monkeypatch):
    class Stream:
        def __init__(self, tty):
            self.tty = tty

        def isatty(self):
            return self.tty

    monkeypatch.setattr("sys.stderr", Stream(True))
    assert sampling.progressbar_default(None) is True
    monkeypatch.setattr("sys.stderr", Stream(False))
    assert sampling.progressbar_default(None) is False
    assert sampling.progressbar_default(True) is True


def test_errors(example):
    with pytest.raises(ValueError, match=r"sampler must be one of \['auto', 'nutpie', 'pymc'\]"):
        fit_prevalence(example, sampler="stan")
    with pytest.raises(
        ValueError, match="draws must be a whole number between 1 and 200,000; got 0"
    ):
        fit_prevalence(example, draws=0)
    with pytest.raises(ValueError, match="draws must be a whole number between 1 and 200,000"):
        fit_prevalence(example, draws=10**9)
    with pytest.raises(ValueError, match="tune must be a whole number between 0 and 200,000"):
        fit_prevalence(example, tune=-1)
    with pytest.raises(ValueError, match=r"chains must be a whole number; got 1\.5"):
        fit_prevalence(example, chains=1.5)
    with pytest.raises(ValueError, match="chains must be a whole number between 1 and 64"):
        fit_prevalence(example, chains=1000)
    with pytest.raises(ValueError, match=r"target_accept must lie in \(0, 1\)"):
        fit_prevalence(example, target_accept=1.0)
    with pytest.raises(TypeError, match="priors must be a PrevalencePriors"):
        fit_prevalence(example, priors="jeffreys")
    with pytest.raises(DataError, match="stratified=True needs JudgeData"):
        fit_prevalence(example.counts, stratified=True)
    with pytest.raises(DataError, match="needs judge data with a 'stratum' column"):
        fit_prevalence(example, stratified=True)
    with pytest.raises(TypeError, match="data must be JudgeData or JudgeCounts; got dict"):
        fit_prevalence({"m1": 1})


def _callback_log_density(compiled, points: np.ndarray) -> np.ndarray:
    """The log density of a compiled model at each point, through its C callback."""
    import ctypes

    double_p = ctypes.POINTER(ctypes.c_double)
    out = []
    for x in points:
        x = np.ascontiguousarray(x, dtype=float)
        grad, logp = np.zeros(compiled.n_dim), np.zeros(())
        code = compiled.compiled_logp_func.ctypes(
            ctypes.c_uint64(compiled.n_dim),
            x.ctypes.data_as(double_p),
            grad.ctypes.data_as(double_p),
            logp.ctypes.data_as(double_p),
            ctypes.c_void_p(compiled.user_data.ctypes.data),
        )
        assert code == 0
        out.append(float(logp))
    return np.array(out)


@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
def test_priors_share_one_compiled_model_and_each_enters_its_own_density():
    """Two priors on pi (and on Se, Sp) are one compiled model; each fit swaps its prior in.

    The model is compiled once, or loaded once from the session's disk cache when an earlier
    test compiled it (either way one model for the two fits).

    The log density under prior B minus that under prior A, at the same points of the model's
    three normal scores, is the difference of the Beta log densities of pi, Se and Sp there
    (scipy), so the swapped-in prior is the one the density uses.
    """
    from bayesjudge.prevalence.fit import _run

    model_cache_module.clear_model_cache()
    a = PrevalencePriors()
    b = PrevalencePriors(pi=Beta(1, 1), se=Beta(9, 1), sp=Beta(0.01, 0.01))
    data = JudgeData.from_counts(m1=100, x1=90, m0=100, x0=10, n=500, k=300)
    small = {"draws": 100, "tune": 100, "chains": 2, "progressbar": False, "escalate": False}
    fit_a = fit_prevalence(data, priors=a, random_seed=1, **small)
    fit_b = fit_prevalence(data, priors=b, random_seed=1, **small)
    info = model_cache_info()
    assert (info.compiles + info.loads, info.hits) == (1, 1)
    assert fit_a.attrs["priors"] != fit_b.attrs["priors"]
    assert not np.array_equal(fit_a["posterior"]["pi"], fit_b["posterior"]["pi"])

    counts = {k: np.asarray(v, dtype=np.int64) for k, v in data.counts.as_dict().items()}
    run_a, run_b = _run((), counts, a, True), _run((), counts, b, True)
    assert run_a.key == run_b.key
    compiled = model_cache_module.model_cache().compiled(run_a.key, run_a.build)
    names = list(compiled.shape_info[0][:3])
    z = np.random.default_rng(4).normal(size=(200, 3))
    difference = _callback_log_density(compiled.with_data(**run_b.data), z) - (
        _callback_log_density(compiled.with_data(**run_a.data), z)
    )
    score = {name: z[:, names.index(name)] for name in names}
    r = stats.norm.cdf(score["judged_rate_z"])
    gap = stats.norm.cdf(score["se_gap_z"])
    share = stats.norm.cdf(score["fpr_share_z"])
    se, fpr = r + (1 - r) * gap, r * share
    pi = (r - fpr) / (se - fpr)

    def beta_logpdf(priors, pi, se, sp):
        return sum(
            stats.beta.logpdf(x, p.alpha, p.beta)
            for p, x in ((priors.pi, pi), (priors.se, se), (priors.sp, sp))
        )

    expected = beta_logpdf(b, pi, se, 1 - fpr) - beta_logpdf(a, pi, se, 1 - fpr)
    np.testing.assert_allclose(difference, expected, rtol=1e-8, atol=1e-8)
