"""lm-evaluation-harness samples files written by lm-eval itself (see make_lm_eval.py)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from bayesjudge.errors import DataError
from bayesjudge.io.logs import detect_tool, item_verdicts, read_eval_log, read_lm_eval_samples

HERE = Path(__file__).resolve().parents[1] / "data" / "logs" / "lm_eval"
[GEN] = sorted(HERE.glob("out/*/samples_bj_gen_*.jsonl"))
[MC] = sorted(HERE.glob("out/*/samples_bj_mc_*.jsonl"))


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (HERE / "tasks" / name).read_text().splitlines()]


def _expected_gen(filter_: str) -> dict[str, float]:
    """doc_id -> exact_match. The model answers the last word of the question on the first of
    three repeats and "lol" on the others (make_lm_eval.py): `first` keeps the first answer,
    `vote` the majority, "lol"."""
    out = {}
    for doc_id, row in enumerate(_rows("bj_gen.jsonl")):
        answer = row["question"].split()[-1] if filter_ == "first" else "lol"
        out[str(doc_id)] = float(answer == row["answer"])
    return out


def _expected_mc(metric: str) -> dict[str, float]:
    """doc_id -> acc / acc_norm. The log-likelihood of " choice" is minus its length: acc picks
    the shortest, acc_norm (divided by the bare choice's length) the longest, first on ties."""
    out = {}
    for doc_id, row in enumerate(_rows("bj_mc.jsonl")):
        sizes = [len(choice) for choice in row["choices"]]
        pick = sizes.index(min(sizes)) if metric == "acc" else sizes.index(max(sizes))
        out[str(doc_id)] = float(pick == row["gold"])
    return out


@pytest.mark.parametrize("filter_", ["first", "vote"])
def test_lm_eval_generation_filters(filter_: str) -> None:
    log = read_eval_log(GEN, filter=filter_)
    expected = _expected_gen(filter_)
    assert detect_tool(GEN) == "lm_eval"
    assert log.tool == "lm_eval"
    assert log.version == "0.4.13"
    assert log.systems == ("bj-canned",)
    assert log.judges == ("exact_match",)
    assert log.items == tuple(expected)
    assert list(log.frame["epoch"]) == [1] * len(expected)
    assert dict(log.counts) == {"ok": len(expected), "partial": 0, "unscored": 0, "error": 0}
    table = item_verdicts(log).set_index("item")
    assert table["verdict"].to_dict() == expected
    assert set(log.frame["raw"]) <= {"1.0", "0.0"}


def test_lm_eval_filters_disagree_somewhere() -> None:
    first = _expected_gen("first")
    vote = _expected_gen("vote")
    assert first != vote  # the fixture exercises the filter choice


@pytest.mark.parametrize("metric", ["acc", "acc_norm"])
def test_lm_eval_multiple_choice_metrics(metric: str) -> None:
    log = read_lm_eval_samples(MC, metric=metric)
    table = item_verdicts(log).set_index("item")
    assert table["verdict"].to_dict() == _expected_mc(metric)


def test_lm_eval_item_field_keeps_007_and_7() -> None:
    log = read_lm_eval_samples(GEN, filter="first", item_field="id")
    ids = [row["id"] for row in _rows("bj_gen.jsonl")]
    assert log.items == tuple(ids)
    assert {"007", "7"} <= set(log.items)
    verdicts = item_verdicts(log).set_index("item")["verdict"]
    assert verdicts["007"] == 1.0  # "Say lol" -> lol
    assert verdicts["7"] == 1.0  # "... is Paris" -> Paris
    with pytest.raises(DataError, match=r"line 1: doc\.nope \(sample doc_id 0\): missing"):
        read_lm_eval_samples(GEN, filter="first", item_field="nope")


def test_lm_eval_metric_and_filter_must_be_chosen() -> None:
    with pytest.raises(
        DataError, match=r"several filters, \['first', 'vote'\]; name one with filter="
    ):
        read_eval_log(GEN)
    with pytest.raises(
        DataError,
        match=r"several metrics, \['acc', 'acc_norm'\]; name one with metric=\.\.\. "
        r"\(judge=\.\.\. in read_eval_log\)",
    ):
        read_eval_log(MC)
    with pytest.raises(DataError, match=r"no metric 'f1' in the log; it holds \['exact_match'\]"):
        read_eval_log(GEN, filter="vote", judge="f1")
    with pytest.raises(DataError, match=r"no filter 'strict' in the log"):
        read_eval_log(GEN, filter="strict")


def test_lm_eval_without_results_file(tmp_path: Path) -> None:
    alone = tmp_path / GEN.name
    shutil.copy(GEN, alone)
    log = read_lm_eval_samples(alone, filter="vote")
    assert log.systems == ("unknown",)
    assert log.version == ""


def test_lm_eval_truncated_file(tmp_path: Path) -> None:
    path = tmp_path / GEN.name
    text = GEN.read_text()
    path.write_text(text[: text.index("\n") + 200])  # one whole line and part of the next
    with pytest.raises(DataError, match=r"line 2 is not valid JSON \(truncated or corrupt\?\)"):
        read_eval_log(path, filter="first")


def test_lm_eval_corpus_metric_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "samples_bleu_2026.jsonl"
    line = {"doc_id": 3, "filter": "none", "metrics": ["bleu"], "bleu": [["ref"], "pred"]}
    path.write_text(json.dumps(line) + "\n")
    with pytest.raises(DataError, match=r"line 1: bleu \(sample doc_id 3\): .* is not a number"):
        read_eval_log(path)


def test_lm_eval_nan_value_is_unscored(tmp_path: Path) -> None:
    path = tmp_path / "samples_nan_2026.jsonl"
    lines = [
        {"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1.0},
        {"doc_id": 1, "filter": "none", "metrics": ["acc"], "acc": math.nan},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))  # json writes NaN
    log = read_eval_log(path)
    assert list(log.frame["status"]) == ["ok", "unscored"]
    assert log.frame["verdict"].tolist()[0] == 1.0


def test_lm_eval_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "samples_x_2026.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage\n")
    with pytest.raises(DataError, match=r"samples_x_2026\.jsonl: not UTF-8 text"):
        read_eval_log(path, tool="lm_eval")
