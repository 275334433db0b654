"""Every command reads its data the same way: formats, stdin, mapping, labels, logs, large files.

The inputs are written by the tests (the eval logs are the tool-written files of
tests/data/logs and the live Inspect run of tests/conftest.py). Every bad input exits 2 with
one line naming the argument, column or row, and no traceback.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from bayesjudge.cli.app import build_parser, main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_OK
from bayesjudge.prevalence.simulate import judge_scores_table, judge_table

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
LM_EVAL = LOGS / "lm_eval" / "out" / "bj-canned"
COMPARED = ("counts", "posterior", "estimates", "calibration_check", "diagnostics")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- eval logs
# Each tool-written log, read with --labels, gives exactly the counts and the estimate of the
# equivalent hand-written CSV: the verdicts below are read off the log files by eye (see the
# comments), not computed by bayesjudge.
LOG_CASES: dict[str, tuple[Path, list[str], str, str]] = {
    "promptfoo": (
        LOGS / "promptfoo" / "results.json",
        ["--system", "echo", "--epochs", "majority"],
        "item,label\n007,correct\n7,incorrect\n",
        # echo, two repeats each: 007 pass pass, 7 fail fail, rome pass pass, Madrid fail fail
        "label,verdict\n1,1\n0,0\n,1\n,0\n",
    ),
    "lm_eval": (
        LM_EVAL / "samples_bj_gen_2026-11-23T11-32-44.034030.jsonl",
        ["--filter", "first", "--item-field", "id"],
        "item,label\n007,1\nq3,0\n",
        # filter `first`, exact_match: 007 1, 7 1, q3 0, q4 0, q5 0
        "label,verdict\n1,1\n0,0\n,1\n,0\n,0\n",
    ),
    "openai_evals": (
        LOGS / "openai_evals" / "repeat.jsonl",
        ["--scorer", "match", "--epochs", "any"],
        "item,label\nbj-repeat.dev.0,yes\nbj-repeat.dev.2,no\nbj-repeat.dev.3,yes\n",
        # match events: dev.0 true true, dev.1 false true, dev.2 false false; dev.3 only an
        # error (left out, though labelled)
        "label,verdict\n1,1\n0,0\n,1\n",
    ),
}


def _same_estimate(log_payload: dict[str, Any], csv_payload: dict[str, Any]) -> None:
    for key in COMPARED:
        assert log_payload[key] == csv_payload[key], key


@pytest.mark.parametrize("tool", sorted(LOG_CASES))
def test_a_tool_log_gives_the_estimate_of_the_hand_written_csv(
    tool: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, options, labels, hand = LOG_CASES[tool]
    labels_path = write(tmp_path / "labels.csv", labels)
    hand_path = write(tmp_path / "hand.csv", hand)
    code, out, err = run(
        capsys, "estimate", log, "--labels", labels_path, *options, "--method", "exact", "--json"
    )
    assert code == EXIT_OK, err
    from_log = json.loads(out)
    code, out, err = run(capsys, "estimate", hand_path, "--method", "exact", "--json")
    assert code == EXIT_OK, err
    _same_estimate(from_log, json.loads(out))
    assert from_log["input"]["format"] == tool
    assert from_log["input"]["labels"] == str(labels_path)


@pytest.mark.parametrize(
    "method",
    ["exact", pytest.param("nuts", marks=pytest.mark.slow)],  # NUTS: two fits, ~40 s
)
def test_the_live_inspect_log_gives_the_estimate_of_the_hand_written_csv(
    method: str, inspect_run: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = write(tmp_path / "labels.csv", "item,label\n007,1\n7,0\nerr,1\n")
    # grade, partial as fail, majority of the epochs: 007 C C -> 1; 7 I C (a tie) -> 0;
    # a P I -> 0; b C (epoch 2 unscored) -> 1; err errored in both epochs: left out
    hand = write(tmp_path / "hand.csv", "label,verdict\n1,1\n0,0\n,0\n,1\n")
    options = ["--scorer", "grade", "--partial", "fail", "--epochs", "majority"]
    sampler = ["--method", method, "--no-progress"] if method == "exact" else ["--no-progress"]
    code, out, err = run(
        capsys, "estimate", inspect_run.eval, "--labels", labels, *options, *sampler, "--json"
    )
    assert code == EXIT_OK, err
    from_log = json.loads(out)
    code, out, err = run(capsys, "estimate", hand, *sampler, "--json")
    assert code == EXIT_OK, err
    _same_estimate(from_log, json.loads(out))
    assert from_log["input"]["without_verdict"] == 1
    assert from_log["input"]["judge"] == "grade"
    code, out, _ = run(capsys, "estimate", inspect_run.eval, "--labels", labels, *options, *sampler)
    assert code == EXIT_OK
    assert "1 left out: no verdict or score" in out
    assert "labels from" in out


def test_gate_takes_a_logs_repeats_as_rulings(tmp_path: Path) -> None:
    from bayesjudge.gates.cli import _load

    labels = write(tmp_path / "labels.csv", "item,label\n007,1\n7,0\n")
    args = build_parser().parse_args(
        ["gate", str(LOGS / "promptfoo" / "results.json"), "--labels", str(labels),
         "--system", "shell"]
    )  # fmt: skip
    rulings, loop = _load(args)
    assert loop is None
    # shell, two repeats each; Madrid errored twice: no rulings, counted
    assert rulings.items.tolist() == ["007", "7", "rome"]
    assert rulings.r.tolist() == [2, 2, 2]
    assert rulings.k.tolist() == [2, 0, 2]
    assert rulings.origin.without_verdict == 2


def test_log_options_for_a_table_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write(tmp_path / "d.csv", "label,verdict\n1,1\n0,0\n,1\n")
    code, _, err = run(capsys, "baselines", data, "--scorer", "grade", "--partial", "fail")
    assert code == EXIT_BAD_INPUT
    assert "--scorer, --partial: for eval logs only" in err
    code, _, err = run(capsys, "estimate", LOGS / "promptfoo" / "results.json", "--method", "exact")
    assert code == EXIT_BAD_INPUT
    assert "several systems, ['echo', 'shell']" in err
    code, _, err = run(
        capsys, "estimate", LOGS / "promptfoo" / "results.json", "--system", "echo",
        "--epochs", "any", "--method", "exact",
    )  # fmt: skip
    assert code == EXIT_BAD_INPUT
    assert "an eval log holds no gold labels" in err
    code, _, err = run(capsys, "estimate", "-", "--format", "inspect")
    assert code == EXIT_BAD_INPUT
    assert "an eval log is read from a file path, not from standard input" in err


# --------------------------------------------------------------------------- tables
EXPORT = (
    "id,prompt,model_output,judge_score,judge_verdict,human_label\n"
    "001,q,a,0.91,correct,correct\n"
    "002,q,a,0.20,incorrect,incorrect\n"
    "003,q,a,0.75,correct,\n"
    "004,q,a,0.40,incorrect,NA\n"
    "005,q,a,0.80,good,correct\n"
    "006,q,a,0.10,bad,incorrect\n"
)


def test_an_export_mapped_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "export.csv", EXPORT)
    code, _, err = run(capsys, "baselines", path)
    assert code == EXIT_BAD_INPUT
    assert "did you mean 'human_label'? use --map label=human_label" in err
    assert "did you mean 'judge_verdict'" in err
    mapped = ["--map", "label=human_label", "--map", "verdict=judge_verdict"]
    code, _, err = run(capsys, "baselines", path, *mapped)
    assert code == EXIT_BAD_INPUT
    assert "line 6 has 'good'" in err
    assert "line 7 has 'bad'" in err
    code, out, err = run(
        capsys, "baselines", path, *mapped, "--positive", "good", "--negative", "bad", "--json"
    )
    assert code == EXIT_OK, err
    payload = json.loads(out)
    assert (payload["n_labelled"], payload["n_unlabelled"]) == (4, 2)
    assert payload["input"]["columns"] == {"label": "human_label", "verdict": "judge_verdict"}


def test_standard_input(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bayesjudge", "baselines", "-", "--json",
         "--map", "label=human_label", "--map", "verdict=judge_verdict",
         "--positive", "good", "--negative", "bad"],
        input=EXPORT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == EXIT_OK, result.stderr
    assert json.loads(result.stdout)["input"]["source"] == "<stdin>"


def test_labels_kept_apart_and_the_join_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write(tmp_path / "results.jsonl", "".join(
        f'{{"sample_id": "{i}", "judge": "{v}"}}\n'
        for i, v in [("007", "yes"), ("7", "no"), ("8", "yes"), ("9", "no"), ("10", "yes")]
    ))  # fmt: skip
    gold = write(tmp_path / "gold.tsv", "uid\tgold\n007\tcorrect\n7\tincorrect\n10\tNA\n")
    argv = [
        "baselines", data, "--map", "item=sample_id", "--map", "verdict=judge",
        "--labels", gold, "--labels-map", "item=uid", "--labels-map", "label=gold",
    ]  # fmt: skip
    code, out, err = run(capsys, *argv)
    assert code == EXIT_OK, err
    assert "2 labelled, 3 unlabelled items" in out
    assert f"labels from {gold}: 2 of 5 items joined by id (3 label rows, 1 blank)" in out
    code, _, err = run(capsys, "baselines", data, "--labels-map", "item=uid")
    assert code == EXIT_BAD_INPUT
    assert "--labels-map maps the columns of --labels FILE" in err


def test_epochs_combine_repeated_rows_joined_to_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write(tmp_path / "r.csv", "item,verdict\na,1\na,0\na,1\nb,0\nb,0\nc,1\nc,0\nd,1\n")
    gold = write(tmp_path / "g.csv", "item,label\na,1\nb,0\n")
    code, _, err = run(capsys, "baselines", data, "--labels", gold)
    assert code == EXIT_BAD_INPUT
    assert "labelled id(s) have several rows: 'a' (3 rows)" in err
    assert "epochs='first', 'majority', 'any' or 'all'" in err
    assert "--epochs" in err
    code, out, err = run(capsys, "estimate", data, "--labels", gold, "--epochs", "all",
                         "--method", "exact", "--json")  # fmt: skip
    assert code == EXIT_OK, err
    payload = json.loads(out)
    assert payload["counts"] == {"m1": 1, "x1": 0, "m0": 1, "x0": 0, "n": 2, "k": 1}
    assert payload["input"]["epochs"] == "all"
    assert payload["input"]["join"]["combined_rows"] == 4


def test_scores_with_a_threshold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "scores.csv"
    judge_scores_table(pi=0.6, n=300, m1=40, m0=40, levels=3, random_seed=4).to_csv(
        path, index=False
    )
    code, out, err = run(capsys, "baselines", path, "--threshold", "0.5", "--json")
    assert code == EXIT_OK, err
    payload = json.loads(out)
    assert payload["input"]["threshold"] == 0.5
    assert payload["input"]["streamed"] is True
    assert all(row["estimate"] is not None for row in payload["estimates"])
    with pytest.raises(SystemExit) as exit_info:
        main(["baselines", str(path), "--threshold", "1.5"])
    assert exit_info.value.code == EXIT_BAD_INPUT
    assert "--threshold: must be a number in [0, 1]; got '1.5'" in capsys.readouterr().err


def test_scores_without_a_threshold_show_the_roc_and_the_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "scores.csv"
    judge_scores_table(pi=0.6, n=300, m1=40, m0=40, levels=2, random_seed=4).to_csv(
        path, index=False
    )
    code, out, err = run(capsys, "estimate", path, "--method", "exact", "--json")
    assert code == EXIT_OK, err
    payload = json.loads(out)
    chosen = payload["thresholds"]["chosen"]
    assert chosen == pytest.approx(0.5 + 1 / 8)  # the grid point that separates the classes
    assert payload["input"]["threshold"] == chosen
    points = payload["thresholds"]["points"]
    assert min(points, key=lambda p: p["width"])["threshold"] == chosen
    assert {"se", "sp", "j", "pi", "counts"} <= set(points[0])
    code, out, err = run(capsys, "estimate", path, "--method", "exact")
    assert code == EXIT_OK, err
    assert "no --threshold given" in out
    assert "<- chosen" in out
    assert f"threshold {chosen:g}: score >= {chosen:.4g} gives the narrowest" in out


# --------------------------------------------------------------------------- large inputs
def _judge_files(folder: Path) -> pd.DataFrame:
    folder.mkdir()
    parts = [
        judge_table(pi=0.6, se=0.9, sp=0.8, n=300, m1=30, m0=30, random_seed=s) for s in (1, 2)
    ]
    parts[0].to_csv(folder / "part-0.csv", index=False)
    parts[1].to_parquet(folder / "part-1.parquet", index=False)
    return pd.concat(parts, ignore_index=True)


def test_a_folder_and_a_glob_are_reduced_to_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = _judge_files(tmp_path / "parts")
    whole.to_csv(tmp_path / "whole.csv", index=False)
    code, out, _ = run(capsys, "baselines", tmp_path / "whole.csv", "--json", "--n-boot", "300")
    assert code == EXIT_OK
    expected = json.loads(out)
    code, out, err = run(capsys, "baselines", tmp_path / "parts", "--json", "--n-boot", "300")
    assert code == EXIT_OK, err
    payload = json.loads(out)
    assert payload["estimates"] == expected["estimates"]
    assert payload["input"]["files"] == 2
    code, out, err = run(capsys, "estimate", str(tmp_path / "parts" / "*.csv"), "--method",
                         "exact", "--json")  # fmt: skip
    assert code == EXIT_OK, err
    assert json.loads(out)["input"]["files"] == 1


def test_a_folder_of_scores_without_a_threshold_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "scores"
    folder.mkdir()
    judge_scores_table(pi=0.6, n=50, m1=10, m0=10, random_seed=1).to_csv(
        folder / "a.csv", index=False
    )
    code, _, err = run(capsys, "estimate", folder, "--method", "exact")
    assert code == EXIT_BAD_INPUT
    assert "stands for several files" in err


def test_the_scheduler_reduces_on_a_dask_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    distributed = pytest.importorskip("distributed")
    _judge_files(tmp_path / "parts")
    code, out, _ = run(capsys, "baselines", tmp_path / "parts", "--json", "--n-boot", "300")
    expected = json.loads(out)
    with distributed.LocalCluster(
        processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        code, out, err = run(capsys, "baselines", tmp_path / "parts", "--json", "--n-boot",
                             "300", "--scheduler", cluster.scheduler_address)  # fmt: skip
    assert code == EXIT_OK, err
    assert json.loads(out)["estimates"] == expected["estimates"]
    code, _, err = run(capsys, "baselines", tmp_path / "parts", "--epochs", "any",
                       "--scheduler", "tcp://127.0.0.1:1")  # fmt: skip
    assert code == EXIT_BAD_INPUT
    assert "--scheduler reduces judge files to counts" in err


# --------------------------------------------------------------------------- bad inputs
JUDGE = "label,verdict\n1,1\n0,0\n,1\n,0\n"
RULINGS = "item,ruling,verdict,label\na,1,1,1\na,2,0,1\nb,1,0,0\nc,1,1,\n"
LOOP = "item,attempt,verdict,correct\na,1,0,0\na,2,1,1\n"
OUTCOMES = "item,e0,e1\n007,0,1\n7,1,1\n"
# command -> (argv before DATA, argv after DATA, a valid DATA, the argument errors name)
COMMANDS: dict[str, tuple[list[str], list[str], str, str]] = {
    "baselines": (["baselines"], [], JUDGE, "data"),
    "estimate": (["estimate"], ["--method", "exact"], JUDGE, "data"),
    "report": (["report"], [], JUDGE, "data"),
    "gate": (["gate"], [], RULINGS, "rulings"),
    "gate --loop": (["gate", "--loop"], [], LOOP, "loop log"),
    "channel": (["channel"], [], OUTCOMES, "paired outcomes"),
}


def _argv(command: str, data: Path, tmp_path: Path) -> list[str]:
    before, after, _, _ = COMMANDS[command]
    extra = ["--out", str(tmp_path / "out")] if command == "report" else []
    return [*before, str(data), *after, *extra]


def _bad_exit(capsys: pytest.CaptureFixture[str], argv: list[str], *expected: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == EXIT_BAD_INPUT, (out, err)
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) >= 1
    for part in expected:
        assert part in err, err
    return err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_directory_where_a_file_is_expected(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    err = _bad_exit(capsys, _argv(command, folder, tmp_path), str(folder))
    if command in ("baselines", "estimate", "report"):
        assert "holds no data files" in err  # a folder is reduced to counts: it has none
    else:
        assert "is a directory, not a file" in err
    if command in ("baselines", "gate"):
        data = write(tmp_path / "d.csv", COMMANDS[command][2])
        _bad_exit(capsys, [*_argv(command, data, tmp_path), "--labels", str(folder)],
                  "labels:", "is a directory, not a file")  # fmt: skip


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_unreadable_file(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    path = write(tmp_path / "locked.csv", COMMANDS[command][2])
    path.chmod(0)
    if os.access(path, os.R_OK):  # root reads anything: make open() refuse instead

        def refuse(*args: object, **kwargs: object) -> None:
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr("bayesjudge.io.tables.open", refuse, raising=False)
    try:
        _bad_exit(capsys, _argv(command, path, tmp_path), "locked.csv", "cannot be read")
    finally:
        path.chmod(0o644)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_duplicate_column_names(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = COMMANDS[command][2]
    header, body = text.split("\n", 1)
    first = header.split(",")[0]
    path = write(tmp_path / "dup.csv", f"{header},{first}\n" + "".join(
        f"{row},{row.split(',')[0]}\n" for row in body.strip().split("\n")
    ))  # fmt: skip
    _bad_exit(capsys, _argv(command, path, tmp_path), "names a column more than once", f"'{first}'")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_blank_lines_do_not_shift_the_lines_named(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header, *rows = COMMANDS[command][2].strip().split("\n")
    cells = rows[-1].split(",")
    column = {"baselines": 1, "estimate": 1, "report": 1, "gate": 2, "gate --loop": 2,
              "channel": 2}[command]  # fmt: skip
    cells[column] = "maybe"
    rows[-1] = ",".join(cells)
    text = header + "\n\n" + "\n\n".join(rows) + "\n"  # a blank line after every line
    path = write(tmp_path / "blank.csv", text)
    line = 1 + 2 * len(rows)  # the header, then each row after a blank line
    _bad_exit(capsys, _argv(command, path, tmp_path), f"line {line} has 'maybe'",
              f"column '{header.split(',')[column]}'")  # fmt: skip


def test_ids_007_and_7_are_two_items_and_repeats_name_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rulings = write(
        tmp_path / "r.csv", "item,ruling,verdict,label\n007,1,1,1\n7,1,0,0\n007,1,0,1\n"
    )
    _bad_exit(capsys, ["gate", str(rulings)], "line 4 repeats ('007', 1)")
    outcomes = write(tmp_path / "o.csv", "item,e0,e1\n007,0,1\n7,1,1\n007,1,0\n")
    err = _bad_exit(capsys, ["channel", str(outcomes)], "line 4 repeats '007'")
    assert "line 3" not in err  # "7" is another item


def test_text_in_the_ruling_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rulings = write(tmp_path / "r.csv", "item,ruling,verdict,label\na,1,1,1\na,second,0,1\n")
    _bad_exit(capsys, ["gate", str(rulings)],
              "column 'ruling' must hold whole numbers >= 0: line 3 has 'second'")  # fmt: skip


@pytest.mark.parametrize("missing", ["NA", "null", "None", "nan", "N/A", ""])
def test_missing_labels_are_unlabelled_items(
    missing: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write(tmp_path / "d.csv", f"label,verdict\n1,1\n0,0\n{missing},1\n{missing},0\n")
    code, out, err = run(capsys, "baselines", data, "--json")
    assert code == EXIT_OK, err
    assert json.loads(out)["n_unlabelled"] == 2
    results = write(tmp_path / "r.csv", "item,verdict\na,1\nb,0\nc,1\n")
    gold = write(tmp_path / "g.csv", f"item,label\na,1\nb,0\nc,{missing}\n")
    code, out, err = run(capsys, "baselines", results, "--labels", gold, "--json")
    assert code == EXIT_OK, err
    payload = json.loads(out)
    assert payload["n_unlabelled"] == 1
    assert payload["input"]["join"]["blank_labels"] == 1


def test_no_traceback_from_a_fresh_process(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "bayesjudge", "channel", str(folder)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == EXIT_BAD_INPUT
    assert result.stderr.strip().count("\n") == 0  # one line
    assert "is a directory, not a file" in result.stderr
    assert "Traceback" not in result.stderr


def test_help_lists_the_input_options(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("baselines", "estimate", "report", "gate", "channel"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "reading the data" in out
        assert "--map NAME=COLUMN" in out
        assert "--format" in out
    main_help: Callable[[list[str]], int] = main
    with pytest.raises(SystemExit):
        main_help(["estimate", "--help"])
    out = capsys.readouterr().out
    for flag in ("--labels FILE", "--threshold T", "--scorer NAME", "--epochs", "--scheduler"):
        assert flag in out


def test_io_module_is_fed_bytes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # stdin in process: the reader takes sys.stdin.buffer
    stdin = io.TextIOWrapper(io.BytesIO(JUDGE.encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, err = run(capsys, "estimate", "-", "--method", "exact", "--json")
    assert code == EXIT_OK, err
    assert json.loads(out)["input"]["source"] == "<stdin>"
