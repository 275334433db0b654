"""Model family 1: the true success rate under one imperfect judge (prevalence).

Where to find each piece:

* :mod:`~bayesjudge.prevalence.data`: :class:`JudgeData`, :class:`JudgeCounts` (the contract);
* :mod:`~bayesjudge.prevalence.baselines`: naive, calibration-only, Rogan-Gladen (delta,
  Lang-Reiczigel, bootstrap), PPI, PPI++ on judge data;
* :mod:`~bayesjudge.prevalence.exact`: the exact posterior by numerical integration;
* :mod:`~bayesjudge.prevalence.thresholds`: a scoring judge's posterior ROC and the threshold
  with the narrowest interval of pi;
* :mod:`~bayesjudge.prevalence.allocation`: how to split a calibration budget by class;
* :mod:`~bayesjudge.prevalence.plan`: :func:`plan_labels`, how many more gold labels a target
  interval width needs (preposterior simulation on the exact posterior);
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
    "LabelPlan": ".plan",
    "MAX_BOOT": ".baselines",
    "Method": ".analysis",
    "PrevalenceAnalysis": ".analysis",
    "ThresholdAnalysis": ".thresholds",
    "ThresholdPoint": ".thresholds",
    "RANDOM_SAMPLE_METHODS": ".baselines",
    "REPORTED": ".fit",
    "VarianceDecomposition": ".allocation",
    "allocate": ".allocation",
    "analyze_prevalence": ".analysis",
    "baseline_estimates": ".baselines",
    "baselines": ".baselines",
    "calibration_check": ".analysis",
    "calibration_only": ".baselines",
    "can_stream": ".data",
    "candidate_thresholds": ".thresholds",
    "compare": ".analysis",
    "comparison_estimates": ".analysis",
    "exact_posterior": ".exact",
    "fit_prevalence": ".fit",
    "judge_scores_table": ".simulate",
    "judge_table": ".simulate",
    "naive": ".baselines",
    "optimal_ratio": ".allocation",
    "plan_labels": ".plan",
    "plot_label_plan": ".plan",
    "posterior_draws": ".plan",
    "posterior_predictive_counts": ".fit",
    "ppi": ".baselines",
    "ppi_plus_plus": ".baselines",
    "prevalence_draws": ".fit",
    "rogan_gladen": ".baselines",
    "rogan_gladen_bootstrap_draws": ".baselines",
    "threshold_analysis": ".thresholds",
    "variance_decomposition": ".allocation",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
