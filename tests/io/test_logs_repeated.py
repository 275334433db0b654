"""Repeated answers in long form from logs written by the tools themselves.

An Inspect AI log written by inspect_ai with ``epochs=5`` (offline, its mockllm provider), the
promptfoo file of make_promptfoo.sh (``--repeat 2``) and two lm-eval runs in one samples file,
read into (item, epoch, verdict, cluster) rows with the right counts. The Inspect log also
records inspect_ai's own standard errors, which the clustered naive rate must reproduce.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from bayesjudge.errors import DataError
from bayesjudge.io.logs import answers, inspect_metadata, read_eval_log
from bayesjudge.io.logs._evallog import EvalLog, Ruling
from bayesjudge.repeated.baselines import naive_clustered, repeated_baselines

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"

EPOCHS = 5
IDS = [f"s{i}" for i in range(8)]
TASK = {f"s{i}": f"task{i % 3}" for i in range(8)}  # three clusters of 3, 3 and 2 samples


def _grade(index: int, epoch: int) -> str:
    """Sample i passes its first i % 6 epochs: s0 never, s5 always, the rest in between."""
    return "C" if epoch <= index % 6 else "I"


@pytest.fixture(scope="module")
def inspect_epochs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Run an 8-sample task with epochs=5 through inspect_ai itself (offline)."""
    pytest.importorskip("inspect_ai")
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import Score, Target, accuracy, scorer, stderr
    from inspect_ai.solver import TaskState

    def value(state: TaskState) -> str:
        return _grade(IDS.index(str(state.sample_id)), state.epoch)

    @scorer(metrics=[accuracy(), stderr()])
    def grade():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=value(state))

        return score

    @scorer(metrics=[stderr(cluster="task")])
    def grade_by_task():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=value(state))

        return score

    def canned(*_: object) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm/model", content="an answer")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    folder = tmp_path_factory.mktemp("inspect_epochs")
    task = Task(
        dataset=MemoryDataset(
            [
                Sample(id=i, input=f"question {i}", target="x", metadata={"task": TASK[i]})
                for i in IDS
            ]
        ),
        scorer=[grade(), grade_by_task()],
        epochs=EPOCHS,
    )
    with pytest.MonkeyPatch.context() as patch:  # Inspect's traces and caches go here, not ~
        patch.setenv("XDG_DATA_HOME", str(folder / "data"))
        patch.setenv("XDG_CACHE_HOME", str(folder / "cache"))
        [log] = inspect_eval(
            task,
            model=get_model("mockllm/model", custom_outputs=canned),
            log_dir=str(folder / "logs"),
            log_format="eval",
            display="none",
        )
    return Path(log.location)


def _inspect_metric(path: Path, scorer: str, metric: str) -> float:
    from inspect_ai.log import read_eval_log as inspect_read

    log = inspect_read(str(path), header_only=True)
    [entry] = [s for s in log.results.scores if s.name == scorer]
    return float(entry.metrics[metric].value)


def test_inspect_epochs_read_into_answers(inspect_epochs: Path) -> None:
    log = read_eval_log(inspect_epochs, judge="grade")
    clusters = inspect_metadata(inspect_epochs, "task")
    assert clusters == TASK
    table = answers(log, clusters=clusters)
    assert len(table) == len(IDS) * EPOCHS == 40
    assert list(table.columns) == ["item", "epoch", "verdict", "cluster"]
    assert table.groupby("item")["epoch"].apply(list).to_dict() == {i: [1, 2, 3, 4, 5] for i in IDS}
    for row in table.itertuples():
        assert row.verdict == float(_grade(IDS.index(row.item), row.epoch) == "C")
        assert row.cluster == TASK[row.item]
    assert table.groupby("cluster").size().to_dict() == {"task0": 15, "task1": 15, "task2": 10}


def test_clustered_naive_reproduces_the_stderr_inspect_recorded(inspect_epochs: Path) -> None:
    """Inspect reduces the epochs to each sample's mean and then computes stderr over samples;
    with equal epochs the clustered rate over the 40 answers gives the same number: clustered
    by sample it is Inspect's stderr(), clustered by task its stderr(cluster="task") (1e-12)."""
    table = answers(read_eval_log(inspect_epochs, judge="grade"), clusters=TASK)
    by_item = naive_clustered(table["verdict"], table["item"])
    by_task = naive_clustered(table["verdict"], table["item"], table["cluster"])
    assert by_item.estimate == pytest.approx(
        _inspect_metric(inspect_epochs, "grade", "accuracy"), abs=1e-12
    )
    assert by_item.se == pytest.approx(
        _inspect_metric(inspect_epochs, "grade", "stderr"), abs=1e-12
    )
    assert by_task.se == pytest.approx(
        _inspect_metric(inspect_epochs, "grade_by_task", "stderr"), abs=1e-12
    )
    independent = naive_clustered(table["verdict"], np.arange(len(table)))
    assert independent.se < by_item.se  # the epochs of one sample agree more than chance


def test_inspect_metadata_errors_name_file_and_sample(inspect_epochs: Path) -> None:
    with pytest.raises(DataError, match=r"inspect_epochs.*metadata\['conversation'\].*sample 's0'"):
        inspect_metadata(inspect_epochs, "conversation")


def test_promptfoo_repeats_read_into_answers() -> None:
    """make_promptfoo.sh runs --repeat 2: every test is two answers of one item per provider;
    the `shell` provider errors on Madrid, which answers() refuses or drops on request."""
    config = yaml.safe_load((LOGS / "promptfoo" / "promptfooconfig.yaml").read_text())
    n_tests = len(config["tests"])
    log = read_eval_log(LOGS / "promptfoo" / "results.json", tool="promptfoo")
    echo = answers(log, system="echo")
    assert len(echo) == n_tests * 2
    assert echo.groupby("item")["epoch"].apply(list).map(tuple).unique().tolist() == [(1, 2)]
    with pytest.raises(DataError, match=r"results\.json: 2 ruling\(s\) have no pass/fail verdict"):
        answers(log, system="shell")
    shell = answers(log, system="shell", unscored="drop")
    assert len(shell) == (n_tests - 1) * 2
    assert '{"answer": "Madrid"}' not in set(shell["item"])


def test_lm_eval_runs_in_one_file_are_epochs(tmp_path: Path) -> None:
    """lm-eval scores each document once per filter; two runs written into one samples file
    give each document two answers (epochs 1 and 2)."""
    [gen] = sorted((LOGS / "lm_eval").glob("out/*/samples_bj_gen_*.jsonl"))
    target = tmp_path / gen.name
    text = gen.read_text()
    target.write_text(text + text)
    for results in gen.parent.glob("results_*.json"):
        shutil.copy(results, tmp_path / results.name)
    log = read_eval_log(target, filter="first")
    docs = len([line for line in text.splitlines() if json.loads(line)["filter"] == "first"])
    table = answers(log)
    assert len(table) == 2 * docs
    assert sorted(table["epoch"].unique()) == [1, 2]
    assert (table.groupby("item").size() == 2).all()


# --------------------------------------------------------------------------- contract errors
def _log(rulings_: list[Any]) -> EvalLog:
    return EvalLog.from_rulings(rulings_, path="run.eval", tool="inspect")


def test_answers_errors() -> None:
    log = _log(
        [
            Ruling("a", 1, "m", "j", 1.0, 1.0, "C", "ok"),
            Ruling("a", 2, "m", "j", math.nan, math.nan, "", "unscored"),
            Ruling("b", 1, "m", "j", 0.0, 0.0, "I", "ok"),
        ]
    )
    with pytest.raises(DataError, match=r"run\.eval: 1 ruling\(s\).*item 'a' epoch 2 \(unscored\)"):
        answers(log)
    with pytest.raises(DataError, match=r"run\.eval: clusters has no entry for 1 item\(s\): 'b'"):
        answers(log, clusters={"a": "x"}, unscored="drop")
    with pytest.raises(ValueError, match="unscored must be one of"):
        answers(log, unscored="keep")  # type: ignore[arg-type]
    scores = _log([Ruling("a", 1, "m", "j", math.nan, 0.3, "0.3", "ok")])
    with pytest.raises(DataError, match="scores only"):
        answers(scores)


def test_answers_feed_the_repeated_baselines() -> None:
    """The long form goes straight into the estimators (gold joined by item and epoch)."""
    log = _log(
        [
            Ruling(item, epoch, "m", "j", float((i + epoch) % 3 != 0), 0.0, "", "ok")
            for i, item in enumerate("abcdef")
            for epoch in (1, 2, 3)
        ]
    )
    table = answers(log)
    gold = np.where(table["item"].isin(["a", "b", "c"]), table["verdict"], np.nan)
    gold[:2] = 1 - gold[:2]  # the judge is wrong on two labelled answers
    rows = repeated_baselines(table["verdict"], gold, table["item"], n_boot=50, random_seed=0)
    assert rows[0].notes[0] == "clustered by item (6 items, 18 answers)"
