"""Report of a channel audit: phase plane, slice table and composition audit.

:func:`write_channel_report` writes ``report.html`` (self-contained, figures as PNG data URIs),
``summary.md``, ``steps.csv``, ``analysis.json`` and ``posterior.nc`` (the exact composition
posterior and, when fitted, the slice hierarchy) through
:func:`bayesjudge.reporting.output.output_folder`: a folder it did not write is refused, and the
report is staged and switched into place only when every file and the manifest are written.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import xarray as xr

from bayesjudge._version import __version__
from bayesjudge.channels.kernels import break_even
from bayesjudge.reporting.html import html_page, markdown_table, png, table_html
from bayesjudge.reporting.netcdf import write_posterior
from bayesjudge.reporting.output import escape_markdown, output_folder

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from bayesjudge.channels.analysis import ChannelAnalysis

__all__ = ["ChannelReportFiles", "phase_plane", "steps_frame", "write_channel_report"]

#: Baselines whose break-even rays the phase plane draws besides each step's own.
RAY_BASELINES = (0.5, 0.75, 0.9, 0.955)


@dataclass(frozen=True, slots=True)
class ChannelReportFiles:
    """Paths of the files of a channel report."""

    folder: Path
    html: Path
    markdown: Path
    posterior: Path
    steps: Path


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


def _by_slice(analysis: ChannelAnalysis) -> tuple[Any, ...]:
    return () if analysis.slices is None else analysis.slices.by_slice


def _slices_frame(analysis: ChannelAnalysis) -> pd.DataFrame | None:
    if not _by_slice(analysis):
        return None
    return pd.DataFrame(
        [
            {
                "slice": s.slice,
                "n": s.n,
                "p0": s.p0,
                "p1": s.p1,
                "c (indep.)": s.c_jeffreys,
                "c (pooled)": s.c.mean,
                "c_low": s.c.eti.low,
                "c_high": s.c.eti.high,
                "gamma (indep.)": s.gamma_jeffreys,
                "gamma (pooled)": s.gamma.mean,
                "gamma_low": s.gamma.eti.low,
                "gamma_high": s.gamma.eti.high,
                "gain": s.gain.mean,
                "gate": "ON" if s.gate_on else "OFF",
            }
            for s in _by_slice(analysis)
        ]
    )


def phase_plane(analysis: ChannelAnalysis) -> Figure:
    r"""Draw the :math:`(\gamma, c)` phase plane with break-even rays and posterior intervals.

    A step above the ray of its baseline, :math:`c = \frac{p_0}{1 - p_0}\gamma`, improves
    accuracy (Correction and Corruption, anonymous, under review, eq. 7 and Fig. 11).
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 5.0))
    ax = fig.subplots()
    gammas = [s.gamma.eti.high for s in analysis.steps]
    gammas += [s.gamma.eti.high for s in _by_slice(analysis)]
    g_max = min(1.0, max(0.05, 1.25 * max(gammas)))
    grid = np.linspace(0.0, g_max, 50)
    baselines = list(RAY_BASELINES)
    for s in analysis.steps:  # each step's own baseline, unless a ray is already close
        if s.p0 < 1 and min(abs(s.p0 - p) for p in baselines) > 0.02:
            baselines.append(round(s.p0, 3))
    for p in baselines:
        ax.plot(grid, break_even(p, grid), color="0.6", lw=0.9, ls="--")
        y_end = float(break_even(p, g_max))
        if y_end < 1.0:
            ax.annotate(f"p0={p:g}", (g_max, y_end), fontsize=7, color="0.4")
    colours = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860"]
    for k, s in enumerate(analysis.steps):
        colour = colours[k % len(colours)]
        ax.errorbar(
            s.gamma_jeffreys,
            s.c_jeffreys,
            xerr=[[s.gamma_jeffreys - s.gamma.eti.low], [s.gamma.eti.high - s.gamma_jeffreys]],
            yerr=[[s.c_jeffreys - s.c.eti.low], [s.c.eti.high - s.c_jeffreys]],
            fmt="o",
            color=colour,
            label=f"{s.source}->{s.target} (p0={s.p0:.2f})",
        )
    if _by_slice(analysis):
        for sl in _by_slice(analysis):
            ax.errorbar(
                sl.gamma.mean,
                sl.c.mean,
                xerr=[[sl.gamma.mean - sl.gamma.eti.low], [sl.gamma.eti.high - sl.gamma.mean]],
                yerr=[[sl.c.mean - sl.c.eti.low], [sl.c.eti.high - sl.c.mean]],
                fmt="s",
                ms=4,
                color="0.3",
                alpha=0.7,
            )
            ax.annotate(
                sl.slice,
                (sl.gamma.mean, sl.c.mean),
                fontsize=7,
                xytext=(3, 3),
                textcoords="offset points",
            )
    ax.set_xlim(0, g_max)
    ax.set_ylim(0, 1)
    ax.set_xlabel("corruption rate gamma = P(E1=0 | E0=1)")
    ax.set_ylabel("correction rate c = P(E1=1 | E0=0)")
    ax.set_title(
        "Phase plane with break-even rays c = p0/(1-p0) gamma "
        f"({100 * analysis.prob:g}% intervals)",
        fontsize=9,
    )
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig


def _gap_figure(composition: xr.DataTree) -> Figure:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.0, 2.8))
    axes = fig.subplots(1, 2)
    for ax, name in zip(axes, ("gap_max", "gap_mean"), strict=True):
        draws = np.asarray(composition["posterior"][name]).reshape(-1)
        ax.hist(draws, bins=50, color="#8172b3", alpha=0.8)
        ax.set_xlabel(name)
    axes[0].set_ylabel("posterior draws")
    fig.suptitle("Posterior of the composition gap (direct T0S vs composed product)", fontsize=9)
    fig.tight_layout()
    return fig


def _kernel_frame(composition: xr.DataTree) -> pd.DataFrame:
    post = composition["posterior"]
    composed = np.asarray(post["composed"]).reshape(-1, 2, 2).mean(axis=0)
    direct = np.asarray(post["direct"]).reshape(-1, 2, 2).mean(axis=0)
    rows = []
    for a in (0, 1):
        for b in (0, 1):
            rows.append(
                {
                    "entry": f"T[{a},{b}]",
                    "direct": direct[a, b],
                    "composed": composed[a, b],
                    "difference": direct[a, b] - composed[a, b],
                }
            )
    return pd.DataFrame(rows)


def write_channel_report(
    out: str | os.PathLike[str],
    analysis: ChannelAnalysis,
    *,
    source: str = "",
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> ChannelReportFiles:
    """Write the report folder of a channel audit (see the module docstring).

    Parameters
    ----------
    out : path
        The report folder: a new or empty folder, or a report bayesjudge wrote there with
        nothing changed since (see :func:`bayesjudge.reporting.output.check_output_folder`).
        It is replaced as a whole, and only once every file is written.
    analysis : ChannelAnalysis
        From :func:`bayesjudge.channels.analysis.analyze_channel`.
    source : str
        Where the data came from, shown in the report.
    inputs : iterable of paths
        The files the analysis read: a folder holding one of them is refused.

    Returns
    -------
    ChannelReportFiles

    Raises
    ------
    OutputError
        When ``out`` is refused, another run is writing it, or a file cannot be written (the
        destination is then untouched).

    Examples
    --------
    >>> import tempfile
    >>> from bayesjudge.channels import PairedOutcomes, analyze_channel, simulate_stack
    >>> table = simulate_stack(300, p0=0.5, c=[0.3], gamma=[0.1], random_seed=1)
    >>> analysis = analyze_channel(PairedOutcomes.from_frame(table))
    >>> files = write_channel_report(tempfile.mkdtemp(), analysis, source="stack.csv")
    >>> files.steps.name
    'steps.csv'
    """
    import matplotlib.pyplot as plt

    steps = steps_frame(analysis)
    slices = _slices_frame(analysis)
    figures = {"Phase plane": png(phase_plane(analysis))}
    kernels = None
    if analysis.composition is not None:
        figures["Composition gap"] = png(_gap_figure(analysis.composition.posterior))
        kernels = _kernel_frame(analysis.composition.posterior)
    plt.close("all")

    payload = analysis.to_dict()
    verdict = "passed" if analysis.passed else "FAILED"
    md = [
        f"# Channel audit of {escape_markdown(source or 'paired outcomes')}",
        "",
        f"bayesjudge {__version__}; intervals of mass {analysis.prob:g}; "
        f"diagnostics **{verdict}** ({analysis.method}).",
        "",
        "## Steps",
        "",
        markdown_table(steps),
    ]
    title = f"Channel audit of {source or 'paired outcomes'}"
    body = [
        f"<p>bayesjudge {__version__}; intervals of mass {analysis.prob:g}; diagnostics "
        f"<span class='{'pass' if analysis.passed else 'fail'}'>{verdict}</span> "
        f"({html.escape(analysis.method)}).</p>",
        "<h2>Steps</h2>",
        table_html(steps),
        "<h2>Phase plane</h2>",
        f"<img alt='phase plane' src='data:image/png;base64,{figures['Phase plane']}'>",
    ]
    if slices is not None:
        md += ["", "## Slices (first step, partially pooled)", "", markdown_table(slices)]
        body += ["<h2>Slices (first step, partially pooled)</h2>", table_html(slices)]
    if analysis.slices is not None and analysis.slices.mixture is not None:
        m = analysis.slices.mixture
        h = m["hierarchical"]
        line = (
            f"Mixture-shift prediction of p1 under {m['weights']}: pooled {m['pooled']:.4f}, "
            f"slice-conditioned {m['sliced']:.4f}, hierarchical {h['mean']:.4f} "
            f"[{h['low']:.4f}, {h['high']:.4f}]."
        )
        md += ["", "## Mixture shift", "", escape_markdown(line)]
        body += ["<h2>Mixture shift</h2>", f"<p>{html.escape(line)}</p>"]
    composition = analysis.composition
    if kernels is not None and composition is not None:
        audit = (
            f"Composition gap: max {composition.gap_max.mean:.4f} "
            f"[{composition.gap_max.eti.low:.4f}, {composition.gap_max.eti.high:.4f}], mean "
            f"{composition.gap_mean.mean:.4f} [{composition.gap_mean.eti.low:.4f}, "
            f"{composition.gap_mean.eti.high:.4f}]. Markov check: tail probability "
            f"{composition.markov.tail_probability:.3f} -> {composition.markov.verdict}."
        )
        md += ["", "## Composition audit", "", audit, "", markdown_table(kernels)]
        body += [
            "<h2>Composition audit</h2>",
            f"<p>{html.escape(audit)}</p>",
            table_html(kernels),
            f"<img alt='composition gap' src='data:image/png;base64,{figures['Composition gap']}'>",
        ]
    summary = analysis.diagnostics_dict()
    failures = summary.pop("failures")
    diag = pd.DataFrame([summary])
    md += ["", "## Diagnostics", "", markdown_table(diag)]
    body += ["<h2>Diagnostics</h2>", table_html(diag)]
    if failures:
        items = "".join(f"<li>{html.escape(f)}</li>" for f in failures)
        body.append(f"<ul class='fail'>{items}</ul>")
        md += [""] + [f"- FAILED: {escape_markdown(f)}" for f in failures]
    page = html_page(title, "".join(body))

    groups: dict[str, xr.Dataset] = {"exact_steps": analysis.exact["posterior"].to_dataset()}
    if analysis.composition is not None:
        groups["composition"] = analysis.composition.posterior["posterior"].to_dataset()
    if analysis.slices is not None:
        for name, child in analysis.slices.fit.children.items():
            groups[f"slices/{name}"] = child.to_dataset()
    tree = xr.DataTree.from_dict(groups)
    tree.attrs = {"bayesjudge_version": __version__, "source": source}

    with output_folder(out, inputs=inputs, kind="report") as folder:
        (folder / "report.html").write_text(page, encoding="utf-8")
        (folder / "summary.md").write_text("\n".join(md) + "\n", encoding="utf-8")
        steps.to_csv(folder / "steps.csv", index=False)
        (folder / "analysis.json").write_text(
            json.dumps(_jsonable(payload), indent=2), encoding="utf-8"
        )
        write_posterior(tree, folder / "posterior.nc")
    final = Path(os.path.abspath(out))
    return ChannelReportFiles(
        folder=final,
        html=final / "report.html",
        markdown=final / "summary.md",
        posterior=final / "posterior.nc",
        steps=final / "steps.csv",
    )


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value
