r"""Seeded simulators of repeated samples: items with their own success rates, judged answers.

:func:`simulate_repeated` draws the generative process of :mod:`bayesjudge.models.repeated`:

.. math::

    p_i = \mathrm{logit}^{-1}(\mu + \sigma z_i + \tau u_{c(i)}), \quad
    y_{ie} \sim \mathrm{Bernoulli}(p_i), \quad
    \hat y_{ie} \mid y_{ie} \sim \mathrm{Bernoulli}(\mathrm{Se}^{y}(1 - \mathrm{Sp})^{1 - y}),

for ``epochs`` answers :math:`e` of each item, and reveals the gold label of a random sample of
answers. The truth it returns holds the estimands, computed on the drawn items: the mean
success rate :math:`\bar p`, pass@k and pass^k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayesjudge.validation import check_int, check_unit, seed_stream

__all__ = ["RepeatedTruth", "SimulatedRepeated", "simulate_repeated"]


@dataclass(frozen=True, slots=True)
class RepeatedTruth:
    r"""The true values behind a simulated dataset.

    Attributes
    ----------
    item_rate : ndarray
        Each item's success probability :math:`p_i`.
    mean_rate : float
        :math:`\bar p`, the mean success rate over the items.
    se, sp : float
        The judge's sensitivity and specificity.
    """

    item_rate: np.ndarray
    mean_rate: float
    se: float
    sp: float

    def pass_at_k(self, k: int) -> float:
        r"""Return :math:`\frac1N\sum_i 1 - (1 - p_i)^k`."""
        return float(np.mean(1.0 - (1.0 - self.item_rate) ** k))

    def pass_all_k(self, k: int) -> float:
        r"""Return :math:`\frac1N\sum_i p_i^k`."""
        return float(np.mean(self.item_rate**k))


@dataclass(frozen=True, slots=True)
class SimulatedRepeated:
    """A simulated dataset and its truth.

    Attributes
    ----------
    frame : DataFrame
        One row per answer: ``item``, ``epoch``, ``verdict``, ``label`` (NaN when unlabelled),
        ``truth`` (the answer's true label), and ``cluster`` when clusters were drawn.
    truth : RepeatedTruth
        The true values.
    """

    frame: pd.DataFrame
    truth: RepeatedTruth


def simulate_repeated(
    n_items: int = 200,
    epochs: int = 5,
    *,
    mean_logit: float = 0.0,
    sigma: float = 1.5,
    n_clusters: int = 0,
    tau: float = 0.0,
    se: float = 0.9,
    sp: float = 0.85,
    gold_answers: int = 100,
    calls: int = 1,
    call_correlation: float = 0.0,
    random_seed: int | np.random.Generator | None = None,
) -> SimulatedRepeated:
    r"""Draw judged answers of items with their own success rates.

    Parameters
    ----------
    n_items, epochs : int
        Items, and answers per item.
    mean_logit : float
        :math:`\mu`, the logit of the median item's success rate.
    sigma : float
        :math:`\sigma`, the spread of item difficulty on the logit scale (0: alike items).
    n_clusters : int
        Clusters the items are spread over at random (0: none).
    tau : float
        :math:`\tau`, the spread between clusters on the logit scale.
    se, sp : float
        The judge's sensitivity and specificity.
    gold_answers : int
        Answers, drawn at random, whose gold label is revealed.
    calls : int
        Judge calls per answer. Above 1, each answer has its own pass probability
        :math:`q \sim \mathrm{Beta}` with mean Se (a correct answer) or 1 - Sp and
        intra-answer correlation ``call_correlation``, each call passes with probability
        :math:`q`, and the frame has one row per call with a ``call`` column.
    call_correlation : float
        :math:`\rho` in [0, 1): 0 makes the calls independent given the answer's label.
    random_seed : int, Generator or None
        Seed (None: the default seed).

    Returns
    -------
    SimulatedRepeated

    Examples
    --------
    >>> sim = simulate_repeated(50, 3, gold_answers=10, random_seed=1)
    >>> len(sim.frame), int(sim.frame["label"].notna().sum())
    (150, 10)
    >>> calls = simulate_repeated(50, 3, calls=4, call_correlation=0.5, random_seed=1)
    >>> len(calls.frame), sorted(calls.frame["call"].unique().tolist())
    (600, [1, 2, 3, 4])
    """
    n_items = check_int(n_items, name="n_items", minimum=1)
    epochs = check_int(epochs, name="epochs", minimum=1)
    n_clusters = check_int(n_clusters, name="n_clusters", minimum=0)
    gold_answers = check_int(gold_answers, name="gold_answers", minimum=0)
    calls = check_int(calls, name="calls", minimum=1)
    if not 0.0 <= call_correlation < 1.0:
        raise ValueError(f"call_correlation must be in [0, 1); got {call_correlation!r}")
    se = check_unit(se, name="se")
    sp = check_unit(sp, name="sp")
    if not sigma >= 0.0 or not tau >= 0.0:
        raise ValueError(f"sigma and tau must be at least 0; got {sigma!r} and {tau!r}")
    if gold_answers > n_items * epochs:
        raise ValueError(f"gold_answers ({gold_answers}) exceeds the answers ({n_items * epochs})")
    rng = seed_stream(random_seed, "simulate")
    logit = mean_logit + sigma * rng.standard_normal(n_items)
    cluster = None
    if n_clusters:
        cluster = rng.integers(0, n_clusters, size=n_items)
        logit = logit + tau * rng.standard_normal(n_clusters)[cluster]
    rate = 1.0 / (1.0 + np.exp(-logit))
    item = np.repeat(np.arange(n_items), epochs)
    truth = (rng.random(item.size) < rate[item]).astype(float)
    verdict = np.where(truth == 1.0, rng.random(item.size) < se, rng.random(item.size) >= sp)
    label = np.full(item.size, np.nan)
    revealed = rng.choice(item.size, size=gold_answers, replace=False)
    label[revealed] = truth[revealed]
    frame = pd.DataFrame(
        {
            "item": [f"item{i:04d}" for i in item],
            "epoch": np.tile(np.arange(1, epochs + 1), n_items),
            "verdict": verdict.astype(float),
            "label": label,
            "truth": truth,
        }
    )
    if cluster is not None:
        frame["cluster"] = [f"cluster{c:03d}" for c in cluster[item]]
    if calls > 1:
        mean = np.where(truth == 1.0, se, 1.0 - sp)
        if call_correlation > 0.0:
            precision = (1.0 - call_correlation) / call_correlation
            mean = rng.beta(mean * precision, (1.0 - mean) * precision)
        frame = frame.loc[frame.index.repeat(calls)].reset_index(drop=True)
        frame["call"] = np.tile(np.arange(1, calls + 1), item.size)
        frame["verdict"] = (rng.random(len(frame)) < np.repeat(mean, calls)).astype(float)
    return SimulatedRepeated(
        frame=frame,
        truth=RepeatedTruth(item_rate=rate, mean_rate=float(rate.mean()), se=se, sp=sp),
    )
