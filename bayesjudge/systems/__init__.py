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

from bayesjudge._lazy import by_module, lazy_exports

#: Public names of the family by module, each loaded from its module on first access.
_NAMES = by_module(
    {
        ".analysis": "SystemsAnalysis analyze_systems summarize_systems",
        ".average": "JudgeEvidence judge_evidence",
        ".baselines": (
            "difference_baselines difference_baselines_frame mcnemar_test naive_difference "
            "ppi_difference rogan_gladen_difference system_baselines"
        ),
        ".data": "Patterns SystemCounts SystemsData",
        ".fit": "fit_systems",
        ".predictive": "PairVerdicts pair_verdicts paired_predictive",
        ".rank": (
            "pairwise_table prob_best prob_better rank_draws rank_probabilities ranking_table "
            "reversals_table"
        ),
        ".repeated": "RepeatedSystemsData clustered_naive_difference simulate_repeated_systems",
        ".repeated_analysis": (
            "RepeatedSystemsAnalysis analyze_repeated_systems fit_repeated_systems"
        ),
        ".simulate": "SimulatedSystems simulate_systems",
    }
)

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
