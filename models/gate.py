r"""Per-item pass-rate hierarchy of a retry-until-PASS gate.

Reference: model family 2, Below the Reliability Floor.

Each item :math:`i` has a per-ruling pass probability :math:`p_i`. In class
:math:`c \in \{\text{violation}, \text{compliant}\}` it is zero-inflated Beta:

.. math::

    p_i \mid y_i = c \;\sim\; \omega_c\,\delta_0 + (1 - \omega_c)\,
        \mathrm{Beta}(\mu_c\kappa_c, (1 - \mu_c)\kappa_c),
    \qquad k_i \mid p_i \sim \mathrm{Bin}(r_i, p_i).

Integrating :math:`p_i` out gives a zero-inflated beta-binomial,

.. math::

    P(k \mid r, c) = \omega_c\,\mathbf 1\{k = 0\}
        + (1 - \omega_c)\binom{r}{k}\frac{B(k + a_c, r - k + b_c)}{B(a_c, b_c)}.

Gold-labelled items enter with their class; unlabelled items are a two-class mixture with
weight :math:`\pi`: :math:`P(k \mid r) = \pi P(k \mid r, 1) + (1-\pi) P(k \mid r, 0)`. With
``calibration="by_class"`` (the default) only the class-conditional law of the rulings
transfers from labelled to unlabelled items, and their label mixes may differ (gold sets are
often drawn so many of each class); with ``calibration="random"`` the labelled items are a
random sample of the same population, so their labels are Bernoulli(:math:`\pi`) draws as
well.

**Cells.** The likelihood depends on an item only through (label, r, k), so each distinct cell
enters once, multiplied by the number of items in it (``weight``); 20,000 unlabelled items with
six rulings are at most seven cells. The cell arrays are ``pm.Data`` padded with weight-0 cells
to a fixed length, so a refit on new data of the same padded length needs no rebuild.

**Derived quantities** at any cap :math:`K`, from
:math:`E[(1-p)^K] = \omega + (1-\omega)B(a, b+K)/B(a, b)` (Below the Reliability Floor,
anonymous, under review 2026, eqs. 1-5), are closed-form functions of the class parameters;
they are computed from the posterior draws for the caps asked for
(:func:`bayesjudge.gates.fit.cap_curve_draws`), so the model has no cap dimension:

.. math::

    \mathrm{Se}(K) = (1 - \omega_1)\left(1 - \tfrac{B(a_1, b_1 + K)}{B(a_1, b_1)}\right),\quad
    1 - \mathrm{Sp}(K) = (1 - \omega_0)\left(1 - \tfrac{B(a_0, b_0 + K)}{B(a_0, b_0)}\right),

    J(K) = \mathrm{Se}(K) + \mathrm{Sp}(K) - 1,\quad
    R(K) = \pi\,\mathrm{Se}(K) + (1 - \pi)(1 - \mathrm{Sp}(K)),\quad
    J(\infty) = \omega_0 - \omega_1.

**Parametrisation.** :math:`\omega_c`, :math:`\mu_c`, :math:`\pi` are Beta variables (sampled
on the logit scale) and :math:`\log\kappa_c` is normal, so NUTS works on an unconstrained,
roughly Gaussian space; no data-dependent wall is needed because labelled items pin down which
class is which.

Variables: free ``pi``, ``omega`` [class], ``mu`` [class], ``log_kappa`` [class]; derived
``kappa`` [class], ``j_inf``; data ``cell_label``, ``cell_r``, ``cell_k``, ``cell_weight``
[cell]; potentials ``loglik`` and (random calibration) ``calibration_labels``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from bayesjudge.priors import GatePriors

__all__ = ["CALIBRATION", "CLASSES", "GATE", "gate_model"]

#: Name of the model, as recorded in posterior attrs.
GATE = "gate"
#: The class coordinate: index 0 violation, 1 compliant.
CLASSES = ("violation", "compliant")
Calibration = Literal["by_class", "random"]
#: How the gold-labelled items were chosen (see :func:`gate_model`).
CALIBRATION: tuple[str, ...] = get_args(Calibration)


def _betaln(a: pt.TensorVariable, b: pt.TensorVariable) -> pt.TensorVariable:
    return pt.gammaln(a) + pt.gammaln(b) - pt.gammaln(a + b)


def gate_model(
    cells: Mapping[str, np.ndarray],
    *,
    priors: GatePriors | None = None,
    calibration: Calibration = "by_class",
) -> pm.Model:
    r"""Build the per-item pass-rate hierarchy of a retry gate from its (label, r, k) cells.

    See the module docstring for the model.

    Parameters
    ----------
    cells : mapping of str to ndarray
        ``cell_label`` (1 compliant, 0 violation, -1 unlabelled), ``cell_r``, ``cell_k`` and
        ``cell_weight`` of the distinct cells, padded with weight-0 cells to a fixed length
        (:func:`bayesjudge.gates.cells.pad_cells`). At least one labelled item of each class is
        needed to tell the classes apart (checked by :func:`bayesjudge.fit_gate`).
    priors : GatePriors, optional
        Priors as plain values.
    calibration : {"by_class", "random"}, default "by_class"
        How the gold-labelled items were chosen. ``"by_class"``: they were chosen by class
        (label shift allowed), so the labelled class counts say nothing about pi and only the
        class-conditional law of the rulings transfers (the Rogan-Gladen assumption).
        ``"random"``: they are a random sample of the same population as the unlabelled items
        (the assumption of PPI), so each gold label is also a Bernoulli(pi) draw and enters as
        the potential ``calibration_labels`` = :math:`n_1\log\pi + n_0\log(1-\pi)`.

    Returns
    -------
    pymc.Model
        Coordinates ``class`` (violation, compliant) and ``cell``.

    Examples
    --------
    >>> from bayesjudge.gates.cells import gate_cells, pad_cells
    >>> cells = pad_cells(gate_cells([1, 0, np.nan], [3, 3, 3], [3, 0, 2]), 4)
    >>> model = gate_model(cells)
    >>> model.named_vars_to_dims["omega"]
    ('class',)
    """
    priors = GatePriors() if priors is None else priors
    if calibration not in CALIBRATION:
        raise ValueError(f"calibration must be one of {list(CALIBRATION)}; got {calibration!r}")
    if not isinstance(priors, GatePriors):
        raise TypeError(f"priors must be a GatePriors; got {type(priors).__name__}")
    size = int(np.asarray(cells["cell_label"]).size)
    coords = {"class": CLASSES, "cell": tuple(range(size))}
    with pm.Model(coords=coords) as model:
        label = pm.Data("cell_label", np.asarray(cells["cell_label"]), dims="cell")
        r = pm.Data("cell_r", np.asarray(cells["cell_r"]), dims="cell")
        k = pm.Data("cell_k", np.asarray(cells["cell_k"]), dims="cell")
        weight = pm.Data("cell_weight", np.asarray(cells["cell_weight"]), dims="cell")

        pi = pm.Beta("pi", alpha=priors.pi.alpha, beta=priors.pi.beta)
        omega = pm.Beta("omega", alpha=priors.omega.alpha, beta=priors.omega.beta, dims="class")
        mu = pm.Beta("mu", alpha=priors.mu.alpha, beta=priors.mu.beta, dims="class")
        log_kappa = pm.Normal(
            "log_kappa", mu=priors.log_kappa.mu, sigma=priors.log_kappa.sigma, dims="class"
        )
        kappa = pm.Deterministic("kappa", pt.exp(log_kappa), dims="class")
        a = mu * kappa
        b = (1.0 - mu) * kappa

        # zero-inflated beta-binomial log pmf of each cell under each class: shape (cell, class)
        rr, kk = r[:, None], k[:, None]
        log_choose = pt.gammaln(rr + 1.0) - pt.gammaln(kk + 1.0) - pt.gammaln(rr - kk + 1.0)
        log_bb = log_choose + _betaln(kk + a, rr - kk + b) - _betaln(a, b)
        log_pass_part = pt.log1p(-omega) + log_bb
        log_cell = pt.switch(
            pt.eq(kk, 0), pt.logaddexp(pt.log(omega), log_pass_part), log_pass_part
        )
        labelled = pt.switch(pt.eq(label, 1), log_cell[:, 1], log_cell[:, 0])
        unlabelled = pt.logaddexp(pt.log(pi) + log_cell[:, 1], pt.log1p(-pi) + log_cell[:, 0])
        per_cell = pt.switch(pt.lt(label, 0), unlabelled, labelled)
        pm.Potential("loglik", pt.sum(weight * per_cell))
        if calibration == "random":
            n1 = pt.sum(weight * pt.eq(label, 1))
            n0 = pt.sum(weight * pt.eq(label, 0))
            pm.Potential("calibration_labels", n1 * pt.log(pi) + n0 * pt.log1p(-pi))
        pm.Deterministic("j_inf", omega[0] - omega[1])
    return model
