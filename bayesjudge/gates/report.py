"""Reports of a retry-gate fit: self-contained HTML, a Markdown summary and the posterior.

:func:`write_gate_report` writes, through :func:`bayesjudge.reporting.output.output_folder` (a
folder it did not write is refused; the report is staged and switched into place only when
every file and the manifest are written): ``report.html`` (figures embedded as PNG),
``summary.md``, ``posterior.nc`` (``xarray.open_datatree``), ``estimates.csv``, ``curve.csv``
(posterior J, Se, Sp, R by cap) and ``diagnostics.csv``. Figures: the J(K) curve with its band
and J(inf), Se(K) and Sp(K) with bands, and the posterior of pi against the baseline intervals
at each cap.
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
import pandas as pd
import xarray as xr

from bayesjudge._version import __version__
from bayesjudge.gates.fit import cap_curve_draws
from bayesjudge.reporting.html import (
    diagnostics_html,
    figures_html,
    html_page,
    markdown_table,
    png,
    table_html,
)
from bayesjudge.reporting.netcdf import write_posterior
from bayesjudge.reporting.output import escape_markdown, output_folder

if TYPE_CHECKING:
    from bayesjudge.gates.analysis import GateAnalysis

__all__ = ["GateReportFiles", "curve_frame", "write_gate_report"]


@dataclass(frozen=True, slots=True)
class GateReportFiles:
    """Paths of the files of a gate report."""

    folder: Path
    html: Path
    markdown: Path
    posterior: Path
    estimates: Path
    curve: Path
    diagnostics: Path


def curve_frame(posterior: xr.DataTree, caps: list[int], *, prob: float = 0.95) -> pd.DataFrame:
    """Return posterior mean and equal-tailed bounds of J, Se, Sp, R at each of ``caps``.

    Columns: ``cap``, then ``<name>``, ``<name>_low``, ``<name>_high`` for ``j``, ``se``,
    ``sp``, ``judged_rate``; computed from the class parameters' draws, so any cap works.
    """
    draws = cap_curve_draws(posterior["posterior"].to_dataset(), caps)
    tail = (1.0 - prob) / 2.0
    frame = pd.DataFrame({"cap": draws["cap"].to_numpy()})
    for name in ("j", "se", "sp", "judged_rate"):
        values = draws[name].transpose("chain", "draw", "cap").to_numpy()
        values = values.reshape(-1, frame.shape[0])
        frame[name] = values.mean(axis=0)
        frame[f"{name}_low"] = np.quantile(values, tail, axis=0)
        frame[f"{name}_high"] = np.quantile(values, 1.0 - tail, axis=0)
    return frame


def _figures(
    posterior: xr.DataTree, curve: pd.DataFrame, estimates: pd.DataFrame, *, prob: float
) -> dict[str, str]:
    from matplotlib.figure import Figure

    figures: dict[str, str] = {}
    post = posterior["posterior"]
    mass = f"{100 * prob:g}%"

    fig = Figure(figsize=(6.5, 3.6))
    ax = fig.subplots()
    ax.fill_between(curve["cap"], curve["j_low"], curve["j_high"], color="#4c72b0", alpha=0.25)
    ax.plot(curve["cap"], curve["j"], "o-", color="#4c72b0", label="J(K)")
    j_inf = post["j_inf"].to_numpy().reshape(-1)
    low, high = np.quantile(j_inf, [(1 - prob) / 2, (1 + prob) / 2])
    ax.axhspan(low, high, color="#c44e52", alpha=0.15)
    ax.axhline(j_inf.mean(), color="#c44e52", ls="--", label="reliability floor J(inf)")
    ax.set_xlabel("cap K")
    ax.set_ylabel("Youden J")
    ax.set_title(f"J(K) with its {mass} band")
    ax.legend(fontsize=8)
    fig.tight_layout()
    figures[f"J(K) and the reliability floor ({mass} bands)"] = png(fig)

    fig = Figure(figsize=(6.5, 3.6))
    ax = fig.subplots()
    for name, label, colour in (
        ("se", "Se", "#55a868"),
        ("sp", "Sp", "#dd8452"),
        ("judged_rate", "R", "#8172b3"),
    ):
        ax.fill_between(
            curve["cap"], curve[f"{name}_low"], curve[f"{name}_high"], color=colour, alpha=0.2
        )
        ax.plot(curve["cap"], curve[name], "o-", color=colour, label=label)
    ax.set_xlabel("cap K")
    ax.set_ylim(0, 1)
    ax.set_title("Sensitivity, specificity and reported rate by cap")
    ax.legend(fontsize=8)
    fig.tight_layout()
    figures[f"Se(K), Sp(K) and R(K) ({mass} bands)"] = png(fig)

    draws = post["pi"].to_numpy().reshape(-1)
    low, high = np.quantile(draws, [(1 - prob) / 2, (1 + prob) / 2])
    model_row = pd.DataFrame(
        [{"cap": "all", "method": "gate model", "estimate": draws.mean(), "low": low, "high": high}]
    )
    rows = pd.concat([model_row, estimates.dropna(subset=["low", "high"])], ignore_index=True)
    fig = Figure(figsize=(7.5, 3.2 + 0.25 * len(rows)))
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2.0, 0.3 + 0.3 * len(rows)])
    top.hist(draws, bins=60, density=True, color="#4c72b0", alpha=0.75)
    top.set_ylabel("posterior density")
    top.set_title(f"True success rate pi: posterior and baseline {mass} intervals by cap")
    for position, (_, row) in enumerate(rows.iterrows()):
        colour = "#4c72b0" if row["method"] == "gate model" else "#dd8452"
        bottom.plot([row["low"], row["high"]], [position, position], color=colour, lw=2.5)
        if pd.notna(row["estimate"]):
            bottom.plot(row["estimate"], position, "o", color=colour)
    labels = [f"{m} (K={k})" for m, k in zip(rows["method"], rows["cap"], strict=True)]
    bottom.set_yticks(range(len(rows)), labels, fontsize=7)
    bottom.invert_yaxis()
    bottom.set_xlabel("pi")
    fig.tight_layout()
    figures["Posterior of pi beside the baselines"] = png(fig)
    return figures


def write_gate_report(
    out: str | os.PathLike[str],
    analysis: GateAnalysis,
    *,
    source: str = "rulings",
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> GateReportFiles:
    """Write a gate report folder (see the module docstring for its files).

    Parameters
    ----------
    out : path
        The report folder: a new or empty folder, or a report bayesjudge wrote there with
        nothing changed since (see :func:`bayesjudge.reporting.output.check_output_folder`).
        It is replaced as a whole, and only once every file is written.
    analysis : GateAnalysis
        What :func:`bayesjudge.analyze_gate` returned.
    source : str
        Where the data came from.
    inputs : iterable of paths
        The files the analysis read: a folder holding one of them is refused.

    Returns
    -------
    GateReportFiles

    Raises
    ------
    OutputError
        When ``out`` is refused, another run is writing it, or a file cannot be written (the
        destination is then untouched).

    Examples
    --------
    >>> import tempfile
    >>> from bayesjudge.gates import Rulings, analyze_gate, rejudgment_gate, table4_gate
    >>> gate = rejudgment_gate(*table4_gate(0.9, 0.3), pi=0.5, n_items=300, rulings=4,
    ...                        labelled_fraction=0.3, random_seed=1)
    >>> analysis = analyze_gate(Rulings.from_frame(gate.table))  # doctest: +SKIP
    >>> write_gate_report(tempfile.mkdtemp(), analysis).curve.name  # doctest: +SKIP
    'curve.csv'
    """
    posterior, rulings, prob = analysis.posterior, analysis.rulings, analysis.prob
    dense = sorted({*range(1, min(max(analysis.caps), 30) + 1), *analysis.caps})
    curve = curve_frame(posterior, dense, prob=prob)
    estimate_frame = analysis.estimates_frame()
    for column in ("estimate", "low", "high", "prob", "se", "j", "unclipped"):
        estimate_frame[column] = estimate_frame[column].astype(float)
    posterior_rows = pd.DataFrame(
        [{"quantity": name, **s.to_dict()} for name, s in analysis.summaries.items()]
    )
    diag_frame = analysis.diagnostics.to_frame()
    status = "passed" if analysis.passed else "FAILED"
    figures = _figures(posterior, curve, estimate_frame, prob=prob)
    mass = f"{100 * prob:g}%"
    title = f"bayesjudge gate report: {source}"
    pi = analysis.summary("pi")
    reading = (
        f"{rulings.items.size} items ({int(rulings.labelled.sum())} gold-labelled), "
        f"{int(rulings.r.sum())} rulings. True success rate pi = {pi.mean:.3f} "
        f"({mass} interval {pi.eti.low:.3f} to {pi.eti.high:.3f}); reliability floor "
        f"J(inf) = {analysis.summary('j_inf').mean:.3f}."
    )
    independence, loop = analysis.independence, analysis.loop
    extra_md: list[str] = []
    extra_html: list[str] = []
    if independence is not None:
        verdict = "consistent with" if independence.consistent else "NOT consistent with"
        text = (
            f"Lag-1 same-verdict rate {independence.observed:.4f} against "
            f"{independence.expected:.4f} expected under independence (difference "
            f"{independence.difference:+.4f}, permutation p = {independence.p_value:.3f}): "
            f"{verdict} independent rulings; {100 * independence.flippy:.1f}% of items are flippy."
        )
        extra_md += ["## Independence of repeated rulings", text]
        extra_html.append(f"<h2>Independence of repeated rulings</h2><p>{html.escape(text)}</p>")
    if loop is not None:
        loop_frame = pd.DataFrame(
            [
                {
                    "cap": row["cap"],
                    "reported": row["reported"],
                    "delivered": row["delivered"],
                    "slip": row["slip"],
                    "slip_predicted": row["slip_predicted"],
                    "ppv_corrected": row["ppv_corrected"]["estimate"],
                }
                for row in loop.caps
            ]
        )
        law = loop.slip_law
        text = (
            f"Slip law: a = {law['a']:.3f}, s = {law['s']:.3f}, leak = {law['leak']:.3f}, "
            f"rho = {law['rho']:.3f}."
        )
        extra_md += ["## Revise-then-rejudge loop", text, markdown_table(loop_frame)]
        extra_html.append(
            f"<h2>Revise-then-rejudge loop</h2><p>{html.escape(text)}</p>{table_html(loop_frame)}"
        )
    with output_folder(out, inputs=inputs, kind="report") as staging:
        write_posterior(posterior, staging / "posterior.nc")
        estimate_frame.to_csv(staging / "estimates.csv", index=False)
        curve.to_csv(staging / "curve.csv", index=False)
        diag_frame.to_csv(staging / "diagnostics.csv", index=False)
        diag_html = diagnostics_html(diag_frame)
        figure_html = figures_html(figures)
        priors = html.escape(analysis.priors.describe())
        body = f"""<p>bayesjudge {__version__}, model <code>gate</code>,
priors <code>{priors}</code>, calibration <code>{analysis.calibration}</code>,
seed {html.escape(str(analysis.seed))}.</p>
<h2>Reading</h2><p class="reading">{html.escape(reading)}</p>
<h2>Posterior ({mass} equal-tailed intervals)</h2>
{table_html(posterior_rows)}
<h2>Baselines at each cap ({mass} intervals)</h2>
{table_html(estimate_frame)}
<h2>Diagnostics: {status}</h2>
{diag_html}
{"".join(extra_html)}
<h2>Figures</h2>
{figure_html}"""
        page = html_page(title, body)
        (staging / "report.html").write_text(page, encoding="utf-8")
        markdown = "\n\n".join(
            [
                f"# {escape_markdown(title)}",
                reading,
                f"## Posterior ({mass} equal-tailed intervals)",
                markdown_table(posterior_rows),
                f"## Baselines at each cap ({mass} intervals)",
                markdown_table(estimate_frame),
                f"## Diagnostics: {status}",
                markdown_table(diag_frame),
                *extra_md,
                "Figures: see report.html. Posterior: posterior.nc "
                '(`xarray.open_datatree("posterior.nc")`). Attrs: '
                + escape_markdown(json.dumps({k: str(v) for k, v in posterior.attrs.items()})),
            ]
        )
        (staging / "summary.md").write_text(markdown + "\n", encoding="utf-8")
    folder = Path(os.path.abspath(out))
    return GateReportFiles(
        folder=folder,
        html=folder / "report.html",
        markdown=folder / "summary.md",
        posterior=folder / "posterior.nc",
        estimates=folder / "estimates.csv",
        curve=folder / "curve.csv",
        diagnostics=folder / "diagnostics.csv",
    )
