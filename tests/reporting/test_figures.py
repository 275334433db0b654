"""Shared report figures: histograms as one step patch, figures on their own Agg canvas."""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayesjudge.reporting.figures import (
    FIGURE_DPI,
    density_stairs,
    histogram_bins,
    new_figure,
    trace_figure,
)


def test_density_stairs_draws_what_hist_draws_as_one_artist() -> None:
    values = np.random.default_rng(1).beta(30, 20, size=3000)
    edges = histogram_bins(values)
    fig = new_figure((6.0, 3.0))
    stairs_ax, hist_ax = fig.subplots(1, 2)
    density_stairs(stairs_ax, values, edges, color="#4c72b0", alpha=0.6)
    heights, _, _ = hist_ax.hist(values, bins=edges, density=True, alpha=0.6, lw=0)
    assert len(stairs_ax.patches) == 1
    assert len(hist_ax.patches) == len(edges) - 1
    step = stairs_ax.patches[0].get_data()
    np.testing.assert_allclose(step.values, heights, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(step.edges, edges)
    # the same axes: sitting on zero, the same margins either side
    np.testing.assert_allclose(stairs_ax.get_xlim(), hist_ax.get_xlim(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(stairs_ax.get_ylim(), hist_ax.get_ylim(), rtol=0, atol=1e-12)
    assert stairs_ax.get_ylim()[0] == 0.0


def test_density_stairs_outline_matches_a_step_histogram() -> None:
    values = np.random.default_rng(2).normal(size=500)
    edges = histogram_bins(values)
    fig = new_figure((6.0, 3.0))
    stairs_ax, hist_ax = fig.subplots(1, 2)
    density_stairs(stairs_ax, values, edges, fill=False, color="C1", lw=1.3)
    hist_ax.hist(values, bins=edges, density=True, histtype="step", color="C1", lw=1.3)
    patch = stairs_ax.patches[0]
    assert not patch.get_fill()
    np.testing.assert_allclose(stairs_ax.get_ylim(), hist_ax.get_ylim(), rtol=0, atol=1e-12)


def test_figures_are_made_on_an_agg_canvas_at_the_encoding_resolution() -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    rng = np.random.default_rng(0)
    ds = xr.Dataset({"pi": (("chain", "draw"), rng.normal(size=(4, 300)))})
    fig = trace_figure(ds, ["pi"])
    assert fig.dpi == FIGURE_DPI
    assert isinstance(fig.canvas, FigureCanvasAgg)
    # one step patch per chain on the histogram panel, instead of a polygon per hist call
    assert len(fig.axes[1].patches) == 4
