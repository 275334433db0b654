"""bayesjudge: Bayesian measurement of AI systems judged by imperfect LLM judges.

An LLM judge's pass rate is not a system's true success rate. bayesjudge turns judge verdicts
plus a small gold-labelled calibration set into the true success rate with honest uncertainty,
and shows the frequentist baselines beside it.

Everything a typical analysis needs is importable from here. Names are loaded on first use, so
``import bayesjudge`` stays light: PyMC is imported only when a model is fitted.

The package has one subpackage per model family (:mod:`bayesjudge.prevalence`,
:mod:`bayesjudge.gates`, :mod:`bayesjudge.channels`, :mod:`bayesjudge.systems`,
:mod:`bayesjudge.panels`, :mod:`bayesjudge.studies`), a shared
inference core (:mod:`bayesjudge.inference`), shared estimators (:mod:`bayesjudge.estimators`),
the input layer (:mod:`bayesjudge.io`), reporting helpers (:mod:`bayesjudge.reporting`) and the
command line (:mod:`bayesjudge.cli`); the PyMC models live in :mod:`bayesjudge.models`.
"""

from importlib import import_module
from typing import Any

from bayesjudge._version import __version__

#: Public names, each with the module that defines it; loaded on first access.
_LAZY = {
    # shared
    "DataError": "bayesjudge.errors",
    "FitWarning": "bayesjudge.errors",
    "MissingDependencyError": "bayesjudge.errors",
    "NotIdentifiableError": "bayesjudge.errors",
    "Beta": "bayesjudge.priors",
    "Normal": "bayesjudge.priors",
    "Prior": "bayesjudge.priors",
    "PrevalencePriors": "bayesjudge.priors",
    "GatePriors": "bayesjudge.priors",
    "ChannelPriors": "bayesjudge.priors",
    "SystemsPriors": "bayesjudge.priors",
    "PanelPriors": "bayesjudge.priors",
    "Estimate": "bayesjudge.results",
    "Interval": "bayesjudge.results",
    "PosteriorSummary": "bayesjudge.results",
    "estimates_frame": "bayesjudge.results",
    "DEFAULT_SEED": "bayesjudge.validation",
    "load_example": "bayesjudge.examples",
    "check_fit": "bayesjudge.inference.diagnostics",
    "posterior_summary": "bayesjudge.inference.summary",
    # prevalence
    "JudgeCounts": "bayesjudge.prevalence.data",
    "JudgeData": "bayesjudge.prevalence.data",
    "baseline_estimates": "bayesjudge.prevalence.baselines",
    "baselines": "bayesjudge.prevalence.baselines",
    "exact_posterior": "bayesjudge.prevalence.exact",
    "allocate": "bayesjudge.prevalence.allocation",
    "plan_labels": "bayesjudge.prevalence.plan",
    "fit_prevalence": "bayesjudge.prevalence.fit",
    "analyze_prevalence": "bayesjudge.prevalence.analysis",
    "PrevalenceAnalysis": "bayesjudge.prevalence.analysis",
    "compare": "bayesjudge.prevalence.analysis",
    "write_report": "bayesjudge.reporting.write",
    # retry gates
    "Rulings": "bayesjudge.gates.data",
    "LoopLog": "bayesjudge.gates.data",
    "fit_gate": "bayesjudge.gates.fit",
    "analyze_gate": "bayesjudge.gates.analysis",
    "GateAnalysis": "bayesjudge.gates.analysis",
    # channels
    "PairedOutcomes": "bayesjudge.channels.data",
    "analyze_channel": "bayesjudge.channels.analysis",
    "ChannelAnalysis": "bayesjudge.channels.analysis",
    # systems
    "SystemsData": "bayesjudge.systems.data",
    "analyze_systems": "bayesjudge.systems.analysis",
    "SystemsAnalysis": "bayesjudge.systems.analysis",
    # judge panels
    "PanelData": "bayesjudge.panels.data",
    "fit_panel": "bayesjudge.panels.fit",
    "analyze_panel": "bayesjudge.panels.analysis",
    "PanelAnalysis": "bayesjudge.panels.analysis",
}

__all__ = ["__version__", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'bayesjudge' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
