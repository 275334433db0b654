"""``bayesjudge judges``: two judge versions from an Inspect log written offline, and exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bayesjudge.batches.versions import mcnemar_exact
from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_DIAGNOSTICS, EXIT_OK

FAST = ["--draws", "2000"]

# 40 items: a truth, and what each grader says. Of the 30 labelled items, the old grader misses
# 3 of the 16 true passes and passes 4 of the 14 true failures; the new one fixes two of the
# misses and two of the false passes.
_TRUTH = [1] * 16 + [0] * 14 + [1, 0] * 5
_OLD = [1] * 13 + [0] * 3 + [1] * 4 + [0] * 10 + [1, 1, 0, 0, 1, 0, 1, 1, 0, 0]
_NEW = [1] * 15 + [0] * 1 + [1] * 1 + [0] * 2 + [1] + [0] * 10 + [1, 0, 1, 0, 1, 0, 1, 0, 0, 0]
IDS = [f"q{i:02d}" for i in range(40)]
LABELLED = 30  # the first 30 items have gold labels


def _counts() -> np.ndarray:
    """The expected paired tables (gold PASS, gold FAIL, unlabelled) x old x new."""
    out = np.zeros((3, 2, 2), dtype=int)
    for i in range(40):
        klass = 2 if i >= LABELLED else (0 if _TRUTH[i] else 1)
        out[klass, _OLD[i], _NEW[i]] += 1
    return out


def _write_two_scorer_log(folder: Path) -> Path:
    """Run the 40 items and one crashing sample through Inspect (mockllm, offline)."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import Score, Target, accuracy, scorer
    from inspect_ai.solver import Generate, TaskState, solver

    grades = {"grader_v1": dict(zip(IDS, _OLD, strict=True))}
    grades["grader_v2"] = dict(zip(IDS, _NEW, strict=True))

    @solver
    def crash_on_err():  # type: ignore[no-untyped-def]
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            if state.sample_id == "err":
                raise RuntimeError("solver crashed on purpose")
            return await generate(state)

        return solve

    def grader(name: str) -> Any:
        @scorer(metrics=[accuracy()], name=name)
        def make():  # type: ignore[no-untyped-def]
            async def score(state: TaskState, target: Target) -> Score:
                return Score(value="C" if grades[name][str(state.sample_id)] else "I")

            return score

        return make()

    def canned(*_: object) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm/model", content="an answer")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    task = Task(
        dataset=MemoryDataset([Sample(id=i, input=f"question {i}") for i in [*IDS, "err"]]),
        solver=[crash_on_err()],
        scorer=[grader("grader_v1"), grader("grader_v2")],
    )
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=canned),
        log_dir=str(folder / "logs"),
        log_format="eval",
        display="none",
        fail_on_error=False,
    )
    return Path(log.location)


@pytest.fixture(scope="module")
def inspect_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An Inspect AI .eval log with two scorers, written by inspect_ai itself."""
    pytest.importorskip("inspect_ai")
    folder = tmp_path_factory.mktemp("judges")
    with pytest.MonkeyPatch.context() as patch:  # Inspect's traces and caches go here, not ~
        patch.setenv("XDG_DATA_HOME", str(folder / "data"))
        patch.setenv("XDG_CACHE_HOME", str(folder / "cache"))
        return _write_two_scorer_log(folder)


@pytest.fixture(scope="module")
def gold(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("gold") / "gold.csv"
    rows = "".join(f"{i},{'PASS' if t else 'FAIL'}\n" for i, t in zip(IDS, _TRUTH, strict=False))
    path.write_text("id,label\n" + "".join(rows.splitlines(keepends=True)[:LABELLED]))
    return path


def test_one_inspect_log_with_two_scorers(
    inspect_log: Path, gold: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["judges", str(inspect_log), "--old", "grader_v1", "--new", "grader_v2"]
    argv += ["--labels", str(gold), "--json", *FAST]
    assert main(argv) == EXIT_OK
    payload = json.loads(capsys.readouterr().out)
    assert payload["judges"] == {"old": "grader_v1", "new": "grader_v2"}
    expected = _counts()
    for position, klass in enumerate(("gold_pass", "gold_fail", "unlabelled")):
        block = payload["classes"][klass]
        assert block["table"] == expected[position].tolist()
        flips = expected[position][0, 1] + expected[position][1, 0]
        assert block["flip_rate"]["mean"] == pytest.approx(
            (flips + 0.5) / (expected[position].sum() + 1.0)
        )
        assert block["mcnemar_p"] == pytest.approx(mcnemar_exact(expected[position]))
    # the change in Se and Sp, with intervals: Se 15/16 against 13/16, Sp 12/14 against 10/14;
    # Jeffreys Dirichlet: E = (n01 - n10) / (m + 2) for Se, (n10 - n01) / (m + 2) for Sp
    assert expected[0][0, 1] == 2
    assert expected[0][1, 0] == 0
    assert expected[1][1, 0] == 2
    assert expected[1][0, 1] == 0
    se = payload["se"]["change"]
    assert se["mean"] == pytest.approx(2 / (16 + 2.0))
    assert se["low"] < se["mean"] < se["high"]
    assert payload["sp"]["change"]["mean"] == pytest.approx(2 / (14 + 2.0))
    assert payload["keep"]["judge"] == "new"
    # the crashed sample has no verdict from either scorer: listed, not dropped
    assert payload["input"]["neither"] == ["err"]
    assert payload["input"]["paired"] == 40
    assert payload["pi"]["change"]["kept_draws"] > 1000


def test_text_output_names_the_judges_and_the_choice(
    inspect_log: Path, gold: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["judges", str(inspect_log), "--old", "grader_v1", "--new", "grader_v2"]
    assert main([*argv, "--labels", str(gold), *FAST]) == EXIT_OK
    out = capsys.readouterr().out
    assert "old judge grader_v1, new judge grader_v2" in out
    assert "McNemar p" in out
    assert "keep: keep 'grader_v2' (new)" in out
    assert "judged by neither judge: 'err'" in out


def test_two_tables_joined_by_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = tmp_path / "old.csv"
    new = tmp_path / "new.csv"
    old.write_text(
        "item,verdict,label\n"
        + "".join(
            f"{i},{v},{t if k < LABELLED else ''}\n"
            for k, (i, v, t) in enumerate(zip(IDS, _OLD, _TRUTH, strict=False))
        )
    )
    new.write_text("item,verdict\n" + "".join(f"{i},{v}\n" for i, v in zip(IDS, _NEW, strict=True)))
    assert main(["judges", str(old), str(new), "--json", *FAST]) == EXIT_OK
    payload = json.loads(capsys.readouterr().out)
    assert payload["classes"]["gold_pass"]["table"] == _counts()[0].tolist()
    assert payload["judges"] == {"old": "old", "new": "new"}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--old", "grader_v1"], "name them with --old and --new"),
        (["--old", "grader_v1", "--new", "grader_v9"], "grader_v9"),
        (["--old", "grader_v1", "--new", "grader_v2", "--scorer", "x"], "--scorer"),
        (["--old", "grader_v1", "--new", "grader_v2", "--draws", "10"], "at least 1000"),
    ],
)
def test_bad_options_exit_2(
    inspect_log: Path,
    extra: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["judges", str(inspect_log), *extra]) == EXIT_BAD_INPUT
    assert message in capsys.readouterr().err


def test_a_bad_gold_label_names_file_column_and_line(
    inspect_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = tmp_path / "gold.csv"
    gold.write_text("item,label\nq00,PASS\nq01,maybe\n")
    argv = ["judges", str(inspect_log), "--old", "grader_v1", "--new", "grader_v2"]
    assert main([*argv, "--labels", str(gold)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "gold.csv" in err
    assert "'label'" in err
    assert "line 3" in err
    assert "Traceback" not in err


def test_a_judge_worse_than_chance_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An old judge that inverts the gold labels: no draw has J > 0, pi is not compared."""
    path = tmp_path / "both.csv"
    rows = ["item,a,b,label"]
    for k in range(60):
        truth = k % 2
        label = str(truth) if k < 40 else ""
        rows.append(f"i{k},{1 - truth},{truth},{label}")
    path.write_text("\n".join(rows) + "\n")
    assert main(["judges", str(path), "--old", "a", "--new", "b", *FAST]) == EXIT_DIAGNOSTICS
    captured = capsys.readouterr()
    assert "kept 0 of 2000 draws" in captured.err
    assert "Difference of pi not supported" in captured.out


def test_out_writes_a_readable_report(
    inspect_log: Path,
    gold: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    readable_report: Any,
) -> None:
    import xarray as xr

    out = tmp_path / "report"
    argv = ["judges", str(inspect_log), "--old", "grader_v1", "--new", "grader_v2"]
    assert main([*argv, "--labels", str(gold), "--out", str(out), *FAST]) == EXIT_OK
    assert f"report written to {out}" in capsys.readouterr().out
    names = {p.name for p in out.iterdir()}
    assert {"report.html", "summary.md", "posterior.nc", "tables.csv", "analysis.json"} <= names
    readable_report(out, names=("grader_v1", "grader_v2"))
    tree = xr.open_datatree(out / "posterior.nc")
    assert tree["posterior"]["se"].shape == (1, 2000, 2)
    assert tree.attrs["model"] == "judge_versions"
    assert "Paired tables" in (out / "summary.md").read_text(encoding="utf-8")


def test_two_tables_with_their_verdict_columns_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.csv"
    new = tmp_path / "new.csv"
    old.write_text("item,graded,label\na,PASS,1\nb,FAIL,0\nc,PASS,\nd,PASS,1\n")
    new.write_text("item,score_v2\na,PASS\nb,PASS\nc,FAIL\n")
    argv = ["judges", str(old), str(new), "--old", "graded", "--new", "score_v2", "--json"]
    # three paired items: too few for the difference of pi, which exits 3 after the JSON
    assert main([*argv, *FAST]) == EXIT_DIAGNOSTICS
    payload = json.loads(capsys.readouterr().out)
    assert payload["passed"] is False
    assert payload["classes"]["gold_fail"]["table"] == [[0, 1], [0, 0]]
    assert payload["input"]["only_old"] == ["d"]
    assert payload["input"]["unpaired_labelled"] == 1


def test_help_names_the_forms(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["judges", "--help"])
    out = capsys.readouterr().out
    assert "--old NAME" in out
    assert "--labels FILE" in out
    assert "McNemar" in out
