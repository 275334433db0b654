r"""Whether the judge is shared, decided by the data: Bayesian model averaging over the judge.

Two systems judged by one judge can be modelled with one Se and Sp for both (*shared*) or with
each system's own (*per system*). The shared model borrows the gold labels of both systems for
one judge and is much the sharper when the judge does treat the systems alike; the per-system
model is right when it does not. Rather than choosing, :func:`judge_evidence` weighs the two
by their posterior probabilities given the gold labels, and :func:`average_posteriors` mixes
their posterior draws in that proportion (Bayesian model averaging; Hoeting, Madigan, Raftery
and Volinsky, "Bayesian model averaging: a tutorial", Statistical Science 1999).

**The weight.** A gold-labelled answer of system :math:`s` tells how the judge treats that
system: of its :math:`m_{1s}` right answers the judge passed :math:`x_{1s}`, of its
:math:`m_{0s}` wrong ones :math:`x_{0s}`. With the models' priors, Beta
:math:`(a_e, b_e)` on Se and :math:`(a_p, b_p)` on Sp conditioned on :math:`J = \mathrm{Se} +
\mathrm{Sp} - 1 > 0`, the probability of these verdicts given the labels (binomial
coefficients dropped: they are the same in both models) is, for one judge seeing counts
:math:`(x_1, m_1, x_0, m_0)`,

.. math::

    L(x_1, m_1, x_0, m_0) = \frac{B(a_e + x_1, b_e + m_1 - x_1)}{B(a_e, b_e)}
        \frac{B(a_p + m_0 - x_0, b_p + x_0)}{B(a_p, b_p)}
        \frac{P_{\text{post}}(J > 0)}{P_{\text{prior}}(J > 0)},

where :math:`P_{\text{post}}` is the law of independent Se :math:`\sim \mathrm{Beta}(a_e + x_1,
b_e + m_1 - x_1)` and Sp :math:`\sim \mathrm{Beta}(a_p + m_0 - x_0, b_p + x_0)` and
:math:`P(J > 0) = \int_0^1 P(\mathrm{Sp} > 1 - F_{\mathrm{Se}}^{-1}(u))\,du` is one integral,
done by adaptive quadrature (the last factor is 1 without the restriction). The shared model
has :math:`L(\sum_s x_{1s}, \sum_s m_{1s}, \sum_s x_{0s}, \sum_s m_{0s})`, the per-system
model :math:`\prod_s L(x_{1s}, m_{1s}, x_{0s}, m_{0s})`, and with prior probability
:math:`q` of a shared judge (1/2 by default) the weight of the shared model is

.. math::

    w = \frac{q\,L_{\text{shared}}}{q\,L_{\text{shared}} + (1 - q)\,L_{\text{per system}}}.

It is exact for the judge's verdicts on the gold-labelled answers: the weight rests on those
and on nothing else. The unlabelled verdicts do not enter it (both models describe them, each
with its own judge); the answers it averages use every verdict.

**The average.** Given the weight, the averaged posterior of every quantity is the mixture
:math:`w\,p(\cdot \mid \text{data}, \text{shared}) + (1 - w)\,p(\cdot \mid \text{data},
\text{per system})`: each chain keeps :math:`\mathrm{round}(w D)` of its :math:`D` draws from
the shared fit and the rest from the per-system fit, chosen at random with a seed, so
intervals, :math:`P(\pi_B > \pi_A)` and ranks come from one set of draws. In the mixture the
shared model's judge is the per-system judge with both systems' Se (and Sp) equal: its
``se_shared`` is its Se and its spread ``sigma_se`` is 0.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import integrate, special

from bayesjudge.priors import JEFFREYS, Beta
from bayesjudge.validation import rng_from

__all__ = [
    "JudgeEvidence",
    "average_posteriors",
    "judge_evidence",
    "log_judge_marginal",
]

#: Below this weight (or above one minus it) the other model gets no draw of the mixture and
#: is not fitted: it would contribute fewer than 1 in 1,000 draws.
NEGLIGIBLE = 1e-3


def _log_prob_j_positive(se: tuple[float, float], sp: tuple[float, float]) -> float:
    r"""Return :math:`\log P(\mathrm{Se} + \mathrm{Sp} > 1)`, Se and Sp independent Betas."""

    def below(u: float) -> float:  # P(Sp <= 1 - Se) at the Se quantile u
        s = float(special.betaincinv(se[0], se[1], u))
        return float(special.betainc(sp[0], sp[1], 1.0 - s))

    def above(u: float) -> float:
        s = float(special.betaincinv(se[0], se[1], u))
        return float(special.betainc(sp[1], sp[0], s))  # P(Sp > 1 - s) = I_s(b_p, a_p)

    # the integrands are probabilities, bounded in [0, 1]; where the posteriors are sharp they
    # are steep, and QUADPACK's roundoff warnings there do not mean a divergent integral
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        low, _ = integrate.quad(below, 0.0, 1.0, epsabs=1e-14, epsrel=1e-10, limit=400)
        if low < 0.5:  # the mass on J <= 0 is the small one: log(1 - low) is accurate
            return float(np.log1p(-min(max(low, 0.0), 1.0)))
        # a small mass on J > 0 needs relative accuracy only
        high, _ = integrate.quad(above, 0.0, 1.0, epsabs=0.0, epsrel=1e-10, limit=400)
    return float(np.log(max(high, 1e-300)))


def log_judge_marginal(
    x1: float,
    m1: float,
    x0: float,
    m0: float,
    *,
    se: Beta = JEFFREYS,
    sp: Beta = JEFFREYS,
    restrict_j: bool = True,
) -> float:
    r"""Return :math:`\log L(x_1, m_1, x_0, m_0)`: one judge's gold verdicts given their labels.

    The probability that a judge with Se :math:`\sim` ``se`` and Sp :math:`\sim` ``sp``
    (conditioned on :math:`J > 0` when ``restrict_j``) passes :math:`x_1` of :math:`m_1` right
    answers and :math:`x_0` of :math:`m_0` wrong ones in a given order (binomial coefficients
    dropped); the formula is in the module docstring.

    Parameters
    ----------
    x1, m1, x0, m0 : float
        Gold-PASS answers judged PASS, gold-PASS answers, gold-FAIL answers judged PASS,
        gold-FAIL answers.
    se, sp : Beta
        Priors of the judge.
    restrict_j : bool
        Condition the prior on :math:`J > 0`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When a count is negative or a pass count exceeds its total.

    Examples
    --------
    With no gold labels there is nothing to explain:

    >>> log_judge_marginal(0, 0, 0, 0)
    0.0
    >>> print(f"{log_judge_marginal(9, 10, 2, 10):.4f}")
    -10.4031
    """
    for name, (x, m) in (("x1, m1", (x1, m1)), ("x0, m0", (x0, m0))):
        if not (0 <= x <= m):
            raise ValueError(f"{name} must satisfy 0 <= passes <= total; got {x!r}, {m!r}")
    se_post = (se.alpha + x1, se.beta + m1 - x1)
    sp_post = (sp.alpha + m0 - x0, sp.beta + x0)
    value = float(
        special.betaln(*se_post)
        - special.betaln(se.alpha, se.beta)
        + special.betaln(*sp_post)
        - special.betaln(sp.alpha, sp.beta)
    )
    if restrict_j:
        value += _log_prob_j_positive(se_post, sp_post) - _log_prob_j_positive(
            (se.alpha, se.beta), (sp.alpha, sp.beta)
        )
    return value


@dataclass(frozen=True, slots=True)
class JudgeEvidence:
    r"""What the gold labels say about whether the judge treats the systems alike.

    Attributes
    ----------
    systems : tuple of str
    x1, m1, x0, m0 : ndarray of int, shape (systems,)
        Each system's gold-PASS answers judged PASS, gold-PASS answers, gold-FAIL answers
        judged PASS (the judge's false passes) and gold-FAIL answers.
    log_bayes_factor : float
        :math:`\log(L_{\text{shared}} / L_{\text{per system}})` (module docstring): positive
        when the gold labels favour one judge for all.
    prior_shared : float
        Prior probability :math:`q` of a shared judge.
    weight_shared : float
        Posterior probability of a shared judge given the gold labels, :math:`w`.
    set_aside : {"shared", "system"} or None
        The model left out of the average because it failed its posterior predictive check
        while the other passed (:func:`bayesjudge.systems.analysis.analyze_systems`): the
        answer is then the other model's alone. None when both were kept.
    set_aside_checks : tuple of str
        The quantities whose predictive check the set-aside model failed.
    """

    systems: tuple[str, ...]
    x1: NDArray[np.int64]
    m1: NDArray[np.int64]
    x0: NDArray[np.int64]
    m0: NDArray[np.int64]
    log_bayes_factor: float
    prior_shared: float
    weight_shared: float
    set_aside: str | None = None
    set_aside_checks: tuple[str, ...] = ()

    @property
    def weight_used(self) -> float:
        """The weight the answer gives one judge.

        :attr:`weight_shared`, or 0 or 1 when a model was set aside for misfit.

        Examples
        --------
        >>> ev = judge_evidence(["A", "B"], x1=[80, 80], m1=[90, 90], x0=[12, 12], m0=[60, 60])
        >>> ev.weight_used == ev.weight_shared
        True
        """
        if self.set_aside == "shared":
            return 0.0
        if self.set_aside == "system":
            return 1.0
        return self.weight_shared

    def models_text(self) -> str:
        """Return which judge model(s) the answer rests on, in a few words.

        Examples
        --------
        >>> ev = judge_evidence(["A", "B"], x1=[80, 80], m1=[90, 90], x0=[12, 12], m0=[60, 60])
        >>> ev.models_text()
        'averaged: one judge with weight 0.97, a judge per system with the rest'
        """
        if self.set_aside is not None:
            kept = "a judge per system" if self.set_aside == "shared" else "one judge for all"
            return f"{kept} (the other model did not fit the data)"
        return (
            f"averaged: one judge with weight {self.weight_shared:.2f}, "
            "a judge per system with the rest"
        )

    @property
    def fitted(self) -> tuple[str, ...]:
        """The models the average needs: ``"shared"``, ``"system"`` or both."""
        if self.weight_shared < NEGLIGIBLE:
            return ("system",)
        if self.weight_shared > 1.0 - NEGLIGIBLE:
            return ("shared",)
        return ("shared", "system")

    def reading(self) -> str:
        """Return the verdict in words: which judge model the gold labels favour.

        Examples
        --------
        >>> ev = judge_evidence(["A", "B"], x1=[80, 80], m1=[90, 90], x0=[12, 12], m0=[60, 60])
        >>> ev.reading()
        'the gold labels show the judge treating the systems alike'
        """
        if self.weight_shared >= 0.9:
            return "the gold labels show the judge treating the systems alike"
        if self.weight_shared <= 0.1:
            return "the gold labels show the judge treating the systems differently"
        return "the gold labels do not settle whether the judge treats the systems alike"

    def counts_sentence(self) -> str:
        """Return the gold counts in words, e.g. "... passing 12 of 60 wrong answers of A ...".

        Examples
        --------
        >>> ev = judge_evidence(["A", "B"], x1=[80, 81], m1=[90, 95], x0=[12, 23], m0=[60, 58])
        >>> print(ev.counts_sentence())  # doctest: +NORMALIZE_WHITESPACE
        the gold labels show the judge passing 12 of 60 wrong answers of A and 23 of 58 of B,
        and 80 of 90 right answers of A and 81 of 95 of B
        """

        def listing(passed: NDArray[np.int64], total: NDArray[np.int64], kind: str) -> str:
            parts = [
                f"{int(x)} of {int(m)} {kind} answers of {name}"
                if i == 0
                else f"{int(x)} of {int(m)} of {name}"
                for i, (name, x, m) in enumerate(zip(self.systems, passed, total, strict=True))
            ]
            return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]

        return (
            f"the gold labels show the judge passing {listing(self.x0, self.m0, 'wrong')}, and "
            f"{listing(self.x1, self.m1, 'right')}"
        )

    def sentence(self) -> str:
        """Return the weight, what it rests on and what it means, in one sentence.

        Examples
        --------
        >>> ev = judge_evidence(["A", "B"], x1=[80, 80], m1=[90, 90], x0=[12, 12], m0=[60, 60])
        >>> ev.sentence()[:72]
        'Judge: the answers average one judge for all systems (weight 0.97) and a'
        """
        if self.set_aside is not None:
            bad, kept = (
                ("one judge for all systems", "a judge per system")
                if self.set_aside == "shared"
                else ("a judge per system", "one judge for all systems")
            )
            return (
                f"Judge: {kept} alone: the model of {bad} (weight {self.weight_shared:.2f} from "
                f"the gold labels) did not fit the data (its posterior predictive check failed "
                f"for {', '.join(self.set_aside_checks)}), so it was set aside; "
                f"{self.counts_sentence()}."
            )
        return (
            f"Judge: the answers average one judge for all systems (weight "
            f"{self.weight_shared:.2f}) and a judge per system (weight "
            f"{1.0 - self.weight_shared:.2f}), weighted by the gold labels: "
            f"{self.counts_sentence()[len('the gold labels show ') :]}, so "
            f"{self.reading()} (Bayes factor {np.exp(self.log_bayes_factor):.3g} for one "
            f"judge, prior weight {self.prior_shared:g})."
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the weight, the Bayes factor and the gold counts per system as plain values.

        Examples
        --------
        >>> ev = judge_evidence(["A", "B"], x1=[80, 80], m1=[90, 90], x0=[12, 12], m0=[60, 60])
        >>> sorted(ev.to_dict())  # doctest: +NORMALIZE_WHITESPACE
        ['gold', 'log_bayes_factor', 'prior_shared', 'reading', 'rests_on', 'set_aside',
         'weight_shared', 'weight_used']
        """
        return {
            "weight_shared": self.weight_shared,
            "prior_shared": self.prior_shared,
            "log_bayes_factor": self.log_bayes_factor,
            "weight_used": self.weight_used,
            "set_aside": (
                None
                if self.set_aside is None
                else {"model": self.set_aside, "failed_checks": list(self.set_aside_checks)}
            ),
            "reading": self.reading(),
            "rests_on": self.counts_sentence(),
            "gold": {
                name: {
                    "right_passed": int(self.x1[s]),
                    "right": int(self.m1[s]),
                    "wrong_passed": int(self.x0[s]),
                    "wrong": int(self.m0[s]),
                }
                for s, name in enumerate(self.systems)
            },
        }

    def to_json(self) -> str:
        """Return every field as one JSON text (kept in a fit's attrs; :meth:`from_json`)."""
        return json.dumps(
            {
                "systems": list(self.systems),
                **{k: getattr(self, k).tolist() for k in ("x1", "m1", "x0", "m0")},
                "log_bayes_factor": self.log_bayes_factor,
                "prior_shared": self.prior_shared,
                "weight_shared": self.weight_shared,
                "set_aside": self.set_aside,
                "set_aside_checks": list(self.set_aside_checks),
            }
        )

    @classmethod
    def from_json(cls, text: str) -> JudgeEvidence:
        """Rebuild the evidence from :meth:`to_json`.

        Examples
        --------
        >>> ev = judge_evidence(["A", "B"], x1=[8, 9], m1=[9, 9], x0=[1, 2], m0=[6, 6])
        >>> JudgeEvidence.from_json(ev.to_json()) == ev
        True
        """
        v = json.loads(text)
        return cls(
            systems=tuple(str(s) for s in v["systems"]),
            **{k: np.asarray(v[k], dtype=np.int64) for k in ("x1", "m1", "x0", "m0")},
            log_bayes_factor=float(v["log_bayes_factor"]),
            prior_shared=float(v["prior_shared"]),
            weight_shared=float(v["weight_shared"]),
            set_aside=v.get("set_aside"),
            set_aside_checks=tuple(str(c) for c in v.get("set_aside_checks", ())),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JudgeEvidence):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]


def _counts(name: str, value: ArrayLike, size: int) -> NDArray[np.int64]:
    arr = np.asarray(value)
    if arr.shape != (size,) or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"{name} must hold one count per system ({size}); got {value!r}")
    if np.any(arr < 0) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must hold non-negative whole numbers; got {arr.tolist()}")
    return arr.astype(np.int64)


def judge_evidence(
    systems: Sequence[str],
    *,
    x1: ArrayLike,
    m1: ArrayLike,
    x0: ArrayLike,
    m0: ArrayLike,
    se: Beta = JEFFREYS,
    sp: Beta = JEFFREYS,
    restrict_j: bool = True,
    prior_shared: float = 0.5,
) -> JudgeEvidence:
    r"""Return the posterior probability of one judge for all systems given the gold labels.

    :math:`w = qL_{\text{shared}} / (qL_{\text{shared}} + (1 - q)L_{\text{per system}})`
    with the exact marginal likelihoods of :func:`log_judge_marginal` (module docstring).

    Parameters
    ----------
    systems : sequence of str
        The systems (two or more).
    x1, m1, x0, m0 : array_like of int, shape (systems,)
        Each system's gold-PASS answers judged PASS, gold-PASS answers, gold-FAIL answers
        judged PASS and gold-FAIL answers.
    se, sp : Beta
        Priors of the judge (of each system's judge in the per-system model).
    restrict_j : bool
        Condition every judge's prior on :math:`J > 0`.
    prior_shared : float
        Prior probability :math:`q` of a shared judge, in (0, 1).

    Returns
    -------
    JudgeEvidence

    Raises
    ------
    ValueError
        On fewer than two systems, counts of the wrong shape, or ``prior_shared`` outside
        (0, 1).

    Examples
    --------
    >>> alike = judge_evidence(["A", "B"], x1=[80, 81], m1=[90, 90], x0=[12, 11], m0=[60, 60])
    >>> apart = judge_evidence(["A", "B"], x1=[80, 81], m1=[90, 90], x0=[6, 27], m0=[60, 60])
    >>> print(f"{alike.weight_shared:.3f} {apart.weight_shared:.5f}")
    0.965 0.00160
    """
    names = tuple(str(s) for s in systems)
    if len(names) < 2:
        raise ValueError(f"systems must name two or more systems; got {list(names)}")
    if not isinstance(prior_shared, int | float) or not 0.0 < float(prior_shared) < 1.0:
        raise ValueError(f"prior_shared must lie in (0, 1); got {prior_shared!r}")
    size = len(names)
    c = {k: _counts(k, v, size) for k, v in (("x1", x1), ("m1", m1), ("x0", x0), ("m0", m0))}
    for x, m in (("x1", "m1"), ("x0", "m0")):
        bad = np.flatnonzero(c[x] > c[m])
        if bad.size:
            raise ValueError(
                f"{x} exceeds {m} for system {names[bad[0]]!r}: {c[x][bad[0]]} > {c[m][bad[0]]}"
            )
    kw: dict[str, Any] = {"se": se, "sp": sp, "restrict_j": restrict_j}
    shared = log_judge_marginal(
        int(c["x1"].sum()), int(c["m1"].sum()), int(c["x0"].sum()), int(c["m0"].sum()), **kw
    )
    separate = sum(
        log_judge_marginal(int(c["x1"][s]), int(c["m1"][s]), int(c["x0"][s]), int(c["m0"][s]), **kw)
        for s in range(size)
    )
    log_bf = shared - separate
    log_odds = log_bf + np.log(prior_shared) - np.log1p(-prior_shared)
    return JudgeEvidence(
        systems=names,
        x1=c["x1"],
        m1=c["m1"],
        x0=c["x0"],
        m0=c["m0"],
        log_bayes_factor=float(log_bf),
        prior_shared=float(prior_shared),
        weight_shared=float(special.expit(log_odds)),
    )


def _as_per_system(posterior: xr.Dataset, systems: Sequence[str]) -> xr.Dataset:
    """Write a shared judge as a per-system one with equal rates (spread 0)."""
    out = posterior.copy()
    for name in ("se", "sp", "j"):
        if name in out and "system" not in out[name].dims:
            out[name] = out[name].expand_dims(system=list(systems), axis=-1)
    for name in ("se", "sp"):
        if name in posterior and f"{name}_shared" not in out:
            rate = posterior[name]
            out[f"{name}_shared"] = (
                rate.isel(system=0, drop=True) if "system" in rate.dims else rate
            )
            out[f"sigma_{name}"] = xr.zeros_like(out[f"{name}_shared"])
    return out


def average_posteriors(
    shared: xr.Dataset,
    system: xr.Dataset,
    weight_shared: float,
    *,
    random_seed: int | np.random.Generator | None = None,
) -> xr.Dataset:
    r"""Return the posterior draws of the model average: a ``weight_shared`` share from ``shared``.

    Each chain takes :math:`\mathrm{round}(w D)` draws from the shared fit and :math:`D -
    \mathrm{round}(w D)` from the per-system fit, each set drawn without replacement at random
    (module docstring); :math:`D` is the smaller of the two fits' draws per chain and the
    chains are the smaller number. Only the variables both fits carry with the same dims
    (after writing the shared judge as a per-system one with spread 0) are kept; the
    samplers' free variables, which differ between the models, are dropped.

    Parameters
    ----------
    shared, system : Dataset
        The ``posterior`` groups of the shared-judge and the per-system fits, dims ``chain``,
        ``draw`` (and ``system``).
    weight_shared : float
        :math:`w`, in [0, 1].
    random_seed : int, Generator or None
        Seed of the choice of draws.

    Returns
    -------
    Dataset

    Examples
    --------
    >>> a = xr.Dataset({"pi": (("chain", "draw"), np.zeros((2, 10)))})
    >>> b = xr.Dataset({"pi": (("chain", "draw"), np.ones((2, 10)))})
    >>> float(average_posteriors(a, b, 0.3, random_seed=0)["pi"].mean())
    0.7
    """
    if not 0.0 <= weight_shared <= 1.0:
        raise ValueError(f"weight_shared must lie in [0, 1]; got {weight_shared!r}")
    if "system" in system.coords:
        systems = [str(s) for s in system["system"].values]
        shared = _as_per_system(shared, systems)
    chains = min(shared.sizes["chain"], system.sizes["chain"])
    draws = min(shared.sizes["draw"], system.sizes["draw"])
    names = [
        str(v)
        for v in system.data_vars
        if v in shared.data_vars and set(shared[v].dims) == set(system[v].dims)
    ]
    take = round(weight_shared * draws)
    rng = rng_from(random_seed)
    pieces: dict[str, list[np.ndarray]] = {v: [] for v in names}
    for c in range(chains):
        from_shared = rng.choice(shared.sizes["draw"], size=take, replace=False)
        from_system = rng.choice(system.sizes["draw"], size=draws - take, replace=False)
        order = rng.permutation(draws)
        for v in names:
            a = shared[v].transpose("chain", "draw", ...).to_numpy()[c, from_shared]
            b = system[v].transpose("chain", "draw", ...).to_numpy()[c, from_system]
            pieces[v].append(np.concatenate([a, b], axis=0)[order])
    out = xr.Dataset(
        {
            v: (
                ("chain", "draw", *system[v].transpose("chain", "draw", ...).dims[2:]),
                np.stack(pieces[v]),
            )
            for v in names
        },
        coords={k: system.coords[k] for k in system.coords if k not in ("chain", "draw")},
    )
    return out.assign_coords(chain=np.arange(chains), draw=np.arange(draws))
