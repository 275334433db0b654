"""The batches family: judge verdicts over time (dates, releases, judge versions).

Where to find each piece:

* :mod:`~bayesjudge.batches.data`: :class:`BatchedData` (the contract), its per-batch counts;
* :mod:`~bayesjudge.batches.monitor`: :func:`monitor_batches`, an anytime-valid monitor of the
  corrected success rate and of judge drift, beside a per-batch Bayesian rule;
* :mod:`~bayesjudge.batches.cli`: the ``bayesjudge monitor`` and ``bayesjudge drift`` commands;
* :mod:`~bayesjudge.batches.simulate`: seeded simulators of batch counts;
* :mod:`~bayesjudge.batches.statespace`: :func:`fit_drift`, pi, Se and Sp as random walks across
  batches (the model is :mod:`bayesjudge.models.batches`), and :func:`drift_figure`;
  :mod:`~bayesjudge.batches.predictive`: its posterior predictive check;
  :mod:`~bayesjudge.batches.drift_report`: its report;
* :mod:`~bayesjudge.batches.versions_data` and :mod:`~bayesjudge.batches.versions`: two judge
  versions on the same items (:func:`load_judge_versions`, :func:`compare_judges`), compared as a
  paired design; :mod:`~bayesjudge.batches.versions_cli`: the ``bayesjudge judges`` command.
"""

from bayesjudge._lazy import lazy_exports

#: Public names of the family, each loaded from its module on first access.
_NAMES = {
    "COUNT_COLUMNS": ".data",
    "DriftFit": ".statespace",
    "BatchedData": ".data",
    "BatchStatus": ".monitor",
    "JudgeComparison": ".versions",
    "JudgeVersions": ".versions_data",
    "MonitorAnalysis": ".monitor",
    "batch_counts": ".simulate",
    "batch_counts_frame": ".simulate",
    "compare_judges": ".versions",
    "drift_figure": ".statespace",
    "fit_drift": ".statespace",
    "load_judge_versions": ".versions_data",
    "monitor_batches": ".monitor",
    "simulate_drift": ".statespace",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
