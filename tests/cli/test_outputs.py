"""Every command that writes checks its output before any work and never destroys files.

The inputs here are not valid data and the study spec is not valid TOML: a command that read
them before checking its output would fail with another message. So each refusal below also
shows that nothing was read, fitted or written first.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
import threading
from hashlib import sha256
from pathlib import Path

import pytest

from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, named_paths
from bayesjudge.reporting.output import MANIFEST_NAME, lock_output_folder

DEADLINE = 300.0  # seconds: an upper bound for a subprocess, never a wait

# (command, argv before the output option, the output option)
WRITERS = [
    ("report", ["report", "{data}"], "--out"),
    ("estimate", ["estimate", "{data}"], "--out"),
    ("gate", ["gate", "{data}"], "--out"),
    ("channel", ["channel", "{data}"], "--out"),
    ("study", ["study", "{spec}"], "--out"),
]


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp/inputs holds the inputs; the working folder tmp/work holds a file of the user's."""
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "data.csv").write_text("not,valid\n<data>,here\n")
    (inputs / "spec.toml").write_text("this is [not TOML\n")
    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / "mine.txt").write_text("precious")
    monkeypatch.chdir(cwd)
    return tmp_path


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(root).as_posix(): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


def argv_for(template: list[str], root: Path) -> list[str]:
    inputs = root / "inputs"
    values = {"data": str(inputs / "data.csv"), "spec": str(inputs / "spec.toml")}
    return [part.format(**values) for part in template]


def refuses(
    capsys: pytest.CaptureFixture[str], root: Path, argv: list[str], *expected: str
) -> None:
    before = snapshot(root)
    assert main(argv) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1, err  # one line, no traceback
    assert err.startswith(f"bayesjudge {argv[0]}: error: "), err
    for part in expected:
        assert part in err, err
    assert snapshot(root) == before  # nothing created, changed or removed


@pytest.mark.parametrize(("command", "template", "option"), WRITERS, ids=[w[0] for w in WRITERS])
@pytest.mark.parametrize(
    "case",
    ["foreign", "forged-absolute", "forged-traversal", "cwd", "ancestor", "holds-input", "file"],
)
def test_out_refuses_what_it_did_not_write(
    capsys: pytest.CaptureFixture[str],
    work: Path,
    command: str,
    template: list[str],
    option: str,
    case: str,
) -> None:
    if case == "foreign":
        out = work / "theirs"
        out.mkdir()
        (out / "notes.txt").write_text("mine")
        reason = "it is not empty and was not written by bayesjudge"
    elif case.startswith("forged"):
        # a manifest planted to make the next run delete a file outside the folder; its
        # digest is right, so only the rule on names keeps the file
        out = work / "forged"
        out.mkdir()
        victim = work / "work" / "mine.txt"
        name = str(victim) if case == "forged-absolute" else "../work/mine.txt"
        record = {"size": victim.stat().st_size, "sha256": sha256(victim.read_bytes()).hexdigest()}
        manifest = {"tool": "bayesjudge", "format": 2, "kind": "report", "files": {name: record}}
        (out / MANIFEST_NAME).write_text(json.dumps(manifest))
        reason = (
            "it is not empty and was not written by bayesjudge "
            f"(its {MANIFEST_NAME} is not a valid bayesjudge manifest)"
        )
    elif case == "cwd":
        out, reason = Path("."), "it is the current folder"
    elif case == "ancestor":
        out, reason = Path(".."), f"it holds the current folder {work / 'work'}"
    elif case == "holds-input":
        out, reason = work / "inputs", "it holds the input"
    else:
        out = work / "inputs" / "data.csv"
        reason = "it is a regular file, not a folder"
    argv = [*argv_for(template, work), option, str(out)]
    shown = Path(os.path.abspath(out))
    refuses(capsys, work, argv, f"{option}: cannot write output folder {shown}: {reason}")


@pytest.mark.parametrize("case", ["file", "under-file"])
def test_study_figures_refuse_a_file(
    capsys: pytest.CaptureFixture[str], work: Path, case: str
) -> None:
    blocker = work / "work" / "mine.txt"
    figures = blocker if case == "file" else blocker / "figures"
    reason = "it is a regular file, not a folder" if case == "file" else "is not a folder"
    argv = [*argv_for(["study", "{spec}"], work), "--figures", str(figures)]
    refuses(capsys, work, argv, f"--figures: cannot write files into {figures}: ", reason)


@pytest.mark.parametrize(("command", "template", "option"), WRITERS, ids=[w[0] for w in WRITERS])
def test_a_folder_another_run_is_writing_is_refused_at_once(
    capsys: pytest.CaptureFixture[str],
    work: Path,
    command: str,
    template: list[str],
    option: str,
) -> None:
    out = work / "busy"
    held, release = threading.Event(), threading.Event()

    def other_run() -> None:  # another thread: the lock is not shared with it
        with lock_output_folder(out):
            held.set()
            release.wait()

    thread = threading.Thread(target=other_run)
    thread.start()
    try:
        assert held.wait(60)
        argv = [*argv_for(template, work), option, str(out)]
        refuses(capsys, work, argv, "another bayesjudge run is writing it")
    finally:
        release.set()
        thread.join()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_place_fails_at_once(capsys: pytest.CaptureFixture[str], work: Path) -> None:
    locked = work / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        argv = [*argv_for(["report", "{data}"], work), "--out", str(locked / "report")]
        refuses(capsys, work, argv, f"{locked} is not writable")
    finally:
        locked.chmod(0o755)


UMASK = textwrap.dedent(
    """
    import sys
    from bayesjudge.cli.app import main

    stack, spec, root = sys.argv[1:4]
    codes = [
        main(["channel", stack, "--out", f"{root}/runs/report", "--json"]),
        main(["study", spec, "--out", f"{root}/runs/study", "--figures", f"{root}/figs",
              "--no-progress", "--json"]),
    ]
    print(codes, file=sys.stderr)
    sys.exit(max(codes))
    """
)


def test_written_files_and_folders_follow_the_umask(tmp_path: Path) -> None:
    from bayesjudge.channels import simulate_stack

    stack = tmp_path / "stack.csv"
    simulate_stack(200, p0=0.5, c=[0.3], gamma=[0.1], random_seed=1).to_csv(stack, index=False)
    spec = tmp_path / "spec.toml"
    spec.write_text(
        'name = "u"\ndesign = "prevalence"\nreplicates = 2\nchunk_size = 1\n'
        'estimators = ["naive"]\n[grid]\ntheta = [0.5]\n'
        "[fixed]\nq0 = 0.8\nq1 = 0.9\nn = 100\nm1 = 20\nm0 = 20\n"
    )
    out = tmp_path / "out"
    out.mkdir()
    result = subprocess.run(
        [sys.executable, "-c", UMASK, str(stack), str(spec), str(out)],
        capture_output=True,
        timeout=DEADLINE,
        umask=0o027,
    )
    assert result.returncode == 0, result.stderr.decode()
    modes = {p.relative_to(out).as_posix(): p.stat().st_mode & 0o777 for p in out.rglob("*")}
    assert {"runs", "runs/report", "runs/study", "runs/study/chunks", "figs"} <= set(modes)
    assert "runs/report/posterior.nc" in modes
    assert "runs/study/chunks/s00000_r0000000-0000001.nc" in modes
    assert "figs/study_u_mae.png" in modes
    wrong = {
        name: oct(mode)
        for name, mode in modes.items()
        if mode != (0o750 if (out / name).is_dir() else 0o640)
    }
    assert wrong == {}


def test_named_paths_are_the_existing_paths_and_glob_matches(work: Path) -> None:
    inputs = work / "inputs"
    args = argparse.Namespace(
        data=str(inputs / "data.csv"),
        logs=str(inputs / "*.toml"),  # a glob: its matches
        missing=str(inputs / "nothing.csv"),  # nothing to protect
        prior=["pi=beta:1,1", str(inputs)],  # list items count too
        stdin="-",
        k=[1, 2],
        out=str(work / "work"),
    )
    assert named_paths(args, skip=["out"]) == [
        str(inputs / "data.csv"),
        str(inputs / "spec.toml"),
        str(inputs),
    ]


def test_a_glob_input_inside_out_is_refused(capsys: pytest.CaptureFixture[str], work: Path) -> None:
    pattern = str(work / "inputs" / "*.csv")
    argv = ["channel", pattern, "--out", str(work / "inputs")]
    refuses(capsys, work, argv, f"it holds the input {work / 'inputs' / 'data.csv'}")
