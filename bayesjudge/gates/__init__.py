"""Model family 2: retry-until-PASS gates and revise-then-rejudge loops.

Where to find each piece:

* :mod:`~bayesjudge.gates.data`: :class:`Rulings`, :class:`LoopLog` (the contracts);
* :mod:`~bayesjudge.gates.caps`: checking cap arguments;
* :mod:`~bayesjudge.gates.curves`: closed forms of Se(K), Sp(K), J(K), J(inf), R(K), the
  variance of Rogan-Gladen at cap K and K*;
* :mod:`~bayesjudge.gates.rules`: stopping rules (any, majority, unanimous, at least t);
* :mod:`~bayesjudge.gates.cells`: per-item scores and the (label, r, k) cells;
* :mod:`~bayesjudge.gates.loops`: the slip law, loop replays and the PPV correction;
* :mod:`~bayesjudge.gates.checks`: transfer and independence checks;
* :mod:`~bayesjudge.gates.baselines`: naive, Rogan-Gladen, PPI and PPI++ at each cap;
* :mod:`~bayesjudge.gates.fit`: :func:`fit_gate` (the PyMC model is :mod:`bayesjudge.models.gate`);
* :mod:`~bayesjudge.gates.analysis`: :func:`analyze_gate`, the family's whole answer;
* :mod:`~bayesjudge.gates.report`, :mod:`~bayesjudge.gates.cli`: its rendering;
* :mod:`~bayesjudge.gates.simulate`: seeded simulators.
"""

from bayesjudge._lazy import lazy_exports

#: Public names of the family, each loaded from its module on first access.
_NAMES = {
    "CALIBRATION": ".fit",
    "CURVES": ".analysis",
    "CapEstimate": ".baselines",
    "GATE_BASELINES": ".baselines",
    "GROUPS": ".fit",
    "GateAnalysis": ".analysis",
    "GateCells": ".cells",
    "GateCurve": ".curves",
    "IndependenceCheck": ".checks",
    "LoopAnalysis": ".analysis",
    "LoopLog": ".data",
    "LoopReplay": ".loops",
    "MAX_CAP": ".caps",
    "MAX_CAPS": ".caps",
    "OptimalCap": ".curves",
    "PPVCorrection": ".loops",
    "PassRateDistribution": ".curves",
    "RANDOM_SAMPLE_METHODS": ".baselines",
    "REPORTED": ".fit",
    "Rulings": ".data",
    "STOPPING_RULES": ".rules",
    "SimulatedGate": ".simulate",
    "SlipLaw": ".loops",
    "SlipParameters": ".loops",
    "TABLE4": ".simulate",
    "TransferCheck": ".checks",
    "analyze_gate": ".analysis",
    "analyze_loop": ".analysis",
    "beta_tail_moment": ".curves",
    "cap_curve_draws": ".fit",
    "cap_scores": ".cells",
    "check_caps": ".caps",
    "check_unit_array": ".caps",
    "empirical_gate_curve": ".curves",
    "fit_gate": ".fit",
    "gate_baselines": ".baselines",
    "gate_bias": ".curves",
    "gate_calibration_check": ".fit",
    "gate_cells": ".cells",
    "gate_curve": ".curves",
    "independence_check": ".checks",
    "independence_check_table": ".checks",
    "optimal_cap": ".curves",
    "pad_cells": ".cells",
    "ppv_correction": ".loops",
    "rejudgment_gate": ".simulate",
    "reliability_floor": ".curves",
    "replay_loop": ".loops",
    "revise_loop": ".simulate",
    "rg_variance": ".curves",
    "rule_pass_probability": ".rules",
    "rule_threshold": ".rules",
    "ship_probability": ".curves",
    "skewed_gate": ".simulate",
    "slip_law": ".loops",
    "slip_parameters": ".loops",
    "stopping_rules": ".rules",
    "table4_gate": ".simulate",
    "transfer_check": ".checks",
    "zibb_logpmf": ".fit",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
