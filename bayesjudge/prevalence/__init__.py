"""Model family 1: the true success rate under one imperfect judge (prevalence).

Where to find each piece:

* :mod:`~bayesjudge.prevalence.data`: :class:`JudgeData`, :class:`JudgeCounts` (the contract);
* :mod:`~bayesjudge.prevalence.baselines`: naive, calibration-only, Rogan-Gladen (delta,
  Lang-Reiczigel, bootstrap), PPI, PPI++ on judge data;
* :mod:`~bayesjudge.prevalence.exact`: the exact posterior by numerical integration;
* :mod:`~bayesjudge.prevalence.allocation`: how to split a calibration budget by class;
* :mod:`~bayesjudge.prevalence.fit`: :func:`fit_prevalence` (the PyMC model is
  :mod:`bayesjudge.models.prevalence`);
* :mod:`~bayesjudge.prevalence.analysis`: :func:`analyze_prevalence`, the family's whole answer;
* :mod:`~bayesjudge.prevalence.report`, :mod:`~bayesjudge.prevalence.cli`: its rendering;
* :mod:`~bayesjudge.prevalence.simulate`: seeded simulators.
"""

from bayesjudge._lazy import lazy_exports

#: Public names of the family, each loaded from its module on first access.
_NAMES = {
    "Allocation": ".allocation",
    "BASELINE_METHODS": ".baselines",
    "ExactPosterior": ".exact",
    "JudgeCounts": ".data",
    "JudgeData": ".data",
    "MAX_BOOT": ".baselines",
    "Method": ".analysis",
    "PrevalenceAnalysis": ".analysis",
    "RANDOM_SAMPLE_METHODS": ".baselines",
    "REPORTED": ".fit",
    "VarianceDecomposition": ".allocation",
    "allocate": ".allocation",
    "analyze_prevalence": ".analysis",
    "baseline_estimates": ".baselines",
    "baselines": ".baselines",
    "calibration_check": ".analysis",
    "calibration_only": ".baselines",
    "compare": ".analysis",
    "comparison_estimates": ".analysis",
    "exact_posterior": ".exact",
    "fit_prevalence": ".fit",
    "judge_table": ".simulate",
    "naive": ".baselines",
    "optimal_ratio": ".allocation",
    "posterior_predictive_counts": ".fit",
    "ppi": ".baselines",
    "ppi_plus_plus": ".baselines",
    "prevalence_draws": ".fit",
    "rogan_gladen": ".baselines",
    "rogan_gladen_bootstrap_draws": ".baselines",
    "variance_decomposition": ".allocation",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
