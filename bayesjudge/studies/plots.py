"""Plots of a simulation study's summary table (:func:`bayesjudge.studies.summarize`).

Each function takes the summary DataFrame and returns a :class:`matplotlib.figure.Figure`
built without pyplot (no global figure state).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from bayesjudge.reporting.output import check_output_files, write_file_atomically

__all__ = ["plot_coverage", "plot_mae", "plot_width_vs_j", "save_study_figures"]


def _estimators(summary: pd.DataFrame, estimators: Sequence[str] | None) -> list[str]:
    available = list(dict.fromkeys(summary["estimator"]))
    if estimators is None:
        return available
    missing = [e for e in estimators if e not in available]
    if missing:
        raise ValueError(f"estimators {missing} are not in the summary; it has {available}")
    return list(estimators)


def _require(summary: pd.DataFrame, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in summary.columns]
    if missing:
        raise ValueError(f"the summary lacks column(s) {missing}; it has {list(summary.columns)}")


def plot_coverage(
    summary: pd.DataFrame,
    *,
    x: str = "theta",
    facet: str | None = "judge",
    prob: float = 0.95,
    estimators: Sequence[str] | None = None,
) -> Figure:
    r"""Coverage against ``x`` per estimator, with the nominal level and its Monte Carlo band.

    The grey band is :math:`\text{prob} \pm 2\sqrt{\text{prob}(1 - \text{prob})/n}` with ``n``
    the median number of replicates: where a correct interval's observed coverage falls 95 % of
    the time. Error bars are :math:`\pm 2` Monte Carlo standard errors. One panel per value of
    ``facet`` (when the summary has that column).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"theta": [0.1, 0.5], "estimator": ["a", "a"], "n": [100, 100],
    ...                       "coverage": [0.94, 0.96], "coverage_mcse": [0.02, 0.02]})
    >>> fig = plot_coverage(table, facet=None)
    >>> len(fig.axes)
    1
    """
    _require(summary, [x, "estimator", "coverage", "coverage_mcse", "n"])
    names = _estimators(summary, estimators)
    panels = list(dict.fromkeys(summary[facet])) if facet in summary.columns else [None]
    fig = Figure(figsize=(4.2 * len(panels), 3.6), layout="constrained")
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    n = float(np.median(summary["n"]))
    half = 2.0 * np.sqrt(prob * (1.0 - prob) / max(n, 1.0))
    for ax, panel in zip(axes, panels, strict=True):
        part = summary if panel is None else summary[summary[facet] == panel]
        lo, hi = float(part[x].min()), float(part[x].max())
        ax.axhspan(prob - half, prob + half, color="0.85", zorder=0)
        ax.axhline(prob, color="0.3", lw=1, ls="--")
        for name in names:
            rows = part[part["estimator"] == name].sort_values(x)
            ax.errorbar(
                rows[x],
                rows["coverage"],
                yerr=2 * rows["coverage_mcse"],
                marker="o",
                ms=3,
                lw=1,
                capsize=2,
                label=name,
            )
        ax.set_xlim(lo - 0.02 * (hi - lo + 1e-9), hi + 0.02 * (hi - lo + 1e-9))
        ax.set_xlabel(x)
        if panel is not None:
            ax.set_title(f"{facet} {panel}", fontsize=9)
    axes[0].set_ylabel(f"coverage of the {prob:.0%} interval")
    axes[0].set_ylim(-0.02, 1.02)
    axes[-1].legend(fontsize=7, loc="lower right")
    return fig


def plot_width_vs_j(
    summary: pd.DataFrame, *, j: pd.Series | None = None, estimators: Sequence[str] | None = None
) -> Figure:
    """Mean interval width against the judge's Youden J, per estimator (averaged over the rest).

    ``j`` maps each summary row to its J; by default the summary's ``j`` column, or
    ``q0 + q1 - 1`` when it has ``q0`` and ``q1``.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"q0": [0.7, 0.9], "q1": [0.9, 0.9], "estimator": ["a", "a"],
    ...                       "width": [0.3, 0.2]})
    >>> plot_width_vs_j(table).axes[0].get_xlabel()
    'judge J = q0 + q1 - 1'
    """
    _require(summary, ["estimator", "width"])
    if j is None:
        if "j" in summary.columns:
            j = summary["j"]
        elif {"q0", "q1"} <= set(summary.columns):
            j = summary["q0"] + summary["q1"] - 1.0
        else:
            raise ValueError("the summary has neither a 'j' column nor 'q0' and 'q1'; pass j=")
    frame = summary.assign(_j=np.round(np.asarray(j, dtype=float), 6))
    fig = Figure(figsize=(5.0, 3.6), layout="constrained")
    ax = fig.add_subplot()
    for name in _estimators(summary, estimators):
        rows = frame[frame["estimator"] == name].groupby("_j")["width"].mean()
        ax.plot(rows.index, rows.to_numpy(), marker="o", label=name)
    ax.set_xlabel("judge J = q0 + q1 - 1")
    ax.set_ylabel("mean interval width")
    ax.legend(fontsize=7)
    return fig


def plot_mae(summary: pd.DataFrame, *, estimators: Sequence[str] | None = None) -> Figure:
    """Mean absolute error of each estimator, averaged over the scenarios (horizontal bars).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"estimator": ["a", "b"], "mae": [0.05, 0.02]})
    >>> [t.get_text() for t in plot_mae(table).axes[0].get_yticklabels()]
    ['a', 'b']
    """
    _require(summary, ["estimator", "mae"])
    names = _estimators(summary, estimators)
    values = [float(summary.loc[summary["estimator"] == n, "mae"].mean()) for n in names]
    fig = Figure(figsize=(5.0, 0.4 * len(names) + 1.0), layout="constrained")
    ax = fig.add_subplot()
    ax.barh(np.arange(len(names)), values, color="tab:blue")
    ax.set_yticks(np.arange(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("mean absolute error (averaged over scenarios)")
    return fig


def save_study_figures(
    summary: pd.DataFrame,
    folder: str | os.PathLike[str],
    *,
    name: str,
    dpi: int = 110,
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> list[Path]:
    """Write a study's figures as PNG files into ``folder``; return their paths.

    ``study_<name>_coverage.png`` (:func:`plot_coverage`, faceted by ``judge`` when the
    summary has that column; estimators run on fewer than half as many replicates as the
    others, such as ``bayes_exact`` on its first few, are left out of this figure, whose band
    is drawn for the common number), ``study_<name>_width.png`` (:func:`plot_width_vs_j`, when the
    summary has a ``j`` column or ``q0`` and ``q1``) and ``study_<name>_mae.png``
    (:func:`plot_mae`). Used by ``bayesjudge study ... --figures DIR``.

    ``folder`` may hold other files (``docs/_static``): it is checked first
    (:func:`bayesjudge.reporting.output.check_output_files`), then each figure is written
    atomically (:func:`bayesjudge.reporting.output.write_file_atomically`), replacing a file
    of the same name and nothing else. Missing folders are created; files follow the umask.

    Raises
    ------
    OutputError
        When ``folder`` is a file, lies under one or is not writable, or a figure's name is
        taken by a folder or an input.

    Examples
    --------
    >>> import tempfile
    >>> table = pd.DataFrame({"theta": [0.1, 0.5], "estimator": ["a", "a"], "n": [50, 50],
    ...                       "coverage": [0.94, 0.96], "coverage_mcse": [0.03, 0.03],
    ...                       "mae": [0.02, 0.03], "width": [0.2, 0.3], "j": [0.6, 0.6]})
    >>> [p.name for p in save_study_figures(table, tempfile.mkdtemp(), name="demo")]
    ['study_demo_coverage.png', 'study_demo_width.png', 'study_demo_mae.png']
    """
    figures: dict[str, Callable[[], Figure]] = {}
    if "theta" in summary.columns:
        runs = summary.groupby("estimator", sort=False)["n"].median()
        common = [str(e) for e, n in runs.items() if n >= 0.5 * runs.max()]
        figures["coverage"] = partial(plot_coverage, summary, x="theta", estimators=common)
    if "j" in summary.columns or {"q0", "q1"} <= set(summary.columns):
        figures["width"] = partial(plot_width_vs_j, summary)
    figures["mae"] = partial(plot_mae, summary)
    names = {kind: f"study_{name}_{kind}.png" for kind in figures}
    target = check_output_files(folder, names=names.values(), inputs=inputs)  # before drawing
    return [
        write_file_atomically(target / names[kind], partial(_save_png, draw(), dpi=dpi))
        for kind, draw in figures.items()
    ]


def _save_png(fig: Figure, path: Path, *, dpi: int) -> None:
    fig.savefig(path, dpi=dpi, format="png")
