r"""Exact references for the paired two-system model.

References against which the MCMC posteriors of
:func:`bayesjudge.models.systems.two_system_model` are checked: two free of Monte Carlo error,
and an importance sampler for the unpooled judge.

**Perfect judge** (:func:`dirichlet_difference`). With Se = Sp = 1 the verdicts are the true
outcomes, and the model is the conjugate Dirichlet-multinomial on the four joint outcomes: the
posterior is :math:`\theta \mid n \sim \mathrm{Dirichlet}(c + n_{00}, c + n_{01}, c + n_{10},
c + n_{11})`, the ordinary paired-binomial posterior. Its difference
:math:`\Delta = \pi_B - \pi_A = \theta_{01} - \theta_{10}` has

.. math::

    E\Delta = \frac{\alpha_{01} - \alpha_{10}}{\alpha_0}, \quad
    \operatorname{Var}\Delta = \frac{\alpha_{01}(\alpha_0 - \alpha_{01})
        + \alpha_{10}(\alpha_0 - \alpha_{10}) + 2\alpha_{01}\alpha_{10}}
        {\alpha_0^2(\alpha_0 + 1)}, \quad
    P(\Delta > 0) = I_{1/2}(\alpha_{10}, \alpha_{01}),

(:math:`\alpha_0 = \sum \alpha`; the last because :math:`U = \theta_{01}/(\theta_{01} +
\theta_{10}) \sim \mathrm{Beta}(\alpha_{01}, \alpha_{10})` and :math:`\Delta > 0 \iff U > 1/2`).
With :math:`S = \theta_{01} + \theta_{10} \sim \mathrm{Beta}(\alpha_{01} + \alpha_{10},
\alpha_{00} + \alpha_{11})` independent of :math:`U` and :math:`\Delta = S(2U - 1)`, the CDF is
the one-dimensional integral
:math:`P(\Delta \le d) = \int_0^1 f_S(s)\, I_{(1 + d/s)/2}(\alpha_{01}, \alpha_{10})\, ds`
(clipped to [0, 1]), done by adaptive quadrature; quantiles invert it by Brent's method.

**Imperfect judge, small data** (:func:`exact_two_system`). Under ``calibration="by_class"``
with a shared judge, an item labelled for both systems contributes only
:math:`P(v \mid y)` factors, so the gold labels give conjugate Beta posteriors
:math:`f_e, f_p` for Se and Sp. Each unlabelled item contributes a factor linear in
:math:`\theta`, :math:`\sum_c \kappa_c(\mathrm{Se}, \mathrm{Sp})\,\theta_c`, so for fixed
(Se, Sp) the product over the :math:`n` unlabelled items is a polynomial
:math:`\sum_t a_t\, \theta^t` over the compositions :math:`t` of :math:`n` into four cells
(computed by multiplying in one item at a time), and

.. math::

    p(\theta, \mathrm{Se}, \mathrm{Sp} \mid \text{data}) \propto f_e\, f_p
        \sum_t a_t(\mathrm{Se}, \mathrm{Sp})\, \frac{B(c + t)}{B(c)}\,
        \mathrm{Dirichlet}(\theta;\, c + t):

a mixture of Dirichlets, whose moments and :math:`P(\Delta > 0)` are the closed forms above.
The remaining integral over (Se, Sp) is a tensor Gauss-Legendre rule on the normal scores of
:math:`f_e` and :math:`f_p` (:math:`|z| \le 8`), so the calibration posteriors are absorbed into
the weights and the integrand left is smooth. The J > 0 restriction is applied node by node;
the result reports the calibration mass on :math:`J \le 0`, and is an exact reference only when
that mass is negligible. Cost grows as :math:`n^3` per node, so this is for small cases
(:math:`n \le 24` unlabelled items).

**A judge per system without pooling, any size** (:func:`unpooled_two_system`). When every
item is either unlabelled for both systems or gold-labelled for both, the posterior of the
unpooled model (each system's Se and Sp with Beta priors restricted to :math:`J_s > 0`) is
computed by importance sampling. Write :math:`E_s` for system :math:`s`'s 2 x 2 matrix of
:math:`P(v \mid y)` and :math:`Q = E_A \theta E_B^\top` for the joint verdict probabilities of
an unlabelled item. The proposal draws each (Se, Sp) from its gold labels alone and :math:`Q`
from :math:`\mathrm{Dirichlet}(1/2 + n_v)` (:math:`n_v` the unlabelled joint verdict counts),
and maps :math:`\theta = E_A^{-1} Q E_B^{-\top}`. The map is linear on the simplex with
Jacobian :math:`(J_A J_B)^{-2}`, so a draw with :math:`\theta` inside the simplex has weight

.. math::

    \log w = \sum (c - 1)\log\theta + \tfrac12 \sum \log Q - 2 \log(J_A J_B),

and others weight 0. With ``calibration="random"`` the gold items' joint labels :math:`g` add
:math:`\sum g \log\theta`; their joint verdicts :math:`v_g` are then a sample of :math:`Q` as
well, so the proposal is :math:`\mathrm{Dirichlet}(1/2 + n_v + v_g)` and the weight has
:math:`(1/2 - v_g)\log Q` in place of :math:`\tfrac12 \log Q`. This is a Monte Carlo
reference with a known effective sample size, not an exact one, but it has no sampler to go
wrong and costs a fraction of a second.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import integrate, optimize, special, stats

from bayesjudge.priors import JEFFREYS, Beta
from bayesjudge.systems.data import (
    GOLD_FAIL_JUDGED_FAIL,
    MISSING,
    UNLABELLED_FAIL,
    UNLABELLED_PASS,
    Patterns,
)
from bayesjudge.validation import check_choice, rng_from

__all__ = [
    "DirichletDifference",
    "ExactTwoSystem",
    "UnpooledTwoSystem",
    "dirichlet_difference",
    "exact_two_system",
    "unpooled_two_system",
]

_MAX_UNLABELLED = 24


@dataclass(frozen=True, slots=True)
class DirichletDifference:
    r"""Closed-form posterior of :math:`\pi_B - \pi_A` under a Dirichlet on the four outcomes.

    Attributes
    ----------
    alpha : ndarray, shape (..., 4)
        Dirichlet parameters in the order ``fail_fail, fail_pass, pass_fail, pass_pass``.
    mean, sd, prob_positive : ndarray, shape (...)
        :math:`E\Delta`, :math:`\mathrm{sd}\,\Delta` and :math:`P(\Delta > 0)`.
    """

    alpha: NDArray[np.float64]
    mean: NDArray[np.float64]
    sd: NDArray[np.float64]
    prob_positive: NDArray[np.float64]

    def cdf(self, d: float) -> float:
        r"""Return :math:`P(\Delta \le d)` (one Dirichlet only)."""
        if self.alpha.ndim != 1:
            raise ValueError("cdf needs a single Dirichlet (alpha of shape (4,))")
        a00, a01, a10, a11 = (float(v) for v in self.alpha)
        if d <= -1.0:
            return 0.0
        if d >= 1.0:
            return 1.0
        s_dist = stats.beta(a01 + a10, a00 + a11)

        def integrand(s: float) -> float:
            x = min(max(0.5 * (1.0 + d / s), 0.0), 1.0) if s > 0 else (1.0 if d >= 0 else 0.0)
            return float(s_dist.pdf(s) * special.betainc(a01, a10, x))

        # the integrand has a kink where |d| = s
        points = [abs(d)] if 0.0 < abs(d) < 1.0 else None
        value, _ = integrate.quad(integrand, 0.0, 1.0, points=points, epsabs=1e-13, limit=200)
        return min(max(value, 0.0), 1.0)

    def quantile(self, q: float) -> float:
        r"""Return the ``q`` quantile of :math:`\Delta` (one Dirichlet only)."""
        if not 0.0 < q < 1.0:
            raise ValueError(f"q must lie in (0, 1); got {q!r}")
        return float(optimize.brentq(lambda d: self.cdf(d) - q, -1.0, 1.0, xtol=1e-12))


def dirichlet_difference(alpha: ArrayLike) -> DirichletDifference:
    r"""Return the exact posterior summary of :math:`\Delta = \theta_{01} - \theta_{10}`.

    Parameters
    ----------
    alpha : array_like, shape (..., 4)
        Dirichlet parameters (prior concentration plus the four joint-outcome counts), ordered
        ``fail_fail, fail_pass, pass_fail, pass_pass`` (system A first); vectorised over
        leading axes.

    Examples
    --------
    >>> post = dirichlet_difference([30.5, 12.5, 4.5, 55.5])
    >>> print(f"{post.mean:.4f} {post.sd:.4f} {post.prob_positive:.4f}")
    0.0777 0.0391 0.9790
    """
    a = np.asarray(alpha, dtype=float)
    if a.shape[-1:] != (4,) or np.any(a <= 0):
        raise ValueError(f"alpha must be positive with a last axis of length 4; got {a.tolist()}")
    total = a.sum(axis=-1)
    a01, a10 = a[..., 1], a[..., 2]
    mean = (a01 - a10) / total
    var = (a01 * (total - a01) + a10 * (total - a10) + 2.0 * a01 * a10) / (total**2 * (total + 1))
    prob = special.betainc(a10, a01, 0.5)
    return DirichletDifference(a, np.asarray(mean), np.sqrt(var), np.asarray(prob))


@dataclass(frozen=True, slots=True)
class ExactTwoSystem:
    r"""Exact posterior summaries of the paired two-system model on a small data set.

    Attributes
    ----------
    pi_mean, pi_sd : ndarray, shape (2,)
        Posterior mean and sd of each system's success rate.
    diff_mean, diff_sd : float
        Posterior mean and sd of :math:`\pi_B - \pi_A`.
    prob_b_better : float
        :math:`P(\pi_B > \pi_A \mid \text{data})`.
    joint_mean : ndarray, shape (4,)
        Posterior mean of the joint outcome probabilities.
    se_mean, sp_mean : float
        Posterior means of the judge's sensitivity and specificity.
    mass_j_nonpositive : float
        Mass of the calibration posteriors of Se and Sp on :math:`J \le 0`; the reference is
        exact for the J > 0 restricted model only when this is negligible.
    """

    pi_mean: NDArray[np.float64]
    pi_sd: NDArray[np.float64]
    diff_mean: float
    diff_sd: float
    prob_b_better: float
    joint_mean: NDArray[np.float64]
    se_mean: float
    sp_mean: float
    mass_j_nonpositive: float


def _pit_rule(a: float, b: float, nodes: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Nodes x and weights of a Beta(a, b) expectation: Gauss-Legendre on normal scores."""
    u, w = np.polynomial.legendre.leggauss(nodes)
    z = 8.0 * u
    weight = 8.0 * w * stats.norm.pdf(z)
    x = special.betaincinv(a, b, special.ndtr(z))
    return x, weight / weight.sum()


def exact_two_system(
    patterns: Patterns,
    *,
    joint: float = 0.5,
    se: Beta = JEFFREYS,
    sp: Beta = JEFFREYS,
    nodes: int = 32,
) -> ExactTwoSystem:
    r"""Exact posterior of the shared-judge, by-class paired two-system model on small data.

    The model is :func:`bayesjudge.models.systems.two_system_model` with ``judge="shared"``,
    ``calibration="by_class"`` and ``restrict_j=True``; see the module docstring for the
    method.

    Parameters
    ----------
    patterns : Patterns
        Cells of two systems. Every labelled item must be labelled for each system that
        answered it; at most 24 items may be unlabelled.
    joint : float
        Dirichlet concentration of each joint outcome.
    se, sp : Beta
        Priors of the judge.
    nodes : int
        Gauss-Legendre nodes per judge parameter (on a case with 23 unlabelled and 80 labelled
        items, 32, 48, 64 and 96 nodes agree to 1e-12 in every summary).

    Raises
    ------
    ValueError
        If an item is labelled for one system and not the other, or there are too many
        unlabelled items.

    Examples
    --------
    >>> cells = Patterns(("a", "b"), np.array([[6, 6], [3, 3], [6, 3], [1, 2], [2, 2]], np.int8),
    ...                  np.array([40, 30, 10, 4, 6]))
    >>> ref = exact_two_system(cells)
    >>> print(f"{ref.diff_mean:.4f} {ref.prob_b_better:.4f}")
    0.3325 0.9842
    """
    if len(patterns.systems) != 2:
        raise ValueError(f"the exact reference needs exactly two systems; got {patterns.systems}")
    state = patterns.state.astype(np.int64)
    count = patterns.count.astype(np.int64)
    labelled = state >= GOLD_FAIL_JUDGED_FAIL
    answered = state != MISSING
    full = labelled.any(axis=1)
    if np.any(full & (labelled != answered).any(axis=1)):
        raise ValueError(
            "the exact reference needs every labelled item to be labelled for each system that "
            "answered it"
        )
    code = state[full] - GOLD_FAIL_JUDGED_FAIL  # 2 y + v
    y, v = code // 2, code % 2
    on = answered[full]
    reps = count[full][:, None] * on
    m1 = int(np.sum(reps * (y == 1)))
    x1 = int(np.sum(reps * ((y == 1) & (v == 1))))
    m0 = int(np.sum(reps * (y == 0)))
    x0 = int(np.sum(reps * ((y == 0) & (v == 1))))

    open_cells = ~full & answered.any(axis=1)
    open_state = state[open_cells]
    open_count = count[open_cells]
    n = int(open_count.sum())
    if n > _MAX_UNLABELLED:
        raise ValueError(f"the exact reference handles at most {_MAX_UNLABELLED} unlabelled items")

    se_post = (se.alpha + x1, se.beta + m1 - x1)
    sp_post = (sp.alpha + m0 - x0, sp.beta + x0)
    se_x, se_w = _pit_rule(*se_post, nodes)
    sp_x, sp_w = _pit_rule(*sp_post, nodes)
    se_g = np.repeat(se_x, nodes)
    sp_g = np.tile(sp_x, nodes)
    weight = np.repeat(se_w, nodes) * np.tile(sp_w, nodes) * (se_g + sp_g > 1.0)
    fpr_g = 1.0 - sp_g

    def mass_below(s: float) -> float:
        return float(stats.beta.pdf(s, *se_post) * stats.beta.cdf(1.0 - s, *sp_post))

    mass_j, _ = integrate.quad(mass_below, 0.0, 1.0, epsabs=1e-16, limit=200)

    # P(state | y) per node: rows follow STATES up to the unlabelled ones
    def emission(s: int, y_true: int) -> NDArray[np.float64]:
        if s == MISSING:
            return np.ones_like(se_g)
        pass_prob = se_g if y_true == 1 else fpr_g
        return pass_prob if s == UNLABELLED_PASS else 1.0 - pass_prob

    size = n + 1
    poly = np.zeros((se_g.size, size, size, size))  # [node, t00, t01, t10]; t11 implicit
    poly[:, 0, 0, 0] = 1.0
    for (s_a, s_b), reps_open in zip(open_state, open_count, strict=True):
        assert s_a in (MISSING, UNLABELLED_FAIL, UNLABELLED_PASS)
        kappa = [emission(s_a, a) * emission(s_b, b) for a in (0, 1) for b in (0, 1)]
        for _ in range(int(reps_open)):
            new = poly * kappa[3][:, None, None, None]
            new[:, 1:, :, :] += poly[:, :-1, :, :] * kappa[0][:, None, None, None]
            new[:, :, 1:, :] += poly[:, :, :-1, :] * kappa[1][:, None, None, None]
            new[:, :, :, 1:] += poly[:, :, :, :-1] * kappa[2][:, None, None, None]
            poly = new

    t00, t01, t10 = np.meshgrid(np.arange(size), np.arange(size), np.arange(size), indexing="ij")
    t11 = n - t00 - t01 - t10
    valid = t11 >= 0
    t = np.stack([t00[valid], t01[valid], t10[valid], t11[valid]], axis=-1).astype(float)
    alpha = joint + t  # (T, 4)
    log_beta = special.gammaln(alpha).sum(axis=1) - special.gammaln(alpha.sum(axis=1))
    coef = poly[:, valid]  # (node, T)
    log_w = np.log(np.maximum(coef, 1e-300)) + log_beta[None, :]
    log_w = np.where(coef > 0, log_w, -np.inf) + np.log(np.maximum(weight, 1e-300))[:, None]
    log_w = np.where(weight[:, None] > 0, log_w, -np.inf)
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    w_t = w.sum(axis=0)
    w_node = w.sum(axis=1)

    total = alpha.sum(axis=1)
    diff = dirichlet_difference(alpha)
    diff_mean = float(np.sum(w_t * diff.mean))
    diff_sq = float(np.sum(w_t * (diff.sd**2 + diff.mean**2)))
    a_pass = np.stack([alpha[:, 2] + alpha[:, 3], alpha[:, 1] + alpha[:, 3]], axis=-1)
    pi_m = a_pass / total[:, None]
    pi_sq = a_pass * (a_pass + 1.0) / (total * (total + 1.0))[:, None]
    pi_mean = w_t @ pi_m
    return ExactTwoSystem(
        pi_mean=pi_mean,
        pi_sd=np.sqrt(w_t @ pi_sq - pi_mean**2),
        diff_mean=diff_mean,
        diff_sd=float(np.sqrt(diff_sq - diff_mean**2)),
        prob_b_better=float(np.sum(w_t * diff.prob_positive)),
        joint_mean=w_t @ (alpha / total[:, None]),
        se_mean=float(np.sum(w_node * se_g)),
        sp_mean=float(np.sum(w_node * sp_g)),
        mass_j_nonpositive=float(mass_j),
    )


@dataclass(frozen=True, slots=True)
class UnpooledTwoSystem:
    r"""Weighted draws of :math:`\pi_B - \pi_A` under the unpooled two-system model.

    Attributes
    ----------
    diff : ndarray
        Draws of the difference.
    weight : ndarray
        Their normalised importance weights (0 for draws outside the model's support).
    """

    diff: NDArray[np.float64]
    weight: NDArray[np.float64]

    @property
    def mean(self) -> float:
        """Posterior mean of the difference."""
        return float(np.sum(self.weight * self.diff))

    @property
    def sd(self) -> float:
        """Posterior sd of the difference."""
        return float(np.sqrt(np.sum(self.weight * (self.diff - self.mean) ** 2)))

    @property
    def ess(self) -> float:
        r"""Effective sample size of the weights, :math:`1 / \sum w^2`."""
        return float(1.0 / np.sum(self.weight**2))

    def quantile(self, q: ArrayLike) -> NDArray[np.float64]:
        """Return weighted quantiles of the difference."""
        order = np.argsort(self.diff)
        cdf = np.cumsum(self.weight[order])
        levels = np.asarray(q, dtype=np.float64)
        return np.asarray(np.interp(levels, cdf / cdf[-1], self.diff[order]), dtype=np.float64)


def _fully_split(patterns: Patterns) -> dict[str, NDArray[np.float64]]:
    """Gold counts per system, gold joint labels and unlabelled joint verdicts of two systems."""
    state = np.asarray(patterns.state, dtype=int)
    count = np.asarray(patterns.count, dtype=float)
    unlabelled = np.isin(state, (UNLABELLED_FAIL, UNLABELLED_PASS))
    gold = state >= GOLD_FAIL_JUDGED_FAIL
    both = unlabelled.all(axis=1) | gold.all(axis=1)
    if not both.all() or len(patterns.systems) != 2:
        raise ValueError(
            "unpooled_two_system needs two systems whose every item is unlabelled for both or "
            "gold-labelled for both (no missing answers)"
        )
    verdicts = np.zeros((2, 2))
    labels = np.zeros((2, 2))
    gold_verdicts = np.zeros((2, 2))
    calibration = np.zeros((2, 2, 2))  # [system, label, verdict]
    for row, n in zip(state, count, strict=True):
        if row[0] < GOLD_FAIL_JUDGED_FAIL:
            verdicts[row[0] - UNLABELLED_FAIL, row[1] - UNLABELLED_FAIL] += n
            continue
        y, v = np.divmod(row - GOLD_FAIL_JUDGED_FAIL, 2)
        labels[y[0], y[1]] += n
        gold_verdicts[v[0], v[1]] += n
        for s in range(2):
            calibration[s, y[s], v[s]] += n
    return {
        "verdicts": verdicts,
        "labels": labels,
        "gold_verdicts": gold_verdicts,
        "calibration": calibration,
    }


def unpooled_two_system(
    patterns: Patterns,
    *,
    calibration: str = "by_class",
    joint: float = 0.5,
    se: Beta = JEFFREYS,
    sp: Beta = JEFFREYS,
    draws: int = 200_000,
    random_seed: int | np.random.Generator | None = None,
) -> UnpooledTwoSystem:
    r"""Posterior of :math:`\pi_B - \pi_A`, a judge per system, no pooling (importance sampling).

    The model is :func:`bayesjudge.models.systems.two_system_model` with ``judge="system"``
    and ``pooling="none"`` (the default for two systems): Dirichlet(``joint``) on the four joint
    outcomes, each system's Se and Sp with the Beta priors ``se``, ``sp`` restricted to
    :math:`J_s > 0`. The method is in the module docstring.

    Parameters
    ----------
    patterns : Patterns
        Cells of two systems in which every item is unlabelled for both or gold-labelled for
        both.
    calibration : {"by_class", "random"}
        Whether the gold labels inform the judge only, or the joint outcomes too.
    joint : float
        Dirichlet concentration :math:`c` of each joint outcome.
    se, sp : Beta
        Priors of each system's sensitivity and specificity.
    draws : int
        Proposal draws.
    random_seed : int, Generator or None
        Seed of the proposal; None uses :data:`bayesjudge.validation.DEFAULT_SEED`.

    Returns
    -------
    UnpooledTwoSystem

    Raises
    ------
    ValueError
        For other data, an unknown ``calibration`` or too few draws.

    Examples
    --------
    >>> cells = Patterns(("A", "B"), np.array([[1, 1], [1, 2], [2, 1], [2, 2], [3, 3], [6, 6],
    ...                                        [4, 6], [3, 5]], np.int8),
    ...                  np.array([120, 60, 30, 290, 40, 50, 5, 5]))
    >>> post = unpooled_two_system(cells, random_seed=1)
    >>> round(post.mean, 2), post.quantile([0.025, 0.975]).round(2).tolist()
    (0.12, [0.07, 0.17])
    """
    check_choice(calibration, name="calibration", allowed=("by_class", "random"))
    if isinstance(draws, bool) or not isinstance(draws, int | np.integer) or draws < 1000:
        raise ValueError(f"draws must be a whole number >= 1000; got {draws!r}")
    counts = _fully_split(patterns)
    rng = rng_from(random_seed)
    inverses, youden = [], []
    for s in range(2):
        (fail_fail, fail_pass), (pass_fail, pass_pass) = counts["calibration"][s]
        se_s = rng.beta(se.alpha + pass_pass, se.beta + pass_fail, draws)
        sp_s = rng.beta(sp.alpha + fail_fail, sp.beta + fail_pass, draws)
        j = se_s + sp_s - 1.0
        # E = [[Sp, 1 - Se], [1 - Sp, Se]] (rows verdict, columns outcome); E^-1 = adj(E) / J
        adjugate = np.stack(
            [np.stack([se_s, se_s - 1.0], -1), np.stack([sp_s - 1.0, sp_s], -1)], -2
        )
        inverses.append(adjugate / j[:, None, None])
        youden.append(j)
    # with random calibration the gold items' verdicts are a sample of Q too: the proposal uses
    # them (and the weight divides them out), so the gold labels do not starve it
    proposal = counts["verdicts"] + (counts["gold_verdicts"] if calibration == "random" else 0.0)
    q = rng.dirichlet(0.5 + proposal.ravel(), draws).reshape(draws, 2, 2)
    theta = np.einsum("nav,nvw,nbw->nab", inverses[0], q, inverses[1])
    keep = (youden[0] > 0) & (youden[1] > 0) & np.all(theta > 0, axis=(1, 2))
    safe = np.where(keep[:, None, None], theta, 0.25)
    log_w = (
        (joint - 1.0) * np.log(safe).sum(axis=(1, 2))
        + ((0.5 + counts["verdicts"] - proposal)[None] * np.log(q)).sum(axis=(1, 2))
        - 2.0 * np.log(np.abs(youden[0] * youden[1]))
    )
    if calibration == "random":
        log_w += (counts["labels"][None] * np.log(safe)).sum(axis=(1, 2))
    log_w = np.where(keep, log_w, -np.inf)
    if not np.isfinite(log_w).any():
        raise ValueError("no proposal draw fell inside the model's support; raise draws")
    weight = np.exp(log_w - log_w.max())
    return UnpooledTwoSystem(theta[:, 0, 1] - theta[:, 1, 0], weight / weight.sum())
