"""The arithmetic of the frequentist estimators, written once and shared by every family.

Small vectorised numpy functions with keyword-only arguments in one vocabulary (``pi``, ``se``,
``sp``, the judged ``rate``): the Rogan-Gladen correction and its delta-method variance
(:mod:`~bayesjudge.estimators.rogan_gladen`), prediction-powered inference
(:mod:`~bayesjudge.estimators.ppi`) and binomial and CLT intervals
(:mod:`~bayesjudge.estimators.intervals`). The families wrap them for their own data:
:mod:`bayesjudge.prevalence.baselines` for one judge on one test set,
:mod:`bayesjudge.gates.baselines` at each cap K of a retry gate, and the studies call those.
"""

from bayesjudge.estimators.intervals import clt_estimate, wilson_interval
from bayesjudge.estimators.ppi import ppi_lambda, ppi_lambda_counts, ppi_mean, ppi_mean_counts
from bayesjudge.estimators.rogan_gladen import (
    judged_rate,
    lang_reiczigel_interval,
    rogan_gladen_pi,
    rogan_gladen_variance,
)

__all__ = [
    "clt_estimate",
    "judged_rate",
    "lang_reiczigel_interval",
    "ppi_lambda",
    "ppi_lambda_counts",
    "ppi_mean",
    "ppi_mean_counts",
    "rogan_gladen_pi",
    "rogan_gladen_variance",
    "wilson_interval",
]
