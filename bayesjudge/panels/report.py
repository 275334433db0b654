r"""Reports of a judge-panel fit: self-contained HTML, a Markdown summary and the posterior.

:func:`write_panel_report` checks the destination before any work
(:func:`bayesjudge.reporting.output.check_output_folder`) and writes the folder crash-safely
(:func:`bayesjudge.reporting.output.output_folder`): ``report.html`` (figures embedded as
PNG), ``summary.md``, ``posterior.nc`` (``xarray.open_datatree``), ``posterior.csv`` (every
summary of :meth:`PanelAnalysis.to_frame <bayesjudge.panels.analysis.PanelAnalysis.to_frame>`),
``estimates.csv`` and ``diagnostics.csv``.

Both documents open with one screen: the corrected pi beside the naive majority-vote rate, the
diagnostics badge, the warnings, and what Se, Sp, J and the effective number of judges mean.
Figures: each judge's Se and Sp with intervals, the error-correlation matrix among truly-PASS
and truly-FAIL items, the vote rules and the judges on the ROC plane, and the posterior of pi
against every baseline. Judge names are user text: escaped with
:func:`~bayesjudge.reporting.output.escape_markdown` in ``summary.md``, with ``html.escape``
in the HTML, and with mathtext's ``$`` escaped in figures.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bayesjudge._version import __version__
from bayesjudge.panels.rules import rule_words
from bayesjudge.reporting.html import (
    diagnostics_html,
    figures_html,
    html_page,
    markdown_table,
    png,
    table_html,
)
from bayesjudge.reporting.netcdf import write_posterior
from bayesjudge.reporting.output import (
    check_output_folder,
    escape_markdown,
    output_folder,
    write_csv,
)
from bayesjudge.reporting.summary import (
    Headline,
    ReportSummary,
    ReportWarning,
    footer_html,
    footer_markdown,
)

if TYPE_CHECKING:
    from bayesjudge.panels.analysis import PanelAnalysis

__all__ = ["DEFINITIONS", "PanelReportFiles", "warnings_of", "write_panel_report"]

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


@dataclass(frozen=True, slots=True)
class PanelReportFiles:
    """Paths of the files of a panel report."""

    folder: Path
    html: Path
    markdown: Path
    posterior: Path
    summaries: Path
    estimates: Path
    diagnostics: Path


def _figure_text(text: object) -> str:
    """User text safe in a matplotlib label (no mathtext)."""
    return str(text).replace("$", r"\$")


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
    rows = [("panel model", analysis.pi.mean, analysis.pi.eti.low, analysis.pi.eti.high)]
    for e in analysis.estimates:
        iv = e.estimate.interval
        if e.estimate.estimate is None:
            continue
        owner = _figure_text(e.judge if e.judge is not None else e.rule)
        rows.append(
            (
                f"{owner}: {e.estimate.method}",
                e.estimate.estimate,
                iv.low if iv else np.nan,
                iv.high if iv else np.nan,
            )
        )
    fig = Figure(figsize=(7.5, 3.0 + 0.25 * len(rows)))
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2.0, 0.3 + 0.3 * len(rows)])
    top.hist(draws, bins=60, density=True, color="#4c72b0", alpha=0.75)
    top.set_ylabel("posterior density")
    top.set_title(f"True success rate pi: posterior and baseline {mass} intervals")
    for position, (_, estimate, low, high) in enumerate(rows):
        colour = "#4c72b0" if position == 0 else "#dd8452"
        if np.isfinite(low) and np.isfinite(high):
            bottom.plot([low, high], [position, position], color=colour, lw=2.5)
        bottom.plot(estimate, position, "o", color=colour)
    bottom.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=7)
    bottom.invert_yaxis()
    bottom.set_xlabel("pi")
    fig.tight_layout()
    figures["Posterior of pi beside every baseline"] = png(fig)
    return figures


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


def write_panel_report(
    out: str | os.PathLike[str],
    analysis: PanelAnalysis,
    *,
    source: str = "panel",
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> PanelReportFiles:
    """Write a panel report folder (see the module docstring for its files).

    Parameters
    ----------
    out : path
        The report folder: refused before any work if it cannot be written safely, replaced as
        a whole only once every file is written.
    analysis : PanelAnalysis
        What :func:`bayesjudge.analyze_panel` returned.
    source : str
        Where the data came from (shown in the title).
    inputs : iterable of paths
        The files the command read (the report folder may not hold them).

    Returns
    -------
    PanelReportFiles
    """
    inputs = list(inputs)
    target = check_output_folder(out, inputs=inputs)
    summaries = analysis.to_frame()
    estimates = analysis.estimates_frame()
    for column in ("estimate", "low", "high", "prob", "std_error", "j", "unclipped"):
        estimates[column] = estimates[column].astype(float)
    diagnostics = analysis.diagnostics.to_frame()
    figures = _figures(analysis)
    mass = f"{100 * analysis.prob:g}%"
    status = "passed" if analysis.passed else "FAILED"
    title = f"bayesjudge panel report: {source}"
    summary = panel_summary(analysis)
    judges = ", ".join(html.escape(j) for j in analysis.judges)
    body = f"""{summary.to_html()}
<p>bayesjudge {__version__}, model <code>panel</code> (dependence
<code>{html.escape(analysis.dependence)}</code>), judges {judges}, priors
<code>{html.escape(analysis.priors.describe())}</code>, calibration
<code>{html.escape(analysis.calibration)}</code>, seed {html.escape(str(analysis.seed))}.</p>
<h2>Figures</h2>
{figures_html(figures)}
<details><summary>Posterior summaries ({mass} equal-tailed intervals)</summary>
{table_html(summaries)}</details>
<details><summary>Baselines ({mass} intervals)</summary>
{table_html(estimates)}</details>
<details><summary>Diagnostics: {status}</summary>
{diagnostics_html(diagnostics)}</details>"""
    markdown = "\n\n".join(
        [
            f"# {escape_markdown(title)}",
            summary.to_markdown(),
            f"## Posterior summaries ({mass} equal-tailed intervals)",
            markdown_table(summaries),
            f"## Baselines ({mass} intervals)",
            markdown_table(estimates),
            f"## Diagnostics: {status}",
            markdown_table(diagnostics),
            "Figures: see report.html. Posterior: posterior.nc "
            '(`xarray.open_datatree("posterior.nc")`).',
            footer_markdown(analysis.seed),
        ]
    )
    with output_folder(target, inputs=inputs) as staging:
        write_posterior(analysis.posterior, staging / "posterior.nc")
        write_csv(summaries, staging / "posterior.csv")
        write_csv(estimates, staging / "estimates.csv")
        write_csv(diagnostics, staging / "diagnostics.csv")
        (staging / "report.html").write_text(
            html_page(title, body, footer=footer_html(analysis.seed)), encoding="utf-8"
        )
        (staging / "summary.md").write_text(markdown + "\n", encoding="utf-8")
        (staging / "provenance.json").write_text(
            json.dumps({k: str(v) for k, v in analysis.posterior.attrs.items()}, indent=1),
            encoding="utf-8",
        )
    return PanelReportFiles(
        folder=target,
        html=target / "report.html",
        markdown=target / "summary.md",
        posterior=target / "posterior.nc",
        summaries=target / "posterior.csv",
        estimates=target / "estimates.csv",
        diagnostics=target / "diagnostics.csv",
    )
