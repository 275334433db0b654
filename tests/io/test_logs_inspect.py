"""Inspect AI logs written live by Inspect itself (mockllm, offline), read back by bayesjudge."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

from bayesjudge.errors import DataError
from bayesjudge.io.logs import item_verdicts, read_eval_log, read_inspect_log, rulings

pytest.importorskip("inspect_ai")

# The task the live run of tests/conftest.py (fixture inspect_run) gives Inspect.
_SPEC = json.loads(
    (Path(__file__).parents[1] / "data" / "logs" / "inspect_task.json").read_text("utf-8")
)
GRADES: dict[tuple[str, int], str | None] = {(i, e): g for i, e, g in _SPEC["grades"]}
IDS: list[str] = _SPEC["ids"]
EPOCHS: int = _SPEC["epochs"]
BINARY: dict[str, int] = _SPEC["binary"]


@pytest.fixture(scope="module")
def logs(inspect_run: Any) -> dict[str, Path]:
    """The same run as an .eval log and a .json log (tests/conftest.py, inspect_run)."""
    return {"eval": inspect_run.eval, "json": inspect_run.json}


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
