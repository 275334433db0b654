r"""Systems compared on the same items with several judged answers each (``rank --epoch``).

One row is one answer of one system to one item: columns ``system``, ``item``, ``verdict``
(the judge's 0/1 verdict), ``label`` (the gold 0/1 label, blank when unlabelled), ``epoch`` (the
column numbering a system's answers to an item; each (system, item, epoch) once) and,
optionally, ``cluster`` (the task or conversation an item belongs to, the same on every row of
the item). The gold label is read per answer by default; with ``gold_per="item"`` it is the
label of the system's answers to the item, the same on every one of its rows, and holds for each
of them (the repeated family's two readings, :mod:`bayesjudge.repeated.data`).

:class:`RepeatedSystemsData` reduces the answers to six counts per *cell*, one (system, item)
pair that holds at least one answer, in the prevalence family's vocabulary: ``n``/``k``
(unlabelled answers, of which the judge passed ``k``), ``m1``/``x1`` (gold-PASS answers, judge
passed ``x1``) and ``m0``/``x0`` (gold-FAIL answers, judge passed ``x0``). The model
(:func:`bayesjudge.models.repeated_systems.repeated_systems_model`) depends on the data only
through them.

Baselines (judge-uncorrected, on the unlabelled answers): :func:`clustered_naive_difference`
estimates the difference of two systems' judged pass rates over their answers, with the cluster-
robust ("sandwich") standard error summed within items (the pairing and the repetition both
counted: Liang and Zeger, "Longitudinal data analysis using generalized linear models", 1986;
Miller, "Adding error bars to evals", 2024) or, for comparison, with every answer read as an
independent row.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import IO, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from bayesjudge.errors import DataError
from bayesjudge.io._judged import read_judged
from bayesjudge.io.groups import GroupCheck
from bayesjudge.io.mapping import Field
from bayesjudge.io.source import InputReport
from bayesjudge.io.tables import TableFormat
from bayesjudge.repeated import GOLD_PER
from bayesjudge.results import Estimate, Interval
from bayesjudge.systems.data import (
    SYSTEM_FIELDS,
    _binary,
    _check_labels,
    _names,
    _row,
    _systems_of,
)
from bayesjudge.validation import check_prob

__all__ = [
    "REPEATED_SYSTEM_FIELDS",
    "RepeatedSystemsData",
    "RepeatedSystemsSimulation",
    "clustered_naive_difference",
    "simulate_repeated_systems",
]

#: The columns :meth:`RepeatedSystemsData.read` reads (mapped with ``columns=``, ``--map``).
REPEATED_SYSTEM_FIELDS = (
    *(replace(f, required=True) if f.name == "item" else f for f in SYSTEM_FIELDS),
    Field("epoch", "whole"),
    Field("cluster", "text", required=False),
)
_COUNTS = ("n", "k", "m1", "x1", "m0", "x0")
#: Whether a gold label belongs to one answer or to every answer of a system's item.
type GoldPer = Literal["answer", "item"]


def _frozen(values: ArrayLike, dtype: type) -> np.ndarray:
    out: np.ndarray = np.array(values, dtype=dtype)
    out.flags.writeable = False
    return out


@dataclass(frozen=True, slots=True, eq=False)
class RepeatedSystemsData:
    """Validated answers of several systems on shared items, several answers per (system, item).

    Build it with :meth:`from_frame` or :meth:`read`; the constructor does not validate.

    Attributes
    ----------
    systems, items : tuple of str
        Systems and items in order of first appearance.
    clusters : tuple of str or None
        The clusters in order of first appearance; None without a cluster column.
    cluster_index : ndarray of int or None, shape (items,)
        Each item's cluster (position in ``clusters``).
    cell_system, cell_item : ndarray of int, shape (cells,)
        The system and item of each cell (a (system, item) pair with answers).
    n, k, m1, x1, m0, x0 : ndarray of int, shape (cells,)
        The six counts of each cell (module docstring).
    answer_system, answer_item : ndarray of int, shape (answers,)
        Each answer's system and item, in file order.
    answer_verdict, answer_label : ndarray of float, shape (answers,)
        Each answer's verdict (1/0) and gold label (1/0, NaN when unlabelled).
    gold_per : {"answer", "item"}
        Whether the gold labels were given per answer or per (system, item).
    origin : InputReport or None
        What was read and how.
    """

    systems: tuple[str, ...]
    items: tuple[str, ...]
    clusters: tuple[str, ...] | None
    cluster_index: NDArray[np.int64] | None
    cell_system: NDArray[np.int64]
    cell_item: NDArray[np.int64]
    n: NDArray[np.int64]
    k: NDArray[np.int64]
    m1: NDArray[np.int64]
    x1: NDArray[np.int64]
    m0: NDArray[np.int64]
    x0: NDArray[np.int64]
    answer_system: NDArray[np.int64]
    answer_item: NDArray[np.int64]
    answer_verdict: NDArray[np.float64]
    answer_label: NDArray[np.float64]
    gold_per: str = "answer"
    origin: InputReport | None = None

    @property
    def n_answers(self) -> int:
        """The number of answers (rows)."""
        return int(self.answer_verdict.size)

    @property
    def n_cells(self) -> int:
        """The number of (system, item) pairs with answers."""
        return int(self.cell_system.size)

    def counts(self) -> dict[str, NDArray[np.int64]]:
        """Return the six counts per cell, keyed ``n``, ``k``, ``m1``, ``x1``, ``m0``, ``x0``."""
        return {name: getattr(self, name) for name in _COUNTS}

    def answers_per_cell(self) -> tuple[int, int]:
        """Return the fewest and the most answers of one system to one item."""
        total = self.n + self.m1 + self.m0
        return int(total.min()), int(total.max())

    def design(self) -> str:
        """Return the design in words: ``"N items, K answers each"`` (or ``"K1 to K2"``).

        Examples
        --------
        >>> frame = pd.DataFrame({"system": list("aaabbb"), "item": [1] * 6,
        ...                       "epoch": [1, 2, 3] * 2, "verdict": [1, 0, 1, 1, 1, 0],
        ...                       "label": [1, 0, None, None, None, None]})
        >>> RepeatedSystemsData.from_frame(frame).design()
        '1 item, 3 answers each'
        """
        low, high = self.answers_per_cell()
        each = f"{low}" if low == high else f"{low} to {high}"
        plural = "" if len(self.items) == 1 else "s"
        return f"{len(self.items)} item{plural}, {each} answers each"

    @classmethod
    def read(
        cls,
        source: pd.DataFrame | str | os.PathLike[str] | IO[bytes],
        *,
        format: TableFormat = "auto",
        columns: Mapping[str, str] | None = None,
        positive: Sequence[str] = (),
        negative: Sequence[str] = (),
        strict: bool = False,
        gold_per: GoldPer = "answer",
    ) -> RepeatedSystemsData:
        r"""Read and validate repeated answers of several systems from any table.

        Parameters
        ----------
        source : DataFrame, path, ``"-"`` or binary file
            One row per judged answer: ``system``, ``item``, ``epoch``, ``verdict`` (PASS/FAIL
            in any built-in or given spelling), optional ``label`` and ``cluster``. Read by
            :func:`bayesjudge.io.read_table`.
        format : {"auto", "csv", "tsv", "jsonl", "parquet"}
            The table format.
        columns : mapping, optional
            ``{name: column}`` for columns named otherwise, e.g. ``{"epoch": "attempt"}``.
        positive, negative : sequence of str
            Extra PASS and FAIL spellings.
        strict : bool
            Reject columns that none of the names reads.
        gold_per : {"answer", "item"}
            Whether a gold label is its answer's, or the (system, item)'s on every row.

        Raises
        ------
        DataError
            Listing the input's problems (missing or badly mapped columns, values that are not
            PASS/FAIL), then every check of :meth:`from_frame`.

        Examples
        --------
        >>> import io
        >>> text = io.BytesIO(b"model,q,try,judge,gold\nA,1,1,pass,pass\nA,1,2,fail,\n"
        ...                   b"B,1,1,pass,fail\nB,1,2,pass,")
        >>> data = RepeatedSystemsData.read(text, columns={"system": "model", "item": "q",
        ...     "epoch": "try", "verdict": "judge", "label": "gold"})
        >>> data.systems, data.n.tolist(), data.m1.tolist(), data.m0.tolist()
        (('A', 'B'), [1, 1], [1, 0], [0, 1])
        """
        read = read_judged(
            source,
            REPEATED_SYSTEM_FIELDS,
            format=format,
            columns=columns,
            positive=positive,
            negative=negative,
            strict=strict,
            groups=GroupCheck(rank=False, named_only=True),
        )
        read.problems.raise_if_any()
        data = cls.from_frame(read.parsed, gold_per=gold_per)
        return replace(data, origin=read.origin(len(data.items)))

    @classmethod
    def from_frame(
        cls, frame: pd.DataFrame, *, gold_per: GoldPer = "answer"
    ) -> RepeatedSystemsData:
        """Validate parsed answers: ``system``, ``item``, ``epoch``, ``verdict``, ``label``.

        Parameters
        ----------
        frame : DataFrame
            One row per answer; ``verdict`` and ``label`` 0/1 (``label`` NaN or missing when
            unlabelled), ``epoch`` a whole number, optional ``cluster``. Other columns are
            ignored.
        gold_per : {"answer", "item"}
            As in :meth:`read`.

        Raises
        ------
        DataError
            On a missing column or value; a verdict or label that is not 0/1; fewer than two
            systems; a (system, item, epoch) given twice; with ``gold_per="item"`` a label that
            differs between the rows of one system's item; a cluster that differs between the
            rows of an item; a system with no unlabelled answers; or no gold-PASS or no
            gold-FAIL answer. Each message names the column and the row(s).

        Examples
        --------
        >>> frame = pd.DataFrame({"system": list("aaabbb"), "item": [1] * 6,
        ...                       "epoch": [1, 2, 3] * 2, "verdict": [1, 0, 1, 1, 1, 0],
        ...                       "label": [1, 0, None, None, None, None]})
        >>> data = RepeatedSystemsData.from_frame(frame)
        >>> data.n.tolist(), data.k.tolist(), data.m1.tolist(), data.m0.tolist()
        ([1, 3], [1, 2], [1, 0], [1, 0])
        """
        if gold_per not in GOLD_PER:
            raise ValueError(f"gold_per must be one of {list(GOLD_PER)}; got {gold_per!r}")
        systems, system_index = _systems_of(
            frame, ("system", "item", "epoch", "verdict"), what="repeated systems data"
        )
        items, item_index = _names(frame, "item")
        epochs, epoch_index = _names(frame, "epoch")
        verdict = _binary(frame, "verdict", allow_missing=False)
        if "label" in frame.columns:
            label = _binary(frame, "label", allow_missing=True)
        else:
            label = np.full(len(frame), np.nan)
        n_s, n_i = len(systems), len(items)
        answer = (item_index * n_s + system_index) * len(epochs) + epoch_index
        _first_repeat(
            frame,
            answer,
            lambda i, j: (
                f"column 'epoch': system {systems[system_index[i]]!r} answers item "
                f"{items[item_index[i]]!r} twice with epoch {epochs[epoch_index[i]]!r} (rows "
                f"{_row(frame, i)} and {_row(frame, j)}); each (system, item, epoch) once"
            ),
        )
        cell_key = item_index * n_s + system_index
        if gold_per == "item":
            _constant_within(frame, cell_key, label, "label", "the gold label of a system's item")
        clusters: tuple[str, ...] | None = None
        cluster_index: NDArray[np.int64] | None = None
        if "cluster" in frame.columns:
            clusters, answer_cluster = _names(frame, "cluster")
            _constant_within(
                frame, item_index, answer_cluster.astype(float), "cluster", "an item's cluster"
            )
            cluster_index = np.zeros(n_i, dtype=np.int64)
            cluster_index[item_index] = answer_cluster
        _check_labels(label, system_index, systems)
        unlabelled = np.isnan(label)
        keys, cell = np.unique(cell_key, return_inverse=True)
        size = keys.size

        def tally(mask: NDArray[np.bool_]) -> NDArray[np.int64]:
            return np.bincount(cell[mask], minlength=size).astype(np.int64)

        passed = verdict == 1.0
        counts = {
            "n": tally(unlabelled),
            "k": tally(unlabelled & passed),
            "m1": tally(label == 1.0),
            "x1": tally((label == 1.0) & passed),
            "m0": tally(label == 0.0),
            "x0": tally((label == 0.0) & passed),
        }
        return cls(
            systems=systems,
            items=items,
            clusters=clusters,
            cluster_index=None if cluster_index is None else _frozen(cluster_index, np.int64),
            cell_system=_frozen(keys % n_s, np.int64),
            cell_item=_frozen(keys // n_s, np.int64),
            **{name: _frozen(v, np.int64) for name, v in counts.items()},  # type: ignore[arg-type]
            answer_system=_frozen(system_index, np.int64),
            answer_item=_frozen(item_index, np.int64),
            answer_verdict=_frozen(verdict, np.float64),
            answer_label=_frozen(label, np.float64),
            gold_per=gold_per,
        )

    def __repr__(self) -> str:
        return (
            f"RepeatedSystemsData({len(self.systems)} systems, {self.design()}, "
            f"{int(self.m1.sum() + self.m0.sum())} gold-labelled answers)"
        )


def _first_pair(
    key: NDArray[np.int64], differ: NDArray[np.int64] | None = None
) -> tuple[int, int] | None:
    """Return the first two rows (in ``key`` order) with the same ``key``: a repeat.

    With ``differ``, the first two rows with the same ``key`` whose ``differ`` values differ.
    """
    codes = np.zeros_like(key) if differ is None else differ
    order = np.lexsort((codes, key))
    hit = np.diff(key[order]) == 0
    if differ is not None:
        hit &= np.diff(codes[order]) != 0
    first = np.flatnonzero(hit)
    return (int(order[first[0]]), int(order[first[0] + 1])) if first.size else None


def _first_repeat(frame: pd.DataFrame, key: NDArray[np.int64], message: object) -> None:
    """Raise naming the first two rows with the same ``key``; ``message(i, j)`` words it."""
    pair = _first_pair(key)
    if pair is not None:
        raise DataError(message(*pair))  # type: ignore[operator]


def _constant_within(
    frame: pd.DataFrame,
    group: NDArray[np.int64],
    values: NDArray[np.float64],
    column: str,
    what: str,
) -> None:
    """Raise naming two rows of one group whose ``values`` differ (NaN equal to NaN)."""
    pair = _first_pair(group, np.where(np.isnan(values), -1, values).astype(np.int64))
    if pair is not None:
        raise DataError(
            f"column {column!r} must be the same on every row ({what}); rows "
            f"{_row(frame, pair[0])} and {_row(frame, pair[1])} differ"
        )


def clustered_naive_difference(
    verdict: ArrayLike,
    second: ArrayLike,
    item: ArrayLike,
    *,
    clustered: bool = True,
    prob: float = 0.95,
) -> Estimate:
    r"""Return the difference of two systems' judged pass rates, clustered by item or not.

    With :math:`v_r` the verdicts, :math:`\hat p_A` and :math:`\hat p_B` the mean verdict over
    each system's :math:`N_A`, :math:`N_B` answers and :math:`\hat d = \hat p_B - \hat p_A`,
    each answer's influence is :math:`\phi_r = (v_r - \hat p_B)/N_B` for system B and
    :math:`-(v_r - \hat p_A)/N_A` for A, and

    .. math::

        \mathrm{se}^2 = \frac{C}{C - 1}\sum_{c=1}^{C}\Big(\sum_{r \in c}\phi_r\Big)^2,
        \qquad \hat d \pm t_{C-1}\,\mathrm{se},

    the cluster-robust variance (Liang and Zeger 1986) with clusters :math:`c` the items, so
    the two systems' answers to one item (the pairing) and the answers of one system to it (the
    repetition) are summed before squaring; with ``clustered=False`` every answer is its own
    cluster (the rows-as-independent interval). The finite-cluster factor and the
    :math:`t_{C-1}` critical value are those of inspect_ai's clustered ``stderr`` and ``ci``
    (Miller, "Adding error bars to evals", 2024). The judge's errors are not corrected.

    Parameters
    ----------
    verdict : array_like of 0/1
        The judge's verdict on each answer of the two systems.
    second : array_like of bool
        Whether the answer is system B's (True) or system A's (False).
    item : array_like
        Each answer's item.
    clustered : bool, default True
        Sum the influences within items (False: every answer independent).
    prob : float, default 0.95
        Interval mass.

    Returns
    -------
    Estimate
        Method ``"naive_diff_clustered"`` or ``"naive_diff_rows_independent"``, interval kind
        ``"t"``.

    Examples
    --------
    >>> est = clustered_naive_difference([1, 0, 1, 1, 0, 0, 1, 1], [0, 0, 1, 1, 0, 0, 1, 1],
    ...                        [1, 1, 1, 1, 2, 2, 2, 2])
    >>> print(f"{est.estimate:.2f} {est.se:.2f}")
    0.75 0.25
    """
    prob = check_prob(prob)
    v = np.asarray(verdict, dtype=float)
    b = np.asarray(second, dtype=bool)
    ids = pd.factorize(pd.Series(np.asarray(item)).astype(str))[0]
    if not (v.shape == b.shape == ids.shape) or v.ndim != 1:
        raise DataError("verdict, second and item must be one-dimensional and of equal length")
    if not np.isin(v, (0.0, 1.0)).all():
        raise DataError("verdict must hold 0/1 only")
    n_b, n_a = int(b.sum()), int((~b).sum())
    if n_a == 0 or n_b == 0:
        raise DataError("clustered_naive_difference needs answers of both systems")
    p_b, p_a = float(v[b].mean()), float(v[~b].mean())
    phi = np.where(b, (v - p_b) / n_b, -(v - p_a) / n_a)
    groups = ids if clustered else np.arange(v.size)
    c = int(groups.max()) + 1
    if c < 2:
        raise DataError("clustered_naive_difference needs at least two items")
    sums = np.bincount(groups, weights=phi, minlength=c)
    se = float(np.sqrt(np.sum(sums**2) * c / (c - 1.0)))
    t = float(stats.t.ppf(0.5 + prob / 2.0, df=c - 1))
    d = p_b - p_a
    method = "naive_diff_clustered" if clustered else "naive_diff_rows_independent"
    note = (
        f"clustered by item ({c} items, {v.size} answers)"
        if clustered
        else f"{v.size} answers treated as independent"
    )
    return Estimate(
        method,
        d,
        Interval(d - t * se, d + t * se, prob, "t"),
        se=se,
        notes=(note, "judge uncorrected"),
    )


@dataclass(frozen=True, slots=True)
class RepeatedSystemsSimulation:
    """Simulated repeated answers of several systems and the truth behind them.

    Attributes
    ----------
    frame : DataFrame
        One row per answer: ``system``, ``item``, ``epoch``, ``verdict``, ``label`` (gold on
        a random ``gold_answers`` of the answers, blank elsewhere).
    pi : dict of str to float
        Each system's true success rate over the population of items.
    """

    frame: pd.DataFrame
    pi: dict[str, float]


def simulate_repeated_systems(
    n_items: int,
    epochs: int,
    logits: Sequence[float],
    *,
    item_sd: float = 1.0,
    cell_sd: float = 0.5,
    se: float = 0.9,
    sp: float = 0.9,
    gold_answers: int = 100,
    random_seed: int | np.random.Generator | None = None,
) -> RepeatedSystemsSimulation:
    r"""Simulate systems answering the same items ``epochs`` times each under one judge.

    :math:`\mathrm{logit}\,p_{si} = \mu_s + \sigma_b z_i + \sigma_e e_{si}`, each answer's
    truth :math:`\mathrm{Bernoulli}(p_{si})`, its verdict Se/Sp; ``gold_answers`` answers drawn
    at random carry their truth as the gold label. The true rate of system :math:`s` is
    :math:`E[\mathrm{logit}^{-1}(\mu_s + \sqrt{\sigma_b^2 + \sigma_e^2}\,x)]`, by Gauss-Hermite
    quadrature.

    Parameters
    ----------
    n_items, epochs : int
        Items, and answers of each system to each item.
    logits : sequence of float
        :math:`\mu_s`, one per system (systems ``s0``, ``s1``, ...).
    item_sd, cell_sd : float
        :math:`\sigma_b` and :math:`\sigma_e`.
    se, sp : float
        The judge's sensitivity and specificity.
    gold_answers : int
        How many answers carry a gold label.
    random_seed : int, Generator or None
        The seed (None: the default seed).

    Returns
    -------
    RepeatedSystemsSimulation

    Examples
    --------
    >>> sim = simulate_repeated_systems(20, 3, [0.0, 0.5], random_seed=1)
    >>> len(sim.frame), sorted(sim.pi)
    (120, ['s0', 's1'])
    """
    from numpy.polynomial.hermite_e import hermegauss

    from bayesjudge.validation import seed_stream

    rng = seed_stream(random_seed, "simulate")
    mu = np.asarray(logits, dtype=float)
    n_s = mu.size
    z = rng.standard_normal(n_items)
    e = rng.standard_normal((n_s, n_items))
    p = 1.0 / (1.0 + np.exp(-(mu[:, None] + item_sd * z[None, :] + cell_sd * e)))
    truth = rng.random((n_s, n_items, epochs)) < p[..., None]
    verdict = np.where(truth, rng.random(truth.shape) < se, rng.random(truth.shape) >= sp)
    s_idx, i_idx, t_idx = np.meshgrid(
        np.arange(n_s), np.arange(n_items), np.arange(epochs), indexing="ij"
    )
    label = np.full(truth.size, np.nan)
    gold = rng.choice(truth.size, size=min(gold_answers, truth.size), replace=False)
    label[gold] = truth.ravel()[gold]
    frame = pd.DataFrame(
        {
            "system": [f"s{s}" for s in s_idx.ravel()],
            "item": [f"q{i}" for i in i_idx.ravel()],
            "epoch": t_idx.ravel() + 1,
            "verdict": verdict.ravel().astype(np.int64),
            "label": label,
        }
    )
    nodes, weights = hermegauss(40)
    scale = np.hypot(item_sd, cell_sd)
    rates = (weights / weights.sum()) @ (
        1.0 / (1.0 + np.exp(-(mu[None, :] + scale * nodes[:, None])))
    )
    return RepeatedSystemsSimulation(frame, {f"s{s}": float(rates[s]) for s in range(n_s)})
