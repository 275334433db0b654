"""Reports of a prevalence fit: self-contained HTML, a Markdown summary and the posterior.

:func:`write_report` writes into a staging folder and renames it into place only when every
file is written, so a failed run leaves no half-written report. The HTML embeds its figures as
PNG data URIs and needs no network to view.
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import xarray as xr

from bayesjudge._io import atomic_directory
from bayesjudge._version import __version__
from bayesjudge.compare import group, posterior_summary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from bayesjudge.data import JudgeData
    from bayesjudge.diagnostics import Diagnostics

__all__ = ["ReportFiles", "plain_reading", "write_posterior", "write_report"]

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
def plain_reading(posterior: xr.DataTree, data: JudgeData, *, prob: float = 0.95) -> str:
    """Return a short plain-language reading of a prevalence fit.

    It states the judged pass rate, the posterior of the true success rate, how many points
    the judge inflates (or deflates) the rate by, and how informative the judge is (J).
    """
    pi = posterior_summary(posterior, "pi", prob=prob)
    j = posterior_summary(posterior, "j", prob=prob)
    judged = float(np.mean(data.test_judge))
    gap = 100.0 * (judged - pi.mean)
    direction = "inflates" if gap > 0 else "deflates"
    mass = f"{100 * prob:g}%"
    lines = [
        f"The judge passes {100 * judged:.1f}% of the {data.n} unlabelled items. Corrected with "
        f"{data.m} gold-labelled items, the true success rate is {100 * pi.mean:.1f}% "
        f"({mass} credible interval {100 * pi.eti.low:.1f}% to {100 * pi.eti.high:.1f}%).",
        f"The judge {direction} the pass rate by about {abs(gap):.1f} percentage points.",
    ]
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
def _png(fig: Figure) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _arviz_figure(plot: Any) -> Figure:
    figure: Figure = plot.viz["figure"].item()
    return figure


def _figures(posterior: xr.DataTree, comparison: pd.DataFrame, *, prob: float) -> dict[str, str]:
    import arviz_plots as azp
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    figures: dict[str, str] = {}
    draws_ds = group(posterior, "posterior")
    names = [v for v in ("pi", "se", "sp") if v in draws_ds]

    def keep(title: str, fig: Figure) -> None:
        figures[title] = _png(fig)
        plt.close(fig)

    keep(
        "Rank plots (uniform ranks across chains mean the chains agree)",
        _arviz_figure(azp.plot_rank(posterior, var_names=names, backend="matplotlib")),
    )
    keep(
        "Trace and marginal posteriors",
        _arviz_figure(azp.plot_trace_dist(posterior, var_names=names, backend="matplotlib")),
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
    figures["Posterior of pi beside the frequentist intervals"] = _png(fig)

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
    figures["Posterior predictive check"] = _png(fig)

    if "j" in draws_ds:
        keep(
            "Youden's J = Se + Sp - 1",
            _arviz_figure(
                azp.plot_dist(posterior, var_names=["j"], backend="matplotlib", ci_prob=prob)
            ),
        )
    return figures


# --------------------------------------------------------------------------- writers
def _netcdf_ready(posterior: xr.DataTree) -> xr.DataTree:
    """Return a copy that netCDF can store: booleans as int8, objects as text, plain attrs."""

    def fix(dataset: xr.Dataset) -> xr.Dataset:
        dataset = dataset.copy()
        for name, variable in dataset.variables.items():
            if variable.dtype == object:
                dataset[name] = variable.astype(str)
            elif variable.dtype == bool:
                dataset[name] = variable.astype(np.int8)
        dataset.attrs = {k: _attr(v) for k, v in dataset.attrs.items()}
        return dataset

    fixed = xr.DataTree.from_dict(
        {node.path: fix(node.to_dataset(inherit=False)) for node in posterior.subtree}
    )
    fixed.attrs = {k: _attr(v) for k, v in posterior.attrs.items()}
    return fixed


def _attr(value: Any) -> Any:
    if isinstance(value, bool | np.bool_):
        return int(value)
    if isinstance(value, str | int | float | np.integer | np.floating):
        return value
    return json.dumps(value, default=str)


def write_posterior(tree: xr.DataTree, path: str | os.PathLike[str]) -> None:
    """Write a posterior as NetCDF readable by ``xarray.open_datatree`` (h5netcdf engine)."""
    _netcdf_ready(tree).to_netcdf(path, engine="h5netcdf")


def _diagnostics_html(frame: pd.DataFrame) -> str:
    """Return the diagnostics table as HTML with each check's verdict marked pass or FAIL."""
    return (
        _table_html(frame)
        .replace("<td>True</td>", '<td class="pass">pass</td>')
        .replace("<td>False</td>", '<td class="fail">FAIL</td>')
    )


def _figures_html(figures: dict[str, str]) -> str:
    """Return titled ``<img>`` elements embedding base64 PNGs (no network needed to view)."""
    return "\n".join(
        f'<h3>{html.escape(name)}</h3>\n<img alt="{html.escape(name)}" '
        f'src="data:image/png;base64,{png}"/>'
        for name, png in figures.items()
    )


def _html_page(title: str, body: str) -> str:
    """Return a complete, self-contained HTML document: the title as heading, then ``body``."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style></head><body>\n"
        f"<h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n"
    )


def _table_html(frame: pd.DataFrame) -> str:
    return frame.to_html(
        index=False, na_rep="", float_format=lambda x: f"{x:.4f}", classes="table", border=0
    )


def _markdown_table(frame: pd.DataFrame) -> str:
    def cell(value: Any) -> str:
        if value is None or (isinstance(value, float) and np.isnan(value)):
            return ""
        if isinstance(value, float):
            return f"{value:.4f}"
        return str(value).replace("|", "\\|")

    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1000px; margin: 2em auto; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em; }
table.table { border-collapse: collapse; font-size: 0.85em; }
table.table th, table.table td { padding: 3px 8px; border-bottom: 1px solid #ddd; }
.pass { color: #1a7f37; font-weight: bold; } .fail { color: #c62828; font-weight: bold; }
.reading { background: #f4f6fa; padding: 0.8em 1em; border-left: 4px solid #4c72b0; }
img { max-width: 100%; }
"""


def write_report(
    out: str | os.PathLike[str],
    *,
    posterior: xr.DataTree,
    data: JudgeData,
    comparison: pd.DataFrame,
    diagnostics: Diagnostics,
    prob: float = 0.95,
    source: str = "bundled example",
) -> ReportFiles:
    """Write a report folder: ``report.html``, ``summary.md``, ``posterior.nc`` and tables.

    Parameters
    ----------
    out : path
        The report folder; replaced as a whole, and only once every file is written.
    posterior : DataTree
        A prevalence fit with posterior, posterior predictive and observed data groups.
    data : JudgeData
        The data fitted.
    comparison : DataFrame
        :func:`bayesjudge.compare.compare` of the fit.
    diagnostics : Diagnostics
        :func:`bayesjudge.diagnostics.check_fit` of the fit.
    prob : float
        Interval mass used throughout.
    source : str
        Where the data came from, shown in the report.

    Returns
    -------
    ReportFiles
        The paths written. ``posterior.nc`` opens with ``xarray.open_datatree``.
    """
    reading = plain_reading(posterior, data, prob=prob)
    figures = _figures(posterior, comparison, prob=prob)
    diag_frame = diagnostics.to_frame()
    status = "passed" if diagnostics.passed else "FAILED"
    target = Path(out)
    title = f"bayesjudge report: {source}"
    with atomic_directory(target) as staging:
        write_posterior(posterior, staging / "posterior.nc")
        comparison.to_csv(staging / "comparison.csv", index=False)
        diag_frame.to_csv(staging / "diagnostics.csv", index=False)
        diag_html = _diagnostics_html(diag_frame)
        figure_html = _figures_html(figures)
        priors = ", ".join(
            f"{name} ~ {posterior.attrs[f'prior_{name}']}"
            for name in ("pi", "se", "sp")
            if f"prior_{name}" in posterior.attrs
        )
        body = f"""<p>{data.m} gold-labelled calibration items ({data.m1} PASS, {data.m0} FAIL),
{data.n} unlabelled items. bayesjudge {__version__}, model
<code>{html.escape(str(posterior.attrs.get("model", "")))}</code>, priors
<code>{html.escape(priors)}</code>.</p>
<h2>Reading</h2><p class="reading">{html.escape(reading)}</p>
<h2>Estimates of the true success rate ({100 * prob:g}% intervals)</h2>
{_table_html(comparison)}
<h2>Diagnostics: {status}</h2>
{diag_html}
<h2>Figures</h2>
{figure_html}"""
        page = _html_page(title, body)
        (staging / "report.html").write_text(page, encoding="utf-8")
        markdown = "\n\n".join(
            [
                f"# {title}",
                reading,
                f"## Estimates of the true success rate ({100 * prob:g}% intervals)",
                _markdown_table(comparison),
                f"## Diagnostics: {status}",
                _markdown_table(diag_frame),
                "Figures: see report.html. Posterior: posterior.nc "
                '(`xarray.open_datatree("posterior.nc")`).',
            ]
        )
        (staging / "summary.md").write_text(markdown + "\n", encoding="utf-8")
    folder = target.resolve()
    return ReportFiles(
        folder=folder,
        html=folder / "report.html",
        markdown=folder / "summary.md",
        posterior=folder / "posterior.nc",
        comparison=folder / "comparison.csv",
        diagnostics=folder / "diagnostics.csv",
    )
