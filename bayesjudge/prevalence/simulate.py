"""Seeded simulators of judge data, for examples, tests and studies."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesjudge.validation import rng_from

__all__ = ["judge_scores_table", "judge_table"]


def judge_table(
    *,
    pi: float,
    se: float,
    sp: float,
    n: int,
    m1: int,
    m0: int,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    r"""Simulate a judge-data table: a calibration set with fixed class sizes and a test set.

    Calibration items are drawn by class (``m1`` gold-PASS, ``m0`` gold-FAIL), as with
    stratified labelling; test items are PASS with probability ``pi``. The judge passes a
    PASS item with probability ``se`` and a FAIL item with probability ``1 - sp``, the same on
    both sets (only :math:`P(\hat y \mid y)` transfers, so label shift is allowed).

    Parameters
    ----------
    pi : float
        True success rate of the test items.
    se, sp : float
        Judge sensitivity and specificity.
    n : int
        Number of unlabelled test items.
    m1, m0 : int
        Numbers of gold-PASS and gold-FAIL calibration items.
    random_seed : int, Generator or None
        Seed for reproducibility.

    Returns
    -------
    DataFrame
        Columns ``label`` (nullable integer, missing on test items) and ``verdict``.

    Examples
    --------
    >>> t = judge_table(pi=0.7, se=0.9, sp=0.85, n=100, m1=20, m0=20, random_seed=1)
    >>> t.shape
    (140, 2)
    """
    for name, value in {"pi": pi, "se": se, "sp": sp}.items():
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must lie in [0, 1]; got {value!r}")
    for name, size in {"n": n, "m1": m1, "m0": m0}.items():
        if size < 0:
            raise ValueError(f"{name} must be non-negative; got {size!r}")
    rng = rng_from(random_seed)
    truth = rng.random(n) < pi
    cal_label = np.repeat([1, 0], [m1, m0])
    label = np.concatenate([cal_label, truth.astype(int)])
    pass_prob = np.where(label == 1, se, 1.0 - sp)
    verdict = (rng.random(label.size) < pass_prob).astype(int)
    frame = pd.DataFrame({"label": pd.array(label, dtype="Int64"), "verdict": verdict})
    frame.loc[m1 + m0 :, "label"] = pd.NA
    return frame


def judge_scores_table(
    *,
    pi: float,
    n: int,
    m1: int,
    m0: int,
    overlap: float = 0.05,
    levels: int = 5,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    r"""Simulate judge data with scores, whose best threshold is known by construction.

    Calibration items are drawn by class (``m1`` gold-PASS, ``m0`` gold-FAIL), test items are
    PASS with probability ``pi``. A gold-PASS item's score is uniform on the ``levels`` upper
    grid points :math:`0.5 + (i + 1/2)/(2L)`, a gold-FAIL item's on the ``levels`` lower ones
    :math:`(i + 1/2)/(2L)`, except that with probability ``overlap`` an item draws its score
    from the other class's grid. The threshold at the lowest upper point,
    :math:`0.5 + 1/(4L)`, then separates the classes best (sensitivity and specificity both
    :math:`1 - 	ext{overlap}`); every other threshold loses one of them.

    Parameters
    ----------
    pi : float
        True success rate of the test items.
    n, m1, m0 : int
        Unlabelled test items; gold-PASS and gold-FAIL calibration items.
    overlap : float
        Probability in [0, 0.5) that an item's score comes from the other class.
    levels : int
        Grid points per class.
    random_seed : int, Generator or None
        Seed for reproducibility.

    Returns
    -------
    DataFrame
        Columns ``label`` (nullable integer, missing on test items) and ``score``.

    Examples
    --------
    >>> t = judge_scores_table(pi=0.7, n=100, m1=20, m0=20, random_seed=1)
    >>> t.shape, sorted(t["score"].unique().tolist())[5]
    ((140, 2), 0.55)
    """
    if not 0.0 <= pi <= 1.0:
        raise ValueError(f"pi must lie in [0, 1]; got {pi!r}")
    if not 0.0 <= overlap < 0.5:
        raise ValueError(f"overlap must lie in [0, 0.5); got {overlap!r}")
    if isinstance(levels, bool) or not isinstance(levels, int) or levels < 1:
        raise ValueError(f"levels must be a whole number >= 1; got {levels!r}")
    for name, size in {"n": n, "m1": m1, "m0": m0}.items():
        if size < 0:
            raise ValueError(f"{name} must be non-negative; got {size!r}")
    rng = rng_from(random_seed)
    truth = rng.random(n) < pi
    label = np.concatenate([np.repeat([1, 0], [m1, m0]), truth.astype(int)])
    side = np.where(rng.random(label.size) < overlap, 1 - label, label)
    level = rng.integers(0, levels, size=label.size)
    score = np.round(0.5 * side + (level + 0.5) / (2 * levels), 12)
    frame = pd.DataFrame({"label": pd.array(label, dtype="Int64"), "score": score})
    frame.loc[m1 + m0 :, "label"] = pd.NA
    return frame
