"""The channel report folder: written safely, replaced only when bayesjudge wrote it, escaped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bayesjudge.channels import PairedOutcomes, analyze_channel, simulate_slices, simulate_stack
from bayesjudge.channels.analysis import ChannelAnalysis
from bayesjudge.reporting.output import MANIFEST_NAME, OutputError, read_manifest
from bayesjudge.reporting.write import write_report

HOSTILE_SLICE = "<script>alert(1)</script>"
HOSTILE_FILE = "runs|<b>bold</b>`x`.csv"
FILES = ["analysis.json", "posterior.nc", "report.html", "steps.csv", "summary.md"]


@pytest.fixture(scope="module")
def stack() -> ChannelAnalysis:
    table = simulate_stack(300, p0=0.5, c=[0.3, 0.2], gamma=[0.1, 0.05], random_seed=1)
    return analyze_channel(PairedOutcomes.from_frame(table), random_seed=1)


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(root).as_posix(): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


def test_writes_a_folder_with_its_manifest_and_replaces_it(
    stack: ChannelAnalysis, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    files = write_report(out, stack, source="stack.csv")
    assert files.folder == out
    assert sorted(os.listdir(out)) == sorted([MANIFEST_NAME, *FILES])
    manifest = read_manifest(out)
    assert manifest is not None
    assert sorted(manifest.files) == FILES
    (out / "summary.md").unlink()  # removing a file bayesjudge wrote is no change of yours
    write_report(out, stack, source="again.csv")
    assert "again.csv" in (out / "summary.md").read_text()
    assert sorted(os.listdir(tmp_path)) == ["report"]  # no staging, lock or old folder left


@pytest.mark.parametrize(
    ("written", "name", "match"),
    [
        (False, "notes.md", "was not written by bayesjudge"),
        (True, "notes.md", "holds files bayesjudge did not write"),
        (True, "summary.md", "were changed since"),
    ],
    ids=["foreign", "added", "edited"],
)
def test_refuses_a_folder_with_files_it_did_not_write(
    stack: ChannelAnalysis, tmp_path: Path, written: bool, name: str, match: str
) -> None:
    out = tmp_path / "report"
    if written:
        write_report(out, stack)
    else:
        out.mkdir()
    (out / name).write_text("mine")
    before = _snapshot(tmp_path)
    with pytest.raises(OutputError, match=match):
        write_report(out, stack)
    assert _snapshot(tmp_path) == before


def test_refuses_a_folder_holding_an_input(stack: ChannelAnalysis, tmp_path: Path) -> None:
    data = tmp_path / "p" / "d.csv"
    data.parent.mkdir()
    data.write_text("item,e0,e1\n")
    with pytest.raises(OutputError, match="it holds the input"):
        write_report(tmp_path / "p", stack, inputs=[data])
    assert os.listdir(tmp_path / "p") == ["d.csv"]


@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
def test_summary_escapes_slice_and_file_names(tmp_path: Path) -> None:
    table = simulate_slices([120, 120, 0, 0, 0], random_seed=2)
    table["slice"] = table["slice"].map({"1": HOSTILE_SLICE, "2": "a|b"})
    analysis = analyze_channel(
        PairedOutcomes.from_frame(table),
        by_slice=True,
        draws=50,
        tune=50,
        chains=2,
        random_seed=2,
    )
    files = write_report(tmp_path / "report", analysis, source=HOSTILE_FILE)
    summary = files.markdown.read_text()
    assert "<script>" not in summary
    assert "<b>" not in summary
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in summary
    assert r"| a\|b |" in summary
    assert r"# Channel audit of runs\|&lt;b&gt;bold&lt;/b&gt;\`x\`.csv" in summary
    page = files.html.read_text()
    assert HOSTILE_SLICE not in page
    assert "&lt;script&gt;" in page


def test_report_opens_with_the_summary_and_ends_with_the_footer(
    stack: ChannelAnalysis, tmp_path: Path
) -> None:
    page = write_report(tmp_path / "r", stack, source="stack.csv").html.read_text()
    assert page.index('id="summary"') < page.index("<h2>Steps") < page.index("<h2>Diagnostics")
    assert page.index("<h2>Diagnostics") < page.index("<footer")
    assert "gain of step e0-&gt;e1" in page
    assert "observed change p1 - p0" in page
    assert "<dt>gamma</dt>" in page
    assert "seed 1;" in page
    assert "<details>" in page


def test_few_items_behind_a_step_warn_and_the_analysis_prints_its_summary() -> None:
    table = simulate_stack(40, p0=0.9, c=[0.3], gamma=[0.1], random_seed=2)
    analysis = analyze_channel(PairedOutcomes.from_frame(table), random_seed=2)
    text = str(analysis)
    assert text.startswith("gain of step e0->e1: ")
    assert "warning: Few items behind step e0->e1" in text
    assert analysis._repr_html_().index('id="summary"') < analysis._repr_html_().index("<table")


def test_report_reads_as_prose_and_names_each_gap(
    stack: ChannelAnalysis, tmp_path: Path, readable_report
) -> None:
    files = write_report(tmp_path / "r", stack, source="stack.csv")
    readable_report(files.folder)
    composition = stack.composition
    assert composition is not None
    # half the summed differences adds both rows: at least the largest, at most twice it
    assert composition.gap_max.mean <= composition.gap_mean.mean <= 2 * composition.gap_max.mean
    for text in (files.markdown.read_text(), files.html.read_text()):
        assert "largest entry difference max |T_direct - T_composed|" in text
        assert "half the summed differences 1/2 sum |T_direct - T_composed|" in text
        assert "mean entry gap" not in text
        assert "consistent_with_markov" not in text
        assert "consistent with a Markov chain" in text
        assert "anonymous" not in text
        assert (
            "Correction and Corruption: A Two-Rate View of Error Flow in LLM Protocols, 2025"
            in text
        )
