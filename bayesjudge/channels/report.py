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
from bayesjudge.channels.kernels import GAP_NAMES, break_even
from bayesjudge.reporting.figures import histogram_bins
from bayesjudge.reporting.html import html_page, markdown_table, png, table_html
from bayesjudge.reporting.netcdf import write_posterior
from bayesjudge.reporting.output import (
    escape_markdown,
    escape_markdown_prose,
    output_folder,
    write_csv,
)
from bayesjudge.reporting.summary import (
    Headline,
    ReportSummary,
    ReportWarning,
    diagnostics_section_html,
    diagnostics_section_markdown,
    footer_html,
    footer_markdown,
    wide_interval_warning,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from bayesjudge.channels.analysis import ChannelAnalysis, Composition

__all__ = [
    "ChannelReportFiles",
    "channel_summary",
    "composition_text",
    "phase_plane",
    "steps_frame",
    "write_channel_report",
]

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
    accuracy (Correction and Corruption, 2025, eq. 7 and Fig. 11).
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
        # label each ray inside the axes: at the right edge, or where it leaves the top
        if y_end < 0.97:
            ax.annotate(
                f"p0={p:g}",
                (0.99 * g_max, y_end),
                fontsize=7,
                color="0.4",
                ha="right",
                va="bottom",
            )
        elif p < 1:
            x_top = 0.97 * (1 - p) / p
            ax.annotate(
                f"p0={p:g}",
                (x_top, 0.97),
                fontsize=7,
                color="0.4",
                ha="right",
                va="top",
                rotation=0,
            )
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
        for k, sl in enumerate(_by_slice(analysis)):
            ax.errorbar(
                sl.gamma.mean,
                sl.c.mean,
                xerr=[[sl.gamma.mean - sl.gamma.eti.low], [sl.gamma.eti.high - sl.gamma.mean]],
                yerr=[[sl.c.mean - sl.c.eti.low], [sl.c.eti.high - sl.c.mean]],
                fmt="s",
                ms=4,
                color="0.3",
                alpha=0.7,
                label="slice of the first step (partially pooled)" if k == 0 else None,
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
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    fig.tight_layout()
    return fig


def _gap_figure(composition: xr.DataTree) -> Figure:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.0, 2.8))
    axes = fig.subplots(1, 2)
    for ax, name in zip(axes, ("gap_max", "gap_mean"), strict=True):
        draws = np.asarray(composition["posterior"][name]).reshape(-1)
        ax.hist(draws, bins=histogram_bins(draws), color="#8172b3", alpha=0.8)
        ax.set_xlabel(GAP_NAMES[name], fontsize=8)
    axes[0].set_ylabel("posterior draws")
    fig.suptitle("Posterior of the composition gap (direct T0S vs composed product)", fontsize=9)
    fig.tight_layout()
    return fig


def composition_text(composition: Composition, *, prob: float) -> str:
    """Return the composition audit in words: both gaps, each named for what it computes.

    Examples
    --------
    >>> from bayesjudge.channels import PairedOutcomes, analyze_channel, simulate_stack
    >>> table = simulate_stack(300, p0=0.5, c=[0.3, 0.2], gamma=[0.1, 0.05], random_seed=1)
    >>> analysis = analyze_channel(PairedOutcomes.from_frame(table), random_seed=1)
    >>> print(composition_text(analysis.composition, prob=0.95))  # doctest: +ELLIPSIS
    Direct against composed kernel: largest entry difference max |T_direct - T_composed| ...
    """
    mass = f"{100 * prob:g}%"
    gaps = "; ".join(
        f"{GAP_NAMES[name]} {s.mean:.4f} ({mass} interval {s.eti.low:.4f} to {s.eti.high:.4f})"
        for name, s in (("gap_max", composition.gap_max), ("gap_mean", composition.gap_mean))
    )
    markov = composition.markov
    return (
        f"Direct against composed kernel: {gaps}. The second adds the differences of both "
        "rows, so it can exceed the first. Markov check (does a step depend only on the stage "
        f"before it?): tail probability {markov.tail_probability:.3f}, {markov.words}."
    )


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
    summary = channel_summary(analysis)
    about = (
        f"{analysis.steps[0].n} items, stages {', '.join(analysis.stages)}; intervals of mass "
        f"{analysis.prob:g}; diagnostics cover the {analysis.method}."
    )
    md = [
        f"# Channel audit of {escape_markdown(source or 'paired outcomes')}",
        "",
        summary.to_markdown(),
        "",
        escape_markdown_prose(about, line_start=True),
        "",
        "## Steps",
        "",
        markdown_table(steps),
    ]
    title = f"Channel audit of {source or 'paired outcomes'}"
    body = [
        summary.to_html(),
        f"<p>{html.escape(about)}</p>",
        "<h2>Steps</h2>",
        f'<div class="table-wrap">{table_html(steps)}</div>',
        "<h2>Phase plane</h2>",
        f"<img alt='phase plane' src='data:image/png;base64,{figures['Phase plane']}'>",
    ]
    if slices is not None:
        md += ["", "## Slices (first step, partially pooled)", "", markdown_table(slices)]
        body += [
            "<h2>Slices (first step, partially pooled)</h2>",
            f'<div class="table-wrap">{table_html(slices)}</div>',
        ]
    if analysis.slices is not None and analysis.slices.mixture is not None:
        m = analysis.slices.mixture
        h = m["hierarchical"]
        line = (
            f"Mixture-shift prediction of p1 under {m['weights']}: pooled {m['pooled']:.4f}, "
            f"slice-conditioned {m['sliced']:.4f}, hierarchical {h['mean']:.4f} "
            f"[{h['low']:.4f}, {h['high']:.4f}]."
        )
        md += ["", "## Mixture shift", "", escape_markdown_prose(line, line_start=True)]
        body += ["<h2>Mixture shift</h2>", f"<p>{html.escape(line)}</p>"]
    composition = analysis.composition
    if kernels is not None and composition is not None:
        audit = composition_text(composition, prob=analysis.prob)
        md += [
            "",
            "## Composition audit",
            "",
            escape_markdown_prose(audit, line_start=True),
            "",
            markdown_table(kernels),
        ]
        body += [
            "<h2>Composition audit</h2>",
            f"<p>{html.escape(audit)}</p>",
            table_html(kernels),
            f"<img alt='composition gap' src='data:image/png;base64,{figures['Composition gap']}'>",
        ]
    md += [
        "",
        diagnostics_section_markdown(analysis.diagnostics, quantities=REPORTED, names=NAMES),
        "",
        footer_markdown(analysis.seed),
    ]
    body.append(diagnostics_section_html(analysis.diagnostics, quantities=REPORTED, names=NAMES))
    page = html_page(title, "\n".join(body), footer=footer_html(analysis.seed))

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
        write_csv(steps, folder / "steps.csv")
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
