r"""Fit and summarise systems compared on shared items with several answers each.

:func:`fit_repeated_systems` fits :func:`bayesjudge.models.repeated_systems.repeated_systems_model`
to :class:`~bayesjudge.systems.repeated.RepeatedSystemsData` through the one fitting path of
:func:`bayesjudge.inference.fit.fit_model` (model compiled once per structure, data swapped in,
diagnostics on every fit, one retry when the sampler struggled). :func:`analyze_repeated_systems`
summarises it into a :class:`RepeatedSystemsAnalysis`: each system's population success rate
:math:`\pi_s` (the repeated family's ``population_rate``), every difference
:math:`\pi_b - \pi_a` with :math:`P(\pi_b > \pi_a)`, :math:`P(s \text{ is best})`, the judge,
and beside them the judge-uncorrected differences of the judged pass rates with an interval
clustered by item (the pairing and the repetition both counted) and one that reads every answer
as independent (:func:`~bayesjudge.systems.repeated.clustered_naive_difference`).

**Posterior predictive check.** At every posterior draw the unlabelled answers of each cell are
replicated, :math:`k^{rep}_{si} \sim \mathrm{Bin}(n_{si}, p_{si}\mathrm{Se}_s + (1 - p_{si})
f_s)`, and the gold answers' verdicts, :math:`x_1^{rep} \sim \mathrm{Bin}(m_1, \mathrm{Se}_s)`,
:math:`x_0^{rep} \sim \mathrm{Bin}(m_0, f_s)`; the shared checks
(:func:`bayesjudge.check_fit`) test, per system, the PASS verdicts (``passes``), the items it
passed on every unlabelled answer (``all_pass_items``) and on none (``no_pass_items``): a model
that ignored the spread between items would predict too few of both. Summed ``x1`` and ``x0``
are tested too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayesjudge._docstring import SAMPLER_PARAMETERS, fill_doc
from bayesjudge.inference import defaults
from bayesjudge.inference.diagnostics import Diagnostics
from bayesjudge.inference.fit import (
    Attempt,
    Draws,
    ModelRun,
    NutsSettings,
    attempts_of,
    diagnostics_of,
    fit_model,
)
from bayesjudge.inference.predictive import binomial_draws
from bayesjudge.inference.sampling import Sampler
from bayesjudge.inference.summary import summary_of_draws
from bayesjudge.priors import SystemsPriors
from bayesjudge.results import Estimate, PosteriorSummary
from bayesjudge.systems.analysis import Difference
from bayesjudge.systems.rank import prob_best, prob_better
from bayesjudge.systems.repeated import RepeatedSystemsData, clustered_naive_difference
from bayesjudge.validation import check_prob

__all__ = ["RepeatedSystemsAnalysis", "analyze_repeated_systems", "fit_repeated_systems"]

#: Name of the model, as recorded in posterior attrs.
REPEATED_SYSTEMS = "systems_repeated"
#: Default NUTS target acceptance of the model (that of the systems models).
TARGET_ACCEPT = defaults.SYSTEMS_TARGET_ACCEPT


def _cell_pass_rate(posterior: xr.Dataset, data: RepeatedSystemsData) -> np.ndarray:
    """P(PASS verdict) of an unlabelled answer of each cell at each draw, (chain, draw, cell)."""
    p = posterior["cell_rate"].transpose("chain", "draw", "cell").to_numpy()
    se, fpr = _per_system(posterior, "se", data), 1.0 - _per_system(posterior, "sp", data)
    s = data.cell_system
    return p * se[..., s] + (1.0 - p) * fpr[..., s]


def _per_system(posterior: xr.Dataset, name: str, data: RepeatedSystemsData) -> np.ndarray:
    """Draws of ``name`` as (chain, draw, system), broadcasting a shared value."""
    array = posterior[name]
    if "system" in array.dims:
        return np.asarray(array.transpose("chain", "draw", "system").to_numpy())
    values = np.asarray(array.transpose("chain", "draw").to_numpy())
    return np.repeat(values[..., None], len(data.systems), axis=-1)


def _statistics(
    k: np.ndarray, x1: np.ndarray, x0: np.ndarray, data: RepeatedSystemsData
) -> dict[str, np.ndarray]:
    """Reduce cell counts (``(..., cell)``) to the checked statistics (``(..., system)``)."""
    n_s = len(data.systems)
    onehot = np.eye(n_s, dtype=np.int64)[data.cell_system]  # (cell, system)
    seen = data.n > 0
    return {
        "passes": k @ onehot,
        "all_pass_items": ((k == data.n) & seen).astype(np.int64) @ onehot,
        "no_pass_items": ((k == 0) & seen).astype(np.int64) @ onehot,
        "x1": np.sum(x1, axis=-1),
        "x0": np.sum(x0, axis=-1),
    }


@fill_doc(sampler_parameters=SAMPLER_PARAMETERS)
def fit_repeated_systems(
    data: RepeatedSystemsData,
    *,
    judge: str = "shared",
    pooling: str | None = None,
    calibration: str = "by_class",
    priors: SystemsPriors | None = None,
    spread: bool = True,
    use_clusters: bool = True,
    restrict_j: bool = True,
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
    r"""Sample the posterior of each system's success rate from repeated answers on shared items.

    Fits :math:`\mathrm{logit}\,p_{si} = \mu_s + \sigma_b z_i + \sigma_e e_{si}
    (+ \tau u_{c(i)})`, each unlabelled answer's verdict
    :math:`\mathrm{Bernoulli}(p_{si}\mathrm{Se}_s + (1 - p_{si}) f_s)`
    (:func:`bayesjudge.models.repeated_systems.repeated_systems_model`), checked by
    :func:`bayesjudge.check_fit` and the predictive check of the module docstring.

    Parameters
    ----------
    data : RepeatedSystemsData
        The answers, with their six counts per (system, item).
    judge : {"shared", "system"}
        One Se and Sp for every system, or one pair per system.
    pooling : {"partial", "none"}, optional
        How a per-system judge is tied together (default as
        :func:`bayesjudge.models.systems.resolve_pooling`).
    calibration : {"by_class", "random"}
        Whether the gold answers inform only the judge (default) or the rates too.
    priors : SystemsPriors, optional
        The priors (``pi`` is each system's median-item rate, ``difficulty_sd`` the item
        effect's scale).
    spread : bool, default True
        Include the item effect and the system-item spread (False: one rate per system).
    use_clusters : bool, default True
        Add the cluster level when the data have clusters.
    restrict_j : bool, default True
        Condition the judge's prior on J > 0.
    %(sampler_parameters)s

    Returns
    -------
    DataTree
        Groups ``posterior`` (``pi``, ``median_rate``, ``cell_rate``, ``se``, ``sp``, ...),
        ``sample_stats``, ``posterior_predictive`` and ``observed_data``; root attrs of
        :func:`~bayesjudge.inference.fit.fit_model` plus ``judge``, ``pooling``,
        ``calibration``, ``spread``, ``clustered`` and ``design``.

    Examples
    --------
    >>> from bayesjudge.systems.repeated import simulate_repeated_systems
    >>> sim = simulate_repeated_systems(30, 3, [0.0, 1.0], gold_answers=60, random_seed=2)
    >>> tree = fit_repeated_systems(RepeatedSystemsData.from_frame(sim.frame), draws=500,
    ...                             random_seed=1, progressbar=False)
    >>> tree.posterior["pi"].dims
    ('chain', 'draw', 'system')
    """
    from bayesjudge.models.systems import resolve_pooling

    if not isinstance(data, RepeatedSystemsData):
        raise TypeError(f"data must be RepeatedSystemsData; got {type(data).__name__}")
    priors = SystemsPriors() if priors is None else priors
    pooled = resolve_pooling(pooling, judge, len(data.systems))
    settings = NutsSettings.of(draws, tune, chains, target_accept, TARGET_ACCEPT)
    clustered = bool(use_clusters and spread and data.clusters is not None)
    counts = data.counts()
    model_data = {
        "cell_system": np.asarray(data.cell_system, dtype=np.int64),
        "cell_item": np.asarray(data.cell_item, dtype=np.int64),
        "n": counts["n"],
        "k_obs": counts["k"],
        "m1": counts["m1"],
        "x1_obs": counts["x1"],
        "m0": counts["m0"],
        "x0_obs": counts["x0"],
    }
    if clustered:
        assert data.cluster_index is not None
        model_data["cluster_index"] = np.asarray(data.cluster_index, dtype=np.int64)

    def build() -> Any:
        from bayesjudge.models.repeated_systems import repeated_systems_model

        return repeated_systems_model(
            data.systems,
            data.items,
            data.cell_system,
            data.cell_item,
            counts,
            clusters=data.clusters if clustered else None,
            cluster_index=data.cluster_index if clustered else None,
            priors=priors,
            judge=judge,
            calibration=calibration,
            restrict_j=restrict_j,
            pooling=pooled or None,
            spread=spread,
        )

    key = (
        REPEATED_SYSTEMS,
        priors,
        judge,
        pooled,
        calibration,
        bool(spread),
        clustered,
        bool(restrict_j),
        data.systems,
        len(data.items),
        data.n_cells,
        len(data.clusters or ()) if clustered else 0,
    )
    run = ModelRun(REPEATED_SYSTEMS, key, build, model_data, priors)
    sample = ("chain", "draw")
    observed = _statistics(data.k, data.x1, data.x0, data)

    def complete(trace: xr.DataTree, rng: np.random.Generator) -> xr.DataTree:
        posterior = trace["posterior"].to_dataset()
        coords = {"system": list(data.systems), "item": list(data.items)}
        if clustered:
            coords["cluster"] = list(data.clusters or ())
        posterior = posterior.assign_coords(
            {name: value for name, value in coords.items() if name in posterior.dims}
        )
        k_rep = binomial_draws(data.n, _cell_pass_rate(posterior, data), rng)
        se = _per_system(posterior, "se", data)[..., data.cell_system]
        fpr = 1.0 - _per_system(posterior, "sp", data)[..., data.cell_system]
        replicated = _statistics(
            k_rep, binomial_draws(data.m1, se, rng), binomial_draws(data.m0, fpr, rng), data
        )
        dims = {
            name: (*sample, "system") if v.ndim == 3 else sample for name, v in replicated.items()
        }
        return xr.DataTree.from_dict(
            {
                "posterior": posterior,
                "posterior_predictive": xr.Dataset(
                    {name: (dims[name], v) for name, v in replicated.items()},
                    coords={"system": list(data.systems)},
                ),
                "sample_stats": trace["sample_stats"].to_dataset(),
                "observed_data": xr.Dataset(
                    {name: (("system",) if np.ndim(v) else (), v) for name, v in observed.items()},
                    coords={"system": list(data.systems)},
                ),
            }
        )

    low, high = data.answers_per_cell()
    attrs: dict[str, Any] = {
        "judge": judge,
        "pooling": pooled,
        "calibration": calibration,
        "spread": bool(spread),
        "clustered": clustered,
        "restrict_j": bool(restrict_j),
        "design": data.design(),
        "answers_per_item": json.dumps([low, high]),
    }
    spreads = ["item_sd", "cell_sd"] if spread else []
    return fit_model(
        run,
        settings=settings,
        complete=complete,
        random_seed=random_seed,
        sampler=sampler,
        progressbar=progressbar,
        escalate=escalate,
        prob=prob,
        check_vars=["pi", "se", "sp", *spreads, *(["cluster_sd"] if clustered else [])],
        mcse_vars=["pi"],
        attrs=attrs,
    )


@dataclass(frozen=True)
class RepeatedSystemsAnalysis:
    r"""The answer of ``bayesjudge rank --epoch``: rates, differences, P(best), baselines.

    Attributes
    ----------
    data : RepeatedSystemsData
        The data analysed.
    pi : dict of str to PosteriorSummary
        Each system's success rate over the population of items.
    p_best : dict of str to float
        :math:`P(s \text{ is best})`.
    differences : tuple of Difference
        Every pair (``a`` before ``b`` in data order): :math:`\pi_b - \pi_a` and
        :math:`P(\pi_b > \pi_a)`.
    se, sp : dict of str to PosteriorSummary
        The judge's Se and Sp for each system (the same for all with a shared judge).
    judge : str
        ``"shared"`` or ``"system"``.
    naive_rate : dict of str to float
        The judge's pass rate on each system's unlabelled answers.
    estimates : tuple of (dict, Estimate)
        Per pair ``{"a", "b"}``: the naive difference clustered by item and the
        rows-as-independent one.
    prob : float
        Mass of every interval.
    seed : int or str
        The seed.
    priors : SystemsPriors
        The priors.
    diagnostics : Diagnostics or None
        The checks of the fit.
    attempts : tuple of Attempt
        The sampler runs.
    posterior : DataTree or None
        The fit.
    """

    data: RepeatedSystemsData
    pi: dict[str, PosteriorSummary]
    p_best: dict[str, float]
    differences: tuple[Difference, ...]
    se: dict[str, PosteriorSummary]
    sp: dict[str, PosteriorSummary]
    judge: str
    naive_rate: dict[str, float]
    estimates: tuple[tuple[dict[str, str], Estimate], ...]
    prob: float
    seed: int | str
    priors: SystemsPriors = field(default_factory=SystemsPriors)
    diagnostics: Diagnostics | None = None
    attempts: tuple[Attempt, ...] = ()
    posterior: xr.DataTree | None = None

    @property
    def systems(self) -> tuple[str, ...]:
        """The systems, in data order."""
        return self.data.systems

    @property
    def passed(self) -> bool:
        """Whether the fit passed its diagnostics."""
        return self.diagnostics is None or self.diagnostics.passed

    @property
    def order(self) -> tuple[str, ...]:
        """The systems by posterior mean rate, highest first."""
        return tuple(sorted(self.systems, key=lambda s: -self.pi[s].mean))

    def design(self) -> str:
        """Return the design in words, e.g. ``"200 items, 5 answers each"``."""
        return self.data.design()

    def to_dict(self) -> dict[str, Any]:
        r"""Return the JSON object of ``bayesjudge rank --epoch COL --json``.

        ``{"design": "N items, K answers each", "items", "answers", "model",
        "estimand", "systems": {NAME: {"pi": S, "p_best", "naive_rate", "se": S, "sp": S}},
        "differences": [{"a", "b", "diff": S, "p_b_better"}], "judge", "diagnostics",
        "estimates": [row]}`` with ``S = {"mean", "sd", "low", "high", "prob"}``.
        """
        diagnostics = (
            None
            if self.diagnostics is None
            else self.diagnostics.json_block(method="nuts", attempts=self.attempts)
        )
        return {
            "design": self.design(),
            "items": len(self.data.items),
            "answers": self.data.n_answers,
            "model": REPEATED_SYSTEMS,
            "estimand": "each system's mean success rate over the population of items",
            "systems": {
                name: {
                    "pi": self.pi[name].to_dict(),
                    "p_best": self.p_best[name],
                    "naive_rate": self.naive_rate[name],
                    "se": self.se[name].to_dict(),
                    "sp": self.sp[name].to_dict(),
                }
                for name in self.systems
            },
            "differences": [d.to_dict() for d in self.differences],
            "judge": self.judge,
            "diagnostics": diagnostics,
            "estimates": [{**keys, **e.to_dict()} for keys, e in self.estimates],
        }

    def to_frame(self) -> pd.DataFrame:
        """Return one row per system, best first: pi and its interval, P(best), naive rate."""
        return pd.DataFrame(
            [
                {
                    "system": name,
                    "pi_mean": self.pi[name].mean,
                    "pi_low": self.pi[name].eti.low,
                    "pi_high": self.pi[name].eti.high,
                    "p_best": self.p_best[name],
                    "naive_rate": self.naive_rate[name],
                }
                for name in self.order
            ]
        ).set_index("system")

    def summary(self) -> Any:
        """Return the one-screen summary (:class:`bayesjudge.reporting.summary.ReportSummary`)."""
        from bayesjudge.reporting.summary import DEFINITIONS, Headline, ReportSummary

        best = max(self.systems, key=lambda s: self.p_best[s])
        pi = self.pi[best]
        headline = Headline(
            f"mean success rate of {best} over the items ({self.design()})",
            pi.mean,
            pi.eti.low,
            pi.eti.high,
            self.prob,
            naive=self.naive_rate[best],
            naive_name=f"judged pass rate of {best} (naive)",
            answer=f"most likely best: {best}, P(best) {self.p_best[best]:.2f}",
        )
        return ReportSummary(
            headline,
            diagnostics=self.diagnostics,
            definitions=DEFINITIONS.items(),
            trust=(
                "The Bayesian model: it corrects every answer for the judge's errors and uses "
                "both the pairing of the systems on each item and the repetition of answers. "
                "The judge-uncorrected differences, clustered by item and with every answer "
                "read as independent, are shown for comparison."
            ),
            reading=self.reading(),
            quantities=("pi",),
        )

    def reading(self) -> str:
        """Return the plain-language reading: the best system, and what the clustering changes."""
        best = max(self.systems, key=lambda s: self.p_best[s])
        parts = [
            f"On {self.design()}, {best} is the most likely best system "
            f"(P(best) = {self.p_best[best]:.2f})."
        ]
        rows = dict(((k["a"], k["b"], e.method), e) for k, e in self.estimates)
        d = self.differences[0]
        clustered = rows.get((d.a, d.b, "naive_diff_clustered"))
        independent = rows.get((d.a, d.b, "naive_diff_rows_independent"))
        if clustered is not None and independent is not None and independent.se:
            ratio = (clustered.se or 0.0) / independent.se
            parts.append(
                f"Clustering the judged difference {d.b} - {d.a} by item makes its standard "
                f"error {ratio:.2f} times the one that reads every answer as independent."
            )
        return " ".join(parts)


def analyze_repeated_systems(
    data: RepeatedSystemsData,
    *,
    judge: str = "shared",
    pooling: str | None = None,
    calibration: str = "by_class",
    priors: SystemsPriors | None = None,
    prob: float = 0.95,
    random_seed: int | None = None,
    **fit_kwargs: Any,
) -> RepeatedSystemsAnalysis:
    r"""Fit and summarise several systems' repeated answers on shared items.

    Parameters
    ----------
    data : RepeatedSystemsData
        The answers.
    judge, pooling, calibration, priors
        As in :func:`fit_repeated_systems`.
    prob : float, default 0.95
        Mass of every interval.
    random_seed : int, optional
        Seed of the fit (None: the default seed).
    **fit_kwargs
        Further arguments of :func:`fit_repeated_systems` (draws, tune, chains, ...).

    Returns
    -------
    RepeatedSystemsAnalysis

    Examples
    --------
    >>> from bayesjudge.systems.repeated import simulate_repeated_systems
    >>> sim = simulate_repeated_systems(30, 3, [0.0, 1.0], gold_answers=60, random_seed=2)
    >>> result = analyze_repeated_systems(RepeatedSystemsData.from_frame(sim.frame),
    ...                                   draws=500, random_seed=1, progressbar=False)
    >>> result.design(), sorted(result.p_best)
    ('30 items, 3 answers each', ['s0', 's1'])
    """
    from bayesjudge.inference.provenance import seed_label

    prob = check_prob(prob)
    tree = fit_repeated_systems(
        data,
        judge=judge,
        pooling=pooling,
        calibration=calibration,
        priors=priors,
        prob=prob,
        random_seed=random_seed,
        **fit_kwargs,
    )
    systems = data.systems
    posterior = tree["posterior"].to_dataset()
    pi = _per_system(posterior, "pi", data).reshape(-1, len(systems))
    best = prob_best(pi)
    better = prob_better(pi)
    differences = tuple(
        Difference(
            systems[i],
            systems[j],
            summary_of_draws(f"diff[{systems[j]}-{systems[i]}]", pi[:, j] - pi[:, i], prob=prob),
            float(better[j, i]),
        )
        for i in range(len(systems))
        for j in range(i + 1, len(systems))
    )
    se = _per_system(posterior, "se", data).reshape(-1, len(systems))
    sp = _per_system(posterior, "sp", data).reshape(-1, len(systems))
    unlabelled = np.isnan(data.answer_label)
    naive = {
        name: float(data.answer_verdict[unlabelled & (data.answer_system == s)].mean())
        for s, name in enumerate(systems)
    }
    estimates: list[tuple[dict[str, str], Estimate]] = []
    for d in differences:
        a, b = systems.index(d.a), systems.index(d.b)
        rows = unlabelled & np.isin(data.answer_system, (a, b))
        args = (
            data.answer_verdict[rows],
            data.answer_system[rows] == b,
            data.answer_item[rows],
        )
        estimates += [
            ({"a": d.a, "b": d.b}, clustered_naive_difference(*args, clustered=True, prob=prob)),
            ({"a": d.a, "b": d.b}, clustered_naive_difference(*args, clustered=False, prob=prob)),
        ]
    return RepeatedSystemsAnalysis(
        data=data,
        pi={
            name: summary_of_draws(f"pi[{name}]", pi[:, s], prob=prob)
            for s, name in enumerate(systems)
        },
        p_best={name: float(best[s]) for s, name in enumerate(systems)},
        differences=differences,
        se={
            name: summary_of_draws(f"se[{name}]", se[:, s], prob=prob)
            for s, name in enumerate(systems)
        },
        sp={
            name: summary_of_draws(f"sp[{name}]", sp[:, s], prob=prob)
            for s, name in enumerate(systems)
        },
        judge=judge,
        naive_rate=naive,
        estimates=tuple(estimates),
        prob=prob,
        seed=seed_label(random_seed),
        priors=SystemsPriors() if priors is None else priors,
        diagnostics=diagnostics_of(tree),
        attempts=attempts_of(tree),
        posterior=tree,
    )
