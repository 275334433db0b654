r"""Simulation studies: coverage, width and recovery error of every estimator, at scale.

A study is a grid of scenarios, a seeded data generator, a set of estimators and a number of
replicates (Lee et al. 2025, section 8: 21 values of theta x 10,000 replications; Below the
Reliability Floor, Table 1: gates x calibration splits). :func:`run_study` draws every replicate,
runs every estimator on it and returns an :class:`xarray.Dataset` with one dimension per grid axis,
then ``replicate`` and ``estimator``; :func:`summarize` turns it into the usual table (coverage with
its Monte Carlo standard error, mean width, MAE, bias).

**Reproducible whatever the execution.** Replicate ``r`` of scenario ``s`` draws its data and
its sampler seed from ``numpy.random.SeedSequence([seed, s, r])`` alone, so the results do not
depend on how replicates are grouped into chunks, on the number of workers, or on whether the
study ran locally or on a Dask cluster.

**Chunked and resumable.** Work is cut into chunks (one scenario x a block of replicates).
With an output folder (checked and locked before any work, marked with bayesjudge's manifest),
each finished chunk is written to its own NetCDF file through a temporary file and a rename,
so an interrupted study leaves only whole chunks behind; run it again with ``resume=True`` and
only the missing chunks are computed. Worker processes end with the main process, even when
it is killed.

**Batched Bayesian fitting.** The prevalence model (``bayes_nuts``) is sampled through the
model cache of :func:`bayesjudge.prevalence.fit.fit_prevalence`: its compiled nutpie model is built
once per process and re-used with new data for every replicate (no rebuild, no recompile), and
:func:`bayesjudge.inference.sampling.sample_nuts_draws` reads nutpie's raw trace instead of
converting it to an ArviZ DataTree (the draws are exactly ``fit_prevalence``'s with the same seed).
Each replicate's own rank-normalised split R-hat, bulk and tail ESS of pi, Se and Sp, and its
divergences are computed in numpy, vectorised over the replicates of a chunk (the numbers of
:func:`bayesjudge.inference.diagnostics.check_fit`, to 1e-10); a replicate failing them has
``passed = False``, keeps its estimate, and is counted in :func:`summarize` (column
``failed``). The exact posterior (:func:`bayesjudge.prevalence.exact.exact_posterior`,
``bayes_exact``) is an alternative estimator, computed on the first ``exact_replicates`` replicates
of every scenario; :func:`exact_check` compares it with NUTS on those replicates.

Estimators
----------
Design ``"prevalence"`` (counts :math:`x_1 \sim \mathrm{Bin}(m_1, q_1)`,
:math:`x_0 \sim \mathrm{Bin}(m_0, 1 - q_0)`, :math:`k \sim \mathrm{Bin}(n, \theta q_1 +
(1 - \theta)(1 - q_0))`, the sufficient statistics of
:func:`bayesjudge.prevalence.simulate.judge_table`): ``naive`` (Wilson), ``rogan_gladen_delta``,
``rogan_gladen_lang_reiczigel``, ``rogan_gladen_bootstrap``, ``ppi``, ``ppi_plus_plus``,
``bayes_nuts``, ``bayes_exact``.

Design ``"gate"`` (:func:`bayesjudge.gates.simulate.rejudgment_gate` with the class pass-rate laws
of a row of Below the Reliability Floor Table 4, :func:`~bayesjudge.gates.simulate.table4_gate`):
the cap-1 baselines of :func:`bayesjudge.gates.baselines.gate_baselines` (``naive``,
``rogan_gladen_delta``, ``ppi``, ``ppi_plus_plus``, which use each item's fraction of passed
rulings as its score), ``bayes_nuts`` (the prevalence model on the first ruling of each item, a
binary verdict) and ``gate_hierarchy`` (:func:`bayesjudge.gates.fit.fit_gate`, posterior of pi).

References ---------- Lee et al., Lee et al. (2025), section 8 and appendix E (the Monte Carlo
design); Below the Reliability Floor, Table 1 (the estimator bake-off on re-judgment gates).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import sys
import time
import tomllib
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
import xarray as xr

from bayesjudge._interrupt import check_interrupted
from bayesjudge._version import __version__
from bayesjudge.errors import MissingDependencyError
from bayesjudge.inference.diagnostics import batched_convergence
from bayesjudge.reporting.netcdf import write_netcdf
from bayesjudge.reporting.output import (
    MANIFEST_NAME,
    claim_output_folder,
    end_with_parent,
    read_manifest,
    write_csv,
    write_file_atomically,
    write_manifest,
    write_text_atomically,
)

__all__ = [
    "BUILTIN_STUDIES",
    "ESTIMATORS",
    "McmcSettings",
    "StudySpec",
    "builtin_study",
    "exact_check",
    "load_results",
    "run_study",
    "study_chunks",
    "summarize",
]

Design = Literal["prevalence", "gate"]

#: The largest study spec file read (a spec is a few hundred bytes of TOML).
MAX_SPEC_BYTES = 1 << 20
#: Estimators available in each design.
ESTIMATORS: dict[str, tuple[str, ...]] = {
    "prevalence": (
        "naive",
        "rogan_gladen_delta",
        "rogan_gladen_lang_reiczigel",
        "rogan_gladen_bootstrap",
        "ppi",
        "ppi_plus_plus",
        "bayes_nuts",
        "bayes_exact",
    ),
    "gate": ("naive", "rogan_gladen_delta", "ppi", "ppi_plus_plus", "bayes_nuts", "gate_hierarchy"),
}
#: Scenario parameters each design needs (from the grid or ``fixed``).
_REQUIRED: dict[str, tuple[str, ...]] = {
    "prevalence": ("theta", "q0", "q1", "n", "m1", "m0"),
    "gate": ("gate", "n_items", "rulings", "labelled_fraction"),
}
_MCMC = ("bayes_nuts", "gate_hierarchy")
_R_HAT_MAX, _ESS_MIN = 1.01, 400.0  # the thresholds of bayesjudge.inference.diagnostics.check_fit
_VARIABLES = (
    "estimate",
    "low",
    "high",
    "se",
    "fit_time",
    "r_hat",
    "ess_bulk",
    "ess_tail",
    "divergences",
)


# --------------------------------------------------------------------------- specification
@dataclass(frozen=True, slots=True)
class McmcSettings:
    """NUTS settings of the Bayesian estimators in a study.

    Attributes
    ----------
    draws, tune, chains : int
        Draws per chain (1000), tuning steps per chain (500) and chains (4): 4,000 draws. With
        500 draws per chain the tail ESS of Se or Sp fell below 400 in about one replicate in
        six of ``bayesjudge study lee2025 --quick``.
    target_accept : float or None
        NUTS target acceptance; ``None`` uses each fitting function's default.
    """

    draws: int = 1000
    tune: int = 500
    chains: int = 4
    target_accept: float | None = None


@dataclass(frozen=True, slots=True)
class StudySpec:
    """A simulation study: scenario grid, estimators, replicates, seed.

    Attributes
    ----------
    name : str
        Name of the study (used in file names and reports).
    design : {"prevalence", "gate"}
        The data generator (see the module docstring).
    grid : tuple of (axis, values)
        Scenario axes, crossed. Each value is a number or string, or a mapping of several
        parameters that vary together (e.g. a judge ``{"q0": 0.7, "q1": 0.9}``); such an axis
        gets string labels and one coordinate per parameter.
    estimators : tuple of str
        Estimators to run (:data:`ESTIMATORS` of the design).
    replicates : int
        Replicates per scenario.
    seed : int
        Study seed; replicate ``r`` of scenario ``s`` uses ``SeedSequence([seed, s, r])``.
    fixed : tuple of (name, value)
        Parameters shared by every scenario.
    prob : float
        Interval mass (0.95).
    chunk_size : int
        Replicates per chunk (the unit of work, of parallelism and of resumption).
    mcmc : McmcSettings
        NUTS settings.
    exact_replicates : int
        ``bayes_exact`` runs on replicates ``0 .. exact_replicates - 1`` of every scenario
        (all when ``exact_replicates >= replicates``).
    n_boot : int
        Bootstrap resamples of ``rogan_gladen_bootstrap``.
    """

    name: str
    design: Design
    grid: tuple[tuple[str, tuple[Any, ...]], ...]
    estimators: tuple[str, ...]
    replicates: int
    seed: int = 0
    fixed: tuple[tuple[str, Any], ...] = ()
    prob: float = 0.95
    chunk_size: int = 50
    mcmc: McmcSettings = field(default_factory=McmcSettings)
    exact_replicates: int = 0
    n_boot: int = 1000

    def __post_init__(self) -> None:
        _validate(self)

    # ---- construction
    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> StudySpec:
        """Build a spec from a mapping (a parsed TOML file); unknown keys are errors.

        Examples
        --------
        >>> spec = StudySpec.from_dict({
        ...     "name": "tiny", "design": "prevalence", "replicates": 4,
        ...     "estimators": ["naive", "rogan_gladen_delta"],
        ...     "grid": {"theta": [0.3, 0.6]},
        ...     "fixed": {"q0": 0.8, "q1": 0.9, "n": 500, "m1": 50, "m0": 50},
        ... })
        >>> len(spec.scenarios())
        2
        """
        if not isinstance(spec, Mapping):
            raise ValueError(f"a study spec must be a table of settings; got {type(spec).__name__}")
        allowed = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(spec) - allowed)
        if unknown:
            raise ValueError(f"unknown study setting(s) {unknown}; allowed: {sorted(allowed)}")
        missing = [
            k for k in ("name", "design", "grid", "estimators", "replicates") if k not in spec
        ]
        if missing:
            raise ValueError(f"the study spec lacks the required setting(s) {missing}")
        grid = spec["grid"]
        if not isinstance(grid, Mapping) or not grid:
            raise ValueError("'grid' must be a non-empty table of axis = [values]")
        axes = []
        for axis, values in grid.items():
            if not isinstance(values, list | tuple) or not values:
                raise ValueError(f"grid axis {axis!r} must be a non-empty list; got {values!r}")
            axes.append(
                (str(axis), tuple(_freeze(v) if isinstance(v, Mapping) else v for v in values))
            )
        fixed = spec.get("fixed", {})
        if not isinstance(fixed, Mapping):
            raise ValueError(f"'fixed' must be a table of name = value; got {fixed!r}")
        mcmc = spec.get("mcmc", {})
        if not isinstance(mcmc, Mapping | McmcSettings):
            raise ValueError(
                f"'mcmc' must be a table of NUTS settings ([mcmc] with draws, tune, chains, "
                f"target_accept); got {mcmc!r}"
            )
        if isinstance(mcmc, Mapping):
            bad = sorted(set(mcmc) - set(McmcSettings.__dataclass_fields__))
            if bad:
                raise ValueError(
                    f"unknown mcmc setting(s) {bad}; allowed: "
                    f"{sorted(McmcSettings.__dataclass_fields__)}"
                )
            mcmc = McmcSettings(**mcmc)
        kwargs = {k: v for k, v in spec.items() if k not in {"grid", "fixed", "mcmc"}}
        kwargs["estimators"] = tuple(spec["estimators"])
        return cls(grid=tuple(axes), fixed=tuple(sorted(fixed.items())), mcmc=mcmc, **kwargs)

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> StudySpec:
        """Read a spec from a TOML file (the keys of :meth:`from_dict`).

        At most :data:`MAX_SPEC_BYTES` are read, so ``/dev/zero`` or a data file given by
        mistake is refused at once rather than read into memory.
        """
        try:
            with open(path, "rb") as stream:
                raw = stream.read(MAX_SPEC_BYTES + 1)
        except FileNotFoundError:
            raise ValueError(f"study spec file {str(path)!r} does not exist") from None
        except OSError as exc:
            raise ValueError(
                f"study spec file {str(path)!r} cannot be read ({exc.strerror})"
            ) from None
        if len(raw) > MAX_SPEC_BYTES:
            raise ValueError(
                f"study spec file {str(path)!r} is larger than {MAX_SPEC_BYTES >> 20} MB: is it "
                "a study spec?"
            )
        try:
            parsed = tomllib.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"study spec file {str(path)!r} is not UTF-8 text (byte {exc.start})"
            ) from None
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"study spec file {str(path)!r} is not valid TOML: {exc}") from None
        return cls.from_dict(parsed)

    def to_dict(self) -> dict[str, Any]:
        """Return the spec as plain data (the inverse of :meth:`from_dict`)."""
        return {
            "name": self.name,
            "design": self.design,
            "grid": {axis: [_thaw(v) for v in values] for axis, values in self.grid},
            "estimators": list(self.estimators),
            "replicates": self.replicates,
            "seed": self.seed,
            "fixed": dict(self.fixed),
            "prob": self.prob,
            "chunk_size": self.chunk_size,
            "mcmc": asdict(self.mcmc),
            "exact_replicates": self.exact_replicates,
            "n_boot": self.n_boot,
        }

    def fingerprint(self) -> str:
        """Hash of everything that determines the results (not the chunk size)."""
        data = self.to_dict()
        data.pop("chunk_size")
        data.pop("name")
        text = json.dumps(data, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    # ---- scenarios
    @property
    def shape(self) -> tuple[int, ...]:
        """Number of values along each grid axis."""
        return tuple(len(values) for _, values in self.grid)

    def scenarios(self) -> list[dict[str, Any]]:
        """Return every scenario's parameters, in grid (C) order: the scenario index order."""
        out = []
        for combo in itertools.product(*(values for _, values in self.grid)):
            params: dict[str, Any] = dict(self.fixed)
            for (axis, _), value in zip(self.grid, combo, strict=True):
                if isinstance(value, tuple):
                    params.update(dict(value))
                else:
                    params[axis] = value
            out.append(params)
        return out


def _freeze(value: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((str(k), v) for k, v in value.items()))


def _thaw(value: Any) -> Any:
    return dict(value) if isinstance(value, tuple) else value


def _label(value: Any) -> Any:
    if isinstance(value, tuple):
        return ",".join(f"{k}={v}" for k, v in value)
    return value


def _whole(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r}")


def _validate(spec: StudySpec) -> None:
    if spec.design not in get_args(Design):
        raise ValueError(f"design must be one of {list(get_args(Design))}; got {spec.design!r}")
    if not spec.estimators:
        raise ValueError("a study needs at least one estimator")
    allowed = ESTIMATORS[spec.design]
    unknown = [e for e in spec.estimators if e not in allowed]
    if unknown:
        raise ValueError(
            f"unknown estimator(s) {unknown} for design {spec.design!r}; allowed: {list(allowed)}"
        )
    if len(set(spec.estimators)) != len(spec.estimators):
        raise ValueError(f"estimators must not repeat; got {list(spec.estimators)}")
    _whole("replicates", spec.replicates, 1)
    _whole("chunk_size", spec.chunk_size, 1)
    _whole("seed", spec.seed, 0)
    _whole("exact_replicates", spec.exact_replicates, 0)
    _whole("n_boot", spec.n_boot, 1)
    for name in ("draws", "chains"):
        _whole(f"mcmc.{name}", getattr(spec.mcmc, name), 1)
    _whole("mcmc.tune", spec.mcmc.tune, 0)
    target_accept = spec.mcmc.target_accept
    if target_accept is not None and (
        isinstance(target_accept, bool)
        or not isinstance(target_accept, float | int)
        or not 0.0 < target_accept < 1.0
    ):
        raise ValueError(f"mcmc.target_accept must lie in (0, 1); got {target_accept!r}")
    if not isinstance(spec.prob, float | int) or not 0.0 < spec.prob < 1.0:
        raise ValueError(f"prob must lie in (0, 1); got {spec.prob!r}")
    axes = [axis for axis, _ in spec.grid]
    if len(set(axes)) != len(axes) or {"replicate", "estimator"} & set(axes):
        raise ValueError(f"grid axes must be distinct and not 'replicate'/'estimator'; got {axes}")
    if "bayes_exact" in spec.estimators and spec.exact_replicates == 0:
        raise ValueError("estimator 'bayes_exact' needs exact_replicates >= 1")
    for index, params in enumerate(spec.scenarios()):
        _check_scenario(spec.design, params, index)


def _check_scenario(design: str, params: Mapping[str, Any], index: int) -> None:
    missing = [k for k in _REQUIRED[design] if k not in params]
    if missing:
        raise ValueError(
            f"scenario {index} lacks parameter(s) {missing}; give them in 'grid' or 'fixed' "
            f"(design {design!r} needs {list(_REQUIRED[design])})"
        )
    if design == "prevalence":
        for name in ("theta", "q0", "q1"):
            if not 0.0 <= float(params[name]) <= 1.0:
                raise ValueError(f"scenario {index}: {name} must lie in [0, 1]; got {params[name]}")
        for name in ("n", "m1", "m0"):
            _whole(f"scenario {index}: {name}", params[name], 1)
    else:
        from bayesjudge.gates import TABLE4

        if params["gate"] not in TABLE4:
            raise ValueError(
                f"scenario {index}: gate must be one of {list(TABLE4)}; got {params['gate']!r}"
            )
        _whole(f"scenario {index}: n_items", params["n_items"], 10)
        _whole(f"scenario {index}: rulings", params["rulings"], 1)
        if not 0.0 < float(params["labelled_fraction"]) < 1.0:
            raise ValueError(
                f"scenario {index}: labelled_fraction must lie in (0, 1); "
                f"got {params['labelled_fraction']}"
            )


# --------------------------------------------------------------------------- built-in specs
def _lee2025(quick: bool) -> StudySpec:
    thetas = [round(0.05 * i, 2) for i in range(21)]
    judges = [
        {"q0": 0.7, "q1": 0.9},
        {"q0": 0.9, "q1": 0.7},
        {"q0": 0.7, "q1": 0.7},
        {"q0": 0.9, "q1": 0.9},
    ]
    grid: dict[str, Any] = {"theta": thetas, "judge": judges}
    if quick:
        grid = {"theta": [0.1, 0.5, 0.9], "judge": judges[:2]}
    return StudySpec.from_dict(
        {
            "name": "lee2025" + ("-quick" if quick else ""),
            "design": "prevalence",
            "grid": grid,
            "fixed": {"n": 1000, "m1": 100, "m0": 100},
            "estimators": list(ESTIMATORS["prevalence"]),
            "replicates": 20 if quick else 200,
            "exact_replicates": 3 if quick else 5,
            "chunk_size": 10 if quick else 50,
            "seed": 4,
        }
    )


def _bakeoff(quick: bool) -> StudySpec:
    from bayesjudge.gates import TABLE4

    gates = list(TABLE4)
    return StudySpec.from_dict(
        {
            "name": "bakeoff" + ("-quick" if quick else ""),
            "design": "gate",
            "grid": {
                "gate": gates[:2] if quick else gates,
                "labelled_fraction": [0.5, 0.2, 0.1],
            },
            "fixed": {"n_items": 300 if quick else 500, "rulings": 6},
            "estimators": list(ESTIMATORS["gate"]),
            "replicates": 2 if quick else 20,
            "chunk_size": 2 if quick else 5,
            "seed": 0,
        }
    )


#: Built-in studies by name: ``lee2025`` (Lee et al.'s Monte Carlo design) and ``bakeoff``.
BUILTIN_STUDIES: dict[str, Callable[[bool], StudySpec]] = {
    "lee2025": _lee2025,
    "bakeoff": _bakeoff,
}


def builtin_study(name: str, *, quick: bool = False) -> StudySpec:
    """Return a built-in study spec.

    ``lee2025``: Lee et al.'s (2025) Monte Carlo design (section 8, appendix E): theta in {0, 0.05,
    ..., 1}, judges (q0, q1) in {(0.7, 0.9), (0.9, 0.7), (0.7, 0.7), (0.9, 0.9)}, n = 1000, m0 = m1
    = 100, 200 replicates, every prevalence estimator (``bayes_exact`` on the first 5 replicates of
    each scenario). ``bakeoff``: the five gates of Below the Reliability Floor Table 4 at 50/20/10 %
    calibration, 500 items ruled 6 times, 20 replicates, every gate estimator. ``quick=True``
    shrinks both to about a minute of work.

    Examples
    --------
    >>> spec = builtin_study("lee2025")
    >>> spec.shape, spec.replicates
    ((21, 4), 200)
    """
    if name not in BUILTIN_STUDIES:
        raise ValueError(f"unknown built-in study {name!r}; available: {list(BUILTIN_STUDIES)}")
    return BUILTIN_STUDIES[name](quick)


# --------------------------------------------------------------------------- one replicate
def _replicate_seeds(seed: int, scenario: int, replicate: int) -> tuple[np.random.Generator, int]:
    """Return the data generator and sampler seed of one replicate (chunking-independent)."""
    sequence = np.random.SeedSequence([seed, scenario, replicate])
    data_seq, sampler_seq = sequence.spawn(2)
    return np.random.default_rng(data_seq), int(sampler_seq.generate_state(1)[0])


def _quantile_interval(draws: np.ndarray, prob: float) -> tuple[float, float]:
    low, high = np.quantile(draws, [(1.0 - prob) / 2.0, (1.0 + prob) / 2.0])
    return float(low), float(high)


def _row(estimate: float, low: float, high: float, se: float) -> dict[str, float]:
    return {"estimate": estimate, "low": low, "high": high, "se": se}


def _row_of(estimate: Any) -> dict[str, float]:
    """Return a shipped estimator's result as a study row (NaN where it has no value)."""
    interval = estimate.interval
    if estimate.estimate is None or interval is None:
        return _row(math.nan, math.nan, math.nan, math.nan)
    se = math.nan if estimate.se is None else float(estimate.se)
    return _row(float(estimate.estimate), interval.low, interval.high, se)


def _prevalence_rows(
    spec: StudySpec, params: Mapping[str, Any], rng: np.random.Generator
) -> tuple[dict[str, Callable[[], dict[str, float]]], Any, float]:
    """Simulate one prevalence replicate; return estimator thunks, the counts and the truth.

    Every thunk calls the shipped estimator of :mod:`bayesjudge.prevalence.baselines` on the
    replicate's data, so the study measures exactly what users get.
    """
    from bayesjudge.errors import NotIdentifiableError
    from bayesjudge.estimators import judged_rate
    from bayesjudge.prevalence import (
        JudgeCounts,
        JudgeData,
        naive,
        ppi,
        ppi_plus_plus,
        rogan_gladen,
    )

    theta, q0, q1 = float(params["theta"]), float(params["q0"]), float(params["q1"])
    n, m1, m0 = int(params["n"]), int(params["m1"]), int(params["m0"])
    x1 = int(rng.binomial(m1, q1))
    x0 = int(rng.binomial(m0, 1.0 - q0))
    k = int(rng.binomial(n, float(judged_rate(pi=theta, se=q1, sp=q0))))
    counts = JudgeCounts(m1=m1, x1=x1, m0=m0, x0=x0, n=n, k=k)
    data = JudgeData.from_counts(m1, x1, m0, x0, n, k)
    prob = spec.prob

    def rg(interval: Any) -> dict[str, float]:
        try:
            return _row_of(
                rogan_gladen(
                    data, prob=prob, interval=interval, n_boot=spec.n_boot, random_seed=rng
                )
            )
        except NotIdentifiableError:
            return _row(math.nan, math.nan, math.nan, math.nan)

    thunks: dict[str, Callable[[], dict[str, float]]] = {
        "naive": lambda: _row_of(naive(data, prob=prob)),
        "rogan_gladen_delta": lambda: rg("delta"),
        "rogan_gladen_lang_reiczigel": lambda: rg("lang_reiczigel"),
        "rogan_gladen_bootstrap": lambda: rg("bootstrap"),
        "ppi": lambda: _row_of(ppi(data, prob=prob)),
        "ppi_plus_plus": lambda: _row_of(ppi_plus_plus(data, prob=prob)),
    }
    return thunks, counts, theta


def _exact_row(counts: Any, prob: float) -> dict[str, float]:
    from bayesjudge.prevalence import exact_posterior

    post = exact_posterior(counts)
    interval = post.eti(prob)
    return _row(post.mean, interval.low, interval.high, post.sd)


_PREVALENCE_VARS = ("pi", "se", "sp")


def _nuts_prevalence(
    counts: Any, spec: StudySpec, sampler_seed: int
) -> tuple[dict[str, float], np.ndarray, int]:
    """Fit the prevalence model on ``counts``; return its row, draws of pi, se, sp, divergences.

    The draws are those of :func:`bayesjudge.prevalence.fit.fit_prevalence` with
    ``random_seed=sampler_seed`` and the spec's NUTS settings (tested), from
    :func:`bayesjudge.prevalence.fit.prevalence_draws` without building a DataTree. One nutpie
    thread: a study runs one process per core.
    """
    from bayesjudge.prevalence import prevalence_draws

    settings = spec.mcmc
    fit = prevalence_draws(
        counts,
        var_names=_PREVALENCE_VARS,
        draws=settings.draws,
        tune=settings.tune,
        chains=settings.chains,
        target_accept=settings.target_accept,  # None: the model's own
        random_seed=sampler_seed,
        cores=1,
    )
    draws = fit.stacked(_PREVALENCE_VARS)
    pi = draws[0].reshape(-1)
    low, high = _quantile_interval(pi, spec.prob)
    return _row(float(pi.mean()), low, high, float(pi.std())), draws, int(fit.divergences.sum())


def _gate_replicate(
    spec: StudySpec, params: Mapping[str, Any], rng: np.random.Generator, sampler_seed: int
) -> tuple[dict[str, dict[str, float]], dict[str, tuple[np.ndarray, int]], dict[str, float], float]:
    from bayesjudge.errors import FitWarning
    from bayesjudge.gates import (
        TABLE4,
        Rulings,
        fit_gate,
        gate_baselines,
        rejudgment_gate,
        table4_gate,
    )
    from bayesjudge.prevalence import JudgeCounts

    se1, leak, pi_default = TABLE4[params["gate"]]
    pi = float(params.get("pi", pi_default))
    gate = rejudgment_gate(
        *table4_gate(se1, leak),
        pi=pi,
        n_items=int(params["n_items"]),
        rulings=int(params["rulings"]),
        labelled_fraction=float(params["labelled_fraction"]),
        random_seed=rng,
    )
    rows: dict[str, dict[str, float]] = {}
    times: dict[str, float] = {}
    mcmc: dict[str, tuple[np.ndarray, int]] = {}
    nan = _row(math.nan, math.nan, math.nan, math.nan)
    wanted = set(spec.estimators)
    start = time.perf_counter()
    rulings = Rulings.from_frame(gate.table)
    baselines = {
        row.estimate.method: row.estimate
        for row in gate_baselines(rulings, caps=[1], prob=spec.prob)
    }
    elapsed = (time.perf_counter() - start) / max(len(baselines), 1)
    for method, est in baselines.items():
        if method not in wanted:
            continue
        if est.estimate is None or est.interval is None:
            rows[method] = nan
        else:
            se = math.nan if est.se is None else float(est.se)
            rows[method] = _row(float(est.estimate), est.interval.low, est.interval.high, se)
        times[method] = elapsed
    if "bayes_nuts" in wanted:
        start = time.perf_counter()
        first = gate.table.loc[gate.table["ruling"] == 1, "verdict"].to_numpy()
        lab, label = gate.labelled, gate.label
        counts = JudgeCounts(
            m1=int((lab & (label == 1)).sum()),
            x1=int(first[lab & (label == 1)].sum()),
            m0=int((lab & (label == 0)).sum()),
            x0=int(first[lab & (label == 0)].sum()),
            n=int((~lab).sum()),
            k=int(first[~lab].sum()),
        )
        rows["bayes_nuts"], draws, div = _nuts_prevalence(counts, spec, sampler_seed)
        mcmc["bayes_nuts"] = (draws, div)
        times["bayes_nuts"] = time.perf_counter() - start
    if "gate_hierarchy" in wanted:
        start = time.perf_counter()
        settings = spec.mcmc
        with warnings.catch_warnings():
            # the replicate's own diagnostics are computed below from its draws and counted
            warnings.simplefilter("ignore", RuntimeWarning)
            warnings.simplefilter("ignore", FitWarning)
            warnings.simplefilter("ignore", UserWarning)
            tree = fit_gate(
                rulings,
                caps=[1],
                draws=settings.draws,
                tune=settings.tune,
                chains=settings.chains,
                target_accept=settings.target_accept,  # None: the gate model's own
                random_seed=sampler_seed,
                progressbar=False,
                calibration="random",
                escalate=False,
            )
        draws = tree["posterior"]["pi"].to_numpy()[None]
        flat = draws.reshape(-1)
        low, high = _quantile_interval(flat, spec.prob)
        rows["gate_hierarchy"] = _row(float(flat.mean()), low, high, float(flat.std()))
        mcmc["gate_hierarchy"] = (draws, int(tree["sample_stats"]["diverging"].to_numpy().sum()))
        times["gate_hierarchy"] = time.perf_counter() - start
    return rows, mcmc, times, pi


# --------------------------------------------------------------------------- one chunk
def _convergence(draws: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Max R-hat, min bulk and min tail ESS over the variables, vectorised over replicates.

    ``draws`` has shape (replicate, variable, chain, draw); the statistics are those of
    :func:`bayesjudge.check_fit`, from the same ``arviz_stats`` functions applied to the whole
    batch at once (:func:`bayesjudge.inference.diagnostics.batched_convergence`). A NaN in
    any variable of a replicate makes its summary NaN, which fails the diagnostics.
    """
    r_hat, bulk, tail = batched_convergence(np.asarray(draws, dtype=float))
    return r_hat.max(axis=1), bulk.min(axis=1), tail.min(axis=1)


def _run_chunk(spec: StudySpec, scenario: int, start: int, stop: int) -> xr.Dataset:
    """Run replicates ``start .. stop - 1`` of one scenario; return a (replicate, estimator) set."""
    params = spec.scenarios()[scenario]
    estimators = list(spec.estimators)
    size = stop - start
    values = {v: np.full((size, len(estimators)), np.nan) for v in _VARIABLES}
    truth = np.full(size, np.nan)
    mcmc_draws: dict[str, list[tuple[int, np.ndarray, int]]] = {e: [] for e in _MCMC}
    for offset, replicate in enumerate(range(start, stop)):
        rng, sampler_seed = _replicate_seeds(spec.seed, scenario, replicate)
        rows: dict[str, dict[str, float]] = {}
        times: dict[str, float] = {}
        if spec.design == "prevalence":
            thunks, counts, truth[offset] = _prevalence_rows(spec, params, rng)
            for name in estimators:
                t0 = time.perf_counter()
                if name in thunks:
                    rows[name] = thunks[name]()
                elif name == "bayes_exact":
                    if replicate >= spec.exact_replicates:
                        continue
                    rows[name] = _exact_row(counts, spec.prob)
                else:  # bayes_nuts
                    rows[name], draws, div = _nuts_prevalence(counts, spec, sampler_seed)
                    mcmc_draws[name].append((offset, draws, div))
                times[name] = time.perf_counter() - t0
        else:
            rows, mcmc, times, truth[offset] = _gate_replicate(spec, params, rng, sampler_seed)
            for name, (draws, div) in mcmc.items():
                mcmc_draws[name].append((offset, draws, div))
        for j, name in enumerate(estimators):
            if name not in rows:
                continue
            for key, value in rows[name].items():
                values[key][offset, j] = value
            values["fit_time"][offset, j] = times.get(name, math.nan)
    for name, fitted in mcmc_draws.items():
        if not fitted:
            continue
        j = estimators.index(name)
        offsets = np.array([f[0] for f in fitted])
        r_hat, bulk, tail = _convergence(np.stack([f[1] for f in fitted]))
        values["r_hat"][offsets, j] = r_hat
        values["ess_bulk"][offsets, j] = bulk
        values["ess_tail"][offsets, j] = tail
        values["divergences"][offsets, j] = [f[2] for f in fitted]
    dims = ("replicate", "estimator")
    data: dict[str, tuple[tuple[str, ...], np.ndarray]] = {
        name: (dims, array) for name, array in values.items()
    }
    data["truth"] = (("replicate",), truth)
    return xr.Dataset(
        data,
        coords={"replicate": np.arange(start, stop), "estimator": estimators},
        attrs={"scenario": scenario, "fingerprint": spec.fingerprint()},
    )


def study_chunks(spec: StudySpec) -> list[tuple[int, int, int]]:
    """Return the chunks of a study as (scenario index, first replicate, stop) triples.

    Examples
    --------
    >>> study_chunks(builtin_study("lee2025"))[:2]
    [(0, 0, 50), (0, 50, 100)]
    """
    out = []
    for scenario in range(int(np.prod(spec.shape))):
        for start in range(0, spec.replicates, spec.chunk_size):
            out.append((scenario, start, min(start + spec.chunk_size, spec.replicates)))
    return out


def _chunk_path(folder: Path, chunk: tuple[int, int, int]) -> Path:
    scenario, start, stop = chunk
    return folder / "chunks" / f"s{scenario:05d}_r{start:07d}-{stop:07d}.nc"


def _read_chunk(path: Path, spec: StudySpec, chunk: tuple[int, int, int]) -> xr.Dataset | None:
    """Return a finished chunk, or None (with a warning) when its file cannot be used.

    Chunks are written atomically, so a damaged file (truncated by a full disk or a copy,
    unreadable, or not holding the chunk's replicates) is not this study's doing; the study's
    results do not depend on when a chunk is computed, so it is computed again.
    """
    try:
        with xr.open_dataset(path, engine="h5netcdf") as handle:
            ds = handle.load()
    except (OSError, ValueError, RuntimeError, KeyError) as exc:
        warnings.warn(
            f"chunk file {path} cannot be read ({exc}); it is computed again",
            UserWarning,
            stacklevel=3,
        )
        return None
    if ds.attrs.get("fingerprint") != spec.fingerprint():
        raise ValueError(f"chunk file {path} belongs to a different study")
    _, start, stop = chunk
    complete = (
        {*_VARIABLES, "truth"} <= set(ds.data_vars)
        and ds.sizes.get("replicate") == stop - start
        and np.array_equal(ds["replicate"].to_numpy(), np.arange(start, stop))
        and ds["estimator"].to_numpy().tolist() == list(spec.estimators)
    )
    if not complete:
        warnings.warn(
            f"chunk file {path} does not hold replicates {start} to {stop - 1} of every "
            "estimator; it is computed again",
            UserWarning,
            stacklevel=3,
        )
        return None
    return ds


# --------------------------------------------------------------------------- assembling
def _assemble(spec: StudySpec, chunks: Mapping[tuple[int, int, int], xr.Dataset]) -> xr.Dataset:
    shape = spec.shape
    axes = [axis for axis, _ in spec.grid]
    estimators = list(spec.estimators)
    full = {v: np.full((*shape, spec.replicates, len(estimators)), np.nan) for v in _VARIABLES}
    truth = np.full((*shape, spec.replicates), np.nan)
    for (scenario, start, stop), ds in chunks.items():
        where: tuple[Any, ...] = (*np.unravel_index(scenario, shape), slice(start, stop))
        for v in _VARIABLES:
            full[v][where] = ds[v].to_numpy()
        truth[where] = ds["truth"].to_numpy()
    dims = (*axes, "replicate", "estimator")
    coords: dict[str, Any] = {"replicate": np.arange(spec.replicates), "estimator": estimators}
    for axis, values in spec.grid:
        coords[axis] = [_label(v) for v in values]
        if isinstance(values[0], tuple):
            for key in dict(values[0]):
                coords[key] = (axis, [dict(v)[key] for v in values])
    ds = xr.Dataset({v: (dims, full[v]) for v in _VARIABLES}, coords=coords)
    ds["truth"] = (dims[:-1], truth)
    defined = np.isfinite(ds["low"]) & np.isfinite(ds["high"]) & np.isfinite(ds["estimate"])
    ds["defined"] = defined
    mcmc = ds["estimator"].isin(list(_MCMC))
    converged = (
        (ds["r_hat"] <= _R_HAT_MAX)
        & (ds["ess_bulk"] >= _ESS_MIN)
        & (ds["ess_tail"] >= _ESS_MIN)
        & (ds["divergences"] == 0)
    )
    ds["passed"] = defined & xr.where(mcmc, converged, True)
    inside = (ds["low"] <= ds["truth"]) & (ds["truth"] <= ds["high"])
    ds["covered"] = inside.where(defined)
    ds["width"] = ds["high"] - ds["low"]
    ds["error"] = ds["estimate"] - ds["truth"]
    ds["j"] = _scenario_j(spec, ds)
    ds.attrs.update(
        {
            "bayesjudge_version": __version__,
            "study": spec.name,
            "spec": json.dumps(spec.to_dict(), default=str),
            "fingerprint": spec.fingerprint(),
            "prob": spec.prob,
            "diagnostics": f"MCMC replicates pass when R-hat <= {_R_HAT_MAX}, bulk and tail "
            f"ESS >= {_ESS_MIN:g} (pi, Se, Sp or pi) and no divergence",
        }
    )
    return ds


def _scenario_j(spec: StudySpec, ds: xr.Dataset) -> xr.DataArray:
    """Youden's J of each scenario's judge: q0 + q1 - 1, or Se(1) - leak for a Table 4 gate."""
    from bayesjudge.gates import TABLE4

    axes = [axis for axis, _ in spec.grid]
    values = []
    for params in spec.scenarios():
        if spec.design == "prevalence":
            values.append(float(params["q0"]) + float(params["q1"]) - 1.0)
        else:
            se1, leak, _ = TABLE4[params["gate"]]
            values.append(se1 - leak)
    return xr.DataArray(
        np.asarray(values).reshape(spec.shape), dims=axes, coords={a: ds[a] for a in axes}
    )


# --------------------------------------------------------------------------- execution
def _progress(enabled: bool | None, total: int, name: str) -> Any:
    from tqdm.auto import tqdm

    show = bool(getattr(sys.stderr, "isatty", lambda: False)()) if enabled is None else enabled
    return tqdm(total=total, desc=f"study {name}", unit="chunk", file=sys.stderr, disable=not show)


#: Seconds to wait for a Dask scheduler to answer before giving up.
_CONNECT_TIMEOUT = 5.0


@contextmanager
def _connected(scheduler: Any) -> Iterator[Any]:
    """Yield a Dask client for ``scheduler`` (None without one), closed at the end if opened."""
    if scheduler is None:
        yield None
        return
    try:
        from dask.distributed import Client
    except ImportError:
        raise MissingDependencyError(
            "running a study on a Dask cluster (scheduler=...) needs dask.distributed, which is "
            "not installed; install it with `pip install bayesjudge[studies]`"
        ) from None
    if isinstance(scheduler, Client):
        yield scheduler
        return
    try:
        client = Client(scheduler, timeout=_CONNECT_TIMEOUT)
    except (OSError, ValueError, TypeError) as exc:
        raise ValueError(
            f"scheduler {scheduler!r}: cannot connect to a Dask scheduler there within "
            f"{_CONNECT_TIMEOUT:g} s ({exc}); check the address and that the scheduler is running"
        ) from None
    try:
        yield client
    finally:
        client.close()


def _execute(
    spec: StudySpec,
    pending: Sequence[tuple[int, int, int]],
    *,
    workers: int,
    client: Any,
    on_done: Callable[[tuple[int, int, int], xr.Dataset], None],
) -> None:
    if client is not None:
        from dask.distributed import as_completed

        futures = {client.submit(_run_chunk, spec, *chunk, pure=False): chunk for chunk in pending}
        try:
            for future in as_completed(futures):
                on_done(futures[future], future.result())
        finally:
            client.cancel(list(futures))
        return
    if workers == 1 or len(pending) <= 1:
        for chunk in pending:
            check_interrupted()
            on_done(chunk, _run_chunk(spec, *chunk))
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    context = multiprocessing.get_context("spawn")  # fork is unsafe with sampler threads
    before = set(multiprocessing.active_children())
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_start_worker,
        initargs=(os.getpid(),),
    )
    running: dict[Any, tuple[int, int, int]] = {}
    try:
        with _workers_ignore_ctrl_c():  # the workers start during the first submits
            for chunk in pending:
                running[pool.submit(_run_chunk, spec, *chunk)] = chunk
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                on_done(running.pop(future), future.result())
    except BaseException:
        # Interrupted or failed: end the workers now rather than wait for their chunks.
        for future in running:
            future.cancel()
        for worker in set(multiprocessing.active_children()) - before:
            worker.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


@contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """Start worker processes with Ctrl-C ignored from their first instruction.

    A terminal's Ctrl-C reaches every process of the command; the main process handles it
    (and ends the workers), so the workers ignore it rather than print a traceback each, even
    while they are still importing. An ignored signal stays ignored across ``exec``, so it is
    ignored here while the workers are started (a few milliseconds), then restored.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be changed in the main thread
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        if previous is not None:  # None: a handler installed outside Python, left alone
            signal.signal(signal.SIGINT, previous)


def _start_worker(parent_pid: int) -> None:
    """Initialise a study worker: it ends with the main process and leaves Ctrl-C to it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with_parent(parent_pid)


def run_study(
    spec: StudySpec,
    *,
    out: str | os.PathLike[str] | None = None,
    workers: int = 1,
    scheduler: Any = None,
    resume: bool = False,
    progressbar: bool | None = None,
) -> xr.Dataset:
    r"""Run a simulation study and return its results.

    Every replicate's data and sampler seed come from ``SeedSequence([spec.seed, scenario,
    replicate])``, so the results are identical for any ``workers``, ``scheduler`` or
    ``spec.chunk_size``.

    Parameters
    ----------
    spec : StudySpec
        The study.
    out : path, optional
        Output folder: a new or empty folder, or (with ``resume``) a study folder bayesjudge
        wrote. It is checked and locked before any work
        (:func:`bayesjudge.reporting.output.claim_output_folder`), so a second run into it is
        refused while this one runs, and it carries bayesjudge's manifest (kind ``"study"``).
        Each finished chunk is written atomically to
        ``out/chunks/s<scenario>_r<first>-<stop>.nc``; at the end the whole study goes to
        ``out/results.nc`` and its summary to ``out/summary.csv``; ``out/spec.json`` records
        the spec. Without ``out`` nothing is written.
    workers : int, default 1
        Local processes (1 runs the chunks one after the other in this process; more use a
        process pool). Ignored when ``scheduler`` is given.
    scheduler : str or distributed.Client, optional
        Address of a Dask scheduler (or a connected client): chunks then run on that cluster.
        Needs the ``studies`` extra (``dask[distributed]``).
    resume : bool, default False
        Continue a study already started in ``out``: chunks whose files exist are read, not
        recomputed; a chunk file that cannot be read (truncated, damaged) is computed again,
        with a warning naming it. Without it an ``out`` folder holding a study is an error.
    progressbar : bool, optional
        Show a progress bar with ETA on stderr; by default only when stderr is a terminal.

    Returns
    -------
    Dataset
        Dims: the grid axes, ``replicate``, ``estimator``. Variables ``estimate``, ``low``,
        ``high``, ``se`` (posterior sd for Bayesian estimators), ``covered`` (1/0, NaN when the
        estimator gave no interval), ``width``, ``error`` (estimate - truth), ``defined``,
        ``passed`` (diagnostics passed; always true for an estimator without MCMC that gave an
        interval), ``r_hat``, ``ess_bulk``, ``ess_tail``, ``divergences`` (MCMC only),
        ``fit_time`` (seconds), ``truth`` and ``j`` (the scenario's Youden J).

    Raises
    ------
    OutputError
        If ``out`` is refused (a file, the current folder, a folder bayesjudge did not write,
        a report, a place where nothing can be created) or another run is using it.
    ValueError
        If ``out`` holds a different study, or holds one and ``resume`` is false; or if the
        ``scheduler`` cannot be reached within a few seconds.
    ImportError
        If ``scheduler`` is given and dask.distributed is not installed.

    Examples
    --------
    >>> spec = StudySpec.from_dict({
    ...     "name": "tiny", "design": "prevalence", "replicates": 20, "seed": 1,
    ...     "estimators": ["naive", "rogan_gladen_delta"], "grid": {"theta": [0.3]},
    ...     "fixed": {"q0": 0.8, "q1": 0.9, "n": 500, "m1": 50, "m0": 50},
    ... })
    >>> ds = run_study(spec, progressbar=False)
    >>> dict(ds.sizes)
    {'theta': 1, 'replicate': 20, 'estimator': 2}
    """
    if not isinstance(spec, StudySpec):
        raise TypeError(f"spec must be a StudySpec; got {type(spec).__name__}")
    _whole("workers", workers, 1)
    with ExitStack() as stack:
        # the folder is checked and locked first, then the scheduler reached: both before
        # anything is written or computed
        folder = None
        if out is not None:
            folder = stack.enter_context(claim_output_folder(out, kind="study"))
        client = stack.enter_context(_connected(scheduler))
        if folder is not None:
            _prepare_folder(folder, spec, resume=resume)
        return _run(spec, folder, workers=workers, client=client, progressbar=progressbar)


def _run(
    spec: StudySpec,
    folder: Path | None,
    *,
    workers: int,
    client: Any,
    progressbar: bool | None,
) -> xr.Dataset:
    chunks = study_chunks(spec)
    done: dict[tuple[int, int, int], xr.Dataset] = {}
    if folder is not None:
        for chunk in chunks:
            path = _chunk_path(folder, chunk)
            if path.exists():
                ds = _read_chunk(path, spec, chunk)
                if ds is not None:
                    done[chunk] = ds
    pending = [chunk for chunk in chunks if chunk not in done]
    bar = _progress(progressbar, len(chunks), spec.name)
    bar.update(len(done))

    def on_done(chunk: tuple[int, int, int], ds: xr.Dataset) -> None:
        check_interrupted()  # a Ctrl-C swallowed by a finaliser during the chunk ends here
        if folder is not None:
            write_netcdf(ds, _chunk_path(folder, chunk))
        done[chunk] = ds
        bar.update(1)

    try:
        _execute(spec, pending, workers=workers, client=client, on_done=on_done)
    finally:
        bar.close()
    result = _assemble(spec, done)
    if folder is not None:
        write_netcdf(result, folder / "results.nc")
        summary = summarize(result)
        write_file_atomically(folder / "summary.csv", lambda path: write_csv(summary, path))
        write_manifest(folder, kind="study")
    return result


def _prepare_folder(folder: Path, spec: StudySpec, *, resume: bool) -> None:
    """Start or continue a study in ``folder``, whose lock the caller holds."""
    record = folder / "spec.json"
    if record.exists():
        try:
            existing = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(
                f"{record} cannot be read ({exc}); the folder cannot be resumed, choose another "
                "output folder"
            ) from None
        if existing.get("fingerprint") != spec.fingerprint():
            raise ValueError(
                f"{folder} holds a different study ({existing.get('name')!r}); choose another "
                "output folder"
            )
        if existing.get("chunk_size") != spec.chunk_size:
            raise ValueError(
                f"{folder} was started with chunk_size={existing.get('chunk_size')}; resume "
                f"with the same chunk size (got {spec.chunk_size})"
            )
        if not resume:
            raise ValueError(
                f"{folder} already holds study {existing.get('name')!r}; pass resume=True "
                "(--resume) to continue it or choose another output folder"
            )
    elif folder.exists() and any(p.name != MANIFEST_NAME for p in folder.iterdir()):
        raise ValueError(f"output folder {folder} holds a study without its spec.json")
    folder.mkdir(exist_ok=True)
    if read_manifest(folder) is None:
        write_manifest(folder, kind="study", files=())  # marks the folder before anything else
    for stale in [*folder.glob(".*.bayesjudge-tmp-*"), *folder.glob("chunks/.*.bayesjudge-tmp-*")]:
        stale.unlink(missing_ok=True)  # left by a killed run: this run holds the lock
    write_text_atomically(
        record, json.dumps({**spec.to_dict(), "fingerprint": spec.fingerprint()}, indent=2)
    )


def load_results(path: str | os.PathLike[str]) -> xr.Dataset:
    """Read a study's ``results.nc`` (or the folder holding it) into memory."""
    target = Path(path)
    if target.is_dir():
        target = target / "results.nc"
    if not target.exists():
        raise ValueError(f"no study results at {target}")
    with xr.open_dataset(target, engine="h5netcdf") as handle:
        ds = handle.load()
    for name in ("defined", "passed"):
        ds[name] = ds[name].astype(bool)
    return ds


# --------------------------------------------------------------------------- summaries
def summarize(results: xr.Dataset) -> pd.DataFrame:
    r"""Coverage (with Monte Carlo error), width, MAE, bias and failures per scenario/estimator.

    Over the ``n`` replicates where the estimator gave an interval: coverage :math:`\hat c`
    with Monte Carlo standard error :math:`\sqrt{\hat c(1 - \hat c)/n}`, mean interval width,
    MAE :math:`\overline{|\hat\theta - \theta|}`, bias :math:`\overline{\hat\theta - \theta}`
    and RMSE. ``undefined`` counts replicates without an interval (e.g. Rogan-Gladen with
    :math:`\hat J \le 0`); ``failed`` counts MCMC replicates that failed their diagnostics
    (they are kept in every column: a failing fit is shown, not dropped);
    ``coverage_passed`` is the coverage over the replicates that passed.

    Returns
    -------
    DataFrame
        One row per scenario and estimator: the grid coordinates, ``estimator``, ``n``,
        ``coverage``, ``coverage_mcse``, ``coverage_passed``, ``width``, ``mae``, ``bias``,
        ``rmse``, ``undefined``, ``failed``, ``fit_time`` (mean seconds per replicate).
    """
    defined = results["defined"].astype(bool)
    passed = results["passed"].astype(bool)
    n = defined.sum("replicate")
    covered = results["covered"]
    coverage = covered.mean("replicate", skipna=True)
    error = results["error"].where(defined)
    table = xr.Dataset(
        {
            "n": n,
            "coverage": coverage,
            "coverage_mcse": np.sqrt(coverage * (1.0 - coverage) / n.where(n > 0)),
            "coverage_passed": covered.where(passed).mean("replicate", skipna=True),
            "width": results["width"].where(defined).mean("replicate", skipna=True),
            "mae": abs(error).mean("replicate", skipna=True),
            "bias": error.mean("replicate", skipna=True),
            "rmse": np.sqrt((error**2).mean("replicate", skipna=True)),
            "undefined": ((~defined).sum("replicate") - _not_run(results)).astype(int),
            "failed": (defined & ~passed).sum("replicate"),
            "fit_time": results["fit_time"].mean("replicate", skipna=True),
        }
    )
    frame = table.to_dataframe().reset_index()
    extra = [c for c in frame.columns if c in results.coords and c not in results.dims]
    front = [d for d in results["estimate"].dims if d not in {"replicate"}]
    order = front + extra + [c for c in table.data_vars]
    return frame[[c for c in order if c in frame.columns]]


def _not_run(results: xr.Dataset) -> xr.DataArray:
    """Replicates an estimator was not asked to run (bayes_exact beyond exact_replicates)."""
    spec = json.loads(results.attrs.get("spec", "{}"))
    limit = int(spec.get("exact_replicates", 0))
    skipped = (results["replicate"] >= limit) & (results["estimator"] == "bayes_exact")
    return skipped.sum("replicate") * xr.ones_like(results["estimate"].isel(replicate=0))


def exact_check(results: xr.Dataset) -> pd.DataFrame:
    r"""Compare ``bayes_nuts`` with ``bayes_exact`` on the replicates where both ran.

    For each such replicate: :math:`z = (\bar\pi_{\mathrm{NUTS}} - E[\pi])/(\mathrm{sd}[\pi]
    / \sqrt{\mathrm{ESS}_{\mathrm{bulk}}})`, the posterior-mean difference in Monte Carlo
    standard errors (about N(0, 1) when the sampler is right; the ESS is the minimum over pi,
    Se, Sp, so the denominator is conservative), and the interval-end differences in exact
    posterior sds.

    Returns
    -------
    DataFrame
        One row per compared replicate: grid coordinates, ``replicate``, ``exact_mean``,
        ``nuts_mean``, ``z``, ``low_diff_sd``, ``high_diff_sd``, ``passed`` (NUTS diagnostics).

    Raises
    ------
    ValueError
        If the study lacks either estimator.
    """
    names = set(results["estimator"].to_numpy().tolist())
    if not {"bayes_nuts", "bayes_exact"} <= names:
        raise ValueError(
            f"exact_check needs estimators 'bayes_nuts' and 'bayes_exact'; the study has "
            f"{sorted(names)}"
        )
    nuts = results.sel(estimator="bayes_nuts", drop=True)
    exact = results.sel(estimator="bayes_exact", drop=True)
    both = (nuts["defined"] & exact["defined"]).astype(bool)
    sd = exact["se"]
    table = xr.Dataset(
        {
            "exact_mean": exact["estimate"],
            "nuts_mean": nuts["estimate"],
            "z": (nuts["estimate"] - exact["estimate"]) / (sd / np.sqrt(nuts["ess_bulk"])),
            "low_diff_sd": (nuts["low"] - exact["low"]) / sd,
            "high_diff_sd": (nuts["high"] - exact["high"]) / sd,
            "passed": nuts["passed"],
            "both": both,
        }
    )
    frame = table.to_dataframe().reset_index()
    frame = frame[frame["both"].astype(bool)].drop(columns="both")
    keep = [c for c in frame.columns if c not in results.coords or c in results.dims]
    return frame[keep].reset_index(drop=True)
