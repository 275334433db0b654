r"""Seeded simulators of several systems judged by one imperfect judge.

Outcomes follow the item-response model of :mod:`bayesjudge.systems.irt`: system :math:`s` is
right on item :math:`i` with probability :math:`\mathrm{expit}(\alpha_s - \sigma z_i)`, where
the abilities :math:`\alpha_s` are solved so that each system's population success rate is the
requested :math:`\pi_s`, and :math:`\sigma` (``difficulty_sd``) sets how strongly outcomes on
the same item are correlated. The judge passes a right answer of system :math:`s` with
probability :math:`\mathrm{Se}_s` and a wrong one with :math:`1 - \mathrm{Sp}_s` (one value for
every system, or one per system to model a judge that treats systems differently).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.special import expit

from bayesjudge.systems.irt import ability_for_rate, joint_rates
from bayesjudge.validation import rng_from

__all__ = ["DESIGNS", "SimulatedSystems", "simulate_systems"]

Design = Literal["paired", "unpaired"]
#: The designs :func:`simulate_systems` can draw.
DESIGNS: tuple[str, ...] = get_args(Design)


@dataclass(frozen=True, slots=True, eq=False)
class SimulatedSystems:
    """A simulated data set and the truth behind it.

    Attributes
    ----------
    frame : DataFrame
        Columns ``system``, ``item``, ``label`` (nullable integer, missing when not
        gold-labelled) and ``verdict``.
    systems : tuple of str
    pi : ndarray, shape (systems,)
        True population success rates.
    ability : ndarray, shape (systems,)
        Abilities on the logit scale.
    difficulty_sd : float
        Standard deviation of the item difficulties.
    se, sp : ndarray, shape (systems,)
        The judge's sensitivity and specificity for each system.
    design : {"paired", "unpaired"}
    """

    frame: pd.DataFrame
    systems: tuple[str, ...]
    pi: NDArray[np.float64]
    ability: NDArray[np.float64]
    difficulty_sd: float
    se: NDArray[np.float64]
    sp: NDArray[np.float64]
    design: str

    @property
    def diff(self) -> float:
        """True ``pi[1] - pi[0]`` (second system minus first)."""
        return float(self.pi[1] - self.pi[0])

    def joint(self, a: int = 0, b: int = 1) -> NDArray[np.float64]:
        """Return the true joint outcome probabilities of systems ``a`` and ``b`` (2 x 2).

        In the unpaired design each item is answered by one system only, so this is the law of
        a hypothetical pair; the models never see it.
        """
        return joint_rates(self.ability[[a, b]], self.difficulty_sd)


def _per_system(name: str, value: float | Sequence[float], size: int) -> NDArray[np.float64]:
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        arr = np.full(size, float(arr))
    if arr.shape != (size,):
        raise ValueError(
            f"{name} must be a number or one number per system ({size}); got {value!r}"
        )
    if np.any((arr < 0.0) | (arr > 1.0)):
        raise ValueError(f"{name} must lie in [0, 1]; got {arr.tolist()}")
    return arr


def simulate_systems(
    pi: Sequence[float],
    *,
    n_unlabelled: int,
    n_labelled: int,
    se: float | Sequence[float],
    sp: float | Sequence[float],
    design: Design = "paired",
    difficulty_sd: float = 1.0,
    labelled_systems: Sequence[str] | None = None,
    systems: Sequence[str] | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> SimulatedSystems:
    r"""Simulate judged answers of several systems, with gold labels on a random subset.

    Paired design: ``n_labelled + n_unlabelled`` items, each answered by every system; a random
    ``n_labelled`` of them carry gold labels on the answers of each system in
    ``labelled_systems`` (so an item is labelled for all of those systems at once). Unpaired
    design: each system answers its own ``n_labelled + n_unlabelled`` items, ``n_labelled`` of
    them labelled if the system is in ``labelled_systems``. Labelled items are a random sample
    of the item population, so both calibration assumptions of the models hold.

    Parameters
    ----------
    pi : sequence of float
        True success rate of each system (strictly between 0 and 1); at least two.
    n_unlabelled, n_labelled : int
        Items per design unit (see above).
    se, sp : float or sequence of float
        The judge's sensitivity and specificity: one value for all systems, or one per system.
    design : {"paired", "unpaired"}
        Whether the systems answer the same items.
    difficulty_sd : float
        :math:`\sigma`, the spread of item difficulty on the logit scale; 0 makes the outcomes
        of different systems on an item independent.
    labelled_systems : sequence of str, optional
        The systems whose answers get gold labels; all by default.
    systems : sequence of str, optional
        System names; ``"A"``, ``"B"``, ... by default.
    random_seed : int, Generator or None
        Seed for reproducibility; None uses :data:`bayesjudge.validation.DEFAULT_SEED`.

    Returns
    -------
    SimulatedSystems

    Examples
    --------
    >>> sim = simulate_systems([0.6, 0.7], n_unlabelled=100, n_labelled=20, se=0.9, sp=0.8,
    ...                        random_seed=0)
    >>> sim.frame.shape, round(sim.diff, 2)
    ((240, 4), 0.1)
    """
    pi_arr = np.asarray(pi, dtype=float)
    if pi_arr.ndim != 1 or pi_arr.size < 2:
        raise ValueError(f"pi must list at least two success rates; got {pi!r}")
    size = pi_arr.size
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {list(DESIGNS)}; got {design!r}")
    for name, count in (("n_unlabelled", n_unlabelled), ("n_labelled", n_labelled)):
        if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
            raise ValueError(f"{name} must be a non-negative whole number; got {count!r}")
    if n_unlabelled == 0:
        raise ValueError("n_unlabelled must be positive: every system needs unlabelled answers")
    if not difficulty_sd >= 0.0:
        raise ValueError(f"difficulty_sd must be non-negative; got {difficulty_sd!r}")
    names = tuple(f"{chr(65 + s)}" for s in range(size)) if systems is None else tuple(systems)
    if len(names) != size or len(set(names)) != size:
        raise ValueError(f"systems must be {size} distinct names; got {systems!r}")
    se_arr = _per_system("se", se, size)
    sp_arr = _per_system("sp", sp, size)
    chosen = names if labelled_systems is None else tuple(labelled_systems)
    unknown = [s for s in chosen if s not in names]
    if unknown:
        raise ValueError(f"labelled_systems {unknown} are not among the systems {list(names)}")
    is_labelled = np.array([s in chosen for s in names])

    rng = rng_from(random_seed)
    ability = ability_for_rate(pi_arr, float(difficulty_sd))
    per_unit = n_labelled + n_unlabelled
    if design == "paired":
        z = rng.standard_normal(per_unit)
        system = np.tile(np.arange(size), per_unit)
        item = np.repeat(np.arange(per_unit), size)
        gold_item = np.zeros(per_unit, dtype=bool)
        gold_item[rng.choice(per_unit, size=n_labelled, replace=False)] = True
        has_label = gold_item[item] & is_labelled[system]
        item_name = np.array([f"q{i}" for i in range(per_unit)])[item]
        z_row = z[item]
    else:
        system = np.repeat(np.arange(size), per_unit)
        local = np.tile(np.arange(per_unit), size)
        z_row = rng.standard_normal(system.size)
        gold = np.zeros((size, per_unit), dtype=bool)
        for s in range(size):
            gold[s, rng.choice(per_unit, size=n_labelled, replace=False)] = True
        has_label = gold[system, local] & is_labelled[system]
        item_name = np.array([f"{names[s]}-q{i}" for s, i in zip(system, local, strict=True)])
    truth = rng.random(system.size) < expit(ability[system] - difficulty_sd * z_row)
    pass_prob = np.where(truth, se_arr[system], 1.0 - sp_arr[system])
    verdict = (rng.random(system.size) < pass_prob).astype(np.int64)
    label = pd.array(truth.astype(np.int64), dtype="Int64")
    label[~has_label] = pd.NA
    frame = pd.DataFrame(
        {
            "system": np.array(names, dtype=object)[system],
            "item": item_name,
            "label": label,
            "verdict": verdict,
        }
    )
    return SimulatedSystems(
        frame=frame,
        systems=names,
        pi=pi_arr.copy(),
        ability=ability,
        difficulty_sd=float(difficulty_sd),
        se=se_arr,
        sp=sp_arr,
        design=design,
    )
