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
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import xarray as xr

from bayesjudge._version import __version__
from bayesjudge.inference.summary import group
from bayesjudge.reporting.html import (
    arviz_figure,
    diagnostics_html,
    figures_html,
    html_page,
    markdown_table,
    png,
    table_html,
)
from bayesjudge.reporting.netcdf import write_posterior
from bayesjudge.reporting.output import escape_markdown, output_folder

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from bayesjudge.prevalence.analysis import PrevalenceAnalysis

__all__ = ["ReportFiles", "plain_reading", "write_report"]

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


# --------------------------------------------------------------------------- plain language
def plain_reading(analysis: PrevalenceAnalysis) -> str:
    """Return a short plain-language reading of a prevalence analysis.

    It states the judged pass rate, the posterior of the true success rate, how many points
    the judge inflates (or deflates) the rate by, and how informative the judge is (J).
    """
    data, prob = analysis.data, analysis.prob
    pi = analysis.summaries["pi"]
    j = analysis.summaries.get("j")
    judged = analysis.counts.p_hat
    gap = 100.0 * (judged - pi.mean)
    direction = "inflates" if gap > 0 else "deflates"
    mass = f"{100 * prob:g}%"
    lines = [
        f"The judge passes {100 * judged:.1f}% of the {data.n} unlabelled items. Corrected with "
        f"{data.m} gold-labelled items, the true success rate is {100 * pi.mean:.1f}% "
        f"({mass} credible interval {100 * pi.eti.low:.1f}% to {100 * pi.eti.high:.1f}%).",
        f"The judge {direction} the pass rate by about {abs(gap):.1f} percentage points.",
    ]
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


# --------------------------------------------------------------------------- figures
def _figures(posterior: xr.DataTree, comparison: pd.DataFrame, *, prob: float) -> dict[str, str]:
    import arviz_plots as azp
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    figures: dict[str, str] = {}
    draws_ds = group(posterior, "posterior")
    names = [v for v in ("pi", "se", "sp") if v in draws_ds]

    def keep(title: str, fig: Figure) -> None:
        figures[title] = png(fig)
        plt.close(fig)

    keep(
        "Rank plots (uniform ranks across chains mean the chains agree)",
        arviz_figure(azp.plot_rank(posterior, var_names=names, backend="matplotlib")),
    )
    keep(
        "Trace and marginal posteriors",
        arviz_figure(azp.plot_trace_dist(posterior, var_names=names, backend="matplotlib")),
    )

    # Posterior of pi with every interval of the comparison drawn beneath it.
    draws = np.asarray(draws_ds["pi"]).reshape(-1)
    rows = comparison.dropna(subset=["low", "high"])
    fig = Figure(figsize=(7.5, 3.2 + 0.28 * len(rows)))
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2.2, 0.3 + 0.3 * len(rows)])
    top.hist(draws, bins=60, density=True, color="#4c72b0", alpha=0.75)
    top.set_ylabel("posterior density of pi")
    top.set_title(f"True success rate: posterior and {100 * prob:g}% intervals")
    for position, (_, row) in enumerate(rows.iterrows()):
        colour = "#4c72b0" if str(row["method"]).startswith("bayes") else "#dd8452"
        bottom.plot([row["low"], row["high"]], [position, position], color=colour, lw=2.5)
        if pd.notna(row["estimate"]):
            bottom.plot(row["estimate"], position, "o", color=colour)
    bottom.set_yticks(range(len(rows)), list(rows["method"]))
    bottom.invert_yaxis()
    bottom.set_xlabel("true success rate pi")
    fig.tight_layout()
    figures["Posterior of pi beside the frequentist intervals"] = png(fig)

    # Posterior predictive check of the observed counts.
    observed = group(posterior, "observed_data")
    predictive = group(posterior, "posterior_predictive")
    counts = [c for c in COUNT_LABELS if c in observed and c in predictive]
    fig = Figure(figsize=(3.4 * len(counts), 3.0))
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
        ax.set_xlabel(COUNT_LABELS[name], fontsize=7)
    axes[0].legend(fontsize=8)
    fig.suptitle("Posterior predictive check of the observed counts", fontsize=10)
    fig.tight_layout()
    figures["Posterior predictive check"] = png(fig)

    if "j" in draws_ds:
        keep(
            "Youden's J = Se + Sp - 1",
            arviz_figure(
                azp.plot_dist(posterior, var_names=["j"], backend="matplotlib", ci_prob=prob)
            ),
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
    posterior, data, prob = analysis.posterior, analysis.data, analysis.prob
    if posterior is None or analysis.diagnostics is None:
        raise ValueError("a report needs a NUTS posterior; analyze with method='nuts'")
    comparison = analysis.to_frame()
    reading = plain_reading(analysis)
    figures = _figures(posterior, comparison, prob=prob)
    diag_frame = analysis.diagnostics.to_frame()
    status = "passed" if analysis.passed else "FAILED"
    title = f"bayesjudge report: {source}"
    with output_folder(out, inputs=inputs, kind="report") as staging:
        write_posterior(posterior, staging / "posterior.nc")
        comparison.to_csv(staging / "comparison.csv", index=False)
        diag_frame.to_csv(staging / "diagnostics.csv", index=False)
        diag_html = diagnostics_html(diag_frame)
        figure_html = figures_html(figures)
        body = f"""<p>{data.m} gold-labelled calibration items ({data.m1} PASS, {data.m0} FAIL),
{data.n} unlabelled items. bayesjudge {__version__}, model
<code>{html.escape(str(posterior.attrs.get("model", "")))}</code>, priors
<code>{html.escape(analysis.priors.describe())}</code>, seed {html.escape(str(analysis.seed))}.</p>
<h2>Reading</h2><p class="reading">{html.escape(reading)}</p>
<h2>Estimates of the true success rate ({100 * prob:g}% intervals)</h2>
{table_html(comparison)}
<h2>Diagnostics: {status}</h2>
{diag_html}
<h2>Figures</h2>
{figure_html}"""
        page = html_page(title, body)
        (staging / "report.html").write_text(page, encoding="utf-8")
        markdown = "\n\n".join(
            [
                f"# {escape_markdown(title)}",
                reading,
                f"## Estimates of the true success rate ({100 * prob:g}% intervals)",
                markdown_table(comparison),
                f"## Diagnostics: {status}",
                markdown_table(diag_frame),
                "Figures: see report.html. Posterior: posterior.nc "
                '(`xarray.open_datatree("posterior.nc")`).',
            ]
        )
        (staging / "summary.md").write_text(markdown + "\n", encoding="utf-8")
    folder = Path(os.path.abspath(out))
    return ReportFiles(
        folder=folder,
        html=folder / "report.html",
        markdown=folder / "summary.md",
        posterior=folder / "posterior.nc",
        comparison=folder / "comparison.csv",
        diagnostics=folder / "diagnostics.csv",
    )
