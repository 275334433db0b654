"""The report of a retry-gate fit: its sections, tables and figures.

:func:`report_content` says what the report holds; :func:`bayesjudge.write_report` writes it
(:mod:`bayesjudge.reporting.pipeline`): ``report.html`` (figures embedded as PNG),
``summary.md``, ``posterior.nc`` (``xarray.open_datatree``), ``estimates.csv``, ``curve.csv``
(posterior J, Se, Sp, R by cap) and ``diagnostics.csv``. Figures: the J(K) curve with its band
and J(inf), Se(K) and Sp(K) with bands, and the posterior of pi against the baseline intervals
at each cap. The one-screen summary is :func:`~bayesjudge.gates.analysis.gate_summary`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayesjudge.gates.analysis import NAMES, GateAnalysis, gate_summary, retry_story
from bayesjudge.gates.fit import cap_curve_draws
from bayesjudge.reporting.figures import interval_figure, rank_figure, trace_figure
from bayesjudge.reporting.html import png
from bayesjudge.reporting.pipeline import Code, ReportContent, Section

__all__ = ["curve_frame", "gate_summary", "report_content", "retry_story"]


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
    from matplotlib.figure import Figure
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
    rows: list[tuple[str, Any, Any, Any, bool]] = [
        ("gate model (K=all)", draws.mean(), low, high, True)
    ]
    rows += [
        (f"{r.method} (K={r.cap})", r.estimate, r.low, r.high, False)
        for r in estimates.dropna(subset=["low", "high"]).itertuples()
    ]
    fig = interval_figure(
        draws,
        rows,
        title=f"True success rate pi: posterior and baseline {mass} intervals",
        model_name="gate model (Bayesian)",
        other_name="baseline at cap K",
    )
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
    return figures


def report_content(analysis: GateAnalysis, *, source: str = "rulings") -> ReportContent:
    """Return what the report of a gate analysis holds (:mod:`bayesjudge.reporting.pipeline`).

    Sections: the posterior, the baselines at each cap, the independence of repeated rulings
    and, when loop logs were analysed, the revise-then-rejudge loop. Files: ``estimates.csv``,
    ``curve.csv`` (posterior J, Se, Sp, R at every cap up to 30) and ``diagnostics.csv``.

    Examples
    --------
    >>> from bayesjudge.gates import Rulings, analyze_gate, rejudgment_gate, table4_gate
    >>> gate = rejudgment_gate(*table4_gate(0.9, 0.3), pi=0.5, n_items=300, rulings=4,
    ...                        labelled_fraction=0.3, random_seed=1)
    >>> analysis = analyze_gate(Rulings.from_frame(gate.table))  # doctest: +SKIP
    >>> sorted(report_content(analysis).files)  # doctest: +SKIP
    ['curve.csv', 'diagnostics.csv', 'estimates.csv']
    """
    posterior, rulings, prob = analysis.posterior, analysis.rulings, analysis.prob
    dense = sorted({*range(1, min(max(analysis.caps), 30) + 1), *analysis.caps})
    curve = curve_frame(posterior, dense, prob=prob)
    estimates = analysis.estimates_frame()
    for column in ("estimate", "low", "high", "prob", "std_error", "j", "unclipped"):
        estimates[column] = estimates[column].astype(float)
    mass = f"{100 * prob:g}%"
    calibration = {"by_class": "gold items drawn per class", "random": "gold items a random sample"}
    sections = [
        Section(f"Posterior ({mass} equal-tailed intervals)", table=analysis.to_frame()),
        Section(
            f"Baselines at each cap ({mass} intervals)",
            note="std_error is the standard error of the estimate (not the sensitivity Se).",
            table=estimates.drop(columns=["prob"]),
        ),
    ]
    independence, loop = analysis.independence, analysis.loop
    if independence is not None:
        verdict = "consistent with" if independence.consistent else "NOT consistent with"
        sections.append(
            Section(
                "Independence of repeated rulings",
                text=f"Lag-1 same-verdict rate {independence.observed:.4f} against "
                f"{independence.expected:.4f} expected under independence (difference "
                f"{independence.difference:+.4f}, permutation p = {independence.p_value:.3f}): "
                f"{verdict} independent rulings; {100 * independence.flippy:.1f}% of items get "
                "both verdicts across their rulings.",
            )
        )
    if loop is not None:
        law = loop.slip_law
        sections.append(
            Section(
                "Revise-then-rejudge loop",
                text=f"Slip law: a = {law['a']:.3f}, s = {law['s']:.3f}, leak = "
                f"{law['leak']:.3f}, rho = {law['rho']:.3f}.",
                table=pd.DataFrame(
                    [
                        {
                            **{k: row[k] for k in ("cap", "reported", "delivered", "slip")},
                            "slip_predicted": row["slip_predicted"],
                            "ppv_corrected": row["ppv_corrected"]["estimate"],
                        }
                        for row in loop.caps
                    ]
                ),
            )
        )
    return ReportContent(
        title=f"bayesjudge gate report: {source}",
        summary=analysis.summary(),
        about=[
            f"{rulings.items.size} items ({int(rulings.labelled.sum())} gold-labelled, "
            f"{calibration.get(analysis.calibration, analysis.calibration)}), "
            f"{int(rulings.r.sum())} rulings; model gate with priors ",
            Code(analysis.priors.describe()),
            ".",
        ],
        sections=sections,
        figures=_figures(posterior, curve, estimates, prob=prob),
        posterior=posterior,
        seed=analysis.seed,
        files={
            "estimates.csv": estimates,
            "curve.csv": curve,
            "diagnostics.csv": analysis.diagnostics.to_frame(),
        },
    )
