"""Choosing the panel's dependence form by PSIS-LOO on the items (hand-made posteriors)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import xarray as xr

from bayesjudge.inference.diagnostics import Check, Diagnostics
from bayesjudge.panels.choice import choose_dependence, pattern_log_likelihood, pattern_loo
from bayesjudge.panels.dependence import pair_covariance_bound
from bayesjudge.panels.simulate import dependence_scenario

DRAWS = 200


def _tree(sim, *, pair_share=None, passed=True, seed=0):
    """Draws near the truth: the pair form's (with pair_share) or an independent model's."""
    rng = np.random.default_rng(seed)
    truth = sim.truth
    jitter = lambda x, s: np.clip(x + rng.normal(0, s, size=(1, DRAWS, *np.shape(x))), 0.01, 0.99)  # noqa: E731
    se, sp = jitter(truth.se, 0.01), jitter(truth.sp, 0.01)
    post = {
        "pi": (("chain", "draw"), jitter(truth.pi, 0.01)),
        "se": (("chain", "draw", "judge"), se),
        "sp": (("chain", "draw", "judge"), sp),
        "loading": (("chain", "draw", "class", "judge"), np.zeros((1, DRAWS, 2, 3))),
    }
    if pair_share is not None:
        rate = np.stack([1 - sp, se], axis=-2)
        bound = pair_covariance_bound(rate[..., [0]], rate[..., [1]])
        post["pair_covariance"] = (("chain", "draw", "class", "pair"), pair_share * bound)
    checks = (
        Check("r_hat", "pi", 1.0 if passed else 1.5, 1.01, "<=", passed),
        Check("ess_bulk", "pi", 1000.0, 400.0, ">=", True),
        Check("ess_tail", "pi", 1000.0, 400.0, ">=", True),
        Check("divergences", "sampler", 0.0, 0.0, "<=", True),
    )
    tree = xr.DataTree.from_dict(
        {"posterior": xr.Dataset(post, coords={"judge": list(sim.data.judges)})}
    )
    tree.attrs["diagnostics"] = json.dumps(Diagnostics(checks, 0.95).to_dict())
    return tree


@pytest.fixture(scope="module")
def copied():
    return dependence_scenario("copy", random_seed=4)


def test_pattern_log_likelihood_weights_sum_to_the_models_log_likelihood(copied):
    patterns = copied.data.patterns()
    tree = _tree(copied)
    ll = pattern_log_likelihood(tree["posterior"].to_dataset(), patterns)
    assert ll.shape == (1, DRAWS, len(patterns))
    elpd, lppd, k = pattern_loo(ll)
    assert np.all(elpd <= lppd + 1e-12)
    assert np.all(k < 0.7)


def test_the_pair_form_is_chosen_for_a_copying_judge(copied):
    patterns = copied.data.patterns()
    # kappa = 0.8 copies: the pair covariance is 0.8 p (1 - p); as a share of the bound ~0.8
    pairs = _tree(copied, pair_share=np.full((2, 1), 0.8))
    independent = _tree(copied)
    choice = choose_dependence(independent, pairs, patterns, pairs=np.array([[0, 1]]))
    assert choice.chosen == "pairs"
    assert choice.difference > 2 * choice.difference_se > 0
    assert "elpd_loo pairs - random_effect" in choice.reason
    block = choice.to_dict()
    assert [f["form"] for f in block["forms"]] == ["random_effect", "pairs"]
    assert block["forms"][1]["elpd_loo"] - block["forms"][0]["elpd_loo"] == pytest.approx(
        choice.difference, rel=1e-9
    )


def test_independent_judges_keep_the_random_effect_form():
    sim = dependence_scenario("independent", random_seed=4)
    patterns = sim.data.patterns()
    near_zero = _tree(sim, pair_share=np.full((2, 1), 0.01))
    choice = choose_dependence(_tree(sim), near_zero, patterns, pairs=np.array([[0, 1]]))
    assert choice.chosen == "random_effect"


def test_a_failed_fit_loses_and_a_missing_pair_fit_keeps_the_random_effect(copied):
    patterns = copied.data.patterns()
    pairs = _tree(copied, pair_share=np.full((2, 1), 0.8), passed=False)
    choice = choose_dependence(_tree(copied), pairs, patterns, pairs=np.array([[0, 1]]))
    assert choice.chosen == "random_effect"
    assert "pairs fit failed its diagnostics" in choice.reason
    alone = choose_dependence(_tree(copied), None, patterns)
    assert alone.chosen == "random_effect"
    assert alone.to_dict()["elpd_difference"] is None
