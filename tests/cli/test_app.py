"""The command line's one error policy: Ctrl-C, a full disk, a closed pipe.

Subprocesses are synchronised with files and pipes, never with sleeps that race: the Ctrl-C
test waits for the study's first chunk file before it sends SIGINT. A full disk is simulated
in-process: the file write of the NetCDF files (``Path.write_bytes``) fails with ENOSPC.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import xarray as xr

from bayesjudge.channels import simulate_stack
from bayesjudge.cli.app import build_parser, main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK
from bayesjudge.reporting.output import write_manifest

DEADLINE = 300.0  # seconds: an upper bound for a subprocess to reach a step, never a wait
# The console script, with Python's own Ctrl-C handler even where the test runner was started
# with SIGINT ignored (a background job): then Python would leave it ignored in the child.
ENTRY = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from bayesjudge.cli.app import main; sys.exit(main())"
)
LONG_STUDY = (
    'name = "long"\ndesign = "prevalence"\nreplicates = 200000\nchunk_size = 200\n'
    'estimators = ["naive"]\n[grid]\ntheta = [0.5]\n'
    "[fixed]\nq0 = 0.8\nq1 = 0.9\nn = 100\nm1 = 20\nm0 = 20\n"
)
SMALL_STUDY = LONG_STUDY.replace("200000", "4").replace("200\n", "2\n", 1)


def test_ctrl_c_ends_quietly_with_130(tmp_path: Path) -> None:
    spec = tmp_path / "long.toml"
    spec.write_text(LONG_STUDY)
    out = tmp_path / "study"
    process = subprocess.Popen(
        [sys.executable, "-c", ENTRY, "study", str(spec), "--out", str(out), "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        end = time.monotonic() + DEADLINE
        while not list(out.glob("chunks/*.nc")) and process.poll() is None:
            assert time.monotonic() < end, "the study wrote no chunk"
            time.sleep(0.05)
        assert process.poll() is None, process.communicate()[1].decode()
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == EXIT_INTERRUPTED
    assert stderr == b"bayesjudge: interrupted\n"
    assert stdout == b""
    # what was finished is kept whole, nothing half-written is left, the lock is released
    chunks = sorted(out.glob("chunks/*.nc"))
    assert 1 <= len(chunks) < 1000
    for chunk in chunks:
        with xr.open_dataset(chunk, engine="h5netcdf") as ds:
            assert ds.sizes["replicate"] == 200
    assert not list(out.rglob(".*bayesjudge-tmp-*"))
    assert sorted(os.listdir(tmp_path)) == ["long.toml", "study"]


@pytest.fixture
def ctrl_c_reaches_python() -> Iterator[None]:
    """Python's own Ctrl-C handler for the test, as in a terminal.

    A test runner started as a background job (``pytest &``) has SIGINT ignored, and the command
    line then leaves Ctrl-C alone (as it should), so these tests would see no interrupt at all.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class _Finaliser:
    """An object whose finaliser gets the Ctrl-C: there ``KeyboardInterrupt`` cannot propagate."""

    def __del__(self) -> None:
        signal.raise_signal(signal.SIGINT)


@pytest.mark.usefixtures("ctrl_c_reaches_python")
def test_a_ctrl_c_swallowed_by_a_finaliser_still_ends_the_study(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Python prints "Exception ignored in ..." for a KeyboardInterrupt raised in a finaliser
    # (xarray and h5py run many while writing) and carries on; the study must still stop.
    from bayesjudge.studies import runner

    spec = tmp_path / "small.toml"
    spec.write_text(SMALL_STUDY)
    out = tmp_path / "study"
    chunks: list[tuple[int, int, int]] = []
    run_chunk = runner._run_chunk

    def interrupted_chunk(spec: object, *chunk: int) -> object:
        chunks.append(chunk)
        _Finaliser()  # dropped at once
        return run_chunk(spec, *chunk)

    monkeypatch.setattr(runner, "_run_chunk", interrupted_chunk)
    handler = signal.getsignal(signal.SIGINT)
    assert main(["study", str(spec), "--out", str(out), "--no-progress"]) == EXIT_INTERRUPTED
    assert capsys.readouterr() == ("", "bayesjudge: interrupted\n")
    assert len(chunks) == 1  # the next checkpoint stopped it: no second chunk was started
    assert not list(out.glob("chunks/*.nc"))  # the interrupted chunk was not written
    assert signal.getsignal(signal.SIGINT) is handler  # the command line's handler is removed


@pytest.mark.usefixtures("ctrl_c_reaches_python")
def test_a_ctrl_c_swallowed_near_the_end_of_a_command_is_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import bayesjudge as bj
    from bayesjudge.prevalence import cli as prevalence_cli

    data = tmp_path / "judge.csv"
    bj.load_example("judge").to_csv(data, index=False)
    baselines = prevalence_cli._cmd_baselines

    def swallowing(args: object) -> int:
        code = baselines(args)
        _Finaliser()
        return code

    monkeypatch.setattr(prevalence_cli, "_cmd_baselines", swallowing)
    assert main(["baselines", str(data)]) == EXIT_INTERRUPTED
    assert capsys.readouterr().err == "bayesjudge: interrupted\n"
    # and a later command in the same process is not interrupted by the old Ctrl-C
    monkeypatch.setattr(prevalence_cli, "_cmd_baselines", baselines)
    assert main(["baselines", str(data)]) == EXIT_OK


def _full(self: Path, data: object) -> int:
    """A file write that finds the disk full (NetCDF files are written with write_bytes)."""
    with open(self, "wb") as stream:
        stream.write(b"half")
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))


def test_a_full_disk_while_writing_a_study_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "small.toml"
    spec.write_text(SMALL_STUDY)
    out = tmp_path / "study"
    monkeypatch.setattr(Path, "write_bytes", _full)
    assert main(["study", str(spec), "--out", str(out), "--no-progress"]) == EXIT_BAD_INPUT
    captured = capsys.readouterr()
    chunk = out / "chunks" / "s00000_r0000000-0000002.nc"
    assert captured.err == f"bayesjudge study: error: {chunk}: No space left on device\n"
    assert not (out / "chunks").exists() or not os.listdir(out / "chunks")


def test_a_full_disk_while_writing_a_report_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = tmp_path / "stack.csv"
    simulate_stack(200, p0=0.5, c=[0.3], gamma=[0.1], random_seed=1).to_csv(stack, index=False)
    out = tmp_path / "report"
    out.mkdir()
    (out / "report.html").write_text("previous")
    write_manifest(out, kind="report")  # a report an earlier run wrote
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    monkeypatch.setattr(Path, "write_bytes", _full)
    assert main(["channel", str(stack), "--out", str(out)]) == EXIT_BAD_INPUT
    captured = capsys.readouterr()
    assert captured.err == (
        f"bayesjudge channel: error: cannot write output folder {out}: No space left on device "
        "(writing posterior.nc)\n"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(os.listdir(tmp_path)) == ["report", "stack.csv"]


@pytest.mark.parametrize(
    "argv",
    [
        # more than a pipe's buffer: the write itself fails
        ["estimate", "{data}", "--method", "exact", "--json"],
        # a few bytes, buffered: the failure comes when the buffer is flushed
        ["allocate", "--budget", "10", "--p-hat", "0.5", "--pilot-q0", "0.8", "--pilot-q1",
         "0.9", "--pilot-size", "5", "--json"],
    ],
    ids=["estimate", "allocate"],
)  # fmt: skip
def test_a_closed_output_pipe_ends_quietly(tmp_path: Path, argv: list[str]) -> None:
    import bayesjudge as bj

    data = tmp_path / "judge.csv"
    bj.load_example("judge").to_csv(data, index=False)
    read_end, write_end = os.pipe()
    os.close(read_end)  # `| head` that has already gone: every write finds the pipe closed
    try:
        result = subprocess.run(
            [sys.executable, "-c", ENTRY, *(a.format(data=data) for a in argv)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=DEADLINE,
            env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},
        )
    finally:
        os.close(write_end)
    assert result.stderr == b""
    assert result.returncode == EXIT_OK


def test_a_broken_pipe_that_is_not_stdout_is_an_error(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    import bayesjudge.prevalence.cli as prevalence_cli

    def lost(args: object) -> int:
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE), "tcp://scheduler:8786")

    monkeypatch.setattr(prevalence_cli, "_cmd_allocate", lost)
    argv = ["allocate", "--budget", "10", "--p-hat", "0.5", "--pilot-q0", "0.8"]
    code = main([*argv, "--pilot-q1", "0.9", "--pilot-size", "5"])
    assert code == EXIT_BAD_INPUT
    expected = "bayesjudge allocate: error: tcp://scheduler:8786: Broken pipe\n"
    assert capfd.readouterr().err == expected


@pytest.mark.parametrize(
    ("example", "command", "module", "attribute", "handler"),
    [
        ("gate", "gate", "bayesjudge.gates.cli", "rulings", "run_gate"),
        ("channel", "channel", "bayesjudge.channels.cli", "outcomes", "_cmd_channel"),
        ("systems", "rank", "bayesjudge.systems.cli", "data", "_cmd_rank"),
        ("panel", "panel", "bayesjudge.panels.cli", "data", "run_panel"),
    ],
)
def test_report_example_runs_that_familys_command_on_its_bundled_data(
    monkeypatch, tmp_path, example, command, module, attribute, handler
):
    import importlib

    seen = {}

    def fake(args):
        seen["args"] = args
        return 0

    monkeypatch.setattr(importlib.import_module(module), handler, fake)
    out = tmp_path / "report"
    argv = ["report", "--example", example, "--out", str(out), "--random-seed", "4"]
    assert main([*argv, "--no-progress"]) == 0
    args = seen["args"]
    given = getattr(args, attribute)
    assert (given[0] if isinstance(given, list) else given).endswith(f"{example}_example.csv")
    assert args.out == str(out)
    assert args.random_seed == 4
    assert args.source_label == f"example:{example}"
    assert getattr(args, "by_slice", True) is True  # the channel example fits its slices
    fresh = build_parser().parse_args([command, "x.csv"])
    assert args.draws == fresh.draws  # the family's own default, not the report's


def test_report_example_and_data_together_is_an_error(capsys, tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("label,verdict\n1,1\n0,0\n,1\n")
    code = main(["report", str(data), "--example", "gate", "--out", str(tmp_path / "r")])
    assert code == 2
    assert "give DATA or --example, not both" in capsys.readouterr().err
