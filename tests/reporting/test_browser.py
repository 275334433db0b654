"""Every family's report opened in headless Chromium: it renders, with no console errors.

Runs when ``chromium`` (Debian's package) is on PATH and is skipped otherwise; marked
``browser`` so it can be selected (``-m browser``) or left out (``-m "not browser"``). The fits
are short: the pages are checked for layout and errors, not the numbers (a short fit may fail
its diagnostics, and the report then shows the red badge, which is rendered all the same).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import bayesjudge as bj

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="needs chromium on PATH"),
    pytest.mark.filterwarnings("ignore::bayesjudge.FitWarning"),
]

SHORT = {"draws": 300, "tune": 300, "chains": 2, "progressbar": False, "random_seed": 1}


def _prevalence(out: Path) -> Path:
    from bayesjudge import write_report

    data = bj.JudgeData.from_frame(bj.load_example("judge"))
    analysis = bj.analyze_prevalence(data, **SHORT)  # type: ignore[arg-type]
    return write_report(out, analysis).html


def _gate(out: Path) -> Path:
    from bayesjudge import write_report
    from bayesjudge.gates import Rulings, analyze_gate, rejudgment_gate, table4_gate

    gate = rejudgment_gate(
        *table4_gate(0.9, 0.3), pi=0.5, n_items=200, rulings=4, labelled_fraction=0.3,
        random_seed=1,
    )  # fmt: skip
    analysis = analyze_gate(Rulings.from_frame(gate.table), **SHORT)  # type: ignore[arg-type]
    return write_report(out, analysis).html


def _channel(out: Path) -> Path:
    from bayesjudge import write_report
    from bayesjudge.channels import PairedOutcomes, analyze_channel, simulate_stack

    table = simulate_stack(400, p0=0.5, c=[0.3, 0.2], gamma=[0.1, 0.05], random_seed=1)
    analysis = analyze_channel(PairedOutcomes.from_frame(table), random_seed=1)
    return write_report(out, analysis, source="stack.csv").html


def _chromium(*args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _console_errors(page: Path, shot: Path) -> list[str]:
    """Screenshot ``page`` and return the console messages Chromium logged while loading it."""
    run = _chromium("--window-size=1200,2400", f"--screenshot={shot}", page.as_uri())
    assert shot.exists(), run.stderr
    return [line for line in run.stderr.splitlines() if "CONSOLE" in line]


def test_the_console_check_catches_a_script_error(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text("<html><body><p>x</p><script>undefinedFunction()</script></body></html>")
    errors = _console_errors(page, tmp_path / "bad.png")
    assert any("undefinedFunction" in line for line in errors)


@pytest.mark.parametrize("family", [_prevalence, _gate, _channel], ids=lambda f: f.__name__[1:])
def test_report_renders_in_chromium_without_console_errors(family, tmp_path: Path) -> None:
    page = family(tmp_path / "report")
    text = page.read_text(encoding="utf-8")
    # the summary comes first, then the diagnostics, the footer last
    assert text.index('id="summary"') < text.index("<h2>Diagnostics") < text.index("<footer")
    shot = tmp_path / "page.png"
    assert _console_errors(page, shot) == []
    assert shot.stat().st_size > 20_000  # a rendered page, not a blank one


_MEASURE = (
    "<script>for (const w of document.querySelectorAll('.table-wrap, table'))"
    " console.log('WIDTH ' + w.scrollWidth + ' ' + w.clientWidth);"
    " console.log('WIDTH ' + document.documentElement.scrollWidth + ' '"
    " + document.documentElement.clientWidth);</script>"
)


def _overflows(page: Path, shot: Path, width: int) -> list[tuple[int, int]]:
    """Open ``page`` at ``width`` px and return (content, visible) widths that scroll sideways."""
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", _MEASURE + "</body>"))
    run = _chromium(f"--window-size={width},1600", f"--screenshot={shot}", probe.as_uri())
    widths = [(int(a), int(b)) for a, b in re.findall(r'"WIDTH (\d+) (\d+)"', run.stderr)]
    assert widths, run.stderr  # the measurement ran
    return [(a, b) for a, b in widths if a > b]


def test_channel_tables_fit_a_1280_pixel_window(tmp_path: Path) -> None:
    # the steps table has 14 columns; its last one (the gate) was behind a sideways scroll
    page = _channel(tmp_path / "report")
    assert _overflows(page, tmp_path / "wide.png", 1280) == []


def test_the_overflow_check_catches_a_table_wider_than_the_page(tmp_path: Path) -> None:
    page = tmp_path / "wide.html"
    cells = "".join(f"<th>column_{k}_without_breaks</th>" for k in range(12))
    page.write_text(
        f'<html><body style="max-width: 1000px"><div class="table-wrap" style="overflow-x: auto">'
        f'<table class="table"><tr>{cells}</tr></table></div></body></html>'
    )
    assert _overflows(page, tmp_path / "wide.png", 1280) != []
