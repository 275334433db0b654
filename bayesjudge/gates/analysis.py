"""The gate family's answer, assembled once: posterior, diagnostics, baselines, checks, loops.

:func:`analyze_gate` fits the per-item pass-rate hierarchy to repeated rulings, runs the
baselines at each cap and the lag-1 independence check, and returns one :class:`GateAnalysis`;
:func:`analyze_loop` analyses revise-then-rejudge loop logs into a :class:`LoopAnalysis`.
``bayesjudge gate`` and its report only render them (``to_dict`` gives the command's JSON).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, overload

import numpy as np
import pandas as pd
import xarray as xr
from numpy.typing import ArrayLike

from bayesjudge.estimators.design import RandomCalibrationCheck
from bayesjudge.gates.baselines import RANDOM_SAMPLE_METHODS, CapEstimate, gate_baselines
from bayesjudge.gates.caps import check_caps
from bayesjudge.gates.checks import IndependenceCheck, independence_check
from bayesjudge.gates.data import LoopLog, Rulings
from bayesjudge.gates.fit import REPORTED, Calibration, fit_gate, gate_calibration_check
from bayesjudge.gates.loops import ppv_correction, replay_loop, slip_parameters
from bayesjudge.inference.diagnostics import Diagnostics
from bayesjudge.inference.fit import Attempt, Draws, attempts_of, diagnostics_of
from bayesjudge.inference.provenance import provenance, seed_label
from bayesjudge.inference.summary import posterior_summary
from bayesjudge.priors import GatePriors
from bayesjudge.reporting.summary import (
    WIDE_INTERVAL,
    Headline,
    ReportSummary,
    label_shift_warning,
    random_sample_baselines_warning,
    small_calibration_warning,
    weak_judge_warning,
    wide_interval_warning,
)
from bayesjudge.results import PosteriorSummary
from bayesjudge.validation import check_prob

__all__ = ["CURVES", "GateAnalysis", "LoopAnalysis", "analyze_gate", "analyze_loop"]

#: Per-cap posterior quantities reported by ``bayesjudge gate``.
CURVES = ("j", "se", "sp", "judged_rate")


@dataclass(frozen=True, slots=True)
class LoopAnalysis:
    """What loop logs say: the slip law's parameters, and replayed vs predicted rates per cap.

    Attributes
    ----------
    n_items : int
        Items in the logs.
    slip_law : dict of str to float
        ``a`` (accuracy of a revision), ``s`` (judge sensitivity), ``leak`` and ``rho``.
    caps : tuple of dict
        Per cap: the replayed ``reported``, ``delivered`` and ``slip`` rates, the slip law's
        ``reported_predicted`` and ``slip_predicted``, and the PPV-corrected success rate.
    """

    n_items: int
    slip_law: dict[str, float]
    caps: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        """Return the ``loop`` block of ``bayesjudge gate --json``."""
        return {"n_items": self.n_items, "slip_law": self.slip_law, "caps": list(self.caps)}


def analyze_loop(
    log: LoopLog,
    *,
    caps: ArrayLike = (1, 2, 5),
    prob: float = 0.95,
    calibration_fraction: float = 0.5,
    random_seed: int | None = None,
) -> LoopAnalysis:
    """Analyse revise-then-rejudge loop logs: slip law, replay vs prediction, PPV correction.

    Examples
    --------
    >>> from bayesjudge.gates.simulate import revise_loop
    >>> log = LoopLog.from_frame(revise_loop(300, a=0.6, s=0.9, leak=0.2, cap=5,
    ...                                      random_seed=1))
    >>> analyze_loop(log, caps=[1, 3]).n_items
    300
    """
    cap_values = [int(c) for c in check_caps(caps)]
    params = slip_parameters(log)
    replay = replay_loop(log, caps=cap_values)
    law = params.law(cap_values)
    rows = []
    for i, cap in enumerate(replay.caps):
        ppv = ppv_correction(
            log,
            k=int(cap),
            calibration_fraction=calibration_fraction,
            prob=prob,
            random_seed=random_seed,
        )
        corrected = ppv.corrected
        assert corrected.interval is not None
        rows.append(
            {
                "cap": int(cap),
                "reported": float(replay.reported[i]),
                "delivered": float(replay.delivered[i]),
                "slip": float(replay.slip[i]),
                "reported_predicted": float(law.reported[i]),
                "slip_predicted": float(law.slip[i]),
                "ppv_corrected": {
                    "estimate": corrected.estimate,
                    "low": corrected.interval.low,
                    "high": corrected.interval.high,
                    "prob": corrected.interval.prob,
                    "ppv": ppv.ppv,
                    "reported_eval": ppv.reported,
                    "n_calibration": ppv.n_calibration,
                    "n_evaluation": ppv.n_evaluation,
                },
            }
        )
    return LoopAnalysis(
        n_items=replay.n_items,
        slip_law={"a": params.a, "s": params.s, "leak": params.leak, "rho": float(law.rho)},
        caps=tuple(rows),
    )


@dataclass(frozen=True, slots=True, eq=False)
class GateAnalysis:
    """Everything the gate family reports about one set of repeated rulings.

    Attributes
    ----------
    rulings : Rulings
        The data.
    caps : tuple of int
        The caps K reported.
    prob : float
        Mass of every interval.
    seed : int or str
        The seed.
    posterior : DataTree
        The checked fit (:func:`bayesjudge.fit_gate`).
    diagnostics : Diagnostics
        Its checks.
    attempts : tuple of Attempt
        The sampler runs (two when the first failed and was retried).
    summaries : dict of str to PosteriorSummary
        ``pi`` and ``j_inf``, and ``j``, ``se``, ``sp``, ``judged_rate`` at each cap, named
        like ``j[1]``.
    estimates : tuple of CapEstimate
        The baselines at each cap.
    independence : IndependenceCheck
        The lag-1 check that an item's rulings are independent.
    calibration : str
        ``"by_class"`` or ``"random"``.
    calibration_check : RandomCalibrationCheck
        Whether the labelled items look like a random sample of all items.
    priors : GatePriors
        The priors.
    loop : LoopAnalysis or None
        Loop-log analysis, when logs were given.
    """

    rulings: Rulings
    caps: tuple[int, ...]
    prob: float
    seed: int | str
    posterior: xr.DataTree
    diagnostics: Diagnostics
    attempts: tuple[Attempt, ...]
    summaries: dict[str, PosteriorSummary]
    estimates: tuple[CapEstimate, ...]
    independence: IndependenceCheck
    calibration: str
    calibration_check: RandomCalibrationCheck
    priors: GatePriors
    loop: LoopAnalysis | None = None

    @property
    def passed(self) -> bool:
        """Whether the posterior passed its diagnostics."""
        return self.diagnostics.passed

    @overload
    def summary(self) -> ReportSummary: ...

    @overload
    def summary(self, name: str, cap: int | None = None) -> PosteriorSummary: ...

    def summary(
        self, name: str | None = None, cap: int | None = None
    ) -> ReportSummary | PosteriorSummary:
        """Return the one-screen summary, or the posterior summary of ``name``.

        Without arguments: the one-screen summary of the report (:func:`gate_summary`). With
        ``name``: its posterior summary (at ``cap`` for the per-cap quantities ``j``, ``se``,
        ``sp`` and ``judged_rate``).
        """
        if name is None:
            return gate_summary(self)
        return self.summaries[name if cap is None else f"{name}[{cap}]"]

    @property
    def predictive_check(self) -> dict[str, Any] | None:
        """The posterior predictive check of the histograms of passes (None where not recorded).

        :meth:`bayesjudge.inference.ppc.TablePredictiveCheck.to_dict` of
        :func:`bayesjudge.gates.predictive.gate_predictive_check`; its tests are among the
        :attr:`diagnostics` (``ppc_tail_prob`` checks naming the group and the count most off),
        so a failed test fails the diagnostics.
        """
        text = self.posterior.attrs.get("predictive_check")
        return None if text is None else dict(json.loads(text))

    def diagnostics_dict(self) -> dict[str, Any]:
        """Return the ``diagnostics`` block of the JSON output.

        The sampler's block (:meth:`~bayesjudge.inference.diagnostics.Diagnostics.json_block`)
        with the posterior predictive check under ``predictive_check``
        (:attr:`predictive_check`; None for a posterior recorded without one), whose failed
        tests are among the ``failures``.
        """
        block = self.diagnostics.json_block(method="nuts", attempts=self.attempts)
        return {**block, "predictive_check": self.predictive_check}

    def __str__(self) -> str:
        """Return the one-screen summary and the J(K) curve, as text for a terminal."""
        curve = self.curve_frame().round(3).to_string(index=False)
        return f"{self.summary().to_text()}\n\n{curve}"

    def _repr_html_(self) -> str:
        """Return the one-screen summary and the J(K) curve as HTML (Jupyter)."""
        curve = self.curve_frame().to_html(index=False, float_format=lambda x: f"{x:.3f}")
        return self.summary().to_html(style=True) + curve

    def curve_frame(self) -> pd.DataFrame:
        """Return one row per cap: the posterior mean and interval of J, Se, Sp and R."""
        rows = []
        for cap in self.caps:
            row: dict[str, Any] = {"cap": cap}
            for name in CURVES:
                s = self.summary(name, cap)
                row.update({name: s.mean, f"{name}_low": s.eti.low, f"{name}_high": s.eti.high})
            rows.append(row)
        return pd.DataFrame(rows)

    def to_frame(self) -> pd.DataFrame:
        """Return one row per posterior quantity: its name, mean, sd and interval."""
        return pd.DataFrame(
            [{"quantity": name, **s.to_dict()} for name, s in self.summaries.items()]
        )

    def estimates_frame(self) -> pd.DataFrame:
        """Return the baselines at each cap as one table (a ``cap`` column first)."""
        return pd.DataFrame([e.to_row() for e in self.estimates])

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object of ``bayesjudge gate --json``.

        ``{"posterior": {"pi": S, "j_inf": S, "j": {"1": S, ...}, "se": {...}, "sp": {...},
        "judged_rate": {...}}, "diagnostics": {...}, "estimates": [row, ...],
        "independence_check": {...}, "calibration": {...}, "provenance": {...}}`` (and
        ``"loop"`` when loop logs were analysed).
        """
        posterior: dict[str, Any] = {
            "pi": self.summary("pi").to_dict(),
            "j_inf": self.summary("j_inf").to_dict(),
        }
        for name in CURVES:
            posterior[name] = {str(c): self.summary(name, c).to_dict() for c in self.caps}
        out: dict[str, Any] = {
            "posterior": posterior,
            "diagnostics": self.diagnostics_dict(),
            "estimates": [{"cap": e.cap, **e.estimate.to_dict()} for e in self.estimates],
            "independence_check": self.independence.to_dict(),
            "calibration": {"design": self.calibration, "check": self.calibration_check.to_dict()},
            "provenance": provenance(self.seed, method="nuts", priors=self.priors),
        }
        if self.loop is not None:
            out["loop"] = self.loop.to_dict()
        return out


def analyze_gate(
    rulings: Rulings,
    *,
    caps: ArrayLike = (1, 2, 5),
    prob: float = 0.95,
    priors: GatePriors | None = None,
    calibration: Calibration = "by_class",
    draws: Draws = 2000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | None = None,
    progressbar: bool | None = None,
    loop: LoopLog | None = None,
    calibration_fraction: float = 0.5,
) -> GateAnalysis:
    """Fit, check and compare: the whole answer of the gate family for one set of rulings.

    Parameters
    ----------
    rulings : Rulings
        Validated rulings with gold labels on a calibration subset of both classes.
    caps : array_like of int
        The caps K to report.
    prob : float
        Mass of every interval.
    priors, calibration, draws, tune, chains, target_accept, progressbar
        As in :func:`bayesjudge.fit_gate`.
    random_seed : int, optional
        Seed of everything random (None: the default seed).
    loop : LoopLog, optional
        Loop logs to analyse beside the rulings (:func:`analyze_loop`).
    calibration_fraction : float
        Share of loop items used to estimate the PPV.

    Returns
    -------
    GateAnalysis
    """
    prob = check_prob(prob)
    cap_values = tuple(int(c) for c in sorted(set(check_caps(caps).tolist())))
    priors = GatePriors() if priors is None else priors
    check = gate_calibration_check(rulings)
    estimates = gate_baselines(rulings, caps=cap_values, prob=prob)
    if not check.consistent:
        estimates = [
            replace(e, estimate=replace(e.estimate, notes=(*e.estimate.notes, check.note())))
            if e.estimate.method in RANDOM_SAMPLE_METHODS
            else e
            for e in estimates
        ]
    assert rulings.sequence is not None
    independence = independence_check(*rulings.sequence, random_seed=random_seed)
    posterior = fit_gate(
        rulings,
        caps=cap_values,
        priors=priors,
        calibration=calibration,
        draws=draws,
        tune=tune,
        chains=chains,
        target_accept=target_accept,
        random_seed=random_seed,
        progressbar=progressbar,
        prob=prob,
    )
    summaries = {
        "pi": posterior_summary(posterior, "pi", prob=prob),
        "j_inf": posterior_summary(posterior, "j_inf", prob=prob),
    }
    for name in CURVES:
        for cap in cap_values:
            summary = posterior_summary(posterior, name, prob=prob, coords={"cap": cap})
            summaries[f"{name}[{cap}]"] = replace(summary, name=f"{name}[{cap}]")
    return GateAnalysis(
        rulings=rulings,
        caps=cap_values,
        prob=prob,
        seed=seed_label(random_seed),
        posterior=posterior,
        diagnostics=diagnostics_of(posterior),
        attempts=attempts_of(posterior),
        summaries=summaries,
        estimates=tuple(estimates),
        independence=independence,
        calibration=calibration,
        calibration_check=check,
        priors=priors,
        loop=(
            None
            if loop is None
            else analyze_loop(
                loop,
                caps=cap_values,
                prob=prob,
                calibration_fraction=calibration_fraction,
                random_seed=random_seed,
            )
        ),
    )


#: Readable names of the gate model's variables (diagnostics and figures).
NAMES = {
    "pi": "true success rate pi",
    "omega": "share of items the gate never passes",
    "mu": "mean pass probability of the other items",
    "log_kappa": "log concentration of pass probabilities",
    "kappa": "concentration of pass probabilities",
    "j_inf": "reliability floor J(inf)",
    "se": "Se(K)",
    "sp": "Sp(K)",
    "j": "J(K)",
    "judged_rate": "judged pass rate R(K)",
}


#: Plain definitions of the quantities of a gate report.
DEFINITIONS = (
    ("pi", "the true success rate: the share of items that truly pass (gold label PASS)."),
    ("K", "the cap: an item ships when the judge says PASS within K tries."),
    ("Se(K)", "sensitivity at cap K: the chance a truly passing item ships."),
    ("Sp(K)", "specificity at cap K: the chance a truly failing item is held back."),
    (
        "J(K)",
        "Youden's J = Se(K) + Sp(K) - 1: how much shipping tells about the truth (1 = "
        "perfect, 0 = none); it falls as K grows.",
    ),
    (
        "J(inf)",
        "the reliability floor: J as K grows without limit (the share of failing items "
        "the judge never passes, minus that of passing items).",
    ),
)


def _naive(analysis: GateAnalysis, cap: int) -> float | None:
    for e in analysis.estimates:
        if e.cap == cap and e.estimate.method == "naive":
            return e.estimate.estimate
    return None


def gate_summary(analysis: GateAnalysis) -> ReportSummary:
    """Return the one-screen summary of a gate analysis.

    The posterior of pi beside the judged pass rate at the smallest cap, the diagnostics badge,
    warnings with their evidence (small gold set, J(K) near 0 at the smallest cap, label shift,
    baselines assuming a random gold sample, an interval too wide to read), the reading, which
    estimate to trust and the definitions.
    """
    prob, rulings = analysis.prob, analysis.rulings
    pi, j_inf = analysis.summary("pi"), analysis.summary("j_inf")
    cap = analysis.caps[0]
    j = analysis.summary("j", cap)
    labels = rulings.label[~np.isnan(rulings.label)]
    n_pass, n_fail = int(np.sum(labels == 1)), int(np.sum(labels == 0))
    check = analysis.calibration_check
    naive = _naive(analysis, cap)
    random_rows = {
        f"{e.estimate.method} (K={e.cap})": e.estimate.estimate
        for e in analysis.estimates
        if e.estimate.method in RANDOM_SAMPLE_METHODS
    }
    warnings = [
        small_calibration_warning(n_pass=n_pass, n_fail=n_fail),
        weak_judge_warning(j=j.mean, low=j.eti.low, high=j.eti.high, prob=prob),
        label_shift_warning(check),
        random_sample_baselines_warning(
            consistent=check.consistent,
            baselines=random_rows,
            reference=pi.mean,
            reference_name="the gate model's posterior mean",
        ),
        wide_interval_warning(
            low=pi.eti.low, high=pi.eti.high, prob=prob, name="the true success rate pi"
        ),
    ]
    mass = f"{100 * prob:g}%"
    judged = "" if naive is None else f"The judge passes {100 * naive:.1f}% of items at cap {cap}. "
    if pi.eti.high - pi.eti.low > WIDE_INTERVAL:
        corrected = (
            f"The data cannot pin the true success rate down: it lies anywhere from "
            f"{100 * pi.eti.low:.1f}% to {100 * pi.eti.high:.1f}% ({mass} interval), too wide "
            "to quote one value; more gold labels narrow it."
        )
    else:
        corrected = (
            f"Corrected by the gate model, the true success rate is {100 * pi.mean:.1f}% "
            f"({mass} interval {100 * pi.eti.low:.1f}% to {100 * pi.eti.high:.1f}%)."
        )
    story = retry_story(analysis)
    reading = (
        f"{'' if story else judged}{corrected} {story}At cap {cap} "
        f"the gate's J is {j.mean:.2f} ({j.eti.low:.2f} to {j.eti.high:.2f}); however many "
        f"retries are allowed it stays above the reliability floor J(inf) = {j_inf.mean:.2f} "
        f"({j_inf.eti.low:.2f} to {j_inf.eti.high:.2f})."
    )
    trust = (
        "The gate model's posterior of pi: it uses every ruling of every item, needs only that "
        "the judge treats gold and unlabelled items alike, and "
        + (
            "does not assume the gold items are a random sample (they were drawn per class)."
            if analysis.calibration == "by_class"
            else "here also uses the gold labels' class mix (they were taken as a random sample)."
        )
        + " Rogan-Gladen at each cap needs the same and should agree at small caps; "
        + (
            "PPI and PPI++ assume a random gold sample, which the data contradict here, so they "
            "are biased."
            if not check.consistent
            else "PPI and PPI++ are valid when the gold set is a random sample, as it looks here."
        )
    )
    return ReportSummary(
        headline=Headline(
            "true success rate pi",
            pi.mean,
            pi.eti.low,
            pi.eti.high,
            prob,
            naive=naive,
            naive_name=f"judged pass rate at cap {cap} (naive)",
        ),
        diagnostics=analysis.diagnostics,
        definitions=DEFINITIONS,
        trust=trust,
        reading=reading,
        warnings=warnings,
        names=NAMES,
        quantities=REPORTED,
        hedge_wide=False,  # the reading hedges pi itself and still tells what retries do
    )


def _trend(first: float, last: float, *, tolerance: float) -> str:
    if last > first + tolerance:
        return "rises"
    if last < first - tolerance:
        return "falls"
    return "stays"


def retry_story(analysis: GateAnalysis) -> str:
    """Return what retries do to the judged pass rate and to Se, Sp and J, in words.

    The judged pass rates observed at the first and the last cap (the posterior means where
    the data give none) and the posterior means of Se, Sp and J there are compared; with a
    single cap there is nothing to tell and the text is empty.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> means = {("judged_rate", 1): 0.68, ("judged_rate", 5): 0.85, ("sp", 1): 0.57,
    ...          ("sp", 5): 0.33, ("se", 1): 0.84, ("se", 5): 0.97, ("j", 1): 0.41,
    ...          ("j", 5): 0.30}
    >>> fake = SimpleNamespace(caps=(1, 2, 5), estimates=(), summary=lambda name, cap=None:
    ...     SimpleNamespace(mean=means[name, cap]))
    >>> print(retry_story(fake))  # doctest: +NORMALIZE_WHITESPACE
    Retries raise the judged pass rate from 68.0% at cap 1 to 85.0% at cap 5, while the
    specificity Sp falls from 0.57 to 0.33 and the sensitivity Se rises from 0.84 to 0.97: each
    retry ships more truly failing items, so the judged rate says less about the true one
    (J falls from 0.41 to 0.30).
    """
    if len(analysis.caps) < 2:
        return ""
    first, last = analysis.caps[0], analysis.caps[-1]
    mean = {
        (name, k): analysis.summary(name, k).mean
        for name in ("judged_rate", "se", "sp", "j")
        for k in (first, last)
    }

    def change(name: str, label: str, digits: int = 2) -> str:
        a, b = mean[name, first], mean[name, last]
        verb = _trend(a, b, tolerance=0.5 * 10.0**-digits)
        if verb == "stays":
            return f"{label} stays at {a:.{digits}f}"
        return f"{label} {verb} from {a:.{digits}f} to {b:.{digits}f}"

    rates = []
    for k in (first, last):
        seen = _naive(analysis, k)
        rates.append(mean["judged_rate", k] if seen is None else seen)
    rate_first, rate_last = rates
    moved = _trend(rate_first, rate_last, tolerance=0.0005)
    verb = {"rises": "raise", "falls": "lower", "stays": "leave"}[moved]
    rate = (
        f"Retries {verb} the judged pass rate from {100 * rate_first:.1f}% at cap {first} to "
        f"{100 * rate_last:.1f}% at cap {last}"
        if moved != "stays"
        else f"Retries leave the judged pass rate at {100 * rate_first:.1f}% from cap {first} to "
        f"cap {last}"
    )
    sp, se, j = (
        change("sp", "the specificity Sp"),
        change("se", "the sensitivity Se"),
        change("j", "J"),
    )
    meaning = (
        "each retry ships more truly failing items, so the judged rate says less about the true one"
        if _trend(mean["sp", first], mean["sp", last], tolerance=0.005) == "falls"
        else "retries do not let more failing items through"
    )
    return f"{rate}, while {sp} and {se}: {meaning} ({j}). "
