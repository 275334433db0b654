r"""Seeded simulators of retry gates and revise-then-rejudge loops (Below the Reliability Floor).

* :func:`rejudgment_gate` - items with a true label and a per-item pass probability drawn from
  a per-class :class:`~bayesjudge.gates.PassRateDistribution`, each ruled ``r`` times
  independently; a share of the items carries its gold label. Returns the long rulings table
  that :meth:`bayesjudge.gates.data.Rulings.from_frame` reads.
* :func:`table4_gate` - per-class pass-rate distributions with the Se(1), leak and pi of a row
  of Below the Reliability Floor Table 4.
* :func:`skewed_gate` - the prevalence-skewed, pass-prone gate of Below the Reliability Floor
  section 4, where J(K) collapses as the cap grows.
* :func:`revise_loop` - a revise-then-rejudge loop: attempts correct with rate ``a``, judged
  with sensitivity ``s`` and leak ``leak``, stopping at the first PASS or the cap
  (the slip-law forward model of Below the Reliability Floor, section 5.1), as a loop-log table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bayesjudge.gates.curves import PassRateDistribution
from bayesjudge.validation import rng_from

__all__ = [
    "TABLE4",
    "SimulatedGate",
    "rejudgment_gate",
    "revise_loop",
    "skewed_gate",
    "table4_gate",
]

#: Below the Reliability Floor, Table 4: gate -> (Se(1), leak = 1 - Sp(1), true pi).
TABLE4: dict[str, tuple[float, float, float]] = {
    "GSM8K / Gemini-Flash": (0.969, 0.733, 0.50),
    "TruthfulQA / GPT-4o-mini": (0.821, 0.596, 0.50),
    "HaluEval / Gemini-Flash": (0.844, 0.431, 0.50),
    "TruthfulQA / Gemini-Flash": (0.824, 0.404, 0.50),
    "HaluEval / GPT-4o-mini": (0.690, 0.394, 0.50),
}


@dataclass(frozen=True, slots=True, eq=False)
class SimulatedGate:
    """A simulated re-judgment gate.

    Attributes
    ----------
    table : DataFrame
        Long rulings table: ``item``, ``ruling``, ``verdict``, ``label`` (missing on
        unlabelled items).
    p : ndarray
        True per-item pass probability.
    label : ndarray of int
        True label of every item (1 compliant).
    labelled : ndarray of bool
        Which items carry their gold label in ``table``.
    compliant, violation : PassRateDistribution
        The class distributions simulated from.
    pi : float
        The population success rate simulated from.
    """

    table: pd.DataFrame
    p: np.ndarray
    label: np.ndarray
    labelled: np.ndarray
    compliant: PassRateDistribution
    violation: PassRateDistribution
    pi: float

    @property
    def pi_unlabelled(self) -> float:
        """Share of compliant items among the unlabelled items (the sample target)."""
        return float(self.label[~self.labelled].mean())


def rejudgment_gate(
    compliant: PassRateDistribution,
    violation: PassRateDistribution,
    *,
    pi: float,
    n_items: int,
    rulings: int = 6,
    labelled_fraction: float = 0.1,
    labelled_by_class: tuple[int, int] | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> SimulatedGate:
    r"""Simulate a re-judgment gate: ``n_items`` items each ruled ``rulings`` times.

    :math:`y_i \sim \mathrm{Bernoulli}(\pi)`, :math:`p_i \mid y_i` from the class's zero-inflated
    Beta, :math:`r` independent rulings :math:`\sim \mathrm{Bernoulli}(p_i)`; a random
    ``labelled_fraction`` of the items keeps its gold label (Below the Reliability Floor, section
    2), or, with ``labelled_by_class=(m0, m1)``, a gold set drawn by class: ``m0`` random
    violations and ``m1`` random compliant items (label shift: the gold set's class mix is not
    the population's).

    Examples
    --------
    >>> c, v = PassRateDistribution(0.0, 0.9, 10), PassRateDistribution(0.3, 0.4, 2)
    >>> gate = rejudgment_gate(c, v, pi=0.6, n_items=50, rulings=3, random_seed=1)
    >>> gate.table.shape, int(gate.labelled.sum())
    ((150, 4), 5)
    """
    if not 0.0 <= pi <= 1.0:
        raise ValueError(f"pi must lie in [0, 1]; got {pi!r}")
    if n_items < 1 or rulings < 1:
        raise ValueError(f"n_items and rulings must be >= 1; got {n_items!r}, {rulings!r}")
    if not 0.0 <= labelled_fraction <= 1.0:
        raise ValueError(f"labelled_fraction must lie in [0, 1]; got {labelled_fraction!r}")
    rng = rng_from(random_seed)
    label = (rng.random(n_items) < pi).astype(int)
    p = np.where(
        label == 1,
        compliant.sample(n_items, random_seed=rng),
        violation.sample(n_items, random_seed=rng),
    )
    verdict = (rng.random((n_items, rulings)) < p[:, None]).astype(int)
    labelled = np.zeros(n_items, dtype=bool)
    if labelled_by_class is None:
        labelled[rng.choice(n_items, size=round(labelled_fraction * n_items), replace=False)] = True
    else:
        for cls, size in enumerate(labelled_by_class):
            pool = np.flatnonzero(label == cls)
            if size > pool.size:
                raise ValueError(
                    f"labelled_by_class asks for {size} items of class {cls}; there are {pool.size}"
                )
            labelled[rng.choice(pool, size=size, replace=False)] = True
    item_label = pd.array(np.where(labelled, label, 0), dtype="Int64")
    item_label[~labelled] = pd.NA
    table = pd.DataFrame(
        {
            "item": np.repeat([f"i{j}" for j in range(n_items)], rulings),
            "ruling": np.tile(np.arange(1, rulings + 1), n_items),
            "verdict": verdict.reshape(-1),
            "label": np.repeat(item_label, rulings),
        }
    )
    return SimulatedGate(table, p, label, labelled, compliant, violation, float(pi))


def table4_gate(
    se1: float,
    leak: float,
    *,
    omega_compliant: float = 0.0,
    omega_violation: float = 0.2,
    kappa: float = 2.0,
) -> tuple[PassRateDistribution, PassRateDistribution]:
    r"""Class pass-rate distributions with a given Se(1) and leak 1 - Sp(1).

    At :math:`K = 1` the ship rate of a class is its mean pass probability
    :math:`(1-\omega)\mu`, so :math:`\mu_1 = \mathrm{Se}(1)/(1-\omega_1)` and
    :math:`\mu_0 = \text{leak}/(1-\omega_0)`. Use it with the rows of :data:`TABLE4`
    (Below the Reliability Floor, Table 4).

    Examples
    --------
    >>> c, v = table4_gate(*TABLE4["HaluEval / GPT-4o-mini"][:2])
    >>> round(float(c.ship_rate(1)), 3), round(float(1 - v.ship_rate(1)), 3)
    (0.69, 0.606)
    """
    mu1 = se1 / (1.0 - omega_compliant)
    mu0 = leak / (1.0 - omega_violation)
    if not (0.0 < mu1 < 1.0 and 0.0 < mu0 < 1.0):
        raise ValueError(
            f"Se(1)={se1} and leak={leak} cannot be reached with omega_compliant="
            f"{omega_compliant} and omega_violation={omega_violation}"
        )
    return (
        PassRateDistribution(omega_compliant, mu1, kappa),
        PassRateDistribution(omega_violation, mu0, kappa),
    )


def skewed_gate(
    violation_mean: float = 0.5,
    *,
    compliant_mean: float = 0.9,
    kappa: float = 40.0,
) -> tuple[PassRateDistribution, PassRateDistribution]:
    r"""Return a pass-prone gate whose J(K) collapses with K.

    The regime of Below the Reliability Floor, Prop. 1.

    Both classes are Beta with concentration ``kappa`` (no never-pass mass, so
    :math:`J(\infty) = 0`) and the compliant class, mean ``compliant_mean``, first-order
    dominates the violation class. With ``kappa`` large both sit on :math:`p \ge 1/(K+1)` for
    moderate K and :math:`J(K)` falls from about ``compliant_mean - violation_mean`` to 0.
    Section 4's synthetic gate (compliant 0.90, violation q -> 0.90) is
    ``skewed_gate(q)``: J(1) = 0.90 - q.

    Examples
    --------
    >>> from bayesjudge.gates import gate_curve
    >>> c, v = skewed_gate(0.1)
    >>> round(float(gate_curve(c, v, caps=1, pi=0.5).j[0]), 2)
    0.8
    """
    return (
        PassRateDistribution(0.0, compliant_mean, kappa),
        PassRateDistribution(0.0, violation_mean, kappa),
    )


def revise_loop(
    n_items: int,
    *,
    a: float,
    s: float,
    leak: float,
    cap: int = 5,
    a_revised: float | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    r"""Simulate loop logs of a revise-then-rejudge loop (Below the Reliability Floor, section 5.1).

    Each attempt is correct with rate ``a`` (``a_revised`` for attempts after the first, to
    model a revision benefit); the judge passes a correct attempt with probability ``s`` and a
    wrong one with ``leak``; the loop stops at the first PASS or after ``cap`` attempts. With
    ``a_revised=None`` attempts are i.i.d., exactly the slip law's forward model.

    Returns
    -------
    DataFrame
        Loop logs with columns ``item``, ``attempt``, ``verdict``, ``correct``
        (:meth:`bayesjudge.gates.data.LoopLog.from_frame`).

    Examples
    --------
    >>> logs = revise_loop(100, a=0.3, s=0.9, leak=0.5, random_seed=0)
    >>> list(logs.columns), int(logs.groupby("item")["verdict"].sum().max())
    (['item', 'attempt', 'verdict', 'correct'], 1)
    """
    for name, value in {"a": a, "s": s, "leak": leak}.items():
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must lie in [0, 1]; got {value!r}")
    if cap < 1 or n_items < 1:
        raise ValueError(f"n_items and cap must be >= 1; got {n_items!r}, {cap!r}")
    rng = rng_from(random_seed)
    rate = np.full(cap, a, dtype=float)
    if a_revised is not None:
        rate[1:] = a_revised
    correct = rng.random((n_items, cap)) < rate[None, :]
    verdict = rng.random((n_items, cap)) < np.where(correct, s, leak)
    passed_before = np.cumsum(verdict, axis=1) - verdict > 0
    keep = ~passed_before
    rows, cols = np.nonzero(keep)
    data: dict[str, Any] = {
        "item": np.array([f"t{j}" for j in range(n_items)])[rows],
        "attempt": cols + 1,
        "verdict": verdict[rows, cols].astype(int),
        "correct": correct[rows, cols].astype(int),
    }
    return pd.DataFrame(data)
