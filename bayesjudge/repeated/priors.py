"""Priors of the repeated-samples model (a :class:`bayesjudge.priors.Priors` of its own)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from bayesjudge.priors import JEFFREYS, Beta, HalfNormal, Prior, Priors

__all__ = ["RepeatedPriors"]


@dataclass(frozen=True, slots=True)
class RepeatedPriors(Priors):
    r"""Priors of the repeated-samples model.

    Attributes
    ----------
    pi : Beta
        The success rate of the median item, :math:`\mathrm{logit}^{-1}(\mu)` (Jeffreys by
        default). Without spread between items every item has this rate, and the prior is the
        prevalence family's prior of pi.
    se, sp : Beta
        The judge's sensitivity and specificity per answer (Jeffreys by default, as in the
        prevalence family), restricted to J = Se + Sp - 1 > 0 unless asked otherwise.
    sigma : HalfNormal
        The spread of item difficulty on the logit scale (default HalfNormal(2.5): items from
        alike to split between always and never solved).
    tau : HalfNormal
        The spread between clusters on the logit scale (default HalfNormal(1.5)); only with a
        cluster column.
    rho : Beta
        The correlation of repeated judge calls on one answer (uniform by default): 0 makes
        the calls independent given the answer's true label, 1 makes them one verdict repeated;
        only with judge calls.

    Examples
    --------
    >>> RepeatedPriors().updated(["sigma=halfnormal:1"]).as_dict()["sigma"]
    'HalfNormal(1)'
    """

    pi: Beta = field(default=JEFFREYS)
    se: Beta = field(default=JEFFREYS)
    sp: Beta = field(default=JEFFREYS)
    sigma: HalfNormal = field(default=HalfNormal(2.5))
    tau: HalfNormal = field(default=HalfNormal(1.5))
    rho: Beta = field(default=Beta(1.0, 1.0))
    family: ClassVar[str] = "repeated"
    kinds: ClassVar[Mapping[str, type[Prior]]] = {
        "pi": Beta,
        "se": Beta,
        "sp": Beta,
        "sigma": HalfNormal,
        "tau": HalfNormal,
        "rho": Beta,
    }
