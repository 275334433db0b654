r"""Exact posteriors of channel kernels: step summaries, composition gap, Markov check.

Under Jeffreys Beta(1/2, 1/2) priors every rate of the channel models has a conjugate Beta
posterior, so the step rates and gains (:func:`step_summaries`), the composition gap
(:func:`composition_posterior`) and the Markov check (:func:`markov_check`) are computed from
independent exact draws, with no MCMC (Correction and Corruption, 2025).
:func:`slice_summaries` and :func:`mixture_summary` summarise a NUTS fit of the slice
hierarchy (:func:`bayesjudge.channels.fit.fit_slices`).

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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr
from scipy import special

from bayesjudge.channels.counts import history_counts, markov_counts, stack_counts
from bayesjudge.channels.kernels import gate, kernels_from_joint
from bayesjudge.channels.mixture import mixture_prediction
from bayesjudge.channels.rates import channel_posterior, jeffreys_rates
from bayesjudge.inference.provenance import provenance_attrs
from bayesjudge.inference.summary import posterior_summary, summary_of_draws
from bayesjudge.priors import ChannelPriors
from bayesjudge.results import Interval, PosteriorSummary
from bayesjudge.validation import check_int, check_prob, seed_stream

if TYPE_CHECKING:
    from bayesjudge.channels.data import PairedOutcomes

__all__ = [
    "MarkovCheck",
    "SliceSummary",
    "StepSummary",
    "composition_posterior",
    "exact_draws_tree",
    "markov_check",
    "markov_statistic",
    "mixture_summary",
    "outcome_array",
    "slice_summaries",
    "step_summaries",
]

_VERDICTS = ("consistent_with_markov", "not_markov")
_VERDICT_WORDS = {
    "consistent_with_markov": "consistent with a Markov chain",
    "not_markov": "not a Markov chain (a step depends on more than the stage before it)",
}


def outcome_array(data: PairedOutcomes | np.ndarray) -> np.ndarray:
    """Return the 0/1 outcomes ``(N, S + 1)`` of validated data or a plain array."""
    values = np.asarray(getattr(data, "outcomes", data))
    if values.ndim != 2 or values.shape[1] < 2 or not np.isin(values, (0, 1)).all():
        raise ValueError(f"outcomes must be 0/1 with shape (N, S + 1), S >= 1; got {values.shape}")
    return values.astype(np.int64)


def _check_draws(draws: int) -> int:
    return check_int(draws, name="draws", minimum=10, maximum=10_000_000)


def _rate(priors: ChannelPriors | None) -> Any:
    return (ChannelPriors() if priors is None else priors).rate


def _exact_summary(name: str, posterior: Any, prob: float) -> PosteriorSummary:
    """Summary of a Beta posterior: exact mean, sd, median and equal-tailed interval."""
    low, high = posterior.interval(prob)
    median = special.betaincinv(posterior.alpha, posterior.beta, 0.5)
    return PosteriorSummary(
        name=name,
        mean=float(posterior.mean),
        sd=float(posterior.sd),
        median=float(median),
        eti=Interval(float(low), float(high), prob, "eti"),
    )


def _exact_attrs(model: str, priors: ChannelPriors | None) -> dict[str, Any]:
    return {
        **provenance_attrs(None),
        "model": model,
        "priors": json.dumps((ChannelPriors() if priors is None else priors).as_dict()),
        "method": "exact",
    }


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
        Correction and Corruption eq. 14.
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
    priors: ChannelPriors | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> list[StepSummary]:
    r"""Summarise every step of a stack with exact conjugate posteriors.

    For step :math:`t \to t+1`: :math:`c_t \sim \mathrm{Beta}(n_{01} + 1/2, n_{00} + 1/2)`,
    :math:`\gamma_t \sim \mathrm{Beta}(n_{10} + 1/2, n_{11} + 1/2)` and the accuracy entering the
    step :math:`p_t \sim \mathrm{Beta}(n_1 + 1/2, n_0 + 1/2)` are independent a posteriori (the
    likelihood of :math:`(E_t, E_{t+1})` factorises), so the gain
    :math:`(1 - p_t)c_t - p_t\gamma_t` is summarised from ``draws`` independent draws. The gate
    is on when the Jeffreys point gain exceeds ``threshold`` (Correction and Corruption, Sec. 8.1).

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
    priors : ChannelPriors, optional
        Prior of every rate (Jeffreys by default).
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
    prob = check_prob(prob)
    draws = _check_draws(draws)
    e = outcome_array(data)
    stages = tuple(getattr(data, "stages", [f"e{t}" for t in range(e.shape[1])]))
    rng = seed_stream(random_seed, "draws")
    counts = stack_counts(e)
    c_post, g_post = channel_posterior(counts, prior=_rate(priors))
    c_hat, g_hat = jeffreys_rates(counts)
    out = []
    for t in range(counts.shape[0]):
        n_t = counts[t]
        n = int(n_t.sum())
        p_before = float(n_t[1].sum() / n)
        p_draw = rng.beta(
            n_t[1].sum() + _rate(priors).alpha, n_t[0].sum() + _rate(priors).beta, size=draws
        )
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
                gain=summary_of_draws("gain", gain, prob=prob),
                gate_on=bool(gate(p_before, c_hat[t], g_hat[t], threshold=threshold)),
            )
        )
    return out


def _joint_draws(e: np.ndarray, draws: int, prior: Any, rng: np.random.Generator) -> np.ndarray:

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
    priors: ChannelPriors | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> xr.DataTree:
    r"""Draw the composition gap from the exact posterior of the saturated stack model.

    The same model as :func:`bayesjudge.models.channel.stack_model`: every stage given its whole
    history has a conjugate Beta posterior, so independent draws of the joint distribution of
    :math:`(E_0, \dots, E_S)` give draws of the step kernels, their product, the direct kernel
    :math:`T_{0S}` and the gaps (Correction and Corruption eqs. 12-13).

    Parameters
    ----------
    data : PairedOutcomes or ndarray of shape (N, S + 1)
        A stack of at least two steps.
    draws : int
        Independent posterior draws.
    priors : ChannelPriors, optional
        Prior of every conditional probability (Jeffreys by default).
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
    e = outcome_array(data)
    if not 3 <= e.shape[1] <= MAX_STAGES:
        raise ValueError(
            f"the composition gap needs 3 to {MAX_STAGES} stages (2 or more steps); "
            f"got {e.shape[1]}"
        )
    rng = seed_stream(random_seed, "draws")
    joint = _joint_draws(e, draws, _rate(priors), rng)
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
    tree.attrs.update(_exact_attrs("stack_exact", priors))
    return tree


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

    @property
    def words(self) -> str:
        """The verdict in words, e.g. ``"consistent with a Markov chain"``."""
        return _VERDICT_WORDS[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"tail_probability", "verdict"}`` as in ``bayesjudge channel --json``."""
        return {"tail_probability": self.tail_probability, "verdict": self.verdict}


def markov_check(
    data: PairedOutcomes | np.ndarray | xr.DataTree,
    *,
    level: float = 0.05,
    draws: int = 2000,
    priors: ChannelPriors | None = None,
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
    priors : ChannelPriors, optional
        Prior of every rate (exact path; Jeffreys by default).
    random_seed : int, Generator or None
        Seed (exact path).

    Returns
    -------
    MarkovCheck

    Examples
    --------
    >>> from bayesjudge.channels.simulate import simulate_stack
    >>> t = simulate_stack(600, p0=0.5, c=[0.3, 0.3], gamma=[0.1, 0.1], history=1.5,
    ...                    random_seed=1)
    >>> markov_check(t[["e0", "e1", "e2"]].to_numpy(), random_seed=0).verdict
    'not_markov'
    """
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
        e = outcome_array(data)
        if e.shape[1] < 3:
            raise ValueError(
                f"the Markov check needs a stack of at least two steps (3 stages); got {e.shape[1]}"
            )
        rng = seed_stream(random_seed, "draws")
        _, _, later_n, later_y = markov_counts(e)
        counts = stack_counts(e)[1:]  # steps t >= 1
        c_post, g_post = channel_posterior(counts, prior=_rate(priors))
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


def _fitted_slice_counts(fit: xr.DataTree) -> tuple[list[str], np.ndarray]:
    """Return the slices of a :func:`fit_slices` tree and their 2x2 transition counts."""
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
    return labels, counts


def slice_summaries(
    fit: xr.DataTree, *, prob: float = 0.95, threshold: float = 0.0
) -> list[SliceSummary]:
    """Summarise a :func:`fit_slices` posterior slice by slice."""
    prob = check_prob(prob)
    labels, counts_all = _fitted_slice_counts(fit)
    out = []
    for k, label in enumerate(labels):
        counts = counts_all[k].astype(np.int64)
        (n00, n01), (n10, n11) = counts.tolist()
        n0, n1 = n00 + n01, n10 + n11
        n = n0 + n1
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
        ``sliced`` (Jeffreys plug-in predictions of
        :func:`bayesjudge.channels.mixture.mixture_prediction`) and ``hierarchical`` (the posterior
        of ``p1_mixture`` as ``{"mean", "sd", "low", "high", "prob"}``).
    """
    prob = check_prob(prob)
    labels, counts = _fitted_slice_counts(fit)
    w = fit["constant_data"]["weights"].to_numpy()
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
    priors: ChannelPriors | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> xr.DataTree:
    """Return exact independent posterior draws of every step's c and gamma as a DataTree.

    Arranged as ``chains`` chains so that :func:`bayesjudge.inference.diagnostics.check_fit` can
    confirm the Monte Carlo error of the summaries (there are no divergences: nothing was simulated
    by MCMC).
    """
    draws = _check_draws(draws)
    e = outcome_array(data)
    counts = stack_counts(e)
    c_post, g_post = channel_posterior(counts, prior=_rate(priors))
    rng = seed_stream(random_seed, "draws")
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
    tree.attrs.update(_exact_attrs("channel_steps_exact", priors))
    tree.attrs["counts"] = json.dumps(counts.tolist())
    return tree
