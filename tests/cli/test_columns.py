"""Data read as the user meant it (issue 26): groups never pooled silently, id and label columns
recognised by their names, and every hint followed to see it get further.

The files are the issue's, written by the tests: two models' answers to the same questions in one
table, a wide panel with a ``human_label`` column, systems data keyed by ``id``, and a labels
file keyed by ``id`` for an eval log (tests/data/logs).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_OK
from bayesjudge.errors import DataError
from bayesjudge.io import judge_counts, read_labels
from bayesjudge.io.groups import GroupCheck, GroupTally, is_group_name, item_column
from bayesjudge.io.mapping import Spellings
from bayesjudge.panels import load_panel
from bayesjudge.prevalence.data import JudgeData
from bayesjudge.systems.data import SystemsData

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
MAPS = ["--map", "verdict=judge_verdict", "--map", "label=human_label"]


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def two_models(path: Path, *, group: str = "model", items: int = 60) -> Path:
    """Two models' answers to the same questions: ``id,<group>,judge_verdict,human_label``."""
    rng = np.random.default_rng(26)
    rows = []
    for model in ("gpt-large", "gpt-small"):
        for i in range(items):
            gold = int(rng.random() < 0.6)
            verdict = gold if rng.random() < 0.85 else 1 - gold
            label = ("PASS" if gold else "FAIL") if i < items // 2 else ""
            rows.append((f"q{i}", model, "PASS" if verdict else "FAIL", label))
    frame = pd.DataFrame(rows, columns=["id", group, "judge_verdict", "human_label"])
    frame.to_csv(path, index=False)
    return path


# --------------------------------------------------------------------------- groups
@pytest.mark.parametrize(
    "command",
    [
        ["estimate", "--method", "exact"],
        ["estimate", "--method", "exact", "--epochs", "first"],  # read in memory, not streamed
        ["plan", "--target-width", "0.1"],
        ["baselines"],
        ["report", "--out", "{tmp}/report"],
    ],
    ids=["estimate", "estimate-in-memory", "plan", "baselines", "report"],
)
@pytest.mark.parametrize("item", [["--map", "item=id"], []], ids=["item-mapped", "item-by-name"])
def test_two_models_in_one_table_are_refused_with_the_fix(
    command: list[str], item: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = two_models(tmp_path / "evals.csv")
    options = [c.format(tmp=tmp_path) for c in command[1:]]
    code, out, err = run(capsys, command[0], data, *MAPS, *item, *options)
    assert code == EXIT_BAD_INPUT, out
    assert "Traceback" not in err
    (line,) = [x for x in err.splitlines() if "error:" in x]  # one line
    assert (
        "column 'model' holds 2 groups ('gpt-large', 'gpt-small') and each id appears once in "
        "each: analyse each group with --by model, or compare the systems with bayesjudge rank "
        f"{data} --map system=model"
    ) in line
    assert "pool them on purpose with --map pool=model" in line


@pytest.mark.parametrize(
    "command", [["estimate", "--method", "exact", "--json"], ["baselines"]], ids=str
)
def test_pooling_on_purpose_as_the_refusal_says_gets_an_answer(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = two_models(tmp_path / "evals.csv")
    code, out, err = run(capsys, command[0], data, *MAPS, "--map", "pool=model", *command[1:])
    assert code == EXIT_OK, err
    assert "groups" not in err
    assert "each row counts as an item" in err  # the pooled rows' ids still repeat: warned
    if "--json" in command:
        assert json.loads(out)["counts"]["m1"] + json.loads(out)["counts"]["m0"] == 60


@pytest.mark.parametrize(
    "command", [["estimate", "--method", "exact", "--json"], ["baselines", "--json"]], ids=str
)
def test_following_the_by_suggestion_answers_each_group(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = two_models(tmp_path / "evals.csv")
    code, out, err = run(capsys, command[0], data, *MAPS, "--by", "model", *command[1:])
    assert code == EXIT_OK, err
    answer = json.loads(out)
    assert answer["by"] == "model"
    assert sorted(answer["groups"]) == ["gpt-large", "gpt-small"]
    assert all("error" not in group for group in answer["groups"].values())


def test_a_model_column_without_ids_is_refused_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = two_models(tmp_path / "evals.csv")
    frame = pd.read_csv(data, dtype=str, keep_default_na=False).drop(columns="id")
    frame.to_csv(data, index=False)
    code, _, err = run(capsys, "baselines", data, *MAPS)
    assert code == EXIT_BAD_INPUT
    assert "column 'model' holds 2 groups ('gpt-large', 'gpt-small'): analyse each group" in err
    assert f"bayesjudge rank {data} --map system=model" in err  # named as systems


def test_pooling_a_column_the_table_lacks_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = two_models(tmp_path / "evals.csv")
    code, _, err = run(capsys, "baselines", data, *MAPS, "--map", "pool=modle")
    assert code == EXIT_BAD_INPUT
    assert (
        "cannot map 'pool' to 'modle': the table has no such column; did you mean 'model'?" in err
    )


def test_following_the_rank_suggestion_reads_the_systems_paired_on_id(tmp_path: Path) -> None:
    data = two_models(tmp_path / "evals.csv")
    systems = SystemsData.read(
        data, columns={"system": "model", "verdict": "judge_verdict", "label": "human_label"}
    )
    assert systems.systems == ("gpt-large", "gpt-small")
    assert systems.paired
    assert systems.origin is not None
    assert systems.origin.columns["item"] == "id"
    assert "item=id" in systems.origin.lines()[0]  # the summary line says which column


def test_a_streamed_file_in_blocks_and_files_is_refused_like_one_in_memory(
    tmp_path: Path,
) -> None:
    data = two_models(tmp_path / "evals.csv", items=400)
    columns = {"verdict": "judge_verdict", "label": "human_label"}
    with pytest.raises(DataError, match=r"column 'model' holds 2 groups .* once in each"):
        judge_counts(data, columns=columns, block_size=1024)  # many blocks
    frame = pd.read_csv(data, dtype=str, keep_default_na=False)
    half = len(frame) // 2
    frame.iloc[:half].to_csv(tmp_path / "part-1.csv", index=False)  # one model per file
    frame.iloc[half:].to_csv(tmp_path / "part-2.csv", index=False)
    parts = [str(tmp_path / "part-1.csv"), str(tmp_path / "part-2.csv")]
    with pytest.raises(DataError, match=r"2 files: column 'model' holds 2 groups .* once in each"):
        judge_counts(parts, columns=columns)
    with pytest.raises(DataError, match=r"column 'model' holds 2 groups .* once in each"):
        JudgeData.from_frame(data, columns=columns)
    with pytest.warns(UserWarning, match="each row counts as an item"):
        pooled = judge_counts(data, columns={**columns, "pool": "model"}, block_size=1024)
    assert pooled.rows == 800


def test_a_column_named_otherwise_holding_each_id_once_per_value_is_a_group(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = two_models(tmp_path / "evals.csv", group="checkpoint")
    code, _, err = run(capsys, "baselines", data, *MAPS)
    assert code == EXIT_BAD_INPUT
    assert "column 'checkpoint' holds 2 groups" in err
    assert "--by checkpoint" in err


def test_epochs_of_one_item_are_warned_of_not_refused_as_groups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = two_models(tmp_path / "evals.csv", group="epoch")
    code, _, err = run(capsys, "baselines", data, *MAPS)
    assert code == EXIT_OK, err
    assert "groups" not in err
    assert "--epochs" in err  # the repeated-id warning, unchanged


def test_a_group_column_is_refused_by_a_command_without_by_naming_what_it_supports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [f"i{i},{task},1,0" for task in ("math", "code") for i in range(6)]
    data = tmp_path / "pipeline.csv"
    data.write_text("item,task,e0,e1\n" + "\n".join(rows) + "\n")
    code, _, err = run(capsys, "channel", data)
    assert code == EXIT_BAD_INPUT, err
    assert "column 'task' holds 2 groups ('code', 'math')" in err
    assert "keep one group's rows (filter the file on 'task')" in err
    assert "--by" not in err


def test_a_gate_file_of_two_models_is_refused_and_pooling_gets_further(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(5)
    lines = ["item,model,ruling,verdict,label"]
    for model in ("a", "b"):
        for i in range(30):
            for ruling in (1, 2):
                label = i % 2 if i < 20 else ""
                lines.append(f"q{i},{model},{ruling},{int(rng.random() < 0.6)},{label}")
    data = tmp_path / "rulings.csv"
    data.write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "gate", data, "--draws", "10", "--tune", "10", "--chains", "1")
    assert code == EXIT_BAD_INPUT
    assert "column 'model' holds 2 groups ('a', 'b')" in err
    assert "keep one group's rows (filter the file on 'model')" in err
    assert "--map pool=model" in err
    from bayesjudge.gates.data import Rulings

    with pytest.raises(DataError, match="model"):
        Rulings.from_frame(data)
    # pooled on purpose, the read goes on to the gate's own check of each item's rulings
    with pytest.raises(DataError, match=r"\['item', 'ruling'\] must identify each") as caught:
        Rulings.from_frame(data, columns={"pool": "model"})
    assert "groups" not in str(caught.value)


def test_group_names_and_id_names_are_recognised_as_a_person_would() -> None:
    assert all(map(is_group_name, ["Model", "model_name", "SYSTEM", "dataset", "Split", "run"]))
    assert not any(map(is_group_name, ["verdict", "score", "modelling", "question"]))
    assert item_column(["Sample-ID", "verdict"]) == "Sample-ID"
    assert item_column(["question_id", "id"]) == "question_id"
    assert item_column(["id", "verdict"], {"item": "uid"}) is None
    assert item_column(["uid", "verdict"]) is None


def test_a_tally_ignores_columns_with_too_many_values_to_be_groups() -> None:
    models = pd.Series([f"m{i}" for i in range(50)] * 2)
    tally = GroupTally(["model"], item=False)
    tally.add({"model": models})
    assert tally.refusal(source="x.csv", check=GroupCheck(), spellings=Spellings()) is None


# --------------------------------------------------------------------------- panels
def _panel(path: Path, *, extra: str = "") -> Path:
    rng = np.random.default_rng(7)
    lines = [f"id,judge_a,judge_b,judge_c,human_label{',' + extra if extra else ''}"]
    for i in range(40):
        gold = int(rng.random() < 0.5)
        votes = [gold if rng.random() < 0.8 else 1 - gold for _ in range(3)]
        label = str(gold) if i < 20 else ""
        lines.append(",".join([f"q{i}", *map(str, votes), label] + ([label] if extra else [])))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_wide_panel_reads_human_label_as_the_label_and_id_as_the_item(tmp_path: Path) -> None:
    data = load_panel(_panel(tmp_path / "panel.csv"))
    assert data.judges == ("judge_a", "judge_b", "judge_c")
    assert int(np.sum(~np.isnan(data.labels))) == 20
    assert data.origin is not None
    assert data.origin.columns["item"] == "id"
    assert data.origin.columns["label"] == "human_label"


def test_two_label_columns_in_a_wide_panel_are_refused_and_the_fix_gets_further(
    tmp_path: Path,
) -> None:
    path = _panel(tmp_path / "panel.csv", extra="gold")
    with pytest.raises(DataError, match=r"columns \['human_label', 'gold'\] are all named as gold"):
        load_panel(path)
    data = load_panel(
        path, columns={"label": "human_label"}, judges=["judge_a", "judge_b", "judge_c"]
    )
    assert data.judges == ("judge_a", "judge_b", "judge_c")


def test_a_label_column_with_labels_apart_is_refused_and_the_fix_gets_further(
    tmp_path: Path,
) -> None:
    path = _panel(tmp_path / "panel.csv")
    labels = tmp_path / "labels.csv"
    labels.write_text("id,label\nq0,1\nq1,0\n")
    with pytest.raises(DataError, match="'human_label' is named as a gold label, and labels"):
        load_panel(path, labels=labels)
    data = load_panel(path, labels=labels, judges=["judge_a", "judge_b", "judge_c"])
    assert data.judges == ("judge_a", "judge_b", "judge_c")


def test_an_id_column_read_as_a_judge_is_named_and_the_fix_gets_further(tmp_path: Path) -> None:
    path = _panel(tmp_path / "panel.csv")
    path.write_text(path.read_text().replace("id,", "uid,", 1))
    with pytest.raises(DataError, match=r"column 'uid' is read as a judge.*--map item=uid"):
        load_panel(path)
    data = load_panel(path, columns={"item": "uid"})
    assert data.judges == ("judge_a", "judge_b", "judge_c")


@pytest.mark.slow  # one short fit, ~25 s; load_panel is checked above without one
def test_the_panel_command_reads_the_issue_s_wide_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: "need gold-labelled items of both classes; 0 gold-PASS and 0 gold-FAIL items"
    path = _panel(tmp_path / "panel.csv")
    code, out, err = run(
        capsys, "panel", path, "--dependence", "none", "--draws", "50", "--tune", "50",
        "--chains", "1", "--json",
    )  # fmt: skip
    assert code in (EXIT_OK, 3), err  # 3: a 50-draw fit may fail its diagnostics
    payload = json.loads(out)
    assert sorted(payload["judges"]) == ["judge_a", "judge_b", "judge_c"]


# --------------------------------------------------------------------------- rank
def _systems(path: Path, id_name: str) -> Path:
    rng = np.random.default_rng(3)
    lines = [f"{id_name},system,verdict,label"]
    for system in ("a", "b"):
        for i in range(20):
            lines.append(f"q{i},{system},{int(rng.random() < 0.6)},{i % 2 if i < 10 else ''}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_rank_data_with_an_id_column_are_paired_on_it(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = SystemsData.read(_systems(tmp_path / "rank.csv", "id"))
    assert data.paired
    assert data.origin is not None
    assert data.origin.columns["item"] == "id"


def test_unpaired_rank_data_name_the_id_column_and_pairing_on_it_gets_further(
    tmp_path: Path,
) -> None:
    path = _systems(tmp_path / "rank.csv", "uid")
    with pytest.warns(UserWarning, match=r"unpaired: no item column.*--map item=uid"):
        data = SystemsData.read(path)
    assert not data.paired
    paired = SystemsData.read(path, columns={"item": "uid"})
    assert paired.paired


# --------------------------------------------------------------------------- labels files
def test_a_labels_file_keyed_by_id_joins_an_eval_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = LOGS / "promptfoo" / "results.json"
    labels = tmp_path / "labels.csv"
    labels.write_text("id,label\n007,correct\n7,incorrect\n")
    code, out, err = run(
        capsys, "estimate", log, "--labels", labels, "--system", "echo", "--epochs", "majority",
        "--method", "exact", "--json",
    )  # fmt: skip
    assert code == EXIT_OK, err
    assert json.loads(out)["input"]["join"]["labelled"] == 2


def test_a_labels_file_hint_names_labels_map_and_following_it_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = LOGS / "promptfoo" / "results.json"
    labels = tmp_path / "labels.csv"
    labels.write_text("uid,label\n007,correct\n7,incorrect\n")
    argv = ["estimate", log, "--labels", labels, "--system", "echo", "--epochs", "majority"]
    code, _, err = run(capsys, *argv, "--method", "exact")
    assert code == EXIT_BAD_INPUT
    assert "no 'item' column; did you mean 'uid'? use --labels-map item=uid" in err
    code, out, err = run(capsys, *argv, "--labels-map", "item=uid", "--method", "exact", "--json")
    assert code == EXIT_OK, err
    assert json.loads(out)["input"]["join"]["labelled"] == 2


def test_epochs_combine_the_rows_of_an_id_column_without_a_mapping(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "ids.csv"
    data.write_text("id,label,verdict\na,1,1\na,1,1\nb,0,0\nc,,1\nd,,0\n")
    code, out, err = run(capsys, "estimate", data, "--method", "exact", "--epochs", "any")
    assert code == EXIT_OK, err
    assert "2 labelled, 2 unlabelled items" in out
    assert "item=id" in out  # the summary line says which column was taken


def test_read_labels_takes_sample_id_as_the_item() -> None:
    import io

    labels = read_labels(io.BytesIO(b"Sample_ID,label\na,1\nb,0\n"))
    assert labels["item"].tolist() == ["a", "b"]
    assert labels.attrs["columns"]["item"] == "Sample_ID"
