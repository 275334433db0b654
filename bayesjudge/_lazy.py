"""Lazy public names for a package: each name is imported from its module on first access."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_exports"]


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
    import sys

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
