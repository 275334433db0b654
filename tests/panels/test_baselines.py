"""Panel baselines: each judge alone, majority vote, and Dawid-Skene against crowd-kit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesjudge.panels.baselines import (
    RANDOM_SAMPLE_NOTE,
    dawid_skene,
    dawid_skene_em,
    judge_ppi_plus_plus,
    judge_rogan_gladen,
    majority_naive,
    majority_rogan_gladen,
    majority_verdicts,
    panel_baselines,
    panel_estimates,
)
from bayesjudge.panels.data import PanelData, PanelPatterns
from bayesjudge.panels.simulate import simulate_panel
from bayesjudge.prevalence import JudgeData, ppi_plus_plus, rogan_gladen
from bayesjudge.results import ROW_COLUMNS

SE = [0.9, 0.8, 0.85, 0.7]
SP = [0.75, 0.9, 0.8, 0.85]


def _panel(seed: int, *, loading: float = 0.0, missing: float = 0.0, n: int = 3000):
    return simulate_panel(
        pi=0.65,
        se=SE,
        sp=SP,
        loading=loading,
        n_unlabelled=n,
        n_gold=300,
        missing=missing,
        judges=["a", "b", "c", "d"],
        random_seed=seed,
    )


def test_each_judge_alone_is_the_one_judge_estimator_on_its_answers():
    sim = _panel(1, missing=[0.0, 0.2, 0.0, 0.0])
    data = sim.data
    answered = ~np.isnan(data.verdicts[:, 1])
    frame = pd.DataFrame(
        {
            "label": pd.array(data.labels[answered], dtype="Float64").astype("Int64"),
            "verdict": data.verdicts[answered, 1],
        }
    )
    one = JudgeData.from_frame(frame)
    rg = judge_rogan_gladen(data, "b")
    assert rg.estimate == pytest.approx(rogan_gladen(one).estimate, abs=1e-15)
    assert rg.interval == rogan_gladen(one).interval
    assert rg.notes[0] == f"judge 'b' alone, on the {answered.sum()} of 3300 items it answered"
    pp = judge_ppi_plus_plus(data, "b")
    assert pp.estimate == pytest.approx(ppi_plus_plus(one).estimate, abs=1e-15)
    assert pp.method == "ppi_plus_plus"


def test_majority_vote_then_rogan_gladen():
    votes = majority_verdicts(np.array([[1, 1, 0, 0], [1, 1, 1, 0], [np.nan, 1, np.nan, np.nan]]))
    np.testing.assert_array_equal(votes, [0.0, 1.0, 1.0])  # a 2-2 tie is FAIL
    data = PanelData.from_arrays(
        [[1, 1, 0], [1, 0, 1], [0, 0, 1], [0, 1, 0], [1, 1, 1], [0, 0, 0], [1, 0, np.nan]],
        labels=[1, 1, 0, 0, np.nan, np.nan, np.nan],
    )
    est = majority_rogan_gladen(data)
    # majority verdicts: gold PASS 1, 1; gold FAIL 0, 0; test 1, 0, 0 (the 1-1 tie fails)
    assert est.method == "majority_rogan_gladen"
    assert est.estimate == pytest.approx(1 / 3)
    assert est.j == pytest.approx(1.0)


@pytest.mark.filterwarnings("ignore:The (inplace|copy) keyword")  # crowd-kit on pandas 3
def test_dawid_skene_matches_crowd_kit():
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    sim = _panel(2, loading=0.3, missing=[0.1, 0.0, 0.3, 0.0], n=1500)
    data = sim.data
    unlabelled = np.isnan(data.labels)
    rows = [
        {"task": i, "worker": judge, "label": int(data.verdicts[i, t])}
        for i in np.flatnonzero(unlabelled)
        for t, judge in enumerate(data.judges)
        if not np.isnan(data.verdicts[i, t])
    ]
    reference = crowdkit.DawidSkene(n_iter=10_000, tol=1e-13).fit(pd.DataFrame(rows))
    ours = dawid_skene(data)
    fit = dawid_skene_em(
        PanelPatterns(
            data.judges,
            *(
                getattr(data.patterns(), f)[data.patterns().label == -1]
                for f in ("label", "verdict", "count")
            ),
        )
    )
    # the same EM fixed point (start, updates and clipping alike); crowd-kit stops on its
    # evidence bound changing by < 1e-13 per item, which leaves it within ~1e-7 of the point
    assert ours.estimate == pytest.approx(float(reference.priors_[1]), abs=1e-6)
    errors = reference.errors_
    for t, judge in enumerate(data.judges):
        assert fit.se[t] == pytest.approx(errors.loc[(judge, 1), 1], abs=1e-6)
        assert fit.sp[t] == pytest.approx(errors.loc[(judge, 0), 0], abs=1e-6)
    assert fit.converged
    assert not fit.flipped


def test_dawid_skene_recovers_pi_from_independent_judges_and_is_biased_by_copies():
    independent = _panel(3, n=20_000)
    assert dawid_skene(independent.data).estimate == pytest.approx(independent.sample_pi, abs=0.015)
    # two strongly correlated judges pull the unsupervised estimate away from the truth
    copies = simulate_panel(
        pi=0.65,
        se=SE,
        sp=SP,
        loading=[0.95, 0.95, 0.0, 0.0],
        n_unlabelled=20_000,
        n_gold=300,
        random_seed=3,
    )
    # (seeds 0-3 give errors -0.029 to -0.035 with the copies, |error| < 0.006 without)
    assert dawid_skene(copies.data).estimate < copies.sample_pi - 0.02


def test_dawid_skene_needs_three_judges_and_unlabelled_items():
    two = PanelData.from_arrays([[1, 1], [0, 1]], labels=[np.nan, np.nan])
    assert dawid_skene(two).estimate is None
    assert "at least three judges" in dawid_skene(two).notes[0]
    gold = PanelData.from_arrays([[1, 1, 0], [0, 1, 0]], labels=[1, 0])
    assert "no unlabelled items" in dawid_skene(gold).notes[0]


def test_majority_naive_is_the_unlabelled_majority_share():
    sim = _panel(3, missing=0.2, n=600)
    votes = majority_verdicts(sim.data.verdicts)
    test = np.isnan(sim.data.labels) & ~np.isnan(votes)
    got = majority_naive(sim.data)
    assert got.estimate == pytest.approx(votes[test].mean())
    assert got.interval.kind == "wilson"
    assert got.interval.low < got.estimate < got.interval.high
    rows = panel_estimates(sim.data)
    assert rows[-3].to_dict()["rule"] == "majority"
    assert rows[0].to_dict()["judge"] == sim.data.judges[0]
    assert "rule" not in rows[0].to_dict()
    assert "judge" not in rows[-1].to_dict()


def test_panel_baselines_table():
    sim = _panel(4, missing=0.1, n=800)
    table = panel_baselines(sim.data)
    assert list(table.columns) == ["judge", "rule", *ROW_COLUMNS]
    assert table["judge"].iloc[:8].tolist() == ["a", "a", "b", "b", "c", "c", "d", "d"]
    assert table["judge"].iloc[8:].isna().all()
    assert table["rule"].iloc[:8].isna().all()
    assert table["rule"].iloc[8:].tolist() == ["majority", "majority", "dawid_skene"]
    assert table["method"].tolist()[-3:] == ["naive", "majority_rogan_gladen", "dawid_skene"]
    assert table["estimate"].notna().all()
    # a judge worse than chance on the gold items gives a row with the reason, not an error
    flipped = sim.data.verdicts.copy()
    flipped[:, 0] = 1.0 - flipped[:, 0]
    bad = PanelData.from_arrays(flipped, labels=sim.data.labels, judges=sim.data.judges)
    row = panel_baselines(bad).iloc[0]
    assert row["method"] == "rogan_gladen_delta"
    assert np.isnan(row["estimate"])
    assert "no better than chance" in row["note"]


@pytest.mark.parametrize("gold", ["random", "balanced"])
def test_rows_that_assume_a_random_gold_sample_say_so(gold):
    """Each judge's PPI++ row carries the note of rank's difference rows, whatever the gold set."""
    sim = simulate_panel(
        pi=0.3,
        se=[0.85, 0.8],
        sp=[0.8, 0.9],
        n_unlabelled=600,
        n_gold=120,
        gold=gold,
        random_seed=11,
    )
    for e in panel_estimates(sim.data):
        assumes = RANDOM_SAMPLE_NOTE in e.estimate.notes
        assert assumes == (e.estimate.method == "ppi_plus_plus"), (e.judge, e.estimate.method)
    assert RANDOM_SAMPLE_NOTE == "assumes the gold-labelled items are a random sample"
