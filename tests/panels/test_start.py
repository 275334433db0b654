"""The numpy twin of the panel model's log density, and its Hessian at the mode (the whitening
the panel sampler moves in)."""

from __future__ import annotations

import numpy as np
import pytest

from bayesjudge.models.panel import panel_model
from bayesjudge.panels.simulate import panel_scenario, simulate_panel
from bayesjudge.panels.start import (
    mode_precision,
    posterior_mode,
    sampling_coordinates,
    sampling_log_density,
    sampling_order,
)


@pytest.fixture(scope="module")
def patterns():
    sim = simulate_panel(pi=0.7, **panel_scenario(3), n_unlabelled=500, n_gold=100, random_seed=1)
    return sim.data.patterns()


def _flat(values, order):
    return np.concatenate([np.ravel(values[name]) for name, _ in order])


@pytest.mark.parametrize(
    ("dependence", "calibration"), [("random_effect", "by_class"), ("none", "random")]
)
def test_numpy_density_is_the_models_log_density(patterns, dependence, calibration):
    start = posterior_mode(patterns, dependence=dependence, calibration=calibration)
    model = panel_model(patterns, dependence=dependence, calibration=calibration)
    order = sampling_order(3, dependent=dependence == "random_effect")
    assert [(v.name, int(np.size(model.initial_point()[v.name]))) for v in model.value_vars] == (
        order
    )
    logp = model.compile_logp()
    rng = np.random.default_rng(7)
    gaps = []
    for _ in range(4):
        point = {
            k: np.asarray(v) + rng.normal(scale=0.3, size=np.shape(v))
            for k, v in start.values.items()
        }
        gaps.append(
            logp(point)
            - sampling_log_density(
                _flat(point, order), patterns, dependence=dependence, calibration=calibration
            )[0]
        )
    # equal up to rounding (log Phi is computed by different code in the two)
    assert np.ptp(gaps) < 1e-5
    assert abs(gaps[0]) < 1e-5


def test_density_rejects_a_point_of_the_wrong_length(patterns):
    with pytest.raises(ValueError, match="must hold 7 coordinates"):
        sampling_log_density(np.zeros(5), patterns, dependence="none")


def test_mode_precision_is_the_models_hessian(patterns):
    # reference: central differences of the compiled model's exact gradient (a symbolic
    # Hessian of this model takes minutes to compile)
    start = posterior_mode(patterns, dependence="none")
    model = panel_model(patterns, dependence="none")
    order = sampling_order(3, dependent=False)
    flat = _flat(start.values, order)
    got = mode_precision(flat, patterns, dependence="none")
    dlogp = model.compile_dlogp()
    names = [name for name, _ in order]
    sizes = [size for _, size in order]

    def gradient(x):
        point, at = {}, 0
        for name, size in zip(names, sizes, strict=True):
            point[name] = x[at : at + size].reshape(np.shape(start.values[name]))
            at += size
        return dlogp(point)

    step = 1e-5
    want = np.empty_like(got)
    for k in range(flat.size):
        e = np.zeros(flat.size)
        e[k] = step
        want[:, k] = -(gradient(flat + e) - gradient(flat - e)) / (2 * step)
    np.testing.assert_allclose(got, want, rtol=5e-3, atol=5e-3 * np.abs(want).max())
    assert np.all(np.linalg.eigvalsh(got) > 0)


def test_a_panel_worse_than_chance_starts_inside_the_models_half_next_to_the_optimum():
    """Gold labels break the mirror symmetry the model's half restriction removes.

    Every judge here is worse than chance, so the best optimum of the unrestricted posterior lies
    in the half the model excludes, and its mirror image contradicts the 200 gold labels. The
    model's mode is at the edge of its half, on the optimum's side: the chains must start there
    (an earlier version started them at the mirror image, where they stayed).
    """
    truth = {"pi": 0.6, "se": [0.3, 0.25, 0.35], "sp": [0.3, 0.35, 0.25], "loading": 0.4}
    sim = simulate_panel(**truth, n_unlabelled=1000, n_gold=200, random_seed=2)
    patterns = sim.data.patterns()
    start = posterior_mode(patterns, calibration="random")
    assert start.optima[0] > start.log_density  # the best optimum is not in the model's half
    assert 0.0 < np.exp(start.values["accuracy_mean_log__"]) < 0.5  # just inside it
    # the judges as a whole at chance (the edge), not better than it (the mirror image, J = 0.4)
    assert abs(np.mean(start.se + start.sp - 1.0)) < 0.1
    order = sampling_order(3, dependent=True)
    mirror = sampling_coordinates(
        1.0 - truth["pi"],
        1.0 - np.array(truth["sp"]),
        1.0 - np.array(truth["se"]),
        np.full((2, 3), truth["loading"]),
    )
    here, there = sampling_log_density(
        np.array([_flat(start.values, order), _flat(mirror, order)]),
        patterns,
        calibration="random",
    )
    assert here > there + 50.0
