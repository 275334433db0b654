"""The command line: output formats, exit codes and atomic reports."""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
import xarray as xr

import bayesjudge as bj
from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_DIAGNOSTICS, EXIT_OK
from bayesjudge.prevalence.simulate import judge_table
from bayesjudge.reporting.output import read_manifest, write_manifest

BASELINE_METHODS = [
    "naive",
    "calibration_only",
    "rogan_gladen_delta",
    "rogan_gladen_lang_reiczigel",
    "rogan_gladen_bootstrap",
    "ppi",
    "ppi_plus_plus",
]
FAST_FIT = ["--no-progress"]  # default draws: 4 chains x 1000 (sampling takes well under 1 s)


@pytest.fixture
def example_csv(tmp_path: Path) -> Path:
    path = tmp_path / "judge.csv"
    bj.load_example("judge").to_csv(path, index=False)
    return path


@pytest.fixture
def small_csv(tmp_path: Path) -> Path:
    path = tmp_path / "small.csv"
    judge_table(pi=0.6, se=0.9, sp=0.8, n=400, m1=60, m0=60, random_seed=3).to_csv(
        path, index=False
    )
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def in_process(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> subprocess.CompletedProcess[str]:
    """Run the command line in this process; return what ``python -m bayesjudge`` would.

    The exit status is :func:`main`'s return value or the code of a ``SystemExit`` it raises; an
    exception it lets through fails the test as the process's traceback would. A fresh
    ``python -m bayesjudge`` is tested by ``test_help_everywhere`` here and, for bad input
    (exit 2, one line, no traceback), by ``test_no_traceback_from_a_fresh_process`` in
    ``tests/cli/test_input.py``.
    """
    try:
        code = main(argv)
    except SystemExit as stop:
        code = 0 if stop.code is None else stop.code if isinstance(stop.code, int) else 1
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["bayesjudge", *argv], code, out, err)


@dataclass(frozen=True)
class SeededReport:
    """One ``report`` run on the small data set, read by several tests (a report costs 9 to 12 s of
    CPU, most of it the label plan and the figures, not the sampling)."""

    folder: Path  # holds the data file and the report folder, nothing else
    out_dir: Path
    argv: tuple[str, ...]
    code: int
    out: str
    err: str


@pytest.fixture(scope="module")
def seeded_report(tmp_path_factory: pytest.TempPathFactory) -> SeededReport:
    folder = tmp_path_factory.mktemp("seeded_report")
    data = folder / "small.csv"
    judge_table(pi=0.6, se=0.9, sp=0.8, n=400, m1=60, m0=60, random_seed=3).to_csv(
        data, index=False
    )
    out_dir = folder / "report"
    argv = ("report", str(data), "--out", str(out_dir), "--random-seed", "5", *FAST_FIT)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return SeededReport(folder, out_dir, argv, code, out.getvalue(), err.getvalue())


def test_baselines_json_schema(capsys, example_csv):
    code, out, err = run(capsys, "baselines", str(example_csv), "--json", "--random-seed", "1")
    assert code == EXIT_OK, err
    payload = json.loads(out)  # exactly one JSON object, nothing else on stdout
    assert set(payload) == {"n_labelled", "n_unlabelled", "estimates", "input"}
    assert payload["input"]["streamed"] is True  # binary verdicts in a file: reduced to counts
    assert payload["input"]["rows"] == 2300
    assert payload["n_labelled"] == 300
    assert payload["n_unlabelled"] == 2000
    assert [row["method"] for row in payload["estimates"]] == BASELINE_METHODS
    for row in payload["estimates"]:
        assert set(row) == {"method", "estimate", "low", "high", "prob", "note"}
        assert row["prob"] == pytest.approx(0.95)
        assert row["low"] <= row["estimate"] <= row["high"]


def test_baselines_json_matches_python_api(capsys, example_csv):
    from bayesjudge.prevalence.baselines import baselines

    code, out, _ = run(
        capsys, "baselines", str(example_csv), "--json", "--random-seed", "5", "--prob", "0.9"
    )
    assert code == EXIT_OK
    rows = pd.DataFrame(json.loads(out)["estimates"]).set_index("method")
    frame = baselines(bj.JudgeData.from_csv(example_csv), prob=0.9, random_seed=5).set_index(
        "method"
    )
    pd.testing.assert_series_equal(rows["estimate"], frame["estimate"], check_names=False)
    pd.testing.assert_series_equal(rows["high"], frame["high"], check_names=False)


def test_baselines_table_is_readable(capsys, example_csv):
    code, out, _ = run(capsys, "baselines", str(example_csv))
    assert code == EXIT_OK
    for method in BASELINE_METHODS:
        assert method in out
    assert "300 labelled, 2000 unlabelled" in out


def test_not_identifiable_rows_shown_with_reason(capsys, tmp_path):
    # A judge that passes gold-FAIL items more often than gold-PASS ones: J < 0.
    frame = pd.DataFrame(
        {
            "label": [1] * 10 + [0] * 10 + [None] * 20,
            "verdict": [1] * 3 + [0] * 7 + [1] * 8 + [0] * 2 + [1] * 10 + [0] * 10,
        }
    )
    path = tmp_path / "chance.csv"
    frame.to_csv(path, index=False)
    code, out, _ = run(capsys, "baselines", str(path), "--json")
    assert code == EXIT_OK
    rows = {row["method"]: row for row in json.loads(out)["estimates"]}
    for method in ("rogan_gladen_delta", "rogan_gladen_lang_reiczigel", "rogan_gladen_bootstrap"):
        assert rows[method]["estimate"] is None
        assert "not identifiable" in rows[method]["note"]
        assert "J=" in rows[method]["note"]
    assert rows["naive"]["estimate"] == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["baselines", "missing.csv"], "no such file"),
        (["baselines", "{bad}"], "column 'verdict'"),
        (["baselines", "{good}", "--prob", "1.5"], "--prob"),
        (["allocate", "--budget", "100", "--p-hat", "0.7", "--pilot-q0", "0.8"], "required"),
        (
            [
                "allocate",
                "--budget",
                "-3",
                "--p-hat",
                "0.7",
                "--pilot-q0",
                "0.8",
                "--pilot-q1",
                "0.9",
                "--pilot-size",
                "10",
            ],
            "--budget",
        ),
        (["estimate", "{bad}", *FAST_FIT], "column 'verdict'"),
        (
            [
                "allocate",
                "--budget",
                "100",
                "--p-hat",
                "0.7",
                "--pilot-q0",
                "0.3",
                "--pilot-q1",
                "0.4",
                "--pilot-size",
                "10",
            ],
            "no better than chance",
        ),
        (["estimate", "{good}", "--prior", "pi=beta:1"], "prior 'pi'.*takes 2 numbers"),
        (["estimate", "{good}", "--prior", "rho=beta:1,1"], "has no prior 'rho'"),
        (["estimate", "{good}", "--prior", "se=normal:0,1"], "must be a beta distribution"),
        (["estimate", "{good}", "--prior", "pi"], "NAME=SPEC"),
        (["estimate", "{good}", "--draws", "1000000000"], "--draws"),
        (["estimate", "{good}", "--target-accept", "1"], "--target-accept"),
        (["baselines", "{good}", "--n-boot", "1000000000"], "--n-boot"),
        (["gate", "{good}", "--prior", "log_kappa=beta:1,1"], "must be a normal distribution"),
    ],
)
def test_bad_input_exits_2_without_traceback(capsys, monkeypatch, tmp_path, argv, message):
    bad = tmp_path / "bad.csv"
    bad.write_text("label,verdict\n1,pass\n0,maybe\n,1\n")
    good = tmp_path / "good.csv"
    bj.load_example("judge").to_csv(good, index=False)
    argv = [a.replace("{bad}", str(bad)).replace("{good}", str(good)) for a in argv]
    monkeypatch.chdir(tmp_path)
    result = in_process(capsys, argv)
    assert result.returncode == EXIT_BAD_INPUT, result.stderr
    assert re.search(message, result.stderr), result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_bad_row_is_named(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("label,verdict\n1,pass\n0,maybe\n,1\n")
    code, _, err = run(capsys, "baselines", str(bad))
    assert code == EXIT_BAD_INPUT
    assert "line 3 has 'maybe'" in err  # the file's own line, header included


def test_allocate_json(capsys):
    code, out, _ = run(
        capsys,
        "allocate", "--budget", "200", "--p-hat", "0.7", "--pilot-q0", "0.8",
        "--pilot-q1", "0.9", "--pilot-size", "10", "--json",
    )  # fmt: skip
    assert code == EXIT_OK
    payload = json.loads(out)
    assert payload["m0"] + payload["m1"] == 200
    assert payload["m0"] >= 10
    assert payload["m1"] >= 10


def test_allocate_prints_sentences_and_a_rounded_table(capsys):
    argv = ["allocate", "--budget", "200", "--p-hat", "0.7", "--pilot-q0", "0.8"]
    argv += ["--pilot-q1", "0.9", "--pilot-size", "10"]
    code, out, _ = run(capsys, *argv)
    assert code == EXIT_OK
    _, payload, _ = run(capsys, *argv, "--json")
    split = json.loads(payload)
    assert f"Label {split['m1']} gold-PASS and {split['m0']}" in " ".join(out.split())
    assert "q0_tilde" not in out
    ratio_line = next(line for line in out.splitlines() if line.startswith("ratio m0 / m1"))
    assert ratio_line.split()[-1] == f"{split['ratio']:.3f}"


def test_help_everywhere(capsys):
    # the program's help from a fresh interpreter (``python -m bayesjudge``), each command's
    # in-process (a fresh interpreter costs about a second of imports)
    for argv in (
        ["--help"],
        *([c, "--help"] for c in ("baselines", "allocate", "estimate", "report")),
    ):
        if argv == ["--help"]:
            result = subprocess.run(
                [sys.executable, "-m", "bayesjudge", *argv],
                capture_output=True,
                text=True,
                check=False,
            )
        else:
            result = in_process(capsys, argv)
        assert result.returncode == 0, result.stderr
        assert "usage: bayesjudge" in result.stdout


def test_estimate_json_schema(capsys, small_csv):
    code, out, err = run(
        capsys, "estimate", str(small_csv), "--json", "--random-seed", "11", *FAST_FIT
    )
    assert code == EXIT_OK, err
    payload = json.loads(out)
    assert set(payload) == {
        "posterior",
        "diagnostics",
        "estimates",
        "calibration_check",
        "counts",
        "input",
        "provenance",
    }
    assert payload["counts"] == bj.JudgeData.from_csv(small_csv).counts.as_dict()
    assert set(payload["posterior"]) == {"pi", "se", "sp", "j"}
    for summary in payload["posterior"].values():
        assert set(summary) == {"mean", "sd", "low", "high", "prob"}
        assert summary["low"] < summary["mean"] < summary["high"]
        assert summary["prob"] == pytest.approx(0.95)
    diagnostics = payload["diagnostics"]
    assert set(diagnostics) == {
        "passed",
        "method",
        "r_hat_max",
        "ess_bulk_min",
        "ess_tail_min",
        "divergences",
        "failures",
        "attempts",
    }
    assert diagnostics["passed"] is True
    assert len(diagnostics["attempts"]) == 1
    assert payload["provenance"]["seed"] == 11
    assert payload["provenance"]["command"].startswith("bayesjudge estimate ")
    assert diagnostics["divergences"] == 0
    assert [row["method"] for row in payload["estimates"]] == BASELINE_METHODS
    # The posterior mean of pi lies near the Rogan-Gladen estimate on this well-behaved data.
    rg = next(r for r in payload["estimates"] if r["method"] == "rogan_gladen_delta")
    assert abs(payload["posterior"]["pi"]["mean"] - rg["estimate"]) < 0.03


def test_estimate_exact_json_has_the_nuts_schema(capsys, small_csv):
    code, out, err = run(
        capsys, "estimate", str(small_csv), "--json", "--method", "exact", "--random-seed", "11"
    )
    assert code == EXIT_OK, err
    payload = json.loads(out)
    assert set(payload) == {
        "posterior",
        "diagnostics",
        "estimates",
        "calibration_check",
        "provenance",
        "counts",
        "input",
    }
    assert set(payload["posterior"]) == {"pi", "se", "sp", "j"}
    for summary in payload["posterior"].values():
        assert set(summary) == {"mean", "sd", "low", "high", "prob"}
        assert summary["low"] < summary["mean"] < summary["high"]
    assert set(payload["diagnostics"]) == {
        "passed",
        "method",
        "r_hat_max",
        "ess_bulk_min",
        "ess_tail_min",
        "divergences",
        "failures",
        "attempts",
    }
    assert payload["diagnostics"]["method"] == "exact"
    assert payload["provenance"]["method"] == "exact"
    assert [row["method"] for row in payload["estimates"]] == BASELINE_METHODS
    rg = next(r for r in payload["estimates"] if r["method"] == "rogan_gladen_delta")
    assert abs(payload["posterior"]["pi"]["mean"] - rg["estimate"]) < 0.03


def test_estimate_exact_never_loads_the_sampling_stack(example_csv):
    # a fresh interpreter: PyMC, PyTensor and nutpie stay unimported (and so does numba)
    script = (
        "import contextlib, io, json, sys\n"
        "from bayesjudge.cli.app import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    code = main(['estimate', {str(example_csv)!r}, '--method', 'exact', '--json'])\n"
        "stack = ('pymc', 'pytensor', 'nutpie', 'numba')\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in stack)\n"
        "print(json.dumps({'code': code, 'loaded': loaded,\n"
        "                  'posterior': sorted(json.loads(out.getvalue())['posterior'])}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report == {"code": EXIT_OK, "loaded": [], "posterior": ["j", "pi", "se", "sp"]}


def test_failing_diagnostics_exit_3(capsys, small_csv):
    code, out, err = run(
        capsys, "estimate", str(small_csv), "--json", "--draws", "5", "--tune", "5",
        "--chains", "2", "--no-progress", "--random-seed", "1",
    )  # fmt: skip
    assert code == EXIT_DIAGNOSTICS
    assert json.loads(out)["diagnostics"]["passed"] is False
    assert "FAILED its diagnostics" in err


def test_report_writes_self_contained_files(seeded_report, readable_report):
    tmp_path, out_dir = seeded_report.folder, seeded_report.out_dir
    code, err = seeded_report.code, seeded_report.err
    assert code == EXIT_OK, err
    page = (out_dir / "report.html").read_text()
    assert "data:image/png;base64," in page
    assert "http://" not in page
    assert "https://" not in page
    assert "rogan_gladen_lang_reiczigel" in page
    assert "bayes_hdi" in page
    # the one-screen summary first, then the diagnostics and figures, the footer last
    assert page.index('id="summary"') < page.index("<h2>Diagnostics") < page.index("Figures")
    assert "Youden's J" in page
    assert "badge-pass" in page
    assert "How many more gold labels?" in page
    assert page.index("<footer") > page.index("Figures")
    summary = (out_dir / "summary.md").read_text()
    assert "## Diagnostics: passed" in summary
    readable_report(out_dir)  # no nan, no escapes in sentences, no identifiers in prose
    tree = xr.open_datatree(out_dir / "posterior.nc", engine="h5netcdf")
    assert "pi" in tree["posterior"]
    assert tree.attrs["bayesjudge_version"] == bj.__version__
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_report_replaces_its_own_report_and_escapes_the_file_name(capsys, small_csv, tmp_path):
    out_dir = tmp_path / "report"
    hostile = tmp_path / "runs|<i>x.csv"
    hostile.write_bytes(small_csv.read_bytes())
    tiny = ["--draws", "50", "--tune", "50", "--chains", "2", "--no-progress"]
    for source in (small_csv, hostile):  # the second run replaces the first's report
        code, _out, err = run(capsys, "report", str(source), "--out", str(out_dir), *tiny)
        assert code in (EXIT_OK, EXIT_DIAGNOSTICS), err
    summary = (out_dir / "summary.md").read_text()
    title = summary.splitlines()[0]
    assert title.startswith("# bayesjudge report: ")
    assert title.endswith(r"/runs\|&lt;i&gt;x.csv")
    assert "<i>" not in summary
    assert read_manifest(out_dir) is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [hostile.name, "report", "small.csv"]
    )


def test_report_failure_leaves_previous_report_intact(monkeypatch, capsys, small_csv, tmp_path):
    out_dir = tmp_path / "report"
    out_dir.mkdir()
    (out_dir / "report.html").write_text("previous")
    write_manifest(out_dir, kind="report")  # a report an earlier run wrote

    import bayesjudge.reporting.pipeline as report

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(report, "markdown_table", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        main(["report", str(small_csv), "--out", str(out_dir), *FAST_FIT])
    assert (out_dir / "report.html").read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report", "small.csv"]


def test_default_seed_makes_runs_byte_identical(capsys, small_csv):
    from bayesjudge.validation import DEFAULT_SEED

    argv = ("estimate", str(small_csv), "--json", "--prior", "pi=beta:1,1", *FAST_FIT)
    first = run(capsys, *argv)
    second = run(capsys, *argv)
    assert first[0] == second[0] == EXIT_OK
    assert first[1] == second[1]  # byte for byte, with no seed given
    payload = json.loads(first[1])
    provenance = payload["provenance"]
    assert provenance["seed"] == DEFAULT_SEED
    assert provenance["priors"]["pi"] == "Beta(1, 1)"
    assert {"python", "bayesjudge", "numpy", "pymc", "arviz-stats"} <= set(provenance["versions"])
    assert provenance["command"] == "bayesjudge " + " ".join(argv)
    # the text output says which seed it used
    code, out, _ = run(capsys, "estimate", str(small_csv), *FAST_FIT)
    assert code == EXIT_OK
    assert f"seed {DEFAULT_SEED}" in out


def test_seed_versions_and_command_are_recorded_in_the_report(seeded_report):
    out_dir, argv, code = seeded_report.out_dir, seeded_report.argv, seeded_report.code
    assert code == EXIT_OK
    tree = xr.open_datatree(out_dir / "posterior.nc")
    assert int(tree.attrs["seed"]) == 5
    assert "pymc" in json.loads(tree.attrs["versions"])
    assert tree.attrs["command"] == "bayesjudge " + " ".join(argv)
    assert json.loads(tree.attrs["attempts"])[0]["sampler_seed"] == int(tree.attrs["sampler_seed"])
    assert "seed 5" in (out_dir / "report.html").read_text()


def test_stratified_report_has_per_stratum_posteriors(capsys, tmp_path):
    frames = []
    for i, (name, pi) in enumerate((("short", 0.3), ("long", 0.7))):
        frame = judge_table(pi=pi, se=0.9, sp=0.85, n=600, m1=60, m0=60, random_seed=70 + i)
        frame["stratum"] = name
        frames.append(frame)
    path = tmp_path / "strata.csv"
    pd.concat(frames, ignore_index=True).to_csv(path, index=False)
    out_dir = tmp_path / "report"
    argv = ("report", str(path), "--stratified", "--out", str(out_dir), *FAST_FIT)
    code, _, err = run(capsys, *argv)
    assert code == EXIT_OK, err
    tree = xr.open_datatree(out_dir / "posterior.nc")
    assert tree["posterior"]["pi_stratum"].dims == ("chain", "draw", "stratum")
    assert sorted(tree["posterior"]["stratum"].values.tolist()) == ["long", "short"]
    code, out, _ = run(capsys, "estimate", str(path), "--stratified", "--json", *FAST_FIT)
    assert code == EXIT_OK
    posterior = json.loads(out)["posterior"]
    assert {"pi", "pi[long]", "pi[short]", "se[long]", "sp[short]", "j[long]"} <= set(posterior)
    assert posterior["pi[short]"]["mean"] < posterior["pi[long]"]["mean"]


def test_report_on_judge_scores_shows_the_threshold_choice(capsys, tmp_path):
    from bayesjudge.prevalence.simulate import judge_scores_table

    data = tmp_path / "scores.csv"
    judge_scores_table(pi=0.6, n=600, m1=60, m0=60, overlap=0.05, levels=3, random_seed=4).to_csv(
        data, index=False
    )
    out_dir = tmp_path / "report"
    code, _out, err = run(
        capsys, "report", str(data), "--out", str(out_dir), "--random-seed", "2", *FAST_FIT
    )
    assert code == EXIT_OK, err
    thresholds = pd.read_csv(out_dir / "thresholds.csv")
    chosen = float(thresholds.loc[thresholds["chosen"], "threshold"].iloc[0])
    page = (out_dir / "report.html").read_text()
    heading = f"Threshold {chosen:g}: how the judge's score was turned into verdicts"
    # after the estimates, before the diagnostics; its figure among the figures
    where = page.index(html.escape(heading))
    assert page.index("Estimates of the true success rate") < where < page.index("<h2>Diagnostics")
    assert "Se, Sp, J and the ROC" in page
    assert len(thresholds) >= 2
    assert thresholds["chosen"].sum() == 1
    # the heading is our own sentence: it reads as written (was "judge&#x27;s", issue 26)
    assert f"## {heading}" in (out_dir / "summary.md").read_text()


def test_rows_without_a_note_show_none_when_the_notes_are_shortened():
    from types import SimpleNamespace

    from bayesjudge.prevalence.report import _display_frame
    from bayesjudge.reporting.html import markdown_table, table_html

    long = "these methods assume a random gold sample"
    analysis = SimpleNamespace(calibration=SimpleNamespace(consistent=False, note=lambda: long))
    comparison = pd.DataFrame(
        {"method": ["naive", "ppi"], "prob": [0.95, 0.95], "note": [float("nan"), long]}
    )
    shown = _display_frame(analysis, comparison)
    assert shown["note"].isna().tolist() == [True, False]
    assert shown["note"].iloc[1] == "assumes a random gold sample: biased here"
    for text in (table_html(shown), markdown_table(shown)):
        assert "nan" not in text


def test_one_gold_fail_warns_in_the_terminal_as_in_the_report(capsys, tmp_path):
    # 15 gold labels, one of them FAIL: Se and Sp rest on a handful of verdicts
    data = tmp_path / "fifteen.csv"
    judge_table(pi=0.7, se=0.9, sp=0.8, n=200, m1=14, m0=1, random_seed=26).to_csv(
        data, index=False
    )
    out_dir = tmp_path / "report"
    argv = ("estimate", str(data), "--out", str(out_dir), "--random-seed", "3", *FAST_FIT)
    code, out, err = run(capsys, *argv)
    assert code == EXIT_OK, err
    # the terminal carries the report summary's warnings, word for word
    assert "warning: Small calibration set: only 14 gold-PASS and 1 gold-FAIL items" in out
    assert "warning: Interval too wide for a reading" in out
    assert "The data cannot pin the true success rate pi down" in out
    answer = out[out.index("\nAnswer\n") :]
    assert re.search(r"true success rate pi: \d+\.\d% to \d+\.\d% \(95% interval, wider", answer)
    assert f"open {out_dir / 'report.html'}" in out.splitlines()[-1]
    # the report's headline shows the interval in large type, not a point value
    page = (out_dir / "report.html").read_text()
    big = re.search(r'<span class="big big-interval">(\d+\.\d)% to (\d+\.\d)%</span>', page)
    assert big is not None
    assert float(big.group(2)) - float(big.group(1)) > 25
    assert "Small calibration set" in page
    summary = (out_dir / "summary.md").read_text()
    assert re.search(r"\*\*\d+\\?\.\d% to \d+\.\d%\*\* true success rate pi", summary)


def test_report_prints_its_answer_and_the_page_to_open(seeded_report):
    out_dir = seeded_report.out_dir
    code, out, err = seeded_report.code, seeded_report.out, seeded_report.err
    assert code == EXIT_OK, err
    lines = out.splitlines()
    assert "Answer" in lines
    assert re.search(r"^  true success rate pi: \d+\.\d% \(95% interval ", out, re.MULTILINE)
    assert "  Diagnostics passed: all" in out
    assert lines[-1] == f"report written to {out_dir}: open {out_dir / 'report.html'}"


def test_exact_refuses_a_prior_on_pi_too_sharp_for_its_grid_and_sampling_follows(capsys, small_csv):
    from bayesjudge.prevalence.exact import MIN_PI_SHAPE

    prior = ("--prior", "pi=beta:0.01,0.01")
    code, _, err = run(capsys, "estimate", str(small_csv), "--method", "exact", *prior)
    assert code == EXIT_BAD_INPUT
    assert f"at least {MIN_PI_SHAPE}" in err
    assert "without --method exact" in err
    # what the message suggests: the sampler, same data and prior
    code, out, _ = run(capsys, "estimate", str(small_csv), "--json", *prior, *FAST_FIT)
    assert code == EXIT_OK
    assert json.loads(out)["provenance"]["priors"]["pi"] == "Beta(0.01, 0.01)"


def test_score_data_with_a_prior_on_pi_too_sharp_for_exact_say_fix_the_threshold(capsys, tmp_path):
    from bayesjudge.prevalence.exact import MIN_PI_SHAPE
    from bayesjudge.prevalence.simulate import judge_scores_table

    path = tmp_path / "scores.csv"
    judge_scores_table(pi=0.6, n=300, m1=40, m0=40, random_seed=1).to_csv(path, index=False)
    prior = ("--prior", "pi=beta:0.01,0.01")
    # choosing the threshold compares exact posteriors: refused, naming what to do instead
    code, _, err = run(capsys, "estimate", str(path), *prior)
    assert code == EXIT_BAD_INPUT
    assert f"at least {MIN_PI_SHAPE}" in err
    assert "--threshold" in err
    assert "Traceback" not in err
    # what the message suggests: a threshold fixed in advance, then the sampler with this prior
    code, out, err = run(capsys, "estimate", str(path), "--threshold", "0.55", "--json", *prior)
    assert code == EXIT_OK, err
    result = json.loads(out)
    assert result["provenance"]["priors"]["pi"] == "Beta(0.01, 0.01)"


def test_estimate_on_scores_prints_and_records_the_score_mixture_check(capsys, tmp_path):
    from bayesjudge.prevalence.simulate import judge_scores_table

    path = tmp_path / "scores.csv"
    judge_scores_table(pi=0.6, n=300, m1=40, m0=40, random_seed=1).to_csv(path, index=False)
    code, out, err = run(capsys, "estimate", str(path), "--method", "exact")
    assert code == EXIT_OK, err
    assert re.search(
        r"^score mixture check: G = [\d.]+ on \d+ df .*: the test scores fit", out, re.M
    )
    code, out, err = run(capsys, "estimate", str(path), "--method", "exact", "--json")
    assert code == EXIT_OK, err
    block = json.loads(out)["thresholds"]["mixture_check"]
    assert block["passed"] is True
    assert block["df"] == len(block["edges"]) - 1
