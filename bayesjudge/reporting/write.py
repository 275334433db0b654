"""The one report writer: any family's analysis into the same report folder.

:func:`write_report` asks the analysis's family for its content (the ``report_content``
function of the family's ``report`` module) and writes it with
:func:`bayesjudge.reporting.pipeline.write_content`. This module is the only shared module that
reaches into the families (it sits above them, like the command-line app); the families' report
modules import their analysis, and no analysis imports its report, so the dependency runs one
way.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bayesjudge.reporting.output import check_output_folder, output_folder
from bayesjudge.reporting.pipeline import ReportContent, ReportFiles, with_record, write_content

__all__ = ["report_content", "write_report"]


def _builder(analysis: object) -> Callable[..., ReportContent]:
    """Return the ``report_content`` function of the family ``analysis`` belongs to."""
    module = type(analysis).__module__
    if module == "bayesjudge.prevalence.analysis":
        from bayesjudge.prevalence.report import report_content as prevalence

        return prevalence
    if module == "bayesjudge.gates.analysis":
        from bayesjudge.gates.report import report_content as gates

        return gates
    if module == "bayesjudge.channels.analysis":
        from bayesjudge.channels.report import report_content as channels

        return channels
    if module == "bayesjudge.systems.analysis":
        from bayesjudge.systems.report import report_content as systems

        return systems
    if module == "bayesjudge.panels.analysis":
        from bayesjudge.panels.report import report_content as panels

        return panels
    if module == "bayesjudge.repeated.analysis":
        from bayesjudge.repeated.report import report_content as repeated

        return repeated
    if module == "bayesjudge.batches.statespace":
        from bayesjudge.batches.drift_report import report_content as drift

        return drift
    if module == "bayesjudge.batches.versions":
        from bayesjudge.batches.versions_report import report_content as judge_versions

        return judge_versions
    raise TypeError(
        "analysis: expected what analyze_prevalence, analyze_gate, analyze_channel, "
        "analyze_systems, analyze_panel, analyze_repeated, compare_judges or fit_drift "
        "returned, got "
        f"{type(analysis).__name__}"
    )


def report_content(analysis: Any, *, source: str | None = None) -> ReportContent:
    """Return what the report of ``analysis`` holds, from its family.

    Parameters
    ----------
    analysis : PrevalenceAnalysis, GateAnalysis, ChannelAnalysis, SystemsAnalysis or PanelAnalysis
        What the family's ``analyze_*`` function returned.
    source : str, optional
        Where the data came from, shown in the title (each family has a default).

    Returns
    -------
    ReportContent
        The family's content, with ``analysis.json`` (the analysis's JSON object and its
        provenance, :func:`~bayesjudge.reporting.pipeline.with_record`) among its files.

    Raises
    ------
    TypeError
        When ``analysis`` is none of these.
    """
    build = _builder(analysis)
    content = build(analysis) if source is None else build(analysis, source=source)
    return with_record(content, analysis)


def write_report(
    out: str | os.PathLike[str],
    analysis: Any,
    *,
    source: str | None = None,
    inputs: Iterable[str | os.PathLike[str]] = (),
    column: str | None = None,
) -> ReportFiles:
    """Write the report folder of any family's analysis.

    Every family's report has the same shape (:mod:`bayesjudge.reporting.pipeline`):
    ``report.html`` opening with the one-screen summary (the answer beside the naive one, the
    diagnostics badge, warnings, the reading, which estimate to trust, definitions), then the
    data and the model, the family's tables, the diagnostics (every check folded), the figures;
    ``summary.md`` with the same text; ``posterior.nc``; ``analysis.json`` (the analysis's
    JSON object with its provenance); the family's CSV files; and the manifest. The folder is
    written beside the destination and switched into place whole
    (:func:`bayesjudge.reporting.output.output_folder`).

    Parameters
    ----------
    out : path
        The report folder: a new or empty folder, or a report bayesjudge wrote there with
        nothing changed since (see :func:`bayesjudge.reporting.output.check_output_folder`).
        It is replaced as a whole, and only once every file is written.
    analysis : analysis, or mapping of str to PrevalenceAnalysis or str
        What ``analyze_prevalence``, ``analyze_gate``, ``analyze_channel``,
        ``analyze_systems`` or ``analyze_panel`` returned. For a table split by a column, a
        mapping of each group's value to its prevalence analysis (or the error that stopped
        it), with ``column``: the folder then holds an index and ``groups/NN-VALUE/`` with each
        group's report.
    source : str, optional
        Where the data came from, shown in the title.
    inputs : iterable of paths
        The files the analysis read: a folder holding one of them is refused.
    column : str, optional
        The column a table was split by (with a mapping of groups only).

    Returns
    -------
    ReportFiles
        The paths written: ``tables`` names the family's files (for groups: each answered
        group's ``report.html`` by value).

    Raises
    ------
    OutputError
        When ``out`` is refused, another run is writing it, or a file cannot be written (the
        destination is then untouched).
    ValueError
        When the analysis has no posterior to report (the exact prevalence method), or groups
        come without ``column``.
    TypeError
        When ``analysis`` is no family's analysis.

    Examples
    --------
    >>> import tempfile
    >>> from bayesjudge.channels import PairedOutcomes, analyze_channel, simulate_stack
    >>> table = simulate_stack(300, p0=0.5, c=[0.3], gamma=[0.1], random_seed=1)
    >>> analysis = analyze_channel(PairedOutcomes.from_frame(table))
    >>> files = write_report(tempfile.mkdtemp(), analysis, source="stack.csv")
    >>> sorted(files.tables)
    ['analysis.json', 'steps.csv']
    """
    inputs = list(inputs)
    check_output_folder(out, inputs=inputs)  # refused before any work; checked again to write
    if isinstance(analysis, Mapping):
        if column is None:
            raise ValueError("column: a report of groups needs the column they were split by")
        from bayesjudge.prevalence.report import write_groups

        with output_folder(out, inputs=inputs, kind="report") as staging:
            written = write_groups(staging, analysis, column=column, **_source(source))
        files = ReportFiles.of(out)
        return ReportFiles(
            files.folder,
            files.html,
            files.markdown,
            files.posterior,
            {value: files.folder / path for value, path in written.items()},
        )
    if column is not None:
        raise ValueError("column: only a mapping of groups is split by a column")
    return write_content(out, report_content(analysis, source=source), inputs=inputs)


def _source(source: str | None) -> dict[str, str]:
    return {} if source is None else {"source": source}
