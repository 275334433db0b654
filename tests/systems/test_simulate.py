"""Seeded simulators of several systems: the truth they report is the truth they draw from."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesjudge.systems.irt import ability_for_rate, joint_rates, population_rate
from bayesjudge.systems.simulate import simulate_systems


def test_same_seed_same_data():
    one = simulate_systems(
        [0.5, 0.7], n_unlabelled=50, n_labelled=10, se=0.9, sp=0.8, random_seed=4
    )
    two = simulate_systems(
        [0.5, 0.7], n_unlabelled=50, n_labelled=10, se=0.9, sp=0.8, random_seed=4
    )
    pd.testing.assert_frame_equal(one.frame, two.frame)


def test_large_sample_matches_the_reported_truth():
    sim = simulate_systems(
        [0.55, 0.75],
        n_unlabelled=60_000,
        n_labelled=60_000,
        se=[0.9, 0.8],
        sp=[0.7, 0.95],
        difficulty_sd=1.5,
        random_seed=1,
    )
    frame = sim.frame
    gold = frame[frame.label.notna()]
    wide = gold.pivot(index="item", columns="system", values="label").astype(int)
    # 60,000 labelled items: standard errors about 2e-3
    np.testing.assert_allclose(wide.mean().to_numpy(), sim.pi, atol=8e-3)
    joint = pd.crosstab(wide["A"], wide["B"], normalize=True).to_numpy()
    np.testing.assert_allclose(joint, sim.joint(), atol=8e-3)
    for s, name in enumerate(sim.systems):
        part = gold[gold.system == name]
        se_hat = part.verdict[part.label == 1].mean()
        sp_hat = 1 - part.verdict[part.label == 0].mean()
        assert se_hat == pytest.approx(sim.se[s], abs=8e-3)
        assert sp_hat == pytest.approx(sim.sp[s], abs=1.2e-2)


def test_labels_only_where_asked_and_designs():
    sim = simulate_systems(
        [0.5, 0.7, 0.6],
        n_unlabelled=40,
        n_labelled=10,
        se=0.9,
        sp=0.8,
        labelled_systems=["B"],
        random_seed=2,
    )
    labelled = sim.frame[sim.frame.label.notna()]
    assert set(labelled.system) == {"B"}
    assert len(labelled) == 10
    unpaired = simulate_systems(
        [0.5, 0.7], n_unlabelled=40, n_labelled=10, se=0.9, sp=0.8, design="unpaired", random_seed=2
    )
    assert unpaired.frame.groupby("item").size().max() == 1
    assert len(unpaired.frame) == 100


def test_outcomes_are_independent_without_difficulty_spread():
    joint = joint_rates([0.4, -0.2], 0.0)
    p = population_rate([0.4, -0.2], 0.0)
    np.testing.assert_allclose(joint, np.outer([1 - p[0], p[0]], [1 - p[1], p[1]]), atol=1e-15)
    np.testing.assert_allclose(
        population_rate(ability_for_rate([0.2, 0.9], 2.5), 2.5), [0.2, 0.9], atol=1e-12
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pi": [0.5]}, "at least two"),
        ({"design": "crossed"}, r"design must be one of \['paired', 'unpaired'\]"),
        ({"se": [0.9, 0.8, 0.7]}, "one number per system"),
        ({"sp": 1.2}, r"sp must lie in \[0, 1\]"),
        ({"n_unlabelled": 0}, "n_unlabelled must be positive"),
        ({"labelled_systems": ["Z"]}, "not among the systems"),
    ],
)
def test_bad_arguments(kwargs, message):
    options = {"pi": [0.5, 0.6], "n_unlabelled": 10, "n_labelled": 2, "se": 0.9, "sp": 0.8}
    options.update(kwargs)
    pi = options.pop("pi")
    with pytest.raises(ValueError, match=message):
        simulate_systems(pi, **options)
