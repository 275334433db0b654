r"""Closed forms of the panel model: pattern probabilities, error correlations, effective judges.

The panel model (:mod:`bayesjudge.models.panel`) is the random-effects latent-class model of
Qu, Tan and Kutner ("Random effects models in latent class analysis for evaluating accuracy of
diagnostic tests", Biometrics, 1996) with a probit link. Judge :math:`t` passes an item of true
class :math:`c` (0 FAIL, 1 PASS) with latent value :math:`z \sim N(0, 1)` with probability

.. math::

    P(V_t = 1 \mid c, z) = \Phi\!\left(\frac{\mu_{tc} + \lambda_{tc} z}
        {\sqrt{1 - \lambda_{tc}^2}}\right),\qquad
    \mu_{t1} = \Phi^{-1}(\mathrm{Se}_t),\quad \mu_{t0} = \Phi^{-1}(1 - \mathrm{Sp}_t),

that is, judge :math:`t` passes when its latent propensity
:math:`\mu_{tc} + \lambda_{tc} z + \sqrt{1 - \lambda_{tc}^2}\,\varepsilon_t` is positive
(:math:`\varepsilon_t` independent standard normals). The scaling keeps the *marginal* pass
rates at :math:`\mathrm{Se}_t` and :math:`1 - \mathrm{Sp}_t` whatever the loading
:math:`\lambda_{tc} \in [0, 1)`, so accuracy and dependence are separate parameters. Given the
class, the propensities of judges :math:`s \ne t` have correlation
:math:`\lambda_{sc}\lambda_{tc}` (a one-factor model); verdicts are conditionally independent
exactly when the loadings are 0.

**Pattern probabilities.** Verdicts are independent given :math:`(c, z)`, so a pattern
:math:`v` (entries 1, 0, or missing) has

.. math::

    P(v \mid c) = \int \prod_{t:\,v_t \ne \text{missing}} p_{tc}(z)^{v_t}
        (1 - p_{tc}(z))^{1 - v_t}\,\phi(z)\,dz,

integrated here (and in the PyMC model) by the trapezoid rule on a uniform grid of
:data:`QUADRATURE_SIZE` = 91 points over :math:`[-6.5, 6.5]` with normalised Gaussian weights.
The trapezoid rule converges geometrically for these smooth integrands and, unlike Gauss-Hermite
with a few dozen nodes, stays accurate when a loading near 1 turns :math:`p_{tc}(z)` into a
near step. Measured against adaptive quadrature on six-judge patterns
(``tests/panels/test_dependence.py``): relative error of a pattern probability below 2e-7 with
a loading of 0.99 and below 1e-9 with loadings up to 0.95, where 61 points err by 5e-4 at 0.99
and 48 Gauss-Hermite nodes by up to 20 %. Missing verdicts drop out
of the product, which is what ignoring a missing-at-random verdict means.

**Error correlation.** The conditional dependence of two judges given the class is the Pearson
correlation of their verdicts (equivalently of their errors) within that class,

.. math::

    \rho_{st \mid c} = \frac{P(V_s = V_t = 1 \mid c) - p_{sc}\,p_{tc}}
        {\sqrt{p_{sc}(1 - p_{sc})\,p_{tc}(1 - p_{tc})}},

the standardised form of the conditional covariance of Vacek ("The effect of conditional
dependence on the evaluation of diagnostic tests", Biometrics, 1985) and of Dendukuri and Joseph
("Bayesian approaches to modeling the conditional dependence between multiple diagnostic tests",
Biometrics, 2001).

**Pairwise class-specific covariance.** A judge that repeats another's verdict on a share
:math:`\kappa_c` of the items of class :math:`c` (and otherwise judges alone) is not a one-factor
judge: its pair has covariance :math:`\kappa_c p_{sc}(1 - p_{sc})` given the class and every
other judge is independent of both. The pair form (``pairs`` and ``pair_covariance`` below;
Vacek, 1985; Dendukuri and Joseph, 2001) writes the joint law of each listed pair
:math:`(s, t)` (disjoint pairs, every loading 0) as

.. math::

    P(V_s = a, V_t = b \mid c) = p_{sc}^a (1 - p_{sc})^{1 - a}\, p_{tc}^b (1 - p_{tc})^{1 - b}
        + (-1)^{a + b}\,\gamma_{c},\qquad
    0 \le \gamma_c < \min\{p_{sc}(1 - p_{tc}),\ (1 - p_{sc})p_{tc}\},

and the pattern's probability as the product of its pairs' laws and the other judges' rates
(a pair with one verdict missing contributes that verdict's marginal rate, as the law's
margins are :math:`p_{sc}` and :math:`p_{tc}`). Below the bound every cell is positive by
construction; the law of a copying pair is this one exactly, with
:math:`\gamma_c = \kappa_c p_{sc}(1 - p_{sc})`.

**Effective number of independent judges.** Within class :math:`c`, the sum of the judges'
standardised votes has variance :math:`\mathbf 1^\top R_c \mathbf 1 = J(1 + (J - 1)\bar\rho_c)`
with :math:`\bar\rho_c` the mean pairwise error correlation, the variance of
:math:`J_{\mathrm{eff}}` independent votes with

.. math::

    J_{\mathrm{eff}} = \frac{J}{1 + (J - 1)\bar\rho},

Kish's design effect for a cluster of correlated observations (L. Kish, *Survey Sampling*,
1965). A panel of six judges with :math:`\bar\rho = 0.5` counts as 1.7 independent judges. The
panel-level :math:`\bar\rho = \pi\bar\rho_1 + (1 - \pi)\bar\rho_0` averages the two classes over
the items of the test population.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import log_ndtr, logsumexp, ndtr, ndtri

from bayesjudge.inference import defaults

if TYPE_CHECKING:
    import xarray as xr

__all__ = [
    "DEPENDENCE_STATES",
    "INDEPENDENCE",
    "LOADING_MAX",
    "MAX_SPIKE_JUDGES",
    "QUADRATURE_HALF_WIDTH",
    "QUADRATURE_SIZE",
    "SPIKES",
    "STATES",
    "FlatDraws",
    "SpikeStates",
    "check_pairs",
    "class_probits",
    "effective_judges",
    "flat_draws",
    "latent_correlation",
    "latent_grid",
    "log_pattern_probabilities",
    "mean_error_correlation",
    "pair_covariance_bound",
    "pair_log_adjustment",
    "pattern_probabilities",
    "spike_states",
    "state_log_likelihood",
    "states_log_likelihood",
    "verdict_correlation",
]

#: Number of points of the latent-variable quadrature.
QUADRATURE_SIZE = 91
#: The quadrature grid covers [-QUADRATURE_HALF_WIDTH, QUADRATURE_HALF_WIDTH].
QUADRATURE_HALF_WIDTH = 6.5
#: Largest loading the model allows (a latent correlation of 0.98 between two such judges).
LOADING_MAX = 0.99
#: Prior probability, per class, that the judges' errors are conditionally independent (the
#: spike of the loadings' spike-and-slab prior) in :func:`bayesjudge.panels.fit.fit_panel`.
INDEPENDENCE = defaults.PANEL_INDEPENDENCE
#: The states of the loadings' spike-and-slab prior: the classes whose judges share the item
#: effect.
STATES = ("none", "fail", "pass", "both")
#: Each state of :data:`STATES` as (FAIL-class loadings in use, PASS-class loadings in use).
DEPENDENCE_STATES = ((False, False), (True, False), (False, True), (True, True))
#: What one indicator of the loadings' spike-and-slab prior switches: every loading of a class
#: (``"class"``, four states) or one judge's loadings in both classes (``"judge"``).
SPIKES = ("class", "judge")
#: Largest panel fitted with one spike per judge: its :math:`2^J - J` distinct states each need
#: their own quadrature, so the cost of a log density grows as :math:`2^J`.
MAX_SPIKE_JUDGES = 6


class SpikeStates(NamedTuple):
    """The distinct states of a spike-and-slab prior on the loadings (:func:`spike_states`)."""

    #: A name per state.
    names: tuple[str, ...]
    #: Which loadings each state keeps (the slab), shape (S, 2, J); the others are 0.
    masks: NDArray[np.bool_]
    #: Log prior probability of each state, shape (S,); they sum to 1.
    log_prior: NDArray[np.float64]


def spike_states(
    spike: str, n_judges: int, independence: float, judges: tuple[str, ...] | None = None
) -> SpikeStates:
    r"""Return the distinct states of the loadings' spike-and-slab prior and their probabilities.

    ``spike="class"``: one indicator :math:`d_c` per class, each 0 (every loading of the class
    is 0) with probability :math:`q` (``independence``); the four states of :data:`STATES`,
    :math:`p(d) = \prod_c q^{1 - d_c}(1 - q)^{d_c}`.

    ``spike="judge"``: one indicator :math:`d_t` per judge, shared by both classes: judge
    :math:`t`'s loadings are both 0 with probability :math:`q`, otherwise from the slab. Given
    the class the latent correlation of judges :math:`s, t` is
    :math:`d_s d_t \lambda_{sc}\lambda_{tc}`, so every state with at most one judge in the
    slab gives the conditionally independent law (one judge alone on the item effect keeps its
    marginal rates, Qu, Tan and Kutner, 1996). Those :math:`J + 1` states are merged into the
    state ``"none"`` (all loadings 0) with probability :math:`q^J + J q^{J - 1}(1 - q)`; each
    set :math:`S` of two or more judges is a state with probability
    :math:`q^{J - |S|}(1 - q)^{|S|}`, named by its judges joined with ``+``. There are
    :math:`2^J - J` states, so this form is allowed up to :data:`MAX_SPIKE_JUDGES` judges.

    Parameters
    ----------
    spike : {"class", "judge"}
    n_judges : int
    independence : float
        :math:`q`, in (0, 1).
    judges : tuple of str, optional
        Judge names for the state names (default ``"0"``, ``"1"``, ...).

    Returns
    -------
    SpikeStates

    Examples
    --------
    >>> states = spike_states("judge", 3, 0.5, judges=("a", "b", "c"))
    >>> states.names
    ('none', 'a+b', 'a+c', 'b+c', 'a+b+c')
    >>> np.exp(states.log_prior).round(12).tolist()
    [0.5, 0.125, 0.125, 0.125, 0.125]
    >>> states.masks[1].astype(int).tolist()
    [[1, 1, 0], [1, 1, 0]]
    """
    if spike not in SPIKES:
        raise ValueError(f"spike must be one of {list(SPIKES)}; got {spike!r}")
    if isinstance(n_judges, bool) or int(n_judges) != n_judges or n_judges < 1:
        raise ValueError(f"n_judges must be a whole number >= 1; got {n_judges!r}")
    q = float(independence)
    if not 0.0 < q < 1.0:
        raise ValueError(f"independence must lie in (0, 1); got {independence!r}")
    n = int(n_judges)
    if spike == "class":
        masks = np.array(
            [np.broadcast_to(np.array(s)[:, None], (2, n)) for s in DEPENDENCE_STATES], dtype=bool
        )
        log_prior = np.array(
            [sum(np.log1p(-q) if d else np.log(q) for d in s) for s in DEPENDENCE_STATES]
        )
        return SpikeStates(STATES, masks, log_prior)
    if n > MAX_SPIKE_JUDGES:
        raise ValueError(
            f"spike='judge' is fitted to at most {MAX_SPIKE_JUDGES} judges ({2**n - n} states "
            f"for {n}); use spike='class'"
        )
    names = tuple(judges) if judges is not None else tuple(str(t) for t in range(n))
    if len(names) != n:
        raise ValueError(f"judges must name the {n} judges; got {len(names)} names")
    subsets = [s for k in range(2, n + 1) for s in itertools.combinations(range(n), k)]
    masks = np.zeros((len(subsets) + 1, 2, n), dtype=bool)
    for i, subset in enumerate(subsets, start=1):
        masks[i][:, list(subset)] = True
    none = np.logaddexp(n * np.log(q), np.log(n) + (n - 1) * np.log(q) + np.log1p(-q))
    log_prior = np.array(
        [none] + [(n - len(s)) * np.log(q) + len(s) * np.log1p(-q) for s in subsets]
    )
    return SpikeStates(
        ("none", *("+".join(names[t] for t in s) for s in subsets)), masks, log_prior
    )


def latent_grid(size: int = QUADRATURE_SIZE) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Return the quadrature nodes :math:`z_q` and log weights of :math:`z \sim N(0, 1)`.

    A uniform grid on :math:`[-6.5, 6.5]` with weights :math:`\propto \phi(z_q)`, normalised to
    sum to 1 (the trapezoid rule; the end weights are below 1e-10).

    Examples
    --------
    >>> z, log_w = latent_grid(5)
    >>> z.tolist(), round(float(np.exp(log_w).sum()), 12)
    ([-6.5, -3.25, 0.0, 3.25, 6.5], 1.0)
    """
    if isinstance(size, bool) or int(size) != size or size < 3:
        raise ValueError(f"size must be a whole number >= 3; got {size!r}")
    z = np.linspace(-QUADRATURE_HALF_WIDTH, QUADRATURE_HALF_WIDTH, int(size))
    log_w = -0.5 * z**2
    return z, log_w - logsumexp(log_w)


def class_probits(se: ArrayLike, sp: ArrayLike) -> NDArray[np.float64]:
    r"""Return :math:`\mu_{tc}` with the ``class`` axis before the judge axis: shape (..., 2, J).

    :math:`\mu_{t0} = \Phi^{-1}(1 - \mathrm{Sp}_t)`, :math:`\mu_{t1} = \Phi^{-1}(\mathrm{Se}_t)`.

    Examples
    --------
    >>> class_probits([0.5], [0.5]).tolist()
    [[0.0], [0.0]]
    """
    se_arr, sp_arr = np.broadcast_arrays(np.asarray(se, float), np.asarray(sp, float))
    return np.stack([ndtri(1.0 - sp_arr), ndtri(se_arr)], axis=-2)


def _latent_probits(
    se: ArrayLike, sp: ArrayLike, loading: ArrayLike, z: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Return eta = (mu + lambda z) / sqrt(1 - lambda^2): shape (..., 2, J, Q)."""
    mu = class_probits(se, sp)
    lam = np.asarray(loading, dtype=float)
    if np.any((lam < 0.0) | (lam >= 1.0)):
        raise ValueError("loading must lie in [0, 1)")
    mu, lam = np.broadcast_arrays(mu, lam)
    return (mu[..., None] + lam[..., None] * z) / np.sqrt(1.0 - lam[..., None] ** 2)


def _check_patterns(patterns: ArrayLike, n_judges: int) -> NDArray[np.int8]:
    v = np.asarray(patterns)
    if v.ndim != 2 or v.shape[1] != n_judges:
        raise ValueError(
            f"patterns must have shape (P, {n_judges}) for {n_judges} judges; got {v.shape}"
        )
    if not np.all(np.isin(v, (-1, 0, 1))):
        raise ValueError("patterns must hold 1 (PASS), 0 (FAIL) or -1 (missing)")
    return v.astype(np.int8)


def log_pattern_probabilities(
    se: ArrayLike,
    sp: ArrayLike,
    loading: ArrayLike,
    patterns: ArrayLike,
    *,
    size: int = QUADRATURE_SIZE,
    pairs: ArrayLike | None = None,
    pair_covariance: ArrayLike | None = None,
) -> NDArray[np.float64]:
    r"""Log probability of each verdict pattern in each class, vectorised over leading axes.

    .. math:: \log P(v \mid c) = \log \sum_q w_q \exp \sum_{t:\,v_t \ne -1}
        \left[v_t \log\Phi(\eta_{tcq}) + (1 - v_t)\log\Phi(-\eta_{tcq})\right]

    with :math:`\eta_{tcq} = (\mu_{tc} + \lambda_{tc} z_q)/\sqrt{1 - \lambda_{tc}^2}` (see the
    module docstring).

    Parameters
    ----------
    se, sp : array_like, shape (..., J)
        Each judge's marginal sensitivity and specificity.
    loading : array_like, shape (..., 2, J)
        Loadings :math:`\lambda_{tc}` in [0, 1), class axis first (0 FAIL, 1 PASS).
    patterns : array_like, shape (P, J)
        Verdict patterns: 1 PASS, 0 FAIL, -1 missing.
    size : int
        Quadrature points.
    pairs : array_like of int, shape (K, 2), optional
        Disjoint pairs of judges with a class-specific covariance (the pair form of the module
        docstring; their loadings must be 0).
    pair_covariance : array_like, shape (..., 2, K), optional
        :math:`\gamma_c` of each pair (with ``pairs``).

    Returns
    -------
    ndarray, shape (..., 2, P)

    Examples
    --------
    >>> logp = log_pattern_probabilities([0.9, 0.8], [0.7, 0.6], np.zeros((2, 2)),
    ...                                  [[1, 1], [1, -1]])
    >>> np.exp(logp).round(4).tolist()
    [[0.12, 0.3], [0.72, 0.9]]
    >>> logp = log_pattern_probabilities([0.9, 0.8], [0.7, 0.6], np.zeros((2, 2)),
    ...                                  [[1, 1], [1, -1]], pairs=[[0, 1]],
    ...                                  pair_covariance=[[0.05], [0.0]])
    >>> np.exp(logp).round(4).tolist()
    [[0.17, 0.3], [0.72, 0.9]]
    """
    if pairs is not None or pair_covariance is not None:
        logp = log_pattern_probabilities(se, sp, loading, patterns, size=size)
        return np.asarray(
            logp + pair_log_adjustment(se, sp, loading, patterns, pairs, pair_covariance),
            dtype=float,
        )
    z, log_w = latent_grid(size)
    eta = _latent_probits(se, sp, loading, z)
    v = _check_patterns(patterns, eta.shape[-2])
    passes = (v == 1).astype(float)
    fails = (v == 0).astype(float)
    log_joint = np.einsum("pj,...cjq->...cpq", passes, log_ndtr(eta)) + np.einsum(
        "pj,...cjq->...cpq", fails, log_ndtr(-eta)
    )
    return np.asarray(logsumexp(log_joint + log_w, axis=-1), dtype=float)


def pattern_probabilities(
    se: ArrayLike,
    sp: ArrayLike,
    loading: ArrayLike,
    patterns: ArrayLike,
    *,
    size: int = QUADRATURE_SIZE,
    pairs: ArrayLike | None = None,
    pair_covariance: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """Return the probability of each verdict pattern in each class, shape (..., 2, P).

    The ``exp`` of :func:`log_pattern_probabilities`, with the same arguments (``pairs`` and
    ``pair_covariance`` included).

    Examples
    --------
    >>> from bayesjudge.panels.rules import complete_patterns
    >>> p = pattern_probabilities([0.9, 0.8], [0.7, 0.6], [[0.5, 0.5], [0.5, 0.5]],
    ...                           complete_patterns(2))
    >>> p.sum(axis=-1).round(12).tolist()
    [1.0, 1.0]
    """
    return np.exp(
        log_pattern_probabilities(
            se, sp, loading, patterns, size=size, pairs=pairs, pair_covariance=pair_covariance
        )
    )


def verdict_correlation(
    se: ArrayLike,
    sp: ArrayLike,
    loading: ArrayLike,
    *,
    size: int = QUADRATURE_SIZE,
    pairs: ArrayLike | None = None,
    pair_covariance: ArrayLike | None = None,
) -> NDArray[np.float64]:
    r"""Pairwise correlation of the judges' verdicts (errors) given the class.

    :math:`\rho_{st \mid c}` of the module docstring, with
    :math:`P(V_s = V_t = 1 \mid c) = \sum_q w_q\,\Phi(\eta_{scq})\Phi(\eta_{tcq})`.

    Parameters
    ----------
    se, sp : array_like, shape (..., J)
    loading : array_like, shape (..., 2, J)
    size : int
        Quadrature points.
    pairs, pair_covariance : array_like, optional
        The pair form (see :func:`log_pattern_probabilities`): each listed pair's covariance
        :math:`\gamma_c` is added to its entry.

    Returns
    -------
    ndarray, shape (..., 2, J, J)
        Class axis first (0 FAIL, 1 PASS); the diagonal is 1; NaN for a pair in which a judge
        never (or always) passes items of that class.

    Examples
    --------
    >>> r = verdict_correlation([0.9, 0.8], [0.7, 0.6], [[0.0, 0.0], [0.6, 0.6]])
    >>> r[0, 0, 1].round(6), r[1, 0, 1].round(3)
    (np.float64(0.0), np.float64(0.176))
    """
    z, log_w = latent_grid(size)
    p = ndtr(_latent_probits(se, sp, loading, z))
    w = np.exp(log_w)
    both = np.einsum("...jq,...kq,q->...jk", p, p, w)
    marginal = np.einsum("...jq,q->...j", p, w)
    if pairs is not None or pair_covariance is not None:
        index, gamma = _check_pairs(loading, pairs, pair_covariance, p.shape[-2])
        both = both.copy()
        both[..., index[:, 0], index[:, 1]] += gamma
        both[..., index[:, 1], index[:, 0]] += gamma
    variance = marginal * (1.0 - marginal)
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = (both - marginal[..., :, None] * marginal[..., None, :]) / np.sqrt(
            variance[..., :, None] * variance[..., None, :]
        )
    n = corr.shape[-1]
    corr[..., np.arange(n), np.arange(n)] = 1.0
    return np.asarray(corr, dtype=float)


def latent_correlation(loading: ArrayLike) -> NDArray[np.float64]:
    r"""Correlation of two judges' latent propensities given the class: :math:`\lambda_s\lambda_t`.

    Parameters
    ----------
    loading : array_like, shape (..., 2, J)

    Returns
    -------
    ndarray, shape (..., 2, J, J)
        Diagonal 1.

    Examples
    --------
    >>> latent_correlation([[0.5, 0.5], [0.9, 0.0]])[:, 0, 1].tolist()
    [0.25, 0.0]
    """
    lam = np.asarray(loading, dtype=float)
    corr = lam[..., :, None] * lam[..., None, :]
    n = corr.shape[-1]
    corr[..., np.arange(n), np.arange(n)] = 1.0
    return corr


def mean_error_correlation(correlation: ArrayLike) -> NDArray[np.float64]:
    r"""Return the mean off-diagonal entry :math:`\bar\rho` of correlation matrices.

    Shape (..., J, J) -> (...).

    Examples
    --------
    >>> mean_error_correlation([[1.0, 0.2, 0.4], [0.2, 1.0, 0.0], [0.4, 0.0, 1.0]]).round(6)
    np.float64(0.2)
    """
    corr = np.asarray(correlation, dtype=float)
    n = corr.shape[-1]
    if corr.shape[-2] != n or n < 2:
        raise ValueError(f"correlation must end in a square (J, J) block, J >= 2; got {corr.shape}")
    off = corr.sum(axis=(-2, -1)) - np.trace(corr, axis1=-2, axis2=-1)
    return np.asarray(off / (n * (n - 1)), dtype=float)


def effective_judges(mean_correlation: ArrayLike, n_judges: int) -> NDArray[np.float64]:
    r"""Effective number of independent judges, :math:`J / (1 + (J - 1)\bar\rho)` (Kish, 1965).

    Parameters
    ----------
    mean_correlation : array_like
        Mean pairwise error correlation :math:`\bar\rho` (:func:`mean_error_correlation`).
    n_judges : int
        Panel size ``J``.

    Examples
    --------
    >>> effective_judges([0.0, 0.5, 1.0], 6).round(3).tolist()
    [6.0, 1.714, 1.0]
    """
    if isinstance(n_judges, bool) or int(n_judges) != n_judges or n_judges < 1:
        raise ValueError(f"n_judges must be a whole number >= 1; got {n_judges!r}")
    rho = np.asarray(mean_correlation, dtype=float)
    return np.asarray(n_judges / (1.0 + (n_judges - 1) * rho), dtype=float)


def state_log_likelihood(
    log_dependent: ArrayLike,
    log_independent: ArrayLike,
    label: ArrayLike,
    count: ArrayLike,
    pi: ArrayLike,
    *,
    independence: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Log likelihood of pattern counts with each class's loadings in use or all zero.

    Spike-and-slab on the loadings: independently for each class :math:`c`, with prior
    probability :math:`q` (``independence``) every loading of the class is 0 (the judges' errors
    are conditionally independent in that class, :math:`d_c = 0`), otherwise they are the
    loadings given (:math:`d_c = 1`). For the four states :math:`s = (d_0, d_1)`,

    .. math::

        \log L_s = \sum_{\text{gold}} n_v \log P_{d_{c_v}}(v \mid c_v)
            + \sum_{\text{unlabelled}} n_v
            \log\left[\pi P_{d_1}(v \mid 1) + (1 - \pi) P_{d_0}(v \mid 0)\right],

    and the likelihood with the states summed out is
    :math:`\log \sum_s p(s) L_s`, :math:`p(s) = \prod_c q^{1 - d_c}(1 - q)^{d_c}`
    (the mixture over indicator configurations of a spike-and-slab prior, e.g. George and
    McCulloch, "Variable selection via Gibbs sampling", JASA, 1993).

    Parameters
    ----------
    log_dependent, log_independent : array_like, shape (..., 2, P)
        :math:`\log P(v \mid c)` with the loadings and with every loading 0
        (:func:`log_pattern_probabilities`).
    label : array_like of int, shape (P,)
        1 gold PASS, 0 gold FAIL, -1 unlabelled.
    count : array_like, shape (P,)
    pi : array_like, shape (...)
    independence : float
        :math:`q`, in (0, 1).

    Returns
    -------
    total : ndarray, shape (...)
        :math:`\log \sum_s p(s) L_s`.
    state_logp : ndarray, shape (..., 4)
        Log posterior probability of each state (none, fail, pass, both: which classes'
        loadings are in use) given the other parameters.

    Examples
    --------
    >>> logp = log_pattern_probabilities([0.9, 0.8], [0.7, 0.6], np.zeros((2, 2)),
    ...                                  [[1, 1], [0, 0]])
    >>> total, state = state_log_likelihood(logp, logp, [-1, -1], [3, 2], 0.6,
    ...                                     independence=0.5)
    >>> np.exp(state).round(6).tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    q = float(independence)
    if not 0.0 < q < 1.0:
        raise ValueError(f"independence must lie in (0, 1); got {independence!r}")
    dep = np.asarray(log_dependent, dtype=float)
    ind = np.asarray(log_independent, dtype=float)
    lab = np.asarray(label)
    n = np.asarray(count, dtype=float)
    pi_arr = np.asarray(pi, dtype=float)[..., None]
    gold = [np.where(lab == c, n, 0.0) for c in (0, 1)]
    unlabelled = np.where(lab < 0, n, 0.0)
    states = []
    for fail_dependent, pass_dependent in DEPENDENCE_STATES:
        log_fail = (dep if fail_dependent else ind)[..., 0, :]
        log_pass = (dep if pass_dependent else ind)[..., 1, :]
        mixed = np.logaddexp(np.log(pi_arr) + log_pass, np.log1p(-pi_arr) + log_fail)
        prior = (np.log1p(-q) if fail_dependent else np.log(q)) + (
            np.log1p(-q) if pass_dependent else np.log(q)
        )
        states.append(
            prior
            + (log_fail * gold[0]).sum(-1)
            + (log_pass * gold[1]).sum(-1)
            + (np.where(unlabelled > 0, mixed, 0.0) * unlabelled).sum(-1)
        )
    stacked = np.stack(states, axis=-1)
    total = logsumexp(stacked, axis=-1)
    return np.asarray(total, dtype=float), np.asarray(stacked - total[..., None], dtype=float)


def states_log_likelihood(
    log_state: ArrayLike,
    log_prior: ArrayLike,
    label: ArrayLike,
    count: ArrayLike,
    pi: ArrayLike,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Log likelihood of pattern counts with the states of a spike-and-slab prior summed out.

    For each state :math:`s` (:func:`spike_states`) with pattern laws :math:`P_s(v \mid c)`,

    .. math::

        \log L_s = \sum_{\text{gold}} n_v \log P_s(v \mid c_v)
            + \sum_{\text{unlabelled}} n_v
            \log\left[\pi P_s(v \mid 1) + (1 - \pi) P_s(v \mid 0)\right],

    and the total is :math:`\log \sum_s p(s) L_s` (George and McCulloch, "Variable selection
    via Gibbs sampling", JASA, 1993). :func:`state_log_likelihood` is the four-state case of
    ``spike="class"``.

    Parameters
    ----------
    log_state : array_like, shape (..., S, 2, P)
        :math:`\log P_s(v \mid c)` of each state (:func:`log_pattern_probabilities` with the
        state's loadings).
    log_prior : array_like, shape (S,)
    label : array_like of int, shape (P,)
        1 gold PASS, 0 gold FAIL, -1 unlabelled.
    count : array_like, shape (P,)
    pi : array_like, shape (...)

    Returns
    -------
    total : ndarray, shape (...)
    state_logp : ndarray, shape (..., S)
        Log posterior probability of each state given the other parameters.

    Examples
    --------
    >>> logp = log_pattern_probabilities([0.9, 0.8], [0.7, 0.6], np.zeros((2, 2)),
    ...                                  [[1, 1], [0, 0]])
    >>> total, state = states_log_likelihood(np.stack([logp, logp]), np.log([0.3, 0.7]),
    ...                                      [-1, -1], [3, 2], 0.6)
    >>> np.exp(state).round(6).tolist()
    [0.3, 0.7]
    """
    logs = np.asarray(log_state, dtype=float)
    prior = np.asarray(log_prior, dtype=float)
    lab = np.asarray(label)
    n = np.asarray(count, dtype=float)
    log_pi = np.log(np.asarray(pi, dtype=float))[..., None, None]
    log1m_pi = np.log1p(-np.asarray(pi, dtype=float))[..., None, None]
    fail, passed = logs[..., 0, :], logs[..., 1, :]
    mixed = np.logaddexp(log_pi + passed, log1m_pi + fail)
    per = np.where(lab == 1, passed, fail)
    per = np.where(lab < 0, mixed, per)
    stacked = prior + (np.where(n > 0, per, 0.0) * n).sum(-1)
    total = logsumexp(stacked, axis=-1)
    return np.asarray(total, dtype=float), np.asarray(stacked - total[..., None], dtype=float)


def check_pairs(pairs: ArrayLike, n_judges: int) -> NDArray[np.int64]:
    """Validate disjoint pairs of judge indices; return them as an int array of shape (K, 2).

    Raises
    ------
    ValueError
        If ``pairs`` is not (K, 2) whole numbers with K >= 1, names a judge outside
        ``range(n_judges)``, joins a judge to itself, or lists a judge in two pairs.

    Examples
    --------
    >>> check_pairs([(0, 2)], 3).tolist()
    [[0, 2]]
    >>> check_pairs([(0, 1), (1, 2)], 3)
    Traceback (most recent call last):
    ValueError: pairs must be disjoint (a judge in one pair at most); got [[0, 1], [1, 2]]
    """
    index = np.asarray(pairs)
    if (
        index.ndim != 2
        or index.shape[1] != 2
        or len(index) == 0
        or not np.issubdtype(index.dtype, np.integer)
    ):
        raise ValueError(f"pairs must be judge indices of shape (K, 2), K >= 1; got {pairs!r}")
    if np.any((index < 0) | (index >= n_judges)) or np.any(index[:, 0] == index[:, 1]):
        raise ValueError(
            f"pairs must join two different judges of {n_judges}; got {index.tolist()}"
        )
    if np.unique(index).size != index.size:
        raise ValueError(
            f"pairs must be disjoint (a judge in one pair at most); got {index.tolist()}"
        )
    return index.astype(np.int64)


def _check_pairs(
    loading: ArrayLike, pairs: ArrayLike | None, pair_covariance: ArrayLike | None, n_judges: int
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Validate the pair form's arguments; return the pairs (K, 2) and covariances (..., 2, K)."""
    if pairs is None or pair_covariance is None:
        raise ValueError("pairs and pair_covariance go together; give both or neither")
    index = check_pairs(pairs, n_judges)
    gamma = np.asarray(pair_covariance, dtype=float)
    if gamma.shape[-2:] != (2, len(index)):
        raise ValueError(
            f"pair_covariance must end in shape (2, {len(index)}) (class, pair); got {gamma.shape}"
        )
    lam = np.asarray(loading, dtype=float)
    if np.any(lam[..., index.ravel()] != 0.0):
        raise ValueError(
            "the judges of a pair must have loading 0 (the pair form has no item effect)"
        )
    return index, gamma


def pair_covariance_bound(rate_s: ArrayLike, rate_t: ArrayLike) -> NDArray[np.float64]:
    r"""Largest covariance a pair of verdicts can have: :math:`\min\{p_s(1 - p_t), (1 - p_s)p_t\}`.

    With pass rates :math:`p_s, p_t` in one class, :math:`0 \le \gamma` below this bound keeps
    every cell of the pair's law positive (the discordant cells are the ones it lowers).

    Examples
    --------
    >>> pair_covariance_bound(0.85, 0.85).round(4).tolist()
    0.1275
    """
    p = np.asarray(rate_s, dtype=float)
    q = np.asarray(rate_t, dtype=float)
    return np.asarray(np.minimum(p * (1.0 - q), (1.0 - p) * q), dtype=float)


def pair_log_adjustment(
    se: ArrayLike,
    sp: ArrayLike,
    loading: ArrayLike,
    patterns: ArrayLike,
    pairs: ArrayLike | None,
    pair_covariance: ArrayLike | None,
) -> NDArray[np.float64]:
    r"""Return what the pair form adds to each pattern's log probability under independence.

    For each pair :math:`(s, t)` with both verdicts present,
    :math:`\log(\,p_s^a(1 - p_s)^{1 - a} p_t^b(1 - p_t)^{1 - b} + (-1)^{a + b}\gamma_c)` minus
    the log of its first term (see the module docstring); 0 for the other pairs.

    Parameters
    ----------
    se, sp : array_like, shape (..., J)
    loading : array_like, shape (..., 2, J)
        Must be 0 for the paired judges.
    patterns : array_like, shape (P, J)
    pairs : array_like of int, shape (K, 2)
    pair_covariance : array_like, shape (..., 2, K)
        In :math:`[0, \text{bound})` (:func:`pair_covariance_bound`).

    Returns
    -------
    ndarray, shape (..., 2, P)

    Raises
    ------
    ValueError
        On pairs that overlap or name unknown judges, a covariance outside its range, or a
        paired judge with a non-zero loading.

    Examples
    --------
    >>> adj = pair_log_adjustment([0.9, 0.8], [0.7, 0.6], np.zeros((2, 2)), [[1, 0], [1, 1]],
    ...                           [[0, 1]], [[0.0], [0.02]])
    >>> np.exp(adj).round(4).tolist()
    [[1.0, 1.0], [0.8889, 1.0278]]
    """
    rate = np.stack(np.broadcast_arrays(1.0 - np.asarray(sp, float), np.asarray(se, float)), -2)
    index, gamma = _check_pairs(loading, pairs, pair_covariance, rate.shape[-1])
    v = _check_patterns(patterns, rate.shape[-1])
    p_s, p_t = rate[..., index[:, 0]], rate[..., index[:, 1]]  # (..., 2, K)
    bound = pair_covariance_bound(p_s, p_t)
    if np.any(gamma < 0.0) or np.any(
        gamma >= np.broadcast_to(bound, np.broadcast_shapes(bound.shape, gamma.shape))
    ):
        raise ValueError("pair_covariance must lie in [0, bound) (pair_covariance_bound)")
    a, b = v[:, index[:, 0]], v[:, index[:, 1]]  # (P, K)
    both = (a >= 0) & (b >= 0)
    sign = np.where(a == b, 1.0, -1.0)
    first = np.where(a == 1, p_s[..., None, :], 1.0 - p_s[..., None, :]) * np.where(
        b == 1, p_t[..., None, :], 1.0 - p_t[..., None, :]
    )  # (..., 2, P, K)
    with np.errstate(divide="ignore"):
        adjust = np.log1p(sign * gamma[..., None, :] / np.where(both, first, 1.0))
    return np.asarray(np.where(both, adjust, 0.0).sum(axis=-1), dtype=float)


class FlatDraws(NamedTuple):
    """The panel model's parameters at every posterior draw, chains and draws on one axis."""

    pi: NDArray[np.float64]  # (draw,)
    se: NDArray[np.float64]  # (draw, judge)
    sp: NDArray[np.float64]  # (draw, judge)
    loading: NDArray[np.float64]  # (draw, class, judge)
    pair_covariance: NDArray[np.float64] | None  # (draw, class, pair); None without pairs


def flat_draws(posterior: xr.Dataset, pairs: ArrayLike | None = None) -> FlatDraws:
    """Return ``posterior``'s pi, Se, Sp, loadings (and pair covariances) as flat arrays.

    Examples
    --------
    >>> import xarray as xr
    >>> post = xr.Dataset({
    ...     "pi": (("chain", "draw"), [[0.5, 0.6]]),
    ...     "se": (("chain", "draw", "judge"), [[[0.9, 0.8], [0.85, 0.8]]]),
    ...     "sp": (("chain", "draw", "judge"), [[[0.8, 0.9], [0.8, 0.85]]]),
    ...     "loading": (("chain", "draw", "class", "judge"), np.zeros((1, 2, 2, 2)))})
    >>> draws = flat_draws(post)
    >>> draws.pi.shape, draws.se.shape, draws.loading.shape, draws.pair_covariance
    ((2,), (2, 2), (2, 2, 2), None)
    """
    pi = posterior["pi"].transpose("chain", "draw").to_numpy()
    flat = pi.size

    def values(name: str, *dims: str) -> NDArray[np.float64]:
        array = posterior[name].transpose("chain", "draw", *dims).to_numpy()
        return array.reshape(flat, *array.shape[2:])

    gamma = None if pairs is None else values("pair_covariance", "class", "pair")
    return FlatDraws(
        pi.reshape(flat),
        values("se", "judge"),
        values("sp", "judge"),
        values("loading", "class", "judge"),
        gamma,
    )
