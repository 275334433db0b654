"""A cache of built PyMC models and their compiled nutpie form, shared by every family.

A model's structure (priors, array shapes, options) is fixed by a hashable key; its data enter
through ``pm.Data`` and are swapped in at each fit, so a refit on new data of the same shape
neither rebuilds nor recompiles the model.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

__all__ = ["CacheInfo", "ModelCache", "clear_model_cache", "model_cache", "model_cache_info"]


@dataclass(frozen=True, slots=True)
class CacheInfo:
    """Counters of a :class:`ModelCache`.

    Attributes
    ----------
    builds : int
        Models built (cache misses) since the cache was created.
    compiles : int
        nutpie compilations since the cache was created.
    hits : int
        Fits that reused a cached model.
    size : int
        Models currently held.
    """

    builds: int
    compiles: int
    hits: int
    size: int


@dataclass(slots=True)
class _Entry:
    model: Any
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
    CacheInfo(builds=0, compiles=0, hits=0, size=0)
    """

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._builds = 0
        self._compiles = 0
        self._hits = 0

    def model(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """Return the model cached under ``key``, building it with ``build()`` on a miss."""
        return self._entry(key, build).model

    def _entry(self, key: Hashable, build: Callable[[], Any]) -> _Entry:
        entry = self._entries.get(key)
        if entry is None:
            entry = _Entry(model=build())
            self._builds += 1
            self._entries[key] = entry
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
        else:
            self._hits += 1
            self._entries.move_to_end(key)
        return entry

    def _compiled(self, entry: _Entry) -> Any:
        if entry.compiled is None:
            import nutpie

            entry.compiled = nutpie.compile_pymc_model(entry.model)
            self._compiles += 1
        return entry.compiled

    def info(self) -> CacheInfo:
        """Return the counters: builds, nutpie compiles, hits and current size."""
        return CacheInfo(self._builds, self._compiles, self._hits, len(self._entries))


#: The one cache of the process: every family's fits keep their models here.
_CACHE_SIZE = 32
_CACHE = ModelCache(_CACHE_SIZE)


def model_cache() -> ModelCache:
    """Return the process-wide model cache that every fit function uses."""
    return _CACHE


def model_cache_info() -> CacheInfo:
    """Return the counters of the model cache (builds, nutpie compiles, hits, size).

    Examples
    --------
    >>> clear_model_cache()
    >>> model_cache_info()
    CacheInfo(builds=0, compiles=0, hits=0, size=0)
    """
    return _CACHE.info()


def clear_model_cache() -> None:
    """Drop every cached model and reset the counters."""
    global _CACHE
    _CACHE = ModelCache(_CACHE_SIZE)
