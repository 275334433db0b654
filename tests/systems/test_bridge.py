"""The marginal likelihood of all the data by bridge sampling, checked against exact values."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from scipy import special, stats

from bayesjudge.models.systems import systems_model
from bayesjudge.priors import SystemsPriors
from bayesjudge.systems.average import (
    bridge_sampling,
    judge_log_normalizer,
    log_judge_marginal,
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
