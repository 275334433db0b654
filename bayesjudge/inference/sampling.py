"""The sampler call: one NUTS path for every model, on a model kept in a :class:`ModelCache`.

Building a PyMC model and compiling it for nutpie takes seconds; sampling the small models of
bayesjudge takes a fraction of one. Every family therefore keeps its models in the shared
:class:`~bayesjudge.inference.cache.ModelCache`, keyed by what fixes the model's structure
(priors, shapes, options), feeds new data through ``pm.Data``, and samples with
:func:`sample_nuts`, which swaps the data into a copy of the compiled model
(:meth:`~bayesjudge.inference.compile.CachedCompiledModel.with_data` returns a new object and
leaves the cached one untouched, so no state passes from one dataset to the next). The compiled
model also persists on disk (:mod:`bayesjudge.inference.cache`), so a new process samples
without building or compiling it.

nutpie is used when it is installed; otherwise PyMC's own NUTS, and :func:`resolve_sampler`
says so in a note that is recorded in the posterior's attrs.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TextIO, cast, get_args

import numpy as np
import xarray as xr

from bayesjudge._interrupt import check_interrupted
from bayesjudge.errors import MissingDependencyError
from bayesjudge.inference.cache import ModelCache

__all__ = [
    "JITTER",
    "SEED_BOUND",
    "Adaptation",
    "NutsDraws",
    "Sampler",
    "StoppedRun",
    "draw_sampler_seed",
    "nutpie_installed",
    "progressbar_default",
    "resolve_sampler",
    "sample_nuts",
    "sample_nuts_draws",
    "sample_nuts_until",
]

Sampler = Literal["auto", "nutpie", "pymc"]
#: Mass-matrix adaptations: diagonal, or nutpie's diagonal plus low-rank update (PyMC's own
#: NUTS uses a full mass matrix for the latter).
Adaptation = Literal["diag", "low_rank"]
#: Half-width of the uniform jitter added, per chain, to a family's starting point (in the
#: unconstrained coordinates the sampler moves in).
JITTER = 0.1
_SAMPLERS: tuple[str, ...] = get_args(Sampler)

#: Sampler seeds are drawn uniformly below this bound (both nutpie and PyMC accept them).
SEED_BOUND = 2**32 - 1


def draw_sampler_seed(rng: np.random.Generator) -> int:
    """Draw the seed handed to the sampler from the fit's random generator (the one rule).

    Examples
    --------
    >>> draw_sampler_seed(np.random.default_rng(0)) < SEED_BOUND
    True
    """
    return int(rng.integers(0, SEED_BOUND))


def nutpie_installed() -> bool:
    """Return whether nutpie can be imported."""
    return importlib.util.find_spec("nutpie") is not None


def resolve_sampler(sampler: str) -> tuple[Literal["nutpie", "pymc"], str]:
    """Return the sampler to use for ``sampler`` and a note saying why.

    Raises
    ------
    ValueError
        If ``sampler`` is not one of ``"auto"``, ``"nutpie"``, ``"pymc"``.
    MissingDependencyError
        If ``"nutpie"`` is asked for and not installed.
    """
    if sampler not in _SAMPLERS:
        raise ValueError(f"sampler must be one of {list(_SAMPLERS)}; got {sampler!r}")
    if sampler == "pymc":
        return "pymc", "PyMC NUTS, as requested"
    if nutpie_installed():
        return "nutpie", "nutpie NUTS"
    if sampler == "nutpie":
        raise MissingDependencyError(
            "sampler='nutpie' needs nutpie, which is not installed; install it with "
            "`pip install bayesjudge[fast]` or pass sampler='pymc'"
        )
    return "pymc", "nutpie is not installed, so PyMC's own NUTS sampler was used (slower)"


def progressbar_default(progressbar: bool | None) -> bool:
    """Return ``progressbar``, or, when None, whether stderr is a terminal."""
    if progressbar is None:
        return bool(getattr(sys.stderr, "isatty", lambda: False)())
    return bool(progressbar)


def _start_function(
    start: Mapping[str, np.ndarray], names: list[str], slices: list[slice], n_dim: int
) -> Callable[[Any], np.ndarray]:
    """Return ``seed -> flat starting point``: ``start`` jittered by U(-JITTER, JITTER).

    ``names`` and ``slices`` are nutpie's ``shape_info``: the value variables fill the flat
    vector's first ``n_dim`` entries, the deterministics follow (and are not needed).
    """
    base = np.empty(n_dim)
    for name, where in zip(names, slices, strict=True):
        if where.start >= n_dim:
            continue
        if name not in start:
            raise KeyError(f"start has no value for {name!r}; it has {sorted(start)}")
        value = np.ravel(np.asarray(start[name], dtype=float))
        if value.size != where.stop - where.start:
            raise ValueError(
                f"start[{name!r}] must hold {where.stop - where.start} values; it has {value.size}"
            )
        base[where] = value

    def initial_point(seed: Any) -> np.ndarray:
        rng = np.random.default_rng(seed)
        return base + rng.uniform(-JITTER, JITTER, n_dim)

    return initial_point


def _nutpie_sample(
    cache: ModelCache,
    key: Hashable,
    build: Callable[[], Any],
    data: Mapping[str, Any],
    *,
    tune: int,
    start: Mapping[str, np.ndarray] | None = None,
    as_tree: bool = False,
    **options: Any,
) -> Any:
    """Swap ``data`` into a copy of the cached compiled model and run nutpie on it.

    Returns what ``nutpie.sample`` returns for ``options`` (its own DataTree, or its raw trace
    with ``return_raw_trace=True``), or with ``as_tree`` the ``posterior`` and ``sample_stats``
    DataTree nutpie's own conversion would give (:func:`~._nutpie_tree.tree_from_raw`, built
    directly from the arrays: about ten times faster for the small models here). A Ctrl-C
    while it samples raises ``KeyboardInterrupt`` (:func:`_wait`), never a partial trace.
    """
    raw_trace = as_tree or bool(options.pop("return_raw_trace", False))
    background, compiled = _nutpie_background(
        cache, key, build, data, tune=tune, start=start, raw_trace=raw_trace, **options
    )
    raw = _wait(background)
    if not as_tree:
        return raw
    return _tree(raw, background, compiled)


def _nutpie_background(
    cache: ModelCache,
    key: Hashable,
    build: Callable[[], Any],
    data: Mapping[str, Any],
    *,
    tune: int,
    start: Mapping[str, np.ndarray] | None,
    raw_trace: bool,
    **options: Any,
) -> tuple[Any, Any]:
    """Start nutpie in the background on a copy of the cached compiled model with ``data``.

    Returns the background sampler and the compiled model it runs.
    """
    import dataclasses

    from bayesjudge._lazy import deferring

    with deferring("arviz"):  # as in .compile: nutpie's ArviZ conversion is not used here
        import nutpie

    compiled = cache.compiled(key, build, replaced=frozenset(data))
    if data:
        compiled = compiled.with_data(**data)
    if start is not None:
        names, slices, _ = compiled.shape_info
        compiled = dataclasses.replace(
            compiled,
            initial_point_func=_start_function(start, list(names), list(slices), compiled.n_dim),
        )
    # nuts-rs needs at least one tuning step; warm-up draws are never kept
    background = nutpie.sample(
        compiled,
        tune=max(tune, 1),
        save_warmup=False,
        return_raw_trace=raw_trace,
        blocking=False,
        **options,
    )
    return background, compiled


def _tree(raw: Any, background: Any, compiled: Any) -> xr.DataTree:
    """Return the ``posterior`` and ``sample_stats`` of a raw trace (:func:`tree_from_raw`)."""
    import nutpie

    from bayesjudge.inference._nutpie_tree import tree_from_raw

    # the settings nutpie records in sample_stats.attrs (and which statistics it keeps); a
    # private attribute, so a nutpie without it gives the defaults' statistics and no record
    settings: Any = getattr(background, "_settings", None)
    return tree_from_raw(
        raw,
        coords=compiled.coords,
        settings=settings.as_dict() if settings is not None else {},
        nutpie_version=nutpie.__version__,
        reparameterized=compiled.reparameterized_names or (),
    )


def _wait(background: Any) -> Any:
    """Wait for nutpie's background sampler and return its trace; a Ctrl-C stops it and ends here.

    ``nutpie.sample`` catches ``KeyboardInterrupt`` and returns the draws made so far, the rest
    left NaN; those must never reach the checks or the posterior predictive draws. So the
    sampler is stopped, its draws discarded and the interrupt raised again, as it is when the
    Ctrl-C was recorded while the sampler ran (:func:`~bayesjudge._interrupt.check_interrupted`).
    """
    try:
        raw = background.wait()
    except BaseException:  # KeyboardInterrupt included: nothing of an interrupted run is kept
        background.cancel()
        raise
    check_interrupted()
    return raw


def _pymc_initvals(
    model: Any, start: Mapping[str, np.ndarray], chains: int, seed: int
) -> list[dict[str, np.ndarray]]:
    """Per-chain starting values of the free variables: ``start`` jittered, back-transformed.

    PyMC takes initial values on the constrained scale, keyed by the random variable's name.
    """
    import pytensor.tensor as pt

    rng = np.random.default_rng(seed)
    shapes = {name: np.shape(value) for name, value in model.initial_point().items()}
    out = []
    for _ in range(chains):
        values = {}
        for rv in model.free_RVs:
            value_var = model.rvs_to_values[rv]
            if value_var.name not in start:
                raise KeyError(f"start has no value for {value_var.name!r}; it has {sorted(start)}")
            shape = shapes[value_var.name]
            point = np.asarray(start[value_var.name], dtype=float)
            if point.size != int(np.prod(shape)):
                raise ValueError(
                    f"start[{value_var.name!r}] must hold {int(np.prod(shape))} values; "
                    f"it has {point.size}"
                )
            point = point.reshape(shape) + rng.uniform(-JITTER, JITTER, shape)
            transform = model.rvs_to_transforms.get(rv)
            values[rv.name] = (
                point
                if transform is None
                else np.asarray(
                    transform.backward(pt.as_tensor_variable(point), *rv.owner.inputs).eval()
                )
            )
        out.append(values)
    return out


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
    start: Mapping[str, np.ndarray] | None = None,
    adaptation: Adaptation = "diag",
    progress_lines: TextIO | None = None,
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
    start : mapping of str to ndarray, optional
        A starting point in the unconstrained coordinates of the model's value variables
        (e.g. ``pi_logodds__``); each chain starts there, jittered by
        U(-:data:`JITTER`, :data:`JITTER`). By default the sampler's own starting points.
    adaptation : {"diag", "low_rank"}
        Mass-matrix adaptation (``"low_rank"``: nutpie's low-rank update, PyMC's full matrix).
    progress_lines : text stream, optional
        With nutpie and no progress bar, write a progress line with the time left there every
        few seconds (:class:`~bayesjudge.inference.progress.ProgressLines`).

    Returns
    -------
    DataTree
        Groups ``posterior`` and ``sample_stats`` (with ``diverging``).

    Raises
    ------
    KeyboardInterrupt
        On a Ctrl-C while sampling (nutpie and PyMC would return the draws made so far): no
        partial posterior ever reaches the checks. With PyMC's own sampler only when the
        Ctrl-C was recorded (:func:`bayesjudge._interrupt.catching_ctrl_c`, as under the
        command line).
    """
    if sampler == "nutpie":
        lines: dict[str, Any] = {}
        if progress_lines is not None and not progressbar:
            from bayesjudge.inference.progress import ProgressLines

            lines = {"progress_callback": ProgressLines(progress_lines), "progress_rate": 500}
        tree = _nutpie_sample(
            cache,
            key,
            build,
            data,
            draws=draws,
            tune=tune,
            chains=chains,
            seed=seed,
            progress_bar=progressbar,
            target_accept=target_accept,
            start=start,
            adaptation=adaptation,
            as_tree=True,
            **lines,
        )
        return cast(xr.DataTree, tree)
    import pymc as pm

    with cache.model(key, build) as model:
        if data:
            pm.set_data(dict(data))
        initvals = None if start is None else _pymc_initvals(model, start, chains, seed)
        full = adaptation == "low_rank"
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
            initvals=initvals,
            init=("adapt_full" if full else "adapt_diag")
            if start is not None
            else ("jitter+adapt_full" if full else "jitter+adapt_diag"),
        )
    # PyMC, too, returns the draws made before a Ctrl-C; under the command line it was recorded
    check_interrupted()
    return xr.DataTree.from_dict(
        {
            "posterior": trace["posterior"].to_dataset(),
            "sample_stats": trace["sample_stats"].to_dataset(),
        }
    )


#: Seconds between two looks at the background sampler's trace at most, and at least.
_POLL_MAX = 0.25
_POLL_MIN = 0.005


@dataclass(frozen=True, slots=True)
class StoppedRun:
    """What :func:`sample_nuts_until` returns: the draws kept and how the run ended.

    Attributes
    ----------
    tree : DataTree
        Groups ``posterior`` and ``sample_stats``: the first :attr:`draws` draws of each chain.
    draws : int
        Draws per chain kept.
    stopped : bool
        Whether ``decide`` stopped the sampler at a checkpoint (False: it ran to the cap).
    fallback : str or None
        Why the draws could not be looked at while the sampler ran, so that the fit holds the
        cap's draws; None when they could.
    """

    tree: xr.DataTree
    draws: int
    stopped: bool
    fallback: str | None = None


class _NotInspectable(Exception):
    """nutpie's background sampler gave no usable trace while it ran."""


def _finished(background: Any) -> bool:
    """Whether nutpie's background sampler has finished (0.16 raises TimeoutError if not)."""
    try:
        return bool(background.is_finished)
    except TimeoutError:
        return False


@dataclass(frozen=True, slots=True)
class _TakenTrace:
    """A raw nutpie trace whose arrow batches were taken (nutpie gives them out once)."""

    batches: tuple[Any, Any]

    def is_arrow(self) -> bool:
        return True

    def get_arrow_trace(self) -> tuple[Any, Any]:
        return self.batches


def _control(background: Any, action: str) -> None:
    """Pause or resume nutpie's background sampler; a failure means it cannot be driven.

    Raises
    ------
    _NotInspectable
        When nutpie offers no such method or it fails (the caller then waits for the cap,
        and waiting resumes a paused sampler).
    """
    try:
        getattr(background, action)()
    except Exception as exc:
        raise _NotInspectable(f"{action}: {type(exc).__name__}: {exc}") from exc


def _inspect_until(background: Any, rows: int, clock: Callable[[], float]) -> _TakenTrace | None:
    """Wait until every chain has made ``rows`` steps and return a copy of the raw trace.

    The wait between two looks is the time the slowest chain needs for the rest at the rate it
    went since the last look (within :data:`_POLL_MIN` and :data:`_POLL_MAX` seconds). Returns
    None when the sampler finished first (an error, which waiting for it raises).

    Raises
    ------
    _NotInspectable
        When nutpie offers no ``inspect`` or it fails.
    """
    import time

    last: tuple[float, int] | None = None
    pause = _POLL_MIN
    while True:
        check_interrupted()
        # asked before the look: a sampler that finishes during the look (between nutpie's
        # copy of the trace and this check) must not read as one that stopped short
        finished = _finished(background)
        try:
            raw = _TakenTrace(background.inspect().get_arrow_trace())
            done = min(int(batch.num_rows) for batch in raw.batches[0])
        except Exception as exc:  # an older or changed nutpie: the caller waits for the cap
            raise _NotInspectable(f"{type(exc).__name__}: {exc}") from exc
        if done >= rows:
            return raw
        if finished:
            return None
        now = clock()
        if last is not None and done > last[1]:
            pause = (rows - done) * (now - last[0]) / (done - last[1])
        else:
            pause = 2.0 * pause
        pause = min(max(pause, _POLL_MIN), _POLL_MAX)
        last = (now, done)
        time.sleep(pause)


def sample_nuts_until(
    cache: ModelCache,
    key: Hashable,
    build: Callable[[], Any],
    data: Mapping[str, Any],
    *,
    decide: Callable[[xr.DataTree], bool],
    checkpoint: int,
    draws: int,
    tune: int,
    chains: int,
    seed: int,
    progressbar: bool,
    target_accept: float,
    sampler: Literal["nutpie", "pymc"],
    start: Mapping[str, np.ndarray] | None = None,
    adaptation: Adaptation = "diag",
    progress_lines: TextIO | None = None,
) -> StoppedRun:
    """Sample like :func:`sample_nuts`, stopping at the first checkpoint ``decide`` accepts.

    nutpie runs in the background with at most ``draws`` draws per chain (the cap), all
    chains at once. At the checkpoints n = b, 2b, 3b, ... below ``draws`` (b =
    ``checkpoint``) it waits until every chain has made n draws after tuning, hands the
    first n draws of each chain to ``decide`` and, when ``decide`` returns True, stops the
    sampler and keeps exactly those draws. The sampler is paused while ``decide`` runs, so
    no draws are made that a stop would throw away. Each chain has its own random stream, so
    its first n draws do not depend on timing or on the cap: the same seed gives the same
    decisions and the same draws. Without a stop the run ends at the cap and holds the draws
    :func:`sample_nuts` would give for ``draws``.

    Where the draws cannot be looked at while the sampler runs (PyMC's own sampler; a nutpie
    whose background sampler offers no working ``inspect``, ``pause`` or ``resume``), the
    run is the cap's fixed draws and :attr:`StoppedRun.fallback` says why.

    Parameters
    ----------
    cache, key, build, data, tune, chains, seed, progressbar, target_accept, sampler
        As in :func:`sample_nuts`.
    start, adaptation, progress_lines
        As in :func:`sample_nuts`.
    decide : callable
        ``decide(tree)`` takes the ``posterior`` and ``sample_stats`` of the first n
        draws of each chain and returns whether to stop there.
    checkpoint : int
        Draws per chain between two checkpoints.
    draws : int
        The cap: draws per chain when no checkpoint stops the run.

    Returns
    -------
    StoppedRun

    Raises
    ------
    KeyboardInterrupt
        On a Ctrl-C while sampling or deciding, as in :func:`sample_nuts`.
    """
    if sampler != "nutpie":
        tree = sample_nuts(
            cache,
            key,
            build,
            data,
            draws=draws,
            tune=tune,
            chains=chains,
            seed=seed,
            progressbar=progressbar,
            target_accept=target_accept,
            sampler=sampler,
            start=start,
            adaptation=adaptation,
            progress_lines=progress_lines,
        )
        return StoppedRun(
            tree,
            draws,
            False,
            "PyMC's own sampler cannot be looked at while it runs",
        )
    import time

    lines: dict[str, Any] = {}
    if progress_lines is not None and not progressbar:
        from bayesjudge.inference.progress import ProgressLines

        lines = {"progress_callback": ProgressLines(progress_lines), "progress_rate": 500}
    # every chain on its own thread, so that all of them reach each checkpoint together
    background, compiled = _nutpie_background(
        cache,
        key,
        build,
        data,
        tune=tune,
        start=start,
        raw_trace=True,
        draws=draws,
        chains=chains,
        cores=chains,
        seed=seed,
        progress_bar=progressbar,
        target_accept=target_accept,
        adaptation=adaptation,
        **lines,
    )
    offset = max(tune, 1)  # nutpie's trace holds the tuning steps too
    fallback = None
    try:
        n = checkpoint
        while n < draws:
            raw = _inspect_until(background, offset + n, time.monotonic)
            if raw is None:
                break
            tree = _tree(raw, background, compiled).isel(draw=slice(0, n))
            # paused while deciding: the draws the chains would make meanwhile are wasted
            # when the decision is to stop (it completes and checks the posterior)
            _control(background, "pause")
            if decide(tree):
                background.cancel()
                return StoppedRun(tree, n, True)
            _control(background, "resume")
            n += checkpoint
    except _NotInspectable as exc:
        fallback = f"nutpie's draws could not be looked at while it ran ({exc})"
    except BaseException:  # KeyboardInterrupt included: nothing of an interrupted run is kept
        background.cancel()
        raise
    return StoppedRun(_tree(_wait(background), background, compiled), draws, False, fallback)


@dataclass(frozen=True, slots=True)
class NutsDraws:
    """Posterior draws and divergences of one NUTS run, as plain arrays.

    Attributes
    ----------
    draws : dict of str to ndarray
        Each requested variable, shape ``(chains, draws, *shape)``, after tuning.
    divergences : ndarray of int, shape (chains,)
        Divergent transitions after tuning, per chain.
    """

    draws: dict[str, np.ndarray]
    divergences: np.ndarray

    def stacked(self, names: tuple[str, ...] | list[str]) -> np.ndarray:
        """Return the scalar variables ``names`` stacked: shape ``(len(names), chains, draws)``."""
        return np.stack([self.draws[name] for name in names])


def _arrow_column(batch: Any, name: str) -> np.ndarray:
    """Return one column of a nutpie arrow record batch as an array ``(rows, *shape)``."""
    import pyarrow

    column = batch.column(name)
    shape = column.field.metadata.get(b"shape", b"")
    item_shape = tuple(int(s) for s in shape.decode("utf-8").split(",")) if shape else ()
    array = pyarrow.array(column)
    if array.null_count:
        raise ValueError(f"nutpie returned missing values in {name!r}")
    if hasattr(array, "flatten"):
        array = array.flatten()
    return np.asarray(array.to_numpy(zero_copy_only=False)).reshape((batch.num_rows, *item_shape))


def sample_nuts_draws(
    cache: ModelCache,
    key: Hashable,
    build: Callable[[], Any],
    data: Mapping[str, Any],
    var_names: tuple[str, ...] | list[str],
    *,
    draws: int,
    tune: int,
    chains: int,
    seed: int,
    target_accept: float,
    sampler: Literal["nutpie", "pymc"],
    cores: int | None = None,
) -> NutsDraws:
    """Sample like :func:`sample_nuts`, returning only ``var_names`` and divergences as arrays.

    The same cached model, data swap, seed and NUTS settings as :func:`sample_nuts`, so the
    draws are identical to its posterior's; with nutpie the raw arrow trace is read directly
    (``return_raw_trace=True``) instead of being converted to an ArviZ DataTree, which costs
    about as much as sampling a small model. Meant for studies that fit thousands of datasets
    and only need a few scalars and the divergence counts of each.

    Parameters
    ----------
    cache, key, build, data, draws, tune, chains, seed, target_accept, sampler
        As in :func:`sample_nuts` (no progress bar is shown).
    var_names : sequence of str
        Posterior variables to return (free or deterministic).
    cores : int, optional
        Threads nutpie runs the chains on (default: as many as chains and CPUs allow). The
        draws do not depend on it: each chain has its own random stream. A study running one
        process per core passes 1.

    Returns
    -------
    NutsDraws
        ``draws[name]`` of shape ``(chains, draws, *shape)`` and divergences per chain.

    Raises
    ------
    KeyError
        If a name in ``var_names`` is not a variable of the model.
    KeyboardInterrupt
        On a Ctrl-C while sampling, as in :func:`sample_nuts`.
    """
    names = list(var_names)
    if sampler != "nutpie":
        tree = sample_nuts(
            cache,
            key,
            build,
            data,
            draws=draws,
            tune=tune,
            chains=chains,
            seed=seed,
            progressbar=False,
            target_accept=target_accept,
            sampler=sampler,
        )
        posterior = tree["posterior"]
        missing = [name for name in names if name not in posterior.data_vars]
        if missing:
            raise KeyError(f"{missing} are not variables of the model")
        diverging = tree["sample_stats"]["diverging"].to_numpy()
        return NutsDraws(
            {name: posterior[name].to_numpy() for name in names},
            diverging.sum(axis=1).astype(np.int64),
        )
    raw = _nutpie_sample(
        cache,
        key,
        build,
        data,
        draws=draws,
        tune=tune,
        chains=chains,
        seed=seed,
        progress_bar=False,
        target_accept=target_accept,
        cores=cores,
        return_raw_trace=True,
    )
    draw_batches, stat_batches = raw.get_arrow_trace()
    available = set(draw_batches[0].schema.names)
    missing = [name for name in names if name not in available]
    if missing:
        raise KeyError(f"{missing} are not variables of the model; it has {sorted(available)}")
    out: dict[str, list[np.ndarray]] = {name: [] for name in names}
    divergences = np.zeros(len(stat_batches), dtype=np.int64)
    for chain, (batch, stats) in enumerate(zip(draw_batches, stat_batches, strict=True)):
        kept = ~_arrow_column(stats, "tuning").astype(bool)  # the rows after tuning
        for name in names:
            out[name].append(_arrow_column(batch, name)[kept])
        divergences[chain] = int(_arrow_column(stats, "diverging")[kept].sum())
    return NutsDraws({name: np.stack(parts) for name, parts in out.items()}, divergences)
