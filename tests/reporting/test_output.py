"""Tests for bayesjudge.reporting.output: safe, crash-proof output folders and files.

Crash tests run the writer in a subprocess that stops at a named step (the subprocess wraps
one of the writer's functions so that reaching the step writes its name to a pipe and
blocks); the test reads the pipe, SIGKILLs the writer, and checks what is left. No test
sleeps on a guess: every wait reads a pipe or polls with a generous deadline.
"""

from __future__ import annotations

import errno
import hashlib
import html
import json
import os
import re
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bayesjudge.errors import DataError
from bayesjudge.reporting import output
from bayesjudge.reporting.output import (
    MANIFEST_NAME,
    OutputError,
    check_output_files,
    check_output_folder,
    claim_output_folder,
    escape_markdown,
    escape_markdown_prose,
    lock_output_folder,
    output_folder,
    read_manifest,
    recover_output_folder,
    write_bytes_atomically,
    write_file_atomically,
    write_manifest,
    write_text_atomically,
)

DEADLINE = 60.0  # seconds: an upper bound for a subprocess to reach a step, never a wait

WRITER = textwrap.dedent(
    """
    import os, sys, threading
    from pathlib import Path
    from bayesjudge.reporting import output

    target, version, scheme, step, fd = sys.argv[1:6]

    def pause():
        os.write(int(fd), f"{step}\\n".encode())
        threading.Event().wait()

    def wrap(name, *, before=False, when=lambda *args: True):
        original = getattr(output, name)

        def wrapper(*args, **kwargs):
            if before and when(*args):
                pause()
            result = original(*args, **kwargs)
            if not before and when(*args) and result is not False:
                pause()
            return result

        setattr(output, name, wrapper)

    def aside(source, destination):
        return "bayesjudge-old-" in destination.name

    def discard(previous, *, original=output._discard, unlink=os.unlink):
        def unlink_then_pause(*args, **kwargs):
            unlink(*args, **kwargs)
            pause()

        os.unlink = unlink_then_pause  # the first file of the previous report removed
        original(previous)

    if scheme == "renames":
        output._exchange = lambda first, second: False
    if step == "locked":
        wrap("_recover", before=True)
    elif step in {"staged", "complete", "exchanged"}:
        wrap({"staged": "_make_staging", "complete": "_seal", "exchanged": "_exchange"}[step])
    elif step == "moving-aside":
        wrap("_rename", before=True, when=aside)
    elif step == "moved-aside":
        wrap("_rename", when=aside)
    elif step == "switched":
        wrap("_rename", when=lambda source, destination: destination == Path(target))
    elif step == "removing":
        output._discard = discard
    with output.output_folder(target) as staging:
        (staging / "a.txt").write_text(version)
        if step == "body":
            pause()
        (staging / "sub").mkdir()
        (staging / "sub" / "b.txt").write_text(version + "-b")
    """
)


# --------------------------------------------------------------------------- helpers
def write_report(staging: Path, version: str) -> None:
    (staging / "a.txt").write_text(version)
    (staging / "sub").mkdir()
    (staging / "sub" / "b.txt").write_text(version + "-b")


def assert_complete(folder: Path, version: str) -> None:
    """The folder holds exactly the report ``version``, as its manifest records it."""
    manifest = read_manifest(folder)
    assert manifest is not None, f"{folder} has no manifest"
    assert manifest.kind == "report"
    assert sorted(manifest.files) == ["a.txt", "sub/b.txt"]
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        MANIFEST_NAME,
        "a.txt",
        "sub/b.txt",
    ]
    assert (folder / "a.txt").read_text() == version
    assert (folder / "sub" / "b.txt").read_text() == version + "-b"
    for name, record in manifest.files.items():
        data = (folder / name).read_bytes()
        assert record.size == len(data)
        assert record.sha256 == hashlib.sha256(data).hexdigest()


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every entry under ``root`` (root included) with its bytes (None for folders)."""
    entries: dict[str, bytes | None] = {}
    for path in [root, *sorted(root.rglob("*"))]:
        key = path.relative_to(root).as_posix()
        entries[key] = None if path.is_dir() else path.read_bytes()
    return entries


def readline(descriptor: int, *, process: subprocess.Popen[bytes] | None = None) -> str:
    """Read one line from a pipe, failing (not hanging) if nothing comes before DEADLINE."""
    data = b""
    end = time.monotonic() + DEADLINE
    while not data.endswith(b"\n"):
        ready, _, _ = select.select([descriptor], [], [], max(0.0, end - time.monotonic()))
        if not ready:
            pytest.fail(f"no line within {DEADLINE} s (read so far: {data!r})")
        chunk = os.read(descriptor, 1)
        if not chunk:
            detail = ""
            if process is not None:
                process.wait()
                detail = process.stderr.read().decode() if process.stderr else ""
            pytest.fail(f"the writer ended before reaching its step: {detail}")
        data += chunk
    return data.decode().strip()


def start_writer(
    target: Path, version: str, *, step: str, scheme: str = "exchange"
) -> subprocess.Popen[bytes]:
    """Start a writer of ``target`` that stops at ``step``; return once it is there."""
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(target), version, scheme, step, str(write_end)],
        pass_fds=(write_end,),
        stderr=subprocess.PIPE,
        cwd=target.parent,
    )
    os.close(write_end)
    try:
        assert readline(read_end, process=process) == step
    except BaseException:
        process.kill()
        process.wait()
        raise
    finally:
        os.close(read_end)
    return process


def write_then_fail(target: Path, error: BaseException) -> None:
    with output_folder(target) as staging:
        (staging / "a.txt").write_text("half")
        raise error


def write_with(target: Path, body: Callable[[Path], None]) -> None:
    with output_folder(target) as staging:
        body(staging)


def kill(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL


@pytest.fixture
def parent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder to hold output folders; the working directory is elsewhere."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


@pytest.fixture(params=["exchange", "renames"])
def scheme(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "renames":  # the switch where the exchange is not available
        monkeypatch.setattr(output, "_exchange", lambda first, second: False)
    return str(request.param)


# --------------------------------------------------------------------------- refusals
def refused(path: Path | str, *, inputs: tuple[Path, ...] = (), match: str) -> None:
    """Both the check and the writer refuse ``path``; the writer's block never runs."""
    with pytest.raises(OutputError, match=match) as info:
        check_output_folder(path, inputs=inputs)
    assert str(Path(os.path.abspath(path))) in str(info.value)
    with pytest.raises(OutputError, match=match), output_folder(path, inputs=inputs):
        pytest.fail("the writer ran its block for a refused folder")


def test_output_error_is_a_data_error() -> None:
    assert issubclass(OutputError, DataError)


def test_refuses_a_regular_file(parent: Path) -> None:
    target = parent / "report"
    target.write_text("precious")
    before = snapshot(parent)
    refused(target, match="is a regular file, not a folder")
    assert snapshot(parent) == before


def test_refuses_a_named_pipe(parent: Path) -> None:
    os.mkfifo(parent / "pipe")
    refused(parent / "pipe", match="is a named pipe, not a folder")


def test_refuses_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "d.csv").write_text("y,yhat\n1,1\n")
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    refused(Path("."), match="is the current folder")
    refused(Path("sub/.."), match="is the current folder")
    assert snapshot(tmp_path) == before


def test_refuses_an_ancestor_of_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    (inner / "d.csv").write_text("y\n1\n")
    monkeypatch.chdir(inner)
    before = snapshot(tmp_path)
    refused(tmp_path / "a", match="holds the current folder")
    refused(Path(".."), match="holds the current folder")
    assert snapshot(tmp_path) == before


def test_refuses_a_folder_holding_an_input(parent: Path) -> None:
    folder = parent / "p"
    folder.mkdir()
    data = folder / "d.csv"
    data.write_text("y,yhat\n1,1\n")
    before = snapshot(parent)
    refused(folder, inputs=(data,), match="holds the input")
    refused(parent, inputs=(data,), match="holds the input")
    assert snapshot(parent) == before


def test_refuses_a_report_folder_holding_an_input(parent: Path) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    link = parent / "link.nc"
    link.symlink_to(target / "a.txt")  # the input reaches into the folder through a link
    before = snapshot(parent)
    refused(target, inputs=(target / "a.txt",), match="holds the input")
    refused(target, inputs=(link,), match="holds the input")
    assert snapshot(parent) == before


def test_inputs_elsewhere_and_stdin_are_fine(parent: Path) -> None:
    data = parent / "d.csv"
    data.write_text("y\n1\n")
    assert check_output_folder(parent / "report", inputs=("-", data)) == parent / "report"


def test_refuses_a_non_empty_folder_it_did_not_write(parent: Path) -> None:
    folder = parent / "mine"
    (folder / "deep").mkdir(parents=True)
    (folder / "deep" / "notes.txt").write_text("keep me")
    before = snapshot(parent)
    refused(folder, match="not written by bayesjudge")
    assert snapshot(parent) == before


def test_refuses_a_foreign_manifest(parent: Path) -> None:
    folder = parent / "other"
    folder.mkdir()
    (folder / "a.txt").write_text("theirs")
    (folder / MANIFEST_NAME).write_text(json.dumps({"tool": "other", "kind": "report"}))
    before = snapshot(parent)
    refused(folder, match="not written by bayesjudge")
    assert snapshot(parent) == before


def test_refuses_a_path_under_a_regular_file(parent: Path) -> None:
    blocker = parent / "file.txt"
    blocker.write_text("precious")
    before = snapshot(parent)
    refused(blocker / "report", match="is not a folder, so nothing can be created")
    refused(blocker / "deeper" / "report", match="is not a folder, so nothing can be created")
    assert snapshot(parent) == before


def test_refuses_a_symbolic_link(parent: Path) -> None:
    real = parent / "real"
    real.mkdir()
    (parent / "link").symlink_to(real)
    refused(parent / "link", match="symbolic link")


def test_refuses_a_report_folder_with_an_added_file(parent: Path) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    (target / "sub" / "my-notes.md").write_text("mine")
    before = snapshot(parent)
    refused(target, match=r"did not write \(sub/my-notes.md\)")
    assert snapshot(parent) == before


def test_refuses_a_report_folder_with_a_changed_file(parent: Path) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    (target / "a.txt").write_text("v1, with my notes")
    before = snapshot(parent)
    refused(target, match=r"changed since \(a.txt\)")
    assert snapshot(parent) == before


def test_refuses_a_study_folder_for_a_report_and_the_reverse(parent: Path) -> None:
    study = parent / "study"
    study.mkdir()
    (study / "spec.json").write_text("{}")
    write_manifest(study, kind="study")
    refused(study, match="holds a bayesjudge study, not a report")
    assert check_output_folder(study, kind="study") == study
    report = parent / "report"
    with output_folder(report) as staging:
        write_report(staging, "v1")
    with pytest.raises(OutputError, match="holds a bayesjudge report, not a study"):
        check_output_folder(report, kind="study")


def test_an_unknown_kind_lists_the_allowed_ones(parent: Path) -> None:
    with pytest.raises(ValueError, match="kind must be one of 'report', 'study'; got 'rep'"):
        check_output_folder(parent / "r", kind="rep")  # type: ignore[arg-type]


def test_a_refused_write_leaves_no_lock_and_no_parents(parent: Path) -> None:
    target = parent / "new" / "deeper" / "report"
    with pytest.raises(RuntimeError, match="boom"):
        write_then_fail(target, RuntimeError("boom"))
    assert snapshot(parent) == {".": None}


# --------------------------------------------------------------------------- writing
def test_writes_a_new_folder_with_its_manifest(parent: Path) -> None:
    target = parent / "new" / "report"
    with output_folder(target) as staging:
        assert staging.parent == target.parent
        write_report(staging, "v1")
    assert_complete(target, "v1")
    manifest = json.loads((target / MANIFEST_NAME).read_text())
    assert manifest["tool"] == "bayesjudge"
    assert manifest["version"] == output.__version__
    assert manifest["created"].endswith("+00:00")
    assert os.listdir(target.parent) == ["report"]  # no lock or staging folder left


def test_replaces_a_folder_it_wrote(parent: Path, scheme: str) -> None:
    target = parent / "report"
    for version in ("v1", "v2", "v3"):
        with output_folder(target) as staging:
            write_report(staging, version)
        assert_complete(target, version)
        assert os.listdir(parent) == ["report"]


def test_replaces_an_empty_folder(parent: Path, scheme: str) -> None:
    target = parent / "report"
    target.mkdir()
    with output_folder(target) as staging:
        write_report(staging, "v1")
    assert_complete(target, "v1")
    assert os.listdir(parent) == ["report"]


def test_a_failing_block_leaves_the_old_report(parent: Path) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    with pytest.raises(KeyboardInterrupt):
        write_then_fail(target, KeyboardInterrupt())
    assert_complete(target, "v1")
    assert os.listdir(parent) == ["report"]


def test_files_that_appear_during_the_write_are_kept(parent: Path) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")

    def meanwhile(staging: Path) -> None:
        write_report(staging, "v2")
        (target / "late.txt").write_text("written by someone else meanwhile")

    with pytest.warns(RuntimeWarning, match="kept there"):
        write_with(target, meanwhile)
    assert_complete(target, "v2")
    (kept,) = [p for p in parent.iterdir() if p.name != "report"]
    assert (kept / "late.txt").read_text() == "written by someone else meanwhile"
    assert sorted(os.listdir(kept)) == [MANIFEST_NAME, "late.txt"]


UMASK_SCRIPT = textwrap.dedent(
    """
    import json, os, stat, sys
    from pathlib import Path
    from bayesjudge.reporting.output import (
        output_folder, write_file_atomically, write_text_atomically)

    root = Path(sys.argv[1])
    modes = {}
    for umask in (0o027, 0o002):
        os.umask(umask)
        target = root / f"u{umask:03o}" / "new" / "report"
        with output_folder(target) as staging:
            (staging / "plain.txt").write_text("x")
            write_text_atomically(staging / "atomic.txt", "x")
            (staging / "sub").mkdir()
        lone = write_file_atomically(root / f"u{umask:03o}" / "lone.txt",
                                     lambda p: p.write_text("x"))
        paths = {
            "parent": target.parent, "folder": target, "plain": target / "plain.txt",
            "atomic": target / "atomic.txt", "sub": target / "sub",
            "manifest": target / ".bayesjudge-manifest.json", "lone": lone,
        }
        modes[f"{umask:03o}"] = {k: stat.S_IMODE(os.stat(p).st_mode) for k, p in paths.items()}
    print(json.dumps(modes))
    """
)


def test_files_and_folders_follow_the_umask(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", UMASK_SCRIPT, str(tmp_path)],
        capture_output=True,
        check=True,
        timeout=DEADLINE,
    )
    modes = json.loads(result.stdout)
    for umask_text, found in modes.items():
        umask = int(umask_text, 8)
        folders, files = 0o777 & ~umask, 0o666 & ~umask
        assert found == {
            "parent": folders,
            "folder": folders,
            "sub": folders,
            "plain": files,
            "atomic": files,
            "manifest": files,
            "lone": files,
        }, umask_text


# --------------------------------------------------------------------------- concurrency
def test_a_second_writer_is_refused_at_once(parent: Path) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    first = start_writer(target, "v2", step="staged")
    try:
        before = snapshot(parent)
        with (
            pytest.raises(OutputError, match=f"{target}: another bayesjudge run is writing it"),
            output_folder(target) as staging,
        ):
            pytest.fail("the second writer ran its block")
        with pytest.raises(OutputError, match="another bayesjudge run"):
            recover_output_folder(target)
        assert snapshot(parent) == before  # the first writer's staging folder is untouched
    finally:
        kill(first)
    # a killed holder leaves no stale lock: the next writer goes ahead and cleans up
    with output_folder(target) as staging:
        write_report(staging, "v3")
    assert_complete(target, "v3")
    assert os.listdir(parent) == ["report"]


# --------------------------------------------------------------------------- claiming
def test_a_claim_checks_before_the_work_and_holds_the_lock(parent: Path) -> None:
    target = parent / "runs" / "report"
    with claim_output_folder(target) as claimed:
        assert claimed == target
        assert sorted(os.listdir(parent / "runs")) == [".report.bayesjudge-lock"]
        # another thread of this process is refused like another run ...
        errors: list[BaseException] = []

        def second() -> None:
            try:
                with lock_output_folder(target):
                    pass
            except OutputError as exc:
                errors.append(exc)

        thread = threading.Thread(target=second)
        thread.start()
        thread.join()
        assert len(errors) == 1
        assert "another bayesjudge run is writing it" in str(errors[0])
        # ... while this thread writes through the lock it holds
        with output_folder(target) as staging:
            write_report(staging, "v1")
    assert_complete(target, "v1")
    assert sorted(os.listdir(parent / "runs")) == ["report"]  # the lock file is gone


def test_a_claim_that_writes_nothing_leaves_nothing(parent: Path) -> None:
    with claim_output_folder(parent / "new" / "deeper" / "report"):
        pass
    with (
        pytest.raises(RuntimeError, match="fit failed"),
        claim_output_folder(parent / "new" / "deeper" / "report"),
    ):
        raise RuntimeError("fit failed")
    assert snapshot(parent) == {".": None}


def test_a_claim_refuses_before_creating_anything(parent: Path) -> None:
    data = parent / "data" / "d.csv"
    data.parent.mkdir()
    data.write_text("label,verdict\n")
    before = snapshot(parent)
    for path, match in [
        (data.parent, "it holds the input"),
        (data, "it is a regular file, not a folder"),
        (data / "report", "is not a folder, so nothing can be created"),
    ]:
        with pytest.raises(OutputError, match=match), claim_output_folder(path, inputs=[data]):
            pytest.fail("the claim ran its block for a refused folder")
    assert snapshot(parent) == before


def test_a_claim_of_a_folder_another_process_writes_is_refused(parent: Path) -> None:
    target = parent / "report"
    first = start_writer(target, "v1", step="staged")
    try:
        with (
            pytest.raises(OutputError, match="another bayesjudge run"),
            claim_output_folder(target),
        ):
            pytest.fail("claimed a folder another process holds")
    finally:
        kill(first)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_is_refused_like_another_run(parent: Path) -> None:
    target = parent / "report"
    with lock_output_folder(target):
        pid = os.fork()
        if pid == 0:  # the child inherits the parent's hold, and must not use it
            try:
                with lock_output_folder(target):
                    os._exit(1)
            except OutputError as exc:
                os._exit(0 if "another bayesjudge run is writing it" in str(exc) else 2)
            except BaseException:
                os._exit(3)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert os.listdir(parent) == []


def test_the_lock_is_the_same_through_a_linked_parent(parent: Path) -> None:
    (parent / "real").mkdir()
    (parent / "link").symlink_to(parent / "real")
    with claim_output_folder(parent / "link" / "report"):
        with output_folder(parent / "real" / "report") as staging:  # this thread holds it
            write_report(staging, "v1")
        assert sorted(os.listdir(parent / "real")) == [".report.bayesjudge-lock", "report"]
    assert_complete(parent / "real" / "report", "v1")
    assert os.listdir(parent / "real") == ["report"]


# --------------------------------------------------------------------------- write errors
def test_a_full_disk_names_the_destination_and_leaves_it(
    parent: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    before = snapshot(parent)

    def full(path: Path) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.fspath(path))

    def body(staging: Path) -> None:
        (staging / "a.txt").write_text("v2")
        write_file_atomically(staging / "sub" / "posterior.nc", full)

    with pytest.raises(OutputError) as info:
        write_with(target, body)
    assert str(info.value) == (
        f"cannot write output folder {target}: No space left on device (writing sub/posterior.nc)"
    )
    assert isinstance(info.value.__cause__, OSError)
    assert snapshot(parent) == before


def test_a_failing_file_write_names_the_file_not_its_temporary(parent: Path) -> None:
    target = parent / "chunk.nc"

    def full(path: Path) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.fspath(path))

    def denied(path: Path) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), "/elsewhere/input.csv")

    with pytest.raises(OSError, match="No space left on device") as info:
        write_file_atomically(target, full)
    assert info.value.errno == errno.ENOSPC
    assert info.value.filename == os.fspath(target)
    with pytest.raises(PermissionError) as denial:  # about another file: passed on as it is
        write_file_atomically(target, denied)
    assert denial.value.filename == "/elsewhere/input.csv"
    assert os.listdir(parent) == []


# --------------------------------------------------------------------------- shared folders
def test_files_go_into_a_shared_folder_beside_others(parent: Path) -> None:
    shared = parent / "static"
    shared.mkdir()
    (shared / "logo.png").write_bytes(b"mine")
    assert check_output_files(shared, names=["fig.png"]) == shared
    write_bytes_atomically(shared / "fig.png", b"\x89PNG")
    assert check_output_files(shared, names=["fig.png"]) == shared  # replaced next time
    (parent / "link").symlink_to(shared)
    assert check_output_files(parent / "link", names=["fig.png"]) == parent / "link"
    assert check_output_files(parent / "new" / "figures") == parent / "new" / "figures"
    assert sorted(os.listdir(shared)) == ["fig.png", "logo.png"]
    assert not (parent / "new").exists()


@pytest.mark.parametrize(
    ("case", "match"),
    [
        ("file", "cannot write files into .*/blocker: it is a regular file, not a folder"),
        ("under-file", "blocker is not a folder, so nothing can be created in it"),
        ("name-is-folder", "fig.png is a folder, not a file"),
        ("name-is-input", "fig.png is an input; choose another folder"),
    ],
)
def test_refuses_a_folder_that_cannot_receive_the_files(
    parent: Path, case: str, match: str
) -> None:
    (parent / "blocker").write_text("precious")
    (parent / "static").mkdir()
    if case == "name-is-folder":
        (parent / "static" / "fig.png").mkdir()
    if case == "name-is-input":
        (parent / "static" / "fig.png").write_text("data")
    folder = {"file": parent / "blocker", "under-file": parent / "blocker" / "figures"}.get(
        case, parent / "static"
    )
    inputs = [parent / "static" / "fig.png"] if case == "name-is-input" else []
    before = snapshot(parent)
    with pytest.raises(OutputError, match=match):
        check_output_files(folder, names=["fig.png"], inputs=inputs)
    assert snapshot(parent) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_refuses_a_read_only_folder(parent: Path) -> None:
    locked = parent / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(OutputError, match="it is not writable"):
            check_output_files(locked)
        with pytest.raises(OutputError, match="is not writable"):
            check_output_folder(locked / "report")
    finally:
        locked.chmod(0o755)


# --------------------------------------------------------------------------- crashes
# (scheme, step, what the destination holds once the writer is killed there)
CRASHES = [
    ("exchange", "locked", "v1"),
    ("exchange", "staged", "v1"),
    ("exchange", "body", "v1"),
    ("exchange", "complete", "v1"),
    ("exchange", "exchanged", "v2"),
    ("exchange", "removing", "v2"),
    ("renames", "complete", "v1"),
    ("renames", "moving-aside", "v1"),
    ("renames", "moved-aside", None),  # nothing until the next run renames v1 back
    ("renames", "switched", "v2"),
    ("renames", "removing", "v2"),
]


@pytest.mark.parametrize(("scheme", "step", "holds"), CRASHES)
def test_a_killed_writer_leaves_the_old_or_the_new_report(
    parent: Path, scheme: str, step: str, holds: str | None
) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    kill(start_writer(target, "v2", step=step, scheme=scheme))
    if holds is None:
        assert not target.exists()
    else:
        assert_complete(target, holds)
    recover_output_folder(target)
    assert_complete(target, holds or "v1")
    assert os.listdir(parent) == ["report"]
    with output_folder(target) as staging:
        write_report(staging, "v3")
    assert_complete(target, "v3")
    assert os.listdir(parent) == ["report"]


@pytest.mark.parametrize("step", ["staged", "body", "complete"])
def test_a_killed_first_writer_leaves_nothing_or_the_new_report(parent: Path, step: str) -> None:
    target = parent / "report"
    kill(start_writer(target, "v1", step=step))
    assert not target.exists()
    with output_folder(target) as staging:  # the next run removes the leftovers itself
        write_report(staging, "v2")
    assert_complete(target, "v2")
    assert os.listdir(parent) == ["report"]


def test_recovery_never_deletes_what_lacks_the_marker(parent: Path) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    # same names as bayesjudge's leftovers, but not carrying its marker
    lookalike = parent / ".report.bayesjudge-staging-0123abcd"
    lookalike.mkdir()
    (lookalike / "thesis.tex").write_text("years of work")
    legacy = parent / ".report.old-x1y2z3"  # what the previous _io.atomic_directory left
    legacy.mkdir()
    (legacy / "a.txt").write_text("v0")
    before = {name: snapshot(parent / name) for name in (lookalike.name, legacy.name)}
    empty = parent / ".report.bayesjudge-old-89abcdef"
    empty.mkdir()  # an empty folder holds nothing to lose: removed
    recover_output_folder(target)
    with output_folder(target) as staging:
        write_report(staging, "v2")
    assert sorted(os.listdir(parent)) == sorted([lookalike.name, legacy.name, "report"])
    assert {name: snapshot(parent / name) for name in before} == before


def test_recovery_puts_back_only_a_complete_report(parent: Path) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    changed = parent / ".report.bayesjudge-old-0123abcd"  # a report with a file edited since
    target.rename(changed)
    (changed / "a.txt").write_text("v1, edited")
    foreign = parent / ".report.bayesjudge-old-4567abcd"  # the name, but no manifest
    foreign.mkdir()
    (foreign / "a.txt").write_text("mine")
    before = {name: snapshot(parent / name) for name in (changed.name, foreign.name)}
    recover_output_folder(target)
    assert not target.exists()  # neither is a report the writer moved aside
    assert (foreign / "a.txt").read_text() == "mine"
    assert (changed / "a.txt").read_text() == "v1, edited"  # the edited file is kept
    assert snapshot(parent / foreign.name) == before[foreign.name]
    with output_folder(target) as staging:
        write_report(staging, "v2")
    assert_complete(target, "v2")


# --------------------------------------------------------------------------- forged and planted
def record_of(path: Path) -> dict[str, object]:
    data = path.read_bytes()
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def forge(folder: Path, names: dict[str, Path], *, keep: bool = True) -> None:
    """Add ``names`` to the folder's manifest, each with the true digest of the file given."""
    manifest = json.loads((folder / MANIFEST_NAME).read_text()) if keep else {}
    manifest.setdefault("tool", "bayesjudge")
    manifest.setdefault("kind", "report")
    manifest.setdefault("files", {})
    manifest["files"].update({name: record_of(path) for name, path in names.items()})
    (folder / MANIFEST_NAME).write_text(json.dumps(manifest))


@pytest.fixture
def victims(tmp_path: Path) -> Path:
    """Files of the user's outside every output folder."""
    folder = tmp_path / "victims"
    (folder / "keepme").mkdir(parents=True)
    (folder / "victim.txt").write_text("the user's")
    (folder / "keepme" / "data.csv").write_text("a,b\n1,2\n")
    return folder


FORGED = {
    "absolute": lambda victim: str(victim),
    "traversal": lambda victim: "../victims/victim.txt",
    "traversal-inside": lambda victim: "sub/../../victims/victim.txt",
    "dot": lambda victim: "./a.txt",
    "empty-part": lambda victim: "sub//b.txt",
}


@pytest.mark.parametrize("how", FORGED)
def test_a_forged_manifest_never_reaches_outside(
    tmp_path: Path, parent: Path, victims: Path, how: str
) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    victim = victims / "victim.txt"
    forge(target, {FORGED[how](victim): victim})
    assert read_manifest(target) is None
    before = snapshot(tmp_path)
    refused(target, match=f"its {MANIFEST_NAME} is not a valid bayesjudge manifest")
    assert snapshot(tmp_path) == before
    # the same manifest in a previous report being removed (as after the switch): nothing
    # of the folder is bayesjudge's, so nothing anywhere is removed
    assert not output._remove_written(target)
    assert snapshot(tmp_path) == before


def test_a_link_inside_a_report_is_never_followed(
    tmp_path: Path, parent: Path, victims: Path
) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    # `sub` becomes a link to a folder of the user's holding a file with the recorded content
    (target / "sub" / "b.txt").unlink()
    (target / "sub").rmdir()
    (victims / "keepme" / "b.txt").write_text("v1-b")
    (target / "sub").symlink_to(victims / "keepme")
    before, outside = snapshot(tmp_path), snapshot(victims)
    refused(target, match=r"did not write \(sub\)")
    assert snapshot(tmp_path) == before
    assert not output._remove_written(target)  # a.txt goes; the link and what it reaches stay
    assert snapshot(victims) == outside
    assert sorted(os.listdir(target)) == [MANIFEST_NAME, "sub"]


def test_a_file_changed_while_writing_is_kept(parent: Path, scheme: str) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")

    def meanwhile(staging: Path) -> None:
        write_report(staging, "v2")
        (target / "a.txt").write_text("v1, edited by its reader meanwhile")

    with pytest.warns(RuntimeWarning, match="kept there"):
        write_with(target, meanwhile)
    assert_complete(target, "v2")
    (kept,) = [p for p in parent.iterdir() if p.name != "report"]
    assert (kept / "a.txt").read_text() == "v1, edited by its reader meanwhile"
    assert sorted(os.listdir(kept)) == [MANIFEST_NAME, "a.txt"]  # sub/b.txt matched: removed


def test_planted_leftovers_are_cleaned_only_within_themselves(
    tmp_path: Path, parent: Path, victims: Path, scheme: str
) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    beside = parent / "victim2.txt"
    beside.write_text("beside the report")
    data = victims / "keepme" / "data.csv"
    # an old-report leftover whose manifest names files outside it, with their true digests
    forged = parent / ".report.bayesjudge-old-0badc0de"
    forged.mkdir()
    (forged / "own.txt").write_text("own")
    forge(forged, {"../victim2.txt": beside, "../../victims/keepme/data.csv": data}, keep=False)
    # an old-report leftover with a valid manifest whose folder is a link to the user's folder
    linked = parent / ".report.bayesjudge-old-1badc0de"
    linked.mkdir()
    (linked / "sub").symlink_to(victims / "keepme")
    forge(linked, {"sub/data.csv": data}, keep=False)
    # a staging leftover (marker present) holding a link to the user's folder and a file
    staged = parent / ".report.bayesjudge-staging-2badc0de"
    staged.mkdir()
    (staged / output._STAGING_MARKER).touch()
    (staged / "link").symlink_to(victims / "keepme")
    (staged / "deep").mkdir()
    (staged / "deep" / "file-link").symlink_to(beside)
    (staged / "deep" / "x.txt").write_text("x")
    # a journal (as earlier versions wrote) pointing the recovery at the user's folder
    (parent / ".report.bayesjudge-journal").write_text(
        json.dumps({"tool": "bayesjudge", "target": "report", "old": "../victims/keepme"})
    )
    outside = snapshot(victims), beside.read_bytes()
    kept = {name: snapshot(parent / name) for name in (forged.name, linked.name)}
    with output_folder(target) as staging:
        write_report(staging, "v2")
    assert_complete(target, "v2")
    assert (snapshot(victims), beside.read_bytes()) == outside
    assert {name: snapshot(parent / name) for name in kept} == kept  # not bayesjudge's: kept
    assert sorted(os.listdir(parent)) == sorted([forged.name, linked.name, "report", beside.name])


def test_folders_a_report_did_not_create_are_kept(
    tmp_path: Path, parent: Path, scheme: str
) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
        (staging / "figures").mkdir()  # the report's own empty folder
    assert read_manifest(target).folders == ("figures", "sub")  # type: ignore[union-attr]
    with output_folder(target) as staging:
        write_report(staging, "v2")
    assert_complete(target, "v2")
    (target / "keep").mkdir()
    (target / "keep2" / "deeper").mkdir(parents=True)
    before = snapshot(tmp_path)
    refused(target, match=r"holds folders bayesjudge did not create \(keep, keep2, keep2/deeper\)")
    assert snapshot(tmp_path) == before

    def meanwhile(staging: Path) -> None:
        write_report(staging, "v3")
        (target / "sub" / "mine").mkdir()

    (target / "keep2" / "deeper").rmdir()
    (target / "keep2").rmdir()
    (target / "keep").rmdir()
    with pytest.warns(RuntimeWarning, match="kept there"):
        write_with(target, meanwhile)
    assert_complete(target, "v3")
    (old,) = [p for p in parent.iterdir() if p.name != "report"]
    assert sorted(p.relative_to(old).as_posix() for p in old.rglob("*")) == [
        MANIFEST_NAME,
        "sub",
        "sub/mine",
    ]


def test_a_manifest_of_the_first_format_is_still_replaced(parent: Path, scheme: str) -> None:
    target = parent / "report"
    with output_folder(target) as staging:
        write_report(staging, "v1")
    manifest = json.loads((target / MANIFEST_NAME).read_text())
    assert manifest["format"] == 2
    manifest["format"] = 1
    del manifest["folders"]
    (target / MANIFEST_NAME).write_text(json.dumps(manifest))
    assert read_manifest(target).owned_folders() == {"sub"}  # type: ignore[union-attr]
    with output_folder(target) as staging:
        write_report(staging, "v2")
    assert_complete(target, "v2")
    assert os.listdir(parent) == ["report"]


def test_a_planted_lock_link_is_not_followed(tmp_path: Path, parent: Path, victims: Path) -> None:
    (parent / ".report.bayesjudge-lock").symlink_to(victims / "victim.txt")
    before = snapshot(victims)
    with (
        pytest.raises(OutputError, match="cannot create its lock file"),
        output_folder(parent / "report"),
    ):
        pytest.fail("wrote through a planted lock link")
    assert snapshot(victims) == before


# --------------------------------------------------------------------------- single files
FILE_WRITER = textwrap.dedent(
    """
    import os, sys, threading
    from bayesjudge.reporting import output

    target, step, fd = sys.argv[1:4]

    def pause():
        os.write(int(fd), f"{step}\\n".encode())
        threading.Event().wait()

    def writer(path):
        with open(path, "wb") as stream:
            stream.write(b"new" * 1000)
            stream.flush()
            if step == "mid-write":
                pause()
            stream.write(b"end")

    def fsync_path(path, *, original=output._fsync_path):
        if step == "file-written" and ".bayesjudge-tmp-" in path.name:
            pause()  # written, not yet flushed and renamed
        original(path)

    output._fsync_path = fsync_path
    output.write_file_atomically(target, writer)
    """
)


@pytest.mark.parametrize("step", ["mid-write", "file-written"])
def test_a_killed_file_writer_leaves_the_old_file(parent: Path, step: str) -> None:
    target = parent / "posterior.nc"
    target.write_bytes(b"old" * 1000)
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        [sys.executable, "-c", FILE_WRITER, str(target), step, str(write_end)],
        pass_fds=(write_end,),
        stderr=subprocess.PIPE,
    )
    os.close(write_end)
    try:
        assert readline(read_end, process=process) == step
    finally:
        os.close(read_end)
        kill(process)
    assert target.read_bytes() == b"old" * 1000
    (leftover,) = [p for p in parent.iterdir() if p != target]
    assert leftover.name.startswith(".posterior.nc.bayesjudge-tmp-")
    write_bytes_atomically(target, b"newer")  # also removes the dead writer's temporary
    assert target.read_bytes() == b"newer"
    assert list(parent.iterdir()) == [target]


def test_a_live_writers_temporary_is_kept(parent: Path) -> None:
    target = parent / "chunk.nc"
    host = output._host_tag()
    live = parent / f".chunk.nc.bayesjudge-tmp-{host}-{os.getppid()}-0123abcd"
    other_host = parent / ".chunk.nc.bayesjudge-tmp-ffffff-999999999-0123abcd"
    for path in (live, other_host):
        path.write_bytes(b"in progress")
    write_text_atomically(target, "done")
    assert sorted(parent.iterdir()) == sorted([target, live, other_host])


def test_a_failing_file_writer_leaves_the_target(parent: Path) -> None:
    target = parent / "summary.csv"
    target.write_text("old")

    def writer(path: Path) -> None:
        path.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_file_atomically(target, writer)
    assert target.read_text() == "old"
    assert list(parent.iterdir()) == [target]


def test_a_file_write_keeps_a_symbolic_link(parent: Path) -> None:
    real = parent / "real.md"
    real.write_text("old")
    link = parent / "summary.md"
    link.symlink_to(real)
    write_text_atomically(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"


def test_a_file_write_refuses_a_folder(parent: Path) -> None:
    with pytest.raises(OutputError, match="it is a folder"):
        write_text_atomically(parent, "text")


def test_netcdf_through_the_writer_callback(parent: Path) -> None:
    xr = pytest.importorskip("xarray")
    np = pytest.importorskip("numpy")
    dataset = xr.Dataset({"pi": ("draw", np.linspace(0, 1, 5))})
    target = parent / "chunks" / "s00000_r0000000-0000050.nc"
    write_file_atomically(target, lambda p: dataset.to_netcdf(p, engine="h5netcdf"))
    with xr.open_dataset(target, engine="h5netcdf") as handle:
        xr.testing.assert_identical(handle.load(), dataset)
    assert list(target.parent.iterdir()) == [target]


# --------------------------------------------------------------------------- escaping
HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "a | b",
    "`code` and ``more``",
    "[click](javascript:alert(1))",
    "![x](http://evil/x.png)",
    "*bold* _it_ ~~gone~~ $x$",
    "line\nbreak\r\nand\ttab",
    "# heading",
    "- item",
    "1. item",
    "back\\slash",
    "&lt;already&gt; & &amp;",
    "\u202eexe.txt",
    "nul\x00bell\x07",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_escaped_text_is_inert(name: str) -> None:
    escaped = escape_markdown(name)
    assert "<" not in escaped
    assert ">" not in escaped
    assert "\n" not in escaped
    assert "\r" not in escaped
    assert "\u202e" not in escaped
    for char in "|`*_[]~$":
        assert escaped.count(char) == escaped.count("\\" + char), char


def test_escape_examples() -> None:
    assert escape_markdown("<b>&</b>") == "&lt;b&gt;&amp;&lt;/b&gt;"
    assert escape_markdown("a|b") == "a\\|b"
    assert escape_markdown("# x") == "\\# x"
    assert escape_markdown("12. x") == "12\\. x"
    assert escape_markdown("x # 1. y") == "x # 1. y"
    assert escape_markdown(3) == "3"


def test_escaped_names_render_as_text_in_a_table() -> None:
    markdown_it = pytest.importorskip("markdown_it")
    renderer = markdown_it.MarkdownIt("commonmark", {"html": True}).enable(
        ["table", "strikethrough"]
    )
    rows = [f"| {escape_markdown(name)} | {escape_markdown(name)} |" for name in HOSTILE]
    page = "\n".join(["| slice | file |", "|---|---|", *rows])
    rendered = renderer.render(page)
    assert "<script" not in rendered
    assert "<img" not in rendered
    assert "<a " not in rendered
    assert "<code>" not in rendered
    assert "<em>" not in rendered
    assert "<strong>" not in rendered
    assert rendered.count("<tr>") == 1 + len(HOSTILE)
    assert rendered.count("<td>") == 2 * len(HOSTILE)
    # without escaping the same page would run the script
    raw = renderer.render("| slice |\n|---|\n| <script>alert(1)</script> |\n")
    assert "<script>" in raw


# --------------------------------------------------------------------------- workers
POOL = textwrap.dedent(
    """
    import multiprocessing, os, sys, threading
    from concurrent.futures import ProcessPoolExecutor
    from bayesjudge.reporting import output

    def start_worker(parent_pid, how):
        if how == "prctl-only":  # silence the multiprocessing watcher: the kernel alone acts
            output._await_parent = lambda mp_parent: None
        output._end_with_parent(parent_pid, use_prctl=how == "prctl-only")

    def block():
        os.write(1, f"{os.getpid()}\\n".encode())
        threading.Event().wait()

    if __name__ == "__main__":
        context, how = sys.argv[1:3]
        pool = ProcessPoolExecutor(
            2, mp_context=multiprocessing.get_context(context), initializer=start_worker,
            initargs=(os.getpid(), how))
        futures = [pool.submit(block) for _ in range(2)]
        threading.Event().wait()
    """
)


def gone(pid: int) -> bool:
    """True once ``pid`` has ended (a zombie nobody reaped counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in {"Z", "X"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize(
    ("context", "how"),
    [
        ("spawn", "prctl-only"),  # the kernel's parent-death signal alone (Linux, spawn)
        ("forkserver", "thread-only"),  # the multiprocessing watcher alone (any OS)
    ],
)
def test_pool_workers_end_with_a_killed_parent(tmp_path: Path, context: str, how: str) -> None:
    script = tmp_path / "pool.py"
    script.write_text(POOL)
    parent = subprocess.Popen(
        [sys.executable, str(script), context, how],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert parent.stdout is not None
    workers: list[int] = []
    try:
        descriptor = parent.stdout.fileno()
        workers = [int(readline(descriptor, process=parent)) for _ in range(2)]
        assert len(set(workers)) == 2
        assert not any(gone(pid) for pid in workers)
        kill(parent)
        end = time.monotonic() + DEADLINE
        while not all(gone(pid) for pid in workers) and time.monotonic() < end:
            time.sleep(0.05)
        assert all(gone(pid) for pid in workers), "pool workers outlived their parent"
    finally:
        if parent.returncode is None:
            kill(parent)
        for pid in workers:
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_worker_whose_parent_already_changed_ends_at_once() -> None:
    code = "from bayesjudge.reporting.output import end_with_parent; end_with_parent(1)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=DEADLINE)
    assert result.returncode == -signal.SIGTERM


def test_end_with_parent_is_harmless_while_the_parent_lives() -> None:
    code = (
        "import os; from bayesjudge.reporting.output import end_with_parent; "
        "end_with_parent(os.getppid()); print('alive')"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=DEADLINE)
    assert result.returncode == 0
    assert result.stdout == b"alive\n"


# --------------------------------------------------------------------------- prose
def test_prose_reads_as_plain_text() -> None:
    sentence = "The judge's rate rose from 68.0% to 85.0% (J > 0.2, p < 0.01, P(v | t) in [0, 1])."
    assert escape_markdown_prose(sentence) == sentence
    assert escape_markdown_prose("pi ~ Beta(0.5, 0.5), a * b, a_b & c") == (
        "pi ~ Beta(0.5, 0.5), a * b, a_b & c"
    )
    assert escape_markdown_prose("66.7% and 1. x") == "66.7% and 1. x"
    assert escape_markdown_prose("1. x", line_start=True) == "1\\. x"
    assert escape_markdown_prose("> quote", line_start=True) == "\\> quote"


@pytest.mark.parametrize("name", HOSTILE)
def test_prose_quoting_a_name_renders_it_as_text(name: str) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    renderer = markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["strikethrough"])
    for line_start in (True, False):
        sentence = f"{name} beats the judge's 66.7% (J > 0.2)."
        prefix = "" if line_start else "**Reading.** "
        rendered = renderer.render(prefix + escape_markdown_prose(sentence, line_start=line_start))
        for tag in ("<script", "<img", "<a ", "<code>", "<em>", "<s>", "<h1>", "<ol>", "<ul>"):
            assert tag not in rendered, (tag, rendered)
        assert rendered.count("<p>") == 1
        if not any(c in name for c in "\x00\x07\u202e\n\r\t"):
            # what a reader sees is the sentence itself
            text = html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()
            assert text == prefix.replace("**", "") + sentence
