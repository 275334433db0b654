"""Label-free checks of a gate: calibration-to-evaluation transfer and independent rulings.

* :func:`transfer_check`: the correction transfers only if the gate behaves the same on the
  calibration and evaluation sets; |R_cal - R_eval| is a label-free warning sign.
* :func:`independence_check`: the closed forms assume an item's rulings are independent given
  its pass rate; the lag-1 same-verdict rate tests it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import ndtr

from bayesjudge.errors import DataError
from bayesjudge.gates.caps import check_unit_array
from bayesjudge.io.tables import TableLike
from bayesjudge.validation import seed_stream

__all__ = [
    "IndependenceCheck",
    "TransferCheck",
    "independence_check",
    "independence_check_table",
    "transfer_check",
]


@dataclass(frozen=True, slots=True)
class TransferCheck:
    """Label-free check that calibration transfers: the gated-rate shift ``abs(R_cal - R_eval)``.

    Attributes
    ----------
    r_cal, r_eval : float
        Reported (gated) rates on the calibration and evaluation items.
    shift : float
        ``abs(r_cal - r_eval)``.
    threshold : float
        The shift above which the correction is not trusted.
    transfers : bool
        Whether ``shift <= threshold``.
    verdict : str
        A one-line reading.
    """

    r_cal: float
    r_eval: float
    shift: float
    threshold: float
    transfers: bool
    verdict: str

    def to_dict(self) -> dict[str, object]:
        """Return the check as plain values."""
        return asdict(self)


def transfer_check(r_cal: float, r_eval: float, *, threshold: float = 0.05) -> TransferCheck:
    r"""Label-free transfer check :math:`|R_{cal} - R_{eval}| \le` ``threshold``.

    Below the Reliability Floor, section 4: the observed gated-rate shift between the calibration
    and the evaluation items predicts whether a correction will beat the naive rate (ROC-AUC 0.80
    over 76 transfers); trusting the correction only when the shift is below 0.05 gave precision
    0.94 there. The 0.05 default is that paper's in-sample, illustrative operating point.

    Examples
    --------
    >>> transfer_check(0.82, 0.90).verdict
    'shift 0.080 > 0.05: calibration may not transfer; report the raw rate or re-calibrate'
    """
    check_unit_array("r_cal", r_cal)
    check_unit_array("r_eval", r_eval)
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must lie in (0, 1); got {threshold!r}")
    shift = abs(float(r_cal) - float(r_eval))
    ok = shift <= threshold
    verdict = (
        f"shift {shift:.3f} <= {threshold:g}: calibration transfers; the correction can be trusted"
        if ok
        else f"shift {shift:.3f} > {threshold:g}: calibration may not transfer; report the raw "
        "rate or re-calibrate"
    )
    return TransferCheck(float(r_cal), float(r_eval), shift, float(threshold), ok, verdict)


@dataclass(frozen=True, slots=True)
class IndependenceCheck:
    """Lag-1 same-verdict check of the independence of repeated rulings.

    Reference: Below the Reliability Floor, section 2.

    Attributes
    ----------
    observed : float
        Share of consecutive ruling pairs of an item with the same verdict.
    expected : float
        Its expectation under independent rulings with a fixed per-item pass rate.
    difference : float
        ``observed - expected``.
    p_value : float
        Two-sided p-value of the observed count of agreeing pairs against rulings shuffled
        within items (normal approximation with the exact moments, or a permutation test).
    n_pairs, n_items : int
        Consecutive pairs and items with at least two rulings.
    flippy : float
        Share of those items with both verdicts (0 < p_i < 1).
    consistent : bool
        Whether ``p_value >= 0.05`` (no detectable serial correlation).
    """

    observed: float
    expected: float
    difference: float
    p_value: float
    n_pairs: int
    n_items: int
    flippy: float
    consistent: bool

    def to_dict(self) -> dict[str, object]:
        """Return the check as plain values (the ``independence_check`` JSON object)."""
        return asdict(self)


def independence_check(
    item: ArrayLike,
    verdict: ArrayLike,
    *,
    method: Literal["moments", "permutation"] = "moments",
    n_permutations: int = 500,
    random_seed: int | np.random.Generator | None = None,
) -> IndependenceCheck:
    r"""Compare the lag-1 same-verdict rate of repeated rulings with independence.

    Under independent rulings with per-item rate :math:`p_i`, a consecutive pair agrees with
    probability :math:`p_i^2 + (1-p_i)^2` (Below the Reliability Floor, section 2). The plug-in
    :math:`\hat p_i = k_i/r_i` overstates this by :math:`2p_i(1-p_i)/r_i`, so the expectation
    here is the exact one given each item's counts (the rulings are then exchangeable):

    .. math:: E[\text{same pairs}_i] = (r_i - 1)\,
        \frac{k_i(k_i-1) + (r_i-k_i)(r_i-k_i-1)}{r_i(r_i-1)}.

    Under the null the rulings of an item are exchangeable, so its number of agreeing pairs is
    :math:`r_i - \text{runs}_i`, whose variance is that of the number of runs of a random
    arrangement of :math:`k_i` passes and :math:`r_i - k_i` fails (Wald and Wolfowitz 1940):

    .. math:: \operatorname{Var}(\text{same pairs}_i) = \frac{2k_i(r_i-k_i)\,(2k_i(r_i-k_i)
        - r_i)}{r_i^2(r_i-1)}.

    With ``method="moments"`` (the default) the p-value is the two-sided normal tail of the
    summed count standardised by these exact moments: linear in the number of rulings, and
    accurate once a few dozen items are flippy. ``method="permutation"`` shuffles each item's
    rulings ``n_permutations`` times instead (vectorised, in chunks; exact up to Monte Carlo
    error, but it costs ``n_permutations`` sorts of every ruling).

    Parameters
    ----------
    item, verdict : array_like
        One entry per ruling, in ruling order within each item (items may interleave).
    method : {"moments", "permutation"}
        How the p-value is computed.
    n_permutations : int
        Permutations of the p-value (``method="permutation"``).
    random_seed : int, Generator or None
        Seed of the permutations.

    Raises
    ------
    DataError
        If no item has two rulings.

    Examples
    --------
    >>> check = independence_check(["a"] * 4 + ["b"] * 4, [1, 1, 0, 0, 0, 1, 0, 1],
    ...                            random_seed=0)
    >>> check.observed, round(check.expected, 3)
    (0.3333333333333333, 0.333)
    """
    items = np.asarray(item)
    v = np.asarray(verdict, dtype=float)
    if items.shape != v.shape or v.ndim != 1:
        raise ValueError("item and verdict must be 1-D of the same length")
    if method not in ("moments", "permutation"):
        raise ValueError(f"method must be one of ['moments', 'permutation']; got {method!r}")
    if isinstance(n_permutations, bool) or int(n_permutations) < 1:
        raise ValueError(f"n_permutations must be a positive whole number; got {n_permutations!r}")
    codes, _ = pd.factorize(items, sort=False)
    order = np.argsort(codes, kind="stable")
    codes, v = codes[order], v[order]
    r = np.bincount(codes)
    k = np.bincount(codes, weights=v)
    multi = r >= 2
    if not multi.any():
        raise DataError("the independence check needs items with at least two rulings; none has")
    same_pair = codes[1:] == codes[:-1]
    n_pairs = int(same_pair.sum())
    observed = float(np.mean(v[1:][same_pair] == v[:-1][same_pair]))
    rm, km = r[multi].astype(float), k[multi]
    expected_pairs = (km * (km - 1) + (rm - km) * (rm - km - 1)) / rm
    expected = float(expected_pairs.sum() / n_pairs)
    if method == "moments":
        mixed = 2.0 * km * (rm - km)
        variance = float(np.sum(mixed * (mixed - rm) / (rm**2 * (rm - 1.0))))
        if variance > 0:
            z = (observed - expected) * n_pairs / np.sqrt(variance)
            p_value = float(2.0 * ndtr(-abs(z)))
        else:  # every item has a single verdict: nothing can differ from independence
            p_value = 1.0
    else:
        p_value = _permutation_p_value(
            v, codes, same_pair, expected, abs(observed - expected), n_permutations, random_seed
        )
    flippy = float(np.mean((k[multi] > 0) & (k[multi] < r[multi])))
    return IndependenceCheck(
        observed=observed,
        expected=expected,
        difference=observed - expected,
        p_value=float(p_value),
        n_pairs=n_pairs,
        n_items=int(multi.sum()),
        flippy=flippy,
        consistent=bool(p_value >= 0.05),
    )


def _permutation_p_value(
    v: np.ndarray,
    codes: np.ndarray,
    same_pair: np.ndarray,
    expected: float,
    deviation: float,
    n_permutations: int,
    random_seed: int | np.random.Generator | None,
) -> float:
    """Two-sided permutation p-value of the agreeing-pair share (rulings shuffled within items)."""
    rng = seed_stream(random_seed, "resample")
    extreme = 0
    chunk = max(1, min(int(n_permutations), 5_000_000 // max(v.size, 1)))
    done = 0
    while done < n_permutations:
        size = min(chunk, int(n_permutations) - done)
        keys = rng.random((size, v.size)) + codes[None, :]
        shuffled = np.take_along_axis(np.broadcast_to(v, keys.shape), np.argsort(keys, axis=1), 1)
        same = (shuffled[:, 1:] == shuffled[:, :-1])[:, same_pair].mean(axis=1)
        extreme += int(np.sum(np.abs(same - expected) >= deviation - 1e-12))
        done += size
    return (1 + extreme) / (1 + int(n_permutations))


def independence_check_table(
    table: TableLike,
    *,
    method: Literal["moments", "permutation"] = "moments",
    n_permutations: int = 500,
    random_seed: int | np.random.Generator | None = None,
) -> IndependenceCheck:
    """Run :func:`independence_check` on a long rulings table (``item``, ``verdict``[, ``ruling``]).

    The table is read by :meth:`bayesjudge.gates.data.Rulings.from_frame` (so any format, with
    its checks); rulings are ordered by the ``ruling`` column when there is one, else by row
    order.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"item": ["a", "a", "a"], "ruling": [3, 1, 2], "verdict": [1, 0, 0]})
    >>> independence_check_table(t, random_seed=0).observed
    0.5
    """
    from bayesjudge.gates.data import Rulings

    sequence = Rulings.from_frame(table).sequence
    assert sequence is not None
    items, verdict = sequence
    return independence_check(
        items, verdict, method=method, n_permutations=n_permutations, random_seed=random_seed
    )
