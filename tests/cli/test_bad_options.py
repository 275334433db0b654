"""Bad options at the command line (issue 31, round two): each one exits 2 with one line naming
the option, never a traceback, and following the message's suggestion gets further.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_OK
from bayesjudge.examples import example_file


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- --positive/--negative
@pytest.mark.parametrize("negative", ["1", " 1 ", "PASS"])
def test_a_value_both_positive_and_negative_is_refused(
    negative: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write(tmp_path / "a.csv", "label,verdict\n1,1\n0,0\n1,1\n,1\n,0\n")
    positive = "pass" if negative == "PASS" else "1"
    code, _, err = run(capsys, "baselines", data, "--positive", positive, "--negative", negative)
    assert code == EXIT_BAD_INPUT
    assert "--positive and --negative both hold" in err
    assert "give it to one of them" in err
    assert "Traceback" not in err
    # following the suggestion: the value in one of them only
    code, out, err = run(capsys, "baselines", data, "--positive", positive)
    assert code == EXIT_OK, err
    assert "3 labelled, 2 unlabelled items" in out


# --------------------------------------------------------------------------- allocate --p-hat
@pytest.mark.parametrize("p_hat", ["0", "1", "-0.1", "1.5"])
def test_allocate_refuses_a_p_hat_outside_the_open_unit_interval(
    p_hat: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["allocate", "--budget", "100", "--pilot-q0", "0.9", "--pilot-q1", "0.9"]
    argv += ["--pilot-size", "20"]
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--p-hat", p_hat])
    assert exit_.value.code == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"argument --p-hat: must be a number in (0, 1); got '{p_hat}'" in err
    code, out, err = run(capsys, *argv, "--p-hat", "0.5")
    assert code == EXIT_OK, err
    assert "ratio m0 / m1" in out
    assert "inf" not in out


# --------------------------------------------------------------------------- repeated --prior
_PRIOR_COMMANDS: dict[str, tuple[list[str], str]] = {
    "estimate": (["estimate", example_file("judge"), "--method", "exact"], "se"),
    "report": (["report", "--out", "{tmp}/report"], "pi"),
    "plan": (["plan", "--target-width", "0.2", "--max-labels", "4", "--draws", "2"], "sp"),
    "gate": (["gate", example_file("gate")], "omega"),
    "channel": (["channel", example_file("channel")], "rate"),
    "panel": (["panel", example_file("panel")], "loading"),
    "rank": (["rank", example_file("systems")], "ability"),
}


@pytest.mark.parametrize("command", sorted(_PRIOR_COMMANDS))
def test_a_prior_given_twice_is_refused(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, name = _PRIOR_COMMANDS[command]
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    spec = "normal:0,1" if command == "rank" else "beta:2,2"
    code, out, err = run(capsys, *argv, "--prior", f"{name}={spec}", "--prior", f"{name}={spec}")
    assert code == EXIT_BAD_INPUT
    assert (
        f"--prior: prior '{name}' is given twice ({spec} and {spec}); give each prior once" in err
    )
    assert out == ""
    assert not (tmp_path / "report").exists()


def test_a_prior_given_once_gets_further(capsys: pytest.CaptureFixture[str]) -> None:
    argv, _ = _PRIOR_COMMANDS["estimate"]
    code, out, err = run(capsys, *argv, "--prior", "pi=beta:1,1", "--prior", "se=beta:2,2")
    assert code == EXIT_OK, err
    assert "priors pi ~ Beta(1, 1), se ~ Beta(2, 2)," in out


# --------------------------------------------------------------------------- optional dependencies
def _judge_folder(folder: Path) -> Path:
    folder.mkdir()
    write(folder / "a.csv", "label,verdict\n1,1\n0,0\n1,1\n0,1\n,1\n,0\n")
    write(folder / "b.csv", "label,verdict\n1,1\n0,0\n,1\n")
    return folder


@pytest.mark.parametrize("command", ["baselines", "estimate"])
def test_scheduler_without_dask_is_a_message_with_the_install_command(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _judge_folder(tmp_path / "parts")
    argv = [command, folder, "--n-boot", "50"] + (
        ["--method", "exact"] if command == "estimate" else []
    )
    with monkeypatch.context() as patch:  # dask.distributed not installed
        patch.setitem(sys.modules, "distributed", None)
        patch.setitem(sys.modules, "dask.distributed", None)
        code, out, err = run(capsys, *argv, "--scheduler", "tcp://127.0.0.1:1")
    assert code == EXIT_BAD_INPUT
    assert err.startswith(f"bayesjudge {command}: error: reducing files on a Dask cluster needs")
    assert "pip install 'bayesjudge[studies]'" in err
    assert "Traceback" not in err
    assert out == ""
    # installed (as in this test environment), the same command reduces the files on the cluster
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        code, out, err = run(capsys, *argv, "--scheduler", cluster.scheduler_address)
    assert code == EXIT_OK, err
    assert "6 labelled, 3 unlabelled items" in out


@pytest.mark.parametrize("command", ["estimate", "gate"])
def test_an_inspect_log_without_inspect_ai_is_a_message_with_the_install_command(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = write(tmp_path / "run.json", "{}")
    labels = write(tmp_path / "labels.csv", "item,label\na,1\n")
    argv = [command, log, "--format", "inspect", "--labels", labels]
    with monkeypatch.context() as patch:  # inspect_ai not installed
        patch.setitem(sys.modules, "inspect_ai.log", None)
        code, out, err = run(capsys, *argv)
    assert code == EXIT_BAD_INPUT
    assert err.startswith(f"bayesjudge {command}: error: reading Inspect AI logs needs")
    assert "pip install 'bayesjudge[logs]'" in err
    assert "Traceback" not in err
    assert out == ""
    # installed, Inspect itself reads the file, and the next message is about the file
    pytest.importorskip("inspect_ai")
    code, out, err = run(capsys, *argv)
    assert code == EXIT_BAD_INPUT
    assert "run.json" in err
    assert "inspect_ai" not in err


# --------------------------------------------------------------------------- label ids absent
# One rule in every command that takes --labels (bayesjudge.io.labels.report_absent_ids): label
# ids not among the results' ids are warned of and go unused; none among them is an error.
RESULTS = "id,name,verdict\n1,a,1\n2,b,0\n3,c,1\n4,d,0\n5,e,1\n6,f,0\n"
GATE_RULINGS = "id,name,ruling,verdict\n" + "".join(
    f"{i},{n},{r},{v}\n"
    for i, n, v in zip(range(1, 7), "abcdef", "101010", strict=True)
    for r in (1, 2)
)
LABELS = "item,label\na,1\nb,0\nc,1\nd,0\nzz,1\n"
ABSENT = (
    "labels: 1 of 5 label id(s) are not among the results' ids: 'zz'; their labels are not used"
)


@pytest.mark.parametrize(
    "extra",
    [[], ["--epochs", "first"]],
    ids=["streamed", "in memory"],
)
@pytest.mark.parametrize("command", ["estimate", "baselines"])
def test_label_ids_not_among_the_results_are_warned_of(
    command: str, extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write(tmp_path / "results.csv", RESULTS)
    labels = write(tmp_path / "labels.csv", LABELS)
    argv = [command, data, "--labels", labels, "--map", "item=name", *extra, "--n-boot", "50"]
    code, out, err = run(capsys, *argv, *(["--method", "exact"] if command == "estimate" else []))
    assert code == EXIT_OK, err
    assert "4 labelled, 2 unlabelled items" in out
    assert err == f"bayesjudge {command}: warning: {ABSENT}\n"


def test_gate_warns_of_the_same_label_ids(tmp_path: Path) -> None:
    from bayesjudge.cli.app import build_parser
    from bayesjudge.gates.cli import _load

    data = write(tmp_path / "rulings.csv", GATE_RULINGS)
    labels = write(tmp_path / "labels.csv", LABELS)
    args = build_parser().parse_args(
        ["gate", str(data), "--labels", str(labels), "--map", "item=name"]
    )
    with pytest.warns(UserWarning, match=ABSENT.replace("(", r"\(").replace(")", r"\)")):
        rulings, _ = _load(args)
    assert rulings.items.tolist() == list("abcdef")
    assert rulings.label.tolist()[:4] == [1, 0, 1, 0]
    assert np.isnan(rulings.label[4:]).all()


@pytest.mark.parametrize(
    ("command", "data", "extra"),
    [
        ("estimate", RESULTS, ["--method", "exact"]),
        ("estimate", RESULTS, ["--method", "exact", "--epochs", "first"]),
        ("gate", GATE_RULINGS, []),
    ],
)
def test_no_label_id_among_the_results_is_an_error(
    command: str, data: str, extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "results.csv", data)
    labels = write(tmp_path / "labels.csv", LABELS)
    code, out, err = run(capsys, command, path, "--labels", labels, "--map", "item=id", *extra)
    assert code == EXIT_BAD_INPUT
    assert "5 of 5 label id(s) are not among the results' ids: 'a', 'b', 'c', 'd', 'zz'" in err
    assert "no label id is among the results' ids" in err
    assert "--map item=COLUMN" in err
    assert out == ""
    # following the message: the column that holds the labels' ids is read as the item
    if command == "gate":
        from bayesjudge.cli.app import build_parser
        from bayesjudge.gates.cli import _load

        args = build_parser().parse_args(
            [command, str(path), "--labels", str(labels), "--map", "item=name"]
        )
        with pytest.warns(UserWarning, match="1 of 5 label id"):
            rulings, _ = _load(args)
        assert rulings.items.size == 6
    else:
        code, out, err = run(capsys, command, path, "--labels", labels, "--map", "item=name",
                             *extra)  # fmt: skip
        assert code == EXIT_OK, err
        assert "4 labelled, 2 unlabelled items" in out


def test_label_ids_spelled_differently_are_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write(tmp_path / "results.csv", "id,verdict\n007,1\n008,0\n009,1\n")
    labels = write(tmp_path / "labels.csv", "item,label\n007,1\n8,0\n")
    code, _, err = run(capsys, "estimate", data, "--labels", labels, "--map", "item=id",
                       "--method", "exact")  # fmt: skip
    assert code == EXIT_BAD_INPUT
    assert "1 of 2 label id(s) are not among the results' ids: '8'" in err
    assert "(e.g. label id '8' vs result id '008')" in err
    # following the message: the ids made to agree
    write(labels, "item,label\n007,1\n008,0\n")
    code, out, err = run(capsys, "estimate", data, "--labels", labels, "--map", "item=id",
                         "--method", "exact")  # fmt: skip
    assert code == EXIT_OK, err
    assert "2 labelled, 1 unlabelled items" in out


# --------------------------------------------------------------------------- repeated item ids
DUP_IDS = "item,label,verdict\na,1,1\na,0,0\nb,,1\nb,,0\nc,1,1\nd,0,0\n"
REPEATED = "column 'item': 2 id(s) are on several rows, e.g. 'a' (2 rows), and each row counts"


@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "--method", "exact"],
        ["baselines", "--n-boot", "50"],
        ["estimate", "--method", "exact", "--strict"],  # read in memory, not streamed
    ],
    ids=["estimate", "baselines", "estimate in memory"],
)
def test_repeated_item_ids_are_warned_of_with_the_fix(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write(tmp_path / "dup_ids.csv", DUP_IDS)
    code, out, err = run(capsys, argv[0], data, *argv[1:])
    assert code == EXIT_OK, err
    assert "4 labelled, 2 unlabelled items" in out
    assert f"bayesjudge {argv[0]}: warning: {REPEATED}" in err
    assert "1 id(s) have contradictory gold labels (PASS and FAIL), e.g. 'a'" in err
    assert "(on the command line --epochs)" in err
    # following the message: --epochs refuses the contradictory labels, naming the lines
    code, out, err = run(capsys, argv[0], data, *argv[1:], "--epochs", "majority")
    assert code == EXIT_BAD_INPUT
    assert (
        "contradictory gold labels (PASS and FAIL) on their rows, e.g. 'a' (line 2, line 3)" in err
    )
    # corrected, the rows of each item are combined, and nothing is warned of
    write(data, DUP_IDS.replace("a,0,0", "a,1,0"))
    code, out, err = run(capsys, argv[0], data, *argv[1:], "--epochs", "majority")
    assert code == EXIT_OK, err
    assert "several rulings of an item combined by epochs=majority" in out
    assert "3 labelled, 1 unlabelled items" in out  # a: 1 of 2 passed, a tie fails
    assert "warning" not in err


def test_unique_item_ids_are_not_warned_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write(tmp_path / "ids.csv", "item,label,verdict\na,1,1\nb,0,0\nc,,1\nd,,0\n")
    code, _, err = run(capsys, "estimate", data, "--method", "exact")
    assert code == EXIT_OK, err
    assert err == ""


def test_epochs_without_an_item_column_names_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 'uid', not 'id': a column named id is read as the item without --map (issue 26)
    data = write(tmp_path / "ids.csv", "uid,label,verdict\na,1,1\na,1,1\nb,0,0\nc,,1\nd,,0\n")
    code, _, err = run(capsys, "estimate", data, "--method", "exact", "--epochs", "any")
    assert code == EXIT_BAD_INPUT
    assert "these data have neither" in err
    assert "--map item=COLUMN" in err
    code, out, err = run(capsys, "estimate", data, "--method", "exact", "--epochs", "any",
                         "--map", "item=uid")  # fmt: skip
    assert code == EXIT_OK, err
    assert "2 labelled, 2 unlabelled items" in out


def test_the_repeated_id_tally_is_bounded() -> None:
    from bayesjudge.io.problems import RepeatedIds

    tally = RepeatedIds(limit=2)
    tally.add(["a", "b", "a"], np.array([1, 0, 0]))
    tally.add(["c", "b"], np.array([-1, 0]))  # 'c' is past the bound: not remembered
    tally.add(["c"], np.array([-1]))  # so its repeat in a later block goes unnoticed
    assert tally.seen == {"a", "b"}
    assert tally.rows == {"a": 2, "b": 2}
    message = tally.message()
    assert message is not None
    assert message.startswith("column 'item': 2 id(s) are on several rows, e.g. 'a' (2 rows)")
    assert "1 id(s) have contradictory gold labels (PASS and FAIL), e.g. 'a'" in message
    assert "(only the first 2 distinct ids were checked)" in message
    # two files' tallies: an id in both is repeated, with its labels from both
    first, second = RepeatedIds(), RepeatedIds()
    first.add(["x", "y"], np.array([1, -1]))
    second.add(["x", "z", "z"], np.array([0, -1, -1]))
    assert first.message() is None
    first.merge(second)
    assert first.rows == {"x": 2, "z": 2}
    assert "2 id(s) are on several rows, e.g. 'x' (2 rows)" in (first.message() or "")
    assert "contradictory gold labels (PASS and FAIL), e.g. 'x'" in (first.message() or "")


# --------------------------------------------------------------------------- log format versions
LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
PROMPTFOO = LOGS / "promptfoo" / "results.json"


def _promptfoo(tmp_path: Path, version: object, *, drop: str | None = None) -> Path:
    document = json.loads(PROMPTFOO.read_text(encoding="utf-8"))
    document["results"]["version"] = version
    for result in document["results"]["results"]:
        result.pop(drop, None)
    path = tmp_path / f"results-{version}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("version", [99, 2])
def test_an_unknown_promptfoo_version_with_the_fields_is_read_with_a_warning(
    version: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = write(tmp_path / "labels.csv", "item,label\n007,1\n7,0\n")
    argv = ["--labels", labels, "--system", "echo", "--epochs", "majority", "--json"]
    code, out, err = run(capsys, "baselines", PROMPTFOO, *argv, "--n-boot", "50")
    assert code == EXIT_OK, err
    assert err == ""
    expected = json.loads(out)
    code, out, err = run(capsys, "baselines", _promptfoo(tmp_path, version), *argv,
                         "--n-boot", "50")  # fmt: skip
    assert code == EXIT_OK, err
    assert json.loads(out)["estimates"] == expected["estimates"]
    assert (
        f"warning: {tmp_path}/results-{version}.json: results.version is {version}, a promptfoo "
        "format version bayesjudge was not tested on (it reads version 3); the fields "
        "bayesjudge needs are there"
    ) in err


def test_an_unknown_promptfoo_version_without_the_fields_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = write(tmp_path / "labels.csv", "item,label\n007,1\n7,0\n")
    argv = ["--labels", labels, "--system", "echo", "--epochs", "majority", "--method", "exact"]
    log = _promptfoo(tmp_path, 2, drop="success")
    code, out, err = run(capsys, "estimate", log, *argv)
    assert code == EXIT_BAD_INPUT
    assert "results.results[0].success (sample '007'): expected true or false; got None" in err
    assert (
        "results.version is 2, a promptfoo format version bayesjudge was not tested on (it reads "
        "version 3): write the log with a promptfoo that writes version 3"
    ) in err
    assert out == ""
    # following the message: the log in version 3
    code, out, err = run(capsys, "estimate", _promptfoo(tmp_path, 3), *argv)
    assert code == EXIT_OK, err
    assert err == ""
    assert "2 labelled, 2 unlabelled items" in out


def test_a_known_promptfoo_version_missing_a_field_names_no_version(tmp_path: Path) -> None:
    from bayesjudge.errors import DataError
    from bayesjudge.io.logs import read_eval_log

    with pytest.raises(DataError, match=r"expected true or false; got None$"):
        read_eval_log(_promptfoo(tmp_path, 3, drop="success"), tool="promptfoo")


def test_a_newer_inspect_log_format_names_the_upgrade(
    inspect_run: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Inspect checks its log format version itself: older versions are read, newer refused
    document = json.loads(Path(inspect_run.json).read_text(encoding="utf-8"))
    assert document["version"] == 2
    document["version"] = 99
    path = write(tmp_path / "run-99.json", json.dumps(document))
    labels = write(tmp_path / "labels.csv", "item,label\n007,1\n7,0\n")
    argv = ["--labels", labels, "--scorer", "grade", "--partial", "fail", "--epochs", "majority"]
    code, out, err = run(capsys, "estimate", path, *argv, "--method", "exact")
    assert code == EXIT_BAD_INPUT
    assert "run-99.json: the log's format is newer than inspect_ai" in err
    assert (
        "(Unable to read version 99 of log format.): upgrade it, pip install -U inspect_ai" in err
    )
    assert out == ""
