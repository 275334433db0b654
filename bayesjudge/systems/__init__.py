"""Comparing and ranking systems judged by one imperfect judge (model family 4).

Data contract and reductions (:mod:`~bayesjudge.systems.data`), frequentist baselines for a
difference of success rates (:mod:`~bayesjudge.systems.baselines`), ranking summaries of
posterior draws (:mod:`~bayesjudge.systems.rank`), an exact reference for the paired
two-system model (:mod:`~bayesjudge.systems.exact`) and seeded simulators
(:mod:`~bayesjudge.systems.simulate`). The PyMC models live in
:mod:`bayesjudge.models.systems`.
"""
