"""bayesjudge: Bayesian measurement of AI systems judged by imperfect LLM judges.

An LLM judge's pass rate is not a system's true success rate. bayesjudge turns judge verdicts
plus a small gold-labelled calibration set into the true success rate with honest uncertainty,
and shows the frequentist baselines beside it.

The modules that need PyMC (fitting) are imported on first use, so ``import bayesjudge`` stays
light: ``bayesjudge.fit_prevalence`` loads PyMC when it is first touched.
"""

from importlib import import_module
from typing import Any

from bayesjudge._version import __version__
from bayesjudge.baselines import baseline_estimates, baselines
from bayesjudge.compare import compare, posterior_summary
from bayesjudge.data import (
    JudgeCounts,
    JudgeData,
    LoopLog,
    PairedOutcomes,
    Rulings,
    load_example,
)
from bayesjudge.errors import DataError, FitWarning, NotIdentifiableError
from bayesjudge.priors import Beta, PrevalencePriors
from bayesjudge.results import Estimate, Interval, estimates_frame

#: Public names loaded on first access, with the module that defines each. (``baselines`` and
#: ``compare`` are imported above instead: their modules have the same names, and a lazy
#: attribute would be shadowed by the submodule once it is imported.)
_LAZY = {
    "allocate": "bayesjudge.allocation",
    "check_fit": "bayesjudge.diagnostics",
    "exact_posterior": "bayesjudge.exact",
    "fit_prevalence": "bayesjudge.fitting",
    "write_report": "bayesjudge.report",
}

__all__ = [
    "Beta",
    "DataError",
    "Estimate",
    "FitWarning",
    "Interval",
    "JudgeCounts",
    "JudgeData",
    "LoopLog",
    "NotIdentifiableError",
    "PairedOutcomes",
    "PrevalencePriors",
    "Rulings",
    "__version__",
    "baseline_estimates",
    "baselines",
    "compare",
    "estimates_frame",
    "load_example",
    "posterior_summary",
    *sorted(_LAZY),
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'bayesjudge' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
