r"""Fit the retry-gate hierarchy and put it beside the frequentist baselines at each cap K.

:func:`fit_gate` takes validated :class:`~bayesjudge.data.Rulings` to a checked posterior
(an :class:`xarray.DataTree`): rulings -> (label, r, k) cells with multiplicities
(:func:`bayesjudge.gates.gate_cells`) -> cached model
(:func:`bayesjudge.models.gate.gate_model`) -> nutpie -> posterior, with the finite-sample
success rate of the unlabelled items and posterior predictive counts -> attrs ->
:func:`bayesjudge.diagnostics.check_fit`.

**Refits do not recompile.** The cell arrays are ``pm.Data`` padded to a bucket length (the
next power of two, at least 32), and the built model and its compiled nutpie form are cached,
keyed by (bucket, ``k_max``, priors). A refit swaps the new cells into a copy of the compiled
model with ``CompiledPyMCModel.with_data`` (:func:`bayesjudge.sampling.sample_nuts`, shared with
the other model families).

:func:`gate_baselines` gives, at each cap K, the naive reported rate, Rogan-Gladen with the
per-cap Se and Sp, and PPI / PPI++ on the continuous per-item score :math:`\hat s_i(K)`
(:func:`bayesjudge.gates.cap_scores`), reusing the arithmetic of
:mod:`bayesjudge.baselines`.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from bayesjudge._version import __version__
from bayesjudge.baselines import (
    ppi_lambda,
    ppi_mean,
    rogan_gladen_map,
    rogan_gladen_variance,
)
from bayesjudge.data import Rulings
from bayesjudge.errors import DataError, FitWarning
from bayesjudge.gates import GateCells, cap_scores, gate_cells
from bayesjudge.results import Estimate, Interval
from bayesjudge.sampling import (
    ModelCache,
    Sampler,
    progressbar_default,
    resolve_sampler,
    sample_nuts,
)
from bayesjudge.simulate import rng_from

if TYPE_CHECKING:
    from bayesjudge.models.gate import GatePriors

__all__ = [
    "GATE_BASELINES",
    "CapEstimate",
    "clear_gate_cache",
    "fit_gate",
    "gate_baselines",
    "gate_cache_info",
    "gate_posterior_summary",
]

#: Methods of :func:`gate_baselines`, in row order at each cap.
GATE_BASELINES = ("naive", "rogan_gladen_delta", "ppi", "ppi_plus_plus")
_MIN_BUCKET = 32


# --------------------------------------------------------------------------- model cache
_CACHE = ModelCache(8)


def gate_cache_info() -> dict[str, int]:
    """Return the counters of the gate model cache: builds, compiles, hits, size.

    Examples
    --------
    >>> clear_gate_cache()
    >>> gate_cache_info()
    {'builds': 0, 'compiles': 0, 'hits': 0, 'size': 0}
    """
    return asdict(_CACHE.info())


def clear_gate_cache() -> None:
    """Drop every cached gate model and reset the counters."""
    global _CACHE
    _CACHE = ModelCache(8)


def _bucket(n: int) -> int:
    return max(_MIN_BUCKET, 1 << int(np.ceil(np.log2(max(n, 1)))))


def _positive_int(name: str, value: int, *, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r}")
    return int(value)


# --------------------------------------------------------------------------- derived draws
def _zibb_logpmf(
    k: NDArray[Any], r: NDArray[Any], omega: NDArray[Any], a: NDArray[Any], b: NDArray[Any]
) -> NDArray[np.float64]:
    """Zero-inflated beta-binomial log pmf; draws on leading axes, cells on the last."""
    log_pass = np.log1p(-omega) + stats.betabinom.logpmf(k, r, a, b)
    return np.where(k == 0, np.logaddexp(np.log(omega), log_pass), log_pass)


def _class_params(posterior: xr.Dataset) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    omega = posterior["omega"].transpose("chain", "draw", "class").to_numpy()
    mu = posterior["mu"].transpose("chain", "draw", "class").to_numpy()
    kappa = posterior["kappa"].transpose("chain", "draw", "class").to_numpy()
    return omega, mu * kappa, (1.0 - mu) * kappa


def _pi_sample(
    posterior: xr.Dataset, cells: GateCells, rng: np.random.Generator
) -> NDArray[np.float64]:
    r"""Draws of the compliant share among the unlabelled items (finite-sample success rate).

    For an unlabelled cell, :math:`P(y = 1 \mid r, k) = \pi L_1 / (\pi L_1 + (1-\pi) L_0)`;
    the number of compliant items among its ``weight`` items is binomial with that probability.
    """
    unl = cells.label < 0
    r, k, w = cells.r[unl], cells.k[unl], cells.weight[unl]
    omega, a, b = _class_params(posterior)
    pi = posterior["pi"].transpose("chain", "draw").to_numpy()[..., None]
    log1 = _zibb_logpmf(k, r, omega[..., 1:2], a[..., 1:2], b[..., 1:2])
    log0 = _zibb_logpmf(k, r, omega[..., 0:1], a[..., 0:1], b[..., 0:1])
    logit = np.log(pi) - np.log1p(-pi) + log1 - log0
    prob = 1.0 / (1.0 + np.exp(-logit))
    compliant = rng.binomial(np.broadcast_to(w, prob.shape), prob)
    return np.asarray(compliant.sum(axis=-1) / w.sum(), dtype=float)


#: Groups of the posterior predictive counts.
GROUPS = ("violation", "compliant", "unlabelled")


def _extreme_counts(cells: GateCells) -> dict[str, NDArray[np.int64]]:
    out = {}
    for name, hit in (("never_passed", cells.k == 0), ("always_passed", cells.k == cells.r)):
        out[name] = np.array(
            [int(cells.weight[(cells.label == code) & hit].sum()) for code in (0, 1, -1)]
        )
    return out


def _end_probs(
    zeros: NDArray[Any],
    full: NDArray[Any],
    omega: NDArray[Any],
    a: NDArray[Any],
    b: NDArray[Any],
    c: int,
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Probabilities of k = 0 and k = r under class ``c`` at every draw."""
    pars = (omega[..., c : c + 1], a[..., c : c + 1], b[..., c : c + 1])
    p0 = np.exp(_zibb_logpmf(zeros, full, *pars))[..., 0]
    pr = np.exp(_zibb_logpmf(full, full, *pars))[..., 0]
    return p0, pr


def _predictive(
    posterior: xr.Dataset, cells: GateCells, rng: np.random.Generator
) -> dict[str, NDArray[np.int64]]:
    """Replicate the numbers of never-passed and always-passed items in each group."""
    omega, a, b = _class_params(posterior)
    pi = posterior["pi"].transpose("chain", "draw").to_numpy()
    shape = pi.shape
    never = np.zeros((*shape, 3), dtype=np.int64)
    always = np.zeros((*shape, 3), dtype=np.int64)
    for g, code in enumerate((0, 1, -1)):
        in_group = cells.label == code
        for r in np.unique(cells.r[in_group]):
            n = int(cells.weight[in_group & (cells.r == r)].sum())
            zeros = np.zeros(1, dtype=np.int64)
            full = np.full(1, r, dtype=np.int64)
            if code >= 0:
                p0, pr = _end_probs(zeros, full, omega, a, b, code)
            else:
                p0_1, pr_1 = _end_probs(zeros, full, omega, a, b, 1)
                p0_0, pr_0 = _end_probs(zeros, full, omega, a, b, 0)
                p0 = pi * p0_1 + (1 - pi) * p0_0
                pr = pi * pr_1 + (1 - pi) * pr_0
            n0 = rng.binomial(n, np.clip(p0, 0.0, 1.0))
            rest = np.clip(pr / np.maximum(1.0 - p0, 1e-300), 0.0, 1.0)
            nr = rng.binomial(n - n0, rest)
            never[..., g] += n0
            always[..., g] += nr
    return {"never_passed": never, "always_passed": always}


# --------------------------------------------------------------------------- fitting
def fit_gate(
    rulings: Rulings,
    *,
    k_max: int = 10,
    priors: GatePriors | None = None,
    draws: int = 2000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float = 0.9,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool | None = None,
    sampler: Sampler = "auto",
    calibration: Literal["random", "by_class"] = "random",
    check: bool = True,
) -> xr.DataTree:
    r"""Sample the per-item pass-rate hierarchy of a retry gate (seed 000; DESIGN.md family 2).

    Fits :func:`bayesjudge.models.gate.gate_model`: per class a zero-inflated Beta over the
    per-item pass probability, rulings :math:`k_i \sim \mathrm{Bin}(r_i, p_i)` marginalised to
    a zero-inflated beta-binomial, unlabelled items a two-class mixture with weight
    :math:`\pi`; each distinct (label, r, k) cell enters once, weighted by its multiplicity.

    Parameters
    ----------
    rulings : Rulings
        Validated rulings with gold labels on a calibration subset of both classes.
    k_max : int, default 10
        Largest cap K of the derived Se, Sp, J, R and bias.
    priors : GatePriors, optional
        :class:`bayesjudge.models.gate.GatePriors`; the defaults otherwise.
    draws, tune, chains : int
        Draws per chain (default 2000: the class parameters near their boundaries have heavy
        tails, and with 1000 the MCSE of their interval bounds was often just above the
        0.2-sd limit of :func:`~bayesjudge.diagnostics.check_fit`), tuning steps per chain
        (1000) and chains (4).
    target_accept : float, default 0.9
        NUTS target acceptance (0.9: the never-pass weight of a class whose items all pass
        sometimes has a long tail towards 0 on the logit scale; 0.8 left occasional
        divergences there).
    random_seed : int, Generator or None
        Seed of the sampler and of the derived draws.
    progressbar : bool, optional
        Show the sampler's progress bar; by default only when stderr is a terminal.
    sampler : {"auto", "nutpie", "pymc"}
        ``"auto"`` uses nutpie when installed (compiled once per model shape and cached).
    calibration : {"random", "by_class"}, default "random"
        Whether the labelled items are a random sample of the population (their labels then
        inform pi too, as PPI assumes) or were chosen by class (label shift allowed; only the
        class-conditional law of the rulings transfers). See
        :func:`bayesjudge.models.gate.gate_model`.
    check : bool, default True
        Run :func:`bayesjudge.diagnostics.check_fit`, store the verdict in the attrs and warn
        with :class:`~bayesjudge.errors.FitWarning` when a check fails.

    Returns
    -------
    DataTree
        ``posterior`` (the model's variables plus ``pi_sample``, the compliant share among
        the unlabelled items), ``sample_stats``, ``posterior_predictive`` and
        ``observed_data`` (``never_passed`` and ``always_passed`` items per group
        violation / compliant / unlabelled), ``constant_data`` (the cells). Root attrs:
        ``bayesjudge_version``, ``model``, ``priors``, ``k_max``, ``sampler``, ``draws``,
        ``tune``, ``chains``, ``target_accept``, ``n_items``, ``n_labelled``,
        ``n_unlabelled``, ``n_cells`` and, when checked, ``diagnostics_passed``.

    Raises
    ------
    DataError
        If a class has no labelled item or there is no unlabelled item.
    ValueError
        On an unknown ``sampler`` or a non-positive count.

    Examples
    --------
    >>> from bayesjudge.simulate_gate import rejudgment_gate, skewed_gate
    >>> gate = rejudgment_gate(*skewed_gate(0.4), pi=0.6, n_items=400, random_seed=1)
    >>> tree = fit_gate(Rulings.from_frame(gate.table), k_max=5, random_seed=1,
    ...                 progressbar=False)  # doctest: +SKIP
    >>> tree.posterior["J"].sel(k=1).mean().item()  # doctest: +SKIP
    0.5...
    """
    from bayesjudge.models.gate import CALIBRATION, GATE, GatePriors, gate_model, pad_cells

    if not isinstance(rulings, Rulings):
        raise TypeError(f"rulings must be Rulings; got {type(rulings).__name__}")
    k_max = _positive_int("k_max", k_max)
    draws = _positive_int("draws", draws)
    tune = _positive_int("tune", tune, minimum=0)
    chains = _positive_int("chains", chains)
    if not 0.0 < target_accept < 1.0:
        raise ValueError(f"target_accept must lie in (0, 1); got {target_accept!r}")
    use, sampler_note = resolve_sampler(sampler)
    if calibration not in CALIBRATION:
        raise ValueError(f"calibration must be one of {list(CALIBRATION)}; got {calibration!r}")
    priors = GatePriors() if priors is None else priors
    cells = gate_cells(rulings.label, rulings.r, rulings.k)
    n_violation, n_compliant = cells.n_labelled
    if n_violation == 0 or n_compliant == 0:
        raise DataError(
            "the gate model needs gold-labelled items of both classes; the rulings have "
            f"{n_compliant} compliant and {n_violation} violation items"
        )
    if cells.n_unlabelled == 0:
        raise DataError("the rulings have no unlabelled items, so there is no pi to estimate")
    size = _bucket(len(cells))
    rng = rng_from(random_seed)
    seed = int(rng.integers(0, 2**32 - 1))
    trace = sample_nuts(
        _CACHE,
        (size, k_max, priors, calibration),
        lambda: gate_model(
            cells, k_max=k_max, priors=priors, n_cells=size, calibration=calibration
        ),
        pad_cells(cells, size),
        draws=draws,
        tune=tune,
        chains=chains,
        seed=seed,
        progressbar=progressbar_default(progressbar),
        target_accept=target_accept,
        sampler=use,
    )
    posterior = trace["posterior"].to_dataset()
    posterior = posterior.assign_coords(k=np.arange(1, k_max + 1))
    posterior["pi_sample"] = (("chain", "draw"), _pi_sample(posterior, cells, rng))
    sample_stats = trace["sample_stats"].to_dataset()
    observed = xr.Dataset(
        {name: (("group",), v) for name, v in _extreme_counts(cells).items()},
        coords={"group": list(GROUPS)},
    )
    predictive = xr.Dataset(
        {
            name: (("chain", "draw", "group"), v)
            for name, v in _predictive(posterior, cells, rng).items()
        },
        coords={
            "chain": posterior["chain"],
            "draw": posterior["draw"],
            "group": list(GROUPS),
        },
    )
    constant = xr.Dataset(
        {
            "cell_label": ("cell", cells.label),
            "cell_r": ("cell", cells.r),
            "cell_k": ("cell", cells.k),
            "cell_weight": ("cell", cells.weight),
        }
    )
    tree = xr.DataTree.from_dict(
        {
            "posterior": posterior,
            "posterior_predictive": predictive,
            "sample_stats": sample_stats,
            "observed_data": observed,
            "constant_data": constant,
        }
    )
    tree.attrs.update(
        {
            "bayesjudge_version": __version__,
            "model": GATE,
            "priors": json.dumps(priors.as_dict()),
            "k_max": k_max,
            "calibration": calibration,
            "sampler": use,
            "sampler_note": sampler_note,
            "draws": draws,
            "tune": tune,
            "chains": chains,
            "target_accept": float(target_accept),
            "sampler_seed": seed,
            "n_items": int(rulings.items.size),
            "n_labelled": int(rulings.labelled.sum()),
            "n_unlabelled": cells.n_unlabelled,
            "n_cells": len(cells),
        }
    )
    if check:
        from bayesjudge.diagnostics import check_fit

        diagnostics = check_fit(tree)
        tree.attrs["diagnostics_passed"] = diagnostics.passed
        if not diagnostics.passed:
            warnings.warn(
                f"the gate fit failed {len(diagnostics.failures)} diagnostic check(s): "
                f"{diagnostics.describe_failures()}",
                FitWarning,
                stacklevel=2,
            )
    return tree


# --------------------------------------------------------------------------- summaries
def gate_posterior_summary(
    posterior: xr.DataTree, *, caps: ArrayLike, prob: float = 0.95
) -> dict[str, Any]:
    """Return the ``posterior`` block of ``bayesjudge gate --json``.

    ``{"pi": S, "J_inf": S, "J": {"1": S, ...}, "Se": {...}, "Sp": {...}, "R": {...}}`` with
    ``S = {"mean", "sd", "low", "high", "prob"}`` (equal-tailed interval of mass ``prob``), as
    :meth:`bayesjudge.compare.PosteriorSummary.to_dict` gives it.

    Raises
    ------
    ValueError
        If a cap exceeds the ``k_max`` the model was fitted with.
    """
    from bayesjudge.compare import posterior_summary

    caps_list = [int(c) for c in np.atleast_1d(np.asarray(caps))]
    available = posterior["posterior"]["k"].to_numpy().tolist()
    missing = [c for c in caps_list if c not in available]
    if missing:
        raise ValueError(f"caps {missing} exceed the fitted k_max={max(available)}")
    out: dict[str, Any] = {
        "pi": posterior_summary(posterior, "pi", prob=prob).to_dict(),
        "J_inf": posterior_summary(posterior, "J_inf", prob=prob).to_dict(),
    }
    for name in ("J", "Se", "Sp", "R"):
        out[name] = {
            str(c): posterior_summary(posterior, name, prob=prob, coords={"k": c}).to_dict()
            for c in caps_list
        }
    return out


# --------------------------------------------------------------------------- baselines
@dataclass(frozen=True, slots=True)
class CapEstimate:
    """A baseline estimate of pi computed at cap K.

    Attributes
    ----------
    k : int
        The cap.
    estimate : Estimate
        The estimate (its ``j`` is the calibration J(K) where the method uses one).
    """

    k: int
    estimate: Estimate

    def to_row(self) -> dict[str, Any]:
        """Return the estimate's row with a leading ``k`` field."""
        return {"k": self.k, **self.estimate.to_row()}


def _z(prob: float) -> float:
    return float(stats.norm.ppf(0.5 + prob / 2.0))


def _clt(method: str, value: float, se: float, prob: float, **kwargs: Any) -> Estimate:
    z = _z(prob)
    return Estimate(
        method, value, Interval(value - z * se, value + z * se, prob, "clt"), se=se, **kwargs
    )


def gate_baselines(rulings: Rulings, *, caps: ArrayLike, prob: float = 0.95) -> list[CapEstimate]:
    r"""Frequentist estimates of pi at each cap K, from per-item continuous scores.

    Each item's score at cap K is the unbiased estimate :math:`\hat s_i(K)` of its ship
    probability from its own rulings (:func:`bayesjudge.gates.cap_scores`; the fraction of
    rulings passed at K = 1). At each cap:

    * ``naive``: the reported rate :math:`\hat R(K)`, the mean score of the unlabelled items,
      with a CLT interval;
    * ``rogan_gladen_delta``: :math:`(\hat R - 1 + \widehat{\mathrm{Sp}})/\hat J` with
      :math:`\widehat{\mathrm{Se}}(K)` and :math:`1 - \widehat{\mathrm{Sp}}(K)` the class means
      of the labelled scores (seed 000, eq. 6) and the delta-method variance of
      :func:`bayesjudge.baselines.rogan_gladen_variance` (seed 000, eq. B.1 at the plug-in
      estimates), clipped to [0, 1];
    * ``ppi`` and ``ppi_plus_plus``: prediction-powered means with the score as prediction
      (:func:`bayesjudge.baselines.ppi_mean`, :func:`~bayesjudge.baselines.ppi_lambda`;
      Angelopoulos et al. 2023). These assume the labelled items are a random sample of the
      population.

    Caps larger than some item's number of rulings would need extrapolation: those rows have
    no estimate and say why.

    Examples
    --------
    >>> from bayesjudge.simulate_gate import rejudgment_gate, skewed_gate
    >>> gate = rejudgment_gate(*skewed_gate(0.4), pi=0.6, n_items=400, labelled_fraction=0.3,
    ...                        random_seed=1)
    >>> rows = gate_baselines(Rulings.from_frame(gate.table), caps=[1, 2])
    >>> [(row.k, row.estimate.method) for row in rows][:4]
    [(1, 'naive'), (1, 'rogan_gladen_delta'), (1, 'ppi'), (1, 'ppi_plus_plus')]
    """
    if not 0.0 < prob < 1.0:
        raise ValueError(f"prob must lie in (0, 1); got {prob!r}")
    labelled = rulings.labelled
    y = rulings.label[labelled]
    comp, viol = y == 1.0, y == 0.0
    if not comp.any() or not viol.any():
        raise DataError(
            "the baselines need gold-labelled items of both classes; got "
            f"{int(comp.sum())} compliant and {int(viol.sum())} violation items"
        )
    if labelled.all():
        raise DataError("the rulings have no unlabelled items, so there is no pi to estimate")
    caps_arr = np.atleast_1d(np.asarray(caps, dtype=np.int64))
    scores = cap_scores(rulings.r, rulings.k, caps_arr)
    min_r = int(rulings.r.min())
    rows: list[CapEstimate] = []
    for j, cap in enumerate(caps_arr):
        cap = int(cap)
        if cap > min_r:
            reason = (
                f"K={cap} exceeds the fewest rulings of an item ({min_r}); the score would be "
                "an extrapolation"
            )
            rows.extend(
                CapEstimate(cap, Estimate(method, None, notes=(reason,)))
                for method in GATE_BASELINES
            )
            continue
        s = scores[:, j]
        s_lab, s_unl = s[labelled], s[~labelled]
        n, m1, m0 = s_unl.size, int(comp.sum()), int(viol.sum())
        reported = float(s_unl.mean())
        rows.append(
            CapEstimate(cap, _clt("naive", reported, float(np.std(s_unl) / np.sqrt(n)), prob))
        )
        se_hat = float(s_lab[comp].mean())
        sp_hat = 1.0 - float(s_lab[viol].mean())
        j_hat = se_hat + sp_hat - 1.0
        if j_hat > 0:
            unclipped = float(rogan_gladen_map(reported, sp_hat, se_hat))
            se = float(np.sqrt(rogan_gladen_variance(reported, sp_hat, se_hat, n, m0, m1)))
            z = _z(prob)
            value = min(max(unclipped, 0.0), 1.0)
            low = min(max(unclipped - z * se, 0.0), 1.0)
            high = min(max(unclipped + z * se, 0.0), 1.0)
            notes = () if value == unclipped else (f"clipped to [0, 1] from {unclipped:.4g}",)
            rows.append(
                CapEstimate(
                    cap,
                    Estimate(
                        "rogan_gladen_delta",
                        value,
                        Interval(low, high, prob, "delta"),
                        se=se,
                        j=j_hat,
                        unclipped=unclipped,
                        notes=notes,
                    ),
                )
            )
        else:
            rows.append(
                CapEstimate(
                    cap,
                    Estimate.not_identifiable(
                        "rogan_gladen_delta", f"the gate's J({cap}) = {j_hat:.4g} <= 0", j=j_hat
                    ),
                )
            )
        est, se = ppi_mean(y, s_lab, s_unl, lam=1.0)
        rows.append(CapEstimate(cap, _clt("ppi", est, se, prob)))
        lam = ppi_lambda(y, s_lab, s_unl)
        est, se = ppi_mean(y, s_lab, s_unl, lam=lam)
        rows.append(
            CapEstimate(cap, _clt("ppi_plus_plus", est, se, prob, notes=(f"lambda={lam:.4g}",)))
        )
    return rows
