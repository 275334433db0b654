r"""Seeded simulators of paired-outcome protocols (family 3, Correction and Corruption).

* :func:`simulate_step`: one step with a fixed channel :math:`(p_0, c, \gamma)`;
* :func:`simulate_slices`: one step on items from several slices (e.g. depths 1-5) whose
  :math:`p_0(s), c(s), \gamma(s)` differ, under any slice mixture (:data:`DEPTH_SLICES` is a
  ready-made depth suite);
* :func:`simulate_stack`: a stack of steps that is Markov on the correctness bit
  (``history=0``) or not (``history != 0``: the next step also depends on the stage before).

Every simulator returns a table that :meth:`bayesjudge.channels.data.PairedOutcomes.from_frame`
accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from bayesjudge.channels.kernels import one_step
from bayesjudge.validation import rng_from

__all__ = [
    "DEPTH_SLICES",
    "SliceChannels",
    "simulate_slices",
    "simulate_stack",
    "simulate_step",
]


def _unit(value: float, name: str) -> float:
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1]; got {value!r}")
    return float(value)


def _size(n: int, name: str = "n") -> int:
    if int(n) != n or n < 1:
        raise ValueError(f"{name} must be a positive whole number; got {n!r}")
    return int(n)


@dataclass(frozen=True, slots=True)
class SliceChannels:
    """True per-slice channels of a simulated protocol step.

    Attributes
    ----------
    labels : tuple of str
        Slice labels.
    p0, c, gamma : tuple of float
        Baseline accuracy, correction and corruption rate of each slice.
    """

    labels: tuple[str, ...]
    p0: tuple[float, ...]
    c: tuple[float, ...]
    gamma: tuple[float, ...]

    def __post_init__(self) -> None:
        k = len(self.labels)
        for name in ("p0", "c", "gamma"):
            values = getattr(self, name)
            if len(values) != k:
                raise ValueError(f"{name} must have one value per slice ({k}); got {len(values)}")
            for v in values:
                _unit(v, name)

    def p1(self, weights: Sequence[float] | np.ndarray) -> float:
        r"""Return the true post-step accuracy :math:`\sum_s w_s p_1(s)` under a slice mixture."""
        w = np.asarray(weights, dtype=float)
        if w.shape != (len(self.labels),) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(
                f"weights must be {len(self.labels)} non-negative numbers, not all zero"
            )
        w = w / w.sum()
        return float(w @ one_step(np.array(self.p0), np.array(self.c), np.array(self.gamma)))


#: A depth suite in the spirit of Correction and Corruption Sec. 5: deeper items start less often
#: correct, are
#: corrected less often and corrupted more often.
DEPTH_SLICES = SliceChannels(
    labels=("1", "2", "3", "4", "5"),
    p0=(0.92, 0.85, 0.75, 0.62, 0.50),
    c=(0.60, 0.45, 0.30, 0.20, 0.12),
    gamma=(0.02, 0.05, 0.09, 0.15, 0.22),
)


def simulate_step(
    n: int,
    *,
    p0: float,
    c: float,
    gamma: float,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    r"""Simulate ``n`` items through one step: :math:`E_0 \sim \mathrm{Bern}(p_0)`, then the kernel.

    Parameters
    ----------
    n : int
        Items.
    p0, c, gamma : float
        Baseline accuracy, correction rate and corruption rate.
    random_seed : int, Generator or None
        Seed.

    Returns
    -------
    DataFrame
        Columns ``item``, ``e0``, ``e1``.

    Examples
    --------
    >>> simulate_step(3, p0=0.5, c=0.2, gamma=0.1, random_seed=1).columns.tolist()
    ['item', 'e0', 'e1']
    """
    n = _size(n)
    p0, c, gamma = _unit(p0, "p0"), _unit(c, "c"), _unit(gamma, "gamma")
    rng = rng_from(random_seed)
    e0 = (rng.random(n) < p0).astype(int)
    e1 = (rng.random(n) < np.where(e0 == 1, 1.0 - gamma, c)).astype(int)
    return pd.DataFrame({"item": [f"i{k}" for k in range(n)], "e0": e0, "e1": e1})


def simulate_slices(
    n: int | Sequence[int],
    *,
    channels: SliceChannels = DEPTH_SLICES,
    weights: Sequence[float] | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    r"""Simulate one step on items from several slices with their own channels.

    Parameters
    ----------
    n : int or sequence of int
        Total items, split across slices by a multinomial draw with probabilities ``weights``
        (uniform by default); or the exact number of items of each slice.
    channels : SliceChannels
        True per-slice :math:`(p_0, c, \gamma)`.
    weights : sequence of float, optional
        Slice mixture when ``n`` is a total.
    random_seed : int, Generator or None
        Seed.

    Returns
    -------
    DataFrame
        Columns ``item``, ``slice``, ``e0``, ``e1``.

    Examples
    --------
    >>> t = simulate_slices([5, 0, 0, 0, 3], random_seed=0)
    >>> t["slice"].value_counts().to_dict()
    {'1': 5, '5': 3}
    """
    rng = rng_from(random_seed)
    k = len(channels.labels)
    if np.ndim(n) == 0:
        total = _size(int(n))  # type: ignore[arg-type]
        w = np.full(k, 1.0 / k) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (k,) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"weights must be {k} non-negative numbers, not all zero")
        sizes = rng.multinomial(total, w / w.sum())
    else:
        sizes = np.asarray(n, dtype=int)
        if sizes.shape != (k,) or (sizes < 0).any() or sizes.sum() < 1:
            raise ValueError(f"n must be one non-negative size per slice ({k}), not all zero")
    index = np.repeat(np.arange(k), sizes)
    p0 = np.asarray(channels.p0)[index]
    c = np.asarray(channels.c)[index]
    gamma = np.asarray(channels.gamma)[index]
    e0 = (rng.random(index.size) < p0).astype(int)
    e1 = (rng.random(index.size) < np.where(e0 == 1, 1.0 - gamma, c)).astype(int)
    return pd.DataFrame(
        {
            "item": [f"i{j}" for j in range(index.size)],
            "slice": np.asarray(channels.labels, dtype=object)[index],
            "e0": e0,
            "e1": e1,
        }
    )


def simulate_stack(
    n: int,
    *,
    p0: float,
    c: Sequence[float],
    gamma: Sequence[float],
    history: float = 0.0,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    r"""Simulate a stack of steps, Markov on the correctness bit or not.

    Step ``t`` moves :math:`E_t \to E_{t+1}` with correction ``c[t]`` and corruption
    ``gamma[t]``. With ``history`` :math:`h \ne 0`, every step after the first also depends on
    the stage before: the log-odds of :math:`E_{t+1} = 1` are shifted by
    :math:`h\,(2E_{t-1} - 1)`, so items that were correct two stages back do better
    (:math:`h > 0`). ``history=0`` gives a Markov stack, :math:`E_{t+1} \perp E_{t-1} \mid E_t`.

    Parameters
    ----------
    n : int
        Items.
    p0 : float
        Accuracy at stage 0.
    c, gamma : sequence of float
        Rates of each step (same length ``S >= 1``).
    history : float
        Log-odds dependence on the stage before the current one (0: Markov).
    random_seed : int, Generator or None
        Seed.

    Returns
    -------
    DataFrame
        Columns ``item``, ``e0``, ..., ``eS``.

    Examples
    --------
    >>> simulate_stack(4, p0=0.5, c=[0.3, 0.3], gamma=[0.1, 0.1], random_seed=0).columns.tolist()
    ['item', 'e0', 'e1', 'e2']
    """
    n = _size(n)
    c_arr = np.asarray(c, dtype=float)
    g_arr = np.asarray(gamma, dtype=float)
    if c_arr.ndim != 1 or c_arr.shape != g_arr.shape or c_arr.size < 1:
        raise ValueError("c and gamma must be sequences of the same length (one rate per step)")
    for name, values in (("c", c_arr), ("gamma", g_arr)):
        if ((values <= 0) | (values >= 1)).any():
            raise ValueError(f"{name} must lie strictly in (0, 1); got {values.tolist()}")
    if not np.isfinite(history):
        raise ValueError(f"history must be finite; got {history!r}")
    rng = rng_from(random_seed)
    stages = [(rng.random(n) < _unit(p0, "p0")).astype(int)]
    for t in range(c_arr.size):
        current = stages[-1]
        prob = np.where(current == 1, 1.0 - g_arr[t], c_arr[t])
        if t > 0 and history != 0.0:
            prob = special.expit(special.logit(prob) + history * (2 * stages[-2] - 1))
        stages.append((rng.random(n) < prob).astype(int))
    table: dict[str, object] = {"item": [f"i{k}" for k in range(n)]}
    table.update({f"e{t}": stage for t, stage in enumerate(stages)})
    return pd.DataFrame(table)
