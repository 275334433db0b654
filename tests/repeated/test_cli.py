"""The ``bayesjudge repeated`` command: exit codes, JSON keys, the report folder.

The two fits share one compiled model (40 items, no clusters, the same options).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_DIAGNOSTICS, EXIT_OK
from bayesjudge.repeated import simulate_repeated
from bayesjudge.repeated.baselines import REPEATED_BASELINE_METHODS

TINY = ["--draws", "500", "--tune", "500", "--no-progress", "--random-seed", "3"]
S_KEYS = {"mean", "sd", "low", "high", "prob"}


def _answers(tmp_path) -> str:
    sim = simulate_repeated(40, 4, sigma=1.5, gold_answers=60, random_seed=8)
    frame = sim.frame.drop(columns="truth").rename(
        columns={"item": "question", "epoch": "attempt", "label": "human"}
    )
    frame["verdict"] = frame["verdict"].map({1.0: "PASS", 0.0: "FAIL"})
    path = tmp_path / "answers.csv"
    frame.to_csv(path, index=False)
    return str(path)


def test_json_keys_report_and_exit_0(tmp_path, capsys, readable_report) -> None:
    path = _answers(tmp_path)
    argv = ["repeated", path, "--item", "question", "--epoch", "attempt", "--gold", "human"]
    out = tmp_path / "report"
    code = main([*argv, "--pass-at", "1", "3", "--json", "--out", str(out), *TINY])
    payload = json.loads(capsys.readouterr().out)
    assert code == (EXIT_OK if payload["passed"] else EXIT_DIAGNOSTICS)
    assert payload["passed"], payload["diagnostics"]
    assert payload["estimand"] == "mean success rate over 40 items, 4 answers each"
    for key in ("population_rate", "mean_rate", "se", "sp", "sigma"):
        assert set(payload[key]) == S_KEYS
    assert set(payload["pass_at_k"]) == {"1", "3"} == set(payload["pass_all_k"])
    assert set(payload["bands"]) == {"never", "sometimes", "always"}
    assert payload["data"]["items"] == 40
    assert payload["data"]["answers"] == 160
    assert payload["input"]["columns"]["item"] == "question"
    methods = [b["method"] for b in payload["baselines"]]
    clustered = [m for m in methods if not m.startswith("rows_as_independent:")]
    assert clustered == list(REPEATED_BASELINE_METHODS)
    assert "rows_as_independent:rogan_gladen_delta" in methods
    assert payload["widening"] > 0
    assert (out / "report.html").is_file()
    assert (out / "posterior.csv").is_file()
    assert "mean success rate over 40 items, 4 answers each" in (out / "summary.md").read_text()
    readable_report(out)


@pytest.mark.parametrize(
    ("rows", "options", "message"),
    [
        ("item,verdict,task\na,1,x\na,0,y\n", ["--cluster", "task"], "line 3"),
        ("item,verdict\na,1\na,maybe\n", [], "'verdict'"),
        ("item,verdict,epoch\na,1,1\na,0,1\n", [], "line 3 repeats"),
        ("item,verdict\na,1\n", ["--pass-at", "0"], "--pass-at"),
    ],
    ids=["cluster-varies", "bad-verdict", "repeated-epoch", "bad-k"],
)
def test_bad_input_exits_2_naming_the_problem(tmp_path, capsys, rows, options, message) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(rows)
    assert main(["repeated", str(path), *options, *TINY]) == EXIT_BAD_INPUT
    assert message in capsys.readouterr().err


def test_items_the_model_cannot_reproduce_exit_3(tmp_path, capsys) -> None:
    """Every item passed on exactly 4 of its 8 unlabelled answers: the histogram check fails."""
    items = np.repeat([f"q{i:02d}" for i in range(40)], 10)
    verdict = np.tile([1, 0, 1, 1, 1, 1, 0, 0, 0, 0], 40)
    label = np.tile([1, 0] + [None] * 8, 40)
    path = tmp_path / "flat.csv"
    pd.DataFrame({"item": items, "verdict": verdict, "label": label}).to_csv(path, index=False)
    assert main(["repeated", str(path), "--pass-at", "1", "3", *TINY]) == EXIT_DIAGNOSTICS
    assert "pass_histogram" in capsys.readouterr().err
