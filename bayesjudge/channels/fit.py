r"""PyMC fits of the channel models, each checked like every other fit in bayesjudge.

Four fits (models in :mod:`bayesjudge.models.channel`), all through
:func:`bayesjudge.inference.fit.fit_model` (cached model, NUTS, diagnostics, one escalation,
provenance in the attrs):

* :func:`fit_steps`: per-step correction and corruption rates and the gain of each step;
* :func:`fit_slices`: the non-centred slice hierarchy of one step, with a mixture-shift
  prediction;
* :func:`fit_stack`: the saturated stack model and the posterior of the composition gap;
* :func:`fit_markov`: the Markov null with posterior predictive counts, for
  :func:`bayesjudge.channels.posterior.markov_check`.

Their exact conjugate counterparts, which need no MCMC, are in
:mod:`bayesjudge.channels.posterior`.

**Posterior predictive checks.** A check can only fail where the model restricts the counts,
and of these four only the Markov null does:

* the step model gives every step its own correction and corruption rate (and the first stage
  its own accuracy): one rate per observed count, so any counts are reproduced;
* the stack model is saturated (a rate for every history), by construction;
* the slice hierarchy gives each slice its own rates, partially pooled; with the spread of the
  slices free it reproduces any per-slice counts, so a check of them would test the prior of
  the spread, not the fit;
* the Markov null restricts each later stage to depend on the one before it only. Whether it
  holds is the question :func:`bayesjudge.channels.posterior.markov_check` answers (its
  Pearson statistic is the discrepancy of exactly these counts), and no reported number
  assumes it: the per-step rates are exact for any dependence and the composition gap is
  measured against the saturated stack model. So :func:`fit_markov` runs the sampler checks
  only, and ``bayesjudge channel`` reports a failed Markov check as a finding (the
  ``composition.markov_check`` verdict and a report warning), not as a failed fit; its JSON
  ``diagnostics.predictive_check`` is None.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from bayesjudge.channels.counts import markov_counts, slice_counts, stack_counts
from bayesjudge.channels.posterior import outcome_array
from bayesjudge.errors import DataError
from bayesjudge.inference import defaults
from bayesjudge.inference.fit import ModelRun, NutsSettings, fit_model
from bayesjudge.priors import ChannelPriors

if TYPE_CHECKING:
    from bayesjudge.channels.data import PairedOutcomes

__all__ = ["DRAWS", "TARGET_ACCEPT", "fit_markov", "fit_slices", "fit_stack", "fit_steps"]

#: Default draws per chain of every channel fit (and ``draws * chains`` exact draws in
#: :func:`bayesjudge.channels.analysis.analyze_channel`).
DRAWS = defaults.CHANNEL_DRAWS
#: Default NUTS target acceptance of every channel fit (its analysis and command use it too).
TARGET_ACCEPT = defaults.CHANNEL_TARGET_ACCEPT

#: Variables checked in a slice-hierarchy fit (the reported ones and their hyper-parameters).
SLICE_VARIABLES = ("mu_c", "mu_gamma", "sigma_c", "sigma_gamma", "c", "gamma", "p0")


def _priors(priors: ChannelPriors | None) -> ChannelPriors:
    if priors is None:
        return ChannelPriors()
    if not isinstance(priors, ChannelPriors):
        raise TypeError(f"priors must be a ChannelPriors; got {type(priors).__name__}")
    return priors


def _groups(
    trace: xr.DataTree,
    *,
    observed: Mapping[str, Any],
    constant: Mapping[str, Any],
    relabel: tuple[str, list[str]] | None = None,
    predictive: xr.Dataset | None = None,
) -> xr.DataTree:
    groups = {name: trace[name].to_dataset() for name in trace.children}
    if relabel is not None:
        dim, labels = relabel
        groups = {
            name: ds.assign_coords({dim: labels}) if dim in ds.dims else ds
            for name, ds in groups.items()
        }
    groups["observed_data"] = xr.Dataset(dict(observed))
    groups["constant_data"] = xr.Dataset(dict(constant))
    if predictive is not None:
        groups["posterior_predictive"] = predictive
    return xr.DataTree.from_dict(groups)


def fit_steps(
    data: PairedOutcomes | np.ndarray,
    *,
    priors: ChannelPriors | None = None,
    draws: int = DRAWS,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool | None = False,
    prob: float = 0.95,
) -> xr.DataTree:
    """Fit :func:`bayesjudge.models.channel.step_model` to a stack (per-step c, gamma, gain).

    Returns
    -------
    DataTree
        ``posterior`` (``p0``, ``c``, ``gamma``, ``p_before``, ``p_after``, ``gain`` by
        ``step``), ``sample_stats``, ``observed_data``, ``constant_data``; checked, with the
        attrs of :func:`~bayesjudge.inference.fit.fit_model`.
    """
    from bayesjudge.models.channel import step_model

    priors = _priors(priors)
    counts = stack_counts(outcome_array(data))
    steps = [f"e{t}->e{t + 1}" for t in range(counts.shape[0])]
    run = ModelRun(
        "channel_steps",
        ("channel_steps", counts.shape[0], priors),
        lambda: step_model(counts, priors=priors),
        {
            "n0": counts[:, 0, :].sum(axis=1),
            "n1": counts[:, 1, :].sum(axis=1),
            "corrected_obs": counts[:, 0, 1],
            "corrupted_obs": counts[:, 1, 0],
            "n_items": np.asarray(counts[0].sum(), dtype=np.int64),
            "correct0_obs": np.asarray(counts[0, 1].sum(), dtype=np.int64),
        },
        priors,
    )

    def complete(trace: xr.DataTree, rng: np.random.Generator) -> xr.DataTree:
        return _groups(
            trace,
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

    return fit_model(
        run,
        settings=NutsSettings.of(draws, tune, chains, target_accept, TARGET_ACCEPT),
        complete=complete,
        random_seed=random_seed,
        progressbar=progressbar,
        prob=prob,
        check_vars=["p0", "c", "gamma", "gain"],
    )


def _slice_inputs(data: PairedOutcomes, step: int) -> tuple[np.ndarray, np.ndarray]:
    slices = getattr(data, "slice", None)
    if slices is None:
        raise DataError("the slice model needs a 'slice' column in the outcomes table")
    e = outcome_array(data)
    if not 0 <= step < e.shape[1] - 1:
        raise ValueError(f"step must be in 0..{e.shape[1] - 2}; got {step!r}")
    return slice_counts(e[:, step], e[:, step + 1], slices)


def _weights_vector(labels: np.ndarray, weights: Mapping[str, float] | None) -> np.ndarray:
    known = [str(s) for s in labels]
    if weights is None:
        return np.full(len(known), 1.0 / len(known))
    unknown = sorted(set(weights) - set(known))
    if unknown:
        raise DataError(f"mixture weights name unknown slices {unknown}; the slices are {known}")
    w = np.array([float(weights.get(s, 0.0)) for s in known])
    if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
        raise DataError(f"mixture weights must be non-negative and not all zero; got {weights}")
    return w / w.sum()


def fit_slices(
    data: PairedOutcomes,
    *,
    step: int = 0,
    weights: Mapping[str, float] | None = None,
    priors: ChannelPriors | None = None,
    draws: int = DRAWS,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool | None = False,
    prob: float = 0.95,
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
    priors : ChannelPriors, optional
        Prior of each slice's baseline accuracy (Jeffreys by default).
    draws, tune, chains, target_accept, random_seed, progressbar, prob
        Sampler settings and the interval mass of the checks.

    Returns
    -------
    DataTree
        ``posterior`` with ``c``, ``gamma``, ``p0``, ``p1``, ``gain`` by ``slice`` and
        ``p0_mixture``, ``p1_mixture``, ``gain_mixture``; ``observed_data`` with the counts;
        checked.

    Raises
    ------
    DataError
        If the data have no slice column or the weights name unknown slices.
    """
    from bayesjudge.models.channel import slice_model

    priors = _priors(priors)
    labels, counts = _slice_inputs(data, step)
    names = [str(s) for s in labels]
    totals = counts.sum(axis=(1, 2)).astype(float)
    w = totals / totals.sum() if weights is None else _weights_vector(labels, weights)
    run = ModelRun(
        "channel_slices",
        ("channel_slices", counts.shape[0], priors),
        lambda: slice_model(counts, names, weights=w, priors=priors),
        {
            "n0": counts[:, 0, :].sum(axis=1),
            "n1": counts[:, 1, :].sum(axis=1),
            "n_items": counts.sum(axis=(1, 2)),
            "weights": w,
            "correct0_obs": counts[:, 1, :].sum(axis=1),
            "corrected_obs": counts[:, 0, 1],
            "corrupted_obs": counts[:, 1, 0],
        },
        priors,
    )

    def complete(trace: xr.DataTree, rng: np.random.Generator) -> xr.DataTree:
        return _groups(
            trace,
            relabel=("slice", names),
            observed={
                "correct0": ("slice", counts[:, 1].sum(axis=1)),
                "corrected": ("slice", counts[:, 0, 1]),
                "corrupted": ("slice", counts[:, 1, 0]),
            },
            constant={
                "n0": ("slice", counts[:, 0].sum(axis=1)),
                "n1": ("slice", counts[:, 1].sum(axis=1)),
                "weights": ("slice", w),
                "slice": names,
            },
        )

    return fit_model(
        run,
        settings=NutsSettings.of(draws, tune, chains, target_accept, TARGET_ACCEPT),
        complete=complete,
        random_seed=random_seed,
        progressbar=progressbar,
        prob=prob,
        check_vars=list(SLICE_VARIABLES),
        mcse_vars=["c", "gamma", "p0"],
        attrs={"step": int(step)},
    )


def fit_stack(
    data: PairedOutcomes | np.ndarray,
    *,
    priors: ChannelPriors | None = None,
    draws: int = DRAWS,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool | None = False,
    prob: float = 0.95,
) -> xr.DataTree:
    """Fit the saturated stack model (:func:`bayesjudge.models.channel.stack_model`) by NUTS.

    The posterior of ``gap_max`` and ``gap_mean`` matches the exact draws of
    :func:`bayesjudge.channels.posterior.composition_posterior` up to Monte Carlo error.
    """
    from bayesjudge.models.channel import stack_model

    priors = _priors(priors)
    e = outcome_array(data)
    run = ModelRun(
        "channel_stack",
        ("channel_stack", e.tobytes(), e.shape, priors),
        lambda: stack_model(e, priors=priors),
        {},
        priors,
    )

    def complete(trace: xr.DataTree, rng: np.random.Generator) -> xr.DataTree:
        return _groups(
            trace,
            observed={"correct0": int(e[:, 0].sum())},
            constant={"n_items": int(e.shape[0])},
        )

    return fit_model(
        run,
        settings=NutsSettings.of(draws, tune, chains, target_accept, TARGET_ACCEPT),
        complete=complete,
        random_seed=random_seed,
        progressbar=progressbar,
        prob=prob,
        check_vars=["p0", "gap_max", "gap_mean"],
    )


def fit_markov(
    data: PairedOutcomes | np.ndarray,
    *,
    priors: ChannelPriors | None = None,
    draws: int = DRAWS,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool | None = False,
    prob: float = 0.95,
) -> xr.DataTree:
    """Fit the Markov null (:func:`bayesjudge.models.channel.markov_model`) with predictive draws.

    Returns
    -------
    DataTree
        ``posterior`` (``c``, ``gamma`` by step), ``posterior_predictive`` (``first``,
        ``later``), ``observed_data`` and ``constant_data`` (``first_n``, ``later_n``); pass it
        to :func:`bayesjudge.channels.posterior.markov_check`. The sampler checks run as for
        every fit; the per-count posterior predictive checks do not, because whether the
        Markov null fits the data is the question :func:`markov_check` answers, not a fault
        of the fit.
    """
    from bayesjudge.inference.predictive import binomial_draws
    from bayesjudge.models.channel import markov_model

    priors = _priors(priors)
    e = outcome_array(data)
    first_n, first_y, later_n, later_y = markov_counts(e)
    dims3 = ("later_step", "previous", "current")
    run = ModelRun(
        "channel_markov",
        ("channel_markov", e.shape[1], priors),
        lambda: markov_model(e, priors=priors),
        {"first_n": first_n, "first_y": first_y, "later_n": later_n, "later_y": later_y},
        priors,
    )

    def complete(trace: xr.DataTree, rng: np.random.Generator) -> xr.DataTree:
        posterior = trace["posterior"].to_dataset()
        c = posterior["c"].transpose("chain", "draw", "step").to_numpy()
        gamma = posterior["gamma"].transpose("chain", "draw", "step").to_numpy()
        q = np.stack([c, 1.0 - gamma], axis=-1)  # (chain, draw, step, current)
        first = binomial_draws(first_n, q[:, :, 0, :], rng)
        later = binomial_draws(later_n, q[:, :, 1:, None, :], rng)
        predictive = xr.Dataset(
            {
                "first": (("chain", "draw", "current"), first),
                "later": (("chain", "draw", *dims3), later),
            },
            coords={"chain": posterior["chain"], "draw": posterior["draw"]},
        )
        return _groups(
            trace,
            observed={"first": ("current", first_y), "later": (dims3, later_y)},
            constant={"first_n": ("current", first_n), "later_n": (dims3, later_n)},
            predictive=predictive,
        )

    return fit_model(
        run,
        settings=NutsSettings.of(draws, tune, chains, target_accept, TARGET_ACCEPT),
        complete=complete,
        random_seed=random_seed,
        progressbar=progressbar,
        prob=prob,
        check_vars=["c", "gamma"],
        predictive_check=False,
    )
