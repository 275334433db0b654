"""The model cache shared by every family: in the process, and on disk across processes.

A model's structure (priors, array shapes, options) is fixed by a hashable key; its data enter
through ``pm.Data`` and are swapped in at each fit, so a refit on new data of the same shape
neither rebuilds nor recompiles the model.

**In the process**, :class:`ModelCache` keeps the built PyMC model and its compiled nutpie form
under the key.

**On disk**, the compiled form is kept across processes (:func:`disk_cache_folder`), so that a
new process samples a model compiled by an earlier one without importing PyMC, building the
model or compiling it (:mod:`bayesjudge.inference.compile`). An entry is a folder named by the
SHA-256 digest of

* the model's key, written out canonically (its strings, numbers, tuples and frozen dataclasses
  such as the priors; a key holding anything else is not kept on disk);
* the versions of Python, bayesjudge, PyMC, PyTensor, nutpie, numba, llvmlite, NumPy and SciPy,
  the machine and operating system;
* a digest of every Python source file of bayesjudge and its models (so editing the package,
  even in an editable install, starts new entries);
* the ``PYTENSOR*`` and ``NUMBA_*`` environment variables and the PyTensor configuration files;
* the format of the entry (:data:`bayesjudge.inference.compile.SPEC_FORMAT`);

and numba files each callback's machine code under the target CPU as well. Anything that
changes the compiled code therefore changes the folder, and stale folders are never read.
Files are written to a temporary name and renamed, so concurrent processes each see a complete
entry or none; two processes that miss at once both compile and write the same content. An
entry that cannot be read is compiled afresh; a folder that cannot be written is skipped with
one warning.

**Contained.** The compiled form rests on private names of numba and nutpie. It is used only
with the versions it was tested with (:data:`TESTED_VERSIONS`; the ``fast`` extra pins them
too), and any exception while it loads or compiles (a private name gone, a changed signature)
falls back to nutpie's public ``nutpie.compile_pymc_model``, which samples the same model with
the same log density and starting points; only the cold start is slower. The fallbacks are
counted (:attr:`CacheInfo.fallbacks`) and reported once per process as a warning.

Where it lives: ``$BAYESJUDGE_CACHE_DIR`` when set (``off`` turns the disk cache off), else
``$XDG_CACHE_HOME/bayesjudge``, else ``~/.cache/bayesjudge``. Clear it with
:func:`clear_disk_cache` or by deleting the folder.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
import sys
import uuid
import warnings
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from bayesjudge._version import installed_version

__all__ = [
    "CACHE_DIR_VARIABLE",
    "TESTED_VERSIONS",
    "CacheInfo",
    "ModelCache",
    "bucket_size",
    "canonical_key",
    "clear_disk_cache",
    "clear_model_cache",
    "disk_cache_folder",
    "environment_fingerprint",
    "model_cache",
    "model_cache_info",
    "untested_versions",
]

#: The numba and nutpie releases (major.minor) whose private names the compiled form was
#: tested with; with any other, models are compiled by ``nutpie.compile_pymc_model`` alone.
TESTED_VERSIONS: dict[str, tuple[str, ...]] = {"numba": ("0.68",), "nutpie": ("0.16",)}

#: Environment variable naming the folder of the on-disk cache (``off`` turns it off).
CACHE_DIR_VARIABLE = "BAYESJUDGE_CACHE_DIR"
#: Subfolder of the cache folder holding the compiled models.
_MODELS = "models"
#: File of an entry describing the compiled model (written last).
_SPEC = "spec.json"
#: Distributions whose versions enter every key.
_DISTRIBUTIONS = ("bayesjudge", "pymc", "pytensor", "nutpie", "numba", "llvmlite", "numpy", "scipy")


@dataclass(frozen=True, slots=True)
class CacheInfo:
    """Counters of a :class:`ModelCache`.

    Attributes
    ----------
    builds : int
        PyMC models built since the cache was created.
    compiles : int
        nutpie compilations since the cache was created.
    hits : int
        Fits that found their model in the process's cache.
    size : int
        Models currently held.
    loads : int
        Compiled models loaded from the on-disk cache (no build, no compilation).
    fallbacks : int
        Models compiled by ``nutpie.compile_pymc_model`` because the compiled form could not
        be used (untested numba or nutpie release, or an error in its private path).
    """

    builds: int
    compiles: int
    hits: int
    size: int
    loads: int = 0
    fallbacks: int = 0


@dataclass(slots=True)
class _Entry:
    build: Callable[[], Any]
    model: Any = None
    compiled: Any = None


class ModelCache:
    """A small LRU cache of built PyMC models and their compiled nutpie form.

    Parameters
    ----------
    maxsize : int
        Models kept; the least recently used is dropped beyond it.

    Examples
    --------
    >>> cache = ModelCache(maxsize=2)
    >>> cache.info()
    CacheInfo(builds=0, compiles=0, hits=0, size=0, loads=0, fallbacks=0)
    """

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._builds = 0
        self._compiles = 0
        self._hits = 0
        self._loads = 0
        self._fallbacks = 0

    def _entry(self, key: Hashable, build: Callable[[], Any]) -> _Entry:
        entry = self._entries.get(key)
        if entry is None:
            entry = _Entry(build)
            self._entries[key] = entry
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
        else:
            self._hits += 1
            self._entries.move_to_end(key)
        return entry

    def _built(self, entry: _Entry) -> Any:
        if entry.model is None:
            entry.model = entry.build()
            self._builds += 1
        return entry.model

    def model(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """Return the model cached under ``key``, building it with ``build()`` on a miss."""
        return self._built(self._entry(key, build))

    def compiled(
        self, key: Hashable, build: Callable[[], Any], replaced: frozenset[str] = frozenset()
    ) -> Any:
        """Return the model under ``key`` compiled for nutpie: from memory, disk, or compiled.

        Parameters
        ----------
        key : hashable
            What fixes the model's structure.
        build : callable
            Returns the ``pm.Model`` (called only when it must be compiled).
        replaced : frozenset of str
            Data containers every fit replaces: their values are not written to disk, and a
            disk entry is used only when the caller replaces every container it lacks.
        """
        entry = self._entry(key, build)
        if entry.compiled is None:
            entry.compiled = self._load_or_compile(key, entry, replaced)
        return entry.compiled

    def _load_or_compile(self, key: Hashable, entry: _Entry, replaced: frozenset[str]) -> Any:
        untested = untested_versions()
        if untested:
            return self._public_compile(entry, f"untested {untested}")
        try:
            return self._accelerated(key, entry, replaced)
        except Exception as exc:  # a private name of numba or nutpie that changed
            return self._public_compile(entry, f"{type(exc).__name__}: {exc}")

    def _public_compile(self, entry: _Entry, reason: str) -> Any:
        """Compile through nutpie's public function; say why once per process."""
        import nutpie

        compiled = nutpie.compile_pymc_model(self._built(entry))
        self._compiles += 1
        self._fallbacks += 1
        if reason not in _WARNED:
            _WARNED.add(reason)
            warnings.warn(
                f"the model cache compiles through nutpie.compile_pymc_model ({reason}): the "
                "results are the same, only the first fit in each process is slower",
                RuntimeWarning,
                stacklevel=2,
            )
        return compiled

    def _accelerated(self, key: Hashable, entry: _Entry, replaced: frozenset[str]) -> Any:
        root = disk_cache_folder()
        folder = _entry_folder(root, key) if root is not None else None
        if folder is not None:
            loaded = _load(folder, replaced)
            if loaded is not None:
                self._loads += 1
                return loaded
            if not _writable(folder):
                folder = None
        from bayesjudge.inference.compile import compile_model

        model = self._built(entry)
        compiled, spec = compile_model(model, folder=folder, keep=replaced)
        self._compiles += 1
        if folder is not None and spec is not None:
            _save(folder, key, spec)
        return compiled

    def info(self) -> CacheInfo:
        """Return the counters: builds, nutpie compiles, hits, current size and disk loads."""
        return CacheInfo(
            self._builds,
            self._compiles,
            self._hits,
            len(self._entries),
            self._loads,
            self._fallbacks,
        )


# --------------------------------------------------------------------------- the disk cache
def untested_versions() -> dict[str, str]:
    """Return the installed numba and nutpie releases the compiled form was not tested with.

    Examples
    --------
    >>> untested_versions()  # the releases of the test environment
    {}
    """
    found = {}
    for name, tested in TESTED_VERSIONS.items():
        version = installed_version(name)
        if version is None:
            found[name] = "not installed"
            continue
        if ".".join(version.split(".")[:2]) not in tested:
            found[name] = version
    return found


def disk_cache_folder(environ: Mapping[str, str] | None = None) -> Path | None:
    """Return the folder of the on-disk model cache, or None when it is turned off.

    ``$BAYESJUDGE_CACHE_DIR`` when set and not empty (the value ``off``, in any case, turns
    the disk cache off); otherwise ``$XDG_CACHE_HOME/bayesjudge`` when ``XDG_CACHE_HOME`` is an
    absolute path; otherwise ``~/.cache/bayesjudge``.

    Parameters
    ----------
    environ : mapping, optional
        The environment variables to read (``os.environ`` by default).

    Examples
    --------
    >>> disk_cache_folder({"BAYESJUDGE_CACHE_DIR": "/srv/cache/bj"})
    PosixPath('/srv/cache/bj')
    >>> disk_cache_folder({"XDG_CACHE_HOME": "/srv/cache"})
    PosixPath('/srv/cache/bayesjudge')
    >>> disk_cache_folder({"BAYESJUDGE_CACHE_DIR": "off"}) is None
    True
    """
    env = os.environ if environ is None else environ
    chosen = env.get(CACHE_DIR_VARIABLE, "").strip()
    if chosen:
        return None if chosen.lower() == "off" else Path(chosen).expanduser()
    xdg = env.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "bayesjudge"


def clear_disk_cache() -> int:
    """Delete every compiled model in the on-disk cache; return how many entries were removed.

    Only the ``models`` subfolder of :func:`disk_cache_folder` is touched. Safe while other
    processes run: one that was loading an entry just compiles it again.
    """
    import shutil

    root = disk_cache_folder()
    if root is None or not (root / _MODELS).is_dir():
        return 0
    removed = 0
    for folder in (root / _MODELS).iterdir():
        if folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


class _NotCanonical(TypeError):
    """A key part that has no stable text form across processes."""


def canonical_key(value: Any) -> str:
    """Return a text form of a cache key that is the same in every process.

    Strings, numbers (Python and numpy), booleans, None, tuples and lists of them, and
    dataclass instances (by type and fields) are allowed; anything else (bytes, arrays,
    functions, subclasses of the plain types) raises ``TypeError``: its ``repr`` may name a
    memory address or leave out what distinguishes two values.

    Examples
    --------
    >>> from bayesjudge.priors import PrevalencePriors
    >>> canonical_key(("prevalence", True, 2))
    "tuple('prevalence',True,2)"
    >>> canonical_key(("prevalence", PrevalencePriors())).startswith("tuple('prevalence',")
    True
    """
    if value is None or type(value) in (bool, str, int, float):
        return repr(value)
    if isinstance(value, np.bool_ | np.integer | np.floating):
        return f"{type(value).__name__}({value.item()!r})"
    if isinstance(value, tuple | list):
        return f"{type(value).__name__}(" + ",".join(canonical_key(v) for v in value) + ")"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        fields = ",".join(
            f"{f.name}={canonical_key(getattr(value, f.name))}" for f in dataclasses.fields(value)
        )
        return f"{kind.__module__}.{kind.__qualname__}({fields})"
    raise _NotCanonical(f"a {type(value).__name__} has no canonical text form")


@cache
def environment_fingerprint() -> dict[str, Any]:
    """Return what, besides a model's key, changes its compiled code (computed once).

    Python and package versions, the machine, a digest of bayesjudge's sources, and the
    PyTensor and numba settings from the environment and PyTensor's configuration files.
    """
    versions = {name: installed_version(name) for name in _DISTRIBUTIONS}
    settings = {k: v for k, v in sorted(os.environ.items()) if k.startswith(("PYTENSOR", "NUMBA_"))}
    rc = os.environ.get("PYTENSORRC", "~/.pytensorrc:~/.pytensorrc.txt")
    config_files = {}
    for name in rc.split(os.pathsep):
        path = Path(name).expanduser()
        if path.is_file():
            config_files[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return {
        "python": sys.version,
        "implementation": sys.implementation.name,
        "machine": platform.machine(),
        "system": platform.system(),
        "versions": versions,
        "sources": _source_digest(),
        "settings": settings,
        "config_files": config_files,
    }


def _source_digest() -> str:
    """SHA-256 over the paths and contents of every ``.py`` file of bayesjudge and its models."""
    import bayesjudge

    roots = [Path(p) for p in bayesjudge.__path__]
    models = sys.modules.get("bayesjudge.models")
    if models is None:
        from importlib.util import find_spec

        spec = find_spec("bayesjudge.models")
        locations = spec.submodule_search_locations if spec is not None else None
        roots += [Path(p) for p in locations or []]
    else:
        roots += [Path(p) for p in models.__path__]
    digest = hashlib.sha256()
    for root in dict.fromkeys(roots):
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _identity(key: Hashable) -> dict[str, Any] | None:
    from bayesjudge.inference.compile import SPEC_FORMAT

    try:
        text = canonical_key(key)
    except _NotCanonical:
        return None
    return {"format": SPEC_FORMAT, "key": text, "environment": environment_fingerprint()}


def _entry_folder(root: Path, key: Hashable) -> Path | None:
    identity = _identity(key)
    if identity is None:
        return None
    text = json.dumps(identity, sort_keys=True)
    return root / _MODELS / hashlib.sha256(text.encode()).hexdigest()


def _load(folder: Path, replaced: frozenset[str]) -> Any:
    """Return the compiled model of a disk entry, or None (no entry, unreadable, another CPU)."""
    path = folder / _SPEC
    if not path.is_file():
        return None
    from bayesjudge.inference.compile import CompiledSpec, load_model

    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        spec = CompiledSpec.from_dict(stored["spec"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if any(s.value is None and s.name not in replaced for s in spec.shared):
        return None
    try:
        return load_model(spec, folder)
    except OSError:
        return None


_WARNED: set[str] = set()


def _warn_unwritable(folder: Path, exc: OSError) -> None:
    root = str(folder.parent.parent)
    if root not in _WARNED:
        _WARNED.add(root)
        warnings.warn(
            f"could not write the model cache in {root} ({exc}); compiled models are kept in "
            f"this process only. Set {CACHE_DIR_VARIABLE} to a writable folder, or to 'off'.",
            UserWarning,
            stacklevel=5,
        )


def _writable(folder: Path) -> bool:
    """Create an entry's folder; False (with one warning per process) when that fails."""
    probe = folder / f".probe.{uuid.uuid4().hex}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe.touch()
        probe.unlink()
    except OSError as exc:
        _warn_unwritable(folder, exc)
        return False
    return True


def _save(folder: Path, key: Hashable, spec: Any) -> None:
    """Write an entry's spec atomically (the machine code is already in ``folder``)."""
    record = {"key": canonical_key(key), "spec": spec.to_dict()}
    temporary = folder / f"{_SPEC}.{uuid.uuid4().hex}.tmp"
    try:
        temporary.write_text(json.dumps(record), encoding="utf-8")
        os.replace(temporary, folder / _SPEC)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        _warn_unwritable(folder, exc)


# --------------------------------------------------------------------------- the process's cache
#: The one cache of the process: every family's fits keep their models here.
_CACHE_SIZE = 32
_CACHE = ModelCache(_CACHE_SIZE)


def model_cache() -> ModelCache:
    """Return the process-wide model cache that every fit function uses."""
    return _CACHE


def model_cache_info() -> CacheInfo:
    """Return the counters of the model cache (builds, compiles, hits, size, disk loads).

    Examples
    --------
    >>> clear_model_cache()
    >>> model_cache_info()
    CacheInfo(builds=0, compiles=0, hits=0, size=0, loads=0, fallbacks=0)
    """
    return _CACHE.info()


def clear_model_cache() -> None:
    """Drop every model cached in the process and reset the counters (the disk is untouched)."""
    global _CACHE
    _CACHE = ModelCache(_CACHE_SIZE)


def bucket_size(count: int, *, minimum: int = 16) -> int:
    """Return the padded length for ``count`` entries: the next power of two, at least ``minimum``.

    Padding to a few fixed lengths lets a compiled model be refitted on new data without a
    rebuild (its data arrays are ``pm.Data`` of that length, and the model's key in this cache
    holds the padded length, not the count): the systems' and gates' cells, the panels'
    verdict patterns, the repeated model's items and the drift model's batches.

    Examples
    --------
    >>> bucket_size(3), bucket_size(17), bucket_size(64)
    (16, 32, 64)
    """
    if count < 0:
        raise ValueError(f"count must be non-negative; got {count!r}")
    size = max(int(minimum), 1)
    while size < count:
        size *= 2
    return size
