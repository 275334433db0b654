"""The ``bayesjudge channel`` subcommand: JSON schema, report, exit codes, errors."""

from __future__ import annotations

import argparse
import json

import pytest

from bayesjudge.channels.cli import parse_mixture, register
from bayesjudge.channels.simulate import simulate_slices, simulate_stack
from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_DIAGNOSTICS, EXIT_OK
from bayesjudge.cli.common import Parser as _Parser

S_KEYS = {"mean", "sd", "low", "high", "prob"}
STEP_KEYS = {
    "from", "to", "n", "p0", "p1", "c_jeffreys", "gamma_jeffreys", "c", "gamma", "gain",
    "gate_on",
}  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="bayesjudge")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    register(commands)
    return parser


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(["channel", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _assert_s(value: dict, prob: float) -> None:
    assert set(value) == S_KEYS
    assert value["prob"] == prob
    assert value["low"] <= value["mean"] <= value["high"]
    assert value["sd"] > 0


@pytest.fixture(scope="module")
def stack_csv(tmp_path_factory):
    table = simulate_stack(600, p0=0.5, c=[0.3, 0.25], gamma=[0.1, 0.05], random_seed=3)
    path = tmp_path_factory.mktemp("channel") / "stack.csv"
    table.to_csv(path, index=False)
    return str(path)


@pytest.fixture(scope="module")
def slices_csv(tmp_path_factory):
    table = simulate_slices([300, 300, 300, 300, 60], random_seed=4)
    path = tmp_path_factory.mktemp("channel") / "slices.csv"
    table.to_csv(path, index=False)
    return str(path)


def test_json_schema_of_a_stack(stack_csv, capsys):
    code, out, _ = _run([stack_csv, "--json", "--random-seed", "1", "--prob", "0.9"], capsys)
    assert code == EXIT_OK
    payload = json.loads(out)
    assert set(payload) == {
        "steps",
        "composition",
        "by_slice",
        "mixture_prediction",
        "diagnostics",
        "input",
    }
    assert payload["input"]["items"] == payload["steps"][0]["n"]
    assert [(s["from"], s["to"]) for s in payload["steps"]] == [("e0", "e1"), ("e1", "e2")]
    for step in payload["steps"]:
        assert set(step) == STEP_KEYS
        assert isinstance(step["n"], int)
        assert step["n"] == 600
        assert isinstance(step["gate_on"], bool)
        for key in ("p0", "p1", "c_jeffreys", "gamma_jeffreys"):
            assert isinstance(step[key], float)
        for key in ("c", "gamma", "gain"):
            _assert_s(step[key], 0.9)
        # the exact posterior mean of c is the Jeffreys estimate
        assert step["c"]["mean"] == pytest.approx(step["c_jeffreys"], rel=1e-12)
    comp = payload["composition"]
    assert set(comp) == {"gap_max", "gap_mean", "markov_check"}
    _assert_s(comp["gap_max"], 0.9)
    _assert_s(comp["gap_mean"], 0.9)
    assert set(comp["markov_check"]) == {"tail_probability", "verdict"}
    assert comp["markov_check"]["verdict"] in {"consistent_with_markov", "not_markov"}
    assert payload["by_slice"] is None
    assert payload["mixture_prediction"] is None
    assert payload["diagnostics"]["passed"] is True
    # reproducible from the seed
    _, again, _ = _run([stack_csv, "--json", "--random-seed", "1", "--prob", "0.9"], capsys)
    assert again == out


def test_one_step_has_no_composition(tmp_path, capsys):
    path = tmp_path / "one.csv"
    simulate_stack(100, p0=0.5, c=[0.3], gamma=[0.1], random_seed=0).to_csv(path, index=False)
    code, out, _ = _run([str(path), "--json", "--random-seed", "0"], capsys)
    assert code == EXIT_OK
    assert json.loads(out)["composition"] is None


def test_table_output_and_report(stack_csv, tmp_path, capsys):
    out_dir = tmp_path / "report"
    code, out, _ = _run([stack_csv, "--random-seed", "2", "--out", str(out_dir)], capsys)
    assert code == EXIT_OK
    assert "e0->e1" in out
    assert "Markov check" in out
    # the same ending as every family's command: the answer, then the page to open
    assert "\nAnswer\n  gain of step e0->e1: " in out
    assert out.splitlines()[-1] == f"report written to {out_dir}: open {out_dir / 'report.html'}"
    for name in ("report.html", "summary.md", "steps.csv", "analysis.json", "posterior.nc"):
        assert (out_dir / name).is_file()
    page = (out_dir / "report.html").read_text()
    assert "data:image/png;base64," in page
    assert "Composition audit" in page
    assert "Composition audit" in (out_dir / "summary.md").read_text()


def test_by_slice_and_mixture_json(slices_csv, capsys):
    # short chains: the schema is the point here, so the diagnostics may fail (exit code 3)
    argv = [slices_csv, "--json", "--by-slice", "--mixture", "5=3", "4=1", "--random-seed", "5"]
    code, out, err = _run([*argv, "--draws", "300", "--tune", "300", "--chains", "2"], capsys)
    payload = json.loads(out)
    assert code in (EXIT_OK, EXIT_DIAGNOSTICS)
    assert (code == EXIT_DIAGNOSTICS) == (not payload["diagnostics"]["passed"])
    if code == EXIT_DIAGNOSTICS:
        assert "FAILED its diagnostics" in err
    rows = payload["by_slice"]
    assert [r["slice"] for r in rows] == ["1", "2", "3", "4", "5"]
    assert [r["n"] for r in rows] == [300, 300, 300, 300, 60]
    for row in rows:
        for key in ("c", "gamma", "gain"):
            assert set(row[key]) == S_KEYS
    mix = payload["mixture_prediction"]
    assert mix["weights"] == {"1": 0.0, "2": 0.0, "3": 0.0, "4": 0.25, "5": 0.75}
    assert set(mix) == {"weights", "p0", "pooled", "sliced", "hierarchical"}
    assert set(mix["hierarchical"]) == S_KEYS
    assert payload["diagnostics"]["method"].startswith("nuts")


def test_error_paths(stack_csv, tmp_path, capsys):
    code, _, err = _run([stack_csv, "--by-slice"], capsys)
    assert code == EXIT_BAD_INPUT
    assert "need a 'slice' column" in err
    code, _, err = _run([str(tmp_path / "missing.csv")], capsys)
    assert code == EXIT_BAD_INPUT
    assert "no such file" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("item,e0,e1\na,0,1\nb,2,1\n")
    code, _, err = _run([str(bad)], capsys)
    assert code == EXIT_BAD_INPUT
    assert "column 'e0'" in err
    with pytest.raises(SystemExit) as info:
        _parser().parse_args(["channel", stack_csv, "--mixture", "5"])
    assert info.value.code == 2
    assert "SLICE=WEIGHT" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _parser().parse_args(["channel", stack_csv, "--mixture", "a=-1"])
    with pytest.raises(argparse.ArgumentTypeError, match="more than once"):
        parse_mixture([("a", 1.0), ("a", 2.0)])
    with pytest.raises(argparse.ArgumentTypeError, match="not all be zero"):
        parse_mixture([("a", 0.0)])


def test_unknown_mixture_slice(slices_csv, capsys):
    code, _, err = _run([slices_csv, "--mixture", "9=1"], capsys)
    assert code == EXIT_BAD_INPUT
    assert "unknown slices" in err
