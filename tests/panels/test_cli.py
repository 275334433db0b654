"""The ``bayesjudge panel`` command: JSON schema, report, plain output and error paths.

One real fit serves the default run: conditionally independent judges (``--dependence none``,
quick to compile and sample), made once with ``--json --out``, its analysis object kept, and
the plain-text run renders that same object (the command only renders what ``analyze_panel``
returns). The random-effects fit of the same files (about 4 minutes on a loaded 2-core
machine) is a ``slow`` test.
"""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_DIAGNOSTICS, EXIT_OK
from bayesjudge.panels import analysis as analysis_module
from bayesjudge.panels.rules import rule_words
from bayesjudge.panels.simulate import panel_scenario, simulate_panel
from bayesjudge.reporting.output import MANIFEST_NAME

S_KEYS = {"mean", "sd", "low", "high", "prob"}
JUDGES = ("a", "a_copy", "b")
TINY = ["--draws", "500", "--tune", "500", "--chains", "4", "--no-progress"]


def _write_panel(folder, sim) -> tuple:
    """Write a simulated panel in long form, with its gold labels in a file of their own."""
    wide = sim.data.to_wide()
    wide["item"] = [f"q{k:04d}" for k in range(len(wide))]
    long = wide.melt(id_vars=["item", "label"], var_name="judge", value_name="verdict")
    long = long.dropna(subset=["verdict"])
    long["verdict"] = long["verdict"].map({1: "PASS", 0: "FAIL"})
    verdicts = folder / "verdicts.csv"
    long[["item", "judge", "verdict"]].to_csv(verdicts, index=False)
    gold = folder / "gold.csv"
    wide.loc[wide["label"].notna(), ["item", "label"]].to_csv(gold, index=False)
    return folder, verdicts, gold, long


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Three judges, a and its near-copy a_copy loading 0.95 on the item difficulty."""
    sim = simulate_panel(pi=0.7, **panel_scenario(3), n_unlabelled=1500, n_gold=200, random_seed=3)
    return _write_panel(tmp_path_factory.mktemp("correlated"), sim)


@pytest.fixture(scope="module")
def independent_files(tmp_path_factory):
    """The same three judges' accuracies, errors independent given the class."""
    scenario = {**panel_scenario(3), "loading": 0.0}
    sim = simulate_panel(pi=0.7, **scenario, n_unlabelled=1500, n_gold=200, random_seed=3)
    return _write_panel(tmp_path_factory.mktemp("independent"), sim)


def _json_run(files, dependence: str):
    folder, verdicts, gold, _ = files
    out = folder / f"report-{dependence}"
    kept = {}
    real = analysis_module.analyze_panel

    def keep(*args, **kwargs):
        kept["analysis"] = real(*args, **kwargs)
        return kept["analysis"]

    stdout = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(stdout):
        patch.setattr(analysis_module, "analyze_panel", keep)
        code = main(
            [
                "panel",
                str(verdicts),
                "--labels",
                str(gold),
                "--random-seed",
                "7",
                "--json",
                "--out",
                str(out),
                "--dependence",
                dependence,
                *TINY,
            ]
        )
    return code, json.loads(stdout.getvalue()), out, kept["analysis"]


@pytest.fixture(scope="module")
def json_run(independent_files):
    return _json_run(independent_files, "none")


def test_json_schema_is_exactly_as_specified(json_run):
    code, payload, _, _ = json_run
    assert code == EXIT_OK
    # the keys, in its order, then what every command adds (input read, provenance)
    assert list(payload) == [
        "posterior",
        "judges",
        "dependence",
        "rules",
        "best_rule",
        "diagnostics",
        "estimates",
        "provenance",
        "input",
    ]
    assert set(payload["posterior"]) == {"pi"}
    assert set(payload["posterior"]["pi"]) == S_KEYS
    assert list(payload["judges"]) == list(JUDGES)
    for values in payload["judges"].values():
        assert set(values) == {"se", "sp", "j"}
        for summary in values.values():
            assert set(summary) == S_KEYS
            assert summary["low"] <= summary["mean"] <= summary["high"]
            assert summary["prob"] == 0.95
    dependence = payload["dependence"]
    assert set(dependence) == {"effective_judges", "correlation"}
    assert set(dependence["effective_judges"]) == S_KEYS
    assert list(dependence["correlation"]) == ["a|a_copy", "a|b", "a_copy|b"]
    for pair in dependence["correlation"].values():
        assert set(pair) == {"positive", "negative"}
        assert all(set(s) == S_KEYS for s in pair.values())
    rules = payload["rules"]
    names = [r["rule"] for r in rules]
    assert names[:3] == ["at_least_1_of_3", "at_least_2_of_3", "at_least_3_of_3"]
    assert all(set(r) == {"rule", "se", "sp", "j"} for r in rules)
    assert payload["best_rule"] in names
    assert set(payload["diagnostics"]) == {
        "passed",
        "method",
        "r_hat_max",
        "ess_bulk_min",
        "ess_tail_min",
        "divergences",
        "failures",
        "attempts",
        "predictive_check",
    }
    assert payload["diagnostics"]["passed"] is True
    check = payload["diagnostics"]["predictive_check"]
    assert check["passed"] is True
    assert {"passed", "level", "threshold", "rule", "failures", "tests", "statistics"} <= set(check)
    for row in payload["estimates"]:
        assert ("judge" in row) != ("rule" in row)
        assert {"method", "estimate", "low", "high", "prob", "note"} <= set(row)
    by_judge = {(r["judge"], r["method"]) for r in payload["estimates"] if "judge" in r}
    assert by_judge == {(j, m) for j in JUDGES for m in ("rogan_gladen_delta", "ppi_plus_plus")}
    by_rule = {(r["rule"], r["method"]) for r in payload["estimates"] if "rule" in r}
    assert by_rule == {
        ("majority", "naive"),
        ("majority", "majority_rogan_gladen"),
        ("dawid_skene", "dawid_skene"),
    }
    assert payload["provenance"]["seed"] == 7
    assert payload["input"]["labels"].endswith("gold.csv")
    assert payload["input"]["items"] == 1700


def test_independent_judges_count_fully(json_run):
    _, payload, _, analysis = json_run
    assert analysis.dependence == "none"
    assert payload["provenance"]["dependence"] == "none"
    assert payload["dependence"]["effective_judges"]["mean"] == pytest.approx(3.0)
    for pair in payload["dependence"]["correlation"].values():
        assert pair["positive"]["mean"] == pytest.approx(0.0, abs=1e-12)


def test_independence_fails_its_unanimity_check_on_near_copies(files, capsys):
    """Fitted as independent, near-copies leave too many unanimous items: exit 3, named."""
    _, verdicts, gold, _ = files
    argv = ["panel", str(verdicts), "--labels", str(gold), "--dependence", "none", "--json"]
    assert main([*argv, *TINY]) == EXIT_DIAGNOSTICS
    captured = capsys.readouterr()
    assert "ppc_tail_prob(all_pass[fail])" in captured.err
    assert json.loads(captured.out)["diagnostics"]["passed"] is False


@pytest.mark.slow
def test_random_effects_see_the_near_copies(files):
    code, payload, _, _ = _json_run(files, "random_effect")
    assert code == EXIT_OK
    assert payload["provenance"]["dependence"] == "random_effect"
    dependence = payload["dependence"]
    copies = dependence["correlation"]["a|a_copy"]
    others = dependence["correlation"]["a|b"]
    assert copies["positive"]["mean"] > others["positive"]["mean"] + 0.1
    assert dependence["effective_judges"]["mean"] < 2.5


def test_report_folder(json_run):
    _, payload, out, _ = json_run
    names = {p.name for p in out.iterdir()}
    assert names == {
        MANIFEST_NAME,
        "report.html",
        "summary.md",
        "posterior.nc",
        "posterior.csv",
        "estimates.csv",
        "diagnostics.csv",
        "analysis.json",
    }
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 4
    # the shared one-screen summary first, the footer last
    assert "badge-pass" in html
    assert html.index('id="summary"') < html.index("<h2>Figures")
    assert html.index("<footer") > html.index("Diagnostics")
    assert "effective number of judges" in html
    summary = (out / "summary.md").read_text()
    assert "**Diagnostics passed: all" in summary  # said once, not "PASSED. ... passed"
    # the summary opens with the corrected pi beside the naive majority vote
    assert summary.index("majority vote of the judges") < summary.index("## Posterior summaries")
    tree = xr.open_datatree(out / "posterior.nc")
    assert float(tree["posterior"]["pi"].mean()) == pytest.approx(
        payload["posterior"]["pi"]["mean"]
    )
    table = pd.read_csv(out / "posterior.csv")
    assert {"pi", "se", "effective_judges", "correlation_positive", "rule_j"} <= set(
        table["quantity"]
    )


def test_plain_output_renders_the_analysis(json_run, independent_files, monkeypatch, capsys):
    _, payload, _, analysis = json_run
    _, verdicts, gold, _ = independent_files
    monkeypatch.setattr(analysis_module, "analyze_panel", lambda *a, **k: analysis)
    assert main(["panel", str(verdicts), "--labels", str(gold), *TINY]) == EXIT_OK
    out = capsys.readouterr().out
    assert f"pi {payload['posterior']['pi']['mean']:8.4f}" in out
    assert "naive majority vote" in out
    assert "effective judges" in out
    assert f"{payload['best_rule']}" in out
    assert "(best)" in out
    assert "(best): smallest RG sd, the most precise Rogan-Gladen estimate of pi" in out
    for judge in JUDGES:
        assert judge in out
    assert "dawid_skene" in out
    # the same ending as every family's command: the report summary as text
    answer = out[out.index("\nAnswer\n") :]
    assert answer.startswith("\nAnswer\n  true success rate pi: ")
    assert "majority vote of the judges (naive)" in " ".join(answer.split())


def _write(frame: pd.DataFrame, path) -> str:
    frame.to_csv(path, index=False)
    return str(path)


def test_bad_input_is_one_line_and_exit_2(files, tmp_path, capsys):
    _, verdicts, _gold, long = files

    def fails(argv: list[str], message: str) -> None:
        assert main(["panel", *argv]) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert message in err
        assert "Traceback" not in err

    one = long[long["judge"] == "a"]
    fails([_write(one, tmp_path / "one.csv")], "for one judge use `bayesjudge estimate`")
    twice = pd.concat([long, long.iloc[[0]]], ignore_index=True)
    fails([_write(twice, tmp_path / "twice.csv")], "is given twice for item")
    disagree = long.copy()
    disagree["label"] = np.nan
    first = disagree["item"].iloc[0]
    rows = np.flatnonzero(disagree["item"].to_numpy() == first)
    disagree.loc[disagree.index[rows[0]], "label"] = 1
    disagree.loc[disagree.index[rows[1]], "label"] = 0
    fails([_write(disagree, tmp_path / "disagree.csv")], f"item '{first}' has gold label 1")
    silent = long.copy()
    silent.loc[silent["judge"] == "b", "verdict"] = ""
    fails([_write(silent, tmp_path / "silent.csv")], "judge 'b' has no verdict on any")
    fails([str(tmp_path / "absent.csv")], "no such file")
    fails(["--judges", "a", "b"], "--judges names the verdict columns of DATA")
    fails([str(verdicts), "--prior", "tau=beta:1,1"], "--prior")
    unlabelled = [str(verdicts), "--no-progress"]
    fails(unlabelled, "gold-labelled items of both classes")


def test_report_states_why_a_rule_is_best_in_words(json_run, readable_report):
    _, payload, out, analysis = json_run
    readable_report(out, names=JUDGES)  # rule identifiers only in tables
    summary = (out / "summary.md").read_text()
    page = (out / "report.html").read_text()
    sd = analysis.posterior["posterior"]["rule_pi_sd"].mean(("chain", "draw"))
    best = payload["best_rule"]
    assert float(sd.sel(rule=best)) == pytest.approx(float(sd.min()))
    words = rule_words(best)
    top = max(payload["rules"], key=lambda r: r["j"]["mean"])
    best_sd, top_sd = float(sd.sel(rule=best)), float(sd.sel(rule=top["rule"]))
    digits = 3  # the two sds the reading compares are shown with enough digits to differ
    while top["rule"] != best and f"{best_sd:.{digits}f}" == f"{top_sd:.{digits}f}":
        digits += 1
    claim = (
        f"Of the vote rules, {words} gives the most precise Rogan-Gladen estimate of pi (the "
        f"smallest posterior sd, {best_sd:.{digits}f}); this is the rule marked best."
    )
    assert claim in summary
    assert claim in page
    if top["rule"] != best:  # the rule with the largest J is named beside it
        assert f"has the largest J ({top['j']['mean']:.2f}" in summary


def _contrary_panel(path):
    """Judge b contradicts judge a on half the items: a dependence no loading >= 0 can make."""
    rng = np.random.default_rng(0)
    n, n_gold = 1500, 150
    y = rng.random(n) < 0.5

    def judge(se, sp):
        return np.where(y, rng.random(n) < se, rng.random(n) < 1 - sp).astype(int)

    a = judge(0.85, 0.8)
    b = np.where(rng.random(n) < 0.5, 1 - a, judge(0.85, 0.8))
    c = judge(0.8, 0.85)
    label = pd.array(np.where(np.arange(n) < n_gold, y, np.nan), dtype="Float64").astype("Int64")
    frame = pd.DataFrame({"item": np.arange(n), "label": label, "a": a, "b_contrary": b, "c": c})
    frame.to_csv(path, index=False)
    return path


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
def test_a_panel_the_model_cannot_reproduce_exits_3_naming_the_pattern(tmp_path, capsys):
    path = _contrary_panel(tmp_path / "contrary.csv")
    argv = ["panel", str(path), "--json", "--draws", "300", "--tune", "300", "--chains", "2"]
    assert main([*argv, "--no-progress", "--random-seed", "1"]) == EXIT_DIAGNOSTICS
    captured = capsys.readouterr()
    assert "ppc_tail_prob(patterns[fail]; most off: pattern[fail: a=" in captured.err
    payload = json.loads(captured.out)
    assert payload["diagnostics"]["passed"] is False
    assert any(f.startswith("ppc_tail_prob(patterns[") for f in payload["diagnostics"]["failures"])


def test_pairs_option_is_checked_before_any_fit(files, capsys):
    _, verdicts, gold, _ = files
    base = ["panel", str(verdicts), "--labels", str(gold), "--no-progress"]
    assert main([*base, "--pairs", "a+a_copy"]) == EXIT_BAD_INPUT
    assert "--pairs goes with --dependence pairs or auto" in capsys.readouterr().err
    assert main([*base, "--dependence", "pairs", "--pairs", "a_copy"]) == EXIT_BAD_INPUT
    assert "two judge names joined by '+'" in capsys.readouterr().err
    assert main([*base, "--dependence", "pairs", "--pairs", "a+nobody"]) == EXIT_BAD_INPUT
    assert "judge 'nobody' is not in the panel" in capsys.readouterr().err


def test_spike_option_is_checked_before_any_fit(files, capsys):
    _, verdicts, gold, _ = files
    base = ["panel", str(verdicts), "--labels", str(gold), "--no-progress", "--spike", "judge"]
    assert main([*base, "--dependence", "none"]) == EXIT_BAD_INPUT
    assert "--spike judge goes with --dependence random_effect or auto" in capsys.readouterr().err
    assert main([*base, "--independence", "0"]) == EXIT_BAD_INPUT
    assert "--spike judge needs --independence above 0" in capsys.readouterr().err


def test_spike_judge_as_the_errors_suggest_reaches_the_fit(files, capsys, monkeypatch):
    from bayesjudge.panels import analysis

    class Reached(Exception):
        pass

    def reached(data, **kwargs):
        raise Reached(kwargs)

    monkeypatch.setattr(analysis, "analyze_panel", reached)
    _, verdicts, gold, _ = files
    base = ["panel", str(verdicts), "--labels", str(gold), "--no-progress", "--spike", "judge"]
    for suggested in (["--dependence", "random_effect"], ["--independence", "0.5"]):
        with pytest.raises(Reached) as reached_fit:
            main([*base, *suggested])
        assert reached_fit.value.args[0]["spike"] == "judge"
