r"""Frequentist baselines for repeated samples: several answers per item, items in clusters.

An evaluation run with epochs or repeats holds several answers per item, and items may be
grouped in clusters (tasks, conversations). Rows that share a cluster are correlated, so an
interval that treats them as independent is too narrow. Every estimator here takes one row per
answer, as arrays of equal length,

* ``verdict``: the judge's pass (1) or fail (0) of the answer;
* ``gold``: the gold label of the answer, 1 or 0, NaN where it is unlabelled;
* ``item``: the item (prompt, sample) the answer belongs to;
* ``cluster``: the cluster of the item (default: the item itself), so every item lies in one
  cluster,

and returns one :class:`~bayesjudge.results.Estimate` whose standard error sums each row's
influence on the estimate within clusters (the cluster-robust "sandwich" variance):

.. math::

    \widehat{\mathrm{Var}}(\hat\theta) = \sum_{c=1}^{C}\Big(\sum_{r\in c}\phi_r\Big)^2,

with :math:`\phi_r` the row's influence function (Liang and Zeger, 1986; Cameron and Miller,
2015). With one row per cluster the sum is the usual independent-rows variance, so the
unclustered intervals are these functions with ``item=numpy.arange(len(verdict))`` (every
answer its own item and cluster).

The estimand of the row-level estimators is the mean success rate over answers, which is the
mean success rate over items when every item has the same number of answers (the usual epochs
design); with unequal numbers of answers it weights items by their answer count, and the
estimates say so in a note. :func:`majority_baselines` reduces each item to its majority verdict
first (``--epochs majority``) and so estimates another quantity, the share of items whose
majority answer passes.

References
----------
.. [1] K.-Y. Liang and S. L. Zeger, "Longitudinal data analysis using generalized linear
   models", Biometrika 73(1), 1986.
.. [2] A. C. Cameron and D. L. Miller, "A practitioner's guide to cluster-robust inference",
   Journal of Human Resources 50(2), 2015.
.. [3] E. Miller, "Adding error bars to evals: a statistical approach to language model
   evaluations", arXiv:2411.00640, 2024 (the clustered standard error of inspect_ai).
.. [4] W. J. Rogan and B. Gladen, "Estimating prevalence from the results of a screening test",
   American Journal of Epidemiology 107(1), 1978.
.. [5] A. N. Angelopoulos, J. C. Duchi and T. Zrnic, "PPI++: Efficient prediction-powered
   inference", arXiv:2311.01453, 2023.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from bayesjudge.errors import DataError, NotIdentifiableError
from bayesjudge.estimators import ppi_mean, rogan_gladen_pi
from bayesjudge.results import Estimate, Interval
from bayesjudge.validation import check_int, check_prob, seed_stream, z_value

__all__ = [
    "MAX_BOOT",
    "RANDOM_SAMPLE_METHODS",
    "REPEATED_BASELINE_METHODS",
    "majority_baselines",
    "naive_clustered",
    "ppi_plus_plus_clustered",
    "repeated_baselines",
    "rogan_gladen_cluster_bootstrap",
    "rogan_gladen_clustered",
]

#: The method names of :func:`repeated_baselines`, in row order.
REPEATED_BASELINE_METHODS = (
    "naive_clustered",
    "rogan_gladen_clustered_delta",
    "rogan_gladen_cluster_bootstrap",
    "ppi_plus_plus_clustered",
    "majority_naive",
    "majority_rogan_gladen_delta",
    "majority_ppi_plus_plus",
)

#: Baselines that assume the labelled answers are a random sample of all answers.
RANDOM_SAMPLE_METHODS = ("ppi_plus_plus_clustered", "majority_ppi_plus_plus")

#: Largest number of bootstrap resamples accepted.
MAX_BOOT = 1_000_000

#: The note of the estimators that assume a random gold sample.
RANDOM_SAMPLE_NOTE = (
    "assumes a random gold sample: the labelled answers must be a random sample of all answers"
)

_MAJORITY_NOTE = (
    "per-item majority verdict (a tie fails): estimates the share of items whose majority "
    "answer passes, not the mean success rate over items"
)

# Bootstrap weights are drawn in blocks of at most this many entries (resamples x clusters).
_BLOCK = 1_000_000


@dataclass(frozen=True, slots=True)
class _Rows:
    """Validated answers: float verdicts and gold labels, integer item and cluster codes."""

    verdict: NDArray[np.float64]
    gold: NDArray[np.float64]
    item: NDArray[np.int64]
    cluster: NDArray[np.int64]
    n_clusters: int
    item_cluster: NDArray[np.int64]
    balanced: bool

    @property
    def labelled(self) -> NDArray[np.bool_]:
        return ~np.isnan(self.gold)

    def cluster_sums(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        """Sum ``values`` (one per row) within each cluster."""
        return np.bincount(self.cluster, weights=values, minlength=self.n_clusters)

    def notes(self) -> list[str]:
        n_items = self.item_cluster.size
        if self.n_clusters == self.verdict.size:
            out = [f"{self.verdict.size} rows treated as independent"]
        elif self.n_clusters == n_items:
            out = [f"clustered by item ({n_items} items, {self.verdict.size} answers)"]
        else:
            out = [
                f"clustered over {self.n_clusters} clusters ({n_items} items, "
                f"{self.verdict.size} answers)"
            ]
        if not self.balanced:
            out.append(
                "items have different numbers of answers: the rate weights items by their "
                "answer count"
            )
        return out


def _codes(values: ArrayLike, *, name: str, size: int) -> tuple[NDArray[np.int64], NDArray[Any]]:
    """Return integer codes and the distinct values of an id array, or raise naming the row."""
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise DataError(f"{name} must be one-dimensional; got shape {arr.shape}")
    if arr.size != size:
        raise DataError(f"{name} has {arr.size} entries but verdict has {size}")
    missing = np.flatnonzero(pd.isna(arr))
    if missing.size:
        raise DataError(f"{name}[{missing[0]}] is missing; every answer needs a {name}")
    codes, uniques = pd.factorize(arr)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def _binary(values: ArrayLike, *, name: str, size: int | None, allow_nan: bool) -> NDArray[Any]:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"{name} must hold 0/1 values{' or NaN' if allow_nan else ''}") from None
    if arr.ndim != 1:
        raise DataError(f"{name} must be one-dimensional; got shape {arr.shape}")
    if size is not None and arr.size != size:
        raise DataError(f"{name} has {arr.size} entries but verdict has {size}")
    bad = ~(np.isin(arr, (0.0, 1.0)) | (allow_nan & np.isnan(arr)))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        allowed = "0, 1 or NaN (unlabelled)" if allow_nan else "0 or 1"
        raise DataError(f"{name}[{row}] must be {allowed}; got {float(arr[row])!r}")
    return arr


def _rows(
    verdict: ArrayLike, gold: ArrayLike | None, item: ArrayLike, cluster: ArrayLike | None
) -> _Rows:
    """Validate the answers once, at the boundary."""
    v = _binary(verdict, name="verdict", size=None, allow_nan=False)
    if v.size == 0:
        raise DataError("verdict is empty; give one row per answer")
    g = (
        np.full(v.size, np.nan)
        if gold is None
        else _binary(gold, name="gold", size=v.size, allow_nan=True)
    )
    item_codes, item_values = _codes(item, name="item", size=v.size)
    if cluster is None:
        cluster_codes, n_clusters = item_codes, item_values.size
    else:
        cluster_codes, cluster_values = _codes(cluster, name="cluster", size=v.size)
        n_clusters = cluster_values.size
        rows = np.arange(v.size)
        first_row = np.full(item_values.size, v.size, dtype=np.int64)
        np.minimum.at(first_row, item_codes, rows)
        first = cluster_codes[first_row]
        clash = np.flatnonzero(cluster_codes != first[item_codes])
        if clash.size:
            r = int(clash[0])
            i = int(item_codes[r])
            raise DataError(
                f"item {item_values[i]!r} is in cluster {cluster_values[first[i]]!r} "
                f"(item[{first_row[i]}]) and in cluster {cluster_values[cluster_codes[r]]!r} "
                f"(item[{r}]); every item must lie in one cluster"
            )
    if n_clusters < 2:
        raise DataError(
            f"{'cluster' if cluster is not None else 'item'} has {n_clusters} distinct value; "
            "a clustered variance needs at least 2 clusters"
        )
    counts = np.bincount(item_codes)
    item_cluster = np.zeros(item_values.size, dtype=np.int64)
    item_cluster[item_codes] = cluster_codes
    return _Rows(
        verdict=v,
        gold=g,
        item=item_codes,
        cluster=cluster_codes,
        n_clusters=int(n_clusters),
        item_cluster=item_cluster,
        balanced=bool(np.all(counts == counts[0])),
    )


def _rg_parts(rows: _Rows, method: str) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Return the unlabelled and gold-PASS masks, or raise when a part is empty."""
    lab = rows.labelled
    unl = ~lab
    pos = lab & (rows.gold == 1.0)
    neg = lab & (rows.gold == 0.0)
    if not unl.any():
        raise DataError(
            f"{method}: gold labels every answer, so there is no unlabelled answer to correct; "
            "the mean gold label is the answer"
        )
    for mask, cls in ((pos, "PASS (1)"), (neg, "FAIL (0)")):
        if not mask.any():
            raise DataError(
                f"{method}: gold holds no {cls} answer, so the judge's "
                f"{'sensitivity' if cls.startswith('PASS') else 'specificity'} cannot be estimated"
            )
    return unl, pos


def _checked(
    verdict: ArrayLike,
    gold: ArrayLike | None,
    item: ArrayLike,
    cluster: ArrayLike | None,
    *,
    prob: float,
    n_boot: int = 1,
) -> tuple[_Rows, float, int]:
    """Validate the arguments of a public function: ``prob``, ``n_boot``, then the answers."""
    prob = check_prob(prob)
    n_boot = check_int(n_boot, name="n_boot", minimum=1, maximum=MAX_BOOT)
    return _rows(verdict, gold, item, cluster), prob, n_boot


def _identified(method: str, error: NotIdentifiableError) -> Estimate:
    """Return the row of an estimator whose judge is no better than chance on the data."""
    reason = f"the judge is no better than chance (J={error.j:.4g} <= 0)"
    return Estimate.not_identifiable(method, reason, j=error.j)


def _critical(rows: _Rows, *, prob: float, small_sample: bool) -> tuple[float, float, list[str]]:
    """Return the variance factor, the critical value and a note for a clustered interval.

    ``small_sample=True`` is the usual correction for few clusters (Cameron and Miller 2015,
    Sec. VI.B): the variance times :math:`C/(C-1)` and a Student-t critical value with
    :math:`C-1` degrees of freedom, as inspect_ai's clustered ``ci``; otherwise 1 and ``z``.
    """
    if not isinstance(small_sample, bool):
        raise ValueError(f"small_sample must be True or False; got {small_sample!r}")
    if not small_sample:
        return 1.0, z_value(prob), []
    c = rows.n_clusters
    note = f"small-sample correction: variance times C/(C-1) and t with {c - 1} df"
    return c / (c - 1.0), float(stats.t.ppf(0.5 + prob / 2.0, df=c - 1)), [note]


# --------------------------------------------------------------------------- naive
def naive_clustered(
    verdict: ArrayLike, item: ArrayLike, cluster: ArrayLike | None = None, *, prob: float = 0.95
) -> Estimate:
    r"""Return the judge's pass rate over all answers with inspect_ai's clustered standard error.

    .. math::

        \hat p = \frac1N\sum_r v_r,\qquad
        \mathrm{se}^2 = \frac{C}{C-1}\,\frac{1}{N^2}\sum_{c=1}^{C}\Big(\sum_{r\in c}
            (v_r - \hat p)\Big)^2,

    the cluster-robust variance of a mean with the finite-cluster factor :math:`C/(C-1)`
    (Miller 2024, Appendix A), the number inspect_ai's ``stderr(cluster=...)`` reports. With one
    row per cluster it is the usual :math:`s/\sqrt N` (``ddof=1``). The interval is
    :math:`\hat p \pm t_{C-1}\,\mathrm{se}`, inspect_ai's ``ci(method="t", cluster=...)``.
    It ignores the judge's errors, so it is biased whenever the judge is imperfect.

    Parameters
    ----------
    verdict : array_like of 0/1
        The judge's verdict on each answer.
    item : array_like
        The item of each answer.
    cluster : array_like, optional
        The cluster of each answer's item; by default the item.
    prob : float
        Interval mass.

    Returns
    -------
    Estimate
        Method ``"naive_clustered"``, interval kind ``"t"``.

    Raises
    ------
    DataError
        If a verdict is not 0 or 1, the arrays differ in length, an id is missing, an item lies
        in two clusters, or there are fewer than two clusters.

    Examples
    --------
    >>> est = naive_clustered([1, 1, 0, 0, 1, 0], ["a", "a", "b", "b", "c", "c"])
    >>> print(f"{est.estimate:.3f} {est.se:.3f}")
    0.500 0.289
    """
    rows, prob, _ = _checked(verdict, None, item, cluster, prob=prob)
    return _naive_rows(rows, prob=prob)


# --------------------------------------------------------------------------- Rogan-Gladen
def rogan_gladen_clustered(
    verdict: ArrayLike,
    gold: ArrayLike,
    item: ArrayLike,
    cluster: ArrayLike | None = None,
    *,
    prob: float = 0.95,
    small_sample: bool = False,
) -> Estimate:
    r"""Rogan-Gladen corrected success rate with a cluster-robust delta interval.

    On the unlabelled answers (``n`` of them) the judge's pass rate is :math:`\hat p`; on the
    labelled answers, :math:`\widehat{\mathrm{Se}}` is the pass rate of the ``m1`` gold-PASS
    answers and :math:`\widehat{\mathrm{Sp}}` the fail rate of the ``m0`` gold-FAIL ones, and
    :math:`\hat\theta = (\hat p + \widehat{\mathrm{Sp}} - 1)/\hat J` with
    :math:`\hat J = \widehat{\mathrm{Se}} + \widehat{\mathrm{Sp}} - 1` (Rogan and Gladen 1978).
    Each answer's influence on :math:`\hat\theta` is

    .. math::

        \phi_r = \frac{1}{\hat J}\Big[\frac{v_r - \hat p}{n}\,[r\ \text{unlabelled}]
            - \hat\theta\,\frac{v_r - \widehat{\mathrm{Se}}}{m_1}\,[g_r = 1]
            + (1 - \hat\theta)\,\frac{1 - v_r - \widehat{\mathrm{Sp}}}{m_0}\,[g_r = 0]\Big],

    and :math:`\mathrm{se}^2 = \sum_c (\sum_{r\in c}\phi_r)^2`. With one answer per cluster this
    is exactly the delta-method variance of
    :func:`~bayesjudge.estimators.rogan_gladen_variance`; answers of one item or cluster in both
    the labelled and the unlabelled parts are handled, as their contributions are summed before
    squaring. The interval :math:`\hat\theta_{\mathrm{unclipped}} \pm z\,\mathrm{se}` is clipped
    to [0, 1], as is the estimate. ``small_sample=True`` multiplies the variance by
    :math:`C/(C-1)` and uses :math:`t_{C-1}` for ``z``, the usual correction for few clusters
    (Cameron and Miller 2015, Sec. VI.B; as inspect_ai's clustered ``ci``).

    Parameters
    ----------
    verdict : array_like of 0/1
        The judge's verdict on each answer.
    gold : array_like of 0/1 or NaN
        The gold label of each answer, NaN where unlabelled.
    item : array_like
        The item of each answer.
    cluster : array_like, optional
        The cluster of each answer's item; by default the item.
    prob : float
        Interval mass.
    small_sample : bool
        Apply the few-clusters correction (a note says so).

    Returns
    -------
    Estimate
        Method ``"rogan_gladen_clustered_delta"``; ``j`` the calibration :math:`\hat J`.

    Raises
    ------
    NotIdentifiableError
        If :math:`\hat J \le 0`.
    DataError
        On bad input, or when no answer is unlabelled or gold lacks a class.

    Examples
    --------
    >>> est = rogan_gladen_clustered(
    ...     [1, 1, 0, 0, 1, 0, 1, 0], [1, 1, 0, 0, None, None, None, None],
    ...     ["a", "a", "b", "b", "c", "c", "d", "d"])
    >>> print(f"{est.estimate:.3f}")
    0.500
    """
    rows, prob, _ = _checked(verdict, gold, item, cluster, prob=prob)
    return _rg_delta(rows, prob=prob, small_sample=small_sample)


def _rg_delta(rows: _Rows, *, prob: float, small_sample: bool = False) -> Estimate:
    method = "rogan_gladen_clustered_delta"
    unl, pos = _rg_parts(rows, method)
    neg = rows.labelled & ~pos
    v = rows.verdict
    n, m1, m0 = unl.sum(), pos.sum(), neg.sum()
    p, se_, sp = v[unl].mean(), v[pos].mean(), 1.0 - v[neg].mean()
    j = float(se_ + sp - 1.0)
    if not j > 0.0:
        raise NotIdentifiableError(j, method)
    theta = float(rogan_gladen_pi(rate=p, se=se_, sp=sp))
    phi = np.zeros(v.size)
    phi[unl] = (v[unl] - p) / n
    phi[pos] = -theta * (v[pos] - se_) / m1
    phi[neg] = (1.0 - theta) * ((1.0 - v[neg]) - sp) / m0
    factor, z, extra = _critical(rows, prob=prob, small_sample=small_sample)
    se = float(np.sqrt(factor * np.sum(rows.cluster_sums(phi / j) ** 2)))
    estimate = float(np.clip(theta, 0.0, 1.0))
    notes = rows.notes() + extra
    if estimate != theta:
        notes.append(f"clipped to [0, 1] from {theta:.4g}")
    iv = Interval(
        float(np.clip(theta - z * se, 0.0, 1.0)),
        float(np.clip(theta + z * se, 0.0, 1.0)),
        prob,
        "clustered_delta",
    )
    return Estimate(method, estimate, iv, se=se, j=j, unclipped=theta, notes=tuple(notes))


def rogan_gladen_cluster_bootstrap(
    verdict: ArrayLike,
    gold: ArrayLike,
    item: ArrayLike,
    cluster: ArrayLike | None = None,
    *,
    prob: float = 0.95,
    n_boot: int = 2000,
    random_seed: int | np.random.Generator | None = None,
) -> Estimate:
    r"""Rogan-Gladen corrected success rate with a cluster bootstrap percentile interval.

    Each resample draws ``C`` clusters with replacement out of the ``C`` observed (every answer
    of a drawn cluster comes along, labelled or not) and recomputes the clipped estimate of
    :func:`rogan_gladen_clustered` (Davison and Hinkley 1997, Sec. 3.8; Cameron and Miller 2015).
    A resample is a count of how often each cluster is drawn (``C`` uniform draws, tallied
    with ``numpy.bincount``), applied to the clusters' six counts (unlabelled answers and their
    passes, gold-PASS answers and their passes, gold-FAIL answers and their passes), so no
    Python loop runs over resamples.
    Resamples without an unlabelled answer, without a gold class, or with
    :math:`J^* \le 0` have no corrected value: they are dropped and counted in a note.

    Parameters
    ----------
    verdict, gold, item, cluster
        As in :func:`rogan_gladen_clustered`.
    prob : float
        Interval mass.
    n_boot : int
        Number of resamples.
    random_seed : int, Generator or None
        Seed of the resampling (its ``"resample"`` stream).

    Returns
    -------
    Estimate
        Method ``"rogan_gladen_cluster_bootstrap"``; ``se`` the standard deviation of the kept
        resamples; ``j`` the calibration :math:`\hat J`.

    Raises
    ------
    NotIdentifiableError
        If :math:`\hat J \le 0` on the data.
    DataError
        On bad input, or when no answer is unlabelled or gold lacks a class.

    Examples
    --------
    >>> est = rogan_gladen_cluster_bootstrap(
    ...     [1, 1, 0, 0, 1, 0, 1, 0], [1, 1, 0, 0, None, None, None, None],
    ...     ["a", "a", "b", "b", "c", "c", "d", "d"], n_boot=200, random_seed=0)
    >>> est.interval.kind
    'cluster_bootstrap_percentile'
    """
    rows, prob, n_boot = _checked(verdict, gold, item, cluster, prob=prob, n_boot=n_boot)
    return _rg_bootstrap(rows, prob=prob, n_boot=n_boot, random_seed=random_seed)


def _rg_bootstrap(
    rows: _Rows, *, prob: float, n_boot: int, random_seed: int | np.random.Generator | None
) -> Estimate:
    method = "rogan_gladen_cluster_bootstrap"
    unl, pos = _rg_parts(rows, method)
    neg = rows.labelled & ~pos
    v = rows.verdict
    counts = np.stack(
        [rows.cluster_sums(mask.astype(float)) for mask in (unl, pos, neg)]
        + [rows.cluster_sums(v * mask) for mask in (unl, pos, neg)],
        axis=1,
    )
    total = counts.sum(axis=0)
    se_hat, sp_hat = total[4] / total[1], 1.0 - total[5] / total[2]
    j = float(se_hat + sp_hat - 1.0)
    if not j > 0.0:
        raise NotIdentifiableError(j, method)
    theta = float(rogan_gladen_pi(rate=total[3] / total[0], se=se_hat, sp=sp_hat))
    rng = seed_stream(random_seed, "resample")
    c = rows.n_clusters
    block = max(1, _BLOCK // c)
    draws = np.empty(n_boot)
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        picks = rng.integers(0, c, size=(size, c)) + (np.arange(size) * c)[:, None]
        weights = np.bincount(picks.ravel(), minlength=size * c).reshape(size, c).astype(float)
        t = weights @ counts
        with np.errstate(divide="ignore", invalid="ignore"):
            rate, se_, sp = t[:, 3] / t[:, 0], t[:, 4] / t[:, 1], 1.0 - t[:, 5] / t[:, 2]
        draws[start : start + size] = np.clip(rogan_gladen_pi(rate=rate, se=se_, sp=sp), 0, 1)
    valid = draws[np.isfinite(draws)]
    notes = rows.notes()
    estimate = float(np.clip(theta, 0.0, 1.0))
    if estimate != theta:
        notes.append(f"clipped to [0, 1] from {theta:.4g}")
    dropped = n_boot - valid.size
    if dropped:
        notes.append(
            f"{dropped} of {n_boot} resamples dropped (no unlabelled answer, an empty gold "
            "class, or J <= 0)"
        )
    if valid.size < 2:
        notes.append("fewer than 2 usable resamples: no bootstrap interval")
        return Estimate(method, estimate, None, j=j, unclipped=theta, notes=tuple(notes))
    tail = 50.0 * (1.0 - prob)
    low, high = np.percentile(valid, [tail, 100.0 - tail])
    iv = Interval(float(low), float(high), prob, "cluster_bootstrap_percentile")
    if not iv.contains(estimate):
        notes.append("the interval does not contain the point estimate")
    se = float(np.std(valid, ddof=1))
    return Estimate(method, estimate, iv, se=se, j=j, unclipped=theta, notes=tuple(notes))


# --------------------------------------------------------------------------- PPI++
def ppi_plus_plus_clustered(
    verdict: ArrayLike,
    gold: ArrayLike,
    item: ArrayLike,
    cluster: ArrayLike | None = None,
    *,
    prob: float = 0.95,
    small_sample: bool = False,
) -> Estimate:
    r"""PPI++ for the success rate with a cluster-robust variance and a power-tuned lambda.

    With the ``n`` labelled answers (gold :math:`g_r`, verdict :math:`v_r`) and the ``N``
    unlabelled ones,

    .. math::

        \hat\theta_\lambda = \frac{\lambda}{N}\sum_{r\,\text{unl.}} v_r
            + \frac1n\sum_{r\,\text{lab.}} (g_r - \lambda v_r)

    (Angelopoulos, Duchi and Zrnic 2023; computed by :func:`~bayesjudge.estimators.ppi_mean`).
    An answer's influence is :math:`\lambda a_r + b_r`, with
    :math:`a_r = (v_r - \bar v_u)/N` if unlabelled and :math:`-(v_r - \bar v_l)/n` if labelled,
    :math:`b_r = (g_r - \bar g)/n` if labelled and 0 otherwise; with the cluster sums
    :math:`A_c, B_c` the variance is :math:`\sum_c(\lambda A_c + B_c)^2`, and lambda is the value
    that minimises it, :math:`\hat\lambda = \mathrm{clip}(-\sum_c A_cB_c / \sum_c A_c^2, 0, 1)`
    (0 when the verdicts do not vary). With one answer per cluster the variance is that of
    :func:`~bayesjudge.estimators.ppi_mean` and the interval is ``ppi_py.ppi_mean_ci`` at the same
    lambda. The interval :math:`\hat\theta \pm z\,\mathrm{se}` is not clipped;
    ``small_sample=True`` applies the few-clusters correction of :func:`rogan_gladen_clustered`
    (lambda is chosen before it, so it is the same).

    It assumes the labelled answers are a random sample of all answers (a note says so).

    Parameters
    ----------
    verdict, gold, item, cluster
        As in :func:`rogan_gladen_clustered`.
    prob : float
        Interval mass.
    small_sample : bool
        Apply the few-clusters correction (a note says so).

    Returns
    -------
    Estimate
        Method ``"ppi_plus_plus_clustered"``, interval kind ``"clustered_clt"``; the chosen
        lambda in a note.

    Raises
    ------
    DataError
        On bad input, or when no answer is labelled or none is unlabelled.

    Examples
    --------
    >>> est = ppi_plus_plus_clustered(
    ...     [1, 1, 0, 0, 1, 0, 1, 0], [1, 1, 0, 1, None, None, None, None],
    ...     ["a", "a", "b", "b", "c", "c", "d", "d"])
    >>> est.notes[1]
    'lambda=0.5'
    """
    rows, prob, _ = _checked(verdict, gold, item, cluster, prob=prob)
    return _ppi_pp(rows, prob=prob, small_sample=small_sample)


def _ppi_pp(rows: _Rows, *, prob: float, small_sample: bool = False) -> Estimate:
    method = "ppi_plus_plus_clustered"
    lab = rows.labelled
    unl = ~lab
    if not lab.any():
        raise DataError(f"{method}: gold labels no answer; PPI++ needs labelled answers")
    if not unl.any():
        raise DataError(
            f"{method}: gold labels every answer, so there is no unlabelled answer; "
            "the mean gold label is the answer"
        )
    v, g = rows.verdict, rows.gold
    n, big_n = lab.sum(), unl.sum()
    a = np.zeros(v.size)
    b = np.zeros(v.size)
    a[unl] = (v[unl] - v[unl].mean()) / big_n
    a[lab] = -(v[lab] - v[lab].mean()) / n
    b[lab] = (g[lab] - g[lab].mean()) / n
    big_a, big_b = rows.cluster_sums(a), rows.cluster_sums(b)
    saa = float(big_a @ big_a)
    lam = float(np.clip(-float(big_a @ big_b) / saa, 0.0, 1.0)) if saa > 0.0 else 0.0
    estimate, _ = ppi_mean(g[lab], v[lab], v[unl], lam=lam)
    factor, z, extra = _critical(rows, prob=prob, small_sample=small_sample)
    se = float(np.sqrt(factor * np.sum((lam * big_a + big_b) ** 2)))
    notes = [*rows.notes(), f"lambda={lam:.4g}", RANDOM_SAMPLE_NOTE, *extra]
    if not 0.0 <= estimate <= 1.0:
        notes.append("the estimate lies outside [0, 1] (PPI does not clip)")
    return Estimate(
        method,
        float(estimate),
        Interval(estimate - z * se, estimate + z * se, prob, "clustered_clt"),
        se=se,
        notes=tuple(notes),
    )


# --------------------------------------------------------------------------- per-item majority
def _majority_rows(rows: _Rows) -> _Rows:
    """One row per item: the majority verdict and the majority gold label of its answers."""
    n_items = rows.item_cluster.size
    r = np.bincount(rows.item, minlength=n_items)
    k = np.bincount(rows.item, weights=rows.verdict, minlength=n_items)
    lab = rows.labelled
    lr = np.bincount(rows.item, weights=lab.astype(float), minlength=n_items)
    lk = np.bincount(rows.item, weights=np.where(lab, rows.gold, 0.0), minlength=n_items)
    verdict = (k >= r // 2 + 1).astype(float)
    with np.errstate(invalid="ignore"):
        gold = np.where(lr > 0, (lk >= np.floor(lr / 2) + 1).astype(float), np.nan)
    return _Rows(
        verdict=verdict,
        gold=gold,
        item=np.arange(n_items, dtype=np.int64),
        cluster=rows.item_cluster,
        n_clusters=rows.n_clusters,
        item_cluster=rows.item_cluster,
        balanced=True,
    )


def _majority(estimate: Estimate) -> Estimate:
    method = estimate.method.replace("_clustered_delta", "_delta").removesuffix("_clustered")
    return replace(estimate, method=f"majority_{method}", notes=(_MAJORITY_NOTE, *estimate.notes))


def majority_baselines(
    verdict: ArrayLike,
    gold: ArrayLike,
    item: ArrayLike,
    cluster: ArrayLike | None = None,
    *,
    prob: float = 0.95,
    small_sample: bool = False,
) -> list[Estimate]:
    r"""Return the baselines on each item's majority verdict (``--epochs majority``).

    Each item becomes one row: its verdict passes when at least :math:`\lfloor r/2\rfloor + 1`
    of its ``r`` answers pass (a tie fails, the rule of
    :func:`~bayesjudge.io.logs.item_verdicts`), and its gold label is the same majority over
    its labelled answers (NaN when none is labelled). The naive rate, Rogan-Gladen with the
    delta interval and PPI++ are then computed on the items, clustered by ``cluster`` when it
    is given (with one answer per item they equal the row-level estimators).
    This estimates the share of items whose majority answer passes, which differs from the
    mean success rate over items whenever items are neither always nor never solved; every
    row says so in a note.

    Parameters
    ----------
    verdict, gold, item, cluster
        As in :func:`rogan_gladen_clustered`.
    prob : float
        Interval mass.
    small_sample : bool
        Apply the few-clusters correction to the delta and PPI++ rows.

    Returns
    -------
    list of Estimate
        Methods ``"majority_naive"``, ``"majority_rogan_gladen_delta"`` and
        ``"majority_ppi_plus_plus"``; a row the reduced data cannot support has ``estimate``
        None and a note saying why.

    Examples
    --------
    >>> rows = majority_baselines(
    ...     [1, 1, 0, 0, 1, 0, 1, 1], [1, 1, 0, 0, None, None, None, None],
    ...     ["a", "a", "b", "b", "c", "c", "d", "d"])
    >>> [r.method for r in rows]
    ['majority_naive', 'majority_rogan_gladen_delta', 'majority_ppi_plus_plus']
    """
    rows, prob, _ = _checked(verdict, gold, item, cluster, prob=prob)
    return _majority_estimates(rows, prob=prob, small_sample=small_sample)


def _majority_estimates(rows: _Rows, *, prob: float, small_sample: bool = False) -> list[Estimate]:
    reduced = _majority_rows(rows)
    out = [_majority(_naive_rows(reduced, prob=prob))]
    for name, fn in (
        ("rogan_gladen_delta", _rg_delta),
        ("ppi_plus_plus", _ppi_pp),
    ):
        try:
            out.append(_majority(fn(reduced, prob=prob, small_sample=small_sample)))
        except NotIdentifiableError as exc:
            out.append(_identified(f"majority_{name}", exc))
        except DataError as exc:
            reason = f"after the per-item majority, {str(exc).split(': ', 1)[-1]}"
            out.append(Estimate(f"majority_{name}", None, notes=(reason,)))
    return out


def _naive_rows(rows: _Rows, *, prob: float) -> Estimate:
    n, c = rows.verdict.size, rows.n_clusters
    mean = float(rows.verdict.mean())
    sums = rows.cluster_sums(rows.verdict - mean)
    se = float(np.sqrt(np.sum(sums**2) * c / (c - 1)) / n)
    t = float(stats.t.ppf(0.5 + prob / 2.0, df=c - 1))
    return Estimate(
        "naive_clustered",
        mean,
        Interval(mean - t * se, mean + t * se, prob, "t"),
        se=se,
        notes=tuple(rows.notes()),
    )


# --------------------------------------------------------------------------- all baselines
def repeated_baselines(
    verdict: ArrayLike,
    gold: ArrayLike,
    item: ArrayLike,
    cluster: ArrayLike | None = None,
    *,
    prob: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
    n_boot: int = 2000,
    small_sample: bool = False,
) -> list[Estimate]:
    r"""Return every repeated-samples baseline, in :data:`REPEATED_BASELINE_METHODS` order.

    Rows: :func:`naive_clustered`, :func:`rogan_gladen_clustered`,
    :func:`rogan_gladen_cluster_bootstrap`, :func:`ppi_plus_plus_clustered`, then the three
    rows of :func:`majority_baselines`. The data are validated once. A Rogan-Gladen row the data
    cannot support (calibration :math:`J \le 0`) is kept with ``estimate`` None and a note.

    Parameters
    ----------
    verdict, gold, item, cluster
        As in :func:`rogan_gladen_clustered`.
    prob : float
        Interval mass.
    random_seed : int, Generator or None
        Seed of the cluster bootstrap.
    n_boot : int
        Bootstrap resamples.
    small_sample : bool
        Apply the few-clusters correction to the delta and PPI++ rows (see
        :func:`rogan_gladen_clustered`).

    Returns
    -------
    list of Estimate

    Raises
    ------
    DataError
        On bad input (the message names the argument and the position), or when no answer is
        unlabelled or gold lacks a class.

    Examples
    --------
    >>> rows = repeated_baselines(
    ...     [1, 1, 0, 0, 1, 0, 1, 0], [1, 1, 0, 0, None, None, None, None],
    ...     ["a", "a", "b", "b", "c", "c", "d", "d"], n_boot=100, random_seed=0)
    >>> [r.method for r in rows][:4]  # doctest: +NORMALIZE_WHITESPACE
    ['naive_clustered', 'rogan_gladen_clustered_delta', 'rogan_gladen_cluster_bootstrap',
     'ppi_plus_plus_clustered']
    """
    rows, prob, n_boot = _checked(verdict, gold, item, cluster, prob=prob, n_boot=n_boot)
    out = [_naive_rows(rows, prob=prob)]
    for method, fn in (
        (
            "rogan_gladen_clustered_delta",
            lambda: _rg_delta(rows, prob=prob, small_sample=small_sample),
        ),
        (
            "rogan_gladen_cluster_bootstrap",
            lambda: _rg_bootstrap(rows, prob=prob, n_boot=n_boot, random_seed=random_seed),
        ),
    ):
        try:
            out.append(fn())
        except NotIdentifiableError as exc:
            out.append(_identified(method, exc))
    out.append(_ppi_pp(rows, prob=prob, small_sample=small_sample))
    out.extend(_majority_estimates(rows, prob=prob, small_sample=small_sample))
    return out
