r"""Fit the repeated-samples model: counts per item -> cached model -> NUTS -> checked posterior.

:func:`fit_repeated` takes :class:`~bayesjudge.repeated.RepeatedData` to a checked posterior
through the one fitting path of :func:`bayesjudge.inference.fit.fit_model` (model built and
compiled once per structure, data swapped in; diagnostics on every fit; one retry when the
sampler struggled).

**Posterior predictive check.** The model must reproduce how the judge's PASS verdicts fall on
the items, not only how many there are: a model that treated every item alike would predict
far fewer items passed on every answer, or on none, than repeated runs show. At every posterior
draw :math:`s` the unlabelled answers are replicated, :math:`k_i^{rep} \sim
\mathrm{Bin}(n_i, q_{is})`, :math:`q_{is} = p_{is}\mathrm{Se}_s + (1 - p_{is})(1 -
\mathrm{Sp}_s)`, and the gold answers' verdicts, :math:`x_1^{rep} \sim
\mathrm{Bin}(m_1, \mathrm{Se}_s)`, :math:`x_0^{rep} \sim \mathrm{Bin}(m_0, 1 - \mathrm{Sp}_s)`
(summed over items). The shared checks (:func:`bayesjudge.check_fit`) then test, each by its
two-sided tail probability, the counts ``passes`` (all PASS verdicts), ``all_pass_items``
(items passed on every unlabelled answer), ``no_pass_items`` (items passed on none), ``x1`` and
``x0`` (and ``gold``, the gold-PASS answers, when the gold labels inform the items). Beside them
:func:`pass_histogram_check` tests the whole histogram of passes per item (how many items with
:math:`n` unlabelled answers had :math:`j` PASS verdicts, for every :math:`n` and :math:`j`) by
its realised Pearson discrepancy (Gelman, Meng and Stern, "Posterior predictive assessment of
model fitness via realized discrepancies", 1996),
:math:`T(y, \theta) = \sum_{n, j} (y_{nj} - E_{nj}(\theta))^2 / E_{nj}(\theta)`, against the
replicated histogram: :math:`p = P(T(y^{rep}, \theta) \ge T(y, \theta) \mid y)`, failing below
:data:`PPC_LEVEL`. A failed predictive check is a failed diagnostic (exit code 3 on the command
line).

**Repeated judge calls.** With several judge calls per answer (a ``call`` column) the model
reads the calls through a beta-binomial per answer (:mod:`bayesjudge.models.repeated`), and the
replicates follow it: each answer's true label :math:`y \sim \mathrm{Bernoulli}(p_i)`, its pass
probability :math:`q \sim \mathrm{Beta}` with mean Se or :math:`1 - \mathrm{Sp}` and
correlation :math:`\rho`, its passes :math:`\mathrm{Bin}(c, q)`; the statistics above are then
counted over calls. :func:`call_histogram_check` replaces the per-item histogram: how many
unlabelled answers with :math:`c` calls had :math:`j` of them PASS, against
:math:`E_{cj} = \sum_a p_i\,\mathrm{BB}(j; c, \mathrm{Se}, \rho) + (1 - p_i)\,
\mathrm{BB}(j; c, 1 - \mathrm{Sp}, \rho)`, by the same realised Pearson discrepancy: it is
what tells calls that agree more (or less) than the model allows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import xarray as xr
from scipy import sparse
from scipy.stats import betabinom, binom

from bayesjudge._docstring import SAMPLER_PARAMETERS, fill_doc
from bayesjudge.inference import defaults
from bayesjudge.inference.cache import bucket_size
from bayesjudge.inference.diagnostics import Check
from bayesjudge.inference.fit import Draws, ModelRun, NutsSettings, fit_model
from bayesjudge.inference.predictive import binomial_draws
from bayesjudge.inference.sampling import Sampler
from bayesjudge.repeated.data import RepeatedData
from bayesjudge.repeated.priors import RepeatedPriors
from bayesjudge.validation import check_int, seed_stream

__all__ = [
    "MIN_PADDED",
    "POWER_OF_TWO_UP_TO",
    "PPC_LEVEL",
    "REPEATED",
    "REPORTED",
    "call_histogram_check",
    "fit_repeated",
    "padded_length",
    "pass_at_k",
    "pass_histogram_check",
    "predictive_draws",
]

#: Name of the model, as recorded in posterior attrs.
REPEATED = "repeated"
#: Quantities reported by the family (their Monte Carlo error is checked).
REPORTED = (
    "mean_rate",
    "population_rate",
    "pass_at_k",
    "pass_all_k",
    "se",
    "sp",
    "j",
    "median_rate",
)
#: Level below which the histogram check's tail probability fails.
PPC_LEVEL = 0.01
#: Posterior draws the histogram check uses (evenly thinned).
MAX_CHECK_DRAWS = 1000
#: Default NUTS target acceptance of the repeated-samples model (a non-centred item hierarchy).
TARGET_ACCEPT = defaults.REPEATED_TARGET_ACCEPT
#: Shortest padded length of the item, cluster and pattern axes (:func:`padded_length`).
MIN_PADDED = 16
#: Up to this length an axis is padded to a power of two; beyond it in steps of an eighth of one.
POWER_OF_TWO_UP_TO = 64


def padded_length(count: int) -> int:
    """Return the length a fit pads an axis of ``count`` entries to.

    The next power of two (at least :data:`MIN_PADDED`) up to :data:`POWER_OF_TWO_UP_TO`;
    beyond it, the next multiple of an eighth of the power of two below ``count``, so that
    the padding adds at most an eighth (12.5 %) to a large axis. The model is compiled once per
    padded length (:mod:`bayesjudge.models.repeated`, "Sizes as data"): data of 33 to 64 items
    share one compiled model, of 193 to 208 another. Padded items cost sampling time (their
    scores are sampled with the rest), which on small data is little and on large data is
    bounded by the eighth.

    Examples
    --------
    >>> [padded_length(n) for n in (3, 40, 64, 65, 120, 200, 400)]
    [16, 64, 64, 72, 120, 208, 416]
    """
    if count <= POWER_OF_TWO_UP_TO:
        return bucket_size(count, minimum=MIN_PADDED)
    step = (1 << ((count - 1).bit_length() - 1)) // 8
    return -(-count // step) * step


def pass_at_k(item_rate: xr.DataArray, ks: Sequence[int]) -> tuple[xr.DataArray, xr.DataArray]:
    r"""Return pass@k and pass^k at each draw, from the draws of each item's success rate.

    :math:`\frac1N\sum_i 1 - (1 - p_i)^k` and :math:`\frac1N\sum_i p_i^k` over the ``item``
    dim, along a new dim ``pass_k`` (the estimands of :mod:`bayesjudge.models.repeated`; Chen
    et al., "Evaluating large language models trained on code", 2021; Yao et al.,
    "tau-bench", 2024), formed as :math:`-\mathrm{expm1}(k\,\mathrm{log1p}(-p))` and
    :math:`\exp(k \log p)`.

    Parameters
    ----------
    item_rate : DataArray
        Draws of each item's success rate, dims ``(chain, draw, item)``.
    ks : sequence of int
        The k (coordinate ``pass_k``).

    Returns
    -------
    tuple of DataArray
        pass@k and pass^k, dims ``(chain, draw, pass_k)``.

    Examples
    --------
    >>> rate = xr.DataArray([[[0.5, 1.0]]], dims=("chain", "draw", "item"))
    >>> at, every = pass_at_k(rate, (1, 2))
    >>> at.values.ravel().tolist(), every.values.ravel().tolist()
    ([0.75, 0.875], [0.75, 0.625])
    """
    p = item_rate.transpose("chain", "draw", "item").to_numpy()[..., None]
    k = np.asarray(ks, dtype=np.float64)
    with np.errstate(divide="ignore"):
        at = -np.expm1(k * np.log1p(-p)).mean(axis=2)
        every = np.exp(k * np.log(p)).mean(axis=2)
    dims = ("chain", "draw", "pass_k")
    coords = {
        "chain": item_rate["chain"].values,
        "draw": item_rate["draw"].values,
        "pass_k": list(ks),
    }
    return xr.DataArray(at, dims=dims, coords=coords), xr.DataArray(every, dims=dims, coords=coords)


def _check_ks(ks: Sequence[int]) -> tuple[int, ...]:
    values = tuple(check_int(k, name="pass_k", minimum=1) for k in ks)
    if not values or len(set(values)) != len(values):
        raise ValueError(f"pass_k must be one or more distinct whole numbers; got {list(ks)}")
    return tuple(sorted(values))


def _rate(posterior: xr.Dataset) -> xr.DataArray:
    """P(PASS verdict) of an unlabelled answer of each item at each draw."""
    p = posterior["item_rate"]
    return p * posterior["se"] + (1.0 - p) * (1.0 - posterior["sp"])


def _call_answers(data: RepeatedData) -> dict[str, np.ndarray]:
    """Return each answer's item, calls, passes and label (-1 unlabelled), from the patterns."""
    patterns = data.call_patterns()
    return {
        name: np.repeat(patterns[name], patterns["answers"])
        for name in ("item", "calls", "passes", "label")
    }


def _call_passes(
    rate_correct: np.ndarray,
    rate_wrong: np.ndarray,
    p: np.ndarray | None,
    label: np.ndarray,
    calls: np.ndarray,
    rho: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Draw each answer's passes among its calls at each draw (rows: draws, columns: answers).

    The answer's true label is its gold label, or ``Bernoulli(p)`` when unlabelled; its pass
    probability is ``Beta`` with mean ``rate_correct`` or ``rate_wrong`` and correlation ``rho``.
    """
    correct = np.broadcast_to(label == 1, (rho.size, label.size)).copy()
    if p is not None:
        unlabelled = label < 0
        correct[:, unlabelled] = rng.random((rho.size, int(unlabelled.sum()))) < p[:, unlabelled]
    mean = np.where(correct, rate_correct[:, None], rate_wrong[:, None])
    mean = np.clip(mean, 1e-12, 1.0 - 1e-12)
    precision = ((1.0 - rho) / rho)[:, None]
    q = rng.beta(mean * precision, (1.0 - mean) * precision)
    return rng.binomial(np.broadcast_to(calls, q.shape), q)


def _call_predictive(
    posterior: xr.Dataset,
    data: RepeatedData,
    *,
    gold_informs_items: bool,
    rng: np.random.Generator,
) -> xr.Dataset:
    """Return the statistics of :func:`predictive_draws`, replicated under judge calls."""
    answers = _call_answers(data)
    sample = ("chain", "draw")
    shape = (posterior.sizes["chain"], posterior.sizes["draw"])
    p = posterior["item_rate"].transpose("chain", "draw", "item").to_numpy()
    p = p.reshape(-1, p.shape[-1])
    se = posterior["se"].to_numpy().reshape(-1)
    fpr = 1.0 - posterior["sp"].to_numpy().reshape(-1)
    rho = posterior["rho"].to_numpy().reshape(-1)
    label, item = answers["label"], answers["item"]
    unlabelled = label < 0
    by_item = sparse.csr_matrix(
        (np.ones(int(unlabelled.sum())), (np.flatnonzero(unlabelled), item[unlabelled])),
        shape=(label.size, data.n_items),
    )
    stats: dict[str, list[np.ndarray]] = {name: [] for name in _STATISTICS}
    if gold_informs_items:
        stats["gold"] = []
    seen = data.n > 0
    for start in range(0, rho.size, 500):  # a block of draws at a time bounds the memory
        block = slice(start, start + 500)
        j = _call_passes(
            se[block], fpr[block], p[block][:, item], label, answers["calls"], rho[block], rng
        )
        k_item = np.asarray(by_item.T.dot(j.T).T)  # unlabelled passes per item
        stats["passes"].append((j * unlabelled).sum(axis=1))
        stats["all_pass_items"].append(((k_item == data.n) & seen).sum(axis=1))
        stats["no_pass_items"].append(((k_item == 0) & seen).sum(axis=1))
        stats["x1"].append((j * (label == 1)).sum(axis=1))
        stats["x0"].append((j * (label == 0)).sum(axis=1))
        if gold_informs_items:
            gold = label >= 0
            drawn = rng.random((j.shape[0], int(gold.sum()))) < p[block][:, item[gold]]
            stats["gold"].append(drawn.sum(axis=1))
    return xr.Dataset(
        {name: (sample, np.concatenate(parts).reshape(shape)) for name, parts in stats.items()}
    )


_STATISTICS = ("passes", "all_pass_items", "no_pass_items", "x1", "x0")


def predictive_draws(
    posterior: xr.Dataset,
    data: RepeatedData,
    *,
    gold_informs_items: bool,
    random_seed: int | np.random.Generator | None = None,
) -> xr.Dataset:
    r"""Draw the replicated counts of the predictive check at every posterior draw.

    :math:`k_i^{rep} \sim \mathrm{Bin}(n_i, q_i)`, :math:`x_1^{rep} \sim \mathrm{Bin}(m_1,
    \mathrm{Se})`, :math:`x_0^{rep} \sim \mathrm{Bin}(m_0, 1 - \mathrm{Sp})` (and the gold-PASS
    answers :math:`\sim \mathrm{Bin}(m_{1i} + m_{0i}, p_i)` when the gold informs the items),
    reduced to the statistics the check tests (module docstring).

    Parameters
    ----------
    posterior : Dataset
        Draws of ``item_rate``, ``se`` and ``sp``.
    data : RepeatedData
        The data whose counts are replicated.
    gold_informs_items : bool
        Whether the fit let the gold labels inform the items (then ``gold`` is replicated).
    random_seed : int, Generator or None
        Seed of the draws.

    Returns
    -------
    Dataset
        ``passes``, ``all_pass_items``, ``no_pass_items``, ``x1``, ``x0`` (and ``gold``), each
        with dims ``(chain, draw)``.
    """
    rng = seed_stream(random_seed, "draws")
    if "rho" in posterior:
        return _call_predictive(posterior, data, gold_informs_items=gold_informs_items, rng=rng)
    rate = _rate(posterior).transpose("chain", "draw", "item").to_numpy()
    k_rep = binomial_draws(data.n, rate, rng)
    seen = data.n > 0
    sample = ("chain", "draw")
    out = {
        "passes": (sample, k_rep.sum(axis=-1)),
        "all_pass_items": (sample, ((k_rep == data.n) & seen).sum(axis=-1)),
        "no_pass_items": (sample, ((k_rep == 0) & seen).sum(axis=-1)),
        "x1": (sample, binomial_draws(int(data.m1.sum()), posterior["se"].to_numpy(), rng)),
        "x0": (sample, binomial_draws(int(data.m0.sum()), 1.0 - posterior["sp"].to_numpy(), rng)),
    }
    if gold_informs_items:
        p = posterior["item_rate"].transpose("chain", "draw", "item").to_numpy()
        out["gold"] = (sample, binomial_draws(data.m1 + data.m0, p, rng).sum(axis=-1))
    return xr.Dataset(out)


def observed_statistics(data: RepeatedData, *, gold_informs_items: bool) -> dict[str, int]:
    """Return the observed values of the statistics :func:`predictive_draws` replicates."""
    seen = data.n > 0
    out = {
        "passes": int(data.k.sum()),
        "all_pass_items": int(((data.k == data.n) & seen).sum()),
        "no_pass_items": int(((data.k == 0) & seen).sum()),
        "x1": int(data.x1.sum()),
        "x0": int(data.x0.sum()),
    }
    if gold_informs_items:
        out["gold"] = int(data.m1.sum())
    return out


def _thinned(draws: xr.DataArray, max_draws: int) -> np.ndarray:
    """Return the draws with chain and draw as one leading axis, evenly thinned to ``max_draws``."""
    values = draws.transpose("chain", "draw", ...).to_numpy()
    values = values.reshape(-1, *values.shape[2:])
    return values[:: max(1, int(np.ceil(values.shape[0] / max_draws)))]


def _histogram_check(
    name: str,
    trials: np.ndarray,
    successes: np.ndarray,
    n_draws: int,
    replicate: Callable[[int], np.ndarray],
    mass: Callable[[int, int, np.ndarray], np.ndarray],
) -> Check:
    r"""Check ``ppc_tail_prob(name)``: the Pearson discrepancy of histograms, one per size.

    Units (items, answers) with the same number of ``trials`` :math:`n > 0` form one
    histogram of their ``successes`` :math:`j = 0..n`. At draw ``s``, ``replicate(s)``
    returns replicated successes of every unit and ``mass(s, n, members)`` the expected
    histogram :math:`E_{nj}` of the units ``members``;
    :math:`T = \sum_{n,j} (y_{nj} - E_{nj})^2 / E_{nj}` (with :math:`E \geq 10^{-12}`) of
    the observed and of the replicated histograms are compared; the tail probability, the
    share of draws where the replicate's is at least the observed one (1 when no unit has a
    trial), passes at :data:`PPC_LEVEL`.
    """
    sizes = np.unique(trials[trials > 0])
    exceed = 0
    for s in range(n_draws):
        replicated = replicate(s)
        t_obs = t_rep = 0.0
        for size in sizes:
            members = trials == size
            expected = np.maximum(mass(s, size, members), 1e-12)
            t_obs += _pearson(successes[members], expected)
            t_rep += _pearson(replicated[members], expected)
        exceed += t_rep >= t_obs
    value = exceed / n_draws if sizes.size else 1.0
    return Check("ppc_tail_prob", name, float(value), PPC_LEVEL, ">=", value >= PPC_LEVEL)


def _pearson(counts: np.ndarray, expected: np.ndarray) -> float:
    observed = np.bincount(counts, minlength=expected.size)
    return float(((observed - expected) ** 2 / expected).sum())


def pass_histogram_check(
    posterior: xr.Dataset,
    data: RepeatedData,
    *,
    random_seed: int | np.random.Generator | None = None,
    max_draws: int = MAX_CHECK_DRAWS,
) -> Check:
    r"""Test the histogram of PASS verdicts per item by its realised Pearson discrepancy.

    Cells :math:`(n, j)`: items with :math:`n` unlabelled answers of which the judge passed
    :math:`j`. At each (thinned) draw, :math:`E_{nj} = \sum_{i: n_i = n}
    \mathrm{Bin}(j; n, q_i)`, and :math:`T = \sum (y_{nj} - E_{nj})^2 / E_{nj}` of the observed
    and of a replicated histogram; the tail probability is the share of draws where the
    replicate's :math:`T` is at least the observed one (Gelman, Meng and Stern 1996).

    Parameters
    ----------
    posterior : Dataset
        Draws of ``item_rate``, ``se``, ``sp``.
    data : RepeatedData
        The observed answers.
    random_seed : int, Generator or None
        Seed of the replicates.
    max_draws : int
        Most draws used (evenly thinned).

    Returns
    -------
    Check
        ``ppc_tail_prob(pass_histogram)``, passing when the tail probability is at least
        :data:`PPC_LEVEL`.
    """
    rng = seed_stream(random_seed, "draws")
    rate = _thinned(_rate(posterior), max_draws)

    def mass(s: int, size: int, members: np.ndarray) -> np.ndarray:
        return binom.pmf(np.arange(size + 1)[:, None], size, rate[s, members][None, :]).sum(axis=1)

    def replicate(s: int) -> np.ndarray:
        return rng.binomial(data.n, np.clip(rate[s], 0.0, 1.0))

    return _histogram_check("pass_histogram", data.n, data.k, rate.shape[0], replicate, mass)


def call_histogram_check(
    posterior: xr.Dataset,
    data: RepeatedData,
    *,
    random_seed: int | np.random.Generator | None = None,
    max_draws: int = MAX_CHECK_DRAWS,
) -> Check:
    r"""Test how the judge calls of each unlabelled answer split, by a realised discrepancy.

    Cells :math:`(c, j)`: unlabelled answers with :math:`c` judge calls of which :math:`j`
    passed. At each (thinned) draw, :math:`E_{cj} = \sum_{a: c_a = c} p_{i(a)}
    \mathrm{BB}(j; c, \mathrm{Se}, \rho) + (1 - p_{i(a)})\mathrm{BB}(j; c, 1 - \mathrm{Sp},
    \rho)`, and :math:`T = \sum (y_{cj} - E_{cj})^2 / E_{cj}` of the observed and of a
    replicated table; the tail probability is the share of draws where the replicate's
    :math:`T` is at least the observed one (Gelman, Meng and Stern, "Posterior predictive
    assessment of model fitness via realized discrepancies", 1996). Calls that agree with
    each other more than :math:`\rho` allows, or disagree more, fail it.

    Parameters
    ----------
    posterior : Dataset
        Draws of ``item_rate``, ``se``, ``sp`` and ``rho``.
    data : RepeatedData
        The observed answers, with judge calls.
    random_seed : int, Generator or None
        Seed of the replicates.
    max_draws : int
        Most draws used (evenly thinned).

    Returns
    -------
    Check
        ``ppc_tail_prob(call_histogram)``, passing when the tail probability is at least
        :data:`PPC_LEVEL`.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"item": ["a"] * 4 + ["b"] * 4, "epoch": [1, 1, 2, 2] * 2,
    ...                       "call": [1, 2] * 4, "verdict": [1, 1, 0, 0, 1, 0, 1, 1]})
    >>> data = RepeatedData.from_frame(frame, columns={"call": "call"})
    >>> posterior = xr.Dataset({"item_rate": (("chain", "draw", "item"), [[[0.5, 0.5]]]),
    ...     "se": (("chain", "draw"), [[0.9]]), "sp": (("chain", "draw"), [[0.9]]),
    ...     "rho": (("chain", "draw"), [[0.5]])})
    >>> call_histogram_check(posterior, data, random_seed=1).variable
    'call_histogram'
    """
    rng = seed_stream(random_seed, "draws")
    answers = _call_answers(data)
    keep = answers["label"] < 0
    item, calls, passes = answers["item"][keep], answers["calls"][keep], answers["passes"][keep]
    p, se, sp, rho = (_thinned(posterior[v], max_draws) for v in ("item_rate", "se", "sp", "rho"))
    precision = (1.0 - rho) / rho

    def replicate(s: int) -> np.ndarray:
        window = slice(s, s + 1)
        unlabelled = np.full(item.size, -1)
        return _call_passes(
            se[window], 1.0 - sp[window], p[window, item], unlabelled, calls, rho[window], rng
        )[0]

    def mass(s: int, size: int, members: np.ndarray) -> np.ndarray:
        j = np.arange(size + 1)[:, None]
        p_items = p[s, item[members]][None, :]
        a = precision[s]
        correct = betabinom.pmf(j, size, se[s] * a, (1.0 - se[s]) * a)
        wrong = betabinom.pmf(j, size, (1.0 - sp[s]) * a, sp[s] * a)
        return (p_items * correct + (1.0 - p_items) * wrong).sum(axis=1)

    return _histogram_check("call_histogram", calls, passes, rho.size, replicate, mass)


@fill_doc(sampler_parameters=SAMPLER_PARAMETERS)
def fit_repeated(
    data: RepeatedData,
    *,
    priors: RepeatedPriors | None = None,
    pass_k: Sequence[int] = (1, 5),
    spread: bool = True,
    use_clusters: bool = True,
    gold_informs_items: bool = False,
    restrict_j: bool = True,
    judge_calls: bool | None = None,
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
    r"""Sample the posterior of each item's success rate and of the mean success rate.

    Fits :func:`bayesjudge.models.repeated.repeated_model`:
    :math:`p_i = \mathrm{logit}^{-1}(\mu + \sigma z_i + \tau u_{c(i)})`, each unlabelled
    answer's verdict :math:`\mathrm{Bernoulli}(p_i\mathrm{Se} + (1 - p_i)(1 - \mathrm{Sp}))`,
    the gold answers' verdicts Se and Sp, checked by :func:`bayesjudge.check_fit` and the
    family's posterior predictive check (module docstring).

    Parameters
    ----------
    data : RepeatedData
        The answers, with their counts per item.
    priors : RepeatedPriors, optional
        The priors (:class:`~bayesjudge.repeated.priors.RepeatedPriors`).
    pass_k : sequence of int, default (1, 5)
        The k of pass@k and pass^k.
    spread : bool, default True
        Let items differ in success rate; ``False`` gives them one rate (then the model is the
        prevalence model on answers).
    use_clusters : bool, default True
        Add the cluster level when the data have clusters.
    gold_informs_items : bool, default False
        Let the gold labels inform their items' rates: only when the gold-labelled answers
        are a random sample of all answers (not drawn by class).
    restrict_j : bool, default True
        Restrict the prior to J = Se + Sp - 1 > 0.
    judge_calls : bool, optional
        Read several judge calls per answer through the per-answer judge randomness of
        :mod:`bayesjudge.models.repeated` (correlation ``rho``); by default when the data have
        a ``call`` column. ``False`` reads every call as an answer of its own (what treating
        repeated calls as independent evidence gives).
    %(sampler_parameters)s

    Returns
    -------
    DataTree
        Groups ``posterior`` (``mean_rate``, ``population_rate``, ``pass_at_k``,
        ``pass_all_k``, ``band_share``, ``item_rate``, ``se``, ``sp``, ``j``, ``rho`` with
        judge calls, ...),
        ``sample_stats``, ``posterior_predictive`` and ``observed_data`` (the statistics of the
        predictive check). Root attrs as recorded by
        :func:`~bayesjudge.inference.fit.fit_model`, plus ``spread``, ``clustered``,
        ``gold_informs_items``, ``restrict_j``, ``judge_calls``, ``pass_k`` and ``counts``
        (JSON; with judge calls also ``patterns``).

    Examples
    --------
    >>> from bayesjudge.repeated import RepeatedData, simulate_repeated
    >>> sim = simulate_repeated(40, 3, gold_answers=40, random_seed=2)
    >>> tree = fit_repeated(RepeatedData.from_frame(sim.frame), draws=500, random_seed=1,
    ...                     progressbar=False)
    >>> 0.0 < float(tree.posterior["mean_rate"].mean()) < 1.0
    True
    """
    if not isinstance(data, RepeatedData):
        raise TypeError(f"data must be RepeatedData; got {type(data).__name__}")
    priors = RepeatedPriors() if priors is None else priors
    if not isinstance(priors, RepeatedPriors):
        raise TypeError(f"priors must be a RepeatedPriors; got {type(priors).__name__}")
    ks = _check_ks(pass_k)
    settings = NutsSettings.of(draws, tune, chains, target_accept, TARGET_ACCEPT)
    clustered = bool(use_clusters and spread and data.clusters is not None)
    calls = data.has_calls if judge_calls is None else bool(judge_calls)
    counts = {name: np.asarray(v, dtype=np.int64) for name, v in data.counts().items()}
    patterns = data.call_patterns() if calls else None
    # the sizes are data: each axis padded to a few lengths, pass@k computed from the draws
    pad_to = {"item": padded_length(data.n_items)}
    if clustered:
        pad_to["cluster"] = padded_length(data.n_clusters)
    if patterns is not None:
        pad_to["pattern"] = padded_length(patterns["item"].size)
    cluster_index = data.cluster_index if clustered else None
    from bayesjudge.models.repeated import model_data as padded_data

    model_data = padded_data(
        counts,
        cluster_index=cluster_index,
        patterns=patterns,
        pad_to=pad_to,
        n_clusters=data.n_clusters if clustered else 0,
    )

    def build() -> Any:
        from bayesjudge.models.repeated import repeated_model

        return repeated_model(
            data.items,
            counts,
            clusters=data.clusters if clustered else None,
            cluster_index=cluster_index,
            priors=priors,
            spread=spread,
            gold_informs_items=gold_informs_items,
            restrict_j=restrict_j,
            ks=None,
            patterns=patterns,
            pad_to=pad_to,
        )

    key = (
        REPEATED,
        priors,
        bool(spread),
        clustered,
        bool(gold_informs_items),
        bool(restrict_j),
        tuple(sorted(pad_to.items())),
        None if patterns is None else int(patterns["calls"].max()),
    )
    run = ModelRun(REPEATED, key, build, model_data, priors)
    observed = observed_statistics(data, gold_informs_items=gold_informs_items)

    def complete(trace: xr.DataTree, rng: np.random.Generator) -> xr.DataTree:
        sampled = trace["posterior"].to_dataset()
        # the observed items and clusters only (the padded ones hold prior draws)
        keep = {"item": slice(0, data.n_items), "cluster": slice(0, data.n_clusters)}
        sampled = sampled.isel({dim: keep[dim] for dim in keep if dim in sampled.dims})
        coords: dict[str, Any] = {"item": list(data.items)}
        if clustered:
            coords["cluster"] = list(data.clusters or ())
        sampled = sampled.assign_coords(
            {name: value for name, value in coords.items() if name in sampled.dims}
        )
        at, every = pass_at_k(sampled["item_rate"], ks)
        # in the order the model would hold them: pass@k and pass^k after population_rate
        names = list(sampled.data_vars)
        where = names.index("population_rate") + 1
        names[where:where] = ["pass_at_k", "pass_all_k"]
        posterior = sampled.assign(pass_at_k=at, pass_all_k=every)[names]
        return xr.DataTree.from_dict(
            {
                "posterior": posterior,
                "posterior_predictive": predictive_draws(
                    posterior, data, gold_informs_items=gold_informs_items, random_seed=rng
                ),
                "sample_stats": trace["sample_stats"].to_dataset(),
                "observed_data": xr.Dataset({k: ((), v) for k, v in observed.items()}),
            }
        )

    check_rng = seed_stream(random_seed, "draws")

    def family_checks(tree: xr.DataTree) -> list[Check]:
        posterior = tree["posterior"].to_dataset()
        if patterns is not None:
            return [call_histogram_check(posterior, data, random_seed=check_rng)]
        return [pass_histogram_check(posterior, data, random_seed=check_rng)]

    attrs: dict[str, Any] = {
        "spread": bool(spread),
        "clustered": clustered,
        "gold_informs_items": bool(gold_informs_items),
        "restrict_j": bool(restrict_j),
        "judge_calls": calls,
        "pass_k": json.dumps(list(ks)),
        "counts": json.dumps({k: v.tolist() for k, v in counts.items()}),
    }
    if patterns is not None:
        attrs["patterns"] = json.dumps({k: v.tolist() for k, v in patterns.items()})
    return fit_model(
        run,
        settings=settings,
        complete=complete,
        random_seed=random_seed,
        sampler=sampler,
        progressbar=progressbar,
        escalate=escalate,
        prob=prob,
        check_vars=[
            *REPORTED,
            *(["sigma"] if spread else []),
            *(["tau"] if clustered else []),
            *(["rho"] if calls else []),
        ],
        mcse_vars=list(REPORTED),
        family_checks=family_checks,
        attrs=attrs,
    )
