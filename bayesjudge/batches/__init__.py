"""The batches family: judge verdicts over time (dates, releases, judge versions).

Where to find each piece:

* :mod:`~bayesjudge.batches.data`: :class:`BatchedData` (the contract), its per-batch counts.
"""

from bayesjudge._lazy import lazy_exports

#: Public names of the family, each loaded from its module on first access.
_NAMES = {
    "COUNT_COLUMNS": ".data",
    "BatchedData": ".data",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
