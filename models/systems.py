r"""Systems under one imperfect judge: success rates, differences and rankings (family 4).

Several systems answer items; one LLM judge gives each answer a verdict
:math:`v \in \{0, 1\}`; some answers carry a gold label :math:`y`. The judge passes a right
answer of system :math:`s` with probability :math:`\mathrm{Se}_s` and a wrong one with
:math:`f_s = 1 - \mathrm{Sp}_s`. The data reach a model as *cells*: distinct rows of
per-system states (missing, unlabelled with verdict :math:`v`, gold-labelled :math:`(y, v)`;
:data:`bayesjudge.systems.data.STATES`) with the number of items sharing each row
(``cell_weight``), so the cost does not grow with the number of items. Cell arrays are
``pm.Data`` padded with weight-0 all-missing cells to a fixed length, so a refit on new data of
the same padded length needs no rebuild.

Three builders:

* :func:`two_system_model`: two systems on paired items. The joint true outcome of an item,
  :math:`(y_A, y_B)`, takes one of four values (coordinate ``outcome``: ``fail_fail``,
  ``fail_pass``, ``pass_fail``, ``pass_pass``, first word system A) with probabilities
  :math:`\theta \sim \mathrm{Dirichlet}(c, c, c, c)`. An item's likelihood is a mixture over
  the outcomes its gold labels allow,

  .. math::

      P(\text{item}) = \sum_{a, b} \theta_{ab}\, E_A(\text{state}_A, a)\,
          E_B(\text{state}_B, b),

  with :math:`E_s(\text{unlabelled } v, y) = P(v \mid y, s)`,
  :math:`E_s(\text{gold } (y', v), y) = \mathbf 1\{y = y'\} P(v \mid y, s)` and
  :math:`E_s(\text{missing}, y) = 1`. So unlabelled pairs are a four-component mixture over
  the true cells, labelled pairs enter with their known cell, an item labelled for one system
  only enters with that system's outcome known and the other's mixed over, and an item answered
  by one system only enters through that system's margin. Derived: ``pi`` [system]
  (:math:`\pi_A = \theta_{10} + \theta_{11}`, :math:`\pi_B = \theta_{01} + \theta_{11}`),
  ``diff`` (:math:`\pi_B - \pi_A = \theta_{01} - \theta_{10}`), ``discordant`` [system] (the
  rate at which that system alone is right: :math:`\theta_{10}` for A, :math:`\theta_{01}` for
  B) and ``outcome_correlation`` (the phi coefficient of the two outcomes).
* :func:`irt_model`: any number of systems on paired items. Four cells per pair become
  :math:`2^S` cells for :math:`S` systems, so instead the outcomes follow a one-parameter
  item-response (Rasch) model, :math:`P(y_{is} = 1) = \mathrm{expit}(\alpha_s - \sigma z_i)`,
  :math:`z_i \sim N(0, 1)`: a shared item difficulty makes outcomes on an item correlated.
  The difficulty is integrated out by Gauss-Hermite quadrature with nodes :math:`z_k` and
  weights :math:`w_k` (:func:`bayesjudge.systems.irt.normal_quadrature`),

  .. math::

      P(\text{item}) = \sum_k w_k \prod_s \sum_{y} p_s(z_k)^y (1 - p_s(z_k))^{1 - y}\,
          E_s(\text{state}_s, y),

  evaluated in log space, so an item's likelihood depends only on its row of states and the
  cells can be counted. ``pi`` [system] is the population rate
  :math:`\sum_k w_k\,\mathrm{expit}(\alpha_s - \sigma z_k)`.
* :func:`systems_model`: unpaired designs (no item answered by two systems). Each system has
  its own :math:`\pi_s \sim \mathrm{Beta}`, and the data are the six counts per system of the
  prevalence family: :math:`x_{1s} \sim \mathrm{Bin}(m_{1s}, \mathrm{Se}_s)`,
  :math:`x_{0s} \sim \mathrm{Bin}(m_{0s}, f_s)`,
  :math:`k_s \sim \mathrm{Bin}(n_s, \pi_s \mathrm{Se}_s + (1 - \pi_s) f_s)`.

**The judge** (``judge=``). ``"shared"``: one Se and Sp for every system, Beta priors. This is
the assumption that makes one system's gold labels correct another's verdicts.
``"system"``: each system has its own Se and Sp, tied together as ``pooling=`` says. Use it
when gold labels exist for several systems (self-preference, length bias); the posterior of
each system's ``se``, ``sp`` and of ``sigma_se``, ``sigma_sp`` says how differently the judge
treats them.

* ``pooling="partial"`` (the default for three or more systems): partially pooled on the
  logit scale around shared values, :math:`\mathrm{logit}\,\mathrm{Se}_s \sim N(\mu_{Se},
  \sigma_{Se}^2)`, :math:`\mathrm{logit}\,\mathrm{Sp}_s \sim N(\mu_{Sp}, \sigma_{Sp}^2)`,
  non-centred, with :math:`\mu \sim N(\mathrm{logit}\,m + \mu_0, s_\mu^2)` (:math:`m` the mean
  of the Beta prior of Se or Sp; :math:`N(\mu_0, s_\mu^2)` the ``judge_mu`` prior, default
  N(0, 1.5^2)) and :math:`\sigma \sim \mathrm{HalfNormal}(s)` (the ``judge_sigma`` prior,
  default s = 1.5); ``se_shared`` and ``sp_shared`` are :math:`\mathrm{expit}\,\mu`.
* ``pooling="none"`` (the default for two systems): every system's (Se, Sp) has the shared
  judge's Beta priors and construction on its own (below), so a system's judge is learnt from
  its own gold labels only. ``se_shared`` and ``sp_shared`` are the expit of the mean of the
  systems' logits and ``sigma_se``, ``sigma_sp`` the standard deviation of those logits
  (derived, not parameters). With two systems the between-system spread has one degree of
  freedom and only its prior can set it; a HalfNormal prior on it, whose density is largest at
  0, pulls the two judges together (toward the one-judge assumption the system-specific
  judge exists to relax). In the coverage study (``benchmarks/systems_coverage.py``, a judge
  kinder to one of two systems) the partially pooled models overestimated the difference by
  about 0.02 and the paired model's 95 % interval (by_class) covered 0.907 on 300 replicates;
  without pooling the bias is gone and it covers 0.946 on 1,200
  (``benchmarks/results/systems_coverage.md``).

**Label switching.** Every likelihood above is unchanged when, for one system (or, with a shared
judge, for all at once), the true outcome is flipped together with
:math:`(\mathrm{Se}, \mathrm{Sp}) \to (1 - \mathrm{Sp}, 1 - \mathrm{Se})`: a judge worse than
chance explains the unlabelled verdicts as well as its mirror image. Gold labels break the
symmetry only as far as they pin the judge down. With ``restrict_j=True`` (the default) the
prior is conditioned on :math:`J = \mathrm{Se} + \mathrm{Sp} - 1 > 0` exactly and without a
wall, as in :mod:`bayesjudge.models.prevalence`:

* shared judge: :math:`f = r\,\mathrm{Se}` with a ratio :math:`r \in (0, 1)`, so
  :math:`f < \mathrm{Se}`. The map :math:`(\mathrm{Se}, r) \to (\mathrm{Se}, f)` is a bijection
  from the unit square onto :math:`\{0 < f < \mathrm{Se} < 1\}` with Jacobian
  :math:`\mathrm{Se}`, so the target :math:`p_{Se}(\mathrm{Se})\,p_{Sp}(1 - f)\,\mathbf 1\{J >
  0\}/P(J > 0)` is, in :math:`(\mathrm{Se}, r)`, :math:`p_{Se}(\mathrm{Se})\,p_{Sp}(1 -
  r\,\mathrm{Se})\,\mathrm{Se}`. Both are sampled on the logit scale
  (:math:`a = \mathrm{logit}\,\mathrm{Se}`, :math:`b = \mathrm{logit}\,r`, flat free
  variables ``logit_se`` and ``logit_fpr_ratio``), which adds the Jacobian
  :math:`\mathrm{Se}(1 - \mathrm{Se})\,r(1 - r)`; with Beta(:math:`\alpha, \beta`) priors the
  log density (the ``pm.Potential`` ``judge_prior``) is

  .. math::

      \alpha_{Se}\log\mathrm{Se} + \beta_{Se}\log(1 - \mathrm{Se})
      + (\alpha_{Sp} - 1)\log(1 - f) + \beta_{Sp}\log f + \log(1 - r),

  every logarithm formed from log-sigmoids (:math:`\log f = \log\mathrm{Se} + \log r`,
  :math:`\log(1 - f)` by ``log1mexp``), so a posterior piled against Se = 1 or Sp = 1 (a
  calibration class without errors has an integrable pole there under the Jeffreys prior)
  never meets a probability rounded to exactly 0 or 1. Without the restriction, ``logit_se``
  and ``logit_sp`` carry the two Beta priors the same way;
* system-specific judge without pooling: the shared judge's construction for each system;
* partially pooled judge: :math:`J_s > 0 \iff \mathrm{logit}\,\mathrm{Se}_s +
  \mathrm{logit}\,\mathrm{Sp}_s > 0`, a half-plane; given the hyper-parameters each system's
  pair is drawn from the bivariate normal truncated to it by the inverse CDF of the log
  diagnostic odds ratio (``dor_u``) and the normal conditional of logit Se (``se_z``), exactly
  the construction of the stratified prevalence model.

**Identifiability.** With a shared judge, gold labels on *one* system suffice: they identify Se
and Sp, and then the unlabelled joint verdicts of a pair (three free frequencies) identify the
three free joint outcome probabilities, because the 4 x 4 misclassification matrix
:math:`E \otimes E` is invertible whenever :math:`J \ne 0`. With a system-specific judge a
system without gold labels has two more unknowns than its verdicts can pin down; with partial
pooling its Se and Sp then come from the population of judges (the hierarchical prior), and
its interval widens accordingly, which is the honest answer; without pooling they keep their
priors, and so does its success rate (:func:`bayesjudge.systems.fit.fit_systems` pools by
default in that case). With no gold labels at all nothing is identified
beyond the prior; the data contract refuses that case.

**Calibration** (``calibration=``). ``"by_class"`` (default): only :math:`P(v \mid y)` is
assumed to transfer from the gold-labelled items to the rest, so labelled items may have been
chosen by class. An item's likelihood is then conditioned on its known labels: divided by
:math:`P(\text{known labels})` (the sum of :math:`\theta` over the allowed cells, or its
quadrature analogue). A fully labelled item then informs the judge only; an item labelled for
system A only still informs :math:`P(y_B \mid y_A)`. ``"random"``: the labelled items are a
random sample of the same population, so their labels inform the success rates too (no
division; in :func:`systems_model` a factor :math:`\pi_s^{m_{1s}} (1 - \pi_s)^{m_{0s}}`).

Variables (dims in brackets):

* shared judge: free (flat) ``logit_se`` and ``logit_fpr_ratio`` (restricted) or
  ``logit_sp``; derived ``se``, ``sp``, ``j``; potential ``judge_prior`` (the Beta priors);
* system judge, partial pooling: free ``mu_se``, ``mu_sp``, ``sigma_se``, ``sigma_sp``,
  ``se_z`` [system] and ``dor_u`` [system] (restricted) or ``sp_z`` [system]; derived ``se``,
  ``sp``, ``j`` [system], ``se_shared``, ``sp_shared``;
* system judge, no pooling: free (flat) ``logit_se`` and ``logit_fpr_ratio`` (or ``logit_sp``)
  [system]; derived ``se``, ``sp``, ``j`` [system], ``se_shared``, ``sp_shared``,
  ``sigma_se``, ``sigma_sp``; potential ``judge_prior``;
* :func:`two_system_model`: free ``joint`` [outcome]; derived ``pi``, ``discordant``,
  ``judged_rate``, ``bias`` [system], ``diff``, ``outcome_correlation``; data ``cell_state``
  [cell, system], ``cell_weight`` [cell]; potential ``loglik``;
* :func:`irt_model`: free ``ability`` [system], ``difficulty_sd``; derived ``pi``,
  ``judged_rate``, ``bias`` [system]; data and potential as above;
* :func:`systems_model`: free ``pi`` [system]; derived ``judged_rate``, ``bias`` [system]; data
  ``m1``, ``x1_obs``, ``m0``, ``x0_obs``, ``n``, ``k_obs`` [system]; observed ``x1``, ``x0``,
  ``k`` [system]; potential ``calibration_labels`` (random calibration).

``judged_rate`` is :math:`R_s = \pi_s \mathrm{Se}_s + (1 - \pi_s) f_s`, the pass rate the judge
would report, and ``bias`` is :math:`R_s - \pi_s`.

References
----------
Rogan and Gladen, "Estimating prevalence from the results of a screening test", Am. J.
Epidemiol. 1978 (the misclassification model); Lee et al., "How to Correctly Report
LLM-as-a-Judge Evaluations" (the judge as a diagnostic test with label shift); G. Rasch,
"Probabilistic Models for Some Intelligence and Attainment Tests", 1960 (the item model).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from bayesjudge.priors import Beta, SystemsPriors
from bayesjudge.systems.data import (
    GOLD_FAIL_JUDGED_FAIL,
    GOLD_FAIL_JUDGED_PASS,
    GOLD_PASS_JUDGED_FAIL,
    GOLD_PASS_JUDGED_PASS,
    STATES,
    Patterns,
    SystemCounts,
)
from bayesjudge.systems.irt import normal_quadrature

__all__ = [
    "CALIBRATIONS",
    "IRT",
    "JUDGES",
    "OUTCOMES",
    "POOLINGS",
    "SYSTEMS",
    "TWO_SYSTEM",
    "SystemsModelInfo",
    "irt_model",
    "model_info",
    "resolve_pooling",
    "systems_model",
    "two_system_model",
]

#: Model names, as recorded in posterior attrs.
TWO_SYSTEM = "two_system"
IRT = "systems_irt"
SYSTEMS = "systems"

#: The joint true outcomes of two systems on an item (system A first), coordinate ``outcome``.
OUTCOMES = ("fail_fail", "fail_pass", "pass_fail", "pass_pass")

Judge = Literal["shared", "system"]
Calibration = Literal["by_class", "random"]
Pooling = Literal["partial", "none"]
#: How the judge may differ between systems.
JUDGES: tuple[str, ...] = get_args(Judge)
#: How a system-specific judge's rates are tied together (see the module docstring).
POOLINGS: tuple[str, ...] = get_args(Pooling)
#: What the gold-labelled items are assumed to be (see the module docstring).
CALIBRATIONS: tuple[str, ...] = get_args(Calibration)


@dataclass(frozen=True, slots=True)
class SystemsModelInfo:
    """What a systems model is: name, priors, judge, pooling, calibration, restriction, systems.

    ``pooling`` is ``"partial"`` or ``"none"`` for a system-specific judge and ``""`` for a
    shared one.
    """

    name: str
    priors: SystemsPriors
    judge: str
    calibration: str
    restrict_j: bool
    systems: tuple[str, ...]
    pooling: str = ""

    def as_attrs(self) -> dict[str, object]:
        """Return the information as DataTree-ready attrs (plain strings, numbers, booleans)."""
        attrs: dict[str, object] = {
            "model": self.name,
            "judge": self.judge,
            "pooling": self.pooling,
            "calibration": self.calibration,
            "restrict_j": self.restrict_j,
            "systems": list(self.systems),
        }
        attrs.update({f"prior_{k}": v for k, v in self.priors.as_dict().items()})
        return attrs


_INFO: weakref.WeakKeyDictionary[pm.Model, SystemsModelInfo] = weakref.WeakKeyDictionary()


def model_info(model: pm.Model) -> SystemsModelInfo:
    """Return the :class:`SystemsModelInfo` of a model built by this module.

    Raises
    ------
    KeyError
        If ``model`` was not built here.
    """
    try:
        return _INFO[model]
    except KeyError:
        raise KeyError("this model was not built by bayesjudge.models.systems") from None


# --------------------------------------------------------------------------- checks
def _check_options(
    priors: SystemsPriors | None, judge: str, calibration: str, restrict_j: bool
) -> SystemsPriors:
    if judge not in JUDGES:
        raise ValueError(f"judge must be one of {list(JUDGES)}; got {judge!r}")
    if calibration not in CALIBRATIONS:
        raise ValueError(f"calibration must be one of {list(CALIBRATIONS)}; got {calibration!r}")
    if not isinstance(restrict_j, bool):
        raise ValueError(f"restrict_j must be True or False; got {restrict_j!r}")
    if priors is None:
        return SystemsPriors()
    if not isinstance(priors, SystemsPriors):
        raise TypeError(f"priors must be a SystemsPriors; got {type(priors).__name__}")
    return priors


def resolve_pooling(pooling: str | None, judge: str, n_systems: int) -> str:
    """Return the pooling a model uses: ``""`` for a shared judge, else ``pooling`` or its default.

    The default (``None``) is ``"none"`` for two systems and ``"partial"`` for more: with two
    systems only the prior identifies the spread between them (module docstring).

    Examples
    --------
    >>> resolve_pooling(None, "system", 2), resolve_pooling(None, "system", 3)
    ('none', 'partial')
    """
    if pooling is not None and pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {list(POOLINGS)} or None; got {pooling!r}")
    if judge == "shared":
        return ""
    if pooling is None:
        return "none" if n_systems == 2 else "partial"
    return pooling


def _check_patterns(patterns: Patterns, size: int | None) -> dict[str, np.ndarray]:
    if not isinstance(patterns, Patterns):
        raise TypeError(f"patterns must be Patterns; got {type(patterns).__name__}")
    return patterns.padded(size)


# --------------------------------------------------------------------------- pieces
def _logit(p: float) -> float:
    return float(np.log(p) - np.log1p(-p))


def _beta_logp(prior: Beta, value: pt.TensorVariable) -> pt.TensorVariable:
    return pm.logp(pm.Beta.dist(alpha=prior.alpha, beta=prior.beta), value)


def _log_sigmoid(x: pt.TensorVariable) -> pt.TensorVariable:
    return -pt.softplus(-x)


@dataclass(frozen=True, slots=True)
class _JudgeTerms:
    """The judge's rates per system (shape (systems,)) and their logarithms, formed stably."""

    logit_se: pt.TensorVariable
    log_se: pt.TensorVariable  # log P(v=1 | y=1)
    log_fn: pt.TensorVariable  # log P(v=0 | y=1)
    log_fp: pt.TensorVariable  # log P(v=1 | y=0)
    log_tn: pt.TensorVariable  # log P(v=0 | y=0)

    @property
    def se(self) -> pt.TensorVariable:
        return pt.exp(self.log_se)

    @property
    def fpr(self) -> pt.TensorVariable:
        return pt.exp(self.log_fp)


def _beta_judge(
    priors: SystemsPriors, restrict_j: bool, dims: str | None
) -> tuple[pt.TensorVariable, ...]:
    """Create Se and Sp with their Beta priors on logit scales: one pair, or one per system.

    Returns ``(logit_se, log_se, log_fn, log_fp, log_tn)``, each of shape ``()`` or (systems,).
    The Beta priors enter as the potential ``judge_prior`` written with log-sigmoids, so a
    posterior piled against Se = 1 or Sp = 1 (a calibration class without errors has an
    integrable pole there under the Jeffreys prior) never meets a probability rounded to
    exactly 0 or 1.
    """
    logit_se = pm.Flat("logit_se", dims=dims)
    log_se, log_fn = _log_sigmoid(logit_se), _log_sigmoid(-logit_se)
    se_prior = priors.se.alpha * log_se + priors.se.beta * log_fn
    if restrict_j:
        # f = r Se with r = expit(b) in (0, 1); density in (logit Se, b) derived in the
        # module docstring: a_Se log Se + b_Se log(1 - Se) + (a_Sp - 1) log(1 - f)
        # + b_Sp log f + log(1 - r)
        logit_ratio = pm.Flat("logit_fpr_ratio", dims=dims)
        log_fp = log_se + _log_sigmoid(logit_ratio)
        log_tn = pt.log1mexp(log_fp)
        prior = (
            se_prior
            + (priors.sp.alpha - 1.0) * log_tn
            + priors.sp.beta * log_fp
            + _log_sigmoid(-logit_ratio)
        )
    else:
        logit_sp = pm.Flat("logit_sp", dims=dims)
        log_tn, log_fp = _log_sigmoid(logit_sp), _log_sigmoid(-logit_sp)
        prior = se_prior + priors.sp.alpha * log_tn + priors.sp.beta * log_fp
    pm.Potential("judge_prior", pt.sum(prior))
    return logit_se, log_se, log_fn, log_fp, log_tn


def _judge(
    priors: SystemsPriors, judge: str, restrict_j: bool, n_systems: int, pooling: str
) -> _JudgeTerms:
    """Create the judge's variables in the current model and return its rates per system."""
    ones = pt.ones(n_systems)
    if judge == "shared":
        logit_se, log_se, log_fn, log_fp, log_tn = _beta_judge(priors, restrict_j, None)
        se = pm.Deterministic("se", pt.exp(log_se))
        sp = pm.Deterministic("sp", pt.exp(log_tn))
        pm.Deterministic("j", se + sp - 1.0)
        return _JudgeTerms(
            logit_se * ones, log_se * ones, log_fn * ones, log_fp * ones, log_tn * ones
        )
    if pooling == "none":
        logit_se, log_se, log_fn, log_fp, log_tn = _beta_judge(priors, restrict_j, "system")
        se_s = pm.Deterministic("se", pt.exp(log_se), dims="system")
        sp_s = pm.Deterministic("sp", pt.exp(log_tn), dims="system")
        pm.Deterministic("j", se_s + sp_s - 1.0, dims="system")
        logit_sp = log_tn - log_fp
        pm.Deterministic("se_shared", pt.sigmoid(pt.mean(logit_se)))
        pm.Deterministic("sp_shared", pt.sigmoid(pt.mean(logit_sp)))
        pm.Deterministic("sigma_se", pt.std(logit_se, ddof=1))
        pm.Deterministic("sigma_sp", pt.std(logit_sp, ddof=1))
        return _JudgeTerms(logit_se, log_se, log_fn, log_fp, log_tn)

    dims = "system"
    mu_se = pm.Normal(
        "mu_se", mu=_logit(priors.se.mean) + priors.judge_mu.mu, sigma=priors.judge_mu.sigma
    )
    mu_sp = pm.Normal(
        "mu_sp", mu=_logit(priors.sp.mean) + priors.judge_mu.mu, sigma=priors.judge_mu.sigma
    )
    sigma_se = pm.HalfNormal("sigma_se", sigma=priors.judge_sigma.sigma)
    sigma_sp = pm.HalfNormal("sigma_sp", sigma=priors.judge_sigma.sigma)
    se_z = pm.Normal("se_z", 0.0, 1.0, dims=dims)
    if restrict_j:
        # t = logit Se + logit Sp (log diagnostic odds ratio), truncated to t > 0 by its inverse
        # CDF; then logit Se | t is the normal conditional of the bivariate normal.
        dor_u = pm.Uniform("dor_u", lower=0.0, upper=1.0, dims=dims)
        mu_t = mu_se + mu_sp
        var_t = sigma_se**2 + sigma_sp**2
        tau = pt.sqrt(var_t)
        lower = -mu_t / tau
        std_t = np.sqrt(2.0) * pt.erfcinv(dor_u * pt.erfc(lower / np.sqrt(2.0)))
        log_dor = mu_t + tau * std_t
        logit_se = (
            mu_se + (sigma_se**2 / var_t) * (log_dor - mu_t) + (sigma_se * sigma_sp / tau) * se_z
        )
        logit_sp = log_dor - logit_se
    else:
        sp_z = pm.Normal("sp_z", 0.0, 1.0, dims=dims)
        logit_se = mu_se + sigma_se * se_z
        logit_sp = mu_sp + sigma_sp * sp_z
    se_s = pm.Deterministic("se", pt.sigmoid(logit_se), dims=dims)
    sp_s = pm.Deterministic("sp", pt.sigmoid(logit_sp), dims=dims)
    pm.Deterministic("j", se_s + sp_s - 1.0, dims=dims)
    pm.Deterministic("se_shared", pt.sigmoid(mu_se))
    pm.Deterministic("sp_shared", pt.sigmoid(mu_sp))
    return _JudgeTerms(
        logit_se,
        _log_sigmoid(logit_se),
        _log_sigmoid(-logit_se),
        _log_sigmoid(-logit_sp),
        _log_sigmoid(logit_sp),
    )


def _emission(terms: _JudgeTerms) -> pt.TensorVariable:
    """Return E[s, state, y] = P(state | y) for each system, shape (systems, 7, 2)."""
    se, fn, fp, tn = (pt.exp(v) for v in (terms.log_se, terms.log_fn, terms.log_fp, terms.log_tn))
    one = pt.ones_like(se)
    zero = pt.zeros_like(se)
    # rows follow STATES: missing, unlabelled 0/1, gold (0, 0), (0, 1), (1, 0), (1, 1)
    given_fail = pt.stack([one, tn, fp, tn, fp, zero, zero], axis=-1)
    given_pass = pt.stack([one, fn, se, zero, zero, fn, se], axis=-1)
    return pt.stack([given_fail, given_pass], axis=-1)


#: K[state, y] = 1 where the state allows true outcome y (the gold label, if any, is y).
_ALLOWED = np.ones((len(STATES), 2))
_ALLOWED[[GOLD_FAIL_JUDGED_FAIL, GOLD_FAIL_JUDGED_PASS], 1] = 0.0
_ALLOWED[[GOLD_PASS_JUDGED_FAIL, GOLD_PASS_JUDGED_PASS], 0] = 0.0


def _derived_rates(pi: pt.TensorVariable, terms: _JudgeTerms) -> None:
    rate = pm.Deterministic("judged_rate", pi * terms.se + (1.0 - pi) * terms.fpr, dims="system")
    pm.Deterministic("bias", rate - pi, dims="system")


# --------------------------------------------------------------------------- builders
def two_system_model(
    patterns: Patterns,
    *,
    priors: SystemsPriors | None = None,
    judge: Judge = "shared",
    calibration: Calibration = "by_class",
    restrict_j: bool = True,
    pooling: Pooling | None = None,
    size: int | None = None,
) -> pm.Model:
    r"""Build the paired two-system model: four joint true outcomes, one judge, mixed verdicts.

    .. math::

        \theta \sim \mathrm{Dirichlet}(c, c, c, c), \quad
        P(\text{item}) = \sum_{a, b \in \{0, 1\}} \theta_{ab}\,
            E_A(\text{state}_A, a)\, E_B(\text{state}_B, b)

    (divided by :math:`P(\text{known labels})` under ``calibration="by_class"``), with the judge
    terms :math:`E_s` of the module docstring. ``diff`` is :math:`\pi_B - \pi_A =
    \theta_{01} - \theta_{10}` and :math:`P(\pi_B > \pi_A)` is the posterior share of
    ``diff > 0``.

    Parameters
    ----------
    patterns : Patterns
        Cells of exactly two systems (:meth:`SystemsData.patterns
        <bayesjudge.systems.data.SystemsData.patterns>` with two systems); the first is A.
    priors : SystemsPriors, optional
        ``joint``, ``se``, ``sp`` and, for ``judge="system"``, the pooling priors.
    judge : {"shared", "system"}
        One judge for both systems, or system-specific Se and Sp pooled around shared values.
    calibration : {"by_class", "random"}
        What the gold-labelled items are (module docstring).
    restrict_j : bool
        Condition the prior on J > 0 (per system for ``judge="system"``) exactly.
    size : int, optional
        Padded number of cells (default: the next power of two, at least 16).

    Returns
    -------
    pymc.Model
        Coordinates ``system``, ``outcome``, ``cell``; variables as listed in the module
        docstring.

    Examples
    --------
    >>> from bayesjudge.systems.data import Patterns
    >>> cells = Patterns(("old", "new"), np.array([[1, 2], [6, 5], [3, 3]], np.int8),
    ...                  np.array([40, 10, 10]))
    >>> model = two_system_model(cells)
    >>> model.coords["outcome"], model.named_vars_to_dims["pi"]
    (('fail_fail', 'fail_pass', 'pass_fail', 'pass_pass'), ('system',))
    """
    priors = _check_options(priors, judge, calibration, restrict_j)
    data = _check_patterns(patterns, size)
    if len(patterns.systems) != 2:
        raise ValueError(
            f"two_system_model needs the cells of exactly two systems; got {list(patterns.systems)}"
        )
    pooled = resolve_pooling(pooling, judge, 2)
    coords = {
        "system": patterns.systems,
        "outcome": OUTCOMES,
        "cell": np.arange(data["cell_weight"].size),
    }
    with pm.Model(coords=coords) as model:
        state = pm.Data("cell_state", data["cell_state"], dims=("cell", "system"))
        weight = pm.Data("cell_weight", data["cell_weight"], dims="cell")
        joint = pm.Dirichlet("joint", a=np.full(4, priors.joint.concentration), dims="outcome")
        terms = _judge(priors, judge, restrict_j, 2, pooled)

        theta = joint.reshape((2, 2))  # theta[a, b]: a = outcome of A, b = outcome of B
        emission = _emission(terms)  # (system, state, y)
        e_a = emission[0][state[:, 0]]  # (cell, 2)
        e_b = emission[1][state[:, 1]]
        loglik = pt.log(pt.sum(pt.dot(e_a, theta) * e_b, axis=1))
        if calibration == "by_class":
            allowed = pt.as_tensor_variable(_ALLOWED)
            k_a, k_b = allowed[state[:, 0]], allowed[state[:, 1]]
            loglik = loglik - pt.log(pt.sum(pt.dot(k_a, theta) * k_b, axis=1))
        pm.Potential("loglik", pt.sum(weight * loglik))

        pi = pm.Deterministic("pi", pt.stack([theta[1].sum(), theta[:, 1].sum()]), dims="system")
        pm.Deterministic("diff", theta[0, 1] - theta[1, 0])
        pm.Deterministic("discordant", pt.stack([theta[1, 0], theta[0, 1]]), dims="system")
        pm.Deterministic(
            "outcome_correlation",
            (theta[0, 0] * theta[1, 1] - theta[0, 1] * theta[1, 0])
            / pt.sqrt(pi[0] * (1.0 - pi[0]) * pi[1] * (1.0 - pi[1])),
        )
        _derived_rates(pi, terms)
    _INFO[model] = SystemsModelInfo(
        TWO_SYSTEM, priors, judge, calibration, restrict_j, tuple(patterns.systems), pooled
    )
    return model


def irt_model(
    patterns: Patterns,
    *,
    priors: SystemsPriors | None = None,
    judge: Judge = "shared",
    calibration: Calibration = "by_class",
    restrict_j: bool = True,
    pooling: Pooling | None = None,
    nodes: int = 32,
    size: int | None = None,
) -> pm.Model:
    r"""Build the many-system model with a Rasch item effect integrated out by quadrature.

    .. math::

        \alpha_s \sim N(0, \sigma_\alpha^2), \quad \sigma \sim \mathrm{HalfNormal}(s_d), \quad
        p_s(z) = \mathrm{expit}(\alpha_s - \sigma z),

        \log P(\text{item}) = \log \sum_k w_k \prod_s \Big[p_s(z_k)\,E_s(\text{state}_s, 1)
            + (1 - p_s(z_k))\,E_s(\text{state}_s, 0)\Big],

    minus the same sum over the gold labels alone under ``calibration="by_class"``;
    :math:`\pi_s = \sum_k w_k p_s(z_k)`. Each factor is formed in log space from
    :math:`\log p = -\mathrm{softplus}(-\eta)`, so no term is the logarithm of an exact zero.

    The cost is one (nodes x cells x systems) array per gradient, whatever the number of
    items: the cells of :math:`S` systems number at most :math:`7^S` and in practice a few
    hundred.

    Parameters
    ----------
    patterns : Patterns
        Cells of two or more systems.
    priors, judge, calibration, restrict_j, size
        As in :func:`two_system_model`.
    nodes : int
        Gauss-Hermite nodes (default 32; see :mod:`bayesjudge.systems.irt` for the accuracy).

    Returns
    -------
    pymc.Model
        Coordinates ``system`` and ``cell``.

    Examples
    --------
    >>> from bayesjudge.systems.data import Patterns
    >>> cells = Patterns(("a", "b", "c"), np.array([[1, 2, 2], [6, 5, 3]], np.int8),
    ...                  np.array([40, 10]))
    >>> sorted(v.name for v in irt_model(cells).free_RVs)
    ['ability', 'difficulty_sd', 'logit_fpr_ratio', 'logit_se']
    """
    priors = _check_options(priors, judge, calibration, restrict_j)
    data = _check_patterns(patterns, size)
    n_systems = len(patterns.systems)
    if n_systems < 2:
        raise ValueError(f"irt_model needs two or more systems; got {list(patterns.systems)}")
    pooled = resolve_pooling(pooling, judge, n_systems)
    z, log_w = normal_quadrature(nodes)
    coords = {"system": patterns.systems, "cell": np.arange(data["cell_weight"].size)}
    n_states = len(STATES)
    with pm.Model(coords=coords) as model:
        state = pm.Data("cell_state", data["cell_state"], dims=("cell", "system"))
        weight = pm.Data("cell_weight", data["cell_weight"], dims="cell")
        ability = pm.Normal("ability", priors.ability.mu, priors.ability.sigma, dims="system")
        difficulty_sd = pm.HalfNormal("difficulty_sd", sigma=priors.difficulty_sd.sigma)
        terms = _judge(priors, judge, restrict_j, n_systems, pooled)

        eta = ability[None, :] - difficulty_sd * pt.as_tensor_variable(z)[:, None]  # (K, S)
        log_p, log_q = _log_sigmoid(eta), _log_sigmoid(-eta)
        log_se, log_fn, log_fp, log_tn = terms.log_se, terms.log_fn, terms.log_fp, terms.log_tn
        zero = pt.zeros_like(eta)
        table = pt.stack(  # (K, S, state): log P(state | z) of system s, rows as STATES
            [
                zero,
                pt.logaddexp(log_q + log_tn, log_p + log_fn),
                pt.logaddexp(log_q + log_fp, log_p + log_se),
                log_q + log_tn,
                log_q + log_fp,
                log_p + log_fn,
                log_p + log_se,
            ],
            axis=-1,
        )
        # indicator[c, s * 7 + state] = 1 for each system s's state on cell c: summing a
        # cell's per-system terms is then one matrix product (its gradient another), not a
        # gather and a scatter over (node, cell, system)
        column = pt.arange(n_systems)[None, :] * n_states + state  # (cell, S)
        indicator = pt.eq(column[:, :, None], pt.arange(n_systems * n_states)[None, None, :])
        indicator = indicator.sum(axis=1).astype("float64").T  # (S * 7, cell)

        def item_loglik(tab: pt.TensorVariable) -> pt.TensorVariable:
            flat = tab.reshape((tab.shape[0], n_systems * n_states))
            return pt.logsumexp(pt.dot(flat, indicator) + log_w[:, None], axis=0)  # (cell,)

        loglik = item_loglik(table)
        if calibration == "by_class":
            labels_only = pt.stack([zero, zero, zero, log_q, log_q, log_p, log_p], axis=-1)
            loglik = loglik - item_loglik(labels_only)
        pm.Potential("loglik", pt.sum(weight * loglik))

        pi = pm.Deterministic("pi", pt.sum(pt.exp(log_p + log_w[:, None]), axis=0), dims="system")
        _derived_rates(pi, terms)
    _INFO[model] = SystemsModelInfo(
        IRT, priors, judge, calibration, restrict_j, tuple(patterns.systems), pooled
    )
    return model


def systems_model(
    counts: SystemCounts,
    *,
    priors: SystemsPriors | None = None,
    judge: Judge = "shared",
    calibration: Calibration = "by_class",
    restrict_j: bool = True,
    pooling: Pooling | None = None,
) -> pm.Model:
    r"""Build the unpaired many-system model: per-system success rates, one judge.

    .. math::

        \pi_s \sim \mathrm{Beta}(\alpha_\pi, \beta_\pi), \quad
        x_{1s} \sim \mathrm{Bin}(m_{1s}, \mathrm{Se}_s), \quad
        x_{0s} \sim \mathrm{Bin}(m_{0s}, f_s), \quad
        k_s \sim \mathrm{Bin}(n_s, \pi_s \mathrm{Se}_s + (1 - \pi_s) f_s),

    plus :math:`\sum_s m_{1s}\log\pi_s + m_{0s}\log(1 - \pi_s)` under
    ``calibration="random"``. A system without gold labels has :math:`m_{1s} = m_{0s} = 0`.
    With a shared judge this is the prevalence model of each system with Se and Sp shared.

    Parameters
    ----------
    counts : SystemCounts
        Six counts per system (:meth:`SystemsData.system_counts
        <bayesjudge.systems.data.SystemsData.system_counts>`).
    priors, judge, calibration, restrict_j
        As in :func:`two_system_model` (``priors.pi`` is each system's prior).

    Returns
    -------
    pymc.Model
        Coordinate ``system``.

    Examples
    --------
    >>> from bayesjudge.systems.data import SystemCounts
    >>> c = SystemCounts(("a", "b"), *(np.array(v) for v in
    ...     ([50, 0], [45, 0], [50, 0], [5, 0], [300, 300], [200, 230])))
    >>> systems_model(c).named_vars_to_dims["k"]
    ('system',)
    """
    priors = _check_options(priors, judge, calibration, restrict_j)
    if not isinstance(counts, SystemCounts):
        raise TypeError(f"counts must be SystemCounts; got {type(counts).__name__}")
    n_systems = len(counts.systems)
    if n_systems < 2:
        raise ValueError(f"systems_model needs two or more systems; got {list(counts.systems)}")
    pooled = resolve_pooling(pooling, judge, n_systems)
    dims = "system"
    with pm.Model(coords={"system": counts.systems}) as model:
        m1 = pm.Data("m1", counts.m1.astype(np.int64), dims=dims)
        x1_obs = pm.Data("x1_obs", counts.x1.astype(np.int64), dims=dims)
        m0 = pm.Data("m0", counts.m0.astype(np.int64), dims=dims)
        x0_obs = pm.Data("x0_obs", counts.x0.astype(np.int64), dims=dims)
        n = pm.Data("n", counts.n.astype(np.int64), dims=dims)
        k_obs = pm.Data("k_obs", counts.k.astype(np.int64), dims=dims)
        pi = pm.Beta("pi", alpha=priors.pi.alpha, beta=priors.pi.beta, dims=dims)
        terms = _judge(priors, judge, restrict_j, n_systems, pooled)
        rate = pi * terms.se + (1.0 - pi) * terms.fpr
        _derived_rates(pi, terms)
        pm.Binomial("x1", n=m1, logit_p=terms.logit_se, observed=x1_obs, dims=dims)
        pm.Binomial("x0", n=m0, logit_p=terms.log_fp - terms.log_tn, observed=x0_obs, dims=dims)
        pm.Binomial("k", n=n, p=rate, observed=k_obs, dims=dims)
        if calibration == "random":
            pm.Potential("calibration_labels", pt.sum(m1 * pt.log(pi) + m0 * pt.log1p(-pi)))
    _INFO[model] = SystemsModelInfo(
        SYSTEMS, priors, judge, calibration, restrict_j, tuple(counts.systems), pooled
    )
    return model
