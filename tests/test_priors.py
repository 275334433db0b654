"""One Prior type, each family's prior set, and the command-line form NAME=SPEC."""

from __future__ import annotations

import json

import pytest

from bayesjudge.priors import (
    JEFFREYS,
    UNIFORM,
    Beta,
    ChannelPriors,
    GatePriors,
    Normal,
    PrevalencePriors,
    Prior,
    parse_prior,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("beta:1,1", Beta(1, 1)),
        ("Beta(2, 8)", Beta(2, 8)),
        ("BETA: 0.5 , 0.5", Beta(0.5, 0.5)),
        ("normal:1,1.5", Normal(1, 1.5)),
        ("Normal(-2, 0.1)", Normal(-2, 0.1)),
        ("jeffreys", JEFFREYS),
        ("uniform", UNIFORM),
    ],
)
def test_parse_prior_forms(text, expected):
    assert parse_prior(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("beta:1", "a beta prior takes 2 numbers; 'beta:1' has 1"),
        ("beta:1,2,3", "takes 2 numbers"),
        ("beta:a,b", "needs numbers"),
        ("gamma:1,1", "unknown prior distribution 'gamma'"),
        ("flat", "cannot read the prior 'flat'"),
        ("", "cannot read the prior ''"),
        ("beta:0,1", "alpha must be a positive number"),
        ("normal:0,-1", "sigma must be a positive number"),
        ("beta:nan,1", "alpha must be a positive number"),
    ],
)
def test_parse_prior_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_prior(text)


def test_prior_prints_and_serialises_as_it_reads():
    prior = Beta(2, 8)
    assert str(prior) == "Beta(2, 8)"
    assert parse_prior(str(prior)) == prior
    assert prior.to_dict() == {"dist": "beta", "alpha": 2.0, "beta": 8.0}
    assert isinstance(prior, Prior)
    assert str(Normal(1, 1.5)) == "Normal(1, 1.5)"


def test_prior_sets_update_from_the_command_line_form():
    priors = PrevalencePriors().updated(["pi=beta:1,1", "se = Beta(9, 1)"])
    assert priors == PrevalencePriors(pi=Beta(1, 1), se=Beta(9, 1))
    assert priors.describe() == "pi ~ Beta(1, 1), se ~ Beta(9, 1), sp ~ Beta(0.5, 0.5)"
    gate = GatePriors().updated({"log_kappa": "normal:0,2", "omega": Beta(2, 2)})
    assert gate.log_kappa == Normal(0, 2)
    assert gate.omega == Beta(2, 2)
    assert json.loads(json.dumps(gate.to_dict()))["log_kappa"] == {
        "dist": "normal",
        "mu": 0.0,
        "sigma": 2.0,
    }
    assert ChannelPriors().updated(["rate=uniform"]).rate == UNIFORM
    # the original is never mutated
    assert PrevalencePriors().pi == JEFFREYS


@pytest.mark.parametrize(
    ("specs", "message"),
    [
        (["rho=beta:1,1"], r"the prevalence model has no prior 'rho'; its priors are \['pi'"),
        (["se=normal:0,1"], "prior 'se' of the prevalence model must be a beta distribution"),
        (["pi"], "a prior is given as NAME=SPEC"),
        (["=beta:1,1"], "a prior is given as NAME=SPEC"),
        (["pi=beta:1"], "prior 'pi': a beta prior takes 2 numbers"),
        (["pi=beta:1,1", " pi=beta:2,2"], r"prior 'pi' is given twice \(beta:1,1 and beta:2,2\)"),
    ],
)
def test_prior_set_errors_name_the_prior(specs, message):
    with pytest.raises(ValueError, match=message):
        PrevalencePriors().updated(specs)


def test_prior_set_type_checks():
    with pytest.raises(TypeError, match="prior 'log_kappa' of the gate model must be a Normal"):
        GatePriors(log_kappa=Beta(1, 1))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be a normal distribution"):
        GatePriors().updated(["log_kappa=beta:1,1"])
