r"""Vote rules of a judge panel: their Se, Sp and J from the pattern probabilities.

A vote rule maps each complete verdict pattern :math:`v \in \{0, 1\}^J` to PASS or FAIL, so it
*is* a single judge, with

.. math::

    \mathrm{Se} = \sum_{v \in A} P(v \mid 1),\qquad 1 - \mathrm{Sp} = \sum_{v \in A} P(v \mid 0),
    \qquad J = \mathrm{Se} + \mathrm{Sp} - 1,

:math:`A` the set of patterns the rule passes. Every function here works on arrays of pattern
probabilities with any leading batch axes (posterior draws), class axis then pattern axis.

* The **at-least-t-of-J** rules pass when at least :math:`t` judges pass: :math:`t = 1` is
  "any", :math:`t = J` is "all", :math:`t = \lfloor J/2 \rfloor + 1` is the majority.
* The **likelihood-ratio rule** passes :math:`v` when :math:`P(v \mid 1) > P(v \mid 0)`. Among
  all rules on complete patterns it has the largest :math:`J`, since
  :math:`J(A) = \sum_{v \in A} [P(v \mid 1) - P(v \mid 0)]` is largest when :math:`A` holds
  exactly the patterns with a positive difference (the Neyman-Pearson lemma at threshold 1);
  its :math:`J` is the total-variation distance between the two classes' pattern laws. For
  conditionally independent judges it is the weighted vote with weights
  :math:`\log\{\mathrm{Se}_t\mathrm{Sp}_t/((1-\mathrm{Se}_t)(1-\mathrm{Sp}_t))\}` of Nitzan and
  Paroush ("Optimal decision rules in uncertain dichotomous choice situations", International
  Economic Review, 1982); with correlated judges it down-weights the copies automatically.

A rule used as a single judge gives pi by Rogan-Gladen; :func:`rule_pi_sd` is the delta-method
standard deviation of that estimate (Rogan and Gladen, "Estimating prevalence from the results of
a screening test", American Journal of Epidemiology, 1978; Lee et al., "How to Correctly Report
LLM-as-a-Judge Evaluations", 2025, eq. 9), the quantity by which rules are ranked.
"""

from __future__ import annotations

import re

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayesjudge.estimators import rogan_gladen_variance

__all__ = [
    "LIKELIHOOD_RATIO",
    "at_least_rules",
    "complete_patterns",
    "likelihood_ratio_rule",
    "rule_pi_sd",
    "rule_rates",
    "rule_words",
]

#: Name of the likelihood-ratio (Bayes) rule.
LIKELIHOOD_RATIO = "likelihood_ratio"

_MAX_JUDGES = 16


def _check_judges(n_judges: int) -> int:
    if isinstance(n_judges, bool) or int(n_judges) != n_judges or not 1 <= n_judges <= _MAX_JUDGES:
        raise ValueError(f"n_judges must be a whole number in [1, {_MAX_JUDGES}]; got {n_judges!r}")
    return int(n_judges)


def complete_patterns(n_judges: int) -> NDArray[np.int8]:
    """Return every complete verdict pattern of ``n_judges`` judges, shape (2**J, J).

    Row ``k`` holds the binary digits of ``k``, judge 0 the most significant: row 0 is all
    FAIL, the last row all PASS.

    Examples
    --------
    >>> complete_patterns(2).tolist()
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    """
    n = _check_judges(n_judges)
    k = np.arange(2**n)[:, None]
    shifts = np.arange(n - 1, -1, -1)[None, :]
    return ((k >> shifts) & 1).astype(np.int8)


def at_least_rules(n_judges: int) -> tuple[tuple[str, ...], NDArray[np.bool_]]:
    """Return the at-least-t-of-J rules on :func:`complete_patterns`, for t = 1..J.

    Returns
    -------
    names : tuple of str
        ``"at_least_1_of_J"``, ..., ``"at_least_J_of_J"``.
    passes : ndarray of bool, shape (J, 2**J)
        Which patterns each rule passes.

    Examples
    --------
    >>> names, passes = at_least_rules(2)
    >>> names, passes.astype(int).tolist()
    (('at_least_1_of_2', 'at_least_2_of_2'), [[0, 1, 1, 1], [0, 0, 0, 1]])
    """
    n = _check_judges(n_judges)
    votes = complete_patterns(n).sum(axis=1)
    thresholds = np.arange(1, n + 1)
    return tuple(f"at_least_{t}_of_{n}" for t in thresholds), votes[None, :] >= thresholds[:, None]


def rule_words(rule: str) -> str:
    """Return a vote rule's name in words, for prose (tables and JSON keep the identifier).

    Examples
    --------
    >>> rule_words("at_least_2_of_4"), rule_words("at_least_4_of_4"), rule_words(LIKELIHOOD_RATIO)
    ('at least 2 of 4 judges PASS', 'all 4 judges PASS', 'the likelihood-ratio rule')
    """
    if rule == LIKELIHOOD_RATIO:
        return "the likelihood-ratio rule"
    match = re.fullmatch(r"at_least_(\d+)_of_(\d+)", rule)
    if match is None:
        return rule.replace("_", " ")
    t, n = match.groups()
    return f"all {n} judges PASS" if t == n else f"at least {t} of {n} judges PASS"


def likelihood_ratio_rule(pattern_prob: ArrayLike) -> NDArray[np.bool_]:
    r"""Patterns the likelihood-ratio rule passes: :math:`P(v \mid 1) > P(v \mid 0)`.

    Parameters
    ----------
    pattern_prob : array_like, shape (2, P)
        Pattern probabilities of one parameter value (class 0 FAIL, class 1 PASS), e.g. the
        posterior mean, so that the rule is one fixed rule whose Se and Sp can then be followed
        over the posterior draws.

    Returns
    -------
    ndarray of bool, shape (P,)

    Examples
    --------
    >>> likelihood_ratio_rule([[0.5, 0.3, 0.2], [0.1, 0.3, 0.6]]).tolist()
    [False, False, True]
    """
    p = np.asarray(pattern_prob, dtype=float)
    if p.ndim != 2 or p.shape[0] != 2:
        raise ValueError(f"pattern_prob must have shape (2, P); got {p.shape}")
    return np.asarray(p[1] > p[0])


def rule_rates(
    pattern_prob: ArrayLike, passes: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Se and Sp of vote rules from pattern probabilities, vectorised over leading axes.

    Parameters
    ----------
    pattern_prob : array_like, shape (..., 2, P)
        :math:`P(v \mid c)` over complete patterns (class 0 FAIL, class 1 PASS).
    passes : array_like of bool, shape (R, P) or (P,)
        Which patterns each rule passes.

    Returns
    -------
    se, sp : ndarray, shape (..., R) (or (...) for a single rule)

    Examples
    --------
    >>> se, sp = rule_rates([[0.5, 0.3, 0.2], [0.1, 0.3, 0.6]], [False, True, True])
    >>> print(f"{se:.1f} {sp:.1f}")
    0.9 0.5
    """
    p = np.asarray(pattern_prob, dtype=float)
    rule = np.asarray(passes, dtype=float)
    if p.ndim < 2 or p.shape[-2] != 2:
        raise ValueError(f"pattern_prob must have shape (..., 2, P); got {p.shape}")
    if rule.shape[-1] != p.shape[-1]:
        raise ValueError(f"passes covers {rule.shape[-1]} patterns; pattern_prob has {p.shape[-1]}")
    rates = p @ rule.T if rule.ndim == 2 else p @ rule
    return rates[..., 1, :] if rule.ndim == 2 else rates[..., 1], (
        1.0 - (rates[..., 0, :] if rule.ndim == 2 else rates[..., 0])
    )


def rule_pi_sd(
    se: ArrayLike, sp: ArrayLike, pi: ArrayLike, *, n: int, m1: int, m0: int
) -> NDArray[np.float64]:
    r"""Delta-method sd of the Rogan-Gladen estimate of pi from a rule used as one judge.

    .. math::

        \mathrm{sd}(\hat\pi) = \frac{1}{J}\sqrt{\frac{R(1 - R)}{n}
            + \frac{(1 - \pi)^2\,\mathrm{Sp}(1 - \mathrm{Sp})}{m_0}
            + \frac{\pi^2\,\mathrm{Se}(1 - \mathrm{Se})}{m_1}},\qquad
        R = \pi\,\mathrm{Se} + (1 - \pi)(1 - \mathrm{Sp})

    (Lee et al., 2025, eq. 9), evaluated at the given values, e.g. at each posterior draw; its
    posterior mean ranks the rules by how precisely they measure pi.

    Parameters
    ----------
    se, sp : array_like, shape (..., R)
        The rules' sensitivity and specificity.
    pi : array_like, shape (...)
        The true success rate (broadcast against the rule axis).
    n, m1, m0 : int
        Unlabelled items, gold-PASS and gold-FAIL items.

    Returns
    -------
    ndarray, shape (..., R)
        NaN where the rule's :math:`J \le 0`.

    Examples
    --------
    >>> print(f"{rule_pi_sd(0.90, 0.85, 0.7333, n=1000, m1=100, m0=100):.4f}")
    0.0373
    """
    se_arr = np.asarray(se, dtype=float)
    sp_arr = np.asarray(sp, dtype=float)
    pi_arr = np.asarray(pi, dtype=float)
    if se_arr.ndim > pi_arr.ndim:
        pi_arr = pi_arr[..., None]
    rate = pi_arr * se_arr + (1.0 - pi_arr) * (1.0 - sp_arr)
    return np.asarray(
        np.sqrt(rogan_gladen_variance(rate=rate, se=se_arr, sp=sp_arr, n=n, m1=m1, m0=m0)),
        dtype=float,
    )
