r"""Posterior predictive check of the paired systems models: the joint verdicts of each pair.

The paired models (:func:`bayesjudge.models.systems.two_system_model` and
:func:`~bayesjudge.models.systems.irt_model`) see the data as cells of per-system states. Their
predictive check looks at what an imperfect judge's verdicts can show about the joint outcomes:

* for every pair of systems :math:`(s, t)`, the four **joint verdict cells**
  :math:`n_{st}(v, w)`, :math:`v, w \in \{0, 1\}`: the number of items both systems answered,
  neither with a gold label (no answer of the item carries one), on which the judge gave
  :math:`s` verdict :math:`v` and :math:`t` verdict :math:`w` (coordinate ``verdict_pair``:
  ``fail_fail``, ``fail_pass``, ``pass_fail``, ``pass_pass``, first word system :math:`s`);
* for every system, the gold-labelled answers the judge passed, :math:`x_{1s}` of
  :math:`m_{1s}` gold-PASS and :math:`x_{0s}` of :math:`m_{0s}` gold-FAIL answers (as in the
  unpaired model).

With :math:`M_s(v, y) = P(v \mid y, s)` (:math:`M_s(1, 1) = \mathrm{Se}_s`,
:math:`M_s(1, 0) = 1 - \mathrm{Sp}_s`), the cell probabilities at a posterior draw are, for the
two-system model with joint outcome probabilities :math:`\theta_{ab}`,

.. math:: q(v, w) = \sum_{a, b} M_A(v, a)\,\theta_{ab}\,M_B(w, b),

and for the item-response model, with :math:`r_s(z) = p_s(z)\,\mathrm{Se}_s + (1 - p_s(z))(1 -
\mathrm{Sp}_s)` the judge's pass probability at difficulty :math:`z` and the model's
Gauss-Hermite rule :math:`(z_k, w_k)`,

.. math:: q_{st}(1, 1) = \sum_k w_k\, r_s(z_k)\, r_t(z_k)

(and likewise with :math:`1 - r` for a FAIL). An item without gold labels has these
probabilities under both calibrations (its likelihood is not divided by anything), and a gold
label of one system fixes that system's verdict law to :math:`M_s(\cdot, y)` whatever the
others did, so the replicated data are, per posterior draw,
:math:`n^{rep}_{st} \sim \mathrm{Multinomial}(N_{st}, q_{st})` for each pair (each pair's
table drawn from its own predictive law) and
:math:`x^{rep}_{1s} \sim \mathrm{Bin}(m_{1s}, \mathrm{Se}_s)`,
:math:`x^{rep}_{0s} \sim \mathrm{Bin}(m_{0s}, 1 - \mathrm{Sp}_s)`.
:func:`bayesjudge.check_fit` then compares every observed count with its replicates (the
two-sided tail probability of :func:`bayesjudge.inference.diagnostics.ppc_tail_probability`).

What it catches: the verdict cells of a pair are a point of the simplex image of the outcome
cells under :math:`M_s \otimes M_t`; when the gold labels pin the judge down, verdicts outside
that image (say, almost only discordant verdicts from a judge whose errors would make a
quarter of them concordant) cannot be reproduced, nor can, for the item-response model, verdicts
of two systems that disagree more often than independent ones would (one shared item
difficulty only makes outcomes positively associated). Pairwise tables are the
limited-information check of such models (Maydeu-Olivares and Joe, "Limited- and
full-information estimation and goodness-of-fit testing in 2^n contingency tables: a unified
framework", 2005); with :math:`S` systems there are :math:`4 S (S - 1) / 2 + 2 S` counts, each
checked at the same threshold, so the chance that some check fails on data the model generated
grows with :math:`S`.

**The family tests.** Beside these per-count checks, :func:`systems_predictive_check` tests
each pair's table as a whole and the judge's gold rates of all systems together (the realised
Pearson discrepancy of :mod:`bayesjudge.inference.ppc`, Bonferroni over the families, so its
false-alarm rate stays near 5 % however many systems there are), for every systems fit, paired
or not. Its result is recorded on the fit (root attr ``predictive_check``), shown in the JSON
``diagnostics`` and its tests are among the diagnostics. With one judge for all systems the
gold-rate family is the test that the judge treats the systems alike (a chi-square of the
judge's rates across systems): a judge whose specificity is 0.75 on one system and 0.95 on
another, fitted as one judge, fails it (``tests/systems/test_predictive.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal, get_args

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from bayesjudge.inference.ppc import (
    MAX_CHECK_DRAWS,
    PPC_LEVEL,
    CountFamily,
    TablePredictiveCheck,
    count_table_check,
)
from bayesjudge.inference.predictive import predictive_counts
from bayesjudge.systems.data import (
    GOLD_FAIL_JUDGED_FAIL,
    GOLD_FAIL_JUDGED_PASS,
    GOLD_PASS_JUDGED_FAIL,
    GOLD_PASS_JUDGED_PASS,
    UNLABELLED_FAIL,
    UNLABELLED_PASS,
    Patterns,
)
from bayesjudge.systems.irt import normal_quadrature

__all__ = [
    "VERDICT_PAIRS",
    "PairVerdicts",
    "irt_verdict_probabilities",
    "pair_verdicts",
    "paired_predictive",
    "systems_predictive_check",
    "two_system_verdict_probabilities",
]

#: The joint verdicts of a pair of systems (first word: the pair's first system).
VERDICT_PAIRS = ("fail_fail", "fail_pass", "pass_fail", "pass_pass")

PairedModel = Literal["two_system", "systems_irt"]
PAIRED_MODELS: tuple[str, ...] = get_args(PairedModel)


@dataclass(frozen=True, slots=True)
class PairVerdicts:
    """Observed counts of the paired predictive check.

    Attributes
    ----------
    systems : tuple of str
    pairs : tuple of (int, int)
        Positions of the two systems of each pair, in :func:`itertools.combinations` order.
    tables : ndarray of int64, shape (pairs, 4)
        Joint verdict cells of each pair among items without gold labels, in the order of
        :data:`VERDICT_PAIRS`.
    m1, x1, m0, x0 : ndarray of int64, shape (systems,)
        Gold-PASS answers and how many the judge passed; gold-FAIL answers and how many the
        judge passed.
    """

    systems: tuple[str, ...]
    pairs: tuple[tuple[int, int], ...]
    tables: NDArray[np.int64]
    m1: NDArray[np.int64]
    x1: NDArray[np.int64]
    m0: NDArray[np.int64]
    x0: NDArray[np.int64]

    @property
    def pair_names(self) -> tuple[str, ...]:
        """Pair labels ``"A|B"`` (coordinate ``pair``)."""
        return tuple(f"{self.systems[s]}|{self.systems[t]}" for s, t in self.pairs)


def pair_verdicts(patterns: Patterns) -> PairVerdicts:
    """Count the joint verdicts of every pair of systems and the judged gold answers.

    Parameters
    ----------
    patterns : Patterns
        Cells of two or more systems (:meth:`SystemsData.patterns
        <bayesjudge.systems.data.SystemsData.patterns>`).

    Returns
    -------
    PairVerdicts

    Examples
    --------
    >>> cells = Patterns(("a", "b"), np.array([[1, 2], [2, 2], [6, 1]], np.int8),
    ...                  np.array([3, 5, 2]))
    >>> v = pair_verdicts(cells)
    >>> v.tables.tolist(), v.m1.tolist(), v.x1.tolist()
    ([[0, 3, 0, 5]], [2, 0], [2, 0])
    """
    if not isinstance(patterns, Patterns):
        raise TypeError(f"patterns must be Patterns; got {type(patterns).__name__}")
    state = patterns.state.astype(np.int64)
    count = patterns.count.astype(np.int64)
    n_systems = state.shape[1]
    unlabelled = (state == UNLABELLED_FAIL) | (state == UNLABELLED_PASS)
    gold = state >= GOLD_FAIL_JUDGED_FAIL
    no_gold = ~gold.any(axis=1)
    passed = (state == UNLABELLED_PASS).astype(np.int64)
    pairs = tuple(combinations(range(n_systems), 2))
    tables = np.zeros((len(pairs), 4), dtype=np.int64)
    for p, (s, t) in enumerate(pairs):
        rows = no_gold & unlabelled[:, s] & unlabelled[:, t]
        cell = 2 * passed[rows, s] + passed[rows, t]
        tables[p] = np.bincount(cell, weights=count[rows], minlength=4).astype(np.int64)

    def tally(*codes: int) -> NDArray[np.int64]:
        return (np.isin(state, codes) * count[:, None]).sum(axis=0).astype(np.int64)

    return PairVerdicts(
        systems=tuple(patterns.systems),
        pairs=pairs,
        tables=tables,
        m1=tally(GOLD_PASS_JUDGED_FAIL, GOLD_PASS_JUDGED_PASS),
        x1=tally(GOLD_PASS_JUDGED_PASS),
        m0=tally(GOLD_FAIL_JUDGED_FAIL, GOLD_FAIL_JUDGED_PASS),
        x0=tally(GOLD_FAIL_JUDGED_PASS),
    )


def _per_system(value: ArrayLike, batch: tuple[int, ...], n_systems: int) -> NDArray[np.float64]:
    """Return a judge rate with shape ``batch + (systems,)``.

    A shared rate (shape ``batch``) is repeated for every system; a per-system one is kept.
    """
    arr = np.asarray(value, dtype=float)
    if arr.ndim == len(batch):
        arr = arr[..., None]
    return np.broadcast_to(arr, (*batch, n_systems))


def _judge_matrix(se: NDArray[np.float64], sp: NDArray[np.float64]) -> NDArray[np.float64]:
    """M[..., s, v, y] = P(verdict v | outcome y) for each system."""
    given_fail = np.stack([sp, 1.0 - sp], axis=-1)  # (..., s, v)
    given_pass = np.stack([1.0 - se, se], axis=-1)
    return np.stack([given_fail, given_pass], axis=-1)


def two_system_verdict_probabilities(
    joint: ArrayLike, *, se: ArrayLike, sp: ArrayLike
) -> NDArray[np.float64]:
    r"""Joint verdict probabilities of the two-system model, :math:`q = M_A \theta M_B^T`.

    Parameters
    ----------
    joint : array_like, shape (..., 4)
        :math:`\theta` in the order of :data:`bayesjudge.models.systems.OUTCOMES`.
    se, sp : array_like, shape (...) or (..., 2)
        The judge's rates: one for both systems, or one per system.

    Returns
    -------
    ndarray, shape (..., 1, 4)
        Cell probabilities of the one pair, in the order of :data:`VERDICT_PAIRS`.

    Examples
    --------
    >>> q = two_system_verdict_probabilities([0.0, 1.0, 0.0, 0.0], se=0.9, sp=0.8)
    >>> q.round(2).tolist()
    [[0.08, 0.72, 0.02, 0.18]]
    """
    theta = np.asarray(joint, dtype=float)
    batch = theta.shape[:-1]
    m = _judge_matrix(_per_system(se, batch, 2), _per_system(sp, batch, 2))
    theta = theta.reshape(*theta.shape[:-1], 2, 2)
    q = np.einsum("...va,...ab,...wb->...vw", m[..., 0, :, :], theta, m[..., 1, :, :])
    return q.reshape(*q.shape[:-2], 1, 4)


def irt_verdict_probabilities(
    ability: ArrayLike,
    *,
    difficulty_sd: ArrayLike,
    se: ArrayLike,
    sp: ArrayLike,
    nodes: int = 32,
) -> NDArray[np.float64]:
    r"""Joint verdict probabilities of every pair under the item-response model.

    :math:`q_{st}(v, w) = \sum_k w_k\, r_s(z_k)^v (1 - r_s(z_k))^{1 - v}\, r_t(z_k)^w
    (1 - r_t(z_k))^{1 - w}` with :math:`r_s(z) = p_s(z)\,\mathrm{Se}_s + (1 - p_s(z))(1 -
    \mathrm{Sp}_s)` and :math:`p_s(z) = \mathrm{expit}(\alpha_s - \sigma z)` (Rasch 1960), on
    the Gauss-Hermite rule of :func:`bayesjudge.systems.irt.normal_quadrature`.

    Parameters
    ----------
    ability : array_like, shape (..., systems)
    difficulty_sd : array_like, shape (...)
    se, sp : array_like, shape (...) or (..., systems)
    nodes : int, default 32
        Quadrature nodes (the model's default).

    Returns
    -------
    ndarray, shape (..., pairs, 4)
        Pairs in :func:`itertools.combinations` order, cells in the order of
        :data:`VERDICT_PAIRS`.

    Examples
    --------
    >>> q = irt_verdict_probabilities([0.0, 0.0], difficulty_sd=0.0, se=1.0, sp=1.0)
    >>> q.round(2).tolist()
    [[0.25, 0.25, 0.25, 0.25]]
    """
    alpha = np.asarray(ability, dtype=float)
    n_systems = alpha.shape[-1]
    sigma = np.asarray(difficulty_sd, dtype=float)
    z, log_w = normal_quadrature(nodes)
    p = expit(alpha[..., None, :] - sigma[..., None, None] * z[:, None])  # (..., K, S)
    batch = alpha.shape[:-1]
    se_s = _per_system(se, batch, n_systems)[..., None, :]
    sp_s = _per_system(sp, batch, n_systems)[..., None, :]
    r = p * se_s + (1.0 - p) * (1.0 - sp_s)
    verdict = np.stack([1.0 - r, r], axis=-1)  # (..., K, S, v)
    w = np.exp(log_w)
    tables = [
        np.einsum("k,...kv,...kw->...vw", w, verdict[..., s, :], verdict[..., t, :])
        for s, t in combinations(range(n_systems), 2)
    ]
    q = np.stack(tables, axis=-3)
    return q.reshape(*q.shape[:-2], 4)


def _pair_probabilities(
    posterior: xr.Dataset, *, model: PairedModel, nodes: int = 32
) -> NDArray[np.float64]:
    """Joint verdict cell probabilities of every pair, shape (chain, draw, pairs, 4)."""
    if model not in PAIRED_MODELS:
        raise ValueError(f"model must be one of {list(PAIRED_MODELS)}; got {model!r}")
    se = posterior["se"].transpose("chain", "draw", ...).to_numpy()
    sp = posterior["sp"].transpose("chain", "draw", ...).to_numpy()
    if model == "two_system":
        joint = posterior["joint"].transpose("chain", "draw", ...).to_numpy()
        q = two_system_verdict_probabilities(joint, se=se, sp=sp)
    else:
        ability = posterior["ability"].transpose("chain", "draw", ...).to_numpy()
        sd = posterior["difficulty_sd"].transpose("chain", "draw").to_numpy()
        q = irt_verdict_probabilities(ability, difficulty_sd=sd, se=se, sp=sp, nodes=nodes)
    q = np.clip(q, 0.0, None)
    return np.asarray(q / q.sum(axis=-1, keepdims=True))


def paired_predictive(
    posterior: xr.Dataset,
    observed: PairVerdicts,
    *,
    model: PairedModel,
    rng: np.random.Generator,
    nodes: int = 32,
) -> dict[str, xr.Dataset]:
    """Return the ``posterior_predictive``, ``observed_data`` and ``constant_data`` groups.

    Parameters
    ----------
    posterior : Dataset
        Draws (dims ``chain``, ``draw``) of ``se`` and ``sp`` and, for ``model="two_system"``,
        ``joint`` [outcome]; for ``model="systems_irt"``, ``ability`` [system] and
        ``difficulty_sd``.
    observed : PairVerdicts
        The observed counts (:func:`pair_verdicts`).
    model : {"two_system", "systems_irt"}
        Which paired model drew ``posterior``.
    rng : Generator
        Source of the replicated counts.
    nodes : int, default 32
        Quadrature nodes of the item-response model.

    Returns
    -------
    dict of str to Dataset
        ``posterior_predictive`` and ``observed_data`` with ``pair_verdicts`` [pair,
        verdict_pair], ``x1`` and ``x0`` [system]; ``constant_data`` with the pair totals
        ``pair_items`` [pair] and ``m1``, ``m0`` [system].

    Raises
    ------
    ValueError
        On an unknown ``model``.

    Examples
    --------
    >>> cells = Patterns(("a", "b"), np.array([[1, 2], [6, 5]], np.int8), np.array([30, 10]))
    >>> post = xr.Dataset({"joint": (("chain", "draw", "outcome"), np.full((1, 5, 4), 0.25)),
    ...                    "se": (("chain", "draw"), np.full((1, 5), 0.9)),
    ...                    "sp": (("chain", "draw"), np.full((1, 5), 0.8))})
    >>> groups = paired_predictive(post, pair_verdicts(cells), model="two_system",
    ...                            rng=np.random.default_rng(0))
    >>> groups["posterior_predictive"]["pair_verdicts"].sum("verdict_pair").values.ravel()
    array([30, 30, 30, 30, 30])
    """
    systems = list(observed.systems)
    se = posterior["se"].transpose("chain", "draw", ...).to_numpy()
    sp = posterior["sp"].transpose("chain", "draw", ...).to_numpy()
    q = _pair_probabilities(posterior, model=model, nodes=nodes)
    totals = observed.tables.sum(axis=1)
    replicated = rng.multinomial(totals, q)
    coords = {
        "pair": list(observed.pair_names),
        "verdict_pair": list(VERDICT_PAIRS),
        "system": systems,
    }
    sample = ("chain", "draw")
    se_s = _per_system(se, q.shape[:2], len(systems))
    sp_s = _per_system(sp, q.shape[:2], len(systems))
    gold = predictive_counts(
        {
            "x1": (observed.m1, xr.DataArray(se_s, dims=(*sample, "system"))),
            "x0": (observed.m0, xr.DataArray(1.0 - sp_s, dims=(*sample, "system"))),
        },
        rng,
    )
    predictive = xr.Dataset(
        {
            "pair_verdicts": ((*sample, "pair", "verdict_pair"), replicated),
            "x1": gold["x1"],
            "x0": gold["x0"],
        },
        coords={**coords, **{d: posterior.coords[d] for d in sample if d in posterior.coords}},
    )
    observed_data = xr.Dataset(
        {
            "pair_verdicts": (("pair", "verdict_pair"), observed.tables),
            "x1": ("system", observed.x1),
            "x0": ("system", observed.x0),
        },
        coords=coords,
    )
    constant_data = xr.Dataset(
        {
            "pair_items": ("pair", totals),
            "m1": ("system", observed.m1),
            "m0": ("system", observed.m0),
        },
        coords={"pair": coords["pair"], "system": systems},
    )
    return {
        "posterior_predictive": predictive,
        "observed_data": observed_data,
        "constant_data": constant_data,
    }


def systems_predictive_check(
    posterior: xr.Dataset,
    *,
    systems: Sequence[str],
    m1: ArrayLike,
    x1: ArrayLike,
    m0: ArrayLike,
    x0: ArrayLike,
    pairs: PairVerdicts | None = None,
    model: PairedModel | None = None,
    level: float = PPC_LEVEL,
    max_draws: int = MAX_CHECK_DRAWS,
    random_seed: int | np.random.Generator | None = None,
    nodes: int = 32,
) -> TablePredictiveCheck:
    r"""Test a systems posterior's joint verdict tables and gold rates, family by family.

    The families of :func:`bayesjudge.inference.ppc.count_table_check` (realised Pearson
    discrepancy against replicates, Bonferroni over the families):

    * ``verdicts[A|B]`` for every pair of a paired design: its four joint verdict cells, one
      multinomial of the pair's items (:func:`pair_verdicts`; each pair is its own family
      because pairs share items, so their tables have no simple joint replicate);
    * ``gold_rates``: every system's judged gold answers, :math:`x_{1s} \sim
      \mathrm{Bin}(m_{1s}, \mathrm{Se}_s)` and :math:`x_{0s} \sim \mathrm{Bin}(m_{0s}, 1 -
      \mathrm{Sp}_s)`, independent given the parameters. With one judge for all systems
      (``judge="shared"``) its discrepancy is the chi-square of the judge's rates being the
      same across systems, so a judge that treats the systems differently fails it.

    Parameters
    ----------
    posterior : Dataset
        Draws of ``se`` and ``sp`` (by ``system``, or shared); for a paired ``model`` also
        those of :func:`paired_predictive`.
    systems : sequence of str
    m1, x1, m0, x0 : array_like of int, shape (systems,)
        Gold-PASS answers and those judged PASS; gold-FAIL answers and those judged PASS.
    pairs : PairVerdicts, optional
        The joint verdict tables of a paired design (with ``model``).
    model : {"two_system", "systems_irt"}, optional
        The paired model that drew ``posterior``.
    level : float, default 0.05
        Family-wise level.
    max_draws : int, default 2000
        Posterior draws used, evenly thinned.
    random_seed : int, Generator or None
        Source of the replicated tables.
    nodes : int, default 32
        Quadrature nodes of the item-response model.

    Returns
    -------
    TablePredictiveCheck

    Examples
    --------
    A shared judge at Sp 0.8 where system B's gold-FAIL answers were passed 5 times in 100:

    >>> post = xr.Dataset({"se": (("chain", "draw"), np.full((1, 200), 0.9)),
    ...                    "sp": (("chain", "draw"), np.full((1, 200), 0.8))})
    >>> check = systems_predictive_check(post, systems=["A", "B"], m1=[100, 100],
    ...                                  x1=[90, 91], m0=[100, 100], x0=[21, 5], random_seed=0)
    >>> check.failures[0].worst
    'gold_rates: B: PASS verdicts among gold-FAIL answers'
    """
    names = list(systems)
    se = posterior["se"].transpose("chain", "draw", ...).to_numpy()
    sp = posterior["sp"].transpose("chain", "draw", ...).to_numpy()
    batch = se.shape[:2]
    se_s = _per_system(se, batch, len(names)).reshape(-1, len(names))
    sp_s = _per_system(sp, batch, len(names)).reshape(-1, len(names))
    families = []
    if pairs is not None:
        if model is None:
            raise ValueError("a paired check needs the model that drew the posterior")
        q = _pair_probabilities(posterior, model=model, nodes=nodes).reshape(se_s.shape[0], -1, 4)
        for p, name in enumerate(pairs.pair_names):
            if pairs.tables[p].sum() == 0:
                continue
            first, second = names[pairs.pairs[p][0]], names[pairs.pairs[p][1]]
            subjects = [
                f"{first}={a.upper()} {second}={b.upper()}"
                for a, b in (cell.split("_") for cell in VERDICT_PAIRS)
            ]
            families.append(
                CountFamily(f"verdicts[{name}]", subjects, pairs.tables[p], q[:, p], np.zeros(4))
            )
    subjects, observed, trials, probs = [], [], [], []
    for s, name in enumerate(names):
        for words, m, x, prob in (
            ("PASS verdicts among gold-PASS answers", m1, x1, se_s[:, s]),
            ("PASS verdicts among gold-FAIL answers", m0, x0, 1.0 - sp_s[:, s]),
        ):
            n = int(np.asarray(m)[s])
            if n == 0:
                continue
            subjects.append(f"{name}: {words}")
            observed.append(int(np.asarray(x)[s]))
            trials.append(n)
            probs.append(prob)
    if subjects:
        families.append(
            CountFamily(
                "gold_rates",
                subjects,
                observed,
                np.stack(probs, axis=1),
                np.arange(len(subjects)),
                trials=trials,
            )
        )
    return count_table_check(families, level=level, max_draws=max_draws, random_seed=random_seed)
