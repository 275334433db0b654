r"""Affine preconditioning: sample a model in coordinates whitened at its posterior mode.

When many unlabelled items pin some combinations of a model's parameters far more tightly than
the gold items pin the rest, the posterior in the sampler's coordinates is a thin, strongly
correlated ridge whose width shrinks like :math:`1/\sqrt{N}` while its length stays fixed: NUTS
then needs ever more leapfrog steps per draw as :math:`N` grows, and a diagonal (or low-rank)
mass matrix learned during tuning does not keep up. A *fixed* linear change of variables taken
from the Laplace approximation removes that scale: with :math:`m` the posterior mode and
:math:`H` the Hessian of the negative log density there (both in the model's unconstrained
coordinates :math:`u`), the sampler moves :math:`z` with

.. math::

    u = m + L z,\qquad L = V\,\mathrm{diag}(w)^{-1/2},\qquad H = V\,\mathrm{diag}(w)\,V^\top,

so a Gaussian posterior becomes a standard normal in :math:`z` whatever :math:`N` (eigenvalues
of :math:`H` below a floor are raised to it, so :math:`L` exists when :math:`H` is not positive
definite). The map is affine, so the posterior is *exactly* the model's: only the coordinates
the sampler moves in change; the log density in :math:`z` differs from the one in :math:`u` by
the constant :math:`\log|\det L|`. This is the preconditioning behind Riemannian and
Laplace-based samplers (Girolami and Calderhead, "Riemann manifold Langevin and Hamiltonian
Monte Carlo methods", Journal of the Royal Statistical Society B, 2011), in its simplest, fixed
form; what remains non-Gaussian is left to NUTS and its adapted diagonal.

:func:`affine_model` rebuilds any PyMC model this way; :func:`laplace_factor` turns a Hessian
into :math:`L`. The mode and the Hessian are data of the rebuilt model (``pm.Data``), so a refit
at another mode reuses the compiled model.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "AFFINE_COORDINATE",
    "AFFINE_FACTOR",
    "AFFINE_SHIFT",
    "AFFINE_VARIABLE",
    "affine_model",
    "affine_start",
    "laplace_factor",
]

#: Name of the free variable of an affine model.
AFFINE_VARIABLE = "whitened"
#: Name of its coordinate (dimension).
AFFINE_COORDINATE = "whitened_coordinate"
#: Names of the ``pm.Data`` holding :math:`m` and :math:`L`.
AFFINE_SHIFT = "affine_shift"
AFFINE_FACTOR = "affine_factor"


def laplace_factor(precision: ArrayLike, *, floor: float = 1e-2) -> NDArray[np.float64]:
    r"""Return :math:`L` with :math:`L L^\top = H^{-1}` from a precision matrix :math:`H`.

    :math:`H` is symmetrised and eigendecomposed; eigenvalues below ``floor`` (including
    negative ones, from a Hessian taken away from a strict maximum) are raised to ``floor``,
    so the factor always exists and no direction is stretched by more than
    :math:`1/\sqrt{\text{floor}}`.

    Parameters
    ----------
    precision : array_like, shape (d, d)
        The Hessian of the negative log density at the mode.
    floor : float, default 0.01
        Smallest eigenvalue used.

    Returns
    -------
    ndarray, shape (d, d)

    Raises
    ------
    ValueError
        If ``precision`` is not a finite square matrix or ``floor`` is not positive.

    Examples
    --------
    >>> h = np.array([[4.0, 1.0], [1.0, 3.0]])
    >>> factor = laplace_factor(h)
    >>> bool(np.allclose(factor @ factor.T, np.linalg.inv(h)))
    True
    """
    h = np.asarray(precision, dtype=float)
    if h.ndim != 2 or h.shape[0] != h.shape[1] or h.shape[0] == 0:
        raise ValueError(f"precision must be a non-empty square matrix; got shape {h.shape}")
    if not np.all(np.isfinite(h)):
        raise ValueError("precision must be finite")
    if not floor > 0.0:
        raise ValueError(f"floor must be positive; got {floor!r}")
    values, vectors = np.linalg.eigh(0.5 * (h + h.T))
    return np.asarray(vectors / np.sqrt(np.maximum(values, floor)), dtype=float)


def affine_start(model: Any) -> dict[str, NDArray[np.float64]]:
    """Return the starting point of an affine model: :math:`z = 0`, the mode.

    Examples
    --------
    >>> import pymc as pm
    >>> with pm.Model() as m:
    ...     _ = pm.Normal("x", shape=2)
    >>> affine_start(affine_model(m))["whitened"].tolist()
    [0.0, 0.0]
    """
    return {AFFINE_VARIABLE: np.zeros(len(model.coords[AFFINE_COORDINATE]))}


def affine_model(model: Any) -> Any:
    r"""Rebuild ``model`` so that the sampler moves :math:`z` with :math:`u = m + L z`.

    The new model has one free variable, ``whitened`` (dims ``whitened_coordinate``; flat, as
    the whole log density, Jacobians and potentials included, enters as the potential
    ``logp``), the data ``affine_shift`` (:math:`m`, the unconstrained coordinates of the
    original value variables in the order of ``model.value_vars``, each flattened) and
    ``affine_factor`` (:math:`L`; both start as 0 and the identity), a copy of every ``pm.Data``
    of ``model`` under its own name and dims, and a deterministic of the same name and dims for
    every free variable (on its constrained scale) and every deterministic of ``model``. A
    posterior of the new model therefore holds every variable the original one would, plus
    ``whitened``.

    Parameters
    ----------
    model : pymc.Model
        A model without discrete free variables.

    Returns
    -------
    pymc.Model

    Raises
    ------
    ValueError
        If ``model`` has a discrete free variable or none at all.

    Examples
    --------
    >>> import pymc as pm
    >>> with pm.Model(coords={"k": ["a", "b"]}) as m:
    ...     s = pm.HalfNormal("s", dims="k")
    ...     _ = pm.Deterministic("t", 2 * s, dims="k")
    >>> new = affine_model(m)
    >>> [v.name for v in new.free_RVs], sorted(new.named_vars_to_dims)
    (['whitened'], ['affine_shift', 's', 't', 'whitened'])
    """
    import pymc as pm
    import pytensor.tensor as pt
    from pytensor.graph.replace import graph_replace

    if not model.free_RVs:
        raise ValueError("model has no free variable to precondition")
    for rv in model.free_RVs:
        if rv.type.dtype.startswith(("int", "uint", "bool")):
            raise ValueError(
                f"free variable {rv.name!r} is discrete; affine_model needs continuous"
            )
    point = model.initial_point()
    sizes = [int(np.asarray(point[v.name]).size) for v in model.value_vars]
    shapes = [np.shape(point[v.name]) for v in model.value_vars]
    n_dim = int(sum(sizes))
    dims = model.named_vars_to_dims
    coords = {name: values for name, values in model.coords.items()}
    coords[AFFINE_COORDINATE] = tuple(range(n_dim))
    with pm.Model(coords=coords) as new:
        replace: dict[Any, Any] = {}
        for shared in model.data_vars:
            replace[shared] = pm.Data(shared.name, shared.get_value(), dims=dims.get(shared.name))
        z = pm.Flat(AFFINE_VARIABLE, dims=AFFINE_COORDINATE)
        shift = pm.Data(AFFINE_SHIFT, np.zeros(n_dim), dims=AFFINE_COORDINATE)
        factor = pm.Data(AFFINE_FACTOR, np.eye(n_dim))
        u = shift + pt.dot(factor, z)
        start = 0
        for value, size, shape in zip(model.value_vars, sizes, shapes, strict=True):
            replace[value] = pt.reshape(u[start : start + size], shape)
            start += size
        logp = graph_replace(model.logp(), replace, strict=False)
        pm.Potential("logp", logp)
        constrained = model.replace_rvs_by_values(list(model.free_RVs))
        derived = model.replace_rvs_by_values(list(model.deterministics))
        for rv, graph in zip(model.free_RVs, constrained, strict=True):
            pm.Deterministic(
                rv.name, graph_replace(graph, replace, strict=False), dims=dims.get(rv.name)
            )
        for det, graph in zip(model.deterministics, derived, strict=True):
            pm.Deterministic(
                det.name, graph_replace(graph, replace, strict=False), dims=dims.get(det.name)
            )
    return new
