"""Convergence figures every report draws the same way: rank plots and traces, labelled.

Both take a posterior dataset of scalar variables (dims ``chain``, ``draw``) and readable
names; text sizes are set for a 1000-pixel-wide page, chains are told apart by colour and a
legend, and every axis says what it shows. Every report figure is made by :func:`new_figure`
(on its own Agg canvas, at the resolution it is encoded at) and draws a histogram as one step
patch (:func:`density_stairs`), which keeps the drawing cheap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import xarray as xr
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "CHAIN_COLOURS",
    "FIGURE_DPI",
    "density_stairs",
    "histogram_bins",
    "interval_figure",
    "new_figure",
    "rank_figure",
    "trace_figure",
]

#: Resolution of every report figure (pixels per inch), the one its PNG is encoded at.
FIGURE_DPI = 110

#: Colours of chains 0, 1, 2, ... (repeated beyond eight).
CHAIN_COLOURS = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
)


def histogram_bins(values: np.ndarray, *, low: int = 15, high: int = 50) -> list[float]:
    """Return histogram bin edges by the Freedman-Diaconis rule, between ``low`` and ``high`` bins.

    Examples
    --------
    >>> len(histogram_bins(np.random.default_rng(0).normal(size=8000))) - 1
    50
    """
    values = np.asarray(values, dtype=float).reshape(-1)
    values = values[np.isfinite(values)]
    edges = np.histogram_bin_edges(values, bins="fd")
    bins = int(np.clip(edges.size - 1, low, high))
    return [float(x) for x in np.histogram_bin_edges(values, bins=bins)]


def new_figure(figsize: tuple[float, float]) -> Figure:
    """Return an empty figure of ``figsize`` inches at :data:`FIGURE_DPI`, on an Agg canvas.

    Laid out (``tight_layout``) and encoded (:func:`bayesjudge.reporting.html.png`) at the
    same resolution on the same canvas, a figure measures its text once: matplotlib keeps text
    extents per renderer and resolution, and the canvas keeps its renderer.

    Examples
    --------
    >>> fig = new_figure((4.0, 3.0))
    >>> fig.dpi, type(fig.canvas).__name__
    (110, 'FigureCanvasAgg')
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=FIGURE_DPI)
    FigureCanvasAgg(fig)
    return fig


def density_stairs(ax: Axes, values: np.ndarray, edges: Sequence[float], **kwargs: Any) -> None:
    """Draw the density histogram of ``values`` over ``edges`` as one step patch.

    What ``ax.hist(values, bins=edges, density=True, ...)`` draws, as a single artist
    (``ax.stairs``) instead of one rectangle per bin: filled unless ``fill=False`` is given,
    sitting on zero like a histogram.

    Examples
    --------
    >>> fig = new_figure((4.0, 3.0))
    >>> ax = fig.subplots()
    >>> density_stairs(ax, np.array([0.1, 0.2, 0.2, 0.9]), [0.0, 0.5, 1.0])
    >>> ax.patches[0].get_data().values.tolist()
    [1.5, 0.5]
    """
    counts, _ = np.histogram(values, bins=np.asarray(edges, dtype=float), density=True)
    kwargs.setdefault("fill", True)
    ax.stairs(counts, edges, baseline=0.0, **kwargs)


def _draws(posterior: xr.Dataset, name: str) -> np.ndarray:
    return np.asarray(posterior[name].transpose("chain", "draw"), dtype=float)


def rank_figure(
    posterior: xr.Dataset,
    var_names: Sequence[str],
    *,
    labels: Mapping[str, str] | None = None,
    bins: int = 20,
) -> Figure:
    """Draw one rank plot per variable: each chain's histogram of pooled ranks.

    When the chains agree, every chain's ranks are uniform: its line stays inside the grey band
    (the central 99% of a bin count under uniform ranks, by the binomial distribution).

    Examples
    --------
    >>> import xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> ds = xr.Dataset({"pi": (("chain", "draw"), rng.normal(size=(4, 500)))})
    >>> rank_figure(ds, ["pi"]).axes[0].get_xlabel()
    'rank among all draws'
    """
    from scipy.stats import binom, rankdata

    labels = labels or {}
    n = len(var_names)
    fig = new_figure((min(4.2 * n, 12.0), 3.3))
    axes = np.atleast_1d(fig.subplots(1, n))
    for ax, name in zip(axes, var_names, strict=True):
        draws = _draws(posterior, name)
        chains, per_chain = draws.shape
        ranks = rankdata(draws.reshape(-1)).reshape(chains, per_chain)
        edges = np.linspace(0.5, ranks.size + 0.5, bins + 1)
        expected = per_chain / bins
        low, high = np.asarray(binom.ppf([0.005, 0.995], per_chain, 1.0 / bins)).tolist()
        ax.axhspan(low, high, color="0.85", label="99% band for uniform ranks")
        ax.axhline(expected, color="0.4", lw=1, ls="--")
        for chain in range(chains):
            counts, _ = np.histogram(ranks[chain], bins=edges)
            ax.stairs(
                counts,
                edges,
                baseline=None,
                color=CHAIN_COLOURS[chain % len(CHAIN_COLOURS)],
                lw=1.6,
                label=f"chain {chain}",
            )
        ax.set_title(labels.get(name, name), fontsize=11)
        ax.set_xlabel("rank among all draws")
        ax.set_ylim(0, max(high, float(np.max(ax.get_ylim()))) * 1.15)
    axes[0].set_ylabel("draws per bin")
    axes[-1].legend(fontsize=8, loc="lower right", ncol=2)
    fig.tight_layout()
    return fig


def trace_figure(
    posterior: xr.Dataset,
    var_names: Sequence[str],
    *,
    labels: Mapping[str, str] | None = None,
) -> Figure:
    """Draw, per variable, the trace of every chain and each chain's marginal histogram.

    Examples
    --------
    >>> import xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> ds = xr.Dataset({"pi": (("chain", "draw"), rng.normal(size=(4, 500)))})
    >>> trace_figure(ds, ["pi"]).axes[0].get_xlabel()
    'draw (after tuning)'
    """
    labels = labels or {}
    n = len(var_names)
    fig = new_figure((10.0, 2.4 * n + 0.4))
    axes = np.atleast_2d(fig.subplots(n, 2, width_ratios=[2.2, 1.0], squeeze=False))
    for row, name in enumerate(var_names):
        draws = _draws(posterior, name)
        label = labels.get(name, name)
        edges = histogram_bins(draws)
        trace, density = axes[row]
        for chain in range(draws.shape[0]):
            colour = CHAIN_COLOURS[chain % len(CHAIN_COLOURS)]
            trace.plot(draws[chain], color=colour, lw=0.5, alpha=0.7, label=f"chain {chain}")
            density_stairs(density, draws[chain], edges, fill=False, color=colour, lw=1.3)
        trace.set_ylabel(label)
        trace.set_xlabel("draw (after tuning)")
        density.set_xlabel(label)
        density.set_ylabel("density")
    axes[0, 0].legend(fontsize=8, ncol=4, loc="upper right")
    axes[0, 0].set_title("Traces (chains should overlap, with no trend)", fontsize=10)
    axes[0, 1].set_title("Marginal posterior by chain", fontsize=10)
    fig.tight_layout()
    return fig


def interval_figure(
    draws: np.ndarray,
    rows: Sequence[tuple[str, Any, Any, Any, bool]],
    *,
    title: str,
    naive: float | None = None,
    naive_name: str = "judged pass rate (naive)",
    model_name: str = "Bayesian",
    other_name: str = "frequentist baseline",
) -> Figure:
    """Draw the posterior of pi above every method's estimate and interval, with a legend.

    ``rows`` are ``(label, estimate, low, high, bayesian)`` (numbers, NaN or None): Bayesian
    rows in blue, the others in orange; a row without an interval shows its estimate only.
    The posterior mean (and ``naive``, when given, dotted) is drawn across both panels.

    Examples
    --------
    >>> draws = np.random.default_rng(0).beta(30, 20, size=2000)
    >>> fig = interval_figure(draws, [("Rogan-Gladen", 0.6, 0.5, 0.7, False)], title="pi")
    >>> [t.get_text() for t in fig.axes[1].get_yticklabels()]
    ['Rogan-Gladen']
    """
    from matplotlib.lines import Line2D

    blue, orange = "#4c72b0", "#dd8452"
    fig = new_figure((8.0, 3.4 + 0.3 * len(rows)))
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2.0, 0.3 + 0.3 * len(rows)])
    density_stairs(top, draws, histogram_bins(draws), color=blue, alpha=0.6)
    top.set_ylabel("posterior density")
    top.set_title(title, fontsize=11)
    for ax in (top, bottom):
        ax.axvline(float(np.mean(draws)), color=blue, lw=1.2)
        if naive is not None:
            ax.axvline(naive, color="black", ls=":", lw=1.2)
    for position, (_, estimate, low, high, bayesian) in enumerate(rows):
        colour = blue if bayesian else orange
        if pd.notna(low) and pd.notna(high):
            bottom.plot([low, high], [position, position], color=colour, lw=2.5)
        if pd.notna(estimate):
            bottom.plot(estimate, position, "o", color=colour)
    bottom.set_yticks(
        range(len(rows)), [row[0] for row in rows], fontsize=8 if len(rows) < 12 else 7
    )
    bottom.invert_yaxis()
    bottom.set_xlabel("true success rate pi")
    handles = [
        Line2D([], [], color=blue, lw=2.5, marker="o", label=model_name),
        Line2D([], [], color=orange, lw=2.5, marker="o", label=other_name),
        Line2D([], [], color=blue, lw=1.2, label="posterior mean"),
    ]
    if naive is not None:
        handles.append(Line2D([], [], color="black", ls=":", lw=1.2, label=naive_name))
    top.legend(handles=handles, fontsize=8, loc="best", framealpha=0.9)
    fig.tight_layout()
    return fig
