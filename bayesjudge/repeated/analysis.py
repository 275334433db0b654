r"""The whole answer of the repeated-samples family: posterior, baselines, checks, reading.

:func:`analyze_repeated` fits :func:`~bayesjudge.repeated.fit.fit_repeated` once and gathers
what the command line, the JSON and the report show: the mean success rate of items like these
(``population_rate``, the headline) and over the observed items (``mean_rate``), pass@k and
pass^k, the share of items never, sometimes and always solved, the judge's Se and Sp, the
diagnostics, and the baselines: clustered ones that count an item's answers (and a cluster's
items) together (:func:`~bayesjudge.repeated.baselines.repeated_baselines`), and, to show what
the clustering changes, the prevalence baselines on the rows read as independent (labelled so).

**How much the repetition widens the interval.** The baselines read every answer as an
independent item: the answers of one item are correlated (an item the system cannot solve fails
on every epoch), so their intervals are too narrow for the mean over items like these. The
analysis reports the ratio of the model's interval width to that of the Rogan-Gladen delta
interval on the rows (Rogan and Gladen, "Estimating prevalence from the results of a screening
test", 1978), ``widening``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import xarray as xr

from bayesjudge.inference.diagnostics import Diagnostics
from bayesjudge.inference.fit import diagnostics_of
from bayesjudge.inference.summary import posterior_summary
from bayesjudge.prevalence import JudgeCounts, baseline_estimates
from bayesjudge.repeated.baselines import repeated_baselines
from bayesjudge.repeated.data import RepeatedData
from bayesjudge.repeated.fit import fit_repeated
from bayesjudge.repeated.priors import RepeatedPriors
from bayesjudge.reporting.summary import Headline, ReportSummary, ReportWarning
from bayesjudge.results import Estimate, PosteriorSummary, estimates_frame
from bayesjudge.validation import DEFAULT_SEED, check_prob, seed_stream

__all__ = ["DEFINITIONS", "RepeatedAnalysis", "analyze_repeated", "rows_counts"]

#: The definition of the calls' correlation, shown when the judge was called several times.
CALLS_DEFINITION = (
    "the correlation of the judge's calls on one answer: 0, each call a fresh verdict; near 1, "
    "one verdict repeated (Se and Sp are per call)"
)
#: Plain definitions shown in the report.
DEFINITIONS: dict[str, str] = {
    "mean success rate": "the average over items of each item's own probability of a correct "
    "answer, for items like these (the headline); the same over the observed items only is the "
    "mean rate over observed items",
    "pass@k": "the share of items on which at least one of k fresh answers is correct",
    "pass^k": "the share of items on which all k fresh answers are correct",
    "never / sometimes / always": "items whose success probability is below 0.1, between, "
    "above 0.9",
    "Se, Sp": "the judge's sensitivity (PASS on a correct answer) and specificity (FAIL on a "
    "wrong one), per answer",
}
#: Prefix of the baselines' method names: they read every answer as an independent item.
ROWS = "rows_as_independent"


def rows_counts(data: RepeatedData) -> JudgeCounts:
    """Return the six counts of the answers read as independent items (the baselines' view)."""
    return JudgeCounts(
        m1=int(data.m1.sum()),
        x1=int(data.x1.sum()),
        m0=int(data.m0.sum()),
        x0=int(data.x0.sum()),
        n=int(data.n.sum()),
        k=int(data.k.sum()),
    )


@dataclass(frozen=True, slots=True, eq=False)
class RepeatedAnalysis:
    """The answer of :func:`analyze_repeated`.

    Attributes
    ----------
    data : dict
        The data's counts (:meth:`RepeatedData.describe`).
    population_rate, mean_rate : PosteriorSummary
        The mean success rate of items like these, and over the observed items.
    pass_at_k, pass_all_k : dict of int to PosteriorSummary
        pass@k and pass^k by k.
    bands : dict of str to PosteriorSummary
        The share of items never, sometimes and always solved.
    se, sp, sigma : PosteriorSummary
        The judge's Se and Sp, the spread of item difficulty on the logit scale.
    rho : PosteriorSummary or None
        With several judge calls per answer: the correlation of the calls on one answer
        (``call_correlation`` in the JSON); None otherwise.
    baselines : list of Estimate
        The clustered baselines of :func:`~bayesjudge.repeated.baselines.repeated_baselines`,
        then the single-row prevalence baselines on the answers read as independent items
        (method names prefixed ``rows_as_independent:``).
    widening : float or None
        Width of the model's interval of ``population_rate`` over that of the Rogan-Gladen
        delta interval on the rows (None when that baseline is not identifiable).
    diagnostics : Diagnostics
        Every check of the fit, the predictive checks included.
    posterior : DataTree
        The fit.
    prob : float
        Interval mass.
    seed : int
        The seed.
    """

    data: dict[str, Any]
    population_rate: PosteriorSummary
    mean_rate: PosteriorSummary
    pass_at_k: dict[int, PosteriorSummary]
    pass_all_k: dict[int, PosteriorSummary]
    bands: dict[str, PosteriorSummary]
    se: PosteriorSummary
    sp: PosteriorSummary
    sigma: PosteriorSummary | None
    baselines: list[Estimate]
    widening: float | None
    diagnostics: Diagnostics
    posterior: xr.DataTree
    prob: float
    seed: int
    priors: RepeatedPriors
    rho: PosteriorSummary | None = None

    @property
    def passed(self) -> bool:
        """Whether every diagnostic check passed (the predictive checks included)."""
        return self.diagnostics.passed

    @property
    def naive_name(self) -> str:
        """What the naive rate is the pass rate of: all answers, or all judge calls."""
        what = "judge calls" if "judge_calls" in self.data else "answers"
        return f"judged pass rate of all {what} (naive)"

    @property
    def naive(self) -> float:
        """The judge's raw pass rate over all answers (over all judge calls, with calls)."""
        answers = self.data.get("judge_calls", self.data["answers"])
        return float(self.data["judge_passes"]) / answers if answers else float("nan")

    def summaries(self) -> list[PosteriorSummary]:
        """Return every reported summary, headline first."""
        out = [self.population_rate, self.mean_rate]
        out += list(self.pass_at_k.values()) + list(self.pass_all_k.values())
        out += [*self.bands.values(), self.se, self.sp]
        if self.sigma is not None:
            out.append(self.sigma)
        if self.rho is not None:
            out.append(self.rho)
        return out

    def to_frame(self) -> pd.DataFrame:
        """Return one row per reported quantity: name, mean, sd, low, high, prob."""
        return pd.DataFrame([{"quantity": s.name, **s.to_dict()} for s in self.summaries()])

    def to_dict(self) -> dict[str, Any]:
        """Return the analysis as plain values (the JSON output)."""
        return {
            "estimand": self.estimand(),
            "data": self.data,
            "population_rate": self.population_rate.to_dict(),
            "mean_rate": self.mean_rate.to_dict(),
            "pass_at_k": {str(k): s.to_dict() for k, s in self.pass_at_k.items()},
            "pass_all_k": {str(k): s.to_dict() for k, s in self.pass_all_k.items()},
            "bands": {name: s.to_dict() for name, s in self.bands.items()},
            "se": self.se.to_dict(),
            "sp": self.sp.to_dict(),
            "sigma": None if self.sigma is None else self.sigma.to_dict(),
            "call_correlation": None if self.rho is None else self.rho.to_dict(),
            "naive": self.naive,
            "baselines": [e.to_dict() for e in self.baselines],
            "widening": self.widening,
            "diagnostics": self.diagnostics.to_dict(),
            "passed": self.passed,
            "priors": self.priors.as_dict(),
            "prob": self.prob,
            "seed": self.seed,
        }

    def estimand(self) -> str:
        """Return the estimand in words.

        E.g. ``mean success rate over 200 items, 5 answers each``.
        """
        per = self.data["answers_per_item"]
        each = (
            f"{per['max']} answers each"
            if per["min"] == per["max"]
            else f"{per['min']} to {per['max']} answers each (median {per['median']:g})"
        )
        calls = self.data.get("calls_per_answer")
        if calls is not None:
            each += (
                f", {calls['max']} judge calls each"
                if calls["min"] == calls["max"]
                else f", {calls['min']} to {calls['max']} judge calls each"
            )
        return f"mean success rate over {self.data['items']} items, {each}"

    def reading(self) -> str:
        """Return the plain-language reading of the answer."""
        p = self.population_rate
        text = (
            f"Items like these are answered correctly {100 * p.mean:.1f}% of the time on "
            f"average ({100 * p.eti.low:.1f}% to {100 * p.eti.high:.1f}%); the judge passed "
            f"{100 * self.naive:.1f}% of the answers."
        )
        never, always = self.bands["never"], self.bands["always"]
        text += (
            f" About {100 * always.mean:.0f}% of the items are always solved and "
            f"{100 * never.mean:.0f}% never."
        )
        if self.widening is not None:
            text += (
                f" Reading the {self.data['answers']} answers as independent items gives an "
                f"interval {self.widening:.2f} times narrower than this one"
                if self.widening >= 1.0
                else f" Reading the {self.data['answers']} answers as independent items gives "
                f"an interval {1 / self.widening:.2f} times wider than this one"
            )
            text += " (Rogan-Gladen delta interval on the rows)."
        return text

    def summary(self) -> ReportSummary:
        """Return the one-screen summary (headline, badge, warnings, reading)."""
        p = self.population_rate
        headline = Headline(
            self.estimand(),
            p.mean,
            p.eti.low,
            p.eti.high,
            self.prob,
            naive=self.naive,
            naive_name=self.naive_name,
        )
        warnings = []
        m1, m0 = self.data["gold_pass"], self.data["gold_fail"]
        if min(m1, m0) < 20:
            warnings.append(
                ReportWarning(
                    "Small calibration set",
                    f"{m1} gold-PASS and {m0} gold-FAIL answers",
                    "Se and Sp are uncertain; label more answers of each class.",
                )
            )
        return ReportSummary(
            headline,
            diagnostics=self.diagnostics,
            definitions=[
                *DEFINITIONS.items(),
                *([("rho", CALLS_DEFINITION)] if self.rho is not None else []),
            ],
            trust=(
                "The repeated-samples model: it gives each item its own success probability, "
                "so the answers of one item count as correlated evidence, and corrects each "
                "answer's verdict for the judge's Se and Sp. The clustered baselines below count "
                "an item's answers together; the rows marked as independent read every answer "
                "as its own item, so their intervals are too narrow for a mean over items."
            ),
            reading=self.reading(),
            warnings=warnings,
            quantities=("population_rate", "mean_rate", "se", "sp"),
        )


def analyze_repeated(
    data: RepeatedData,
    *,
    priors: RepeatedPriors | None = None,
    pass_k: Sequence[int] = (1, 5),
    spread: bool = True,
    use_clusters: bool = True,
    gold_informs_items: bool = False,
    judge_calls: bool | None = None,
    prob: float = 0.95,
    random_seed: int | None = None,
    **sampler: Any,
) -> RepeatedAnalysis:
    r"""Fit the repeated-samples model and gather its answer with baselines and checks.

    The headline is the mean success rate of items like these,
    :math:`E[\mathrm{logit}^{-1}(\mu + \sigma z)]`, beside the mean over the observed items
    :math:`\bar p`, pass@k, pass^k and the never/sometimes/always shares (see
    :mod:`bayesjudge.models.repeated`).

    Parameters
    ----------
    data : RepeatedData
        The answers.
    priors, pass_k, spread, use_clusters, gold_informs_items, judge_calls
        As in :func:`~bayesjudge.repeated.fit.fit_repeated`. With several judge calls per
        answer the baselines read the calls as rows clustered by item (or ``cluster``), which
        keeps their intervals valid: a call passes with probability
        :math:`\pi\mathrm{Se} + (1 - \pi)(1 - \mathrm{Sp})`, Se and Sp per call.
    prob : float, default 0.95
        Interval mass.
    random_seed : int, optional
        Seed (None: :data:`bayesjudge.validation.DEFAULT_SEED`).
    **sampler
        ``draws``, ``tune``, ``chains``, ``target_accept``, ``sampler``, ``progressbar``,
        passed to :func:`~bayesjudge.repeated.fit.fit_repeated`.

    Returns
    -------
    RepeatedAnalysis

    Examples
    --------
    >>> from bayesjudge.repeated import RepeatedData, simulate_repeated
    >>> sim = simulate_repeated(40, 3, gold_answers=40, random_seed=2)
    >>> result = analyze_repeated(RepeatedData.from_frame(sim.frame), draws=500,
    ...                           random_seed=1, progressbar=False)
    >>> result.estimand()
    'mean success rate over 40 items, 3 answers each'
    """
    prob = check_prob(prob)
    seed = DEFAULT_SEED if random_seed is None else int(random_seed)
    priors = RepeatedPriors() if priors is None else priors
    tree = fit_repeated(
        data,
        priors=priors,
        pass_k=pass_k,
        spread=spread,
        use_clusters=use_clusters,
        gold_informs_items=gold_informs_items,
        judge_calls=judge_calls,
        random_seed=seed,
        prob=prob,
        **sampler,
    )
    post = tree["posterior"].to_dataset()
    ks = [int(k) for k in post["pass_k"].values]

    def summary(name: str, **coords: Any) -> PosteriorSummary:
        return posterior_summary(post, name, prob=prob, coords=coords or None)

    resample = seed_stream(seed, "resample")
    cluster = None if data.cluster_index is None else data.cluster_index[data.answer_item]
    baselines = repeated_baselines(
        data.answer_verdict,
        data.answer_label,
        data.answer_item,
        cluster,
        prob=prob,
        random_seed=resample,
    )
    for row in baseline_estimates(rows_counts(data), prob=prob, random_seed=resample):
        baselines.append(
            Estimate(
                f"{ROWS}:{row.method}",
                row.estimate,
                row.interval,
                row.se,
                row.j,
                row.unclipped,
                (
                    *row.notes,
                    "every judge call read as an independent item"
                    if data.has_calls
                    else "every answer read as an independent item",
                ),
            )
        )
    population = summary("population_rate")
    widening = None
    delta = next((b for b in baselines if b.method == f"{ROWS}:rogan_gladen_delta"), None)
    if delta is not None and delta.interval is not None:
        width = delta.interval.high - delta.interval.low
        if width > 0:
            widening = (population.eti.high - population.eti.low) / width
    described = data.describe()
    described["judge_passes"] = int(data.answer_verdict.sum())
    return RepeatedAnalysis(
        data=described,
        population_rate=population,
        mean_rate=summary("mean_rate"),
        pass_at_k={k: summary("pass_at_k", pass_k=k) for k in ks},
        pass_all_k={k: summary("pass_all_k", pass_k=k) for k in ks},
        bands={band: summary("band_share", band=band) for band in post["band"].values.tolist()},
        se=summary("se"),
        sp=summary("sp"),
        sigma=summary("sigma") if "sigma" in post else None,
        baselines=baselines,
        widening=widening,
        diagnostics=diagnostics_of(tree),
        posterior=tree,
        prob=prob,
        seed=seed,
        priors=priors,
        rho=summary("rho") if "rho" in post else None,
    )


def baselines_frame(analysis: RepeatedAnalysis) -> pd.DataFrame:
    """Return the baselines as a table (one row per estimate)."""
    return estimates_frame(analysis.baselines)
