"""The affine (Laplace-whitened) rebuild of a model: same density, same variables."""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytest

from bayesjudge.inference.affine import (
    AFFINE_FACTOR,
    AFFINE_SHIFT,
    AFFINE_VARIABLE,
    affine_model,
    affine_start,
    laplace_factor,
)


def _model() -> pm.Model:
    coords = {"k": ["a", "b", "c"]}
    with pm.Model(coords=coords) as model:
        y = pm.Data("y", np.array([0.2, 1.4, 0.7]), dims="k")
        scale = pm.HalfNormal("scale", 2.0)
        share = pm.Beta("share", 2.0, 3.0, dims="k")
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Deterministic("centre", mu + share, dims="k")
        pm.Potential("extra", -0.5 * pm.math.sum(share**2))
        pm.Normal("obs", mu + share, scale, observed=y, dims="k")
    return model


def test_laplace_factor_inverts_the_precision() -> None:
    rng = np.random.default_rng(3)
    a = rng.normal(size=(5, 5))
    h = a @ a.T + 5 * np.eye(5)
    factor = laplace_factor(h)
    np.testing.assert_allclose(factor @ factor.T, np.linalg.inv(h), rtol=1e-10, atol=1e-12)


def test_laplace_factor_floors_eigenvalues_of_an_indefinite_matrix() -> None:
    h = np.diag([4.0, -1.0, 1e-6])
    factor = laplace_factor(h, floor=0.5)
    np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(factor @ factor.T)), [0.25, 2.0, 2.0])


@pytest.mark.parametrize(
    ("value", "floor", "match"),
    [
        (np.ones((2, 3)), 1.0, "square"),
        (np.array([[np.nan]]), 1.0, "finite"),
        (np.eye(2), 0.0, "floor must be positive"),
    ],
)
def test_laplace_factor_rejects_bad_input(value, floor, match) -> None:
    with pytest.raises(ValueError, match=match):
        laplace_factor(value, floor=floor)


def test_affine_model_has_the_original_density_and_variables() -> None:
    model = _model()
    new = affine_model(model)
    assert [v.name for v in new.free_RVs] == [AFFINE_VARIABLE]
    for name in ("scale", "share", "mu", "centre", "y"):
        assert name in new.named_vars
    assert new.named_vars_to_dims["share"] == ("k",)
    point = model.initial_point()
    sizes = [np.size(point[v.name]) for v in model.value_vars]
    rng = np.random.default_rng(0)
    shift = rng.normal(size=sum(sizes))
    factor = rng.normal(size=(shift.size, shift.size)) * 0.3
    with new:
        pm.set_data({AFFINE_SHIFT: shift, AFFINE_FACTOR: factor})
    old_logp, new_logp = model.compile_logp(), new.compile_logp()
    old_fn = model.compile_fn(
        model.replace_rvs_by_values([model["share"], model["centre"]]),
        inputs=model.value_vars,
        on_unused_input="ignore",
    )
    new_fn = new.compile_fn(
        new.replace_rvs_by_values([new["share"], new["centre"]]),
        inputs=new.value_vars,
        on_unused_input="ignore",
    )
    for _ in range(3):
        z = rng.normal(size=shift.size)
        u = shift + factor @ z
        values, at = {}, 0
        for var, size in zip(model.value_vars, sizes, strict=True):
            values[var.name] = u[at : at + size].reshape(np.shape(point[var.name]))
            at += size
        assert new_logp({AFFINE_VARIABLE: z}) == pytest.approx(old_logp(values), rel=1e-12)
        for got, want in zip(new_fn({AFFINE_VARIABLE: z}), old_fn(values), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-12)


def test_affine_start_is_the_mode() -> None:
    new = affine_model(_model())
    assert affine_start(new)[AFFINE_VARIABLE].tolist() == [0.0] * 5


def test_affine_model_rejects_models_without_continuous_free_variables() -> None:
    with pm.Model() as empty:
        pm.Data("y", np.zeros(2))
    with pytest.raises(ValueError, match="no free variable"):
        affine_model(empty)
    with pm.Model() as discrete:
        pm.Poisson("n", 3.0)
    with pytest.raises(ValueError, match="'n' is discrete"):
        affine_model(discrete)
