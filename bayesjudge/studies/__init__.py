"""Simulation studies of the estimators: coverage, width and error, seeded, chunked, resumable.

* :mod:`~bayesjudge.studies.runner`: specifications, replicates (which call the shipped
  estimators of every family), chunked execution locally or on Dask, summaries;
* :mod:`~bayesjudge.studies.plots`: figures of a study;
* :mod:`~bayesjudge.studies.cli`: ``bayesjudge study``.
"""

from bayesjudge._lazy import by_module, lazy_exports

#: Public names of the family by module, each loaded from its module on first access.
_NAMES = by_module(
    {
        ".plots": "plot_coverage plot_mae plot_width_vs_j save_study_figures",
        ".runner": (
            "BUILTIN_STUDIES ESTIMATORS McmcSettings StudySpec builtin_study exact_check "
            "load_results run_study study_chunks summarize"
        ),
    }
)

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
