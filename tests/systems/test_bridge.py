"""The marginal likelihood of all the data by bridge sampling, checked against exact values."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest
import xarray as xr
from scipy import integrate, special, stats

from bayesjudge.models.systems import systems_model
from bayesjudge.priors import SystemsPriors
from bayesjudge.systems.average import (
    bridge_sampling,
    judge_log_normalizer,
    log_judge_marginal,
    log_marginal_of_fit,
    unconstrained_draws,
)
from bayesjudge.systems.data import SystemCounts


def _log_choose(m: np.ndarray, x: np.ndarray) -> float:
    return float(
        np.sum(special.gammaln(m + 1) - special.gammaln(x + 1) - special.gammaln(m - x + 1))
    )


def test_bridge_recovers_a_known_normalising_constant_and_is_seeded():
    # a correlated 3-D normal kernel exp(-x' P x / 2): its integral is (2 pi)^{3/2} |P|^{-1/2}
    cov = np.array([[1.0, 0.5, 0.1], [0.5, 2.0, -0.3], [0.1, -0.3, 0.5]])
    prec = np.linalg.inv(cov)
    exact = 1.5 * np.log(2 * np.pi) + 0.5 * np.linalg.slogdet(cov)[1]
    draws = np.random.default_rng(3).multivariate_normal(np.zeros(3), cov, size=(4, 600))

    def log_q(t: np.ndarray) -> np.ndarray:
        return -0.5 * np.einsum("ni,ij,nj->n", t, prec, t)

    one = bridge_sampling(log_q, draws, random_seed=7)
    again = bridge_sampling(log_q, draws, random_seed=7)
    other = bridge_sampling(log_q, draws, random_seed=8)
    assert one == again  # deterministic for a seed
    assert one.log_marginal != other.log_marginal
    assert one.relative_mse < 1e-3
    assert abs(one.log_marginal - exact) < 4 * np.sqrt(one.relative_mse) + 1e-3
    assert (one.posterior_draws, one.proposal_draws) == (1200, 1200)


def test_bridge_refuses_bad_draws():
    with pytest.raises(ValueError, match="shape"):
        bridge_sampling(lambda t: t[:, 0], np.zeros((4, 3)))
    with pytest.raises(ValueError, match="finite"):
        bridge_sampling(lambda t: t[:, 0], np.full((2, 10, 1), np.nan))
    draws = np.random.default_rng(0).normal(size=(2, 10, 1))
    with pytest.raises(ValueError, match="log_density is not finite"):
        bridge_sampling(lambda t: np.full(t.shape[0], -np.inf), draws, random_seed=1)
    with pytest.raises(ValueError, match="did not converge in 1 iterations"):
        bridge_sampling(lambda t: -0.5 * t[:, 0] ** 2, draws, random_seed=1, max_iter=1)


def test_the_marginal_of_a_fit_needs_one_judge_model_and_every_free_variable():
    averaged = xr.DataTree(xr.Dataset(attrs={"judge": "average"}))
    with pytest.raises(ValueError, match=r"one judge model .* got 'average'"):
        log_marginal_of_fit(None, averaged)
    with pm.Model() as model:
        pm.Beta("p", 1.0, 1.0)
        pm.Normal("m", 0.0, 1.0)
    posterior = xr.Dataset({"p": (("chain", "draw"), np.full((2, 4), 0.5))})
    with pytest.raises(ValueError, match="no draws of the free variable 'm'"):
        unconstrained_draws(model, posterior)


def _exact_judge_draws(
    x1: int, m1: int, x0: int, m0: int, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Se and Sp from the Jeffreys posterior given the gold counts, restricted to J > 0."""
    se = stats.beta(0.5 + x1, 0.5 + m1 - x1).rvs(size=4 * size, random_state=rng)
    sp = stats.beta(0.5 + m0 - x0, 0.5 + x0).rvs(size=4 * size, random_state=rng)
    keep = se + sp > 1
    return se[keep][:size], sp[keep][:size]


@pytest.mark.parametrize("judge", ["shared", "system"])
def test_without_unlabelled_answers_the_all_data_marginal_is_the_gold_closed_form(judge):
    """With no unlabelled answers the full model's evidence is the gold-only one, exactly.

    The model's own log density (PyMC, with the constants its judge potential leaves out) is
    bridged from exact posterior draws and compared with the Beta-function closed form
    (:func:`log_judge_marginal`) plus the binomial coefficients the model keeps.
    """
    x1, m1, x0, m0 = np.array([70, 66]), np.array([80, 75]), np.array([9, 15]), np.array([60, 62])
    counts = SystemCounts(("A", "B"), m1, x1, m0, x0, np.zeros(2, np.int64), np.zeros(2, np.int64))
    priors = SystemsPriors()
    model = systems_model(counts, priors=priors, judge=judge, pooling="none")
    rng = np.random.default_rng(11)
    chains, draws = 4, 500
    pi = stats.beta(priors.pi.alpha, priors.pi.beta).rvs(size=(chains, draws, 2), random_state=rng)
    if judge == "shared":
        se, sp = _exact_judge_draws(
            int(x1.sum()), int(m1.sum()), int(x0.sum()), int(m0.sum()), chains * draws, rng
        )
        se, sp = se.reshape(chains, draws), sp.reshape(chains, draws)
        dims: tuple[str, ...] = ("chain", "draw")
        exact = log_judge_marginal(int(x1.sum()), int(m1.sum()), int(x0.sum()), int(m0.sum()))
    else:
        pairs = [
            _exact_judge_draws(x1[s], m1[s], x0[s], m0[s], chains * draws, rng) for s in (0, 1)
        ]
        se = np.stack([p[0] for p in pairs], axis=-1).reshape(chains, draws, 2)
        sp = np.stack([p[1] for p in pairs], axis=-1).reshape(chains, draws, 2)
        dims = ("chain", "draw", "system")
        exact = sum(log_judge_marginal(x1[s], m1[s], x0[s], m0[s]) for s in (0, 1))
    exact += _log_choose(m1, x1) + _log_choose(m0, x0)
    posterior = xr.Dataset(
        {
            "pi": (("chain", "draw", "system"), pi),
            "logit_se": (dims, special.logit(se)),
            "logit_fpr_ratio": (dims, special.logit((1 - sp) / se)),
        }
    )
    log_q, theta = unconstrained_draws(model, posterior)
    assert theta.shape == (chains, draws, 4 if judge == "shared" else 6)
    estimate = bridge_sampling(log_q, theta, random_seed=1)
    judges = 1 if judge == "shared" else 2
    value = estimate.log_marginal + judge_log_normalizer(
        priors.se, priors.sp, restrict_j=True, judges=judges
    )
    assert estimate.relative_mse < 1e-3
    assert abs(value - exact) < 4 * np.sqrt(estimate.relative_mse) + 2e-3, (value, exact)


def _unpaired_exact(x1, m1, x0, m0, n, k, judges: str) -> float:
    """log p(all data) of the unpaired model with a uniform prior on each pi, by quadrature.

    With pi uniform, q = pi Se + (1 - pi) f is uniform on (f, Se), so each system's unlabelled
    count integrates to [I_Se(k+1, n-k+1) - I_f(k+1, n-k+1)] / ((n + 1) J); what is left is a
    2-D integral over (Se, Sp) for each judge under the Jeffreys priors conditioned on J > 0
    (prior mass 1/2), done over the region that holds the posterior.
    """

    def one_judge(sys: list[int]) -> float:
        a1, b1 = 0.5 + x1[sys].sum(), 0.5 + (m1[sys] - x1[sys]).sum()
        a0, b0 = 0.5 + (m0[sys] - x0[sys]).sum(), 0.5 + x0[sys].sum()
        se_lo, se_hi = stats.beta(a1, b1).ppf([1e-9, 1 - 1e-9])
        sp_lo, sp_hi = stats.beta(a0, b0).ppf([1e-9, 1 - 1e-9])
        coef = _log_choose(m1[sys], x1[sys]) + _log_choose(m0[sys], x0[sys])

        def integrand(sp: float, se: float) -> float:
            f = 1.0 - sp
            if se <= f:
                return 0.0
            log = (
                stats.beta(0.5, 0.5).logpdf(se)
                + stats.beta(0.5, 0.5).logpdf(sp)
                + np.log(2.0)  # the prior conditioned on J > 0 (mass 1/2)
                + x1[sys].sum() * np.log(se)
                + (m1[sys] - x1[sys]).sum() * np.log1p(-se)
                + x0[sys].sum() * np.log(f)
                + (m0[sys] - x0[sys]).sum() * np.log(sp)
                + coef
                - shift
            )
            for s in sys:
                upper = special.betainc(k[s] + 1, n[s] - k[s] + 1, se)
                lower = special.betainc(k[s] + 1, n[s] - k[s] + 1, f)
                log += np.log(upper - lower) - np.log(n[s] + 1) - np.log(se - f)
            return float(np.exp(log))

        shift = 0.0
        centre = integrand(float(a0 / (a0 + b0)), float(a1 / (a1 + b1)))
        shift = float(np.log(centre))
        value, _ = integrate.dblquad(integrand, se_lo, se_hi, sp_lo, sp_hi, epsrel=1e-8)
        return float(np.log(value) + shift)

    if judges == "shared":
        return one_judge([0, 1])
    return one_judge([0]) + one_judge([1])


@pytest.mark.slow
@pytest.mark.parametrize("judge", ["shared", "system"])
def test_all_data_marginal_of_a_fit_matches_quadrature(judge):
    """log_marginal_of_fit on a NUTS fit of unpaired data against the exact integral."""
    from bayesjudge.priors import Beta
    from bayesjudge.systems.average import log_marginal_of_fit
    from bayesjudge.systems.data import SystemsData
    from bayesjudge.systems.fit import fit_systems
    from bayesjudge.systems.simulate import simulate_systems

    sim = simulate_systems(
        [0.6, 0.7],
        n_unlabelled=300,
        n_labelled=80,
        se=0.9,
        sp=[0.85, 0.75],
        design="unpaired",
        random_seed=4,
    )
    data = SystemsData.from_frame(sim.frame)
    priors = SystemsPriors(pi=Beta(1.0, 1.0))
    fit = fit_systems(
        data,
        judge=judge,
        pooling="none",
        priors=priors,
        draws=1000,
        tune=1000,
        random_seed=2,
        progressbar=False,
    )
    estimate = log_marginal_of_fit(data, fit, priors=priors, random_seed=3)
    c = data.system_counts()
    exact = _unpaired_exact(c.x1, c.m1, c.x0, c.m0, c.n, c.k, judge)
    assert estimate.relative_mse < 1e-3
    assert abs(estimate.log_marginal - exact) < 4 * np.sqrt(estimate.relative_mse) + 2e-3, (
        estimate.log_marginal,
        exact,
    )
    again = log_marginal_of_fit(data, fit, priors=priors, random_seed=3)
    assert again == estimate


@pytest.mark.parametrize("judge", ["shared", "system"])
def test_paired_model_with_every_answer_labelled_gives_the_gold_closed_form(judge):
    """The paired model (a Dirichlet joint on the simplex) when every answer is gold-labelled.

    Under ``calibration="by_class"`` a fully labelled pair enters as P(v_A | y_A) P(v_B | y_B),
    so the joint outcome keeps its prior and the evidence is the closed form exactly.
    """
    from bayesjudge.models.systems import two_system_model
    from bayesjudge.systems import data as d

    FF, FP, PF, PP = (
        d.GOLD_FAIL_JUDGED_FAIL,
        d.GOLD_FAIL_JUDGED_PASS,
        d.GOLD_PASS_JUDGED_FAIL,
        d.GOLD_PASS_JUDGED_PASS,
    )

    cells = [(PP, PP, 40), (PP, PF, 5), (PF, PP, 3), (FF, PP, 12), (PP, FF, 8), (FF, FF, 20),
             (FP, FF, 4), (FF, FP, 7), (FP, PP, 2), (PP, FP, 3)]  # fmt: skip
    state = np.array([c[:2] for c in cells], np.int8)
    count = np.array([c[2] for c in cells], np.int64)
    patterns = d.Patterns(("A", "B"), state, count)

    def gold(s: int) -> tuple[int, int, int, int]:
        col = state[:, s]
        return (
            int(count[col == PP].sum()),
            int(count[(col == PP) | (col == PF)].sum()),
            int(count[col == FP].sum()),
            int(count[(col == FP) | (col == FF)].sum()),
        )

    priors = SystemsPriors()
    model = two_system_model(patterns, priors=priors, judge=judge, pooling="none")
    rng = np.random.default_rng(5)
    chains, draws = 4, 500
    joint = rng.dirichlet(np.full(4, priors.joint.concentration), size=(chains, draws))
    per = [gold(0), gold(1)]
    if judge == "shared":
        total = tuple(int(a + b) for a, b in zip(*per, strict=True))
        se, sp = _exact_judge_draws(*total, chains * draws, rng)
        se, sp = se.reshape(chains, draws), sp.reshape(chains, draws)
        dims: tuple[str, ...] = ("chain", "draw")
        exact = log_judge_marginal(*total)
    else:
        pairs = [_exact_judge_draws(*per[s], chains * draws, rng) for s in (0, 1)]
        se = np.stack([p[0] for p in pairs], axis=-1).reshape(chains, draws, 2)
        sp = np.stack([p[1] for p in pairs], axis=-1).reshape(chains, draws, 2)
        dims = ("chain", "draw", "system")
        exact = log_judge_marginal(*per[0]) + log_judge_marginal(*per[1])
    posterior = xr.Dataset(
        {
            "joint": (("chain", "draw", "outcome"), joint),
            "logit_se": (dims, special.logit(se)),
            "logit_fpr_ratio": (dims, special.logit((1 - sp) / se)),
        }
    )
    log_q, theta = unconstrained_draws(model, posterior)
    estimate = bridge_sampling(log_q, theta, random_seed=2)
    value = estimate.log_marginal + judge_log_normalizer(
        priors.se, priors.sp, restrict_j=True, judges=1 if judge == "shared" else 2
    )
    assert estimate.relative_mse < 1e-3
    assert abs(value - exact) < 4 * np.sqrt(estimate.relative_mse) + 2e-3, (value, exact)
