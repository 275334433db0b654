"""Output that never destroys what bayesjudge did not write, and survives any crash.

Every command that writes uses this module:

- :func:`check_output_folder` runs before any work and refuses a destination that is a file,
  the current folder or one of its ancestors, a folder holding an input, a non-empty folder
  bayesjudge did not write, or a place where nothing can be created.
- :func:`claim_output_folder` checks a destination before any work and holds its lock until
  the work is done, so a second run into the same folder is refused at once, not after its
  computation.
- :func:`check_output_files` does the same check for a shared folder that receives named files
  (``bayesjudge study --figures``).
- :func:`output_folder` writes a report folder: it holds a lock beside the destination, stages
  the report in a hidden sibling folder, writes the manifest last and then switches the
  staging folder into place. On Linux the switch is one ``renameat2(RENAME_EXCHANGE)`` system
  call, so the destination holds the complete old or the complete new report at every instant.
  Elsewhere (or on a file system that refuses the exchange) the old report is renamed aside
  and the new one renamed into place; a crash between the two renames is undone by the next
  run (or :func:`recover_output_folder`), which renames the old report back.
- :func:`write_text_atomically`, :func:`write_bytes_atomically` and
  :func:`write_file_atomically` replace one file through a temporary sibling that is fsynced
  and renamed over the target.
- :func:`escape_markdown` makes user-controlled text (slice, file and system names) inert in
  Markdown rendered to HTML; :func:`escape_markdown_prose` does the same for a report's own
  sentences (which may quote such names) while leaving them readable as plain text.
- :func:`write_csv` writes every CSV table a report holds, each text cell made inert in a
  spreadsheet by :func:`inert_csv_cell` (no name from the data opens as a formula).
- :func:`escape_terminal` makes names from the data inert on a terminal (no escape sequence,
  control character or bidirectional override reaches it raw).
- :func:`end_with_parent` is a process-pool initializer: a worker ends when its parent dies.

A folder written by bayesjudge carries ``.bayesjudge-manifest.json`` (tool, version, kind, the
files written with their size and SHA-256, the folders created, when). Only such a folder, with
none of its files changed and nothing added, is ever replaced. Nothing a manifest says can
reach outside its folder: a manifest naming an absolute path or a path through ``..`` is not
bayesjudge's; files are removed through folder descriptors that never follow a symbolic link,
and only while their content still matches the recorded digest; a folder is removed only if
the manifest records it and it is empty. Folders and files are created with the process's
umask applied (``0o777 & ~umask`` and ``0o666 & ~umask``).

The lock is :class:`filelock.FileLock` (``fcntl.flock``); the switch uses ``os.rename`` and
``fsync`` of folders: Linux and macOS.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import html
import io
import json
import os
import re
import secrets
import signal
import socket
import stat
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from bayesjudge._version import __version__
from bayesjudge.errors import DataError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MANIFEST_NAME",
    "FileRecord",
    "Manifest",
    "OutputError",
    "OutputKind",
    "check_output_files",
    "check_output_folder",
    "claim_output_folder",
    "end_with_parent",
    "escape_markdown",
    "escape_markdown_prose",
    "escape_terminal",
    "inert_csv_cell",
    "lock_output_folder",
    "markdown_code_span",
    "output_folder",
    "read_manifest",
    "recover_output_folder",
    "write_bytes_atomically",
    "write_csv",
    "write_file_atomically",
    "write_manifest",
    "write_text_atomically",
]

#: What a bayesjudge output folder holds. A report folder is replaced as a whole by the next
#: report; a study folder is filled chunk by chunk and resumed, never replaced.
OutputKind = Literal["report", "study"]

#: The file that marks a folder as written by bayesjudge.
MANIFEST_NAME: Final = ".bayesjudge-manifest.json"

_TOOL: Final = "bayesjudge"
# 2 records the folders a report created; 1 (no "folders") is still read, its folders being
# the parents of its files.
_MANIFEST_FORMAT: Final = 2
_MANIFEST_FORMATS: Final = frozenset({1, 2})
# Present in a staging folder from its creation until its manifest is written: everything in
# a folder carrying it was written by bayesjudge.
_STAGING_MARKER: Final = ".bayesjudge-staging"
_MARKERS: Final = frozenset({MANIFEST_NAME, _STAGING_MARKER})

_AT_FDCWD: Final = -100
_RENAME_EXCHANGE: Final = 2
_PR_SET_PDEATHSIG: Final = 1
_OPEN_FOLDER: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_OPEN_FILE: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


class OutputError(DataError):
    """An output path cannot be written safely; the message names the path and the reason."""


# --------------------------------------------------------------------------- manifest
@dataclass(frozen=True)
class FileRecord:
    """Size and SHA-256 of one file as bayesjudge wrote it."""

    size: int
    sha256: str


@dataclass(frozen=True)
class Manifest:
    """The record that marks a folder as written by bayesjudge.

    Parameters
    ----------
    kind : {"report", "study"}
        What the folder holds.
    files : mapping of str to FileRecord
        Each file written, by its path relative to the folder (``/``-separated).
    folders : tuple of str
        The folders created inside it (relative, ``/``-separated), empty ones included.
    version : str
        The bayesjudge version that wrote the folder.
    created : str
        When, as an ISO 8601 UTC time.
    """

    kind: OutputKind
    files: Mapping[str, FileRecord] = field(default_factory=dict)
    folders: tuple[str, ...] = ()
    version: str = __version__
    created: str = ""

    def owned_folders(self) -> frozenset[str]:
        """Return the folders the writer created: those recorded and every file's parents."""
        owned = set(self.folders)
        for name in self.files:
            owned.update(parent.as_posix() for parent in Path(name).parents)
        owned.discard(".")
        return frozenset(owned)

    def to_dict(self) -> dict[str, Any]:
        """Return the manifest as the JSON object written to :data:`MANIFEST_NAME`."""
        return {
            "tool": _TOOL,
            "format": _MANIFEST_FORMAT,
            "version": self.version,
            "kind": self.kind,
            "created": self.created,
            "files": {
                name: {"size": record.size, "sha256": record.sha256}
                for name, record in sorted(self.files.items())
            },
            "folders": sorted(self.folders),
        }


def read_manifest(folder: str | os.PathLike[str]) -> Manifest | None:
    """Return the manifest of a folder bayesjudge wrote, or None for any other folder.

    A missing, unreadable or malformed manifest, one written by another tool, a manifest that
    is a symbolic link, and one naming any path that is not a plain relative name inside the
    folder (absolute, or through ``.`` or ``..``) give None: such a folder is not treated as
    bayesjudge's.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(read_manifest(tmp))
    None
    """
    try:
        descriptor = os.open(folder, _OPEN_FOLDER)
    except OSError:
        return None
    try:
        return _read_manifest_at(descriptor)
    finally:
        os.close(descriptor)


def _read_manifest_at(folder: int) -> Manifest | None:
    """Read and validate the manifest of the folder open at descriptor ``folder``."""
    try:
        descriptor = os.open(MANIFEST_NAME, _OPEN_FILE, dir_fd=folder)
        with os.fdopen(descriptor, "rb") as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                return None
            data = json.loads(stream.read(1 << 24))
        if data.get("tool") != _TOOL or data.get("kind") not in get_args(OutputKind):
            return None
        if data.get("format", 1) not in _MANIFEST_FORMATS:
            return None
        files = {
            str(name): FileRecord(size=int(entry["size"]), sha256=str(entry["sha256"]))
            for name, entry in data["files"].items()
        }
        folders = tuple(str(name) for name in data.get("folders", ()))
        if not all(map(_plain_name, [*data["files"], *data.get("folders", ())])):
            return None
        return Manifest(
            kind=data["kind"],
            files=files,
            folders=folders,
            version=str(data.get("version", "")),
            created=str(data.get("created", "")),
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _plain_name(name: object) -> bool:
    """Whether ``name`` is a relative ``/``-separated path that stays inside its folder."""
    if not isinstance(name, str) or not name or "\0" in name or name.startswith("/"):
        return False
    return all(part not in {"", ".", ".."} for part in name.split("/"))


def write_manifest(
    folder: str | os.PathLike[str],
    *,
    kind: OutputKind,
    files: Iterable[str] | None = None,
) -> Manifest:
    """Record in ``folder`` that bayesjudge wrote it, and which files.

    :func:`output_folder` calls this itself; a command that fills a folder over time (a study)
    calls it when it starts and again when it ends.

    Parameters
    ----------
    folder : path
        An existing folder.
    kind : {"report", "study"}
        What the folder holds.
    files : iterable of str, optional
        Paths relative to ``folder`` to record; by default every file in it.

    Returns
    -------
    Manifest
        What was written.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "a.txt").write_text("a")
    ...     sorted(write_manifest(tmp, kind="report").files)
    ['a.txt']
    """
    _check_kind(kind)
    root = Path(folder)
    names, folders = _entries(root) if files is None else ({Path(f).as_posix() for f in files}, [])
    records = {name: _file_record(root / name) for name in sorted(names) if name not in _MARKERS}
    manifest = Manifest(
        kind=kind,
        files=records,
        folders=tuple(folders),
        created=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    text = json.dumps(manifest.to_dict(), indent=2) + "\n"
    write_text_atomically(root / MANIFEST_NAME, text)
    return manifest


def _file_record(path: Path) -> FileRecord:
    with open(path, "rb") as stream:
        return _digest(stream)


def _digest(stream: io.BufferedReader) -> FileRecord:
    digest = hashlib.file_digest(stream, "sha256")
    return FileRecord(size=stream.tell(), sha256=digest.hexdigest())


def _entries(root: Path) -> tuple[list[str], list[str]]:
    """Return what is under ``root`` (links not followed): files and links, then folders."""
    files: list[str] = []
    folders: list[str] = []
    for current, subfolders, names in os.walk(root):
        base = Path(current).relative_to(root)
        for name in subfolders:  # os.walk lists a link to a folder among the folders
            link = _is_link(Path(current) / name)
            (files if link else folders).append((base / name).as_posix())
        files += [(base / name).as_posix() for name in names]
    return sorted(files), sorted(folders)


def _is_link(path: Path) -> bool:
    return stat.S_ISLNK(os.lstat(path).st_mode)


# --------------------------------------------------------------------------- the check
def check_output_folder(
    path: str | os.PathLike[str],
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
    kind: OutputKind = "report",
) -> Path:
    """Refuse an output folder that cannot be written without destroying something.

    Run it before any work; :func:`output_folder` runs it again under its lock. Nothing is
    created or changed.

    Parameters
    ----------
    path : path
        The destination folder.
    inputs : iterable of paths
        The files (or folders) the command reads; ``"-"`` (standard input) is ignored.
    kind : {"report", "study"}
        What will be written. An existing folder is accepted only if it is empty or carries a
        manifest of the same kind; a report folder must also hold exactly what bayesjudge wrote
        there (no file added, none changed).

    Returns
    -------
    Path
        The destination as an absolute path.

    Raises
    ------
    OutputError
        When ``path`` is a file (or anything but a folder), a symbolic link, the current
        folder or one of its ancestors, a folder holding an input, a non-empty folder
        bayesjudge did not write (or a study where a report is asked for, and the reverse), a
        report folder whose files were changed or added to, or a place where nothing can be
        created (the nearest existing ancestor is not a folder, or is not writable).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     check_output_folder(Path(tmp) / "report").name
    'report'
    >>> check_output_folder(".")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayesjudge.reporting.output.OutputError: cannot write output folder ... is the current folder...
    """
    _check_kind(kind)
    target = _absolute(path)
    shown = f"cannot write output folder {target}:"
    real = Path(os.path.realpath(target))
    cwd = Path(os.path.realpath(os.getcwd()))
    try:
        info: os.stat_result | None = os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):  # the latter: a parent is a file
        info = None
    except OSError as exc:
        raise OutputError(f"{shown} {_reason(exc)}") from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise OutputError(f"{shown} it is a symbolic link; give the folder it points to")
    if info is not None and not stat.S_ISDIR(info.st_mode):
        raise OutputError(f"{shown} it is {_file_type(info)}, not a folder")
    if real == cwd:
        raise OutputError(f"{shown} it is the current folder; choose a new folder")
    if cwd.is_relative_to(real):
        raise OutputError(f"{shown} it holds the current folder {cwd}; choose a new folder")
    for source in inputs:
        if os.fspath(source) == "-":
            continue
        for candidate in {_absolute(source), Path(os.path.realpath(source))}:
            if candidate.is_relative_to(target) or candidate.is_relative_to(real):
                raise OutputError(f"{shown} it holds the input {candidate}; choose a new folder")
    _check_creatable(target, shown)
    if info is not None:
        _check_replaceable(target, kind, shown)
    return target


def check_output_files(
    path: str | os.PathLike[str],
    *,
    names: Iterable[str] = (),
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> Path:
    """Refuse a folder that is to receive files, before any work.

    Unlike a report folder, such a folder is shared (``bayesjudge study --figures
    docs/_static``): each file is written on its own (:func:`write_file_atomically`), the
    files named ``names`` are replaced, and nothing else in the folder is touched. Nothing is
    created or changed by the check.

    Parameters
    ----------
    path : path
        The folder; missing folders are created when the files are written.
    names : iterable of str
        The files that will be written into it, when known.
    inputs : iterable of paths
        The files the command reads; ``"-"`` (standard input) is ignored.

    Returns
    -------
    Path
        The folder as an absolute path.

    Raises
    ------
    OutputError
        When ``path`` is a file (or anything but a folder), lies under a file, is not
        writable, or when one of ``names`` is a folder (or anything but a regular file) or an
        input.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     check_output_files(tmp, names=["figure.png"]).is_dir()
    True
    """
    target = _absolute(path)
    shown = f"cannot write files into {target}:"
    try:
        info: os.stat_result | None = os.stat(target)  # a link to a folder is that folder
    except (FileNotFoundError, NotADirectoryError):
        info = None
    except OSError as exc:
        raise OutputError(f"{shown} {_reason(exc)}") from None
    if info is not None and not stat.S_ISDIR(info.st_mode):
        raise OutputError(f"{shown} it is {_file_type(info)}, not a folder")
    if info is None:
        _check_creatable(target, shown)
    elif not os.access(target, os.W_OK | os.X_OK):
        raise OutputError(f"{shown} it is not writable")
    sources = set()
    for source in inputs:
        if os.fspath(source) != "-":
            sources |= {_absolute(source), Path(os.path.realpath(source))}
    for name in names:
        file = target / name
        if file in sources or Path(os.path.realpath(file)) in sources:
            raise OutputError(f"{shown} {file} is an input; choose another folder")
        try:
            existing = os.stat(file)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise OutputError(f"{shown} {file}: {_reason(exc)}") from None
        if not stat.S_ISREG(existing.st_mode):
            raise OutputError(f"{shown} {file} is {_file_type(existing)}, not a file")
    return target


def _check_creatable(target: Path, shown: str) -> None:
    ancestor = target.parent
    while not os.path.lexists(ancestor):
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputError(f"{shown} {ancestor} is not a folder, so nothing can be created in it")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputError(f"{shown} {ancestor} is not writable")


def _check_replaceable(target: Path, kind: OutputKind, shown: str) -> None:
    try:
        present, folders = _entries(target)
    except OSError as exc:
        raise OutputError(f"{shown} it cannot be read ({_reason(exc)})") from None
    if not present:
        return
    manifest = read_manifest(target)
    if manifest is None:
        why = (
            f"its {MANIFEST_NAME} is not a valid bayesjudge manifest"
            if os.path.lexists(target / MANIFEST_NAME)
            else f"it has no {MANIFEST_NAME}"
        )
        raise OutputError(
            f"{shown} it is not empty and was not written by bayesjudge ({why}); bayesjudge "
            "replaces only folders it wrote. Choose a new folder"
        )
    if manifest.kind != kind:
        raise OutputError(
            f"{shown} it holds a bayesjudge {manifest.kind}, not a {kind}; choose a new folder"
        )
    if kind == "study":
        return  # a study folder is resumed, never replaced: the study checks its own files
    added = [name for name in present if name not in manifest.files and name not in _MARKERS]
    if added:
        raise OutputError(
            f"{shown} it holds files bayesjudge did not write ({_some(added)}); move them "
            "away or choose a new folder"
        )
    made = [name for name in folders if name not in manifest.owned_folders()]
    if made:
        raise OutputError(
            f"{shown} it holds folders bayesjudge did not create ({_some(made)}); move them "
            "away or choose a new folder"
        )
    changed = [
        name
        for name, record in manifest.files.items()
        if os.path.lexists(target / name) and not _unchanged(target / name, record)
    ]
    if changed:
        raise OutputError(
            f"{shown} files bayesjudge wrote there were changed since ({_some(changed)}); move "
            "them away or choose a new folder"
        )


def _unchanged(path: Path, record: FileRecord) -> bool:
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size != record.size:
            return False
        return _file_record(path) == record
    except OSError:
        return False


def _some(names: list[str], limit: int = 5) -> str:
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def _file_type(info: os.stat_result) -> str:
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a folder"


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _check_kind(kind: str) -> None:
    allowed = get_args(OutputKind)
    if kind not in allowed:
        raise ValueError(f"kind must be one of {', '.join(map(repr, allowed))}; got {kind!r}")


def _absolute(path: str | os.PathLike[str]) -> Path:
    """Return ``path`` absolute and normalised (no ``.`` or ``..``), symlinks unresolved."""
    return Path(os.path.abspath(os.fspath(path)))


# --------------------------------------------------------------------------- siblings
def _stem(target: Path) -> str:
    """Return the name used for the destination's hidden siblings (short for any name)."""
    name = target.name
    if len(name) <= 100:
        return name
    return f"{name[:80]}-{hashlib.sha256(name.encode()).hexdigest()[:12]}"


def _sibling(target: Path, role: str) -> Path:
    return target.parent / f".{_stem(target)}.bayesjudge-{role}"


def _new_sibling(target: Path, role: str) -> Path:
    return _sibling(target, f"{role}-{secrets.token_hex(4)}")


def _leftovers(target: Path) -> list[Path]:
    pattern = re.compile(rf"\.{re.escape(_stem(target))}\.bayesjudge-(staging|old)-[0-9a-f]{{8}}")
    try:
        names = os.listdir(target.parent)
    except FileNotFoundError:
        return []
    return [target.parent / name for name in sorted(names) if pattern.fullmatch(name)]


# --------------------------------------------------------------------------- the lock
@contextmanager
def lock_output_folder(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold the exclusive writer's lock of an output folder, or refuse at once.

    The lock is a :class:`filelock.FileLock` (``fcntl.flock``) on the hidden file
    ``.<name>.bayesjudge-lock`` beside the folder; the kernel releases it when its holder
    ends, however it ends, so a crash leaves no stale lock. The lock file is opened without
    following a symbolic link, and removed on release. The thread holding the lock may take it
    again (the inner release keeps it); any other thread, process or forked child is refused.

    Parameters
    ----------
    path : path
        The output folder (it need not exist; its parent must).

    Yields
    ------
    Path
        The folder as an absolute path.

    Raises
    ------
    OutputError
        When another process (or another thread of this one) holds the lock, or the lock file
        cannot be created.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp, lock_output_folder(Path(tmp) / "r") as folder:
    ...     folder.name
    'r'
    """
    from filelock import FileLock, Timeout

    target = _absolute(path)
    file = _sibling(Path(os.path.realpath(target.parent)) / target.name, "lock")
    # one instance per lock file and process, its holds counted per thread; a forked child
    # gets a new instance (filelock refuses to use an inherited one)
    lock = FileLock(file, blocking=False, is_singleton=True, fallback_to_soft=False)
    try:
        lock.acquire()
    except Timeout:
        raise OutputError(
            f"cannot write output folder {target}: another bayesjudge run is writing it "
            f"(it holds {file}); wait for it to end or choose another folder"
        ) from None
    except OSError as exc:  # a planted link (ELOOP), a read-only folder, ...
        raise OutputError(
            f"cannot write output folder {target}: cannot create its lock file {file} "
            f"({_reason(exc)})"
        ) from None
    try:
        yield target
    finally:
        if lock.lock_counter == 1:  # the outermost hold: remove the file while still holding it
            with suppress(OSError):
                os.unlink(file)
        lock.release()


@contextmanager
def claim_output_folder(
    path: str | os.PathLike[str],
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
    kind: OutputKind = "report",
) -> Iterator[Path]:
    r"""Check an output folder before any work and hold its lock until the work is done.

    For a command that computes for a while and then writes (a fit, then its report; a
    study): :func:`check_output_folder` refuses a destination before any work, missing
    parent folders are created, and the folder's lock (:func:`lock_output_folder`) is held
    for the whole block, so a second run into the same folder is refused at once rather than
    after its computation. Under the lock, what an interrupted earlier run left is recovered
    or removed (:func:`recover_output_folder`) and the destination checked again.
    :func:`output_folder` (or a study's writes) inside the block take the same lock again.
    Parent folders this call created are removed at the end if they are still empty.

    Parameters
    ----------
    path : path
        The destination folder.
    inputs : iterable of paths
        The files the command reads (see :func:`check_output_folder`).
    kind : {"report", "study"}
        What will be written there.

    Yields
    ------
    Path
        The destination as an absolute path.

    Raises
    ------
    OutputError
        When :func:`check_output_folder` refuses, a parent folder cannot be created, or
        another run holds the lock.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with claim_output_folder(Path(tmp) / "runs" / "report") as target:
    ...         with output_folder(target) as staging:
    ...             _ = (staging / "summary.md").write_text("# Report\n")
    ...     sorted(p.name for p in target.iterdir())
    ['.bayesjudge-manifest.json', 'summary.md']
    """
    _check_kind(kind)
    target = check_output_folder(path, inputs=inputs, kind=kind)
    made = _make_parents(target)
    try:
        with lock_output_folder(target):
            _recover(target)
            check_output_folder(target, inputs=inputs, kind=kind)  # as it is now, under the lock
            yield target
    finally:
        _remove_empty(made)


# --------------------------------------------------------------------------- the writer
@contextmanager
def output_folder(
    path: str | os.PathLike[str],
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
    kind: OutputKind = "report",
) -> Iterator[Path]:
    r"""Write an output folder crash-safely: yield a staging folder that replaces ``path``.

    The steps: check the destination, create missing parents, take the lock, recover or
    remove what an interrupted earlier run left and check again (:func:`claim_output_folder`);
    create the staging folder
    ``.<name>.bayesjudge-staging-<random>`` beside it and yield it; when the block ends
    without an exception, fsync every file, write the manifest last, and switch:

    - no destination yet: one ``rename``;
    - Linux: ``renameat2(RENAME_EXCHANGE)`` swaps staging and destination in one step, so a
      reader sees the complete old or the complete new report at every instant;
    - otherwise (another OS, or a file system answering EINVAL/ENOSYS): the destination is
      renamed to ``.<name>.bayesjudge-old-<random>`` and the staging folder renamed into
      place. A crash between the two renames leaves no destination until the next run (or
      :func:`recover_output_folder`) renames the old report back.

    Then the previous report is deleted: only the files its manifest lists, and the folder
    only when nothing else is left in it.

    If the block raises, the staging folder is removed and the destination is untouched.

    Parameters
    ----------
    path : path
        The destination folder.
    inputs : iterable of paths
        The files the command read (see :func:`check_output_folder`).
    kind : {"report", "study"}
        Recorded in the manifest.

    Yields
    ------
    Path
        The staging folder to write into (created with ``0o777 & ~umask``).

    Raises
    ------
    OutputError
        When :func:`check_output_folder` refuses, another run holds the lock, a folder
        cannot be created or renamed, or writing fails (an ``OSError`` in the block or while
        sealing, such as a full disk, becomes an ``OutputError`` naming the destination and
        the file being written; the destination is untouched).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with output_folder(Path(tmp) / "report") as staging:
    ...         _ = (staging / "summary.md").write_text("# Report\n")
    ...     sorted(read_manifest(Path(tmp) / "report").files)
    ['summary.md']
    """
    with claim_output_folder(path, inputs=inputs, kind=kind) as target:
        staging = _make_staging(target)
        try:
            yield staging
            _seal(staging, kind=kind)
            _switch(staging, target)
        except BaseException as exc:
            with suppress(OSError):  # never hide the error that got us here
                _remove_written(staging)
            if isinstance(exc, OSError):
                raise _write_failed(target, staging, exc) from exc
            raise


def _write_failed(target: Path, staging: Path, exc: OSError) -> OutputError:
    """Say which destination (not which hidden staging folder) could not be written, and why."""
    where = ""
    if exc.filename is not None:
        written = Path(os.path.abspath(os.fsdecode(exc.filename)))
        if written.is_relative_to(staging) and written != staging:
            where = f" (writing {written.relative_to(staging).as_posix()})"
    return OutputError(f"cannot write output folder {target}: {_reason(exc)}{where}")


def _remove_empty(made: list[Path]) -> None:
    """Remove the folders a call created (deepest first), as long as they are empty."""
    for folder in made:
        try:
            folder.rmdir()
        except OSError:
            break


def _make_parents(target: Path) -> list[Path]:
    """Create the destination's missing parents; return them, deepest first."""
    missing = []
    parent = target.parent
    while not os.path.lexists(parent):
        missing.append(parent)
        parent = parent.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o777)
        except FileExistsError:
            pass
        except OSError as exc:
            raise OutputError(
                f"cannot write output folder {target}: cannot create {folder} ({_reason(exc)})"
            ) from None
    return missing


def _make_staging(target: Path) -> Path:
    staging = _new_sibling(target, "staging")
    try:
        os.mkdir(staging, 0o777)
        os.close(os.open(staging / _STAGING_MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except OSError as exc:
        raise OutputError(
            f"cannot write output folder {target}: cannot create {staging} ({_reason(exc)})"
        ) from None
    return staging


def _seal(staging: Path, *, kind: OutputKind) -> None:
    """Make the staging folder durable and complete: fsync its files, then the manifest."""
    for name in _entries(staging)[0]:
        if name not in _MARKERS:
            _fsync_path(staging / name)
    write_manifest(staging, kind=kind)
    os.unlink(staging / _STAGING_MARKER)
    for current, _, _ in os.walk(staging):
        _fsync_path(Path(current))


def _switch(staging: Path, target: Path) -> None:
    """Put the sealed staging folder in place of ``target``; delete the previous report."""
    parent = target.parent
    if not os.path.lexists(target):
        _rename(staging, target)
        _fsync_path(parent)
        return
    if _exchange(staging, target):
        _fsync_path(parent)
        _discard(staging)  # it now holds the previous report
        return
    # Between these renames there is no destination; its name marks the old report as the
    # one to put back (see _recover), so no journal is needed.
    old = _new_sibling(target, "old")
    _rename(target, old)
    try:
        _rename(staging, target)
    except BaseException:
        os.rename(old, target)
        raise
    _fsync_path(parent)
    _discard(old)


def _discard(previous: Path) -> None:
    """Delete the previous report once the new one is in place; a failure only warns."""
    try:
        removed = _remove_written(previous)
    except OSError as exc:
        warnings.warn(
            f"the previous report could not be removed from {previous} ({_reason(exc)}); the "
            "next run removes it",
            RuntimeWarning,
            stacklevel=5,
        )
        return
    if not removed:
        warnings.warn(
            f"the previous report was moved to {previous} and kept there: files bayesjudge did "
            "not write appeared in it, or files it wrote were changed, while the new report was "
            "written",
            RuntimeWarning,
            stacklevel=5,
        )


def _rename(source: Path, destination: Path) -> None:
    try:
        os.rename(source, destination)
    except OSError as exc:
        raise OutputError(
            f"cannot write output folder {destination}: cannot rename {source} to it "
            f"({_reason(exc)})"
        ) from None


@cache
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _exchange(first: Path, second: Path) -> bool:
    """Swap two folders atomically; False where the system cannot (then nothing changed)."""
    libc = _libc() if sys.platform.startswith("linux") else None
    renameat2 = getattr(libc, "renameat2", None)  # glibc >= 2.28
    if renameat2 is None:
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p] * 2 + [ctypes.c_uint]
    paths = [os.fsencode(first), os.fsencode(second)]
    if renameat2(_AT_FDCWD, paths[0], _AT_FDCWD, paths[1], _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP}:
        return False
    raise OutputError(
        f"cannot write output folder {second}: cannot exchange it with {first} "
        f"({os.strerror(code)})"
    )


# --------------------------------------------------------------------------- recovery
def recover_output_folder(path: str | os.PathLike[str]) -> None:
    """Undo or clean up what an interrupted write of ``path`` left behind.

    Under the folder's lock: if the destination is missing and a hidden old sibling
    (``.<name>.bayesjudge-old-*``) holds a complete bayesjudge report (a valid manifest,
    every file matching it, nothing added), the writer was stopped between its two renames:
    that report is renamed back (the latest, should there be several). Then every hidden
    staging or old sibling (``.<name>.bayesjudge-staging-*``, ``.<name>.bayesjudge-old-*``)
    is deleted, provided it carries bayesjudge's marker (a manifest, or the staging marker),
    and then only the files bayesjudge wrote; the journal file earlier versions wrote
    (``.<name>.bayesjudge-journal``) is removed. Anything without the marker is left alone.
    :func:`claim_output_folder` and :func:`output_folder` do this themselves.

    Parameters
    ----------
    path : path
        The output folder.

    Raises
    ------
    OutputError
        When another run holds the lock.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     recover_output_folder(Path(tmp) / "report")
    """
    target = _absolute(path)
    if not target.parent.is_dir():
        return
    with lock_output_folder(target):
        _recover(target)


def _recover(target: Path) -> None:
    leftovers = _leftovers(target)
    if not os.path.lexists(target):
        previous = _previous_report(leftovers)
        if previous is not None:
            os.rename(previous, target)
            _fsync_path(target.parent)
            leftovers.remove(previous)
    with suppress(FileNotFoundError, IsADirectoryError):  # written by earlier versions
        os.unlink(_sibling(target, "journal"))
    for leftover in leftovers:
        if leftover.is_dir() and not _is_link(leftover):
            _remove_written(leftover)


def _previous_report(leftovers: list[Path]) -> Path | None:
    """Return the old report a writer moved aside and did not replace (the latest complete)."""
    found: list[tuple[str, str, Path]] = []
    for folder in leftovers:
        manifest = read_manifest(folder)
        if "bayesjudge-old-" not in folder.name or manifest is None or _is_link(folder):
            continue
        try:
            _check_replaceable(folder, "report", "")
        except OutputError:
            continue
        found.append((manifest.created, folder.name, folder))
    return max(found)[2] if found else None


def _remove_written(folder: Path) -> bool:
    """Delete what bayesjudge wrote in ``folder``, markers last; True if the folder is gone.

    Nothing outside ``folder`` is touched, whatever a file in it says: the folder and every
    folder below it are opened without following symbolic links, and entries are removed
    through those descriptors. A staging folder (staging marker present) holds only what
    bayesjudge wrote, so everything in it goes. A folder with a manifest loses the regular
    files the manifest lists whose size and SHA-256 still match it, and then the folders the
    manifest records, if empty; it is removed only if nothing else is left. A folder without
    a marker is removed only if empty.
    """
    try:
        root = os.open(folder, _OPEN_FOLDER)
    except OSError:
        return False
    try:
        manifest = _read_manifest_at(root)
        staged = _exists_at(root, _STAGING_MARKER)
        if staged:
            _empty_folder(root)
        elif manifest is not None:
            _remove_recorded(root, manifest)
        if any(name not in _MARKERS for name in os.listdir(root)):
            return False
        for marker in _MARKERS:
            with suppress(FileNotFoundError):
                os.unlink(marker, dir_fd=root)
    finally:
        os.close(root)
    try:
        folder.rmdir()
    except OSError:
        return False
    return True


def _exists_at(folder: int, name: str) -> bool:
    try:
        os.lstat(name, dir_fd=folder)
    except FileNotFoundError:
        return False
    return True


def _empty_folder(root: int) -> None:
    """Remove everything below the folder open at ``root`` (links removed, never followed)."""
    for path, folders, files, current in os.fwalk(dir_fd=root, topdown=False):
        for name in files:
            if name not in _MARKERS or path != ".":  # the markers go last
                with suppress(OSError):
                    os.unlink(name, dir_fd=current)
        for name in folders:  # fwalk lists a link to a folder among the folders
            with suppress(OSError):
                if stat.S_ISLNK(os.lstat(name, dir_fd=current).st_mode):
                    os.unlink(name, dir_fd=current)
                else:
                    os.rmdir(name, dir_fd=current)


def _remove_recorded(root: int, manifest: Manifest) -> None:
    """Remove the files and folders ``manifest`` records, inside the folder open at ``root``."""
    for name, record in sorted(manifest.files.items()):
        if name in _MARKERS:
            continue
        *parents, last = name.split("/")
        with suppress(OSError), _open_below(root, parents) as parent:
            if _matches(parent, last, record):
                os.unlink(last, dir_fd=parent)
    for name in sorted(manifest.owned_folders(), key=lambda n: n.count("/"), reverse=True):
        *parents, last = name.split("/")
        with suppress(OSError), _open_below(root, parents) as parent:
            os.rmdir(last, dir_fd=parent)  # refuses a link and a folder that is not empty


@contextmanager
def _open_below(root: int, parts: list[str]) -> Iterator[int]:
    """Open the folder ``root/parts[0]/parts[1]/...``, following no symbolic link."""
    opened: list[int] = []
    try:
        current = root
        for part in parts:
            current = os.open(part, _OPEN_FOLDER, dir_fd=current)
            opened.append(current)
        yield current
    finally:
        for descriptor in opened:
            os.close(descriptor)


def _matches(folder: int, name: str, record: FileRecord) -> bool:
    """Whether ``name`` in the open ``folder`` is a regular file with ``record``'s content."""
    descriptor = os.open(name, _OPEN_FILE, dir_fd=folder)
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size != record.size:
            return False
        return _digest(stream) == record


# --------------------------------------------------------------------------- single files
def write_file_atomically(path: str | os.PathLike[str], writer: Callable[[Path], object]) -> Path:
    r"""Write one file through ``writer`` so that a crash never leaves a truncated file.

    ``writer`` receives the path of a new, empty temporary file beside the target
    (``.<name>.bayesjudge-tmp-<host>-<pid>-<random>``) and overwrites it; the file is then
    fsynced and renamed over the target, and the folder fsynced. If ``writer`` raises, the
    temporary file is removed and the target is untouched. Temporary files left by writers
    that were killed (their process is gone) are removed at the next write of the same target.
    A symbolic link at ``path`` is kept: the file it points to is replaced.

    Parameters
    ----------
    path : path
        The file to write. Missing parent folders are created.
    writer : callable
        Called with the temporary path; for instance
        ``lambda p: dataset.to_netcdf(p, engine="h5netcdf")``.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    OutputError
        When ``path`` is a folder or its folder cannot be created.
    OSError
        When writing fails (a full disk, ...): the error names ``path``, not the temporary
        file, and ``path`` is untouched.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     target = write_file_atomically(Path(tmp) / "t.csv", lambda p: p.write_text("a,b\n"))
    ...     target.read_text()
    'a,b\n'
    """
    target = Path(os.path.realpath(os.fspath(path)))
    if target.is_dir():
        raise OutputError(f"cannot write file {target}: it is a folder")
    _make_parents(target)
    _remove_dead_temporaries(target)
    temporary = target.parent / (
        f".{_stem(target)}.bayesjudge-tmp-{_host_tag()}-{os.getpid()}-{secrets.token_hex(4)}"
    )
    try:
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666))
    except OSError as exc:
        raise OutputError(f"cannot write file {target}: {_reason(exc)}") from None
    try:
        writer(temporary)
        _fsync_path(temporary)
        os.replace(temporary, target)
    except BaseException as exc:
        with suppress(FileNotFoundError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise _naming(exc, temporary, target) from exc
        raise
    _fsync_path(target.parent)
    return target


def _naming(exc: OSError, temporary: Path, target: Path) -> OSError:
    """Return the error as one about ``target``, not about its hidden temporary file."""
    if exc.errno is None or (
        exc.filename is not None and os.fsdecode(exc.filename) != os.fspath(temporary)
    ):
        return exc  # a message of its own, or about another file
    return OSError(exc.errno, _reason(exc), os.fspath(target))  # FileNotFoundError, ...


def write_text_atomically(
    path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8"
) -> Path:
    r"""Write text to a file atomically (see :func:`write_file_atomically`).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_text_atomically(Path(tmp) / "summary.md", "# Report\n").read_text()
    '# Report\n'
    """
    return write_file_atomically(path, lambda p: p.write_text(text, encoding=encoding))


def write_bytes_atomically(path: str | os.PathLike[str], data: bytes) -> Path:
    r"""Write bytes to a file atomically (see :func:`write_file_atomically`).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_bytes_atomically(Path(tmp) / "figure.png", b"\x89PNG").read_bytes()
    b'\x89PNG'
    """
    return write_file_atomically(path, lambda p: p.write_bytes(data))


@cache
def _host_tag() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]


def _remove_dead_temporaries(target: Path) -> None:
    """Remove temporaries of ``target`` whose writer, on this host, is no longer running."""
    if os.name != "posix":
        return  # os.kill(pid, 0) would terminate the process on Windows
    pattern = re.compile(
        rf"\.{re.escape(_stem(target))}\.bayesjudge-tmp-{_host_tag()}-(\d+)-[0-9a-f]{{8}}"
    )
    for name in os.listdir(target.parent):
        match = pattern.fullmatch(name)
        if match is None or _alive(int(match.group(1))):
            continue
        with suppress(FileNotFoundError):
            os.unlink(target.parent / name)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _fsync_path(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


# --------------------------------------------------------------------------- escaping
_BIDI_AND_SEPARATORS: Final = frozenset(
    "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_MARKDOWN_PUNCTUATION: Final = frozenset("\\`*_[]|~$")
# Line breaks and tabs become spaces; other control characters (C0, DEL, C1) and
# bidirectional overrides become U+FFFD: text on one line, with nothing invisible in it.
_LINE_BREAKS: Final = "\t\n\v\f\r"
_ONE_LINE: Final[dict[int, str]] = {
    **{code: "\ufffd" for code in (*range(0x20), *range(0x7F, 0xA0))},
    **{ord(char): "\ufffd" for char in _BIDI_AND_SEPARATORS},
    **{ord(char): " " for char in _LINE_BREAKS},
}
_BLOCK_START: Final = re.compile(r"([#+\-=]|\d+[.)])")


def escape_markdown(text: object) -> str:
    r"""Make user-controlled text inert in Markdown, whether read raw or rendered to HTML.

    For slice names, file names and system names placed in ``summary.md`` text or table cells:
    ``& < > " '`` become HTML character references (no tag, script or entity survives);
    the Markdown punctuation ``\ ` * _ [ ] | ~ $`` is backslash-escaped (no emphasis, code
    span, link, table cell break or math); line breaks and tabs become spaces; other control
    characters and bidirectional overrides become U+FFFD; a leading ``#``, ``+``, ``-``,
    ``=`` or ``1.`` is escaped so the text cannot start a heading or a list.

    Parameters
    ----------
    text : object
        Converted with ``str``.

    Returns
    -------
    str
        The escaped text, on one line.

    Examples
    --------
    >>> escape_markdown("<script>alert(1)</script>")
    '&lt;script&gt;alert(1)&lt;/script&gt;'
    >>> print(escape_markdown("a|b `c` *d*"))
    a\|b \`c\` \*d\*
    """
    escaped = "".join(
        html.escape(char, quote=True)
        if char in "&<>\"'"
        else "\\" + char
        if char in _MARKDOWN_PUNCTUATION
        else char
        for char in str(text).translate(_ONE_LINE)
    )
    start = _BLOCK_START.match(escaped)
    if start is not None:
        cut = start.end() - 1
        escaped = escaped[:cut] + "\\" + escaped[cut:]
    return escaped


# What can make prose active in Markdown rendered to HTML: an entity (``&gt;``, ``&#39;``) and
# the start of a tag, comment, declaration or autolink (``<b``, ``</``, ``<!``, ``<?``).
_ENTITY_START: Final = re.compile(r"&(?=#|[A-Za-z][A-Za-z0-9]*;)")
_TAG_START: Final = re.compile(r"<(?=[A-Za-z/!?])")
_PROSE_BLOCK_START: Final = re.compile(r"([#+\-=>|\[]|\d+[.)])")


def escape_markdown_prose(text: object, *, line_start: bool = False) -> str:
    r"""Make a report's own sentence inert in Markdown while it stays readable as plain text.

    For the sentences bayesjudge writes into ``summary.md`` (readings, warnings, advice), which
    may quote names from the data: no tag, entity, emphasis, code span, link or math can form,
    yet the punctuation prose uses (``' " > & . % ~``) is left as it reads. ``<`` becomes
    ``&lt;`` only where it would open a tag (before a letter, ``/``, ``!`` or ``?``) and ``&``
    becomes ``&amp;`` only where it would start an entity; the Markdown punctuation
    ``\ ` * _ ] ~ $`` is backslash-escaped, except a lone ``*``, ``_`` or ``~`` that can
    neither open nor close emphasis (between spaces, or ``_`` inside a word: ``pi ~ Beta``,
    ``a_b``) and a ``]`` that closes no link (not before ``(`` or ``[``); ``|`` and ``[`` are
    left as they are (they do nothing inside a paragraph); line breaks and tabs become spaces,
    other
    control characters and bidirectional overrides become U+FFFD. With ``line_start`` (the
    text begins a line), a leading ``#``, ``+``, ``-``, ``=``, ``>``, ``|``, ``[`` or ``1.``
    is escaped so it cannot start a heading, list, quote, table or link definition.

    Names alone (a table cell, a title) go through :func:`escape_markdown`, which escapes
    every character that could ever matter.

    Parameters
    ----------
    text : object
        Converted with ``str``.
    line_start : bool
        Whether the text begins a line of the Markdown file.

    Returns
    -------
    str
        The escaped text, on one line.

    Examples
    --------
    >>> escape_markdown_prose("the judge's pass rate rises from 68.0% to 85.0% (J > 0.2)")
    "the judge's pass rate rises from 68.0% to 85.0% (J > 0.2)"
    >>> escape_markdown_prose("system <b>x</b> & _a_b_ &amp; pi ~ Beta(1, 1)")
    'system &lt;b>x&lt;/b> & \\_a_b\\_ &amp;amp; pi ~ Beta(1, 1)'
    >>> escape_markdown_prose("P(verdict | truth) in [0, 1], [x](y)")
    'P(verdict | truth) in [0, 1], [x\\](y)'
    >>> escape_markdown_prose("1. item", line_start=True)
    '1\\. item'
    """
    chars = str(text)
    out = []
    for i, char in enumerate(chars):
        before = chars[i - 1] if i > 0 else " "
        after = chars[i + 1] if i + 1 < len(chars) else " "
        if char in _MARKDOWN_PUNCTUATION and not _inert_in_prose(char, before, after):
            out.append("\\" + char)
        else:
            out.append(char)
    one_line = "".join(out).translate(_ONE_LINE)
    escaped = _TAG_START.sub("&lt;", _ENTITY_START.sub("&amp;", one_line))
    if line_start:
        start = _PROSE_BLOCK_START.match(escaped)
        if start is not None:
            cut = start.end() - 1
            escaped = escaped[:cut] + "\\" + escaped[cut:]
    return escaped


def markdown_code_span(text: object) -> str:
    r"""Return ``text`` as a Markdown code span: shown verbatim, as code (identifiers, JSON).

    A code span shows its content literally (no emphasis, link or tag), so only its own fence
    matters: it is one backtick longer than the longest run inside. Line breaks become spaces,
    other control characters and bidirectional overrides U+FFFD.

    Examples
    --------
    >>> print(markdown_code_span("log_kappa ~ Normal(1, 1.5)"))
    `log_kappa ~ Normal(1, 1.5)`
    >>> print(markdown_code_span("a`b"))
    ``a`b``
    """
    body = str(text).translate(_ONE_LINE)
    runs = [len(r) for r in re.findall(r"`+", body)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def _inert_in_prose(char: str, before: str, after: str) -> bool:
    """Whether a Markdown mark in the middle of a paragraph can do nothing (CommonMark 6).

    A ``|`` cannot break a paragraph (only a table row); a ``[`` opens a link only with a
    ``](`` or ``][`` after it, so only that ``]`` is escaped; a lone ``*``, ``_`` or ``~``
    between spaces (``pi ~ Beta(1, 1)``, ``a * b``) and an ``_`` inside a word (``a_b``) can
    neither open nor close emphasis; a doubled mark is escaped all the same.
    """
    if char in "|[":
        return True
    if char == "]":
        return after not in "(["
    if char not in "*_~" or char in (before, after):
        return False
    if before.isspace() and after.isspace():
        return True
    return char == "_" and before.isalnum() and after.isalnum()


#: What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection").
_FORMULA_START: Final = ("=", "+", "-", "@", "\t", "\r")


def inert_csv_cell(value: object) -> object:
    r"""Make one CSV cell inert in a spreadsheet: text that could start a formula gets a ``'``.

    Text beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is prefixed with
    a single quote, which spreadsheets read as "this cell is text" (the OWASP recommendation
    against CSV injection, https://owasp.org/www-community/attacks/CSV_Injection). Anything
    else is returned as it is: numbers (a negative number held as a number included) stay
    numbers, and so do missing values.

    Parameters
    ----------
    value : object
        One cell, index label or column label.

    Returns
    -------
    object
        ``"'" + value`` for text that could start a formula, else ``value`` itself.

    Examples
    --------
    >>> inert_csv_cell('=HYPERLINK("http://evil/?x","click")')
    '\'=HYPERLINK("http://evil/?x","click")'
    >>> inert_csv_cell("-2+3"), inert_csv_cell(-2.5), inert_csv_cell("model a")
    ("'-2+3", -2.5, 'model a')
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def write_csv(frame: pd.DataFrame, path: str | os.PathLike[str], *, index: bool = False) -> Path:
    """Write a report table as CSV, every text cell and label made inert (:func:`inert_csv_cell`).

    Every CSV a report or study writes goes through this function, so that a system, judge,
    slice or scenario name from the data never opens in a spreadsheet as a formula. Numeric
    columns are written as they are; text cells, column labels and index labels are passed
    through :func:`inert_csv_cell`. The frame itself is not changed.

    Parameters
    ----------
    frame : DataFrame
        The table.
    path : path
        The file to write (UTF-8).
    index : bool
        Whether to write the index as the first column(s).

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> frame = pd.DataFrame({"system": ["=1+1", "b"], "diff": [-0.25, 0.5]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(write_csv(frame, Path(tmp) / "t.csv").read_text(), end="")
    system,diff
    '=1+1,-0.25
    b,0.5
    """
    from pandas.api.types import is_numeric_dtype

    inert = frame.copy()
    for position in range(inert.shape[1]):
        column = inert.iloc[:, position]
        if not is_numeric_dtype(column):  # bool columns count as numeric
            inert.isetitem(position, column.astype(object).map(inert_csv_cell).to_numpy())
    inert.columns = _inert_labels(inert.columns)
    if index:
        inert.index = _inert_labels(inert.index)
    target = Path(path)
    inert.to_csv(target, index=index)
    return target


def _inert_labels(labels: pd.Index) -> pd.Index:
    """Return the labels (and level names) of an index, each made inert by inert_csv_cell."""
    import pandas as pd

    if isinstance(labels, pd.MultiIndex):
        return pd.MultiIndex.from_tuples(
            [tuple(inert_csv_cell(part) for part in label) for label in labels],
            names=[inert_csv_cell(name) for name in labels.names],
        )
    if pd.api.types.is_numeric_dtype(labels):
        return labels.rename(inert_csv_cell(labels.name))
    return pd.Index(
        [inert_csv_cell(label) for label in labels], name=inert_csv_cell(labels.name), dtype=object
    )


def escape_terminal(text: object, *, keep: str = "") -> str:
    r"""Make text from the data inert on a terminal: every unprintable character shown escaped.

    Each character Python does not consider printable (``str.isprintable``: the C0 and C1
    control characters such as ESC, DEL, bidirectional overrides and other format characters,
    line and paragraph separators, spaces other than the ASCII space) is shown as Python's
    ``repr`` shows it, without the quotes: ESC as ``\x1b``, U+202E as ``\u202e``, a tab as
    ``\t``. Printable text, backslashes included, is unchanged, so the function may be applied
    twice. For system, judge, slice and file names the commands print, and for each line of a
    message that may hold them.

    Parameters
    ----------
    text : object
        Converted with ``str``.
    keep : str
        Characters left as they are (``"\n"`` for text of several lines).

    Returns
    -------
    str
        The text, with no unprintable character but those in ``keep``.

    Examples
    --------
    >>> print(escape_terminal("\x1b[31mred\x1b[0m"))
    \x1b[31mred\x1b[0m
    >>> print(escape_terminal("abc\u202edef"))
    abc\u202edef
    >>> print(escape_terminal("two\nlines\r", keep="\n"))
    two
    lines\r
    """
    shown = str(text)
    if shown.isprintable():
        return shown
    return "".join(
        char
        if char.isprintable() or char in keep
        else char.encode("unicode_escape").decode("ascii")
        for char in shown
    )


# --------------------------------------------------------------------------- worker lifetime
def end_with_parent(parent_pid: int | None = None) -> None:
    """Make this process end (SIGTERM) when the process that started it dies.

    Meant as a process-pool initializer, so that killing the main process of, for instance,
    ``bayesjudge study --workers 2`` does not leave its workers running::

        ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                            initializer=end_with_parent, initargs=(os.getpid(),))

    Two watchers, each enough on its own:

    - Linux: the kernel signals the process when its parent process ends
      (``prctl(PR_SET_PDEATHSIG, SIGTERM)``); the parent pid is read again after arming it,
      so a parent that died just before is noticed too. This works even while the worker
      holds the GIL in a long computation. With the ``spawn`` context the parent is the main
      process; with ``forkserver`` it is the fork server, which outlives the main process as
      long as workers hold its pipe, so there only the second watcher helps.
    - In a ``multiprocessing`` child (any start method, any OS): a daemon thread blocks on
      ``multiprocessing.parent_process().join()``, which returns when the process that
      started the pool ends, and then ends this one. It needs the GIL to run.

    Outside ``multiprocessing`` and off Linux, a daemon thread checks the parent pid twice a
    second.

    Parameters
    ----------
    parent_pid : int, optional
        The process expected to have started this one (``os.getpid()`` in the process that
        creates the pool, with any start method). If it is already another process, this one
        ends at once.

    Notes
    -----
    Linux sends the signal when the *thread* that started the worker ends; start pools from a
    thread that lives as long as the pool (the main thread, as bayesjudge does).

    Examples
    --------
    >>> end_with_parent(os.getppid())  # nothing visible happens: the parent is alive
    """
    _end_with_parent(parent_pid, use_prctl=sys.platform.startswith("linux"))


def _end_with_parent(parent_pid: int | None, *, use_prctl: bool) -> None:
    import multiprocessing

    watched = os.getppid()
    mp_parent = multiprocessing.parent_process()
    starter = mp_parent.pid if mp_parent is not None else watched
    if parent_pid is not None and starter != parent_pid:
        _terminate()
    libc = _libc() if use_prctl else None
    armed = libc is not None and _arm_death_signal(libc)
    if armed and os.getppid() != watched:
        _terminate()  # the parent died between reading its pid and arming the signal
    if mp_parent is not None:
        if not mp_parent.is_alive():
            _terminate()
        threading.Thread(
            target=_await_parent, args=(mp_parent,), name="bayesjudge-parent", daemon=True
        ).start()
    elif not armed:
        threading.Thread(
            target=_poll_parent, args=(watched,), name="bayesjudge-parent", daemon=True
        ).start()


def _arm_death_signal(libc: ctypes.CDLL) -> bool:
    zero = ctypes.c_ulong(0)
    status = libc.prctl(
        ctypes.c_int(_PR_SET_PDEATHSIG), ctypes.c_ulong(int(signal.SIGTERM)), zero, zero, zero
    )
    return bool(status == 0)


def _await_parent(mp_parent: Any) -> None:
    mp_parent.join()  # returns when the parent's end of the pipe to this process closes
    _terminate()


def _poll_parent(watched: int) -> None:
    stop = threading.Event()
    while not stop.wait(0.5):
        if os.getppid() != watched:
            _terminate()


def _terminate() -> None:
    os.kill(os.getpid(), signal.SIGTERM)
    os._exit(128 + signal.SIGTERM)  # only reached if SIGTERM is handled or ignored
