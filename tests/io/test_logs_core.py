"""The canonical table, the dispatcher and the reductions, independent of any one tool."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bayesjudge.errors import DataError
from bayesjudge.io.logs import COLUMNS, EvalLog, detect_tool, item_verdicts, read_eval_log, rulings
from bayesjudge.io.logs._evallog import Ruling

DATA = Path(__file__).resolve().parents[1] / "data" / "logs"


def _log(*rows: tuple[str, int, float]) -> EvalLog:
    return EvalLog.from_rulings(
        [Ruling(item, epoch, "m", "j", v, v, str(v), "ok") for item, epoch, v in rows],
        path="x.jsonl",
        tool="lm_eval",
    )


@pytest.mark.parametrize(
    ("path", "tool"),
    [
        ("promptfoo/results.json", "promptfoo"),
        ("openai_evals/match.jsonl", "openai_evals"),
        ("openai_evals/repeat.jsonl", "openai_evals"),
    ],
)
def test_detect_tool_on_tool_written_files(path: str, tool: str) -> None:
    assert detect_tool(DATA / path) == tool


def test_detect_tool_lm_eval() -> None:
    for path in DATA.glob("lm_eval/out/*/samples_*.jsonl"):
        assert detect_tool(path) == "lm_eval"


@pytest.mark.parametrize(
    "content",
    ["item,verdict\na,1\n", json.dumps({"results": {"accuracy": 0.5}}), "", "\x00\x01binary"],
)
def test_unknown_format_names_the_path(tmp_path: Path, content: str) -> None:
    path = tmp_path / "mystery.json"
    path.write_text(content)
    with pytest.raises(DataError, match=r"mystery\.json: not a log bayesjudge recognises"):
        read_eval_log(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nope\.eval"):
        read_eval_log(tmp_path / "nope.eval")


def test_tool_option_is_checked() -> None:
    with pytest.raises(ValueError, match=r"tool must be one of \['auto', 'inspect', 'promptfoo'"):
        read_eval_log(DATA / "promptfoo/results.json", tool="helm")  # type: ignore[arg-type]


def test_options_that_do_not_apply_are_refused() -> None:
    with pytest.raises(
        ValueError, match="partial applies to inspect logs only; this is a promptfoo"
    ):
        read_eval_log(DATA / "promptfoo/results.json", partial="fail")
    with pytest.raises(ValueError, match="filter applies to lm_eval logs only"):
        read_eval_log(DATA / "openai_evals/match.jsonl", filter="none")


def test_canonical_columns_and_types() -> None:
    log = read_eval_log(DATA / "promptfoo/results.json")
    assert tuple(log.frame.columns) == COLUMNS
    assert log.frame["epoch"].dtype.kind == "i"
    assert log.frame["verdict"].dtype.kind == "f"
    assert log.frame["score"].dtype.kind == "f"
    for column in ("item", "system", "judge", "raw", "status"):
        assert log.frame[column].map(type).eq(str).all(), column
    assert set(log.frame["status"]) <= {"ok", "partial", "unscored", "error"}
    copy = log.to_frame()
    copy.loc[0, "item"] = "changed"
    assert log.frame.loc[0, "item"] != "changed"


def test_007_and_7_stay_distinct() -> None:
    log = _log(("007", 1, 1.0), ("7", 1, 0.0))
    assert log.items == ("007", "7")
    table = item_verdicts(log)
    assert list(table["item"]) == ["007", "7"]
    assert list(table["verdict"]) == [1.0, 0.0]


def test_epochs_without_rule_names_the_items() -> None:
    log = _log(("a", 1, 1.0), ("a", 2, 0.0), ("b", 1, 1.0), ("c", 1, 0.0), ("c", 2, 0.0))
    with pytest.raises(
        DataError,
        match=r"x\.jsonl: 2 item\(s\) have several rulings by 'j' "
        r"\(item \(rulings\): 'a' \(2\), 'c' \(2\)\)",
    ):
        item_verdicts(log)


def test_epoch_rules_and_majority_tie() -> None:
    log = _log(
        ("tie", 1, 1.0),
        ("tie", 2, 0.0),
        ("two_of_three", 1, 0.0),
        ("two_of_three", 2, 1.0),
        ("two_of_three", 3, 1.0),
    )
    expected = {
        "first": [1.0, 0.0],
        "majority": [0.0, 1.0],  # a tie fails: floor(2/2) + 1 = 2 passes needed
        "any": [1.0, 1.0],
        "all": [0.0, 0.0],
    }
    for rule, verdicts in expected.items():
        assert list(item_verdicts(log, epochs=rule)["verdict"]) == verdicts, rule  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"epochs must be one of \['first', 'majority', 'any', 'all'\]"
    ):
        item_verdicts(log, epochs="last")  # type: ignore[arg-type]


def test_first_rule_follows_epochs_not_row_order() -> None:
    log = _log(("a", 2, 0.0), ("a", 1, 1.0))
    assert item_verdicts(log, epochs="first")["verdict"].tolist() == [1.0]
    assert rulings(log)["epoch"].tolist() == [1, 2]


def test_numeric_judge_with_only_0_and_1_is_binary() -> None:
    log = EvalLog.from_rulings(
        [
            Ruling("a", 1, "m", "j", math.nan, 1.0, "1", "ok"),
            Ruling("b", 1, "m", "j", math.nan, 0.0, "0", "ok"),
        ],
        path="x",
        tool="inspect",
    )
    assert log.frame["verdict"].tolist() == [1.0, 0.0]
    mixed = EvalLog.from_rulings(
        [
            Ruling("a", 1, "m", "j", math.nan, 1.0, "1", "ok"),
            Ruling("b", 1, "m", "j", math.nan, 0.5, "0.5", "ok"),
        ],
        path="x",
        tool="inspect",
    )
    assert mixed.frame["verdict"].isna().all()


def test_repr_shows_the_counts() -> None:
    log = read_eval_log(DATA / "promptfoo/results.json")
    assert repr(log) == (
        "EvalLog(tool='promptfoo', path='results.json', items=4, rulings=16, "
        "ok=14, partial=0, unscored=0, error=2)"
    )


def test_importing_reads_no_tool_package() -> None:
    import subprocess
    import sys

    code = (
        "import sys, bayesjudge.io.logs; "
        "print([m for m in ('inspect_ai', 'lm_eval', 'evals') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
