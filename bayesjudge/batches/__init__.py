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

from bayesjudge._lazy import by_module, lazy_exports

#: Public names of the family by module, each loaded from its module on first access.
_NAMES = by_module(
    {
        ".data": "BatchedData COUNT_COLUMNS",
        ".monitor": "BatchStatus MonitorAnalysis monitor_batches",
        ".simulate": "batch_counts batch_counts_frame",
        ".statespace": "DriftFit drift_figure fit_drift simulate_drift",
        ".versions": "JudgeComparison compare_judges",
        ".versions_data": "JudgeVersions load_judge_versions",
    }
)

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
