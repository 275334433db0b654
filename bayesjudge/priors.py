"""Priors as plain values: one :class:`Prior` type, and each model family's set of priors.

A prior is a small frozen object (:class:`Beta` for a probability, :class:`Normal` for a real
number, :class:`HalfNormal` for a scale, :class:`Dirichlet` for a symmetric simplex) that
prints as it reads (``Beta(0.5, 0.5)``), serialises to JSON and parses back from the
command-line form ``beta:0.5,0.5``. Each model family has a frozen set of named priors
(:class:`PrevalencePriors`, :class:`GatePriors`, :class:`ChannelPriors`,
:class:`SystemsPriors`, :class:`PanelPriors`) with the defaults of
its model; :meth:`Priors.updated` replaces some of them from ``NAME=SPEC`` strings, checking
each name and distribution. Models read priors and never mutate them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Self

__all__ = [
    "JEFFREYS",
    "UNIFORM",
    "Beta",
    "ChannelPriors",
    "Dirichlet",
    "GatePriors",
    "HalfNormal",
    "Normal",
    "PanelPriors",
    "PrevalencePriors",
    "Prior",
    "Priors",
    "SystemsPriors",
    "parse_prior",
]


@dataclass(frozen=True, slots=True)
class Prior:
    """Base type of every prior: a named distribution with its parameters."""

    #: Distribution name, as in the command-line form (``beta``, ``normal``).
    kind: ClassVar[str] = ""

    def params(self) -> tuple[float, ...]:
        """Return the parameters in order."""
        return tuple(float(getattr(self, f.name)) for f in fields(self))

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"dist": kind, <parameter>: value, ...}`` (JSON-ready)."""
        return {"dist": self.kind, **{f.name: float(getattr(self, f.name)) for f in fields(self)}}

    def __str__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{p:g}' for p in self.params())})"


@dataclass(frozen=True, slots=True)
class Beta(Prior):
    """A Beta(alpha, beta) prior on a probability.

    Examples
    --------
    >>> Beta(0.5, 0.5).mean
    0.5
    >>> str(Beta(2, 8))
    'Beta(2, 8)'
    """

    alpha: float
    beta: float
    kind: ClassVar[str] = "beta"

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not _is_number(value) or not value > 0:
                raise ValueError(f"Beta prior: {name} must be a positive number; got {value!r}")

    @property
    def mean(self) -> float:
        """Prior mean alpha / (alpha + beta)."""
        return self.alpha / (self.alpha + self.beta)


@dataclass(frozen=True, slots=True)
class Normal(Prior):
    """A Normal(mu, sigma) prior on a real number (e.g. a log concentration).

    Examples
    --------
    >>> str(Normal(1, 1.5))
    'Normal(1, 1.5)'
    """

    mu: float
    sigma: float
    kind: ClassVar[str] = "normal"

    def __post_init__(self) -> None:
        if isinstance(self.mu, bool) or not _is_number(self.mu):
            raise ValueError(f"Normal prior: mu must be a number; got {self.mu!r}")
        if isinstance(self.sigma, bool) or not _is_number(self.sigma) or not self.sigma > 0:
            raise ValueError(f"Normal prior: sigma must be a positive number; got {self.sigma!r}")


@dataclass(frozen=True, slots=True)
class HalfNormal(Prior):
    """A HalfNormal(sigma) prior on a non-negative scale (e.g. a spread between systems).

    Examples
    --------
    >>> str(HalfNormal(1.5))
    'HalfNormal(1.5)'
    """

    sigma: float
    kind: ClassVar[str] = "halfnormal"

    def __post_init__(self) -> None:
        if isinstance(self.sigma, bool) or not _is_number(self.sigma) or not self.sigma > 0:
            raise ValueError(
                f"HalfNormal prior: sigma must be a positive number; got {self.sigma!r}"
            )


@dataclass(frozen=True, slots=True)
class Dirichlet(Prior):
    """A symmetric Dirichlet(c, ..., c) prior on a probability vector, given by its c.

    Examples
    --------
    >>> str(Dirichlet(0.5))
    'Dirichlet(0.5)'
    """

    concentration: float
    kind: ClassVar[str] = "dirichlet"

    def __post_init__(self) -> None:
        value = self.concentration
        if isinstance(value, bool) or not _is_number(value) or not value > 0:
            raise ValueError(
                f"Dirichlet prior: concentration must be a positive number; got {value!r}"
            )


def _is_number(value: object) -> bool:
    import math

    return isinstance(value, int | float) and math.isfinite(float(value))


#: The Jeffreys prior for a binomial probability, Beta(1/2, 1/2).
JEFFREYS = Beta(0.5, 0.5)
#: The uniform prior on a probability, Beta(1, 1).
UNIFORM = Beta(1.0, 1.0)

_KINDS: dict[str, type[Prior]] = {
    "beta": Beta,
    "normal": Normal,
    "halfnormal": HalfNormal,
    "dirichlet": Dirichlet,
}
_NAMED: dict[str, Prior] = {"jeffreys": JEFFREYS, "uniform": UNIFORM}
_SPEC = re.compile(r"^\s*([a-zA-Z]+)\s*(?::\s*(.*?)|\(\s*(.*?)\s*\))?\s*$")


def parse_prior(text: str) -> Prior:
    """Parse a prior from text: ``beta:1,1``, ``Beta(1, 1)``, ``normal:1,1.5``, ``jeffreys``.

    Also ``halfnormal:SIGMA`` and ``dirichlet:C`` (symmetric). ``jeffreys`` is Beta(1/2, 1/2)
    and ``uniform`` Beta(1, 1).

    Raises
    ------
    ValueError
        Naming the text and the accepted forms.

    Examples
    --------
    >>> parse_prior("beta:2,8")
    Beta(alpha=2.0, beta=8.0)
    >>> parse_prior("Normal(1, 1.5)")
    Normal(mu=1.0, sigma=1.5)
    """
    forms = "beta:A,B, normal:MU,SIGMA, halfnormal:SIGMA, dirichlet:C, jeffreys or uniform"
    match = _SPEC.match(str(text))
    if match is None:
        raise ValueError(f"cannot read the prior {text!r}; write it as {forms}")
    name = match.group(1).lower()
    raw = match.group(2) if match.group(2) is not None else match.group(3)
    if raw is None:
        if name in _NAMED:
            return _NAMED[name]
        raise ValueError(f"cannot read the prior {text!r}; write it as {forms}")
    if name not in _KINDS:
        raise ValueError(f"unknown prior distribution {name!r} in {text!r}; write it as {forms}")
    try:
        numbers = [float(part) for part in raw.split(",")]
    except ValueError:
        raise ValueError(f"the prior {text!r} needs numbers; write it as {forms}") from None
    cls = _KINDS[name]
    expected = len(fields(cls))
    if len(numbers) != expected:
        raise ValueError(f"a {name} prior takes {expected} numbers; {text!r} has {len(numbers)}")
    return cls(*numbers)


@dataclass(frozen=True, slots=True)
class Priors:
    """Base of each family's set of named priors (a frozen dataclass of :class:`Prior` fields).

    Subclasses declare one field per prior with its default; :data:`kinds` maps each field to
    the distribution it must have.
    """

    #: The family whose model reads these priors (shown in messages).
    family: ClassVar[str] = ""
    #: For each prior, the distribution it must have.
    kinds: ClassVar[Mapping[str, type[Prior]]] = {}

    def names(self) -> tuple[str, ...]:
        """Return the names of the priors, in order."""
        return tuple(f.name for f in fields(self))

    def as_dict(self) -> dict[str, str]:
        """Return the priors as text, e.g. ``{"pi": "Beta(0.5, 0.5)", ...}``."""
        return {name: str(getattr(self, name)) for name in self.names()}

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """Return the priors as nested plain values (JSON-ready)."""
        return {name: getattr(self, name).to_dict() for name in self.names()}

    def describe(self) -> str:
        """Return the priors as one line, e.g. ``pi ~ Beta(0.5, 0.5), se ~ ...``."""
        return ", ".join(f"{name} ~ {prior}" for name, prior in self.as_dict().items())

    def updated(self, specs: Mapping[str, Prior | str] | Iterable[str]) -> Self:
        """Return a copy with some priors replaced.

        Parameters
        ----------
        specs : mapping of name to Prior or text, or iterable of ``"NAME=SPEC"`` strings
            The priors to replace, e.g. ``{"pi": Beta(1, 1)}`` or ``["pi=beta:1,1"]`` (the
            command-line form; see :func:`parse_prior`).

        Raises
        ------
        ValueError
            Naming the prior when the name is unknown or given twice, the text cannot be read,
            or the distribution is not the one the model needs.

        Examples
        --------
        >>> PrevalencePriors().updated(["pi=beta:1,1"]).pi
        Beta(alpha=1.0, beta=1.0)
        """
        if isinstance(specs, Mapping):
            items = list(specs.items())
        else:
            items = []
            for spec in specs:
                name, sep, value = str(spec).partition("=")
                if not sep or not name.strip():
                    raise ValueError(
                        f"a prior is given as NAME=SPEC, e.g. pi=beta:1,1; got {spec!r}"
                    )
                items.append((name.strip(), value))
        changes: dict[str, Prior] = {}
        given: dict[str, Prior | str] = {}
        for name, value in items:
            if name in given:
                raise ValueError(
                    f"prior {name!r} is given twice ({given[name]} and {value}); give each "
                    "prior once"
                )
            given[name] = value
            if name not in self.names():
                raise ValueError(
                    f"the {self.family} model has no prior {name!r}; its priors are "
                    f"{list(self.names())}"
                )
            try:
                prior = value if isinstance(value, Prior) else parse_prior(value)
            except ValueError as exc:
                raise ValueError(f"prior {name!r}: {exc}") from None
            wanted = self.kinds[name]
            if not isinstance(prior, wanted):
                raise ValueError(
                    f"prior {name!r} of the {self.family} model must be a {wanted.kind} "
                    f"distribution; got {prior}"
                )
            changes[name] = prior
        return replace(self, **changes)

    def __post_init__(self) -> None:
        for name in self.names():
            value, wanted = getattr(self, name), self.kinds[name]
            if not isinstance(value, wanted):
                raise TypeError(
                    f"prior {name!r} of the {self.family} model must be a {wanted.__name__}; "
                    f"got {value!r}"
                )


@dataclass(frozen=True, slots=True)
class PrevalencePriors(Priors):
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
    family: ClassVar[str] = "prevalence"
    kinds: ClassVar[Mapping[str, type[Prior]]] = {"pi": Beta, "se": Beta, "sp": Beta}


@dataclass(frozen=True, slots=True)
class GatePriors(Priors):
    """Priors of the retry-gate model.

    Attributes
    ----------
    pi : Beta
        True success rate of the unlabelled items (Jeffreys by default).
    omega : Beta
        Each class's never-pass weight (uniform by default).
    mu : Beta
        Each class's mean pass rate among items that can pass (uniform by default).
    log_kappa : Normal
        Each class's log concentration (default Normal(1, 1.5): a 95% range of concentration
        of about 0.14 to 51, from U-shaped to tightly clustered pass rates).

    Examples
    --------
    >>> GatePriors().as_dict()["log_kappa"]
    'Normal(1, 1.5)'
    """

    pi: Beta = field(default=JEFFREYS)
    omega: Beta = field(default=UNIFORM)
    mu: Beta = field(default=UNIFORM)
    log_kappa: Normal = field(default=Normal(1.0, 1.5))
    family: ClassVar[str] = "gate"
    kinds: ClassVar[Mapping[str, type[Prior]]] = {
        "pi": Beta,
        "omega": Beta,
        "mu": Beta,
        "log_kappa": Normal,
    }


@dataclass(frozen=True, slots=True)
class ChannelPriors(Priors):
    """Priors of the channel models: one Beta prior for every rate (Jeffreys by default).

    ``rate`` is the prior of each step's correction rate c and corruption rate gamma, of the
    stage-0 accuracy, and of every conditional probability of the full-history model.

    Examples
    --------
    >>> str(ChannelPriors().rate)
    'Beta(0.5, 0.5)'
    """

    rate: Beta = field(default=JEFFREYS)
    family: ClassVar[str] = "channel"
    kinds: ClassVar[Mapping[str, type[Prior]]] = {"rate": Beta}


@dataclass(frozen=True, slots=True)
class SystemsPriors(Priors):
    """Priors of the systems models (comparing and ranking systems under one judge).

    Attributes
    ----------
    pi : Beta
        Each system's success rate in the unpaired model (Jeffreys).
    joint : Dirichlet
        The four joint outcomes of two systems on an item in the paired two-system model:
        Dirichlet(c, c, c, c). The default c = 1/2 is the Jeffreys prior of a four-cell
        multinomial and makes each system's success rate uniform a priori.
    se, sp : Beta
        The shared judge's sensitivity and specificity (Jeffreys). A system-specific judge
        without pooling (the default for two systems) gives each system's Se and Sp these
        priors; with partial pooling their means centre the population means on the logit
        scale.
    ability : Normal
        Many-system item model: each system's ability on the logit scale (default
        Normal(0, 1.5), about 95 % of a typical system's prior mass on rates 0.05-0.95).
    difficulty_sd : HalfNormal
        Many-system item model: the spread of item difficulty (default HalfNormal(1.5)).
    judge_mu : Normal
        Partially pooled system-specific judge (the default for three or more systems): the
        population means of logit Se and logit Sp are the logit of the ``se`` (``sp``) prior
        mean plus this (default Normal(0, 1.5)).
    judge_sigma : HalfNormal
        Partially pooled system-specific judge: the spread of logit Se and logit Sp between
        systems (default HalfNormal(1.5), weak pooling). With few systems the spread is
        barely identified and
        this prior decides how far each system's judge is pulled toward the others, that is,
        toward the one-judge-for-all assumption the system-specific model exists to relax.
        In a first coverage run (``benchmarks/systems_coverage.py``: paired items, a judge
        kinder to one system, 30 replicates) a scale of 0.5 left a bias of +0.05 in the
        difference, 83 % coverage and a 30 % false-winner rate; 1.5 gave +0.002, 97 % and 0 %.
        On 300 replicates per design 1.5 leaves +0.007 to +0.023 and covers 0.907 to 0.957;
        scales of 2.5 and 5 shrink that bias but make a fit of three systems diverge where the
        spread is large (``benchmarks/results/systems_coverage_diagnosis.md``). With two
        systems the spread has one degree of freedom and this prior alone would set it, so
        two systems get a judge without pooling by default (``pooling`` in
        :func:`bayesjudge.systems.fit.fit_systems`).

    Examples
    --------
    >>> SystemsPriors().updated(["judge_sigma=halfnormal:0.5"]).as_dict()["judge_sigma"]
    'HalfNormal(0.5)'
    """

    pi: Beta = field(default=JEFFREYS)
    joint: Dirichlet = field(default=Dirichlet(0.5))
    se: Beta = field(default=JEFFREYS)
    sp: Beta = field(default=JEFFREYS)
    ability: Normal = field(default=Normal(0.0, 1.5))
    difficulty_sd: HalfNormal = field(default=HalfNormal(1.5))
    judge_mu: Normal = field(default=Normal(0.0, 1.5))
    judge_sigma: HalfNormal = field(default=HalfNormal(1.5))
    family: ClassVar[str] = "systems"
    kinds: ClassVar[Mapping[str, type[Prior]]] = {
        "pi": Beta,
        "joint": Dirichlet,
        "se": Beta,
        "sp": Beta,
        "ability": Normal,
        "difficulty_sd": HalfNormal,
        "judge_mu": Normal,
        "judge_sigma": HalfNormal,
    }


@dataclass(frozen=True, slots=True)
class PanelPriors(Priors):
    """Priors of the judge-panel model.

    Attributes
    ----------
    pi : Beta
        True success rate of the unlabelled items (Jeffreys by default).
    se, sp : Beta
        Each judge's sensitivity and specificity (uniform by default), before the panel's
        mirror image is removed (see :mod:`bayesjudge.models.panel`).
    loading : Beta
        Each judge's loading on the shared item difficulty in each class, as a share of its
        largest value 0.99 (uniform by default; ``dependence="random_effect"`` only).

    Examples
    --------
    >>> PanelPriors().updated(["se=beta:8,2"]).as_dict()["se"]
    'Beta(8, 2)'
    """

    pi: Beta = field(default=JEFFREYS)
    se: Beta = field(default=UNIFORM)
    sp: Beta = field(default=UNIFORM)
    loading: Beta = field(default=UNIFORM)
    family: ClassVar[str] = "panel"
    kinds: ClassVar[Mapping[str, type[Prior]]] = {
        "pi": Beta,
        "se": Beta,
        "sp": Beta,
        "loading": Beta,
    }
