"""The report of a repeated-samples fit: its sections, tables and figures.

:func:`report_content` says what the report holds; :func:`bayesjudge.write_report` writes it
(:mod:`bayesjudge.reporting.pipeline`). The one-screen summary
(:meth:`RepeatedAnalysis.summary <bayesjudge.repeated.analysis.RepeatedAnalysis.summary>`) states
the estimand ("mean success rate over 200 items, 5 answers each") and reads how much the
repetition widened the interval compared with treating the rows as independent. Figures: the
per-item success distribution (the posterior mean of each item's success probability, with the
never / sometimes / always bands), and the mean success rate beside the baselines.
"""

from __future__ import annotations

import numpy as np

from bayesjudge._version import __version__
from bayesjudge.repeated.analysis import RepeatedAnalysis
from bayesjudge.reporting.figures import interval_figure
from bayesjudge.reporting.html import png
from bayesjudge.reporting.pipeline import Code, ReportContent, Section
from bayesjudge.results import estimates_frame

__all__ = ["report_content"]


def _figures(analysis: RepeatedAnalysis) -> dict[str, str]:
    from matplotlib.figure import Figure

    post = analysis.posterior["posterior"]
    mass = f"{100 * analysis.prob:g}%"
    figures: dict[str, str] = {}

    # the per-item success distribution
    rates = post["item_rate"].mean(("chain", "draw")).to_numpy()
    fig = Figure(figsize=(6.5, 3.4))
    ax = fig.subplots()
    ax.hist(rates, bins=np.linspace(0.0, 1.0, 21).tolist(), color="#4c72b0", edgecolor="white")
    for edge in (0.1, 0.9):
        ax.axvline(edge, color="grey", ls=":", lw=1)
    bands = analysis.bands
    ax.set_title(
        f"Each item's success probability (posterior mean): never {100 * bands['never'].mean:.0f}%"
        f", sometimes {100 * bands['sometimes'].mean:.0f}%, always "
        f"{100 * bands['always'].mean:.0f}% of items",
        fontsize=9,
    )
    ax.set_xlabel("item success probability p_i")
    ax.set_ylabel("items")
    ax.set_xlim(0, 1)
    fig.tight_layout()
    figures["Per-item success distribution"] = png(fig)

    # the mean success rate beside the baselines (clustered, and on the rows)
    draws = post["population_rate"].to_numpy().reshape(-1)
    p = analysis.population_rate
    rows = [("repeated model", p.mean, p.eti.low, p.eti.high, True)]
    for e in analysis.baselines:
        if e.estimate is None:
            continue
        iv = e.interval
        low, high = (iv.low, iv.high) if iv else (np.nan, np.nan)
        prefix, _, method = e.method.rpartition(":")
        name = f"{method} (rows)" if prefix else e.method
        rows.append((name, e.estimate, low, high, False))
    fig = interval_figure(
        draws,
        rows,
        title=f"Mean success rate: posterior and {mass} intervals of the baselines",
        naive=analysis.naive,
        naive_name=analysis.naive_name,
        model_name="repeated model (Bayesian)",
        other_name="baseline; (rows) = answers read as independent items",
    )
    figures["Mean success rate beside the baselines"] = png(fig)
    return figures


def report_content(analysis: RepeatedAnalysis, *, source: str = "answers") -> ReportContent:
    """Return what the report of a repeated-samples analysis holds.

    Sections: the posterior summaries and the baselines (clustered, then on the rows). Figures:
    the per-item success distribution, and the mean success rate beside the baselines. Files:
    ``posterior.csv`` (:meth:`~bayesjudge.repeated.analysis.RepeatedAnalysis.to_frame`),
    ``estimates.csv`` and ``diagnostics.csv`` (with ``analysis.json``, which every report has).
    """
    estimates = estimates_frame(analysis.baselines)
    summaries = analysis.to_frame()
    mass = f"{100 * analysis.prob:g}%"
    d = analysis.data
    return ReportContent(
        title=f"bayesjudge repeated-samples report: {source}",
        summary=analysis.summary(),
        about=[
            f"bayesjudge {__version__}, model ",
            Code("repeated"),
            f": {d['items']} items, {d['answers']} answers, {d['clusters']} clusters, "
            f"{d['gold_pass']} gold-PASS and {d['gold_fail']} gold-FAIL answers; priors ",
            Code(analysis.priors.describe()),
            f", seed {analysis.seed}.",
        ],
        sections=[
            Section(f"Posterior summaries ({mass} equal-tailed intervals)", table=summaries),
            Section(
                f"Baselines ({mass} intervals): clustered by item (or cluster), then the rows "
                "read as independent items",
                table=estimates,
            ),
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
