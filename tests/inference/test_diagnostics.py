"""Tests of bayesjudge.inference.diagnostics on synthetic posteriors with known defects (no
sampling)."""

from __future__ import annotations

import json

import arviz_stats as azs
import numpy as np
import pytest
import xarray as xr

from bayesjudge.inference.diagnostics import Check, Diagnostics, check_fit, ppc_tail_probability

CHAINS, DRAWS = 4, 1000


def _tree(posterior: dict[str, np.ndarray], *, diverging=None, ppc=None, observed=None):
    coords = {"stratum": ["a", "b"]}
    data_vars = {
        name: (("chain", "draw") + (("stratum",) if v.ndim == 3 else ()), v)
        for name, v in posterior.items()
    }
    if diverging is None:
        diverging = np.zeros((CHAINS, DRAWS), dtype=bool)
    groups = {
        "posterior": xr.Dataset(
            data_vars, coords=coords if any(v.ndim == 3 for v in posterior.values()) else {}
        ),
        "sample_stats": xr.Dataset({"diverging": (("chain", "draw"), diverging)}),
    }
    if ppc is not None:
        groups["posterior_predictive"] = xr.Dataset(
            {k: (("chain", "draw"), v) for k, v in ppc.items()}
        )
        groups["observed_data"] = xr.Dataset({k: ((), v) for k, v in observed.items()})
    return xr.DataTree.from_dict(groups)


@pytest.fixture
def rng():
    return np.random.default_rng(20240611)


def test_iid_draws_pass_every_check(rng):
    tree = _tree({"pi": rng.normal(size=(CHAINS, DRAWS)), "se": rng.beta(9, 1, (CHAINS, DRAWS, 2))})
    result = check_fit(tree)
    assert result.passed
    assert result.failures == ()
    assert result.divergences == 0
    # iid draws: R-hat within 1.01 and ESS near the 4000 draws (tolerance: ESS > 2000)
    assert result.r_hat_max < 1.01
    assert result.ess_bulk_min > 2000
    assert result.ess_tail_min > 2000
    # the R-hat reported is arviz_stats' rank-normalised split R-hat
    expected = float(azs.rhat(tree["posterior"].to_dataset(), method="rank")["pi"])
    assert result.r_hat_max == pytest.approx(
        max(expected, *azs.rhat(tree["posterior"].to_dataset())["se"].values)
    )
    # vector variables are checked element by element, labelled by coordinate
    variables = set(result.to_frame()["variable"])
    assert {"pi", "se[a]", "se[b]", "sampler"} <= variables


def test_chains_that_disagree_fail_r_hat(rng):
    draws = rng.normal(size=(CHAINS, DRAWS))
    draws[0] += 3.0
    result = check_fit(_tree({"pi": draws}))
    assert not result.passed
    assert "r_hat(pi)" in [c.label for c in result.failures]
    assert result.r_hat_max > 1.1


def test_sticky_chains_fail_ess(rng):
    # AR(1) with coefficient 0.995: ESS is a few dozen, far below 400
    noise = rng.normal(size=(CHAINS, DRAWS))
    draws = np.zeros_like(noise)
    for t in range(1, DRAWS):
        draws[:, t] = 0.995 * draws[:, t - 1] + noise[:, t]
    result = check_fit(_tree({"pi": draws}))
    failed = {c.name for c in result.failures}
    assert {"ess_bulk", "ess_tail"} <= failed
    assert result.ess_bulk_min < 400
    assert "mcse_mean" in failed  # MCSE of the mean above 0.2 posterior sd with ESS < 25


def test_divergences_fail(rng):
    diverging = np.zeros((CHAINS, DRAWS), dtype=bool)
    diverging[1, [5, 50, 500]] = True
    result = check_fit(_tree({"pi": rng.normal(size=(CHAINS, DRAWS))}, diverging=diverging))
    assert result.divergences == 3
    assert [c.label for c in result.failures] == ["divergences(sampler)"]
    # with a looser limit the same fit passes
    assert check_fit(
        _tree({"pi": rng.normal(size=(CHAINS, DRAWS))}, diverging=diverging), max_divergences=3
    ).passed


def test_ppc_tail_probability_exact_values():
    draws = np.arange(100)  # uniform on 0..99
    # P(rep <= 0) = 0.01, so p = 0.02; the median is central (p = 1)
    assert ppc_tail_probability(draws, np.array(0)) == pytest.approx(0.02)
    assert ppc_tail_probability(draws, np.array(50)) == pytest.approx(1.0)
    assert ppc_tail_probability(draws, np.array(99)) == pytest.approx(0.02)
    assert ppc_tail_probability(draws, np.array(150)) == 0.0
    # vectorised over trailing axes
    both = ppc_tail_probability(np.stack([draws, draws], axis=1), np.array([0, 50]))
    np.testing.assert_allclose(both, [0.02, 1.0])


def test_observed_count_outside_predictive_fails(rng):
    rep = rng.binomial(100, 0.5, size=(CHAINS, DRAWS))
    good = _tree({"pi": rng.normal(size=(CHAINS, DRAWS))}, ppc={"k": rep}, observed={"k": 50})
    bad = _tree({"pi": rng.normal(size=(CHAINS, DRAWS))}, ppc={"k": rep}, observed={"k": 80})
    assert check_fit(good).passed
    result = check_fit(bad)
    assert [c.label for c in result.failures] == ["ppc_tail_prob(k)"]
    assert result.failures[0].value == 0.0


def test_result_converts_to_frame_and_json(rng):
    tree = _tree({"pi": rng.normal(size=(CHAINS, DRAWS))})
    result = check_fit(tree, prob=0.9)
    frame = result.to_frame()
    assert list(frame.columns) == ["name", "variable", "value", "threshold", "rule", "passed"]
    assert set(frame["name"]) == {
        "r_hat",
        "ess_bulk",
        "ess_tail",
        "mcse_mean",
        "mcse_low",
        "mcse_high",
        "divergences",
    }
    as_dict = json.loads(json.dumps(result.to_dict()))
    assert as_dict["passed"] is True
    assert as_dict["prob"] == 0.9
    assert len(as_dict["checks"]) == len(frame)
    assert "passed of" in repr(result)


def test_check_and_thresholds():
    check = Check("r_hat", "pi", 1.02, 1.01, "<=", False)
    assert check.label == "r_hat(pi)"
    assert check.describe() == "r_hat(pi) = 1.02 (needs <= 1.01)"
    result = Diagnostics((check,), 0.95)
    assert result.describe_failures() == "r_hat(pi) = 1.02 (needs <= 1.01)"
    assert "FAILED 1" in repr(result)


def test_var_names_restricts_the_checks(rng):
    draws = rng.normal(size=(CHAINS, DRAWS))
    bad = draws.copy()
    bad[0] += 3.0
    tree = _tree({"pi": draws, "nuisance": bad})
    assert not check_fit(tree).passed
    assert check_fit(tree, var_names=["pi"]).passed
    only_rhat = check_fit(tree, mcse_var_names=["pi"]).to_frame()
    assert set(only_rhat.loc[only_rhat["name"].str.startswith("mcse"), "variable"]) == {"pi"}
    with pytest.raises(ValueError, match=r"mcse_var_names \['tau'\] are not among"):
        check_fit(tree, mcse_var_names=["tau"])


def test_errors(rng):
    tree = _tree({"pi": rng.normal(size=(CHAINS, DRAWS))})
    with pytest.raises(ValueError, match="prob must lie in"):
        check_fit(tree, prob=1.0)
    with pytest.raises(ValueError, match=r"var_names \['tau'\] are not in the posterior"):
        check_fit(tree, var_names=["tau"])
    no_stats = xr.DataTree.from_dict({"posterior": tree["posterior"].to_dataset()})
    with pytest.raises(ValueError, match="no 'sample_stats' group"):
        check_fit(no_stats)
    empty_stats = xr.DataTree.from_dict(
        {"posterior": tree["posterior"].to_dataset(), "sample_stats": xr.Dataset()}
    )
    with pytest.raises(ValueError, match="no 'diverging' variable"):
        check_fit(empty_stats)


def test_check_fit_values_are_arviz_dataset_functions_on_every_element():
    """The batched path gives ArviZ's own per-variable R-hat, ESS and relative MCSE."""
    import arviz_stats as azs
    import xarray as xr

    from bayesjudge.inference.diagnostics import TAIL_ESS_PROB, check_fit

    rng = np.random.default_rng(3)
    posterior = xr.Dataset(
        {
            "pi": (("chain", "draw"), rng.beta(3, 2, size=(4, 300))),
            "se": (("chain", "draw", "judge"), rng.normal(size=(4, 300, 3)).cumsum(axis=1)),
            "m": (("chain", "draw", "a", "b"), rng.gamma(2.0, size=(4, 300, 2, 3))),
        },
        coords={"judge": ["x", "y", "z"]},
    )
    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((4, 300), bool))})
    tree = xr.DataTree.from_dict({"posterior": posterior, "sample_stats": stats})
    checks = {(c.name, c.variable): c.value for c in check_fit(tree, mcse_var_names=["se"]).checks}
    dims = ["chain", "draw"]
    sd = posterior.std(dim=dims)
    reference = {
        "r_hat": azs.rhat(posterior, sample_dims=dims, method="rank"),
        "ess_bulk": azs.ess(posterior, sample_dims=dims, method="bulk"),
        "ess_tail": azs.ess(posterior, sample_dims=dims, method="tail", prob=TAIL_ESS_PROB),
        "mcse_mean": azs.mcse(posterior, sample_dims=dims, method="mean") / sd,
        "mcse_low": azs.mcse(posterior, sample_dims=dims, method="quantile", prob=0.025) / sd,
        "mcse_high": azs.mcse(posterior, sample_dims=dims, method="quantile", prob=0.975) / sd,
    }
    labels = {
        "pi": [("pi", ())],
        "se": [(f"se[{j}]", {"judge": j}) for j in ("x", "y", "z")],
        "m": [(f"m[{a},{b}]", {"a": a, "b": b}) for a in range(2) for b in range(3)],
    }
    compared = 0
    for name, variables in labels.items():
        for label, where in variables:
            for key, values in reference.items():
                if key.startswith("mcse") and name != "se":
                    assert (key, label) not in checks  # MCSE only on the reported variables
                    continue
                expected = float(values[name].sel(where) if where else values[name])
                assert checks[(key, label)] == pytest.approx(expected, rel=1e-12), (key, label)
                compared += 1
    assert compared == 3 * 10 + 3 * 3
