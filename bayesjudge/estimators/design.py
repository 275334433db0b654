r"""Was the gold-labelled set a random sample of the test items? A check from judge verdicts.

Estimators such as the calibration-only mean, PPI and PPI++ assume the gold-labelled items are
a random sample of the population whose success rate is wanted. Gold sets are often drawn *by
class* instead (so many PASS and so many FAIL items), and then these estimators are biased,
while Rogan-Gladen and the Bayesian models, which only transfer :math:`P(\hat y \mid y)`, are
not. If the gold items were a random sample of the test items, the judge would pass them at the
same rate as it passes the test items; :func:`random_calibration_test` compares the two rates
with a two-sided two-proportion score test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["RandomCalibrationCheck", "random_calibration_test"]

#: Level below which the check calls the gold set inconsistent with a random sample.
LEVEL = 0.01


@dataclass(frozen=True, slots=True)
class RandomCalibrationCheck:
    """Whether the judge passes gold and test items at rates a random gold sample would give.

    Attributes
    ----------
    labelled_rate, unlabelled_rate : float
        The judge's pass rate on the gold-labelled and on the unlabelled items.
    n_labelled, n_unlabelled : int
        Items in each set.
    p_value : float
        Two-sided p-value of the two-proportion score test of equal rates.
    consistent : bool
        Whether ``p_value >= level``.
    level : float
        The level used.
    """

    labelled_rate: float
    unlabelled_rate: float
    n_labelled: int
    n_unlabelled: int
    p_value: float
    consistent: bool
    level: float

    def note(self) -> str:
        """Return the note attached to estimators that assume a random gold sample."""
        return (
            "assumes the gold items are a random sample of the test items, but the judge "
            f"passes {100 * self.labelled_rate:.0f}% of gold items and "
            f"{100 * self.unlabelled_rate:.0f}% of test items (p = {self.p_value:.2g}): "
            "biased under this design"
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the check as plain values."""
        return {
            "labelled_rate": self.labelled_rate,
            "unlabelled_rate": self.unlabelled_rate,
            "n_labelled": self.n_labelled,
            "n_unlabelled": self.n_unlabelled,
            "p_value": self.p_value,
            "consistent": self.consistent,
            "level": self.level,
        }


def random_calibration_test(
    *,
    passed_labelled: float,
    n_labelled: int,
    passed_unlabelled: float,
    n_unlabelled: int,
    level: float = LEVEL,
) -> RandomCalibrationCheck:
    r"""Test whether gold and test items are judged PASS at the same rate.

    With :math:`\hat p_L = x_L/n_L`, :math:`\hat p_U = x_U/n_U` and the pooled rate
    :math:`\bar p = (x_L + x_U)/(n_L + n_U)`, the score statistic is

    .. math:: z = \frac{\hat p_L - \hat p_U}{\sqrt{\bar p(1 - \bar p)(1/n_L + 1/n_U)}}

    and the p-value :math:`2\Phi(-|z|)` (1 when every item got the same verdict).

    Examples
    --------
    >>> check = random_calibration_test(
    ...     passed_labelled=150, n_labelled=300, passed_unlabelled=1340, n_unlabelled=2000
    ... )
    >>> check.consistent
    False
    """
    p_l = passed_labelled / n_labelled
    p_u = passed_unlabelled / n_unlabelled
    pooled = (passed_labelled + passed_unlabelled) / (n_labelled + n_unlabelled)
    spread = pooled * (1.0 - pooled) * (1.0 / n_labelled + 1.0 / n_unlabelled)
    # two-sided normal tail 2 Phi(-|z|) = erfc(|z| / sqrt 2), accurate far into the tail
    p_value = 1.0 if spread <= 0.0 else math.erfc(abs(p_l - p_u) / math.sqrt(2.0 * spread))
    return RandomCalibrationCheck(
        labelled_rate=float(p_l),
        unlabelled_rate=float(p_u),
        n_labelled=int(n_labelled),
        n_unlabelled=int(n_unlabelled),
        p_value=p_value,
        consistent=p_value >= level,
        level=float(level),
    )
