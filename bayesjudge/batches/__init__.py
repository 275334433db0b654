"""The batches family: judge verdicts over time (dates, releases, judge versions).

Where to find each piece:

* :mod:`~bayesjudge.batches.data`: :class:`BatchedData` (the contract), its per-batch counts;
* :mod:`~bayesjudge.batches.monitor`: :func:`monitor_batches`, an anytime-valid monitor of the
  corrected success rate and of judge drift, beside a per-batch Bayesian rule;
* :mod:`~bayesjudge.batches.cli`: the ``bayesjudge monitor`` command;
* :mod:`~bayesjudge.batches.simulate`: seeded simulators of batch counts.
"""

from bayesjudge._lazy import lazy_exports

#: Public names of the family, each loaded from its module on first access.
_NAMES = {
    "COUNT_COLUMNS": ".data",
    "BatchedData": ".data",
    "BatchStatus": ".monitor",
    "MonitorAnalysis": ".monitor",
    "batch_counts": ".simulate",
    "batch_counts_frame": ".simulate",
    "monitor_batches": ".monitor",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
