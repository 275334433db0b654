r"""Fit the retry-gate hierarchy: rulings -> cells -> cached model -> NUTS -> checked posterior.

:func:`fit_gate` takes validated :class:`~bayesjudge.gates.data.Rulings` to a checked posterior
(an :class:`xarray.DataTree`) through the one fitting path of
:func:`bayesjudge.inference.fit.fit_model`: rulings are reduced to (label, r, k) cells with
multiplicities (:func:`bayesjudge.gates.cells.gate_cells`), padded to a bucket length (the next
power of two, at least 32) so that refits on new data reuse the compiled model
(:func:`bayesjudge.models.gate.gate_model`); the posterior gets the finite-sample success rate
of the unlabelled items, the gate's Se(K), Sp(K), J(K), R(K) and bias at the caps asked for
(closed forms of the class parameters, :func:`cap_curve_draws`), and posterior predictive
counts of never-passed and always-passed items. The fit's diagnostics carry the posterior
predictive check of the whole histogram of passes per group and number of rulings
(:func:`bayesjudge.gates.predictive.gate_predictive_check`, recorded under the root attr
``predictive_check``): a failed test fails the diagnostics like a failed convergence check.

The numpy zero-inflated beta-binomial here (:func:`zibb_logpmf`) is the model's likelihood for
the derived draws; a test checks it against the model's PyTensor log density.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Literal, get_args

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from bayesjudge._docstring import SAMPLER_PARAMETERS, fill_doc
from bayesjudge.errors import DataError
from bayesjudge.estimators.design import RandomCalibrationCheck, random_calibration_test
from bayesjudge.gates.caps import check_caps
from bayesjudge.gates.cells import GateCells, gate_cells, pad_cells
from bayesjudge.gates.curves import beta_tail_moment
from bayesjudge.gates.data import Rulings
from bayesjudge.gates.predictive import gate_predictive_check
from bayesjudge.gates.start import gate_start
from bayesjudge.inference import defaults
from bayesjudge.inference.cache import bucket_size
from bayesjudge.inference.fit import Draws, ModelRun, NutsSettings, fit_model
from bayesjudge.inference.ppc import TablePredictiveCheck
from bayesjudge.inference.sampling import Sampler
from bayesjudge.priors import GatePriors
from bayesjudge.validation import check_choice

__all__ = [
    "CALIBRATION",
    "GROUPS",
    "REPORTED",
    "TARGET_ACCEPT",
    "cap_curve_draws",
    "fit_gate",
    "gate_calibration_check",
    "zibb_logpmf",
]

Calibration = Literal["by_class", "random"]
#: How the gold-labelled items were chosen.
CALIBRATION: tuple[str, ...] = get_args(Calibration)
#: Quantities reported by the gate family (their Monte Carlo error is checked).
REPORTED = ("pi", "j_inf", "se", "sp", "j", "judged_rate")
#: Default NUTS target acceptance of the gate hierarchy (its analysis and command use it too).
TARGET_ACCEPT = defaults.GATE_TARGET_ACCEPT
_MIN_BUCKET = 32


def _bucket(n: int) -> int:
    return bucket_size(n, minimum=_MIN_BUCKET)


def zibb_logpmf(
    k: NDArray[Any], r: NDArray[Any], omega: Any, a: Any, b: Any
) -> NDArray[np.float64]:
    r"""Zero-inflated beta-binomial log pmf; draws on leading axes, cells on the last.

    .. math::

        \log P(k \mid r) = \log\Big(\omega\,\mathbf 1\{k = 0\}
            + (1 - \omega)\binom{r}{k}\frac{B(k + a, r - k + b)}{B(a, b)}\Big)

    the likelihood of one item of :func:`bayesjudge.models.gate.gate_model` in a class with
    never-pass weight ``omega`` and Beta(a, b) pass rates.

    Examples
    --------
    >>> round(float(zibb_logpmf(np.array(0), np.array(1), 0.5, 1.0, 1.0)), 4)
    -0.2877
    """
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
    log1 = zibb_logpmf(k, r, omega[..., 1:2], a[..., 1:2], b[..., 1:2])
    log0 = zibb_logpmf(k, r, omega[..., 0:1], a[..., 0:1], b[..., 0:1])
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
    p0 = np.exp(zibb_logpmf(zeros, full, *pars))[..., 0]
    pr = np.exp(zibb_logpmf(full, full, *pars))[..., 0]
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


def cap_curve_draws(posterior: xr.Dataset, caps: ArrayLike) -> xr.Dataset:
    r"""Return the gate's Se(K), Sp(K), J(K), R(K) and bias at each cap, at every draw.

    .. math::

        \mathrm{Se}(K) = (1-\omega_1)\Big(1 - \frac{B(a_1, b_1+K)}{B(a_1, b_1)}\Big), \quad
        1 - \mathrm{Sp}(K) = (1-\omega_0)\Big(1 - \frac{B(a_0, b_0+K)}{B(a_0, b_0)}\Big),

    :math:`J(K) = \mathrm{Se}(K) + \mathrm{Sp}(K) - 1`,
    :math:`R(K) = \pi\mathrm{Se}(K) + (1-\pi)(1-\mathrm{Sp}(K))` and bias :math:`R(K) - \pi`
    (Below the Reliability Floor, eqs. 1-5), with :math:`a = \mu\kappa`,
    :math:`b = (1-\mu)\kappa`.

    Parameters
    ----------
    posterior : Dataset
        Draws of ``pi``, ``omega``, ``mu``, ``kappa`` (by ``class``).
    caps : array_like of int
        The caps K.

    Returns
    -------
    Dataset
        ``se``, ``sp``, ``j``, ``judged_rate``, ``bias`` with dims ``(chain, draw, cap)``.
    """
    k = check_caps(caps)
    omega, a, b = _class_params(posterior)
    pi = posterior["pi"].transpose("chain", "draw").to_numpy()[..., None]
    ship = (1.0 - omega[..., None]) * (1.0 - beta_tail_moment(a, b, k))  # (chain, draw, class, cap)
    se, fpr = ship[..., 1, :], ship[..., 0, :]
    rate = pi * se + (1.0 - pi) * fpr
    dims = ("chain", "draw", "cap")
    return xr.Dataset(
        {
            "se": (dims, se),
            "sp": (dims, 1.0 - fpr),
            "j": (dims, se - fpr),
            "judged_rate": (dims, rate),
            "bias": (dims, rate - pi),
        },
        coords={"chain": posterior["chain"], "draw": posterior["draw"], "cap": k},
    )


def gate_calibration_check(rulings: Rulings) -> RandomCalibrationCheck:
    """Check whether labelled and unlabelled items pass their rulings at the same rate.

    If the gold-labelled items were a random sample of all items, their mean fraction of
    passed rulings would match the unlabelled items' (a two-proportion score test on the
    per-item fractions; :func:`bayesjudge.estimators.design.random_calibration_test`).
    """
    score = rulings.k / rulings.r
    labelled = rulings.labelled
    return random_calibration_test(
        passed_labelled=float(score[labelled].sum()),
        n_labelled=int(labelled.sum()),
        passed_unlabelled=float(score[~labelled].sum()),
        n_unlabelled=int((~labelled).sum()),
    )


@fill_doc(sampler_parameters=SAMPLER_PARAMETERS)
def fit_gate(
    rulings: Rulings,
    *,
    caps: ArrayLike = (1, 2, 5),
    priors: GatePriors | None = None,
    calibration: Calibration = "by_class",
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
    r"""Sample the per-item pass-rate hierarchy of a retry gate (Below the Reliability Floor).

    Fits :func:`bayesjudge.models.gate.gate_model`: per class a zero-inflated Beta over the
    per-item pass probability, rulings :math:`k_i \sim \mathrm{Bin}(r_i, p_i)` marginalised to
    a zero-inflated beta-binomial, unlabelled items a two-class mixture with weight
    :math:`\pi`; each distinct (label, r, k) cell enters once, weighted by its multiplicity.
    The default 2000 draws per chain are for the class parameters near their boundaries,
    whose posteriors have heavy tails.

    Parameters
    ----------
    rulings : Rulings
        Validated rulings with gold labels on a calibration subset of both classes.
    caps : array_like of int, default (1, 2, 5)
        Caps K at which Se, Sp, J, R and the bias are computed and checked (any others can be
        computed later with :func:`cap_curve_draws`).
    priors : GatePriors, optional
        :class:`bayesjudge.GatePriors`; the defaults otherwise.
    calibration : {"by_class", "random"}, default "by_class"
        ``"by_class"``: the gold items may have been chosen by class, so only the
        class-conditional law of the rulings transfers to the unlabelled items (robust to a
        class-balanced gold set). ``"random"``: the gold items are a random sample of all
        items, so their labels inform pi too (as PPI assumes); a check then warns when the
        labelled items' pass rate says otherwise.
    %(sampler_parameters)s

    Returns
    -------
    DataTree
        ``posterior`` (the model's variables, ``pi_sample`` the compliant share among the
        unlabelled items, and ``se``, ``sp``, ``j``, ``judged_rate``, ``bias`` by ``cap``),
        ``sample_stats``, ``posterior_predictive`` and ``observed_data`` (``never_passed`` and
        ``always_passed`` items per group violation / compliant / unlabelled),
        ``constant_data`` (the cells). Root attrs as recorded by
        :func:`~bayesjudge.inference.fit.fit_model`, plus ``calibration``, ``caps``,
        ``n_items``, ``n_labelled``, ``n_unlabelled``, ``n_cells`` and ``predictive_check``
        (JSON of :func:`bayesjudge.gates.predictive.gate_predictive_check`, whose tests are
        among the diagnostics).

    Raises
    ------
    DataError
        If a class has no labelled item or there is no unlabelled item.
    ValueError
        On an unknown ``sampler`` or ``calibration``, or settings out of range.

    Warns
    -----
    UserWarning
        With ``calibration="random"`` when the labelled items do not look like a random sample.
    FitWarning
        When a diagnostic check still fails after the retry.

    Examples
    --------
    >>> from bayesjudge.gates.simulate import rejudgment_gate, skewed_gate
    >>> gate = rejudgment_gate(*skewed_gate(0.4), pi=0.6, n_items=400, random_seed=1)
    >>> tree = fit_gate(Rulings.from_frame(gate.table), caps=[1, 5], random_seed=1,
    ...                 progressbar=False)  # doctest: +SKIP
    >>> tree.posterior["j"].sel(cap=1).mean().item()  # doctest: +SKIP
    0.5...
    """
    from bayesjudge.models.gate import GATE, gate_model

    if not isinstance(rulings, Rulings):
        raise TypeError(f"rulings must be Rulings; got {type(rulings).__name__}")
    check_choice(calibration, name="calibration", allowed=CALIBRATION)
    cap_values = check_caps(caps)
    priors = GatePriors() if priors is None else priors
    settings = NutsSettings.of(draws, tune, chains, target_accept, TARGET_ACCEPT)
    cells = gate_cells(rulings.label, rulings.r, rulings.k)
    n_violation, n_compliant = cells.n_labelled
    if n_violation == 0 or n_compliant == 0:
        raise DataError(
            "the gate model needs gold-labelled items of both classes; the rulings have "
            f"{n_compliant} compliant and {n_violation} violation items"
        )
    if cells.n_unlabelled == 0:
        raise DataError("the rulings have no unlabelled items, so there is no pi to estimate")
    attrs: dict[str, Any] = {"calibration": calibration}
    if calibration == "random":
        check = gate_calibration_check(rulings)
        attrs["calibration_check"] = json.dumps(check.to_dict())
        if not check.consistent:
            warnings.warn(
                "calibration='random' assumes the gold items are a random sample of all items, "
                f"but their mean pass rate is {check.labelled_rate:.3f} against "
                f"{check.unlabelled_rate:.3f} for the unlabelled items (p = {check.p_value:.2g}); "
                "the posterior of pi is biased under this design: use calibration='by_class'",
                UserWarning,
                stacklevel=2,
            )
    size = _bucket(len(cells))
    padded = pad_cells(cells, size)
    run = ModelRun(
        GATE,
        (GATE, size, priors, calibration),
        lambda: gate_model(padded, priors=priors, calibration=calibration),
        padded,
        priors,
        start=gate_start(cells, priors=priors),
    )

    latest: list[TablePredictiveCheck] = []

    def complete(trace: xr.DataTree, rng: np.random.Generator) -> xr.DataTree:
        posterior = trace["posterior"].to_dataset()
        posterior["pi_sample"] = (("chain", "draw"), _pi_sample(posterior, cells, rng))
        posterior = xr.merge([posterior, cap_curve_draws(posterior, cap_values)])
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
                "sample_stats": trace["sample_stats"].to_dataset(),
                "observed_data": observed,
                "constant_data": constant,
            }
        )
        latest[:] = [gate_predictive_check(posterior, cells, random_seed=rng)]
        tree.attrs["predictive_check"] = json.dumps(latest[0].to_dict())
        return tree

    attrs.update(
        {
            "caps": [int(c) for c in cap_values],
            "n_items": int(rulings.items.size),
            "n_labelled": int(rulings.labelled.sum()),
            "n_unlabelled": cells.n_unlabelled,
            "n_cells": len(cells),
        }
    )
    return fit_model(
        run,
        settings=settings,
        complete=complete,
        random_seed=random_seed,
        sampler=sampler,
        progressbar=progressbar,
        escalate=escalate,
        prob=prob,
        mcse_vars=list(REPORTED),
        family_checks=lambda _: latest[0].checks(),
        attrs=attrs,
    )
