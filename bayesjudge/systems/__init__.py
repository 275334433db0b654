"""Comparing and ranking systems judged by one imperfect judge (model family 4).

:func:`analyze_systems` is the whole answer for one dataset (fit, check, rank, compare, with
the baselines beside it); ``bayesjudge rank`` renders it. Data contract and reductions
(:mod:`~bayesjudge.systems.data`), frequentist baselines for a
difference of success rates (:mod:`~bayesjudge.systems.baselines`), ranking summaries of
posterior draws (:mod:`~bayesjudge.systems.rank`), an exact reference for the paired
two-system model (:mod:`~bayesjudge.systems.exact`), item-response numerics
(:mod:`~bayesjudge.systems.irt`), the fit (:mod:`~bayesjudge.systems.fit`), the analysis
(:mod:`~bayesjudge.systems.analysis`), the report (:mod:`~bayesjudge.systems.report`) and seeded
simulators (:mod:`~bayesjudge.systems.simulate`).
The PyMC models live in :mod:`bayesjudge.models.systems`; nothing here imports PyMC.
"""

from bayesjudge.systems.analysis import SystemsAnalysis, analyze_systems, summarize_systems
from bayesjudge.systems.baselines import (
    difference_baselines,
    difference_baselines_frame,
    mcnemar_test,
    naive_difference,
    ppi_difference,
    rogan_gladen_difference,
    system_baselines,
)
from bayesjudge.systems.data import Patterns, SystemCounts, SystemsData
from bayesjudge.systems.fit import fit_systems
from bayesjudge.systems.rank import (
    pairwise_table,
    prob_best,
    prob_better,
    rank_draws,
    rank_probabilities,
    ranking_table,
    reversals_table,
)
from bayesjudge.systems.simulate import SimulatedSystems, simulate_systems

__all__ = [
    "Patterns",
    "SimulatedSystems",
    "SystemCounts",
    "SystemsAnalysis",
    "SystemsData",
    "analyze_systems",
    "difference_baselines",
    "difference_baselines_frame",
    "fit_systems",
    "mcnemar_test",
    "naive_difference",
    "pairwise_table",
    "ppi_difference",
    "prob_best",
    "prob_better",
    "rank_draws",
    "rank_probabilities",
    "ranking_table",
    "reversals_table",
    "rogan_gladen_difference",
    "simulate_systems",
    "summarize_systems",
    "system_baselines",
]
