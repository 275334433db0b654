"""Inspect AI logs written live by Inspect itself (mockllm, offline), read back by bayesjudge."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from bayesjudge.errors import DataError
from bayesjudge.io.logs import item_verdicts, read_eval_log, read_inspect_log, rulings

pytest.importorskip("inspect_ai")

# The grade the `grade` scorer gives each (sample id, epoch); None is Score.unscored().
# The sample "err" raises in the solver, so Inspect logs it with an error and no scores.
GRADES: dict[tuple[str, int], str | None] = {
    ("007", 1): "C",
    ("007", 2): "C",
    ("7", 1): "I",
    ("7", 2): "C",
    ("a", 1): "P",
    ("a", 2): "I",
    ("b", 1): "C",
    ("b", 2): None,
}
IDS = ["007", "7", "a", "b", "err"]
EPOCHS = 2
BINARY = {"007": 1, "7": 0, "a": 1, "b": 0}  # what the numeric 0/1 scorer `binary` returns


def _write_log(log_dir: Path) -> Path:
    """Run a tiny task through Inspect with its mockllm provider; return the .eval log."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import Score, Target, accuracy, mean, scorer
    from inspect_ai.solver import Generate, TaskState, solver

    @solver
    def fail_on_err():  # type: ignore[no-untyped-def]
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            if state.sample_id == "err":
                raise RuntimeError("solver crashed on purpose")
            return await generate(state)

        return solve

    @scorer(metrics=[accuracy()])
    def grade():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: Target) -> Score:
            value = GRADES[(str(state.sample_id), state.epoch)]
            return Score.unscored(reason="grader_failed") if value is None else Score(value=value)

        return score

    @scorer(metrics=[mean()])
    def length():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=0.25 * state.epoch)

        return score

    @scorer(metrics=[mean()])
    def binary():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=BINARY[str(state.sample_id)])

        return score

    def canned(*_: object) -> ModelOutput:
        # A usage given up front keeps mockllm from counting tokens (which downloads a tokenizer).
        output = ModelOutput.from_content(model="mockllm/model", content="an answer")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    task = Task(
        dataset=MemoryDataset([Sample(id=i, input=f"question {i}", target="x") for i in IDS]),
        solver=[fail_on_err()],
        scorer=[grade(), length(), binary()],
        epochs=EPOCHS,
    )
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=canned),
        log_dir=str(log_dir),
        log_format="eval",
        display="none",
        fail_on_error=False,
    )
    return Path(log.location)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same run as an .eval log (from eval) and a .json log (Inspect's write_eval_log)."""
    from inspect_ai.log import read_eval_log as inspect_read
    from inspect_ai.log import write_eval_log

    folder = tmp_path_factory.mktemp("inspect")
    with pytest.MonkeyPatch.context() as patch:  # Inspect's traces and caches go here, not ~
        patch.setenv("XDG_DATA_HOME", str(folder / "data"))
        patch.setenv("XDG_CACHE_HOME", str(folder / "cache"))
        eval_path = _write_log(folder / "logs")
    json_path = folder / "run.json"
    write_eval_log(inspect_read(str(eval_path)), str(json_path), format="json")
    return {"eval": eval_path, "json": json_path}


def _expected_verdict(grade: str | None, partial: str) -> float:
    if grade == "C":
        return 1.0
    if grade == "I":
        return 0.0
    if grade == "P":
        return {"pass": 1.0, "fail": 0.0}[partial]
    return math.nan


@pytest.mark.parametrize("fmt", ["eval", "json"])
@pytest.mark.parametrize("partial", ["fail", "pass"])
def test_inspect_grades_map_to_verdicts(logs: dict[str, Path], fmt: str, partial: str) -> None:
    log = read_eval_log(logs[fmt], judge="grade", partial=partial)  # type: ignore[arg-type]
    assert log.tool == "inspect"
    assert log.version == sys.modules["inspect_ai"].__version__
    assert set(log.items) == set(IDS)
    assert len(log.frame) == len(IDS) * EPOCHS
    assert log.systems == ("mockllm/model",)
    assert log.judges == ("grade",)
    statuses = {"ok": 0, "partial": 0, "unscored": 0, "error": EPOCHS}  # "err", every epoch
    for grade in GRADES.values():
        statuses[{"C": "ok", "I": "ok", "P": "partial", None: "unscored"}[grade]] += 1
    assert dict(log.counts) == statuses == {"ok": 6, "partial": 1, "unscored": 1, "error": 2}
    assert log.dropped == 0
    frame = log.frame.set_index(["item", "epoch"])
    for (item, epoch), grade in GRADES.items():
        got = frame.loc[(item, epoch)]
        expected = _expected_verdict(grade, partial)
        assert (math.isnan(got.verdict) and math.isnan(expected)) or got.verdict == expected
        assert got.raw == ("nan" if grade is None else grade)
    errored = frame.loc["err"]
    assert list(errored.status) == ["error", "error"]
    assert errored.verdict.isna().all()
    assert errored.raw.str.contains("solver crashed on purpose").all()


def test_inspect_keeps_007_and_7_apart(logs: dict[str, Path]) -> None:
    log = read_inspect_log(logs["eval"], scorer="grade", partial="fail")
    verdicts = item_verdicts(log, epochs="all").set_index("item")
    assert verdicts.loc["007", "verdict"] == 1.0  # C, C
    assert verdicts.loc["7", "verdict"] == 0.0  # I, C
    assert log.frame["item"].map(type).eq(str).all()


def test_inspect_partial_drop_counts_and_removes(logs: dict[str, Path]) -> None:
    log = read_inspect_log(logs["eval"], scorer="grade", partial="drop")
    assert log.dropped == 1
    assert log.counts["partial"] == 1
    assert len(log.frame) == len(IDS) * EPOCHS - 1
    assert not ((log.frame["item"] == "a") & (log.frame["epoch"] == 1)).any()


def test_inspect_partial_without_rule_is_an_error(logs: dict[str, Path]) -> None:
    with pytest.raises(DataError, match=r"1 partial grade\(s\) 'P', for samples 'a' \(epoch 1\)"):
        read_inspect_log(logs["eval"], scorer="grade")


def test_inspect_epochs_rules(logs: dict[str, Path]) -> None:
    log = read_inspect_log(logs["json"], scorer="grade", partial="fail")
    with pytest.raises(DataError, match=r"several rulings by 'grade'.*'007' \(2\), '7' \(2\)"):
        item_verdicts(log)
    per_item: dict[str, list[float]] = {}
    for (item, _), grade in sorted(GRADES.items()):
        if grade is not None:
            per_item.setdefault(item, []).append(_expected_verdict(grade, "fail"))
    rules = {
        "first": lambda v: v[0],
        "any": lambda v: float(max(v)),
        "all": lambda v: float(min(v)),
        "majority": lambda v: float(sum(v) > len(v) / 2),
    }
    for rule, reduce in rules.items():
        table = item_verdicts(log, epochs=rule).set_index("item")  # type: ignore[arg-type]
        for item, verdicts in per_item.items():
            assert table.loc[item, "verdict"] == reduce(verdicts), (rule, item)
            assert table.loc[item, "n_rulings"] == len(verdicts)
        assert math.isnan(table.loc["err", "verdict"])
        assert table.loc["err", "n_other"] == EPOCHS
    long = rulings(log)
    assert list(long.columns) == ["item", "epoch", "verdict", "status"]
    assert len(long) == len(IDS) * EPOCHS
    assert list(long["item"].iloc[:2]) == ["007", "007"]


def test_inspect_numeric_scorers(logs: dict[str, Path]) -> None:
    length = read_inspect_log(logs["eval"], scorer="length")
    ok = length.frame[length.frame["status"] == "ok"]
    assert ok["verdict"].isna().all()
    assert sorted(set(ok["score"])) == [0.25, 0.5]
    with pytest.raises(DataError, match="judge 'length' gives no pass/fail verdicts"):
        item_verdicts(length, epochs="first")
    binary = read_inspect_log(logs["eval"], scorer="binary")
    table = item_verdicts(binary, epochs="first").set_index("item")
    for item, value in BINARY.items():
        assert table.loc[item, "verdict"] == value


def test_inspect_scorer_must_be_named_among_several(logs: dict[str, Path]) -> None:
    with pytest.raises(
        DataError,
        match=r"samples\[\]\.scores: the log holds several scorers, "
        r"\['grade', 'length', 'binary'\]",
    ):
        read_eval_log(logs["eval"])
    with pytest.raises(DataError, match=r"no scorer 'nope' in the log; it holds \['grade'"):
        read_inspect_log(logs["eval"], scorer="nope")


def test_inspect_corrupt_logs(logs: dict[str, Path], tmp_path: Path) -> None:
    for fmt in ("eval", "json"):
        data = logs[fmt].read_bytes()
        broken = tmp_path / f"broken.{fmt}"
        broken.write_bytes(data[: len(data) // 2])
        with pytest.raises(DataError, match=rf"broken\.{fmt}: Inspect AI cannot read this log"):
            read_eval_log(broken, judge="grade", partial="fail")


def test_inspect_sample_ids_7_and_str_7_collide(logs: dict[str, Path], tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log as inspect_read
    from inspect_ai.log import write_eval_log

    log = inspect_read(str(logs["eval"]))
    assert log.samples is not None
    for sample in log.samples:
        if sample.id == "007":
            sample.id = 7  # an integer id beside the text id "7"
    # JSON, because the .eval format names its zip entries by id and keeps only one of them.
    path = tmp_path / "clash.json"
    write_eval_log(log, str(path), format="json")
    with pytest.raises(DataError, match=r"clash\.json: several rulings share.*item '7' epoch 1"):
        read_inspect_log(path, scorer="grade", partial="fail")


def test_inspect_missing_package_names_the_extra(
    logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    with pytest.raises(ImportError, match=r"pip install 'bayesjudge\[logs\]'"):
        read_inspect_log(logs["eval"], scorer="grade")


def test_inspect_partial_option_is_checked(logs: dict[str, Path]) -> None:
    with pytest.raises(ValueError, match=r"partial must be one of \['fail', 'pass', 'drop'\]"):
        read_inspect_log(logs["eval"], scorer="grade", partial="half")  # type: ignore[arg-type]
