r"""Fit the prevalence models: counts -> cached model -> NUTS -> checked, recorded posterior.

:func:`fit_prevalence` takes validated judge data to a checked posterior (an
:class:`xarray.DataTree`) through the one fitting path of
:func:`bayesjudge.inference.fit.fit_model`: the model is built and compiled once per structure
(model kind, ``restrict_j``, number of strata, and the priors except in the default restricted
unstratified model, which takes them as data) and refits swap new counts (and priors) into it;
posterior predictive counts are drawn from the likelihood with numpy
(:math:`x_1^{rep} \sim \mathrm{Bin}(m_1, \mathrm{Se})`, :math:`x_0^{rep} \sim \mathrm{Bin}(m_0,
1 - \mathrm{Sp})`, :math:`k^{rep} \sim \mathrm{Bin}(n, R)` at each draw); the diagnostics run
on every fit, and a fit whose sampler struggled is retried once (with smaller steps after
divergent transitions, with more draws otherwise).

:func:`prevalence_draws` is the fast path for studies that fit thousands of datasets: the same
cached model, seed rule and settings, returning plain arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from bayesjudge._docstring import SAMPLER_PARAMETERS, fill_doc
from bayesjudge.errors import DataError
from bayesjudge.inference import defaults
from bayesjudge.inference.cache import model_cache
from bayesjudge.inference.fit import Draws, ModelRun, NutsSettings, fit_model
from bayesjudge.inference.predictive import predictive_counts
from bayesjudge.inference.sampling import (
    NutsDraws,
    Sampler,
    draw_sampler_seed,
    resolve_sampler,
    sample_nuts_draws,
)
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.priors import PrevalencePriors
from bayesjudge.validation import seed_stream

__all__ = [
    "MAX_STRATA",
    "PREVALENCE",
    "REPORTED",
    "STRATIFIED_PREVALENCE",
    "fit_prevalence",
    "posterior_predictive_counts",
    "prevalence_draws",
]

#: Name of the unstratified prevalence model, as recorded in posterior attrs.
PREVALENCE = "prevalence"
#: Name of the stratified prevalence model, as recorded in posterior attrs.
STRATIFIED_PREVALENCE = "stratified_prevalence"
#: Quantities reported by the prevalence family (their Monte Carlo error is checked).
REPORTED = (
    "pi",
    "se",
    "sp",
    "j",
    "judged_rate",
    "bias",
    "pi_stratum",
    "judged_rate_stratum",
    "bias_stratum",
)
#: The most strata the stratified model is fitted to. Each stratum adds three parameters to the
#: sampler and its own draws of every reported quantity (about 0.5 MB per stratum at 4 chains of
#: 2,000 draws): 500 strata hold about 250 MB; 10^5 would ask for tens of GB.
MAX_STRATA = 500
#: Default NUTS target acceptance: 0.95, and 0.99 in the funnel of the stratified hierarchy.
TARGET_ACCEPT = defaults.PREVALENCE_TARGET_ACCEPT


def _prepare(
    data: JudgeData | JudgeCounts, *, stratified: bool
) -> tuple[tuple[str, ...], dict[str, np.ndarray]]:
    """Return the strata (empty when unstratified) and the counts as named integer arrays."""
    if stratified:
        if not isinstance(data, JudgeData):
            raise DataError(
                "stratified=True needs JudgeData with a 'stratum' column; got "
                f"{type(data).__name__}"
            )
        if len(data.strata) > MAX_STRATA:
            raise DataError(
                f"the stratified model is fitted to at most {MAX_STRATA} strata (each adds its "
                f"own parameters and draws); the data have {len(data.strata)} strata: merge "
                "strata, or fit the unstratified model (stratified=False; on the command line "
                "without --stratified)"
            )
        return data.strata, data.stratified_counts()
    if isinstance(data, JudgeData):
        counts = data.counts
    elif isinstance(data, JudgeCounts):
        counts = data
    else:
        raise TypeError(f"data must be JudgeData or JudgeCounts; got {type(data).__name__}")
    return (), {k: np.asarray(v, dtype=np.int64) for k, v in counts.as_dict().items()}


def _model_data(counts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Map the six counts to the names of the model's ``pm.Data`` containers."""
    return {
        "m1": counts["m1"],
        "x1_obs": counts["x1"],
        "m0": counts["m0"],
        "x0_obs": counts["x0"],
        "n": counts["n"],
        "k_obs": counts["k"],
    }


def _check_priors(priors: PrevalencePriors | None) -> PrevalencePriors:
    if priors is None:
        return PrevalencePriors()
    if not isinstance(priors, PrevalencePriors):
        raise TypeError(f"priors must be a PrevalencePriors; got {type(priors).__name__}")
    return priors


def _prior_data(priors: PrevalencePriors) -> dict[str, np.ndarray]:
    """Values of the priors' data containers (``prevalence_model(..., priors_as_data=True)``)."""
    from bayesjudge.models.prevalence import PRIOR_DATA, prior_values

    return {PRIOR_DATA[name]: prior_values(getattr(priors, name)) for name in PRIOR_DATA}


def _run(
    strata: tuple[str, ...],
    counts: dict[str, np.ndarray],
    priors: PrevalencePriors,
    restrict_j: bool,
) -> ModelRun:
    # the PyMC model is built (importing PyMC) only when the compiled one is not cached; in the
    # restricted unstratified model the priors are data (priors_as_data), swapped in at each
    # fit and not part of the key: one compiled model serves every prior
    if strata:

        def build_stratified() -> Any:
            from bayesjudge.models.prevalence import stratified_prevalence_model

            return stratified_prevalence_model(strata, counts, priors=priors, restrict_j=restrict_j)

        return ModelRun(
            STRATIFIED_PREVALENCE,
            (STRATIFIED_PREVALENCE, bool(restrict_j), priors, len(strata)),
            build_stratified,
            _model_data(counts),
            priors,
        )
    scalar = JudgeCounts(
        m1=int(counts["m1"]),
        x1=int(counts["x1"]),
        m0=int(counts["m0"]),
        x0=int(counts["x0"]),
        n=int(counts["n"]),
        k=int(counts["k"]),
    )

    def build() -> Any:
        from bayesjudge.models.prevalence import prevalence_model

        return prevalence_model(
            scalar, priors=priors, restrict_j=restrict_j, priors_as_data=restrict_j
        )

    if not restrict_j:  # the unrestricted model's Beta variables start where their priors say
        return ModelRun(PREVALENCE, (PREVALENCE, False, priors), build, _model_data(counts), priors)
    return ModelRun(
        PREVALENCE,
        (PREVALENCE, True),
        build,
        {**_model_data(counts), **_prior_data(priors)},
        priors,
    )


def posterior_predictive_counts(
    posterior: xr.Dataset,
    counts: dict[str, np.ndarray],
    *,
    random_seed: int | np.random.Generator | None = None,
) -> xr.Dataset:
    r"""Draw replicated counts from the likelihood at every posterior draw.

    .. math::

        x_1^{rep} \sim \mathrm{Bin}(m_1, \mathrm{Se}), \;
        x_0^{rep} \sim \mathrm{Bin}(m_0, 1 - \mathrm{Sp}), \;
        k^{rep} \sim \mathrm{Bin}(n, R),

    with :math:`R` the posterior ``judged_rate`` (``judged_rate_stratum`` in the stratified
    model), exactly the model's likelihood.

    Parameters
    ----------
    posterior : Dataset
        Posterior draws holding ``se``, ``sp`` and ``judged_rate`` (or
        ``judged_rate_stratum``).
    counts : dict of ndarray
        ``m1``, ``m0`` and ``n`` (scalars, or arrays along ``stratum``).
    random_seed : int, Generator or None
        Seed of the draws.

    Returns
    -------
    Dataset
        ``x1``, ``x0`` and ``k`` with the posterior's sample dims.
    """
    rate = "judged_rate_stratum" if "judged_rate_stratum" in posterior else "judged_rate"
    return predictive_counts(
        {
            "x1": (counts["m1"], posterior["se"]),
            "x0": (counts["m0"], 1.0 - posterior["sp"]),
            "k": (counts["n"], posterior[rate]),
        },
        seed_stream(random_seed, "draws"),
    )


@fill_doc(sampler_parameters=SAMPLER_PARAMETERS)
def fit_prevalence(
    data: JudgeData | JudgeCounts,
    *,
    priors: PrevalencePriors | None = None,
    restrict_j: bool = True,
    stratified: bool = False,
    draws: Draws = 2000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool | None = None,
    sampler: Sampler = "auto",
    escalate: bool = True,
    prob: float = 0.95,
) -> xr.DataTree:
    r"""Sample the posterior of the true success rate pi under an imperfect judge.

    Fits :func:`bayesjudge.models.prevalence.prevalence_model` (or, with ``stratified=True``,
    :func:`~bayesjudge.models.prevalence.stratified_prevalence_model`):
    :math:`x_1 \sim \mathrm{Bin}(m_1, \mathrm{Se})`, :math:`x_0 \sim \mathrm{Bin}(m_0,
    1 - \mathrm{Sp})`, :math:`k \sim \mathrm{Bin}(n, \pi\mathrm{Se} + (1-\pi)(1-\mathrm{Sp}))`
    with Beta priors (Jeffreys by default) restricted to :math:`J > 0` (Rogan and Gladen 1978;
    Lee et al. 2025). The posterior is checked (:func:`bayesjudge.check_fit`), and a fit whose
    sampler struggled is retried once (:func:`bayesjudge.inference.fit.fit_model`).

    Parameters
    ----------
    data : JudgeData or JudgeCounts
        Validated judge data (binary verdicts), or their six counts.
    priors : PrevalencePriors, optional
        Beta priors of pi, Se and Sp; Jeffreys Beta(1/2, 1/2) on each by default.
    restrict_j : bool, default True
        Restrict the prior to J = Se + Sp - 1 > 0 (per stratum when stratified).
    stratified : bool, default False
        Fit the stratified model (needs a stratum column).
    %(sampler_parameters)s

    Returns
    -------
    DataTree
        Groups ``posterior``, ``sample_stats``, ``posterior_predictive`` (``x1``, ``x0``,
        ``k``), ``observed_data`` (``x1``, ``x0``, ``k``) and ``constant_data`` (``m1``, ``m0``,
        ``n``). Root attrs as recorded by :func:`~bayesjudge.inference.fit.fit_model`, plus
        ``restrict_j``, ``counts`` (JSON) and, when stratified, ``strata``.

    Raises
    ------
    ValueError
        On an unknown ``sampler``, or ``draws``, ``tune``, ``chains`` or ``target_accept`` out
        of range.
    DataError
        If ``stratified=True`` and the data have no stratum column, or more than
        :data:`MAX_STRATA` strata (refused before the model is built).
    MissingDependencyError
        If ``sampler="nutpie"`` and nutpie is not installed.

    Warns
    -----
    FitWarning
        When a diagnostic check still fails after the retry.

    Examples
    --------
    >>> from bayesjudge import JudgeData
    >>> data = JudgeData.from_counts(m1=100, x1=90, m0=100, x0=15, n=1000, k=650)
    >>> idata = fit_prevalence(data, random_seed=1, progressbar=False)
    >>> round(float(idata.posterior["pi"].mean()), 1)
    0.7
    >>> bool(idata.attrs["diagnostics_passed"])
    True
    """
    import json

    priors = _check_priors(priors)
    default = TARGET_ACCEPT[bool(stratified)]
    settings = NutsSettings.of(draws, tune, chains, target_accept, default)
    strata, counts = _prepare(data, stratified=stratified)
    run = _run(strata, counts, priors, restrict_j)
    dims = ("stratum",) if strata else ()
    coords = {"stratum": list(strata)} if strata else {}

    def complete(trace: xr.DataTree, rng: np.random.Generator) -> xr.DataTree:
        posterior = trace["posterior"].to_dataset()
        if strata:
            posterior = posterior.assign_coords(stratum=list(strata))
        observed = {name: (dims, counts[name]) for name in ("x1", "x0", "k")}
        constant = {name: (dims, counts[name]) for name in ("m1", "m0", "n")}
        return xr.DataTree.from_dict(
            {
                "posterior": posterior,
                "posterior_predictive": posterior_predictive_counts(
                    posterior, counts, random_seed=rng
                ),
                "sample_stats": trace["sample_stats"].to_dataset(),
                "observed_data": xr.Dataset(observed, coords=coords),
                "constant_data": xr.Dataset(constant, coords=coords),
            }
        )

    attrs: dict[str, Any] = {
        "restrict_j": bool(restrict_j),
        "counts": json.dumps({k: np.asarray(v).tolist() for k, v in counts.items()}),
    }
    if strata:
        attrs["strata"] = list(strata)
    return fit_model(
        run,
        settings=settings,
        complete=complete,
        random_seed=random_seed,
        sampler=sampler,
        progressbar=progressbar,
        escalate=escalate,
        prob=prob,
        mcse_vars=list(REPORTED if strata else REPORTED[:6]),
        attrs=attrs,
    )


def prevalence_draws(
    counts: JudgeCounts,
    *,
    var_names: Sequence[str] = ("pi", "se", "sp"),
    priors: PrevalencePriors | None = None,
    restrict_j: bool = True,
    draws: int = 2000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    cores: int | None = None,
) -> NutsDraws:
    """Return posterior draws of the unstratified prevalence model as plain arrays.

    The same cached compiled model, sampler seed and NUTS settings as the first attempt of
    :func:`fit_prevalence` (so, for the same arguments, the same draws), without building a
    DataTree, posterior predictive draws or diagnostics: the fast path for studies that fit
    thousands of datasets and check each replicate themselves (:mod:`bayesjudge.studies`).

    Parameters
    ----------
    counts : JudgeCounts
        The six counts.
    var_names : sequence of str
        Posterior variables to return.
    priors, restrict_j, draws, tune, chains, target_accept, random_seed
        As in :func:`fit_prevalence`.
    cores : int, optional
        Threads nutpie runs the chains on (one per process in a study).

    Returns
    -------
    NutsDraws
        ``draws[name]`` of shape ``(chains, draws)`` and the divergences per chain.
    """
    priors = _check_priors(priors)
    settings = NutsSettings.of(draws, tune, chains, target_accept, TARGET_ACCEPT[False])
    arrays = {k: np.asarray(v, dtype=np.int64) for k, v in counts.as_dict().items()}
    run = _run((), arrays, priors, restrict_j)
    sampler, _ = resolve_sampler("auto")
    return sample_nuts_draws(
        model_cache(),
        run.key,
        run.build,
        run.data,
        tuple(var_names),
        draws=settings.draws,
        tune=settings.tune,
        chains=settings.chains,
        seed=draw_sampler_seed(seed_stream(random_seed, "sampler")),
        target_accept=settings.target_accept,
        sampler=sampler,
        cores=cores,
    )
