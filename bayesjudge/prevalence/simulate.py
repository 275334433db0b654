"""Seeded simulators of judge data, for examples, tests and studies."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesjudge.validation import rng_from

__all__ = ["judge_table"]


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
