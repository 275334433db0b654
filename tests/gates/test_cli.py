"""The ``bayesjudge gate`` subcommand: JSON schema, report, loop logs and error paths."""

from __future__ import annotations

import html
import json

import pandas as pd
import pytest
import xarray as xr

from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_DIAGNOSTICS, EXIT_OK
from bayesjudge.gates.simulate import TABLE4, rejudgment_gate, revise_loop, table4_gate
from bayesjudge.reporting.output import MANIFEST_NAME

S_KEYS = {"mean", "sd", "low", "high", "prob"}


def _run(argv: list[str]) -> int:
    """Run ``bayesjudge gate ...`` through the command line's entry point."""
    return main(argv)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gate")
    gate = rejudgment_gate(
        *table4_gate(*TABLE4["TruthfulQA / Gemini-Flash"][:2]),
        pi=0.5,
        n_items=800,
        rulings=6,
        labelled_fraction=0.25,
        random_seed=31,
    )
    rulings = folder / "rulings.csv"
    gate.table.to_csv(rulings, index=False)
    loop = folder / "loop.csv"
    revise_loop(400, a=0.4, s=0.9, leak=0.45, cap=5, random_seed=32).to_csv(loop, index=False)
    return folder, rulings, loop


@pytest.fixture(scope="module")
def json_run(files):
    import contextlib
    import io

    folder, rulings, _ = files
    out = folder / "report"
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = _run(
            [
                "gate",
                str(rulings),
                "--k",
                "1",
                "2",
                "5",
                "--random-seed",
                "7",
                "--json",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
    return code, json.loads(stdout.getvalue()), out


def test_json_schema_is_exactly_as_specified(json_run):
    code, payload, _ = json_run
    assert code == EXIT_OK
    assert set(payload) == {
        "posterior",
        "diagnostics",
        "estimates",
        "independence_check",
        "calibration",
        "input",
        "provenance",
    }
    post = payload["posterior"]
    assert set(post) == {"pi", "j_inf", "j", "se", "sp", "judged_rate"}
    assert set(post["pi"]) == S_KEYS
    assert set(post["j_inf"]) == S_KEYS
    for name in ("j", "se", "sp", "judged_rate"):
        assert set(post[name]) == {"1", "2", "5"}
        for summary in post[name].values():
            assert set(summary) == S_KEYS
            assert summary["low"] <= summary["mean"] <= summary["high"]
            assert summary["prob"] == 0.95
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
    assert payload["calibration"]["design"] == "by_class"
    assert payload["provenance"]["seed"] == 7
    assert "numpy" in payload["provenance"]["versions"]
    rows = payload["estimates"]
    assert all(
        set(row) == {"cap", "method", "estimate", "low", "high", "prob", "note"} for row in rows
    )
    assert sorted({row["cap"] for row in rows}) == [1, 2, 5]
    assert {row["method"] for row in rows} == {
        "naive",
        "rogan_gladen_delta",
        "ppi",
        "ppi_plus_plus",
    }
    assert set(payload["independence_check"]) == {
        "observed",
        "expected",
        "difference",
        "p_value",
        "n_pairs",
        "n_items",
        "flippy",
        "consistent",
    }
    # J(K) of the posterior falls with K on this pass-prone gate
    assert post["j"]["5"]["mean"] < post["j"]["1"]["mean"]


def test_report_folder(json_run):
    _, payload, out = json_run
    names = {p.name for p in out.iterdir()}
    assert names == {
        MANIFEST_NAME,
        "report.html",
        "summary.md",
        "posterior.nc",
        "estimates.csv",
        "curve.csv",
        "diagnostics.csv",
        "analysis.json",
    }
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 5  # J(K), Se/Sp/R, pi, ranks, traces
    assert "Diagnostics: passed" in (out / "summary.md").read_text()
    tree = xr.open_datatree(out / "posterior.nc")
    assert float(tree["posterior"]["pi"].mean()) == pytest.approx(
        payload["posterior"]["pi"]["mean"]
    )
    curve = pd.read_csv(out / "curve.csv")
    assert curve["cap"].tolist() == [1, 2, 3, 4, 5]


def test_report_reads_as_prose_and_tells_what_retries_do(json_run, readable_report):
    _, payload, out = json_run
    readable_report(out)
    post = payload["posterior"]
    # the judged pass rates as observed (the naive rows), Se, Sp and J from the fit
    rate = {e["cap"]: e["estimate"] for e in payload["estimates"] if e["method"] == "naive"}
    sp, se, j = post["sp"], post["se"], post["j"]
    story = (
        f"Retries raise the judged pass rate from {100 * rate[1]:.1f}% at cap 1 to "
        f"{100 * rate[5]:.1f}% at cap 5, while the specificity Sp falls from "
        f"{sp['1']['mean']:.2f} to {sp['5']['mean']:.2f} and the sensitivity Se rises from "
        f"{se['1']['mean']:.2f} to {se['5']['mean']:.2f}: each retry ships more truly failing "
        f"items, so the judged rate says less about the true one (J falls from "
        f"{j['1']['mean']:.2f} to {j['5']['mean']:.2f})."
    )
    assert story in (out / "summary.md").read_text()
    assert html.escape(story) in (out / "report.html").read_text()


@pytest.fixture(scope="module")
def replaced_report(files, tmp_path_factory):
    """A tiny plain-text run on the rulings with ``--out``, then one on a hostile copy of them.

    The second run (``--json``) writes into the same folder, replacing the first's report; the
    first run's printed text is kept for the test of the plain output.
    """
    import contextlib
    import io

    _, rulings, _ = files
    folder = tmp_path_factory.mktemp("replaced")
    hostile = folder / "a|b <i>x.csv"
    hostile.write_bytes(rulings.read_bytes())
    out = folder / "report"
    tiny = ["--draws", "50", "--tune", "50", "--chains", "2", "--no-progress"]
    codes, printed = [], []
    for source, mode in ((rulings, []), (hostile, ["--json"])):
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            codes.append(_run(["gate", str(source), "--out", str(out), *tiny, *mode]))
        printed.append(stdout.getvalue())
    return folder, hostile, out, codes, printed


def test_report_escapes_the_file_name_and_replaces_its_report(replaced_report):
    folder, hostile, out, codes, _ = replaced_report
    # the second run replaces the first's report
    assert all(code in (EXIT_OK, EXIT_DIAGNOSTICS) for code in codes)
    summary = (out / "summary.md").read_text()
    assert "<i>" not in summary  # neither in the title nor in the recorded command
    assert summary.count(r"a\|b &lt;i&gt;x.csv") == 2
    assert sorted(p.name for p in folder.iterdir()) == sorted([hostile.name, "report"])


def test_text_output_ends_with_the_answer_and_the_page_to_open(replaced_report):
    _, _, out, codes, printed = replaced_report
    code, printed = codes[0], printed[0]  # the plain-text run on the rulings
    assert code in (EXIT_OK, EXIT_DIAGNOSTICS)
    assert "\nAnswer\n  true success rate pi: " in printed
    assert printed.splitlines()[-1] == f"report written to {out}: open {out / 'report.html'}"


def test_loop_only_json(files, capsys):
    _, _, loop = files
    code = _run(["gate", "--loop", str(loop), "--k", "1", "5", "--json", "--random-seed", "1"])
    assert code == EXIT_OK
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == {"loop"}
    assert set(payload["loop"]["slip_law"]) == {"a", "s", "leak", "rho"}
    rows = payload["loop"]["caps"]
    assert [row["cap"] for row in rows] == [1, 5]
    assert rows[1]["reported"] >= rows[0]["reported"]
    assert rows[1]["slip"] == pytest.approx(rows[1]["slip_predicted"], abs=0.1)


def test_loop_text_output(files, capsys):
    _, _, loop = files
    assert _run(["gate", "--loop", str(loop)]) == EXIT_OK
    assert "slip" in capsys.readouterr().out


def test_error_paths(files, tmp_path, capsys):
    _folder, rulings, _ = files
    assert _run(["gate"]) == EXIT_BAD_INPUT
    assert "gate needs RULINGS, --loop LOGS, or both" in capsys.readouterr().err
    assert _run(["gate", str(tmp_path / "missing.csv")]) == EXIT_BAD_INPUT
    assert "no such file" in capsys.readouterr().err
    bad = pd.read_csv(rulings)
    bad["verdict"] = bad["verdict"].astype(object)
    bad.loc[3, "verdict"] = "maybe"
    bad.to_csv(tmp_path / "bad.csv", index=False)
    assert _run(["gate", str(tmp_path / "bad.csv")]) == EXIT_BAD_INPUT
    assert "column 'verdict'" in capsys.readouterr().err
    one_class = pd.read_csv(rulings)
    one_class.loc[one_class["label"] == 0, "label"] = None
    one_class.to_csv(tmp_path / "one.csv", index=False)
    assert _run(["gate", str(tmp_path / "one.csv")]) == EXIT_BAD_INPUT
    assert "both classes" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        _run(["gate", str(rulings), "--k", "0"])
    assert exc.value.code == EXIT_BAD_INPUT
    assert "must be a whole number from 1 to 1,000,000,000" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        _run(["gate", str(rulings), "--k", "1", "10000000000"])
    assert exc.value.code == EXIT_BAD_INPUT
    assert "argument --k: must be a whole number from 1 to 1,000,000,000; got '10000000000'" in (
        capsys.readouterr().err
    )
    # more caps than the bound: refused before any work, not after exhausting memory
    assert _run(["gate", str(rulings), "--k", *map(str, range(1, 1003))]) == EXIT_BAD_INPUT
    assert "at most 1000 caps at once" in capsys.readouterr().err


def test_failing_diagnostics_exit_3(files, capsys):
    _, rulings, _ = files
    argv = ["gate", str(rulings), "--json", "--no-progress", "--random-seed", "1"]
    code = _run([*argv, "--draws", "5", "--tune", "5", "--chains", "2"])
    out, err = capsys.readouterr()
    assert code == EXIT_DIAGNOSTICS
    assert json.loads(out)["diagnostics"]["passed"] is False
    assert "FAILED its diagnostics" in err
