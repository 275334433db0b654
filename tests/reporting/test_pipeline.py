"""The one report pipeline: every family's content laid out as the same folder, in one order."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from bayesjudge import write_report
from bayesjudge.channels import PairedOutcomes, analyze_channel, simulate_stack
from bayesjudge.reporting.output import MANIFEST_NAME
from bayesjudge.reporting.pipeline import (
    Analysis,
    Code,
    ReportContent,
    Section,
    write_content,
)
from bayesjudge.reporting.summary import DEFINITIONS, Headline, ReportSummary


def _content(title: str = "a <b>|report|</b>") -> ReportContent:
    summary = ReportSummary(
        Headline("true success rate pi", 0.66, 0.61, 0.72, 0.95, naive=0.7),
        diagnostics=None,
        definitions=DEFINITIONS.items(),
        trust="Bayesian",
        reading="Fine.",
    )
    posterior = xr.DataTree.from_dict(
        {"posterior": xr.Dataset({"pi": (("chain", "draw"), np.full((1, 4), 0.5))})}
    )
    posterior.attrs = {"model": "prevalence"}
    return ReportContent(
        title=title,
        summary=summary,
        about=["model ", Code("prevalence_v1"), " on <data>."],
        sections=[
            Section("First | table", note="a note", table=pd.DataFrame({"x": [1.5, np.nan]})),
            Section("A part", level=3, text="No rows."),
        ],
        figures={"A figure": "AAAA"},
        posterior=posterior,
        seed=7,
        files={
            "table.csv": pd.DataFrame({"name": ["=1+1"], "value": [0.25]}),
            "indexed.csv": pd.DataFrame({"value": [1.0]}, index=pd.Index(["a"], name="system")),
            "analysis.json": {"mean": np.float64(0.5), "missing": float("nan")},
        },
    )


def test_the_folder_holds_the_same_files_in_the_same_order(tmp_path: Path) -> None:
    out = tmp_path / "report"
    files = write_content(out, _content())
    names = {"report.html", "summary.md", "posterior.nc", "table.csv", "indexed.csv"}
    assert set(os.listdir(out)) == {MANIFEST_NAME, "analysis.json", *names}
    assert files.folder == out
    assert files.html == out / "report.html"
    assert sorted(files.tables) == ["analysis.json", "indexed.csv", "table.csv"]
    page = files.html.read_text()
    # summary (badge, reading, definitions), the data, sections, figures, footer
    order = ['id="summary"', "Fine.", "<dt>", "<code>prevalence_v1</code>", "<h2>First | table"]
    order += ["<h3>A part</h3>", "<h2>Figures</h2>", "<footer"]  # (no diagnostics: exact)
    assert [page.index(marker) for marker in order] == sorted(page.index(m) for m in order)
    assert "&lt;data&gt;" in page
    assert "<data>" not in page
    assert "<title>a &lt;b&gt;|report|&lt;/b&gt;</title>" in page
    markdown = files.markdown.read_text()
    assert markdown.startswith(r"# a &lt;b&gt;\|report\|&lt;/b&gt;")
    order = ["**", "Fine.", "`prevalence_v1`", "## First | table", "### A part"]
    order += ["Posterior: posterior.nc", "| model | prevalence |"]
    assert [markdown.index(marker) for marker in order] == sorted(markdown.index(m) for m in order)
    assert pd.read_csv(out / "table.csv")["name"].tolist() == ["'=1+1"]  # made inert
    assert pd.read_csv(out / "indexed.csv").columns.tolist() == ["system", "value"]
    assert json.loads((out / "analysis.json").read_text()) == {"mean": 0.5, "missing": None}
    assert xr.open_datatree(files.posterior).attrs["model"] == "prevalence"


@pytest.fixture(scope="module")
def channel():  # an exact analysis: no sampling, a second or two
    table = simulate_stack(300, p0=0.5, c=[0.3, 0.2], gamma=[0.1, 0.05], random_seed=1)
    return analyze_channel(PairedOutcomes.from_frame(table), random_seed=1)


def test_an_analysis_offers_the_protocol(channel) -> None:
    assert isinstance(channel, Analysis)
    assert channel.summary().headline.name.startswith("gain of step")
    assert list(channel.to_frame()["step"]) == ["e0->e1", "e1->e2"]
    assert str(channel).startswith(channel.summary().to_text())


def test_a_family_report_has_the_shared_order(channel, tmp_path: Path) -> None:
    page = write_report(tmp_path / "r", channel, source="stack.csv").html.read_text()
    order = ['id="summary"', "<h2>Steps</h2>", "<h2>Composition audit</h2>", "<h2>Diagnostics"]
    order += ["<details>", "<h2>Figures</h2>", "<footer"]
    assert [page.index(marker) for marker in order] == sorted(page.index(m) for m in order)


def test_the_writer_refuses_what_it_cannot_report(channel, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="analysis: expected what analyze_prevalence"):
        write_report(tmp_path / "a", object())
    with pytest.raises(ValueError, match="column: a report of groups needs the column"):
        write_report(tmp_path / "b", {"x": "failed"})
    with pytest.raises(ValueError, match="column: only a mapping of groups"):
        write_report(tmp_path / "c", channel, column="model")
    assert not any(tmp_path.iterdir())  # refused before writing anything
