"""OpenAI evals record logs written by oaieval itself (tests/data/logs/make_openai_evals.sh)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bayesjudge.errors import DataError
from bayesjudge.io.logs import (
    detect_tool,
    item_verdicts,
    read_eval_log,
    read_openai_evals_log,
    rulings,
)

HERE = Path(__file__).resolve().parents[1] / "data" / "logs" / "openai_evals"
DATA = HERE / "registry" / "data" / "bj"
DUMMY = "This is a dummy response."  # what evals' `dummy` completion function always answers


def _samples(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines()]


def test_openai_evals_match_events() -> None:
    log = read_eval_log(HERE / "match.jsonl")
    expected = {}
    for index, sample in enumerate(_samples("match.jsonl")):
        ideals = sample["ideal"] if isinstance(sample["ideal"], list) else [sample["ideal"]]
        # evals' Match: correct when the answer starts with one of the ideal answers
        expected[f"bj-match.dev.{index}"] = float(any(DUMMY.startswith(i) for i in ideals))
    assert detect_tool(HERE / "match.jsonl") == "openai_evals"
    assert log.tool == "openai_evals"
    assert log.version == ""
    assert log.systems == ("dummy",)
    assert log.judges == ("match",)
    assert set(log.items) == set(expected)
    assert dict(log.counts) == {"ok": len(expected), "partial": 0, "unscored": 0, "error": 0}
    assert item_verdicts(log).set_index("item")["verdict"].to_dict() == expected


def test_openai_evals_repeated_match_events() -> None:
    log = read_openai_evals_log(HERE / "repeat.jsonl", metric="match")
    samples = _samples("repeat.jsonl")
    n_rulings = sum(len(s["rulings"]) for s in samples)
    n_errors = sum(bool(s.get("fail")) for s in samples)
    assert len(log.frame) == n_rulings + n_errors
    assert dict(log.counts) == {"ok": n_rulings, "partial": 0, "unscored": 0, "error": n_errors}
    with pytest.raises(DataError, match=r"3 item\(s\) have several rulings by 'match'"):
        item_verdicts(log)
    rules = {
        "first": lambda v: v[0],
        "any": lambda v: any(v),
        "all": lambda v: all(v),
        "majority": lambda v: sum(v) > len(v) / 2,
    }
    for rule, reduce in rules.items():
        table = item_verdicts(log, epochs=rule).set_index("item")  # type: ignore[arg-type]
        for index, sample in enumerate(samples):
            got = table.loc[f"bj-repeat.dev.{index}", "verdict"]
            if sample.get("fail"):
                assert math.isnan(got)
            else:
                assert got == float(reduce(sample["rulings"])), (rule, index)
    long = rulings(log)
    b = long[long["item"] == "bj-repeat.dev.1"]
    assert list(b["epoch"]) == [1, 2]
    assert list(b["verdict"]) == [float(v) for v in samples[1]["rulings"]]
    error = log.frame[log.frame["status"] == "error"]
    assert list(error["raw"]) == [samples[3]["fail"]]


def test_openai_evals_metrics_events() -> None:
    log = read_eval_log(HERE / "repeat.jsonl", judge="score")
    frame = log.frame.set_index("item")
    for index, sample in enumerate(_samples("repeat.jsonl")):
        row = frame.loc[f"bj-repeat.dev.{index}"]
        if sample.get("fail"):
            assert row["status"] == "error"
        else:
            assert row["score"] == sample["score"]
            assert math.isnan(row["verdict"])  # 0.9, 0.4, 0.1 are scores, not verdicts


def test_openai_evals_metric_must_be_chosen() -> None:
    with pytest.raises(
        DataError, match=r"several metrics, \['match', 'score'\]; name one with metric="
    ):
        read_eval_log(HERE / "repeat.jsonl")
    with pytest.raises(DataError, match=r"no metric 'accuracy' in the log"):
        read_openai_evals_log(HERE / "match.jsonl", metric="accuracy")


def test_openai_evals_truncated_log(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text((HERE / "match.jsonl").read_text()[:-40])
    with pytest.raises(DataError, match=r"run\.jsonl: line 7 is not valid JSON"):
        read_eval_log(path, tool="openai_evals")


def test_openai_evals_correct_must_be_boolean(tmp_path: Path) -> None:
    lines = (HERE / "match.jsonl").read_text().splitlines()
    event = json.loads(lines[2])
    event["data"]["correct"] = "yes"
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join([*lines[:2], json.dumps(event), *lines[3:]]) + "\n")
    sample = event["sample_id"]
    with pytest.raises(
        DataError,
        match=rf"line 3: data\.correct \(sample '{sample}'\): expected true or false; got 'yes'",
    ):
        read_eval_log(path)
