"""The repeated-answers systems model: its structure and its exact reduction to systems_model.

Without spread every item of a system has the same rate, the cells' binomials multiply to one
binomial per system, and the model is :func:`bayesjudge.models.systems.systems_model` with the
same priors and judge. The two log densities then differ by a constant (the binomial
coefficients) at every point of the shared parameter space: the same posterior, exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

from bayesjudge.models.repeated_systems import model_info, repeated_systems_model
from bayesjudge.models.systems import systems_model
from bayesjudge.systems.data import SystemCounts

# three systems, four items, uneven answers per cell, gold labels on some cells
CELL_SYSTEM = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 2])
CELL_ITEM = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3])
COUNTS = {
    "n": np.array([5, 5, 5, 4, 5, 3, 5, 5, 5, 2, 5]),
    "k": np.array([4, 2, 5, 1, 3, 3, 0, 1, 2, 2, 4]),
    "m1": np.array([1, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0]),
    "x1": np.array([1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0]),
    "m0": np.array([0, 1, 0, 0, 0, 0, 2, 0, 0, 3, 0]),
    "x0": np.array([0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0]),
}
SYSTEMS = ("a", "b", "c")
ITEMS = ("q1", "q2", "q3", "q4")


def _system_counts() -> SystemCounts:
    summed = {
        k: np.bincount(CELL_SYSTEM, weights=v, minlength=3).astype(np.int64)
        for k, v in COUNTS.items()
    }
    return SystemCounts(SYSTEMS, *(summed[k] for k in ("m1", "x1", "m0", "x0", "n", "k")))


@pytest.mark.parametrize(
    ("judge", "calibration"), [("shared", "by_class"), ("system", "by_class"), ("shared", "random")]
)
def test_without_spread_the_log_density_is_systems_models_plus_a_constant(
    judge: str, calibration: str
) -> None:
    ours = repeated_systems_model(
        SYSTEMS,
        ITEMS,
        CELL_SYSTEM,
        CELL_ITEM,
        COUNTS,
        judge=judge,  # type: ignore[arg-type]
        calibration=calibration,  # type: ignore[arg-type]
        spread=False,
    )
    theirs = systems_model(
        _system_counts(),
        judge=judge,  # type: ignore[arg-type]
        calibration=calibration,  # type: ignore[arg-type]
    )
    rename = {"median_rate_logodds__": "pi_logodds__"}
    ours_logp, theirs_logp = ours.compile_logp(), theirs.compile_logp()
    theirs_point = theirs.initial_point()
    assert sorted(rename.get(k, k) for k in ours.initial_point()) == sorted(theirs_point)
    rng = np.random.default_rng(0)
    gaps = []
    for _ in range(6):
        point = {k: rng.normal(0.0, 1.2, size=np.shape(v)) for k, v in theirs_point.items()}
        mine = {k: point[rename.get(k, k)] for k in ours.initial_point()}
        gaps.append(float(ours_logp(mine)) - float(theirs_logp(point)))
    assert np.ptp(gaps) < 1e-8
    # and the rates agree: pi is the median-item rate when there is no spread
    pi = ours.compile_fn(
        ours.replace_rvs_by_values([ours["pi"]])[0],
        inputs=ours.value_vars,
        on_unused_input="ignore",
    )
    mine = {k: point[rename.get(k, k)] for k in ours.initial_point()}
    expected = 1.0 / (1.0 + np.exp(-point["pi_logodds__"]))
    np.testing.assert_allclose(pi(mine), expected, rtol=1e-10)


def test_structure_with_spread_and_clusters() -> None:
    model = repeated_systems_model(
        SYSTEMS,
        ITEMS,
        CELL_SYSTEM,
        CELL_ITEM,
        COUNTS,
        clusters=("t", "u"),
        cluster_index=np.array([0, 0, 1, 1]),
        judge="system",
    )
    names = sorted(v.name for v in model.free_RVs)
    assert {"item_sd", "item_z", "cell_sd", "cell_z", "cluster_sd", "cluster_z"} <= set(names)
    assert model.named_vars_to_dims["pi"] == ("system",)
    info = model_info(model)
    assert info.judge == "system"
    assert info.pooling == "partial"
    # pi is the Gauss-Hermite mean of the logistic-normal: check against brute-force
    # integration at the initial point
    point = model.initial_point()
    outs = ["pi", "median_rate", "item_sd", "cell_sd", "cluster_sd"]
    fn = model.compile_fn(
        model.replace_rvs_by_values([model[name] for name in outs]),
        inputs=model.value_vars,
        on_unused_input="ignore",
    )
    pi, median, *sds = fn(point)
    s = np.sqrt(sum(float(v) ** 2 for v in sds))
    x = np.linspace(-12, 12, 200_001)
    density = np.exp(-0.5 * x**2) / np.sqrt(2 * np.pi)
    mu = np.log(median) - np.log1p(-median)
    brute = np.trapezoid(density / (1 + np.exp(-(mu[:, None] + s * x))), x, axis=1)
    np.testing.assert_allclose(pi, brute, atol=1e-9)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="counts lacks"):
        repeated_systems_model(SYSTEMS, ITEMS, CELL_SYSTEM, CELL_ITEM, {"n": COUNTS["n"]})
    with pytest.raises(ValueError, match="one entry per cell"):
        repeated_systems_model(SYSTEMS, ITEMS, CELL_SYSTEM[:-1], CELL_ITEM, COUNTS)
    with pytest.raises(ValueError, match="two or more systems"):
        repeated_systems_model(("a",), ITEMS, CELL_SYSTEM * 0, CELL_ITEM, COUNTS)
    with pytest.raises(ValueError, match="spread_sd must be a positive"):
        repeated_systems_model(SYSTEMS, ITEMS, CELL_SYSTEM, CELL_ITEM, COUNTS, spread_sd=0.0)
