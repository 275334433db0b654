r"""The judge and the success rate across batches: Gaussian random walks on the logit scale.

Model of ``bayesjudge.batches`` (DESIGN.md, "7. Over time"). Batches :math:`t = 1, \dots, T`
(dates, releases, judge versions) come in time order; each has the six counts of the prevalence
model (:class:`bayesjudge.JudgeCounts`): :math:`m_{1t}` gold-PASS items of which the judge
passed :math:`x_{1t}`, :math:`m_{0t}` gold-FAIL items of which it passed :math:`x_{0t}`, and
:math:`n_t` unlabelled items of which it passed :math:`k_t`. The true success rate and the
judge's accuracy move from batch to batch as random walks on the logit scale,

.. math::

    \mathrm{logit}\,\pi_t = \mathrm{logit}\,\pi_{t-1} + \sigma_\pi z_{\pi t}, \quad
    \mathrm{logit}\,\mathrm{Se}_t = \mathrm{logit}\,\mathrm{Se}_{t-1} + \sigma_{Se} z_{Se,t},
    \quad
    \mathrm{logit}\,\mathrm{Sp}_t = \mathrm{logit}\,\mathrm{Sp}_{t-1} + \sigma_{Sp} z_{Sp,t},

with standard normal innovations :math:`z` (non-centred: the sampler moves :math:`z` and the
step sizes separately, which avoids the funnel between a small step size and the walk; with
fixed step sizes there is no funnel, and the walk is centred, :math:`\mathrm{logit}\,\theta_t
\sim N(\mathrm{logit}\,\theta_{t-1}, \sigma^2)`, because at a large fixed step the innovations
would be pinned to a tiny, strongly correlated region), and
each batch's counts enter through the prevalence likelihood,

.. math::

    x_{1t} \sim \mathrm{Bin}(m_{1t}, \mathrm{Se}_t), \;
    x_{0t} \sim \mathrm{Bin}(m_{0t}, 1 - \mathrm{Sp}_t), \;
    k_t \sim \mathrm{Bin}(n_t, \pi_t \mathrm{Se}_t + (1 - \pi_t)(1 - \mathrm{Sp}_t))

(Rogan and Gladen 1978; the local-level model of Harvey, "Forecasting, Structural Time Series
Models and the Kalman Filter", 1989, with binomial observations). The gold labels of a batch
inform its own Se and Sp; a batch with few labels borrows from its neighbours through the walk.

Priors. The first batch's :math:`\pi_1`, :math:`\mathrm{Se}_1`, :math:`\mathrm{Sp}_1` have the
prevalence family's Beta priors (Jeffreys Beta(1/2, 1/2) by default), sampled on the logit scale
(the logit of a Beta variable, whose density is entered as a ``pm.Potential``). The step sizes
are half-normal, :math:`\sigma \sim \mathrm{HalfNormal}(s)` with :data:`STEP_SCALE`
:math:`s = 0.5` by default: the prior median step size is :math:`0.34` on the logit scale (near
a rate of 0.8 about 0.05 in probability per batch) and a step size of 1 (a typical move such
as Sp from 0.90 to 0.77 in one batch) lies at its 95th percentile, so the prior lets the data
show a clear change yet shrinks batch-to-batch noise towards a smooth path. With
``fixed_steps`` the three step sizes are fixed instead of learned:
at a large value (e.g. 100) every batch after the first has an essentially flat prior on its
logits and the posterior of each batch is the independent prevalence fit of that batch (under a
Haldane-like prior, the flat-logit limit); this is how the model is checked against the exact
prevalence posterior.

No :math:`J > 0` restriction is imposed per batch (the restricted prior of the prevalence model
does not carry over to a walk without a wall). The gold labels break the label-switching
symmetry of the test count; a batch without them inherits its neighbours' judge. The
probability :math:`P(J_t > 0)` is read from the draws of ``j``.

Variables (dims in brackets; ``batch`` has :math:`T` entries, ``step`` the :math:`T - 1`
batches after the first):

* free: ``pi_initial_logit``, ``se_initial_logit``, ``sp_initial_logit`` (with the potentials
  ``pi_initial_prior``, ... holding their Beta priors on the logit scale); with learned steps
  ``pi_z``, ``se_z``, ``sp_z`` [step] and ``sigma_pi``, ``sigma_se``, ``sigma_sp``; with fixed
  steps ``pi_logit``, ``se_logit``, ``sp_logit`` [step] (potentials ``pi_walk``, ...);
* derived: ``pi``, ``se``, ``sp``, ``j``, ``judged_rate`` [batch]; ``pi_change``,
  ``se_change``, ``sp_change`` [step] (the change since the previous batch, on the probability
  scale); ``sigma_pi``, ``sigma_se``, ``sigma_sp`` (Deterministic when fixed);
* data (``pm.Data`` along ``batch``): ``m1``, ``x1_obs``, ``m0``, ``x0_obs``, ``n``, ``k_obs``;
* observed: ``x1``, ``x0``, ``k`` [batch].

**Sizes as data** (``pad_to``). A compiled model has fixed array lengths, so each number of
batches would be compiled anew. With ``pad_to`` the batch axis is padded to a given length
with batches that have no counts, after the last one. They do not enter the likelihood, and
the walk runs forward, so their steps change nothing before them: with learned steps their
innovations keep their standard normal prior; with fixed steps (a centred walk, whose padded
logits would form a long correlated chain) each padded logit gets a standard normal prior of
its own instead of its walk step (``step_weight``, 1 for an observed step, 0 for a padded one).
Either way the posterior of the observed batches is unchanged, and a fit keeps their draws
only. One compiled model then serves every number of batches up to that length
(:func:`model_data`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from scipy import special

from bayesjudge.priors import Beta, PrevalencePriors

__all__ = ["STEP_SCALE", "batches_model", "model_data"]

#: Half-normal scale of the three step sizes (logit scale, per batch); see the module docstring.
STEP_SCALE = 0.5

_COUNTS = ("m1", "x1", "m0", "x0", "n", "k")
_WALKS = ("pi", "se", "sp")


def _length(n_batches: int, pad_to: int | None) -> int:
    """Return the padded number of batches, checking ``pad_to`` against the data's."""
    if pad_to is None:
        return n_batches
    if isinstance(pad_to, bool) or not isinstance(pad_to, int | np.integer) or pad_to < n_batches:
        raise ValueError(
            f"pad_to must be a whole number of at least {n_batches} (the batches); got {pad_to!r}"
        )
    return int(pad_to)


def model_data(
    counts: Mapping[str, np.ndarray], *, pad_to: int | None = None, fixed_steps: bool = False
) -> dict[str, np.ndarray]:
    """Return the values of the ``pm.Data`` containers of :func:`batches_model`.

    What a fit swaps into a compiled model built with the same ``pad_to`` and kind of steps:
    the counts, padded with zeros to ``pad_to`` batches, and with fixed steps and ``pad_to``
    each step's weight (module docstring, "Sizes as data").

    Parameters
    ----------
    counts : mapping of str to ndarray
        ``m1``, ``x1``, ``m0``, ``x0``, ``n``, ``k``, one entry per batch.
    pad_to : int, optional
        Length of the batch axis (at least the data's batches).
    fixed_steps : bool, default False
        Whether the model fixes its step sizes (then ``step_weight`` is data too).

    Returns
    -------
    dict of str to ndarray
        int64 arrays ``m1``, ``x1_obs``, ``m0``, ``x0_obs``, ``n``, ``k_obs`` (and
        ``step_weight``).

    Examples
    --------
    >>> counts = {name: np.array([5, 6]) for name in ("m1", "x1", "m0", "x0", "n", "k")}
    >>> data = model_data(counts, pad_to=4, fixed_steps=True)
    >>> data["n"], data["step_weight"]
    (array([5, 6, 0, 0]), array([1, 0, 0]))
    """
    missing = [name for name in _COUNTS if name not in counts]
    if missing:
        raise ValueError(f"counts lacks {missing}; it needs {list(_COUNTS)}")
    n_batches = int(np.size(counts["n"]))
    size = _length(n_batches, pad_to)

    def padded(values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=np.int64)
        return np.concatenate([values, np.zeros(size - values.size, dtype=np.int64)])

    out = {
        name if name in ("m1", "m0", "n") else f"{name}_obs": padded(counts[name])
        for name in _COUNTS
    }
    if fixed_steps and pad_to is not None:
        out["step_weight"] = padded(np.ones(n_batches - 1, dtype=np.int64))[: size - 1]
    return out


def _initial_logit(name: str, prior: Beta) -> pt.TensorVariable:
    r"""Return the first batch's logit :math:`u`, with :math:`\mathrm{expit}(u)` Beta-distributed.

    The density of :math:`u = \mathrm{logit}\,p` for :math:`p \sim \mathrm{Beta}(a, b)` is
    :math:`\mathrm{expit}(u)^a\,\mathrm{expit}(-u)^b / B(a, b)` (the Beta density times the
    Jacobian :math:`p(1 - p)`), entered in log space, with
    :math:`\log\mathrm{expit}(u) = -\mathrm{softplus}(-u)`, so that it stays exact far in the
    tails.
    """
    logit = pm.Flat(f"{name}_initial_logit")
    constant = float(special.betaln(prior.alpha, prior.beta))
    log_p, log_1mp = -pt.softplus(-logit), -pt.softplus(logit)
    pm.Potential(f"{name}_initial_prior", prior.alpha * log_p + prior.beta * log_1mp - constant)
    return logit


def _walk(name: str, start: pt.TensorVariable, sigma: pt.TensorVariable) -> pt.TensorVariable:
    """Return the logits of a non-centred Gaussian random walk along ``batch``."""
    z = pm.Normal(f"{name}_z", 0.0, 1.0, dims="step")
    return pt.concatenate([start[None], start + pt.cumsum(sigma * z)])


def _centred_walk(
    name: str,
    start: pt.TensorVariable,
    sigma: float,
    weight: pt.TensorVariable | None = None,
) -> pt.TensorVariable:
    """Return the logits of a centred Gaussian random walk with a fixed step size.

    With ``weight`` (per step), a step of weight 0 is a padded one: its logit has a standard
    normal prior instead of its walk step.
    """
    later = pm.Flat(f"{name}_logit", dims="step")
    previous = pt.concatenate([start[None], later[:-1]])
    walk = pm.logp(pm.Normal.dist(previous, sigma), later)
    if weight is not None:
        walk = pt.switch(pt.eq(weight, 1), walk, pm.logp(pm.Normal.dist(0.0, 1.0), later))
    pm.Potential(f"{name}_walk", pt.sum(walk))
    return pt.concatenate([start[None], later])


def batches_model(
    batches: Sequence[str],
    counts: Mapping[str, np.ndarray],
    *,
    priors: PrevalencePriors | None = None,
    step_scale: float = STEP_SCALE,
    fixed_steps: float | None = None,
    pad_to: int | None = None,
) -> pm.Model:
    r"""Build the state-space model of pi, Se and Sp across batches.

    .. math::

        \mathrm{logit}\,\theta_t = \mathrm{logit}\,\theta_{t-1} + \sigma_\theta z_{\theta t},
        \; z_{\theta t} \sim N(0, 1), \; \theta \in \{\pi, \mathrm{Se}, \mathrm{Sp}\},

        x_{1t} \sim \mathrm{Bin}(m_{1t}, \mathrm{Se}_t), \;
        x_{0t} \sim \mathrm{Bin}(m_{0t}, 1 - \mathrm{Sp}_t), \;
        k_t \sim \mathrm{Bin}(n_t, \pi_t \mathrm{Se}_t + (1 - \pi_t)(1 - \mathrm{Sp}_t)),

    with the prevalence priors on the first batch and :math:`\sigma_\theta \sim
    \mathrm{HalfNormal}(s)` (see the module docstring; Rogan and Gladen 1978; Harvey 1989).

    Parameters
    ----------
    batches : sequence of str
        Batch names in time order (at least two).
    counts : mapping of str to ndarray
        ``m1``, ``x1``, ``m0``, ``x0``, ``n``, ``k``: integer arrays, one entry per batch.
    priors : PrevalencePriors, optional
        Beta priors of the first batch's pi, Se and Sp; Jeffreys Beta(1/2, 1/2) by default.
    step_scale : float, default 0.5
        Half-normal scale :math:`s` of the learned step sizes (logit scale, per batch).
    fixed_steps : float, optional
        Fix all three step sizes at this value instead of learning them.
    pad_to : int, optional
        Pad the batch axis to this many batches (module docstring, "Sizes as data"): the
        padded batches carry no counts; a fit pads to a few lengths so that one compiled model
        serves any number of batches up to it.

    Returns
    -------
    pymc.Model
        Coords ``batch`` and ``step``; the variables listed in the module docstring.

    Examples
    --------
    >>> import numpy as np
    >>> counts = {name: np.array([20, 20, 20]) for name in ("m1", "m0")}
    >>> counts.update(x1=np.array([18, 17, 18]), x0=np.array([2, 3, 5]))
    >>> counts.update(n=np.array([200, 200, 200]), k=np.array([140, 150, 160]))
    >>> model = batches_model(["a", "b", "c"], counts)
    >>> model.coords["step"]
    ('b', 'c')
    >>> sorted(str(v) for v in model.free_RVs)[:3]
    ['pi_initial_logit', 'pi_z', 'se_initial_logit']
    """
    if priors is None:
        priors = PrevalencePriors()
    if not isinstance(priors, PrevalencePriors):
        raise TypeError(f"priors must be a PrevalencePriors; got {type(priors).__name__}")
    batches = [str(b) for b in batches]
    if len(batches) < 2:
        raise ValueError(f"the model needs at least two batches; got {len(batches)}")
    if not step_scale > 0 or not np.isfinite(step_scale):
        raise ValueError(f"step_scale must be a positive number; got {step_scale!r}")
    if fixed_steps is not None and (not fixed_steps > 0 or not np.isfinite(fixed_steps)):
        raise ValueError(f"fixed_steps must be a positive number or None; got {fixed_steps!r}")
    values = model_data(counts, pad_to=pad_to, fixed_steps=fixed_steps is not None)
    size = _length(len(batches), pad_to)
    names = list(batches)
    j = 0
    while len(names) < size:  # distinct names for the padded batches
        if f"(padding {j})" not in batches:
            names.append(f"(padding {j})")
        j += 1
    coords = {"batch": names, "step": names[1:]}
    with pm.Model(coords=coords) as model:
        data = {
            name: pm.Data(key, values[key], dims="batch")
            for name, key in zip(
                _COUNTS, ("m1", "x1_obs", "m0", "x0_obs", "n", "k_obs"), strict=True
            )
        }
        weight = None
        if "step_weight" in values:
            weight = pm.Data("step_weight", values["step_weight"], dims="step")
        logits = {}
        for name in _WALKS:
            initial = _initial_logit(name, getattr(priors, name))
            if fixed_steps is None:
                sigma = pm.HalfNormal(f"sigma_{name}", sigma=step_scale)
                logits[name] = _walk(name, initial, sigma)
            else:
                pm.Deterministic(f"sigma_{name}", pt.as_tensor(float(fixed_steps)))
                logits[name] = _centred_walk(name, initial, float(fixed_steps), weight)

        pi = pm.Deterministic("pi", pt.sigmoid(logits["pi"]), dims="batch")
        se = pm.Deterministic("se", pt.sigmoid(logits["se"]), dims="batch")
        sp = pm.Deterministic("sp", pt.sigmoid(logits["sp"]), dims="batch")
        fpr = pt.sigmoid(-logits["sp"])
        pm.Deterministic("j", se + sp - 1.0, dims="batch")
        rate = pm.Deterministic("judged_rate", pi * se + (1.0 - pi) * fpr, dims="batch")
        for name, value in (("pi", pi), ("se", se), ("sp", sp)):
            pm.Deterministic(f"{name}_change", value[1:] - value[:-1], dims="step")

        pm.Binomial("x1", n=data["m1"], p=se, observed=data["x1"], dims="batch")
        pm.Binomial("x0", n=data["m0"], p=fpr, observed=data["x0"], dims="batch")
        pm.Binomial("k", n=data["n"], p=rate, observed=data["k"], dims="batch")
    return model
