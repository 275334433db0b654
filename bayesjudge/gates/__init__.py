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

from bayesjudge._lazy import by_module, lazy_exports

#: Public names of the family by module, each loaded from its module on first access.
_NAMES = by_module(
    {
        ".analysis": "CURVES GateAnalysis LoopAnalysis analyze_gate analyze_loop",
        ".baselines": "CapEstimate GATE_BASELINES RANDOM_SAMPLE_METHODS gate_baselines",
        ".caps": "MAX_CAP MAX_CAPS check_caps check_unit_array",
        ".cells": "GateCells cap_scores gate_cells pad_cells",
        ".checks": (
            "IndependenceCheck TransferCheck independence_check independence_check_table "
            "transfer_check"
        ),
        ".curves": (
            "GateCurve OptimalCap PassRateDistribution beta_tail_moment empirical_gate_curve "
            "gate_bias gate_curve optimal_cap reliability_floor rg_variance ship_probability"
        ),
        ".data": "LoopLog Rulings",
        ".fit": (
            "CALIBRATION GROUPS REPORTED cap_curve_draws fit_gate gate_calibration_check "
            "zibb_logpmf"
        ),
        ".loops": (
            "LoopReplay PPVCorrection SlipLaw SlipParameters ppv_correction replay_loop "
            "slip_law slip_parameters"
        ),
        ".rules": "STOPPING_RULES rule_pass_probability rule_threshold stopping_rules",
        ".simulate": "SimulatedGate TABLE4 rejudgment_gate revise_loop skewed_gate table4_gate",
    }
)

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
