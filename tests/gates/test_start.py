"""The gate model's starting point: the model's coordinates, inside the main mode's basin."""

from __future__ import annotations

import numpy as np
import pytest

from bayesjudge.gates import TABLE4, rejudgment_gate, table4_gate
from bayesjudge.gates.cells import gate_cells, pad_cells
from bayesjudge.gates.start import gate_start
from bayesjudge.priors import GatePriors, Normal


def _cells(n_items: int, seed: int):  # type: ignore[no-untyped-def]
    se1, leak, _ = TABLE4["HaluEval / Gemini-Flash"]
    compliant, violation = table4_gate(se1, leak)
    gate = rejudgment_gate(
        compliant, violation, pi=0.6, n_items=n_items, labelled_by_class=(150, 150),
        random_seed=seed,
    )  # fmt: skip
    items = gate.table.groupby("item").agg(
        label=("label", "first"), r=("verdict", "size"), k=("verdict", "sum")
    )
    return gate_cells(items["label"].to_numpy(float), items["r"].to_numpy(), items["k"].to_numpy())


def test_the_start_names_every_value_variable_of_the_model_with_its_shape():
    from bayesjudge.models.gate import gate_model

    cells = _cells(2_000, seed=1)
    model = gate_model(pad_cells(cells, 64))
    start = gate_start(cells)
    default = model.initial_point()
    assert sorted(start) == sorted(default)
    for name, value in default.items():
        assert np.shape(start[name]) == np.shape(value), name


def test_the_start_is_far_more_probable_than_the_default_point_and_near_the_truth():
    from scipy.special import expit

    from bayesjudge.models.gate import gate_model

    cells = _cells(20_000, seed=2)
    model = gate_model(pad_cells(cells, 64))
    logp = model.compile_logp()
    start = gate_start(cells)
    # the default point (pi = omega = mu = 1/2) lies across the ridge from the main mode
    assert logp(start) > logp(model.initial_point()) + 1_000
    assert float(expit(start["pi_logodds__"])) == pytest.approx(0.6, abs=0.1)


def test_log_kappa_starts_at_its_prior_mean():
    cells = _cells(500, seed=3)
    start = gate_start(cells, priors=GatePriors(log_kappa=Normal(2.5, 1.0)))
    np.testing.assert_array_equal(start["log_kappa"], [2.5, 2.5])


def test_a_class_without_gold_items_or_no_unlabelled_items_keeps_the_defaults():
    cells = gate_cells([1, 1, np.nan], [3, 3, 3], [3, 2, 1])
    start = gate_start(cells)
    np.testing.assert_allclose(start["omega_logodds__"][0], np.log(0.1 / 0.9))
    np.testing.assert_allclose(start["mu_logodds__"][0], 0.0)
    only_gold = gate_cells([0, 1], [3, 3], [0, 3])
    assert float(gate_start(only_gold)["pi_logodds__"]) == 0.0
