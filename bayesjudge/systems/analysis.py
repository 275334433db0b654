r"""The systems family's answer, assembled once: rates, differences, ranks, judge, baselines.

:func:`analyze_systems` fits the model the design calls for (:func:`~bayesjudge.systems.fit.
fit_systems`), summarises the posterior draws of every system's success rate :math:`\pi_s`
into the quantities a comparison needs, runs the frequentist baselines on the same data, and
returns one :class:`SystemsAnalysis`. The command line (``bayesjudge rank``) and the report only
render it; :meth:`SystemsAnalysis.to_dict` is the command's JSON.

With :math:`D` posterior draws :math:`\pi^{(d)}`:

* each difference :math:`\Delta_{ab} = \pi_b - \pi_a` (every pair, ``a`` before ``b`` in the
  data's order) with its equal-tailed interval and :math:`P(\pi_b > \pi_a)`;
* :math:`P(s \text{ is best})`, and each system's rank at every draw (1 = highest rate), whose
  posterior is summarised (mean, sd, interval) and tabulated (:math:`P(\mathrm{rank}_s = r)`);
* the *naive* ranking, by the judge's pass rate on each system's unlabelled answers, and the
  *reversals*: pairs the naive ranking puts in one order and the posterior, more likely than
  not, in the other;
* the judge: its Se and Sp (shared, or the population centre of a system-specific judge) and
  each system's. By default (``judge="auto"``) two systems with gold labels of both classes
  get the average of the shared-judge and the per-system fits, weighted by the posterior
  probability of one judge given the gold labels (:mod:`bayesjudge.systems.average`), so the
  data decide whether the judge is shared; with a system-specific judge also the spread
  between systems and the ranking the same posterior gives if every system's verdicts are
  corrected with the shared Se and Sp,
  :math:`\tilde\pi_s = (R_s + \mathrm{Sp} - 1)/(\mathrm{Se} + \mathrm{Sp} - 1)` at each draw
  (:math:`R_s` the judged pass rate), which says whether the judge's unequal treatment changes
  the ranking.

Ranking by posterior probabilities rather than by point estimates follows Goldstein and
Spiegelhalter, "League tables and their limitations: statistical issues in comparisons of
institutional performance" (1996).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayesjudge.inference.diagnostics import Diagnostics, check_fit
from bayesjudge.inference.fit import Attempt, Draws, attempts_of, diagnostics_of
from bayesjudge.inference.sampling import Sampler
from bayesjudge.inference.summary import summary_of_draws
from bayesjudge.priors import SystemsPriors
from bayesjudge.reporting.pipeline import Shown
from bayesjudge.reporting.summary import Headline, ReportSummary
from bayesjudge.results import Estimate, PosteriorSummary, unchecked_diagnostics
from bayesjudge.systems.average import JudgeEvidence, average_posteriors, judge_evidence
from bayesjudge.systems.baselines import difference_baselines, system_baselines
from bayesjudge.systems.data import SystemsData
from bayesjudge.systems.fit import (
    Calibration,
    JudgeChoice,
    PoolingChoice,
    choose_judge,
    choose_pooling,
    fit_systems,
)
from bayesjudge.systems.rank import (
    competition_ranks,
    prob_best,
    prob_better,
    rank_draws,
    rank_probabilities,
    reversal_pairs,
)
from bayesjudge.validation import check_prob

__all__ = [
    "CLEAR_ORDER",
    "Difference",
    "JudgeSummary",
    "Reversal",
    "SystemsAnalysis",
    "analyze_systems",
    "evidence_of",
    "summarize_systems",
]

#: P(the higher system is better than the next) from which a ranking shows a step as an order;
#: below it the two are shown as having no clear order (:meth:`SystemsAnalysis.ranking`).
CLEAR_ORDER = 0.9


@dataclass(frozen=True, slots=True)
class Difference:
    r"""The posterior of :math:`\pi_b - \pi_a` for one pair of systems.

    Attributes
    ----------
    a, b : str
        The systems (``a`` first in the data).
    diff : PosteriorSummary
        Summary of :math:`\pi_b - \pi_a`.
    p_b_better : float
        :math:`P(\pi_b > \pi_a)`.
    """

    a: str
    b: str
    diff: PosteriorSummary
    p_b_better: float

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"a", "b", "diff": S, "p_b_better"}``."""
        return {
            "a": self.a,
            "b": self.b,
            "diff": self.diff.to_dict(),
            "p_b_better": self.p_b_better,
        }


@dataclass(frozen=True, slots=True)
class Reversal:
    r"""A pair whose order the correction reverses.

    Attributes
    ----------
    a : str
        The system the naive judged rates rank higher.
    b : str
        The system the posterior more likely than not ranks higher.
    prob : float
        :math:`P(\pi_b > \pi_a)`.
    """

    a: str
    b: str
    prob: float

    def to_dict(self) -> dict[str, str]:
        """Return ``{"a", "b"}``.

        Examples
        --------
        >>> Reversal("old", "new", 0.8).to_dict()
        {'a': 'old', 'b': 'new'}
        """
        return {"a": self.a, "b": self.b}


@dataclass(frozen=True, slots=True)
class JudgeSummary:
    """How the judge was modelled and what the data say about it.

    Attributes
    ----------
    shared : bool
        True when one Se and Sp was fitted for every system.
    se, sp : PosteriorSummary
        The shared judge's Se and Sp, or the population centre of a system-specific judge.
    by_system : dict of str to (PosteriorSummary, PosteriorSummary)
        Each system's Se and Sp (the shared ones, repeated, for a shared judge).
    calibrated : tuple of str
        Systems with gold labels of both classes.
    spread_se, spread_sp : PosteriorSummary or None
        System-specific judge: the between-system sd of logit Se and logit Sp (the population
        sd with partial pooling; the sd of the systems' own values without).
    shared_order : tuple of str
        System-specific judge: the systems ordered by the posterior mean of the rate corrected
        with the shared Se and Sp (module docstring); empty for a shared judge.
    changes_ranking : bool
        Whether that order differs from the order of the posterior means of pi.
    pooled : bool
        System-specific judge: whether the systems' rates were partially pooled (else each
        had priors of its own).
    evidence : JudgeEvidence or None
        When the shared-judge and per-system fits were averaged (the default for two systems
        with gold labels of both classes): the weight of one judge and the gold counts it
        rests on (:mod:`bayesjudge.systems.average`); None for a single model.
    """

    shared: bool
    se: PosteriorSummary
    sp: PosteriorSummary
    by_system: dict[str, tuple[PosteriorSummary, PosteriorSummary]]
    calibrated: tuple[str, ...]
    spread_se: PosteriorSummary | None = None
    spread_sp: PosteriorSummary | None = None
    shared_order: tuple[str, ...] = ()
    changes_ranking: bool = False
    pooled: bool = False
    evidence: JudgeEvidence | None = None

    @property
    def averaged(self) -> bool:
        """Whether the shared-judge and per-system fits were averaged."""
        return self.evidence is not None

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"shared", "se": S, "sp": S, "by_system": {NAME: {"se": S, "sp": S}}}``.

        An averaged fit adds ``"average"``: :meth:`JudgeEvidence.to_dict
        <bayesjudge.systems.average.JudgeEvidence.to_dict>` (``weight_shared``, the posterior
        probability of one judge; ``rests_on``, the gold counts in words; ``gold``, the counts).
        """
        out: dict[str, Any] = {
            "shared": self.shared,
            "se": self.se.to_dict(),
            "sp": self.sp.to_dict(),
            "by_system": {
                name: {"se": se.to_dict(), "sp": sp.to_dict()}
                for name, (se, sp) in self.by_system.items()
            },
        }
        if self.evidence is not None:
            out["average"] = self.evidence.to_dict()
        return out


@dataclass(frozen=True, slots=True, eq=False)
class SystemsAnalysis(Shown):
    r"""Everything the systems family reports about one dataset.

    Attributes
    ----------
    data : SystemsData
        The data analysed.
    model : str
        The model fitted (``two_system``, ``systems_irt`` or ``systems``).
    calibration : str
        ``"by_class"`` or ``"random"``.
    pi : dict of str to PosteriorSummary
        Each system's success rate.
    p_best : dict of str to float
        :math:`P(s \text{ is best})`.
    rank : dict of str to PosteriorSummary
        The posterior of each system's rank (1 = highest rate).
    rank_probabilities : ndarray, shape (systems, systems)
        Entry ``[s, r]`` is :math:`P(\mathrm{rank}_s = r + 1)`.
    prob_better : ndarray, shape (systems, systems)
        Entry ``[i, j]`` is :math:`P(\pi_i > \pi_j)`: row better than column.
    differences : tuple of Difference
        Every pair, in data order.
    naive_rate : dict of str to float
        The judge's pass rate on each system's unlabelled answers.
    naive_rank : dict of str to int
        The ranking those rates give (1 = highest; ties share a rank).
    reversals : tuple of Reversal
        The pairs the correction reverses.
    judge : JudgeSummary
        The judge.
    estimates : tuple of (dict, Estimate)
        The frequentist rows, each with its ``{"system": NAME}`` or ``{"a": NAME, "b": NAME}``.
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

    data: SystemsData
    model: str
    calibration: str
    pi: dict[str, PosteriorSummary]
    p_best: dict[str, float]
    rank: dict[str, PosteriorSummary]
    rank_probabilities: np.ndarray
    prob_better: np.ndarray
    differences: tuple[Difference, ...]
    naive_rate: dict[str, float]
    naive_rank: dict[str, int]
    reversals: tuple[Reversal, ...]
    judge: JudgeSummary
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
    def paired(self) -> bool:
        """Whether systems answered the same items."""
        return self.data.paired

    @property
    def passed(self) -> bool:
        """Whether the fit passed its diagnostics."""
        return self.diagnostics is None or self.diagnostics.passed

    def summary(self) -> ReportSummary:
        """Return the one-screen summary (:func:`rank_summary`)."""
        return rank_summary(self)

    @property
    def order(self) -> tuple[str, ...]:
        """The corrected ranking: systems by posterior mean rank, best first."""
        return tuple(sorted(self.systems, key=lambda s: (self.rank[s].mean, -self.pi[s].mean)))

    def ranking(self, *, threshold: float = CLEAR_ORDER) -> tuple[tuple[str, ...], ...]:
        r"""Return the corrected ranking with its near-ties: groups of systems, best first.

        Systems follow :attr:`order`; a system starts a new group when the one before it is
        better with probability at least ``threshold``
        (:math:`P(\pi_{\mathrm{before}} > \pi_{\mathrm{next}}) \ge` ``threshold``, each
        adjacent pair in turn), and joins that system's group otherwise: within a group the
        order is not clear. A ranking of singletons is an order every step of which is clear.

        Parameters
        ----------
        threshold : float
            The probability an adjacent step needs to count as an order (default
            :data:`CLEAR_ORDER`).

        Returns
        -------
        tuple of tuple of str
            The groups, best first; each in :attr:`order`.
        """
        index = {name: i for i, name in enumerate(self.systems)}
        groups: list[list[str]] = []
        for name in self.order:
            if groups and self.prob_better[index[groups[-1][-1]], index[name]] < threshold:
                groups[-1].append(name)
            else:
                groups.append([name])
        return tuple(tuple(g) for g in groups)

    @property
    def naive_order(self) -> tuple[str, ...]:
        """The naive ranking: systems by judged pass rate, highest first (stable on ties)."""
        return tuple(sorted(self.systems, key=lambda s: -self.naive_rate[s]))

    def diagnostics_dict(self) -> dict[str, Any]:
        """Return the ``diagnostics`` block of the JSON output (as in ``bayesjudge estimate``).

        With the fit's family predictive tests under ``predictive_check``
        (:func:`bayesjudge.systems.predictive.systems_predictive_check`; for the average of the
        two judge models, ``{"one judge": ..., "judge per system": ...}``; None for a posterior
        recorded without one), whose failed tests are among the ``failures``.
        """
        if self.diagnostics is None:  # a posterior not made by fit_systems: nothing recorded
            return unchecked_diagnostics("nuts")
        block = self.diagnostics.json_block(method="nuts", attempts=self.attempts)
        recorded = None if self.posterior is None else self.posterior.attrs.get("predictive_check")
        return {**block, "predictive_check": None if recorded is None else json.loads(recorded)}

    def to_dict(self) -> dict[str, Any]:
        r"""Return the JSON object of ``bayesjudge rank --json``.

        ``{"systems": {NAME: {"pi": S, "p_best", "rank": S}}, "differences": [{"a", "b",
        "diff": S, "p_b_better"}], "judge": {"shared", "se": S, "sp": S, "by_system": {NAME:
        {"se": S, "sp": S}}}, "paired", "reversals": [{"a", "b"}], "diagnostics": {...},
        "estimates": [row]}`` with ``S = {"mean", "sd", "low", "high", "prob"}`` (equal-tailed
        interval), ``diff`` the summary of :math:`\pi_b - \pi_a`, a reversal's ``a`` the
        system the naive rates rank higher and ``b`` the one the posterior ranks higher, and
        one row ``{"method", "estimate", "low", "high", "prob", "note"}`` per baseline with
        ``"system"`` (a success rate) or ``"a"`` and ``"b"`` (a difference, ``b`` minus ``a``).
        """
        return {
            "systems": {
                name: {
                    "pi": self.pi[name].to_dict(),
                    "p_best": self.p_best[name],
                    "rank": self.rank[name].to_dict(),
                }
                for name in self.systems
            },
            "differences": [d.to_dict() for d in self.differences],
            "judge": self.judge.to_dict(),
            "paired": self.paired,
            "reversals": [r.to_dict() for r in self.reversals],
            "diagnostics": self.diagnostics_dict(),
            "estimates": [{**keys, **e.to_dict()} for keys, e in self.estimates],
        }

    def to_frame(self) -> pd.DataFrame:
        """Return one row per system, best first: pi, P(best), rank, the naive rate and rank."""
        rows = []
        for name in self.order:
            s = self.pi[name]
            rows.append(
                {
                    "system": name,
                    "pi_mean": s.mean,
                    "pi_low": s.eti.low,
                    "pi_high": s.eti.high,
                    "p_best": self.p_best[name],
                    "mean_rank": self.rank[name].mean,
                    "naive_rate": self.naive_rate[name],
                    "naive_rank": self.naive_rank[name],
                }
            )
        return pd.DataFrame(rows).set_index("system")

    def differences_frame(self) -> pd.DataFrame:
        """Return every pairwise difference: ``a, b, diff_mean, low, high, p_b_better``."""
        return pd.DataFrame(
            [
                {
                    "a": d.a,
                    "b": d.b,
                    "diff_mean": d.diff.mean,
                    "low": d.diff.eti.low,
                    "high": d.diff.eti.high,
                    "p_b_better": d.p_b_better,
                }
                for d in self.differences
            ]
        )


def _flat(posterior: xr.Dataset, name: str, systems: tuple[str, ...]) -> np.ndarray:
    """Return draws of ``name`` as (draws,) or (draws, systems) in the systems' order."""
    array = posterior[name]
    if "system" in array.dims:
        array = array.sel(system=list(systems)).transpose("chain", "draw", "system")
        return np.asarray(array.to_numpy()).reshape(-1, len(systems))
    return np.asarray(array.to_numpy()).reshape(-1)


def _judge_summary(
    posterior: xr.Dataset,
    data: SystemsData,
    pi: np.ndarray,
    *,
    prob: float,
    pooled: bool,
    evidence: JudgeEvidence | None = None,
) -> JudgeSummary:
    systems = data.systems
    counts = data.system_counts()
    calibrated = tuple(
        s for s, m1, m0 in zip(systems, counts.m1, counts.m0, strict=True) if m1 > 0 and m0 > 0
    )
    se = _flat(posterior, "se", systems)
    sp = _flat(posterior, "sp", systems)
    if se.ndim == 1 or "se_shared" not in posterior:
        se_all = se if se.ndim == 1 else se[:, 0]
        sp_all = sp if sp.ndim == 1 else sp[:, 0]
        s_se, s_sp = (
            summary_of_draws("se", se_all, prob=prob),
            summary_of_draws("sp", sp_all, prob=prob),
        )
        return JudgeSummary(
            True,
            s_se,
            s_sp,
            {name: (s_se, s_sp) for name in systems},
            calibrated,
            evidence=evidence,
        )
    se_c = _flat(posterior, "se_shared", systems)
    sp_c = _flat(posterior, "sp_shared", systems)
    by_system = {
        name: (
            summary_of_draws(f"se[{name}]", se[:, s], prob=prob),
            summary_of_draws(f"sp[{name}]", sp[:, s], prob=prob),
        )
        for s, name in enumerate(systems)
    }
    rate = _flat(posterior, "judged_rate", systems)
    corrected = (rate + sp_c[:, None] - 1.0) / (se_c + sp_c - 1.0)[:, None]
    by_pi = tuple(np.array(systems)[np.argsort(-pi.mean(axis=0), kind="stable")])
    shared_order = tuple(np.array(systems)[np.argsort(-corrected.mean(axis=0), kind="stable")])
    return JudgeSummary(
        shared=False,
        se=summary_of_draws("se", se_c, prob=prob),
        sp=summary_of_draws("sp", sp_c, prob=prob),
        by_system=by_system,
        calibrated=calibrated,
        spread_se=summary_of_draws("sigma_se", _flat(posterior, "sigma_se", systems), prob=prob),
        spread_sp=summary_of_draws("sigma_sp", _flat(posterior, "sigma_sp", systems), prob=prob),
        shared_order=tuple(str(s) for s in shared_order),
        changes_ranking=shared_order != by_pi,
        pooled=pooled,
        evidence=evidence,
    )


def evidence_of(posterior: xr.DataTree) -> JudgeEvidence | None:
    """Return the judge evidence recorded on an averaged fit (None for a single model).

    Examples
    --------
    >>> evidence_of(xr.DataTree()) is None
    True
    """
    text = posterior.attrs.get("judge_evidence")
    return JudgeEvidence.from_json(text) if isinstance(text, str) else None


def _averages(data: SystemsData, judge: str, pooling: PoolingChoice) -> bool:
    """Whether the default averages the shared and per-system judges on ``data``."""
    if judge != "auto" or choose_judge(data, "auto") != "system":
        return False
    return choose_pooling(data, "system", pooling) == "none"


def _misfits(diagnostics: Diagnostics) -> bool:
    """Whether a fit converged but failed its posterior predictive check (only that)."""
    failures = diagnostics.failures
    return bool(failures) and all(c.name == "ppc_tail_prob" for c in failures)


def _renamed_checks(diagnostics: Diagnostics, label: str) -> tuple[Any, ...]:
    return tuple(replace(c, variable=f"{c.variable} ({label})") for c in diagnostics.checks)


def _averaged_fit(
    data: SystemsData,
    *,
    pooling: PoolingChoice,
    priors: SystemsPriors | None,
    random_seed: int | None,
    **options: Any,
) -> xr.DataTree:
    """Fit the models the average needs and mix their draws (module docstring)."""
    priors = SystemsPriors() if priors is None else priors
    counts = data.system_counts()
    evidence = judge_evidence(
        data.systems,
        x1=counts.x1,
        m1=counts.m1,
        x0=counts.x0,
        m0=counts.m0,
        se=priors.se,
        sp=priors.sp,
    )
    fits = {
        kind: fit_systems(
            data,
            judge="shared" if kind == "shared" else "system",
            pooling=pooling,
            priors=priors,
            random_seed=random_seed,
            **options,
        )
        for kind in evidence.fitted
    }
    if len(fits) == 1:  # the other model would get fewer than 1 in 1,000 draws
        tree = next(iter(fits.values()))
        tree.attrs["judge_evidence"] = evidence.to_json()
        return tree
    shared, system = fits["shared"], fits["system"]
    one, each = diagnostics_of(shared), diagnostics_of(system)
    misfit = [kind for kind, d in (("shared", one), ("system", each)) if _misfits(d)]
    if len(misfit) == 1:  # the data reject one model that converged: the answer is the other's
        bad = misfit[0]
        evidence = replace(
            evidence,
            set_aside=bad,
            set_aside_checks=tuple(c.variable for c in (one if bad == "shared" else each).failures),
        )
        tree = fits["system" if bad == "shared" else "shared"]
        tree.attrs["judge_evidence"] = evidence.to_json()
        return tree
    mixed = average_posteriors(
        shared["posterior"].to_dataset(),
        system["posterior"].to_dataset(),
        evidence.weight_shared,
        random_seed=random_seed,
    )
    diagnostics = Diagnostics(
        _renamed_checks(one, "one judge") + _renamed_checks(each, "judge per system"), one.prob
    )
    attempts = [a.to_dict() for a in (*attempts_of(shared), *attempts_of(system))]
    tree = xr.DataTree.from_dict({"posterior": mixed})
    tree.attrs = {
        **system.attrs,
        "judge": "averaged",
        "diagnostics": json.dumps(diagnostics.to_dict()),
        "predictive_check": json.dumps(
            {
                label: json.loads(fit.attrs["predictive_check"])
                for label, fit in (("one judge", shared), ("judge per system", system))
                if "predictive_check" in fit.attrs
            }
        ),
        "attempts": json.dumps(attempts),
        "judge_evidence": evidence.to_json(),
    }
    return tree


def summarize_systems(
    posterior: xr.DataTree,
    data: SystemsData,
    *,
    prob: float = 0.95,
    random_seed: int | None = None,
    priors: SystemsPriors | None = None,
) -> SystemsAnalysis:
    """Assemble the analysis from an existing fit of :func:`~bayesjudge.systems.fit.fit_systems`.

    Parameters
    ----------
    posterior : DataTree
        The fit (its recorded diagnostics are used; a tree without them is checked here with
        :func:`~bayesjudge.inference.diagnostics.check_fit`).
    data : SystemsData
        The data it was fitted to (the baselines are computed from them).
    prob : float
        Mass of every interval.
    random_seed : int, optional
        The seed of the fit, as recorded (None: the default seed).
    priors : SystemsPriors, optional
        The priors of the fit (recorded in the analysis).

    Returns
    -------
    SystemsAnalysis
    """
    from bayesjudge.inference.provenance import seed_label

    prob = check_prob(prob)
    systems = data.systems
    draws = posterior["posterior"].to_dataset()
    pi = _flat(draws, "pi", systems)
    ranks = rank_draws(pi)
    best = prob_best(pi)
    better = prob_better(pi)
    differences = []
    for i in range(len(systems)):
        for j in range(i + 1, len(systems)):
            delta = pi[:, j] - pi[:, i]
            differences.append(
                Difference(
                    systems[i],
                    systems[j],
                    summary_of_draws(f"diff[{systems[j]}-{systems[i]}]", delta, prob=prob),
                    float(better[j, i]),
                )
            )
    counts = data.system_counts()
    naive = counts.k / counts.n
    pairs, reversed_prob = reversal_pairs(naive, pi)
    reversals = tuple(
        Reversal(systems[i], systems[j], float(p))
        for (i, j), p in zip(pairs.tolist(), reversed_prob.tolist(), strict=True)
    )
    estimates: list[tuple[dict[str, str], Estimate]] = [
        ({"system": name}, row) for name, row in system_baselines(data, prob=prob)
    ]
    for d in differences:
        estimates += [
            ({"a": d.a, "b": d.b}, row)
            for row in difference_baselines(data, a=d.a, b=d.b, prob=prob)
        ]
    return SystemsAnalysis(
        data=data,
        model=str(posterior.attrs.get("model", "")),
        calibration=str(posterior.attrs.get("calibration", "by_class")),
        pi={
            name: summary_of_draws(f"pi[{name}]", pi[:, s], prob=prob)
            for s, name in enumerate(systems)
        },
        p_best={name: float(best[s]) for s, name in enumerate(systems)},
        rank={
            name: summary_of_draws(f"rank[{name}]", ranks[:, s].astype(float), prob=prob)
            for s, name in enumerate(systems)
        },
        rank_probabilities=rank_probabilities(pi),
        prob_better=better,
        differences=tuple(differences),
        naive_rate={name: float(naive[s]) for s, name in enumerate(systems)},
        naive_rank={
            name: int(r) for name, r in zip(systems, competition_ranks(naive), strict=True)
        },
        reversals=reversals,
        # fits recorded before the pooling option always pooled a system-specific judge
        judge=_judge_summary(
            draws,
            data,
            pi,
            prob=prob,
            pooled=posterior.attrs.get("pooling") != "none",
            evidence=evidence_of(posterior),
        ),
        estimates=tuple(estimates),
        prob=prob,
        seed=seed_label(random_seed),
        priors=SystemsPriors() if priors is None else priors,
        diagnostics=diagnostics_of(posterior)
        if "diagnostics" in posterior.attrs
        else check_fit(posterior, var_names=[v for v in ("pi", "se", "sp") if v in draws]),
        attempts=attempts_of(posterior),
        posterior=posterior,
    )


def analyze_systems(
    data: SystemsData,
    *,
    judge: JudgeChoice = "auto",
    pooling: PoolingChoice = "auto",
    calibration: Calibration = "by_class",
    priors: SystemsPriors | None = None,
    prob: float = 0.95,
    draws: Draws = 2000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | None = None,
    sampler: Sampler = "auto",
    progressbar: bool | None = None,
) -> SystemsAnalysis:
    """Fit, check, rank and compare: the whole answer of the systems family for one dataset.

    Parameters
    ----------
    data : SystemsData
        Validated data of two or more systems.
    judge, pooling, calibration, priors
        The model (see :func:`~bayesjudge.systems.fit.fit_systems`).
    prob : float
        Mass of every interval.
    draws, tune, chains, target_accept, sampler, progressbar
        NUTS settings.
    random_seed : int, optional
        Seed of the sampler (None: the default seed).

    Returns
    -------
    SystemsAnalysis

    Examples
    --------
    >>> from bayesjudge.systems.simulate import simulate_systems
    >>> sim = simulate_systems([0.6, 0.75], n_unlabelled=300, n_labelled=60, se=0.9,
    ...                        sp=0.85, random_seed=3)
    >>> analysis = analyze_systems(SystemsData.from_frame(sim.frame),
    ...                            progressbar=False)  # doctest: +SKIP
    >>> analysis.order  # doctest: +SKIP
    ('B', 'A')
    """
    prob = check_prob(prob)
    options: dict[str, Any] = {
        "calibration": calibration,
        "draws": draws,
        "tune": tune,
        "chains": chains,
        "target_accept": target_accept,
        "progressbar": progressbar,
        "sampler": sampler,
        "prob": prob,
    }
    if isinstance(data, SystemsData) and _averages(data, judge, pooling):
        posterior = _averaged_fit(
            data, pooling=pooling, priors=priors, random_seed=random_seed, **options
        )
    else:
        posterior = fit_systems(
            data, judge=judge, pooling=pooling, priors=priors, random_seed=random_seed, **options
        )
    return summarize_systems(posterior, data, prob=prob, random_seed=random_seed, priors=priors)


#: P(best) from which the reading calls a system the best one without hedging.
CLEAR_BEST = 0.95


#: What the report's words mean, shown under the summary.
DEFINITIONS = (
    (
        "pi",
        "a system's true success rate: the share of its answers that are right, with the "
        "judge's errors corrected",
    ),
    ("naive rate", "the share of a system's unlabelled answers the judge passed, uncorrected"),
    ("P(best)", "the posterior probability that the system has the highest true success rate"),
    ("rank", "1 for the highest true success rate; its posterior mean and interval"),
    ("P(b > a)", "the posterior probability that system b's true success rate exceeds a's"),
    (
        "reversal",
        "a pair the naive rates put in one order and the posterior, more likely than "
        "not, in the other",
    ),
    (
        "Se, Sp",
        "the judge's sensitivity (it passes a right answer) and specificity (it fails a wrong one)",
    ),
)


def _listed(names: Iterable[str]) -> str:
    """Return ``a``, ``a and b`` or ``a, b and c``."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def ranking_sentence(analysis: SystemsAnalysis) -> str:
    """Return the corrected ranking in words, near-ties shown as ties.

    A step ``a > b`` is shown only where P(a better than b) is at least
    :data:`~bayesjudge.systems.analysis.CLEAR_ORDER`
    (:meth:`~bayesjudge.systems.analysis.SystemsAnalysis.ranking`); systems without a clear
    order between them are named together ("no clear order between a and c").
    """
    groups = analysis.ranking(threshold=CLEAR_ORDER)
    rule = f"a step is shown as > only where P(higher one better) >= {CLEAR_ORDER:g}"
    if all(len(g) == 1 for g in groups):
        return f"Corrected ranking: {' > '.join(g[0] for g in groups)} ({rule})."
    if len(groups) == 1:
        return f"Corrected ranking: no clear order between {_listed(groups[0])} ({rule})."
    shown = " > ".join(g[0] if len(g) == 1 else "{" + ", ".join(g) + "}" for g in groups)
    ties = "; ".join(f"no clear order between {_listed(g)}" for g in groups if len(g) > 1)
    return f"Corrected ranking: {shown}; {ties} ({rule})."


def most_likely_best(analysis: SystemsAnalysis) -> str:
    """Return the system most likely to be the best: the largest P(best).

    Not necessarily the first by mean rank (``analysis.order``): a system often second may
    have the smaller mean rank while another is more often first. Ties go to the smaller
    mean rank.
    """
    return max(analysis.order, key=lambda system: analysis.p_best[system])


def rank_answer(analysis: SystemsAnalysis) -> str:
    """Return the answer to "which system is best?" in a few words.

    ``"c is best, P(best) 0.97"`` when the most likely best system's P(best) is at least
    :data:`CLEAR_BEST`, else ``"No clear winner; most likely c, P(best) 0.42"``. The most
    likely best system is the one with the largest P(best) (:func:`most_likely_best`).
    """
    best = most_likely_best(analysis)
    p_best = analysis.p_best[best]
    if p_best >= CLEAR_BEST:
        return f"{best} is best, P(best) {p_best:.2f}"
    return f"No clear winner; most likely {best}, P(best) {p_best:.2f}"


def rank_reading(analysis: SystemsAnalysis) -> list[str]:
    """Return the report's opening sentences: best system, rankings, reversals, judge.

    A system is called the best without hedging when its P(best) is at least
    :data:`CLEAR_BEST`; the sentences are those shown atop the report and in ``summary.md``.
    """
    mass = f"{100 * analysis.prob:g}%"
    best = most_likely_best(analysis)
    pi = analysis.pi[best]
    rate = (
        f"true success rate {100 * pi.mean:.1f}% ({mass} interval {100 * pi.eti.low:.1f}% to "
        f"{100 * pi.eti.high:.1f}%)"
    )
    p_best = analysis.p_best[best]
    naive_best = analysis.naive_order[0]
    lines = [
        f"{best} is the best system with probability {p_best:.2f}; {rate}."
        if p_best >= CLEAR_BEST
        else f"No system is clearly best: the most likely is {best}, with P(best) = "
        f"{p_best:.2f}; {rate}.",
        ranking_sentence(analysis),
        f"The judge's raw pass rates put {naive_best} first "
        f"({100 * analysis.naive_rate[naive_best]:.1f}%); after the correction "
        f"P({naive_best} is best) = {analysis.p_best[naive_best]:.2f}.",
    ]
    if analysis.reversals:
        pairs = "; ".join(f"{r.b} above {r.a} (P = {r.prob:.2f})" for r in analysis.reversals)
        lines.append(f"Correcting the judge's errors reverses the naive order of: {pairs}.")
    else:
        lines.append("Correcting the judge's errors reverses no pair of the naive ranking.")
    judge = analysis.judge
    if judge.evidence is not None:
        text = judge.evidence.sentence().removeprefix("Judge: ")
        lines.append(text[:1].upper() + text[1:])
    elif judge.shared:
        why = (
            f"only {len(judge.calibrated)} system(s) have gold labels of both classes, too few "
            "to tell"
            if len(judge.calibrated) < 2
            else f"{len(judge.calibrated)} systems have gold labels of both classes, so "
            "judge='system' (--judge system) could estimate each"
        )
        lines.append(
            f"One Se and Sp was fitted for every system (Se {judge.se.mean:.2f}, Sp "
            f"{judge.sp.mean:.2f}): the judge is assumed to treat the systems alike ({why})."
        )
    else:
        spread_se = judge.spread_se.mean if judge.spread_se is not None else float("nan")
        spread_sp = judge.spread_sp.mean if judge.spread_sp is not None else float("nan")
        change = "changes" if judge.changes_ranking else "does not change"
        lines.append(
            f"The judge was fitted per system (spread of logit Se {spread_se:.2f}, of logit Sp "
            f"{spread_sp:.2f}); treating every system with the shared Se and Sp would rank "
            f"{' > '.join(judge.shared_order)}, so the judge's unequal treatment {change} the "
            "ranking."
        )
    return lines


def rank_summary(analysis: SystemsAnalysis) -> ReportSummary:
    """Return the one-screen summary of a rank analysis (the shared report summary).

    The headline answers the question in words (:func:`rank_answer`: the best system, or no
    clear winner and the most likely one), with that system's corrected rate and interval in
    small type beside its judged pass rate; the reading is :func:`rank_reading` (withheld when
    the diagnostics failed).
    """
    best = most_likely_best(analysis)
    pi = analysis.pi[best]
    headline = Headline(
        f"true success rate of {best}",
        pi.mean,
        pi.eti.low,
        pi.eti.high,
        analysis.prob,
        naive=analysis.naive_rate[best],
        naive_name=f"judged pass rate of {best} (naive)",
        answer=rank_answer(analysis),
    )
    judge = "each system's own judge errors" if not analysis.judge.shared else "the judge's errors"
    if analysis.judge.evidence is not None and analysis.judge.evidence.set_aside is None:
        judge = (
            "the judge's errors (one judge for all and a judge per system, averaged with the "
            "weight the gold labels give each)"
        )
    trust = (
        f"The Bayesian model: it corrects every system for {judge}, estimated from the gold "
        "labels, and uses the pairing of items when the systems answered the same ones. The "
        "judged pass rates, and the frequentist corrections that assume one judge for all, are "
        "shown below for comparison."
    )
    return ReportSummary(
        headline,
        diagnostics=analysis.diagnostics,
        definitions=DEFINITIONS,
        trust=trust,
        reading=" ".join(rank_reading(analysis)),
        quantities=("pi",),
        hedge_wide=False,  # the reading weighs the uncertainty itself (P(best), intervals)
    )
