"""Simulation studies of the estimators: coverage, width and error, seeded, chunked, resumable.

* :mod:`~bayesjudge.studies.runner`: specifications, replicates (which call the shipped
  estimators of every family), chunked execution locally or on Dask, summaries;
* :mod:`~bayesjudge.studies.plots`: figures of a study;
* :mod:`~bayesjudge.studies.cli`: ``bayesjudge study``.
"""

from bayesjudge._lazy import lazy_exports

#: Public names of the family, each loaded from its module on first access.
_NAMES = {
    "BUILTIN_STUDIES": ".runner",
    "ESTIMATORS": ".runner",
    "McmcSettings": ".runner",
    "StudySpec": ".runner",
    "builtin_study": ".runner",
    "exact_check": ".runner",
    "load_results": ".runner",
    "plot_coverage": ".plots",
    "plot_mae": ".plots",
    "plot_width_vs_j": ".plots",
    "run_study": ".runner",
    "save_study_figures": ".plots",
    "study_chunks": ".runner",
    "summarize": ".runner",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
