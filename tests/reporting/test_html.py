"""The Markdown and HTML building blocks: user-controlled text stays text."""

from __future__ import annotations

import doctest

import pandas as pd
import pytest

from bayesjudge.reporting import html as report_html
from bayesjudge.reporting.html import markdown_table, table_html

HOSTILE = "<script>alert(1)</script>"


def test_markdown_table_escapes_cells_and_headers() -> None:
    frame = pd.DataFrame({"slice | <b>": [HOSTILE, "a|b", "`code` *x*"], "n": [1.0, 2.0, 3.0]})
    text = markdown_table(frame)
    lines = text.splitlines()
    assert lines[0] == r"| slice \| &lt;b&gt; | n |"
    assert lines[2] == "| &lt;script&gt;alert(1)&lt;/script&gt; | 1.0000 |"
    assert lines[3] == r"| a\|b | 2.0000 |"
    assert lines[4] == r"| \`code\` \*x\* | 3.0000 |"
    assert all(line.count(" | ") == 1 for line in lines if not line.startswith("|---"))
    assert "<" not in text


def test_html_table_escapes_cells() -> None:
    page = table_html(pd.DataFrame({"slice": [HOSTILE]}))
    assert HOSTILE not in page
    assert "&lt;script&gt;" in page


def test_one_markdown_escaper() -> None:
    assert not hasattr(report_html, "markdown_text")


def test_docstring_examples_run() -> None:
    result = doctest.testmod(report_html)
    assert result.attempted >= 1
    assert result.failed == 0


@pytest.mark.parametrize("value", [None, float("nan")])
def test_missing_cells_are_blank(value: object) -> None:
    assert markdown_table(pd.DataFrame({"a": [value]})).splitlines()[2] == "|  |"


def test_png_whole_page_or_cropped() -> None:
    import base64
    import io

    from matplotlib.figure import Figure
    from PIL import Image

    from bayesjudge.reporting.html import png

    fig = Figure(figsize=(4.0, 3.0))
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_xlabel("x")
    fig.tight_layout()
    whole = Image.open(io.BytesIO(base64.b64decode(png(fig, crop=False))))
    cropped = Image.open(io.BytesIO(base64.b64decode(png(fig))))
    assert whole.size == (440, 330)  # the page at 110 dpi
    # the cropped page keeps 0.1 inch around the drawing; tight_layout keeps about 0.15
    assert all(0 < w - c <= 20 for w, c in zip(whole.size, cropped.size, strict=True))


def test_png_whole_page_has_the_pixels_of_savefig() -> None:
    import base64
    import io

    import numpy as np
    from matplotlib.figure import Figure
    from PIL import Image

    from bayesjudge.reporting.html import png

    fig = Figure(figsize=(4.0, 3.0))
    ax = fig.subplots()
    ax.hist(np.random.default_rng(0).normal(size=500), bins=20, alpha=0.6)
    ax.set_title("title")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    ours = np.asarray(Image.open(io.BytesIO(base64.b64decode(png(fig, crop=False)))))
    theirs = np.asarray(Image.open(buffer))
    assert ours.shape == theirs.shape
    assert np.array_equal(ours, theirs)
    assert fig.dpi == 100  # the figure's own dpi is restored
