r"""Where the panel sampler starts: the posterior mode, found from several starting points.

With many unlabelled items the panel posterior is narrow in every direction the unlabelled
verdict patterns pin, and the random-effects model has more parameters than those patterns
have cells (:math:`4J + 1` against :math:`2^J - 1`), so the posterior lies along a thin curved
surface that only the gold items locate. Started at an arbitrary point, NUTS chains can settle
in separate local modes of that surface and stay there: measured on a four-judge panel with
:math:`10^6` unlabelled and 200 gold items, four chains from PyMC's default starting points
settled in three places whose log densities differed by 28 and 43 (so the two minor places
hold a negligible share of the posterior), and R-hat failed.

:func:`posterior_mode` therefore maximises the log posterior from several starting points
(each judge's Se and Sp from its gold items, pi from the judges' Rogan-Gladen estimates, and
loadings low, middling and high), keeps every optimum it reaches, and returns the best one in
the coordinates the model samples (:func:`sampling_coordinates`); the chains start there,
jittered. The model samples only one mirror half (the judges' mean accuracy coordinate
positive). When the best optimum lies in the other half, its mirror image is the model's mode
only if nothing breaks the mirror symmetry; gold labels break it, and the model's mode is then
at the edge of its half next to the optimum, so both places are searched. The optima are
recorded, so a second optimum whose log density comes close to the
best one (a posterior with two real modes) is reported rather than hidden.

The optimisation runs on the numpy closed forms of :mod:`bayesjudge.panels.dependence` with
L-BFGS-B (Byrd, Lu, Nocedal and Zhu, "A limited memory algorithm for bound constrained
optimization", SIAM Journal on Scientific Computing, 1995) and central-difference gradients
evaluated as one batch; it costs a fraction of a second to a few seconds, whatever the number
of items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize
from scipy.special import betaln, expit, log_expit, logit

from bayesjudge.panels.data import UNLABELLED, PanelPatterns
from bayesjudge.panels.dependence import (
    LOADING_MAX,
    QUADRATURE_SIZE,
    check_pairs,
    log_pattern_probabilities,
    pair_covariance_bound,
    spike_states,
    state_log_likelihood,
    states_log_likelihood,
)
from bayesjudge.priors import Beta, PanelPriors

__all__ = [
    "PanelStart",
    "accuracy_bounds",
    "judge_accuracy",
    "mode_precision",
    "posterior_mode",
    "sampling_coordinates",
    "sampling_log_density",
    "sampling_order",
    "zero_sum_coordinates",
]

#: Shares of the largest loading tried as starting loadings.
START_LOADINGS = (0.2, 0.5, 0.85)
_STEP = 1e-6
#: Quadrature points of the search (the sampler's model uses more; a start needs no more).
SEARCH_QUADRATURE_SIZE = 61
#: Mean accuracy coordinate a search inside the model's half starts from, next to its edge.
_EDGE = 0.05
#: Objective value the search inside the model's half returns outside the support.
_FAR = 1e12


def accuracy_bounds(
    pi: ArrayLike, rate: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Range :math:`(\ell, h)` of Youden's J on the line :math:`\pi\,Se + (1 - \pi) f = R`.

    :math:`h = \min\{(1 - R)/(1 - \pi), R/\pi\}` and
    :math:`\ell = -\min\{R/(1 - \pi), (1 - R)/\pi\}` keep Se and the false-pass rate f in the
    unit interval (see :mod:`bayesjudge.models.panel`).

    Examples
    --------
    >>> low, high = accuracy_bounds(0.5, 0.5)
    >>> float(low), float(high)
    (-1.0, 1.0)
    """
    p = np.asarray(pi, dtype=float)
    r = np.asarray(rate, dtype=float)
    high = np.minimum((1.0 - r) / (1.0 - p), r / p)
    low = -np.minimum(r / (1.0 - p), (1.0 - r) / p)
    return low, high


def judge_accuracy(
    pi: ArrayLike, rate: ArrayLike, accuracy: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Se and Sp of judges from pi, their judged pass rates and their accuracy coordinates.

    .. math::

        J = \ell + (h - \ell)\,\sigma(a + \log(-\ell/h)),\quad
        \mathrm{Se} = R + (1 - \pi) J,\quad \mathrm{Sp} = 1 - R + \pi J

    the map the panel model samples through (:mod:`bayesjudge.models.panel`); ``a = 0`` is
    :math:`J = 0`.

    Examples
    --------
    >>> se, sp = judge_accuracy(0.6, [0.6, 0.6], [0.0, 2.0])
    >>> se.round(4).tolist(), sp.round(4).tolist()
    ([0.6, 0.8875], [0.4, 0.8313])
    """
    low, high = accuracy_bounds(pi, rate)
    a = np.asarray(accuracy, dtype=float)
    j = low + (high - low) * expit(a + np.log(-low) - np.log(high))
    p = np.asarray(pi, dtype=float)
    r = np.asarray(rate, dtype=float)
    return r + (1.0 - p) * j, 1.0 - r + p * j


def zero_sum_coordinates(offset: ArrayLike) -> NDArray[np.float64]:
    """Return the free coordinates of a zero-sum vector, as PyMC's ``ZeroSumTransform`` has them.

    The inverse of the transform's backward map (last axis): ``J`` values summing to zero
    become ``J - 1`` free numbers.

    Examples
    --------
    >>> zero_sum_coordinates([1.0, -1.0]).round(6).tolist()
    [1.414214]
    """
    x = np.asarray(offset, dtype=float)
    n = x.shape[-1]
    last = x[..., -1:]
    norm = -last * np.sqrt(n) / (np.sqrt(n) + n)
    return np.asarray(x[..., :-1] + norm, dtype=float)


def _rate_and_accuracy(
    pi: float, se: ArrayLike, sp: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each judge's judged pass rate and accuracy coordinate (the inverse of judge_accuracy)."""
    se_arr = np.asarray(se, dtype=float)
    sp_arr = np.asarray(sp, dtype=float)
    rate = pi * se_arr + (1.0 - pi) * (1.0 - sp_arr)
    j = se_arr + sp_arr - 1.0
    low, high = accuracy_bounds(pi, rate)
    return rate, np.log(high * (j - low)) - np.log(-low * (high - j))


def sampling_coordinates(
    pi: float,
    se: ArrayLike,
    sp: ArrayLike,
    loading: ArrayLike | None = None,
    pair_share: ArrayLike | None = None,
) -> dict[str, NDArray[np.float64]]:
    r"""Return the model's unconstrained coordinates of a parameter value.

    Parameters
    ----------
    pi : float
    se, sp : array_like, shape (J,)
    loading : array_like, shape (2, J), optional
        Loadings in (0, 0.99); omitted for the conditionally independent model.
    pair_share : array_like, shape (2, K), optional
        Each pair's covariance as a share of its bound, in (0, 1) (the pair form).

    Returns
    -------
    dict
        ``pi_logodds__``, ``judged_rate_interval__``, ``accuracy_mean_log__``,
        ``accuracy_offset_zerosum__`` (two or more judges) and ``loading_share_logodds__``
        (with loadings): the value variables of :func:`bayesjudge.models.panel.panel_model`.

    Raises
    ------
    ValueError
        If the judges' mean accuracy coordinate is not positive (the point is in the mirror
        half that the model excludes).

    Examples
    --------
    >>> sorted(sampling_coordinates(0.6, [0.9, 0.8], [0.8, 0.7]))  # doctest: +NORMALIZE_WHITESPACE
    ['accuracy_mean_log__', 'accuracy_offset_zerosum__', 'judged_rate_interval__',
     'pi_logodds__']
    """
    rate, accuracy = _rate_and_accuracy(pi, se, sp)
    mean = float(accuracy.mean())
    if not mean > 0.0:
        raise ValueError(
            f"the judges' mean accuracy coordinate is {mean:.4g}; the model samples only the "
            "half where it is positive (the mirror image of this point is in it)"
        )
    out = {
        "pi_logodds__": np.asarray(logit(pi), dtype=float),
        "judged_rate_interval__": np.asarray(logit(rate), dtype=float),
        "accuracy_mean_log__": np.asarray(np.log(mean), dtype=float),
    }
    if accuracy.size > 1:
        out["accuracy_offset_zerosum__"] = zero_sum_coordinates(accuracy - mean)
    if loading is not None:
        out["loading_share_logodds__"] = np.asarray(
            logit(np.asarray(loading, dtype=float) / LOADING_MAX), dtype=float
        )
    if pair_share is not None:
        out["pair_share_logodds__"] = np.asarray(logit(np.asarray(pair_share, float)), float)
    return out


@dataclass(frozen=True, slots=True)
class PanelStart:
    """The posterior mode the chains start from, and every optimum found on the way.

    Attributes
    ----------
    pi : float
    se, sp : ndarray, shape (J,)
    loading : ndarray, shape (2, J)
        Zeros for the conditionally independent model.
    log_density : float
        Log posterior at the mode (natural coordinates, up to a constant).
    optima : tuple of float
        Log density reached from each starting point, best first.
    values : dict
        The mode in the model's sampling coordinates (:func:`sampling_coordinates`).
    pair_share : ndarray, shape (2, K), optional
        Each pair's covariance as a share of its bound (the pair form).
    """

    pi: float
    se: NDArray[np.float64]
    sp: NDArray[np.float64]
    loading: NDArray[np.float64]
    log_density: float
    optima: tuple[float, ...]
    values: dict[str, NDArray[np.float64]]
    pair_share: NDArray[np.float64] | None = None

    def to_dict(self) -> dict[str, object]:
        """Return the mode and the optima as plain values (recorded in the posterior's attrs)."""
        return {
            "pi": self.pi,
            "se": self.se.tolist(),
            "sp": self.sp.tolist(),
            "loading": self.loading.tolist(),
            "log_density": self.log_density,
            "optima": list(self.optima),
            **({} if self.pair_share is None else {"pair_share": self.pair_share.tolist()}),
        }


def _beta(
    prior: Beta, log_x: NDArray[np.float64], log1m_x: NDArray[np.float64]
) -> NDArray[np.float64]:
    a, b = prior.alpha, prior.beta
    return np.asarray((a - 1.0) * log_x + (b - 1.0) * log1m_x - betaln(a, b), dtype=float)


def _pair_arguments(
    se: NDArray[np.float64],
    sp: NDArray[np.float64],
    pairs: NDArray[np.int64],
    share: NDArray[np.float64],
) -> dict[str, Any]:
    """Return the ``pairs and ``pair_covariance`` arguments of the pair form from its shares."""
    rate = np.stack([1.0 - sp, se], axis=-2)  # (batch, 2, J)
    bound = pair_covariance_bound(rate[..., pairs[:, 0]], rate[..., pairs[:, 1]])
    return {"pairs": pairs, "pair_covariance": share * bound}


def _spike_total(
    se: NDArray[np.float64],
    sp: NDArray[np.float64],
    loading: NDArray[np.float64],
    logp: NDArray[np.float64],
    patterns: PanelPatterns,
    count: NDArray[np.float64],
    pi: NDArray[np.float64],
    *,
    independence: float,
    spike: str,
    size: int,
) -> NDArray[np.float64]:
    """Return the likelihood with the spike-and-slab states summed out (batch first).

    ``logp`` is the pattern law with every loading in use, shape (B, 2, P).
    """
    if spike == "class":
        logp_zero = log_pattern_probabilities(
            se, sp, np.zeros_like(loading), patterns.verdict, size=size
        )
        total, _ = state_log_likelihood(
            logp, logp_zero, patterns.label, count, pi, independence=independence
        )
        return total
    states = spike_states(spike, patterns.n_judges, independence)
    log_state = log_pattern_probabilities(
        se[:, None, :],
        sp[:, None, :],
        loading[:, None] * states.masks,
        patterns.verdict,
        size=size,
    )  # (B, S, 2, P)
    total, _ = states_log_likelihood(log_state, states.log_prior, patterns.label, count, pi)
    return total


def _log_posterior(
    theta: NDArray[np.float64],
    patterns: PanelPatterns,
    priors: PanelPriors,
    *,
    dependent: bool,
    random_gold: bool,
    size: int,
    weight: float = 1.0,
    independence: float = 0.0,
    spike: str = "class",
    pairs: NDArray[np.int64] | None = None,
) -> NDArray[np.float64]:
    """Log posterior in logit coordinates (logit pi, Se, Sp, loading or pair shares); batch first.

    ``weight`` scales the unlabelled items' likelihood (1 is the posterior); ``independence``
    is the spike of the loadings' prior (:func:`bayesjudge.models.panel.panel_model`);
    ``pairs`` the pairs of the pair form (then the last coordinates are its shares, logit).
    """
    n_judges = patterns.n_judges
    t = np.atleast_2d(theta)
    batch = t.shape[0]

    def logs(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return log_expit(x), log_expit(-x)

    log_pi, log1m_pi = logs(t[:, 0])
    log_se, log1m_se = logs(t[:, 1 : 1 + n_judges])
    log_sp, log1m_sp = logs(t[:, 1 + n_judges : 1 + 2 * n_judges])
    # priors, with the log Jacobian of each logit (log x + log(1 - x))
    out = _beta(priors.pi, log_pi, log1m_pi) + log_pi + log1m_pi
    out = out + (_beta(priors.se, log_se, log1m_se) + log_se + log1m_se).sum(axis=1)
    out = out + (_beta(priors.sp, log_sp, log1m_sp) + log_sp + log1m_sp).sum(axis=1)
    if dependent:
        shares = t[:, 1 + 2 * n_judges :].reshape(batch, 2, n_judges)
        log_share, log1m_share = logs(shares)
        out = out + (_beta(priors.loading, log_share, log1m_share) + log_share + log1m_share).sum(
            axis=(1, 2)
        )
        loading = LOADING_MAX * expit(shares)
    else:
        loading = np.zeros((batch, 2, n_judges))
    extra: dict[str, Any] = {}
    if pairs is not None:
        shares = t[:, 1 + 2 * n_judges :].reshape(batch, 2, len(pairs))
        log_share, log1m_share = logs(shares)
        out = out + (_beta(priors.loading, log_share, log1m_share) + log_share + log1m_share).sum(
            axis=(1, 2)
        )
        extra = _pair_arguments(np.exp(log_se), np.exp(log_sp), pairs, expit(shares))
    logp = log_pattern_probabilities(
        np.exp(log_se), np.exp(log_sp), loading, patterns.verdict, size=size, **extra
    )  # (batch, 2, P)
    count = np.asarray(
        np.where(patterns.label == UNLABELLED, weight, 1.0) * patterns.count, dtype=float
    )
    if dependent and independence > 0.0:
        out = out + _spike_total(
            np.exp(log_se),
            np.exp(log_sp),
            loading,
            logp,
            patterns,
            count,
            expit(t[:, 0]),
            independence=independence,
            spike=spike,
            size=size,
        )
    else:
        mixed = np.logaddexp(log_pi[:, None] + logp[:, 1], log1m_pi[:, None] + logp[:, 0])
        per = np.where(patterns.label == 1, logp[:, 1], logp[:, 0])
        per = np.where(patterns.label == UNLABELLED, mixed, per)
        out = out + per @ count
    if random_gold:
        n0, n1 = patterns.n_labelled
        out = out + n1 * log_pi + n0 * log1m_pi
    return np.asarray(out, dtype=float)


def _gold_rates(patterns: PanelPatterns) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each judge's Se and Sp on its answered gold items (Jeffreys posterior means)."""
    count = patterns.count.astype(float)
    rates = []
    for label, passed in ((1, 1), (0, 0)):
        rows = patterns.label == label
        answered = (patterns.verdict[rows] >= 0) * count[rows, None]
        hits = (patterns.verdict[rows] == passed) * count[rows, None]
        rates.append((hits.sum(axis=0) + 0.5) / (answered.sum(axis=0) + 1.0))
    return rates[0], rates[1]


def _starting_pi(
    patterns: PanelPatterns, se: NDArray[np.float64], sp: NDArray[np.float64]
) -> float:
    """Median of the judges' clipped Rogan-Gladen estimates on the unlabelled items."""
    rows = patterns.label == UNLABELLED
    count = patterns.count[rows].astype(float)
    answered = ((patterns.verdict[rows] >= 0) * count[:, None]).sum(axis=0)
    passed = ((patterns.verdict[rows] == 1) * count[:, None]).sum(axis=0)
    rate = passed / np.maximum(answered, 1.0)
    j = se + sp - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        estimates = (rate + sp - 1.0) / j
    good = np.isfinite(estimates) & (j > 0.05)
    value = float(np.median(estimates[good])) if good.any() else 0.5
    return float(np.clip(value, 0.05, 0.95))


def _mirror(
    pi: float, se: NDArray[np.float64], sp: NDArray[np.float64], loading: NDArray[np.float64]
) -> tuple[float, NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    return 1.0 - pi, 1.0 - sp, 1.0 - se, loading[::-1].copy()


def _mode_in_half(
    pi: float,
    se: NDArray[np.float64],
    sp: NDArray[np.float64],
    loading: NDArray[np.float64],
    patterns: PanelPatterns,
    *,
    priors: PanelPriors,
    dependence: Literal["random_effect", "none"],
    calibration: Literal["by_class", "random"],
    size: int,
    independence: float = 0.0,
    spike: str = "class",
    pairs: NDArray[np.int64] | None = None,
    pair_share: NDArray[np.float64] | None = None,
) -> tuple[
    float,
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    dict[str, NDArray[np.float64]],
    NDArray[np.float64] | None,
]:
    """Find the model's mode when the unrestricted optimum given lies in the excluded half.

    The mirror image of that optimum is the model's mode only when nothing breaks the mirror
    symmetry. Gold labels break it: the mirror image then contradicts them, and the model's mode
    lies at the edge of its half (mean accuracy coordinate near 0), next to the optimum. Both are
    improved by L-BFGS-B on the model's own log density (:func:`sampling_log_density`), in its
    coordinates, where the edge is out of reach; the better one is returned, as (pi, Se, Sp,
    loadings, the coordinates of :func:`sampling_coordinates`, the pair shares or None).
    """
    dependent = dependence == "random_effect"
    n_judges = patterns.n_judges
    n_pairs = 0 if pairs is None else len(pairs)
    order = sampling_order(n_judges, dependent=dependent, n_pairs=n_pairs)

    def flat(values: dict[str, NDArray[np.float64]]) -> NDArray[np.float64]:
        return np.concatenate([np.ravel(values[name]) for name, _ in order])

    m_pi, m_se, m_sp, m_loading = _mirror(pi, se, sp, loading)
    mirrored = sampling_coordinates(
        m_pi,
        m_se,
        m_sp,
        m_loading if dependent else None,
        None if pair_share is None else pair_share[::-1],
    )
    rate, accuracy = _rate_and_accuracy(pi, se, sp)
    edge = {  # the same point with every accuracy coordinate shifted just into the half
        "pi_logodds__": np.asarray(logit(pi)),
        "judged_rate_interval__": logit(rate),
        "accuracy_mean_log__": np.asarray(np.log(_EDGE)),
    }
    if n_judges > 1:
        edge["accuracy_offset_zerosum__"] = zero_sum_coordinates(accuracy - accuracy.mean())
    if dependent:
        edge["loading_share_logodds__"] = logit(loading / LOADING_MAX)
    if pair_share is not None:
        edge["pair_share_logodds__"] = logit(pair_share)

    def density(u: NDArray[np.float64]) -> NDArray[np.float64]:
        with np.errstate(all="ignore"):  # -inf or nan where a step leaves the support
            values = sampling_log_density(
                u,
                patterns,
                priors=priors,
                dependence=dependence,
                calibration=calibration,
                size=size,
                independence=independence,
                spike=spike,
                pairs=pairs,
            )
        return np.where(np.isfinite(values), values, -np.inf)

    def negative(u: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        values = density(_stepped(u))
        if not np.all(np.isfinite(values)):  # a far value sends the line search back
            return _FAR, np.zeros(u.size)
        return -float(values[0]), -(values[1:] - values[0]) / _STEP

    bounds = [(-12.0, 12.0)] * sum(length for _, length in order)
    points = []
    for start in (mirrored, edge):
        fit = optimize.minimize(
            negative,
            flat(start),
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": 1000},
        )
        points += [flat(start), fit.x]  # an optimiser that stalls keeps its start
    best = points[int(np.argmax(density(np.array(points))))]
    parts = _split(best[None], n_judges, dependent=dependent, n_pairs=n_pairs)
    pi_out = float(expit(parts["pi_logodds__"][0, 0]))
    se_out, sp_out = judge_accuracy(
        pi_out, expit(parts["judged_rate_interval__"][0]), _accuracy(parts, n_judges)[0]
    )
    loading_out = (
        LOADING_MAX * expit(parts["loading_share_logodds__"][0]).reshape(2, n_judges)
        if dependent
        else np.zeros((2, n_judges))
    )
    share_out = (
        None if pairs is None else expit(parts["pair_share_logodds__"][0]).reshape(2, n_pairs)
    )
    values = sampling_coordinates(
        pi_out, se_out, sp_out, loading_out if dependent else None, share_out
    )
    return pi_out, se_out, sp_out, loading_out, values, share_out


def posterior_mode(
    patterns: PanelPatterns,
    *,
    priors: PanelPriors | None = None,
    dependence: Literal["random_effect", "none"] = "random_effect",
    calibration: Literal["by_class", "random"] = "by_class",
    size: int = SEARCH_QUADRATURE_SIZE,
    independence: float = 0.0,
    spike: str = "class",
    pairs: ArrayLike | None = None,
) -> PanelStart:
    r"""Maximise the panel's log posterior from several starting points; return the best.

    Starting points: every judge's Se and Sp from its gold items (Jeffreys means, 0.75 where a
    class has no gold item), pi the median of the judges' Rogan-Gladen estimates, and loadings
    at each share of :data:`START_LOADINGS` of their largest value (one start without loadings
    for ``dependence="none"``). Each start is improved by L-BFGS-B in logit coordinates. When the
    best optimum lies in the half the model excludes (the judges' mean accuracy coordinate
    negative), the mode of the model's half is searched for from that optimum's mirror image
    and from the optimum moved just inside the half's edge, and the better is returned: with
    gold labels the mirror image contradicts them and the mode lies at the edge.

    Parameters
    ----------
    patterns : PanelPatterns
    priors : PanelPriors, optional
    dependence : {"random_effect", "none"}
    calibration : {"by_class", "random"}
        As in :func:`bayesjudge.models.panel.panel_model`.
    size : int
        Quadrature points.
    independence : float
        The spike of the loadings' prior, as in :func:`bayesjudge.models.panel.panel_model`.
    spike : {"class", "judge"}
        What one indicator of the spike switches, as there.
    pairs : array_like of int, shape (K, 2), optional
        With ``dependence="none"``: the pairs of the pair form (their covariance shares start
        at each of :data:`START_LOADINGS`).

    Returns
    -------
    PanelStart

    Examples
    --------
    >>> from bayesjudge.panels.simulate import simulate_panel
    >>> sim = simulate_panel(pi=0.7, se=[0.9, 0.8, 0.85], sp=[0.8, 0.9, 0.75],
    ...                      n_unlabelled=2000, n_gold=200, random_seed=1)
    >>> start = posterior_mode(sim.data.patterns(), dependence="none")
    >>> round(start.pi, 2), start.se.round(2).tolist()
    (0.7, [0.89, 0.81, 0.85])
    """
    priors = PanelPriors() if priors is None else priors
    dependent = dependence == "random_effect"
    n_judges = patterns.n_judges
    index = _pairs_of(dependence, pairs, n_judges)
    gold_se, gold_sp = _gold_rates(patterns)
    n_fail, n_pass = patterns.n_labelled
    se0 = gold_se if n_pass else np.full(n_judges, 0.75)
    sp0 = gold_sp if n_fail else np.full(n_judges, 0.75)
    pi0 = _starting_pi(patterns, se0, sp0)
    base = np.concatenate([[logit(pi0)], logit(se0), logit(sp0)])
    extra = 2 * n_judges if dependent else 0 if index is None else 2 * len(index)
    starts = (
        [np.concatenate([base, np.full(extra, logit(s))]) for s in START_LOADINGS]
        if extra
        else [base]
    )

    n_gold = n_fail + n_pass
    ladder = [1.0]
    while n_gold and ladder[0] * patterns.n_unlabelled > 3.0 * n_gold:
        ladder.insert(0, ladder[0] / 30.0)

    def negative(theta: NDArray[np.float64], weight: float) -> tuple[float, NDArray[np.float64]]:
        # value and forward-difference gradient in one batched evaluation
        values = _log_posterior(
            _stepped(theta),
            patterns,
            priors,
            dependent=dependent,
            random_gold=calibration == "random",
            size=size,
            weight=weight,
            independence=independence,
            spike=spike,
            pairs=index,
        )
        gradient = (values[1:] - values[0]) / _STEP
        return -float(values[0]), -gradient

    bounds = [(-12.0, 12.0)] * starts[0].size
    results = []
    for start in starts:
        theta = start
        for weight in ladder:
            # the rungs below 1 only need to lead into the right basin
            fit = optimize.minimize(
                negative,
                theta,
                args=(weight,),
                jac=True,
                method="L-BFGS-B",
                bounds=bounds,
                options={"maxiter": 1000 if weight == 1.0 else 60},
            )
            theta = fit.x
        results.append((-float(fit.fun), theta))
    results.sort(key=lambda r: -r[0])
    best, theta = results[0]
    pi = float(expit(theta[0]))
    se = expit(theta[1 : 1 + n_judges])
    sp = expit(theta[1 + n_judges : 1 + 2 * n_judges])
    loading = (
        LOADING_MAX * expit(theta[1 + 2 * n_judges :].reshape(2, n_judges))
        if dependent
        else np.zeros((2, n_judges))
    )
    share = None if index is None else expit(theta[1 + 2 * n_judges :]).reshape(2, len(index))
    try:
        values = sampling_coordinates(pi, se, sp, loading if dependent else None, share)
    except ValueError:  # the best optimum lies in the half the model excludes
        pi, se, sp, loading, values, share = _mode_in_half(
            pi,
            se,
            sp,
            loading,
            patterns,
            priors=priors,
            dependence=dependence,
            calibration=calibration,
            size=size,
            independence=independence,
            spike=spike,
            pairs=index,
            pair_share=share,
        )
        blocks: list[Any] = [[logit(pi)], logit(se), logit(sp)]
        if dependent:
            blocks.append(logit(loading.ravel() / LOADING_MAX))
        if share is not None:
            blocks.append(logit(share.ravel()))
        theta = np.concatenate(blocks)
        best = float(
            _log_posterior(
                theta,
                patterns,
                priors,
                dependent=dependent,
                random_gold=calibration == "random",
                size=size,
                independence=independence,
                spike=spike,
                pairs=index,
            )[0]
        )
    return PanelStart(
        pi=pi,
        se=np.asarray(se, dtype=float),
        sp=np.asarray(sp, dtype=float),
        loading=np.asarray(loading, dtype=float),
        log_density=best,
        optima=tuple(r[0] for r in results),
        values=values,
        pair_share=share,
    )


def sampling_order(n_judges: int, *, dependent: bool, n_pairs: int = 0) -> list[tuple[str, int]]:
    """Value variables of the panel model with their sizes, in the model's order.

    ``n_pairs`` is the number of pairs of the pair form (``pairs``; 0 without).

    Examples
    --------
    >>> sampling_order(2, dependent=False)  # doctest: +NORMALIZE_WHITESPACE
    [('pi_logodds__', 1), ('judged_rate_interval__', 2), ('accuracy_mean_log__', 1),
     ('accuracy_offset_zerosum__', 1)]
    """
    order = [("pi_logodds__", 1), ("judged_rate_interval__", n_judges), ("accuracy_mean_log__", 1)]
    if n_judges > 1:
        order.append(("accuracy_offset_zerosum__", n_judges - 1))
    if dependent:
        order.append(("loading_share_logodds__", 2 * n_judges))
    if n_pairs:
        order.append(("pair_share_logodds__", 2 * n_pairs))
    return order


def _zero_sum_values(free: NDArray[np.float64]) -> NDArray[np.float64]:
    """Map free coordinates to a zero-sum vector (the inverse of :func:`zero_sum_coordinates`).

    PyMC's ``ZeroSumTransform`` backward map on the last axis.
    """
    n = free.shape[-1] + 1
    total = free.sum(axis=-1, keepdims=True)
    norm = total / (np.sqrt(n) + n)
    fill = norm - total / np.sqrt(n)
    return np.concatenate([free, fill], axis=-1) - norm


def _split(
    u: NDArray[np.float64], n_judges: int, *, dependent: bool, n_pairs: int = 0
) -> dict[str, NDArray[np.float64]]:
    """Split points (batch, D) laid out as :func:`sampling_order` into its value variables."""
    parts: dict[str, NDArray[np.float64]] = {}
    at = 0
    for name, length in sampling_order(n_judges, dependent=dependent, n_pairs=n_pairs):
        parts[name] = u[:, at : at + length]
        at += length
    if at != u.shape[1]:
        raise ValueError(f"values must hold {at} coordinates per point; got {u.shape[1]}")
    return parts


def _accuracy(parts: dict[str, NDArray[np.float64]], n_judges: int) -> NDArray[np.float64]:
    """Each judge's accuracy coordinate: the panel mean plus the zero-sum deviations."""
    mean = np.exp(parts["accuracy_mean_log__"])
    return mean + (_zero_sum_values(parts["accuracy_offset_zerosum__"]) if n_judges > 1 else 0.0)


def _stepped(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x`` and ``x`` moved by :data:`_STEP` along each axis: a forward-difference gradient."""
    return x + np.vstack([np.zeros(x.size), np.eye(x.size) * _STEP])


def sampling_log_density(
    values: ArrayLike,
    patterns: PanelPatterns,
    *,
    priors: PanelPriors | None = None,
    dependence: Literal["random_effect", "none"] = "random_effect",
    calibration: Literal["by_class", "random"] = "by_class",
    size: int = QUADRATURE_SIZE,
    independence: float = 0.0,
    spike: str = "class",
    pairs: ArrayLike | None = None,
) -> NDArray[np.float64]:
    r"""Log density of the panel model in its own unconstrained coordinates, batch first.

    The numpy twin of :func:`bayesjudge.models.panel.panel_model`'s log density (the same
    priors, Jacobians, potentials and quadrature), for flat points laid out as
    :func:`sampling_order`; it equals the compiled model's log density (tested), so its
    Hessian is the model's.

    Parameters
    ----------
    values : array_like, shape (B, D) or (D,)
    patterns : PanelPatterns
    priors, dependence, calibration, independence, pairs, spike
        As in :func:`bayesjudge.models.panel.panel_model`.
    size : int
        Quadrature points (the model's by default).

    Returns
    -------
    ndarray, shape (B,)

    Examples
    --------
    >>> from bayesjudge.panels.simulate import simulate_panel
    >>> sim = simulate_panel(pi=0.7, se=[0.9, 0.8, 0.85], sp=[0.8, 0.9, 0.75],
    ...                      n_unlabelled=500, n_gold=100, random_seed=1)
    >>> start = posterior_mode(sim.data.patterns(), dependence="none")
    >>> flat = np.concatenate([np.ravel(start.values[name])
    ...                        for name, _ in sampling_order(3, dependent=False)])
    >>> sampling_log_density(flat, sim.data.patterns(), dependence="none").shape
    (1,)
    """
    priors = PanelPriors() if priors is None else priors
    n_judges = patterns.n_judges
    dependent = dependence == "random_effect"
    index = _pairs_of(dependence, pairs, n_judges)
    n_pairs = 0 if index is None else len(index)
    u = np.atleast_2d(np.asarray(values, dtype=float))
    parts = _split(u, n_judges, dependent=dependent, n_pairs=n_pairs)
    x = parts["pi_logodds__"][:, 0]
    pi, log_pi, log1m_pi = expit(x), log_expit(x), log_expit(-x)
    r = parts["judged_rate_interval__"]
    rate = expit(r)
    accuracy = _accuracy(parts, n_judges)
    low, high = accuracy_bounds(pi[:, None], rate)
    shifted = accuracy + np.log(-low) - np.log(high)
    width = high - low
    j = low + width * expit(shifted)
    se = rate + (1.0 - pi[:, None]) * j
    fpr = rate - pi[:, None] * j
    # each free variable's prior and the log Jacobian of its transform, then the potentials
    out = _beta(priors.pi, log_pi, log1m_pi) + log_pi + log1m_pi
    out = out + (log_expit(r) + log_expit(-r)).sum(axis=1) + parts["accuracy_mean_log__"][:, 0]
    out = out + (
        _beta(priors.se, np.log(se), np.log1p(-se))
        + _beta(priors.sp, np.log1p(-fpr), np.log(fpr))
        + np.log(width)
        + log_expit(shifted)
        + log_expit(-shifted)
    ).sum(axis=1)
    if dependent:
        shares = parts["loading_share_logodds__"]
        log_s, log1m_s = log_expit(shares), log_expit(-shares)
        out = out + (_beta(priors.loading, log_s, log1m_s) + log_s + log1m_s).sum(axis=1)
        loading = LOADING_MAX * expit(shares).reshape(-1, 2, n_judges)
    else:
        loading = np.zeros((u.shape[0], 2, n_judges))
    extra: dict[str, Any] = {}
    if index is not None:
        shares = parts["pair_share_logodds__"]
        log_s, log1m_s = log_expit(shares), log_expit(-shares)
        out = out + (_beta(priors.loading, log_s, log1m_s) + log_s + log1m_s).sum(axis=1)
        share = expit(shares).reshape(-1, 2, n_pairs)
        extra = _pair_arguments(se, 1.0 - fpr, index, share)
    logp = log_pattern_probabilities(se, 1.0 - fpr, loading, patterns.verdict, size=size, **extra)
    if dependent and independence > 0.0:
        out = out + _spike_total(
            se,
            1.0 - fpr,
            loading,
            logp,
            patterns,
            patterns.count.astype(float),
            pi,
            independence=independence,
            spike=spike,
            size=size,
        )
    else:
        mixed = np.logaddexp(log_pi[:, None] + logp[:, 1], log1m_pi[:, None] + logp[:, 0])
        per = np.where(patterns.label == 1, logp[:, 1], logp[:, 0])
        per = np.where(patterns.label == UNLABELLED, mixed, per)
        out = out + per @ patterns.count.astype(float)
    if calibration == "random":
        n0, n1 = patterns.n_labelled
        out = out + n1 * log_pi + n0 * log1m_pi
    return np.asarray(out, dtype=float)


def mode_precision(
    values: ArrayLike,
    patterns: PanelPatterns,
    *,
    priors: PanelPriors | None = None,
    dependence: Literal["random_effect", "none"] = "random_effect",
    calibration: Literal["by_class", "random"] = "by_class",
    batch: int = 32,
    independence: float = 0.0,
    spike: str = "class",
    pairs: ArrayLike | None = None,
) -> NDArray[np.float64]:
    r"""Hessian of the negative log density at ``values`` (the mode), by central differences.

    Second differences of :func:`sampling_log_density`: first along each axis with a small step,
    which gives each coordinate's curvature :math:`c_i`; then the full matrix with steps
    :math:`h_i = 0.3 / \sqrt{c_i}` (a third of a posterior standard deviation), the diagonal
    from three points and each off-diagonal entry from four. The steps scale with the posterior,
    so the differences stay far above rounding at any number of items.

    Parameters
    ----------
    values : array_like, shape (D,)
        A point in the model's coordinates (:func:`sampling_order`).
    patterns, priors, dependence, calibration, independence, pairs, spike
        As in :func:`sampling_log_density`.
    batch : int
        Points evaluated per call.

    Returns
    -------
    ndarray, shape (D, D)

    Examples
    --------
    >>> from bayesjudge.panels.simulate import simulate_panel
    >>> sim = simulate_panel(pi=0.7, se=[0.9, 0.8, 0.85], sp=[0.8, 0.9, 0.75],
    ...                      n_unlabelled=500, n_gold=100, random_seed=1)
    >>> patterns = sim.data.patterns()
    >>> start = posterior_mode(patterns, dependence="none")
    >>> flat = np.concatenate([np.ravel(start.values[name])
    ...                        for name, _ in sampling_order(3, dependent=False)])
    >>> h = mode_precision(flat, patterns, dependence="none")
    >>> h.shape, bool(np.all(np.linalg.eigvalsh(h) > 0))
    ((7, 7), True)
    """
    x = np.asarray(values, dtype=float)
    d = x.size
    eye = np.eye(d)

    def density(points: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.concatenate(
            [
                sampling_log_density(
                    points[i : i + batch],
                    patterns,
                    priors=priors,
                    dependence=dependence,
                    calibration=calibration,
                    independence=independence,
                    spike=spike,
                    pairs=pairs,
                )
                for i in range(0, len(points), batch)
            ]
        )

    probe = 1e-4
    centre = density(x[None])[0]
    sides = density(np.vstack([x + probe * eye, x - probe * eye]))
    curvature = -(sides[:d] + sides[d:] - 2.0 * centre) / probe**2
    step = np.minimum(0.3 / np.sqrt(np.maximum(curvature, 1e-6)), 0.5)
    diagonal = density(np.vstack([x + step * eye, x - step * eye]))
    hessian = np.diag((diagonal[:d] + diagonal[d:] - 2.0 * centre) / step**2)
    cross = [(a, b) for a in range(d) for b in range(a + 1, d)]
    if cross:
        signs = ((1, 1), (1, -1), (-1, 1), (-1, -1))
        points = np.array(
            [
                x + sa * step[a] * eye[a] + sb * step[b] * eye[b]
                for a, b in cross
                for sa, sb in signs
            ]
        )
        corner = density(points).reshape(len(cross), 4)
        for (a, b), (pp, pm_, mp, mm) in zip(cross, corner, strict=True):
            hessian[a, b] = hessian[b, a] = (pp - pm_ - mp + mm) / (4.0 * step[a] * step[b])
    return np.asarray(-hessian, dtype=float)


def _pairs_of(dependence: str, pairs: ArrayLike | None, n_judges: int) -> NDArray[np.int64] | None:
    """Return the pairs of the pair form as a (K, 2) array; None without pairs."""
    if pairs is None:
        return None
    if dependence != "none":
        raise ValueError(f"pairs go with dependence='none'; got dependence={dependence!r}")
    return check_pairs(pairs, n_judges)
