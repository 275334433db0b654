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

**The weight from all the data.** The posterior model probability given *every* datum,
gold labels, their verdicts and the unlabelled verdicts, needs each fitted model's marginal
likelihood :math:`p(\text{data} \mid \text{model})`, a 4- to 7-dimensional integral.
:func:`log_marginal_of_fit` computes it by bridge sampling (:func:`bridge_sampling`; Meng and
Wong 1996, Gronau et al. 2017) from the fit's own posterior draws, with the model's log density
compiled by PyMC on the unconstrained scale (:func:`unconstrained_draws`) and the prior
constants the model's judge potential leaves out (:func:`judge_log_normalizer`); its
estimated relative mean-squared error comes with it. Under the default
``calibration="by_class"`` the unlabelled verdicts add next to nothing to the gold-only
weight, by construction: with the gold labels conditioned on, each model's success rates are
free to match the unlabelled verdicts (one judged pass rate per system in the unpaired
model, three free joint verdict frequencies per pair in the paired model, each matched by
as many free parameters), so a shared judge explains unequal judged rates by unequal true
rates at no cost. The two log Bayes factors then differ only by each model's Occam factor
for the unlabelled part (``benchmarks/results/rank_power_weight.md`` measures the
difference), and the default weight stays the gold-only one, which is exact and costs no
sampling.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import arviz as az
import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import integrate, special, stats

from bayesjudge.priors import JEFFREYS, Beta, SystemsPriors
from bayesjudge.validation import rng_from

__all__ = [
    "BridgeEstimate",
    "JudgeEvidence",
    "average_posteriors",
    "bridge_sampling",
    "judge_evidence",
    "judge_log_normalizer",
    "log_judge_marginal",
    "log_marginal_of_fit",
    "unconstrained_draws",
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


# --------------------------------------------------------------------------- all the data
@dataclass(frozen=True, slots=True)
class BridgeEstimate:
    r"""A log marginal likelihood by bridge sampling and its estimated error.

    Attributes
    ----------
    log_marginal : float
        :math:`\log \hat p(\text{data})`.
    relative_mse : float
        Estimated relative mean-squared error of :math:`\hat p(\text{data})`,
        :math:`E[(\hat p - p)^2] / p^2` (Fruhwirth-Schnatter 2004, as in Gronau et al. 2017);
        its square root is, to first order, the standard error of ``log_marginal``.
    iterations : int
        Iterations of the fixed-point scheme until it converged.
    posterior_draws, proposal_draws : int
        :math:`N_1` and :math:`N_2`.
    """

    log_marginal: float
    relative_mse: float
    iterations: int
    posterior_draws: int
    proposal_draws: int


def bridge_sampling(
    log_density: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    draws: ArrayLike,
    *,
    random_seed: int | np.random.Generator | None = None,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> BridgeEstimate:
    r"""Return :math:`\log \int q(\theta)\,d\theta` by bridge sampling from posterior draws.

    ``log_density`` is :math:`\log q`, the unnormalised posterior (prior times likelihood)
    on an unconstrained scale, and ``draws`` are draws of :math:`p = q / Z`. The first half
    of each chain fits a normal proposal :math:`g` (their mean and covariance); :math:`N_2`
    draws :math:`\tilde\theta_j` of :math:`g` are made (as many as the :math:`N_1` draws
    :math:`\theta_i` in the second halves), and with :math:`\ell_1 = q(\theta_i)/g(\theta_i)`,
    :math:`\ell_2 = q(\tilde\theta_j)/g(\tilde\theta_j)`, :math:`s_k = N_k/(N_1 + N_2)`, the
    optimal bridge function of Meng and Wong gives the fixed point

    .. math::

        \hat Z^{(t+1)} = \frac{N_2^{-1} \sum_j \ell_{2j} / (s_1 \ell_{2j} + s_2 \hat Z^{(t)})}
            {N_1^{-1} \sum_i 1 / (s_1 \ell_{1i} + s_2 \hat Z^{(t)})},

    iterated in log space until :math:`\log \hat Z` changes by less than ``tol``. The relative
    mean-squared error is estimated as

    .. math::

        \frac{\mathrm{Var}_g(f_1)}{N_2\,E_g(f_1)^2}
        + \frac{\mathrm{Var}_p(f_2)}{\mathrm{ESS}(f_2)\,E_p(f_2)^2}, \quad
        f_1 = \frac{p}{s_1 p + s_2 g}, \ f_2 = \frac{g}{s_1 p + s_2 g},

    with :math:`p = q / \hat Z`, the second term's effective sample size from the chains
    (ArviZ) to account for autocorrelation.

    References: X.-L. Meng and W. H. Wong, "Simulating ratios of normalizing constants via a
    simple identity: a theoretical exploration", Statistica Sinica 1996; Q. F. Gronau et al.,
    "A tutorial on bridge sampling", Journal of Mathematical Psychology 2017; S.
    Fruhwirth-Schnatter, "Estimating marginal likelihoods for mixture and Markov switching
    models using bridge sampling techniques", Econometrics Journal 2004.

    Parameters
    ----------
    log_density : callable
        Maps an array of shape ``(n, d)`` to the ``n`` values of :math:`\log q`.
    draws : array_like, shape (chains, draws, d)
        Posterior draws on the same scale (at least 4 per chain).
    random_seed : int, Generator or None
        Seed of the proposal's draws (the estimate is deterministic for a seed).
    tol, max_iter : float, int
        Convergence of the fixed-point scheme.

    Returns
    -------
    BridgeEstimate

    Raises
    ------
    ValueError
        On draws of the wrong shape or non-finite values, or a scheme that does not converge.

    Examples
    --------
    A standard normal kernel :math:`e^{-\theta^2/2}` integrates to :math:`\sqrt{2\pi}`:

    >>> rng = np.random.default_rng(0)
    >>> est = bridge_sampling(lambda t: -0.5 * t[:, 0] ** 2, rng.normal(size=(4, 500, 1)),
    ...                       random_seed=1)
    >>> print(f"{est.log_marginal:.2f} {0.5 * np.log(2 * np.pi):.2f} {est.relative_mse < 1e-4}")
    0.92 0.92 True
    """
    theta = np.asarray(draws, dtype=float)
    if theta.ndim != 3 or theta.shape[1] < 4 or theta.shape[2] < 1:
        raise ValueError(f"draws must have shape (chains, draws >= 4, d >= 1); got {theta.shape}")
    if not np.all(np.isfinite(theta)):
        raise ValueError("draws must be finite")
    chains, n_draws, dim = theta.shape
    half = n_draws // 2
    fit = theta[:, :half].reshape(-1, dim)
    kept = theta[:, half:]
    post = kept.reshape(-1, dim)
    mean = fit.mean(axis=0)
    cov = np.atleast_2d(np.cov(fit, rowvar=False))
    cov = cov + np.eye(dim) * 1e-10 * max(float(np.trace(cov)) / dim, 1e-300)
    proposal = stats.multivariate_normal(mean=mean, cov=cov)
    rng = rng_from(random_seed)
    n1 = post.shape[0]
    n2 = n1
    tilde = proposal.rvs(size=n2, random_state=rng).reshape(n2, dim)
    q1 = np.asarray(log_density(post), dtype=float)
    q2 = np.asarray(log_density(tilde), dtype=float)
    if not np.all(np.isfinite(q1)):
        raise ValueError("log_density is not finite at every posterior draw")
    g1 = np.atleast_1d(proposal.logpdf(post))
    g2 = np.atleast_1d(proposal.logpdf(tilde))
    l1 = q1 - g1
    l2 = np.where(np.isfinite(q2), q2 - g2, -np.inf)
    shift = float(np.median(l1))
    l1, l2 = l1 - shift, l2 - shift
    log_s1 = np.log(n1 / (n1 + n2))
    log_s2 = np.log(n2 / (n1 + n2))
    log_r = 0.0
    iterations = 0
    for iteration in range(1, max_iter + 1):
        iterations = iteration
        num = special.logsumexp(l2 - np.logaddexp(log_s1 + l2, log_s2 + log_r)) - np.log(n2)
        den = special.logsumexp(-np.logaddexp(log_s1 + l1, log_s2 + log_r)) - np.log(n1)
        new = float(num - den)
        if abs(new - log_r) < tol:
            log_r = new
            break
        log_r = new
    else:
        raise ValueError(f"bridge sampling did not converge in {max_iter} iterations")
    # relative MSE at the estimate: p / g = exp(l - log_r) on each draw
    a2 = l2 - log_r
    f1v = np.exp(a2 - np.logaddexp(log_s1 + a2, log_s2))
    a1 = l1 - log_r
    f2v = np.exp(-np.logaddexp(log_s1 + a1, log_s2))
    term1 = float(np.var(f1v, ddof=1) / np.mean(f1v) ** 2) / n2
    f2_chains = f2v.reshape(chains, kept.shape[1])
    ess = float(az.ess(f2_chains)) if np.var(f2v) > 0 else float(n1)
    term2 = float(np.var(f2v, ddof=1) / np.mean(f2v) ** 2) / max(ess, 1.0)
    return BridgeEstimate(
        log_marginal=float(log_r + shift),
        relative_mse=term1 + term2,
        iterations=iterations,
        posterior_draws=n1,
        proposal_draws=n2,
    )


def judge_log_normalizer(se: Beta, sp: Beta, *, restrict_j: bool, judges: int) -> float:
    r"""Return the log normalising constant the models' Beta judge priors leave out.

    The models write a judge's Beta priors as a potential without
    :math:`B(a_e, b_e)\,B(a_p, b_p)` and, under ``restrict_j``, without :math:`P(J > 0)`
    (:mod:`bayesjudge.models.systems`); a marginal likelihood needs them:
    :math:`-\,n\,[\log B(a_e, b_e) + \log B(a_p, b_p) + \log P(J > 0)]` for ``judges``
    :math:`= n` judges.

    Examples
    --------
    >>> print(f"{judge_log_normalizer(Beta(1, 1), Beta(1, 1), restrict_j=False, judges=2):.1f}")
    0.0
    >>> print(f"{judge_log_normalizer(Beta(1, 1), Beta(1, 1), restrict_j=True, judges=1):.4f}")
    0.6931
    """
    one = float(special.betaln(se.alpha, se.beta) + special.betaln(sp.alpha, sp.beta))
    if restrict_j:
        one += _log_prob_j_positive((se.alpha, se.beta), (sp.alpha, sp.beta))
    return 0.0 - judges * one


def unconstrained_draws(
    model: Any, posterior: xr.Dataset
) -> tuple[Callable[[NDArray[np.float64]], NDArray[np.float64]], NDArray[np.float64]]:
    r"""Return :math:`\log q` of ``model`` on its unconstrained values and the draws there.

    :math:`\log q` is ``model.compile_logp(jacobian=True)`` (PyMC), the log prior times
    likelihood of the value variables with the Jacobians of their transforms; the draws of
    each free variable in ``posterior`` are mapped by the forward transform PyMC uses and laid
    side by side, one column per scalar.

    Parameters
    ----------
    model : pymc.Model
    posterior : Dataset
        Draws of every free variable of ``model`` (dims ``chain``, ``draw``, then the
        variable's own dims in the model's order).

    Returns
    -------
    log_density : callable
        Maps an array ``(n, d)`` to ``n`` values.
    draws : ndarray, shape (chains, draws, d)
    """
    import pytensor
    import pytensor.tensor as pt

    names: list[str] = []
    shapes: list[tuple[int, ...]] = []
    columns: list[NDArray[np.float64]] = []
    chains, n_draws = posterior.sizes["chain"], posterior.sizes["draw"]
    for value in model.value_vars:
        rv = model.values_to_rvs[value]
        if rv.name not in posterior:
            raise ValueError(f"the posterior has no draws of the free variable {rv.name!r}")
        dims = model.named_vars_to_dims.get(rv.name, ())
        arr = posterior[rv.name].transpose("chain", "draw", *dims).to_numpy().astype(float)
        transform = model.rvs_to_transforms.get(rv)
        if transform is not None:
            x = pt.tensor("x", shape=(None, *arr.shape[2:]), dtype="float64")
            forward = pytensor.function([x], transform.forward(x, *rv.owner.inputs))
            flat = np.asarray(forward(arr.reshape(-1, *arr.shape[2:])))
        else:
            flat = arr.reshape(-1, *arr.shape[2:])
        names.append(value.name)
        shapes.append(tuple(flat.shape[1:]))
        columns.append(flat.reshape(flat.shape[0], -1))
    stacked = np.concatenate(columns, axis=1)
    sizes = [int(np.prod(s)) for s in shapes]
    logp = model.compile_logp(jacobian=True)

    def log_density(rows: NDArray[np.float64]) -> NDArray[np.float64]:
        rows = np.asarray(rows, dtype=float)
        out = np.empty(rows.shape[0])
        for i, row in enumerate(rows):
            point, start = {}, 0
            for name, shape, size in zip(names, shapes, sizes, strict=True):
                point[name] = row[start : start + size].reshape(shape)
                start += size
            out[i] = float(logp(point))
        return out

    return log_density, stacked.reshape(chains, n_draws, -1)


def log_marginal_of_fit(
    data: Any,
    fit: xr.DataTree,
    *,
    priors: SystemsPriors | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> BridgeEstimate:
    r"""Return :math:`\log p(\text{all data} \mid \text{model})` of a fit, by bridge sampling.

    The model is rebuilt from the fit's attrs (design, judge, pooling, calibration,
    restriction) on ``data``; its unconstrained log density (:func:`unconstrained_draws`) plus
    the constants its judge potentials leave out (:func:`judge_log_normalizer`) is bridged
    from the fit's posterior draws (:func:`bridge_sampling`). Every datum the model describes
    enters: the gold labels and their verdicts, and the unlabelled verdicts. Constants of the
    likelihood that both judge models share (binomial and multinomial coefficients in the
    paired model) are left out, so only differences between fits to the same data mean
    anything.

    Parameters
    ----------
    data : SystemsData
        The data the fit was made on.
    fit : DataTree
        A fit of :func:`bayesjudge.systems.fit.fit_systems` on ``data``.
    priors : SystemsPriors, optional
        The priors of the fit.
    random_seed : int, Generator or None
        Seed of the bridge's proposal draws.

    Returns
    -------
    BridgeEstimate
    """
    from dataclasses import replace

    from bayesjudge.systems.fit import model_run

    priors = SystemsPriors() if priors is None else priors
    attrs = fit.attrs
    judge = str(attrs["judge"])
    if judge not in ("shared", "system"):
        raise ValueError(f"the fit must be of one judge model (shared or system); got {judge!r}")
    pooling = str(attrs.get("pooling") or "") or None
    restrict_j = bool(attrs.get("restrict_j", True))
    run, _ = model_run(
        data,
        judge=judge,
        pooling=pooling,
        calibration=str(attrs.get("calibration", "by_class")),
        priors=priors,
        restrict_j=restrict_j,
    )
    model = run.build()
    log_q, draws = unconstrained_draws(model, fit["posterior"].to_dataset())
    judges = 1 if judge == "shared" else len(data.systems) if pooling == "none" else 0
    constant = (
        judge_log_normalizer(priors.se, priors.sp, restrict_j=restrict_j, judges=judges)
        if judges
        else 0.0
    )
    estimate = bridge_sampling(log_q, draws, random_seed=random_seed)
    return replace(estimate, log_marginal=estimate.log_marginal + constant)


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
