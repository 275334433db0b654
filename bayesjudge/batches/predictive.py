r"""Posterior predictive check of the state-space model across batches, at a family-wise level.

The state-space model (:mod:`bayesjudge.models.batches`) sees each batch :math:`t` through
three binomial counts: :math:`x_{1t} \sim \mathrm{Bin}(m_{1t}, \mathrm{Se}_t)` judged PASS
among the gold-PASS items, :math:`x_{0t} \sim \mathrm{Bin}(m_{0t}, 1 - \mathrm{Sp}_t)` judged
PASS among the gold-FAIL items, and :math:`k_t \sim \mathrm{Bin}(n_t, \pi_t\mathrm{Se}_t +
(1 - \pi_t)(1 - \mathrm{Sp}_t))` judged PASS among the unlabelled items. Checking each of the
:math:`3T` counts at its own level makes a chance failure more likely the more batches there
are; here they are grouped into three families of
:func:`bayesjudge.inference.ppc.count_table_check`, one per kind of count across the batches:

* ``gold_pass``: the :math:`x_{1t}` (the judge's sensitivity batch by batch),
* ``gold_fail``: the :math:`x_{0t}` (its false-positive rate batch by batch),
* ``judged``: the :math:`k_t` (the judged pass rate of the unlabelled items, which cannot lie
  outside the judge's :math:`[1 - \mathrm{Sp}_t, \mathrm{Se}_t]`),

each tested by its realised Pearson discrepancy :math:`\sum_t (y_t - n_t p_t)^2 / (n_t p_t
(1 - p_t))` against replicated counts at every posterior draw (Gelman, Meng and Stern,
"Posterior predictive assessment of model fitness via realized discrepancies", 1996), failing
below :math:`\alpha / 3` with :math:`\alpha` = 0.05 (Bonferroni over the families). Every count
keeps its own two-sided tail probability and central 99% predictive interval, which name the
batch most off when a family fails.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike

from bayesjudge.inference.ppc import (
    MAX_CHECK_DRAWS,
    PPC_LEVEL,
    CountFamily,
    TablePredictiveCheck,
    count_table_check,
)

__all__ = ["FAMILIES", "drift_predictive_check"]

#: The families of the check: name, (passes, trials) count columns, and what is counted.
FAMILIES = (
    ("gold_pass", ("x1", "m1"), "PASS verdicts among gold-PASS items"),
    ("gold_fail", ("x0", "m0"), "PASS verdicts among gold-FAIL items"),
    ("judged", ("k", "n"), "PASS verdicts among unlabelled items"),
)


def drift_predictive_check(
    posterior: xr.Dataset,
    counts: Mapping[str, ArrayLike],
    batches: Sequence[str],
    *,
    level: float = PPC_LEVEL,
    max_draws: int = MAX_CHECK_DRAWS,
    random_seed: int | np.random.Generator | None = None,
) -> TablePredictiveCheck:
    r"""Test a state-space posterior's gold and judged counts, one family per kind of count.

    See the module docstring for the families; the tests and the rule (realised Pearson
    discrepancy, Bonferroni over the families) are those of
    :func:`bayesjudge.inference.ppc.count_table_check`.

    Parameters
    ----------
    posterior : Dataset
        Draws of ``se``, ``sp`` and ``judged_rate`` by ``batch``.
    counts : mapping of str to array_like of int
        ``m1``, ``x1``, ``m0``, ``x0``, ``n``, ``k``: one entry per batch.
    batches : sequence of str
        Batch names in the order of the counts.
    level : float, default 0.05
        Family-wise level :math:`\alpha`.
    max_draws : int, default 2000
        Posterior draws used, evenly thinned.
    random_seed : int, Generator or None
        Source of the replicated counts.

    Returns
    -------
    TablePredictiveCheck
        Families ``gold_pass``, ``gold_fail``, ``judged`` (those with items); statistics
        named ``"<batch>: PASS verdicts among ... items"``.

    Examples
    --------
    A judge with Se 0.9 and Sp 0.8 cannot pass only 2% of a batch's unlabelled items, since it
    passes 20% of the wrong ones:

    >>> post = xr.Dataset({"se": (("chain", "draw", "batch"), 0.9 * np.ones((1, 400, 3))),
    ...                    "sp": (("chain", "draw", "batch"), 0.8 * np.ones((1, 400, 3))),
    ...                    "judged_rate": (("chain", "draw", "batch"),
    ...                                    np.full((1, 400, 3), 0.6))},
    ...                   coords={"batch": ["a", "b", "c"]})
    >>> counts = {"m1": [50] * 3, "x1": [45, 44, 46], "m0": [50] * 3, "x0": [10, 9, 11],
    ...           "n": [500] * 3, "k": [300, 290, 10]}
    >>> check = drift_predictive_check(post, counts, ["a", "b", "c"], random_seed=0)
    >>> [t.family for t in check.failures], check.failures[0].worst
    (['judged'], 'judged: c: PASS verdicts among unlabelled items')
    """
    names = [str(b) for b in batches]
    probs = {
        "x1": posterior["se"],
        "x0": 1.0 - posterior["sp"],
        "k": posterior["judged_rate"],
    }
    families = []
    for family, (passes, total), words in FAMILIES:
        observed = np.asarray(counts[passes], dtype=np.int64).reshape(-1)
        trials = np.asarray(counts[total], dtype=np.int64).reshape(-1)
        if observed.size != len(names) or trials.size != len(names):
            raise ValueError(
                f"counts {passes!r} and {total!r} need one entry per batch ({len(names)}); got "
                f"{observed.size} and {trials.size}"
            )
        prob = probs[passes].transpose("chain", "draw", "batch").to_numpy().reshape(-1, len(names))
        keep = np.flatnonzero(trials > 0)
        if keep.size == 0:
            continue
        families.append(
            CountFamily(
                family,
                [f"{names[t]}: {words}" for t in keep],
                observed[keep],
                prob[:, keep],
                np.arange(keep.size),
                trials=trials[keep],
            )
        )
    return count_table_check(families, level=level, max_draws=max_draws, random_seed=random_seed)
