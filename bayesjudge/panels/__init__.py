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

from bayesjudge._lazy import by_module, lazy_exports

#: Public names of the family by module, each loaded from its module on first access.
_NAMES = by_module(
    {
        ".analysis": "JUDGE_QUANTITIES PanelAnalysis RuleSummary analyze_panel",
        ".baselines": (
            "DawidSkene PANEL_RULES PanelEstimate dawid_skene dawid_skene_em "
            "judge_ppi_plus_plus judge_rogan_gladen majority_naive majority_rogan_gladen "
            "majority_verdicts panel_baselines panel_estimates"
        ),
        ".choice": "DependenceChoice choose_dependence",
        ".data": "PanelData PanelPatterns load_panel",
        ".dependence": (
            "effective_judges log_pattern_probabilities mean_error_correlation "
            "pair_covariance_bound pattern_probabilities verdict_correlation"
        ),
        ".fit": (
            "CALIBRATION DEPENDENCE GROUPS REPORTED check_identified dependent_pairs "
            "fit_panel panel_calibration_check unanimity_counts"
        ),
        ".quantities": "PanelDraws panel_draws panel_quantities",
        ".rules": "at_least_rules complete_patterns likelihood_ratio_rule rule_pi_sd rule_rates",
        ".simulate": (
            "CopyTruth DEPENDENCE_FORMS PanelTruth SimulatedPanel dependence_scenario "
            "panel_scenario simulate_copy_panel simulate_panel"
        ),
        ".start": "PanelStart posterior_mode",
    }
)

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
