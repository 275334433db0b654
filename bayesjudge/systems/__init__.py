"""Comparing and ranking systems judged by one imperfect judge (model family 4).

:func:`analyze_systems` is the whole answer for one dataset (fit, check, rank, compare, with
the baselines beside it); ``bayesjudge rank`` renders it. Data contract and reductions
(:mod:`~bayesjudge.systems.data`), frequentist baselines for a
difference of success rates (:mod:`~bayesjudge.systems.baselines`), ranking summaries of
posterior draws (:mod:`~bayesjudge.systems.rank`), an exact reference for the paired
two-system model (:mod:`~bayesjudge.systems.exact`), item-response numerics
(:mod:`~bayesjudge.systems.irt`), the paired models' predictive check
(:mod:`~bayesjudge.systems.predictive`), the weight of one judge and the average of the
shared and per-system fits (:mod:`~bayesjudge.systems.average`), the fit
(:mod:`~bayesjudge.systems.fit`), the analysis (:mod:`~bayesjudge.systems.analysis`), the
report (:mod:`~bayesjudge.systems.report`), seeded simulators
(:mod:`~bayesjudge.systems.simulate`), and several answers per item (``rank --epoch``: data,
baselines and simulator in :mod:`~bayesjudge.systems.repeated`, fit and analysis in
:mod:`~bayesjudge.systems.repeated_analysis`).
The PyMC models live in :mod:`bayesjudge.models.systems`; nothing here imports PyMC.
"""

from bayesjudge._lazy import lazy_exports

#: Public names of the family, each loaded from its module on first access.
_NAMES = {
    "analyze_repeated_systems": ".repeated_analysis",
    "analyze_systems": ".analysis",
    "clustered_naive_difference": ".repeated",
    "difference_baselines": ".baselines",
    "difference_baselines_frame": ".baselines",
    "fit_repeated_systems": ".repeated_analysis",
    "fit_systems": ".fit",
    "judge_evidence": ".average",
    "JudgeEvidence": ".average",
    "mcnemar_test": ".baselines",
    "naive_difference": ".baselines",
    "pair_verdicts": ".predictive",
    "paired_predictive": ".predictive",
    "PairVerdicts": ".predictive",
    "pairwise_table": ".rank",
    "Patterns": ".data",
    "ppi_difference": ".baselines",
    "prob_best": ".rank",
    "prob_better": ".rank",
    "rank_draws": ".rank",
    "RepeatedSystemsAnalysis": ".repeated_analysis",
    "RepeatedSystemsData": ".repeated",
    "rank_probabilities": ".rank",
    "ranking_table": ".rank",
    "reversals_table": ".rank",
    "rogan_gladen_difference": ".baselines",
    "simulate_repeated_systems": ".repeated",
    "simulate_systems": ".simulate",
    "SimulatedSystems": ".simulate",
    "summarize_systems": ".analysis",
    "system_baselines": ".baselines",
    "SystemCounts": ".data",
    "SystemsAnalysis": ".analysis",
    "SystemsData": ".data",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
