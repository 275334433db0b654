"""``bayesjudge rank --epoch``: a real small fit through the command line and the Python API.

One seeded simulation (2 systems, 40 items, 4 answers each, a large item effect) is fitted once
with few draws. Checked: the JSON answer states the design; the truth lies in the
posterior intervals; the judge-uncorrected difference clustered by item is reported beside the
one that reads the answers as independent (which is wider depends on the design:
tests/systems/test_repeated_data.py); bad input exits 2 with a message naming the option.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bayesjudge.cli.app import main
from bayesjudge.systems.repeated import simulate_repeated_systems

SIM = simulate_repeated_systems(
    40, 4, [-0.2, 0.9], item_sd=2.0, cell_sd=0.3, se=0.92, sp=0.9, gold_answers=120, random_seed=3
)
FAST = ["--draws", "400", "--tune", "400", "--chains", "2", "--random-seed", "1", "--no-progress"]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rrank") / "answers.csv"
    frame = SIM.frame.rename(columns={"epoch": "attempt"})
    frame["label"] = frame["label"].map({1.0: "pass", 0.0: "fail"})
    frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def answer(table: Path) -> dict:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(
            ["rank", str(table), "--epoch", "attempt", "--judge", "shared", "--json", *FAST]
        )
    assert code == 0, out.getvalue()
    return json.loads(out.getvalue())


def test_json_states_the_design_and_covers_the_truth(answer: dict) -> None:
    assert answer["design"] == "40 items, 4 answers each"
    assert answer["answers"] == 320
    assert answer["input"]["columns"]["epoch"] == "attempt"
    assert answer["diagnostics"]["passed"]
    for name, truth in SIM.pi.items():
        pi = answer["systems"][name]["pi"]
        assert pi["low"] < truth < pi["high"], name
    (diff,) = answer["differences"]
    truth = SIM.pi["s1"] - SIM.pi["s0"]
    assert diff["diff"]["low"] < truth < diff["diff"]["high"]
    assert answer["systems"]["s1"]["p_best"] > 0.9
    rows = {row["method"]: row for row in answer["estimates"]}
    clustered = rows["naive_diff_clustered"]
    independent = rows["naive_diff_rows_independent"]
    assert clustered["estimate"] == pytest.approx(independent["estimate"])
    assert clustered["note"].startswith("clustered by item (40 items, 200 answers)")
    assert clustered["high"] - clustered["low"] != pytest.approx(
        independent["high"] - independent["low"], rel=1e-3
    )


def test_bad_input_exits_2(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rank", str(table), "--judge", "shared", *FAST]) == 2
    assert "--epoch COL" in capsys.readouterr().err
    assert main(["rank", str(table), "--epoch", "nope", *FAST]) == 2
    assert "nope" in capsys.readouterr().err
    assert main(["rank", str(table), "--map", "epoch=attempt", "--cluster", "x", *FAST]) == 2
    assert "--cluster" in capsys.readouterr().err


def test_terminal_answer_states_the_design(
    table: Path, answer: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    # after the JSON fixture: the model is compiled, so this refit only samples
    capsys.readouterr()
    assert main(["rank", str(table), "--epoch", "attempt", "--judge", "shared", *FAST]) == 0
    out = capsys.readouterr().out
    assert "2 systems, 40 items, 4 answers each, 320 answers, 120 gold-labelled" in out
    assert "s1 - s0: naive_diff_clustered" in out
    assert "most likely best: s1" in out
