"""The report of the state-space fit across batches (:func:`~.statespace.fit_drift`).

:func:`report_content` lays out what :func:`bayesjudge.write_report` writes for a
:class:`~bayesjudge.batches.statespace.DriftFit`: the one-screen summary, a table per batch
(counts, naive rate, the posterior of pi, Se and Sp, the change since the batch before and the
drift probability), the learned step sizes, and the time plot of corrected against naive rates
with the batches where the judge drifted shaded.
"""

from __future__ import annotations

from bayesjudge._version import __version__
from bayesjudge.batches.statespace import DriftFit, drift_figure
from bayesjudge.reporting.html import png
from bayesjudge.reporting.pipeline import Code, ReportContent, Section

__all__ = ["report_content"]

#: The per-batch columns shown in the report's table (all of them are in ``batches.csv``).
SHOWN = (
    "m1", "x1", "m0", "x0", "n", "k", "naive", "pi", "pi_low", "pi_high",
    "se", "sp", "pi_change", "p_pi_down", "drift", "drifted",
)  # fmt: skip


def report_content(fit: DriftFit, *, source: str = "batches") -> ReportContent:
    """Return what the report of a fit across batches holds.

    Sections: the batches (a row each) and the step sizes. Figure: the corrected and naive
    rates over the batches with the judge's Se and Sp
    (:func:`~bayesjudge.batches.statespace.drift_figure`). Files: ``batches.csv`` (every
    column of :meth:`~bayesjudge.batches.statespace.DriftFit.to_frame`), ``steps.csv`` and
    ``diagnostics.csv``.

    Parameters
    ----------
    fit : DriftFit
        What :func:`~bayesjudge.batches.statespace.fit_drift` returned.
    source : str, default "batches"
        Where the data came from, shown in the title.

    Returns
    -------
    ReportContent
    """
    frame = fit.to_frame()
    steps = fit.steps()
    mass = f"{100 * fit.prob:g}%"
    fixed = fit.tree.attrs.get("fixed_steps")
    return ReportContent(
        title=f"bayesjudge drift report: {source}",
        summary=fit.summary(),
        about=[
            f"bayesjudge {__version__}, model ",
            Code("batches_drift"),
            f": {len(fit.batches)} batches, {int(frame['m1'].sum() + frame['m0'].sum())} gold "
            f"and {int(frame['n'].sum())} unlabelled items; "
            + (f"step sizes fixed at {fixed}" if fixed is not None else "step sizes learned")
            + f"; a batch is flagged when P(|change in Se or Sp| > {fit.drift_size:g}) >= "
            f"{fit.drift_prob:g}.",
        ],
        sections=[
            Section(
                f"Batches ({mass} equal-tailed intervals)",
                note="m1, x1: gold-PASS items and judge passes among them; m0, x0: gold-FAIL; "
                "n, k: unlabelled; pi_change: since the batch before; p_pi_down: P(pi went "
                "down); drift: P(Se or Sp moved by more than the tolerance).",
                table=frame.loc[:, list(SHOWN)].reset_index(),
            ),
            Section(
                "Step sizes (logit scale per batch)",
                table=steps.rename_axis("step").reset_index(),
            ),
        ],
        figures={"Corrected and naive rates over the batches": png(drift_figure(fit))},
        posterior=fit.tree,
        seed=fit.tree.attrs.get("seed", "not recorded"),
        files={
            "batches.csv": frame.reset_index(),
            "steps.csv": steps.rename_axis("step").reset_index(),
            "diagnostics.csv": fit.diagnostics.to_frame(),
        },
    )
