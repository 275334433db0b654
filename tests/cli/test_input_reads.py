"""Bounded, correct reading on the command line, and models that refuse what they cannot hold.

Each case runs the command as a user does (a fresh process where the input is a pipe, a
device or a FIFO) and checks the exit code and the one-line message: old Mac line endings
read; standard input, ``/dev/stdin`` and ``<(...)`` are read once; ``/dev/zero`` stops at the
line limit under a memory cap; a panel, a ranking or a plan too large to hold is refused
before anything is allocated, naming the limit.
"""

from __future__ import annotations

import json
import os
import pty
import resource
import select
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_OK, is_named_fifo
from bayesjudge.errors import DataError

#: Address space of the commands run under a memory cap: PyMC's imports need about 1 GB of it,
#: and a read of /dev/zero without a line limit needs all there is.
MEMORY_CAP = 3 << 30
JUDGE = b"label,verdict\n1,1\n1,1\n1,0\n0,0\n0,0\n0,1\n,1\n,0\n,1\n,1\n"
LABELS = b"item,label\na,1\nb,0\n"
RESULTS = b"item,verdict\na,1\nb,0\nc,1\nd,0\n"


def capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def bayesjudge(
    *argv: str, stdin: bytes | None = None, pass_fds: tuple[int, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """Run ``bayesjudge ARGV`` in a fresh process under :data:`MEMORY_CAP`."""
    return subprocess.run(
        [sys.executable, "-m", "bayesjudge", *argv],
        input=None if stdin is None else stdin.decode(),
        capture_output=True,
        text=True,
        check=False,
        pass_fds=pass_fds,
        preexec_fn=capped,
        timeout=300,  # a guard against a hang, far above the seconds these take
    )


def refused(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == EXIT_BAD_INPUT, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0  # one line


# --------------------------------------------------------------------------- line endings
@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
def test_baselines_read_every_line_ending(
    ending: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "judge.csv"
    path.write_bytes(JUDGE.replace(b"\n", ending))
    assert main(["baselines", str(path), "--json"]) == EXIT_OK
    report = json.loads(capsys.readouterr().out)
    assert (report["n_labelled"], report["n_unlabelled"], report["input"]["rows"]) == (6, 4, 10)
    naive = next(e for e in report["estimates"] if e["method"] == "naive")
    assert naive["estimate"] == 0.75  # 3 of the 4 unlabelled items judged PASS


# --------------------------------------------------------------------------- read once
def test_standard_input_as_dev_stdin_is_read_once() -> None:
    result = bayesjudge("baselines", "/dev/stdin", "--json", stdin=JUDGE.replace(b"\n", b"\r"))
    assert result.returncode == EXIT_OK, result.stderr
    report = json.loads(result.stdout)
    assert (report["n_labelled"], report["n_unlabelled"]) == (6, 4)
    assert report["input"]["source"] == "/dev/stdin"


def test_a_pipe_as_dev_fd_is_read_once() -> None:
    """``bayesjudge baselines <(cat judge.csv)``: the path of a pipe's read end."""
    read_fd, write_fd = os.pipe()

    def feed() -> None:
        with os.fdopen(write_fd, "wb") as out:
            out.write(JUDGE)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        result = bayesjudge("baselines", f"/dev/fd/{read_fd}", "--json", pass_fds=(read_fd,))
    finally:
        writer.join()
        os.close(read_fd)
    assert result.returncode == EXIT_OK, result.stderr
    assert json.loads(result.stdout)["n_labelled"] == 6


def test_labels_from_standard_input_are_read_once(tmp_path: Path) -> None:
    results = tmp_path / "results.csv"
    results.write_bytes(RESULTS)
    result = bayesjudge("baselines", str(results), "--labels", "/dev/stdin", "--json", stdin=LABELS)
    assert result.returncode == EXIT_OK, result.stderr
    report = json.loads(result.stdout)
    assert (report["n_labelled"], report["n_unlabelled"]) == (2, 2)
    assert report["input"]["labels"] == "/dev/stdin"


# --------------------------------------------------------------------------- endless input
@pytest.mark.parametrize(
    "argv",
    [
        ["baselines", "/dev/zero"],
        ["estimate", "/dev/zero"],
        ["plan", "/dev/zero", "--target-width", "0.1"],
        ["report", "/dev/zero", "--out", "OUT"],
        ["gate", "/dev/zero"],
        ["channel", "/dev/zero"],
        ["rank", "/dev/zero"],
        ["panel", "/dev/zero"],
        ["baselines", "RESULTS", "--labels", "/dev/zero"],
    ],
    ids=["baselines", "estimate", "plan", "report", "gate", "channel", "rank", "panel", "labels"],
)
def test_dev_zero_stops_at_the_line_limit_under_a_memory_cap(
    argv: list[str], tmp_path: Path
) -> None:
    results = tmp_path / "results.csv"
    results.write_bytes(RESULTS)
    named = {"RESULTS": str(results), "OUT": str(tmp_path / "out")}
    refused(
        bayesjudge(*(named.get(a, a) for a in argv)),
        "/dev/zero: line 1 is longer than 16 MB: is this a data file?",
    )
    assert not (tmp_path / "out").exists()


def test_an_endless_pipe_of_zeros_stops_at_the_line_limit() -> None:
    read_fd, write_fd = os.pipe()
    stop = threading.Event()

    def feed() -> None:
        block = b"\0" * (1 << 16)
        with os.fdopen(write_fd, "wb") as out:
            try:
                while not stop.is_set():
                    out.write(block)
            except BrokenPipeError:  # the reader stopped: what the test waits for
                pass

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        result = bayesjudge("estimate", f"/dev/fd/{read_fd}", pass_fds=(read_fd,))
    finally:
        stop.set()
        os.close(read_fd)
        writer.join()
    refused(result, f"/dev/fd/{read_fd}: line 1 is longer than 16 MB: is this a data file?")


def test_a_fifo_says_it_waits_on_a_terminal(tmp_path: Path) -> None:
    fifo = tmp_path / "judge.fifo"
    os.mkfifo(fifo)
    assert is_named_fifo(str(fifo))
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "bayesjudge", "baselines", str(fifo), "--json"],
        stdout=subprocess.PIPE,
        stderr=terminal,
    )
    os.close(terminal)
    try:
        seen = b""
        while b"waiting for input on FIFO" not in seen:
            ready, _, _ = select.select([controller], [], [], 120)  # a guard against a hang
            assert ready, seen
            seen += os.read(controller, 4096)
        assert str(fifo).encode() in seen
        with open(fifo, "wb") as out:  # the writer the reader waits for
            out.write(JUDGE)
        stdout, _ = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
    assert process.returncode == EXIT_OK
    assert json.loads(stdout)["n_labelled"] == 6


def test_no_fifo_message_for_a_pipe_or_a_file(tmp_path: Path) -> None:
    path = tmp_path / "judge.csv"
    path.write_bytes(JUDGE)
    assert not is_named_fifo(str(path))
    result = bayesjudge("baselines", "/dev/stdin", stdin=JUDGE)
    assert result.returncode == EXIT_OK
    assert "waiting" not in result.stderr


# --------------------------------------------------------------------------- model sizes
def test_a_panel_of_a_thousand_judges_is_refused_before_the_fit(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n_judges = 1_000
    frame = pd.DataFrame(
        rng.integers(0, 2, (30, n_judges)), columns=[f"j{k}" for k in range(n_judges)]
    )
    frame.insert(0, "label", ["1", "0"] * 5 + [""] * 20)
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    refused(
        bayesjudge("panel", str(path), "--no-progress"),
        "the panel model is fitted to at most 50 judges (its curvature at the mode grows as "
        "the cube of 4J + 1 coordinates); the data have 1000 judges: choose at most 50 of them",
    )


def test_the_panel_limit_followed_gets_further() -> None:
    from bayesjudge.panels.data import PanelData
    from bayesjudge.panels.fit import MAX_JUDGES, check_identified

    rng = np.random.default_rng(4)
    verdicts = rng.integers(0, 2, (40, MAX_JUDGES + 1)).astype(float)
    labels = np.array([1.0, 0.0] * 5 + [np.nan] * 30)
    data = PanelData.from_arrays(verdicts, labels=labels)
    with pytest.raises(DataError, match=rf"at most {MAX_JUDGES} judges.*have {MAX_JUDGES + 1}"):
        check_identified(data.patterns(), dependence="random_effect")
    frame = pd.DataFrame(verdicts, columns=[f"j{k}" for k in range(MAX_JUDGES + 1)])
    frame["label"] = labels
    chosen = PanelData.from_wide(frame, item=None, judges=[f"j{k}" for k in range(MAX_JUDGES)])
    check_identified(chosen.patterns(), dependence="random_effect")  # as suggested: passes


def test_a_ranking_of_more_systems_than_the_limit_is_refused(tmp_path: Path) -> None:
    from bayesjudge.systems.fit import MAX_SYSTEMS

    rows = [
        f"s{s},p{i},{(s + i) % 2},{i % 2 if i < 2 else ''}"
        for s in range(MAX_SYSTEMS + 1)
        for i in range(4)
    ]
    path = tmp_path / "systems.csv"
    path.write_text("system,item,verdict,label\n" + "\n".join(rows) + "\n")
    refused(
        bayesjudge("rank", str(path), "--no-progress"),
        f"the systems model fits and ranks at most {MAX_SYSTEMS} systems together (its pairwise "
        f"comparisons grow as the square of their number); the data have {MAX_SYSTEMS + 1} "
        "systems",
    )


def test_a_plan_beyond_its_work_limit_is_refused_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["plan", "--target-width", "1e-6", "--max-labels", "10000000", "--draws", "10000"])
    assert code == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert (
        "the plan would refit the posterior 280,000 times (draws=10000 at each of 19 label" in err
    )
    assert "the most it does is 10,000: lower draws to at most 357" in err


def test_the_plan_limit_followed_gets_further(monkeypatch: pytest.MonkeyPatch) -> None:
    from bayesjudge.prevalence import plan as plan_module
    from bayesjudge.prevalence.data import JudgeCounts

    counts = JudgeCounts(m1=40, x1=36, m0=40, x0=6, n=5000, k=3400)
    monkeypatch.setattr(plan_module, "MAX_REFITS", 12)  # 3 label counts: 4 draws at most
    with pytest.raises(ValueError, match=r"refit the posterior 15 times.*lower draws to at most 4"):
        plan_module.plan_labels(counts, m_grid=[100], max_labels=400, draws=5, random_seed=1)
    plan = plan_module.plan_labels(counts, m_grid=[100], max_labels=400, draws=4, random_seed=1)
    assert [p.m for p in plan.curve] == [0, 100, 400]


def test_more_strata_than_the_limit_are_refused_and_the_unstratified_fit_runs(
    tmp_path: Path,
) -> None:
    from bayesjudge.prevalence.fit import MAX_STRATA

    rng = np.random.default_rng(5)
    n = 3 * (MAX_STRATA + 1)
    frame = pd.DataFrame(
        {
            "label": np.where(np.arange(n) % 3 == 2, "", rng.integers(0, 2, n).astype(str)),
            "verdict": rng.integers(0, 2, n),
            "stratum": [f"s{i // 3}" for i in range(n)],
        }
    )
    path = tmp_path / "strata.csv"
    frame.to_csv(path, index=False)
    refused(
        bayesjudge("estimate", str(path), "--stratified", "--no-progress"),
        f"the stratified model is fitted to at most {MAX_STRATA} strata (each adds its own "
        f"parameters and draws); the data have {MAX_STRATA + 1} strata",
    )
    result = bayesjudge("estimate", str(path), "--method", "exact", "--json")  # as suggested
    assert result.returncode == EXIT_OK, result.stderr
    assert json.loads(result.stdout)["input"]["rows"] == n


def test_a_study_spec_is_read_bounded(tmp_path: Path) -> None:
    refused(
        bayesjudge("study", "/dev/zero"),
        "study spec file '/dev/zero' is larger than 1 MB: is it a study spec?",
    )
    spec = tmp_path / "spec.toml"
    spec.write_bytes(b'name = "caf\xe9"\n')
    refused(bayesjudge("study", str(spec)), f"study spec file {str(spec)!r} is not UTF-8 text")
