r"""The report of a judge-panel fit: its sections, tables and figures.

:func:`report_content` says what the report holds; :func:`bayesjudge.write_report` writes it
(:mod:`bayesjudge.reporting.pipeline`): ``report.html`` (figures embedded as PNG),
``summary.md``, ``posterior.nc`` (``xarray.open_datatree``), ``posterior.csv`` (every
summary of :meth:`PanelAnalysis.to_frame <bayesjudge.panels.analysis.PanelAnalysis.to_frame>`),
``estimates.csv``, ``diagnostics.csv`` and ``analysis.json`` (the analysis with its provenance,
as in every report).

Both documents open with the one-screen summary
(:func:`~bayesjudge.panels.analysis.panel_summary`): the corrected pi beside the naive
majority-vote rate, the diagnostics badge, the warnings, and what Se, Sp, J and the effective
number of judges mean. Figures: each judge's Se and Sp with intervals, the error-correlation
matrix among truly-PASS and truly-FAIL items, the vote rules and the judges on the ROC plane,
and the posterior of pi against every baseline. Judge names are user text: escaped with
:func:`~bayesjudge.reporting.output.escape_markdown` in ``summary.md``, with ``html.escape``
in the HTML, and with mathtext's ``$`` escaped in figures.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayesjudge._version import __version__
from bayesjudge.panels.analysis import (
    DEFINITIONS,
    PanelAnalysis,
    best_rule_text,
    panel_summary,
    warnings_of,
)
from bayesjudge.reporting.figures import interval_figure
from bayesjudge.reporting.html import png
from bayesjudge.reporting.pipeline import Code, ReportContent, Section

__all__ = ["DEFINITIONS", "best_rule_text", "panel_summary", "report_content", "warnings_of"]


def _figure_text(text: object) -> str:
    """User text safe in a matplotlib label (no mathtext)."""
    return str(text).replace("$", r"\$")


def _figures(analysis: PanelAnalysis) -> dict[str, str]:
    from matplotlib.figure import Figure

    figures: dict[str, str] = {}
    mass = f"{100 * analysis.prob:g}%"
    names = list(analysis.judges)
    shown = [_figure_text(n) for n in names]

    # judges' Se and Sp with intervals
    fig = Figure(figsize=(6.5, 1.2 + 0.45 * len(names)))
    ax = fig.subplots()
    for offset, (quantity, colour) in zip(
        (-0.15, 0.15), (("se", "#55a868"), ("sp", "#dd8452")), strict=True
    ):
        for row, judge in enumerate(names):
            s = analysis.judges[judge][quantity]
            ax.plot([s.eti.low, s.eti.high], [row + offset] * 2, color=colour, lw=2.5)
            ax.plot(
                s.mean,
                row + offset,
                "o",
                color=colour,
                label=quantity.title() if row == 0 else None,
            )
    ax.set_yticks(range(len(names)), shown)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("posterior mean and interval")
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title(f"Each judge's sensitivity and specificity ({mass} intervals)")
    fig.tight_layout()
    figures[f"Judges' Se and Sp ({mass} intervals)"] = png(fig)

    # error-correlation matrices
    post = analysis.posterior["posterior"]
    corr = post["error_correlation"].mean(("chain", "draw"))
    fig = Figure(figsize=(3.2 * 2 + 1.0, 0.5 * len(names) + 2.2))
    axes = fig.subplots(1, 2)
    image = None
    for ax, (label, side) in zip(
        axes, (("truly PASS items", "pass"), ("truly FAIL items", "fail")), strict=True
    ):
        matrix = corr.sel({"class": side}).transpose("judge", "other_judge").to_numpy().copy()
        np.fill_diagonal(matrix, np.nan)  # a judge with itself: left blank
        image = ax.imshow(matrix, vmin=-1, vmax=1, cmap="RdBu_r")
        for i in range(len(names)):
            for j in range(len(names)):
                if i != j:
                    ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(names)), shown, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(range(len(names)), shown, fontsize=8)
        ax.set_title(f"error correlation, {label}", fontsize=9)
    if image is not None:
        fig.colorbar(image, ax=list(axes), shrink=0.8)
    figures["Error correlations between judges (posterior means)"] = png(fig)

    # vote rules and judges on the ROC plane
    fig = Figure(figsize=(5.5, 5.0))
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls=":")
    for judge, label in zip(names, shown, strict=True):
        se, sp = analysis.judges[judge]["se"], analysis.judges[judge]["sp"]
        ax.errorbar(
            1 - sp.mean,
            se.mean,
            xerr=[[sp.eti.high - sp.mean], [sp.mean - sp.eti.low]],
            yerr=[[se.mean - se.eti.low], [se.eti.high - se.mean]],
            fmt="s",
            color="#8172b3",
            ms=5,
            alpha=0.8,
        )
        ax.annotate(
            label, (1 - sp.mean, se.mean), fontsize=7, xytext=(4, -8), textcoords="offset points"
        )
    for rule in analysis.rules:
        best = rule.rule == analysis.best_rule
        ax.errorbar(
            1 - rule.sp.mean,
            rule.se.mean,
            xerr=[[rule.sp.eti.high - rule.sp.mean], [rule.sp.mean - rule.sp.eti.low]],
            yerr=[[rule.se.mean - rule.se.eti.low], [rule.se.eti.high - rule.se.mean]],
            fmt="*" if best else "o",
            color="#c44e52" if best else "#4c72b0",
            ms=10 if best else 6,
        )
        ax.annotate(
            rule.rule,
            (1 - rule.sp.mean, rule.se.mean),
            fontsize=7,
            xytext=(4, 4),
            textcoords="offset points",
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("1 - Sp (false-pass rate)")
    ax.set_ylabel("Se")
    ax.set_title(
        "Vote rules (circles; star: the most precise Rogan-Gladen estimate of pi) and judges "
        "(squares)",
        fontsize=9,
    )
    fig.tight_layout()
    figures[f"Vote rules and judges on the ROC plane ({mass} intervals)"] = png(fig)

    # pi against every baseline
    draws = post["pi"].to_numpy().reshape(-1)
    pi = analysis.pi
    rows: list[tuple[str, Any, Any, Any, bool]] = [
        ("panel model", pi.mean, pi.eti.low, pi.eti.high, True)
    ]
    for e in analysis.estimates:
        iv = e.estimate.interval
        if e.estimate.estimate is None:
            continue
        owner = _figure_text(e.judge if e.judge is not None else e.rule)
        low, high = (iv.low, iv.high) if iv else (np.nan, np.nan)
        rows.append((f"{owner}: {e.estimate.method}", e.estimate.estimate, low, high, False))
    fig = interval_figure(
        draws,
        rows,
        title=f"True success rate pi: posterior and baseline {mass} intervals",
        naive=analysis.naive.estimate,
        naive_name="majority vote of the judges (naive)",
        model_name="panel model (Bayesian)",
        other_name="baseline",
    )
    figures["Posterior of pi beside every baseline"] = png(fig)
    return figures


def report_content(analysis: PanelAnalysis, *, source: str = "panel") -> ReportContent:
    """Return what the report of a panel analysis holds (:mod:`bayesjudge.reporting.pipeline`).

    Sections: the posterior summaries and the baselines. Figures: each judge's Se and Sp, the
    error correlations, the vote rules and judges on the ROC plane, pi beside every baseline.
    Files: ``posterior.csv`` (:meth:`~bayesjudge.panels.analysis.PanelAnalysis.to_frame`),
    ``estimates.csv`` and ``diagnostics.csv`` (the writer adds ``analysis.json``: the analysis
    with its provenance, the posterior's attributes among it).
    """
    estimates = analysis.estimates_frame()
    for column in ("estimate", "low", "high", "prob", "std_error", "j", "unclipped"):
        estimates[column] = estimates[column].astype(float)
    mass = f"{100 * analysis.prob:g}%"
    summaries = analysis.to_frame()
    choice = analysis.dependence_choice
    chosen = [] if choice is None else [f" The dependence form was chosen by fit: {choice.reason}."]
    return ReportContent(
        title=f"bayesjudge panel report: {source}",
        summary=analysis.summary(),
        about=[
            f"bayesjudge {__version__}, model ",
            Code("panel"),
            " (dependence ",
            Code(analysis.dependence),
            f"), judges {', '.join(analysis.judges)}, priors ",
            Code(analysis.priors.describe()),
            ", calibration ",
            Code(analysis.calibration),
            f", seed {analysis.seed}.",
            *chosen,
        ],
        sections=[
            Section(f"Posterior summaries ({mass} equal-tailed intervals)", table=summaries),
            Section(f"Baselines ({mass} intervals)", table=estimates),
        ],
        figures=_figures(analysis),
        posterior=analysis.posterior,
        seed=analysis.seed,
        files={
            "posterior.csv": summaries,
            "estimates.csv": estimates,
            "diagnostics.csv": analysis.diagnostics.to_frame(),
        },
    )
