"""The one-screen report summary: badge, warnings with evidence, reading, definitions, footer."""

from __future__ import annotations

import doctest
import html
from dataclasses import replace

import pytest

import bayesjudge as bj
from bayesjudge.inference.diagnostics import Check, Diagnostics
from bayesjudge.prevalence.report import report_summary
from bayesjudge.reporting import figures as figures_module
from bayesjudge.reporting import summary as summary_module
from bayesjudge.reporting.summary import (
    DEFINITIONS,
    Headline,
    ReportSummary,
    diagnostics_lines,
    diagnostics_section_html,
    diagnostics_table,
    failure_sentences,
    footer_html,
    footer_values,
    quantity_name,
)

PASSING = Diagnostics(
    (
        Check("r_hat", "pi", 1.001, 1.01, "<=", True),
        Check("ess_bulk", "pi", 3000.0, 400.0, ">=", True),
        Check("ess_tail", "pi", 2500.0, 400.0, ">=", True),
        Check("mcse_mean", "pi", 0.02, 0.2, "<=", True),
        Check("r_hat", "se_gap", 1.002, 1.01, "<=", True),
        Check("divergences", "sampler", 0.0, 0.0, "<=", True),
    ),
    0.95,
)
FAILING = Diagnostics(
    (
        Check("r_hat", "pi", 1.08, 1.01, "<=", False),
        Check("ess_bulk", "log_kappa[violation]", 35.0, 400.0, ">=", False),
        Check("divergences", "sampler", 12.0, 0.0, "<=", False),
    ),
    0.95,
)


def _summary(diagnostics: Diagnostics | None, *, low: float = 0.6, high: float = 0.7) -> str:
    s = ReportSummary(
        Headline("true success rate pi", 0.65, low, high, 0.95, naive=0.72),
        diagnostics=diagnostics,
        definitions=DEFINITIONS.items(),
        trust="Trust the posterior.",
        reading="The judge inflates the pass rate by about 7 points.",
        names={"log_kappa": "log concentration"},
    )
    return s.to_html()


def test_summary_shows_answer_beside_naive_badge_and_definitions() -> None:
    page = _summary(PASSING)
    assert "65.0%" in page
    assert "72.0%" in page
    assert "badge-pass" in page
    assert "Diagnostics passed" in page
    for symbol, meaning in DEFINITIONS.items():
        assert f"<dt>{symbol}</dt>" in page
        assert html.escape(meaning) in page
    assert "inflates the pass rate" in page


def test_failed_diagnostics_withhold_the_reading_and_say_what_to_do() -> None:
    page = _summary(FAILING)
    assert "badge-fail" in page
    assert "inflates the pass rate" not in page  # no confident reading of a failed fit
    assert "No reading is given" in page
    assert "R-hat of true success rate pi is 1.08 (needs at most 1.01)" in page
    assert "bulk ESS of log concentration (violation) is 35" in page
    assert "12 (needs at most 0) divergent transitions" in page
    assert "--target-accept" in page
    assert "--tune" in page
    assert "--draws" in page


def test_a_too_wide_interval_replaces_the_reading() -> None:
    page = _summary(PASSING, low=0.009, high=0.999)
    assert "inflates the pass rate" not in page
    assert "cannot pin the true success rate pi down" in page


def test_predictive_failure_advises_checking_the_data() -> None:
    d = Diagnostics((Check("ppc_tail_prob", "x0", 0.001, 0.01, ">=", False),), 0.95)
    sentences = failure_sentences(d)
    assert "cannot reproduce the observed count x0" in sentences[0]
    assert "check the data" in sentences[-1]
    assert not any("--target-accept" in s for s in sentences)


def test_diagnostics_are_one_line_per_quantity_with_readable_names() -> None:
    lines = diagnostics_lines(PASSING, quantities=["pi"])
    texts = [t for t, _ in lines]
    assert texts[0].startswith("true success rate pi: R-hat 1.001, bulk ESS 3000, tail ESS 2500")
    assert "MCSE at most 0.020 posterior sd" in texts[0]
    assert texts[1].startswith("other parameters (1 scalars")
    assert texts[2] == "sampler: 0 divergent transitions"
    assert all(ok for _, ok in lines)
    assert [ok for _, ok in diagnostics_lines(FAILING, quantities=["pi"])] == [False] * 3


def test_full_table_is_folded_and_readable() -> None:
    section = diagnostics_section_html(FAILING, quantities=["pi"], names={"log_kappa": "log k"})
    assert "<details>" in section
    assert "All 3 checks" in section
    assert "log_kappa[violation]" not in section
    assert "log k (violation)" in section
    assert "relative to the posterior standard deviation" in section
    table = diagnostics_table(PASSING, names={"se_gap": "share of the gap"})
    assert "se_gap" not in table.to_string()
    assert list(table.columns) == ["quantity", "check", "value", "needs", "result"]


def test_quantity_names() -> None:
    assert quantity_name("se[short]") == "sensitivity Se (short)"
    assert quantity_name("fpr_share") == "fpr share"


def test_footer_has_seed_versions_and_date() -> None:
    values = footer_values(17)
    assert values["seed"] == "17"
    assert values["bayesjudge"] == bj.__version__
    html = footer_html(17)
    for key in ("seed 17", "bayesjudge", "pymc", "arviz", "numpy", values["date"]):
        assert key in html


# --------------------------------------------------------------------------- warnings
def _titles(data: bj.JudgeData) -> list[str]:
    analysis = bj.analyze_prevalence(data, method="exact")
    return [w.title for w in report_summary(analysis).active_warnings]


def test_no_warning_on_a_clean_random_calibration_set() -> None:
    # 300 gold items drawn at random from the same mix as the test items
    data = bj.JudgeData.from_counts(m1=210, x1=189, m0=90, x0=14, n=3000, k=2100)
    assert _titles(data) == []


def test_tiny_calibration_set_warns_and_withholds_the_number() -> None:
    data = bj.JudgeData.from_counts(m1=2, x1=2, m0=1, x0=0, n=3, k=2)  # the README's 3 rows
    analysis = bj.analyze_prevalence(data, method="exact")
    summary = report_summary(analysis)
    titles = [w.title for w in summary.active_warnings]
    assert "Small calibration set" in titles
    assert "Interval too wide for a reading" in titles
    evidence = summary.active_warnings[titles.index("Small calibration set")].evidence
    assert "only 2 gold-PASS and 1 gold-FAIL items" in evidence
    assert "percentage points" not in summary.shown_reading


def test_judge_near_chance_warns() -> None:
    data = bj.JudgeData.from_counts(m1=200, x1=110, m0=200, x0=100, n=4000, k=2100)
    summary = report_summary(bj.analyze_prevalence(data, method="exact"))
    warning = next(w for w in summary.active_warnings if w.title == "Judge close to chance")
    assert "Youden's J = 0.0" in warning.evidence


def test_by_class_calibration_warns_about_label_shift_and_random_sample_baselines() -> None:
    # gold set drawn 150 + 150 by class while the test items pass 70% of the time
    data = bj.JudgeData.from_counts(m1=150, x1=135, m0=150, x0=22, n=2000, k=1340)
    summary = report_summary(bj.analyze_prevalence(data, method="exact"))
    titles = [w.title for w in summary.active_warnings]
    assert titles == [
        "Label shift between calibration and test items",
        "Baselines that assume a random gold sample",
    ]
    shift, baselines = summary.active_warnings
    assert "52.3% of the 300 gold items and 67.0% of the 2000 test items" in shift.evidence
    assert "PPI++ 0." in baselines.evidence  # the method by its name, not its identifier
    assert "not a random sample" in summary.trust


def test_failed_fit_summary_from_an_analysis() -> None:
    data = bj.JudgeData.from_counts(m1=210, x1=189, m0=90, x0=14, n=3000, k=2100)
    analysis = replace(bj.analyze_prevalence(data, method="exact"), diagnostics=FAILING)
    summary = report_summary(analysis)
    assert summary.status == "failed"
    assert summary.reading not in summary.to_html()
    assert "Diagnostics FAILED" in summary.to_markdown()


@pytest.mark.parametrize("module", [summary_module, figures_module])
def test_docstring_examples_run(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.failed == 0
    assert result.attempted > 0


# --------------------------------------------------------------------------- terminal and Jupyter
def test_estimates_print_within_80_columns_with_notes_below() -> None:
    data = bj.JudgeData.from_counts(m1=150, x1=135, m0=150, x0=22, n=2000, k=1340)
    analysis = bj.analyze_prevalence(data, method="exact")
    frame = analysis.to_frame()
    text = repr(frame)
    assert max(len(line) for line in text.splitlines()) <= 80
    ppi = next(line for line in text.splitlines() if line.startswith("ppi_plus_plus"))
    assert f"{frame.set_index('method').loc['ppi_plus_plus', 'estimate']:.3f}" in ppi
    assert "[1] prior restricted" in text
    assert type(frame.set_index("method")).__name__ == "DataFrame"  # operations: plain frames
    assert "<table" in frame._repr_html_()


def test_analysis_prints_its_summary_and_renders_html() -> None:
    data = bj.JudgeData.from_counts(m1=150, x1=135, m0=150, x0=22, n=2000, k=1340)
    analysis = bj.analyze_prevalence(data, method="exact")
    text = str(analysis)
    assert text.startswith("true success rate pi: ")
    assert "warning: Label shift" in text
    assert "ppi_plus_plus" in text
    page = analysis._repr_html_()
    assert page.index('id="summary"') < page.index("<table")


def test_badge_names_reported_quantities_first_and_counts_the_rest() -> None:
    checks = tuple(Check("ess_bulk", f"z[{i}]", 50.0, 400.0, ">=", False) for i in range(10))
    d = Diagnostics((*checks, Check("r_hat", "pi", 1.1, 1.01, "<=", False)), 0.95)
    sentences = failure_sentences(d, quantities=["pi"], limit=3)
    assert sentences[0].startswith("R-hat of true success rate pi")
    assert sentences[3] == "... and 8 more failed checks (see Diagnostics below)."
    assert sentences[-1].startswith("What to do")
    page = ReportSummary(
        Headline("true success rate pi", 0.65, 0.6, 0.7, 0.95),
        diagnostics=d,
        definitions=(),
        trust="",
        reading="",
        quantities=["pi"],
    ).to_html()
    assert "unreliable: the fit failed" in page
    assert "and 5 more failed checks" in page  # 11 failed, six written out by default


def test_a_reading_that_weighs_its_own_uncertainty_is_kept_when_the_interval_is_wide():
    from bayesjudge.reporting.summary import DEFINITIONS, Headline, ReportSummary

    wide = Headline("true success rate of b", 0.6, 0.4, 0.8, 0.95, naive=0.7)
    kept = ReportSummary(
        wide, None, DEFINITIONS.items(), "T", "No system is clearly best.", hedge_wide=False
    )
    hedged = ReportSummary(wide, None, DEFINITIONS.items(), "T", "No system is clearly best.")
    assert kept.shown_reading == "No system is clearly best."
    assert hedged.shown_reading.startswith("The data cannot pin")


def _wide_or_narrow(low: float, high: float, answer: str = "") -> ReportSummary:
    return ReportSummary(
        Headline("true success rate pi", 0.646, low, high, 0.95, naive=0.667, answer=answer),
        diagnostics=PASSING,
        definitions=DEFINITIONS.items(),
        trust="T",
        reading="The judge inflates the pass rate.",
    )


def test_a_headline_too_wide_for_the_reading_shows_its_interval_not_a_point_value():
    # the limit is the one the reading uses to refuse a point value (WIDE_INTERVAL)
    wide = _wide_or_narrow(0.021, 0.994)
    assert wide.headline.too_wide
    assert wide.shown_reading.startswith("The data cannot pin")
    page = wide.to_html()
    assert '<span class="big big-interval">2.1% to 99.4%</span>' in page
    assert "64.6%" not in page  # no point value in large type, nor anywhere in the summary
    assert "too wide for a point value" in page
    assert wide.to_markdown().split("\n\n")[1].startswith("**2.1% to 99.4%**")
    text = wide.to_text()
    assert text.startswith("true success rate pi: 2.1% to 99.4% (95% interval, wider than 25 ")
    assert "64.6%" not in text
    # at the limit the point value is shown, as before
    limit = summary_module.WIDE_INTERVAL
    narrow = _wide_or_narrow(0.6, 0.6 + limit)
    assert not narrow.headline.too_wide
    assert '<span class="big">64.6%</span>' in narrow.to_html()
    assert narrow.to_text().startswith("true success rate pi: 64.6% (95% interval 60.0% to ")


def test_a_headline_with_an_answer_in_words_shows_the_words_and_the_value_small():
    s = _wide_or_narrow(0.443, 0.837, answer="No clear winner; most likely c, P(best) 0.42")
    page = s.to_html()
    assert (
        '<span class="big big-answer">No clear winner; most likely c, P(best) 0.42</span>' in page
    )
    assert "<small>true success rate pi 64.6%, 95% interval 44.3% to 83.7%</small>" in page
    assert s.to_text().startswith("No clear winner; most likely c, P(best) 0.42 (true success")
    assert (
        s.to_markdown()
        .split("\n\n")[1]
        .startswith("**No clear winner; most likely c, P(best) 0.42** (true success rate pi 64.6%")
    )


# --------------------------------------------------------------------------- summary.md as text
def _markdown(diagnostics: Diagnostics | None, *, naive: float = 0.72, reading: str = "") -> str:
    return ReportSummary(
        Headline("true success rate pi", 0.667, 0.6, 0.7, 0.95, naive=naive),
        diagnostics=diagnostics,
        definitions=DEFINITIONS.items(),
        trust="Trust the posterior: it weighs the judge's errors.",
        reading=reading or "The judge's pass rate (72.0%) > the corrected 66.7%; J > 0.5.",
    ).to_markdown()


def test_summary_markdown_reads_as_plain_text() -> None:
    text = _markdown(PASSING)
    assert "**66.7%** true success rate pi" in text
    assert "The judge's pass rate (72.0%) > the corrected 66.7%; J > 0.5." in text
    assert "weighs the judge's errors" in text
    for raw in ("&#x27;", "&gt;", "&amp;", "&lt;", "\\."):
        assert raw not in text, raw


def test_summary_markdown_keeps_names_from_the_data_inert() -> None:
    markdown_it = pytest.importorskip("markdown_it")
    text = _markdown(PASSING, reading="System <script>x</script> *wins* over a_b [c](d).")
    rendered = markdown_it.MarkdownIt("commonmark", {"html": True}).render(text)
    assert "<script" not in rendered
    assert "<em>x" not in rendered
    assert "<em>wins" not in rendered
    assert "<a " not in rendered
    assert "System &lt;script&gt;x&lt;/script&gt; *wins* over a_b [c](d)." in rendered


@pytest.mark.parametrize(
    ("diagnostics", "verdict"),
    [(PASSING, "**Diagnostics passed: all 6 checks"), (FAILING, "**Diagnostics FAILED: 3 of 3")],
)
def test_the_diagnostics_verdict_is_said_once(diagnostics: Diagnostics, verdict: str) -> None:
    text = _markdown(diagnostics)
    assert verdict in text
    assert text.lower().count("diagnostics passed") + text.lower().count("diagnostics failed") == 1


def test_a_naive_value_equal_to_the_corrected_one_is_said_not_repeated() -> None:
    summary = ReportSummary(
        Headline("gain", 0.0749, 0.055, 0.095, 0.95, naive=0.0751, naive_name="observed change",
                 unit="points"),
        diagnostics=None,
        definitions=(),
        trust="exact",
        reading="Fine.",
    )  # fmt: skip
    for text in (summary.to_html(), summary.to_markdown(), summary.to_text()):
        assert text.count("+7.5 pts") == 1
        assert "the same as the observed change" in text
    differs = replace(summary, headline=replace(summary.headline, naive=0.05))
    assert "+5.0 pts" in differs.to_html()
    assert "the same as" not in differs.to_html()
