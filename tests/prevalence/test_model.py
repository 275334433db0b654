"""Structure of the prevalence models and exactness of their J > 0 prior restriction."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pymc as pm
import pytest
from scipy import special, stats

from bayesjudge.errors import DataError
from bayesjudge.models.prevalence import (
    MU_SD,
    SIGMA_SCALE,
    prevalence_model,
    stratified_prevalence_model,
)
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.fit import fit_prevalence
from bayesjudge.prevalence.simulate import judge_table
from bayesjudge.priors import Beta, PrevalencePriors

COUNTS = JudgeCounts(m1=150, x1=140, m0=150, x0=24, n=2000, k=1349)
DATA_NAMES = {"m1", "x1_obs", "m0", "x0_obs", "n", "k_obs"}


def _strata_frame(seed: int = 0, names=("easy", "hard", "mid")) -> pd.DataFrame:
    settings = [(0.3, 0.9, 0.8), (0.6, 0.85, 0.9), (0.8, 0.95, 0.7)]
    frames = []
    for i, (name, (pi, se, sp)) in enumerate(zip(names, settings, strict=True)):
        frame = judge_table(pi=pi, se=se, sp=sp, n=600, m1=80, m0=80, random_seed=seed + i)
        frame["stratum"] = name
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _names(model: pm.Model, group) -> set[str]:
    return {v.name for v in group}


def test_prevalence_model_structure():
    model = prevalence_model(COUNTS)
    assert _names(model, model.free_RVs) == {"judged_rate_z", "se_gap_z", "fpr_share_z"}
    assert _names(model, model.deterministics) == {"pi", "se", "sp", "j", "judged_rate", "bias"}
    assert _names(model, model.observed_RVs) == {"x1", "x0", "k"}
    assert _names(model, model.data_vars) == DATA_NAMES
    assert _names(model, model.potentials) == {"prior"}
    # data enter through pm.Data holding the counts
    assert {v.name: int(v.get_value()) for v in model.data_vars} == {
        "m1": 150,
        "x1_obs": 140,
        "m0": 150,
        "x0_obs": 24,
        "n": 2000,
        "k_obs": 1349,
    }


def test_unrestricted_model_has_independent_beta_priors():
    priors = PrevalencePriors(se=Beta(9, 1), sp=Beta(2, 3))
    model = prevalence_model(
        JudgeData.from_counts(**COUNTS.as_dict()).counts, priors=priors, restrict_j=False
    )
    assert _names(model, model.free_RVs) == {"pi", "se", "sp"}
    assert model.potentials == []
    # the prior of se is the Beta passed in: logp at 0.7 equals scipy's Beta(9, 1) log density
    logp = model.compile_logp(vars=[model["se"]], jacobian=False)
    point = model.initial_point()
    point["se_logodds__"] = special.logit(0.7)
    assert logp(point) == pytest.approx(stats.beta(9, 1).logpdf(0.7), abs=1e-7)


def _restricted_logp_in_rab(priors, rate, gap, share):
    """Target log density in (R, a, b): truncated Beta x Beta x Beta times R (1 - R) / J."""
    se = rate + (1 - rate) * gap
    fpr = rate * share
    pi = (rate - fpr) / (se - fpr)
    return (
        stats.beta(priors.pi.alpha, priors.pi.beta).logpdf(pi)
        + stats.beta(priors.se.alpha, priors.se.beta).logpdf(se)
        + stats.beta(priors.sp.alpha, priors.sp.beta).logpdf(1.0 - fpr)
        + np.log(rate * (1 - rate) / (se - fpr))
    )


@pytest.mark.parametrize(
    "priors",
    [
        PrevalencePriors(),
        PrevalencePriors(pi=Beta(2, 2), se=Beta(4, 2), sp=Beta(3, 5)),
        PrevalencePriors(pi=Beta(0.2, 7), se=Beta(30, 0.6), sp=Beta(1, 1)),
    ],
    ids=["jeffreys", "informative", "skewed"],
)
def test_restricted_density_is_the_truncated_beta_product(priors):
    """The model's density of its probit scores is the truncated Beta product moved to them.

    With R, a, b = Phi(z_R), Phi(z_a), Phi(z_b), Se = R + (1 - R) a, f = 1 - Sp = R b and
    pi = (R - f) / (Se - f), the target p_pi(pi) p_se(Se) p_sp(Sp) 1{Se + Sp > 1} has density
    p_pi p_se p_sp R (1 - R) / J in (R, a, b), times phi(z_R) phi(z_a) phi(z_b) in the scores.
    The Beta normalising constants are included, so the two agree exactly (both leave out the
    truncation constant P(J > 0)). Checked at 50 random points per prior (scores in
    (-2.5, 2.5), where the float64 reference is itself accurate); tolerance 1e-8.
    """
    model = prevalence_model(JudgeCounts(0, 0, 0, 0, 0, 0), priors=priors)
    logp = model.compile_logp()
    rng = np.random.default_rng(1)
    scores = rng.uniform(-2.5, 2.5, size=(3, 50))
    model_values = np.array(
        [logp({"judged_rate_z": zr, "se_gap_z": za, "fpr_share_z": zb}) for zr, za, zb in scores.T]
    )
    rate, gap, share = special.ndtr(scores)
    target = _restricted_logp_in_rab(priors, rate, gap, share) + stats.norm.logpdf(scores).sum(0)
    np.testing.assert_allclose(model_values, target, rtol=0, atol=1e-8)


def test_restricted_density_and_gradient_stay_exact_in_the_tails():
    """Far in the tails (pi, Se or Sp within 1e-100 of 0 or 1) the gradient is still exact.

    The log density is formed from log R, log(1 - R), ... without cancellation, so its
    gradient is finite and equals a central finite difference there. (The logit
    parametrisation formed 1 - pi as 1 - (R - f) / J; on these counts its gradient was off by
    about 1e3 at logit a = -22 and 1e14 at logit a = -35: the divergences of issue 9.)
    """
    model = prevalence_model(JudgeCounts(m1=60, x1=57, m0=25, x0=4, n=800, k=730))
    logp = model.compile_logp()
    dlogp = model.compile_dlogp()
    names = ["judged_rate_z", "se_gap_z", "fpr_share_z"]
    for point in ([1.3, -22.0, -1.5], [1.3, 30.0, -1.5], [1.3, -1.0, 21.0], [0.0, -25.0, 25.0]):
        values = dict(zip(names, point, strict=True))
        grad = dlogp(values)
        assert np.all(np.isfinite(grad)), point
        step = 1e-5
        for i, name in enumerate(names):
            up = logp({**values, name: values[name] + step})
            down = logp({**values, name: values[name] - step})
            numeric = (up - down) / (2 * step)
            assert numeric == pytest.approx(grad[i], rel=1e-5, abs=1e-5), (point, name)


def _ks_limit(n_eff: float) -> float:
    # asymptotic two-sample KS critical value at level 0.001 (second sample 200,000 draws)
    return 1.949 / np.sqrt(n_eff)


@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
def test_restricted_prior_matches_rejection_sampling():
    """NUTS on the model with no data reproduces rejection draws of Beta x Beta given J > 0.

    KS statistic against 200,000 rejection draws, at level 0.001 with n = the bulk ESS; and a
    negative control: the untruncated Beta(1/2, 1/2) for Sp is rejected by the same test.
    """
    import arviz_stats as azs

    fit = fit_prevalence(
        JudgeCounts(0, 0, 0, 0, 0, 0),
        draws=1000,
        chains=4,
        random_seed=11,
        progressbar=False,
        escalate=False,
    )
    posterior = fit["posterior"].to_dataset()
    assert int(fit["sample_stats"]["diverging"].sum()) == 0
    rng = np.random.default_rng(5)
    se_ref = rng.beta(0.5, 0.5, 400_000)
    sp_ref = rng.beta(0.5, 0.5, 400_000)
    keep = se_ref + sp_ref > 1.0
    se_ref, sp_ref = se_ref[keep][:200_000], sp_ref[keep][:200_000]
    ess = azs.ess(posterior, method="bulk")
    for name, reference in (("se", se_ref), ("sp", sp_ref), ("j", se_ref + sp_ref - 1.0)):
        draws = posterior[name].to_numpy().ravel()
        statistic = stats.ks_2samp(draws, reference).statistic
        assert statistic < _ks_limit(float(ess[name])), name
    assert posterior["j"].min() > 0.0
    # pi keeps its untruncated Jeffreys prior
    pi_stat = stats.kstest(posterior["pi"].to_numpy().ravel(), stats.beta(0.5, 0.5).cdf).statistic
    assert pi_stat < _ks_limit(float(ess["pi"]))
    # negative control: without the restriction Sp would be Beta(1/2, 1/2); the test sees it
    untruncated = stats.kstest(posterior["sp"].to_numpy().ravel(), stats.beta(0.5, 0.5).cdf)
    assert untruncated.statistic > 3 * _ks_limit(float(ess["sp"]))


def test_stratified_model_structure():
    data = JudgeData.from_frame(_strata_frame())
    model = stratified_prevalence_model(data.strata, data.stratified_counts())
    assert model.coords == {"stratum": ("easy", "hard", "mid")}
    assert _names(model, model.data_vars) == DATA_NAMES
    per_stratum = {
        "se",
        "sp",
        "j",
        "pi_stratum",
        "judged_rate_stratum",
        "bias_stratum",
        "x1",
        "x0",
        "k",
        "se_z",
        "dor_z",
        "pi_stratum_z",
        *DATA_NAMES,
    }
    for name in per_stratum:
        assert model.named_vars_to_dims[name] == ("stratum",), name
    for name in ("pi", "judged_rate", "bias", "mu_se", "mu_sp", "sigma_se", "sigma_sp"):
        assert name in model.named_vars
        assert name not in model.named_vars_to_dims
    unrestricted = stratified_prevalence_model(
        data.strata, data.stratified_counts(), restrict_j=False
    )
    assert "sp_z" in unrestricted.named_vars
    assert "dor_z" not in unrestricted.named_vars


# The Potential holds only the Beta prior of pi_stratum, which this test does not look at.
@pytest.mark.filterwarnings("ignore:The effect of Potentials:UserWarning")
def test_stratified_restricted_prior_is_the_truncated_hierarchy():
    """Forward prior draws equal rejection draws of the truncated bivariate normal.

    Given hyper-parameters mu ~ N(0, 1.5^2), sigma ~ HalfNormal(1), (logit Se_s, logit Sp_s) is
    the independent normal pair conditioned on logit Se_s + logit Sp_s > 0. 4,000 independent
    forward draws against 100,000 rejection draws: KS p-value > 0.001 for Se, Sp and J of one
    stratum; and every J_s > 0.
    """
    data = JudgeData.from_frame(_strata_frame())
    model = stratified_prevalence_model(data.strata, data.stratified_counts())
    prior = pm.sample_prior_predictive(
        draws=4000,
        model=model,
        random_seed=3,
        var_names=["se", "sp", "j", "mu_se", "mu_sp", "sigma_se", "sigma_sp"],
    )
    draws = prior["prior"].to_dataset()
    # The inverse CDF is taken in log space, so every draw is finite, even where the
    # population puts all but 1e-300 of its mass on judges worse than chance.
    assert bool(np.isfinite(draws["j"]).all())
    assert float(draws["j"].min()) > 0.0
    model_ratio = (draws["mu_se"] + draws["mu_sp"]) / np.sqrt(
        draws["sigma_se"] ** 2 + draws["sigma_sp"] ** 2
    )
    comparable = model_ratio.to_numpy().ravel() > -38.0  # where the scipy reference works

    rng = np.random.default_rng(8)
    size = 100_000
    mu_se, mu_sp = rng.normal(0.0, MU_SD, (2, size))
    s_se, s_sp = np.abs(rng.normal(0.0, SIGMA_SCALE, (2, size)))
    a = np.empty(size)
    b = np.empty(size)
    todo = np.ones(size, dtype=bool)
    for _ in range(50):
        idx = np.flatnonzero(todo)
        a_try = rng.normal(mu_se[idx], s_se[idx])
        b_try = rng.normal(mu_sp[idx], s_sp[idx])
        ok = a_try + b_try > 0
        a[idx[ok]], b[idx[ok]] = a_try[ok], b_try[ok]
        todo[idx[ok]] = False
    # hyper-parameter draws whose truncation keeps almost no mass (about 14% of them, where
    # mu_se + mu_sp << 0): draw t = a + b from scipy's truncated normal, then a | t from the
    # bivariate-normal conditional
    idx = np.flatnonzero(todo)
    mean_t, var_t = mu_se[idx] + mu_sp[idx], s_se[idx] ** 2 + s_sp[idx] ** 2
    t = stats.truncnorm.rvs(
        -mean_t / np.sqrt(var_t), np.inf, loc=mean_t, scale=np.sqrt(var_t), random_state=rng
    )
    a[idx] = rng.normal(
        mu_se[idx] + s_se[idx] ** 2 / var_t * (t - mean_t), s_se[idx] * s_sp[idx] / np.sqrt(var_t)
    )
    b[idx] = t - a[idx]
    ok_ref = np.isfinite(a) & np.isfinite(b)  # scipy fails far out in the tail (rare)
    assert ok_ref.mean() > 0.999
    # the reference keeps the same hyper-parameter region as the model draws compared
    ok_ref &= (mu_se + mu_sp) / np.sqrt(s_se**2 + s_sp**2) > -38.0
    a, b = a[ok_ref], b[ok_ref]
    reference = {"se": special.expit(a), "sp": special.expit(b)}
    reference["j"] = reference["se"] + reference["sp"] - 1.0
    for name, ref in reference.items():
        sample = draws[name].sel(stratum="hard").to_numpy().ravel()[comparable]
        assert stats.ks_2samp(sample, ref).pvalue > 0.001, name
    # negative control: the untruncated hierarchy puts J < 0 a third of the time or so
    assert np.mean(rng.normal(mu_se, s_se) + rng.normal(mu_sp, s_sp) < 0) > 0.25


def test_stratified_counts():
    frame = pd.DataFrame(
        {
            "label": [1, 0, None, 1, 0, None, None],
            "verdict": [1, 0, 1, 1, 1, 0, 1],
            "stratum": ["b", "b", "b", "a", "a", "a", "a"],
        }
    )
    data = JudgeData.from_frame(frame)
    strata, counts = data.strata, data.stratified_counts()
    assert strata == ("a", "b")
    assert {k: v.tolist() for k, v in counts.items()} == {
        "m1": [1, 1],
        "x1": [1, 1],
        "m0": [1, 1],
        "x0": [1, 0],
        "n": [2, 1],
        "k": [1, 1],
    }


def test_errors():
    with pytest.raises(TypeError, match="priors must be a PrevalencePriors; got dict"):
        prevalence_model(COUNTS, priors={"pi": Beta(1, 1)})
    with pytest.raises(ValueError, match="alpha must be a positive number"):
        PrevalencePriors(pi=Beta(0, 1))
    with pytest.raises(TypeError, match="counts must be JudgeCounts; got tuple"):
        prevalence_model((1, 2, 3))
    plain = JudgeData.from_counts(**COUNTS.as_dict())
    with pytest.raises(DataError, match="needs judge data with a 'stratum' column"):
        plain.stratified_counts()
