"""fit_systems: model choice, options and errors without sampling; one real fit (slow)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bayesjudge.priors import Beta
from bayesjudge.systems.data import SystemsData
from bayesjudge.systems.fit import choose_judge, choose_pooling, fit_systems
from bayesjudge.systems.fit import model_kind as _model_kind
from bayesjudge.systems.predictive import VERDICT_PAIRS
from bayesjudge.systems.simulate import simulate_systems


def _data(labelled_systems, design="paired", systems=2):
    sim = simulate_systems(
        [0.6, 0.7, 0.65][:systems],
        n_unlabelled=40,
        n_labelled=20,
        se=0.9,
        sp=0.8,
        design=design,
        labelled_systems=labelled_systems,
        random_seed=1,
    )
    return SystemsData.from_frame(sim.frame)


def test_auto_judge_is_per_system_only_when_two_systems_are_calibrated():
    assert choose_judge(_data(["A"])) == "shared"
    assert choose_judge(_data(["A", "B"])) == "system"
    assert choose_judge(_data(["A", "B"]), "shared") == "shared"
    assert choose_judge(_data(["A"]), "system") == "system"
    one_class = pd.DataFrame(
        {
            "system": ["a", "a", "b", "b", "a"],
            "label": [1, 0, 1, None, None],
            "verdict": [1, 0, 1, 1, 0],
        }
    )
    assert choose_judge(SystemsData.from_frame(one_class)) == "shared"  # b has no gold-FAIL


def test_auto_pooling_frees_two_calibrated_judges_and_pools_otherwise():
    assert choose_pooling(_data(["A", "B"]), "system") == "none"
    assert choose_pooling(_data(["A", "B"], systems=3), "system") == "partial"
    assert choose_pooling(_data(["A"]), "system") == "partial"  # B's judge is borrowed from A's
    assert choose_pooling(_data(["A"]), "system", "none") == "none"  # as asked
    assert choose_pooling(_data(["A", "B"]), "system", "partial") == "partial"
    assert choose_pooling(_data(["A", "B"]), "shared") == ""


def test_the_design_chooses_the_model():
    assert _model_kind(_data(["A"])) == "two_system"
    assert _model_kind(_data(["A"], systems=3)) == "systems_irt"
    assert _model_kind(_data(["A"], design="unpaired")) == "systems"


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"judge": "both"}, ValueError, "judge must be one of"),
        ({"calibration": "stratified"}, ValueError, "calibration must be one of"),
        ({"pooling": "full"}, ValueError, "pooling must be one of"),
        ({"priors": Beta(1, 1)}, TypeError, "priors must be a SystemsPriors"),
        ({"draws": 0}, ValueError, "draws"),
    ],
)
def test_bad_options_are_refused_before_sampling(options, error, message):
    with pytest.raises(error, match=message):
        fit_systems(_data(["A"]), **options)


def test_data_must_be_systems_data():
    with pytest.raises(TypeError, match="data must be SystemsData"):
        fit_systems(pd.DataFrame())  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_real_fit_is_checked_recorded_and_named():
    data = _data(["A", "B"], design="unpaired")
    tree = fit_systems(
        data, judge="shared", draws=1000, tune=1000, chains=2, random_seed=3, progressbar=False
    )
    assert tree.attrs["model"] == "systems"
    assert tree.attrs["judge"] == "shared"
    assert tree.attrs["diagnostics_passed"]
    assert tree["posterior"]["pi"].coords["system"].values.tolist() == ["A", "B"]
    assert set(tree["posterior_predictive"].data_vars) == {"x1", "x0", "k"}
    again = fit_systems(
        data, judge="shared", draws=1000, tune=1000, chains=2, random_seed=3, progressbar=False
    )
    assert float(again["posterior"]["pi"].mean()) == float(tree["posterior"]["pi"].mean())


@pytest.mark.slow
def test_a_paired_fit_carries_the_joint_verdict_predictive_check():
    data = _data(["A"])
    tree = fit_systems(
        data, judge="shared", draws=1000, tune=1000, chains=2, random_seed=4, progressbar=False
    )
    assert tree.attrs["model"] == "two_system"
    assert set(tree["posterior_predictive"].data_vars) == {"pair_verdicts", "x1", "x0"}
    observed = tree["observed_data"]["pair_verdicts"]
    assert int(observed.sum()) == int(tree["constant_data"]["pair_items"].sum()) == 40
    checks = json.loads(tree.attrs["diagnostics"])["checks"]
    predictive = {c["variable"] for c in checks if c["name"] == "ppc_tail_prob"}
    # the family tests of systems_predictive_check, named by family and the count most off
    families = {v for v in predictive if "; most off: " in v}
    assert {v.split(";", 1)[0] for v in families} == {"verdicts[A|B]", "gold_rates"}
    assert json.loads(tree.attrs["predictive_check"])["passed"] is True
    assert predictive - families == {
        *(f"pair_verdicts[A|B,{cell}]" for cell in VERDICT_PAIRS),
        "x1[A]",
        "x1[B]",
        "x0[A]",
        "x0[B]",
    }
