r"""Posterior predictive check of the gate model: the histogram of passes at each number of rulings.

The gate model (:mod:`bayesjudge.models.gate`) sees an item only through its gold label (or
its absence), its number of rulings :math:`r` and its number of passes :math:`k`. What it must
reproduce is therefore, in each group (gold violation, gold compliant, unlabelled) and at each
:math:`r`, the whole histogram of :math:`k = 0, \dots, r`: the number of items :math:`y_{grk}`
that passed :math:`k` of their :math:`r` rulings, not only the never-passed (:math:`k = 0`)
and always-passed (:math:`k = r`) counts. At a posterior draw the items of a group with
:math:`r` rulings are :math:`\mathrm{Multinomial}(n_{gr}, P(\cdot \mid r, g))` with the
zero-inflated beta-binomial of the model,

.. math::

    P(k \mid r, c) = \omega_c\,\mathbf 1\{k = 0\}
        + (1 - \omega_c)\binom{r}{k}\frac{B(k + a_c, r - k + b_c)}{B(a_c, b_c)},

for a gold class :math:`c`, and :math:`\pi P(k \mid r, 1) + (1 - \pi) P(k \mid r, 0)` for
unlabelled items (the likelihood of :func:`bayesjudge.gates.fit.zibb_logpmf`, computed here with
:data:`scipy.stats.betabinom`; a test checks the two agree).

Each group is one family of :func:`bayesjudge.inference.ppc.count_table_check`: its realised
Pearson discrepancy against a replicated histogram at every draw, at level
:math:`0.05 / 3` (Bonferroni over the groups), with every cell's own two-sided tail probability
and central 99 % predictive interval. Between the binomial (every item of a class with the same
pass probability) and the U shape (pass probabilities piled at 0 and 1) the beta-binomial
cannot make a histogram with two interior modes (items that pass about a quarter or about
three quarters of their rulings, none in between), nor one narrower than the binomial (a
judge whose pass probability drifts from ruling to ruling, so that each item passes about
the same number of rulings): such data fail the check.
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from numpy.typing import NDArray
from scipy import stats

from bayesjudge.gates.cells import GateCells
from bayesjudge.inference.ppc import (
    MAX_CHECK_DRAWS,
    PPC_LEVEL,
    CountFamily,
    TablePredictiveCheck,
    count_table_check,
)

__all__ = ["GROUP_CODES", "gate_predictive_check", "pass_histogram_probabilities"]

#: The groups of the check and the label code of their items.
GROUP_CODES = (("violation", 0), ("compliant", 1), ("unlabelled", -1))


def pass_histogram_probabilities(
    posterior: xr.Dataset, r: int, code: int, *, max_draws: int = MAX_CHECK_DRAWS
) -> NDArray[np.float64]:
    r"""Return :math:`P(k \mid r)` for :math:`k = 0, \dots, r` at every (thinned) draw.

    Parameters
    ----------
    posterior : Dataset
        Draws of ``pi``, ``omega``, ``mu``, ``kappa`` (by ``class``).
    r : int
        Number of rulings.
    code : {0, 1, -1}
        Gold violation, gold compliant, or unlabelled (the two-class mixture with weight pi).
    max_draws : int, default 2000
        Posterior draws used, evenly thinned.

    Returns
    -------
    ndarray, shape (draws, r + 1)

    Examples
    --------
    >>> post = xr.Dataset({
    ...     "pi": (("chain", "draw"), [[0.5]]),
    ...     "omega": (("chain", "draw", "class"), [[[0.5, 0.0]]]),
    ...     "mu": (("chain", "draw", "class"), [[[0.5, 0.5]]]),
    ...     "kappa": (("chain", "draw", "class"), [[[2.0, 2.0]]])})
    >>> pass_histogram_probabilities(post, 2, 0).round(3).tolist()
    [[0.667, 0.167, 0.167]]
    """

    def param(name: str) -> NDArray[np.float64]:
        return posterior[name].transpose("chain", "draw", "class").to_numpy().reshape(-1, 2)

    omega, mu, kappa = param("omega"), param("mu"), param("kappa")
    pi = posterior["pi"].transpose("chain", "draw").to_numpy().reshape(-1)
    step = max(1, int(np.ceil(pi.size / max_draws)))
    omega, mu, kappa, pi = omega[::step], mu[::step], kappa[::step], pi[::step]
    k = np.arange(r + 1)

    def given(c: int) -> NDArray[np.float64]:
        a, b = (mu[:, c] * kappa[:, c])[:, None], ((1.0 - mu[:, c]) * kappa[:, c])[:, None]
        spread = (1.0 - omega[:, c, None]) * stats.betabinom.pmf(k, r, a, b)
        return np.asarray(spread + omega[:, c, None] * (k == 0))

    if code >= 0:
        return given(code)
    return pi[:, None] * given(1) + (1.0 - pi[:, None]) * given(0)


def gate_predictive_check(
    posterior: xr.Dataset,
    cells: GateCells,
    *,
    level: float = PPC_LEVEL,
    max_draws: int = MAX_CHECK_DRAWS,
    random_seed: int | np.random.Generator | None = None,
) -> TablePredictiveCheck:
    r"""Check a gate posterior against the histogram of passes per group and number of rulings.

    See the module docstring for the statistics and
    :func:`bayesjudge.inference.ppc.count_table_check` for the tests and the rule.

    Parameters
    ----------
    posterior : Dataset
        Draws of ``pi``, ``omega``, ``mu``, ``kappa`` (by ``class``).
    cells : GateCells
        The (label, r, k) cells the posterior was fitted to
        (:func:`bayesjudge.gates.cells.gate_cells`).
    level : float, default 0.05
        Family-wise level :math:`\alpha`.
    max_draws : int, default 2000
        Posterior draws used, evenly thinned.
    random_seed : int, Generator or None
        Source of the replicated histograms.

    Returns
    -------
    TablePredictiveCheck
        Families ``passes[violation]``, ``passes[compliant]``, ``passes[unlabelled]`` (those
        with items); statistics ``"k of r rulings passed"``.

    Examples
    --------
    Every violation item passes exactly 3 of its 6 rulings, which no beta-binomial makes:

    >>> from bayesjudge.gates.cells import gate_cells
    >>> labels = np.r_[np.zeros(200), np.ones(200), np.full(400, np.nan)]
    >>> rng = np.random.default_rng(0)
    >>> unlabelled = rng.binomial(6, np.repeat([0.9, 0.5], 200))
    >>> k = np.r_[np.full(200, 3), rng.binomial(6, 0.9, 200), unlabelled]
    >>> post = xr.Dataset({
    ...     "pi": (("chain", "draw"), np.full((1, 100), 0.5)),
    ...     "omega": (("chain", "draw", "class"), np.zeros((1, 100, 2))),
    ...     "mu": (("chain", "draw", "class"), np.tile([0.5, 0.9], (1, 100, 1))),
    ...     "kappa": (("chain", "draw", "class"), np.full((1, 100, 2), 1e4))})
    >>> check = gate_predictive_check(post, gate_cells(labels, np.full(800, 6), k),
    ...                               random_seed=0)
    >>> [t.family for t in check.failures]
    ['passes[violation]']
    """
    families = []
    for group, code in GROUP_CODES:
        in_group = (cells.label == code) & (cells.weight > 0)
        if not in_group.any():
            continue
        subjects: list[str] = []
        observed: list[int] = []
        blocks: list[int] = []
        probs: list[NDArray[np.float64]] = []
        for block, r in enumerate(np.unique(cells.r[in_group])):
            r = int(r)
            here = in_group & (cells.r == r)
            counts = np.zeros(r + 1, dtype=np.int64)
            np.add.at(counts, cells.k[here].astype(np.int64), cells.weight[here].astype(np.int64))
            subjects.extend(f"{k} of {r} rulings passed" for k in range(r + 1))
            observed.extend(int(c) for c in counts)
            blocks.extend([block] * (r + 1))
            probs.append(pass_histogram_probabilities(posterior, r, code, max_draws=max_draws))
        families.append(
            CountFamily(f"passes[{group}]", subjects, observed, np.hstack(probs), blocks)
        )
    return count_table_check(families, level=level, max_draws=max_draws, random_seed=random_seed)
