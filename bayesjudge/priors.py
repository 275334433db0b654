"""Priors as plain values: small frozen objects that models read and never mutate."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

__all__ = ["JEFFREYS", "Beta", "PrevalencePriors"]


@dataclass(frozen=True, slots=True)
class Beta:
    """A Beta(alpha, beta) prior on a probability.

    Examples
    --------
    >>> Beta(0.5, 0.5).mean
    0.5
    """

    alpha: float
    beta: float

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not value > 0:
                raise ValueError(f"Beta prior: {name} must be positive; got {value!r}")

    @property
    def mean(self) -> float:
        """Prior mean alpha / (alpha + beta)."""
        return self.alpha / (self.alpha + self.beta)

    def __str__(self) -> str:
        return f"Beta({self.alpha:g}, {self.beta:g})"


#: The Jeffreys prior for a binomial probability, Beta(1/2, 1/2).
JEFFREYS = Beta(0.5, 0.5)


@dataclass(frozen=True, slots=True)
class PrevalencePriors:
    """Beta priors of the prevalence model: true success rate, sensitivity, specificity.

    Defaults are Jeffreys Beta(1/2, 1/2) on each.

    Examples
    --------
    >>> PrevalencePriors(se=Beta(9, 1)).as_dict()["se"]
    'Beta(9, 1)'
    """

    pi: Beta = field(default=JEFFREYS)
    se: Beta = field(default=JEFFREYS)
    sp: Beta = field(default=JEFFREYS)

    def as_dict(self) -> dict[str, str]:
        """Return the priors as text, e.g. for DataTree attrs."""
        return {name: str(getattr(self, name)) for name in ("pi", "se", "sp")}

    def as_params(self) -> dict[str, dict[str, float]]:
        """Return the priors as nested plain numbers."""
        return {name: asdict(getattr(self, name)) for name in ("pi", "se", "sp")}
