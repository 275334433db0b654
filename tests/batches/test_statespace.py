"""Tests of the state-space model across batches (bayesjudge.batches.statespace).

Tiers: the model's log density against the formula written out with SciPy (no sampling); the
counts contract; short seeded fits: with the step sizes fixed at a large value each batch's
posterior matches the exact independent prevalence posterior to Monte Carlo error; recovery of
known drifting paths on one simulated dataset; a batch with few gold labels borrows from its
neighbours (narrower Se interval than its independent exact fit); the drift flag and the figure.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from bayesjudge import JudgeCounts
from bayesjudge.batches.statespace import (
    BATCH_COLUMNS,
    DriftFit,
    drift_figure,
    fit_drift,
    simulate_drift,
)
from bayesjudge.errors import DataError
from bayesjudge.prevalence.exact import exact_posterior
from bayesjudge.priors import Beta, PrevalencePriors

COUNTS = pd.DataFrame(
    {
        "batch": ["r1", "r2", "r3"],
        "m1": [20, 20, 20],
        "x1": [18, 17, 18],
        "m0": [20, 20, 20],
        "x0": [2, 3, 5],
        "n": [200, 200, 200],
        "k": [140, 150, 160],
    }
)

# The recovery dataset: pi drifts down, Sp drops at b5, Se holds (8 batches).
TRUE_PI = np.linspace(0.72, 0.6, 8)
TRUE_SE = np.full(8, 0.88)
TRUE_SP = np.r_[np.full(4, 0.93), np.full(4, 0.72)]


def _counts_dict(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    return {name: frame[name].to_numpy() for name in BATCH_COLUMNS[1:]}


# ---- model structure and log density (no sampling)


def test_model_dims_and_names() -> None:
    from bayesjudge.models.batches import batches_model

    model = batches_model(list(COUNTS["batch"]), _counts_dict(COUNTS))
    assert model.coords["batch"] == ("r1", "r2", "r3")
    assert model.coords["step"] == ("r2", "r3")
    assert {str(v) for v in model.free_RVs} == {
        "pi_initial_logit",
        "se_initial_logit",
        "sp_initial_logit",
        "pi_z",
        "se_z",
        "sp_z",
        "sigma_pi",
        "sigma_se",
        "sigma_sp",
    }
    for name in ("pi", "se", "sp", "j", "judged_rate"):
        assert model.named_vars_to_dims[name] == ("batch",)
    for name in ("pi_change", "se_change", "sp_change"):
        assert model.named_vars_to_dims[name] == ("step",)
    fixed = batches_model(list(COUNTS["batch"]), _counts_dict(COUNTS), fixed_steps=3.0)
    assert "pi_logit" in {str(v) for v in fixed.free_RVs}
    assert "sigma_pi" not in {str(v) for v in fixed.free_RVs}


def _logit_beta(u: np.ndarray, prior: Beta) -> float:
    p = special.expit(u)
    return float(stats.beta.logpdf(p, prior.alpha, prior.beta) + np.log(p * (1 - p)))


def _likelihood(frame: pd.DataFrame, pi: np.ndarray, se: np.ndarray, sp: np.ndarray) -> float:
    rate = pi * se + (1 - pi) * (1 - sp)
    return float(
        stats.binom.logpmf(frame["x1"], frame["m1"], se).sum()
        + stats.binom.logpmf(frame["x0"], frame["m0"], 1 - sp).sum()
        + stats.binom.logpmf(frame["k"], frame["n"], rate).sum()
    )


def test_model_log_density_matches_formula() -> None:
    """Non-centred walk: logit Beta start, half-normal steps, N(0, 1) innovations, binomials."""
    from bayesjudge.models.batches import batches_model

    priors = PrevalencePriors(pi=Beta(2.0, 3.0), se=Beta(0.5, 0.5), sp=Beta(4.0, 1.5))
    model = batches_model(list(COUNTS["batch"]), _counts_dict(COUNTS), priors=priors)
    rng = np.random.default_rng(4)
    point: dict[str, np.ndarray] = {}
    expected = 0.0
    paths = {}
    for name in ("pi", "se", "sp"):
        start = rng.normal()
        z = rng.normal(size=2)
        sigma = rng.uniform(0.1, 1.0)
        point[f"{name}_initial_logit"] = np.asarray(start)
        point[f"{name}_z"] = z
        point[f"sigma_{name}_log__"] = np.asarray(np.log(sigma))
        expected += _logit_beta(start, getattr(priors, name))
        expected += float(stats.norm.logpdf(z).sum())
        expected += float(stats.halfnorm.logpdf(sigma, scale=0.5))
        paths[name] = special.expit(np.r_[start, start + np.cumsum(sigma * z)])
    expected += _likelihood(COUNTS, paths["pi"], paths["se"], paths["sp"])
    logp = model.compile_logp(jacobian=False)(point)
    assert logp == pytest.approx(expected, rel=1e-10)


def test_fixed_step_model_log_density_matches_formula() -> None:
    """Centred walk with a fixed step: logit_t ~ N(logit_{t-1}, step^2)."""
    from bayesjudge.models.batches import batches_model

    model = batches_model(list(COUNTS["batch"]), _counts_dict(COUNTS), fixed_steps=2.5)
    rng = np.random.default_rng(5)
    point: dict[str, np.ndarray] = {}
    expected = 0.0
    paths = {}
    for name in ("pi", "se", "sp"):
        logits = rng.normal(size=3)
        point[f"{name}_initial_logit"] = np.asarray(logits[0])
        point[f"{name}_logit"] = logits[1:]
        expected += _logit_beta(logits[0], Beta(0.5, 0.5))
        expected += float(stats.norm.logpdf(logits[1:], loc=logits[:-1], scale=2.5).sum())
        paths[name] = special.expit(logits)
    expected += _likelihood(COUNTS, paths["pi"], paths["se"], paths["sp"])
    assert model.compile_logp(jacobian=False)(point) == pytest.approx(expected, rel=1e-8)


# ---- the counts contract


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f.drop(columns="k"), r"missing \['k'\]"),
        (lambda f: f.assign(date=1), r"does not read: \['date'\]"),
        (lambda f: f.iloc[:1], "at least two batches"),
        (lambda f: f.assign(batch=["r1", "r2", "r1"]), "'r1' is in row 0 and row 2"),
        (lambda f: f.assign(n=[200, -1, 200]), r"column 'n' .* row 1 \(batch 'r2'\) has -1"),
        (lambda f: f.assign(m1=[20, 20.5, 20]), r"column 'm1' .* row 1 \(batch 'r2'\) has 20.5"),
        (lambda f: f.assign(k=[140, None, 160]), r"column 'k' .* row 1"),
        (lambda f: f.assign(x1=[18, 17, 21]), r"row 2 \(batch 'r3'\) has x1=21 > m1=20"),
        (lambda f: f.assign(m0=0, x0=0), "column 'm0' is 0 in every batch"),
        (
            lambda f: f.assign(batch=["r1", None, "r3"]),
            "column 'batch' is missing a value in row 1",
        ),
    ],
)
def test_bad_counts_name_column_and_row(change, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DataError, match=message):
        fit_drift(change(COUNTS.copy()))


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="fixed_steps"):
        fit_drift(COUNTS, fixed_steps=-1.0)
    with pytest.raises(ValueError, match="step_scale"):
        fit_drift(COUNTS, step_scale=0.0)
    with pytest.raises(ValueError, match="drift_size"):
        fit_drift(COUNTS, drift_size=1.5)
    with pytest.raises(TypeError, match="DataFrame"):
        fit_drift(COUNTS.to_dict())  # type: ignore[arg-type]


def test_simulate_drift_shapes_and_seed() -> None:
    frame = simulate_drift(
        TRUE_PI, TRUE_SE, TRUE_SP, labelled=50, unlabelled=[300] * 8, random_seed=1
    )
    assert list(frame.columns) == list(BATCH_COLUMNS)
    assert (frame["m1"] + frame["m0"] == 50).all()
    assert (frame["n"] == 300).all()
    assert frame.equals(
        simulate_drift(TRUE_PI, TRUE_SE, TRUE_SP, labelled=50, unlabelled=300, random_seed=1)
    )
    with pytest.raises(ValueError, match="one value per batch"):
        simulate_drift([0.5, 0.5], [0.9, 0.9, 0.9], [0.9, 0.9])


# ---- fits


def _exact_moments(row: pd.Series, alpha: float) -> pd.DataFrame:
    counts = JudgeCounts(**{name: int(row[name]) for name in BATCH_COLUMNS[1:]})
    priors = PrevalencePriors(pi=Beta(alpha, alpha), se=Beta(alpha, alpha), sp=Beta(alpha, alpha))
    return exact_posterior(counts, priors=priors, restrict_j=False).summary()


def test_large_fixed_steps_reduce_to_independent_exact_fits() -> None:
    """With steps fixed at 100 every batch is its own prevalence fit (to Monte Carlo error).

    The first batch keeps the Jeffreys prior; every later batch has a flat prior on its logits
    (the walk's N(previous, 100^2) is flat to 1e-4 over the posterior), the Beta(a, a) prior
    as a -> 0. The exact reference for those is extrapolated to a = 0 from a = 0.2 and 0.1
    (error O(a^2)); its change when extrapolated from a = 0.4 and 0.2 instead (a larger error
    than the reference's) is added to the tolerance. The exact posterior refuses shapes below
    0.1 (``MIN_PI_SHAPE``). Tolerance: 4 Monte Carlo standard errors of the posterior mean.
    """
    import arviz_stats as azs

    frame = simulate_drift(
        [0.6, 0.45, 0.7, 0.55],
        [0.9, 0.85, 0.9, 0.88],
        [0.85, 0.9, 0.88, 0.92],
        labelled=150,
        unlabelled=500,
        random_seed=5,
    )
    fit = fit_drift(frame, fixed_steps=100.0, random_seed=3, progressbar=False)
    assert fit.passed
    posterior = fit.tree["posterior"]
    for position, row in frame.iterrows():
        if position == 0:
            reference, slack = _exact_moments(row, 0.5), 0.0 * _exact_moments(row, 0.5)
        else:
            d, a, b = (_exact_moments(row, alpha) for alpha in (0.4, 0.2, 0.1))
            reference = 2 * b - a
            slack = (reference - (2 * a - d)).abs()
        for name in ("pi", "se", "sp"):
            draws = posterior[name].isel(batch=position)
            mcse = float(azs.mcse(draws).values)
            error = abs(float(draws.mean()) - reference.loc[name, "mean"])
            assert error <= 4 * mcse + slack.loc[name, "mean"], (position, name, error, mcse)
            # the posterior sd agrees to within 5% (its Monte Carlo error is about 2% here)
            assert float(draws.std()) == pytest.approx(reference.loc[name, "sd"], rel=0.05)


@pytest.fixture(scope="module")
def drifting() -> tuple[pd.DataFrame, DriftFit]:
    frame = simulate_drift(TRUE_PI, TRUE_SE, TRUE_SP, labelled=150, unlabelled=600, random_seed=11)
    return frame, fit_drift(frame, random_seed=2, progressbar=False)


def test_recovers_drifting_paths(drifting) -> None:  # type: ignore[no-untyped-def]
    """95% intervals of pi_t, Se_t, Sp_t cover the true paths (one seeded dataset)."""
    _, fit = drifting
    assert fit.passed
    table = fit.to_frame()
    covered = 0
    for name, truth in (("pi", TRUE_PI), ("se", TRUE_SE), ("sp", TRUE_SP)):
        inside = (table[f"{name}_low"] <= truth) & (truth <= table[f"{name}_high"])
        covered += int(inside.sum())
    # 24 intervals at 95%: 21 or more are covered with probability about 0.97 if independent
    assert covered >= 21, table
    assert "b5" in fit.drifted
    assert fit.drift_probability()["b5"] > fit.drift_probability().drop("b5").max()


def test_outputs_are_consistent(drifting) -> None:  # type: ignore[no-untyped-def]
    frame, fit = drifting
    table = fit.to_frame()
    assert list(table.index) == list(frame["batch"])
    np.testing.assert_allclose(table["naive"], frame["k"] / frame["n"])
    assert table["pi_change"].isna().iloc[0]
    assert table["drift"].isna().iloc[0]
    np.testing.assert_allclose(
        table["pi_change"].iloc[1:].to_numpy(),
        (table["pi"].diff().iloc[1:]).to_numpy(),
        atol=1e-12,
    )
    payload = fit.to_dict()
    assert json.loads(json.dumps(payload))["drifted"] == list(fit.drifted)
    assert payload["passed"] is True
    assert len(payload["batches"]) == 8
    assert set(fit.steps().index) == {"sigma_pi", "sigma_se", "sigma_sp"}
    figure = drift_figure(fit, title="drift")
    assert figure.axes[1].get_xlabel() == "batch"
    assert [t.get_text() for t in figure.axes[1].get_xticklabels()] == list(frame["batch"])


def test_the_predictive_check_is_one_test_per_kind_of_count(drifting) -> None:  # type: ignore[no-untyped-def]
    """The family check replaces the per-count checks; the replicated counts stay in the tree."""
    _, fit = drifting
    block = json.loads(fit.tree.attrs["predictive_check"])
    assert [t["family"] for t in block["tests"]] == ["gold_pass", "gold_fail", "judged"]
    assert block["passed"] is True
    assert block["threshold"] == pytest.approx(0.05 / 3)
    assert len(block["statistics"]) == 3 * 8
    predictive = [c for c in fit.diagnostics.checks if c.name == "ppc_tail_prob"]
    assert [c.variable.split(";")[0] for c in predictive] == ["gold_pass", "gold_fail", "judged"]
    assert set(fit.tree["posterior_predictive"].data_vars) == {"x1", "x0", "k"}
    assert fit.tree["posterior_predictive"]["k"].sizes["batch"] == 8


def test_drift_since_the_first_batch(drifting) -> None:  # type: ignore[no-untyped-def]
    """Sp falls from 0.93 to 0.72 at b5: b5 to b8 differ from b1, b2 to b4 do not."""
    _, fit = drifting
    since = fit.drift_probability("first")
    assert list(since.index) == [f"b{t}" for t in range(2, 9)]
    assert fit.drifted_since_first == ("b5", "b6", "b7", "b8")
    # the probability from the draws, written out
    sp = fit.tree["posterior"]["sp"].stack(sample=("chain", "draw")).to_numpy()
    se = fit.tree["posterior"]["se"].stack(sample=("chain", "draw")).to_numpy()
    moved = (np.abs(sp[6] - sp[0]) > 0.05) | (np.abs(se[6] - se[0]) > 0.05)
    assert since["b7"] == pytest.approx(moved.mean())
    table = fit.to_frame()
    assert table["drift_since_first"].isna().iloc[0]
    assert table["drifted_since_first"].tolist() == [False] * 4 + [True] * 4
    assert fit.to_dict()["drifted_since_first"] == ["b5", "b6", "b7", "b8"]
    warning = [w for w in fit.summary().warnings if "first batch" in w.title]
    assert len(warning) == 1
    assert warning[0].evidence.endswith("at b5, b6, b7, b8")
    with pytest.raises(ValueError, match="since"):
        fit.drift_probability("last")  # type: ignore[arg-type]


def test_batch_with_few_labels_borrows_from_neighbours() -> None:
    """A batch with 6 gold labels gets a narrower Se interval than its independent exact fit."""
    frame = simulate_drift(
        np.full(8, 0.65),
        np.full(8, 0.88),
        np.full(8, 0.9),
        labelled=[100, 100, 100, 100, 6, 100, 100, 100],
        unlabelled=500,
        random_seed=7,
    )
    fit = fit_drift(frame, random_seed=4, progressbar=False)
    assert fit.passed
    table = fit.to_frame()
    row = frame.iloc[4]
    exact = exact_posterior(JudgeCounts(**{name: int(row[name]) for name in BATCH_COLUMNS[1:]}))
    independent = exact.marginal("se").eti(0.95)
    pooled = table.loc["b5", "se_high"] - table.loc["b5", "se_low"]
    assert pooled < 0.6 * (independent.high - independent.low)


# ---- sizes as data: padded batches change nothing before them


@pytest.mark.parametrize("fixed", [None, 2.5], ids=["learned", "fixed"])
def test_padded_batches_add_only_prior_terms(fixed) -> None:  # type: ignore[no-untyped-def]
    """Padded to 5 batches, the log density is the unpadded one plus standard normal terms of
    the padded scores, and the observed batches' rates are the same."""
    from bayesjudge.models.batches import batches_model

    names, counts = list(COUNTS["batch"]), _counts_dict(COUNTS)
    plain = batches_model(names, counts, fixed_steps=fixed)
    padded = batches_model(names, counts, fixed_steps=fixed, pad_to=5)
    assert padded.coords["batch"][:3] == ("r1", "r2", "r3")
    assert len(padded.coords["batch"]) == 5
    rng = np.random.default_rng(7)
    point = plain.initial_point()
    point = {k: rng.normal(size=np.shape(v)) for k, v in point.items()}
    extra = {
        k: rng.normal(size=2) for k in point if k.endswith(("_z", "_logit")) and "init" not in k
    }
    wide = {k: np.concatenate([v, extra[k]]) if k in extra else v for k, v in point.items()}
    prior = sum(float(stats.norm.logpdf(v).sum()) for v in extra.values())
    assert padded.compile_logp()(wide) == pytest.approx(
        plain.compile_logp()(point) + prior, rel=1e-12
    )
    rates = ["pi", "se", "sp", "judged_rate"]
    short = _at(plain, rates, point)
    long = _at(padded, rates, wide)
    for a, b in zip(short, long, strict=True):
        np.testing.assert_allclose(b[:3], a, rtol=1e-14)


def test_padding_shorter_than_the_batches_is_refused() -> None:
    from bayesjudge.models.batches import batches_model, model_data

    with pytest.raises(ValueError, match="pad_to must be a whole number of at least 3"):
        batches_model(list(COUNTS["batch"]), _counts_dict(COUNTS), pad_to=2)
    assert model_data(_counts_dict(COUNTS), pad_to=8)["k_obs"].tolist() == [140, 150, 160] + [0] * 5


def _at(model, names, point):  # type: ignore[no-untyped-def]
    """Return the values of the variables ``names`` of ``model`` at a point of its values."""
    outputs = model.replace_rvs_by_values([model[n] for n in names])
    return model.compile_fn(outputs, inputs=model.value_vars, on_unused_input="ignore")(point)
