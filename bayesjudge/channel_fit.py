r"""Posteriors of channel kernels: exact conjugate fast paths, PyMC fits and the Markov check.

Two routes to the same quantities (seed 003; models in :mod:`bayesjudge.models.channel`):

* **exact** (independent draws, no MCMC): every rate has a conjugate Beta posterior under the
  Jeffreys prior, so :func:`step_summaries`, :func:`composition_posterior` and
  :func:`markov_check` draw from closed forms;
* **PyMC** (NUTS through nutpie): :func:`fit_steps`, :func:`fit_slices` (the non-centred slice
  hierarchy with a mixture-shift prediction), :func:`fit_stack` (composition-gap posterior) and
  :func:`fit_markov` (the Markov null with posterior predictive counts). Each returns an ArviZ
  DataTree with attrs naming the model, the prior and the package version; check it with
  :func:`bayesjudge.diagnostics.check_fit`.

**Markov check.** For every step after the first, split the items by the stage before the
current one, :math:`a = E_{t-1}`, within each current state :math:`b = E_t`, and compare
:math:`P(E_{t+1} = 1 \mid E_{t-1} = a, E_t = b)` across :math:`a` with the Pearson statistic of
each 2x2 table,

.. math:: D = \sum_{t \ge 1} \sum_b \sum_{a, j} \frac{(n_{abj} - \hat e_{abj})^2}{\hat e_{abj}},

(cells with zero expectation contribute 0). Under the Markov null
:math:`E_{t+1} \perp E_{t-1} \mid E_t` replicated tables draw :math:`y^{rep}_{ab} \sim
\mathrm{Bin}(n_{ab}, q_t(b))` with :math:`q_t` from its posterior; the tail probability is
:math:`P(D^{rep} \ge D^{obs})`. Because :math:`D` re-estimates the pooled rate from each table
it is nearly pivotal, so this posterior predictive p-value is close to uniform under the null
(the false-alarm rate measured in ``docs/channel.md`` is near nominal).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr
from scipy import special

from bayesjudge._version import __version__
from bayesjudge.channel import (
    channel_posterior,
    gate,
    jeffreys_rates,
    kernels_from_joint,
    mixture_prediction,
    slice_counts,
    stack_counts,
)
from bayesjudge.compare import PosteriorSummary, posterior_summary
from bayesjudge.priors import JEFFREYS, Beta
from bayesjudge.results import Interval
from bayesjudge.sampling import ModelCache, resolve_sampler, sample_nuts
from bayesjudge.simulate import rng_from

if TYPE_CHECKING:
    import pymc as pm

    from bayesjudge.data import PairedOutcomes

__all__ = [
    "ChannelAnalysis",
    "MarkovCheck",
    "SliceSummary",
    "StepSummary",
    "channel_analysis",
    "composition_posterior",
    "exact_draws_tree",
    "fit_markov",
    "fit_slices",
    "fit_stack",
    "fit_steps",
    "markov_check",
    "markov_statistic",
    "mixture_summary",
    "slice_summaries",
    "step_summaries",
]

_VERDICTS = ("consistent_with_markov", "not_markov")
#: Compiled channel models, keyed by model kind and data shapes (see :func:`_sample`).
_CACHE = ModelCache(8)


def _outcomes(data: PairedOutcomes | np.ndarray) -> np.ndarray:
    values = np.asarray(getattr(data, "outcomes", data))
    if values.ndim != 2 or values.shape[1] < 2 or not np.isin(values, (0, 1)).all():
        raise ValueError(f"outcomes must be 0/1 with shape (N, S + 1), S >= 1; got {values.shape}")
    return values.astype(np.int64)


def _check_prob(prob: float) -> float:
    if not 0.0 < prob < 1.0:
        raise ValueError(f"prob must lie in (0, 1); got {prob!r}")
    return float(prob)


def _check_draws(draws: int) -> int:
    if int(draws) != draws or draws < 10:
        raise ValueError(f"draws must be a whole number >= 10; got {draws!r}")
    return int(draws)


def _exact_summary(name: str, posterior: Any, prob: float) -> PosteriorSummary:
    low, high = posterior.interval(prob)
    median = special.betaincinv(posterior.alpha, posterior.beta, 0.5)
    # The HDI of a Beta has no closed form; the exact summary reports the ETI in both slots.
    eti = Interval(float(low), float(high), prob, "eti")
    return PosteriorSummary(
        name=name,
        mean=float(posterior.mean),
        sd=float(posterior.sd),
        median=float(median),
        eti=eti,
        hdi=Interval(float(low), float(high), prob, "eti"),
    )


def _draw_summary(name: str, draws: np.ndarray, prob: float) -> PosteriorSummary:
    data = xr.Dataset({name: (("chain", "draw"), np.asarray(draws).reshape(1, -1))})
    return posterior_summary(data, name, prob=prob)


# --------------------------------------------------------------------------- per-step summaries
@dataclass(frozen=True, slots=True, kw_only=True)
class _Rates:
    """Fields shared by a step and a slice summary: counts, rates and the gate decision."""

    n: int
    p0: float
    p1: float
    c_jeffreys: float
    gamma_jeffreys: float
    c: PosteriorSummary
    gamma: PosteriorSummary
    gain: PosteriorSummary
    gate_on: bool

    def _rates_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "p0": self.p0,
            "p1": self.p1,
            "c_jeffreys": self.c_jeffreys,
            "gamma_jeffreys": self.gamma_jeffreys,
            "c": self.c.to_dict(),
            "gamma": self.gamma.to_dict(),
            "gain": self.gain.to_dict(),
            "gate_on": self.gate_on,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class StepSummary(_Rates):
    r"""One step of a stack: counts, Jeffreys rates, exact posteriors and the gate decision.

    Attributes
    ----------
    source, target : str
        Stage names, e.g. ``"e0"`` and ``"e1"``.
    n : int
        Items.
    p0, p1 : float
        Observed accuracy before and after the step.
    c_jeffreys, gamma_jeffreys : float
        Seed 003 eq. 14.
    c, gamma, gain : PosteriorSummary
        Exact Beta posteriors of the rates; the gain :math:`(1 - p)c - p\gamma` with :math:`p`
        the accuracy entering the step (its own Jeffreys posterior).
    gate_on : bool
        Whether the predicted gain at the observed baseline exceeds the threshold.
    """

    source: str
    target: str

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape of one entry of ``steps`` in ``bayesjudge channel --json``."""
        return {"from": self.source, "to": self.target, **self._rates_dict()}


def step_summaries(
    data: PairedOutcomes | np.ndarray,
    *,
    prob: float = 0.95,
    threshold: float = 0.0,
    draws: int = 4000,
    prior: Beta = JEFFREYS,
    random_seed: int | np.random.Generator | None = None,
) -> list[StepSummary]:
    r"""Summarise every step of a stack with exact conjugate posteriors.

    For step :math:`t \to t+1`: :math:`c_t \sim \mathrm{Beta}(n_{01} + 1/2, n_{00} + 1/2)`,
    :math:`\gamma_t \sim \mathrm{Beta}(n_{10} + 1/2, n_{11} + 1/2)` and the accuracy entering the
    step :math:`p_t \sim \mathrm{Beta}(n_1 + 1/2, n_0 + 1/2)` are independent a posteriori (the
    likelihood of :math:`(E_t, E_{t+1})` factorises), so the gain
    :math:`(1 - p_t)c_t - p_t\gamma_t` is summarised from ``draws`` independent draws. The gate
    is on when the Jeffreys point gain exceeds ``threshold`` (seed 003, Sec. 8.1).

    Parameters
    ----------
    data : PairedOutcomes or ndarray of shape (N, S + 1)
        The stack.
    prob : float
        Interval mass.
    threshold : float
        Cost of the step in accuracy points.
    draws : int
        Independent draws of the gain.
    prior : Beta
        Prior of every rate.
    random_seed : int, Generator or None
        Seed of the gain draws.

    Returns
    -------
    list of StepSummary

    Examples
    --------
    >>> e = np.array([[0, 1]] * 30 + [[0, 0]] * 70 + [[1, 1]] * 95 + [[1, 0]] * 5)
    >>> s = step_summaries(e, random_seed=0)[0]
    >>> round(s.c_jeffreys, 4), s.gate_on
    (0.302, True)
    """
    prob = _check_prob(prob)
    draws = _check_draws(draws)
    e = _outcomes(data)
    stages = tuple(getattr(data, "stages", [f"e{t}" for t in range(e.shape[1])]))
    rng = rng_from(random_seed)
    counts = stack_counts(e)
    c_post, g_post = channel_posterior(counts, prior=prior)
    c_hat, g_hat = jeffreys_rates(counts)
    out = []
    for t in range(counts.shape[0]):
        n_t = counts[t]
        n = int(n_t.sum())
        p_before = float(n_t[1].sum() / n)
        p_draw = rng.beta(n_t[1].sum() + prior.alpha, n_t[0].sum() + prior.beta, size=draws)
        c_draw = rng.beta(c_post.alpha[t], c_post.beta[t], size=draws)
        g_draw = rng.beta(g_post.alpha[t], g_post.beta[t], size=draws)
        gain = (1 - p_draw) * c_draw - p_draw * g_draw
        c_t = type(c_post)(c_post.alpha[t], c_post.beta[t])
        g_t = type(g_post)(g_post.alpha[t], g_post.beta[t])
        out.append(
            StepSummary(
                source=stages[t],
                target=stages[t + 1],
                n=n,
                p0=p_before,
                p1=float(n_t[:, 1].sum() / n),
                c_jeffreys=float(c_hat[t]),
                gamma_jeffreys=float(g_hat[t]),
                c=_exact_summary("c", c_t, prob),
                gamma=_exact_summary("gamma", g_t, prob),
                gain=_draw_summary("gain", gain, prob),
                gate_on=bool(gate(p_before, c_hat[t], g_hat[t], threshold=threshold)),
            )
        )
    return out


# --------------------------------------------------------------------------- composition
def _joint_draws(e: np.ndarray, draws: int, prior: Beta, rng: np.random.Generator) -> np.ndarray:
    from bayesjudge.models.channel import history_counts

    n_items = e.shape[0]
    k1 = e[:, 0].sum()
    p0 = rng.beta(k1 + prior.alpha, n_items - k1 + prior.beta, size=draws)
    joint = np.stack([1 - p0, p0], axis=-1)
    for t, (n_h, y_h) in enumerate(history_counts(e), start=1):
        q = rng.beta(y_h + prior.alpha, n_h - y_h + prior.beta, size=(draws, 2**t))
        q = q.reshape((draws,) + (2,) * t)
        joint = np.stack([joint * (1 - q), joint * q], axis=-1)
    return joint


def composition_posterior(
    data: PairedOutcomes | np.ndarray,
    *,
    draws: int = 4000,
    prior: Beta = JEFFREYS,
    random_seed: int | np.random.Generator | None = None,
) -> xr.DataTree:
    r"""Draw the composition gap from the exact posterior of the saturated stack model.

    The same model as :func:`bayesjudge.models.channel.stack_model`: every stage given its whole
    history has a conjugate Beta posterior, so independent draws of the joint distribution of
    :math:`(E_0, \dots, E_S)` give draws of the step kernels, their product, the direct kernel
    :math:`T_{0S}` and the gaps (seed 003 eqs. 12-13).

    Parameters
    ----------
    data : PairedOutcomes or ndarray of shape (N, S + 1)
        A stack of at least two steps.
    draws : int
        Independent posterior draws.
    prior : Beta
        Prior of every conditional probability.
    random_seed : int, Generator or None
        Seed.

    Returns
    -------
    DataTree
        Group ``posterior`` with ``gap_max``, ``gap_mean`` (chain, draw), ``kernel`` (chain, draw,
        step, row, col), ``composed`` and ``direct`` (chain, draw, row, col).

    Examples
    --------
    >>> e = np.array([[0, 0, 0], [0, 1, 1], [1, 1, 1], [1, 1, 0]] * 25)
    >>> post = composition_posterior(e, draws=500, random_seed=0)
    >>> post["posterior"]["gap_mean"].shape
    (1, 500)
    """
    from bayesjudge.models.channel import MAX_STAGES

    draws = _check_draws(draws)
    e = _outcomes(data)
    if not 3 <= e.shape[1] <= MAX_STAGES:
        raise ValueError(
            f"the composition gap needs 3 to {MAX_STAGES} stages (2 or more steps); "
            f"got {e.shape[1]}"
        )
    rng = rng_from(random_seed)
    joint = _joint_draws(e, draws, prior, rng)
    adjacent, direct = kernels_from_joint(joint, stages=e.shape[1])
    composed = adjacent[:, 0]
    for t in range(1, adjacent.shape[1]):
        composed = composed @ adjacent[:, t]
    diff = np.abs(direct - composed)
    steps = [f"e{t}->e{t + 1}" for t in range(e.shape[1] - 1)]
    posterior = xr.Dataset(
        {
            "gap_max": (("chain", "draw"), diff.max(axis=(-2, -1))[None]),
            "gap_mean": (("chain", "draw"), 0.5 * diff.sum(axis=(-2, -1))[None]),
            "kernel": (("chain", "draw", "step", "row", "col"), adjacent[None]),
            "composed": (("chain", "draw", "row", "col"), composed[None]),
            "direct": (("chain", "draw", "row", "col"), direct[None]),
        },
        coords={"step": steps, "row": [0, 1], "col": [0, 1]},
    )
    tree = xr.DataTree.from_dict({"posterior": posterior})
    tree.attrs.update(_attrs("stack_exact", prior, method="exact"))
    return tree


# --------------------------------------------------------------------------- Markov check
def markov_statistic(later_n: np.ndarray, later_y: np.ndarray) -> np.ndarray:
    r"""Return the Pearson statistic :math:`D` comparing rates across :math:`E_{t-1}`.

    Parameters
    ----------
    later_n, later_y : ndarray, shape (..., S - 1, 2, 2)
        Items with :math:`(E_{t-1}, E_t) = (a, b)` and those correct at :math:`E_{t+1}`
        (:func:`bayesjudge.models.channel.markov_counts`); any leading batch axes.

    Returns
    -------
    ndarray, shape (...)
        :math:`D` summed over steps and current states.

    Examples
    --------
    >>> n = np.array([[[10, 10], [10, 10]]])
    >>> float(markov_statistic(n, np.array([[[5, 5], [5, 5]]])))
    0.0
    >>> round(float(markov_statistic(n, np.array([[[2, 5], [8, 5]]]))), 3)
    7.2
    """
    n = np.asarray(later_n, dtype=float)
    y = np.asarray(later_y, dtype=float)
    n_b = n.sum(axis=-2, keepdims=True)  # pooled over a, per step and b
    y_b = y.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(n_b > 0, y_b / n_b, 0.0)
        expected_1 = n * rate
        expected_0 = n * (1 - rate)
        term1 = np.where(expected_1 > 0, (y - expected_1) ** 2 / expected_1, 0.0)
        term0 = np.where(expected_0 > 0, ((n - y) - expected_0) ** 2 / expected_0, 0.0)
    return (term1 + term0).sum(axis=(-3, -2, -1))


@dataclass(frozen=True, slots=True)
class MarkovCheck:
    r"""Posterior predictive check of :math:`E_{t+1} \perp E_{t-1} \mid E_t`.

    Attributes
    ----------
    statistic : float
        Observed :math:`D`.
    tail_probability : float
        :math:`P(D^{rep} \ge D^{obs})` under the Markov posterior predictive.
    level : float
        Tail probability below which the verdict is ``"not_markov"``.
    verdict : str
        ``"consistent_with_markov"`` or ``"not_markov"``.
    draws : int
        Replicates used.
    """

    statistic: float
    tail_probability: float
    level: float
    verdict: str
    draws: int

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"tail_probability", "verdict"}`` as in ``bayesjudge channel --json``."""
        return {"tail_probability": self.tail_probability, "verdict": self.verdict}


def markov_check(
    data: PairedOutcomes | np.ndarray | xr.DataTree,
    *,
    level: float = 0.05,
    draws: int = 2000,
    prior: Beta = JEFFREYS,
    random_seed: int | np.random.Generator | None = None,
) -> MarkovCheck:
    r"""Check the Markov condition of a stack by a posterior predictive tail probability.

    See the module docstring for the statistic. With outcomes, the Markov null's conjugate
    posterior (:math:`q_t(0) = c_t`, :math:`q_t(1) = 1 - \gamma_t`, Beta(1/2, 1/2) priors) is
    drawn exactly; with a fit of :func:`fit_markov` (a DataTree holding ``posterior_predictive``
    ``later`` and ``constant_data`` ``later_n``), its PyMC posterior predictive draws are used.

    Parameters
    ----------
    data : PairedOutcomes, ndarray of shape (N, S + 1) with S >= 2, or DataTree
        The stack, or a Markov-model fit.
    level : float
        Flag the stack as ``"not_markov"`` when the tail probability is below ``level``.
    draws : int
        Replicated tables (exact path).
    prior : Beta
        Prior of every rate (exact path).
    random_seed : int, Generator or None
        Seed (exact path).

    Returns
    -------
    MarkovCheck

    Examples
    --------
    >>> from bayesjudge.simulate_channel import simulate_stack
    >>> t = simulate_stack(600, p0=0.5, c=[0.3, 0.3], gamma=[0.1, 0.1], history=1.5,
    ...                    random_seed=1)
    >>> markov_check(t[["e0", "e1", "e2"]].to_numpy(), random_seed=0).verdict
    'not_markov'
    """
    from bayesjudge.models.channel import markov_counts

    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1); got {level!r}")
    if isinstance(data, xr.DataTree):
        for group in ("posterior_predictive", "constant_data", "observed_data"):
            if group not in data.children:
                raise ValueError(f"the fit has no {group!r} group; use fit_markov")
        rep = data["posterior_predictive"]["later"]
        rep_y = rep.stack(sample=("chain", "draw")).transpose("sample", ...).to_numpy()
        later_n = data["constant_data"]["later_n"].to_numpy()
        later_y = data["observed_data"]["later"].to_numpy()
        n_draws = rep_y.shape[0]
    else:
        draws = _check_draws(draws)
        e = _outcomes(data)
        if e.shape[1] < 3:
            raise ValueError(
                f"the Markov check needs a stack of at least two steps (3 stages); got {e.shape[1]}"
            )
        rng = rng_from(random_seed)
        _, _, later_n, later_y = markov_counts(e)
        counts = stack_counts(e)[1:]  # steps t >= 1
        c_post, g_post = channel_posterior(counts, prior=prior)
        c = c_post.sample(draws, random_seed=rng)  # (S-1, draws)
        g = g_post.sample(draws, random_seed=rng)
        q = np.stack([c, 1 - g], axis=-1)  # (S-1, draws, b)
        q = np.moveaxis(q, 1, 0)[:, :, None, :]  # (draws, S-1, a, b)
        shape = np.broadcast_shapes(later_n.shape, q.shape)
        rep_y = rng.binomial(np.broadcast_to(later_n, shape), np.broadcast_to(q, shape))
        n_draws = draws
    observed = float(markov_statistic(later_n, later_y))
    replicated = markov_statistic(later_n, rep_y)
    tail = float(np.mean(replicated >= observed - 1e-12))
    verdict = _VERDICTS[1] if tail < level else _VERDICTS[0]
    return MarkovCheck(observed, tail, float(level), verdict, int(n_draws))


# --------------------------------------------------------------------------- PyMC fits
def _attrs(model: str, prior: Beta, *, method: str) -> dict[str, Any]:
    return {
        "bayesjudge_version": __version__,
        "model": model,
        "prior": str(prior),
        "method": method,
    }


def _sample(
    model: pm.Model,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | np.random.Generator | None,
    target_accept: float,
    progressbar: bool,
    cache_key: tuple[Any, ...] | None = None,
    data: Mapping[str, np.ndarray] | None = None,
) -> tuple[xr.DataTree, int]:
    """Sample a model with :func:`bayesjudge.sampling.sample_nuts`; return the draws and seed.

    With ``cache_key``, the compiled model is kept and later calls with the same key only swap
    the ``pm.Data`` values in ``data`` (no recompilation); without it the model is compiled
    for this call alone.
    """
    for name, value, minimum in (("draws", draws, 1), ("tune", tune, 0), ("chains", chains, 1)):
        if int(value) != value or value < minimum:
            raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r}")
    if not 0.0 < target_accept < 1.0:
        raise ValueError(f"target_accept must lie in (0, 1); got {target_accept!r}")
    rng = rng_from(random_seed)
    seed = int(rng.integers(0, 2**31 - 1))
    cache = _CACHE if cache_key is not None else ModelCache(1)
    tree = sample_nuts(
        cache,
        cache_key,
        lambda: model,
        data or {},
        draws=draws,
        tune=tune,
        chains=chains,
        seed=seed,
        progressbar=progressbar,
        target_accept=target_accept,
        sampler=resolve_sampler("auto")[0],
    )
    return tree, seed


def _relabel(tree: xr.DataTree, dim: str, labels: list[str]) -> xr.DataTree:
    """Give a cached model's output the labels of the current data."""
    groups = {}
    for name, child in tree.children.items():
        dataset = child.to_dataset()
        if dim in dataset.dims:
            dataset = dataset.assign_coords({dim: labels})
        groups[name] = dataset
    return xr.DataTree.from_dict(groups)


def _finish(
    tree: xr.DataTree,
    name: str,
    prior: Beta,
    seed: int,
    *,
    observed: Mapping[str, Any],
    constant: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
) -> xr.DataTree:
    groups = {g: tree[g].to_dataset() for g in tree.children}
    groups["observed_data"] = xr.Dataset(dict(observed))
    groups["constant_data"] = xr.Dataset(dict(constant))
    out = xr.DataTree.from_dict(groups)
    out.attrs.update(_attrs(name, prior, method="nuts"))
    out.attrs["sampler_seed"] = seed
    if extra:
        out.attrs.update(extra)
    return out


def fit_steps(
    data: PairedOutcomes | np.ndarray,
    *,
    prior: Beta = JEFFREYS,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool = False,
) -> xr.DataTree:
    """Fit :func:`bayesjudge.models.channel.step_model` to a stack (per-step c, gamma, gain).

    Returns
    -------
    DataTree
        ``posterior`` (``p0``, ``c``, ``gamma``, ``p_before``, ``p_after``, ``gain`` by
        ``step``), ``sample_stats``, ``observed_data``, ``constant_data``; attrs name the model.
    """
    from bayesjudge.models.channel import step_model

    counts = stack_counts(_outcomes(data))
    tree, seed = _sample(
        step_model(counts, prior=prior),
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
        target_accept=0.8,
        progressbar=progressbar,
    )
    steps = [f"e{t}->e{t + 1}" for t in range(counts.shape[0])]
    return _finish(
        tree,
        "channel_steps",
        prior,
        seed,
        observed={
            "corrected": ("step", counts[:, 0, 1]),
            "corrupted": ("step", counts[:, 1, 0]),
        },
        constant={
            "n0": ("step", counts[:, 0].sum(axis=1)),
            "n1": ("step", counts[:, 1].sum(axis=1)),
            "step": steps,
        },
    )


def _slice_inputs(data: PairedOutcomes, step: int) -> tuple[np.ndarray, np.ndarray]:
    if data.slice is None:
        raise ValueError("the data have no slice column; the slice model needs one")
    e = _outcomes(data)
    if not 0 <= step < e.shape[1] - 1:
        raise ValueError(f"step must be in 0..{e.shape[1] - 2}; got {step!r}")
    labels, counts = slice_counts(e[:, step], e[:, step + 1], data.slice)
    return labels, counts


def _weights_vector(labels: np.ndarray, weights: Mapping[str, float] | None) -> np.ndarray | None:
    if weights is None:
        return None
    known = [str(s) for s in labels]
    unknown = sorted(set(weights) - set(known))
    if unknown:
        raise ValueError(f"mixture weights name unknown slices {unknown}; the slices are {known}")
    w = np.array([float(weights.get(s, 0.0)) for s in known])
    if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
        raise ValueError(f"mixture weights must be non-negative and not all zero; got {weights}")
    return w / w.sum()


def fit_slices(
    data: PairedOutcomes,
    *,
    step: int = 0,
    weights: Mapping[str, float] | None = None,
    prior: Beta = JEFFREYS,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool = False,
) -> xr.DataTree:
    """Fit the slice hierarchy (:func:`bayesjudge.models.channel.slice_model`) to one step.

    Parameters
    ----------
    data : PairedOutcomes
        Outcomes with a slice column.
    step : int
        Which step (``0`` is ``e0 -> e1``).
    weights : mapping of slice -> weight, optional
        Target mixture of ``p1_mixture``; slices left out get weight 0. By default the observed
        slice shares.
    prior : Beta
        Prior of each slice's baseline accuracy.
    draws, tune, chains, target_accept, random_seed, progressbar
        Sampler settings (nutpie NUTS).

    Returns
    -------
    DataTree
        ``posterior`` with ``c``, ``gamma``, ``p0``, ``p1``, ``gain`` by ``slice`` and
        ``p0_mixture``, ``p1_mixture``, ``gain_mixture``; ``observed_data`` with the counts.
    """
    from bayesjudge.models.channel import slice_model

    labels, counts = _slice_inputs(data, step)
    w = _weights_vector(labels, weights)
    model = slice_model(counts, [str(s) for s in labels], weights=w, prior=prior)
    data_values = {
        name: np.asarray(model[name].get_value())
        for name in (
            "n0",
            "n1",
            "n_items",
            "weights",
            "correct0_obs",
            "corrected_obs",
            "corrupted_obs",
        )
    }
    tree, seed = _sample(
        model,
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
        target_accept=target_accept,
        progressbar=progressbar,
        cache_key=("slices", counts.shape[0], prior),
        data=data_values,
    )
    tree = _relabel(tree, "slice", [str(s) for s in labels])
    used = w if w is not None else counts.sum(axis=(1, 2)) / counts.sum()
    return _finish(
        tree,
        "channel_slices",
        prior,
        seed,
        observed={
            "correct0": ("slice", counts[:, 1].sum(axis=1)),
            "corrected": ("slice", counts[:, 0, 1]),
            "corrupted": ("slice", counts[:, 1, 0]),
        },
        constant={
            "n0": ("slice", counts[:, 0].sum(axis=1)),
            "n1": ("slice", counts[:, 1].sum(axis=1)),
            "weights": ("slice", used),
            "slice": [str(s) for s in labels],
        },
        extra={"step": int(step)},
    )


def fit_stack(
    data: PairedOutcomes | np.ndarray,
    *,
    prior: Beta = JEFFREYS,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool = False,
) -> xr.DataTree:
    """Fit the saturated stack model (:func:`bayesjudge.models.channel.stack_model`) by NUTS.

    The posterior of ``gap_max`` and ``gap_mean`` matches the exact draws of
    :func:`composition_posterior` up to Monte Carlo error.
    """
    from bayesjudge.models.channel import stack_model

    e = _outcomes(data)
    tree, seed = _sample(
        stack_model(e, prior=prior),
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
        target_accept=0.9,
        progressbar=progressbar,
    )
    return _finish(
        tree,
        "channel_stack",
        prior,
        seed,
        observed={"correct0": int(e[:, 0].sum())},
        constant={"n_items": int(e.shape[0])},
    )


def fit_markov(
    data: PairedOutcomes | np.ndarray,
    *,
    prior: Beta = JEFFREYS,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool = False,
) -> xr.DataTree:
    """Fit the Markov null (:func:`bayesjudge.models.channel.markov_model`) with predictive draws.

    Returns
    -------
    DataTree
        ``posterior`` (``c``, ``gamma`` by step), ``posterior_predictive`` (``first``,
        ``later``), ``observed_data`` and ``constant_data`` (``first_n``, ``later_n``); pass it
        to :func:`markov_check`.
    """
    import pymc as pm

    from bayesjudge.models.channel import markov_counts, markov_model

    e = _outcomes(data)
    model = markov_model(e, prior=prior)
    rng = rng_from(random_seed)
    tree, seed = _sample(
        model,
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=rng,
        target_accept=0.8,
        progressbar=progressbar,
    )
    with model:
        predictive = pm.sample_posterior_predictive(
            tree, random_seed=int(rng.integers(0, 2**31 - 1)), progressbar=False
        )
    first_n, first_y, later_n, later_y = markov_counts(e)
    dims3 = ("later_step", "previous", "current")
    out = _finish(
        tree,
        "channel_markov",
        prior,
        seed,
        observed={"first": ("current", first_y), "later": (dims3, later_y)},
        constant={"first_n": ("current", first_n), "later_n": (dims3, later_n)},
    )
    groups = {g: out[g].to_dataset() for g in out.children}
    groups["posterior_predictive"] = predictive["posterior_predictive"].to_dataset()
    final = xr.DataTree.from_dict(groups)
    final.attrs.update(out.attrs)
    return final


# --------------------------------------------------------------------------- slices and mixture
@dataclass(frozen=True, slots=True, kw_only=True)
class SliceSummary(_Rates):
    """One slice of one step under the slice hierarchy.

    Attributes
    ----------
    slice : str
        Label.
    n : int
        Items.
    p0, p1 : float
        Observed accuracies.
    c_jeffreys, gamma_jeffreys : float
        Independent per-slice Jeffreys rates.
    c, gamma, gain : PosteriorSummary
        Partially pooled posteriors.
    gate_on : bool
        Whether the posterior-mean gain exceeds the threshold.
    """

    slice: str

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape of one entry of ``by_slice``."""
        return {"slice": self.slice, **self._rates_dict()}


def slice_summaries(
    fit: xr.DataTree, *, prob: float = 0.95, threshold: float = 0.0
) -> list[SliceSummary]:
    """Summarise a :func:`fit_slices` posterior slice by slice."""
    prob = _check_prob(prob)
    observed = fit["observed_data"]
    constant = fit["constant_data"]
    labels = [str(s) for s in constant["slice"].to_numpy()]
    n0_all = constant["n0"].to_numpy()
    n1_all = constant["n1"].to_numpy()
    n01_all = observed["corrected"].to_numpy()
    n10_all = observed["corrupted"].to_numpy()
    out = []
    for k, label in enumerate(labels):
        n0 = int(n0_all[k])
        n1 = int(n1_all[k])
        n01 = int(n01_all[k])
        n10 = int(n10_all[k])
        n = n0 + n1
        counts = np.array([[n0 - n01, n01], [n10, n1 - n10]])
        c_hat, g_hat = jeffreys_rates(counts)
        sel = {"slice": label}
        gain = posterior_summary(fit, "gain", prob=prob, coords=sel)
        out.append(
            SliceSummary(
                slice=label,
                n=n,
                p0=n1 / n if n else float("nan"),
                p1=(n01 + n1 - n10) / n if n else float("nan"),
                c_jeffreys=float(c_hat),
                gamma_jeffreys=float(g_hat),
                c=posterior_summary(fit, "c", prob=prob, coords=sel),
                gamma=posterior_summary(fit, "gamma", prob=prob, coords=sel),
                gain=gain,
                gate_on=bool(gain.mean > threshold),
            )
        )
    return out


def mixture_summary(fit: xr.DataTree, *, prob: float = 0.95) -> dict[str, Any]:
    """Return the mixture-shift prediction of a :func:`fit_slices` posterior beside the plug-ins.

    Returns
    -------
    dict
        ``weights`` (slice -> weight), ``p0`` (baseline under the mixture), ``pooled`` and
        ``sliced`` (Jeffreys plug-in predictions of :func:`bayesjudge.channel.mixture_prediction`)
        and ``hierarchical`` (the posterior of ``p1_mixture`` as ``{"mean", "sd", "low",
        "high", "prob"}``).
    """
    prob = _check_prob(prob)
    observed = fit["observed_data"]
    constant = fit["constant_data"]
    labels = [str(s) for s in constant["slice"].to_numpy()]
    n0 = constant["n0"].to_numpy()
    n1 = constant["n1"].to_numpy()
    n01 = observed["corrected"].to_numpy()
    n10 = observed["corrupted"].to_numpy()
    counts = np.stack(
        [np.stack([n0 - n01, n01], axis=-1), np.stack([n10, n1 - n10], axis=-1)], axis=-2
    )
    w = constant["weights"].to_numpy()
    plug = mixture_prediction(counts, w)
    return {
        "weights": dict(zip(labels, map(float, w), strict=True)),
        "p0": float(plug.p0),
        "pooled": float(plug.pooled),
        "sliced": float(plug.sliced),
        "hierarchical": posterior_summary(fit, "p1_mixture", prob=prob).to_dict(),
    }


def exact_draws_tree(
    data: PairedOutcomes | np.ndarray,
    *,
    draws: int = 4000,
    chains: int = 4,
    prior: Beta = JEFFREYS,
    random_seed: int | np.random.Generator | None = None,
) -> xr.DataTree:
    """Return exact independent posterior draws of every step's c and gamma as a DataTree.

    Arranged as ``chains`` chains so that :func:`bayesjudge.diagnostics.check_fit` can confirm
    the Monte Carlo error of the summaries (there are no divergences: nothing was simulated by
    MCMC).
    """
    draws = _check_draws(draws)
    e = _outcomes(data)
    counts = stack_counts(e)
    c_post, g_post = channel_posterior(counts, prior=prior)
    rng = rng_from(random_seed)
    per = max(draws // chains, 1)
    shape = (counts.shape[0], chains, per)
    c = rng.beta(c_post.alpha[:, None, None], c_post.beta[:, None, None], size=shape)
    g = rng.beta(g_post.alpha[:, None, None], g_post.beta[:, None, None], size=shape)
    steps = [f"e{t}->e{t + 1}" for t in range(counts.shape[0])]
    posterior = xr.Dataset(
        {
            "c": (("step", "chain", "draw"), c),
            "gamma": (("step", "chain", "draw"), g),
        },
        coords={"step": steps},
    ).transpose("chain", "draw", "step")
    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((chains, per), dtype=bool))})
    tree = xr.DataTree.from_dict({"posterior": posterior, "sample_stats": stats})
    tree.attrs.update(_attrs("channel_steps_exact", prior, method="exact"))
    tree.attrs["counts"] = json.dumps(counts.tolist())
    return tree


# --------------------------------------------------------------------------- the whole analysis
@dataclass(frozen=True, slots=True)
class ChannelAnalysis:
    """Everything ``bayesjudge channel`` reports about a stack of protocol steps.

    Attributes
    ----------
    stages : tuple of str
        Stage names.
    prob : float
        Interval mass.
    steps : tuple of StepSummary
        Exact per-step posteriors and gates.
    exact : DataTree
        Exact independent draws of every step's c and gamma (:func:`exact_draws_tree`).
    composition : DataTree or None
        Exact composition-gap posterior (:func:`composition_posterior`) for stacks of 2+ steps.
    gap_max, gap_mean : PosteriorSummary or None
        Its summaries.
    markov : MarkovCheck or None
        The Markov check (stacks of 2+ steps).
    slice_fit : DataTree or None
        The slice-hierarchy fit of the first step (with ``by_slice`` or a mixture).
    by_slice : tuple of SliceSummary or None
        Per-slice summaries when asked for.
    mixture : dict or None
        :func:`mixture_summary` when a target mixture was given.
    diagnostics : dict
        ``method``, ``passed``, ``r_hat_max``, ``ess_bulk_min``, ``ess_tail_min``,
        ``divergences``, ``failures``: of the NUTS fit when there is one, else of the exact draws.
    """

    stages: tuple[str, ...]
    prob: float
    steps: tuple[StepSummary, ...]
    exact: xr.DataTree
    composition: xr.DataTree | None
    gap_max: PosteriorSummary | None
    gap_mean: PosteriorSummary | None
    markov: MarkovCheck | None
    slice_fit: xr.DataTree | None
    by_slice: tuple[SliceSummary, ...] | None
    mixture: dict[str, Any] | None
    diagnostics: dict[str, Any]

    @property
    def passed(self) -> bool:
        """Whether every diagnostic passed."""
        return bool(self.diagnostics["passed"])

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object of ``bayesjudge channel --json``."""
        composition = None
        if self.gap_max is not None and self.gap_mean is not None and self.markov is not None:
            composition = {
                "gap_max": self.gap_max.to_dict(),
                "gap_mean": self.gap_mean.to_dict(),
                "markov_check": self.markov.to_dict(),
            }
        return {
            "steps": [s.to_dict() for s in self.steps],
            "composition": composition,
            "by_slice": None if self.by_slice is None else [s.to_dict() for s in self.by_slice],
            "mixture_prediction": self.mixture,
            "diagnostics": self.diagnostics,
        }


def _diagnostics_dict(method: str, checks: list[Any]) -> dict[str, Any]:
    main = checks[-1].to_dict()
    return {
        "method": method,
        "passed": all(c.passed for c in checks),
        "r_hat_max": main["r_hat_max"],
        "ess_bulk_min": main["ess_bulk_min"],
        "ess_tail_min": main["ess_tail_min"],
        "divergences": main["divergences"],
        "failures": [label for c in checks for label in c.to_dict()["failures"]],
    }


def channel_analysis(
    data: PairedOutcomes,
    *,
    prob: float = 0.95,
    threshold: float = 0.0,
    by_slice: bool = False,
    mixture: Mapping[str, float] | None = None,
    level: float = 0.05,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool = False,
) -> ChannelAnalysis:
    """Run the full channel audit of a stack: steps, composition, Markov check, slices, mixture.

    Steps, the composition gap and the Markov check use the exact conjugate posteriors
    (``4 * draws`` independent draws); the slice hierarchy (first step, ``e0 -> e1``) is fitted
    by NUTS when ``by_slice`` is set or a ``mixture`` is given, and its diagnostics are then the
    ones reported.

    Parameters
    ----------
    data : PairedOutcomes
        The outcomes; a slice column is needed for ``by_slice`` and ``mixture``.
    prob : float
        Interval mass.
    threshold : float
        Cost threshold of the gain rule.
    by_slice : bool
        Fit the slice hierarchy and report every slice.
    mixture : mapping of slice -> weight, optional
        Target mixture for the mixture-shift prediction.
    level : float
        Level of the Markov check's verdict.
    draws, tune, chains : int
        Sampler settings of the slice hierarchy (``draws * chains`` exact draws elsewhere).
    random_seed : int, Generator or None
        Seed of everything random.
    progressbar : bool
        Show the sampler's progress bar.

    Returns
    -------
    ChannelAnalysis

    Raises
    ------
    DataError
        If ``by_slice`` or ``mixture`` is asked for and the data have no slice column, or the
        mixture names an unknown slice.
    """
    from bayesjudge.diagnostics import check_fit
    from bayesjudge.errors import DataError

    prob = _check_prob(prob)
    rng = rng_from(random_seed)
    e = _outcomes(data)
    n_exact = max(_check_draws(draws) * chains, 400)
    steps = tuple(
        step_summaries(data, prob=prob, threshold=threshold, draws=n_exact, random_seed=rng)
    )
    exact = exact_draws_tree(data, draws=n_exact, chains=chains, random_seed=rng)
    checks = [check_fit(exact, prob=prob)]
    method = "exact conjugate draws"
    composition = gap_max = gap_mean = markov = None
    if e.shape[1] >= 3:
        composition = composition_posterior(data, draws=n_exact, random_seed=rng)
        gap_max = posterior_summary(composition, "gap_max", prob=prob)
        gap_mean = posterior_summary(composition, "gap_mean", prob=prob)
        markov = markov_check(data, level=level, draws=n_exact, random_seed=rng)
    slice_fit = None
    slices = None
    mixture_out = None
    if by_slice or mixture is not None:
        if data.slice is None:
            raise DataError("--by-slice and --mixture need a 'slice' column in the outcomes table")
        if mixture is not None:
            labels = {str(s) for s in np.unique(data.slice)}
            unknown = sorted(set(mixture) - labels)
            if unknown:
                raise DataError(
                    f"the mixture names unknown slices {unknown}; the slices are {sorted(labels)}"
                )
        try:
            slice_fit = fit_slices(
                data,
                weights=mixture,
                draws=draws,
                tune=tune,
                chains=chains,
                random_seed=rng,
                progressbar=progressbar,
            )
        except ValueError as exc:
            raise DataError(str(exc)) from exc
        checks.append(
            check_fit(
                slice_fit,
                var_names=["mu_c", "mu_gamma", "sigma_c", "sigma_gamma", "c", "gamma", "p0"],
                prob=prob,
            )
        )
        method = "nuts (slice hierarchy) + exact conjugate draws"
        if by_slice:
            slices = tuple(slice_summaries(slice_fit, prob=prob, threshold=threshold))
        if mixture is not None:
            mixture_out = mixture_summary(slice_fit, prob=prob)
    return ChannelAnalysis(
        stages=tuple(getattr(data, "stages", [f"e{t}" for t in range(e.shape[1])])),
        prob=prob,
        steps=steps,
        exact=exact,
        composition=composition,
        gap_max=gap_max,
        gap_mean=gap_mean,
        markov=markov,
        slice_fit=slice_fit,
        by_slice=slices,
        mixture=mixture_out,
        diagnostics=_diagnostics_dict(method, checks),
    )
