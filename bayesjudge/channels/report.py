"""The report of a channel audit: phase plane, slice table and composition audit.

:func:`report_content` says what the report holds; :func:`bayesjudge.write_report` writes it
(:mod:`bayesjudge.reporting.pipeline`): ``report.html`` (self-contained, figures as PNG data
URIs), ``summary.md``, ``steps.csv``, ``analysis.json`` and ``posterior.nc`` (the exact
composition posterior and, when fitted, the slice hierarchy). The one-screen summary is
:func:`~bayesjudge.channels.analysis.channel_summary`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import xarray as xr

from bayesjudge._version import __version__
from bayesjudge.channels.analysis import (
    ChannelAnalysis,
    Composition,
    channel_summary,
    steps_frame,
)
from bayesjudge.channels.kernels import GAP_NAMES, break_even
from bayesjudge.reporting.figures import histogram_bins
from bayesjudge.reporting.html import png
from bayesjudge.reporting.pipeline import ReportContent, Section

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "channel_summary",
    "composition_text",
    "phase_plane",
    "report_content",
    "steps_frame",
]

#: Baselines whose break-even rays the phase plane draws besides each step's own.
RAY_BASELINES = (0.5, 0.75, 0.9, 0.955)


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


def report_content(analysis: ChannelAnalysis, *, source: str = "") -> ReportContent:
    """Return what the report of a channel audit holds (:mod:`bayesjudge.reporting.pipeline`).

    Sections: the steps, the slices of the first step and the mixture shift (with
    ``by_slice``), the composition audit (with two steps or more). Figures: the phase plane
    and the posterior of the composition gap. Files: ``steps.csv`` and ``analysis.json``
    (:meth:`~bayesjudge.channels.analysis.ChannelAnalysis.to_dict`); ``posterior.nc`` holds
    the exact composition posterior and, when fitted, the slice hierarchy.

    Examples
    --------
    >>> from bayesjudge.channels import PairedOutcomes, analyze_channel, simulate_stack
    >>> table = simulate_stack(300, p0=0.5, c=[0.3, 0.2], gamma=[0.1, 0.05], random_seed=1)
    >>> content = report_content(analyze_channel(PairedOutcomes.from_frame(table)))
    >>> [s.title for s in content.sections]
    ['Steps', 'Composition audit']
    """
    figures = {"Phase plane": png(phase_plane(analysis))}
    sections = [Section("Steps", table=analysis.to_frame())]
    slices = _slices_frame(analysis)
    if slices is not None:
        sections.append(Section("Slices (first step, partially pooled)", table=slices))
    if analysis.slices is not None and analysis.slices.mixture is not None:
        m = analysis.slices.mixture
        h = m["hierarchical"]
        line = (
            f"Mixture-shift prediction of p1 under {m['weights']}: pooled {m['pooled']:.4f}, "
            f"slice-conditioned {m['sliced']:.4f}, hierarchical {h['mean']:.4f} "
            f"[{h['low']:.4f}, {h['high']:.4f}]."
        )
        sections.append(Section("Mixture shift", text=line))
    composition = analysis.composition
    if composition is not None:
        figures["Composition gap"] = png(_gap_figure(composition.posterior))
        sections.append(
            Section(
                "Composition audit",
                text=composition_text(composition, prob=analysis.prob),
                table=_kernel_frame(composition.posterior),
            )
        )
    groups: dict[str, xr.Dataset] = {"exact_steps": analysis.exact["posterior"].to_dataset()}
    if composition is not None:
        groups["composition"] = composition.posterior["posterior"].to_dataset()
    if analysis.slices is not None:
        for name, child in analysis.slices.fit.children.items():
            groups[f"slices/{name}"] = child.to_dataset()
    tree = xr.DataTree.from_dict(groups)
    tree.attrs = {"bayesjudge_version": __version__, "source": source}
    return ReportContent(
        title=f"Channel audit of {source or 'paired outcomes'}",
        summary=analysis.summary(),
        about=(
            f"{analysis.steps[0].n} items, stages {', '.join(analysis.stages)}; intervals of "
            f"mass {analysis.prob:g}; diagnostics cover the {analysis.method}."
        ),
        sections=sections,
        figures=figures,
        posterior=tree,
        seed=analysis.seed,
        files={"steps.csv": analysis.to_frame(), "analysis.json": analysis.to_dict()},
    )
