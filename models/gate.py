r"""Per-item pass-rate hierarchy of a retry-until-PASS gate (model family 2, seed 000).

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
``calibration="random"`` (the default) the labelled items are a random sample of the same
population, so their labels are Bernoulli(:math:`\pi`) draws as well; with
``calibration="by_class"`` only the class-conditional law of the rulings transfers from
labelled to unlabelled items, and their label mixes may differ.

**Cells.** The likelihood depends on an item only through (label, r, k), so each distinct cell
enters once, multiplied by the number of items in it (``weight``); 20,000 unlabelled items with
six rulings are at most seven cells. The cell arrays are ``pm.Data`` padded with weight-0 cells
to a fixed length, so a refit on new data of the same padded length needs no rebuild.

**Derived quantities** for :math:`K = 1, \dots, K_{max}` (coordinate ``k``), from
:math:`E[(1-p)^K] = \omega + (1-\omega)B(a, b+K)/B(a, b)` (seed 000, eqs. 1-5):

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
``kappa`` [class], ``Se``, ``Sp``, ``J``, ``R``, ``bias`` [k], ``J_inf``; data ``cell_label``,
``cell_r``, ``cell_k``, ``cell_weight`` [cell]; potentials ``loglik`` and (random
calibration) ``calibration_labels``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from bayesjudge.gates import GateCells
from bayesjudge.priors import JEFFREYS, Beta

__all__ = ["CALIBRATION", "CLASSES", "GATE", "GatePriors", "gate_model", "pad_cells"]

#: Name of the model, as recorded in posterior attrs.
GATE = "gate"
#: The class coordinate: index 0 violation, 1 compliant.
CLASSES = ("violation", "compliant")
Calibration = Literal["random", "by_class"]
#: How the gold-labelled items were chosen (see :func:`gate_model`).
CALIBRATION: tuple[str, ...] = get_args(Calibration)


@dataclass(frozen=True, slots=True)
class GatePriors:
    """Priors of the gate model, as plain values.

    Attributes
    ----------
    pi : Beta
        Prior of the true success rate of the unlabelled items (Jeffreys by default).
    omega : Beta
        Prior of each class's never-pass weight (uniform by default).
    mu : Beta
        Prior of each class's mean pass rate among ever-passed items (uniform by default).
    log_kappa_mean, log_kappa_sd : float
        Normal prior of each class's log concentration (default N(1, 1.5^2): a 95% range of
        concentration about 0.14 to 51, from U-shaped to tightly clustered pass rates).

    Examples
    --------
    >>> GatePriors().as_dict()["log_kappa"]
    'Normal(1, 1.5)'
    """

    pi: Beta = field(default=JEFFREYS)
    omega: Beta = field(default=Beta(1.0, 1.0))
    mu: Beta = field(default=Beta(1.0, 1.0))
    log_kappa_mean: float = 1.0
    log_kappa_sd: float = 1.5

    def __post_init__(self) -> None:
        if not self.log_kappa_sd > 0:
            raise ValueError(f"log_kappa_sd must be positive; got {self.log_kappa_sd!r}")

    def as_dict(self) -> dict[str, str]:
        """Return the priors as text, e.g. for DataTree attrs."""
        return {
            "pi": str(self.pi),
            "omega": str(self.omega),
            "mu": str(self.mu),
            "log_kappa": f"Normal({self.log_kappa_mean:g}, {self.log_kappa_sd:g})",
        }


def pad_cells(cells: GateCells, size: int) -> dict[str, np.ndarray]:
    """Return the cell arrays padded with weight-0 cells to length ``size``.

    Padding cells are unlabelled with one failed ruling and weight 0, so they add exactly 0 to
    the log likelihood.

    Raises
    ------
    ValueError
        If ``size`` is smaller than the number of cells.

    Examples
    --------
    >>> from bayesjudge.gates import gate_cells
    >>> pad_cells(gate_cells([1.0], [2], [1]), 3)["cell_weight"].tolist()
    [1.0, 0.0, 0.0]
    """
    n = len(cells)
    if size < n:
        raise ValueError(f"size={size} is smaller than the number of cells ({n})")
    extra = size - n
    return {
        "cell_label": np.concatenate([cells.label, np.full(extra, -1)]).astype(np.int64),
        "cell_r": np.concatenate([cells.r, np.ones(extra)]).astype(np.int64),
        "cell_k": np.concatenate([cells.k, np.zeros(extra)]).astype(np.int64),
        "cell_weight": np.concatenate([cells.weight, np.zeros(extra)]).astype(np.float64),
    }


def _betaln(a: pt.TensorVariable, b: pt.TensorVariable) -> pt.TensorVariable:
    return pt.gammaln(a) + pt.gammaln(b) - pt.gammaln(a + b)


def gate_model(
    cells: GateCells,
    *,
    k_max: int = 10,
    priors: GatePriors | None = None,
    n_cells: int | None = None,
    calibration: Calibration = "random",
) -> pm.Model:
    r"""Build the per-item pass-rate hierarchy of a retry gate from its (label, r, k) cells.

    See the module docstring for the model (seed 000, sections 2-5; DESIGN.md family 2).

    Parameters
    ----------
    cells : GateCells
        Distinct cells with multiplicities (:func:`bayesjudge.gates.gate_cells`). At least one
        labelled item of each class is needed to tell the classes apart.
    k_max : int, default 10
        Largest cap K of the derived ``Se``, ``Sp``, ``J``, ``R``, ``bias``.
    priors : GatePriors, optional
        Priors as plain values.
    n_cells : int, optional
        Pad the cell data to this length (default: no padding).
    calibration : {"random", "by_class"}, default "random"
        How the gold-labelled items were chosen. ``"random"``: they are a random sample of the
        same population as the unlabelled items (the random calibration splits of seed 000 and
        the assumption of PPI/PPI++), so each gold label is also a Bernoulli(pi) draw and
        enters as the potential ``calibration_labels`` = :math:`n_1\log\pi +
        n_0\log(1-\pi)`. ``"by_class"``: they were chosen by class (label shift allowed), so
        the labelled class counts say nothing about pi and only the class-conditional law of
        the rulings transfers (the Rogan-Gladen assumption).

    Returns
    -------
    pymc.Model
        Coordinates ``class`` (violation, compliant), ``k`` (1..k_max), ``cell``.

    Raises
    ------
    ValueError
        If a class has no labelled item, there is no unlabelled item, or ``k_max < 1``.

    Examples
    --------
    >>> from bayesjudge.gates import gate_cells
    >>> cells = gate_cells([1, 0, np.nan], [3, 3, 3], [3, 0, 2])
    >>> model = gate_model(cells, k_max=3)
    >>> model.coords["k"], model.named_vars_to_dims["J"]
    ((1, 2, 3), ('k',))
    """
    priors = GatePriors() if priors is None else priors
    if calibration not in CALIBRATION:
        raise ValueError(f"calibration must be one of {list(CALIBRATION)}; got {calibration!r}")
    if not isinstance(priors, GatePriors):
        raise TypeError(f"priors must be a GatePriors; got {type(priors).__name__}")
    if isinstance(k_max, bool) or int(k_max) != k_max or k_max < 1:
        raise ValueError(f"k_max must be a whole number >= 1; got {k_max!r}")
    n_violation, n_compliant = cells.n_labelled
    if n_violation == 0 or n_compliant == 0:
        raise ValueError(
            "the gate model needs gold-labelled items of both classes; got "
            f"{n_compliant} compliant and {n_violation} violation items"
        )
    if cells.n_unlabelled == 0:
        raise ValueError("the gate model needs unlabelled items to estimate pi; there are none")
    data = pad_cells(cells, len(cells) if n_cells is None else int(n_cells))
    caps = np.arange(1, int(k_max) + 1)
    coords = {
        "class": CLASSES,
        "k": tuple(int(c) for c in caps),
        "cell": tuple(range(data["cell_label"].size)),
    }
    with pm.Model(coords=coords) as model:
        label = pm.Data("cell_label", data["cell_label"], dims="cell")
        r = pm.Data("cell_r", data["cell_r"], dims="cell")
        k = pm.Data("cell_k", data["cell_k"], dims="cell")
        weight = pm.Data("cell_weight", data["cell_weight"], dims="cell")

        pi = pm.Beta("pi", alpha=priors.pi.alpha, beta=priors.pi.beta)
        omega = pm.Beta("omega", alpha=priors.omega.alpha, beta=priors.omega.beta, dims="class")
        mu = pm.Beta("mu", alpha=priors.mu.alpha, beta=priors.mu.beta, dims="class")
        log_kappa = pm.Normal(
            "log_kappa", mu=priors.log_kappa_mean, sigma=priors.log_kappa_sd, dims="class"
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

        # closed forms over caps: E[(1-p)^K | Beta] = B(a, b+K) / B(a, b); shape (class, k)
        tail = pt.exp(_betaln(a[:, None], b[:, None] + caps[None, :]) - _betaln(a, b)[:, None])
        ship = (1.0 - omega[:, None]) * (1.0 - tail)
        se = pm.Deterministic("Se", ship[1], dims="k")
        fpr = ship[0]
        pm.Deterministic("Sp", 1.0 - fpr, dims="k")
        pm.Deterministic("J", se - fpr, dims="k")
        reported = pm.Deterministic("R", pi * se + (1.0 - pi) * fpr, dims="k")
        pm.Deterministic("bias", reported - pi, dims="k")
        pm.Deterministic("J_inf", omega[0] - omega[1])
    return model
