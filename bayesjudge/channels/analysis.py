"""The channel family's answer, assembled once: steps, composition, Markov check, slices.

:func:`analyze_channel` runs the audit of a stack of pipeline steps and returns one
:class:`ChannelAnalysis`; ``bayesjudge channel`` and its report only render it
(:meth:`ChannelAnalysis.to_dict` is the command's JSON).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayesjudge.channels.data import PairedOutcomes
from bayesjudge.channels.fit import DRAWS, fit_slices
from bayesjudge.channels.posterior import (
    MarkovCheck,
    SliceSummary,
    StepSummary,
    composition_posterior,
    exact_draws_tree,
    markov_check,
    mixture_summary,
    outcome_array,
    slice_summaries,
    step_summaries,
)
from bayesjudge.errors import DataError
from bayesjudge.inference.diagnostics import Diagnostics, check_fit
from bayesjudge.inference.fit import diagnostics_of
from bayesjudge.inference.provenance import seed_label
from bayesjudge.inference.summary import posterior_summary
from bayesjudge.priors import ChannelPriors
from bayesjudge.reporting.pipeline import Shown
from bayesjudge.reporting.summary import (
    Headline,
    ReportSummary,
    ReportWarning,
    wide_interval_warning,
)
from bayesjudge.results import PosteriorSummary
from bayesjudge.validation import check_int, check_prob, seed_stream

__all__ = [
    "ChannelAnalysis",
    "Composition",
    "SliceAnalysis",
    "analyze_channel",
]


@dataclass(frozen=True, slots=True)
class Composition:
    """The composition of a stack of two or more steps: gap posterior and Markov check.

    Attributes
    ----------
    posterior : DataTree
        Exact draws of the kernels, their product, the direct kernel and the gaps.
    gap_max, gap_mean : PosteriorSummary
        Summaries of the largest and the mean absolute gap between the direct and the composed
        kernel.
    markov : MarkovCheck
        Whether each stage depends on the history only through the stage before it.
    """

    posterior: xr.DataTree
    gap_max: PosteriorSummary
    gap_mean: PosteriorSummary
    markov: MarkovCheck

    def to_dict(self) -> dict[str, Any]:
        """Return the ``composition`` block of ``bayesjudge channel --json``."""
        return {
            "gap_max": self.gap_max.to_dict(),
            "gap_mean": self.gap_mean.to_dict(),
            "markov_check": self.markov.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class SliceAnalysis:
    """The slice hierarchy of the first step: the NUTS fit and what was asked of it.

    Attributes
    ----------
    fit : DataTree
        :func:`bayesjudge.channels.fit.fit_slices` of step ``e0 -> e1``.
    by_slice : tuple of SliceSummary
        Per-slice summaries (empty unless asked for).
    mixture : dict or None
        :func:`bayesjudge.channels.posterior.mixture_summary` when a target mixture was given.
    """

    fit: xr.DataTree
    by_slice: tuple[SliceSummary, ...]
    mixture: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class ChannelAnalysis(Shown):
    """Everything ``bayesjudge channel`` reports about a stack of protocol steps.

    Attributes
    ----------
    stages : tuple of str
        Stage names.
    prob : float
        Interval mass.
    steps : tuple of StepSummary
        Exact per-step posteriors and gates.
    exact : DataTree
        Exact independent draws of every step's c and gamma.
    composition : Composition or None
        For stacks of two or more steps.
    slices : SliceAnalysis or None
        When slices or a mixture were asked for.
    diagnostics : Diagnostics
        The checks of the exact draws and, when fitted, of the slice hierarchy.
    method : str
        What the diagnostics cover.
    seed : int or str
        The seed (the default one when none was given).
    """

    stages: tuple[str, ...]
    prob: float
    steps: tuple[StepSummary, ...]
    exact: xr.DataTree
    composition: Composition | None
    slices: SliceAnalysis | None
    diagnostics: Diagnostics
    method: str
    seed: int | str = "not recorded"

    @property
    def passed(self) -> bool:
        """Whether every diagnostic passed."""
        return self.diagnostics.passed

    def summary(self) -> ReportSummary:
        """Return the one-screen summary (:func:`channel_summary`)."""
        return channel_summary(self)

    def to_frame(self) -> pd.DataFrame:
        """Return one row per step (:func:`steps_frame`)."""
        return steps_frame(self)

    def diagnostics_dict(self) -> dict[str, Any]:
        """Return the ``diagnostics`` block of the JSON output.

        Its ``predictive_check`` (the key every family's block has) is None: no channel fit has
        a count its model restricts. The steps' rates and the stack model are saturated (a
        rate for every count), the slice hierarchy gives each slice its own rates (partially
        pooled), so each reproduces any counts; the one testable restriction, the Markov
        condition, is assumed by no reported number and is reported as a finding in
        ``composition.markov_check`` (:mod:`bayesjudge.channels.fit`).
        """
        return {**self.diagnostics.json_block(method=self.method), "predictive_check": None}

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object of ``bayesjudge channel --json``."""
        slices = self.slices
        return {
            "steps": [s.to_dict() for s in self.steps],
            "composition": None if self.composition is None else self.composition.to_dict(),
            "by_slice": (
                [s.to_dict() for s in slices.by_slice]
                if slices is not None and slices.by_slice
                else None
            ),
            "mixture_prediction": None if slices is None else slices.mixture,
            "diagnostics": self.diagnostics_dict(),
        }


def analyze_channel(
    data: PairedOutcomes,
    *,
    prob: float = 0.95,
    threshold: float = 0.0,
    by_slice: bool = False,
    mixture: Mapping[str, float] | None = None,
    level: float = 0.05,
    priors: ChannelPriors | None = None,
    draws: int = DRAWS,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool | None = False,
) -> ChannelAnalysis:
    """Run the full channel audit of a stack: steps, composition, Markov check, slices, mixture.

    Steps, the composition gap and the Markov check use the exact conjugate posteriors
    (``draws * chains`` independent draws, at least 400); the slice hierarchy (first step,
    ``e0 -> e1``) is fitted by NUTS when ``by_slice`` is set or a ``mixture`` is given.

    Parameters
    ----------
    data : PairedOutcomes
        The outcomes; a slice column is needed for ``by_slice`` and ``mixture``.
    prob : float
        Interval mass.
    threshold : float
        Cost threshold of the gain rule.
    by_slice : bool
        Fit the slice hierarchy and report every slice.
    mixture : mapping of slice -> weight, optional
        Target mixture for the mixture-shift prediction.
    level : float
        Level of the Markov check's verdict.
    priors : ChannelPriors, optional
        Prior of every rate (Jeffreys by default).
    draws, tune, chains : int
        Sampler settings of the slice hierarchy (``draws * chains`` exact draws elsewhere).
    target_accept : float, optional
        NUTS target acceptance of the slice hierarchy (default
        :data:`bayesjudge.channels.fit.TARGET_ACCEPT`).
    random_seed : int, Generator or None
        Seed of everything random (None: the default seed).
    progressbar : bool, optional
        Show the sampler's progress bar.

    Returns
    -------
    ChannelAnalysis

    Raises
    ------
    DataError
        If ``by_slice`` or ``mixture`` is asked for and the data have no slice column, or the
        mixture names an unknown slice.
    """
    prob = check_prob(prob)
    chains = check_int(chains, name="chains", minimum=1, maximum=64)
    rng = seed_stream(random_seed, "draws")
    e = outcome_array(data)
    n_exact = max(check_int(draws, name="draws", minimum=10, maximum=200_000) * chains, 400)
    steps = tuple(
        step_summaries(
            data, prob=prob, threshold=threshold, draws=n_exact, priors=priors, random_seed=rng
        )
    )
    exact = exact_draws_tree(data, draws=n_exact, chains=chains, priors=priors, random_seed=rng)
    checks = list(check_fit(exact, prob=prob).checks)
    method = "exact conjugate draws"
    composition = None
    if e.shape[1] >= 3:
        posterior = composition_posterior(data, draws=n_exact, priors=priors, random_seed=rng)
        composition = Composition(
            posterior=posterior,
            gap_max=posterior_summary(posterior, "gap_max", prob=prob),
            gap_mean=posterior_summary(posterior, "gap_mean", prob=prob),
            markov=markov_check(data, level=level, draws=n_exact, priors=priors, random_seed=rng),
        )
    slices = None
    if by_slice or mixture is not None:
        if data.slice is None:
            raise DataError("--by-slice and --mixture need a 'slice' column in the outcomes table")
        fit = fit_slices(
            data,
            weights=mixture,
            priors=priors,
            draws=draws,
            tune=tune,
            chains=chains,
            target_accept=target_accept,
            random_seed=rng,
            progressbar=progressbar,
            prob=prob,
        )
        checks.extend(diagnostics_of(fit).checks)
        method = "nuts (slice hierarchy) + exact conjugate draws"
        slices = SliceAnalysis(
            fit=fit,
            by_slice=(
                tuple(slice_summaries(fit, prob=prob, threshold=threshold)) if by_slice else ()
            ),
            mixture=None if mixture is None else mixture_summary(fit, prob=prob),
        )
    return ChannelAnalysis(
        stages=tuple(getattr(data, "stages", [f"e{t}" for t in range(e.shape[1])])),
        prob=prob,
        steps=steps,
        exact=exact,
        composition=composition,
        slices=slices,
        diagnostics=Diagnostics(tuple(checks), prob),
        method=method,
        seed=seed_label(random_seed),
    )


#: Plain definitions of the quantities of a channel report.
DEFINITIONS = (
    ("p0, p1", "accuracy before and after a step: the share of items correct at each stage."),
    ("c", "correction rate: the chance a step fixes an item that was wrong before it."),
    ("gamma", "corruption rate: the chance a step breaks an item that was right before it."),
    ("gain", "the change in accuracy a step brings, (1 - p0) c - p0 gamma."),
    (
        "break-even",
        "a step helps when c > p0 / (1 - p0) gamma: above its ray in the phase plane.",
    ),
)


#: Readable names of the slice hierarchy's variables (diagnostics).
NAMES = {
    "c": "correction rate c",
    "gamma": "corruption rate gamma",
    "gain": "gain",
    "p0": "accuracy before the step p0",
    "p1": "accuracy after the step p1",
    "mu_c": "mean logit correction rate across slices",
    "mu_gamma": "mean logit corruption rate across slices",
    "sigma_c": "spread of logit correction rates across slices",
    "sigma_gamma": "spread of logit corruption rates across slices",
    "z_c": "standardised slice effect on c",
    "z_gamma": "standardised slice effect on gamma",
    "p0_mixture": "p0 under the target mixture",
    "p1_mixture": "p1 under the target mixture",
    "gain_mixture": "gain under the target mixture",
}


#: Quantities that get a diagnostics line of their own.
REPORTED = ("c", "gamma", "gain", "p0", "p1", "kernel", "p0_mixture", "p1_mixture", "gain_mixture")


#: Fewer items than this on either side of a step make its rates rest on a handful of cases.
SMALL_SIDE = 30


def steps_frame(analysis: ChannelAnalysis) -> pd.DataFrame:
    """Return one row per step: counts, Jeffreys rates, intervals, gain and gate."""
    rows = []
    for s in analysis.steps:
        rows.append(
            {
                "step": f"{s.source}->{s.target}",
                "n": s.n,
                "p0": s.p0,
                "p1": s.p1,
                "c": s.c_jeffreys,
                "c_low": s.c.eti.low,
                "c_high": s.c.eti.high,
                "gamma": s.gamma_jeffreys,
                "gamma_low": s.gamma.eti.low,
                "gamma_high": s.gamma.eti.high,
                "gain": s.gain.mean,
                "gain_low": s.gain.eti.low,
                "gain_high": s.gain.eti.high,
                "gate": "ON" if s.gate_on else "OFF",
            }
        )
    return pd.DataFrame(rows)


def channel_summary(analysis: ChannelAnalysis) -> ReportSummary:
    """Return the one-screen summary of a channel audit.

    The headline is the first step's predicted accuracy gain (exact posterior) beside the
    observed change p1 - p0; warnings flag steps whose rates rest on few items, a gain
    interval too wide to read, and a stack that fails the Markov check.
    """
    prob = analysis.prob
    mass = f"{100 * prob:g}%"
    first = analysis.steps[0]
    warnings: list[ReportWarning | None] = []
    for s in analysis.steps:
        wrong, right = round(s.n * (1 - s.p0)), round(s.n * s.p0)
        if min(wrong, right) < SMALL_SIDE:
            warnings.append(
                ReportWarning(
                    f"Few items behind step {s.source}->{s.target}",
                    f"{wrong} items wrong and {right} right before it (fewer than "
                    f"{SMALL_SIDE} on a side)",
                    "Its correction or corruption rate rests on a handful of cases.",
                )
            )
    warnings.append(
        wide_interval_warning(
            low=first.gain.eti.low,
            high=first.gain.eti.high,
            prob=prob,
            name=f"the gain of step {first.source}->{first.target}",
        )
    )
    composition = analysis.composition
    if composition is not None and composition.markov.tail_probability < composition.markov.level:
        warnings.append(
            ReportWarning(
                "The stack is not Markov",
                f"the Markov check's tail probability is {composition.markov.tail_probability:.3f}"
                f" (below {composition.markov.level:g})",
                "What a step does depends on more than the stage before it, so the composed "
                "kernels mispredict the stack; trust the direct kernel.",
            )
        )
    sentences = []
    for s in analysis.steps:
        verb = "helps" if s.gain.eti.low > 0 else "hurts" if s.gain.eti.high < 0 else "may not help"
        sentences.append(
            f"Step {s.source}->{s.target} {verb}: accuracy {100 * s.p0:.1f}% -> "
            f"{100 * s.p1:.1f}%, fixing {100 * s.c.mean:.1f}% of wrong items and breaking "
            f"{100 * s.gamma.mean:.1f}% of right ones (gain {100 * s.gain.mean:+.1f} points, "
            f"{mass} interval {100 * s.gain.eti.low:+.1f} to {100 * s.gain.eti.high:+.1f}; gate "
            f"{'ON' if s.gate_on else 'OFF'})."
        )
    trust = (
        "The exact Beta posteriors of each step's rates (Jeffreys prior; Correction and "
        "Corruption: A Two-Rate View of Error Flow in LLM Protocols, 2025): "
        "they need no sampling. "
        + (
            "Per slice, the partially pooled estimates trade the bias of pooling against the "
            "noise of thin slices; prefer them to the independent ones for small slices."
            if analysis.slices is not None
            else "With a slice column, --by-slice adds partially pooled slice estimates."
        )
    )
    return ReportSummary(
        headline=Headline(
            f"gain of step {first.source}->{first.target}",
            first.gain.mean,
            first.gain.eti.low,
            first.gain.eti.high,
            prob,
            naive=first.p1 - first.p0,
            naive_name="observed change p1 - p0",
            unit="points",
        ),
        diagnostics=analysis.diagnostics,
        definitions=DEFINITIONS,
        trust=trust,
        reading=" ".join(sentences),
        warnings=warnings,
        names=NAMES,
        quantities=REPORTED,
    )
