"""Structure of the systems models and their likelihoods, checked without sampling.

Model terms are evaluated with ``Model.compile_fn(..., mode="FAST_COMPILE")`` on the random
variables themselves, which compiles in a fraction of a second.
"""

from __future__ import annotations

import itertools

import numpy as np
import pymc as pm
import pytest
from scipy import integrate, special, stats

from bayesjudge.models.systems import (
    OUTCOMES,
    irt_model,
    model_info,
    resolve_pooling,
    systems_model,
    two_system_model,
)
from bayesjudge.priors import Beta, Dirichlet, SystemsPriors
from bayesjudge.systems.data import Patterns, SystemCounts, SystemsData
from bayesjudge.systems.simulate import simulate_systems

CELLS = Patterns(
    ("old", "new"),
    np.array([[1, 1], [1, 2], [2, 1], [2, 2], [6, 5], [3, 3], [5, 0], [0, 2], [6, 1]], np.int8),
    np.array([30, 12, 5, 40, 6, 7, 3, 4, 2]),
)


def _names(group) -> set[str]:
    return {v.name for v in group}


def _fn(model: pm.Model, out: str, inputs: list[str]):
    return model.compile_fn(
        model[out], inputs=[model[n] for n in inputs], mode="FAST_COMPILE", point_fn=False
    )


# ----------------------------------------------------------------------------- structure
def test_two_system_model_structure():
    model = two_system_model(CELLS)
    assert _names(model.free_RVs) == {"joint", "logit_se", "logit_fpr_ratio"}
    assert _names(model.deterministics) == {
        "se",
        "sp",
        "j",
        "pi",
        "diff",
        "discordant",
        "outcome_correlation",
        "judged_rate",
        "bias",
    }
    assert _names(model.potentials) == {"judge_prior", "loglik"}
    assert _names(model.data_vars) == {"cell_state", "cell_weight"}
    assert model.coords["system"] == ("old", "new")
    assert model.coords["outcome"] == OUTCOMES
    assert len(model.coords["cell"]) == 16
    dims = model.named_vars_to_dims
    assert dims["joint"] == ("outcome",)
    assert dims["cell_state"] == ("cell", "system")
    for name in ("pi", "discordant", "judged_rate", "bias"):
        assert dims[name] == ("system",)
    info = model_info(model)
    assert (info.name, info.judge, info.calibration, info.restrict_j) == (
        "two_system",
        "shared",
        "by_class",
        True,
    )
    assert info.as_attrs()["prior_joint"] == "Dirichlet(0.5)"


@pytest.mark.parametrize(
    ("restrict_j", "free"),
    [(True, {"dor_u"}), (False, {"sp_z"})],
)
def test_partially_pooled_judge_variables(restrict_j, free):
    model = two_system_model(CELLS, judge="system", restrict_j=restrict_j, pooling="partial")
    expected = {"joint", "mu_se", "mu_sp", "sigma_se", "sigma_sp", "se_z"} | free
    assert _names(model.free_RVs) == expected
    dims = model.named_vars_to_dims
    for name in ("se", "sp", "j", "se_z", *free):
        assert dims[name] == ("system",)
    assert {"se_shared", "sp_shared"} <= _names(model.deterministics)
    assert model_info(model).pooling == "partial"


@pytest.mark.parametrize(
    ("restrict_j", "free"),
    [(True, {"logit_se", "logit_fpr_ratio"}), (False, {"logit_se", "logit_sp"})],
)
def test_unpooled_judge_is_the_shared_construction_per_system(restrict_j, free):
    """Two systems take an unpooled judge by default: the Beta-prior coordinates per system."""
    model = two_system_model(CELLS, judge="system", restrict_j=restrict_j)
    assert model_info(model).pooling == "none"
    assert model_info(model).as_attrs()["pooling"] == "none"
    assert _names(model.free_RVs) == {"joint"} | free
    dims = model.named_vars_to_dims
    for name in ("se", "sp", "j", *free):
        assert dims[name] == ("system",)
    derived = {"se_shared", "sp_shared", "sigma_se", "sigma_sp"}
    assert derived <= _names(model.deterministics)
    # the spread is the sd of the two systems' logits, the centre expit of their mean
    second = "logit_fpr_ratio" if restrict_j else "logit_sp"
    point = [np.array([1.0, 2.5]), np.array([-1.0, 0.3] if restrict_j else [0.2, -0.6])]
    names = ["se", "sp", *sorted(derived)]
    fn = model.compile_fn(
        [model[n] for n in names],
        inputs=[model["logit_se"], model[second]],
        mode="FAST_COMPILE",
        point_fn=False,
    )
    values = dict(zip(names, fn(*point), strict=True))
    logit_sp = special.logit(values["sp"])
    assert values["sigma_se"] == pytest.approx(1.5 / np.sqrt(2), rel=1e-12)
    assert values["sigma_sp"] == pytest.approx(abs(logit_sp[1] - logit_sp[0]) / np.sqrt(2))
    assert values["se_shared"] == pytest.approx(special.expit(1.75), rel=1e-12)
    assert values["sp_shared"] == pytest.approx(special.expit(logit_sp.mean()), rel=1e-12)


def test_pooling_defaults_and_bad_values():
    assert resolve_pooling(None, "system", 2) == "none"
    assert resolve_pooling(None, "system", 5) == "partial"
    assert resolve_pooling("partial", "system", 2) == "partial"
    assert resolve_pooling("none", "shared", 2) == ""  # a shared judge has nothing to pool
    cells = Patterns(("a", "b", "c"), np.array([[1, 2, 2], [6, 5, 3]], np.int8), np.array([4, 1]))
    assert model_info(irt_model(cells, judge="system")).pooling == "partial"
    assert model_info(irt_model(cells, judge="system", pooling="none")).pooling == "none"
    assert model_info(two_system_model(CELLS)).pooling == ""
    with pytest.raises(ValueError, match=r"pooling must be one of \['partial', 'none'\]"):
        two_system_model(CELLS, judge="system", pooling="full")  # type: ignore[arg-type]


def test_shared_unrestricted_judge_samples_se_and_sp():
    model = two_system_model(CELLS, restrict_j=False)
    assert _names(model.free_RVs) == {"joint", "logit_se", "logit_sp"}
    assert "judge_prior" in _names(model.potentials)


def test_irt_and_systems_model_structure():
    cells = Patterns(("a", "b", "c"), np.array([[1, 2, 2], [6, 5, 3]], np.int8), np.array([4, 1]))
    model = irt_model(cells, judge="system")
    assert {"ability", "difficulty_sd"} <= _names(model.free_RVs)
    assert model.named_vars_to_dims["ability"] == ("system",)
    assert model.named_vars_to_dims["pi"] == ("system",)
    counts = SystemCounts(
        ("a", "b"), *(np.array(v) for v in ([5, 0], [4, 0], [5, 0], [1, 0], [30, 40], [20, 30]))
    )
    model = systems_model(counts, calibration="random")
    assert _names(model.observed_RVs) == {"x1", "x0", "k"}
    assert _names(model.potentials) == {"judge_prior", "calibration_labels"}
    assert _names(model.data_vars) == {"m1", "x1_obs", "m0", "x0_obs", "n", "k_obs"}
    for name in ("pi", "x1", "k", "m1", "judged_rate"):
        assert model.named_vars_to_dims[name] == ("system",)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"judge": "each"}, r"judge must be one of \['shared', 'system'\]; got 'each'"),
        ({"calibration": "x"}, r"calibration must be one of \['by_class', 'random'\]"),
        ({"restrict_j": 1}, "restrict_j must be True or False"),
    ],
)
def test_bad_options_list_allowed_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        two_system_model(CELLS, **kwargs)


def test_bad_priors_and_system_counts():
    with pytest.raises(TypeError, match="priors must be a SystemsPriors"):
        two_system_model(CELLS, priors=Beta(1, 1))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="concentration must be a positive number"):
        SystemsPriors(joint=Dirichlet(0))
    with pytest.raises(TypeError, match="prior 'joint' of the systems model must be a Dirichlet"):
        SystemsPriors(joint=Beta(1, 1))  # type: ignore[arg-type]
    three = Patterns(("a", "b", "c"), np.array([[1, 2, 2]], np.int8), np.array([4]))
    with pytest.raises(ValueError, match="exactly two systems"):
        two_system_model(three)


def test_refit_swaps_data_without_a_rebuild():
    model = two_system_model(CELLS, size=16)
    other = Patterns(("old", "new"), np.array([[2, 2], [1, 1]], np.int8), np.array([7, 9]))
    with model:
        pm.set_data(other.padded(16))
    assert model["cell_weight"].get_value().sum() == 16


# ----------------------------------------------------------------------------- likelihoods
def _brute_two_system(theta: np.ndarray, se: float, fpr: float, by_class: bool) -> float:
    """Sum over items of log P(item) by explicit enumeration of the four true outcomes."""

    def factor(state: int, y: int) -> float:
        if state == 0:
            return 1.0
        p_pass = se if y == 1 else fpr
        if state in (1, 2):
            return p_pass if state == 2 else 1 - p_pass
        gold, verdict = divmod(state - 3, 2)
        return 0.0 if gold != y else (p_pass if verdict else 1 - p_pass)

    total = 0.0
    grid = theta.reshape(2, 2)
    for (s_a, s_b), count in zip(CELLS.state.tolist(), CELLS.count, strict=True):
        lik = sum(grid[a, b] * factor(s_a, a) * factor(s_b, b) for a in (0, 1) for b in (0, 1))
        if by_class:
            allowed = [
                (a, b)
                for a, b in itertools.product((0, 1), repeat=2)
                if (s_a < 3 or (s_a - 3) // 2 == a) and (s_b < 3 or (s_b - 3) // 2 == b)
            ]
            lik /= sum(grid[a, b] for a, b in allowed)
        total += count * np.log(lik)
    return total


@pytest.mark.parametrize("calibration", ["by_class", "random"])
def test_two_system_loglik_matches_enumeration(calibration):
    model = two_system_model(CELLS, calibration=calibration)
    loglik = _fn(model, "loglik", ["joint", "logit_se", "logit_fpr_ratio"])
    rng = np.random.default_rng(0)
    for _ in range(5):
        theta = rng.dirichlet(np.ones(4))
        se, ratio = rng.uniform(0.5, 0.99), rng.uniform(0.05, 0.6)
        expected = _brute_two_system(theta, se, se * ratio, calibration == "by_class")
        ours = loglik(theta, special.logit(se), special.logit(ratio))
        assert ours == pytest.approx(expected, rel=1e-12)


def test_two_system_perfect_judge_limit_is_the_multinomial():
    """With Se = Sp = 1 the loglik is sum_c n_c log theta_c: the Dirichlet posterior."""
    cells = Patterns(
        ("a", "b"), np.array([[1, 1], [1, 2], [2, 1], [2, 2]], np.int8), np.array([31, 9, 4, 56])
    )
    model = two_system_model(cells)
    loglik = _fn(model, "loglik", ["joint", "logit_se", "logit_fpr_ratio"])
    counts = np.array([31, 9, 4, 56])
    rng = np.random.default_rng(1)
    for _ in range(5):
        theta = rng.dirichlet(np.ones(4))
        # 1 - Se = f = 1e-12: corrections of order n * 1e-12 / theta_min
        ours = loglik(theta, special.logit(1 - 1e-12), special.logit(1e-12))
        assert ours == pytest.approx(counts @ np.log(theta), abs=1e-8)


def test_fully_labelled_items_inform_only_the_judge_by_class():
    cells = Patterns(("a", "b"), np.array([[6, 3], [5, 4], [6, 6]], np.int8), np.array([9, 2, 4]))
    model = two_system_model(cells, calibration="by_class")
    loglik = _fn(model, "loglik", ["joint", "logit_se", "logit_fpr_ratio"])
    point = (special.logit(0.9), special.logit(0.2))
    first = loglik(np.array([0.1, 0.2, 0.3, 0.4]), *point)
    assert loglik(np.array([0.4, 0.3, 0.2, 0.1]), *point) == pytest.approx(first, rel=1e-12)
    se, fpr = 0.9, 0.18
    # gold pass judged pass x (9 + 8), gold fail judged fail x 9, gold pass judged fail x 2,
    # gold fail judged pass x 2
    expected = 17 * np.log(se) + 9 * np.log(1 - fpr) + 2 * np.log(1 - se) + 2 * np.log(fpr)
    assert first == pytest.approx(expected, rel=1e-12)


def test_shared_judge_prior_is_the_restricted_beta_product():
    """The potential is the Beta x Beta density of (Se, Sp) on J > 0, in logit coordinates.

    In (Se, r), f = r Se, the target is p_Se(Se) p_Sp(1 - r Se) Se (Jacobian Se of the map
    onto {f < Se}); on the logit scales of Se and r add log Se(1 - Se) + log r(1 - r). The
    potential must equal that up to the Beta normalising constants, at every point.
    """
    priors = SystemsPriors(se=Beta(8, 2), sp=Beta(3, 1.5))
    model = two_system_model(CELLS, priors=priors)
    judge_prior = _fn(model, "judge_prior", ["logit_se", "logit_fpr_ratio"])
    constant = special.betaln(8, 2) + special.betaln(3, 1.5)
    for se, ratio in [(0.9, 0.1), (0.6, 0.7), (0.3, 0.5), (1 - 1e-9, 1e-9)]:
        target = (
            stats.beta.logpdf(se, 8, 2)
            + stats.beta.logpdf(1 - ratio * se, 3, 1.5)
            + np.log(se)
            + np.log(se * (1 - se))
            + np.log(ratio * (1 - ratio))
        )
        ours = judge_prior(special.logit(se), special.logit(ratio))
        assert ours - constant == pytest.approx(target, abs=1e-6)
    # and the map (Se, r) -> (Se, 1 - r Se) carries p_Se(Se) p_Sp(1 - r Se) Se onto {J > 0}
    # with total mass P(J > 0) under Beta(8, 2) x Beta(3, 1.5): the product conditioned on J > 0
    mass, _ = integrate.dblquad(
        lambda r, s: stats.beta.pdf(s, 8, 2) * stats.beta.pdf(1 - r * s, 3, 1.5) * s,
        0,
        1,
        0,
        1,
        epsabs=1e-11,
    )
    p_j, _ = integrate.quad(
        lambda s: stats.beta.pdf(s, 8, 2) * stats.beta.sf(1 - s, 3, 1.5), 0, 1, epsabs=1e-12
    )
    assert mass == pytest.approx(p_j, abs=1e-9)


def test_shared_judge_prior_stays_finite_at_the_edges():
    model = two_system_model(CELLS)
    judge_prior = _fn(model, "judge_prior", ["logit_se", "logit_fpr_ratio"])
    for a, b in [(60.0, -60.0), (-60.0, 60.0), (40.0, 40.0), (0.0, -700.0)]:
        assert np.isfinite(judge_prior(a, b))


def test_system_judge_restriction_draws_the_truncated_bivariate_normal():
    """Given the hyper-parameters, logit Se + logit Sp is N(mu, tau^2) truncated to (0, inf)."""
    model = two_system_model(CELLS, judge="system", pooling="partial")
    fixed = {"mu_se": 0.4, "mu_sp": -0.9, "sigma_se": 0.8, "sigma_sp": 1.1}
    given = pm.do(model, fixed)
    se, sp = pm.draw([given["se"], given["sp"]], draws=4_000, random_seed=3, mode="FAST_COMPILE")
    t = (special.logit(se) + special.logit(sp)).ravel()
    assert t.min() > 0
    mu, tau = fixed["mu_se"] + fixed["mu_sp"], np.hypot(fixed["sigma_se"], fixed["sigma_sp"])
    truncated = stats.truncnorm((0 - mu) / tau, np.inf, loc=mu, scale=tau)
    # 8,000 seeded draws: the KS statistic of an exact sampler is below 0.018 with
    # probability 0.99; dropping the truncation (or truncating the wrong side) gives over 0.3
    assert stats.ks_1samp(t, truncated.cdf).statistic < 0.018
    logit_se = special.logit(se).ravel()
    # conditional mean of logit Se given t
    slope = fixed["sigma_se"] ** 2 / tau**2
    residual = logit_se - (fixed["mu_se"] + slope * (t - mu))
    # the residual is N(0, (sigma_se sigma_sp / tau)^2 = 0.42): its mean has sd 0.007
    assert abs(residual.mean()) < 0.03
    assert residual.std() == pytest.approx(fixed["sigma_se"] * fixed["sigma_sp"] / tau, rel=0.04)


def _brute_irt_item(states, ability, sd, se, fpr, by_class) -> float:
    def integrand(z: float, labels_only: bool) -> float:
        value = stats.norm.pdf(z)
        for s, state in enumerate(states):
            p = special.expit(ability[s] - sd * z)
            if state == 0:
                continue
            if state in (1, 2):
                if labels_only:
                    continue
                pass_prob = p * se[s] + (1 - p) * fpr[s]
                value *= pass_prob if state == 2 else 1 - pass_prob
                continue
            gold, verdict = divmod(state - 3, 2)
            value *= p if gold else 1 - p
            if not labels_only:
                emit = se[s] if gold else fpr[s]
                value *= emit if verdict else 1 - emit
        return value

    lik = integrate.quad(integrand, -12, 12, args=(False,), epsabs=1e-14, limit=200)[0]
    if by_class:
        lik /= integrate.quad(integrand, -12, 12, args=(True,), epsabs=1e-14, limit=200)[0]
    return float(np.log(lik))


@pytest.mark.parametrize("calibration", ["by_class", "random"])
def test_irt_loglik_matches_adaptive_quadrature(calibration):
    sim = simulate_systems(
        [0.5, 0.7, 0.6],
        n_unlabelled=60,
        n_labelled=20,
        se=0.9,
        sp=0.8,
        labelled_systems=["A", "B"],
        random_seed=2,
    )
    cells = SystemsData.from_frame(sim.frame).patterns()
    model = irt_model(cells, judge="system", restrict_j=False, calibration=calibration)
    inputs = ["ability", "difficulty_sd", "mu_se", "mu_sp", "sigma_se", "sigma_sp", "se_z", "sp_z"]
    loglik = _fn(model, "loglik", inputs)
    ability, sd = np.array([0.2, 1.1, -0.4]), 1.0
    se_z, sp_z = np.array([0.3, -0.5, 1.0]), np.array([-0.2, 0.4, 0.1])
    se = special.expit(2.0 + 0.5 * se_z)
    fpr = special.expit(-(1.5 + 0.4 * sp_z))
    expected = sum(
        count * _brute_irt_item(row, ability, sd, se, fpr, calibration == "by_class")
        for row, count in zip(cells.state.tolist(), cells.count, strict=True)
    )
    ours = loglik(ability, sd, 2.0, 1.5, 0.5, 0.4, se_z, sp_z)
    # 32 Gauss-Hermite nodes at sd = 1: per-item error about 1e-13 (bayesjudge.systems.irt)
    assert ours == pytest.approx(expected, rel=1e-10)


def test_irt_pi_is_the_population_rate():
    cells = Patterns(("a", "b"), np.array([[1, 2]], np.int8), np.array([3]))
    model = irt_model(cells)
    pi = _fn(model, "pi", ["ability", "difficulty_sd"])
    ability = np.array([0.3, -1.2])
    expected = [
        integrate.quad(lambda x, a=a: special.expit(a - 0.7 * x) * stats.norm.pdf(x), -12, 12)[0]
        for a in ability
    ]
    np.testing.assert_allclose(pi(ability, 0.7), expected, atol=1e-12)


def test_systems_model_random_calibration_adds_the_label_term():
    counts = SystemCounts(
        ("a", "b"), *(np.array(v) for v in ([5, 2], [4, 2], [5, 1], [1, 0], [30, 40], [20, 30]))
    )
    model = systems_model(counts, calibration="random")
    term = _fn(model, "calibration_labels", ["pi"])
    pi = np.array([0.3, 0.8])
    assert term(pi) == pytest.approx(
        5 * np.log(0.3) + 5 * np.log(0.7) + 2 * np.log(0.8) + np.log(0.2), rel=1e-12
    )


@pytest.mark.parametrize("pooling", ["partial", "none"])
@pytest.mark.parametrize("builder", ["two", "irt", "systems"])
def test_initial_point_has_finite_log_density(builder, pooling):
    judge = "system"  # the shared judge is exercised by the real fits
    sim = simulate_systems(
        [0.5, 0.7], n_unlabelled=40, n_labelled=10, se=0.9, sp=0.8, random_seed=1
    )
    data = SystemsData.from_frame(sim.frame)
    if builder == "two":
        model = two_system_model(data.patterns(), judge=judge, pooling=pooling)
    elif builder == "irt":
        model = irt_model(data.patterns(), judge=judge, pooling=pooling)
    else:
        model = systems_model(data.system_counts(), judge=judge, pooling=pooling)
    logps = model.point_logps()
    assert all(np.isfinite(v) for v in logps.values()), logps


def test_unpooled_unpaired_model_is_one_prevalence_model_per_system():
    """With no pooling the unpaired model factorises into the prevalence model of each system.

    Its log density, at any point of its free coordinates, is the sum over systems of the
    restricted Beta prior of (Se, Sp) in logit coordinates (as the shared judge's, checked
    above), the Jeffreys prior of pi and the three binomial likelihoods of the six counts, up
    to one constant. That is what lets the prevalence family's exact posterior check it.
    """
    counts = SystemCounts(
        ("a", "b"),
        *(np.array(v) for v in ([40, 25], [35, 22], [30, 45], [4, 11], [300, 280], [190, 170])),
    )
    model = systems_model(counts, judge="system", pooling="none")
    logp = model.compile_logp(jacobian=True)
    rng = np.random.default_rng(5)
    gaps = []
    for _ in range(6):
        a, b, t = rng.normal(0, 1.5, (3, 2))
        se, ratio, pi = special.expit(a), special.expit(b), special.expit(t)
        fpr = ratio * se
        ours = logp({"logit_se": a, "logit_fpr_ratio": b, "pi_logodds__": t})
        target = 0.0
        for s in range(2):
            target += (
                stats.beta.logpdf(se[s], 0.5, 0.5)
                + stats.beta.logpdf(1 - fpr[s], 0.5, 0.5)
                + np.log(se[s])  # the map (Se, r) -> (Se, f = r Se)
                + np.log(se[s] * (1 - se[s]) * ratio[s] * (1 - ratio[s]))
                + stats.beta.logpdf(pi[s], 0.5, 0.5)
                + np.log(pi[s] * (1 - pi[s]))
                + stats.binom.logpmf(counts.x1[s], counts.m1[s], se[s])
                + stats.binom.logpmf(counts.x0[s], counts.m0[s], fpr[s])
                + stats.binom.logpmf(counts.k[s], counts.n[s], pi[s] * se[s] + (1 - pi[s]) * fpr[s])
            )
        gaps.append(ours - target)
    assert np.ptp(gaps) < 1e-8, gaps
