"""A promptfoo result file written by promptfoo itself (tests/data/logs/make_promptfoo.sh)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from bayesjudge.errors import DataError
from bayesjudge.io.logs import item_verdicts, read_eval_log, read_promptfoo_results, rulings

HERE = Path(__file__).resolve().parents[1] / "data" / "logs" / "promptfoo"
RESULTS = HERE / "results.json"
REPEAT = 2  # make_promptfoo.sh runs `promptfoo eval --repeat 2`
CONFIG = yaml.safe_load((HERE / "promptfooconfig.yaml").read_text())


def _passes(kind: str, value: str, output: str) -> bool:
    """The four promptfoo assertion types the config uses, as promptfoo documents them."""
    return {
        "contains": value in output,
        "icontains": value.lower() in output.lower(),
        "equals": output == value,
        "starts-with": output.startswith(value),
    }[kind]


def _expected() -> dict[tuple[str, str], dict[str, float]]:
    """(system, item) -> {judge: verdict} from the config: every provider echoes the prompt,
    and the `shell` provider fails on the Madrid test (provider.sh)."""
    out = {}
    [prompt] = CONFIG["prompts"]
    for test in CONFIG["tests"]:
        answer = test["vars"]["answer"]
        item = test.get("description") or json.dumps(test["vars"], sort_keys=True)
        output = prompt.replace("{{answer}}", answer)
        for provider in CONFIG["providers"]:
            system = provider["label"]
            if system == "shell" and answer == "Madrid":
                out[(system, item)] = {"overall": math.nan, "correct": math.nan, "format": math.nan}
                continue
            ruled = {
                a["metric"]: float(_passes(a["type"], a["value"], output)) for a in test["assert"]
            }
            verdicts = {"overall": float(all(ruled.values()))}
            for judge in ("correct", "format"):
                verdicts[judge] = ruled.get(judge, math.nan)
            out[(system, item)] = verdicts
    return out


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("assertion", [None, "correct", "format"])
def test_promptfoo_rulings_match_the_config(assertion: str | None) -> None:
    log = read_promptfoo_results(RESULTS, assertion=assertion)
    expected = _expected()
    judge = assertion or "overall"
    assert log.tool == "promptfoo"
    assert log.version == "0.121.20"
    assert log.systems == ("echo", "shell")
    assert log.judges == (judge,)
    assert set(log.items) == {"007", "7", "rome", '{"answer": "Madrid"}'}
    assert len(log.frame) == len(CONFIG["tests"]) * len(CONFIG["providers"]) * REPEAT
    frame = log.frame
    for (system, item), verdicts in expected.items():
        rows = frame[(frame["system"] == system) & (frame["item"] == item)]
        assert sorted(rows["epoch"]) == list(range(1, REPEAT + 1))
        for verdict in rows["verdict"]:
            assert _same(verdict, verdicts[judge]), (system, item, judge)
    errors = sum(math.isnan(v["overall"]) for v in expected.values()) * REPEAT
    unscored = (
        sum(math.isnan(v[judge]) and not math.isnan(v["overall"]) for v in expected.values())
        * REPEAT
    )
    assert dict(log.counts) == {
        "ok": len(frame) - errors - unscored,
        "partial": 0,
        "unscored": unscored,
        "error": errors,
    }
    assert frame.loc[frame["status"] == "error", "raw"].str.contains("Command failed").all()


def test_promptfoo_overall_score_is_promptfoo_weighted_score() -> None:
    log = read_eval_log(RESULTS)
    bonn = log.frame[(log.frame["item"] == "7") & (log.frame["system"] == "echo")]
    assert list(bonn["verdict"]) == [0.0, 0.0]
    assert list(bonn["score"]) == [0.5, 0.5]  # one of two assertions passed
    assert list(bonn["raw"]) == ["false", "false"]


def test_promptfoo_repeats_reduce_by_rule() -> None:
    log = read_eval_log(RESULTS, tool="promptfoo")
    with pytest.raises(DataError, match=r"several systems, \['echo', 'shell'\]; name one"):
        item_verdicts(log, epochs="all")
    # Madrid's two rulings under `shell` are provider errors, so three items have several.
    with pytest.raises(DataError, match=r"3 item\(s\) have several rulings by 'overall'"):
        item_verdicts(log, system="shell")
    table = item_verdicts(log, system="shell", epochs="all").set_index("item")
    expected = _expected()
    for item in table.index:
        assert _same(table.loc[item, "verdict"], expected[("shell", item)]["overall"])
    assert table.loc['{"answer": "Madrid"}', "n_other"] == REPEAT
    long = rulings(log, system="echo")
    assert len(long) == len(CONFIG["tests"]) * REPEAT
    assert long["verdict"].notna().all()


def test_promptfoo_item_var_and_007() -> None:
    log = read_promptfoo_results(RESULTS, item_var="answer")
    assert set(log.items) == {"Paris", "Bonn", "Rome", "Madrid"}
    by_description = read_promptfoo_results(RESULTS)
    table = item_verdicts(by_description, system="echo", epochs="first").set_index("item")
    assert table.loc["007", "verdict"] == 1.0
    assert table.loc["7", "verdict"] == 0.0
    with pytest.raises(DataError, match=r"results\.results\[0\]\.vars: no variable 'id'"):
        read_promptfoo_results(RESULTS, item_var="id")


def test_promptfoo_unknown_assertion() -> None:
    with pytest.raises(
        DataError, match=r"no assertion 'nope' in the log; it holds \['correct', 'format'\]"
    ):
        read_eval_log(RESULTS, judge="nope")


def test_promptfoo_one_id_for_two_tests(tmp_path: Path) -> None:
    document = json.loads(RESULTS.read_text())
    for result in document["results"]["results"]:
        if result["testCase"].get("description") == "rome":
            result["testCase"]["description"] = "007"  # now two different tests say "007"
    path = tmp_path / "clash.json"
    path.write_text(json.dumps(document))
    with pytest.raises(
        DataError,
        match=r"clash\.json: results\.results\[\d+\] \(sample '007'\): "
        r"item id '007' names two different tests",
    ):
        read_promptfoo_results(path)


def test_promptfoo_truncated_file(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(RESULTS.read_text()[:5000])
    with pytest.raises(
        DataError, match=r"results\.json: not valid JSON \(truncated or corrupt\?\)"
    ):
        read_eval_log(path, tool="promptfoo")


def test_promptfoo_not_a_result_file(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"results": []}))
    with pytest.raises(DataError, match=r"other\.json: results\.results: missing"):
        read_promptfoo_results(path)
