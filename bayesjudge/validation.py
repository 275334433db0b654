"""Argument checks shared by every module: one rule per kind of argument, one message each.

Data tables are checked by the input layer (:mod:`bayesjudge.io`); this module checks the
scalar options of functions (an interval mass, a whole number with bounds, a choice among
strings, a probability) and turns a seed into each consumer's own random stream
(:func:`seed_stream`). Every error names the argument, what is allowed and what was received.
"""

from __future__ import annotations

from collections.abc import Iterable
from statistics import NormalDist
from typing import Any, Literal

import numpy as np

__all__ = [
    "DEFAULT_SEED",
    "MAX_CHAINS",
    "MAX_DRAWS",
    "SEED_STREAMS",
    "SeedConsumer",
    "check_choice",
    "check_int",
    "check_prob",
    "check_unit",
    "rng_from",
    "seed_stream",
    "z_value",
]

#: The seed used wherever ``random_seed=None`` is passed: every result is reproducible by
#: default. Pass a :class:`numpy.random.Generator` (e.g. ``np.random.default_rng()``) for fresh
#: randomness.
DEFAULT_SEED = 20_261_123

#: The consumers of one seed: ``"simulate"`` (simulated data), ``"sampler"`` (the seeds handed to
#: NUTS), ``"resample"`` (bootstrap replicates, permutations, random splits), ``"plan"`` (the
#: label plan's preposterior simulation) and ``"draws"`` (posterior and predictive Monte Carlo
#: draws outside the sampler).
SeedConsumer = Literal["simulate", "sampler", "resample", "plan", "draws"]

#: The fixed ``spawn_key`` of each consumer's stream, ``SeedSequence(seed, spawn_key=key)``:
#: ``(k,)`` is child ``k`` (from 0) of ``SeedSequence(seed).spawn``, whichever other consumers ran.
#: Simulation keeps the root sequence, so ``simulate(random_seed=s)`` equals
#: ``simulate(random_seed=np.random.default_rng(s))``.
SEED_STREAMS: dict[str, tuple[int, ...]] = {
    "simulate": (),
    "sampler": (1,),
    "resample": (2,),
    "plan": (3,),
    "draws": (4,),
}

#: Upper bounds of the sampler settings (draws or tuning steps per chain, and chains): far
#: beyond any need, low enough to fail at once on a typo instead of exhausting memory.
MAX_DRAWS = 200_000
MAX_CHAINS = 64
#: ``plan_labels``'s limits (here, so the command line's help needs no import of the planner):
#: the default and largest ``max_labels`` (a guard against typos, not a statistical limit) and
#: the largest number of preposterior ``draws``.
PLAN_DEFAULT_MAX_LABELS = 2000
PLAN_MAX_LABELS = 10**7
PLAN_MAX_DRAWS = 10_000


def check_prob(prob: Any, *, name: str = "prob") -> float:
    """Return an interval mass as a float, checking that it lies in (0, 1).

    Examples
    --------
    >>> check_prob(0.9)
    0.9
    """
    if isinstance(prob, bool) or not isinstance(prob, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number in (0, 1); got {prob!r}")
    if not 0.0 < float(prob) < 1.0:
        raise ValueError(f"{name} must lie in (0, 1); got {prob!r}")
    return float(prob)


def check_unit(value: Any, *, name: str, open_interval: bool = False) -> float:
    """Return a probability as a float, checking that it lies in [0, 1] (or (0, 1)).

    Examples
    --------
    >>> check_unit(0.0, name="pilot_q0")
    0.0
    """
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number in [0, 1]; got {value!r}")
    number = float(value)
    inside = 0.0 < number < 1.0 if open_interval else 0.0 <= number <= 1.0
    if not inside:
        bounds = "(0, 1)" if open_interval else "[0, 1]"
        raise ValueError(f"{name} must lie in {bounds}; got {value!r}")
    return number


def check_int(value: Any, *, name: str, minimum: int = 0, maximum: int | None = None) -> int:
    """Return a whole number as an int, checking ``minimum <= value <= maximum``.

    Resource arguments (draws, chains, bootstrap resamples, caps) carry a ``maximum`` so a typo
    such as ``draws=10**9`` fails at once with a message instead of exhausting memory.

    Examples
    --------
    >>> check_int(2000, name="draws", minimum=1, maximum=100_000)
    2000
    """
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be a whole number; got {value!r}")
    number = int(value)
    if number < minimum or (maximum is not None and number > maximum):
        bounds = f">= {minimum}" if maximum is None else f"between {minimum} and {maximum:,}"
        raise ValueError(f"{name} must be a whole number {bounds}; got {value!r}")
    return number


def check_choice(value: Any, *, name: str, allowed: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``allowed``; the message lists the allowed values.

    Examples
    --------
    >>> check_choice("delta", name="interval", allowed=("delta", "bootstrap"))
    'delta'
    """
    options = tuple(allowed)
    if value not in options:
        raise ValueError(f"{name} must be one of {list(options)}; got {value!r}")
    return str(value)


def z_value(prob: float) -> float:
    """Return the two-sided standard-normal quantile of an interval of mass ``prob``.

    The quantile is the standard library's :meth:`statistics.NormalDist.inv_cdf` (Wichura's
    algorithm AS 241, relative error below ``1e-15``), so the commands that need only a normal
    quantile do not import SciPy.

    Examples
    --------
    >>> round(z_value(0.95), 4)
    1.96
    """
    return NormalDist().inv_cdf(0.5 + check_prob(prob) / 2.0)


def seed_stream(
    random_seed: int | np.random.Generator | None, consumer: SeedConsumer
) -> np.random.Generator:
    r"""Return ``consumer``'s random stream of ``random_seed``: a Generator as is, else spawned.

    One integer seeds every consumer of a run (the sampler, the bootstrap, the label plan, the
    simulation); each gets its own stream,

    .. math::

        \text{stream}(s, c) = \text{PCG64}\big(\text{SeedSequence}(s, k_c)\big),

    with :math:`k_c` the consumer's fixed ``spawn_key`` in :data:`SEED_STREAMS`: the consumers
    draw from independent streams (not one stream read from its start by each), and each
    stream does not depend on which others ran (O'Neill, 2015; NumPy's "Parallel random number
    generation"). ``None`` means :data:`DEFAULT_SEED`, so
    every result is reproducible by default. A Generator is returned as is: its owner decides
    how the consumers share it.

    Parameters
    ----------
    random_seed : int, Generator or None
        A non-negative whole number, a numpy Generator, or None for :data:`DEFAULT_SEED`.
    consumer : {"simulate", "sampler", "resample", "plan", "draws"}
        Who draws from the stream (see :data:`SeedConsumer`).

    Returns
    -------
    Generator

    Raises
    ------
    ValueError
        If ``random_seed`` is negative or not a whole number, or ``consumer`` is unknown.

    References
    ----------
    O'Neill, M. E. (2015). PCG: A family of simple fast space-efficient statistically good
    algorithms for random number generation. Harvey Mudd College, HMC-CS-2014-0905.

    Examples
    --------
    >>> a = seed_stream(7, "sampler").random()
    >>> a == seed_stream(7, "sampler").random(), a == seed_stream(7, "resample").random()
    (True, False)
    >>> seed_stream(7, "simulate").random() == np.random.default_rng(7).random()
    True
    """
    if consumer not in SEED_STREAMS:
        raise ValueError(f"consumer must be one of {list(SEED_STREAMS)}; got {consumer!r}")
    if isinstance(random_seed, np.random.Generator):
        return random_seed
    if random_seed is None:
        random_seed = DEFAULT_SEED
    if isinstance(random_seed, bool) or not isinstance(random_seed, int | np.integer):
        raise ValueError(
            f"random_seed must be a non-negative whole number, a numpy Generator or None; "
            f"got {random_seed!r}"
        )
    if random_seed < 0:
        raise ValueError(f"random_seed must be non-negative; got {random_seed!r}")
    sequence = np.random.SeedSequence(int(random_seed), spawn_key=SEED_STREAMS[consumer])
    return np.random.default_rng(sequence)


def rng_from(random_seed: int | np.random.Generator | None) -> np.random.Generator:
    """Return the simulation stream of ``random_seed``: ``seed_stream(random_seed, "simulate")``.

    A Generator as is, an int seeded (``rng_from(s)`` draws what ``np.random.default_rng(s)``
    draws), None seeded with :data:`DEFAULT_SEED`, so that every result is reproducible by
    default. Other consumers of a seed use :func:`seed_stream` with their own name.

    Examples
    --------
    >>> float(rng_from(None).random()) == float(rng_from(DEFAULT_SEED).random())
    True
    """
    return seed_stream(random_seed, "simulate")
