"""The report of ``bayesjudge rank``: self-contained HTML, a Markdown summary and the posterior.

:func:`write_rank_report` lays out a :class:`~bayesjudge.systems.analysis.SystemsAnalysis`:
the answer first (the corrected ranking beside the naive one, the reversals, a diagnostics
badge and the definitions), then a forest plot of the systems, the matrix of
P(row better than column), the posterior of each rank, the pairwise differences, the judge and
the frequentist baselines. It writes through :func:`bayesjudge.reporting.output.output_folder`
(a refused or half-written folder never replaces a report), and the HTML embeds its figures.
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from bayesjudge._version import __version__
from bayesjudge.reporting.html import (
    diagnostics_html,
    figures_html,
    html_page,
    markdown_table,
    png,
    table_html,
)
from bayesjudge.reporting.netcdf import write_posterior
from bayesjudge.reporting.output import escape_markdown, output_folder, write_csv
from bayesjudge.reporting.summary import Headline, ReportSummary, footer_html, footer_markdown

if TYPE_CHECKING:
    from bayesjudge.systems.analysis import SystemsAnalysis

__all__ = [
    "CLEAR_BEST",
    "RankReportFiles",
    "rank_answer",
    "rank_reading",
    "rank_summary",
    "ranking_sentence",
    "write_rank_report",
]

#: P(best) from which the reading calls a system the best one without hedging.
CLEAR_BEST = 0.95

#: What the report's words mean, shown under the summary.
DEFINITIONS = (
    (
        "pi",
        "a system's true success rate: the share of its answers that are right, with the "
        "judge's errors corrected",
    ),
    ("naive rate", "the share of a system's unlabelled answers the judge passed, uncorrected"),
    ("P(best)", "the posterior probability that the system has the highest true success rate"),
    ("rank", "1 for the highest true success rate; its posterior mean and interval"),
    ("P(b > a)", "the posterior probability that system b's true success rate exceeds a's"),
    (
        "reversal",
        "a pair the naive rates put in one order and the posterior, more likely than "
        "not, in the other",
    ),
    (
        "Se, Sp",
        "the judge's sensitivity (it passes a right answer) and specificity (it fails a wrong one)",
    ),
)


@dataclass(frozen=True, slots=True)
class RankReportFiles:
    """Paths of the files a rank report consists of."""

    folder: Path
    html: Path
    markdown: Path
    posterior: Path


def _listed(names: Iterable[str]) -> str:
    """Return ``a``, ``a and b`` or ``a, b and c``."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def ranking_sentence(analysis: SystemsAnalysis) -> str:
    """Return the corrected ranking in words, near-ties shown as ties.

    A step ``a > b`` is shown only where P(a better than b) is at least
    :data:`~bayesjudge.systems.analysis.CLEAR_ORDER`
    (:meth:`~bayesjudge.systems.analysis.SystemsAnalysis.ranking`); systems without a clear
    order between them are named together ("no clear order between a and c").
    """
    from bayesjudge.systems.analysis import CLEAR_ORDER

    groups = analysis.ranking(threshold=CLEAR_ORDER)
    rule = f"a step is shown as > only where P(higher one better) >= {CLEAR_ORDER:g}"
    if all(len(g) == 1 for g in groups):
        return f"Corrected ranking: {' > '.join(g[0] for g in groups)} ({rule})."
    if len(groups) == 1:
        return f"Corrected ranking: no clear order between {_listed(groups[0])} ({rule})."
    shown = " > ".join(g[0] if len(g) == 1 else "{" + ", ".join(g) + "}" for g in groups)
    ties = "; ".join(f"no clear order between {_listed(g)}" for g in groups if len(g) > 1)
    return f"Corrected ranking: {shown}; {ties} ({rule})."


def most_likely_best(analysis: SystemsAnalysis) -> str:
    """Return the system most likely to be the best: the largest P(best).

    Not necessarily the first by mean rank (``analysis.order``): a system often second may
    have the smaller mean rank while another is more often first. Ties go to the smaller
    mean rank.
    """
    return max(analysis.order, key=lambda system: analysis.p_best[system])


def rank_answer(analysis: SystemsAnalysis) -> str:
    """Return the answer to "which system is best?" in a few words.

    ``"c is best, P(best) 0.97"`` when the most likely best system's P(best) is at least
    :data:`CLEAR_BEST`, else ``"No clear winner; most likely c, P(best) 0.42"``. The most
    likely best system is the one with the largest P(best) (:func:`most_likely_best`).
    """
    best = most_likely_best(analysis)
    p_best = analysis.p_best[best]
    if p_best >= CLEAR_BEST:
        return f"{best} is best, P(best) {p_best:.2f}"
    return f"No clear winner; most likely {best}, P(best) {p_best:.2f}"


def rank_reading(analysis: SystemsAnalysis) -> list[str]:
    """Return the report's opening sentences: best system, rankings, reversals, judge.

    A system is called the best without hedging when its P(best) is at least
    :data:`CLEAR_BEST`; the sentences are those shown atop the report and in ``summary.md``.
    """
    mass = f"{100 * analysis.prob:g}%"
    best = most_likely_best(analysis)
    pi = analysis.pi[best]
    rate = (
        f"true success rate {100 * pi.mean:.1f}% ({mass} interval {100 * pi.eti.low:.1f}% to "
        f"{100 * pi.eti.high:.1f}%)"
    )
    p_best = analysis.p_best[best]
    naive_best = analysis.naive_order[0]
    lines = [
        f"{best} is the best system with probability {p_best:.2f}; {rate}."
        if p_best >= CLEAR_BEST
        else f"No system is clearly best: the most likely is {best}, with P(best) = "
        f"{p_best:.2f}; {rate}.",
        ranking_sentence(analysis),
        f"The judge's raw pass rates put {naive_best} first "
        f"({100 * analysis.naive_rate[naive_best]:.1f}%); after the correction "
        f"P({naive_best} is best) = {analysis.p_best[naive_best]:.2f}.",
    ]
    if analysis.reversals:
        pairs = "; ".join(f"{r.b} above {r.a} (P = {r.prob:.2f})" for r in analysis.reversals)
        lines.append(f"Correcting the judge's errors reverses the naive order of: {pairs}.")
    else:
        lines.append("Correcting the judge's errors reverses no pair of the naive ranking.")
    judge = analysis.judge
    if judge.evidence is not None:
        text = judge.evidence.sentence().removeprefix("Judge: ")
        lines.append(text[:1].upper() + text[1:])
    elif judge.shared:
        why = (
            f"only {len(judge.calibrated)} system(s) have gold labels of both classes, too few "
            "to tell"
            if len(judge.calibrated) < 2
            else f"{len(judge.calibrated)} systems have gold labels of both classes, so "
            "judge='system' (--judge system) could estimate each"
        )
        lines.append(
            f"One Se and Sp was fitted for every system (Se {judge.se.mean:.2f}, Sp "
            f"{judge.sp.mean:.2f}): the judge is assumed to treat the systems alike ({why})."
        )
    else:
        spread_se = judge.spread_se.mean if judge.spread_se is not None else float("nan")
        spread_sp = judge.spread_sp.mean if judge.spread_sp is not None else float("nan")
        change = "changes" if judge.changes_ranking else "does not change"
        lines.append(
            f"The judge was fitted per system (spread of logit Se {spread_se:.2f}, of logit Sp "
            f"{spread_sp:.2f}); treating every system with the shared Se and Sp would rank "
            f"{' > '.join(judge.shared_order)}, so the judge's unequal treatment {change} the "
            "ranking."
        )
    return lines


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


def rank_summary(analysis: SystemsAnalysis) -> ReportSummary:
    """Return the one-screen summary of a rank analysis (the shared report summary).

    The headline answers the question in words (:func:`rank_answer`: the best system, or no
    clear winner and the most likely one), with that system's corrected rate and interval in
    small type beside its judged pass rate; the reading is :func:`rank_reading` (withheld when
    the diagnostics failed).
    """
    best = most_likely_best(analysis)
    pi = analysis.pi[best]
    headline = Headline(
        f"true success rate of {best}",
        pi.mean,
        pi.eti.low,
        pi.eti.high,
        analysis.prob,
        naive=analysis.naive_rate[best],
        naive_name=f"judged pass rate of {best} (naive)",
        answer=rank_answer(analysis),
    )
    judge = "each system's own judge errors" if not analysis.judge.shared else "the judge's errors"
    if analysis.judge.evidence is not None and analysis.judge.evidence.set_aside is None:
        judge = (
            "the judge's errors (one judge for all and a judge per system, averaged with the "
            "weight the gold labels give each)"
        )
    trust = (
        f"The Bayesian model: it corrects every system for {judge}, estimated from the gold "
        "labels, and uses the pairing of items when the systems answered the same ones. The "
        "judged pass rates, and the frequentist corrections that assume one judge for all, are "
        "shown below for comparison."
    )
    return ReportSummary(
        headline,
        diagnostics=analysis.diagnostics,
        definitions=DEFINITIONS,
        trust=trust,
        reading=" ".join(rank_reading(analysis)),
        quantities=("pi",),
        hedge_wide=False,  # the reading weighs the uncertainty itself (P(best), intervals)
    )


def write_rank_report(
    out: str | os.PathLike[str],
    analysis: SystemsAnalysis,
    *,
    source: str = "bundled example",
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> RankReportFiles:
    """Write a rank report folder: ``report.html``, ``summary.md``, ``posterior.nc`` and tables.

    Parameters
    ----------
    out : path
        The report folder: a new or empty folder, or a report bayesjudge wrote there with
        nothing changed since; replaced as a whole once every file is written.
    analysis : SystemsAnalysis
        What :func:`~bayesjudge.systems.analysis.analyze_systems` returned.
    source : str
        Where the data came from, shown in the report.
    inputs : iterable of paths
        The files the analysis read: a folder holding one of them is refused.

    Returns
    -------
    RankReportFiles

    Raises
    ------
    OutputError
        When ``out`` is refused or a file cannot be written (the destination is untouched).
    ValueError
        When the analysis carries no posterior.
    """
    posterior = analysis.posterior
    if posterior is None or analysis.diagnostics is None:
        raise ValueError("a rank report needs the fitted posterior of analyze_systems")
    ranking = _ranking_frame(analysis)
    differences = analysis.differences_frame()
    judge = _judge_frame(analysis)
    baselines = _baselines_frame(analysis)
    diag_frame = analysis.diagnostics.to_frame()
    figures = _figures(analysis)
    passed = analysis.passed
    status = "passed" if passed else "FAILED"
    reversals = (
        pd.DataFrame(
            [
                {"naive puts first": r.a, "corrected puts first": r.b, "P(corrected order)": r.prob}
                for r in analysis.reversals
            ]
        )
        if analysis.reversals
        else None
    )
    data = analysis.data
    counts = data.system_counts()
    labelled = int(counts.m1.sum() + counts.m0.sum())
    design = "paired" if analysis.paired else "unpaired"
    title = f"bayesjudge rank: {source}"
    with output_folder(out, inputs=inputs, kind="report") as staging:
        write_posterior(posterior, staging / "posterior.nc")
        write_csv(analysis.to_frame(), staging / "systems.csv", index=True)
        write_csv(differences, staging / "differences.csv")
        write_csv(baselines, staging / "baselines.csv")
        write_csv(diag_frame, staging / "diagnostics.csv")
        reversal_html = table_html(reversals) if reversals is not None else "<p>No reversals.</p>"
        how = "partially pooled" if analysis.judge.pooled else "no pooling"
        judge_text = "shared" if analysis.judge.shared else f"per system ({how})"
        if analysis.judge.evidence is not None:
            judge_text = analysis.judge.evidence.models_text()
        body = f"""{rank_summary(analysis).to_html()}
<h2>Corrected ranking beside the naive one ({100 * analysis.prob:g}% intervals)</h2>
{table_html(ranking)}
<h3>Reversals</h3>
{reversal_html}
<p>{len(analysis.systems)} systems, {len(data.items)} items ({design}), {labelled}
gold-labelled answers. bayesjudge {__version__}, model <code>{html.escape(analysis.model)}</code>,
judge {judge_text}, calibration <code>{html.escape(analysis.calibration)}</code>,
priors <code>{html.escape(analysis.priors.describe())}</code>,
seed {html.escape(str(analysis.seed))}.</p>
<h2>Figures</h2>
{figures_html(figures)}
<h2>Pairwise differences (b - a)</h2>
{table_html(differences)}
<h2>The judge</h2>
{table_html(judge)}
<h2>Frequentist baselines</h2>
<p>Each system's rate (naive; Rogan-Gladen with Se and Sp from every system's gold labels;
PPI++ from its own), then each difference b - a (naive with Newcombe's and Tango's paired
intervals and McNemar's mid-p test; Rogan-Gladen; PPI and PPI++).</p>
{table_html(baselines)}
<h2>Diagnostics: {status}</h2>
{diagnostics_html(diag_frame)}"""
        page = html_page(title, body, footer=footer_html(analysis.seed))
        (staging / "report.html").write_text(page, encoding="utf-8")
        markdown = "\n\n".join(
            [
                f"# {escape_markdown(title)}",
                rank_summary(analysis).to_markdown(),
                "## Corrected ranking beside the naive one",
                markdown_table(ranking),
                "## Pairwise differences (b - a)",
                markdown_table(differences),
                "## Frequentist baselines",
                markdown_table(baselines),
                f"## Diagnostics: {status}",
                markdown_table(diag_frame),
                "Figures: see report.html. Posterior: posterior.nc "
                '(`xarray.open_datatree("posterior.nc")`).',
                footer_markdown(analysis.seed),
            ]
        )
        (staging / "summary.md").write_text(markdown + "\n", encoding="utf-8")
    folder = Path(os.path.abspath(out))
    return RankReportFiles(
        folder=folder,
        html=folder / "report.html",
        markdown=folder / "summary.md",
        posterior=folder / "posterior.nc",
    )
