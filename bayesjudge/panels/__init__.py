"""Model family 5: judge panels, several LLM judges on the same items with correlated errors.

Where to find each piece:

* :mod:`~bayesjudge.panels.data`: :class:`PanelData`, :class:`PanelPatterns` (the contract and
  its reduction to verdict patterns);
* :mod:`~bayesjudge.panels.dependence`: closed forms of the latent-class model (pattern
  probabilities, error correlations, the effective number of judges);
* :mod:`~bayesjudge.panels.rules`: vote rules and their Se, Sp and J;
* :mod:`~bayesjudge.panels.quantities`: those quantities on every posterior draw;
* :mod:`~bayesjudge.panels.baselines`: each judge alone, the majority vote, Dawid-Skene;
* :mod:`~bayesjudge.panels.start`: the posterior mode the sampler starts from;
* :mod:`~bayesjudge.panels.fit`: :func:`fit_panel` (the PyMC model is
  :mod:`bayesjudge.models.panel`);
* :mod:`~bayesjudge.panels.choice`: the choice between the random-effect and the pair form;
* :mod:`~bayesjudge.panels.analysis`: :func:`analyze_panel`, the family's whole answer;
* :mod:`~bayesjudge.panels.report`, :mod:`~bayesjudge.panels.cli`: its rendering;
* :mod:`~bayesjudge.panels.simulate`: seeded simulators.
"""

from bayesjudge._lazy import lazy_exports

#: Public names of the family, each loaded from its module on first access.
_NAMES = {
    "CALIBRATION": ".fit",
    "CopyTruth": ".simulate",
    "DEPENDENCE": ".fit",
    "DEPENDENCE_FORMS": ".simulate",
    "DawidSkene": ".baselines",
    "DependenceChoice": ".choice",
    "GROUPS": ".fit",
    "JUDGE_QUANTITIES": ".analysis",
    "PANEL_RULES": ".baselines",
    "PanelAnalysis": ".analysis",
    "PanelData": ".data",
    "PanelDraws": ".quantities",
    "PanelEstimate": ".baselines",
    "PanelPatterns": ".data",
    "PanelStart": ".start",
    "PanelTruth": ".simulate",
    "REPORTED": ".fit",
    "RuleSummary": ".analysis",
    "SimulatedPanel": ".simulate",
    "analyze_panel": ".analysis",
    "at_least_rules": ".rules",
    "check_identified": ".fit",
    "choose_dependence": ".choice",
    "complete_patterns": ".rules",
    "dawid_skene": ".baselines",
    "dawid_skene_em": ".baselines",
    "dependence_scenario": ".simulate",
    "dependent_pairs": ".fit",
    "effective_judges": ".dependence",
    "fit_panel": ".fit",
    "judge_ppi_plus_plus": ".baselines",
    "judge_rogan_gladen": ".baselines",
    "likelihood_ratio_rule": ".rules",
    "load_panel": ".data",
    "log_pattern_probabilities": ".dependence",
    "majority_naive": ".baselines",
    "majority_rogan_gladen": ".baselines",
    "majority_verdicts": ".baselines",
    "mean_error_correlation": ".dependence",
    "pair_covariance_bound": ".dependence",
    "panel_baselines": ".baselines",
    "panel_calibration_check": ".fit",
    "panel_draws": ".quantities",
    "panel_estimates": ".baselines",
    "panel_quantities": ".quantities",
    "panel_scenario": ".simulate",
    "pattern_probabilities": ".dependence",
    "posterior_mode": ".start",
    "rule_pi_sd": ".rules",
    "rule_rates": ".rules",
    "simulate_copy_panel": ".simulate",
    "simulate_panel": ".simulate",
    "unanimity_counts": ".fit",
    "verdict_correlation": ".dependence",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
