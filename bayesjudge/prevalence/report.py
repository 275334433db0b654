"""Reports of a prevalence fit: self-contained HTML, a Markdown summary and the posterior.

:func:`write_report` writes through :func:`bayesjudge.reporting.output.output_folder`: it
refuses a folder it did not write, stages the report beside the destination and switches it
into place only when every file (and the manifest) is written, so the destination holds the
complete old or the complete new report at every instant. The HTML embeds its figures as PNG
data URIs and needs no network to view.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import xarray as xr

from bayesjudge.inference.summary import group
from bayesjudge.reporting.figures import histogram_bins, rank_figure, trace_figure
from bayesjudge.reporting.html import (
    figures_html,
    html_page,
    markdown_table,
    png,
    table_html,
)
from bayesjudge.reporting.netcdf import write_posterior
from bayesjudge.reporting.output import (
    escape_markdown,
    escape_markdown_prose,
    output_folder,
    write_csv,
)
from bayesjudge.reporting.summary import (
    DEFINITIONS,
    WIDE_INTERVAL,
    Headline,
    ReportSummary,
    ReportWarning,
    diagnostics_section_html,
    diagnostics_section_markdown,
    footer_html,
    footer_markdown,
    label_shift_warning,
    method_name,
    random_sample_baselines_warning,
    small_calibration_warning,
    weak_judge_warning,
    wide_interval_warning,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from bayesjudge.prevalence.analysis import PrevalenceAnalysis
    from bayesjudge.prevalence.thresholds import ThresholdAnalysis

__all__ = [
    "GroupReportFiles",
    "ReportFiles",
    "plain_reading",
    "report_summary",
    "write_group_reports",
    "write_report",
]

#: Observed counts of the prevalence model, with what each counts.
COUNT_LABELS = {
    "x1": "judge PASS among gold-PASS calibration items",
    "x0": "judge PASS among gold-FAIL calibration items",
    "k": "judge PASS among unlabelled test items",
}


@dataclass(frozen=True, slots=True)
class ReportFiles:
    """Paths of the files a report consists of."""

    folder: Path
    html: Path
    markdown: Path
    posterior: Path
    comparison: Path
    diagnostics: Path


@dataclass(frozen=True, slots=True)
class GroupReportFiles:
    """Paths of a report of a table split by a column (:func:`write_group_reports`)."""

    folder: Path
    html: Path
    markdown: Path
    groups: dict[str, Path]


# --------------------------------------------------------------------------- plain language
#: Readable names of the prevalence model's variables (diagnostics).
NAMES = {
    "se_gap": "share of the sensitivity above the judged rate (sampling parameter)",
    "fpr_share": "false-positive rate as a share of the judged rate (sampling parameter)",
    "judged_rate": "judge's pass rate on test items",
    "pi_stratum": "true success rate in stratum",
    "bias": "judge bias R - pi",
}
#: Gold items per class below which the summary warns of a small calibration set.
SMALL_CLASS = 30
#: Posterior quantities that get a diagnostics line of their own.
REPORTED = ("pi", "pi_stratum", "se", "sp", "j")


def plain_reading(analysis: PrevalenceAnalysis) -> str:
    """Return a short plain-language reading of a prevalence analysis.

    It states the judged pass rate, the posterior of the true success rate, how many points
    the judge inflates (or deflates) the rate by, with the interval of that gap, and how
    informative the judge is (J). When the interval of pi is wider than
    :data:`~bayesjudge.reporting.summary.WIDE_INTERVAL`, the gap is not quoted as a number.
    """
    data, prob = analysis.data, analysis.prob
    pi = analysis.summaries["pi"]
    j = analysis.summaries.get("j")
    judged = analysis.counts.p_hat
    gap = 100.0 * (judged - pi.mean)
    gap_low, gap_high = 100.0 * (judged - pi.eti.high), 100.0 * (judged - pi.eti.low)
    mass = f"{100 * prob:g}%"
    lines = [
        f"The judge passes {100 * judged:.1f}% of the {data.n} unlabelled items. Corrected with "
        f"{data.m} gold-labelled items, the true success rate is {100 * pi.mean:.1f}% "
        f"({mass} credible interval {100 * pi.eti.low:.1f}% to {100 * pi.eti.high:.1f}%).",
    ]
    if pi.eti.width > WIDE_INTERVAL:
        lines.append(
            "That interval is too wide to say by how much the judge inflates or deflates the "
            "pass rate."
        )
    elif gap_low <= 0.0 <= gap_high:
        lines.append(
            f"The judged rate lies inside that interval: the data do not show the judge "
            f"inflating or deflating the pass rate (gap {gap:+.1f} points, {mass} interval "
            f"{gap_low:+.1f} to {gap_high:+.1f})."
        )
    else:
        direction = "inflates" if gap > 0 else "deflates"
        lines.append(
            f"The judge {direction} the pass rate by about {abs(gap):.1f} percentage points "
            f"({mass} interval {abs(gap_low if gap > 0 else gap_high):.1f} to "
            f"{abs(gap_high if gap > 0 else gap_low):.1f})."
        )
    if j is None:
        return " ".join(lines)
    if j.mean >= 0.8:
        quality = "a strong judge"
    elif j.mean >= 0.5:
        quality = "a useful but imperfect judge"
    elif j.mean >= 0.2:
        quality = "a weak judge: the correction is large and the interval wide"
    else:
        quality = "a judge close to chance: its verdicts say little about the truth"
    lines.append(
        f"Youden's J = Se + Sp - 1 is {j.mean:.2f} ({mass} interval {j.eti.low:.2f} to "
        f"{j.eti.high:.2f}): {quality}."
    )
    return " ".join(lines)


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


def _estimate_of(analysis: PrevalenceAnalysis, method: str) -> float | None:
    for e in analysis.estimates:
        if e.method == method:
            return e.estimate
    return None


def _trust(analysis: PrevalenceAnalysis) -> str:
    from bayesjudge.prevalence.baselines import RANDOM_SAMPLE_METHODS

    pi = analysis.summaries["pi"]
    text = (
        "The Bayesian posterior (first rows of the table): it uses every count, needs only "
        "that the judge's error rates P(verdict | truth) are the same on gold and test items, "
        "restricts the judge to better than chance (J > 0), and keeps its interval honest and "
        "inside [0, 1] when the calibration set is small."
    )
    rg = _estimate_of(analysis, "rogan_gladen_lang_reiczigel")
    rg_text = "" if rg is None else f" Rogan-Gladen, which needs the same, gives {rg:.3f}."
    if not analysis.calibration.consistent:
        shown = [m for m in RANDOM_SAMPLE_METHODS if _estimate_of(analysis, m) is not None]
        return (
            text + f" Here the gold set is not a random sample of the test items, so "
            f"{', '.join(method_name(m) for m in shown)} (which assume one) are biased and are "
            f"not to be trusted; the posterior mean is {pi.mean:.3f}.{rg_text}"
        )
    counts = analysis.counts
    if min(counts.m1, counts.m0) < SMALL_CLASS:
        return (
            text
            + f" With {counts.m1} gold-PASS and {counts.m0} gold-FAIL items, the check that the "
            "gold set is a random sample has little power and no estimator is precise; the "
            "posterior's interval says how little is known, and the frequentist intervals, "
            "built on large-sample approximations, understate it."
        )
    ppi = _estimate_of(analysis, "ppi_plus_plus")
    ppi_text = "" if ppi is None else f" (here {ppi:.3f} against the posterior mean {pi.mean:.3f})"
    return (
        text + " The gold set looks like a random sample of the test items, so PPI++ "
        "(Angelopoulos, Duchi and Zrnic 2023, PPI++: Efficient prediction-powered inference) "
        f"is valid too and should agree{ppi_text}.{rg_text}"
    )


def _weak_judge(analysis: PrevalenceAnalysis) -> ReportWarning | None:
    j = analysis.summaries.get("j")
    if j is not None:
        return weak_judge_warning(j=j.mean, low=j.eti.low, high=j.eti.high, prob=analysis.prob)
    if analysis.exact is not None:  # the exact method summarises pi only; J's mean is known
        return weak_judge_warning(
            j=float(np.asarray(analysis.exact.summary().loc[["j"], "mean"])[0])
        )
    return None


def report_summary(analysis: PrevalenceAnalysis) -> ReportSummary:
    """Return the one-screen summary of a prevalence analysis.

    A :class:`bayesjudge.reporting.summary.ReportSummary`: the corrected rate beside the judged
    one, the diagnostics badge, the warnings with their evidence, the reading and definitions.

    Examples
    --------
    >>> import bayesjudge as bj
    >>> data = bj.JudgeData.from_counts(m1=3, x1=2, m0=2, x0=1, n=40, k=25)
    >>> summary = report_summary(bj.analyze_prevalence(data, method="exact"))
    >>> [w.title for w in summary.active_warnings]
    ['Small calibration set', 'Interval too wide for a reading']
    """
    from bayesjudge.prevalence.baselines import RANDOM_SAMPLE_METHODS

    pi, prob, counts = analysis.summaries["pi"], analysis.prob, analysis.counts
    check = analysis.calibration
    warnings = [
        small_calibration_warning(n_pass=counts.m1, n_fail=counts.m0, minimum=SMALL_CLASS),
        _weak_judge(analysis),
        label_shift_warning(
            labelled_rate=check.labelled_rate,
            unlabelled_rate=check.unlabelled_rate,
            n_labelled=check.n_labelled,
            n_unlabelled=check.n_unlabelled,
            p_value=check.p_value,
            level=check.level,
        ),
        random_sample_baselines_warning(
            consistent=check.consistent,
            baselines={m: _estimate_of(analysis, m) for m in RANDOM_SAMPLE_METHODS},
            reference=pi.mean,
            reference_name="the posterior mean",
        ),
        wide_interval_warning(
            low=pi.eti.low, high=pi.eti.high, prob=prob, name="the true success rate pi"
        ),
    ]
    return ReportSummary(
        headline=Headline(
            "true success rate pi",
            pi.mean,
            pi.eti.low,
            pi.eti.high,
            prob,
            naive=counts.p_hat,
            naive_name="judged pass rate (naive)",
        ),
        diagnostics=analysis.diagnostics,
        definitions=DEFINITIONS.items(),
        trust=_trust(analysis),
        reading=plain_reading(analysis),
        warnings=warnings,
        names=NAMES,
        quantities=REPORTED,
    )


# --------------------------------------------------------------------------- figures
#: Axis labels of the posterior variables in the figures.
LABELS = {"pi": "true success rate pi", "se": "sensitivity Se", "sp": "specificity Sp"}


def _interval_figure(
    draws: np.ndarray, comparison: pd.DataFrame, *, prob: float, naive: float
) -> Figure:
    """Draw the posterior of pi above every method's interval, with a legend and reference lines."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    rows = comparison.dropna(subset=["low", "high"])
    fig = Figure(figsize=(8.0, 3.4 + 0.3 * len(rows)))
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2.0, 0.3 + 0.3 * len(rows)])
    top.hist(draws, bins=histogram_bins(draws), density=True, color="#4c72b0", alpha=0.6, lw=0)
    top.set_ylabel("posterior density")
    top.set_title(f"True success rate pi: posterior and {100 * prob:g}% intervals", fontsize=11)
    for ax in (top, bottom):
        ax.axvline(float(np.mean(draws)), color="#4c72b0", lw=1.2)
        ax.axvline(naive, color="black", ls=":", lw=1.2)
    for position, (_, row) in enumerate(rows.iterrows()):
        colour = "#4c72b0" if str(row["method"]).startswith("bayes") else "#dd8452"
        bottom.plot([row["low"], row["high"]], [position, position], color=colour, lw=2.5)
        if pd.notna(row["estimate"]):
            bottom.plot(row["estimate"], position, "o", color=colour)
    bottom.set_yticks(range(len(rows)), list(rows["method"]), fontsize=8)
    bottom.invert_yaxis()
    bottom.set_xlabel("true success rate pi")
    handles = [
        Line2D([], [], color="#4c72b0", lw=2.5, marker="o", label="Bayesian"),
        Line2D([], [], color="#dd8452", lw=2.5, marker="o", label="frequentist baseline"),
        Line2D([], [], color="#4c72b0", lw=1.2, label="posterior mean"),
        Line2D([], [], color="black", ls=":", lw=1.2, label="judged pass rate (naive)"),
    ]
    top.legend(handles=handles, fontsize=8, loc="upper left", framealpha=0.9)
    fig.tight_layout()
    return fig


def _ppc_figure(posterior: xr.DataTree) -> Figure | None:
    """Draw the posterior predictive distribution of each observed count and the observed one."""
    from matplotlib.figure import Figure

    observed = group(posterior, "observed_data")
    predictive = group(posterior, "posterior_predictive")
    counts = [c for c in COUNT_LABELS if c in observed and c in predictive]
    if not counts:
        return None
    fig = Figure(figsize=(3.6 * len(counts), 3.2))
    axes = np.atleast_1d(fig.subplots(1, len(counts)))
    for ax, name in zip(axes, counts, strict=True):
        extra = [d for d in predictive[name].dims if d not in ("chain", "draw")]
        # stratified fits: compare the totals over strata
        predicted = np.asarray(predictive[name].sum(extra)).reshape(-1)
        value = float(np.sum(np.asarray(observed[name])))
        low, high = int(predicted.min()), int(predicted.max())
        width = max(1, int(np.ceil((high - low + 1) / 40)))  # whole-count bins, no aliasing
        ax.hist(predicted, bins=np.arange(low, high + width + 1, width) - 0.5, color="#8172b3")
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
    from matplotlib.figure import Figure

    low, high = np.quantile(draws, [(1 - prob) / 2, (1 + prob) / 2])
    fig = Figure(figsize=(6.5, 3.0))
    ax = fig.subplots()
    ax.hist(draws, bins=histogram_bins(draws), density=True, color="#55a868", alpha=0.6, lw=0)
    ax.axvspan(low, high, color="#55a868", alpha=0.12, label=f"{100 * prob:g}% interval")
    ax.axvline(float(np.mean(draws)), color="#2d6a3e", lw=1.5, label="posterior mean")
    ax.set_xlabel("Youden's J = Se + Sp - 1 (0 = chance, 1 = perfect judge)")
    ax.set_ylabel("posterior density")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _threshold_figure(thresholds: ThresholdAnalysis) -> Figure:
    """Se, Sp and J against the threshold with their bands, and the posterior ROC."""
    from matplotlib.figure import Figure

    frame = thresholds.to_frame()
    mass = f"{100 * thresholds.prob:g}%"
    fig = Figure(figsize=(9.0, 3.4))
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
    import matplotlib.pyplot as plt

    from bayesjudge.prevalence.plan import plot_label_plan

    posterior = analysis.posterior
    assert posterior is not None
    figures: dict[str, str] = {}
    draws_ds = group(posterior, "posterior")
    names = [v for v in ("pi", "se", "sp") if v in draws_ds and draws_ds[v].ndim == 2]

    def keep(title: str, fig: Figure | None) -> None:
        if fig is not None:
            figures[title] = png(fig)
            plt.close(fig)

    draws = np.asarray(draws_ds["pi"]).reshape(-1)
    keep(
        "Posterior of pi beside the frequentist intervals",
        _interval_figure(draws, comparison, prob=prob, naive=analysis.counts.p_hat),
    )
    if analysis.plan is not None:
        keep("How many more gold labels? (expected interval width)", plot_label_plan(analysis.plan))
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


# --------------------------------------------------------------------------- writers
def write_report(
    out: str | os.PathLike[str],
    analysis: PrevalenceAnalysis,
    *,
    source: str = "bundled example",
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> ReportFiles:
    """Write a report folder: ``report.html``, ``summary.md``, ``posterior.nc`` and tables.

    Parameters
    ----------
    out : path
        The report folder: a new or empty folder, or a report bayesjudge wrote there with
        nothing changed since (see :func:`bayesjudge.reporting.output.check_output_folder`).
        It is replaced as a whole, and only once every file is written.
    analysis : PrevalenceAnalysis
        What :func:`bayesjudge.analyze_prevalence` returned (with a NUTS posterior).
    source : str
        Where the data came from, shown in the report.
    inputs : iterable of paths
        The files the analysis read: a folder holding one of them is refused.

    Returns
    -------
    ReportFiles
        The paths written. ``posterior.nc`` opens with ``xarray.open_datatree``.

    Raises
    ------
    OutputError
        When ``out`` is refused, another run is writing it, or a file cannot be written (the
        destination is then untouched).
    ValueError
        When the analysis has no NUTS posterior.

    Examples
    --------
    >>> import tempfile
    >>> import bayesjudge as bj
    >>> data = bj.JudgeData.from_frame(bj.load_example("judge"))
    >>> analysis = bj.analyze_prevalence(data, progressbar=False)  # doctest: +SKIP
    >>> files = write_report(tempfile.mkdtemp(), analysis)  # doctest: +SKIP
    >>> files.markdown.name  # doctest: +SKIP
    'summary.md'
    """
    if analysis.posterior is None or analysis.diagnostics is None:
        raise ValueError("a report needs a NUTS posterior; analyze with method='nuts'")
    with output_folder(out, inputs=inputs, kind="report") as staging:
        _write_files(staging, analysis, source=source)
    folder = Path(os.path.abspath(out))
    return ReportFiles(
        folder=folder,
        html=folder / "report.html",
        markdown=folder / "summary.md",
        posterior=folder / "posterior.nc",
        comparison=folder / "comparison.csv",
        diagnostics=folder / "diagnostics.csv",
    )


def _write_files(
    folder: Path, analysis: PrevalenceAnalysis, *, source: str, index: str | None = None
) -> None:
    """Write the files of one report into ``folder`` (a staging folder, or a group's below it).

    ``index`` is the relative address of the page listing every group, for a group's report.
    """
    posterior, data, prob = analysis.posterior, analysis.data, analysis.prob
    assert posterior is not None  # write_report checked
    assert analysis.diagnostics is not None
    comparison = analysis.to_frame()
    summary = report_summary(analysis)
    shown = _display_frame(analysis, comparison)
    figures = _figures(analysis, comparison, prob=prob)
    diagnostics = analysis.diagnostics
    diag_frame = diagnostics.to_frame()
    title = f"bayesjudge report: {source}"
    mass = f"{100 * prob:g}%"
    about = (
        f"{data.m} gold-labelled calibration items ({data.m1} PASS, {data.m0} FAIL), "
        f"{data.n} unlabelled items; model {posterior.attrs.get('model', '')}, priors "
        f"{analysis.priors.describe()}."
    )
    plan_md: list[str] = []
    plan_html = ""
    if analysis.plan is not None:
        plan_text = analysis.plan.reading()
        plan_md = [
            "## How many more gold labels?",
            escape_markdown_prose(plan_text, line_start=True),
        ]
        plan_html = f"<h2>How many more gold labels?</h2><p>{html.escape(plan_text)}</p>"
    threshold_md: list[str] = []
    threshold_html = ""
    if analysis.thresholds is not None:
        chosen = analysis.thresholds
        heading = f"Threshold {chosen.chosen:g}: how the judge's score was turned into verdicts"
        table = _threshold_table(chosen)
        threshold_md = [
            f"## {escape_markdown_prose(heading)}",
            escape_markdown_prose(chosen.reason, line_start=True) + ".",
            markdown_table(table),
        ]
        threshold_html = (
            f"<h2>{html.escape(heading)}</h2><p>{html.escape(chosen.reason)}.</p>"
            f'<div class="table-wrap">{table_html(table)}</div>'
        )
    write_posterior(posterior, folder / "posterior.nc")
    if analysis.thresholds is not None:
        write_csv(analysis.thresholds.to_frame(), folder / "thresholds.csv")
    write_csv(comparison, folder / "comparison.csv")
    write_csv(diag_frame, folder / "diagnostics.csv")
    figure_html = figures_html(figures)
    back = "" if index is None else f'<p><a href="{html.escape(index)}">All groups</a></p>\n'
    body = f"""{back}{summary.to_html()}
<p>{html.escape(about)}</p>
<h2>Estimates of the true success rate ({mass} intervals)</h2>
<p class="note">std_error is the standard error of the estimate (not the sensitivity Se);
j is the Youden J each method used.</p>
<div class="table-wrap">{table_html(shown)}</div>
{threshold_html}
{plan_html}
{diagnostics_section_html(diagnostics, quantities=REPORTED, names=NAMES)}
<h2>Figures</h2>
{figure_html}"""
    page = html_page(title, body, footer=footer_html(analysis.seed))
    (folder / "report.html").write_text(page, encoding="utf-8")
    markdown = "\n\n".join(
        [
            f"# {escape_markdown(title)}",
            summary.to_markdown(),
            escape_markdown_prose(about, line_start=True),
            f"## Estimates of the true success rate ({mass} intervals)",
            markdown_table(shown),
            *threshold_md,
            *plan_md,
            diagnostics_section_markdown(diagnostics, quantities=REPORTED, names=NAMES),
            "Figures: see report.html. Every check: diagnostics.csv. Posterior: posterior.nc "
            '(`xarray.open_datatree("posterior.nc")`).',
            footer_markdown(analysis.seed),
        ]
    )
    (folder / "summary.md").write_text(markdown + "\n", encoding="utf-8")


def _group_folder(position: int, value: str) -> str:
    """Return the sub-folder of a group's report: its place and its value, in safe characters."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", value).strip("._-")[:40] or "group"
    return f"{position:02d}-{safe}"


def write_group_reports(
    out: str | os.PathLike[str],
    groups: Mapping[str, PrevalenceAnalysis | str],
    *,
    column: str,
    source: str = "bundled example",
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> GroupReportFiles:
    """Write one report folder for a table split by a column: one report per group, an index.

    The folder holds ``report.html`` and ``summary.md``, an index with a row per group (its
    counts and headline, or why it has no answer) and each group's one-screen summary, and
    ``groups/NN-VALUE/`` with each answered group's full report (the files of
    :func:`write_report`). It is written as one folder, atomically
    (:func:`bayesjudge.reporting.output.output_folder`).

    Parameters
    ----------
    out : path
        The report folder (as in :func:`write_report`).
    groups : mapping of str to PrevalenceAnalysis or str
        Each group's value, in order, with its analysis (a NUTS posterior), or the error that
        stopped it.
    column : str
        The column the table was split by.
    source : str
        Where the data came from, shown in the report.
    inputs : iterable of paths
        The files the analysis read: a folder holding one of them is refused.

    Returns
    -------
    GroupReportFiles
        The index pages and each answered group's report files.

    Raises
    ------
    OutputError
        As :func:`write_report`.
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
    with output_folder(out, inputs=inputs, kind="report") as staging:
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
            sub = staging / "groups" / folders[value]
            sub.mkdir(parents=True)
            _write_files(sub, analysis, source=f"{source}, {name}", index="../../report.html")
            summary = report_summary(analysis)
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
        (staging / "report.html").write_text(page, encoding="utf-8")
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
        (staging / "summary.md").write_text(markdown + "\n", encoding="utf-8")
    folder = Path(os.path.abspath(out))
    return GroupReportFiles(
        folder=folder,
        html=folder / "report.html",
        markdown=folder / "summary.md",
        groups={
            value: folder / "groups" / folders[value] / "report.html"
            for value, analysis in groups.items()
            if not isinstance(analysis, str)
        },
    )
