"""The one retry of fit_model: which settings follow which failed checks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bayesjudge.inference import fit as fit_module
from bayesjudge.inference.diagnostics import Check, Diagnostics
from bayesjudge.inference.fit import (
    ModelRun,
    NutsSettings,
    attempts_of,
    draws_factor,
    fit_model,
    retry_settings,
)
from bayesjudge.priors import PrevalencePriors
from bayesjudge.validation import MAX_DRAWS

SETTINGS = NutsSettings(draws=2000, tune=1000, chains=4, target_accept=0.95)


def _ess(value: float, name: str = "ess_bulk") -> Check:
    return Check(name, "pi", value, 400.0, ">=", False)


def _mcse(value: float, name: str = "mcse_low") -> Check:
    return Check(name, "pi", value, 0.2, "<=", False)


R_HAT = Check("r_hat", "pi", 1.02, 1.01, "<=", False)
DIVERGENCES = Check("divergences", "sampler", 2.0, 0.0, "<=", False)
PPC = Check("ppc_tail_prob", "k", 0.001, 0.005, ">=", False)


def test_draws_factor_scales_ess_linearly_and_mcse_quadratically():
    assert draws_factor([_ess(200.0)]) == pytest.approx(2.0)
    assert draws_factor([_ess(320.0, "ess_tail"), _ess(200.0)]) == pytest.approx(2.0)
    assert draws_factor([_mcse(0.3)]) == pytest.approx(2.25)
    assert draws_factor([_ess(200.0), _mcse(0.3, "mcse_high")]) == pytest.approx(2.25)
    assert draws_factor([_ess(0.0)]) == pytest.approx(400.0)  # no division by zero
    assert draws_factor([DIVERGENCES, PPC]) == 1.0  # more draws do not mend these


def test_draws_factor_reads_r_hat_through_its_tie_to_the_ess():
    # R-hat^2 - 1 ~ m / ESS (Vats and Knudson 2021): (1.02^2 - 1) / (1.01^2 - 1) = 0.0404 / 0.0201
    assert draws_factor([R_HAT]) == pytest.approx(0.0404 / 0.0201)
    assert draws_factor([R_HAT, DIVERGENCES]) == pytest.approx(0.0404 / 0.0201)
    assert draws_factor([R_HAT, _ess(100.0)]) == pytest.approx(4.0)  # the larger need wins
    assert draws_factor([Check("r_hat", "pi", 1.0101, 1.01, "<=", False)]) == pytest.approx(
        (1.0101**2 - 1) / (1.01**2 - 1)
    )


def test_precision_only_failures_lengthen_the_run():
    # 2 x 400 / 225 = 3.56: 7112 draws, same tuning and step-size target
    assert retry_settings(SETTINGS, [_ess(225.0, "ess_tail"), _ess(300.0)]) == NutsSettings(
        draws=7112, tune=1000, chains=4, target_accept=0.95
    )
    # a small shortfall still doubles the draws: 2 x 400 / 399 = 2.005
    assert retry_settings(SETTINGS, [_ess(399.0)]).draws == 4011
    # MCSE: 2 x (0.3 / 0.2)^2 = 4.5
    assert retry_settings(SETTINGS, [_mcse(0.3)]).draws == 9000
    # a failed predictive check beside them does not change the sampler's retry
    assert retry_settings(SETTINGS, [_ess(300.0), PPC]).draws == 5334


def test_r_hat_without_divergences_lengthens_and_doubles_the_tuning():
    # 2 x 2.01 = 4.02 times the draws: 8040, and twice the tuning
    longer = NutsSettings(draws=8040, tune=2000, chains=4, target_accept=0.95)
    assert retry_settings(SETTINGS, [R_HAT]) == longer
    assert retry_settings(SETTINGS, [_ess(300.0), R_HAT]) == longer  # R-hat needs more
    # here the ESS shortfall needs more draws than R-hat: 2 x 400 / 180 = 4.44
    assert retry_settings(SETTINGS, [_ess(180.0), R_HAT]) == NutsSettings(
        draws=8889, tune=2000, chains=4, target_accept=0.95
    )
    # an R-hat just over its limit: 2 x (1.011^2 - 1) / (1.01^2 - 1) = 2.2
    barely = Check("r_hat", "pi", 1.011, 1.01, "<=", False)
    assert retry_settings(SETTINGS, [barely]) == NutsSettings(
        draws=4403, tune=2000, chains=4, target_accept=0.95
    )


@pytest.mark.parametrize(
    "failures",
    [
        [DIVERGENCES],
        [_ess(300.0), DIVERGENCES],
        [R_HAT, DIVERGENCES],
        [_ess(150.0)],  # 2 x 400 / 150 = 5.3 > 5: too far short to only lengthen
        [_ess(90.0), R_HAT],
        # 2 x (1.03^2 - 1) / (1.01^2 - 1) = 6.1 > 5: chains too far apart to only lengthen
        [Check("r_hat", "pi", 1.03, 1.01, "<=", False)],
        [PPC],  # not a sampler check: fit_model does not retry, and nothing says lengthen
    ],
)
def test_divergences_or_a_large_shortfall_escalate(failures):
    assert retry_settings(SETTINGS, failures) == SETTINGS.escalated()
    assert SETTINGS.escalated() == NutsSettings(draws=4000, tune=3000, chains=4, target_accept=0.99)


def test_lengthened_rounds_up_caps_and_rejects_shrinking():
    assert SETTINGS.lengthened(1.0) == SETTINGS
    assert SETTINGS.lengthened(1.0001).draws == 2001
    assert NutsSettings(draws=MAX_DRAWS // 2).lengthened(5.0).draws == MAX_DRAWS
    with pytest.raises(ValueError, match="factor must be at least 1"):
        SETTINGS.lengthened(0.5)
    with pytest.raises(ValueError, match="factor must be at least 1"):
        SETTINGS.lengthened(float("nan"))


def _model():
    import pymc as pm

    with pm.Model() as model:
        a = pm.Beta("a", 2.0, 2.0)
        pm.Binomial("y", 10, a, observed=4)
    return model


def _fit_with_first_failures(monkeypatch, failures: list[Check]):
    """Run fit_model on a tiny model whose first check fails with ``failures``."""
    pytest.importorskip("nutpie")
    real = fit_module.check_fit
    calls: list[int] = []

    def check(tree, **kwargs):
        calls.append(1)
        measured = real(tree, **kwargs)
        if len(calls) == 1:
            return Diagnostics(checks=(*failures, *measured.checks), prob=measured.prob)
        return measured

    monkeypatch.setattr(fit_module, "check_fit", check)
    run = ModelRun(
        name="retry-test", key=("retry-test",), build=_model, data={}, priors=PrevalencePriors()
    )
    return fit_model(
        run,
        settings=NutsSettings(draws=1000, tune=300, chains=2, target_accept=0.8),
        complete=lambda tree, rng: tree,
        random_seed=5,
        predictive_check=False,
        check_vars=["a"],
        sampler="nutpie",
    )


def test_fit_model_lengthens_after_an_ess_shortfall(monkeypatch):
    tree = _fit_with_first_failures(monkeypatch, [_ess(160.0)])
    first, retry = attempts_of(tree)
    assert not first.passed
    assert first.failures[0] == "ess_bulk(pi) = 160 (needs >= 400)"
    # 2 x 400 / 160 = 5 times 1000 draws; tuning and target acceptance kept
    assert retry.settings == NutsSettings(draws=5000, tune=300, chains=2, target_accept=0.8)
    assert retry.passed
    assert tree.attrs["diagnostics_passed"]
    assert tree["posterior"]["a"].shape == (2, 5000)
    assert (tree.attrs["draws"], tree.attrs["tune"]) == (5000, 300)
    assert len(json.loads(tree.attrs["attempts"])) == 2


def test_fit_model_escalates_after_divergences(monkeypatch):
    tree = _fit_with_first_failures(monkeypatch, [_ess(160.0), DIVERGENCES])
    _, retry = attempts_of(tree)
    assert retry.settings == NutsSettings(draws=2000, tune=3000, chains=2, target_accept=0.96)
    assert retry.passed
    assert np.isclose(tree.attrs["target_accept"], 0.96)
