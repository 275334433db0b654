"""Stopping rules over r rulings of an item: any-pass, majority, unanimous, at-least-t.

A gate that asks the judge r times and ships on a rule turns the per-ruling pass probability
p into the rule's pass probability; the rules differ in how pass-prone they are (Below the
Reliability Floor, anonymous, under review 2026, section 3).
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, get_args

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from bayesjudge.gates.caps import check_caps, check_unit_array

Rule = Literal["any", "majority", "unanimous", "at_least"]
#: The stopping rules, ordered from most to least pass-prone.
STOPPING_RULES: tuple[str, ...] = ("any", "majority", "unanimous")

__all__ = ["STOPPING_RULES", "rule_pass_probability", "rule_threshold", "stopping_rules"]


class RuleRates(Protocol):
    """What :func:`stopping_rules` needs of a class: its ship rate under a rule at each cap.

    :class:`bayesjudge.gates.curves.PassRateDistribution` is one.
    """

    def rule_rate(self, caps: ArrayLike, *, rule: Rule = ..., t: int | None = ...) -> Any:
        """Return the probability that an item of the class ships under ``rule`` at ``caps``."""
        ...


def rule_threshold(
    caps: ArrayLike, *, rule: Rule = "any", t: int | None = None
) -> NDArray[np.int64]:
    r"""Return the number of passes out of K rulings a stopping rule needs to ship.

    ``"any"`` (retry-until-PASS): 1; ``"majority"``: :math:`\lfloor K/2 \rfloor + 1`;
    ``"unanimous"``: :math:`K`; ``"at_least"``: ``t`` (Below the Reliability Floor, section 3).

    Examples
    --------
    >>> rule_threshold([1, 4, 5], rule="majority").tolist()
    [1, 3, 3]
    """
    if rule not in get_args(Rule):
        raise ValueError(f"rule must be one of {list(get_args(Rule))}; got {rule!r}")
    k = check_caps(caps)
    if rule == "at_least":
        if t is None or isinstance(t, bool) or int(t) != t or t < 1:
            raise ValueError(f"rule='at_least' needs a whole number t >= 1; got t={t!r}")
        if np.any(t > k):
            raise ValueError(f"t={t} exceeds the cap K={int(k.min())}: the rule can never ship")
        return np.full(k.shape, int(t), dtype=np.int64)
    if t is not None:
        raise ValueError(f"t is only used with rule='at_least'; got rule={rule!r}, t={t!r}")
    if rule == "any":
        return np.ones_like(k)
    if rule == "majority":
        return k // 2 + 1
    return k.copy()


def rule_pass_probability(
    p: ArrayLike, caps: ArrayLike, *, rule: Rule = "any", t: int | None = None
) -> NDArray[np.float64]:
    r"""Probability that an item with pass probability p ships under a stopping rule.

    .. math:: P(\mathrm{Bin}(K, p) \ge t)

    with ``t`` from :func:`rule_threshold`; ``rule="any"`` reduces to :func:`ship_probability`.

    Examples
    --------
    >>> print(f"{rule_pass_probability(0.5, 3, rule='majority'):.3f}")
    0.500
    """
    p_arr = check_unit_array("p", p)
    k = check_caps(caps)
    thresholds = rule_threshold(k, rule=rule, t=t)
    out = np.asarray(stats.binom.sf(thresholds - 1, k, p_arr[..., None]))
    return np.asarray(out[..., 0] if np.ndim(caps) == 0 else out, dtype=float)


def stopping_rules(
    compliant: RuleRates,
    violation: RuleRates,
    *,
    caps: ArrayLike,
    pi: float,
    t: int | None = None,
) -> pd.DataFrame:
    r"""Se, Sp, J, reported rate and signed bias of each stopping rule at each cap.

    For a rule shipping on at least :math:`t` of :math:`K` passes, the class ship rate is
    :math:`(1-\omega)P(\mathrm{BetaBin}(K, a, b) \ge t)`; any-pass is the most inflationary,
    unanimous the most conservative (Below the Reliability Floor, section 3). With ``t`` given, an
    ``at_least`` row is added (only at caps :math:`K \ge t`).

    Returns
    -------
    DataFrame
        Columns rule, k, t, se, sp, j, reported, bias.

    Examples
    --------
    >>> from bayesjudge.gates.curves import PassRateDistribution
    >>> c, v = PassRateDistribution(0, 0.8, 4.0), PassRateDistribution(0, 0.3, 4.0)
    >>> table = stopping_rules(c, v, caps=[3], pi=0.5)
    >>> table["rule"].tolist(), bool(table["bias"].is_monotonic_decreasing)
    (['any', 'majority', 'unanimous'], True)
    """
    k = check_caps(caps)
    check_unit_array("pi", pi)
    rows = []
    rules: list[tuple[Rule, int | None]] = [("any", None), ("majority", None), ("unanimous", None)]
    if t is not None:
        rules.append(("at_least", t))
    for rule, t_rule in rules:
        use = k if t_rule is None else k[k >= t_rule]
        if use.size == 0:
            continue
        se = np.atleast_1d(compliant.rule_rate(use, rule=rule, t=t_rule))
        fpr = np.atleast_1d(violation.rule_rate(use, rule=rule, t=t_rule))
        thresholds = rule_threshold(use, rule=rule, t=t_rule)
        for i, cap in enumerate(use):
            reported = pi * se[i] + (1.0 - pi) * fpr[i]
            rows.append(
                {
                    "rule": rule,
                    "k": int(cap),
                    "t": int(thresholds[i]),
                    "se": float(se[i]),
                    "sp": float(1.0 - fpr[i]),
                    "j": float(se[i] - fpr[i]),
                    "reported": float(reported),
                    "bias": float(reported - pi),
                }
            )
    return pd.DataFrame(rows)
