"""HTML and Markdown building blocks shared by every report: page, tables, figures.

Reports are self-contained: figures are embedded as PNG data URIs, so a report needs no network
to view. User-controlled text is escaped (``html.escape`` in HTML,
:func:`~bayesjudge.reporting.output.escape_markdown` in Markdown).
"""

from __future__ import annotations

import base64
import html
import io
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bayesjudge.reporting.output import escape_markdown
from bayesjudge.reporting.summary import SUMMARY_CSS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "arviz_figure",
    "figures_html",
    "fixed4",
    "html_page",
    "markdown_table",
    "png",
    "table_html",
]


def png(fig: Figure, *, crop: bool = True) -> str:
    """Return a figure as a base64 PNG (110 dpi) for a data URI.

    ``crop=True`` trims the page to the drawing plus 0.1 inch (``savefig`` with
    ``bbox_inches="tight"``, which draws the figure once more to measure it). ``crop=False``
    is for a figure already fitted to its page by ``tight_layout``: the page is drawn once on
    an Agg canvas and encoded by Pillow, the same pixels as ``savefig`` without cropping
    (which also draws twice after ``tight_layout``) in about two thirds of the time; the
    picture is that of ``crop=True`` with a margin about 0.05 inch wider on each side. A figure
    made on an Agg canvas (:func:`~bayesjudge.reporting.figures.new_figure`) is drawn on that
    canvas, whose renderer kept the text extents its layout measured; the PNG is compressed at
    zlib level 3 (8% larger than Pillow's default level 6, in 60% of its time).
    """
    buffer = io.BytesIO()
    if crop:
        fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    else:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from PIL import Image

        dpi = fig.dpi
        fig.set_dpi(110)
        try:
            # a figure made on an Agg canvas keeps it, and the text extents its layout measured
            canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
            canvas.draw()
            size = canvas.get_width_height()
            image = Image.frombuffer("RGBA", size, canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
            # zlib level 3: 8% larger than the default 6, in 60% of its time
            image.save(buffer, format="png", dpi=(110, 110), compress_level=3)
        finally:
            fig.set_dpi(dpi)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def arviz_figure(plot: Any) -> Figure:
    """Return the matplotlib figure behind an ``arviz_plots`` plot collection."""
    figure: Figure = plot.viz["figure"].item()
    return figure


def figures_html(figures: dict[str, str]) -> str:
    """Return titled ``<img>`` elements embedding base64 PNGs (no network needed to view)."""
    return "\n".join(
        f'<h3>{html.escape(name)}</h3>\n<img alt="{html.escape(name)}" '
        f'src="data:image/png;base64,{png}"/>'
        for name, png in figures.items()
    )


def html_page(title: str, body: str, *, footer: str = "") -> str:
    """Return a complete, self-contained HTML document: the title as heading, ``body``, footer.

    ``footer`` is HTML placed last (e.g. :func:`bayesjudge.reporting.summary.footer_html`).
    """
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style></head><body>\n"
        f"<h1>{html.escape(title)}</h1>\n{body}\n{footer}\n</body></html>\n"
    )


def table_html(frame: pd.DataFrame) -> str:
    """Return a DataFrame as an HTML table, floats to 4 places, missing values blank.

    A column name may break after an underscore (``c_<wbr>low``), so a wide table of short
    numbers fits the page instead of scrolling sideways. A ``note`` column shows a mark per
    row (``[1]``) and each distinct note is written once under the table, as the terminal
    tables do, so long notes neither squeeze the numbers nor push the table off the page.

    Examples
    --------
    >>> print(table_html(pd.DataFrame({"c_low": [0.25]})).split("<th>")[1].split("</th>")[0])
    c_<wbr>low
    >>> page = table_html(pd.DataFrame({"m": ["a", "b"], "note": ["assumes <x>", None]}))
    >>> "<td>[1]</td>" in page, page.split("</table>")[1].strip()
    (True, '<ul class="table-notes"><li>[1] assumes &lt;x&gt;</li></ul>')
    """
    notes: list[str] = []
    if "note" in frame.columns:
        marks = []
        for value in frame["note"]:
            if isinstance(value, str) and value:
                if value not in notes:
                    notes.append(value)
                marks.append(f"[{notes.index(value) + 1}]")
            else:
                marks.append("")
        frame = frame.assign(note=marks)
    page = frame.to_html(index=False, na_rep="", float_format=fixed4, classes="table", border=0)
    head, cut, body = page.partition("</thead>")
    out = head.replace("_", "_<wbr>") + cut + body
    if notes:
        items = "".join(f"<li>[{k}] {html.escape(n)}</li>" for k, n in enumerate(notes, 1))
        out += f'\n<ul class="table-notes">{items}</ul>'
    return out


def fixed4(value: float) -> str:
    """Return ``value`` to 4 decimal places, with no sign on a value that rounds to zero.

    Examples
    --------
    >>> fixed4(-1e-17), fixed4(-0.0), fixed4(-0.00006), fixed4(0.25)
    ('0.0000', '0.0000', '-0.0001', '0.2500')
    """
    text = f"{value:.4f}"
    return "0.0000" if text == "-0.0000" else text


def markdown_table(frame: pd.DataFrame) -> str:
    r"""Return a DataFrame as a Markdown table, floats to 4 places, text escaped.

    Every text cell and column name goes through
    :func:`~bayesjudge.reporting.output.escape_markdown`, so a slice or file name cannot break
    the table or inject HTML.

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"slice": ["a|b", "<script>"], "n": [1.0, 2.5]})))
    | slice | n |
    |---|---|
    | a\|b | 1.0000 |
    | &lt;script&gt; | 2.5000 |
    """

    def cell(value: Any) -> str:
        if value is None or (isinstance(value, float) and np.isnan(value)):
            return ""
        if isinstance(value, float):
            return fixed4(value)
        return escape_markdown(value)

    header = "| " + " | ".join(escape_markdown(c) for c in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])


_CSS = (
    """
body { font-family: system-ui, sans-serif; max-width: 1000px; margin: 2em auto; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em; }
table.table { border-collapse: collapse; font-size: 0.85em; }
table.table th, table.table td { padding: 3px 6px; border-bottom: 1px solid #ddd; }
table.table td:first-child, table.table th:first-child { white-space: nowrap; }
.pass { color: #1a7f37; font-weight: bold; } .fail { color: #c62828; font-weight: bold; }
img { max-width: 100%; }
ul.diag-lines { list-style: none; padding-left: 0; }
.pass-line { color: #1a7f37; } .fail-line { color: #c62828; font-weight: bold; }
.note { color: #555; font-size: 0.85em; }
details summary { cursor: pointer; color: #4c72b0; }
.table-wrap { overflow-x: auto; }
ul.table-notes { list-style: none; padding-left: 0; color: #555; font-size: 0.85em; }
footer.footer { margin-top: 3em; border-top: 1px solid #ddd; padding-top: 0.6em;
  color: #666; font-size: 0.8em; }
"""
    + SUMMARY_CSS
)
