"""One NUTS path for every model: a cache of built and compiled models, and the sampler call.

Building a PyMC model and compiling it for nutpie takes seconds; sampling the small models of
bayesjudge takes a fraction of one. Every fitting module therefore keeps its models in a
:class:`ModelCache` keyed by what fixes the model's structure (priors, shapes, options), feeds
new data through ``pm.Data``, and samples with :func:`sample_nuts`, which swaps the data into a
copy of the compiled model (``CompiledPyMCModel.with_data`` returns a new object and leaves the
cached one untouched, so no state passes from one dataset to the next).

nutpie is used when it is installed; otherwise PyMC's own NUTS, and :func:`resolve_sampler`
says so in a note that the fitting modules record in the posterior's attrs.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

import xarray as xr

__all__ = [
    "CacheInfo",
    "ModelCache",
    "Sampler",
    "nutpie_installed",
    "progressbar_default",
    "resolve_sampler",
    "sample_nuts",
]

Sampler = Literal["auto", "nutpie", "pymc"]
_SAMPLERS: tuple[str, ...] = get_args(Sampler)


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


def nutpie_installed() -> bool:
    """Return whether nutpie can be imported."""
    return importlib.util.find_spec("nutpie") is not None


def resolve_sampler(sampler: str) -> tuple[Literal["nutpie", "pymc"], str]:
    """Return the sampler to use for ``sampler`` and a note saying why.

    Raises
    ------
    ValueError
        If ``sampler`` is not one of ``"auto"``, ``"nutpie"``, ``"pymc"``.
    ImportError
        If ``"nutpie"`` is asked for and not installed.
    """
    if sampler not in _SAMPLERS:
        raise ValueError(f"sampler must be one of {list(_SAMPLERS)}; got {sampler!r}")
    if sampler == "pymc":
        return "pymc", "PyMC NUTS, as requested"
    if nutpie_installed():
        return "nutpie", "nutpie NUTS"
    if sampler == "nutpie":
        raise ImportError(
            "sampler='nutpie' needs nutpie, which is not installed; install it with "
            "`pip install bayesjudge[fast]` or pass sampler='pymc'"
        )
    return "pymc", "nutpie is not installed, so PyMC's own NUTS sampler was used (slower)"


def progressbar_default(progressbar: bool | None) -> bool:
    """Return ``progressbar``, or, when None, whether stderr is a terminal."""
    if progressbar is None:
        return bool(getattr(sys.stderr, "isatty", lambda: False)())
    return bool(progressbar)


def sample_nuts(
    cache: ModelCache,
    key: Hashable,
    build: Callable[[], Any],
    data: Mapping[str, Any],
    *,
    draws: int,
    tune: int,
    chains: int,
    seed: int,
    progressbar: bool,
    target_accept: float,
    sampler: Literal["nutpie", "pymc"],
) -> xr.DataTree:
    """Sample the model cached under ``key`` on ``data`` and return its posterior and stats.

    Parameters
    ----------
    cache : ModelCache
        Where the built and compiled model lives.
    key : hashable
        What fixes the model's structure; ``build()`` makes the model on a miss.
    build : callable
        Returns a ``pm.Model`` whose ``pm.Data`` containers are named by ``data``'s keys.
    data : mapping
        New values of the model's data containers (same shapes as the cached ones).
    draws, tune, chains : int
        Draws per chain, tuning steps per chain, chains.
    seed : int
        Sampler seed.
    progressbar : bool
        Show the sampler's progress bar.
    target_accept : float
        NUTS target acceptance rate.
    sampler : {"nutpie", "pymc"}
        From :func:`resolve_sampler`.

    Returns
    -------
    DataTree
        Groups ``posterior`` and ``sample_stats`` (with ``diverging``).
    """
    entry = cache._entry(key, build)
    if sampler == "nutpie":
        import nutpie

        compiled = cache._compiled(entry)
        if data:
            compiled = compiled.with_data(**data)
        trace = nutpie.sample(
            compiled,
            draws=draws,
            tune=max(tune, 1),  # nuts-rs needs at least one tuning step
            chains=chains,
            seed=seed,
            save_warmup=False,
            progress_bar=progressbar,
            target_accept=target_accept,
        )
    else:
        import pymc as pm

        with entry.model:
            if data:
                pm.set_data(dict(data))
            trace = pm.sample(
                draws=draws,
                tune=tune,
                chains=chains,
                cores=1,
                random_seed=seed,
                progressbar=progressbar,
                nuts_sampler="pymc",
                target_accept=target_accept,
                compute_convergence_checks=False,
            )
    return xr.DataTree.from_dict(
        {
            "posterior": trace["posterior"].to_dataset(),
            "sample_stats": trace["sample_stats"].to_dataset(),
        }
    )
