"""Reports of a retry-gate fit: self-contained HTML, a Markdown summary and the posterior.

:func:`write_gate_report` writes, through :func:`bayesjudge.reporting.output.output_folder` (a
folder it did not write is refused; the report is staged and switched into place only when
every file and the manifest are written): ``report.html`` (figures embedded as PNG),
``summary.md``, ``posterior.nc`` (``xarray.open_datatree``), ``estimates.csv``, ``curve.csv``
(posterior J, Se, Sp, R by cap) and ``diagnostics.csv``. Figures: the J(K) curve with its band
and J(inf), Se(K) and Sp(K) with bands, and the posterior of pi against the baseline intervals
at each cap.
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

from bayesjudge.gates.fit import REPORTED, cap_curve_draws
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
    markdown_code_span,
    output_folder,
    write_csv,
)
from bayesjudge.reporting.summary import (
    WIDE_INTERVAL,
    Headline,
    ReportSummary,
    diagnostics_section_html,
    diagnostics_section_markdown,
    footer_html,
    footer_markdown,
    label_shift_warning,
    random_sample_baselines_warning,
    small_calibration_warning,
    weak_judge_warning,
    wide_interval_warning,
)

if TYPE_CHECKING:
    from bayesjudge.gates.analysis import GateAnalysis

__all__ = ["GateReportFiles", "curve_frame", "gate_summary", "write_gate_report"]

#: Readable names of the gate model's variables (diagnostics and figures).
NAMES = {
    "pi": "true success rate pi",
    "omega": "share of items the gate never passes",
    "mu": "mean pass probability of the other items",
    "log_kappa": "log concentration of pass probabilities",
    "kappa": "concentration of pass probabilities",
    "j_inf": "reliability floor J(inf)",
    "se": "Se(K)",
    "sp": "Sp(K)",
    "j": "J(K)",
    "judged_rate": "judged pass rate R(K)",
}

#: Plain definitions of the quantities of a gate report.
DEFINITIONS = (
    ("pi", "the true success rate: the share of items that truly pass (gold label PASS)."),
    ("K", "the cap: an item ships when the judge says PASS within K tries."),
    ("Se(K)", "sensitivity at cap K: the chance a truly passing item ships."),
    ("Sp(K)", "specificity at cap K: the chance a truly failing item is held back."),
    (
        "J(K)",
        "Youden's J = Se(K) + Sp(K) - 1: how much shipping tells about the truth (1 = "
        "perfect, 0 = none); it falls as K grows.",
    ),
    (
        "J(inf)",
        "the reliability floor: J as K grows without limit (the share of failing items "
        "the judge never passes, minus that of passing items).",
    ),
)


@dataclass(frozen=True, slots=True)
class GateReportFiles:
    """Paths of the files of a gate report."""

    folder: Path
    html: Path
    markdown: Path
    posterior: Path
    estimates: Path
    curve: Path
    diagnostics: Path


def curve_frame(posterior: xr.DataTree, caps: list[int], *, prob: float = 0.95) -> pd.DataFrame:
    """Return posterior mean and equal-tailed bounds of J, Se, Sp, R at each of ``caps``.

    Columns: ``cap``, then ``<name>``, ``<name>_low``, ``<name>_high`` for ``j``, ``se``,
    ``sp``, ``judged_rate``; computed from the class parameters' draws, so any cap works.
    """
    draws = cap_curve_draws(posterior["posterior"].to_dataset(), caps)
    tail = (1.0 - prob) / 2.0
    frame = pd.DataFrame({"cap": draws["cap"].to_numpy()})
    for name in ("j", "se", "sp", "judged_rate"):
        values = draws[name].transpose("chain", "draw", "cap").to_numpy()
        values = values.reshape(-1, frame.shape[0])
        frame[name] = values.mean(axis=0)
        frame[f"{name}_low"] = np.quantile(values, tail, axis=0)
        frame[f"{name}_high"] = np.quantile(values, 1.0 - tail, axis=0)
    return frame


def _figures(
    posterior: xr.DataTree, curve: pd.DataFrame, estimates: pd.DataFrame, *, prob: float
) -> dict[str, str]:
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    figures: dict[str, str] = {}
    post = posterior["posterior"]
    mass = f"{100 * prob:g}%"

    def below(ax: object, ncol: int = 2) -> None:
        # legends sit under the axes, so no band or curve is hidden beneath them
        ax.legend(  # type: ignore[attr-defined]
            fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=ncol, frameon=False
        )

    fig = Figure(figsize=(7.0, 4.2))
    ax = fig.subplots()
    ax.fill_between(
        curve["cap"],
        curve["j_low"],
        curve["j_high"],
        color="#4c72b0",
        alpha=0.25,
        label=f"J(K) {mass} band",
    )
    ax.plot(curve["cap"], curve["j"], "o-", color="#4c72b0", ms=4, label="J(K), posterior mean")
    j_inf = post["j_inf"].to_numpy().reshape(-1)
    low, high = np.quantile(j_inf, [(1 - prob) / 2, (1 + prob) / 2])
    ax.axhspan(low, high, color="#c44e52", alpha=0.12, label=f"J(inf) {mass} band")
    ax.axhline(j_inf.mean(), color="#c44e52", ls="--", label="reliability floor J(inf)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("cap K (tries allowed)")
    ax.set_ylabel("Youden's J")
    ax.set_title(f"J(K) falls towards the reliability floor ({mass} bands)", fontsize=11)
    below(ax)
    fig.tight_layout()
    figures[f"J(K) and the reliability floor ({mass} bands)"] = png(fig)

    fig = Figure(figsize=(7.0, 4.2))
    ax = fig.subplots()
    for name, label, colour in (
        ("se", "Se(K)", "#55a868"),
        ("sp", "Sp(K)", "#dd8452"),
        ("judged_rate", "judged pass rate R(K)", "#8172b3"),
    ):
        ax.fill_between(
            curve["cap"], curve[f"{name}_low"], curve[f"{name}_high"], color=colour, alpha=0.2
        )
        ax.plot(curve["cap"], curve[name], "o-", color=colour, ms=4, label=label)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("cap K (tries allowed)")
    ax.set_ylabel("probability")
    ax.set_ylim(0, 1)
    ax.set_title(f"Sensitivity, specificity and judged rate by cap ({mass} bands)", fontsize=11)
    below(ax, ncol=3)
    fig.tight_layout()
    figures[f"Se(K), Sp(K) and R(K) ({mass} bands)"] = png(fig)

    draws = post["pi"].to_numpy().reshape(-1)
    low, high = np.quantile(draws, [(1 - prob) / 2, (1 + prob) / 2])
    model_row = pd.DataFrame(
        [{"cap": "all", "method": "gate model", "estimate": draws.mean(), "low": low, "high": high}]
    )
    rows = pd.concat([model_row, estimates.dropna(subset=["low", "high"])], ignore_index=True)
    fig = Figure(figsize=(8.0, 3.4 + 0.25 * len(rows)))
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[2.0, 0.3 + 0.3 * len(rows)])
    top.hist(draws, bins=histogram_bins(draws), density=True, color="#4c72b0", alpha=0.6, lw=0)
    top.set_ylabel("posterior density")
    top.set_title(f"True success rate pi: posterior and baseline {mass} intervals", fontsize=11)
    for ax in (top, bottom):
        ax.axvline(float(draws.mean()), color="#4c72b0", lw=1.2)
    for position, (_, row) in enumerate(rows.iterrows()):
        colour = "#4c72b0" if row["method"] == "gate model" else "#dd8452"
        bottom.plot([row["low"], row["high"]], [position, position], color=colour, lw=2.5)
        if pd.notna(row["estimate"]):
            bottom.plot(row["estimate"], position, "o", color=colour)
    labels = [f"{m} (K={k})" for m, k in zip(rows["method"], rows["cap"], strict=True)]
    bottom.set_yticks(range(len(rows)), labels, fontsize=7)
    bottom.invert_yaxis()
    bottom.set_xlabel("true success rate pi")
    handles = [
        Line2D([], [], color="#4c72b0", lw=2.5, marker="o", label="gate model (Bayesian)"),
        Line2D([], [], color="#dd8452", lw=2.5, marker="o", label="baseline at cap K"),
        Line2D([], [], color="#4c72b0", lw=1.2, label="posterior mean"),
    ]
    top.legend(handles=handles, fontsize=8, loc="upper left", framealpha=0.9)
    fig.tight_layout()
    figures["Posterior of pi beside the baselines"] = png(fig)

    scalars = post.to_dataset()[["pi", "j_inf"]]
    for title, make in (
        (
            "Rank plots (each chain's line inside the grey band: the chains agree)",
            rank_figure,
        ),
        ("Traces and marginal posteriors by chain", trace_figure),
    ):
        fig = make(scalars, ["pi", "j_inf"], labels=NAMES)
        figures[title] = png(fig)
        plt.close(fig)
    return figures


def _naive(analysis: GateAnalysis, cap: int) -> float | None:
    for e in analysis.estimates:
        if e.cap == cap and e.estimate.method == "naive":
            return e.estimate.estimate
    return None


def gate_summary(analysis: GateAnalysis) -> ReportSummary:
    """Return the one-screen summary of a gate analysis.

    The posterior of pi beside the judged pass rate at the smallest cap, the diagnostics badge,
    warnings with their evidence (small gold set, J(K) near 0 at the smallest cap, label shift,
    baselines assuming a random gold sample, an interval too wide to read), the reading, which
    estimate to trust and the definitions.
    """
    from bayesjudge.gates.baselines import RANDOM_SAMPLE_METHODS

    prob, rulings = analysis.prob, analysis.rulings
    pi, j_inf = analysis.summary("pi"), analysis.summary("j_inf")
    cap = analysis.caps[0]
    j = analysis.summary("j", cap)
    labels = rulings.label[~np.isnan(rulings.label)]
    n_pass, n_fail = int(np.sum(labels == 1)), int(np.sum(labels == 0))
    check = analysis.calibration_check
    naive = _naive(analysis, cap)
    random_rows = {
        f"{e.estimate.method} (K={e.cap})": e.estimate.estimate
        for e in analysis.estimates
        if e.estimate.method in RANDOM_SAMPLE_METHODS
    }
    warnings = [
        small_calibration_warning(n_pass=n_pass, n_fail=n_fail),
        weak_judge_warning(j=j.mean, low=j.eti.low, high=j.eti.high, prob=prob),
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
            baselines=random_rows,
            reference=pi.mean,
            reference_name="the gate model's posterior mean",
        ),
        wide_interval_warning(
            low=pi.eti.low, high=pi.eti.high, prob=prob, name="the true success rate pi"
        ),
    ]
    mass = f"{100 * prob:g}%"
    judged = "" if naive is None else f"The judge passes {100 * naive:.1f}% of items at cap {cap}. "
    if pi.eti.high - pi.eti.low > WIDE_INTERVAL:
        corrected = (
            f"The data cannot pin the true success rate down: it lies anywhere from "
            f"{100 * pi.eti.low:.1f}% to {100 * pi.eti.high:.1f}% ({mass} interval), too wide "
            "to quote one value; more gold labels narrow it."
        )
    else:
        corrected = (
            f"Corrected by the gate model, the true success rate is {100 * pi.mean:.1f}% "
            f"({mass} interval {100 * pi.eti.low:.1f}% to {100 * pi.eti.high:.1f}%)."
        )
    story = retry_story(analysis)
    reading = (
        f"{'' if story else judged}{corrected} {story}At cap {cap} "
        f"the gate's J is {j.mean:.2f} ({j.eti.low:.2f} to {j.eti.high:.2f}); however many "
        f"retries are allowed it stays above the reliability floor J(inf) = {j_inf.mean:.2f} "
        f"({j_inf.eti.low:.2f} to {j_inf.eti.high:.2f})."
    )
    trust = (
        "The gate model's posterior of pi: it uses every ruling of every item, needs only that "
        "the judge treats gold and unlabelled items alike, and "
        + (
            "does not assume the gold items are a random sample (they were drawn per class)."
            if analysis.calibration == "by_class"
            else "here also uses the gold labels' class mix (they were taken as a random sample)."
        )
        + " Rogan-Gladen at each cap needs the same and should agree at small caps; "
        + (
            "PPI and PPI++ assume a random gold sample, which the data contradict here, so they "
            "are biased."
            if not check.consistent
            else "PPI and PPI++ are valid when the gold set is a random sample, as it looks here."
        )
    )
    return ReportSummary(
        headline=Headline(
            "true success rate pi",
            pi.mean,
            pi.eti.low,
            pi.eti.high,
            prob,
            naive=naive,
            naive_name=f"judged pass rate at cap {cap} (naive)",
        ),
        diagnostics=analysis.diagnostics,
        definitions=DEFINITIONS,
        trust=trust,
        reading=reading,
        warnings=warnings,
        names=NAMES,
        quantities=REPORTED,
        hedge_wide=False,  # the reading hedges pi itself and still tells what retries do
    )


def _trend(first: float, last: float, *, tolerance: float) -> str:
    if last > first + tolerance:
        return "rises"
    if last < first - tolerance:
        return "falls"
    return "stays"


def retry_story(analysis: GateAnalysis) -> str:
    """Return what retries do to the judged pass rate and to Se, Sp and J, in words.

    The judged pass rates observed at the first and the last cap (the posterior means where
    the data give none) and the posterior means of Se, Sp and J there are compared; with a
    single cap there is nothing to tell and the text is empty.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> means = {("judged_rate", 1): 0.68, ("judged_rate", 5): 0.85, ("sp", 1): 0.57,
    ...          ("sp", 5): 0.33, ("se", 1): 0.84, ("se", 5): 0.97, ("j", 1): 0.41,
    ...          ("j", 5): 0.30}
    >>> fake = SimpleNamespace(caps=(1, 2, 5), estimates=(), summary=lambda name, cap=None:
    ...     SimpleNamespace(mean=means[name, cap]))
    >>> print(retry_story(fake))  # doctest: +NORMALIZE_WHITESPACE
    Retries raise the judged pass rate from 68.0% at cap 1 to 85.0% at cap 5, while the
    specificity Sp falls from 0.57 to 0.33 and the sensitivity Se rises from 0.84 to 0.97: each
    retry ships more truly failing items, so the judged rate says less about the true one
    (J falls from 0.41 to 0.30).
    """
    if len(analysis.caps) < 2:
        return ""
    first, last = analysis.caps[0], analysis.caps[-1]
    mean = {
        (name, k): analysis.summary(name, k).mean
        for name in ("judged_rate", "se", "sp", "j")
        for k in (first, last)
    }

    def change(name: str, label: str, digits: int = 2) -> str:
        a, b = mean[name, first], mean[name, last]
        verb = _trend(a, b, tolerance=0.5 * 10.0**-digits)
        if verb == "stays":
            return f"{label} stays at {a:.{digits}f}"
        return f"{label} {verb} from {a:.{digits}f} to {b:.{digits}f}"

    rates = []
    for k in (first, last):
        seen = _naive(analysis, k)
        rates.append(mean["judged_rate", k] if seen is None else seen)
    rate_first, rate_last = rates
    moved = _trend(rate_first, rate_last, tolerance=0.0005)
    verb = {"rises": "raise", "falls": "lower", "stays": "leave"}[moved]
    rate = (
        f"Retries {verb} the judged pass rate from {100 * rate_first:.1f}% at cap {first} to "
        f"{100 * rate_last:.1f}% at cap {last}"
        if moved != "stays"
        else f"Retries leave the judged pass rate at {100 * rate_first:.1f}% from cap {first} to "
        f"cap {last}"
    )
    sp, se, j = (
        change("sp", "the specificity Sp"),
        change("se", "the sensitivity Se"),
        change("j", "J"),
    )
    meaning = (
        "each retry ships more truly failing items, so the judged rate says less about the true one"
        if _trend(mean["sp", first], mean["sp", last], tolerance=0.005) == "falls"
        else "retries do not let more failing items through"
    )
    return f"{rate}, while {sp} and {se}: {meaning} ({j}). "


def write_gate_report(
    out: str | os.PathLike[str],
    analysis: GateAnalysis,
    *,
    source: str = "rulings",
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> GateReportFiles:
    """Write a gate report folder (see the module docstring for its files).

    Parameters
    ----------
    out : path
        The report folder: a new or empty folder, or a report bayesjudge wrote there with
        nothing changed since (see :func:`bayesjudge.reporting.output.check_output_folder`).
        It is replaced as a whole, and only once every file is written.
    analysis : GateAnalysis
        What :func:`bayesjudge.analyze_gate` returned.
    source : str
        Where the data came from.
    inputs : iterable of paths
        The files the analysis read: a folder holding one of them is refused.

    Returns
    -------
    GateReportFiles

    Raises
    ------
    OutputError
        When ``out`` is refused, another run is writing it, or a file cannot be written (the
        destination is then untouched).

    Examples
    --------
    >>> import tempfile
    >>> from bayesjudge.gates import Rulings, analyze_gate, rejudgment_gate, table4_gate
    >>> gate = rejudgment_gate(*table4_gate(0.9, 0.3), pi=0.5, n_items=300, rulings=4,
    ...                        labelled_fraction=0.3, random_seed=1)
    >>> analysis = analyze_gate(Rulings.from_frame(gate.table))  # doctest: +SKIP
    >>> write_gate_report(tempfile.mkdtemp(), analysis).curve.name  # doctest: +SKIP
    'curve.csv'
    """
    posterior, rulings, prob = analysis.posterior, analysis.rulings, analysis.prob
    dense = sorted({*range(1, min(max(analysis.caps), 30) + 1), *analysis.caps})
    curve = curve_frame(posterior, dense, prob=prob)
    estimate_frame = analysis.estimates_frame()
    for column in ("estimate", "low", "high", "prob", "std_error", "j", "unclipped"):
        estimate_frame[column] = estimate_frame[column].astype(float)
    posterior_rows = pd.DataFrame(
        [{"quantity": name, **s.to_dict()} for name, s in analysis.summaries.items()]
    )
    diag_frame = analysis.diagnostics.to_frame()
    figures = _figures(posterior, curve, estimate_frame, prob=prob)
    mass = f"{100 * prob:g}%"
    title = f"bayesjudge gate report: {source}"
    summary = gate_summary(analysis)
    calibration = {"by_class": "gold items drawn per class", "random": "gold items a random sample"}
    about = (
        f"{rulings.items.size} items ({int(rulings.labelled.sum())} gold-labelled, "
        f"{calibration.get(analysis.calibration, analysis.calibration)}), "
        f"{int(rulings.r.sum())} rulings; model gate with priors"
    )
    priors = analysis.priors.describe()
    independence, loop = analysis.independence, analysis.loop
    extra_md: list[str] = []
    extra_html: list[str] = []
    if independence is not None:
        verdict = "consistent with" if independence.consistent else "NOT consistent with"
        text = (
            f"Lag-1 same-verdict rate {independence.observed:.4f} against "
            f"{independence.expected:.4f} expected under independence (difference "
            f"{independence.difference:+.4f}, permutation p = {independence.p_value:.3f}): "
            f"{verdict} independent rulings; {100 * independence.flippy:.1f}% of items get both "
            "verdicts across their rulings."
        )
        extra_md += ["## Independence of repeated rulings", escape_markdown_prose(text)]
        extra_html.append(f"<h2>Independence of repeated rulings</h2><p>{html.escape(text)}</p>")
    if loop is not None:
        loop_frame = pd.DataFrame(
            [
                {
                    "cap": row["cap"],
                    "reported": row["reported"],
                    "delivered": row["delivered"],
                    "slip": row["slip"],
                    "slip_predicted": row["slip_predicted"],
                    "ppv_corrected": row["ppv_corrected"]["estimate"],
                }
                for row in loop.caps
            ]
        )
        law = loop.slip_law
        text = (
            f"Slip law: a = {law['a']:.3f}, s = {law['s']:.3f}, leak = {law['leak']:.3f}, "
            f"rho = {law['rho']:.3f}."
        )
        extra_md += [
            "## Revise-then-rejudge loop",
            escape_markdown_prose(text, line_start=True),
            markdown_table(loop_frame),
        ]
        extra_html.append(
            f"<h2>Revise-then-rejudge loop</h2><p>{html.escape(text)}</p>{table_html(loop_frame)}"
        )
    shown = estimate_frame.drop(columns=["prob"])
    with output_folder(out, inputs=inputs, kind="report") as staging:
        write_posterior(posterior, staging / "posterior.nc")
        write_csv(estimate_frame, staging / "estimates.csv")
        write_csv(curve, staging / "curve.csv")
        write_csv(diag_frame, staging / "diagnostics.csv")
        figure_html = figures_html(figures)
        diagnostics = diagnostics_section_html(
            analysis.diagnostics, quantities=REPORTED, names=NAMES
        )
        body = f"""{summary.to_html()}
<p>{html.escape(about)} <code>{html.escape(priors)}</code>.</p>
<h2>Posterior ({mass} equal-tailed intervals)</h2>
<div class="table-wrap">{table_html(posterior_rows)}</div>
<h2>Baselines at each cap ({mass} intervals)</h2>
<p class="note">std_error is the standard error of the estimate (not the sensitivity Se).</p>
<div class="table-wrap">{table_html(shown)}</div>
{diagnostics}
{"".join(extra_html)}
<h2>Figures</h2>
{figure_html}"""
        page = html_page(title, body, footer=footer_html(analysis.seed))
        (staging / "report.html").write_text(page, encoding="utf-8")
        markdown = "\n\n".join(
            [
                f"# {escape_markdown(title)}",
                summary.to_markdown(),
                f"{escape_markdown_prose(about, line_start=True)} {markdown_code_span(priors)}.",
                f"## Posterior ({mass} equal-tailed intervals)",
                markdown_table(posterior_rows),
                f"## Baselines at each cap ({mass} intervals)",
                markdown_table(shown),
                diagnostics_section_markdown(
                    analysis.diagnostics, quantities=REPORTED, names=NAMES
                ),
                *extra_md,
                "Figures: see report.html. Every check: diagnostics.csv. Posterior: posterior.nc "
                '(`xarray.open_datatree("posterior.nc")`), with these attributes:',
                markdown_table(
                    pd.DataFrame(
                        {
                            "attribute": list(posterior.attrs),
                            "value": [str(v) for v in posterior.attrs.values()],
                        }
                    )
                ),
                footer_markdown(analysis.seed),
            ]
        )
        (staging / "summary.md").write_text(markdown + "\n", encoding="utf-8")
    folder = Path(os.path.abspath(out))
    return GateReportFiles(
        folder=folder,
        html=folder / "report.html",
        markdown=folder / "summary.md",
        posterior=folder / "posterior.nc",
        estimates=folder / "estimates.csv",
        curve=folder / "curve.csv",
        diagnostics=folder / "diagnostics.csv",
    )
