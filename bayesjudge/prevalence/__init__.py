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

from bayesjudge._lazy import by_module, lazy_exports

#: Public names of the family by module, each loaded from its module on first access.
_NAMES = by_module(
    {
        ".allocation": (
            "Allocation VarianceDecomposition allocate optimal_ratio variance_decomposition"
        ),
        ".analysis": (
            "Method PrevalenceAnalysis analyze_prevalence calibration_check compare "
            "comparison_estimates"
        ),
        ".baselines": (
            "BASELINE_METHODS MAX_BOOT RANDOM_SAMPLE_METHODS baseline_estimates baselines "
            "calibration_only naive ppi ppi_plus_plus rogan_gladen "
            "rogan_gladen_bootstrap_draws"
        ),
        ".data": "JudgeCounts JudgeData can_stream",
        ".exact": "ExactPosterior exact_posterior",
        ".fit": "REPORTED fit_prevalence posterior_predictive_counts prevalence_draws",
        ".plan": "LabelPlan plan_labels plot_label_plan posterior_draws",
        ".simulate": "judge_scores_table judge_table",
        ".thresholds": "ThresholdAnalysis ThresholdPoint candidate_thresholds threshold_analysis",
    }
)

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
