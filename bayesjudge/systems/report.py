"""The report of ``bayesjudge rank``: its sections, tables and figures.

:func:`report_content` lays out a :class:`~bayesjudge.systems.analysis.SystemsAnalysis` for
:func:`bayesjudge.write_report` (:mod:`bayesjudge.reporting.pipeline`): the answer first (the
one-screen summary, :func:`~bayesjudge.systems.analysis.rank_summary`), then the corrected
ranking beside the naive one with the reversals, the pairwise differences, the judge, the
frequentist baselines, and the figures: a forest plot of the systems, the matrix of P(row
better than column) and the posterior of each rank.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesjudge._version import __version__
from bayesjudge.reporting.html import png
from bayesjudge.reporting.pipeline import Code, ReportContent, Section
from bayesjudge.systems.analysis import (
    CLEAR_BEST,
    SystemsAnalysis,
    most_likely_best,
    rank_answer,
    rank_reading,
    rank_summary,
    ranking_sentence,
)

__all__ = [
    "CLEAR_BEST",
    "most_likely_best",
    "rank_answer",
    "rank_reading",
    "rank_summary",
    "ranking_sentence",
    "report_content",
]


def _ranking_frame(analysis: SystemsAnalysis) -> pd.DataFrame:
    naive = analysis.naive_order
    rows = []
    for position, name in enumerate(analysis.order):
        s = analysis.pi[name]
        rows.append(
            {
                "rank": position + 1,
                "corrected": name,
                "pi": s.mean,
                "low": s.eti.low,
                "high": s.eti.high,
                "P(best)": analysis.p_best[name],
                "naive": naive[position],
                "naive rate": analysis.naive_rate[naive[position]],
            }
        )
    return pd.DataFrame(rows)


def _judge_frame(analysis: SystemsAnalysis) -> pd.DataFrame:
    rows = []
    for name in analysis.systems:
        se, sp = analysis.judge.by_system[name]
        rows.append(
            {
                "system": name,
                "se": se.mean,
                "se low": se.eti.low,
                "se high": se.eti.high,
                "sp": sp.mean,
                "sp low": sp.eti.low,
                "sp high": sp.eti.high,
                "gold labels of both classes": name in analysis.judge.calibrated,
            }
        )
    return pd.DataFrame(rows)


def _baselines_frame(analysis: SystemsAnalysis) -> pd.DataFrame:
    rows = []
    for keys, estimate in analysis.estimates:
        row = estimate.to_row()
        rows.append(
            {
                "of": keys.get("system") or f"{keys['b']} - {keys['a']}",
                "method": row["method"],
                "estimate": row["estimate"],
                "low": row["low"],
                "high": row["high"],
                "note": row["note"],
            }
        )
    return pd.DataFrame(rows)


def _figures(analysis: SystemsAnalysis) -> dict[str, str]:
    from matplotlib.figure import Figure

    figures: dict[str, str] = {}
    order = list(analysis.order)
    size = len(order)

    fig = Figure(figsize=(7.5, 1.2 + 0.5 * size))
    ax = fig.subplots()
    for position, name in enumerate(order):
        s = analysis.pi[name]
        ax.plot([s.eti.low, s.eti.high], [position, position], color="#4c72b0", lw=3)
        ax.plot(
            s.mean, position, "o", color="#4c72b0", label="pi (posterior)" if not position else None
        )
        ax.plot(
            analysis.naive_rate[name],
            position,
            "x",
            color="#dd8452",
            ms=9,
            label="naive rate" if not position else None,
        )
    ax.set_yticks(range(size), order)
    ax.invert_yaxis()
    ax.set_xlabel(f"success rate ({100 * analysis.prob:g}% intervals)")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    figures["Forest plot: each system's true success rate, and the judge's raw pass rate"] = png(
        fig
    )

    index = [analysis.systems.index(name) for name in order]
    better = analysis.prob_better[np.ix_(index, index)].copy()
    np.fill_diagonal(better, np.nan)
    fig = Figure(figsize=(1.8 + 0.9 * size, 1.2 + 0.8 * size))
    ax = fig.subplots()
    image = ax.imshow(better, vmin=0.0, vmax=1.0, cmap="RdBu_r")
    for i in range(size):
        for j in range(size):
            if i != j:
                colour = "white" if abs(better[i, j] - 0.5) > 0.35 else "black"
                ax.text(j, i, f"{better[i, j]:.2f}", ha="center", va="center", color=colour)
    ax.set_xticks(range(size), order, rotation=30, ha="right")
    ax.set_yticks(range(size), order)
    ax.set_title("P(row better than column)", fontsize=10)
    fig.colorbar(image, ax=ax, shrink=0.8)
    fig.tight_layout()
    figures["P(row better than column)"] = png(fig)

    ranks = analysis.rank_probabilities[index]
    fig = Figure(figsize=(7.5, 1.2 + 0.5 * size))
    ax = fig.subplots()
    left = np.zeros(size)
    colours = ["#1a7f37", "#4c72b0", "#8172b3", "#dd8452", "#c44e52", "#937860", "#8c8c8c"]
    for r in range(size):
        ax.barh(
            range(size),
            ranks[:, r],
            left=left,
            color=colours[r % len(colours)],
            label=f"rank {r + 1}",
        )
        left += ranks[:, r]
    ax.set_yticks(range(size), order)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("posterior probability")
    ax.legend(fontsize=8, ncol=min(size, 5), loc="upper center", bbox_to_anchor=(0.5, -0.35))
    fig.tight_layout()
    figures["Posterior of each system's rank"] = png(fig)
    return figures


def report_content(analysis: SystemsAnalysis, *, source: str = "bundled example") -> ReportContent:
    """Return what the report of a rank analysis holds (:mod:`bayesjudge.reporting.pipeline`).

    Sections: the corrected ranking beside the naive one and its reversals, the pairwise
    differences, the judge, the frequentist baselines. Figures: a forest plot of the systems,
    the matrix of P(row better than column), the posterior of each rank. Files:
    ``systems.csv``, ``differences.csv``, ``baselines.csv`` and ``diagnostics.csv``.

    Raises
    ------
    ValueError
        When the analysis carries no posterior.
    """
    posterior = analysis.posterior
    if posterior is None or analysis.diagnostics is None:
        raise ValueError("a rank report needs the fitted posterior of analyze_systems")
    differences = analysis.differences_frame()
    baselines = _baselines_frame(analysis)
    reversals = pd.DataFrame(
        [
            {"naive puts first": r.a, "corrected puts first": r.b, "P(corrected order)": r.prob}
            for r in analysis.reversals
        ]
    )
    data = analysis.data
    counts = data.system_counts()
    labelled = int(counts.m1.sum() + counts.m0.sum())
    design = "paired" if analysis.paired else "unpaired"
    how = "partially pooled" if analysis.judge.pooled else "no pooling"
    judge_text = "shared" if analysis.judge.shared else f"per system ({how})"
    if analysis.judge.evidence is not None:
        judge_text = analysis.judge.evidence.models_text()
    sections = [
        Section(
            f"Corrected ranking beside the naive one ({100 * analysis.prob:g}% intervals)",
            table=_ranking_frame(analysis),
        ),
        Section("Reversals", level=3, table=reversals)
        if analysis.reversals
        else Section("Reversals", level=3, text="No reversals."),
        Section("Pairwise differences (b - a)", table=differences),
        Section("The judge", table=_judge_frame(analysis)),
        Section(
            "Frequentist baselines",
            text="Each system's rate (naive; Rogan-Gladen with Se and Sp from every system's "
            "gold labels; PPI++ from its own), then each difference b - a (naive with "
            "Newcombe's and Tango's paired intervals and McNemar's mid-p test; Rogan-Gladen; "
            "PPI and PPI++).",
            table=baselines,
        ),
    ]
    return ReportContent(
        title=f"bayesjudge rank: {source}",
        summary=analysis.summary(),
        about=[
            f"{len(analysis.systems)} systems, {len(data.items)} items ({design}), {labelled} "
            f"gold-labelled answers. bayesjudge {__version__}, model ",
            Code(analysis.model),
            f", judge {judge_text}, calibration ",
            Code(analysis.calibration),
            ", priors ",
            Code(analysis.priors.describe()),
            f", seed {analysis.seed}.",
        ],
        sections=sections,
        figures=_figures(analysis),
        posterior=posterior,
        seed=analysis.seed,
        files={
            "systems.csv": analysis.to_frame(),
            "differences.csv": differences,
            "baselines.csv": baselines,
            "diagnostics.csv": analysis.diagnostics.to_frame(),
        },
    )
