"""The panel's posterior predictive check: patterns per group, judges' gold rates, the rule.

The fast tests put the posterior at a point (the truth, or a wrong model) so that nothing is
sampled; the tests marked slow fit the model (a few minutes on a loaded machine).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import xarray as xr
from scipy.stats import binom

from bayesjudge.panels.data import PanelData
from bayesjudge.panels.dependence import pattern_probabilities
from bayesjudge.panels.predictive import (
    INTERVAL_PROB,
    MAX_PATTERN_CELLS,
    MAX_PATTERN_JUDGES,
    PPC_LEVEL,
    panel_predictive_check,
)
from bayesjudge.panels.simulate import panel_scenario, simulate_panel


def point_posterior(pi, se, sp, loading, draws=400):
    """A posterior with every draw at the same parameters."""
    se, sp, loading = (np.asarray(x, dtype=float) for x in (se, sp, loading))
    return xr.Dataset(
        {
            "pi": (("chain", "draw"), np.full((1, draws), pi)),
            "se": (("chain", "draw", "judge"), np.broadcast_to(se, (1, draws, se.size))),
            "sp": (("chain", "draw", "judge"), np.broadcast_to(sp, (1, draws, sp.size))),
            "loading": (
                ("chain", "draw", "class", "judge"),
                np.broadcast_to(loading, (1, draws, *loading.shape)),
            ),
        }
    )


def listed_twice(n=1000, n_gold=100, pi=0.66, seed=0):
    """One judge (Se 0.9, Sp 0.75) whose verdicts are exported twice; the gold items first."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < pi
    a = np.where(y, rng.random(n) < 0.9, rng.random(n) < 0.25).astype(float)
    labels = np.full(n, np.nan)
    labels[:n_gold] = y[:n_gold]
    return PanelData.from_arrays(np.column_stack([a, a]), labels=labels, judges=["a", "a_copy"])


@pytest.fixture(scope="module")
def model_panel():
    return simulate_panel(
        pi=0.39, **panel_scenario(3), n_unlabelled=1800, n_gold=200, random_seed=5
    )


def test_every_pattern_of_every_group_and_each_judges_gold_rates(model_panel):
    truth = model_panel.truth
    check = panel_predictive_check(
        point_posterior(truth.pi, truth.se, truth.sp, truth.loading),
        model_panel.data.patterns(),
        random_seed=0,
    )
    patterns = [s for s in check.statistics if s.kind == "pattern"]
    assert {s.group for s in patterns} == {"fail", "pass", "unlabelled"}
    for group in ("fail", "pass", "unlabelled"):
        rows = [s for s in patterns if s.group == group]
        assert len(rows) == 2**3  # never-observed patterns included
        assert sum(s.observed for s in rows) == rows[0].trials
        assert sum(s.expected for s in rows) == pytest.approx(rows[0].trials, rel=1e-6)
    rates = [s for s in check.statistics if s.kind == "gold_rate"]
    assert sorted((s.group, s.subject) for s in rates) == sorted(
        (g, j) for g in ("fail", "pass") for j in ("a", "a_copy", "b")
    )
    assert [t.family for t in check.tests] == [
        "patterns[fail]",
        "patterns[pass]",
        "patterns[unlabelled]",
        "gold_rates",
    ]
    assert check.threshold == pytest.approx(PPC_LEVEL / 4)


def test_tail_probability_and_interval_of_a_point_posterior_are_the_binomials(model_panel):
    truth = model_panel.truth
    check = panel_predictive_check(
        point_posterior(truth.pi, truth.se, truth.sp, truth.loading),
        model_panel.data.patterns(),
        random_seed=0,
    )
    for s in check.statistics:
        if s.kind != "gold_rate":
            continue
        p = truth.se[list(truth.judges).index(s.subject)]
        p = p if s.group == "pass" else 1.0 - truth.sp[list(truth.judges).index(s.subject)]
        exact = min(
            1.0, 2 * min(binom.cdf(s.observed, s.trials, p), binom.sf(s.observed - 1, s.trials, p))
        )
        assert s.tail_prob == pytest.approx(exact, rel=1e-9)
        tail = (1 - INTERVAL_PROB) / 2
        assert s.low == binom.ppf(tail, s.trials, p)
        assert s.high == binom.ppf(1 - tail, s.trials, p)


def test_passes_on_data_from_the_model_at_the_truth(model_panel):
    truth = model_panel.truth
    check = panel_predictive_check(
        point_posterior(truth.pi, truth.se, truth.sp, truth.loading),
        model_panel.data.patterns(),
        random_seed=0,
    )
    assert check.passed, check.to_dict()["failures"]
    assert all(c.passed for c in check.checks())
    assert min(t.tail_prob for t in check.tests) > 0.05


def test_fails_on_a_judge_listed_twice_read_as_two_independent_judges():
    data = listed_twice()
    check = panel_predictive_check(
        point_posterior(0.66, [0.9, 0.9], [0.75, 0.75], np.zeros((2, 2))),
        data.patterns(),
        random_seed=0,
    )
    assert not check.passed
    failed = {t.family for t in check.failures}
    assert "patterns[unlabelled]" in failed
    unlabelled = next(t for t in check.failures if t.family == "patterns[unlabelled]")
    assert "a=FAIL a_copy=PASS" in unlabelled.worst or "a=PASS a_copy=FAIL" in unlabelled.worst
    checks = {c.variable: c for c in check.checks()}
    assert not checks[unlabelled.label].passed
    assert checks[unlabelled.label].name == "ppc_tail_prob"
    text = " ".join(check.to_dict()["failures"])
    assert "observed 0 of 900" in text  # the discordant items that never occur, named


def test_missing_verdicts_and_panels_too_large_to_enumerate():
    n_judges = MAX_PATTERN_JUDGES + 1
    sim = simulate_panel(
        pi=0.5,
        se=np.full(n_judges, 0.85),
        sp=np.full(n_judges, 0.8),
        n_unlabelled=400,
        n_gold=100,
        missing=np.r_[np.zeros(n_judges - 1), 0.5],
        random_seed=2,
    )
    truth = sim.truth
    check = panel_predictive_check(
        point_posterior(truth.pi, truth.se, truth.sp, truth.loading, draws=50),
        sim.data.patterns(),
        random_seed=0,
    )
    unlabelled = [s for s in check.statistics if s.kind == "pattern" and s.group == "unlabelled"]
    # nine answering judges: the number of PASS verdicts, 0 to 9
    counted = [s for s in unlabelled if " PASS among " in s.subject]
    assert [s.subject.split(" of ")[0] for s in counted] == [str(m) for m in range(10)]
    assert sum(s.observed for s in counted) == counted[0].trials
    # eight answering judges (the last one missing): all 2^8 patterns, with '-' for the ninth
    eight = [s for s in unlabelled if s.subject.endswith(f"judge_{n_judges - 1}=-")]
    assert len(eight) == 2**MAX_PATTERN_JUDGES
    for block in (eight, counted):
        assert sum(s.expected for s in block) == pytest.approx(block[0].trials, rel=1e-6)
    # the count distribution agrees with the sum of the 2^9 pattern probabilities
    full = np.array(list(itertools.product((1, 0), repeat=n_judges)), dtype=np.int8)
    prob = pattern_probabilities(truth.se, truth.sp, truth.loading, full)
    mixed = truth.pi * prob[1] + (1 - truth.pi) * prob[0]
    by_count = np.bincount(full.sum(axis=1), weights=mixed, minlength=n_judges + 1)
    expected = np.array([s.expected for s in counted]) / counted[0].trials
    np.testing.assert_allclose(expected, by_count, rtol=1e-8, atol=1e-12)
    assert check.passed


def test_bad_level_is_refused(model_panel):
    truth = model_panel.truth
    with pytest.raises(ValueError, match="level must lie in"):
        panel_predictive_check(
            point_posterior(truth.pi, truth.se, truth.sp, truth.loading),
            model_panel.data.patterns(),
            level=1.5,
        )


#: Short runs whose sampler checks may fail: these tests read the predictive check only.
SHORT_RUN = "ignore::bayesjudge.errors.FitWarning"
SMALL = {"draws": 300, "tune": 300, "chains": 2, "escalate": False, "progressbar": False}


@pytest.mark.slow
@pytest.mark.filterwarnings(SHORT_RUN)
def test_a_fit_to_data_from_the_model_passes_its_check(model_panel):
    import json

    from bayesjudge.inference.fit import diagnostics_of
    from bayesjudge.panels.fit import fit_panel

    tree = fit_panel(model_panel.data, random_seed=3, **SMALL)
    check = json.loads(tree.attrs["predictive_check"])
    assert check["passed"], check["failures"]
    labels = [c.variable for c in diagnostics_of(tree).checks if c.name == "ppc_tail_prob"]
    assert any(label.startswith("patterns[unlabelled]") for label in labels)


@pytest.mark.slow
@pytest.mark.filterwarnings(SHORT_RUN)
def test_a_fit_to_a_judge_listed_twice_fails_its_check_before_the_merge():
    import json

    from bayesjudge.inference.fit import diagnostics_of
    from bayesjudge.panels.fit import fit_panel

    with pytest.warns(UserWarning, match="merge_duplicates=False"):
        tree = fit_panel(listed_twice(), random_seed=1, merge_duplicates=False, **SMALL)
    check = json.loads(tree.attrs["predictive_check"])
    assert not check["passed"]
    failed = [c.variable for c in diagnostics_of(tree).failures if c.name == "ppc_tail_prob"]
    assert any(label.startswith("patterns[") for label in failed)
    assert any("a_copy" in text for text in check["failures"])


def test_many_sets_of_answering_judges_are_checked_through_their_pass_counts():
    """Verdicts missing at random over seven judges: too many pattern cells, so PASS counts."""
    sim = simulate_panel(
        pi=0.5,
        se=np.full(7, 0.85),
        sp=np.full(7, 0.8),
        n_unlabelled=800,
        n_gold=100,
        missing=np.full(7, 0.4),
        random_seed=3,
    )
    truth = sim.truth
    check = panel_predictive_check(
        point_posterior(truth.pi, truth.se, truth.sp, truth.loading, draws=100),
        sim.data.patterns(),
        random_seed=0,
    )
    unlabelled = [s for s in check.statistics if s.kind == "pattern" and s.group == "unlabelled"]
    assert len(unlabelled) <= MAX_PATTERN_CELLS
    assert all(" PASS among " in s.subject for s in unlabelled)
    assert sum(s.observed for s in unlabelled) == 800 - int(
        np.all(np.isnan(sim.data.verdicts[np.isnan(sim.data.labels)]), axis=1).sum()
    )
    assert sum(s.expected for s in unlabelled) == pytest.approx(
        sum(s.observed for s in unlabelled), rel=1e-6
    )
    assert check.passed
