r"""Systems compared on shared items with several judged answers each (families 4 and 6 joined).

System :math:`s` answers item :math:`i` several times; each answer's true outcome is
:math:`y \sim \mathrm{Bernoulli}(p_{si})` with

.. math::

    \mathrm{logit}\,p_{si} = \mu_s + \sigma_b z_i + \sigma_e e_{si} + \tau u_{c(i)},
    \qquad z_i, e_{si}, u_c \sim N(0, 1),

non-centred: :math:`\sigma_b z_i` is the item effect shared by every system (the pairing: an
item hard for one system tends to be hard for all), :math:`\sigma_e e_{si}` the system-item
spread (how much a system's own success probability on an item departs from that), and
:math:`\tau u_c` the cluster level when items are grouped in clusters (tasks, conversations),
as in :mod:`bayesjudge.models.repeated`. The judge's verdicts follow
:math:`P(\hat y = 1 \mid y = 1) = \mathrm{Se}_s`, :math:`P(\hat y = 1 \mid y = 0) = f_s = 1 -
\mathrm{Sp}_s`, one pair for every system or one per system (``judge=``, with the systems
family's priors, pooling and exact :math:`J > 0` restriction: :mod:`bayesjudge.models.systems`).
Unlabelled answers' true labels are summed out, so the :math:`k_{si}` PASS verdicts among
:math:`n_{si}` unlabelled answers are :math:`\mathrm{Bin}(n_{si}, p_{si}\mathrm{Se}_s + (1 -
p_{si}) f_s)`, and gold-labelled answers inform the judge,
:math:`x_{1,si} \sim \mathrm{Bin}(m_{1,si}, \mathrm{Se}_s)`,
:math:`x_{0,si} \sim \mathrm{Bin}(m_{0,si}, f_s)`, and, under ``calibration="random"`` only
(the gold answers a random sample of the answers), the success probability too,
:math:`m_{1,si} \sim \mathrm{Bin}(m_{1,si} + m_{0,si}, p_{si})`. The likelihood depends on the
data only through the six counts of each (system, item) cell, so its cost does not grow with
the number of answers.

**Priors.** :math:`\mathrm{logit}^{-1}\mu_s`, system :math:`s`'s success rate on the median
item, has the Beta prior ``priors.pi`` of the systems family; :math:`\sigma_b` the
``difficulty_sd`` prior (HalfNormal(1.5) by default), :math:`\sigma_e` and :math:`\tau`
half-normal priors with scales ``spread_sd`` (1) and ``cluster_sd`` (1.5, the repeated
family's :math:`\tau`).

**Estimand.** ``pi`` [system], each system's success rate over the population the items come
from, as the repeated family defines ``population_rate``:

.. math::

    \pi_s = E\big[\mathrm{logit}^{-1}(\mu_s + s x)\big],\quad x \sim N(0, 1),\quad
    s = \sqrt{\sigma_b^2 + \sigma_e^2 + \tau^2},

by Gauss-Hermite quadrature (:data:`bayesjudge.models.repeated.QUADRATURE_NODES` nodes). The
systems share :math:`s`, so :math:`\pi_b - \pi_a` compares them on one population of items.

**Reduction.** Without spread (``spread=False``: no :math:`\sigma_b`, :math:`\sigma_e`,
:math:`\tau`) every :math:`p_{si} = \pi_s`, the cells' binomials multiply to one binomial per
system, and the model is :func:`bayesjudge.models.systems.systems_model` with the same priors
and judge: the same posterior (checked in ``tests/systems/test_repeated_model.py``).

Variables: the judge's as in :mod:`bayesjudge.models.systems`; free ``median_rate`` [system]
(and ``item_sd``, ``item_z`` [item], ``cell_sd``, ``cell_z`` [cell], ``cluster_sd``,
``cluster_z`` [cluster]); derived ``pi``, ``judged_rate``, ``bias`` [system], ``cell_rate``
[cell]; data ``cell_system``, ``cell_item``, ``n``, ``k_obs``, ``m1``, ``x1_obs``, ``m0``,
``x0_obs`` [cell] (and ``cluster_index`` [item]); observed ``k``, ``x1``, ``x0`` (and ``gold``).

References
----------
G. Rasch, "Probabilistic Models for Some Intelligence and Attainment Tests", 1960 (the shared
item effect); Rogan and Gladen, "Estimating prevalence from the results of a screening test",
1978 (the judge as a diagnostic test).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from numpy.polynomial.hermite_e import hermegauss

from bayesjudge.models.repeated import QUADRATURE_NODES
from bayesjudge.models.systems import (
    Calibration,
    Judge,
    Pooling,
    SystemsModelInfo,
    _check_options,
    _derived_rates,
    _judge,
    _log_sigmoid,
    resolve_pooling,
)
from bayesjudge.priors import SystemsPriors

__all__ = ["REPEATED_SYSTEMS", "model_info", "repeated_systems_model"]

#: Model name, as recorded in posterior attrs.
REPEATED_SYSTEMS = "systems_repeated"
_COUNTS = ("n", "k", "m1", "x1", "m0", "x0")
_INFO: weakref.WeakKeyDictionary[pm.Model, SystemsModelInfo] = weakref.WeakKeyDictionary()


def model_info(model: pm.Model) -> SystemsModelInfo:
    """Return the :class:`~bayesjudge.models.systems.SystemsModelInfo` of a model built here.

    Raises
    ------
    KeyError
        If ``model`` was not built by :func:`repeated_systems_model`.
    """
    try:
        return _INFO[model]
    except KeyError:
        raise KeyError("this model was not built by repeated_systems_model") from None


def repeated_systems_model(
    systems: Sequence[str],
    items: Sequence[str],
    cell_system: np.ndarray,
    cell_item: np.ndarray,
    counts: Mapping[str, np.ndarray],
    *,
    clusters: Sequence[str] | None = None,
    cluster_index: np.ndarray | None = None,
    priors: SystemsPriors | None = None,
    judge: Judge = "shared",
    calibration: Calibration = "by_class",
    restrict_j: bool = True,
    pooling: Pooling | None = None,
    spread: bool = True,
    spread_sd: float = 1.0,
    cluster_sd: float = 1.5,
) -> pm.Model:
    r"""Build the model of several systems answering shared items several times each.

    .. math::

        \mathrm{logit}\,p_{si} = \mu_s + \sigma_b z_i + \sigma_e e_{si} + \tau u_{c(i)},\quad
        k_{si} \sim \mathrm{Bin}\big(n_{si}, p_{si}\mathrm{Se}_s + (1 - p_{si}) f_s\big),

        x_{1,si} \sim \mathrm{Bin}(m_{1,si}, \mathrm{Se}_s),\quad
        x_{0,si} \sim \mathrm{Bin}(m_{0,si}, f_s),\quad
        \pi_s = E\big[\mathrm{logit}^{-1}(\mu_s + \textstyle\sqrt{\sigma_b^2 + \sigma_e^2
        + \tau^2}\,x)\big].

    See the module docstring for the priors, the estimand and the reduction to
    :func:`~bayesjudge.models.systems.systems_model`.

    Parameters
    ----------
    systems, items : sequence of str
        Coordinates ``system`` and ``item``.
    cell_system, cell_item : ndarray of int
        Each cell's system and item (positions in ``systems`` and ``items``).
    counts : mapping of str to ndarray
        Integer arrays along the cells: ``n``, ``k``, ``m1``, ``x1``, ``m0``, ``x0``
        (:meth:`bayesjudge.systems.repeated.RepeatedSystemsData.counts`).
    clusters : sequence of str, optional
        Cluster names; with ``cluster_index`` (each item's cluster) adds the cluster level.
    cluster_index : ndarray of int, optional
        Each item's cluster (position in ``clusters``).
    priors : SystemsPriors, optional
        ``pi`` (each system's median-item rate), ``se``, ``sp``, ``difficulty_sd`` (the item
        effect's scale), ``judge_mu``, ``judge_sigma``; the defaults by default.
    judge : {"shared", "system"}
        One Se and Sp for every system, or one pair per system.
    calibration : {"by_class", "random"}
        Whether the gold labels inform only the judge (default) or the rates too.
    restrict_j : bool, default True
        Condition the judge's prior on J > 0 exactly.
    pooling : {"partial", "none"}, optional
        How a per-system judge is tied together
        (:func:`~bayesjudge.models.systems.resolve_pooling`).
    spread : bool, default True
        Include the item effect, the system-item spread and the cluster level; ``False`` gives
        every item of a system the same rate.
    spread_sd, cluster_sd : float
        Scales of the half-normal priors of :math:`\sigma_e` and :math:`\tau`.

    Returns
    -------
    pymc.Model
        Coordinates ``system``, ``item``, ``cell`` (and ``cluster``).

    Examples
    --------
    >>> counts = {"n": np.array([3, 3, 3, 3]), "k": np.array([2, 3, 0, 1]),
    ...           "m1": np.array([1, 0, 0, 0]), "x1": np.array([1, 0, 0, 0]),
    ...           "m0": np.array([0, 0, 0, 1]), "x0": np.array([0, 0, 0, 0])}
    >>> model = repeated_systems_model(("a", "b"), ("q1", "q2"), np.array([0, 1, 0, 1]),
    ...                                np.array([0, 0, 1, 1]), counts)
    >>> sorted(v.name for v in model.free_RVs)  # doctest: +NORMALIZE_WHITESPACE
    ['cell_sd', 'cell_z', 'item_sd', 'item_z', 'logit_fpr_ratio', 'logit_se', 'median_rate']
    """
    priors = _check_options(priors, judge, calibration, restrict_j)
    missing = [name for name in _COUNTS if name not in counts]
    if missing:
        raise ValueError(f"counts lacks {missing}; it needs {list(_COUNTS)}")
    n_systems = len(systems)
    if n_systems < 2:
        raise ValueError(f"repeated_systems_model needs two or more systems; got {list(systems)}")
    cell_system = np.asarray(cell_system, dtype=np.int64)
    cell_item = np.asarray(cell_item, dtype=np.int64)
    n_cells = cell_system.size
    if cell_item.shape != (n_cells,) or any(np.shape(counts[c]) != (n_cells,) for c in _COUNTS):
        raise ValueError("cell_system, cell_item and every count must have one entry per cell")
    for name, scale in (("spread_sd", spread_sd), ("cluster_sd", cluster_sd)):
        if not (np.isfinite(scale) and scale > 0):
            raise ValueError(f"{name} must be a positive number; got {scale!r}")
    pooled = resolve_pooling(pooling, judge, n_systems)
    clustered = spread and clusters is not None
    coords: dict[str, Sequence[object]] = {
        "system": tuple(systems),
        "item": tuple(items),
        "cell": tuple(range(n_cells)),
    }
    if clustered:
        if cluster_index is None:
            raise ValueError("clusters needs cluster_index, each item's cluster")
        coords["cluster"] = tuple(clusters)  # type: ignore[arg-type]
    nodes, weights = hermegauss(QUADRATURE_NODES)
    log_w = np.log(weights / weights.sum())
    with pm.Model(coords=coords) as model:
        system = pm.Data("cell_system", cell_system, dims="cell")
        item = pm.Data("cell_item", cell_item, dims="cell")
        data = {
            name: pm.Data(key, np.asarray(counts[name], dtype=np.int64), dims="cell")
            for name, key in zip(
                _COUNTS, ("n", "k_obs", "m1", "x1_obs", "m0", "x0_obs"), strict=True
            )
        }
        terms = _judge(priors, judge, restrict_j, n_systems, pooled)
        median = pm.Beta("median_rate", priors.pi.alpha, priors.pi.beta, dims="system")
        mu = pt.log(median) - pt.log1p(-median)
        logit_p = mu[system]
        scale2 = pt.as_tensor_variable(0.0)
        if spread:
            item_sd = pm.HalfNormal("item_sd", sigma=priors.difficulty_sd.sigma)
            item_z = pm.Normal("item_z", 0.0, 1.0, dims="item")
            cell_sd = pm.HalfNormal("cell_sd", sigma=spread_sd)
            cell_z = pm.Normal("cell_z", 0.0, 1.0, dims="cell")
            logit_p = logit_p + item_sd * item_z[item] + cell_sd * cell_z
            scale2 = item_sd**2 + cell_sd**2
        if clustered:
            index = pm.Data("cluster_index", np.asarray(cluster_index, dtype=np.int64), dims="item")
            cluster_sd_var = pm.HalfNormal("cluster_sd", sigma=cluster_sd)
            cluster_z = pm.Normal("cluster_z", 0.0, 1.0, dims="cluster")
            logit_p = logit_p + cluster_sd_var * cluster_z[index][item]
            scale2 = scale2 + cluster_sd_var**2
        pm.Deterministic("cell_rate", pt.sigmoid(logit_p), dims="cell")
        eta = mu[:, None] + pt.sqrt(scale2) * pt.as_tensor_variable(nodes)[None, :]
        pi = pm.Deterministic(
            "pi", pt.exp(pt.logsumexp(_log_sigmoid(eta) + log_w[None, :], axis=1)), dims="system"
        )
        _derived_rates(pi, terms)

        # P(verdict PASS | unlabelled answer), formed in log space from log p and log(1 - p)
        log_p, log_q = _log_sigmoid(logit_p), _log_sigmoid(-logit_p)
        log_pass = pt.logaddexp(log_p + terms.log_se[system], log_q + terms.log_fp[system])
        log_fail = pt.logaddexp(log_p + terms.log_fn[system], log_q + terms.log_tn[system])
        pm.Binomial("k", n=data["n"], logit_p=log_pass - log_fail, observed=data["k"], dims="cell")
        pm.Binomial(
            "x1", n=data["m1"], logit_p=terms.logit_se[system], observed=data["x1"], dims="cell"
        )
        pm.Binomial(
            "x0",
            n=data["m0"],
            logit_p=(terms.log_fp - terms.log_tn)[system],
            observed=data["x0"],
            dims="cell",
        )
        if calibration == "random":
            pm.Binomial(
                "gold", n=data["m1"] + data["m0"], logit_p=logit_p, observed=data["m1"], dims="cell"
            )
    _INFO[model] = SystemsModelInfo(
        REPEATED_SYSTEMS, priors, judge, calibration, restrict_j, tuple(systems), pooled
    )
    return model
