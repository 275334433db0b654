"""Where a posterior came from: versions, model, priors, sampler, seed and command, as attrs.

Every fit of every family records the same provenance in its DataTree's root attrs, so a
posterior saved to disk says how to reproduce it. The command line records the exact command
it ran with :func:`recording_command`; library calls record none.
"""

from __future__ import annotations

import platform
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from functools import cache
from typing import Any

import numpy as np

from bayesjudge._version import __version__, installed_version
from bayesjudge.validation import DEFAULT_SEED

__all__ = [
    "current_command",
    "provenance",
    "provenance_attrs",
    "provenance_from_attrs",
    "recording_command",
    "seed_label",
    "versions",
]

#: Distributions whose versions are recorded with every result.
_DISTRIBUTIONS = (
    "numpy",
    "scipy",
    "pandas",
    "xarray",
    "pymc",
    "pytensor",
    "nutpie",
    "arviz-base",
    "arviz-stats",
)

_COMMAND: ContextVar[str | None] = ContextVar("bayesjudge_command", default=None)


@cache
def versions() -> dict[str, str]:
    """Return the versions of Python and of the packages a result depends on.

    Packages that are not installed are left out. Read from the installed distributions'
    metadata, so nothing is imported.

    Examples
    --------
    >>> "python" in versions() and "numpy" in versions()
    True
    """
    out = {"python": platform.python_version(), "bayesjudge": __version__}
    for name in _DISTRIBUTIONS:
        if (version := installed_version(name)) is not None:
            out[name] = version
    return out


@contextmanager
def recording_command(argv: Sequence[str]) -> Iterator[str]:
    """Record ``argv`` as the command behind every result made inside the block.

    Examples
    --------
    >>> with recording_command(["bayesjudge", "estimate", "data.csv"]):
    ...     current_command()
    'bayesjudge estimate data.csv'
    """
    import shlex

    text = shlex.join([str(a) for a in argv])
    token = _COMMAND.set(text)
    try:
        yield text
    finally:
        _COMMAND.reset(token)


def current_command() -> str | None:
    """Return the command being recorded, or None outside :func:`recording_command`."""
    return _COMMAND.get()


def seed_label(random_seed: int | np.random.Generator | None) -> int | str:
    """Return the seed as recorded: the integer seed (the default one for None).

    A :class:`numpy.random.Generator` has no integer seed to record; it is noted as such.

    Examples
    --------
    >>> seed_label(None) == DEFAULT_SEED, seed_label(7)
    (True, 7)
    """
    if random_seed is None:
        return DEFAULT_SEED
    if isinstance(random_seed, np.random.Generator):
        return "numpy Generator"
    return int(random_seed)


def provenance_attrs(random_seed: int | np.random.Generator | None) -> dict[str, Any]:
    """Return the attrs every result carries: versions, seed and (when recorded) the command."""
    import json

    attrs: dict[str, Any] = {
        "bayesjudge_version": __version__,
        "versions": json.dumps(versions()),
        "seed": seed_label(random_seed),
    }
    command = current_command()
    if command is not None:
        attrs["command"] = command
    return attrs


def provenance(seed: int | str, **fields: Any) -> dict[str, Any]:
    """Return the ``provenance`` block of a command's JSON: seed, versions, command, ``fields``.

    Priors (a :class:`~bayesjudge.priors.Priors`) are given as their text form.

    Examples
    --------
    >>> sorted(provenance(7, method="nuts"))
    ['method', 'seed', 'versions']
    """
    out: dict[str, Any] = {"seed": seed}
    for name, value in fields.items():
        out[name] = value.as_dict() if hasattr(value, "as_dict") else value
    out["versions"] = dict(versions())
    command = current_command()
    if command is not None:
        out["command"] = command
    return out


def provenance_from_attrs(attrs: Mapping[Any, Any]) -> dict[str, Any]:
    """Return a posterior's attrs as a ``provenance`` block (the versions as a mapping).

    The attrs every fit records (:func:`provenance_attrs`, and each family's model, sampler
    and priors) are kept as they are, NumPy scalars as Python ones; ``versions``, stored in the
    attrs as JSON text, is read back into a mapping.

    Examples
    --------
    >>> block = provenance_from_attrs({"seed": np.int64(7), "versions": '{"numpy": "2.3"}'})
    >>> block["seed"], block["versions"]
    (7, {'numpy': '2.3'})
    """
    import json

    out: dict[str, Any] = {}
    for name, value in attrs.items():
        if isinstance(value, np.generic):
            value = value.item()
        elif isinstance(value, np.ndarray):
            value = value.tolist()
        if name == "versions" and isinstance(value, str):
            with suppress(ValueError):
                value = json.loads(value)
        out[str(name)] = value
    return out
