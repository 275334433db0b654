r"""Fit the systems models: validated data -> cached model -> NUTS -> checked, recorded posterior.

:func:`fit_systems` chooses the model from the design and fits it through the one fitting path
of :func:`bayesjudge.inference.fit.fit_model` (model cache, seed rule, diagnostics, one
escalation, provenance):

* two systems on paired items: :func:`bayesjudge.models.systems.two_system_model` (the four
  joint true outcomes of an item, Dirichlet prior);
* three or more systems on paired items: :func:`bayesjudge.models.systems.irt_model` (a Rasch
  item difficulty integrated out by quadrature);
* unpaired designs: :func:`bayesjudge.models.systems.systems_model` (one success rate per
  system, the six counts of each).

The judge is ``"shared"`` (one Se and Sp) or ``"system"`` (each system's Se and Sp: partially
pooled around shared ones for three or more systems, each with its own Beta priors for two,
``pooling=``); ``"auto"`` (the default) takes the system-specific judge when two or more
systems carry gold labels of both classes, since only then can the data say whether the judge
treats them differently, and the shared judge otherwise.

Every fit carries a posterior predictive check: the unpaired model replicates its six counts
per system, the paired models the joint verdict cells of every pair of systems and the judged
gold answers (:mod:`bayesjudge.systems.predictive`); beside the per-count checks, the family
tests of :func:`bayesjudge.systems.predictive.systems_predictive_check` (each pair's table,
the gold rates of all systems) are among the diagnostics and recorded in the root attr
``predictive_check``.

The cell models' data are ``pm.Data`` padded to a power of two (:meth:`Patterns.padded
<bayesjudge.systems.data.Patterns.padded>`), so refits on new data of the same padded size
reuse the compiled model; the system names are set on the posterior afterwards.
"""

from __future__ import annotations

import json
from typing import Any, Literal, get_args

import numpy as np
import xarray as xr

from bayesjudge._docstring import SAMPLER_PARAMETERS, fill_doc
from bayesjudge.errors import DataError
from bayesjudge.inference import defaults
from bayesjudge.inference.cache import bucket_size
from bayesjudge.inference.fit import Draws, ModelRun, NutsSettings, fit_model
from bayesjudge.inference.ppc import TablePredictiveCheck
from bayesjudge.inference.predictive import predictive_counts
from bayesjudge.inference.sampling import Sampler
from bayesjudge.priors import SystemsPriors
from bayesjudge.systems.data import SystemsData
from bayesjudge.systems.predictive import (
    PairedModel,
    pair_verdicts,
    paired_predictive,
    systems_predictive_check,
)
from bayesjudge.validation import check_choice

__all__ = [
    "CALIBRATIONS",
    "JUDGE_CHOICES",
    "MAX_SYSTEMS",
    "POOLING_CHOICES",
    "Calibration",
    "JudgeChoice",
    "PoolingChoice",
    "choose_judge",
    "choose_pooling",
    "fit_systems",
    "model_kind",
    "model_run",
]

JudgeChoice = Literal["auto", "shared", "system"]
Calibration = Literal["by_class", "random"]
PoolingChoice = Literal["auto", "partial", "none"]
#: The judge options of :func:`fit_systems`.
JUDGE_CHOICES: tuple[str, ...] = get_args(JudgeChoice)
#: The pooling options of a system-specific judge (:func:`fit_systems`).
POOLING_CHOICES: tuple[str, ...] = get_args(PoolingChoice)
#: What the gold-labelled answers are assumed to be (see :mod:`bayesjudge.models.systems`).
CALIBRATIONS: tuple[str, ...] = get_args(Calibration)
#: Default NUTS target acceptance (the pooled judge has a funnel; the shared one is easy).
TARGET_ACCEPT = defaults.SYSTEMS_TARGET_ACCEPT
#: Posterior variables whose Monte Carlo error is checked (the quantities reported).
REPORTED = ("pi", "se", "sp", "diff")
#: The most systems fitted and ranked together. The comparisons grow as the square of the
#: number of systems S: S (S - 1) / 2 pairs, each with its posterior difference over every draw
#: (19,900 pairs and 1.3 GB of differences at 200 systems and 8,000 draws), and the rank
#: probabilities are S x S per system; 10^5 systems asked the sampler for more than it holds.
MAX_SYSTEMS = 200


def choose_judge(data: SystemsData, judge: JudgeChoice = "auto") -> Literal["shared", "system"]:
    """Return the judge model ``judge`` stands for on ``data``.

    ``"auto"`` is ``"system"`` when at least two systems have gold-PASS and gold-FAIL answers
    (then how the judge treats each is estimable), else ``"shared"``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"system": ["a", "a", "a", "b"], "label": [1, 0, None, None],
    ...                       "verdict": [1, 0, 1, 0]})
    >>> choose_judge(SystemsData.from_frame(frame))
    'shared'
    """
    check_choice(judge, name="judge", allowed=JUDGE_CHOICES)
    if judge != "auto":
        return judge
    counts = data.system_counts()
    calibrated = int(np.sum((counts.m1 > 0) & (counts.m0 > 0)))
    return "system" if calibrated >= 2 else "shared"


def choose_pooling(data: SystemsData, judge: str, pooling: PoolingChoice = "auto") -> str:
    """Return the pooling of the judge model ``judge`` on ``data`` (``""`` for a shared judge).

    ``"auto"`` is ``"none"`` for two systems that both have gold-PASS and gold-FAIL answers and
    ``"partial"`` otherwise (:func:`bayesjudge.models.systems.resolve_pooling`; without
    pooling a system lacking gold labels of a class would keep the prior of its judge).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"system": list("aaabbb"), "label": [1, 0, None] * 2,
    ...                       "verdict": [1, 0, 1, 1, 1, 0]})
    >>> choose_pooling(SystemsData.from_frame(frame), "system")
    'none'
    """
    from bayesjudge.models.systems import resolve_pooling

    check_choice(pooling, name="pooling", allowed=POOLING_CHOICES)
    pooled = resolve_pooling(None if pooling == "auto" else pooling, judge, len(data.systems))
    if pooling == "auto" and pooled == "none":
        gold = data.system_counts()
        if not np.all((gold.m1 > 0) & (gold.m0 > 0)):
            return "partial"  # a system without gold labels of a class borrows the other's judge
    return pooled


def model_kind(data: SystemsData) -> str:
    """Return which systems model fits ``data``: its name in a fit's ``model_kind`` attr.

    ``"systems"`` for unpaired data (per-system counts), ``"two_system"`` for two systems
    judged on the same items, ``"systems_irt"`` for more than two.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"system": list("AABB"), "item": ["1", "2"] * 2,
    ...                       "verdict": [1, 0, 0, 1], "label": [1, None, 0, None]})
    >>> model_kind(SystemsData.from_frame(frame))
    'two_system'
    """
    if not data.paired:
        return "systems"
    return "two_system" if len(data.systems) == 2 else "systems_irt"


def model_run(
    data: SystemsData,
    *,
    judge: str,
    pooling: str | None,
    calibration: str,
    priors: SystemsPriors,
    restrict_j: bool,
) -> tuple[ModelRun, dict[str, np.ndarray]]:
    """Return the model of ``data`` (of :func:`model_kind`) as a run of the shared sampler.

    The same run :func:`fit_systems` samples: rebuilding it from a fit's attrs gives the
    fitted model again (as :func:`bayesjudge.systems.average.log_marginal_of_fit` does).

    Parameters
    ----------
    data : SystemsData
    judge : {"shared", "system"}
        The judge model (resolved, as :func:`choose_judge` returns it).
    pooling : str or None
        The pooling of per-system judges (resolved, as :func:`choose_pooling` returns it).
    calibration : {"by_class", "random"}
    priors : SystemsPriors
    restrict_j : bool
        Whether each judge is restricted to Youden's :math:`J > 0`.

    Returns
    -------
    run : ModelRun
        The model builder, its cache key and its data.
    counts : dict of ndarray
        The per-system counts of unpaired data (``n``, ``k``, ``m1``, ``x1``, ``m0``,
        ``x0``); empty for paired data.
    """
    from bayesjudge.models import systems as models

    kind = model_kind(data)
    n_systems = len(data.systems)
    if kind == "systems":
        counts = data.system_counts()
        arrays = {k: v.astype(np.int64) for k, v in counts.as_dict().items()}
        model_data = {
            "m1": arrays["m1"],
            "x1_obs": arrays["x1"],
            "m0": arrays["m0"],
            "x0_obs": arrays["x0"],
            "n": arrays["n"],
            "k_obs": arrays["k"],
        }
        key: tuple[Any, ...] = (kind, judge, pooling, calibration, restrict_j, priors, n_systems)
        return (
            ModelRun(
                models.SYSTEMS,
                key,
                lambda: models.systems_model(
                    counts,
                    priors=priors,
                    judge=judge,
                    pooling=pooling,
                    calibration=calibration,
                    restrict_j=restrict_j,
                ),
                model_data,
                priors,
            ),
            arrays,
        )
    patterns = data.patterns()
    size = bucket_size(patterns.count.size)
    cells = patterns.padded(size)
    key = (kind, judge, pooling, calibration, restrict_j, priors, n_systems, size)
    paired = models.two_system_model if kind == "two_system" else models.irt_model
    name = models.TWO_SYSTEM if kind == "two_system" else models.IRT

    def build() -> Any:
        return paired(
            patterns,
            priors=priors,
            judge=judge,
            pooling=pooling,
            calibration=calibration,
            restrict_j=restrict_j,
            size=size,
        )

    return ModelRun(name, key, build, cells, priors), {}


@fill_doc(sampler_parameters=SAMPLER_PARAMETERS)
def fit_systems(
    data: SystemsData,
    *,
    judge: JudgeChoice = "auto",
    pooling: PoolingChoice = "auto",
    calibration: Calibration = "by_class",
    priors: SystemsPriors | None = None,
    restrict_j: bool = True,
    draws: Draws = 2000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    progressbar: bool | None = None,
    sampler: Sampler = "auto",
    escalate: bool = True,
    prob: float = 0.95,
) -> xr.DataTree:
    r"""Sample the posterior of every system's true success rate under one imperfect judge.

    The model follows the design (module docstring): paired two-system Dirichlet model,
    paired many-system Rasch model, or unpaired per-system model, each with the judge's
    :math:`\mathrm{Se}, \mathrm{Sp}` shared or system-specific and restricted to
    :math:`J > 0` (Rogan and Gladen 1978; Rasch 1960). The posterior is checked
    (:func:`bayesjudge.check_fit`) and a fit whose sampler struggled is retried once
    (:func:`bayesjudge.inference.fit.fit_model`).

    Parameters
    ----------
    data : SystemsData
        Validated data of two or more systems.
    judge : {"auto", "shared", "system"}
        The judge model (see :func:`choose_judge`).
    pooling : {"auto", "partial", "none"}
        How a system-specific judge's rates are tied together: ``"partial"``, normal on the
        logit scale around shared values with the ``judge_sigma`` spread; ``"none"``, each
        system's Se and Sp with the ``se`` and ``sp`` Beta priors of their own. ``"auto"``
        (default) is ``"none"`` for two systems that both have gold labels of both classes
        (their spread only the prior could set) and ``"partial"`` otherwise: with three or more
        systems, or when a system's judge must be borrowed from the other's
        (:func:`choose_pooling`). Ignored for a shared judge.
    calibration : {"by_class", "random"}
        ``"by_class"`` (default): only :math:`P(\text{verdict} \mid \text{label})` is assumed
        to transfer from the gold-labelled answers, which may have been chosen by class;
        ``"random"``: they are a random sample and inform the success rates too.
    priors : SystemsPriors, optional
        The priors (defaults in :class:`bayesjudge.priors.SystemsPriors`).
    restrict_j : bool, default True
        Condition the judge's prior on :math:`J > 0`.
    %(sampler_parameters)s

    Returns
    -------
    DataTree
        ``posterior`` with ``pi``, ``se``, ``sp``, ``j``, ``judged_rate``, ``bias`` (dims
        ``system`` where they vary), ``diff`` for the two-system model, ``se_shared``,
        ``sp_shared``, ``sigma_se`` and ``sigma_sp`` for a system-specific judge;
        ``sample_stats``; ``posterior_predictive``,
        ``observed_data`` and ``constant_data``: for the unpaired model the six counts per
        system, for the paired models the joint verdict cells of every pair of systems and the
        judged gold answers (:mod:`bayesjudge.systems.predictive`), each observed count
        checked against its replicates. Root attrs as recorded by
        :func:`~bayesjudge.inference.fit.fit_model`, plus
        ``model_kind``, ``judge``, ``pooling`` (empty for a shared judge), ``calibration``,
        ``restrict_j``, ``systems`` and ``paired``.

    Raises
    ------
    DataError
        With more than :data:`MAX_SYSTEMS` systems, before anything is allocated.
    ValueError
        On an unknown ``judge``, ``calibration`` or ``sampler``, or sampler settings out of
        range.

    Warns
    -----
    FitWarning
        When a diagnostic check still fails after the retry.

    Examples
    --------
    >>> from bayesjudge.systems.simulate import simulate_systems
    >>> sim = simulate_systems([0.6, 0.75], n_unlabelled=300, n_labelled=60, se=0.9,
    ...                        sp=0.85, random_seed=3)
    >>> tree = fit_systems(SystemsData.from_frame(sim.frame), random_seed=1,
    ...                    progressbar=False)  # doctest: +SKIP
    >>> tree.attrs["model"]  # doctest: +SKIP
    'two_system'
    """
    if not isinstance(data, SystemsData):
        raise TypeError(f"data must be SystemsData; got {type(data).__name__}")
    if len(data.systems) > MAX_SYSTEMS:
        raise DataError(
            f"the systems model fits and ranks at most {MAX_SYSTEMS} systems together (its "
            f"pairwise comparisons grow as the square of their number); the data have "
            f"{len(data.systems)} systems"
        )
    check_choice(calibration, name="calibration", allowed=CALIBRATIONS)
    chosen = choose_judge(data, judge)
    pooled = choose_pooling(data, chosen, pooling)
    priors = SystemsPriors() if priors is None else priors
    if not isinstance(priors, SystemsPriors):
        raise TypeError(f"priors must be a SystemsPriors; got {type(priors).__name__}")
    settings = NutsSettings.of(draws, tune, chains, target_accept, TARGET_ACCEPT)
    kind = model_kind(data)
    run, counts = model_run(
        data,
        judge=chosen,
        pooling=pooled or None,
        calibration=calibration,
        priors=priors,
        restrict_j=bool(restrict_j),
    )
    systems = list(data.systems)
    latest: list[TablePredictiveCheck] = []

    def complete(trace: xr.DataTree, rng: np.random.Generator) -> xr.DataTree:
        posterior = trace["posterior"].to_dataset()
        posterior = posterior.drop_vars(
            [v for v in posterior.data_vars if "cell" in posterior[v].dims]
        )
        if "system" in posterior.dims:
            posterior = posterior.assign_coords(system=systems)
        groups: dict[str, xr.Dataset] = {
            "posterior": posterior,
            "sample_stats": trace["sample_stats"].to_dataset(),
        }
        if counts:
            coords = {"system": systems}
            rate = posterior["judged_rate"]
            # a shared judge's se and sp have no system dim: broadcast them to the rate's dims
            se, sp, _ = xr.broadcast(posterior["se"], posterior["sp"], rate)
            groups["posterior_predictive"] = predictive_counts(
                {
                    "x1": (counts["m1"], se.transpose(*rate.dims)),
                    "x0": (counts["m0"], 1.0 - sp.transpose(*rate.dims)),
                    "k": (counts["n"], rate),
                },
                rng,
            )
            groups["observed_data"] = xr.Dataset(
                {name: ("system", counts[name]) for name in ("x1", "x0", "k")}, coords=coords
            )
            groups["constant_data"] = xr.Dataset(
                {name: ("system", counts[name]) for name in ("m1", "m0", "n")}, coords=coords
            )
            check = systems_predictive_check(
                posterior,
                systems=systems,
                m1=counts["m1"],
                x1=counts["x1"],
                m0=counts["m0"],
                x0=counts["x0"],
                random_seed=rng,
            )
        else:
            model: PairedModel = "two_system" if kind == "two_system" else "systems_irt"
            pairs = pair_verdicts(data.patterns())
            groups.update(paired_predictive(posterior, pairs, model=model, rng=rng))
            check = systems_predictive_check(
                posterior,
                systems=systems,
                m1=pairs.m1,
                x1=pairs.x1,
                m0=pairs.m0,
                x0=pairs.x0,
                pairs=pairs,
                model=model,
                random_seed=rng,
            )
        tree = xr.DataTree.from_dict(groups)
        latest[:] = [check]
        tree.attrs["predictive_check"] = json.dumps(check.to_dict())
        return tree

    checked = ["pi", "se", "sp", "j"]
    if kind == "two_system":
        checked.append("diff")
    if chosen == "system":
        checked += ["se_shared", "sp_shared"]
    attrs: dict[str, Any] = {
        "model_kind": kind,
        "judge": chosen,
        "pooling": pooled,
        "calibration": calibration,
        "restrict_j": bool(restrict_j),
        "systems": json.dumps(systems),
        "paired": bool(data.paired),
    }
    return fit_model(
        run,
        settings=settings,
        complete=complete,
        random_seed=random_seed,
        sampler=sampler,
        progressbar=progressbar,
        escalate=escalate,
        prob=prob,
        check_vars=checked,
        mcse_vars=[v for v in checked if v in REPORTED],
        family_checks=lambda _: latest[0].checks(),
        attrs=attrs,
    )
