r"""Fit study of the hard corners of the prevalence model: divergences and diagnostics.

Run (from the repository root)::

    nice -n 10 .venv/bin/python benchmarks/fit_corners.py run --label after
    .venv/bin/python benchmarks/fit_corners.py report before after

``run`` fits the restricted prevalence model (:func:`bayesjudge.models.prevalence.
prevalence_model`, Jeffreys priors, ``fit_prevalence``'s default NUTS settings) on simulated
data over a grid of hard cases and writes one CSV row per fit to
``benchmarks/results/fit_corners_<label>.csv``; ``report`` turns one or two such files into
``benchmarks/results/fit_corners.md``.

Grid: true success rate :math:`\pi \in \{0.01, 0.05, 0.5, 0.95, 0.99\}`; gold calibration sets
of 20, 50, 100 and 300 items drawn by class (half PASS, half FAIL); judges with Youden's
:math:`J = \mathrm{Se} + \mathrm{Sp} - 1` of 0.2, 0.5, 0.8 and 0.95; 1000 unlabelled items;
20 replicates per cell. Counts: :math:`x_1 \sim \mathrm{Bin}(m_1, \mathrm{Se})`,
:math:`x_0 \sim \mathrm{Bin}(m_0, 1 - \mathrm{Sp})`, :math:`k \sim \mathrm{Bin}(n, \pi\mathrm{Se}
+ (1 - \pi)(1 - \mathrm{Sp}))`. Replicate ``r`` of cell ``c`` draws its counts and its sampler
seed from ``numpy.random.SeedSequence([SEED, c, r])`` alone.

Each fit is checked with :func:`bayesjudge.inference.diagnostics.check_fit` at its default
thresholds, on every posterior variable, with MCSE checked on the reported ones, exactly as
:func:`bayesjudge.prevalence.fit.fit_prevalence` does (the posterior predictive draws come from
:func:`bayesjudge.prevalence.fit.posterior_predictive_counts`). A failing fit is refitted once with
``target_accept=0.99`` and 3000 tuning steps (and 4000 draws per chain when an ESS check
failed) to measure what one escalation would buy.

Closeness to the boundary :math:`J = 0`, where :math:`\pi` stops being identified, is measured on
the exact posterior, independently of the sampler: :func:`boundary_mass` integrates
:math:`P(J < 0.05 \mid \text{data})` by quadrature.

The fit is one parameter: :func:`run` takes any ``fit(counts, seed) -> NutsDraws`` (draws of
every posterior variable plus divergences per chain), so the study can be re-pointed at another
sampler path by passing a different callable.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import xarray as xr
from scipy import special

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _record import RESULTS, record

from bayesjudge.inference.cache import ModelCache
from bayesjudge.inference.diagnostics import Diagnostics, check_fit
from bayesjudge.inference.sampling import NutsDraws, sample_nuts_draws
from bayesjudge.prevalence.data import JudgeCounts
from bayesjudge.prevalence.fit import posterior_predictive_counts
from bayesjudge.validation import rng_from

SEED = 20261123
PI = (0.01, 0.05, 0.5, 0.95, 0.99)
CALIBRATION = (20, 50, 100, 300)
#: Judges by Youden's J: (Se, Sp).
JUDGES: dict[float, tuple[float, float]] = {
    0.2: (0.6, 0.6),
    0.5: (0.8, 0.7),
    0.8: (0.95, 0.85),
    0.95: (0.99, 0.96),
}
N_TEST = 1000
REPLICATES = 20
J_NEAR = 0.05  # boundary_mass measures P(J < J_NEAR | data)
_REPORTED = (  # what fit_prevalence checks the MCSE of
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

FitFunction = Callable[[JudgeCounts, int], NutsDraws]


_CACHE = ModelCache(8)
_DATA_NAMES = {"m1": "m1", "x1": "x1_obs", "m0": "m0", "x0": "x0_obs", "n": "n", "k": "k_obs"}


def load_models(path: str | None) -> ModuleType:
    """The prevalence model module: the package's, or one loaded from a file.

    A file lets the study measure another version of the models, e.g. the one before a change:
    ``git show <commit>:models/prevalence.py > /tmp/old.py`` then ``--model-file /tmp/old.py``.
    """
    if path is None:
        from bayesjudge.models import prevalence

        return prevalence
    spec = importlib.util.spec_from_file_location("fit_corners_models", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot load a module from {path!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _names(model: Any) -> tuple[str, ...]:
    return tuple(v.name for v in (*model.free_RVs, *model.deterministics))


def nuts_fit(
    models: ModuleType,
    *,
    stratified: bool = False,
    target_accept: float | None = None,
    tune: int = 1000,
    draws: int = 2000,
) -> Callable[[Any, int], NutsDraws]:
    """A fit function ``(data, seed) -> NutsDraws`` on ``fit_prevalence``'s sampler path.

    The model cache, data swap, nutpie call and sampler-seed derivation of
    :func:`bayesjudge.prevalence.fit.prevalence_draws` (so, with the package's models and default
    settings, the same draws as ``fit_prevalence``), for any model module; returns every
    posterior variable. ``data`` is :class:`JudgeCounts`, or :class:`JudgeData` with strata
    when ``stratified``. Default ``target_accept``: ``fit_prevalence``'s (0.95, 0.99
    stratified).
    """
    accept = target_accept if target_accept is not None else (0.99 if stratified else 0.95)

    def fit(data: Any, seed: int) -> NutsDraws:
        if stratified:
            counts = data.stratified_counts()

            def build() -> Any:
                return models.stratified_prevalence_model(data.strata, counts)
        else:
            counts = {k: np.int64(v) for k, v in data.as_dict().items()}

            def build() -> Any:
                return models.prevalence_model(data)

        key = (id(models), stratified, len(np.atleast_1d(counts["n"])))
        names = _names(_CACHE.model(key, build))
        return sample_nuts_draws(
            _CACHE,
            key,
            build,
            {_DATA_NAMES[k]: v for k, v in counts.items()},
            names,
            draws=draws,
            tune=tune,
            chains=4,
            seed=int(rng_from(seed).integers(0, 2**32 - 1)),  # as fit_prevalence derives it
            target_accept=accept,
            sampler="nutpie",
            cores=1,
        )

    return fit


def diagnose(counts: dict[str, np.ndarray], fit: NutsDraws, seed: int) -> Diagnostics:
    """Run ``check_fit`` with its defaults on a fit, as ``fit_prevalence`` does.

    ``counts`` holds the six counts as arrays (along ``stratum`` when stratified).
    """
    sample_dims = ("chain", "draw")
    posterior = xr.Dataset(
        {name: ((*sample_dims, "stratum")[: v.ndim], v) for name, v in fit.draws.items()}
    )
    draws = next(iter(fit.draws.values())).shape[1]
    diverging = np.arange(draws)[None, :] < fit.divergences[:, None]
    dims = ("stratum",) if np.ndim(counts["n"]) else ()
    predictive = posterior_predictive_counts(posterior, counts, random_seed=seed)
    tree = xr.DataTree.from_dict(
        {
            "posterior": posterior,
            "sample_stats": xr.Dataset({"diverging": (sample_dims, diverging)}),
            "posterior_predictive": predictive,
            "observed_data": xr.Dataset({k: (dims, counts[k]) for k in ("x1", "x0", "k")}),
        }
    )
    reported = [v for v in _REPORTED if v in posterior]
    return check_fit(tree, mcse_var_names=reported)


# --------------------------------------------------------------------------- J = 0 boundary
def _normal_score_nodes(lo: np.ndarray, hi: np.ndarray, size: int) -> tuple[np.ndarray, ...]:
    """Gauss-Legendre nodes on normal scores in (lo, hi) (last axis), weights incl. phi(z)."""
    x, w = np.polynomial.legendre.leggauss(size)
    x, w = 0.5 * (x + 1.0), 0.5 * w
    width = np.maximum(hi - lo, 0.0)[..., None]
    z = lo[..., None] + width * x
    return z, width * w * np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)


def boundary_mass(counts: JudgeCounts, threshold: float = J_NEAR, size: int = 96) -> float:
    r"""Exact-posterior probability :math:`P(J < \text{threshold} \mid \text{data})`.

    Restricted model, Jeffreys priors. With :math:`f = 1 - \mathrm{Sp}`, the posterior of
    :math:`(\mathrm{Se}, f)` is :math:`f_e(\mathrm{Se})\,f_f(f)\,\mathbf 1\{f < \mathrm{Se}\}
    \,w(\mathrm{Se}, f)` with :math:`f_e, f_f` the calibration-only Beta posteriors and
    :math:`w = \int_0^1 \mathrm{Bin}(k; n, f + J\pi)\,p(\pi)\,d\pi`. Se is integrated on
    Gauss-Legendre nodes in normal scores of :math:`f_e`, :math:`f` likewise on
    :math:`f_f` truncated exactly to :math:`f < \mathrm{Se}`, and :math:`w` on nodes in the
    prior's probability scale :math:`u = F_\pi(\pi)` over the window where the binomial
    likelihood of :math:`k` is above :math:`10^{-12}` of its peak.
    """
    half = 0.5
    a_e, b_e = half + counts.x1, half + counts.m1 - counts.x1
    a_f, b_f = half + counts.x0, half + counts.m0 - counts.x0
    z_e, w_e = _normal_score_nodes(np.array(-8.0), np.array(8.0), size)
    se = special.betaincinv(a_e, b_e, special.ndtr(z_e))
    upper = special.ndtri(np.clip(special.betainc(a_f, b_f, se), 1e-300, 1.0))
    z_f, w_f = _normal_score_nodes(np.full_like(se, -8.0), np.minimum(upper, 8.0), size)
    fpr = special.betaincinv(a_f, b_f, special.ndtr(z_f))  # (size, size)
    j = np.maximum(se[:, None] - fpr, 1e-300)
    r_lo = special.betaincinv(counts.k + 1.0, counts.n - counts.k + 1.0, 1e-12)
    r_hi = special.betaincinv(counts.k + 1.0, counts.n - counts.k + 1.0, 1.0 - 1e-12)
    pi_lo = np.clip((r_lo - fpr) / j, 0.0, 1.0)
    pi_hi = np.clip((r_hi - fpr) / j, 0.0, 1.0)
    u_lo, u_hi = special.betainc(half, half, pi_lo), special.betainc(half, half, pi_hi)
    x, w = np.polynomial.legendre.leggauss(32)
    x, w = 0.5 * (x + 1.0), 0.5 * w
    u = u_lo[..., None] + (u_hi - u_lo)[..., None] * x
    rate = fpr[..., None] + j[..., None] * special.betaincinv(half, half, u)
    log_lik = special.xlogy(counts.k, rate) + special.xlog1py(counts.n - counts.k, -rate)
    log_lik -= np.max(log_lik)
    inner = (u_hi - u_lo) * np.sum(w * np.exp(log_lik), axis=-1)
    mass = w_e[:, None] * w_f * inner
    total = mass.sum()
    return float(mass[j < threshold].sum() / total) if total > 0 else float("nan")


# --------------------------------------------------------------------------- the study
@dataclass(frozen=True, slots=True)
class Cell:
    index: int
    pi: float
    calibration: int
    j: float

    @property
    def se_sp(self) -> tuple[float, float]:
        return JUDGES[self.j]


def cells() -> list[Cell]:
    """The grid, in a fixed order (the order fixes every seed)."""
    grid = [(pi, m, j) for pi in PI for m in CALIBRATION for j in JUDGES]
    return [Cell(i, pi, m, j) for i, (pi, m, j) in enumerate(grid)]


def simulate(cell: Cell, replicate: int) -> tuple[JudgeCounts, int]:
    """Counts and sampler seed of one replicate (from ``SeedSequence([SEED, cell, r])``)."""
    rng = np.random.default_rng(np.random.SeedSequence([SEED, cell.index, replicate]))
    se, sp = cell.se_sp
    m1 = m0 = cell.calibration // 2
    rate = cell.pi * se + (1.0 - cell.pi) * (1.0 - sp)
    x1, x0, k = rng.binomial([m1, m0, N_TEST], [se, 1.0 - sp, rate])
    seed = int(rng.integers(0, 2**31 - 1))
    return JudgeCounts(m1, int(x1), m0, int(x0), N_TEST, int(k)), seed


def _failed_names(diagnostics: Diagnostics) -> str:
    return ";".join(c.label for c in diagnostics.failures)


def _fit_row(
    fit_function: Callable[[Any, int], NutsDraws], data: Any, seed: int
) -> dict[str, object]:
    counts = _count_arrays(data)
    start = time.perf_counter()
    fit = fit_function(data, seed)
    elapsed = time.perf_counter() - start
    diagnostics = diagnose(counts, fit, seed)
    return {
        "divergences": int(fit.divergences.sum()),
        "r_hat_max": diagnostics.r_hat_max,
        "ess_bulk_min": diagnostics.ess_bulk_min,
        "ess_tail_min": diagnostics.ess_tail_min,
        "passed": diagnostics.passed,
        "failures": _failed_names(diagnostics),
        "seconds": elapsed,
        "pi_mean": float(fit.draws["pi"].mean()),
        "p_j_small_nuts": float(np.mean(fit.draws["j"] < J_NEAR)),
    }


def _count_arrays(data: Any) -> dict[str, np.ndarray]:
    if isinstance(data, JudgeCounts):
        return {k: np.asarray(v) for k, v in data.as_dict().items()}
    return dict(data.stratified_counts())


def _needs_more_draws(failures: str) -> bool:
    """ESS and MCSE failures are both too few effective draws: escalate with longer chains."""
    return any(f.startswith(("ess", "mcse")) for f in failures.split(";") if f)


Escalation = Callable[[bool], Callable[[Any, int], NutsDraws]]


def escalation(models: ModuleType, *, stratified: bool = False) -> Escalation:
    """The escalated fit: target_accept 0.99, 3000 tuning steps, 4000 draws when ``longer``."""

    def make(longer: bool) -> Callable[[Any, int], NutsDraws]:
        return nuts_fit(
            models,
            stratified=stratified,
            target_accept=0.99,
            tune=3000,
            draws=4000 if longer else 2000,
        )

    return make


def _fit_and_escalate(
    fit: Callable[[Any, int], NutsDraws], escalate: Escalation | None, data: Any, seed: int
) -> dict[str, object]:
    row = _fit_row(fit, data, seed)
    if escalate is not None and not row["passed"]:
        esc = _fit_row(escalate(_needs_more_draws(str(row["failures"]))), data, seed)
        row.update({f"esc_{k}": v for k, v in esc.items()})
    return row


def run(
    *,
    fit: FitFunction,
    escalate: Escalation | None = None,
    replicates: int = REPLICATES,
    selection: Sequence[Cell] | None = None,
    progress: bool = True,
) -> list[dict[str, object]]:
    """Fit every replicate of every cell; escalate failures once; return one row per fit.

    ``fit(counts, seed)`` returns the draws of every posterior variable and the divergences
    (e.g. :func:`nuts_fit`); ``escalate(longer)`` returns the fit function of the one retry.
    """
    rows = []
    todo = list(cells() if selection is None else selection)
    for number, cell in enumerate(todo):
        for replicate in range(replicates):
            counts, seed = simulate(cell, replicate)
            se, sp = cell.se_sp
            row: dict[str, object] = {
                "cell": cell.index,
                "pi_true": cell.pi,
                "calibration": cell.calibration,
                "j_true": cell.j,
                "se_true": se,
                "sp_true": sp,
                "replicate": replicate,
                **counts.as_dict(),
                "seed": seed,
                "p_j_small": boundary_mass(counts),
            }
            row.update(_fit_and_escalate(fit, escalate, counts, seed))
            rows.append(row)
        if progress:
            failed = sum(not r["passed"] for r in rows)
            print(f"cell {number + 1}/{len(todo)}: {len(rows)} fits, {failed} failed", flush=True)
    return rows


# --------------------------------------------------------------------------- stratified
#: Two-stratum scenarios: per stratum (pi, Se, Sp), gold items per class, unlabelled items.
STRATIFIED: dict[str, tuple[tuple[tuple[float, float, float], ...], int, int]] = {
    "small": (((0.9, 0.85, 0.8), (0.6, 0.8, 0.85)), 10, 200),
    "high_rate": (((0.97, 0.95, 0.9), (0.7, 0.85, 0.8)), 15, 300),
    "low_rate": (((0.03, 0.9, 0.97), (0.1, 0.85, 0.95)), 20, 500),
    "weak_judge": (((0.5, 0.7, 0.65), (0.3, 0.75, 0.6)), 25, 300),
}
STRATIFIED_REPLICATES = 10


def simulate_stratified(name: str, replicate: int) -> tuple[Any, int]:
    """Judge data with a stratum column, and a sampler seed, for one stratified replicate."""
    import pandas as pd

    from bayesjudge.prevalence.data import JudgeData
    from bayesjudge.prevalence.simulate import judge_table

    index = list(STRATIFIED).index(name)
    rng = np.random.default_rng(np.random.SeedSequence([SEED, 1000 + index, replicate]))
    strata, per_class, n = STRATIFIED[name]
    frames = []
    for label, (pi, se, sp) in zip("ab", strata, strict=True):
        frame = judge_table(pi=pi, se=se, sp=sp, n=n, m1=per_class, m0=per_class, random_seed=rng)
        frame["stratum"] = label
        frames.append(frame)
    seed = int(rng.integers(0, 2**31 - 1))
    return JudgeData.from_frame(pd.concat(frames, ignore_index=True)), seed


def run_stratified(
    *,
    fit: Callable[[Any, int], NutsDraws],
    escalate: Escalation | None = None,
    replicates: int = STRATIFIED_REPLICATES,
    progress: bool = True,
) -> list[dict[str, object]]:
    """Fit every stratified scenario ``replicates`` times; one row per fit."""
    rows = []
    for name in STRATIFIED:
        for replicate in range(replicates):
            data, seed = simulate_stratified(name, replicate)
            counts = _count_arrays(data)
            row: dict[str, object] = {"scenario": name, "replicate": replicate, "seed": seed}
            row.update({k: " ".join(map(str, v.tolist())) for k, v in counts.items()})
            row.update(_fit_and_escalate(fit, escalate, data, seed))
            rows.append(row)
        if progress:
            failed = sum(not r["passed"] for r in rows)
            print(f"{name}: {len(rows)} fits, {failed} failed", flush=True)
    return rows


#: Bins of the exact-posterior mass P(J < 0.05) near the J = 0 boundary; the first is "far".
BOUNDARY_BINS = ((0.0, 1e-3), (1e-3, 1e-2), (1e-2, 0.05), (0.05, 1.01))


def _is_true(value: object) -> bool:
    return str(value) == "True"


def _sampler_failure(failures: str) -> bool:
    """Whether a failure list holds a sampler check (anything but the predictive check)."""
    return any(not f.startswith("ppc_tail_prob") for f in failures.split(";") if f)


def _summary_line(label: str, rows: list[dict[str, str]]) -> str:
    failed = [r for r in rows if not _is_true(r["passed"])]
    sampler = [r for r in failed if _sampler_failure(r["failures"])]
    still = [r for r in failed if not _is_true(r.get("esc_passed", ""))]
    still_sampler = [r for r in still if _sampler_failure(r.get("esc_failures", ""))]
    divergent = sum(int(r["divergences"]) > 0 for r in rows)
    seconds = np.median([float(r["seconds"]) for r in rows])
    total = len(rows)
    return (
        f"| {label} | {total} | {len(failed)} ({100 * len(failed) / total:.2f}%) | "
        f"{len(sampler)} ({100 * len(sampler) / total:.2f}%) | {divergent} | "
        f"{len(still)} ({100 * len(still) / total:.2f}%) | "
        f"{len(still_sampler)} ({100 * len(still_sampler) / total:.2f}%) | {seconds:.2f} |"
    )


def _by_boundary(label: str, rows: list[dict[str, str]]) -> list[str]:
    lines = []
    for low, high in BOUNDARY_BINS:
        inside = [r for r in rows if low <= float(r["p_j_small"]) < high]
        failed = sum(not _is_true(r["passed"]) for r in inside)
        still = sum(
            not _is_true(r["passed"]) and not _is_true(r.get("esc_passed", "")) for r in inside
        )
        lines.append(
            f"| {label} | [{low:g}, {min(high, 1):g}) | {len(inside)} | {failed} | {still} |"
        )
    return lines


def _by_cell(runs: dict[str, list[dict[str, str]]]) -> list[str]:
    labels = list(runs)
    judges = list(JUDGES)
    header = "| pi | gold items | " + " | ".join(f"J = {j:g}" for j in judges) + " |"
    lines = [
        f"Failing fits per cell of {REPLICATES} ({' / '.join(labels)}; after escalation in "
        "brackets):",
        "",
        header,
        "|---|---|" + "---|" * len(judges),
    ]
    for pi in PI:
        for m in CALIBRATION:
            cells_text = []
            for j in judges:
                parts = []
                for label in labels:
                    inside = [
                        r
                        for r in runs[label]
                        if float(r["pi_true"]) == pi
                        and int(r["calibration"]) == m
                        and float(r["j_true"]) == j
                    ]
                    failed = sum(not _is_true(r["passed"]) for r in inside)
                    still = sum(
                        not _is_true(r["passed"]) and not _is_true(r.get("esc_passed", ""))
                        for r in inside
                    )
                    parts.append(f"{failed} [{still}]" if failed else "0")
                cells_text.append(" / ".join(parts))
            lines.append(f"| {pi:g} | {m} | " + " | ".join(cells_text) + " |")
    return lines


def _failure_list(label: str, rows: list[dict[str, str]]) -> list[str]:
    failed = [r for r in rows if not _is_true(r["passed"])]
    lines = [
        f"Every failing fit ({label}, {len(failed)}): counts, then the default fit's divergences, "
        "min bulk / tail ESS, max R-hat and failed checks, P(J < 0.05) from the exact posterior, "
        "and the escalated refit's verdict.",
        "",
        "| pi | J | m1 x1 m0 x0 n k | div | ESS bulk / tail | R-hat | failed checks | "
        "P(J<0.05) | escalated |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in failed:
        checks = r["failures"].replace(";", ", ")
        esc = "passed" if _is_true(r.get("esc_passed", "")) else r.get("esc_failures", "")
        lines.append(
            f"| {float(r['pi_true']):g} | {float(r['j_true']):g} | "
            f"{r['m1']} {r['x1']} {r['m0']} {r['x0']} {r['n']} {r['k']} | {r['divergences']} | "
            f"{float(r['ess_bulk_min']):.0f} / {float(r['ess_tail_min']):.0f} | "
            f"{float(r['r_hat_max']):.3f} | {checks} | {float(r['p_j_small']):.2g} | "
            f"{esc.replace(';', ', ')} |"
        )
    return lines


def report(runs: dict[str, list[dict[str, str]]]) -> str:
    """Markdown tables of one or more runs (each a list of CSV rows), keyed by label."""
    lines = [
        "Grid: pi in {0.01, 0.05, 0.5, 0.95, 0.99} x gold items {20, 50, 100, 300} (half PASS, "
        "half FAIL) x judges (Se, Sp) = "
        + ", ".join(f"({se}, {sp}) (J = {j})" for j, (se, sp) in JUDGES.items())
        + f"; {N_TEST} unlabelled items; {REPLICATES} replicates per cell; seed {SEED}. "
        "Default fit: `fit_prevalence`'s sampler path (nutpie, 4 chains x 2000 draws after 1000 "
        "tuning steps, target_accept 0.95), checked by `check_fit` with its default thresholds "
        "(R-hat <= 1.01, bulk and tail ESS >= 400 on every posterior variable, no divergences, "
        "MCSE of mean and 95% bounds <= 0.2 sd on the reported quantities, posterior predictive "
        "tail probabilities >= 0.01). A failing fit is refitted once with target_accept 0.99, "
        "3000 tuning steps and, when an ESS check failed, 4000 draws per chain.",
        "",
        "'sampler' failures leave out the posterior predictive check, which flags data the "
        "restricted model cannot reproduce (calibration counts that say J < 0), not a sampler "
        "problem.",
        "",
        "| run | fits | failed | failed (sampler checks) | fits with divergences | "
        "failed after one escalation | ... (sampler checks) | median s per fit |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [_summary_line(label, rows) for label, rows in runs.items()]
    lines += [
        "",
        "By closeness to the J = 0 boundary, P(J < 0.05 | data) under the exact posterior:",
        "",
        "| run | P(J < 0.05) | fits | failed | failed after escalation |",
        "|---|---|---|---|---|",
    ]
    for label, rows in runs.items():
        lines += _by_boundary(label, rows)
    lines += ["", *_by_cell(runs)]
    for label, rows in runs.items():
        lines += ["", *_failure_list(label, rows)]
    return "\n".join(lines)


def write_csv(rows: list[dict[str, object]], path: Path) -> None:
    fields: list[str] = []
    for row in rows:
        fields.extend(k for k in row if k not in fields)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def report_stratified(runs: dict[str, list[dict[str, str]]]) -> str:
    """Markdown tables of stratified runs, keyed by label."""
    lines = [
        "Two strata; per scenario, per stratum (pi, Se, Sp), gold items per class and unlabelled "
        "items: "
        + "; ".join(
            f"{name}: {strata} x {per_class} + {per_class}, n = {n}"
            for name, (strata, per_class, n) in STRATIFIED.items()
        )
        + f". {STRATIFIED_REPLICATES} replicates each. Default fit: `fit_prevalence(stratified="
        "True)`'s settings (target_accept 0.99, 4 x 2000 after 1000), same checks and escalation "
        "as above.",
        "",
        "| run | scenario | fits | failed | fits with divergences | failed after escalation | "
        "min tail ESS (median) | median s per fit |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, rows in runs.items():
        for name in [*STRATIFIED, "all"]:
            inside = [r for r in rows if name in ("all", r["scenario"])]
            failed = sum(not _is_true(r["passed"]) for r in inside)
            still = sum(
                not _is_true(r["passed"]) and not _is_true(r.get("esc_passed", "")) for r in inside
            )
            divergent = sum(int(r["divergences"]) > 0 for r in inside)
            tail = np.median([float(r["ess_tail_min"]) for r in inside])
            seconds = np.median([float(r["seconds"]) for r in inside])
            lines.append(
                f"| {label} | {name} | {len(inside)} | {failed} | {divergent} | {still} | "
                f"{tail:.0f} | {seconds:.1f} |"
            )
    for label, rows in runs.items():
        failed = [r for r in rows if not _is_true(r["passed"])]
        lines += [
            "",
            f"Failing stratified fits ({label}, {len(failed)}):",
            "",
            "| scenario | m1 | x1 | m0 | x0 | n | k | div | failed checks | escalated |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in failed:
            esc = "passed" if _is_true(r.get("esc_passed", "")) else r.get("esc_failures", "")
            counts = " | ".join(r[k] for k in ("m1", "x1", "m0", "x0", "n", "k"))
            lines.append(
                f"| {r['scenario']} | {counts} | {r['divergences']} | "
                f"{r['failures'].replace(';', ', ')} | {esc.replace(';', ', ')} |"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for command, text in (
        ("run", "fit the grid and write results/fit_corners_<label>.csv"),
        (
            "run-stratified",
            "fit the stratified scenarios: results/fit_corners_stratified_<label>.csv",
        ),
    ):
        cmd = sub.add_parser(command, help=text)
        cmd.add_argument("--label", required=True)
        cmd.add_argument("--model-file", default=None, help="a prevalence models module to use")
        cmd.add_argument("--target-accept", type=float, default=None)
        cmd.add_argument("--replicates", type=int, default=None)
        cmd.add_argument("--no-escalation", action="store_true")
    sub.choices["run"].add_argument("--cells", default=None, help="JSON list of cell indices")
    report_cmd = sub.add_parser("report", help="write results/fit_corners.md from labels")
    report_cmd.add_argument("labels", nargs="+")
    args = parser.parse_args(argv)
    if args.command == "report":
        body = report(
            {label: read_csv(RESULTS / f"fit_corners_{label}.csv") for label in args.labels}
        )
        stratified = {
            label: read_csv(path)
            for label in args.labels
            if (path := RESULTS / f"fit_corners_stratified_{label}.csv").exists()
        }
        if stratified:
            body += "\n\n## Stratified model\n\n" + report_stratified(stratified)
        command = "python benchmarks/fit_corners.py report " + " ".join(args.labels)
        print(
            record("fit_corners", "Fit study of the prevalence model's hard corners", command, body)
        )
        return
    models = load_models(args.model_file)
    stratified = args.command == "run-stratified"
    fit = nuts_fit(models, stratified=stratified, target_accept=args.target_accept)
    escalate = None if args.no_escalation else escalation(models, stratified=stratified)
    if stratified:
        rows = run_stratified(
            fit=fit, escalate=escalate, replicates=args.replicates or STRATIFIED_REPLICATES
        )
        path = RESULTS / f"fit_corners_stratified_{args.label}.csv"
    else:
        chosen = None
        if args.cells:
            wanted = set(json.loads(args.cells))
            chosen = [c for c in cells() if c.index in wanted]
        rows = run(
            fit=fit,
            escalate=escalate,
            replicates=args.replicates or REPLICATES,
            selection=chosen,
        )
        path = RESULTS / f"fit_corners_{args.label}.csv"
    write_csv(rows, path)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
