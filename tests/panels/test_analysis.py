"""The fit's checks before sampling, the unanimity check, and the analysis helpers (no sampling)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from bayesjudge.errors import DataError
from bayesjudge.panels.analysis import pair_name
from bayesjudge.panels.data import PanelData
from bayesjudge.panels.dependence import pattern_probabilities
from bayesjudge.panels.fit import (
    _unanimity_predictive,
    check_identified,
    fit_panel,
    panel_calibration_check,
    unanimity_counts,
)
from bayesjudge.panels.simulate import panel_scenario, simulate_panel


def _panel(labels) -> PanelData:
    verdicts = [[1, 1, 0], [0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 0, 1]]
    return PanelData.from_arrays(verdicts, labels=labels, judges=["a", "b", "c"])


def test_check_identified_names_what_is_missing():
    only_pass = _panel([1, np.nan, np.nan, np.nan, 1]).patterns()
    with pytest.raises(
        DataError,
        match="need gold-labelled items of both classes; the data have 2 gold-PASS and 0 gold-FAIL",
    ):
        check_identified(only_pass, dependence="random_effect")
    check_identified(only_pass, dependence="none")  # three judges identify it without gold
    two = PanelData.from_arrays([[1, 0], [0, 0]]).patterns()
    with pytest.raises(DataError, match="at least three judges; the data have 2 judges"):
        check_identified(two, dependence="none")
    all_gold = _panel([1, 0, 1, 0, 1]).patterns()
    with pytest.raises(DataError, match="no unlabelled items"):
        check_identified(all_gold, dependence="random_effect")
    with pytest.raises(ValueError, match=r"dependence must be one of \['random_effect', 'none'\]"):
        check_identified(all_gold, dependence="pairwise")  # type: ignore[arg-type]


def test_fit_panel_refuses_before_sampling():
    data = _panel([1, 0, np.nan, np.nan, np.nan])
    with pytest.raises(TypeError, match="data must be PanelData"):
        fit_panel(data.to_wide())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"calibration must be one of \['by_class', 'random'\]"):
        fit_panel(data, calibration="stratified")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="priors must be a PanelPriors"):
        fit_panel(data, priors="uniform")  # type: ignore[arg-type]
    with pytest.raises(DataError, match="both classes"):
        fit_panel(_panel([1, np.nan, np.nan, np.nan, 1]))


def test_calibration_check_compares_pass_shares():
    sim = simulate_panel(pi=0.7, **panel_scenario(3), n_unlabelled=2000, n_gold=300, random_seed=4)
    assert panel_calibration_check(sim.data).consistent
    balanced = simulate_panel(
        pi=0.85, **panel_scenario(3), n_unlabelled=2000, n_gold=300, gold="balanced",
        random_seed=4,
    )  # fmt: skip
    check = panel_calibration_check(balanced.data)
    assert not check.consistent  # half the gold items FAIL, 15% of the others
    assert check.labelled_rate < check.unlabelled_rate


def test_unanimity_replicates_have_the_model_mean():
    """At the true parameters the replicated unanimous counts average the closed form."""
    sim = simulate_panel(pi=0.6, **panel_scenario(3), n_unlabelled=3000, n_gold=0, random_seed=9)
    patterns = sim.data.patterns()
    truth = sim.truth
    draws = 400
    posterior = xr.Dataset(
        {
            "pi": (("chain", "draw"), np.full((1, draws), truth.pi)),
            "se": (("chain", "draw", "judge"), np.broadcast_to(truth.se, (1, draws, 3))),
            "sp": (("chain", "draw", "judge"), np.broadcast_to(truth.sp, (1, draws, 3))),
            "loading": (
                ("chain", "draw", "class", "judge"),
                np.broadcast_to(truth.loading, (1, draws, 2, 3)),
            ),
        },
        coords={"chain": [0], "draw": np.arange(draws), "judge": list(truth.judges)},
    )
    replicated = _unanimity_predictive(posterior, patterns, np.random.default_rng(0))
    assert replicated["all_pass"].shape == (1, draws, 3)
    probs = pattern_probabilities(truth.se, truth.sp, truth.loading, [[1, 1, 1], [0, 0, 0]])
    mixed = truth.pi * probs[1] + (1 - truth.pi) * probs[0]
    n = patterns.n_unlabelled
    for k, name in enumerate(("all_pass", "all_fail")):
        mean = replicated[name][0, :, 2].mean()
        sd = np.sqrt(n * mixed[k] * (1 - mixed[k]) / draws)
        assert mean == pytest.approx(n * mixed[k], abs=4 * sd)
        assert (replicated[name][0, :, :2] == 0).all()  # no gold items
    observed = unanimity_counts(patterns)
    assert observed["all_pass"][2] == pytest.approx(n * mixed[0], rel=0.1)


def test_pair_name():
    assert pair_name("a", "a_copy") == "a|a_copy"
