"""Lazy imports: a package's public names loaded on first access, and deferred dependencies."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from importlib import import_module
from typing import Any

__all__ = ["by_module", "deferring", "lazy_exports"]


def by_module(modules: Mapping[str, str]) -> dict[str, str]:
    """Return each public name with its module, from the names each module exports.

    The table of :func:`lazy_exports` written one line per module: ``modules`` maps a module
    (relative to the package when it starts with ``.``) to the names it defines, separated by
    white space. A name given for two modules raises ``ValueError``.

    Examples
    --------
    >>> by_module({".data": "Data read", ".fit": "fit"})
    {'Data': '.data', 'read': '.data', 'fit': '.fit'}
    """
    names: dict[str, str] = {}
    for module, listed in modules.items():
        for name in listed.split():
            if names.setdefault(name, module) != module:
                raise ValueError(f"{name!r} is given for {names[name]!r} and {module!r}")
    return names


def lazy_exports(
    package: str, names: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return ``__getattr__`` and ``__dir__`` functions serving ``names`` from their modules.

    Parameters
    ----------
    package : str
        The package's ``__name__`` (its module globals get each name once loaded).
    names : mapping of str to str
        Each public name and the module (relative to ``package`` when it starts with ``.``)
        that defines it.
    """

    def __getattr__(name: str) -> Any:
        if name in names:
            module = names[name]
            value = getattr(import_module(module, package), name)
            setattr(sys.modules[package], name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__


class _Deferred(types.ModuleType):
    """Stands for a module until one of its attributes is used, then imports it and forwards."""

    def __getattr__(self, attr: str) -> Any:
        if sys.modules.get(self.__name__) is self:  # used while the import is deferred
            raise AttributeError(f"{self.__name__} is deferred; {attr!r} is not available yet")
        return getattr(import_module(self.__name__), attr)


@contextmanager
def deferring(*names: str) -> Iterator[None]:
    """Let the modules imported in the block import ``names`` without loading them.

    For a dependency that imports a heavy module only to use it in functions bayesjudge never
    calls: inside the block ``import name`` gives a stand-in, which imports the real module the
    first time one of its attributes is used. Modules already imported are left as they are,
    and after the block ``import name`` is the ordinary import again.
    """
    added = []
    for name in names:
        if name not in sys.modules:
            stand_in = _Deferred(name)
            sys.modules[name] = stand_in
            added.append(stand_in)
    try:
        yield
    finally:
        for stand_in in added:
            if sys.modules.get(stand_in.__name__) is stand_in:
                del sys.modules[stand_in.__name__]
