r"""Compile a PyMC model for nutpie into machine code that later processes load from disk.

nutpie samples a model through two C callbacks, the log density with its gradient and the
"expand" function that computes every recorded variable from a point of the unconstrained
space, plus a Python function that draws each chain's starting point. ``nutpie.compile_pymc_model``
makes them from the PyMC model each time: PyTensor builds and rewrites the graphs (about 1 s on
a quiet two-core machine) and numba compiles the graphs and nutpie's callbacks (about 5 s). The
graphs' own numba code is cached on disk by PyTensor, but nutpie's callbacks are not (their
data layout is named with fresh random keys in every process), so every process paid for them.

:func:`compile_model` makes the same three functions from the same PyTensor graphs
(``nutpie.compile_pymc._make_functions``), with

* C callbacks generated as source code whose only variable parts are the sizes and the data
  layout, compiled with numba's on-disk cache in a folder of our choosing;
* the data passed to the callbacks as one ``int64`` array of addresses and shapes (one entry per
  ``pm.Data`` container, in a fixed order), so a refit swaps data without recompiling
  (:meth:`CachedCompiledModel.with_data`);
* the starting points drawn by a plain numpy function that reproduces PyMC's
  ``make_initial_point_fn`` with nutpie's settings exactly: the support point of every free
  variable in the unconstrained space plus :math:`U(-1, 1)` jitter, each jitter drawn from
  ``Generator(PCG64(s_i))`` with :math:`s_i` the :math:`i`-th child of
  ``SeedSequence(seed).spawn(...)``, as ``pymc.pytensorf.reseed_rngs`` does. It is checked
  against PyMC's own function on several seeds before it is used; where it differs (a support
  point that depends on the data, say) PyMC's function is kept and the model is not written
  to disk.

The result, :class:`CompiledSpec`, is everything else nutpie needs (sizes, names, shapes, dims,
coords, the data layout, the starting-point rule) as plain JSON. :func:`load_model` rebuilds a
sampler-ready model from a spec and the cached machine code **without importing PyMC**, nor
PyTensor when the code never touches Python objects (checked when it is compiled); it returns
None when numba's cache does not hold the code (another CPU, another numba).

Sampling is unchanged: the log density and gradient are PyTensor's compiled graph, called through
an equivalent callback, and the starting points are PyMC's. The graph's code that a callback calls
is linked into the callback as its own copy, under names of its own (``_own_copies``), so the
process that compiled a model, every process that loads it and a process with the disk cache off
run the same machine code and give the same draws for a seed, bit for bit
(``tests/inference/test_compile.py``, on the panel model; before the copies had names of their own,
the compiling process ran the graph's standalone code instead, and its gradient differed in the
last bit at about 3 % of points). The log density and gradient agree with
``nutpie.compile_pymc_model``'s to rounding, whose callbacks call the standalone code: on the
prevalence model exactly, at 4,000 random points.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
import re
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numba
import numpy as np
from llvmlite.binding import Linkage
from numba.core import caching, cgutils, sigutils, types
from numba.core.ccallback import CFunc
from numba.core.codegen import CPUCodeLibrary
from numba.core.compiler_lock import global_compiler_lock
from numba.core.runtime import rtsys
from numba.extending import intrinsic

from bayesjudge._lazy import deferring

# nutpie imports ArviZ, and with it matplotlib (about 1.7 s), for a conversion of its trace
# that bayesjudge makes itself (_nutpie_tree): ArviZ is loaded only if nutpie ever uses it
with deferring("arviz"):
    from nutpie.compile_pymc import CompiledPyMCModel

__all__ = [
    "SPEC_FORMAT",
    "CachedCompiledModel",
    "CompiledSpec",
    "SharedSpec",
    "compile_model",
    "load_model",
]

#: Version of the :class:`CompiledSpec` layout and of the generated callbacks; part of the key.
SPEC_FORMAT = 3

#: Seeds on which the numpy starting-point rule must equal PyMC's before it is trusted.
_CHECK_SEEDS = (0, 1, 2, 12345, 2**31 - 1, 2**32 - 2, 2**63 - 1, 2**64 - 1)

_LOGP_SIGNATURE = types.int64(
    types.uint64,
    types.CPointer(types.double),
    types.CPointer(types.double),
    types.CPointer(types.double),
    types.voidptr,
)
_EXPAND_SIGNATURE = types.int64(
    types.uint64,
    types.uint64,
    types.CPointer(types.double),
    types.CPointer(types.double),
    types.voidptr,
)


@intrinsic
def _voidptr(typingctx: Any, address: Any) -> Any:
    """Return the integer ``address`` as a ``void *`` (inside numba code)."""
    signature = types.voidptr(address)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return signature, codegen


# --------------------------------------------------------------------------- the spec
@dataclass(frozen=True, slots=True)
class SharedSpec:
    """One data container (PyTensor shared variable) of a compiled model.

    Attributes
    ----------
    name : str
        The container's name (the ``pm.Data`` name).
    dtype : str
        Its numpy dtype.
    shape : tuple of int
        Its shape when the model was compiled.
    value : list or None
        Its value when compiled, flattened; None for data that every fit replaces (not kept on
        disk).
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    value: list[Any] | None

    def array(self) -> np.ndarray:
        """Return the stored value (zeros when none was kept) as a read-only array."""
        if self.value is None:
            out = np.zeros(self.shape, dtype=self.dtype)
        else:
            out = np.array(self.value, dtype=self.dtype).reshape(self.shape)
        out.flags.writeable = False
        return out


@dataclass(frozen=True, slots=True)
class CompiledSpec:
    """Everything nutpie needs about a compiled model besides its machine code, as plain values.

    Attributes
    ----------
    n_dim : int
        Size of the unconstrained space.
    n_expanded : int
        Number of values the expand function writes per draw.
    names, starts, stops, shapes
        Name, position ``[start, stop)`` and shape of every recorded variable in the expanded
        vector (the free variables first).
    reparameterized_names : tuple of str
        Free variables sampled on a transformed scale.
    dims : dict of str to tuple of str
        Dims of the recorded variables.
    coords : dict of str to list
        Coordinate values of the model.
    shared : tuple of SharedSpec
        The data containers, in the order of the data layout.
    logp_shared, expand_shared : tuple of int
        The containers each function takes, as positions in ``shared``, in call order.
    initial_base : tuple of float
        The starting point before jitter (support points, unconstrained space).
    initial_jitter : tuple of (int, int, tuple of int)
        Per random stream, in PyMC's order: the ``[start, stop)`` it jitters and its shape.
    logp_source, expand_source : str
        Source of the generated C callbacks.
    python_free : bool
        Whether the callbacks' machine code never calls the Python C API, so that it loads
        without importing the modules it was compiled from (PyTensor).
    """

    n_dim: int
    n_expanded: int
    names: tuple[str, ...]
    starts: tuple[int, ...]
    stops: tuple[int, ...]
    shapes: tuple[tuple[int, ...], ...]
    reparameterized_names: tuple[str, ...]
    dims: dict[str, tuple[str, ...]]
    coords: dict[str, list[Any]]
    shared: tuple[SharedSpec, ...]
    logp_shared: tuple[int, ...]
    expand_shared: tuple[int, ...]
    initial_base: tuple[float, ...]
    initial_jitter: tuple[tuple[int, int, tuple[int, ...]], ...]
    logp_source: str
    expand_source: str
    python_free: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Return the spec as JSON-ready values."""
        out = dataclasses.asdict(self)
        out["format"] = SPEC_FORMAT
        return out

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> CompiledSpec:
        """Rebuild a spec from :meth:`to_dict`.

        Raises
        ------
        ValueError
            If ``value`` was written in another format.
        """
        if value.get("format") != SPEC_FORMAT:
            raise ValueError(f"spec format {value.get('format')!r} is not {SPEC_FORMAT}")
        return cls(
            n_dim=int(value["n_dim"]),
            n_expanded=int(value["n_expanded"]),
            names=tuple(value["names"]),
            starts=tuple(int(v) for v in value["starts"]),
            stops=tuple(int(v) for v in value["stops"]),
            shapes=tuple(tuple(int(s) for s in shape) for shape in value["shapes"]),
            reparameterized_names=tuple(value["reparameterized_names"]),
            dims={k: tuple(v) for k, v in value["dims"].items()},
            coords={k: list(v) for k, v in value["coords"].items()},
            shared=tuple(
                SharedSpec(s["name"], s["dtype"], tuple(int(d) for d in s["shape"]), s["value"])
                for s in value["shared"]
            ),
            logp_shared=tuple(int(v) for v in value["logp_shared"]),
            expand_shared=tuple(int(v) for v in value["expand_shared"]),
            initial_base=tuple(float(v) for v in value["initial_base"]),
            initial_jitter=tuple(
                (int(a), int(b), tuple(int(s) for s in shape))
                for a, b, shape in value["initial_jitter"]
            ),
            logp_source=str(value["logp_source"]),
            expand_source=str(value["expand_source"]),
            python_free=bool(value["python_free"]),
        )


# --------------------------------------------------------------------------- data layout
def _layout(shared: Mapping[str, np.ndarray]) -> np.ndarray:
    """Return the ``int64`` words the callbacks read: per container its address, then its shape."""
    words: list[int] = []
    for value in shared.values():
        words.append(value.ctypes.data)
        words.extend(int(s) for s in value.shape)
    return np.array(words or [0], dtype=np.int64)


def _offsets(ndims: list[int]) -> list[int]:
    offsets, position = [], 0
    for ndim in ndims:
        offsets.append(position)
        position += 1 + ndim
    return offsets


def _callback_source(
    kind: str, *, n_dim: int, n_expanded: int, ndims: list[int], used: tuple[int, ...]
) -> str:
    """Return the Python source of one C callback, numba-compiled with a fixed signature.

    The callbacks behave as nutpie's own: the log density writes the gradient and returns 3 when
    it is not finite, 4 when the density is not, 1 on an exception; the expand function returns
    -2 on an exception; both return -1 on a size mismatch.
    """
    offsets = _offsets(ndims)
    n_words = max(sum(1 + d for d in ndims), 1)
    lines = []
    for j in used:
        shape = ", ".join(f"ud[{offsets[j] + 1 + d}]" for d in range(ndims[j]))
        shape = f"({shape},)" if ndims[j] else "()"
        lines.append(f"        s{j} = carray(voidptr(ud[{offsets[j]}]), {shape}, dt{j})")
    unpack = "\n".join(lines)
    args = "".join(f", s{j}" for j in used)
    if kind == "logp":
        return f"""
def logp(dim, x_, out_, logp_, user_data_):
    if dim != {n_dim}:
        return -1
    try:
        ud = carray(user_data_, ({n_words},), np.int64)
        x = carray(x_, ({n_dim},))
        out = carray(out_, ({n_dim},))
        value = carray(logp_, ())
{unpack}
        logp_value, grad = inner(x{args})
        value[()] = logp_value
        finite = True
        for i in range({n_dim}):
            out[i] = grad[i]
            if not np.isfinite(grad[i]):
                finite = False
        if not finite:
            return 3
        if not np.isfinite(logp_value):
            return 4
    except Exception:
        return 1
    return 0
"""
    return f"""
def expand(dim, expanded, x_, out_, user_data_):
    if dim != {n_dim}:
        return -1
    if expanded != {n_expanded}:
        return -1
    try:
        ud = carray(user_data_, ({n_words},), np.int64)
        x = carray(x_, ({n_dim},))
        out = carray(out_, ({n_expanded},))
{unpack}
        (values,) = inner(x{args})
        for i in range({n_expanded}):
            out[i] = values[i]
    except Exception:
        return -2
    return 0
"""


# --------------------------------------------------------------------------- numba's disk cache
class _Locator(caching._CacheLocator):
    """Points numba's cache of one generated callback at our folder, named by its digest."""

    def __init__(self, folder: Path, digest: str) -> None:
        self._folder = folder
        self._digest = digest

    def ensure_cache_path(self) -> None:
        self._folder.mkdir(parents=True, exist_ok=True)

    def get_cache_path(self) -> str:
        return str(self._folder)

    def get_source_stamp(self) -> str:
        return self._digest

    def get_disambiguator(self) -> str:
        return self._digest[:32]

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _Locator | None:
        where = getattr(py_func, "__bayesjudge_cache__", None)
        return None if where is None else cls(*where)


class _CacheImpl(caching.CompileResultCacheImpl):
    def __init__(self, py_func: Any) -> None:
        self._locator_classes = [_Locator]  # read by the base class's __init__
        super().__init__(py_func)


class _FunctionCache(caching.FunctionCache):
    """numba's function cache in our folder; ``python_free`` code loads without its modules."""

    _impl_class = _CacheImpl

    def __init__(self, py_func: Any, *, python_free: bool = False) -> None:
        super().__init__(py_func)
        if python_free:
            self._cache_file = _PythonFreeCacheFile(
                cache_path=self._cache_path,
                filename_base=self._impl.filename_base,
                source_stamp=self._impl.locator.get_source_stamp(),
            )


class _PythonFreeCacheFile(caching.IndexDataCacheFile):
    """Reads cached code without importing the modules whose globals its environments name.

    numba pickles, with every compiled function, an *environment* holding the globals of the
    module that defined it, and unpickling it imports that module: for PyTensor's graphs, all of
    PyTensor (half a second). Only code that works with Python objects (object mode, ``print``,
    boxing) ever reads an environment, and such code takes the GIL; :func:`_python_free` checks
    at compile time that the callbacks never do, and only then is this reader used, giving
    modules not yet imported a stand-in namespace.
    """

    def _load_data(self, name: str) -> Any:
        with open(self._data_path(name), "rb") as file:
            return _EnvironmentUnpickler(file).load()


class _EnvironmentUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("numba.core.environment", "_rebuild_env"):
            return _rebuild_environment
        return super().find_class(module, name)


def _rebuild_environment(module: str, consts: list[Any], env_name: str) -> Any:
    """Rebuild a numba environment like ``_rebuild_env``, importing no module not yet imported."""
    from numba.core.environment import Environment, lookup_environment

    found = lookup_environment(env_name)
    if found is not None:
        return found
    loaded = sys.modules.get(module)
    env = Environment(loaded.__dict__ if loaded is not None else {"__name__": module})
    env.consts[:] = consts
    env.env_name = env_name
    Environment._memo[env_name] = env
    return env


#: Symbols through which compiled code reaches Python objects (and so its environments).
_PYTHON_API = re.compile(r"@\"?(Py[A-Z_]|_Py|numba_gil_ensure|numba_gil_release)")


def _python_free(*functions: Any) -> bool:
    """Whether compiled callbacks never call the Python C API (never take the GIL).

    False, to be safe, for code that numba loaded from its cache (its IR is gone).
    """
    for function in functions:
        library = function._library
        if getattr(library, "_disable_inspection", True):
            return False
        if _PYTHON_API.search(library.get_llvm_str()):
            return False
    return True


class _MissingCode(LookupError):
    """numba's cache does not hold the machine code of a callback."""


@contextmanager
def _own_copies(name: str, tag: str) -> Iterator[None]:
    """While compiling callback ``name``, give the functions linked into it names of its own.

    numba links the code of every function a callback calls (PyTensor's graph, its kernels)
    into the callback's module as ``linkonce_odr`` copies, which the object file (and numba's
    cache) holds as weak symbols under the functions' own names. A weak definition gives way to
    a strong one of the same name already in the process: the process that compiled the model
    has the graph's standalone code, and its callback called that; a process that loaded the
    callback from disk has only the copies, and called those. The two are separate compilations
    (the copies are optimised again inside the callback's module) and were seen to differ in the
    last bit of some gradient entries, so a seed's draws depended on whether the model was
    compiled or loaded (``benchmarks/cache_reproducibility.py``). Renamed with ``tag`` (the
    callback's source digest) before the module is optimised, the copies are the only
    definitions of their names, so every process runs the same machine code. They stay weak
    and exported: made internal instead, numba code compiled later in the same process failed
    tests and once crashed (numba keeps one JIT engine and one symbol registry per process).
    """
    original = CPUCodeLibrary._optimize_final_module

    def optimize(library: Any) -> None:
        if library.name == name:
            for function in library._final_module.functions:
                if not function.is_declaration and function.linkage == Linkage.linkonce_odr:
                    function.name = f"{function.name}.bayesjudge.{tag}"
        original(library)

    CPUCodeLibrary._optimize_final_module = optimize  # type: ignore[method-assign]
    try:
        yield
    finally:
        CPUCodeLibrary._optimize_final_module = original  # type: ignore[method-assign]


def _cached_cfunc(
    py_func: Any, signature: Any, *, tag: str, load_only: bool, python_free: bool = False
) -> Any:
    """Return a numba C callback kept in numba's cache in our folder.

    Does what numba's ``CFunc.compile`` does, with our cache. With ``load_only`` it only loads:
    it raises :class:`_MissingCode` on a miss, and initialises numba's runtime instead of
    refreshing its typing and lowering registries, which loading machine code does not need
    and whose first refresh costs more than the rest of the load; ``python_free`` code (see
    :class:`_PythonFreeCacheFile`) loads without importing the modules it was compiled from.
    """
    function: Any = CFunc(py_func, sigutils.normalize_signature(signature), {}, {})
    cache: Any = _FunctionCache(py_func, python_free=python_free)
    function._cache = cache
    with global_compiler_lock:
        target = function._targetdescr.target_context
        if load_only:
            rtsys.initialize(target)
            compiled = cache._load_overload(function._sig, target)
            if compiled is None:
                raise _MissingCode(py_func.__name__)
        else:
            compiled = cache.load_overload(function._sig, target)
            if compiled is None:
                with _own_copies(py_func.__name__, tag):
                    compiled = function._compile_uncached()
                    compiled.library._ensure_finalized()  # links and optimises: the renaming
                cache.save_overload(function._sig, compiled)
        function._library = compiled.library
        function._wrapper_name = compiled.fndesc.llvm_cfunc_wrapper_name
        function._wrapper_address = compiled.library.get_pointer_to_function(function._wrapper_name)
    return function


def _is_cached(function: Any) -> bool:
    """Whether numba's cache holds the machine code of a callback from :func:`_cached_cfunc`."""
    target = function._targetdescr.target_context
    return function._cache.load_overload(function._sig, target) is not None


def _callback(
    source: str,
    name: str,
    signature: Any,
    *,
    folder: Path | None,
    inner: Any,
    dtypes: list[np.dtype[Any]],
    python_free: bool = False,
) -> Any:
    """Compile (or, with ``inner=None``, load from ``folder``) one generated callback."""
    namespace: dict[str, Any] = {
        "__name__": __name__,  # numba's cached environment names the module it reloads
        "np": np,
        "carray": numba.carray,
        "voidptr": _voidptr,
        "inner": inner,
        **{f"dt{j}": dtype for j, dtype in enumerate(dtypes)},
    }
    code = compile(source, f"<bayesjudge-{name}>", "exec")
    exec(code, namespace)  # our own generated source
    py_func = namespace[name]
    digest = hashlib.sha256(source.encode()).hexdigest()
    if folder is None:
        # numba finalises the code as it compiles a cfunc; the lock keeps other threads'
        # compilations out of the patched window, as in _cached_cfunc
        with global_compiler_lock, _own_copies(name, digest[:16]):
            return numba.cfunc(signature)(py_func)
    py_func.__bayesjudge_cache__ = (folder, digest)
    with warnings.catch_warnings():
        # numba warns when code cannot be cached; compile_model checks _is_cached instead
        warnings.simplefilter("ignore", numba.NumbaWarning)
        return _cached_cfunc(
            py_func, signature, tag=digest[:16], load_only=inner is None, python_free=python_free
        )


# --------------------------------------------------------------------------- the model object
@dataclass(frozen=True)
class CachedCompiledModel(CompiledPyMCModel):
    """nutpie's compiled PyMC model with bayesjudge's callbacks and data layout.

    ``shared_data`` maps each data container's name to its current value, in layout order, and
    ``user_data`` holds their addresses and shapes. :meth:`with_data` returns a copy with new
    data; the compiled code is shared.
    """

    def with_data(self, **updates: Any) -> CachedCompiledModel:
        """Return a copy of the model with new values of named data containers.

        Raises
        ------
        KeyError
            If a name is not a data container of the model.
        ValueError
            If a new value's rank differs from the container's.
        """
        shared = dict(self.shared_data)
        for name, value in updates.items():
            if name not in shared:
                raise KeyError(
                    f"{name!r} is not a data container of the model; it has {list(shared)}"
                )
            old = shared[name]
            new = np.array(value, dtype=old.dtype, order="C", copy=True)
            if new.ndim != old.ndim:
                raise ValueError(f"data {name!r} must have rank {old.ndim}; got rank {new.ndim}")
            new.flags.writeable = False
            shared[name] = new
        return cast(
            CachedCompiledModel,
            dataclasses.replace(cast(Any, self), shared_data=shared, user_data=_layout(shared)),
        )


def _initial_point_rule(
    base: np.ndarray, jitter: tuple[tuple[int, int, tuple[int, ...]], ...]
) -> Callable[[Any], np.ndarray]:
    """Return PyMC's starting-point rule as numpy: ``base`` plus seeded U(-1, 1) jitter."""

    def initial_point(seed: Any = None) -> np.ndarray:
        out = base.copy()
        children = np.random.SeedSequence(seed).spawn(len(jitter))
        for child, (start, stop, shape) in zip(children, jitter, strict=True):
            draw = np.random.Generator(np.random.PCG64(child)).uniform(-1, 1, size=shape)
            out[start:stop] = out[start:stop] + np.ravel(draw)
        return out

    return initial_point


def _locked(function: Callable[[Any], np.ndarray]) -> Callable[[Any], np.ndarray]:
    lock = threading.Lock()

    def call(seed: Any = None) -> np.ndarray:
        with lock:
            return function(seed)

    return call


def _assemble(
    spec: CompiledSpec,
    shared: dict[str, np.ndarray],
    logp: Any,
    expand: Any,
    initial_point: Callable[[Any], np.ndarray],
    functions: tuple[Any, Any] = (None, None),
) -> CachedCompiledModel:
    import pandas as pd

    shape_info = (
        list(spec.names),
        [slice(a, b) for a, b in zip(spec.starts, spec.stops, strict=True)],
        [tuple(s) for s in spec.shapes],
    )
    coords = {name: pd.Index(values) for name, values in spec.coords.items()}
    return CachedCompiledModel(
        _n_dim=spec.n_dim,
        dims={name: tuple(d) for name, d in spec.dims.items()},
        _coords=coords,
        _shapes={name: tuple(shape) for name, shape in zip(spec.names, spec.shapes, strict=True)},
        compiled_logp_func=logp,
        compiled_expand_func=expand,
        initial_point_func=initial_point,
        shared_data=shared,
        shared_var_keys={name: name for name in shared},
        user_data=_layout(shared),
        n_expanded=spec.n_expanded,
        shape_info=shape_info,
        logp_func=functions[0],
        expand_func=functions[1],
        reparameterized_names=list(spec.reparameterized_names),
    )


# --------------------------------------------------------------------------- compile and load
def _json_values(values: Any) -> list[Any] | None:
    """Return coordinate values as a JSON-ready list, or None if they are not plain values."""
    out = []
    for value in values:
        if isinstance(value, np.generic):
            value = value.item()
        if not isinstance(value, str | int | float | bool) or (
            isinstance(value, float) and not np.isfinite(value)
        ):
            return None
        out.append(value)
    return out


def _jitter_streams(
    pymc_rule: Any, point: Mapping[str, Any], names: list[str], starts: list[int], stops: list[int]
) -> tuple[tuple[int, int, tuple[int, ...]], ...] | None:
    """Return where each of PyMC's jitter streams lands, in the order PyMC seeds them.

    ``pymc_rule`` is PyMC's seeded starting-point function, whose ``__wrapped__`` is the
    compiled PyTensor function it calls, and ``point`` a starting point (for the shapes). None
    when the streams do not map one-to-one onto the free variables.
    """
    from pymc.pytensorf import find_rng_nodes
    from pytensor.graph.traversal import ancestors

    function = pymc_rule.__wrapped__
    outputs = function.maker.fgraph.outputs[: len(names)]
    streams = []
    for rng in find_rng_nodes(function.maker.fgraph.outputs):
        fed = [i for i, output in enumerate(outputs) if rng in set(ancestors([output]))]
        if len(fed) != 1:
            return None
        i = fed[0]
        shape = tuple(int(s) for s in np.shape(point[names[i]]))
        streams.append((starts[i], stops[i], shape))
    if sorted(s[:2] for s in streams) != sorted(zip(starts, stops, strict=True)):
        return None
    return tuple(streams)


def _starting_point_rule(
    model: Any, pymc_rule: Any, names: list[str], starts: list[int], stops: list[int]
) -> tuple[Callable[[Any], np.ndarray] | None, np.ndarray, Any]:
    """Return our numpy copy of PyMC's starting-point function, the base point and the streams.

    The copy is None when it does not reproduce PyMC's function exactly on :data:`_CHECK_SEEDS`.
    """
    from pymc.initial_point import make_initial_point_fn

    point = make_initial_point_fn(model=model, jitter_rvs=set(), return_transformed=True)(0)
    base = np.concatenate([np.ravel(np.asarray(point[name], dtype="float64")) for name in names])
    streams = _jitter_streams(pymc_rule, point, names, starts, stops)
    if streams is None:
        return None, base, None

    def flat(seed: Any) -> np.ndarray:
        values = pymc_rule(seed)
        return np.concatenate(
            [np.ravel(np.asarray(values[name], dtype="float64")) for name in names]
        )

    ours = _initial_point_rule(base, streams)
    if not all(np.array_equal(ours(seed), flat(seed)) for seed in _CHECK_SEEDS):
        return None, base, None
    return ours, base, streams


def compile_model(
    model: Any, *, folder: Path | None, keep: frozenset[str] = frozenset()
) -> tuple[CachedCompiledModel, CompiledSpec | None]:
    """Compile a PyMC model for nutpie, caching its machine code in ``folder``.

    Parameters
    ----------
    model : pymc.Model
        The model.
    folder : Path or None
        Where numba caches the callbacks' machine code (None: not cached on disk).
    keep : frozenset of str
        Data containers whose values the spec may omit, because every fit replaces them.

    Returns
    -------
    CachedCompiledModel
        Ready for ``nutpie.sample``.
    CompiledSpec or None
        What :func:`load_model` needs to rebuild it from ``folder`` in another process; None
        when the model cannot be rebuilt without PyMC (unnamed or non-array data containers,
        coordinates that are not plain values, a starting-point rule that PyMC does not let us
        reproduce, or code numba would not cache).
    """
    from nutpie.compile_pymc import _make_functions, _prepare_dims_and_coords

    free = [model.rvs_to_values[rv].name for rv in model.free_RVs]
    # nutpie's _make_functions puts the free variables first, in this order
    from pymc.initial_point import make_initial_point_fn

    pymc_rule = make_initial_point_fn(
        model=model, jitter_rvs=set(model.free_RVs), return_transformed=True
    )
    n_dim, n_expanded, logp_fn, expand_fn, flat_rule, shape_info, reparameterized = _make_functions(
        model,
        mode="NUMBA",
        compute_grad=True,
        join_expanded=True,
        pymc_initial_point_fn=pymc_rule,
    )
    names, slices, shapes = shape_info
    starts = [int(s.start) for s in slices]
    stops = [int(s.stop) for s in slices]
    dims, coords = _prepare_dims_and_coords(model, shape_info, reparameterized)

    persistable = True
    variables = []
    for var in [*logp_fn.get_shared(), *expand_fn.get_shared()]:
        if var not in variables:
            variables.append(var)
    shared: dict[str, np.ndarray] = {}
    for var in variables:
        value = np.asarray(var.get_value())
        if not isinstance(var.name, str) or var.name in shared or value.dtype.kind not in "biuf":
            persistable = False
            break
        shared[var.name] = np.array(value, order="C", copy=True)
    if not persistable:
        compiled = _nutpie_compile(model)
        return compiled, None
    for value in shared.values():
        value.flags.writeable = False
    order = list(shared)
    ndims = [shared[name].ndim for name in order]
    dtypes = [shared[name].dtype for name in order]
    logp_used = tuple(order.index(v.name) for v in logp_fn.get_shared())
    expand_used = tuple(order.index(v.name) for v in expand_fn.get_shared())
    logp_source = _callback_source(
        "logp", n_dim=n_dim, n_expanded=n_expanded, ndims=ndims, used=logp_used
    )
    expand_source = _callback_source(
        "expand", n_dim=n_dim, n_expanded=n_expanded, ndims=ndims, used=expand_used
    )
    logp = _callback(
        logp_source, "logp", _LOGP_SIGNATURE, folder=folder, inner=logp_fn.vm.jit_fn, dtypes=dtypes
    )
    expand = _callback(
        expand_source,
        "expand",
        _EXPAND_SIGNATURE,
        folder=folder,
        inner=expand_fn.vm.jit_fn,
        dtypes=dtypes,
    )

    ours, base, streams = _starting_point_rule(
        model, pymc_rule, free, starts[: len(free)], stops[: len(free)]
    )
    rule: Callable[[Any], np.ndarray] = ours if ours is not None else _locked(flat_rule)

    json_coords = {}
    for name, values in coords.items():
        listed = _json_values(values)
        if listed is None:
            persistable = False
            break
        json_coords[name] = listed
    spec = CompiledSpec(
        n_dim=int(n_dim),
        n_expanded=int(n_expanded),
        names=tuple(names),
        starts=tuple(starts),
        stops=tuple(stops),
        shapes=tuple(tuple(int(s) for s in shape) for shape in shapes),
        reparameterized_names=tuple(reparameterized),
        dims={name: tuple(d) for name, d in dims.items()},
        coords=json_coords,
        shared=tuple(
            SharedSpec(
                name,
                shared[name].dtype.str,
                tuple(int(s) for s in shared[name].shape),
                None if name in keep else shared[name].ravel().tolist(),
            )
            for name in order
        ),
        logp_shared=logp_used,
        expand_shared=expand_used,
        initial_base=tuple(float(v) for v in base),
        initial_jitter=streams or (),
        logp_source=logp_source,
        expand_source=expand_source,
        python_free=_python_free(logp, expand),
    )
    compiled = _assemble(spec, shared, logp, expand, rule, (logp_fn, expand_fn))
    cached = folder is not None and _is_cached(logp) and _is_cached(expand)
    if not (persistable and cached and streams is not None):
        return compiled, None
    return compiled, spec


def _nutpie_compile(model: Any) -> Any:
    import nutpie

    return nutpie.compile_pymc_model(model)


def load_model(spec: CompiledSpec, folder: Path) -> CachedCompiledModel | None:
    """Rebuild a compiled model from its spec and the machine code cached in ``folder``.

    Imports numba and nutpie, not PyMC; PyTensor neither when the spec says the code is
    Python-free (:class:`_PythonFreeCacheFile`).

    Returns
    -------
    CachedCompiledModel or None
        None when numba's cache in ``folder`` does not hold the callbacks' code for this
        machine and numba version.
    """
    dtypes = [np.dtype(s.dtype) for s in spec.shared]
    try:
        logp, expand = (
            _callback(
                source,
                name,
                signature,
                folder=folder,
                inner=None,
                dtypes=dtypes,
                python_free=spec.python_free,
            )
            for source, name, signature in (
                (spec.logp_source, "logp", _LOGP_SIGNATURE),
                (spec.expand_source, "expand", _EXPAND_SIGNATURE),
            )
        )
    except _MissingCode:
        return None
    shared = {s.name: s.array() for s in spec.shared}
    rule = _initial_point_rule(np.array(spec.initial_base, dtype="float64"), spec.initial_jitter)
    return _assemble(spec, shared, logp, expand, rule)
