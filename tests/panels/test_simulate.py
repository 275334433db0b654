"""Simulators of judge panels and the derived quantities of a posterior."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from bayesjudge.panels.dependence import verdict_correlation
from bayesjudge.panels.quantities import panel_draws, panel_quantities
from bayesjudge.panels.rules import complete_patterns
from bayesjudge.panels.simulate import panel_scenario, simulate_panel


def test_simulation_is_seeded_and_shaped():
    kwargs = {"pi": 0.6, "se": [0.9, 0.8, 0.7], "sp": [0.8, 0.85, 0.9], "loading": 0.5}
    one = simulate_panel(**kwargs, n_unlabelled=300, n_gold=60, random_seed=4)
    two = simulate_panel(**kwargs, n_unlabelled=300, n_gold=60, random_seed=4)
    np.testing.assert_array_equal(one.data.verdicts, two.data.verdicts)
    assert one.data.n_items == 360
    assert one.data.n_unlabelled == 300
    assert one.classes.shape == (360,)
    np.testing.assert_array_equal(one.data.labels[:60], one.classes[:60])
    balanced = simulate_panel(**kwargs, n_unlabelled=10, n_gold=61, gold="balanced", random_seed=4)
    assert balanced.data.n_labelled == (30, 31)


def test_missing_verdicts_are_dropped_at_the_given_rates():
    sim = simulate_panel(
        pi=0.5,
        se=[0.9, 0.8, 0.7],
        sp=[0.8, 0.85, 0.9],
        n_unlabelled=20_000,
        n_gold=0,
        missing=[0.0, 0.2, 0.5],
        random_seed=5,
    )
    share = sim.data.missing_share
    assert share["judge_0"] == 0.0
    assert share["judge_1"] == pytest.approx(0.2, abs=0.01)
    assert share["judge_2"] == pytest.approx(0.5, abs=0.01)
    # the answered verdicts keep the judge's marginal accuracy
    answered = ~np.isnan(sim.data.verdicts[:, 2])
    passed = sim.data.verdicts[answered, 2][sim.classes[answered] == 1]
    assert passed.mean() == pytest.approx(0.7, abs=0.02)


def test_scenario_has_near_copies():
    scenario = panel_scenario(6)
    assert scenario["judges"] == ("a", "a_copy", "b", "c", "d", "e")
    sim = simulate_panel(pi=0.7, **scenario, n_unlabelled=10, n_gold=0, random_seed=0)
    corr = sim.truth.error_correlation
    assert corr[:, 0, 1].min() > 0.6  # the copies
    assert corr[:, 0, 2:].max() < 0.3
    assert 1.5 < sim.truth.effective_judges < 6
    np.testing.assert_allclose(sim.truth.j, scenario["se"] + scenario["sp"] - 1)


def test_simulator_argument_checks():
    ok = {"pi": 0.5, "se": [0.9, 0.8], "sp": [0.8, 0.9], "n_unlabelled": 5, "n_gold": 5}
    with pytest.raises(ValueError, match="at least two judges"):
        simulate_panel(**{**ok, "se": [0.9]})
    with pytest.raises(ValueError, match=r"loading must lie in \[0, 0.99\]"):
        simulate_panel(**ok, loading=1.0)
    with pytest.raises(ValueError, match=r"gold must be one of \['random', 'balanced'\]"):
        simulate_panel(**ok, gold="stratified")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="missing must lie in"):
        simulate_panel(**ok, missing=1.5)
    with pytest.raises(ValueError, match="n_judges must be a whole number from 3 to 6"):
        panel_scenario(2)


def test_panel_draws_agree_with_the_closed_forms():
    rng = np.random.default_rng(3)
    se = rng.uniform(0.7, 0.95, (4, 3))
    sp = rng.uniform(0.7, 0.95, (4, 3))
    loading = rng.uniform(0.0, 0.9, (4, 2, 3))
    pi = rng.uniform(0.3, 0.8, 4)
    out = panel_draws(pi, se, sp, loading, n=1000, m1=80, m0=40)
    np.testing.assert_allclose(out.error_correlation, verdict_correlation(se, sp, loading))
    assert out.rules == (
        "at_least_1_of_3",
        "at_least_2_of_3",
        "at_least_3_of_3",
        "likelihood_ratio",
    )
    assert out.rule_passes.shape == (4, 8)
    assert out.rule_se.shape == out.rule_pi_sd.shape == (4, 4)
    assert np.all(out.effective_judges <= 3.0)
    # the likelihood-ratio rule, fixed from the mean, never has a smaller mean J than the others
    assert out.rule_j.mean(axis=0)[-1] >= out.rule_j.mean(axis=0)[:-1].max() - 1e-12
    # fixing the rule elsewhere is respected
    every = panel_draws(pi, se, sp, loading, n=1000, m1=80, m0=40, likelihood_ratio=np.ones(8))
    np.testing.assert_allclose(every.rule_se[:, -1], 1.0)


def test_panel_quantities_wraps_the_draws_with_named_dims():
    from bayesjudge.panels.data import PanelData

    rng = np.random.default_rng(4)
    chains, draws = 2, 300  # more draws than one chunk of 256
    post = xr.Dataset(
        {
            "pi": (("chain", "draw"), rng.uniform(0.5, 0.7, (chains, draws))),
            "se": (("chain", "draw", "judge"), rng.uniform(0.8, 0.9, (chains, draws, 3))),
            "sp": (("chain", "draw", "judge"), rng.uniform(0.8, 0.9, (chains, draws, 3))),
            "loading": (
                ("chain", "draw", "class", "judge"),
                rng.uniform(0.0, 0.9, (chains, draws, 2, 3)),
            ),
        },
        coords={"judge": ["a", "b", "c"], "class": ["fail", "pass"]},
    )
    data = PanelData.from_arrays(
        [[1, 1, 1], [0, 0, 0], [1, 0, 1]], labels=[1, 0, np.nan], judges=["a", "b", "c"]
    )
    out = panel_quantities(post, data.patterns())
    assert out["error_correlation"].dims == ("chain", "draw", "class", "judge", "other_judge")
    assert out["effective_judges"].shape == (chains, draws)
    assert out["rule"].to_numpy().tolist()[-1] == "likelihood_ratio"
    assert out["vote_pattern"].to_numpy().tolist() == [
        "".join(map(str, p)) for p in complete_patterns(3)
    ]
    # chunked computation equals the direct one on every draw
    direct = panel_draws(
        post["pi"].to_numpy(),
        post["se"].to_numpy(),
        post["sp"].to_numpy(),
        post["loading"].to_numpy(),
        n=1,
        m1=1,
        m0=1,
    )
    np.testing.assert_allclose(out["effective_judges"].to_numpy(), direct.effective_judges)
    np.testing.assert_array_equal(out["rule_passes"].to_numpy(), direct.rule_passes)
    assert out.attrs["best_rule"] in out["rule"].to_numpy().tolist()


def test_copy_panel_has_the_stated_rates_and_pair_correlation():
    from bayesjudge.panels.simulate import simulate_copy_panel

    sim = simulate_copy_panel(
        pi=0.4,
        se=[0.85, 0.7, 0.75],
        sp=[0.8, 0.9, 0.9],
        copy=(0.5, 0.8),
        n_unlabelled=60_000,
        n_gold=0,
        random_seed=2,
    )
    v, c = sim.data.verdicts, sim.classes
    for k, (se, sp) in enumerate([(0.85, 0.8), (0.7, 0.9), (0.75, 0.9)]):
        assert v[c == 1, k].mean() == pytest.approx(se, abs=0.01)
        assert 1 - v[c == 0, k].mean() == pytest.approx(sp, abs=0.01)
    for cls in (0, 1):
        empirical = np.corrcoef(v[c == cls, 0], v[c == cls, 1])[0, 1]
        assert empirical == pytest.approx(sim.truth.error_correlation[cls, 0, 1], abs=0.02)
        assert abs(np.corrcoef(v[c == cls, 0], v[c == cls, 2])[0, 1]) < 0.02
    # copy probability 0.8 in PASS: cov = 0.8 * 0.85 * 0.15
    np.testing.assert_allclose(
        sim.truth.error_correlation[1, 0, 1], 0.8 * 0.85 * 0.15 / np.sqrt(0.85 * 0.15 * 0.7 * 0.3)
    )


def test_dependence_scenarios_are_seeded_and_distinct():
    from bayesjudge.panels.simulate import DEPENDENCE_FORMS, dependence_scenario

    effective = {}
    for form in DEPENDENCE_FORMS:
        one = dependence_scenario(form, random_seed=5)
        two = dependence_scenario(form, random_seed=5)
        np.testing.assert_array_equal(one.data.verdicts, two.data.verdicts)
        assert one.data.n_items == 2000
        assert one.data.n_unlabelled == 1800
        effective[form] = float(one.truth.effective_judges)
    assert effective["independent"] == pytest.approx(3.0)
    assert effective["copy"] < effective["one_class_noise"] < effective["shared_base"] < 3.0
    noisy = dependence_scenario("one_class_noise", n_unlabelled=5000, random_seed=1)
    passes = noisy.classes == 1
    v = noisy.data.verdicts
    np.testing.assert_array_equal(v[passes, 0], v[passes, 1])  # equal on PASS items
    assert (v[~passes, 0] != v[~passes, 1]).any()  # noisy on FAIL items
    with pytest.raises(ValueError, match="form must be one of"):
        dependence_scenario("bogus")


def test_copy_panel_argument_checks():
    from bayesjudge.panels.simulate import simulate_copy_panel

    ok = {"pi": 0.5, "se": [0.9, 0.8], "sp": [0.8, 0.9], "n_unlabelled": 5, "n_gold": 5}
    with pytest.raises(ValueError, match="copy must lie"):
        simulate_copy_panel(**ok, copy=1.5)
    with pytest.raises(ValueError, match="cannot be reached"):
        simulate_copy_panel(**{**ok, "se": [0.9, 0.1]}, copy=0.9)
    with pytest.raises(ValueError, match="always copies"):
        simulate_copy_panel(**ok, copy=1.0)
    with pytest.raises(ValueError, match="different judges"):
        simulate_copy_panel(**ok, copy=0.5, source=1, target=1)
    with pytest.raises(ValueError, match="target must be a judge index"):
        simulate_copy_panel(**ok, copy=0.5, target=2)
