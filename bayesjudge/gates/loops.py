"""Revise-then-rejudge loops: the slip law, replaying logged loops, and the PPV correction.

A loop revises an item and asks the judge again until it passes or the cap is reached; a
*slip* is a shipped item that is wrong. The forward model of the slip rate and its correction
by the positive predictive value of a PASS follow Below the Reliability Floor (anonymous,
under review 2026), section 5.1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from bayesjudge.errors import DataError
from bayesjudge.gates.caps import check_caps, check_unit_array
from bayesjudge.gates.data import LoopLog
from bayesjudge.results import Estimate, Interval
from bayesjudge.validation import check_prob, seed_stream, z_value

__all__ = [
    "LoopReplay",
    "PPVCorrection",
    "SlipLaw",
    "SlipParameters",
    "ppv_correction",
    "replay_loop",
    "slip_law",
    "slip_parameters",
]


@dataclass(frozen=True, slots=True, eq=False)
class SlipLaw:
    r"""The slip-law forward model of a revise-then-rejudge loop at each cap.

    Reference: Below the Reliability Floor, 5.1.

    Attributes
    ----------
    caps : ndarray of int
    rho : float
        Per-attempt pass probability :math:`\rho = a s + (1 - a)\ell`.
    reported : ndarray
        :math:`1 - (1 - \rho)^K`.
    slip : ndarray
        :math:`\text{reported}(K)\,(1 - a)\ell / \rho` (shipped but wrong).
    delivered : ndarray
        :math:`\text{reported}(K)\,a s / \rho` (shipped and correct).
    """

    caps: NDArray[np.int64]
    rho: float
    reported: NDArray[np.float64]
    slip: NDArray[np.float64]
    delivered: NDArray[np.float64]

    def to_frame(self) -> pd.DataFrame:
        """Return one row per cap: k, reported, delivered, slip."""
        return pd.DataFrame(
            {
                "k": self.caps,
                "reported": self.reported,
                "delivered": self.delivered,
                "slip": self.slip,
            }
        )


def slip_law(a: float, s: float, leak: float, *, caps: ArrayLike) -> SlipLaw:
    r"""Forward model of the slip of a revise-then-rejudge loop.

    Reference: Below the Reliability Floor, section 5.1.

    Each attempt is independently correct with rate ``a``; the judge passes a correct attempt
    with probability ``s`` and a wrong one with the leak ``leak``, so an attempt passes with
    :math:`\rho = a s + (1-a)\ell`,

    .. math::

        \text{reported}(K) = 1 - (1 - \rho)^K, \quad
        \text{slip}(K) = \text{reported}(K)\,\frac{(1-a)\ell}{\rho}.

    Examples
    --------
    >>> law = slip_law(0.3, 0.9, 0.5, caps=[1, 5])
    >>> law.reported.round(3).tolist(), law.slip.round(3).tolist()
    ([0.62, 0.992], [0.35, 0.56])
    """
    for name, value in {"a": a, "s": s, "leak": leak}.items():
        check_unit_array(name, value)
    k = check_caps(caps)
    rho = a * s + (1.0 - a) * leak
    reported = np.asarray(1.0 - (1.0 - rho) ** k, dtype=float)
    slip = np.asarray(
        reported * (1.0 - a) * leak / rho if rho > 0 else np.zeros_like(reported), dtype=float
    )
    return SlipLaw(caps=k, rho=float(rho), reported=reported, slip=slip, delivered=reported - slip)


@dataclass(frozen=True, slots=True)
class SlipParameters:
    """Per-attempt loop statistics (a, s, leak) estimated from loop logs.

    Attributes
    ----------
    a : float
        Share of attempts that are correct.
    s : float
        Judge pass rate on correct attempts.
    leak : float
        Judge pass rate on wrong attempts.
    n_attempts : int
        Attempts used.
    """

    a: float
    s: float
    leak: float
    n_attempts: int

    def law(self, caps: ArrayLike) -> SlipLaw:
        """Return :func:`slip_law` at these parameters."""
        return slip_law(self.a, self.s, self.leak, caps=caps)


def slip_parameters(log: LoopLog) -> SlipParameters:
    r"""Estimate the slip law's (a, s, leak) from a loop's own attempt logs.

    Reference: Below the Reliability Floor, 5.1.

    :math:`\hat a` is the share of attempts that are correct, :math:`\hat s` the share of
    correct attempts the judge passed and :math:`\hat\ell` the share of wrong attempts it
    passed.

    Raises
    ------
    DataError
        If the logs have no correct or no wrong attempt (s or leak is then undefined).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesjudge.gates.data import LoopLog
    >>> log = LoopLog.from_frame(pd.DataFrame({"item": [1, 1, 2], "attempt": [1, 2, 1],
    ...                                        "verdict": [0, 1, 1], "correct": [0, 1, 0]}))
    >>> slip_parameters(log)
    SlipParameters(a=0.3333333333333333, s=1.0, leak=0.5, n_attempts=3)
    """
    correct = log.correct == 1.0
    if not correct.any():
        raise DataError(
            "loop log: no attempt is correct, so the judge's sensitivity s is undefined"
        )
    if correct.all():
        raise DataError("loop log: every attempt is correct, so the judge's leak is undefined")
    return SlipParameters(
        a=float(correct.mean()),
        s=float(log.verdict[correct].mean()),
        leak=float(log.verdict[~correct].mean()),
        n_attempts=int(correct.size),
    )


@dataclass(frozen=True, slots=True, eq=False)
class LoopReplay:
    """What a loop would have reported and delivered at each cap, replayed from its logs.

    Attributes
    ----------
    caps : ndarray of int
    reported : ndarray
        Share of items shipped (a PASS within the first K attempts).
    delivered : ndarray
        Share of items shipped with a correct attempt (true delivered success).
    slip : ndarray
        ``reported - delivered``.
    ppv : ndarray
        ``delivered / reported`` (NaN where nothing shipped).
    n_items : int
    """

    caps: NDArray[np.int64]
    reported: NDArray[np.float64]
    delivered: NDArray[np.float64]
    slip: NDArray[np.float64]
    ppv: NDArray[np.float64]
    n_items: int

    def to_frame(self) -> pd.DataFrame:
        """Return one row per cap: k, reported, delivered, slip, ppv."""
        return pd.DataFrame(
            {
                "k": self.caps,
                "reported": self.reported,
                "delivered": self.delivered,
                "slip": self.slip,
                "ppv": self.ppv,
            }
        )


def _shipped(log: LoopLog, caps: NDArray[np.int64]) -> tuple[NDArray[Any], NDArray[Any]]:
    """Per item and cap: shipped within K, and shipped with a correct attempt."""
    codes, _ = pd.factorize(log.item, sort=False)
    n_items = int(codes.max()) + 1
    passed = log.verdict == 1.0
    big = np.iinfo(np.int64).max
    first = np.full(n_items, big, dtype=np.int64)
    np.minimum.at(first, codes[passed], log.attempt[passed])
    # correctness of each item's first passing attempt
    first_row = passed & (log.attempt == first[codes])
    first_correct = np.zeros(n_items, dtype=bool)
    first_correct[codes[first_row]] = log.correct[first_row] == 1.0
    shipped = first[:, None] <= caps[None, :]
    return shipped, shipped & first_correct[:, None]


def replay_loop(log: LoopLog, *, caps: ArrayLike) -> LoopReplay:
    """Replay a loop's logs at each cap K: reported, delivered, slip and PPV.

    An item ships at its first PASS; with cap K it ships iff that PASS came within the first K
    attempts. An item whose log ends without a PASS is not shipped.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesjudge.gates.data import LoopLog
    >>> log = LoopLog.from_frame(pd.DataFrame({"item": [1, 1, 2], "attempt": [1, 2, 1],
    ...                                        "verdict": [0, 1, 1], "correct": [0, 0, 1]}))
    >>> replay_loop(log, caps=[1, 2]).to_frame()[["reported", "delivered"]].values.tolist()
    [[0.5, 0.5], [1.0, 0.5]]
    """
    k = check_caps(caps)
    shipped, good = _shipped(log, k)
    reported = shipped.mean(axis=0)
    delivered = good.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ppv = np.where(reported > 0, delivered / reported, np.nan)
    return LoopReplay(
        caps=k,
        reported=reported,
        delivered=delivered,
        slip=reported - delivered,
        ppv=ppv,
        n_items=int(shipped.shape[0]),
    )


@dataclass(frozen=True, slots=True)
class PPVCorrection:
    """PPV correction of a loop's reported rate on evaluation items.

    Reference: Below the Reliability Floor, section 5.1.

    Attributes
    ----------
    k : int
        The cap.
    reported : float
        Reported (shipped) rate on the evaluation items.
    ppv : float
        Precision of the gate, P(correct | shipped), on the calibration items.
    corrected : Estimate
        ``reported x ppv`` with a delta-method interval (method ``"ppv_corrected"``).
    n_calibration, n_evaluation : int
        Items in each part.
    """

    k: int
    reported: float
    ppv: float
    corrected: Estimate
    n_calibration: int
    n_evaluation: int


def ppv_correction(
    log: LoopLog,
    *,
    k: int,
    calibration: ArrayLike | None = None,
    calibration_fraction: float = 0.5,
    prob: float = 0.95,
    random_seed: int | np.random.Generator | None = None,
) -> PPVCorrection:
    r"""Correct a loop's reported rate by the gate's PPV from a calibration subset.

    A ship-on-PASS loop delivers :math:`\text{reported} \times \mathrm{PPV}` truly correct items,
    :math:`\mathrm{PPV} = P(\text{correct} \mid \text{shipped})` (Below the Reliability Floor,
    section 5.1). PPV is
    estimated on the calibration items' shipped items and applied to the evaluation items'
    reported rate :math:`\hat R`; delta-method standard error (independent parts)

    .. math:: \mathrm{se}^2 = \widehat{\mathrm{PPV}}^2\frac{\hat R(1-\hat R)}{n_{eval}}
        + \hat R^2\,\frac{\widehat{\mathrm{PPV}}(1-\widehat{\mathrm{PPV}})}{n_{shipped,cal}}.

    Parameters
    ----------
    log : LoopLog
        Loop logs with correctness of every attempt.
    k : int
        The cap.
    calibration : array_like of str, optional
        Item identifiers whose correctness is used; by default a random
        ``calibration_fraction`` of the items (seeded by ``random_seed``).
    calibration_fraction : float
        Share of items drawn for calibration when ``calibration`` is not given.
    prob : float
        Interval mass.
    random_seed : int, Generator or None
        Seed of the calibration draw.

    Raises
    ------
    DataError
        If the calibration or evaluation part is empty, or no calibration item shipped.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesjudge.gates.data import LoopLog
    >>> log = LoopLog.from_frame(pd.DataFrame({"item": [1, 2, 3, 4], "attempt": [1, 1, 1, 1],
    ...                                        "verdict": [1, 1, 1, 0], "correct": [1, 0, 1, 0]}))
    >>> out = ppv_correction(log, k=1, calibration=["1", "2"])
    >>> out.ppv, out.reported, out.corrected.estimate
    (0.5, 0.5, 0.25)
    """
    prob = check_prob(prob)
    cap = int(check_caps(k)[0])
    items = np.unique(log.item)
    if calibration is None:
        if not 0.0 < calibration_fraction < 1.0:
            raise ValueError(
                f"calibration_fraction must lie in (0, 1); got {calibration_fraction!r}"
            )
        rng = seed_stream(random_seed, "resample")
        size = round(calibration_fraction * items.size)
        cal_items = rng.choice(items, size=size, replace=False)
    else:
        cal_items = np.asarray(calibration, dtype=str)
        unknown = np.setdiff1d(cal_items, items)
        if unknown.size:
            raise DataError(f"calibration items {unknown[:5].tolist()} are not in the loop log")
    in_cal = np.isin(log.item, cal_items)
    if in_cal.all() or not in_cal.any():
        raise DataError(
            "ppv_correction needs both calibration and evaluation items; got "
            f"{np.unique(log.item[in_cal]).size} calibration and "
            f"{np.unique(log.item[~in_cal]).size} evaluation items"
        )
    cal = _subset(log, in_cal)
    ev = _subset(log, ~in_cal)
    shipped_c, good_c = _shipped(cal, np.array([cap]))
    shipped_e, _ = _shipped(ev, np.array([cap]))
    n_ship = int(shipped_c.sum())
    if n_ship == 0:
        raise DataError(f"no calibration item shipped within K={cap}, so PPV is undefined")
    ppv = float(good_c.sum() / n_ship)
    reported = float(shipped_e.mean())
    n_eval = int(shipped_e.shape[0])
    estimate = reported * ppv
    se = float(
        np.sqrt(
            ppv**2 * reported * (1 - reported) / n_eval + reported**2 * ppv * (1 - ppv) / n_ship
        )
    )
    z = z_value(prob)
    corrected = Estimate(
        "ppv_corrected",
        estimate,
        Interval(max(estimate - z * se, 0.0), min(estimate + z * se, 1.0), prob, "delta"),
        se=se,
        notes=(f"K={cap}; PPV from {n_ship} shipped calibration items",),
    )
    return PPVCorrection(
        k=cap,
        reported=reported,
        ppv=ppv,
        corrected=corrected,
        n_calibration=int(shipped_c.shape[0]),
        n_evaluation=n_eval,
    )


def _subset(log: LoopLog, mask: NDArray[np.bool_]) -> LoopLog:
    return LoopLog(
        item=log.item[mask],
        attempt=log.attempt[mask],
        verdict=log.verdict[mask],
        correct=log.correct[mask],
    )
