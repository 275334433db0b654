r"""A one-shot gate for continuous integration: the true success rate above a bar.

:func:`check_bar` reads the posterior of an analysis (:func:`analyze_prevalence`) and passes
when the posterior probability that :math:`\pi` exceeds the bar is at least the stated level,

.. math::

    \text{pass} \iff P(\pi > \pi_{\min} \mid \text{data}) \ge p,

the decision rule of a Bayesian acceptance test (the posterior probability of the claim "the
system is good enough"; see e.g. Berry, Carlin, Lee and Muller, *Bayesian Adaptive Methods for
Clinical Trials*, 2010). For the exact posterior the probability is
:math:`1 - F(\pi_{\min})` of its CDF; for NUTS draws it is the fraction of draws above the bar,
with its Monte-Carlo standard error :math:`\sqrt{\hat P(1 - \hat P)/\mathrm{ESS}}`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bayesjudge.validation import check_prob

if TYPE_CHECKING:
    from bayesjudge.prevalence.analysis import PrevalenceAnalysis

__all__ = ["BarCheck", "check_bar"]


@dataclass(frozen=True, slots=True)
class BarCheck:
    r"""The answer of the one-shot gate :math:`P(\pi > \pi_{\min} \mid \text{data}) \ge p`.

    Attributes
    ----------
    min_pi : float
        The bar :math:`\pi_{\min}`.
    prob : float
        The level :math:`p` the posterior probability must reach.
    p_above : float
        :math:`P(\pi > \pi_{\min} \mid \text{data})`.
    mcse : float or None
        Monte-Carlo standard error of ``p_above`` (NUTS draws; None for the exact posterior).
    method : {"nuts", "exact"}
        Which posterior it was read from.
    diagnostics_passed : bool
        Whether that posterior passed its diagnostics (always true for the exact one).
    """

    min_pi: float
    prob: float
    p_above: float
    mcse: float | None
    method: str
    diagnostics_passed: bool

    @property
    def passed(self) -> bool:
        """Whether the posterior probability of clearing the bar reaches the level."""
        return self.p_above >= self.prob

    @property
    def reason(self) -> str:
        """One line: the probability, the level and the decision.

        Examples
        --------
        >>> BarCheck(0.8, 0.95, 0.912, None, "exact", True).reason
        'P(pi > 0.80) = 0.91 < 0.95: below the bar'
        """
        sign, verdict = (">=", "clears the bar") if self.passed else ("<", "below the bar")
        return (
            f"P(pi > {self.min_pi:.2f}) = {_shown(self.p_above, self.prob)} {sign} "
            f"{self.prob:.2f}: {verdict}"
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object of ``bayesjudge check --json`` (without the analysis)."""
        return {
            "min_pi": self.min_pi,
            "prob": self.prob,
            "p_above": self.p_above,
            "mcse": self.mcse,
            "method": self.method,
            "passed": self.passed,
            "diagnostics_passed": self.diagnostics_passed,
            "reason": self.reason,
        }


def _shown(value: float, level: float) -> str:
    """``value`` with two decimals, or more when two would show it equal to ``level``."""
    for digits in (2, 3, 4, 6):
        text = f"{value:.{digits}f}"
        if (value < level) == (float(text) < level) and float(text) != level:
            return text
    return f"{value:.6f}"


def check_bar(analysis: PrevalenceAnalysis, *, min_pi: float, prob: float = 0.95) -> BarCheck:
    r"""Decide whether the true success rate clears a bar: :math:`P(\pi > \pi_{\min}) \ge p`.

    Parameters
    ----------
    analysis : PrevalenceAnalysis
        An unstratified analysis (:func:`~bayesjudge.prevalence.analysis.analyze_prevalence`).
    min_pi : float
        The bar, in (0, 1).
    prob : float
        The posterior probability the claim :math:`\pi > \pi_{\min}` must reach, in (0, 1).

    Returns
    -------
    BarCheck

    Raises
    ------
    ValueError
        If ``min_pi`` or ``prob`` is not in (0, 1), or the analysis is stratified.

    Examples
    --------
    >>> from bayesjudge.prevalence import JudgeCounts, analyze_prevalence
    >>> analysis = analyze_prevalence(JudgeCounts(60, 57, 40, 3, 500, 420), method="exact")
    >>> check = check_bar(analysis, min_pi=0.8, prob=0.95)
    >>> check.passed, round(check.p_above, 3)
    (True, 0.995)
    """
    check_prob(min_pi, name="min_pi")
    check_prob(prob, name="prob")
    if analysis.stratified:
        raise ValueError("check_bar reads the pooled pi of an unstratified analysis")
    if analysis.method == "exact":
        if analysis.exact is None:  # pragma: no cover - the exact method always sets it
            raise ValueError("the analysis holds no exact posterior")
        p_above = 1.0 - float(analysis.exact.cdf(min_pi))
        return BarCheck(min_pi, prob, p_above, None, "exact", True)
    if analysis.posterior is None:  # pragma: no cover - NUTS always sets it
        raise ValueError("the analysis holds no posterior draws")
    import arviz as az

    pi = analysis.posterior["posterior"]["pi"]
    above = (pi > min_pi).astype(float)
    p_above = float(above.mean())
    ess = float(np.asarray(az.ess(above.to_numpy())))  # (chain, draw) draws of the indicator
    mcse = float(np.sqrt(p_above * (1.0 - p_above) / ess)) if np.isfinite(ess) and ess > 0 else 0.0
    return BarCheck(min_pi, prob, p_above, mcse, "nuts", analysis.passed)
