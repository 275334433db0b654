"""One fitting path for every model family: sample, complete, check, escalate once, record.

Every family's ``fit_*`` function builds a :class:`ModelRun` (its model name, cache key, model
builder, data and priors) and calls :func:`fit_model`, so every fit in bayesjudge is sampled,
checked and recorded the same way:

1. the model is taken from the shared :class:`~bayesjudge.inference.cache.ModelCache` (built and
   compiled once per structure) and sampled with the data swapped in
   (:func:`~bayesjudge.inference.sampling.sample_nuts`);
2. the family completes the tree (derived draws, posterior predictive draws, observed and
   constant data);
3. :func:`~bayesjudge.inference.diagnostics.check_fit` runs with the same rules for every
   caller;
4. if a *sampler* check failed, the fit is run once more (:func:`retry_settings`). After
   divergent transitions the retry takes smaller steps, longer tuning and more draws
   (:meth:`NutsSettings.escalated`); otherwise (ESS, Monte Carlo error or R-hat short: chains
   that mix slowly) it keeps the step-size target and runs long enough for the shortest check
   to pass, with a margin (:meth:`NutsSettings.lengthened`). A failed posterior predictive
   check is a property of the model and the data, not of the sampler, and is not retried;
5. every attempt, the diagnostics, the priors, the sampler, the seed, the versions and (from
   the command line) the command are written into the root attrs, and a fit that still fails
   warns with :class:`~bayesjudge.errors.FitWarning` naming each failed check and what to try.

With ``draws="auto"`` (:attr:`NutsSettings.checkpoint` set) step 1 stops at the first
checkpoint where the sampler checks of step 3 hold (:class:`StoppingRule`,
:func:`~bayesjudge.inference.sampling.sample_nuts_until`), and the rule, the draws kept and the
values at stopping are recorded in the attempt and in ``attrs["stopping_rule"]``.

Read the checks back with :func:`diagnostics_of` and the attempts with :func:`attempts_of`.
"""

from __future__ import annotations

import copy
import json
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

import numpy as np
import xarray as xr

from bayesjudge.errors import FitWarning
from bayesjudge.inference import defaults
from bayesjudge.inference.cache import model_cache
from bayesjudge.inference.diagnostics import Check, Diagnostics, check_fit
from bayesjudge.inference.progress import line_stream
from bayesjudge.inference.provenance import provenance_attrs
from bayesjudge.inference.sampling import (
    Adaptation,
    Sampler,
    StoppedRun,
    draw_sampler_seed,
    progressbar_default,
    resolve_sampler,
    sample_nuts,
    sample_nuts_until,
)
from bayesjudge.priors import Priors
from bayesjudge.validation import MAX_CHAINS, MAX_DRAWS, check_int, check_prob, seed_stream

__all__ = [
    "AUTO",
    "MAX_CHAINS",
    "MAX_DRAWS",
    "Attempt",
    "Draws",
    "ModelRun",
    "NutsSettings",
    "StoppingRule",
    "attempts_of",
    "diagnostics_of",
    "fit_model",
]

#: Failed checks named in a FitWarning (the rest are counted; all are in the attrs).
_SHOWN_FAILURES = 6
#: Checks that a longer, more careful run of the sampler can fix.
_SAMPLER_CHECKS = frozenset(
    {"r_hat", "ess_bulk", "ess_tail", "divergences", "mcse_mean", "mcse_low", "mcse_high"}
)
#: Margin on the draws a lengthened retry needs. With the default 4 chains (8 split halves)
#: ESS 400 and R-hat 1.01 are the same condition (R-hat^2 - 1 ~ 8 / ESS), and R-hat's
#: between-chain variance, estimated from 8 halves, has a chi-square(7) / 7 noise whose 95th
#: percentile is 2.0 times its mean: for one quantity, a run aimed at exactly what the checks
#: need fails R-hat 43 % of the time, one aimed at twice as much 5 %.
_LENGTHEN_MARGIN = 2.0
#: Largest factor a lengthened retry multiplies the draws by; a larger shortfall escalates.
_MAX_LENGTHEN = 5.0
#: ``draws="auto"``: sample until the diagnostics' targets are met (:class:`StoppingRule`).
AUTO = "auto"
#: Draws per chain: a number, or :data:`AUTO`.
Draws = int | Literal["auto"]


@dataclass(frozen=True, slots=True)
class NutsSettings:
    """How long and how carefully NUTS runs.

    Attributes
    ----------
    draws : int
        Draws per chain kept after tuning; with :attr:`checkpoint`, the most draws per chain.
        ``"auto"`` stands for :data:`~bayesjudge.inference.defaults.AUTO_MAX_DRAWS` with
        :data:`~bayesjudge.inference.defaults.AUTO_CHECKPOINT`.
    tune : int
        Tuning steps per chain.
    chains : int
        Independent chains.
    target_accept : float
        NUTS target acceptance rate in (0, 1); higher means smaller steps.
    checkpoint : int or None
        None: exactly ``draws`` draws per chain. Otherwise the sampler stops at the first
        multiple of ``checkpoint`` draws per chain at which the diagnostics' targets are met
        (:class:`StoppingRule`), and at ``draws`` at the latest.

    Examples
    --------
    >>> NutsSettings(draws=1000, tune=1000, chains=4, target_accept=0.95).escalated()
    NutsSettings(draws=2000, tune=3000, chains=4, target_accept=0.99)
    >>> NutsSettings(draws="auto")
    NutsSettings(draws=2000, tune=1000, chains=4, target_accept=0.95, checkpoint=250)
    """

    draws: int = 2000
    tune: int = 1000
    chains: int = 4
    target_accept: float = 0.95
    checkpoint: int | None = None

    def __post_init__(self) -> None:
        draws: Any = self.draws
        if isinstance(draws, str):
            if draws != AUTO:
                raise ValueError(f"draws must be a whole number or 'auto'; got {draws!r}")
            draws = defaults.AUTO_MAX_DRAWS
            if self.checkpoint is None:
                object.__setattr__(self, "checkpoint", defaults.AUTO_CHECKPOINT)
        object.__setattr__(
            self, "draws", check_int(draws, name="draws", minimum=1, maximum=MAX_DRAWS)
        )
        if self.checkpoint is not None:
            object.__setattr__(
                self,
                "checkpoint",
                check_int(self.checkpoint, name="checkpoint", minimum=1, maximum=MAX_DRAWS),
            )
        object.__setattr__(
            self, "tune", check_int(self.tune, name="tune", minimum=0, maximum=MAX_DRAWS)
        )
        object.__setattr__(
            self, "chains", check_int(self.chains, name="chains", minimum=1, maximum=MAX_CHAINS)
        )
        object.__setattr__(
            self, "target_accept", check_prob(self.target_accept, name="target_accept")
        )

    def __repr__(self) -> str:
        fixed = (
            f"NutsSettings(draws={self.draws}, tune={self.tune}, chains={self.chains}, "
            f"target_accept={self.target_accept}"
        )
        rule = "" if self.checkpoint is None else f", checkpoint={self.checkpoint}"
        return f"{fixed}{rule})"

    @classmethod
    def of(
        cls, draws: Draws, tune: int, chains: int, target_accept: float | None, default: float
    ) -> NutsSettings:
        """Return the settings of a fit function's keywords, ``target_accept`` None: ``default``.

        >>> NutsSettings.of(1000, 500, 2, None, 0.9).target_accept
        0.9
        >>> NutsSettings.of("auto", 500, 2, None, 0.9).checkpoint
        250
        """
        return cls(
            draws,  # type: ignore[arg-type]  # "auto" is resolved in __post_init__
            tune,
            chains,
            default if target_accept is None else target_accept,
        )

    def escalated(self) -> NutsSettings:
        """Return the settings of the one retry: smaller steps, longer tuning, more draws.

        Twice the draws, three times the tuning (at least 3000 steps), and a target
        acceptance whose rejection rate is a fifth of the current one (0.95 -> 0.99,
        0.99 -> 0.998).
        """
        return NutsSettings(
            draws=min(2 * self.draws, MAX_DRAWS),
            tune=min(max(3 * self.tune, 3000), MAX_DRAWS),
            chains=self.chains,
            target_accept=round(min(0.999, 1.0 - (1.0 - self.target_accept) / 5.0), 6),
            checkpoint=self.checkpoint,
        )

    def lengthened(self, factor: float) -> NutsSettings:
        """Return the settings of a retry that only needs more draws.

        ``factor`` times the draws (rounded up, at most ``MAX_DRAWS``), with the same tuning,
        chains and target acceptance.

        Examples
        --------
        >>> NutsSettings(draws=2000, tune=1000).lengthened(2.2)
        NutsSettings(draws=4400, tune=1000, chains=4, target_accept=0.95)
        """
        if not factor >= 1.0:
            raise ValueError(f"factor must be at least 1; got {factor!r}")
        return NutsSettings(
            draws=min(int(np.ceil(self.draws * factor - 1e-9)), MAX_DRAWS),
            tune=self.tune,
            chains=self.chains,
            target_accept=self.target_accept,
            checkpoint=self.checkpoint,
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as plain values (``checkpoint`` only when it is set)."""
        out = asdict(self)
        if self.checkpoint is None:
            del out["checkpoint"]
        return out


def draws_factor(failures: Sequence[Check]) -> float:
    r"""Return how many times more draws the failed sampler checks need, with no margin.

    An effective sample size grows in proportion to the draws, so an ESS check short by
    :math:`\mathrm{ESS} < t` needs :math:`t / \mathrm{ESS}` times the draws; a Monte Carlo
    error shrinks like :math:`1/\sqrt{\mathrm{ESS}}`, so an MCSE check over its limit needs
    :math:`(\mathrm{MCSE} / t)^2` times. Once the chains are stationary, R-hat and the
    effective sample size are tied by :math:`\hat R^2 \approx 1 + m / \mathrm{ESS}` for
    :math:`m` chains (Vats and Knudson, 2021), so an R-hat over its limit :math:`t` needs
    :math:`(\hat R^2 - 1) / (t^2 - 1)` times the draws. The largest need over ``failures``
    (at least 1); divergences and checks of the model rather than the sampler add none.

    References
    ----------
    .. [1] Vats, D. and Knudson, C. (2021). Revisiting the Gelman-Rubin diagnostic.
       *Statistical Science* 36(4), 518-529.

    Examples
    --------
    >>> from bayesjudge.inference.diagnostics import Check
    >>> draws_factor([Check("ess_bulk", "pi", 250.0, 400.0, ">=", False),
    ...               Check("mcse_low", "pi", 0.006, 0.005, "<=", False)])
    1.6
    >>> round(draws_factor([Check("r_hat", "pi", 1.02, 1.01, "<=", False)]), 3)
    2.01
    """
    need = 1.0
    for check in failures:
        if check.name.startswith("ess"):
            need = max(need, check.threshold / max(check.value, 1.0))
        elif check.name.startswith("mcse"):
            need = max(need, (check.value / check.threshold) ** 2)
        elif check.name == "r_hat" and check.threshold > 1.0:
            need = max(need, (check.value**2 - 1.0) / (check.threshold**2 - 1.0))
    return need


def retry_settings(current: NutsSettings, failures: Sequence[Check]) -> NutsSettings:
    """Return the settings of the one retry after the sampler checks in ``failures`` failed.

    Divergent transitions mean the step size is too large for the posterior's curvature: the
    retry takes smaller steps, longer tuning and twice the draws
    (:meth:`NutsSettings.escalated`). Without divergences, a short effective sample size, a
    large Monte Carlo error or an R-hat above its limit mean the chains mix slowly or have not
    yet mixed: smaller steps do not help, a longer run does (Vehtari et al., 2021). The retry
    then keeps the step-size target and multiplies the draws by twice what the failed checks
    need (:func:`draws_factor`: ESS, MCSE and R-hat each translated into draws; the margin is
    for R-hat's own noise, whose 95th percentile over 4 chains is twice its mean), and doubles
    the tuning when R-hat failed (the chains may not have reached the typical set). A
    shortfall that would need more than five times the draws escalates instead.

    Examples
    --------
    >>> from bayesjudge.inference.diagnostics import Check
    >>> settings = NutsSettings(draws=2000, tune=1000)
    >>> retry_settings(settings, [Check("ess_tail", "pi", 225.0, 400.0, ">=", False)])
    NutsSettings(draws=7112, tune=1000, chains=4, target_accept=0.95)
    >>> retry_settings(settings, [Check("r_hat", "pi", 1.02, 1.01, "<=", False)])
    NutsSettings(draws=8040, tune=2000, chains=4, target_accept=0.95)
    >>> retry_settings(settings, [Check("divergences", "sampler", 3.0, 0.0, "<=", False)])
    NutsSettings(draws=4000, tune=3000, chains=4, target_accept=0.99)
    """
    sampler = [c for c in failures if c.name in _SAMPLER_CHECKS]
    names = {c.name for c in sampler}
    if names and "divergences" not in names:
        factor = _LENGTHEN_MARGIN * draws_factor(sampler)
        if factor <= _MAX_LENGTHEN:
            longer = current.lengthened(factor)
            if "r_hat" in names:
                return replace(longer, tune=min(max(2 * current.tune, 1), MAX_DRAWS))
            return longer
    return current.escalated()


@dataclass(frozen=True, slots=True)
class Attempt:
    """One run of the sampler within a fit.

    Attributes
    ----------
    settings : NutsSettings
        The settings of this run.
    sampler_seed : int
        The seed the sampler was given.
    passed : bool
        Whether every diagnostic check passed.
    failures : tuple of str
        The failed checks, described (e.g. ``divergences(sampler) = 2 (needs <= 0)``).
    stopping : mapping or None
        With a stopping rule (``draws="auto"``), its record (:meth:`StoppingRule.record`):
        the checkpoint, the cap, the draws kept, why it stopped, the targets, the values at
        stopping and each checkpoint looked at. None for a fixed number of draws.
    """

    settings: NutsSettings
    sampler_seed: int
    passed: bool
    failures: tuple[str, ...]
    stopping: Mapping[str, Any] | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """Return the attempt as plain values (JSON-ready)."""
        out = {
            **self.settings.to_dict(),
            "sampler_seed": self.sampler_seed,
            "passed": self.passed,
            "failures": list(self.failures),
        }
        if self.stopping is not None:
            out["stopping"] = dict(self.stopping)
        return out

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> Attempt:
        """Rebuild an attempt from :meth:`to_dict`."""
        settings = NutsSettings(
            draws=value["draws"],
            tune=value["tune"],
            chains=value["chains"],
            target_accept=value["target_accept"],
            checkpoint=value.get("checkpoint"),
        )
        return cls(
            settings,
            int(value["sampler_seed"]),
            bool(value["passed"]),
            tuple(value["failures"]),
            value.get("stopping"),
        )


def _sampler_checks_pass(diagnostics: Diagnostics) -> bool:
    """Whether every sampler check (R-hat, ESS, MCSE, divergences) of ``diagnostics`` passed."""
    return all(c.passed for c in diagnostics.checks if c.name in _SAMPLER_CHECKS)


def _headline(diagnostics: Diagnostics) -> dict[str, Any]:
    """Return the values the stopping rule compares with its targets (the worst of each)."""
    full = diagnostics.to_dict()
    mcse = [c.value for c in diagnostics.checks if c.name.startswith("mcse")]
    return {
        "r_hat_max": full["r_hat_max"],
        "ess_bulk_min": full["ess_bulk_min"],
        "ess_tail_min": full["ess_tail_min"],
        "mcse_max": float(np.max(mcse)) if mcse else None,
        "divergences": full["divergences"],
    }


class StoppingRule:
    """The decision at each checkpoint of a fit with ``draws="auto"``, and its record.

    Called with the ``posterior`` and ``sample_stats`` of the first n draws of each chain
    (:func:`~bayesjudge.inference.sampling.sample_nuts_until`), it returns True, "stop here",
    when

    * the sampler checks of :func:`~bayesjudge.inference.diagnostics.check_fit` (R-hat,
      bulk and tail ESS, the MCSE of the mean and of the interval bounds, divergences) pass
      on those draws, with the thresholds, variables and ``prob`` the fit's final check uses.
      They are run first on the sampled variables; when those pass, the draws are completed
      as the fit completes them (``complete``, with a copy of its random generator) and the
      same checks run on the completed posterior, as the final check will. The completed tree
      is kept (:attr:`completed`), so that the fit does not complete the same draws twice; or
    * a divergent transition occurred: more draws cannot remove it, and the fit's retry
      with smaller steps is what helps.

    The same seed gives the same draws at each checkpoint and so the same decisions.

    Parameters
    ----------
    complete : callable
        The fit's ``complete(tree, rng)``.
    rng : Generator
        The fit's random generator, at the state with which ``complete`` will be called
        (it is copied, never advanced).
    check_vars, mcse_vars : sequence of str, optional
        As in :func:`fit_model`.
    prob : float
        As in :func:`fit_model`.

    Examples
    --------
    >>> import xarray as xr
    >>> x = np.random.default_rng(0).normal(size=(4, 500))
    >>> trace = xr.DataTree.from_dict({
    ...     "posterior": xr.Dataset({"pi": (("chain", "draw"), x)}),
    ...     "sample_stats": xr.Dataset({"diverging": (("chain", "draw"), x < -9)})})
    >>> rule = StoppingRule(lambda tree, rng: tree, np.random.default_rng(1), prob=0.95)
    >>> rule(trace), rule.checkpoints[0]["met"]
    (True, True)
    """

    def __init__(
        self,
        complete: Callable[[xr.DataTree, np.random.Generator], xr.DataTree],
        rng: np.random.Generator,
        *,
        check_vars: Sequence[str] | None = None,
        mcse_vars: Sequence[str] | None = None,
        prob: float = 0.95,
    ) -> None:
        self._complete = complete
        self._rng = rng
        self._check_vars = None if check_vars is None else list(check_vars)
        self._mcse_vars = None if mcse_vars is None else list(mcse_vars)
        self._prob = prob
        #: Each checkpoint looked at: draws per chain, whether the targets were met, values.
        self.checkpoints: list[dict[str, Any]] = []
        #: At the checkpoint that stopped the run on met targets: the completed tree and the
        #: state of the random generator after completing it.
        self.completed: tuple[xr.DataTree, Mapping[str, Any]] | None = None

    def _check(self, tree: xr.DataTree, *, sampled_only: bool) -> Diagnostics:
        names, mcse = self._check_vars, self._mcse_vars
        if sampled_only:
            present = set(tree["posterior"].data_vars)
            names = sorted(present) if names is None else [v for v in names if v in present]
            if mcse is not None:
                mcse = [v for v in mcse if v in names]
        return check_fit(
            tree, var_names=names, mcse_var_names=mcse, prob=self._prob, predictive=False
        )

    def __call__(self, trace: xr.DataTree) -> bool:
        """Return whether to stop at these draws (see the class docstring)."""
        self.completed = None
        n = int(trace["posterior"].sizes["draw"])
        divergent = int(trace["sample_stats"]["diverging"].sum())
        if divergent > 0:
            self.checkpoints.append({"draws": n, "met": False, "divergences": divergent})
            return True
        diagnostics = self._check(trace, sampled_only=True)
        met = _sampler_checks_pass(diagnostics)
        if met:
            twin = copy.deepcopy(self._rng)
            tree = self._complete(trace, twin)
            diagnostics = self._check(tree, sampled_only=False)
            met = _sampler_checks_pass(diagnostics)
            if met:
                self.completed = (tree, twin.bit_generator.state)
        self.checkpoints.append({"draws": n, "met": met, **_headline(diagnostics)})
        return met

    def record(self, run: StoppedRun, settings: NutsSettings, final: Diagnostics) -> dict[str, Any]:
        """Return the rule's record of one attempt (JSON-ready).

        ``rule``, ``checkpoint``, ``max_draws`` (the cap), ``draws`` (kept per chain),
        ``stopped`` (``"targets met"``, ``"divergent transitions"``, ``"cap reached"``, or
        ``"fallback"`` with ``fallback`` saying why), ``targets`` (each sampler check's
        threshold), ``values`` (the final check's worst values, at stopping) and
        ``checkpoints`` (each one looked at).
        """
        if run.fallback is not None:
            stopped = "fallback"
        elif not run.stopped:
            stopped = "cap reached"
        elif self.checkpoints and self.checkpoints[-1]["met"]:
            stopped = "targets met"
        else:
            stopped = "divergent transitions"
        targets: dict[str, float] = {}
        for check in final.checks:
            if check.name in _SAMPLER_CHECKS:
                targets.setdefault(check.name, check.threshold)
        out: dict[str, Any] = {
            "rule": "stop at the first checkpoint where every sampler check passes",
            "checkpoint": settings.checkpoint,
            "max_draws": settings.draws,
            "draws": run.draws,
            "stopped": stopped,
            "targets": targets,
            "values": _headline(final),
            "checkpoints": list(self.checkpoints),
        }
        if run.fallback is not None:
            out["fallback"] = run.fallback
        return out


@dataclass(frozen=True, slots=True)
class ModelRun:
    """What a family hands to :func:`fit_model`: one model on one dataset.

    Attributes
    ----------
    name : str
        The model's name, recorded in ``attrs["model"]``.
    key : hashable
        What fixes the model's structure (priors, shapes, options): its key in the cache.
    build : callable
        Returns the ``pm.Model`` (called only on a cache miss).
    data : mapping of str to ndarray
        Values of the model's ``pm.Data`` containers for this dataset.
    priors : Priors
        The priors the model was built with (recorded in the attrs).
    start : mapping of str to ndarray, optional
        Where the chains start (jittered), in the unconstrained coordinates of the model's
        value variables: a family whose posterior can hold minor local modes starts at its
        mode (e.g. the panels). By default the sampler's own starting points.
    adaptation : {"diag", "low_rank"}, default "diag"
        Mass-matrix adaptation of the sampler
        (:func:`~bayesjudge.inference.sampling.sample_nuts`).
    """

    name: str
    key: Hashable
    build: Callable[[], Any]
    data: Mapping[str, np.ndarray]
    priors: Priors
    start: Mapping[str, np.ndarray] | None = None
    adaptation: Adaptation = "diag"


def fit_model(
    run: ModelRun,
    *,
    settings: NutsSettings,
    complete: Callable[[xr.DataTree, np.random.Generator], xr.DataTree],
    random_seed: int | np.random.Generator | None,
    sampler: Sampler = "auto",
    progressbar: bool | None = None,
    escalate: bool = True,
    prob: float = 0.95,
    check_vars: Sequence[str] | None = None,
    mcse_vars: Sequence[str] | None = None,
    predictive_check: bool = True,
    family_checks: Callable[[xr.DataTree], Sequence[Check]] | None = None,
    attrs: Mapping[str, Any] | None = None,
) -> xr.DataTree:
    """Sample a model, complete and check the posterior, escalate once if the sampler failed.

    See the module docstring for the steps. The same integer seed gives the same tree.

    Parameters
    ----------
    run : ModelRun
        The model and the data.
    settings : NutsSettings
        Sampler settings of the first attempt.
    complete : callable
        ``complete(tree, rng)`` takes the sampled tree (``posterior``, ``sample_stats``) and
        returns the full one (derived draws, ``posterior_predictive``, ``observed_data``,
        ``constant_data``), drawing anything random from ``rng``.
    random_seed : int, Generator or None
        Seed of the sampler and of every random draw (None: the default seed).
    sampler : {"auto", "nutpie", "pymc"}
        ``"auto"`` uses nutpie when installed; what was used, and why, is recorded.
    progressbar : bool, optional
        Show the sampler's progress bar; by default only when stderr is a terminal, and
        otherwise, within :func:`~bayesjudge.inference.progress.progress_lines` (as under the
        command line), a progress line with the time left every few seconds.
    escalate : bool, default True
        Refit once when a sampler check fails, with the settings of :func:`retry_settings`.
    prob : float, default 0.95
        Mass of the interval whose bounds' Monte Carlo error is checked.
    check_vars, mcse_vars : sequence of str, optional
        Variables checked (all by default) and those whose MCSE is checked (the reported
        quantities; ``check_vars`` by default).
    predictive_check : bool, default True
        Run the posterior predictive checks of the observed counts (off only where the fit
        of the model to the data is itself the question being asked).
    family_checks : callable, optional
        ``family_checks(tree)`` returns further checks of the completed tree (a family's own
        posterior predictive check, with its own threshold), added to the diagnostics; with
        ``predictive_check=False`` they are not run.
    attrs : mapping, optional
        Family-specific attrs to record (counts, options).

    Returns
    -------
    DataTree
        The completed tree with root attrs ``bayesjudge_version``, ``versions``, ``seed``,
        ``command`` (from the command line), ``model``, ``priors``, ``prior_<name>``,
        ``sampler``, ``sampler_note``, ``adaptation``, ``draws``, ``tune``, ``chains``,
        ``target_accept``,
        ``sampler_seed`` (of the final attempt), ``attempts``, ``diagnostics``,
        ``diagnostics_passed``, ``diagnostics_failures`` and ``attrs``; with a stopping rule
        (``settings.checkpoint``, ``draws="auto"``) also ``checkpoint``, ``draws_kept``
        (per chain) and ``stopping_rule`` (JSON: :meth:`StoppingRule.record` of the final
        attempt), and ``draws`` is then the cap.

    Warns
    -----
    FitWarning
        When the final attempt fails a check.
    """
    prob = check_prob(prob)
    rng = seed_stream(random_seed, "sampler")
    used, note = resolve_sampler(sampler)
    show = progressbar_default(progressbar)
    lines = line_stream(progressbar, terminal=show)
    attempts: list[Attempt] = []
    current = settings
    while True:
        seed = draw_sampler_seed(rng)
        sampling: dict[str, Any] = {
            "draws": current.draws,
            "tune": current.tune,
            "chains": current.chains,
            "seed": seed,
            "progressbar": show,
            "target_accept": current.target_accept,
            "sampler": used,
            "start": run.start,
            "adaptation": run.adaptation,
            "progress_lines": lines,
        }
        rule: StoppingRule | None = None
        stopped: StoppedRun | None = None
        if current.checkpoint is None:
            tree = complete(
                sample_nuts(model_cache(), run.key, run.build, run.data, **sampling), rng
            )
        else:
            rule = StoppingRule(
                complete, rng, check_vars=check_vars, mcse_vars=mcse_vars, prob=prob
            )
            stopped = sample_nuts_until(
                model_cache(),
                run.key,
                run.build,
                run.data,
                decide=rule,
                checkpoint=current.checkpoint,
                **sampling,
            )
            if stopped.stopped and rule.completed is not None:
                tree, state = rule.completed  # these draws, completed as below
                rng.bit_generator.state = state
            else:
                tree = complete(stopped.tree, rng)
        diagnostics = check_fit(
            tree,
            var_names=check_vars,
            mcse_var_names=mcse_vars,
            prob=prob,
            predictive=predictive_check,
        )
        if family_checks is not None and predictive_check:
            extra = tuple(family_checks(tree))
            diagnostics = Diagnostics((*diagnostics.checks, *extra), diagnostics.prob)
        attempts.append(
            Attempt(
                current,
                seed,
                diagnostics.passed,
                tuple(c.describe() for c in diagnostics.failures),
                None
                if rule is None or stopped is None
                else rule.record(stopped, current, diagnostics),
            )
        )
        retry = (
            escalate
            and len(attempts) == 1
            and not diagnostics.passed
            and any(c.name in _SAMPLER_CHECKS for c in diagnostics.failures)
        )
        if not retry:
            break
        current = retry_settings(current, diagnostics.failures)
    tree.attrs.update(provenance_attrs(random_seed))
    tree.attrs.update(
        {
            "model": run.name,
            "priors": json.dumps(run.priors.as_dict()),
            **{f"prior_{name}": text for name, text in run.priors.as_dict().items()},
            "sampler": used,
            "sampler_note": note,
            "adaptation": run.adaptation,
            **current.to_dict(),
            "sampler_seed": attempts[-1].sampler_seed,
            "attempts": json.dumps([a.to_dict() for a in attempts]),
            "diagnostics": json.dumps(diagnostics.to_dict()),
            "diagnostics_passed": diagnostics.passed,
            "diagnostics_failures": json.dumps([c.label for c in diagnostics.failures]),
            **(attrs or {}),
        }
    )
    if attempts[-1].stopping is not None:
        tree.attrs["draws_kept"] = int(attempts[-1].stopping["draws"])
        tree.attrs["stopping_rule"] = json.dumps(attempts[-1].stopping)
    if not diagnostics.passed:
        warnings.warn(_failure_message(run.name, attempts, diagnostics), FitWarning, stacklevel=3)
    return tree


def _failure_message(name: str, attempts: list[Attempt], diagnostics: Diagnostics) -> str:
    last = attempts[-1].settings
    tried = (
        f" after a retry with target_accept={last.target_accept:g}, tune={last.tune}, "
        f"draws={last.draws}"
        if len(attempts) > 1
        else ""
    )
    advice = []
    names = {c.name for c in diagnostics.failures}
    if names & _SAMPLER_CHECKS and "divergences" not in names:
        advice.append(
            "the chains mix slowly (no divergent transitions): run more draws (--draws) and "
            "longer tuning (--tune)"
        )
    elif names & _SAMPLER_CHECKS:
        advice.append(
            "the sampler struggled: try a higher target_accept (--target-accept 0.995), more "
            "tuning (--tune) and more draws (--draws)"
        )
    if "ppc_tail_prob" in names:
        advice.append(
            "the model cannot reproduce an observed count: check the data (e.g. a calibration "
            "set where the judge is worse than chance) and the priors"
        )
    failures = diagnostics.failures
    shown = "; ".join(c.describe() for c in failures[:_SHOWN_FAILURES])
    if len(failures) > _SHOWN_FAILURES:
        shown += f"; and {len(failures) - _SHOWN_FAILURES} more"
    return (
        f"the {name} fit failed {len(failures)} diagnostic check(s){tried}: {shown}. "
        f"{'; '.join(advice)}."
    )


def diagnostics_of(tree: xr.DataTree) -> Diagnostics:
    """Return the diagnostics recorded in a fit's attrs by :func:`fit_model`.

    Raises
    ------
    ValueError
        If the tree was not made by a bayesjudge fit function.
    """
    text = tree.attrs.get("diagnostics")
    if not isinstance(text, str):
        raise ValueError("this tree carries no recorded diagnostics; run check_fit on it instead")
    return Diagnostics.from_dict(json.loads(text))


def attempts_of(tree: xr.DataTree) -> tuple[Attempt, ...]:
    """Return the sampler attempts recorded in a fit's attrs (one, or two after escalation)."""
    text = tree.attrs.get("attempts")
    if not isinstance(text, str):
        return ()
    return tuple(Attempt.from_dict(a) for a in json.loads(text))
