"""Judges that agree on every item: detected, merged with a warning, or refused with the fix."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from bayesjudge.errors import DataError
from bayesjudge.panels.data import PanelData
from bayesjudge.panels.fit import distinct_judges
from bayesjudge.panels.simulate import simulate_panel


def two_judges_and_a_copy(seed=4):
    """Judges a and b (independent), and a_copy exported from a's column."""
    sim = simulate_panel(
        pi=0.6,
        se=[0.9, 0.8],
        sp=[0.75, 0.85],
        n_unlabelled=500,
        n_gold=100,
        judges=["a", "b"],
        random_seed=seed,
    )
    v = sim.data.verdicts
    triple = PanelData.from_arrays(
        np.column_stack([v[:, 0], v[:, 0], v[:, 1]]),
        labels=sim.data.labels,
        judges=["a", "a_copy", "b"],
    )
    return sim.data, triple


def test_identical_columns_are_found_missing_verdicts_included():
    v = np.array([[1, 1, 1, 0], [0, 0, 0, 0], [np.nan, np.nan, 0, 1], [1, 1, 1, 1]])
    data = PanelData.from_arrays(v, judges=["a", "a2", "b", "c"])
    # b agrees with a wherever a answered, but answered where a did not: not a duplicate
    assert data.duplicate_judges() == (("a", "a2"),)
    assert data.merge_duplicates().judges == ("a", "b", "c")
    np.testing.assert_array_equal(data.merge_duplicates().verdicts, v[:, [0, 2, 3]])


def test_no_duplicates_leaves_the_data_alone():
    data = PanelData.from_arrays([[1, 0], [0, 1]], judges=["a", "b"])
    assert data.duplicate_judges() == ()
    assert data.merge_duplicates() is data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert distinct_judges(data) is data


def test_several_groups_keep_their_first_judge():
    v = np.array([[1, 0, 1, 0, 1], [0, 1, 0, 1, 1], [1, 1, 1, 1, 0]])
    data = PanelData.from_arrays(v, judges=["x", "y", "x2", "y2", "z"])
    assert data.duplicate_judges() == (("x", "x2"), ("y", "y2"))
    with pytest.warns(UserWarning, match=r"judges 'x' = 'x2'; 'y' = 'y2' gave the same verdict"):
        merged = distinct_judges(data)
    assert merged.judges == ("x", "y", "z")


def test_a_panel_of_one_judge_listed_twice_is_refused_with_the_fix():
    _, triple = two_judges_and_a_copy()
    twice = PanelData.from_arrays(
        triple.verdicts[:, :2], labels=triple.labels, judges=["a", "a_copy"]
    )
    with pytest.raises(DataError, match="one judge listed twice") as error:
        twice.merge_duplicates()
    message = str(error.value)
    assert "'a' and 'a_copy'" in message
    assert "bayesjudge estimate DATA --map verdict=a" in message
    assert "bayesjudge.fit_prevalence(JudgeData.from_frame(" in message
    from bayesjudge.panels.analysis import analyze_panel

    with pytest.raises(DataError, match="one judge listed twice"):
        analyze_panel(twice)  # refused before any sampling


@pytest.mark.slow
def test_the_suggested_one_judge_fit_succeeds():
    """Follow the refusal's fix: the judge alone, through the prevalence model."""
    from bayesjudge import JudgeData, fit_prevalence
    from bayesjudge.inference.fit import diagnostics_of

    _, triple = two_judges_and_a_copy()
    labels = pd.array(triple.labels, dtype="Float64").astype("Int64")
    frame = pd.DataFrame({"label": labels, "verdict": triple.verdicts[:, 0].astype(int)})
    tree = fit_prevalence(JudgeData.from_frame(frame), random_seed=1, progressbar=False)
    assert diagnostics_of(tree).passed
    gold = ~np.isnan(triple.labels)
    seen = triple.verdicts[gold, 0][triple.labels[gold] == 1]
    # its Se rests on the gold labels alone: the posterior mean is near their PASS rate
    assert float(tree["posterior"]["se"].mean()) == pytest.approx(seen.mean(), abs=0.05)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")  # short runs, same seeds
def test_a_judge_listed_twice_gives_the_answer_without_the_copy():
    """Merged, the panel (a, a_copy, b) is the panel (a, b): the same posterior, same seed."""
    from bayesjudge.panels.fit import fit_panel

    pair, triple = two_judges_and_a_copy()
    settings = {"draws": 300, "tune": 300, "chains": 2, "escalate": False, "progressbar": False}
    with pytest.warns(UserWarning, match="'a' = 'a_copy'"):
        merged = fit_panel(triple, random_seed=2, **settings)
    alone = fit_panel(pair, random_seed=2, **settings)
    assert list(merged["posterior"]["judge"].values) == ["a", "b"]
    for name in ("pi", "se", "sp"):
        np.testing.assert_allclose(
            merged["posterior"][name].to_numpy(), alone["posterior"][name].to_numpy()
        )
    assert merged.attrs["merged_judges"] == '[["a", "a_copy"]]'
