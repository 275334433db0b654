"""The default judge of rank: the weight of one judge and the average of the two fits."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import xarray as xr
from scipy import integrate
from scipy.special import betaln

from bayesjudge.priors import JEFFREYS, Beta
from bayesjudge.systems import analysis as analysis_module
from bayesjudge.systems.average import (
    JudgeEvidence,
    average_posteriors,
    judge_evidence,
    log_judge_marginal,
)
from bayesjudge.systems.data import SystemsData
from bayesjudge.systems.simulate import simulate_systems


def brute_marginal(x1: int, m1: int, x0: int, m0: int, se: Beta, sp: Beta) -> float:
    """The judge's gold verdicts given their labels, by 2-D quadrature over (Se, Sp).

    The prior is conditioned on J > 0 by dividing by its own mass there. For the Jeffreys
    prior the substitution Se = sin^2(t) removes the poles at 0 and 1.
    """

    def like(s: float, p: float) -> float:
        return s**x1 * (1 - s) ** (m1 - x1) * (1 - p) ** x0 * p ** (m0 - x0)

    def pdf(prior: Beta, x: float) -> float:
        a, b = prior.alpha, prior.beta
        return x ** (a - 1) * (1 - x) ** (b - 1) * math.exp(-betaln(a, b))

    if se == JEFFREYS and sp == JEFFREYS:
        c = (2 / np.pi) ** 2

        def top(f):
            return integrate.dblquad(
                lambda u, t: (
                    c * f(np.sin(t) ** 2, np.sin(u) ** 2) * (np.sin(t) ** 2 + np.sin(u) ** 2 > 1)
                ),
                0,
                np.pi / 2,
                lambda t: np.arcsin(np.sqrt(max(1 - np.sin(t) ** 2, 0.0))),
                np.pi / 2,
                epsabs=1e-13,
                epsrel=1e-10,
            )[0]

        return top(like) / top(lambda s, p: 1.0)

    def region(f):
        return integrate.dblquad(
            lambda p, s: f(s, p) * pdf(se, s) * pdf(sp, p),
            0,
            1,
            lambda s: 1 - s,
            1,
            epsabs=1e-14,
            epsrel=1e-10,
        )[0]

    return region(like) / region(lambda s, p: 1.0)


@pytest.mark.parametrize(
    ("counts", "se", "sp"),
    [
        ((9, 10, 2, 10), JEFFREYS, JEFFREYS),
        ((3, 5, 3, 4), JEFFREYS, JEFFREYS),  # gold labels that leave J <= 0 likely
        ((7, 9, 1, 6), Beta(2.0, 2.0), Beta(3.0, 1.5)),
        ((0, 0, 0, 0), Beta(2.0, 2.0), Beta(3.0, 1.5)),
    ],
)
def test_marginal_matches_a_brute_force_integral(counts, se, sp):
    exact = log_judge_marginal(*counts, se=se, sp=sp)
    assert exact == pytest.approx(np.log(brute_marginal(*counts, se=se, sp=sp)), abs=1e-6)


def test_marginal_without_the_restriction_is_two_beta_functions():
    value = log_judge_marginal(3, 5, 3, 4, restrict_j=False)
    assert value == pytest.approx(
        betaln(3.5, 2.5) - betaln(0.5, 0.5) + betaln(1.5, 3.5) - betaln(0.5, 0.5)
    )


def test_weight_matches_the_brute_force_posterior_model_probability():
    x1, m1, x0, m0 = [8, 5], [10, 7], [2, 4], [6, 5]
    ev = judge_evidence(["A", "B"], x1=x1, m1=m1, x0=x0, m0=m0, prior_shared=0.3)
    shared = brute_marginal(sum(x1), sum(m1), sum(x0), sum(m0), JEFFREYS, JEFFREYS)
    separate = np.prod(
        [brute_marginal(x1[s], m1[s], x0[s], m0[s], JEFFREYS, JEFFREYS) for s in (0, 1)]
    )
    expected = 0.3 * shared / (0.3 * shared + 0.7 * separate)
    assert ev.weight_shared == pytest.approx(expected, rel=1e-6)
    assert ev.log_bayes_factor == pytest.approx(np.log(shared / separate), abs=1e-6)


def test_weight_follows_the_gold_labels():
    alike = judge_evidence(["A", "B"], x1=[80, 81], m1=[90, 90], x0=[12, 11], m0=[60, 60])
    apart = judge_evidence(["A", "B"], x1=[80, 81], m1=[90, 90], x0=[5, 30], m0=[60, 60])
    assert alike.weight_shared > 0.9
    assert apart.weight_shared < 0.01
    assert alike.fitted == ("shared", "system")
    assert apart.fitted == ("system",)
    assert "5 of 60 wrong answers of A and 30 of 60 of B" in apart.counts_sentence()
    assert "differently" in apart.reading()
    assert JudgeEvidence.from_json(apart.to_json()) == apart
    out = apart.to_dict()
    assert out["gold"]["B"] == {"right_passed": 81, "right": 90, "wrong_passed": 30, "wrong": 60}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"x1": [1, 2], "m1": [1, 1], "x0": [0, 0], "m0": [1, 1]}, "x1 exceeds m1 for system 'B'"),
        ({"x1": [1], "m1": [1, 1], "x0": [0, 0], "m0": [1, 1]}, "x1 must hold one count"),
        ({"x1": [1, -1], "m1": [1, 1], "x0": [0, 0], "m0": [1, 1]}, "non-negative"),
        (
            {"x1": [1, 1], "m1": [1, 1], "x0": [0, 0], "m0": [1, 1], "prior_shared": 1.0},
            "prior_shared",
        ),
    ],
)
def test_bad_counts_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        judge_evidence(["A", "B"], **kwargs)


def _posterior(pi_a: float, shared: bool, chains: int = 2, draws: int = 1000) -> xr.Dataset:
    pi = np.broadcast_to([pi_a, 0.5], (chains, draws, 2)).copy()
    variables = {"pi": (("chain", "draw", "system"), pi)}
    if shared:
        variables["se"] = (("chain", "draw"), np.full((chains, draws), 0.9))
        variables["logit_se"] = (("chain", "draw"), np.zeros((chains, draws)))
    else:
        variables["se"] = (("chain", "draw", "system"), np.full((chains, draws, 2), 0.7))
        variables["logit_se"] = (("chain", "draw", "system"), np.zeros((chains, draws, 2)))
        variables["se_shared"] = (("chain", "draw"), np.full((chains, draws), 0.7))
        variables["sigma_se"] = (("chain", "draw"), np.full((chains, draws), 0.4))
    return xr.Dataset(variables, coords={"system": ["A", "B"]})


def test_average_takes_the_weight_of_draws_from_each_fit():
    mixed = average_posteriors(_posterior(1.0, True), _posterior(0.0, False, draws=1200), 0.3)
    assert mixed.sizes == {"chain": 2, "draw": 1000, "system": 2}
    from_shared = mixed["pi"].sel(system="A").to_numpy()
    assert (from_shared == 1.0).sum(axis=1).tolist() == [300, 300]
    # the shared judge is a per-system judge with equal rates and no spread
    se = mixed["se"].to_numpy()
    assert np.all((se[..., 0] == se[..., 1]) | (from_shared == 0.0))
    assert np.all(mixed["sigma_se"].to_numpy()[from_shared == 1.0] == 0.0)
    assert "logit_se" not in mixed  # the samplers' own variables differ between the models
    with pytest.raises(ValueError, match="weight_shared"):
        average_posteriors(_posterior(1.0, True), _posterior(0.0, False), 1.5)


def _issue_data(sp=(0.8, 0.8), pi=(0.599, 0.697), seed=0) -> SystemsData:
    """Issue 27: 1,500 items answered by A and B, 150 gold-labelled for both, Se 0.90."""
    sim = simulate_systems(
        list(pi), n_unlabelled=1350, n_labelled=150, se=0.9, sp=list(sp), random_seed=seed
    )
    return SystemsData.from_frame(sim.frame)


def _evidence(data: SystemsData):
    c = data.system_counts()
    return judge_evidence(data.systems, x1=c.x1, m1=c.m1, x0=c.x0, m0=c.m0)


def test_issue_and_differential_datasets_get_the_right_weight():
    assert _evidence(_issue_data()).weight_shared > 0.9
    # Sp 0.90 for A and 0.65 for B: 8 of 59 and 18 of 46 false passes; Se agrees (79 of 91,
    # 92 of 104), which keeps the weight of one judge from vanishing at this gold size
    differential = _evidence(_issue_data(sp=(0.9, 0.65), pi=(0.65, 0.65), seed=5))
    assert differential.weight_shared == pytest.approx(0.217, abs=0.001)


@pytest.fixture
def fake_fits(monkeypatch, make_tree):
    """Replace the sampler: each judge model gets a synthetic posterior of its own."""
    calls = []

    def fake_fit(data, *, judge, **options):
        calls.append((judge, options["pooling"]))
        tree = make_tree(data, centres=(0.6, 0.7) if judge == "shared" else (0.5, 0.5), judge=judge)
        tree.attrs["pooling"] = "" if judge == "shared" else "none"
        if judge == "shared":  # a real fit has the judged rates under either judge
            tree["posterior"]["judged_rate"] = tree["posterior"]["pi"]
        return tree

    monkeypatch.setattr(analysis_module, "fit_systems", fake_fit)
    return calls


def test_default_fits_both_judges_and_reports_the_weight(fake_fits):
    data = _issue_data()
    calls = fake_fits
    analysis = analysis_module.analyze_systems(data, random_seed=3)
    assert sorted(calls) == [("shared", "auto"), ("system", "auto")]
    weight = _evidence(data).weight_shared
    judge = analysis.to_dict()["judge"]
    assert judge["average"]["weight_shared"] == pytest.approx(weight)
    assert "wrong answers of A" in judge["average"]["rests_on"]
    assert analysis.judge.averaged
    assert analysis.pi["A"].mean == pytest.approx(weight * 0.6 + (1 - weight) * 0.5, abs=0.01)
    failures = analysis.diagnostics.checks
    assert any("(one judge)" in c.variable for c in failures)
    assert any("(judge per system)" in c.variable for c in failures)
    assert json.loads(analysis.posterior.attrs["judge_evidence"])["weight_shared"] == weight

    calls.clear()
    explicit = analysis_module.analyze_systems(data, judge="system", random_seed=3)
    assert calls == [("system", "auto")]
    assert "average" not in explicit.to_dict()["judge"]


def _with_failed_predictive_check(tree, variable):
    """The tree with one failed posterior predictive check added to its diagnostics."""
    from bayesjudge.inference.diagnostics import Check, Diagnostics

    diagnostics = Diagnostics.from_dict(json.loads(tree.attrs["diagnostics"]))
    failed = Check("ppc_tail_prob", variable, 0.001, 0.01, ">=", False)
    tree.attrs["diagnostics"] = json.dumps(
        Diagnostics((*diagnostics.checks, failed), diagnostics.prob).to_dict()
    )
    return tree


@pytest.mark.parametrize("bad", ["shared", "system"])
def test_a_model_that_fails_its_predictive_check_is_set_aside(monkeypatch, make_tree, bad):
    """A converged model the data reject is left out: the answer is the other model's alone."""
    centres = {"shared": (0.6, 0.7), "system": (0.5, 0.5)}

    def fake_fit(data, *, judge, **options):
        tree = make_tree(data, centres=centres[judge], judge=judge)
        tree.attrs["pooling"] = "" if judge == "shared" else "none"
        if judge == "shared":
            tree["posterior"]["judged_rate"] = tree["posterior"]["pi"]
        return _with_failed_predictive_check(tree, "x0[A]") if judge == bad else tree

    monkeypatch.setattr(analysis_module, "fit_systems", fake_fit)
    analysis = analysis_module.analyze_systems(_issue_data(), random_seed=3)
    kept = "system" if bad == "shared" else "shared"
    assert analysis.passed  # the kept model passed every check, the set-aside one is not used
    assert analysis.pi["A"].mean == pytest.approx(centres[kept][0], abs=0.01)
    average = analysis.to_dict()["judge"]["average"]
    assert average["set_aside"] == {"model": bad, "failed_checks": ["x0[A]"]}
    assert average["weight_used"] == (0.0 if bad == "shared" else 1.0)
    sentence = analysis.judge.evidence.sentence()
    assert "did not fit the data" in sentence
    assert "x0[A]" in sentence
    assert "set aside" in sentence


def test_both_models_failing_their_predictive_checks_fail_the_answer(monkeypatch, make_tree):
    def fake_fit(data, *, judge, **options):
        tree = make_tree(data, centres=(0.6, 0.7), judge=judge)
        tree.attrs["pooling"] = "" if judge == "shared" else "none"
        if judge == "shared":
            tree["posterior"]["judged_rate"] = tree["posterior"]["pi"]
        return _with_failed_predictive_check(tree, "x0[A]")

    monkeypatch.setattr(analysis_module, "fit_systems", fake_fit)
    analysis = analysis_module.analyze_systems(_issue_data(), random_seed=3)
    assert not analysis.passed
    assert analysis.to_dict()["judge"]["average"]["set_aside"] is None


def _difference(analysis):
    (d,) = analysis.differences
    return d


@pytest.mark.slow
def test_issue_dataset_finds_the_difference_with_defaults():
    """Issue 27: P(B > A) >= 0.975 with defaults (the per-system fit alone gives 0.75 here)."""
    analysis = analysis_module.analyze_systems(_issue_data(), random_seed=1, progressbar=False)
    assert analysis.passed
    assert analysis.judge.evidence is not None
    assert analysis.judge.evidence.weight_shared > 0.9
    assert _difference(analysis).p_b_better >= 0.975


@pytest.mark.slow
def test_differential_judge_keeps_the_per_system_answer():
    """Sp 0.90 for A, 0.65 for B, no difference: the weight says so and the interval covers 0."""
    data = _issue_data(sp=(0.9, 0.65), pi=(0.65, 0.65), seed=5)
    analysis = analysis_module.analyze_systems(data, random_seed=1, progressbar=False)
    assert analysis.passed
    assert analysis.judge.evidence is not None
    assert analysis.judge.evidence.weight_shared < 0.5
    d = _difference(analysis).diff
    assert d.eti.low < 0.0 < d.eti.high


def test_terminal_and_report_say_the_weight_and_what_it_rests_on(fake_fits, tmp_path, capsys):
    from bayesjudge.cli.app import main
    from bayesjudge.systems.report import rank_reading

    data = _issue_data()
    analysis = analysis_module.analyze_systems(data, random_seed=3)
    weight = analysis.judge.evidence.weight_shared
    c = data.system_counts()
    words = f"passing {c.x0[0]} of {c.m0[0]} wrong answers of A and {c.x0[1]} of {c.m0[1]} of B"
    reading = " ".join(rank_reading(analysis))
    assert f"one judge for all systems (weight {weight:.2f})" in reading
    assert words in reading
    path = tmp_path / "s.csv"
    simulate_systems(
        [0.599, 0.697], n_unlabelled=1350, n_labelled=150, se=0.9, sp=0.8, random_seed=0
    ).frame.to_csv(path, index=False)
    assert main(["rank", str(path), "--random-seed", "3"]) == 0
    out = capsys.readouterr().out
    assert f"Judge: the answers average one judge for all systems (weight {weight:.2f})" in out
    assert words in out
    assert main(["rank", str(path), "--random-seed", "3", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["judge"]["average"]["weight_shared"] == pytest.approx(weight)
