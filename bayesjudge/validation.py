"""Argument checks shared by every module: one rule per kind of argument, one message each.

Data tables are checked by the input layer (:mod:`bayesjudge.io`); this module checks the
scalar options of functions (an interval mass, a whole number with bounds, a choice among
strings, a probability) and turns a seed into a random generator. Every error names the
argument, what is allowed and what was received.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from scipy.special import ndtri

__all__ = [
    "DEFAULT_SEED",
    "check_choice",
    "check_int",
    "check_prob",
    "check_unit",
    "rng_from",
    "z_value",
]

#: The seed used wherever ``random_seed=None`` is passed: every result is reproducible by
#: default. Pass a :class:`numpy.random.Generator` (e.g. ``np.random.default_rng()``) for fresh
#: randomness.
DEFAULT_SEED = 20_261_123


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

    Examples
    --------
    >>> round(z_value(0.95), 4)
    1.96
    """
    return float(ndtri(0.5 + check_prob(prob) / 2.0))


def rng_from(random_seed: int | np.random.Generator | None) -> np.random.Generator:
    """Return a numpy Generator: a Generator as is, an int seeded, None seeded with the default.

    ``None`` means :data:`DEFAULT_SEED`, so that every result is reproducible by default.

    Examples
    --------
    >>> float(rng_from(None).random()) == float(rng_from(DEFAULT_SEED).random())
    True
    """
    if isinstance(random_seed, np.random.Generator):
        return random_seed
    if random_seed is None:
        return np.random.default_rng(DEFAULT_SEED)
    if isinstance(random_seed, bool) or not isinstance(random_seed, int | np.integer):
        raise ValueError(
            f"random_seed must be a non-negative whole number, a numpy Generator or None; "
            f"got {random_seed!r}"
        )
    if random_seed < 0:
        raise ValueError(f"random_seed must be non-negative; got {random_seed!r}")
    return np.random.default_rng(int(random_seed))
