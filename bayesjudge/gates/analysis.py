"""The gate family's answer, assembled once: posterior, diagnostics, baselines, checks, loops.

:func:`analyze_gate` fits the per-item pass-rate hierarchy to repeated rulings, runs the
baselines at each cap and the lag-1 independence check, and returns one :class:`GateAnalysis`;
:func:`analyze_loop` analyses revise-then-rejudge loop logs into a :class:`LoopAnalysis`.
``bayesjudge gate`` and its report only render them (``to_dict`` gives the command's JSON).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pandas as pd
import xarray as xr
from numpy.typing import ArrayLike

from bayesjudge.estimators.design import RandomCalibrationCheck
from bayesjudge.gates.baselines import RANDOM_SAMPLE_METHODS, CapEstimate, gate_baselines
from bayesjudge.gates.caps import check_caps
from bayesjudge.gates.checks import IndependenceCheck, independence_check
from bayesjudge.gates.data import LoopLog, Rulings
from bayesjudge.gates.fit import Calibration, fit_gate, gate_calibration_check
from bayesjudge.gates.loops import ppv_correction, replay_loop, slip_parameters
from bayesjudge.inference.diagnostics import Diagnostics
from bayesjudge.inference.fit import Attempt, attempts_of, diagnostics_of
from bayesjudge.inference.provenance import provenance, seed_label
from bayesjudge.inference.summary import posterior_summary
from bayesjudge.priors import GatePriors
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

    def summary(self, name: str, cap: int | None = None) -> PosteriorSummary:
        """Return the summary of ``name`` (at ``cap`` for per-cap quantities)."""
        return self.summaries[name if cap is None else f"{name}[{cap}]"]

    def __str__(self) -> str:
        """Return the one-screen summary and the J(K) curve, as text for a terminal."""
        from bayesjudge.gates.report import gate_summary

        curve = self.curve_frame().round(3).to_string(index=False)
        return f"{gate_summary(self).to_text()}\n\n{curve}"

    def _repr_html_(self) -> str:
        """Return the one-screen summary and the J(K) curve as HTML (Jupyter)."""
        from bayesjudge.gates.report import gate_summary

        curve = self.curve_frame().to_html(index=False, float_format=lambda x: f"{x:.3f}")
        return gate_summary(self).to_html(style=True) + curve

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
            "diagnostics": self.diagnostics.json_block(method="nuts", attempts=self.attempts),
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
    draws: int = 2000,
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
