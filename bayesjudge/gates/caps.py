"""Checking cap arguments of retry gates: whole numbers K >= 1 within a sane bound."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["MAX_CAP", "MAX_CAPS", "check_caps", "check_unit_array"]

#: Largest cap K accepted (closed forms at any K are cheap; this bound catches typos).
MAX_CAP = 10**9
#: Largest number of caps in one request.
MAX_CAPS = 1000


def check_caps(caps: ArrayLike) -> NDArray[np.int64]:
    """Return caps as a 1-D integer array, checking they are whole numbers in [1, MAX_CAP].

    Examples
    --------
    >>> check_caps([1, 2, 5]).tolist()
    [1, 2, 5]
    """
    arr = np.asarray(caps)
    if arr.ndim > 1 or arr.size == 0:
        raise ValueError(f"caps must be a whole number or a 1-D sequence of them; got {caps!r}")
    flat = np.atleast_1d(arr)
    if (
        not np.issubdtype(flat.dtype, np.number)
        or np.any(flat != np.round(flat))
        or np.any(flat < 1)
        or np.any(flat > MAX_CAP)
    ):
        raise ValueError(f"caps must be whole numbers from 1 to {MAX_CAP:,}; got {caps!r}")
    if flat.size > MAX_CAPS:
        raise ValueError(f"at most {MAX_CAPS} caps at once; got {flat.size}")
    return flat.astype(np.int64)


def check_unit_array(name: str, value: ArrayLike) -> NDArray[np.float64]:
    """Return ``value`` as floats, checking every entry lies in [0, 1]."""
    arr = np.asarray(value, dtype=float)
    if np.any((arr < 0.0) | (arr > 1.0)):
        raise ValueError(f"{name} must lie in [0, 1]; got {value!r}")
    return arr
