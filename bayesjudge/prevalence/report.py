"""The report of a prevalence fit: its sections, tables and figures.

:func:`report_content` says what the report holds; :func:`bayesjudge.write_report` writes it
(:mod:`bayesjudge.reporting.pipeline`): ``report.html`` (figures embedded as PNG),
``summary.md``, ``posterior.nc``, ``comparison.csv``, ``diagnostics.csv`` and, for judge scores
thresholded here, ``thresholds.csv``. :func:`write_groups` writes the report of a table split
by a column. The one-screen summary is :func:`~bayesjudge.prevalence.analysis.report_summary`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from bayesjudge.prevalence.analysis import (
    PrevalenceAnalysis,
    plain_reading,
    report_summary,
)
from bayesjudge.reporting.figures import (
    density_stairs,
    histogram_bins,
    interval_figure,
    new_figure,
    rank_figure,
    trace_figure,
)
from bayesjudge.reporting.html import html_page, markdown_table, png
from bayesjudge.reporting.output import escape_markdown, escape_markdown_prose
from bayesjudge.reporting.pipeline import ReportContent, Section, with_record, write_files
from bayesjudge.reporting.summary import footer_html, footer_markdown

if TYPE_CHECKING:
    import xarray as xr
    from matplotlib.figure import Figure

    from bayesjudge.prevalence.thresholds import ThresholdAnalysis

__all__ = [
    "plain_reading",
    "report_content",
    "report_summary",
    "write_groups",
]

#: Observed counts of the prevalence model, with what each counts.
COUNT_LABELS = {
    "x1": "judge PASS among gold-PASS calibration items",
    "x0": "judge PASS among gold-FAIL calibration items",
    "k": "judge PASS among unlabelled test items",
}


# --------------------------------------------------------------------------- plain language


def _display_frame(analysis: PrevalenceAnalysis, comparison: pd.DataFrame) -> pd.DataFrame:
    """Return the estimates table as shown: no ``prob`` column (in the heading), short notes."""
    frame = comparison.drop(columns=["prob"])
    if not analysis.calibration.consistent:
        long = analysis.calibration.note()
        frame["note"] = [
            None
            if pd.isna(n)
            else str(n).replace(long, "assumes a random gold sample: biased here")
            for n in frame["note"]
        ]
    return frame


# --------------------------------------------------------------------------- figures
#: Axis labels of the posterior variables in the figures.
LABELS = {"pi": "true success rate pi", "se": "sensitivity Se", "sp": "specificity Sp"}


def _ppc_figure(posterior: xr.DataTree) -> Figure | None:
    """Draw the posterior predictive distribution of each observed count and the observed one."""
    from bayesjudge.inference.summary import group

    observed = group(posterior, "observed_data")
    predictive = group(posterior, "posterior_predictive")
    counts = [c for c in COUNT_LABELS if c in observed and c in predictive]
    if not counts:
        return None
    fig = new_figure((3.6 * len(counts), 3.2))
    axes = np.atleast_1d(fig.subplots(1, len(counts)))
    for ax, name in zip(axes, counts, strict=True):
        extra = [d for d in predictive[name].dims if d not in ("chain", "draw")]
        # stratified fits: compare the totals over strata
        predicted = np.asarray(predictive[name].sum(extra)).reshape(-1)
        value = float(np.sum(np.asarray(observed[name])))
        low, high = int(predicted.min()), int(predicted.max())
        width = max(1, int(np.ceil((high - low + 1) / 40)))  # whole-count bins, no aliasing
        edges = np.arange(low, high + width + 1, width) - 0.5
        counts_per_bin, _ = np.histogram(predicted, bins=edges)
        ax.stairs(counts_per_bin, edges, baseline=0.0, fill=True, color="#8172b3")
        ax.axvline(value, color="black", lw=2, label="observed")
        ax.set_title(name, fontsize=10)
        ax.set_xlabel(COUNT_LABELS[name].replace(" among ", "\namong "), fontsize=8)
        ax.locator_params(axis="x", integer=True, nbins=5)
    axes[0].set_ylabel("posterior predictive draws")
    axes[0].legend(fontsize=8)
    fig.suptitle("Posterior predictive check of the observed counts", fontsize=10)
    fig.tight_layout()
    return fig


def _j_figure(draws: np.ndarray, *, prob: float) -> Figure:
    low, high = np.quantile(draws, [(1 - prob) / 2, (1 + prob) / 2])
    fig = new_figure((6.5, 3.0))
    ax = fig.subplots()
    density_stairs(ax, draws, histogram_bins(draws), color="#55a868", alpha=0.6)
    ax.axvspan(low, high, color="#55a868", alpha=0.12, label=f"{100 * prob:g}% interval")
    ax.axvline(float(np.mean(draws)), color="#2d6a3e", lw=1.5, label="posterior mean")
    ax.set_xlabel("Youden's J = Se + Sp - 1 (0 = chance, 1 = perfect judge)")
    ax.set_ylabel("posterior density")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _threshold_figure(thresholds: ThresholdAnalysis) -> Figure:
    """Se, Sp and J against the threshold with their bands, and the posterior ROC."""
    frame = thresholds.to_frame()
    mass = f"{100 * thresholds.prob:g}%"
    fig = new_figure((9.0, 3.4))
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1.0]})
    colours = {"se": "#4c72b0", "sp": "#dd8452", "j": "#55a868"}
    labels = {"se": "Se (sensitivity)", "sp": "Sp (specificity)", "j": "J = Se + Sp - 1"}
    t = frame["threshold"].to_numpy(dtype=float)
    for name, colour in colours.items():
        left.plot(t, frame[name], color=colour, lw=1.5, marker="o", ms=3, label=labels[name])
        left.fill_between(t, frame[f"{name}_low"], frame[f"{name}_high"], color=colour, alpha=0.15)
    left.axvline(thresholds.chosen, color="#444444", ls="--", lw=1, label="chosen threshold")
    left.set_xlabel("threshold (score >= threshold is PASS)")
    left.set_ylabel(f"posterior mean and {mass} band")
    left.set_ylim(-0.05, 1.05)
    left.legend(fontsize=7, loc="lower left")
    fpr = 1.0 - frame["sp"].to_numpy(dtype=float)
    se = frame["se"].to_numpy(dtype=float)
    right.plot([0, 1], [0, 1], color="#999999", lw=0.8, ls=":", label="chance (J = 0)")
    right.errorbar(
        fpr,
        se,
        xerr=[fpr - (1 - frame["sp_high"]), (1 - frame["sp_low"]) - fpr],
        yerr=[se - frame["se_low"], frame["se_high"] - se],
        fmt="o",
        ms=3,
        lw=0.8,
        color="#4c72b0",
        label=f"thresholds ({mass} bands)",
    )
    chosen = frame["chosen"].to_numpy(dtype=bool)
    right.plot(fpr[chosen], se[chosen], "s", ms=7, mfc="none", color="#c44e52", label="chosen")
    right.set_xlim(-0.02, 1.02)
    right.set_ylim(-0.02, 1.02)
    right.set_xlabel("1 - Sp (false PASS rate)")
    right.set_ylabel("Se (true PASS rate)")
    right.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def _threshold_table(thresholds: ThresholdAnalysis) -> pd.DataFrame:
    """One row per threshold: Se, Sp, J and pi as ``mean [low, high]``, the width, the choice."""
    frame = thresholds.to_frame()

    def cell(name: str) -> pd.Series:
        return frame.apply(
            lambda r: f"{r[name]:.3f} [{r[f'{name}_low']:.3f}, {r[f'{name}_high']:.3f}]", axis=1
        )

    return pd.DataFrame(
        {
            "threshold": frame["threshold"].map(lambda v: f"{v:g}"),
            "Se": cell("se"),
            "Sp": cell("sp"),
            "J": cell("j"),
            "pi": cell("pi"),
            "width of pi": frame["width"].map(lambda v: f"{v:.3f}"),
            "chosen": frame["chosen"].map(lambda v: "yes" if v else ""),
        }
    )


def _figures(
    analysis: PrevalenceAnalysis, comparison: pd.DataFrame, *, prob: float
) -> dict[str, str]:
    from bayesjudge.inference.summary import group
    from bayesjudge.prevalence.plan import plot_label_plan

    posterior = analysis.posterior
    assert posterior is not None
    figures: dict[str, str] = {}
    draws_ds = group(posterior, "posterior")
    names = [v for v in ("pi", "se", "sp") if v in draws_ds and draws_ds[v].ndim == 2]

    def keep(title: str, fig: Figure | None) -> None:
        # every figure here is fitted to its page by tight_layout: saved whole, not cropped
        if fig is not None:
            figures[title] = png(fig, crop=False)

    draws = np.asarray(draws_ds["pi"]).reshape(-1)
    keep(
        "Posterior of pi beside the frequentist intervals",
        interval_figure(
            draws,
            [
                (m, r.estimate, r.low, r.high, m.startswith("bayes"))
                for r in comparison.dropna(subset=["low", "high"]).itertuples()
                if (m := str(r.method))
            ],
            title=f"True success rate pi: posterior and {100 * prob:g}% intervals",
            naive=analysis.counts.p_hat,
        ),
    )
    if analysis.plan is not None:
        # the plan's own figure size, on a canvas of this report's (new_figure)
        plan_axes = new_figure((7.0, 4.0)).subplots()
        keep(
            "How many more gold labels? (expected interval width)",
            plot_label_plan(analysis.plan, ax=plan_axes),
        )
    if analysis.thresholds is not None:
        keep(
            "The judge's score across thresholds (calibration set): Se, Sp, J and the ROC",
            _threshold_figure(analysis.thresholds),
        )
    keep("Posterior predictive check", _ppc_figure(posterior))
    if "j" in draws_ds and draws_ds["j"].ndim == 2:
        j_draws = np.asarray(draws_ds["j"]).reshape(-1)
        keep("Youden's J = Se + Sp - 1", _j_figure(j_draws, prob=prob))
    if names:
        keep(
            "Rank plots (each chain's line inside the grey band: the chains agree)",
            rank_figure(draws_ds, names, labels=LABELS),
        )
        keep(
            "Traces and marginal posteriors by chain",
            trace_figure(draws_ds, names, labels=LABELS),
        )
    return figures


# --------------------------------------------------------------------------- content
def report_content(
    analysis: PrevalenceAnalysis, *, source: str = "bundled example"
) -> ReportContent:
    """Return what the report of a prevalence analysis holds (:mod:`bayesjudge.reporting.pipeline`).

    Sections: the estimates of every method, the threshold chosen for judge scores (when
    thresholded here) and how many more gold labels would narrow the interval (when planned).
    Files: ``comparison.csv``, ``diagnostics.csv`` and ``thresholds.csv`` (when thresholded).

    Raises
    ------
    ValueError
        When the analysis has no NUTS posterior.

    Examples
    --------
    >>> import bayesjudge as bj
    >>> data = bj.JudgeData.from_frame(bj.load_example("judge"))
    >>> analysis = bj.analyze_prevalence(data, progressbar=False)  # doctest: +SKIP
    >>> [s.title for s in report_content(analysis).sections]  # doctest: +SKIP
    ['Estimates of the true success rate (95% intervals)']
    """
    posterior, data, prob = analysis.posterior, analysis.data, analysis.prob
    if posterior is None or analysis.diagnostics is None:
        raise ValueError("a report needs a NUTS posterior; analyze with method='nuts'")
    comparison = analysis.to_frame()
    sections = [
        Section(
            f"Estimates of the true success rate ({100 * prob:g}% intervals)",
            note="std_error is the standard error of the estimate (not the sensitivity Se); "
            "j is the Youden J each method used.",
            table=_display_frame(analysis, comparison),
        )
    ]
    files: dict[str, pd.DataFrame] = {}
    if analysis.thresholds is not None:
        chosen = analysis.thresholds
        sections.append(
            Section(
                f"Threshold {chosen.chosen:g}: how the judge's score was turned into verdicts",
                text=f"{chosen.reason}."
                + ("" if chosen.mixture is None else f" {chosen.mixture.message}."),
                table=_threshold_table(chosen),
            )
        )
        files["thresholds.csv"] = chosen.to_frame()
    if analysis.plan is not None:
        sections.append(Section("How many more gold labels?", text=analysis.plan.reading()))
    files["comparison.csv"] = comparison
    files["diagnostics.csv"] = analysis.diagnostics.to_frame()
    return ReportContent(
        title=f"bayesjudge report: {source}",
        summary=analysis.summary(),
        about=(
            f"{data.m} gold-labelled calibration items ({data.m1} PASS, {data.m0} FAIL), "
            f"{data.n} unlabelled items; model {posterior.attrs.get('model', '')}, priors "
            f"{analysis.priors.describe()}."
        ),
        sections=sections,
        figures=_figures(analysis, comparison, prob=prob),
        posterior=posterior,
        seed=analysis.seed,
        files=files,
    )


def _group_folder(position: int, value: str) -> str:
    """Return the sub-folder of a group's report: its place and its value, in safe characters."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", value).strip("._-")[:40] or "group"
    return f"{position:02d}-{safe}"


def write_groups(
    folder: Path,
    groups: Mapping[str, PrevalenceAnalysis | str],
    *,
    column: str,
    source: str = "bundled example",
) -> dict[str, str]:
    """Write the report of a table split by a column into ``folder``: an index, one report each.

    ``folder`` (a staging folder of :func:`bayesjudge.write_report`, which writes a mapping of
    groups through this function) receives ``report.html`` and ``summary.md``, an index with a
    row per group (its counts and headline, or why it has no answer) and each group's
    one-screen summary, and ``groups/NN-VALUE/`` with each answered group's full report.

    Parameters
    ----------
    folder : Path
        The folder written into.
    groups : mapping of str to PrevalenceAnalysis or str
        Each group's value, in order, with its analysis (a NUTS posterior), or the error that
        stopped it.
    column : str
        The column the table was split by.
    source : str
        Where the data came from, shown in the report.

    Returns
    -------
    dict of str to str
        Each answered group's value and the path of its ``report.html`` below ``folder``.

    Raises
    ------
    ValueError
        When an analysis has no NUTS posterior.
    """
    for analysis in groups.values():
        if not isinstance(analysis, str) and analysis.diagnostics is None:
            raise ValueError("a report needs a NUTS posterior; analyze with method='nuts'")
    folders = {value: _group_folder(i, value) for i, value in enumerate(groups, start=1)}
    title = f"bayesjudge report: {source}, one answer per {column}"
    rows_html: list[str] = []
    rows_md: list[list[str]] = []
    sections_html: list[str] = []
    sections_md: list[str] = []
    for value, analysis in groups.items():
        name = f"{column} = {value}"
        cell = html.escape(value)
        if isinstance(analysis, str):
            rows_html.append(
                f'<tr><td>{cell}</td><td colspan="6" class="fail">no answer: '
                f"{html.escape(analysis)}</td></tr>"
            )
            rows_md.append([value, "", "", "", f"no answer: {analysis}", ""])
            continue
        link = f"groups/{folders[value]}/report.html"
        sub = folder / "groups" / folders[value]
        sub.mkdir(parents=True)
        content = with_record(report_content(analysis, source=f"{source}, {name}"), analysis)
        write_files(sub, content, back="../../report.html")
        summary = content.summary
        h, data = summary.headline, analysis.data
        if h.too_wide:  # no point value: the interval is the answer
            answer = f"{h.big_text()} ({100 * h.prob:g}% interval, too wide for a point value)"
        else:
            answer = f"{h.value(h.estimate)} ({h.interval_text()})"
        status = "passed" if summary.status == "passed" else "FAILED"
        rows_html.append(
            f"<tr><td>{cell}</td><td>{data.m1}</td><td>{data.m0}</td><td>{data.n}</td>"
            f"<td>{html.escape(answer)}</td><td>{status}</td>"
            f'<td><a href="{html.escape(link)}">report</a></td></tr>'
        )
        rows_md.append([value, str(data.m1), str(data.m0), str(data.n), answer, status])
        anchor = f"group-{folders[value]}"
        sections_html.append(
            f'<h2 id="{anchor}">{html.escape(name)}</h2>\n'
            + summary.to_html().replace('id="summary"', f'id="summary-{folders[value]}"')
            + f'\n<p><a href="{html.escape(link)}">Full report of {cell}</a></p>'
        )
        sections_md.append(
            f"## {escape_markdown(name)}\n\n{summary.to_markdown()}\n\n"
            f"Full report: {escape_markdown(link)}"
        )
    header = (
        f"<tr><th>{html.escape(column)}</th><th>gold PASS</th><th>gold FAIL</th>"
        "<th>unlabelled</th><th>true success rate pi</th><th>diagnostics</th><th></th></tr>"
    )
    intro = (
        f"The table was split by the values of column {column!r}; each group's rows were "
        "analysed on their own, as a table holding only them would be."
    )
    body = (
        f"<p>{html.escape(intro)}</p>\n"
        f'<div class="table-wrap"><table class="table">{header}{"".join(rows_html)}'
        f"</table></div>\n" + "\n".join(sections_html)
    )
    seeds = {a.seed for a in groups.values() if not isinstance(a, str)}
    seed = seeds.pop() if len(seeds) == 1 else ", ".join(map(str, sorted(seeds, key=str)))
    page = html_page(title, body, footer=footer_html(seed))
    (folder / "report.html").write_text(page, encoding="utf-8")
    frame = pd.DataFrame(
        rows_md,
        columns=[
            column,
            "gold PASS",
            "gold FAIL",
            "unlabelled",
            "true success rate pi",
            "diagnostics",
        ],
    )
    markdown = "\n\n".join(
        [
            f"# {escape_markdown(title)}",
            escape_markdown_prose(intro, line_start=True),
            markdown_table(frame),
            *sections_md,
            footer_markdown(seed),
        ]
    )
    (folder / "summary.md").write_text(markdown + "\n", encoding="utf-8")
    return {
        value: f"groups/{folders[value]}/report.html"
        for value, analysis in groups.items()
        if not isinstance(analysis, str)
    }
