"""The panel family's answer, assembled once: posterior, judges, dependence, rules, baselines.

:func:`analyze_panel` fits the latent-class model of a judge panel
(:func:`~bayesjudge.panels.fit.fit_panel`), summarises pi, every judge's Se, Sp and J, the
error correlations and the effective number of judges, the vote rules and the best one, runs
the baselines on the same data, and returns one :class:`PanelAnalysis`. ``bayesjudge panel``
and its report only render it (``to_dict`` gives the command's JSON).
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
import xarray as xr

from bayesjudge.errors import DataError
from bayesjudge.estimators.design import RandomCalibrationCheck
from bayesjudge.inference.diagnostics import Diagnostics
from bayesjudge.inference.fit import Attempt, Draws, attempts_of, diagnostics_of
from bayesjudge.inference.provenance import provenance, seed_label
from bayesjudge.inference.sampling import Sampler
from bayesjudge.inference.summary import posterior_summary
from bayesjudge.panels.baselines import PanelEstimate, panel_estimates
from bayesjudge.panels.choice import DependenceChoice, choose_dependence
from bayesjudge.panels.data import PanelData
from bayesjudge.panels.dependence import MAX_SPIKE_JUDGES, SPIKES
from bayesjudge.panels.fit import (
    Calibration,
    Spike,
    check_identified,
    check_pairs_identified,
    distinct_judges,
    fit_panel,
    panel_calibration_check,
)
from bayesjudge.panels.rules import rule_words
from bayesjudge.priors import PanelPriors
from bayesjudge.reporting.pipeline import Shown
from bayesjudge.reporting.summary import Headline, ReportSummary, ReportWarning
from bayesjudge.results import Estimate, PosteriorSummary
from bayesjudge.validation import check_choice, check_prob

__all__ = [
    "ANALYSIS_DEPENDENCE",
    "JUDGE_QUANTITIES",
    "PanelAnalysis",
    "RuleSummary",
    "analyze_panel",
    "pair_name",
]

AnalysisDependence = Literal["random_effect", "none", "pairs", "auto"]
#: The dependence forms of :func:`analyze_panel`: the fit's two, the pair form, and the choice.
ANALYSIS_DEPENDENCE: tuple[str, ...] = get_args(AnalysisDependence)

#: Per-judge posterior quantities reported by ``bayesjudge panel``.
JUDGE_QUANTITIES = ("se", "sp", "j")
#: Baselines that assume the gold items are a random sample of all items.
RANDOM_SAMPLE_METHODS = ("ppi_plus_plus",)


def pair_name(first: str, second: str) -> str:
    """Return the key of a pair of judges in the JSON output: ``"first|second"``.

    Examples
    --------
    >>> pair_name("gpt", "claude")
    'gpt|claude'
    """
    return f"{first}|{second}"


@dataclass(frozen=True, slots=True)
class RuleSummary:
    """Posterior Se, Sp and J of one vote rule (a rule used as a single judge).

    Attributes
    ----------
    rule : str
        ``at_least_T_of_J`` or ``likelihood_ratio`` (:mod:`bayesjudge.panels.rules`).
    se, sp, j : PosteriorSummary
    """

    rule: str
    se: PosteriorSummary
    sp: PosteriorSummary
    j: PosteriorSummary

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"rule", "se", "sp", "j"}`` with each summary as in the JSON output."""
        return {
            "rule": self.rule,
            "se": self.se.to_dict(),
            "sp": self.sp.to_dict(),
            "j": self.j.to_dict(),
        }


@dataclass(frozen=True, slots=True, eq=False)
class PanelAnalysis(Shown):
    """Everything the panel family reports about one panel of judges.

    Attributes
    ----------
    data : PanelData
        The data.
    prob : float
        Mass of every interval.
    seed : int or str
        The seed.
    posterior : DataTree
        The checked fit (:func:`bayesjudge.panels.fit.fit_panel`).
    diagnostics : Diagnostics
        Its checks.
    attempts : tuple of Attempt
        The sampler runs (two when the first failed and was retried).
    pi : PosteriorSummary
        The true success rate of the unlabelled items.
    judges : dict
        ``{judge: {"se": S, "sp": S, "j": S}}``.
    effective_judges : PosteriorSummary
        Kish's effective number of independent judges.
    correlation : dict
        ``{"a|b": {"positive": S, "negative": S}}``: the error correlation of each pair among
        truly-PASS and truly-FAIL items.
    rules : tuple of RuleSummary
        Every at-least-T-of-J rule and the likelihood-ratio rule.
    best_rule : str
        The rule whose Rogan-Gladen estimate of pi would be the most precise.
    estimates : tuple of PanelEstimate
        The baselines.
    dependence, calibration : str
        The options of the fit.
    calibration_check : RandomCalibrationCheck
        Whether the gold items look like a random sample of all items.
    priors : PanelPriors
        The priors.
    merged_judges : tuple of tuple of str
        Groups of judges that agreed on every item, each fitted once as its first judge
        (:func:`~bayesjudge.panels.fit.distinct_judges`); ``data`` holds the merged panel.
    pairs : tuple of (str, str)
        The pairs of judges of the pair form (``dependence="pairs"``), else empty.
    dependence_choice : DependenceChoice, optional
        With ``dependence="auto"`` in :func:`analyze_panel`: the forms compared and why
        ``dependence`` was chosen (:func:`bayesjudge.panels.choice.choose_dependence`).
    """

    data: PanelData
    prob: float
    seed: int | str
    posterior: xr.DataTree
    diagnostics: Diagnostics
    attempts: tuple[Attempt, ...]
    pi: PosteriorSummary
    judges: dict[str, dict[str, PosteriorSummary]]
    effective_judges: PosteriorSummary
    correlation: dict[str, dict[str, PosteriorSummary]]
    rules: tuple[RuleSummary, ...]
    best_rule: str
    estimates: tuple[PanelEstimate, ...]
    dependence: str
    calibration: str
    calibration_check: RandomCalibrationCheck
    priors: PanelPriors
    merged_judges: tuple[tuple[str, ...], ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()
    dependence_choice: DependenceChoice | None = None

    @property
    def passed(self) -> bool:
        """Whether the posterior passed its diagnostics."""
        return self.diagnostics.passed

    def summary(self) -> ReportSummary:
        """Return the one-screen summary (:func:`panel_summary`)."""
        return panel_summary(self)

    @property
    def naive(self) -> Estimate:
        """The naive majority-vote rate of the unlabelled items (the uncorrected figure)."""
        return next(e.estimate for e in self.estimates if e.rule == "majority")

    @property
    def predictive_check(self) -> dict[str, Any]:
        """The posterior predictive check of the verdict patterns and the judges' gold rates.

        :meth:`bayesjudge.panels.predictive.PanelPredictiveCheck.to_dict`; its tests are among
        the :attr:`diagnostics` (``ppc_tail_prob`` checks naming the family and the statistic
        most off), so a failed test fails the diagnostics.
        """
        return dict(json.loads(self.posterior.attrs["predictive_check"]))

    def diagnostics_dict(self) -> dict[str, Any]:
        """Return the ``diagnostics`` block of the JSON output (as ``bayesjudge estimate``).

        It carries the posterior predictive check under ``predictive_check``
        (:attr:`predictive_check`; None for a posterior recorded without one), whose failed
        tests are among the ``failures``.
        """
        block = self.diagnostics.json_block(method="nuts", attempts=self.attempts)
        checked = "predictive_check" in self.posterior.attrs  # absent from a tree made by hand
        return {**block, "predictive_check": self.predictive_check if checked else None}

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object of ``bayesjudge panel --json``.

        ``{"posterior": {"pi": S}, "judges": {NAME: {"se": S, "sp": S, "j": S}},
        "dependence": {"effective_judges": S, "correlation": {"A|B": {"positive": S,
        "negative": S}}}, "rules": [{"rule", "se", "sp", "j"}, ...], "best_rule": str,
        "diagnostics": {...}, "estimates": [row, ...], "provenance": {...}}`` with
        ``S = {"mean", "sd", "low", "high", "prob"}`` and each baseline row carrying a
        ``judge`` or a ``rule`` field. The ``dependence`` block also holds ``pairs`` (the pair
        form's pairs of judges) when the pair form was fitted, and ``choice`` (which form was
        chosen and why: :meth:`~bayesjudge.panels.choice.DependenceChoice.to_dict`) with
        ``dependence="auto"``.
        """
        dependence: dict[str, Any] = {
            "effective_judges": self.effective_judges.to_dict(),
            "correlation": {
                pair: {side: s.to_dict() for side, s in values.items()}
                for pair, values in self.correlation.items()
            },
        }
        if self.pairs:
            dependence["pairs"] = [list(p) for p in self.pairs]
        if self.posterior.attrs.get("spike") == "judge":
            dependence["spike"] = "judge"
        if self.dependence_choice is not None:
            dependence["choice"] = self.dependence_choice.to_dict()
        return {
            "posterior": {"pi": self.pi.to_dict()},
            "judges": {
                judge: {name: s.to_dict() for name, s in values.items()}
                for judge, values in self.judges.items()
            },
            "dependence": dependence,
            "rules": [r.to_dict() for r in self.rules],
            "best_rule": self.best_rule,
            "diagnostics": self.diagnostics_dict(),
            "estimates": [e.to_dict() for e in self.estimates],
            "provenance": provenance(
                self.seed,
                method="nuts",
                priors=self.priors,
                dependence=self.dependence,
                calibration=self.calibration,
                merged_judges=[list(g) for g in self.merged_judges],
            ),
        }

    def to_frame(self) -> pd.DataFrame:
        """Return every posterior summary as one table.

        Columns ``quantity`` (``pi``, ``se``, ``sp``, ``j``, ``effective_judges``,
        ``correlation_positive``, ``correlation_negative``, ``rule_se``, ``rule_sp``,
        ``rule_j``), ``subject`` (the judge, the pair ``a|b``, the rule, or empty), then
        ``mean``, ``sd``, ``low``, ``high``, ``prob``.
        """
        rows: list[dict[str, Any]] = [{"quantity": "pi", "subject": "", **self.pi.to_dict()}]
        for judge, values in self.judges.items():
            rows += [{"quantity": n, "subject": judge, **s.to_dict()} for n, s in values.items()]
        rows.append(
            {"quantity": "effective_judges", "subject": "", **self.effective_judges.to_dict()}
        )
        for pair, values in self.correlation.items():
            rows += [
                {"quantity": f"correlation_{side}", "subject": pair, **s.to_dict()}
                for side, s in values.items()
            ]
        for rule in self.rules:
            rows += [
                {"quantity": f"rule_{n}", "subject": rule.rule, **getattr(rule, n).to_dict()}
                for n in ("se", "sp", "j")
            ]
        return pd.DataFrame(rows)

    def estimates_frame(self) -> pd.DataFrame:
        """Return the baselines as one table (``judge`` and ``rule`` columns first)."""
        return pd.DataFrame([e.to_row() for e in self.estimates])


def _summary(posterior: xr.DataTree, name: str, prob: float, **coords: str) -> PosteriorSummary:
    return posterior_summary(posterior, name, prob=prob, coords=coords or None)


def analyze_panel(
    data: PanelData,
    *,
    prob: float = 0.95,
    priors: PanelPriors | None = None,
    dependence: AnalysisDependence = "random_effect",
    calibration: Calibration = "by_class",
    draws: Draws = 2000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool | None = None,
    sampler: Sampler = "auto",
    independence: float | None = None,
    pairs: tuple[tuple[str, str], ...] | None = None,
    spike: Spike = "class",
) -> PanelAnalysis:
    """Fit, check and compare: the whole answer of the panel family for one panel of judges.

    Parameters
    ----------
    data : PanelData
        Validated verdicts of two or more judges, with gold labels on some items.
    prob : float
        Mass of every interval.
    dependence : {"random_effect", "none", "pairs", "auto"}
        ``"random_effect"`` and ``"none"`` as in :func:`bayesjudge.panels.fit.fit_panel`;
        ``"pairs"``: the pair form (``dependence="none"`` with ``pairs``: a class-specific
        covariance for each pair of judges, the others independent); ``"auto"``: fit the
        random-effect form and the pair form and keep the one that fits the items better
        (:func:`bayesjudge.panels.choice.choose_dependence`: PSIS-LOO, then the diagnostics),
        recorded as ``dependence_choice``; the random-effect form alone when the pair form
        cannot be fitted (gold items of one class only, more than 8 judges).
    pairs : tuple of (str, str), optional
        The pair form's pairs of judges (names); default: those whose gold-item agreement
        exceeds independence (:func:`bayesjudge.panels.fit.dependent_pairs`).
    priors, calibration, draws, tune, chains, target_accept, progressbar, sampler
        As in :func:`bayesjudge.panels.fit.fit_panel`.
    independence : float, optional
        The loadings' spike, as in :func:`bayesjudge.panels.fit.fit_panel` (default 0.5 with
        ``dependence="random_effect"``).
    random_seed : int, Generator or None
        Seed of everything random (None: the default seed).
    spike : {"class", "judge"}, default "class"
        What one indicator of the loadings' spike switches in the random-effect form, as in
        :func:`bayesjudge.panels.fit.fit_panel`: every loading of a class, or one judge's
        loadings (``"judge"``: at most
        :data:`~bayesjudge.panels.dependence.MAX_SPIKE_JUDGES` judges).

    Returns
    -------
    PanelAnalysis

    Raises
    ------
    DataError
        Before any work, when the data cannot identify the model
        (:func:`~bayesjudge.panels.fit.check_identified`), or when merging judges that agree
        on every item leaves one judge (the error says how to fit it alone).

    Warns
    -----
    UserWarning
        Naming the judges merged because they agree on every item
        (:func:`~bayesjudge.panels.fit.distinct_judges`).

    Examples
    --------
    >>> from bayesjudge.panels.simulate import panel_scenario, simulate_panel
    >>> sim = simulate_panel(pi=0.7, **panel_scenario(3), n_unlabelled=2000, n_gold=200,
    ...                      random_seed=1)
    >>> analysis = analyze_panel(sim.data, progressbar=False)  # doctest: +SKIP
    >>> sorted(analysis.to_dict())  # doctest: +SKIP
    ['best_rule', 'dependence', 'diagnostics', 'estimates', 'judges', 'posterior', ...]
    """
    prob = check_prob(prob)
    if not isinstance(data, PanelData):
        raise TypeError(f"data must be PanelData; got {type(data).__name__}")
    if dependence not in ANALYSIS_DEPENDENCE:
        raise ValueError(
            f"dependence must be one of {list(ANALYSIS_DEPENDENCE)}; got {dependence!r}"
        )
    if pairs is not None and dependence not in ("pairs", "auto"):
        raise ValueError(f"pairs go with dependence 'pairs' or 'auto'; got {dependence!r}")
    merged = data.duplicate_judges()
    data = distinct_judges(data)
    patterns = data.patterns()
    fitted = (
        "none" if dependence == "pairs" else "random_effect" if dependence == "auto" else dependence
    )
    check_identified(patterns, dependence=fitted)  # before any work
    check_choice(spike, name="spike", allowed=SPIKES)
    if spike == "judge":
        if independence == 0:
            raise ValueError("spike='judge' needs independence above 0 (the spike's probability)")
        if fitted != "random_effect":
            raise ValueError(
                f"spike='judge' goes with the random-effect form; got dependence={dependence!r}"
            )
        if patterns.n_judges > MAX_SPIKE_JUDGES:
            raise DataError(
                f"spike='judge' is fitted to at most {MAX_SPIKE_JUDGES} judges; got "
                f"{patterns.n_judges}: use spike='class'"
            )
    with_pairs = dependence == "pairs"
    if dependence == "pairs":
        check_pairs_identified(patterns)
    elif dependence == "auto":
        try:
            check_pairs_identified(patterns)
            with_pairs = True
        except DataError:
            with_pairs = False
    priors = PanelPriors() if priors is None else priors
    check = panel_calibration_check(data)
    estimates = panel_estimates(data, prob=prob)
    if not check.consistent:
        estimates = tuple(
            replace(e, estimate=replace(e.estimate, notes=(*e.estimate.notes, check.note())))
            if e.estimate.method in RANDOM_SAMPLE_METHODS
            else e
            for e in estimates
        )
    settings: dict[str, Any] = {
        "priors": priors,
        "calibration": calibration,
        "draws": draws,
        "tune": tune,
        "chains": chains,
        "target_accept": target_accept,
        "random_seed": random_seed,
        "progressbar": progressbar,
        "sampler": sampler,
        "prob": prob,
    }
    choice = None
    pair_tree = None
    if with_pairs:
        pair_tree = fit_panel(data, dependence="none", pairs=pairs or "auto", **settings)
    if dependence == "pairs" and pair_tree is not None:
        posterior = pair_tree
    else:
        posterior = fit_panel(
            data,
            dependence=fitted,
            independence=independence,
            spike=spike if fitted == "random_effect" else "class",
            **settings,
        )
    if dependence == "auto":
        index = None
        if pair_tree is not None:
            index = np.array(
                [[data.judges.index(a), data.judges.index(b)] for a, b in _pairs_of(pair_tree)]
            )
        choice = choose_dependence(posterior, pair_tree, patterns, pairs=index)
        if choice.chosen == "pairs" and pair_tree is not None:
            posterior = pair_tree
    chosen = "pairs" if "pairs" in posterior.attrs else fitted
    judges = {
        judge: {name: _summary(posterior, name, prob, judge=judge) for name in JUDGE_QUANTITIES}
        for judge in data.judges
    }
    correlation = {
        pair_name(a, b): {
            side: _summary(
                posterior, "error_correlation", prob, **{"class": c, "judge": a, "other_judge": b}
            )
            for side, c in (("positive", "pass"), ("negative", "fail"))
        }
        for a, b in itertools.combinations(data.judges, 2)
    }
    rule_names = [str(r) for r in posterior["posterior"]["rule"].to_numpy()]
    rules = tuple(
        RuleSummary(
            rule,
            *(_summary(posterior, f"rule_{n}", prob, rule=rule) for n in ("se", "sp", "j")),
        )
        for rule in rule_names
    )
    return PanelAnalysis(
        data=data,
        prob=prob,
        seed=seed_label(random_seed),
        posterior=posterior,
        diagnostics=diagnostics_of(posterior),
        attempts=attempts_of(posterior),
        pi=_summary(posterior, "pi", prob),
        judges=judges,
        effective_judges=_summary(posterior, "effective_judges", prob),
        correlation=correlation,
        rules=rules,
        best_rule=str(posterior.attrs["best_rule"]),
        estimates=estimates,
        dependence=chosen,
        calibration=calibration,
        calibration_check=check,
        priors=priors,
        merged_judges=merged,
        pairs=_pairs_of(posterior),
        dependence_choice=choice,
    )


def _pairs_of(tree: xr.DataTree) -> tuple[tuple[str, str], ...]:
    """Return the pair form's pairs of judges recorded on a fit (empty for other forms)."""
    return tuple((str(a), str(b)) for a, b in json.loads(tree.attrs.get("pairs", "[]")))


#: What the reported quantities mean, shown at the top of every report.
DEFINITIONS = (
    ("pi", "the true success rate: the share of items that truly pass (gold label PASS)."),
    ("Se (sensitivity)", "the share of truly PASS items a judge passes."),
    ("Sp (specificity)", "the share of truly FAIL items a judge fails."),
    (
        "J (Youden's J)",
        "Se + Sp - 1: 0 for a judge no better than a coin, 1 for a perfect judge.",
    ),
    (
        "effective number of judges",
        "how many independent judges the panel is worth: J / (1 + (J - 1) rho), with rho the "
        "mean error correlation between judges (Kish, Survey Sampling, 1965); near-copies of "
        "one judge count as about one.",
    ),
    (
        "error correlation",
        "the correlation of two judges' verdicts among items of the same true class: positive "
        "means they tend to err on the same items.",
    ),
)


def warnings_of(analysis: PanelAnalysis) -> list[str]:
    """Return the warnings a reader must see, each with its evidence.

    Examples
    --------
    >>> class A:  # a stand-in with what the function reads
    ...     passed, diagnostics, calibration = True, None, "by_class"
    ...     calibration_check = type("C", (), {"consistent": True})()
    ...     judges, merged_judges = {}, ()
    >>> warnings_of(A())
    []
    """
    out = []
    if not analysis.passed:
        failed = "; ".join(c.describe() for c in analysis.diagnostics.failures[:4])
        out.append(f"The posterior FAILED its diagnostics ({failed}); do not trust it yet.")
    for group in analysis.merged_judges:
        named = " and ".join(group)
        out.append(
            f"Judges {named} gave the same verdict on every item: they are one judge listed "
            f"more than once, fitted once as {group[0]}."
        )
    check = analysis.calibration_check
    if not check.consistent:
        design = (
            "the fit assumed a random gold set (calibration='random'): its pi is biased; refit "
            "with calibration='by_class'"
            if analysis.calibration == "random"
            else "PPI++ assumes a random gold set, so its rows are biased"
        )
        out.append(
            "The gold items do not look like a random sample of all items (PASS-verdict share "
            f"{check.labelled_rate:.3f} against {check.unlabelled_rate:.3f}, p = "
            f"{check.p_value:.2g}): {design}."
        )
    for judge, values in analysis.judges.items():
        if values["j"].eti.high < 0:
            out.append(
                f"Judge {judge} is worse than chance (J = {values['j'].mean:.2f}, interval "
                f"{values['j'].eti.low:.2f} to {values['j'].eti.high:.2f}): its verdicts are "
                "inverted."
            )
    return out


def _headline(analysis: PanelAnalysis) -> tuple[str, str]:
    """Return the corrected pi beside the naive majority-vote rate, and the interval mass."""
    mass = f"{100 * analysis.prob:g}%"
    pi, naive = analysis.pi, analysis.naive
    naive_text = "not available" if naive.estimate is None else f"{naive.estimate:.3f}"
    e = analysis.effective_judges
    data = analysis.data
    n_fail, n_pass = data.n_labelled
    return (
        f"True success rate pi = {pi.mean:.3f} ({mass} interval {pi.eti.low:.3f} to "
        f"{pi.eti.high:.3f}), against a naive majority-vote rate of {naive_text}. "
        f"{data.n_judges} judges on {data.n_items} items ({n_pass} gold-PASS, {n_fail} "
        f"gold-FAIL); they count as {e.mean:.2f} independent judges ({e.eti.low:.2f} to "
        f"{e.eti.high:.2f}). {best_rule_text(analysis)}",
        mass,
    )


def best_rule_text(analysis: PanelAnalysis) -> str:
    """Say which vote rule is best and by which criterion, beside the rule with the largest J.

    The best rule (``best_rule``) is the one whose Rogan-Gladen estimate of pi would be the
    most precise: the smallest posterior mean of its standard deviation (Lee et al., 2025,
    eq. 9). That depends on how well the gold items pin the rule's Se and Sp as well as on its
    J, so the rule with the largest J is named too when it differs.
    """
    sd = analysis.posterior["posterior"]["rule_pi_sd"].mean(("chain", "draw"))
    best = analysis.best_rule
    top = max(analysis.rules, key=lambda r: r.j.mean)
    best_sd, top_sd = float(sd.sel(rule=best)), float(sd.sel(rule=top.rule))
    digits = 3  # more where the two sds compared below would read the same
    while top.rule != best and digits < 6 and f"{best_sd:.{digits}f}" == f"{top_sd:.{digits}f}":
        digits += 1
    text = (
        f"Of the vote rules, {rule_words(best)} gives the most precise Rogan-Gladen estimate "
        f"of pi (the smallest posterior sd, {best_sd:.{digits}f}); this is the rule marked best."
    )
    if top.rule != best:
        chosen = next(r for r in analysis.rules if r.rule == best)
        text += (
            f" {rule_words(top.rule)[0].upper()}{rule_words(top.rule)[1:]} has the largest J "
            f"({top.j.mean:.2f} against {chosen.j.mean:.2f}), but the gold items pin its Se "
            f"and Sp less precisely (sd {top_sd:.{digits}f})."
        )
    return text


def panel_summary(analysis: PanelAnalysis) -> ReportSummary:
    """Return the one-screen summary of a panel analysis (the shared report summary).

    The corrected pi beside the naive majority vote, the diagnostics badge, the definitions,
    which estimate to trust, the warnings of :func:`warnings_of` and the reading (withheld when
    the diagnostics failed).
    """
    pi, naive = analysis.pi, analysis.naive
    headline = Headline(
        "true success rate pi",
        pi.mean,
        pi.eti.low,
        pi.eti.high,
        analysis.prob,
        naive=naive.estimate,
        naive_name="majority vote of the judges (naive)",
    )
    trust = (
        "The panel model: it reads every judge's verdicts and the gold labels together, "
        "estimates how far the judges' errors move together, and carries that into pi. The "
        "majority vote counts correlated judges as independent, each judge alone ignores the "
        "others, and Dawid-Skene uses no gold labels; they are shown below for comparison."
    )
    reading, _ = _headline(analysis)
    return ReportSummary(
        headline,
        diagnostics=analysis.diagnostics,
        definitions=DEFINITIONS,
        trust=trust,
        reading=reading,
        warnings=[_as_warning(text) for text in warnings_of(analysis) if "FAILED" not in text],
        quantities=("pi", "se", "sp", "j"),
    )


def _as_warning(text: str) -> ReportWarning:
    """Turn a :func:`warnings_of` sentence into a summary warning (title: evidence)."""
    title, _, evidence = text.partition(": ")
    if not evidence:
        title, evidence = "Warning", text
    return ReportWarning(title, evidence.rstrip("."))
