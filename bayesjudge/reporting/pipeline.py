"""One report folder for every family: the same files, the same sections, the same order.

A family describes its report as a :class:`ReportContent`: its one-screen summary (a
:class:`~bayesjudge.reporting.summary.ReportSummary`: the answer, the reading, the warnings,
the definitions), a paragraph on the data and the model, its tables as :class:`Section`
objects, its figures, its posterior and the files it adds (CSV tables, JSON objects).
:func:`write_content` lays every family's content out the same way:

``report.html``
    title; summary (headline, diagnostics badge, warnings, reading, which estimate to trust,
    definitions); the data and the model; the sections in the family's order; diagnostics
    (one line per reported quantity, every check folded); figures; footer.
``summary.md``
    the same, less the figures, then where the figures, the checks and the posterior are.
``posterior.nc``
    the posterior (``xarray.open_datatree``).
``analysis.json``
    the analysis as its command's ``--json`` gives it (``to_dict()``), with a ``provenance``
    block: the seed, the versions, the command, and what the posterior's attrs record (model,
    sampler, priors); every family's folder has it (:func:`with_record`).
the family's files
    each table as CSV (cells that would read as spreadsheet formulas made inert) and each
    mapping as JSON (non-finite numbers as ``null``).
the manifest
    written by :func:`bayesjudge.reporting.output.output_folder`, which stages the folder
    beside the destination and switches it into place only once every file is written.

:func:`bayesjudge.write_report` (:mod:`bayesjudge.reporting.write`) is the one entry point:
it asks the analysis's family for its content and calls :func:`write_content`.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

import numpy as np
import pandas as pd

from bayesjudge.inference.provenance import provenance, provenance_from_attrs
from bayesjudge.reporting.html import figures_html, fixed4, html_page, markdown_table, table_html
from bayesjudge.reporting.output import (
    escape_markdown,
    escape_markdown_prose,
    markdown_code_span,
    output_folder,
    write_csv,
)
from bayesjudge.reporting.summary import (
    ReportSummary,
    diagnostics_section_html,
    diagnostics_section_markdown,
    footer_html,
    footer_markdown,
)

if TYPE_CHECKING:
    import xarray as xr

__all__ = [
    "RECORD",
    "Analysis",
    "Code",
    "ReportContent",
    "ReportFiles",
    "Section",
    "Shown",
    "about_html",
    "about_markdown",
    "jsonable",
    "render_html",
    "render_markdown",
    "with_record",
    "write_content",
    "write_files",
]

#: The one JSON file of every report folder: the analysis and where it came from.
RECORD = "analysis.json"


class Code(str):
    """Text a reader may type (a model, a prior): ``<code>`` in HTML, a code span in Markdown.

    Examples
    --------
    >>> about_html(["priors ", Code("pi=beta:1,1"), "."])
    'priors <code>pi=beta:1,1</code>.'
    >>> about_markdown(["priors ", Code("pi=beta:1,1"), "."])
    'priors `pi=beta:1,1`.'
    """

    __slots__ = ()


def about_html(parts: str | Sequence[str]) -> str:
    """Return prose and :class:`Code` parts as HTML (every part escaped)."""
    parts = [parts] if isinstance(parts, str) else parts
    return "".join(
        f"<code>{html.escape(p)}</code>" if isinstance(p, Code) else html.escape(p) for p in parts
    )


def about_markdown(parts: str | Sequence[str]) -> str:
    """Return prose and :class:`Code` parts as Markdown (prose escaped, code as code spans)."""
    parts = [parts] if isinstance(parts, str) else parts
    return "".join(
        markdown_code_span(p)
        if isinstance(p, Code)
        else escape_markdown_prose(p, line_start=i == 0)
        for i, p in enumerate(parts)
    )


@runtime_checkable
class Analysis(Protocol):
    """What every family's analysis object offers (``analyze_*`` returns one).

    ``to_dict()`` is the JSON of the family's command (``--json``), ``to_frame()`` its main
    table, ``summary()`` the one-screen summary that opens its report, and ``passed`` whether
    the posterior passed its diagnostics. The sections of its report come from its family's
    ``report_content`` (see :mod:`bayesjudge.reporting.write`).
    """

    @property
    def passed(self) -> bool:
        """Whether the posterior passed its diagnostics."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object of the family's command."""

    def to_frame(self) -> pd.DataFrame:
        """Return the family's main table."""

    def summary(self) -> ReportSummary:
        """Return the one-screen summary."""


class Shown:
    """``print(analysis)`` and the notebook view of an analysis: its summary, then its table.

    A base of the families' analysis classes, which provide ``summary()`` and ``to_frame()``
    (:class:`Analysis`).
    """

    __slots__ = ()

    def __str__(self) -> str:
        """Return the one-screen summary and the main table, as text for a terminal."""
        shown = cast(Analysis, self)
        return f"{shown.summary().to_text()}\n\n{shown.to_frame()!r}"

    def _repr_html_(self) -> str:
        """Return the one-screen summary and the main table as HTML (Jupyter)."""
        shown = cast(Analysis, self)
        frame = shown.to_frame()
        index = not isinstance(frame.index, pd.RangeIndex)
        table = frame.to_html(index=index, na_rep="", float_format=fixed4, border=0)
        return shown.summary().to_html(style=True) + table


@dataclass(frozen=True, slots=True)
class Section:
    """One section of a report: a heading, a note, prose and a table, each optional.

    Attributes
    ----------
    title : str
        The heading (plain text; escaped when written).
    text : str
        A paragraph of prose (plain text).
    table : DataFrame or None
        A table shown under the prose.
    note : str
        Small print under the heading (what a column means).
    level : int
        2 for a section, 3 for a part of the section before it.
    """

    title: str
    text: str = ""
    table: pd.DataFrame | None = None
    note: str = ""
    level: int = 2

    def to_html(self) -> str:
        """Return the section as HTML."""
        parts = [f"<h{self.level}>{html.escape(self.title)}</h{self.level}>"]
        if self.note:
            parts.append(f'<p class="note">{html.escape(self.note)}</p>')
        if self.text:
            parts.append(f"<p>{html.escape(self.text)}</p>")
        if self.table is not None:
            parts.append(f'<div class="table-wrap">{table_html(self.table)}</div>')
        return "\n".join(parts)

    def to_markdown(self) -> str:
        """Return the section as Markdown (user text escaped)."""
        parts = [f"{'#' * self.level} {escape_markdown_prose(self.title)}"]
        for prose in (self.note, self.text):
            if prose:
                parts.append(escape_markdown_prose(prose, line_start=True))
        if self.table is not None:
            parts.append(markdown_table(self.table))
        return "\n\n".join(parts)


@dataclass(frozen=True, slots=True)
class ReportContent:
    """What a family puts in its report; :func:`write_content` lays it out.

    Attributes
    ----------
    title : str
        The report's title (user text such as a file name is escaped when written).
    summary : ReportSummary
        The one-screen summary: headline, diagnostics, warnings, reading, definitions.
    about : str or sequence of str
        One paragraph on the data and the model: prose, with :class:`Code` parts for names
        a reader may type.
    sections : sequence of Section
        The family's tables and prose, in order.
    figures : mapping of str to str
        Each figure's title and its PNG (base64).
    posterior : DataTree
        Written to ``posterior.nc``.
    seed : int or str
        The seed, shown in the footer.
    files : mapping of str to DataFrame or mapping
        The family's other files by name: a DataFrame is written as CSV (its index too when
        it is not the default one), a mapping as JSON.
    """

    title: str
    summary: ReportSummary
    about: str | Sequence[str]
    sections: Sequence[Section]
    figures: Mapping[str, str]
    posterior: xr.DataTree
    seed: int | str
    files: Mapping[str, pd.DataFrame | Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReportFiles:
    """Paths of the files of a report folder.

    Attributes
    ----------
    folder : Path
        The report folder.
    html, markdown, posterior : Path
        ``report.html``, ``summary.md`` and ``posterior.nc`` (none for a report of groups:
        each group's folder holds its own).
    tables : dict of str to Path
        The family's other files, by name (e.g. ``"steps.csv"``); for a report of groups,
        each answered group's ``report.html`` by group value.
    """

    folder: Path
    html: Path
    markdown: Path
    posterior: Path
    tables: dict[str, Path] = field(default_factory=dict)

    @classmethod
    def of(cls, out: str | os.PathLike[str], names: Iterable[str] = ()) -> ReportFiles:
        """Return the paths of a report written to ``out`` with the family files ``names``."""
        folder = Path(os.path.abspath(out))
        return cls(
            folder=folder,
            html=folder / "report.html",
            markdown=folder / "summary.md",
            posterior=folder / "posterior.nc",
            tables={name: folder / name for name in names},
        )


def jsonable(value: Any) -> Any:
    """Return ``value`` with NumPy scalars as Python ones and non-finite floats as None.

    Examples
    --------
    >>> jsonable({"a": np.float64(1.5), "b": [float("nan"), np.int64(2)]})
    {'a': 1.5, 'b': [None, 2]}
    """
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def with_record(content: ReportContent, analysis: Analysis) -> ReportContent:
    """Return ``content`` with :data:`RECORD`: the analysis's JSON object and its provenance.

    The object is the family's own ``analysis.json`` when it gives one, else
    ``analysis.to_dict()`` (what the family's command prints with ``--json``). Its
    ``provenance`` block holds the report's seed, the versions and the command
    (:func:`~bayesjudge.inference.provenance.provenance`), the posterior's attrs
    (:func:`~bayesjudge.inference.provenance.provenance_from_attrs`: model, sampler, priors)
    over them, and the provenance the analysis records itself over both, so the folder's one
    JSON file says how to reproduce it.

    Examples
    --------
    >>> import xarray as xr
    >>> from bayesjudge.reporting.summary import Headline, ReportSummary
    >>> class Result:
    ...     def to_dict(self):
    ...         return {"pi": 0.7}
    >>> tree = xr.DataTree()
    >>> tree.attrs.update({"model": "prevalence", "seed": 1})
    >>> headline = Headline("true success rate pi", 0.7, 0.6, 0.8, 0.95)
    >>> summary = ReportSummary(headline, None, (), trust="", reading="")
    >>> content = ReportContent("t", summary, "", (), {}, tree, 1)
    >>> record = with_record(content, Result()).files[RECORD]
    >>> record["pi"], record["provenance"]["model"], "numpy" in record["provenance"]["versions"]
    (0.7, 'prevalence', True)
    """
    files = dict(content.files)
    given = files.pop(RECORD, None)
    payload = dict(analysis.to_dict() if given is None else given)
    recorded = payload.get("provenance")
    payload["provenance"] = {
        **provenance(content.seed),
        **provenance_from_attrs(content.posterior.attrs),
        **(recorded if isinstance(recorded, Mapping) else {}),
    }
    return replace(content, files={RECORD: payload, **files})


def _diagnostics(content: ReportContent) -> tuple[str, str]:
    summary = content.summary
    if summary.diagnostics is None:
        return "", ""
    quantities, names = summary.quantities, summary.names
    return (
        diagnostics_section_html(summary.diagnostics, quantities=quantities, names=names),
        diagnostics_section_markdown(summary.diagnostics, quantities=quantities, names=names),
    )


def render_html(content: ReportContent, *, back: str | None = None) -> str:
    """Return ``report.html``: summary, the data, sections, diagnostics, figures, footer.

    ``back`` is the address of a page listing this report among others (a group's report
    links back to the index of every group).
    """
    link = "" if back is None else f'<p><a href="{html.escape(back)}">All groups</a></p>'
    parts = [link, content.summary.to_html(), f"<p>{about_html(content.about)}</p>"]
    parts += [section.to_html() for section in content.sections]
    parts.append(_diagnostics(content)[0])
    if content.figures:
        parts += ["<h2>Figures</h2>", figures_html(dict(content.figures))]
    body = "\n".join(part for part in parts if part)
    return html_page(content.title, body, footer=footer_html(content.seed))


def render_markdown(content: ReportContent) -> str:
    """Return ``summary.md``: the report less its figures, then where the rest is."""
    where = ["Figures: see report.html."] if content.figures else []
    if "diagnostics.csv" in content.files:
        where.append("Every check: diagnostics.csv.")
    where.append(
        'Posterior: posterior.nc (`xarray.open_datatree("posterior.nc")`), with these attributes:'
    )
    attributes = pd.DataFrame(
        {
            "attribute": [str(k) for k in content.posterior.attrs],
            "value": [str(v) for v in content.posterior.attrs.values()],
        }
    )
    parts = [
        f"# {escape_markdown(content.title)}",
        content.summary.to_markdown(),
        about_markdown(content.about),
        *(section.to_markdown() for section in content.sections),
        _diagnostics(content)[1],
        " ".join(where),
        markdown_table(attributes),
        footer_markdown(content.seed),
    ]
    return "\n\n".join(part for part in parts if part) + "\n"


def write_files(folder: Path, content: ReportContent, *, back: str | None = None) -> None:
    """Write the files of one report into ``folder`` (a staging folder, or a part of one)."""
    from bayesjudge.reporting.netcdf import write_posterior  # xarray: only when writing

    write_posterior(content.posterior, folder / "posterior.nc")
    for name, value in content.files.items():
        if isinstance(value, pd.DataFrame):
            index = not isinstance(value.index, pd.RangeIndex)
            write_csv(value, folder / name, index=index)
        else:
            text = json.dumps(jsonable(value), indent=2)
            (folder / name).write_text(text + "\n", encoding="utf-8")
    (folder / "report.html").write_text(render_html(content, back=back), encoding="utf-8")
    (folder / "summary.md").write_text(render_markdown(content), encoding="utf-8")


def write_content(
    out: str | os.PathLike[str],
    content: ReportContent,
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> ReportFiles:
    """Write one report folder from a family's content (see the module docstring).

    Parameters
    ----------
    out : path
        The report folder: a new or empty folder, or a report bayesjudge wrote there with
        nothing changed since (:func:`bayesjudge.reporting.output.check_output_folder`). It is
        replaced as a whole, and only once every file is written.
    content : ReportContent
        What the report holds.
    inputs : iterable of paths
        The files the analysis read: a folder holding one of them is refused.

    Returns
    -------
    ReportFiles
        The paths written.

    Raises
    ------
    OutputError
        When ``out`` is refused, another run is writing it, or a file cannot be written (the
        destination is then untouched).
    """
    with output_folder(out, inputs=inputs, kind="report") as staging:
        write_files(staging, content)
    return ReportFiles.of(out, content.files)
