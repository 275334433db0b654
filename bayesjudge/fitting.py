r"""Fit the prevalence models: sample, add posterior predictive draws, record provenance, check.

One public function, :func:`fit_prevalence`, takes validated judge data to a checked posterior
(an :class:`xarray.DataTree`). The path is: counts -> cached model -> sampler -> posterior ->
posterior predictive draws -> attrs -> :func:`bayesjudge.diagnostics.check_fit`.

**Refits are cheap.** Building a PyMC model and compiling it for nutpie takes seconds; sampling
these small models takes a fraction of a second. Models therefore read their counts through
``pm.Data``, and the built model and its compiled nutpie form are cached, keyed by (model kind,
``restrict_j``, priors, number of strata). A refit on new data of the same shape swaps the data
into a copy of the compiled model (``CompiledPyMCModel.with_data``, which returns a new object
and leaves the cached one untouched), so no state passes from one dataset to the next.
Posterior predictive draws are drawn directly with numpy from the model's likelihood
(:math:`x_1^{rep} \sim \mathrm{Bin}(m_1, \mathrm{Se})`, :math:`x_0^{rep} \sim \mathrm{Bin}(m_0,
1 - \mathrm{Sp})`, :math:`k^{rep} \sim \mathrm{Bin}(n, R)` at each posterior draw), which needs
no compilation.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from bayesjudge._version import __version__
from bayesjudge.data import JudgeCounts, JudgeData
from bayesjudge.errors import DataError, FitWarning
from bayesjudge.priors import PrevalencePriors
from bayesjudge.sampling import (
    CacheInfo,
    ModelCache,
    NutsDraws,
    Sampler,
    progressbar_default,
    resolve_sampler,
    sample_nuts,
    sample_nuts_draws,
)
from bayesjudge.simulate import rng_from

__all__ = [
    "CacheInfo",
    "clear_model_cache",
    "fit_prevalence",
    "model_cache_info",
    "posterior_predictive_counts",
    "prevalence_draws",
]

_SAMPLE_DIMS = ("chain", "draw")
_CACHE_SIZE = 16
#: Quantities whose Monte Carlo error is checked after a fit (R-hat and ESS cover all).
_REPORTED = (
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


_CACHE = ModelCache(_CACHE_SIZE)


def model_cache_info() -> CacheInfo:
    """Return the counters of the model cache (builds, nutpie compiles, hits, size).

    Examples
    --------
    >>> clear_model_cache()
    >>> model_cache_info()
    CacheInfo(builds=0, compiles=0, hits=0, size=0)
    """
    return _CACHE.info()


def clear_model_cache() -> None:
    """Drop every cached model and reset the counters."""
    global _CACHE
    _CACHE = ModelCache(_CACHE_SIZE)


def _check_positive_int(name: str, value: int, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r}")
    return int(value)


def _prepare(
    data: JudgeData | JudgeCounts, *, stratified: bool
) -> tuple[tuple[str, ...], dict[str, np.ndarray]]:
    """Return the strata (empty when unstratified) and the counts as named integer arrays."""
    from bayesjudge.models.prevalence import stratified_counts

    if stratified:
        if not isinstance(data, JudgeData):
            raise DataError(
                "stratified=True needs JudgeData with a 'stratum' column; got "
                f"{type(data).__name__}"
            )
        return stratified_counts(data)
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
    rng = rng_from(random_seed)
    rate_name = "judged_rate_stratum" if "judged_rate_stratum" in posterior else "judged_rate"
    se = posterior["se"]
    fpr = 1.0 - posterior["sp"]
    rate = posterior[rate_name]
    out = {}
    for name, trials, prob in (("x1", "m1", se), ("x0", "m0", fpr), ("k", "n", rate)):
        p = np.clip(prob.to_numpy(), 0.0, 1.0)
        out[name] = (prob.dims, rng.binomial(np.broadcast_to(counts[trials], p.shape), p))
    return xr.Dataset(out, coords={d: posterior.coords[d] for d in se.dims})


def fit_prevalence(
    data: JudgeData | JudgeCounts,
    *,
    priors: PrevalencePriors | None = None,
    restrict_j: bool = True,
    stratified: bool = False,
    draws: int = 2000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool | None = None,
    sampler: Sampler = "auto",
    check: bool = True,
) -> xr.DataTree:
    r"""Sample the posterior of the true success rate pi under an imperfect judge.

    Fits :func:`bayesjudge.models.prevalence.prevalence_model` (or, with ``stratified=True``,
    :func:`~bayesjudge.models.prevalence.stratified_prevalence_model`):
    :math:`x_1 \sim \mathrm{Bin}(m_1, \mathrm{Se})`, :math:`x_0 \sim \mathrm{Bin}(m_0,
    1 - \mathrm{Sp})`, :math:`k \sim \mathrm{Bin}(n, \pi\mathrm{Se} + (1-\pi)(1-\mathrm{Sp}))`
    with Beta priors (Jeffreys by default) restricted to :math:`J > 0` (Rogan and Gladen 1978;
    seeds 002 and 004). Refits of the same model structure on new data reuse the built and
    compiled model (see the module docstring).

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
    draws, tune, chains : int
        Posterior draws per chain (2000), tuning steps per chain (1000), and chains (4).
    target_accept : float, optional
        NUTS target acceptance rate in (0, 1); default 0.95, and 0.99 for the stratified
        model. Smaller steps than PyMC's 0.8 are cheap for these small models and avoid
        divergences when pi is near 0 or 1 (e.g. the low-prevalence counts m1=122, x1=103,
        m0=401, x0=2, n=3330, k=50 gave divergences in 2 of 5 seeds at 0.8 and in none at 0.9
        or 0.95) and in the funnel of the stratified hierarchy (3 simulated strata: a
        divergence in 2 of 6 seeds at 0.95, none at 0.99).
    random_seed : int, Generator or None
        Seed; the same integer seed gives identical draws.
    progressbar : bool, optional
        Show the sampler's progress bar; by default only when stderr is a terminal.
    sampler : {"auto", "nutpie", "pymc"}, default "auto"
        ``"auto"`` uses nutpie when it is installed and PyMC's NUTS otherwise; the sampler used,
        and why, is recorded in ``attrs["sampler"]`` and ``attrs["sampler_note"]``.
    check : bool, default True
        Run :func:`bayesjudge.diagnostics.check_fit` (MCSE checked on the reported
        quantities pi, se, sp, j, judged_rate, bias and their per-stratum forms), store its
        summary in the attrs (``diagnostics_passed``, ``diagnostics_failures``) and warn with
        :class:`~bayesjudge.errors.FitWarning` naming every failed check.

    Returns
    -------
    DataTree
        Groups ``posterior``, ``sample_stats``, ``posterior_predictive`` (``x1``, ``x0``,
        ``k``), ``observed_data`` (``x1``, ``x0``, ``k``) and ``constant_data`` (``m1``, ``m0``,
        ``n``). Root attrs: ``bayesjudge_version``, ``model``, ``prior_pi``, ``prior_se``,
        ``prior_sp``, ``priors`` (JSON), ``restrict_j``, ``sampler``, ``sampler_note``,
        ``counts`` (JSON), ``draws``, ``tune``, ``chains``, ``target_accept``,
        ``sampler_seed`` and, when checked, ``diagnostics_passed`` and
        ``diagnostics_failures``.

    Raises
    ------
    ValueError
        On an unknown ``sampler``, or ``draws``, ``tune``, ``chains`` or ``target_accept`` out
        of range.
    DataError
        If ``stratified=True`` and the data have no stratum column.
    ImportError
        If ``sampler="nutpie"`` and nutpie is not installed.

    Warns
    -----
    FitWarning
        When ``check`` is true and a diagnostic fails.

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
    from bayesjudge.models.prevalence import (
        PREVALENCE,
        STRATIFIED_PREVALENCE,
        ModelInfo,
        prevalence_model,
        stratified_prevalence_model,
    )

    draws = _check_positive_int("draws", draws, minimum=1)
    tune = _check_positive_int("tune", tune, minimum=0)
    chains = _check_positive_int("chains", chains, minimum=1)
    if target_accept is None:
        target_accept = 0.99 if stratified else 0.95
    if not 0.0 < target_accept < 1.0:
        raise ValueError(f"target_accept must lie in (0, 1); got {target_accept!r}")
    if priors is None:
        priors = PrevalencePriors()
    elif not isinstance(priors, PrevalencePriors):
        raise TypeError(f"priors must be a PrevalencePriors; got {type(priors).__name__}")
    used_sampler, sampler_note = resolve_sampler(sampler)
    strata, counts = _prepare(data, stratified=stratified)

    def build() -> Any:
        if stratified:
            assert isinstance(data, JudgeData)
            return stratified_prevalence_model(data, priors=priors, restrict_j=restrict_j)
        return prevalence_model(
            JudgeCounts(**_counts_as_ints(counts)), priors=priors, restrict_j=restrict_j
        )

    kind = "stratified" if stratified else "pooled"
    rng = rng_from(random_seed)
    sampler_seed = int(rng.integers(0, 2**32 - 1))
    trace = sample_nuts(
        _CACHE,
        _cache_key(kind, restrict_j, priors, len(strata)),
        build,
        _model_data(counts),
        draws=draws,
        tune=tune,
        chains=chains,
        seed=sampler_seed,
        progressbar=progressbar_default(progressbar),
        target_accept=target_accept,
        sampler=used_sampler,
    )
    posterior = trace["posterior"].to_dataset()
    sample_stats = trace["sample_stats"].to_dataset()
    if strata:
        posterior = posterior.assign_coords(stratum=list(strata))
    dims = ("stratum",) if strata else ()
    coords = {"stratum": list(strata)} if strata else {}
    observed = xr.Dataset({name: (dims, counts[name]) for name in ("x1", "x0", "k")}, coords=coords)
    constant = xr.Dataset({name: (dims, counts[name]) for name in ("m1", "m0", "n")}, coords=coords)
    predictive = posterior_predictive_counts(posterior, counts, random_seed=rng)
    tree = xr.DataTree.from_dict(
        {
            "posterior": posterior,
            "posterior_predictive": predictive,
            "sample_stats": sample_stats,
            "observed_data": observed,
            "constant_data": constant,
        }
    )
    info = ModelInfo(
        STRATIFIED_PREVALENCE if stratified else PREVALENCE, priors, bool(restrict_j), strata
    )
    tree.attrs.update(
        {
            "bayesjudge_version": __version__,
            **info.as_attrs(),
            "priors": json.dumps(priors.as_dict()),
            "sampler": used_sampler,
            "sampler_note": sampler_note,
            "counts": json.dumps({k: np.asarray(v).tolist() for k, v in counts.items()}),
            "draws": draws,
            "tune": tune,
            "chains": chains,
            "target_accept": float(target_accept),
            "sampler_seed": sampler_seed,
        }
    )
    if strata:
        tree.attrs["strata"] = list(strata)
    else:
        tree.attrs.pop("strata", None)
    if check:
        from bayesjudge.diagnostics import check_fit

        reported = [v for v in _REPORTED if v in posterior]
        diagnostics = check_fit(tree, mcse_var_names=reported)
        tree.attrs["diagnostics_passed"] = diagnostics.passed
        tree.attrs["diagnostics_failures"] = json.dumps([row.label for row in diagnostics.failures])
        if not diagnostics.passed:
            warnings.warn(
                f"the {info.name} fit failed {len(diagnostics.failures)} diagnostic check(s): "
                f"{diagnostics.describe_failures()}",
                FitWarning,
                stacklevel=2,
            )
    return tree


def _cache_key(
    kind: str, restrict_j: bool, priors: PrevalencePriors, n_strata: int
) -> tuple[object, ...]:
    """Return the cache key of a prevalence model: what fixes its structure."""
    return (kind, bool(restrict_j), priors, n_strata)


def prevalence_draws(
    counts: JudgeCounts,
    *,
    var_names: Sequence[str] = ("pi", "se", "sp"),
    priors: PrevalencePriors | None = None,
    restrict_j: bool = True,
    draws: int = 2000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
    cores: int | None = None,
) -> NutsDraws:
    """Return posterior draws of the unstratified prevalence model as plain arrays.

    The same cached compiled model, sampler seed and NUTS settings as :func:`fit_prevalence`
    (so, for the same arguments, the same draws), without building a DataTree, posterior
    predictive draws or diagnostics: the fast path for studies that fit thousands of datasets
    and check each replicate themselves (:mod:`bayesjudge.studies`).

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
    from bayesjudge.models.prevalence import prevalence_model

    priors = PrevalencePriors() if priors is None else priors
    arrays = {k: np.asarray(v, dtype=np.int64) for k, v in counts.as_dict().items()}
    sampler, _ = resolve_sampler("auto")
    return sample_nuts_draws(
        _CACHE,
        _cache_key("pooled", restrict_j, priors, 0),
        lambda: prevalence_model(counts, priors=priors, restrict_j=restrict_j),
        _model_data(arrays),
        tuple(var_names),
        draws=_check_positive_int("draws", draws, minimum=1),
        tune=_check_positive_int("tune", tune, minimum=0),
        chains=_check_positive_int("chains", chains, minimum=1),
        seed=int(rng_from(random_seed).integers(0, 2**32 - 1)),  # as fit_prevalence derives it
        target_accept=target_accept,
        sampler=sampler,
        cores=cores,
    )


def _counts_as_ints(counts: dict[str, np.ndarray]) -> dict[str, int]:
    """Return scalar counts as plain ints (for :class:`~bayesjudge.data.JudgeCounts`)."""
    return {k: int(v) for k, v in counts.items()}
