"""The prevalence family's answer, assembled once: posterior, diagnostics, baselines, checks.

:func:`analyze_prevalence` fits the model (or computes the exact posterior), runs every
frequentist baseline on the same data, checks whether the gold set looks like a random sample
of the test items, and returns one :class:`PrevalenceAnalysis`. The command line and the report
only render it: :meth:`PrevalenceAnalysis.to_dict` is the JSON of ``bayesjudge estimate``,
:meth:`PrevalenceAnalysis.to_frame` the table of every estimate.

:func:`compare` puts an existing posterior beside the baselines in one table. The Bayesian
answer enters as rows with the columns of every other estimate
(:data:`bayesjudge.results.ROW_COLUMNS`): ``bayes_eti`` (posterior median with the equal-tailed
interval), ``bayes_hdi`` (posterior mean with the highest-density interval) and, when the
exact posterior is given, ``bayes_exact``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np

from bayesjudge.estimators.design import RandomCalibrationCheck, random_calibration_test
from bayesjudge.inference.provenance import provenance
from bayesjudge.prevalence.baselines import RANDOM_SAMPLE_METHODS, baseline_estimates
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.priors import PrevalencePriors
from bayesjudge.reporting.pipeline import Shown
from bayesjudge.reporting.summary import (
    DEFINITIONS,
    WIDE_INTERVAL,
    Headline,
    ReportSummary,
    ReportWarning,
    label_shift_warning,
    method_name,
    random_sample_baselines_warning,
    small_calibration_warning,
    weak_judge_warning,
    wide_interval_warning,
)
from bayesjudge.results import (
    Estimate,
    EstimatesFrame,
    PosteriorSummary,
    estimates_frame,
    unchecked_diagnostics,
)
from bayesjudge.validation import check_choice, check_prob

if TYPE_CHECKING:
    import xarray as xr

    from bayesjudge.inference.diagnostics import Diagnostics
    from bayesjudge.inference.fit import Attempt, Draws
    from bayesjudge.inference.sampling import Sampler
    from bayesjudge.prevalence.exact import ExactPosterior
    from bayesjudge.prevalence.plan import LabelPlan
    from bayesjudge.prevalence.thresholds import ThresholdAnalysis

# Each method imports only what it needs: the baselines need neither xarray nor the exact
# posterior, and method="exact" never imports the sampling stack (PyMC, PyTensor, nutpie).

__all__ = [
    "Method",
    "PrevalenceAnalysis",
    "analyze_prevalence",
    "calibration_check",
    "compare",
    "comparison_estimates",
]

Method = Literal["nuts", "exact"]
#: Posterior quantities reported by ``bayesjudge estimate``.
SUMMARISED = ("pi", "se", "sp", "j")


def calibration_check(data: JudgeData | JudgeCounts) -> RandomCalibrationCheck:
    """Check whether the judge passes gold and test items at the same rate (random gold set).

    See :func:`bayesjudge.estimators.design.random_calibration_test`; for counts the passes
    are ``x1 + x0`` of ``m`` gold items and ``k`` of ``n`` test items.

    Examples
    --------
    >>> from bayesjudge import JudgeData
    >>> calibration_check(JudgeData.from_counts(150, 135, 150, 22, 2000, 1340)).consistent
    False
    """
    if isinstance(data, JudgeCounts):
        return random_calibration_test(
            passed_labelled=float(data.x1 + data.x0),
            n_labelled=data.m,
            passed_unlabelled=float(data.k),
            n_unlabelled=data.n,
        )
    return random_calibration_test(
        passed_labelled=float(np.sum(data.cal_judge)),
        n_labelled=data.m,
        passed_unlabelled=float(np.sum(data.test_judge)),
        n_unlabelled=data.n,
    )


def flag_random_sample_estimators(
    estimates: list[Estimate], check: RandomCalibrationCheck
) -> list[Estimate]:
    """Attach the check's note to estimators that assume a random gold sample, if it failed."""
    if check.consistent:
        return estimates
    return [
        replace(e, notes=(*e.notes, check.note())) if e.method in RANDOM_SAMPLE_METHODS else e
        for e in estimates
    ]


def _bayes_rows(posterior: xr.DataTree, prob: float) -> list[Estimate]:
    from bayesjudge.inference.summary import posterior_summary

    pi = posterior_summary(posterior, "pi", prob=prob)
    draws = posterior["posterior"]
    j_mean = float(draws["j"].mean()) if "j" in draws and draws["j"].ndim == 2 else None
    assert pi.hdi is not None
    return [
        Estimate("bayes_eti", pi.median, pi.eti, se=pi.sd, j=j_mean, notes=("posterior median",)),
        Estimate("bayes_hdi", pi.mean, pi.hdi, se=pi.sd, j=j_mean, notes=("posterior mean",)),
    ]


def comparison_estimates(
    posterior: xr.DataTree,
    data: JudgeData,
    *,
    prob: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
    n_boot: int = 2000,
    exact: ExactPosterior | None = None,
) -> list[Estimate]:
    """Return the Bayesian and frequentist estimates of pi as a list, Bayesian rows first.

    See :func:`compare` for the parameters; this is the same content before it becomes a table.
    """
    rows = _bayes_rows(posterior, prob)
    if exact is not None:
        rows.append(exact.to_estimate(prob=prob))
    baselines = baseline_estimates(data, prob=prob, random_seed=random_seed, n_boot=n_boot)
    return rows + flag_random_sample_estimators(baselines, calibration_check(data))


def compare(
    posterior: xr.DataTree,
    data: JudgeData,
    *,
    prob: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
    n_boot: int = 2000,
    exact: ExactPosterior | None = None,
) -> EstimatesFrame:
    """Return the posterior of pi beside every frequentist baseline, in one DataFrame.

    Parameters
    ----------
    posterior : DataTree
        A fit of the prevalence model (:func:`bayesjudge.fit_prevalence`).
    data : JudgeData
        The data it was fitted to; the baselines are computed from them.
    prob : float
        Mass of every interval in the table.
    random_seed : int, Generator or None
        Seed of the bootstrap baseline (None: the default seed).
    n_boot : int
        Bootstrap resamples.
    exact : ExactPosterior, optional
        The numerical-integration posterior (:func:`bayesjudge.exact_posterior`) for the
        same data and priors; adds a ``bayes_exact`` row.

    Returns
    -------
    EstimatesFrame
        A DataFrame that prints readably in a terminal (rounded, notes below the table), one
        row per method with the columns of :data:`bayesjudge.results.ROW_COLUMNS`: rows
        ``bayes_eti`` (posterior median, equal-tailed interval), ``bayes_hdi`` (posterior mean,
        highest-density interval), optionally ``bayes_exact``, then the baselines. Baselines
        that assume a random gold sample carry a note when the data say it was not one.
    """
    return estimates_frame(
        comparison_estimates(
            posterior, data, prob=prob, random_seed=random_seed, n_boot=n_boot, exact=exact
        )
    )


@dataclass(frozen=True, slots=True, eq=False)
class PrevalenceAnalysis(Shown):
    """Everything the prevalence family reports about one dataset.

    Attributes
    ----------
    data : JudgeData or JudgeCounts
        The data analysed (binary verdicts; scores were thresholded, see ``thresholds``), or
        their six counts (e.g. streamed from a large file).
    method : {"nuts", "exact"}
        Whether the posterior was sampled by NUTS or computed by quadrature.
    summaries : dict of str to PosteriorSummary
        Posterior summaries of ``pi`` and, for the unstratified model, ``se``, ``sp``, ``j``
        (per-stratum ones, named like ``se[short]``, for the stratified model).
    estimates : tuple of Estimate
        The Bayesian rows (``bayes_eti``, ``bayes_hdi``, ``bayes_exact`` where computed)
        followed by every baseline.
    calibration : RandomCalibrationCheck
        Whether the gold set looks like a random sample of the test items.
    prob : float
        Mass of every interval.
    seed : int or str
        The seed (the default one when none was given).
    posterior : DataTree or None
        The NUTS fit (None for the exact method).
    exact : ExactPosterior or None
        The exact posterior, where computed (unstratified models).
    diagnostics : Diagnostics or None
        The checks of the NUTS fit (None for the exact method, which needs none).
    attempts : tuple of Attempt
        The sampler runs (two when the first failed and was retried).
    priors : PrevalencePriors
        The priors.
    stratified : bool
        Whether the stratified model was fitted.
    thresholds : ThresholdAnalysis or None
        For judge scores given without a threshold: the posterior ROC and the threshold chosen
        (the narrowest interval of pi), which made the verdicts analysed.
    plan : LabelPlan or None
        How many more gold labels narrow the interval of pi (:func:`bayesjudge.plan_labels`),
        when asked for with ``plan=True``.
    """

    data: JudgeData | JudgeCounts
    method: Method
    summaries: dict[str, PosteriorSummary]
    estimates: tuple[Estimate, ...]
    calibration: RandomCalibrationCheck
    prob: float
    seed: int | str
    posterior: xr.DataTree | None = None
    exact: ExactPosterior | None = None
    diagnostics: Diagnostics | None = None
    attempts: tuple[Attempt, ...] = ()
    priors: PrevalencePriors = field(default_factory=PrevalencePriors)
    stratified: bool = False
    thresholds: ThresholdAnalysis | None = None
    plan: LabelPlan | None = None

    @property
    def passed(self) -> bool:
        """Whether the posterior passed its diagnostics (always true for the exact method)."""
        return self.diagnostics is None or self.diagnostics.passed

    def summary(self) -> ReportSummary:
        """Return the one-screen summary (:func:`report_summary`)."""
        return report_summary(self)

    def baselines(self) -> tuple[Estimate, ...]:
        """Return the frequentist estimates only (every row but the Bayesian ones)."""
        return tuple(e for e in self.estimates if not e.method.startswith("bayes_"))

    def to_frame(self) -> EstimatesFrame:
        """Return every estimate of pi (Bayesian rows first) as one table."""
        return estimates_frame(list(self.estimates))

    def diagnostics_dict(self) -> dict[str, Any]:
        """Return the ``diagnostics`` block of the JSON output."""
        if self.diagnostics is None:
            return unchecked_diagnostics("exact")
        return self.diagnostics.json_block(method="nuts", attempts=self.attempts)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object of ``bayesjudge estimate --json``.

        ``{"posterior": {NAME: S}, "diagnostics": {...}, "estimates": [row, ...],
        "calibration_check": {...}, "counts": {...}, "provenance": {...}}`` with
        ``S = {"mean", "sd", "low", "high", "prob"}`` (equal-tailed interval), one row
        ``{"method", "estimate", "low", "high", "prob", "note"}`` per frequentist baseline, and
        the six counts (binary verdicts). Data read from a file add ``"input"`` (what was read:
        :meth:`bayesjudge.io.InputReport.to_dict`); judge scores thresholded here add
        ``"thresholds"`` (:meth:`ThresholdAnalysis.to_dict`).
        """
        out: dict[str, Any] = {
            "posterior": {name: s.to_dict() for name, s in self.summaries.items()},
            "diagnostics": self.diagnostics_dict(),
            "estimates": [e.to_dict() for e in self.baselines()],
            "calibration_check": self.calibration.to_dict(),
            "counts": self.counts.as_dict(),
        }
        if self.data.origin is not None:
            out["input"] = self.data.origin.to_dict()
        if self.thresholds is not None:
            out["thresholds"] = self.thresholds.to_dict()
        out["provenance"] = provenance(self.seed, method=self.method, priors=self.priors)
        return out

    @property
    def counts(self) -> JudgeCounts:
        """The six counts of the data analysed."""
        return self.data if isinstance(self.data, JudgeCounts) else self.data.counts


def analyze_prevalence(
    data: JudgeData | JudgeCounts,
    *,
    method: Method = "nuts",
    priors: PrevalencePriors | None = None,
    stratified: bool = False,
    prob: float = 0.95,
    draws: Draws = 2000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | None = None,
    n_boot: int = 2000,
    sampler: Sampler = "auto",
    progressbar: bool | None = None,
    exact: bool = True,
    plan: bool = False,
) -> PrevalenceAnalysis:
    """Fit, check and compare: the whole answer of the prevalence family for one dataset.

    Parameters
    ----------
    data : JudgeData or JudgeCounts
        Validated judge data, or the six counts of a binary judge (the unstratified model and
        every baseline need only these). Judge scores given without a threshold are turned
        into verdicts at the threshold :func:`~bayesjudge.prevalence.thresholds.threshold_analysis`
        recommends (the narrowest interval of pi), recorded in ``thresholds``.
    method : {"nuts", "exact"}
        ``"nuts"`` samples the PyMC model (:func:`bayesjudge.fit_prevalence`); ``"exact"``
        computes the posterior by quadrature (:func:`bayesjudge.exact_posterior`) without
        importing PyMC (unstratified model only).
    priors : PrevalencePriors, optional
        Beta priors of pi, Se and Sp (Jeffreys by default).
    stratified : bool
        Fit the stratified model (NUTS only).
    prob : float
        Mass of every interval.
    draws, tune, chains, target_accept, sampler, progressbar
        NUTS settings (see :func:`bayesjudge.fit_prevalence`).
    random_seed : int, optional
        Seed of the sampler and the bootstrap (None: the default seed).
    n_boot : int
        Bootstrap resamples of the Rogan-Gladen baseline.
    exact : bool, default True
        With NUTS, also compute the exact posterior (a ``bayes_exact`` row) when unstratified.
    plan : bool, default False
        Also plan how many more gold labels narrow the interval of pi
        (:func:`bayesjudge.prevalence.plan.plan_labels` with its defaults and the same priors,
        ``prob`` and seed; strata pooled): the curve the report draws. A few seconds.

    Returns
    -------
    PrevalenceAnalysis

    Examples
    --------
    >>> from bayesjudge import JudgeData
    >>> data = JudgeData.from_counts(m1=100, x1=90, m0=100, x0=15, n=1000, k=700)
    >>> analysis = analyze_prevalence(data, method="exact")
    >>> round(analysis.summaries["pi"].mean, 2)
    0.74
    """
    from bayesjudge.inference.provenance import seed_label
    from bayesjudge.prevalence.exact import MIN_PI_SHAPE, exact_posterior

    check_choice(method, name="method", allowed=get_args(Method))
    prob = check_prob(prob)
    priors = PrevalencePriors() if priors is None else priors
    if method == "exact" and stratified:
        raise ValueError("method='exact' covers the unstratified model only; use method='nuts'")
    if stratified and isinstance(data, JudgeCounts):
        raise ValueError("stratified=True needs judge data with strata, not the six counts")
    if isinstance(data, JudgeCounts):
        data = data.checked()
    thresholds = None
    if isinstance(data, JudgeData) and data.kind == "score":
        from bayesjudge.prevalence.thresholds import threshold_analysis

        thresholds = threshold_analysis(data, prob=prob, priors=priors)
        data = data.thresholded(thresholds.chosen)
    check = calibration_check(data)
    baselines = flag_random_sample_estimators(
        baseline_estimates(data, prob=prob, random_seed=random_seed, n_boot=n_boot), check
    )
    seed = seed_label(random_seed)
    label_plan = None
    exact_ok = min(priors.pi.alpha, priors.pi.beta) >= MIN_PI_SHAPE
    if method == "nuts" and not exact_ok and (plan or exact):
        warnings.warn(
            f"the label plan and the exact reference row need a prior on pi with both shapes at "
            f"least {MIN_PI_SHAPE} (got pi ~ {priors.pi}); they are left out",
            UserWarning,
            stacklevel=2,
        )
        plan = exact = False
    # the exact posterior, computed once: the reference row of a sampled fit or the answer of
    # method="exact", and the plan's current width too
    reference = (
        exact_posterior(data, priors=priors)
        if method == "exact" or (method == "nuts" and exact and not stratified)
        else None
    )
    if plan:
        from bayesjudge.prevalence.plan import plan_labels

        label_plan = plan_labels(
            data, prob=prob, priors=priors, random_seed=random_seed, current=reference
        )
    if method == "exact":
        assert reference is not None
        posterior_exact = reference
        summaries = posterior_exact.summaries(prob=prob)
        rows = [posterior_exact.to_estimate(prob=prob)]
        return PrevalenceAnalysis(
            data=data,
            method="exact",
            summaries=summaries,
            estimates=tuple(rows + baselines),
            calibration=check,
            prob=prob,
            seed=seed,
            exact=posterior_exact,
            priors=priors,
            thresholds=thresholds,
            plan=label_plan,
        )
    from bayesjudge.inference.fit import attempts_of, diagnostics_of
    from bayesjudge.prevalence.fit import fit_prevalence

    posterior = fit_prevalence(
        data,
        priors=priors,
        stratified=stratified,
        draws=draws,
        tune=tune,
        chains=chains,
        target_accept=target_accept,
        random_seed=random_seed,
        progressbar=progressbar,
        sampler=sampler,
        prob=prob,
    )
    rows = _bayes_rows(posterior, prob)
    if reference is not None:
        rows.append(reference.to_estimate(prob=prob))
    return PrevalenceAnalysis(
        data=data,
        method="nuts",
        summaries=_summaries(posterior, prob=prob, stratified=stratified),
        estimates=tuple(rows + baselines),
        calibration=check,
        prob=prob,
        seed=seed,
        posterior=posterior,
        exact=reference,
        diagnostics=diagnostics_of(posterior),
        attempts=attempts_of(posterior),
        priors=priors,
        stratified=stratified,
        thresholds=thresholds,
        plan=label_plan,
    )


def _summaries(
    posterior: xr.DataTree, *, prob: float, stratified: bool
) -> dict[str, PosteriorSummary]:
    from bayesjudge.inference.summary import posterior_summary

    out = {"pi": posterior_summary(posterior, "pi", prob=prob)}
    if not stratified:
        out.update({name: posterior_summary(posterior, name, prob=prob) for name in SUMMARISED[1:]})
        return out
    strata = posterior["posterior"]["stratum"].to_numpy().tolist()
    for name in ("pi_stratum", "se", "sp", "j"):
        for stratum in strata:
            summary = posterior_summary(posterior, name, prob=prob, coords={"stratum": stratum})
            label = f"{'pi' if name == 'pi_stratum' else name}[{stratum}]"
            out[label] = replace(summary, name=label)
    return out


#: Readable names of the prevalence model's variables (diagnostics).
NAMES = {
    "se_gap": "share of the sensitivity above the judged rate (sampling parameter)",
    "fpr_share": "false-positive rate as a share of the judged rate (sampling parameter)",
    "judged_rate": "judge's pass rate on test items",
    "pi_stratum": "true success rate in stratum",
    "bias": "judge bias R - pi",
}


#: Gold items per class below which the summary warns of a small calibration set.
SMALL_CLASS = 30


#: Posterior quantities that get a diagnostics line of their own.
REPORTED = ("pi", "pi_stratum", "se", "sp", "j")


def plain_reading(analysis: PrevalenceAnalysis) -> str:
    """Return a short plain-language reading of a prevalence analysis.

    It states the judged pass rate, the posterior of the true success rate, how many points
    the judge inflates (or deflates) the rate by, with the interval of that gap, and how
    informative the judge is (J). When the interval of pi is wider than
    :data:`~bayesjudge.reporting.summary.WIDE_INTERVAL`, the gap is not quoted as a number.
    """
    data, prob = analysis.data, analysis.prob
    pi = analysis.summaries["pi"]
    j = analysis.summaries.get("j")
    judged = analysis.counts.p_hat
    gap = 100.0 * (judged - pi.mean)
    gap_low, gap_high = 100.0 * (judged - pi.eti.high), 100.0 * (judged - pi.eti.low)
    mass = f"{100 * prob:g}%"
    lines = [
        f"The judge passes {100 * judged:.1f}% of the {data.n} unlabelled items. Corrected with "
        f"{data.m} gold-labelled items, the true success rate is {100 * pi.mean:.1f}% "
        f"({mass} credible interval {100 * pi.eti.low:.1f}% to {100 * pi.eti.high:.1f}%).",
    ]
    if pi.eti.width > WIDE_INTERVAL:
        lines.append(
            "That interval is too wide to say by how much the judge inflates or deflates the "
            "pass rate."
        )
    elif gap_low <= 0.0 <= gap_high:
        lines.append(
            f"The judged rate lies inside that interval: the data do not show the judge "
            f"inflating or deflating the pass rate (gap {gap:+.1f} points, {mass} interval "
            f"{gap_low:+.1f} to {gap_high:+.1f})."
        )
    else:
        direction = "inflates" if gap > 0 else "deflates"
        lines.append(
            f"The judge {direction} the pass rate by about {abs(gap):.1f} percentage points "
            f"({mass} interval {abs(gap_low if gap > 0 else gap_high):.1f} to "
            f"{abs(gap_high if gap > 0 else gap_low):.1f})."
        )
    if j is None:
        return " ".join(lines)
    if j.mean >= 0.8:
        quality = "a strong judge"
    elif j.mean >= 0.5:
        quality = "a useful but imperfect judge"
    elif j.mean >= 0.2:
        quality = "a weak judge: the correction is large and the interval wide"
    else:
        quality = "a judge close to chance: its verdicts say little about the truth"
    lines.append(
        f"Youden's J = Se + Sp - 1 is {j.mean:.2f} ({mass} interval {j.eti.low:.2f} to "
        f"{j.eti.high:.2f}): {quality}."
    )
    return " ".join(lines)


def _estimate_of(analysis: PrevalenceAnalysis, method: str) -> float | None:
    for e in analysis.estimates:
        if e.method == method:
            return e.estimate
    return None


def _trust(analysis: PrevalenceAnalysis) -> str:
    pi = analysis.summaries["pi"]
    text = (
        "The Bayesian posterior (first rows of the table): it uses every count, needs only "
        "that the judge's error rates P(verdict | truth) are the same on gold and test items, "
        "restricts the judge to better than chance (J > 0), and keeps its interval honest and "
        "inside [0, 1] when the calibration set is small."
    )
    rg = _estimate_of(analysis, "rogan_gladen_lang_reiczigel")
    rg_text = "" if rg is None else f" Rogan-Gladen, which needs the same, gives {rg:.3f}."
    if not analysis.calibration.consistent:
        shown = [m for m in RANDOM_SAMPLE_METHODS if _estimate_of(analysis, m) is not None]
        return (
            text + f" Here the gold set is not a random sample of the test items, so "
            f"{', '.join(method_name(m) for m in shown)} (which assume one) are biased and are "
            f"not to be trusted; the posterior mean is {pi.mean:.3f}.{rg_text}"
        )
    counts = analysis.counts
    if min(counts.m1, counts.m0) < SMALL_CLASS:
        return (
            text
            + f" With {counts.m1} gold-PASS and {counts.m0} gold-FAIL items, the check that the "
            "gold set is a random sample has little power and no estimator is precise; the "
            "posterior's interval says how little is known, and the frequentist intervals, "
            "built on large-sample approximations, understate it."
        )
    ppi = _estimate_of(analysis, "ppi_plus_plus")
    ppi_text = "" if ppi is None else f" (here {ppi:.3f} against the posterior mean {pi.mean:.3f})"
    return (
        text + " The gold set looks like a random sample of the test items, so PPI++ "
        "(Angelopoulos, Duchi and Zrnic 2023, PPI++: Efficient prediction-powered inference) "
        f"is valid too and should agree{ppi_text}.{rg_text}"
    )


def _weak_judge(analysis: PrevalenceAnalysis) -> ReportWarning | None:
    j = analysis.summaries.get("j")
    if j is not None:
        return weak_judge_warning(j=j.mean, low=j.eti.low, high=j.eti.high, prob=analysis.prob)
    if analysis.exact is not None:  # the exact method summarises pi only; J's mean is known
        return weak_judge_warning(
            j=float(np.asarray(analysis.exact.summary().loc[["j"], "mean"])[0])
        )
    return None


def report_summary(analysis: PrevalenceAnalysis) -> ReportSummary:
    """Return the one-screen summary of a prevalence analysis.

    A :class:`bayesjudge.reporting.summary.ReportSummary`: the corrected rate beside the judged
    one, the diagnostics badge, the warnings with their evidence, the reading and definitions.

    Examples
    --------
    >>> import bayesjudge as bj
    >>> data = bj.JudgeData.from_counts(m1=3, x1=2, m0=2, x0=1, n=40, k=25)
    >>> summary = report_summary(bj.analyze_prevalence(data, method="exact"))
    >>> [w.title for w in summary.active_warnings]
    ['Small calibration set', 'Interval too wide for a reading']
    """
    pi, prob, counts = analysis.summaries["pi"], analysis.prob, analysis.counts
    check = analysis.calibration
    warnings = [
        small_calibration_warning(n_pass=counts.m1, n_fail=counts.m0, minimum=SMALL_CLASS),
        _weak_judge(analysis),
        label_shift_warning(check),
        random_sample_baselines_warning(
            consistent=check.consistent,
            baselines={m: _estimate_of(analysis, m) for m in RANDOM_SAMPLE_METHODS},
            reference=pi.mean,
            reference_name="the posterior mean",
        ),
        wide_interval_warning(
            low=pi.eti.low, high=pi.eti.high, prob=prob, name="the true success rate pi"
        ),
    ]
    return ReportSummary(
        headline=Headline(
            "true success rate pi",
            pi.mean,
            pi.eti.low,
            pi.eti.high,
            prob,
            naive=counts.p_hat,
            naive_name="judged pass rate (naive)",
        ),
        diagnostics=analysis.diagnostics,
        definitions=DEFINITIONS.items(),
        trust=_trust(analysis),
        reading=plain_reading(analysis),
        warnings=warnings,
        names=NAMES,
        quantities=REPORTED,
    )
