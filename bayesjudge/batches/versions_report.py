"""The report of two judge versions compared on the same items.

:func:`report_content` says what the report holds; :func:`bayesjudge.write_report` writes it
(:mod:`bayesjudge.reporting.pipeline`): ``report.html`` (figure embedded as PNG),
``summary.md``, ``posterior.nc`` (the Monte-Carlo draws), ``posterior.csv`` (every summary of
:meth:`JudgeComparison.to_frame <bayesjudge.batches.versions.JudgeComparison.to_frame>`),
``tables.csv`` (the paired tables, flip rates and McNemar p-values), ``estimates.csv`` (each
judge's Rogan-Gladen estimate) and ``analysis.json`` (:meth:`JudgeComparison.to_dict
<bayesjudge.batches.versions.JudgeComparison.to_dict>` with its provenance, as in every
report). Judge names are user text: escaped by the shared writer in the documents and with
mathtext's ``$`` escaped in the figure.
"""

from __future__ import annotations

import pandas as pd

from bayesjudge._version import __version__
from bayesjudge.batches.versions import JudgeComparison
from bayesjudge.reporting.html import png
from bayesjudge.reporting.pipeline import Code, ReportContent, Section
from bayesjudge.results import estimates_frame

__all__ = ["report_content", "tables_frame"]


def tables_frame(result: JudgeComparison) -> pd.DataFrame:
    """Return one row per item class: the paired table, the flip rate and McNemar's p-value.

    Columns ``items``, ``n``, ``old FAIL new FAIL``, ``old FAIL new PASS``, ``old PASS new
    FAIL``, ``old PASS new PASS``, ``flip rate``, ``low``, ``high``, ``McNemar p``.
    """
    rows = []
    for klass, c in result.classes.items():
        rows.append(
            {
                "items": klass.replace("_", " "),
                "n": c.n,
                "old FAIL new FAIL": int(c.table[0, 0]),
                "old FAIL new PASS": c.fail_to_pass,
                "old PASS new FAIL": c.pass_to_fail,
                "old PASS new PASS": int(c.table[1, 1]),
                "flip rate": c.flip_rate.mean,
                "low": c.flip_rate.eti.low,
                "high": c.flip_rate.eti.high,
                "McNemar p": c.mcnemar_p,
            }
        )
    return pd.DataFrame(rows)


def _figure(result: JudgeComparison) -> str:
    from matplotlib.figure import Figure

    rows = [(name, result.change[name]) for name in ("se", "sp", "j")]
    if result.pi_change is not None:
        rows.append(("pi", result.pi_change))
    labels = {"se": "Se", "sp": "Sp", "j": "Youden's J", "pi": "corrected pi"}
    fig = Figure(figsize=(6.5, 1.2 + 0.5 * len(rows)))
    ax = fig.subplots()
    ax.axvline(0.0, color="grey", lw=0.8, ls=":")
    for position, (_, change) in enumerate(rows):
        s = change.summary
        if s is None:
            continue
        ax.plot([s.eti.low, s.eti.high], [position] * 2, color="#4c72b0", lw=2.5)
        ax.plot(s.mean, position, "o", color="#4c72b0")
    ax.set_yticks(range(len(rows)), [labels[name] for name, _ in rows])
    ax.invert_yaxis()
    old, new = (str(n).replace("$", r"\$") for n in result.data.names)
    ax.set_xlabel(f"change, new ({new}) minus old ({old})")
    ax.set_title(f"Posterior of each change ({100 * result.prob:g}% intervals)")
    fig.tight_layout()
    return png(fig)


def report_content(result: JudgeComparison, *, source: str = "two judges") -> ReportContent:
    """Return what the report of a judge-version comparison holds.

    Sections: the paired tables with flip rates and McNemar's p-values, the posterior
    summaries, each judge's Rogan-Gladen estimate. Figure: the posterior of each change (Se,
    Sp, J, pi) with its interval.
    """
    mass = f"{100 * result.prob:g}%"
    summaries = result.to_frame()
    tables = tables_frame(result)
    sections = [
        Section(
            "Paired tables",
            table=tables,
            note="Items by class and by the two verdicts; flip rate: the share whose verdict "
            f"changed ({mass} interval); McNemar p: exact two-sided test of the discordant "
            "pairs.",
        ),
        Section(f"Posterior summaries ({mass} equal-tailed intervals)", table=summaries),
    ]
    files: dict[str, object] = {"posterior.csv": summaries, "tables.csv": tables}
    if result.rogan_gladen is not None:
        estimates = estimates_frame(list(result.rogan_gladen.values()))
        estimates.insert(0, "judge", list(result.rogan_gladen))
        estimates["note"] = estimates["note"].fillna("")
        sections.append(
            Section(
                f"Rogan-Gladen estimate of pi, each judge alone ({mass} intervals)", table=estimates
            )
        )
        files["estimates.csv"] = estimates
    old, new = result.data.names
    return ReportContent(
        title=f"bayesjudge judge-version report: {source}",
        summary=result.summary(),
        about=[
            f"bayesjudge {__version__}: judges ",
            Code(old),
            " (old) and ",
            Code(new),
            f" (new) on {result.data.n_items} paired items; Dirichlet prior ",
            Code(result.prior),
            f" on each class's paired cells; {result.draws} Monte-Carlo draws; seed {result.seed}.",
        ],
        sections=sections,
        figures={f"Change from the old to the new judge ({mass} intervals)": _figure(result)},
        posterior=result.posterior,
        seed=result.seed,
        files=files,  # type: ignore[arg-type]
    )
