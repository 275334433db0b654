"""bayesjudge: Bayesian measurement of AI systems judged by imperfect LLM judges.

An LLM judge's pass rate is not a system's true success rate. bayesjudge turns judge verdicts
plus a small gold-labelled calibration set into the true success rate with honest uncertainty,
and shows the frequentist baselines beside it.
"""

from bayesjudge._version import __version__
from bayesjudge.data import (
    JudgeCounts,
    JudgeData,
    LoopLog,
    PairedOutcomes,
    Rulings,
    load_example,
)
from bayesjudge.errors import DataError, FitWarning, NotIdentifiableError
from bayesjudge.results import Estimate, Interval, estimates_frame

__all__ = [
    "DataError",
    "Estimate",
    "FitWarning",
    "Interval",
    "JudgeCounts",
    "JudgeData",
    "LoopLog",
    "NotIdentifiableError",
    "PairedOutcomes",
    "Rulings",
    "__version__",
    "estimates_frame",
    "load_example",
]
