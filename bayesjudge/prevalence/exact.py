r"""Exact posterior of the prevalence model by deterministic numerical integration.

The prevalence model (DESIGN.md, family 1; the judgy procedure, the bias-correction article and Lee
et al. (2025)) has three unknowns: the true success rate :math:`\pi`, the judge's sensitivity
:math:`S_e` and specificity :math:`S_p`, with independent Beta priors, and the data enter through
six counts:

.. math::

    x_1 \sim \mathrm{Bin}(m_1, S_e), \quad x_0 \sim \mathrm{Bin}(m_0, 1 - S_p), \quad
    k \sim \mathrm{Bin}(n, R), \quad R = \pi S_e + (1 - \pi)(1 - S_p).

By default the prior is restricted to :math:`J = S_e + S_p - 1 > 0`, which removes the
label-switching mirror mode :math:`(\pi, S_e, S_p) \to (1 - \pi, 1 - S_p, 1 - S_e)` of the test
likelihood. The marginal posterior of :math:`\pi` is a three-dimensional integral; this module
computes it to about eight significant digits in a fraction of a second, so that it can serve
as the reference the MCMC posteriors are checked against.

Method
------
Write :math:`f_e = \mathrm{Beta}(a_e + x_1, b_e + m_1 - x_1)` and
:math:`f_p = \mathrm{Beta}(a_p + m_0 - x_0, b_p + x_0)` for the calibration-only posteriors of
:math:`S_e, S_p` and :math:`L(R) = R^k (1 - R)^{n - k}`. Then

.. math::

    p(\pi \mid \text{data}) \propto f_\pi(\pi)\, I(\pi), \qquad
    I(\pi) = \int_0^1 f_e(S_e) \int_{1 - S_e}^{1} f_p(S_p)\, L(R)\, dS_p\, dS_e ,

(the inner lower limit is 0 without the restriction). Three choices make this accurate:

1. **Calibration variables in probability-integral-transform space.** The outer variable is
   integrated with Gauss-Legendre nodes on the normal score :math:`z = \Phi^{-1}(F_e(S_e))`
   over :math:`|z| \le 9`, so :math:`f_e\,dS_e = \phi(z)\,dz` (smooth, unlike :math:`du`) and
   the nodes sit on the peak whatever the calibration counts (also for :math:`x_0 = 0`, where
   :math:`f_p` is unbounded at 1). The restriction :math:`S_p > 1 - S_e` is exact, not an
   indicator on a grid: for each outer node the inner nodes are Gauss-Legendre in
   normal scores up to :math:`\Phi^{-1}\{F_{1-S_p}(S_e)\}`, the probability that
   :math:`1 - S_p < S_e` (the regularised incomplete Beta function), so the truncated
   conditional integral is done analytically up to the quadrature of a smooth function.
   These nodes do not depend on :math:`\pi` and are computed once. On the boundary
   :math:`J = 0` the judged rate is :math:`R = S_e` whatever :math:`\pi`, so where the likelihood
   ridge leaves the allowed region the inner integral, as a function of :math:`S_e`, has a step
   of width :math:`\sigma_R` at :math:`S_e = E[R]`; a separate outer panel over
   :math:`E[R] \pm 10\sigma_R` resolves it (without it a weak judge's posterior was off by 5e-3).
2. **Whichever factor is narrowest is a coordinate, never the ridge.** For fixed :math:`\pi` the
   three factors :math:`f_e, f_p, L` live in a two-dimensional integral, so one of them is a
   ridge. On the :math:`R` scale their widths are :math:`\pi\sigma_e`, :math:`(1-\pi)\sigma_p`
   and :math:`\sigma_R`. The outer variable is the calibration variable with the smaller of the
   first two (the mirrored problem :math:`\pi \to 1 - \pi`, :math:`k \to n - k`, :math:`S_e
   \leftrightarrow S_p` is used when that is :math:`S_p`); the inner integral uses the
   probability-integral-transform nodes of its calibration factor when that factor is narrower
   than :math:`L`, and otherwise Gauss-Legendre nodes on :math:`R` over the
   :math:`10^{-13}`-quantile window of :math:`L` (with :math:`dS_p = dR/(1 - \pi)`), so that a
   large test set (:math:`n` up to millions, :math:`\sigma_R \ll \sigma_p`) is still resolved.
   Everything is in log space (:math:`\log R` and :math:`\log(1 - R)` are formed from sums of
   products, never by subtraction), with a max shift before exponentiation.
3. **An adaptive grid on a smoothing scale for** :math:`\pi`. The outer variable is
   :math:`t \in [0, 1]` with :math:`\pi = t^p / \{t^p + (1 - t)^q\}`, :math:`p = 1/\min(a_\pi, 1)`,
   :math:`q = 1/\min(b_\pi, 1)`; the prior factor :math:`t^{pa_\pi - 1}` then vanishes, so the
   density in :math:`t` is finite and smooth even where the density of :math:`\pi` has the
   Jeffreys :math:`\pi^{-1/2}` pole (low prevalence). The support is bracketed first from the
   :math:`10^{-12}` quantiles of :math:`S_e, S_p, R` (the extreme values of
   :math:`\pi = (R - 1 + S_p)/J` lie at corners of that box), then the grid is shrunk to where the
   log density is within 36 of its maximum and re-evaluated. Moments use Simpson's rule
   (``scipy.integrate.simpson``); the CDF is the cumulative Simpson integral
   (``scipy.integrate.cumulative_simpson``) joined by cubic Hermite pieces whose slopes are the
   exact density values (``scipy.interpolate.CubicHermiteSpline``); quantiles invert it by
   safeguarded Newton steps on the bracketing piece.

Marginals of Se, Sp and J
-------------------------
:meth:`ExactPosterior.marginal` gives the full marginal posterior (CDF, quantiles, equal-tailed
intervals) of :math:`S_e`, :math:`S_p` and :math:`J`; their means and sds come from the moments
above. With :math:`f = 1 - S_p`, the density of :math:`S_e` at :math:`s` is a two-dimensional
integral, written over the judged rate :math:`R` and :math:`f` (for fixed R and f,
:math:`\pi = (R - f)/(s - f)` and :math:`d\pi = dR/|s - f|`):

.. math::

    p(s) \propto f_e(s) \int L(R) \int f_f(f)\, f_\pi\!\left(\frac{R - f}{s - f}\right)
    \frac{df}{|s - f|}\, dR ,\qquad f < R < s \text{ (J > 0)},

and that of :math:`J` at :math:`j` likewise with :math:`S_e = f + j`,
:math:`\pi = (R - f)/j`. In these coordinates :math:`L` and the calibration posteriors are fixed
Beta densities with known windows, and every pole (of the prior of :math:`\pi` at 0 and 1, of
:math:`f_e` or :math:`f_f` when a calibration count is 0 or full) lies at an end of an
integration range, where Gauss-Legendre nodes through the smoothstep map
:math:`u = 3v^2 - 2v^3` absorb it; the R range is cut where the lines :math:`\pi = 0` and
:math:`\pi = 1` cross the windows and medians of the calibration posteriors. :math:`S_p` is
:math:`S_e` of the mirrored problem. Each marginal's density is evaluated on a smoothing
coordinate whose grid is refined adaptively until Simpson's rule on every panel agrees with its
two halves to 1e-8 of the mass, and its CDF and quantiles are computed as for :math:`\pi`.

Measured accuracy (``tests/prevalence/test_exact.py``, ``test_exact_marginals.py``; numbers
from running their references directly): with a uniform prior on :math:`\pi` the posterior mean
and sd of :math:`\pi` and the means of :math:`S_e, S_p, R - \pi` agree with nested adaptive
QUADPACK quadrature to about 1e-12 on the low-prevalence data (k=50, n=3330) and the bundled
example, the reference CDF at our 2.5 % / 97.5 % quantiles of :math:`\pi` is within 3e-8 of
0.025 / 0.975, and at our 2.5 / 50 / 97.5 % quantiles of :math:`S_e, S_p, J` within 5.1e-8;
under the Jeffreys default they agree with importance sampling (1 to 1.5 million draws) within
2.3 Monte Carlo standard errors; doubling ``grid_size`` and ``nodes`` moves the mean, sd and
quantiles of :math:`\pi` by less than 2e-8, and finer marginal quadrature (48 or 64 nodes, panel
tolerance 1e-10 or 1e-11) moves the quantiles of :math:`S_e, S_p, J` by at most 2.4e-8; the
marginals' own means and total masses agree with the moments above to 3e-8 and 1e-6. The
posterior of :math:`\pi` takes about 0.1 s and the three marginals about as much again
(``benchmarks/bench_exact.py``).

References
----------
Lee et al. (2025) and the bias-correction article (the model and its frequentist Rogan-Gladen
counterpart, Rogan and Gladen 1978); the Bayesian treatment of prevalence under an imperfect
test with Beta priors on Se and Sp is that of Joseph, Gyorkos and Coupal (1995), "Bayesian
estimation of disease prevalence and the parameters of diagnostic tests in the absence of a
gold standard".
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
from scipy import integrate, special
from scipy.interpolate import CubicHermiteSpline

from bayesjudge.errors import DataError
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.priors import Beta, PrevalencePriors
from bayesjudge.results import Estimate, Interval, PosteriorSummary
from bayesjudge.validation import check_prob

if TYPE_CHECKING:  # pandas and the table types only for summary() and the data argument
    import pandas as pd

    from bayesjudge.io.tables import TableLike

__all__ = ["MIN_PI_SHAPE", "ExactMarginal", "ExactPosterior", "eti_widths", "exact_posterior"]

#: Smallest shape of the Beta prior on pi the quadrature is accurate for (to about 1e-14 on the
#: tests' datasets at 0.1; at 0.05 the mean can be off by 1e-4, at 0.01 by 0.04): the grid that
#: cancels the prior's poles squeezes the posterior into a sliver of its coordinate.
MIN_PI_SHAPE = 0.1

DEFAULT_GRID_SIZE = 513  # points of pi's grid in exact_posterior's default computation
_Z_MAX = 9.0  # normal-score range of the calibration rules: Phi(-9) ~ 1e-19
_STEP_HALF_WIDTH = 10.0  # half width, in sd(R), of the panel around Se = E[R] (J > 0 edge)
_WINDOW_EPS = 1e-13  # tail mass left out of the quantile window of L(R)
_BRACKET_EPS = 1e-12  # tail mass per variable left out when bracketing pi
_LOG_DROP = 36.0  # grid shrinks to where log density > max - this (e^-36 ~ 2e-16)
_COARSE = 65  # points of the grid that locates the support of pi
_SUMMARY_ROWS = ("pi", "se", "sp", "j", "bias")
_MARGINAL_ROWS: tuple[Literal["se", "sp", "j"], ...] = ("se", "sp", "j")
_R_NODES = 32  # Gauss-Legendre nodes per panel of the R integral behind a marginal density
_F_NODES = 32  # ... of the inner integral over 1 - Sp
_PANELS = 16  # initial panels of the adaptive Simpson grid of a marginal
_PANEL_TOL = 1e-8  # a panel is accepted when Richardson's error estimate is below this x mass
_NEWTON_STEPS = 12  # safeguarded Newton steps when inverting a CDF piece (bisection: 60)
_MAX_EVALUATIONS = 4097  # density values per marginal beyond which no panel is split


# --------------------------------------------------------------------------- small numerics
@functools.lru_cache(maxsize=16)
def _gauss_legendre_01(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on (0, 1) (cached; callers never modify them).

    ``scipy.special.roots_legendre``: the same rule as ``numpy.polynomial.legendre.leggauss``
    (integrals agree to 1e-14) in a sixth of the time for 200 nodes.
    """
    x, w = special.roots_legendre(size)
    return 0.5 * (x + 1.0), 0.5 * w


def _xlogy(c: float | np.ndarray, x: np.ndarray) -> np.ndarray:
    """``c * log(x)``, with ``0 * log(0) = 0``: ``scipy.special.xlogy`` for a ``c`` without NaN.

    ``c`` a number or an array broadcast against ``x`` (Beta shapes per count set). Plain
    logarithms (about ten times faster than ``xlogy``); exact zeros where ``c = 0``.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        if np.all(c != 0.0):
            return c * np.log(x)
        return np.where(c == 0.0, 0.0, c * np.log(x))


def _beta_ppf_pair(
    a: float, b: float, lower: np.ndarray, upper: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``x = F^{-1}(lower)`` and ``1 - x`` for Beta(a, b), with ``upper = 1 - lower``.

    The smaller of the two tail probabilities is inverted, so both ``x`` and ``1 - x`` keep full
    relative precision near 0 and near 1.
    """
    lower, upper = np.broadcast_arrays(np.asarray(lower, float), np.asarray(upper, float))
    use_lower = lower <= 0.5
    with np.errstate(all="ignore"):
        x_low = special.betaincinv(a, b, np.where(use_lower, lower, 0.5))
        cx_up = special.betaincinv(b, a, np.where(use_lower, 0.5, upper))
    x = np.where(use_lower, x_low, 1.0 - cx_up)
    cx = np.where(use_lower, 1.0 - x_low, cx_up)
    return x, cx


def _beta_logpdf(x: np.ndarray, cx: np.ndarray, a: float, b: float) -> np.ndarray:
    """Beta(a, b) log density at ``x`` given ``x`` and ``cx = 1 - x``."""
    return _xlogy(a - 1.0, x) + _xlogy(b - 1.0, cx) - float(special.betaln(a, b))


def _beta_logpdf_inside(x: np.ndarray, cx: np.ndarray, a: float, b: float) -> np.ndarray:
    """:func:`_beta_logpdf` for ``0 < x < 1`` only (plain logarithms: ten times faster)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (a - 1.0) * np.log(x) + (b - 1.0) * np.log(cx) - float(special.betaln(a, b))


class _Hermite(CubicHermiteSpline):
    """``scipy.interpolate.CubicHermiteSpline`` of a CDF that keeps its knot slopes, the density."""

    dydx: np.ndarray

    def __init__(self, x: np.ndarray, y: np.ndarray, dydx: np.ndarray) -> None:
        super().__init__(x, y, dydx)
        self.dydx = dydx


def _beta_sd_array(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the standard deviation of Beta(a, b), elementwise."""
    return np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1.0)))


@dataclass(frozen=True, slots=True)
class _Nodes:
    """Pi-independent quadrature nodes of one orientation (outer Se, inner Sp), per count set."""

    o: np.ndarray  # outer variable (Se), shape (B, N)
    co: np.ndarray  # 1 - o
    log_wo: np.ndarray  # log weights of the outer rule (f_e absorbed)
    y: np.ndarray  # inner 1 - Sp, shape (B, N, M), PIT nodes
    cy: np.ndarray  # Sp
    log_wy: np.ndarray  # log weights of the inner rule (f_p absorbed), shape (B, N, M)
    y_max: np.ndarray  # upper limit of 1 - Sp per outer node: Se (restricted) or 1


def _normal_score_rule(lo: np.ndarray, hi: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes on normal scores ``z`` in ``(lo, hi)`` with log weights incl. phi(z).

    Broadcasts over the shape of ``lo``/``hi``; a new last axis holds the nodes. An empty range
    (``hi <= lo``) gets weight zero.
    """
    x, w = _gauss_legendre_01(size)
    width = np.maximum(hi - lo, 0.0)[..., None]
    z = lo[..., None] + width * x
    with np.errstate(divide="ignore"):
        log_w = np.log(width * w) - 0.5 * z * z - 0.5 * np.log(2.0 * np.pi)
    return z, log_w


@dataclass(frozen=True, slots=True)
class _Problems:
    """The integrand's constants of one or many count sets, as arrays with a leading axis.

    One count set (:func:`exact_posterior`) is a batch of one; :func:`eti_widths` integrates
    many at once with the same functions.
    """

    a_e: np.ndarray  # Beta parameters of the calibration posterior of Se, shape (B,)
    b_e: np.ndarray
    a_p: np.ndarray  # ... of Sp
    b_p: np.ndarray
    k: np.ndarray  # test counts, as floats
    n: np.ndarray
    restrict_j: bool

    @classmethod
    def of(
        cls, counts: Sequence[JudgeCounts], priors: PrevalencePriors, restrict_j: bool
    ) -> _Problems:
        """Return the constants of ``counts`` under ``priors``."""
        table = np.array([[c.m1, c.x1, c.m0, c.x0, c.n, c.k] for c in counts], dtype=float)
        m1, x1, m0, x0, n, k = table.reshape(-1, 6).T
        return cls(
            a_e=priors.se.alpha + x1,
            b_e=priors.se.beta + m1 - x1,
            a_p=priors.sp.alpha + m0 - x0,
            b_p=priors.sp.beta + x0,
            k=k,
            n=n,
            restrict_j=bool(restrict_j),
        )

    def one(self) -> tuple[float, float, float, float, float, float]:
        """Return the constants of a batch of one as floats: a_e, b_e, a_p, b_p, k, n.

        The marginals of Se, Sp and J (:func:`_marginal`) integrate one count set at a time.
        """
        if self.k.size != 1:
            raise ValueError(f"one count set expected; got {self.k.size}")
        a_e, b_e, a_p, b_p, k, n = (
            float(v[0]) for v in (self.a_e, self.b_e, self.a_p, self.b_p, self.k, self.n)
        )
        return a_e, b_e, a_p, b_p, k, n

    def take(self, rows: np.ndarray) -> _Problems:
        """Return the count sets at ``rows``."""
        return _Problems(
            self.a_e[rows],
            self.b_e[rows],
            self.a_p[rows],
            self.b_p[rows],
            self.k[rows],
            self.n[rows],
            self.restrict_j,
        )

    def mirrored(self) -> _Problems:
        """Return the count sets with PASS and FAIL swapped: pi -> 1-pi, Se <-> Sp, k -> n-k."""
        return _Problems(
            self.a_p, self.b_p, self.a_e, self.b_e, self.n - self.k, self.n, self.restrict_j
        )


def _panels(problems: _Problems) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the outer panels of :func:`_nodes` for every count set, non-empty ones first.

    Returns the panels' lower and upper normal scores, shape (B, panels), and each count set's
    number of non-empty panels (those :func:`_nodes` keeps).
    """
    batch = problems.k.size
    if problems.restrict_j:
        # On the boundary J = 0 the judged rate is R = Se whatever pi, so the inner integral,
        # as a function of Se, has a step of width sd(R) at Se = E[R] where the likelihood
        # ridge leaves the allowed region. A separate panel resolves it.
        k, n = problems.k, problems.n
        centre = (k + 1.0) / (n + 2.0)
        half = _STEP_HALF_WIDTH * _beta_sd_array(k + 1.0, n - k + 1.0)
        edges = np.clip(np.stack([centre - half, centre + half], axis=-1), 0.0, 1.0)
        with np.errstate(divide="ignore"):
            z_edges = special.ndtri(
                special.betainc(problems.a_e[:, None], problems.b_e[:, None], edges)
            )
        z_edges = np.clip(z_edges, -_Z_MAX, _Z_MAX)
        cuts = np.column_stack([np.full(batch, -_Z_MAX), z_edges, np.full(batch, _Z_MAX)])
    else:
        cuts = np.column_stack([np.full(batch, -_Z_MAX), np.full(batch, _Z_MAX)])
    lo, hi = cuts[:, :-1], cuts[:, 1:]
    order = np.argsort(~(hi > lo), axis=1, kind="stable")
    lo, hi = np.take_along_axis(lo, order, axis=1), np.take_along_axis(hi, order, axis=1)
    return lo, hi, np.sum(hi > lo, axis=1)


def _nodes(problems: _Problems, size: int, smooth_large: bool) -> _Nodes:
    """Pi-independent quadrature nodes of every count set: arrays with a leading batch axis.

    The count sets should have as many non-empty outer panels (:func:`_panels`); a set with
    fewer gets empty panels of zero weight up to the largest number. With ``smooth_large``, the
    inner nodes of a set whose inner Beta shapes are both :data:`_LARGE_SHAPE` or more come
    from :func:`_smooth_beta_ppf`.
    """
    a_e, b_e = problems.a_e[:, None], problems.b_e[:, None]
    a_p, b_p = problems.a_p[:, None], problems.b_p[:, None]
    batch = problems.k.size
    lo, hi, counts = _panels(problems)
    panels = max(int(np.max(counts)), 1)
    z, log_wo = _normal_score_rule(lo[:, :panels], hi[:, :panels], size)  # (B, panels, size)
    z, log_wo = z.reshape(batch, -1), log_wo.reshape(batch, -1)
    o, co = _beta_ppf_pair(a_e, b_e, special.ndtr(z), special.ndtr(-z))  # type: ignore[arg-type]
    # 1 - Sp ~ Beta(b_p, a_p), restricted to (0, Se) when J > 0 is required: the normal score
    # of 1 - Sp then runs up to Phi^{-1}(P(1 - Sp < Se)).
    if problems.restrict_j:
        mass = special.betainc(b_p, a_p, o)  # P(1 - Sp < Se)
        tail = special.betainc(a_p, b_p, co)  # P(1 - Sp > Se) = 1 - mass, accurately
        with np.errstate(divide="ignore"):
            z_cut = np.where(mass < 0.5, special.ndtri(mass), -special.ndtri(tail))
        y_max = o
    else:
        z_cut, y_max = np.full_like(o, np.inf), np.ones_like(o)
    hi = np.minimum(z_cut, _Z_MAX)
    zy, log_wy = _normal_score_rule(np.full_like(hi, -_Z_MAX), hi, size)
    y, cy = np.empty_like(zy), np.empty_like(zy)
    large = np.minimum(problems.a_p, problems.b_p) >= _LARGE_SHAPE
    large &= smooth_large
    small = ~large
    if np.any(small):
        y[small], cy[small] = _beta_ppf_pair(
            b_p[small][..., None],
            a_p[small][..., None],
            special.ndtr(zy[small]),
            special.ndtr(-zy[small]),
        )
    if np.any(large):
        y[large] = _smooth_beta_ppf(problems.b_p[large], problems.a_p[large], zy[large])
        cy[large] = 1.0 - y[large]
    return _Nodes(o, co, log_wo, y, cy, log_wy, y_max)


_LARGE_SHAPE = 1e4  # both Beta shapes at least this: quantiles through a Chebyshev interpolant
_CHEBYSHEV = 32  # its nodes on [-Z_MAX, Z_MAX]


def _smooth_beta_ppf(a: np.ndarray, b: np.ndarray, z: np.ndarray) -> np.ndarray:
    r"""Beta(a, b) quantiles at normal scores ``z`` in [-9, 9] for large shapes, per row.

    For shapes of :data:`_LARGE_SHAPE` and more the map :math:`z \mapsto F^{-1}(\Phi(z))` is
    nearly linear (the Beta law is nearly normal) and ``scipy.special.betaincinv`` is slow
    (25 us a value at 1e8 against 1 us at 100). It is interpolated at the
    :data:`_CHEBYSHEV` Chebyshev points of [-9, 9] (one ``betaincinv`` each) and evaluated
    from its Chebyshev series: measured against ``betaincinv`` at 2,000 scores, within
    ``betaincinv``'s own scatter (5e-10 sd at shapes (1e4, 1e3), 1.3e-7 sd, 4e-12 absolute, at
    (1e8, 1.6e7); larger interpolants do not come closer).
    """
    k = np.arange(_CHEBYSHEV)
    angle = np.pi * (k + 0.5) / _CHEBYSHEV
    knots = _Z_MAX * np.cos(angle)
    rows = a.reshape(-1, 1)
    values, _ = _beta_ppf_pair(
        rows,  # type: ignore[arg-type]
        b.reshape(-1, 1),  # type: ignore[arg-type]
        np.broadcast_to(special.ndtr(knots), (a.size, _CHEBYSHEV)),
        np.broadcast_to(special.ndtr(-knots), (a.size, _CHEBYSHEV)),
    )
    basis = np.cos(np.outer(k, angle)) * (2.0 / _CHEBYSHEV)
    basis[0] *= 0.5
    coefficients = values @ basis.T  # (rows, terms)
    theta = np.arccos(np.clip(z / _Z_MAX, -1.0, 1.0))
    flat = theta.reshape(a.size, -1)
    out = np.einsum("rpk,rk->rp", np.cos(flat[..., None] * k), coefficients)
    return out.reshape(z.shape)


def _xlogy_in_place(c: np.ndarray, x: np.ndarray) -> np.ndarray:
    """:func:`_xlogy` written over ``x`` (which must be a float array of its own)."""
    if not np.all(c != 0.0):
        return _xlogy(c, x)
    np.log(x, out=x)
    x *= c
    return x


_N_MEANS = 7  # conditional means given pi of o, o^2, s, s^2, o s, R, R^2
_CHUNK_ELEMENTS = 2**18  # integrand values per block of the quadrature


def _inner_sums(
    problems: _Problems,
    nodes: _Nodes,
    window: tuple[np.ndarray, np.ndarray],
    row: np.ndarray,
    pi: np.ndarray,
    cpi: np.ndarray,
    use_window: bool,
    moments: bool,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Return log I(pi) at pairs (count set ``row``, ``pi``), and the conditional means.

    The means (with ``moments``; otherwise None) are those of (o, o^2, s, s^2, o s, R, R^2)
    given pi, ``o`` the outer calibration variable (Se in this orientation) and ``s`` the
    inner (Sp). The pairs are integrated in blocks of about :data:`_CHUNK_ELEMENTS` integrand
    values.
    """
    out = np.empty(pi.size)
    means = np.empty((pi.size, _N_MEANS)) if moments else None
    per_pair = nodes.y.shape[1] * nodes.y.shape[2]
    step = max(1, _CHUNK_ELEMENTS // per_pair)
    x, w = _gauss_legendre_01(nodes.y.shape[2])
    for start in range(0, pi.size, step):
        part = slice(start, start + step)
        b, p1, cp1 = row[part], pi[part], cpi[part]
        p, cp = p1[:, None, None], cp1[:, None, None]
        o, co = nodes.o[b][:, :, None], nodes.co[b][:, :, None]
        k, n = problems.k[b][:, None, None], problems.n[b][:, None, None]
        if use_window:
            # Gauss-Legendre in R over the quantile window of L, intersected with the range of
            # R that Sp in (1 - y_max, 1) allows: R in (pi Se, pi Se + (1 - pi) y_max). Where
            # the window reaches the edge Sp = 1, f_p may behave like (1 - Sp)^(b - 1) with
            # b < 1 (x0 = 0); the map R - R_min = width s^2 turns that into the smooth
            # s^(2b - 1).
            r_min = p1[:, None] * nodes.o[b]
            r_max = r_min + cp1[:, None] * nodes.y_max[b]
            w_lo, w_hi = window[0][b][:, None], window[1][b][:, None]
            edge = r_min >= w_lo
            lo = np.where(edge, r_min, w_lo)
            hi = np.minimum(r_max, w_hi)
            width = np.maximum(hi - lo, 0.0)
            frac = np.where(edge[..., None], x * x, x)
            slope = np.where(edge[..., None], 2.0 * x, 1.0)
            r = lo[..., None] + width[..., None] * frac
            y = np.clip((r - p * o) / cp, 0.0, 1.0)
            cy = np.clip(1.0 - y, 0.0, 1.0)
            # f_p of 1 - Sp: Beta(b_p, a_p)
            a_f = problems.b_p[b][:, None, None]
            b_f = problems.a_p[b][:, None, None]
            with np.errstate(divide="ignore", invalid="ignore"):
                log_w = (
                    np.log(width[..., None] * slope * w)
                    - np.log(cp)
                    + (_xlogy(a_f - 1.0, y) + _xlogy(b_f - 1.0, cy) - special.betaln(a_f, b_f))
                )
            cr = p * co + cp * cy
        elif moments:
            cy = nodes.cy[b]
            r = p * o + cp * nodes.y[b]
            cr = p * co + cp * cy
            log_w = nodes.log_wy[b]
        else:
            # the same arithmetic in place on the gathered copies of the nodes
            r = nodes.y[b]
            r *= cp
            r += p * o
            cr = nodes.cy[b]
            cr *= cp
            cr += p * co
            log_w = nodes.log_wy[b]
        log_w += nodes.log_wo[b][:, :, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            if use_window or moments:
                lik = _xlogy(k, r) + _xlogy(n - k, cr)
            else:
                lik = _xlogy_in_place(k, r)
                lik += _xlogy_in_place(n - k, cr)
        log_w += lik
        log_w[np.isnan(log_w)] = -np.inf
        top = np.max(log_w, axis=(1, 2))
        safe_top = np.where(np.isfinite(top), top, 0.0)
        log_w -= safe_top[:, None, None]
        weight = np.exp(log_w, out=log_w)
        total = np.sum(weight, axis=(1, 2))
        with np.errstate(divide="ignore"):
            out[part] = np.where(total > 0, safe_top + np.log(total), -np.inf)
        if means is not None:
            safe_total = np.where(total > 0, total, 1.0)
            for index, value in enumerate((o, o * o, cy, cy * cy, o * cy, r, r * r)):
                means[part, index] = np.sum(weight * value, axis=(1, 2)) / safe_total
    return out, means


class _Integrator:
    """Evaluates log I(pi) and conditional moments at pairs (count set, pi).

    The orientation (outer Se, or the mirrored problem with outer Sp) and the inner rule are
    chosen per pair; one count set is a batch of one.
    """

    def __init__(self, problems: _Problems, nodes_size: int, *, smooth_large: bool) -> None:
        self.problems = problems
        self.mirror = problems.mirrored()
        self.size = nodes_size
        self.smooth_large = smooth_large
        # each orientation's nodes, computed for a count set when one of its pi first needs
        # them (often only one orientation is ever used: the nodes are a third of the work)
        self._nodes: dict[bool, _Nodes | None] = {True: None, False: None}
        self._have = {True: np.zeros(problems.k.size, bool), False: np.zeros(problems.k.size, bool)}
        k, n = problems.k, problems.n
        self.sd_e = _beta_sd_array(problems.a_e, problems.b_e)
        self.sd_p = _beta_sd_array(problems.a_p, problems.b_p)
        self.sd_r = _beta_sd_array(k + 1.0, n - k + 1.0)
        eps = np.full(k.size, _WINDOW_EPS)
        r_lo, _ = _beta_ppf_pair(k + 1.0, n - k + 1.0, eps, 1.0 - eps)  # type: ignore[arg-type]
        cr_lo, _ = _beta_ppf_pair(n - k + 1.0, k + 1.0, eps, 1.0 - eps)  # type: ignore[arg-type]
        self.window = (r_lo, 1.0 - cr_lo)
        self.mirror_window = (cr_lo, 1.0 - r_lo)

    def nodes(self, orient: bool, rows: np.ndarray) -> _Nodes:
        """Return the nodes of one orientation, computed for ``rows`` if not yet."""
        have = self._have[orient]
        missing = np.unique(rows[~have[rows]])
        if missing.size:
            problems = self.problems if orient else self.mirror
            fresh = _nodes(problems.take(missing), self.size, self.smooth_large)
            store = self._nodes[orient]
            if store is None:
                if missing.size == have.size:
                    store = fresh
                else:
                    store = _Nodes(
                        *(
                            np.empty((have.size, *getattr(fresh, name).shape[1:]))
                            for name in _Nodes.__slots__
                        )
                    )
                self._nodes[orient] = store
            if store is not fresh:
                for name in _Nodes.__slots__:
                    getattr(store, name)[missing] = getattr(fresh, name)
            have[missing] = True
        out = self._nodes[orient]
        assert out is not None
        return out

    def __call__(
        self, row: np.ndarray, pi: np.ndarray, cpi: np.ndarray, moments: bool = False
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Return log I(pi) at pairs (count set ``row``, ``pi``), and the conditional means.

        The means (with ``moments``; otherwise None) are those of (Se, Se^2, Sp, Sp^2, Se Sp,
        R, R^2) given pi.
        """
        log_i = np.empty(pi.size)
        means = np.empty((pi.size, _N_MEANS)) if moments else None
        # outer = Se when its R-scale width pi sd_e is the smaller one, else mirrored (outer Sp)
        straight = pi * self.sd_e[row] <= cpi * self.sd_p[row]
        for orient in (True, False):
            chosen = straight == orient
            if not np.any(chosen):
                continue
            b = row[chosen]
            nodes = self.nodes(orient, b)
            if orient:
                problems, window = self.problems, self.window
                p, cp, sd_inner = pi[chosen], cpi[chosen], self.sd_p[b]
            else:
                problems, window = self.mirror, self.mirror_window
                p, cp, sd_inner = cpi[chosen], pi[chosen], self.sd_e[b]
            use_window = cp * sd_inner > self.sd_r[b]
            part_log = np.empty(p.size)
            part_means = np.empty((p.size, _N_MEANS))
            for flag in (False, True):
                sel = use_window == flag
                if np.any(sel):
                    part_log[sel], found = _inner_sums(
                        problems, nodes, window, b[sel], p[sel], cp[sel], flag, moments
                    )
                    if found is not None:
                        part_means[sel] = found
            log_i[chosen] = part_log
            if means is not None:
                if not orient:
                    # back from the mirrored problem: Se = s', Sp = o', R = 1 - R'
                    o, o2, s, s2, os_, r, r2 = part_means.T
                    part_means = np.column_stack([s, s2, o, o2, os_, 1.0 - r, 1.0 - 2.0 * r + r2])
                means[chosen] = part_means
        return log_i, means


# --------------------------------------------------------------------------- the pi scale
@dataclass(frozen=True, slots=True)
class _PiScale:
    r"""The map t -> pi = t^p / (t^p + (1 - t)^q) and the prior density on the t scale."""

    a: float
    b: float

    @property
    def p(self) -> float:
        return 1.0 / min(self.a, 1.0)

    @property
    def q(self) -> float:
        return 1.0 / min(self.b, 1.0)

    def pi(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return pi(t) and 1 - pi(t)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            tp = np.power(t, self.p)
            cq = np.power(1.0 - t, self.q)
            d = tp + cq
            return tp / d, cq / d

    def dpi_dt(self, t: np.ndarray) -> np.ndarray:
        p, q = self.p, self.q
        with np.errstate(divide="ignore", invalid="ignore"):
            d = np.power(t, p) + np.power(1.0 - t, q)
            num = np.power(t, p - 1.0) * np.power(1.0 - t, q - 1.0) * (p * (1.0 - t) + q * t)
            return num / d**2

    def t(self, pi: np.ndarray) -> np.ndarray:
        """Inverse map, by bisection (vectorised; pi is monotone in t)."""
        pi = np.asarray(pi, dtype=float)
        if self.p == self.q:  # pi / (1 - pi) = (t / (1 - t))^p
            with np.errstate(divide="ignore", invalid="ignore"):
                root = np.power(pi, 1.0 / self.p)
                out = root / (root + np.power(1.0 - pi, 1.0 / self.p))
            return np.where(pi <= 0.0, 0.0, np.where(pi >= 1.0, 1.0, out))
        lo, hi = np.zeros_like(pi), np.ones_like(pi)
        for _ in range(64):
            mid = 0.5 * (lo + hi)
            below = self.pi(mid)[0] < pi
            lo = np.where(below, mid, lo)
            hi = np.where(below, hi, mid)
        return np.where(pi <= 0.0, 0.0, np.where(pi >= 1.0, 1.0, 0.5 * (lo + hi)))

    def log_prior(self, t: np.ndarray) -> np.ndarray:
        """Log of f_pi(pi(t)) dpi/dt for the Beta(a, b) prior."""
        a, b, p, q = self.a, self.b, self.p, self.q
        with np.errstate(divide="ignore", invalid="ignore"):
            d = np.power(t, p) + np.power(1.0 - t, q)
            return (
                _xlogy(p * a - 1.0, t)
                + _xlogy(q * b - 1.0, 1.0 - t)
                + np.log(p * (1.0 - t) + q * t)
                - (a + b) * np.log(d)
                - special.betaln(a, b)
            )


# --------------------------------------------------------------------------- marginals of Se, Sp, J
def _smoothstep_rule(
    lo: np.ndarray, hi: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""Gauss-Legendre nodes on ``(lo, hi)`` through ``u = lo + (hi - lo)(3v^2 - 2v^3)``.

    Returns the nodes, their distances from ``lo`` and from ``hi`` (exact, not by subtraction)
    and the log weights including ``du/dv``. The map's derivative vanishes at both ends, so an
    integrable end singularity :math:`x^{b - 1}` (:math:`b \ge 1/2`) of a Beta factor becomes a
    smooth integrand. Broadcasts over ``lo``/``hi``; a new last axis holds the nodes, and an
    empty range gets weight zero.
    """
    v, w = _gauss_legendre_01(size)
    width = np.maximum(hi - lo, 0.0)[..., None]
    from_lo = width * (v * v * (3.0 - 2.0 * v))
    from_hi = width * ((1.0 - v) ** 2 * (1.0 + 2.0 * v))
    with np.errstate(divide="ignore"):
        log_w = np.log(width * (6.0 * v * (1.0 - v) * w))
    return lo[..., None] + from_lo, from_lo, from_hi, log_w


def _window(a: float, b: float) -> tuple[float, float]:
    """Return the :data:`_WINDOW_EPS` quantile window of Beta(a, b)."""
    eps = np.array([_WINDOW_EPS, 1.0 - _WINDOW_EPS])
    x, _ = _beta_ppf_pair(a, b, eps, 1.0 - eps)
    return float(x[0]), float(x[1])


def _log_sum(log_terms: np.ndarray) -> np.ndarray:
    """log(sum(exp(log_terms))) over the last axis (``scipy.special.logsumexp``), NaN as -inf."""
    with np.errstate(invalid="ignore"):  # a row of -inf only gives -inf
        terms = np.where(np.isnan(log_terms), -np.inf, log_terms)
        return np.asarray(special.logsumexp(terms, axis=-1))


def _composite_rule(
    lo: np.ndarray, hi: np.ndarray, cuts: list[np.ndarray], size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Smoothstep Gauss-Legendre rules on the panels of ``[lo, hi]`` cut at ``cuts``, per row.

    The cuts inside a row's ``(lo, hi)`` split it into panels; only non-empty panels get nodes.
    Returns, flattened over all rows: the nodes, their distances from the row's ``lo`` and
    ``hi`` (sums of positive parts, so without cancellation), the log weights and the row of
    each node. A kink or an integrable end singularity of the integrand at a cut costs nothing.
    """
    edges = np.sort(np.stack([lo, *[np.clip(c, lo, hi) for c in cuts], hi], axis=-1), axis=-1)
    left, right = edges[:, :-1], edges[:, 1:]
    keep = right > left
    rows = np.nonzero(keep)[0]
    left, right = left[keep], right[keep]
    u, from_left, from_right, log_w = _smoothstep_rule(left, right, size)
    from_lo = (left - lo[rows])[:, None] + from_left
    from_hi = (hi[rows] - right)[:, None] + from_right
    return u.ravel(), from_lo.ravel(), from_hi.ravel(), log_w.ravel(), np.repeat(rows, size)


def _segment_log_sum(values: np.ndarray, rows: np.ndarray, count: int) -> np.ndarray:
    """log(sum(exp(values))) of the values of each row (-inf for rows without any)."""
    values = np.where(np.isnan(values), -np.inf, values)
    top = np.full(count, -np.inf)
    np.maximum.at(top, rows, values)
    safe = np.where(np.isfinite(top), top, 0.0)
    total = np.bincount(rows, weights=np.exp(values - safe[rows]), minlength=count)
    with np.errstate(divide="ignore"):
        return np.where(total > 0.0, safe + np.log(total), -np.inf)


def _se_log_density(problem: _Problems, prior: Beta, s: np.ndarray, cs: np.ndarray) -> np.ndarray:
    r"""Log of the marginal posterior density of Se at ``s``, unnormalised and divided by f_e(s).

    With :math:`f = 1 - S_p`, the judged rate :math:`R = \pi s + (1 - \pi) f` lies between f
    and s, and for fixed R and f, :math:`\pi = (R - f)/(s - f)` with
    :math:`d\pi = dR / |s - f|`. So

    .. math::

        p(s) \propto f_e(s) \int L(R) \int f_f(f)\, f_\pi\!\left(\frac{R - f}{s - f}\right)
        \frac{df}{|s - f|}\, dR ,

    over :math:`f < R < s` (and, without the :math:`J > 0` restriction, also
    :math:`s < R < f`). In these coordinates L and :math:`f_f` are fixed Beta densities with
    windows known in advance, and the poles of the prior of pi (:math:`\pi = 0` at
    :math:`f = R`, :math:`\pi = 1` at :math:`R = s`) and of :math:`f_f` lie at the ends of the
    integration ranges, where the smoothstep rules absorb them. The R range is cut where the
    line :math:`R = f` crosses the window and the median of :math:`f_f`, so that the inner
    integral, smooth between the cuts, is resolved.
    """
    _, _, b_f, a_f, k, n = problem.one()  # f = 1 - Sp ~ Beta(b_p, a_p)
    f_lo, f_hi = _window(a_f, b_f)
    f_mid = float(special.betaincinv(a_f, b_f, 0.5))
    r_lo, r_hi = _window(k + 1.0, n - k + 1.0)
    cuts = [np.full_like(s, c) for c in (f_lo, f_mid, f_hi)]
    parts = []
    for below in [True] if problem.restrict_j else [True, False]:
        # below: f < R < s; otherwise s < R < f
        lo_r = np.full_like(s, r_lo) if below else np.maximum(s, r_lo)
        hi_r = np.minimum(s, r_hi) if below else np.full_like(s, r_hi)
        r, r_from_lo, r_from_hi, log_wr, rows = _composite_rule(lo_r, hi_r, cuts, _R_NODES)
        # |s - R|, measured from the end of the R range at s, without cancellation
        s_r = (s - hi_r)[rows] + r_from_hi if below else (lo_r - s)[rows] + r_from_lo
        lo_f = np.full_like(r, max(f_lo, 0.0)) if below else np.maximum(r, f_lo)
        hi_f = np.minimum(r, f_hi) if below else np.full_like(r, min(f_hi, 1.0))
        f, f_from_lo, f_from_hi, log_wf = _smoothstep_rule(lo_f, hi_f, _F_NODES)
        r_f = (r - hi_f)[:, None] + f_from_hi if below else (lo_f - r)[:, None] + f_from_lo
        gap = r_f + s_r[:, None]  # |s - f|
        with np.errstate(divide="ignore", invalid="ignore"):
            log_inner = _log_sum(
                log_wf
                + _beta_logpdf_inside(f, 1.0 - f, a_f, b_f)
                + _beta_logpdf_inside(r_f / gap, s_r[:, None] / gap, prior.alpha, prior.beta)
                - np.log(gap)
            )
            log_outer = log_wr + k * np.log(r) + (n - k) * np.log1p(-r) + log_inner
        parts.append(_segment_log_sum(log_outer, rows, s.size))
    return _log_sum(np.stack(parts, axis=-1))


def _j_log_density(problem: _Problems, prior: Beta, j: np.ndarray, cj: np.ndarray) -> np.ndarray:
    r"""Log of the unnormalised marginal posterior density of J at ``j`` (``cj = 1 - j``).

    With :math:`f = 1 - S_p`, :math:`S_e = f + j` and :math:`R = f + \pi j`, so that for fixed R
    and f, :math:`\pi = (R - f)/j` and :math:`d\pi = dR/|j|`:

    .. math::

        p(j) \propto \int L(R) \int f_f(f)\, f_e(f + j)\, f_\pi\!\left(\frac{R - f}{j}\right)
        \frac{df}{|j|}\, dR ,

    f between :math:`R - j` and R (pi in (0, 1)), with f and :math:`f + j` in (0, 1).
    Quadrature as in :func:`_se_log_density`; the R range is cut where the lines
    :math:`R = f` (pi = 0) and :math:`R = f + j = S_e` (pi = 1) cross the windows and medians
    of :math:`f_f` and :math:`f_e`, and where the ends of the f range switch.
    """
    a_e, b_e, b_f, a_f, k, n = problem.one()
    f_lo, f_hi = _window(a_f, b_f)
    e_lo, e_hi = _window(a_e, b_e)
    f_mid = float(special.betaincinv(a_f, b_f, 0.5))
    e_mid = float(special.betaincinv(a_e, b_e, 0.5))
    r_lo, r_hi = _window(k + 1.0, n - k + 1.0)
    # limits of f that do not depend on R: Sp and Se in (0, 1) and inside their windows
    base_lo = np.maximum.reduce([np.zeros_like(j), -j, np.full_like(j, f_lo), e_lo - j])
    base_hi = np.minimum.reduce([np.ones_like(j), cj, np.full_like(j, f_hi), e_hi - j])
    cuts = [np.full_like(j, c) for c in (f_lo, f_mid, f_hi, e_lo, e_mid, e_hi)]
    cuts += [base_lo, base_hi, base_lo + j, base_hi + j]  # where the ends of the f range switch
    r, _, _, log_wr, rows = _composite_rule(
        np.full_like(j, r_lo), np.full_like(j, r_hi), cuts, _R_NODES
    )
    jr, cjr = j[rows], cj[rows]
    # pi in (0, 1) puts f between R - j and R
    lo_f = np.maximum(base_lo[rows], np.minimum(r - jr, r))
    hi_f = np.minimum(base_hi[rows], np.maximum(r - jr, r))
    f, from_lo, from_hi, log_wf = _smoothstep_rule(lo_f, hi_f, _F_NODES)
    # pi = (R - f)/j and 1 - pi = (f - R + j)/j, each measured from the end of the f range at
    # which it vanishes, so without cancellation
    rising = (jr > 0.0)[:, None]
    r_minus_f = np.where(rising, (r - hi_f)[:, None] + from_hi, -((lo_f - r)[:, None] + from_lo))
    f_minus_rj = np.where(
        rising, (lo_f - r + jr)[:, None] + from_lo, -((r - jr - hi_f)[:, None] + from_hi)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        pi, cpi = r_minus_f / jr[:, None], f_minus_rj / jr[:, None]
        se, cse = f + jr[:, None], cjr[:, None] - f
        log_terms = (
            log_wf
            + _beta_logpdf_inside(f, 1.0 - f, a_f, b_f)
            + _beta_logpdf_inside(se, cse, a_e, b_e)
            + _beta_logpdf_inside(pi, cpi, prior.alpha, prior.beta)
        )
        valid = (se > 0.0) & (cse > 0.0) & (pi >= 0.0) & (cpi >= 0.0)
        log_inner = _log_sum(np.where(valid, log_terms, -np.inf)) - np.log(np.abs(jr))
        log_outer = log_wr + k * np.log(r) + (n - k) * np.log1p(-r) + log_inner
    return _segment_log_sum(log_outer, rows, j.size)


def _support(
    log_density: Callable[[np.ndarray, np.ndarray], np.ndarray],
    lo: np.ndarray,
    hi: np.ndarray,
    what: Callable[[int], str],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shrink each row's ``[lo, hi]`` to where its log density is within ``_LOG_DROP`` of its max.

    ``log_density(rows, t)`` gives the log densities of the rows ``rows`` at ``t`` (one row of
    ``t`` each). A coarse grid locates the support; while a posterior is narrower than a
    quarter of the coarse cells its grid is redrawn over the support found (at most 12 times).
    Returns the supports and the largest log density seen on each row's last grid.

    Raises
    ------
    DataError
        If a row's density vanishes on its whole grid (``what(row)`` names it).
    """
    lo, hi = np.array(lo, dtype=float), np.array(hi, dtype=float)
    top = np.full(lo.size, -np.inf)
    active = np.ones(lo.size, dtype=bool)
    for _ in range(12):
        rows = np.flatnonzero(active)
        if not rows.size:
            break
        t = np.linspace(lo[rows], hi[rows], _COARSE, axis=-1)
        values = log_density(rows, t)
        empty = ~np.any(np.isfinite(values), axis=1)
        if np.any(empty):
            raise DataError(f"{what(int(rows[np.argmax(empty)]))}; check the counts")
        top[rows] = np.max(values, axis=1)
        keep = values > top[rows][:, None] - _LOG_DROP
        first = np.maximum(np.argmax(keep, axis=1) - 1, 0)
        last = np.minimum(_COARSE - 1 - np.argmax(keep[:, ::-1], axis=1) + 1, _COARSE - 1)
        lo[rows] = t[np.arange(rows.size), first]
        hi[rows] = t[np.arange(rows.size), last]
        active[rows[last - first >= _COARSE // 4]] = False
    return lo, hi, top


def _adaptive_grid(
    log_g: Callable[[np.ndarray], np.ndarray], lo: float, hi: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """Adaptive Simpson grid for a density ``exp(log_g(t))`` on ``[lo, hi]``.

    The support is located on a coarse grid (shrunk to where the log density is within
    :data:`_LOG_DROP` of its maximum, as for pi); then panels are halved until Simpson's rule
    on each agrees with its two halves to :data:`_PANEL_TOL` of the total mass (Richardson's
    estimate), evaluating each round's new points in one vectorised call. Returns the sorted
    grid, the density scaled by ``exp(-shift)`` and ``shift``.
    """

    def log_g_safe(t: np.ndarray) -> np.ndarray:
        values = log_g(t)
        return np.where(np.isnan(values), -np.inf, values)

    support = _support(
        lambda _rows, t: log_g_safe(t[0])[None, :],
        np.array([lo]),
        np.array([hi]),
        lambda _row: "a marginal posterior vanishes on its whole grid",
    )
    lo, hi, shift = (float(v[0]) for v in support)
    a = np.linspace(lo, hi, _PANELS + 1)
    edges = np.exp(log_g_safe(np.concatenate([a, 0.5 * (a[:-1] + a[1:])])) - shift)
    f_a, f_m = edges[: _PANELS + 1], edges[_PANELS + 1 :]
    # active panels: left, right, f(left), f(mid), f(right)
    left, right, fl, fm, fr = a[:-1], a[1:], f_a[:-1], f_m, f_a[1:]
    done_t: list[np.ndarray] = []
    done_f: list[np.ndarray] = []
    total = float(np.sum((right - left) / 6.0 * (fl + 4.0 * fm + fr)))
    evaluations = edges.size
    while left.size:
        mid = 0.5 * (left + right)
        q1, q2 = 0.5 * (left + mid), 0.5 * (mid + right)
        fq = np.exp(log_g_safe(np.concatenate([q1, q2])) - shift)
        evaluations += fq.size
        f1, f2 = fq[: left.size], fq[left.size :]
        h = right - left
        coarse = h / 6.0 * (fl + 4.0 * fm + fr)
        fine = h / 12.0 * (fl + 4.0 * f1 + 2.0 * fm + 4.0 * f2 + fr)
        accept = np.abs(fine - coarse) / 15.0 <= _PANEL_TOL * total
        if evaluations > _MAX_EVALUATIONS:
            accept[:] = True
        done_t.append(np.stack([left, q1, mid, q2, right])[:, accept].ravel())
        done_f.append(np.stack([fl, f1, fm, f2, fr])[:, accept].ravel())
        split = ~accept
        left, right = (
            np.concatenate([left[split], mid[split]]),
            np.concatenate([mid[split], right[split]]),
        )
        fl, fm, fr = (
            np.concatenate([fl[split], fm[split]]),
            np.concatenate([f1[split], f2[split]]),
            np.concatenate([fm[split], fr[split]]),
        )
    t_all = np.concatenate(done_t)
    f_all = np.concatenate(done_f)
    order = np.argsort(t_all, kind="stable")
    t_all, f_all = t_all[order], f_all[order]
    unique = np.concatenate([[True], np.diff(t_all) > 0])
    return t_all[unique], f_all[unique], shift


def _invert_cdf(
    t: np.ndarray, cdf: np.ndarray, spline: _Hermite, q: float | np.ndarray
) -> np.ndarray:
    """Return the points of the ``t`` scale where the CDF spline reaches each ``q``.

    The grid points that bracket ``q`` bound one cubic piece of the spline; on it, Newton's
    method from the linear interpolate, falling back to bisection whenever a step would leave
    the shrinking bracket, converges to rounding in a few steps (:data:`_NEWTON_STEPS`).

    Raises
    ------
    ValueError
        If any ``q`` lies outside [0, 1].
    """
    qs = np.asarray(q, dtype=float)
    if np.any(~((qs >= 0.0) & (qs <= 1.0))):
        raise ValueError(f"q must lie in [0, 1]; got {q!r}")
    flat = qs.ravel()
    i = np.clip(np.searchsorted(cdf, flat, side="left"), 1, t.size - 1) - 1
    h = t[i + 1] - t[i]
    # the piece as a polynomial in u = (t - t_i) / h in [0, 1]: y0 + m0 u + c2 u^2 + c3 u^3
    c3, c2, m0, y0 = spline.c[:, i] * np.stack([h**3, h**2, h, np.ones_like(h)])
    lo, hi = np.zeros_like(flat), np.ones_like(flat)
    span = cdf[i + 1] - cdf[i]
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.clip(np.where(span > 0, (flat - cdf[i]) / span, 0.5), 0.0, 1.0)
        for _ in range(_NEWTON_STEPS):
            value = y0 + u * (m0 + u * (c2 + u * c3)) - flat
            slope = m0 + u * (2.0 * c2 + 3.0 * c3 * u)
            below = value < 0.0
            lo, hi = np.where(below, u, lo), np.where(below, hi, u)
            step = u - value / slope
            inside = (step >= lo) & (step <= hi)
            u = np.where(value == 0.0, u, np.where(inside, step, 0.5 * (lo + hi)))
    return (t[i] + h * u).reshape(qs.shape)


@dataclass(frozen=True, slots=True, eq=False)
class ExactMarginal:
    r"""The exact marginal posterior of the judge's Se, Sp or J, on an adaptive grid.

    Made by :meth:`ExactPosterior.marginal`. The density is computed at each grid point as a
    two-dimensional integral over the judged rate R and :math:`1 - S_p` (module docstring,
    "Marginals of Se, Sp and J"), on a smoothing coordinate ``t`` whose grid is refined until
    Simpson's rule on every panel agrees with its halves to :data:`_PANEL_TOL` of the mass;
    the CDF is the cumulative Simpson integral joined by cubic Hermite pieces whose slopes are
    the density values, and quantiles invert it by safeguarded Newton steps, as for pi.

    Attributes
    ----------
    name : {"se", "sp", "j"}
        The quantity.
    mean, sd : float
        Posterior mean and standard deviation (from the quadrature that gives pi's moments,
        which is independent of this grid).
    """

    name: str
    mean: float
    sd: float
    _t: np.ndarray = field(repr=False)
    _cdf: np.ndarray = field(repr=False)
    _spline: _Hermite = field(repr=False)
    _scale: _PiScale = field(repr=False)  # value = lo + (hi - lo) * scale.pi(t)
    _lo: float = field(repr=False)
    _hi: float = field(repr=False)
    _log_mass: float = field(repr=False)  # unnormalised total: equals pi's (a check)

    def _value(self, t: np.ndarray) -> np.ndarray:
        return self._lo + (self._hi - self._lo) * self._scale.pi(t)[0]

    def cdf(self, x: float | np.ndarray) -> float | np.ndarray:
        r"""Posterior CDF :math:`P(X \le x \mid \text{data})`, vectorised over ``x``."""
        xs = np.asarray(x, dtype=float)
        u = np.clip((xs - self._lo) / (self._hi - self._lo), 0.0, 1.0)
        t = self._scale.t(u)
        out = np.clip(self._spline(np.clip(t, self._t[0], self._t[-1])), 0.0, 1.0)
        out = np.where(t < self._t[0], 0.0, np.where(t > self._t[-1], 1.0, out))
        return float(out) if out.ndim == 0 else out

    def quantile(self, q: float | np.ndarray) -> float | np.ndarray:
        """Posterior quantile at probability ``q`` (vectorised over ``q``).

        Raises
        ------
        ValueError
            If any ``q`` lies outside [0, 1].
        """
        out = self._value(_invert_cdf(self._t, self._cdf, self._spline, q))
        return float(out) if out.ndim == 0 else out

    @property
    def median(self) -> float:
        """Posterior median."""
        return float(self.quantile(0.5))

    def eti(self, prob: float = 0.95) -> Interval:
        r"""Equal-tailed credible interval of mass ``prob``: quantiles :math:`(1 \mp p)/2`."""
        check_prob(prob)
        low, high = np.asarray(self.quantile(np.array([(1.0 - prob) / 2.0, (1.0 + prob) / 2.0])))
        return Interval(float(low), float(high), prob, "eti")

    def summary(self, prob: float = 0.95) -> PosteriorSummary:
        """Return the posterior summary: mean, sd, median and equal-tailed interval (no HDI)."""
        return PosteriorSummary(self.name, self.mean, self.sd, self.median, self.eti(prob))


def _marginal(name: str, problem: _Problems, prior: Beta, mean: float, sd: float) -> ExactMarginal:
    """Compute the exact marginal posterior of ``name`` (``"se"``, ``"sp"`` or ``"j"``)."""
    lo, hi = 0.0, 1.0
    if name in ("se", "sp"):
        # Sp of a problem is Se of its mirror image (PASS and FAIL swapped, pi -> 1 - pi)
        if name == "sp":
            problem, prior = problem.mirrored(), Beta(prior.beta, prior.alpha)
        scale = _PiScale(*problem.one()[:2])

        def log_g(t: np.ndarray) -> np.ndarray:
            # f_e(s) ds/dt is the Beta "prior" density of the scale, finite at both ends
            x, cx = scale.pi(t)
            return scale.log_prior(t) + _se_log_density(problem, prior, x, cx)

    elif name == "j":
        scale = _PiScale(1.0, 1.0)  # the identity
        if not problem.restrict_j:
            lo = -1.0

        def log_g(t: np.ndarray) -> np.ndarray:
            width = hi - lo
            return _j_log_density(problem, prior, lo + width * t, width * (1.0 - t)) + np.log(width)

    else:
        raise ValueError(f"name must be one of ['se', 'sp', 'j']; got {name!r}")
    t, g, shift = _adaptive_grid(log_g, 0.0, 1.0)
    cdf = integrate.cumulative_simpson(g, x=t, initial=0.0)
    mass = float(cdf[-1])
    g, cdf = g / mass, cdf / mass
    return ExactMarginal(
        name=name,
        mean=mean,
        sd=sd,
        _t=t,
        _cdf=cdf,
        _spline=_Hermite(t, cdf, g),
        _scale=scale,
        _lo=lo,
        _hi=hi,
        _log_mass=float(np.log(mass) + shift),
    )


# --------------------------------------------------------------------------- result object
@dataclass(frozen=True, slots=True, eq=False)
class ExactPosterior:
    r"""The exact marginal posterior of the true success rate :math:`\pi`, on a grid.

    Made by :func:`exact_posterior`. The density is represented on a grid in a smoothing
    coordinate ``t`` (with :math:`\pi = t^p/\{t^p + (1 - t)^q\}`), on which it is finite and
    smooth; :attr:`grid` and :attr:`density` give it on the :math:`\pi` scale.

    Attributes
    ----------
    grid : ndarray
        Grid of :math:`\pi` values covering the posterior mass (all but about 1e-15).
    density : ndarray
        Normalised posterior density of :math:`\pi` at :attr:`grid` (``inf`` where it has an
        integrable pole, e.g. at :math:`\pi = 0` under a Jeffreys prior).
    log_evidence : float
        Log marginal likelihood :math:`\log p(x_1, x_0, k)` of the six counts under the
        (restricted, renormalised) prior, binomial coefficients included.
    counts : JudgeCounts
        The data.
    priors : PrevalencePriors
        The priors.
    restrict_j : bool
        Whether the prior was restricted to :math:`J > 0`.
    """

    grid: np.ndarray
    density: np.ndarray
    log_evidence: float
    counts: JudgeCounts
    priors: PrevalencePriors
    restrict_j: bool
    _t: np.ndarray = field(repr=False)
    _g: np.ndarray = field(repr=False)  # normalised density on the t scale
    _cdf: np.ndarray = field(repr=False)
    _scale: _PiScale = field(repr=False)
    _moments: np.ndarray = field(repr=False)  # rows pi, se, sp, j, bias; columns mean, sd
    _spline: _Hermite = field(repr=False)  # CDF on the t scale, slopes = density
    _problem: _Problems = field(repr=False)  # the count set, a batch of one
    _marginals: dict[str, ExactMarginal] = field(default_factory=dict, repr=False)

    # ---- moments
    @property
    def mean(self) -> float:
        r"""Posterior mean :math:`E[\pi \mid \text{data}]`."""
        return float(self._moments[0, 0])

    @property
    def sd(self) -> float:
        r"""Posterior standard deviation of :math:`\pi`."""
        return float(self._moments[0, 1])

    def summary(self) -> pd.DataFrame:
        r"""Posterior means and sds of pi, Se, Sp, J and the judge bias R - pi.

        :math:`J = S_e + S_p - 1`; the bias :math:`R - \pi` is the judged pass rate minus the
        true one. All come from the same quadrature as the posterior of :math:`\pi`.

        Returns
        -------
        DataFrame
            Index ``["pi", "se", "sp", "j", "bias"]``, columns ``["mean", "sd"]``.
        """
        import pandas as pd

        return pd.DataFrame(self._moments.copy(), index=list(_SUMMARY_ROWS), columns=["mean", "sd"])

    # ---- distribution functions
    def cdf(self, x: float | np.ndarray) -> float | np.ndarray:
        r"""Posterior CDF :math:`P(\pi \le x \mid \text{data})`, vectorised over ``x``."""
        xs = np.asarray(x, dtype=float)
        t = self._scale.t(np.clip(xs, 0.0, 1.0))
        out = np.clip(self._spline(np.clip(t, self._t[0], self._t[-1])), 0.0, 1.0)
        out = np.where(t < self._t[0], 0.0, np.where(t > self._t[-1], 1.0, out))
        return float(out) if out.ndim == 0 else out

    def pdf(self, x: float | np.ndarray) -> float | np.ndarray:
        r"""Posterior density of :math:`\pi` at ``x`` (cubic interpolation on the ``t`` grid)."""
        xs = np.asarray(x, dtype=float)
        t = self._scale.t(np.clip(xs, 0.0, 1.0))
        inside = (t >= self._t[0]) & (t <= self._t[-1]) & (xs >= 0.0) & (xs <= 1.0)
        g = np.maximum(self._spline(np.clip(t, self._t[0], self._t[-1]), 1), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(inside, g / self._scale.dpi_dt(t), 0.0)
        out = np.where(inside & (g == 0.0), 0.0, out)
        return float(out) if out.ndim == 0 else out

    def quantile(self, q: float | np.ndarray) -> float | np.ndarray:
        r"""Posterior quantile of :math:`\pi` at probability ``q`` (vectorised over ``q``).

        Raises
        ------
        ValueError
            If any ``q`` lies outside [0, 1].
        """
        pi, _ = self._scale.pi(_invert_cdf(self._t, self._cdf, self._spline, q))
        return float(pi) if pi.ndim == 0 else pi

    # ---- intervals
    def eti(self, prob: float = 0.95) -> Interval:
        r"""Equal-tailed credible interval of mass ``prob``: quantiles :math:`(1 \mp p)/2`."""
        check_prob(prob)
        low, high = np.asarray(self.quantile(np.array([(1.0 - prob) / 2.0, (1.0 + prob) / 2.0])))
        return Interval(float(low), float(high), prob, "eti")

    def hdi(self, prob: float = 0.95) -> Interval:
        r"""Shortest interval of posterior mass ``prob`` (the HDI of a unimodal posterior).

        Minimises :math:`Q(\alpha + p) - Q(\alpha)` over the lower tail mass
        :math:`\alpha \in [0, 1 - p]`: a grid search, then Brent's bounded minimisation
        (``scipy.optimize.minimize_scalar``) between the neighbours of the best grid point.
        """
        from scipy import optimize

        check_prob(prob)
        alphas = np.linspace(0.0, 1.0 - prob, 401)
        widths = np.asarray(self.quantile(alphas + prob)) - np.asarray(self.quantile(alphas))
        best = int(np.argmin(widths))
        lo_a, hi_a = alphas[max(best - 1, 0)], alphas[min(best + 1, alphas.size - 1)]

        def width(alpha: float) -> float:
            return float(self.quantile(min(alpha + prob, 1.0))) - float(self.quantile(alpha))

        found = float(
            optimize.minimize_scalar(
                width, bounds=(float(lo_a), float(hi_a)), options={"xatol": 1e-10}
            ).x
        )
        alpha = found if width(found) <= widths[best] else float(alphas[best])
        low, high = np.asarray(self.quantile(np.array([alpha, min(alpha + prob, 1.0)])))
        return Interval(float(low), float(high), prob, "hdi")

    def marginal(self, name: Literal["se", "sp", "j"]) -> ExactMarginal:
        """Return the exact marginal posterior of the judge's Se, Sp or J (computed once).

        Raises
        ------
        ValueError
            If ``name`` is not ``"se"``, ``"sp"`` or ``"j"``.
        """
        if name not in _MARGINAL_ROWS:
            raise ValueError(f"name must be one of {list(_MARGINAL_ROWS)}; got {name!r}")
        if name not in self._marginals:
            row = _SUMMARY_ROWS.index(name)
            mean, sd = (float(v) for v in self._moments[row])
            self._marginals[name] = _marginal(name, self._problem, self.priors.pi, mean, sd)
        return self._marginals[name]

    def summaries(self, prob: float = 0.95) -> dict[str, PosteriorSummary]:
        """Return the posterior summaries of pi, Se, Sp and J.

        Each has the mean, sd, median and equal-tailed interval of mass ``prob``; pi's also has
        its highest-density interval. The schema is that of the NUTS summaries
        (:func:`bayesjudge.posterior_summary`).
        """
        out = {
            "pi": PosteriorSummary(
                name="pi",
                mean=self.mean,
                sd=self.sd,
                median=float(self.quantile(0.5)),
                eti=self.eti(prob),
                hdi=self.hdi(prob),
            )
        }
        for name in _MARGINAL_ROWS:
            out[name] = self.marginal(name).summary(prob)
        return out

    def to_estimate(
        self, prob: float = 0.95, *, interval: Literal["eti", "hdi"] = "eti"
    ) -> Estimate:
        r"""Return the posterior mean with a credible interval as an :class:`Estimate`.

        The method name is ``"bayes_exact"``; ``se`` is the posterior sd and ``j`` the posterior
        mean of :math:`J`.
        """
        if interval not in ("eti", "hdi"):
            raise ValueError(f"interval must be one of ['eti', 'hdi']; got {interval!r}")
        iv = self.eti(prob) if interval == "eti" else self.hdi(prob)
        notes = ("prior restricted to J = Se + Sp - 1 > 0",) if self.restrict_j else ()
        return Estimate(
            method="bayes_exact",
            estimate=self.mean,
            interval=iv,
            se=self.sd,
            j=float(self._moments[3, 0]),
            notes=notes,
        )


# --------------------------------------------------------------------------- the public function
def _as_counts(data: JudgeData | JudgeCounts | TableLike) -> JudgeCounts:
    if isinstance(data, JudgeCounts):
        return data
    return JudgeData.coerce(data).counts


def _pi_bracket(problems: _Problems) -> tuple[np.ndarray, np.ndarray]:
    """Range of pi = (R - 1 + Sp) / J over the box of 1e-12 quantiles of Se, Sp and R.

    Per count set; (0, 1) where J comes near 0 within the box (a weak or inverted judge).
    """
    eps = np.array([_BRACKET_EPS, 1.0 - _BRACKET_EPS])

    def corners(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        x, _ = _beta_ppf_pair(a[:, None], b[:, None], eps, 1.0 - eps)  # type: ignore[arg-type]
        return x

    k, n = problems.k, problems.n
    s_e = corners(problems.a_e, problems.b_e)[:, :, None, None]
    s_p = corners(problems.a_p, problems.b_p)[:, None, :, None]
    rr = corners(k + 1.0, n - k + 1.0)[:, None, None, :]
    j = s_e + s_p - 1.0
    weak = np.min(j, axis=(1, 2, 3)) <= 1e-3
    with np.errstate(divide="ignore", invalid="ignore"):
        pi = np.clip((rr - 1.0 + s_p) / j, 0.0, 1.0)
    low, high = np.min(pi, axis=(1, 2, 3)), np.max(pi, axis=(1, 2, 3))
    pad = 0.05 * (high - low) + 1e-9
    low = np.where(weak, 0.0, np.maximum(low - pad, 0.0))
    high = np.where(weak, 1.0, np.minimum(high + pad, 1.0))
    return low, high


def _pi_grids(
    integrator: _Integrator,
    scale: _PiScale,
    size: int,
    what: Callable[[int], str],
    moments: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Return each count set's grid of ``t``, log density there and (with ``moments``) means.

    The support of each posterior is bracketed (:func:`_pi_bracket`) and shrunk on a coarse
    grid (:func:`_support`); then ``size`` points cover it. Shapes (B, size), (B, size) and
    (B * size, 7) for the conditional means of :class:`_Integrator`.
    """

    def evaluate(
        row: np.ndarray, t: np.ndarray, moments: bool = False
    ) -> tuple[np.ndarray, np.ndarray | None]:
        flat = t.ravel()
        pi, cpi = scale.pi(flat)
        log_i, means = integrator(np.repeat(row, t.shape[1]), pi, cpi, moments)
        log_g = scale.log_prior(flat) + log_i
        return np.where(np.isnan(log_g), -np.inf, log_g).reshape(t.shape), means

    low, high = _pi_bracket(integrator.problems)
    lo, hi, _ = _support(lambda rows, t: evaluate(rows, t)[0], scale.t(low), scale.t(high), what)
    t = np.linspace(lo, hi, size, axis=-1)
    log_g, means = evaluate(np.arange(lo.size), t, moments)
    return t, log_g, means


def _normalised(t: np.ndarray, log_g: np.ndarray) -> tuple[float, float, np.ndarray, np.ndarray]:
    """Return the shift and Simpson mass of ``exp(log_g)`` on ``t``, the density and its CDF.

    The density ``g = exp(log_g - shift) / mass`` integrates to 1 by Simpson's rule
    (``scipy.integrate.simpson``); the CDF is its cumulative Simpson integral
    (``scipy.integrate.cumulative_simpson``), scaled to end at 1.
    """
    top = float(np.max(log_g))
    g = np.exp(log_g - top)
    z = float(integrate.simpson(g, x=t))
    g = g / z
    cdf = integrate.cumulative_simpson(g, x=t, initial=0.0)
    return top, z, g, cdf / cdf[-1]


def _log_prior_mass_j_positive(priors: PrevalencePriors) -> float:
    """Log P(Se + Sp > 1) under the independent Beta priors of Se and Sp."""
    u, w = _gauss_legendre_01(200)
    se, _cse = _beta_ppf_pair(priors.se.alpha, priors.se.beta, u, 1.0 - u)
    # P(Sp > 1 - Se) = P(1 - Sp < Se), with 1 - Sp ~ Beta(beta_sp, alpha_sp)
    inner = special.betainc(priors.sp.beta, priors.sp.alpha, se)
    return float(np.log(np.sum(w * inner)))


def _checked_settings(
    priors: PrevalencePriors | None, grid_size: int, nodes: int
) -> PrevalencePriors:
    """Return ``priors`` (Jeffreys when None) after checking them and the quadrature's sizes."""
    priors = PrevalencePriors() if priors is None else priors
    if isinstance(grid_size, bool) or not isinstance(grid_size, int | np.integer) or grid_size < 33:
        raise ValueError(f"grid_size must be an integer >= 33; got {grid_size!r}")
    if isinstance(nodes, bool) or not isinstance(nodes, int | np.integer) or nodes < 8:
        raise ValueError(f"nodes must be an integer >= 8; got {nodes!r}")
    if min(priors.pi.alpha, priors.pi.beta) < MIN_PI_SHAPE:
        raise DataError(
            f"priors: the exact posterior is accurate for a Beta prior on pi with both shapes "
            f"at least {MIN_PI_SHAPE}; got pi ~ {priors.pi}. Sample it instead "
            "(fit_prevalence, or bayesjudge estimate without --method exact)"
        )
    return priors


def exact_posterior(
    data: JudgeData | JudgeCounts | TableLike,
    *,
    priors: PrevalencePriors | None = None,
    restrict_j: bool = True,
    grid_size: int = DEFAULT_GRID_SIZE,
    nodes: int = 48,
) -> ExactPosterior:
    r"""Compute the exact posterior of the true success rate by numerical integration.

    The model is

    .. math::

        \pi \sim \mathrm{Beta}(a_\pi, b_\pi),\ S_e \sim \mathrm{Beta}(a_e, b_e),\
        S_p \sim \mathrm{Beta}(a_p, b_p)\ \text{(restricted to } S_e + S_p > 1\text{ by default)},

        x_1 \sim \mathrm{Bin}(m_1, S_e),\quad x_0 \sim \mathrm{Bin}(m_0, 1 - S_p),\quad
        k \sim \mathrm{Bin}(n, \pi S_e + (1 - \pi)(1 - S_p)),

    and the marginal posterior is

    .. math::

        p(\pi \mid \text{data}) \propto f_\pi(\pi) \int_0^1 \int_{1 - S_e}^{1}
        f_e(S_e)\, f_p(S_p)\, R^k (1 - R)^{n - k}\, dS_p\, dS_e,

    with :math:`f_e, f_p` the calibration-only Beta posteriors of :math:`S_e, S_p`. The
    docstring of :mod:`bayesjudge.prevalence.exact` explains the quadrature
    (probability-integral-transform Gauss-Legendre nodes for :math:`S_e, S_p`, the
    :math:`J > 0` boundary integrated through the regularised incomplete Beta function, an
    adaptive grid for :math:`\pi`) and how the marginals of Se, Sp and J are computed
    (:meth:`ExactPosterior.marginal`).

    Parameters
    ----------
    data : JudgeData, JudgeCounts, DataFrame or path
        Binary judge verdicts with a gold-labelled calibration subset, or the six counts.
    priors : PrevalencePriors, optional
        Beta priors on :math:`\pi, S_e, S_p`; Jeffreys Beta(1/2, 1/2) on each by default.
    restrict_j : bool
        Restrict the prior to :math:`J = S_e + S_p - 1 > 0` (default), which removes the
        label-switching mirror mode; ``False`` integrates over the whole unit cube.
    grid_size : int
        Number of grid points for :math:`\pi` (made odd for Simpson's rule), at least 33.
    nodes : int
        Gauss-Legendre nodes per calibration variable, at least 8.

    Returns
    -------
    ExactPosterior

    Raises
    ------
    DataError
        If the data hold judge scores rather than binary verdicts, or fail validation.
        Also if a shape of the prior on pi is below :data:`MIN_PI_SHAPE` (sample that posterior
        with :func:`~bayesjudge.prevalence.fit.fit_prevalence` instead), or if the posterior
        vanishes on its whole grid (labels that make the judge inverted, under the
        :math:`J > 0` restriction).
    ValueError
        If ``grid_size`` or ``nodes`` is too small.

    Examples
    --------
    >>> from bayesjudge.prevalence.data import JudgeCounts
    >>> post = exact_posterior(JudgeCounts(m1=122, x1=103, m0=401, x0=2, n=3330, k=50))
    >>> round(post.mean, 4), round(post.sd, 4)
    (0.0097, 0.0052)
    >>> post.eti(0.95).kind
    'eti'
    """
    counts = _as_counts(data)
    priors = _checked_settings(priors, grid_size, nodes)
    size = int(grid_size) | 1
    problems = _Problems.of([counts], priors, restrict_j)
    scale = _PiScale(priors.pi.alpha, priors.pi.beta)
    # the support on a coarse grid (shrinking it while the posterior is narrower than a few
    # coarse cells), then the full grid over the support, with the conditional moments
    grids, log_gs, found = _pi_grids(
        _Integrator(problems, int(nodes), smooth_large=False),
        scale,
        size,
        lambda _row: "the posterior of pi vanishes on its whole grid",
        moments=True,
    )
    t = grids[0]
    assert found is not None
    means = found
    top, z, g, cdf = _normalised(t, log_gs[0])
    pi, _cpi = scale.pi(t)

    def expect(values: np.ndarray) -> float:
        return float(integrate.simpson(g * values, x=t))

    se1, se2, sp1, sp2, sesp, r1, r2 = means.T
    pi_m, pi_2 = expect(pi), expect(pi * pi)
    se_m, sp_m = expect(se1), expect(sp1)
    j_m = se_m + sp_m - 1.0
    j_2 = expect(se2 + sp2 + 1.0 + 2.0 * sesp - 2.0 * se1 - 2.0 * sp1)
    bias_m = expect(r1) - pi_m
    bias_2 = expect(r2 - 2.0 * pi * r1 + pi * pi)
    moments = np.array(
        [
            [pi_m, pi_2 - pi_m**2],
            [se_m, expect(se2) - se_m**2],
            [sp_m, expect(sp2) - sp_m**2],
            [j_m, j_2 - j_m**2],
            [bias_m, bias_2 - bias_m**2],
        ]
    )
    moments[:, 1] = np.sqrt(np.maximum(moments[:, 1], 0.0))

    a_e, b_e, a_p, b_p, _, _ = problems.one()
    log_evidence = (
        top
        + np.log(z)
        + special.betaln(a_e, b_e)
        - special.betaln(priors.se.alpha, priors.se.beta)
        + special.betaln(a_p, b_p)
        - special.betaln(priors.sp.alpha, priors.sp.beta)
        + _log_binom(counts.m1, counts.x1)
        + _log_binom(counts.m0, counts.x0)
        + _log_binom(counts.n, counts.k)
    )
    if problems.restrict_j:
        log_evidence -= _log_prior_mass_j_positive(priors)

    with np.errstate(divide="ignore", invalid="ignore"):
        density = g / scale.dpi_dt(t)
    density = np.where(g == 0.0, 0.0, density)
    return ExactPosterior(
        grid=pi,
        density=density,
        log_evidence=float(log_evidence),
        counts=counts,
        priors=priors,
        restrict_j=bool(restrict_j),
        _t=t,
        _g=g,
        _cdf=cdf,
        _scale=scale,
        _moments=moments,
        _spline=_Hermite(t, cdf, g),
        _problem=problems,
    )


def _log_binom(total: int, part: int) -> float:
    log_factorial = special.gammaln
    return float(
        log_factorial(total + 1.0) - log_factorial(part + 1.0) - log_factorial(total - part + 1.0)
    )


def eti_widths(
    counts: Sequence[JudgeCounts],
    prob: float = 0.95,
    *,
    priors: PrevalencePriors | None = None,
    restrict_j: bool = True,
    grid_size: int = DEFAULT_GRID_SIZE,
    nodes: int = 48,
) -> np.ndarray:
    r"""Widths of the equal-tailed intervals of :math:`\pi` for many count sets at once.

    For each count set, the width :math:`Q(\tfrac{1 + p}{2}) - Q(\tfrac{1 - p}{2})` of the
    equal-tailed interval of mass :math:`p` = ``prob`` of the marginal posterior

    .. math::

        p(\pi \mid \text{data}) \propto f_\pi(\pi) \int_0^1 \int_{1 - S_e}^{1}
        f_e(S_e)\, f_p(S_p)\, R^k (1 - R)^{n - k}\, dS_p\, dS_e ,

    by the same quadrature as :func:`exact_posterior` with the same ``grid_size`` and
    ``nodes`` (the same nodes, brackets, support search and grid), evaluated for all count sets
    together on arrays with a leading batch axis, and without the moments, marginals and
    evidence that :func:`exact_posterior` also computes. One difference: where both shapes of
    the calibration posterior behind the inner nodes are 1e4 or more (a calibration set of
    millions, such as the plan's floor), those nodes' Beta quantiles come from a Chebyshev
    interpolant of ``betaincinv`` in the normal score (32 ``betaincinv`` values instead of one
    per node, which at shapes of 1e8 take 25 us each). The widths equal
    ``exact_posterior(c, ...).eti(prob).width`` to rounding (the tests check 1e-10; 2e-15
    measured on count sets of 1e8 labels); the
    preposterior label plan (:func:`bayesjudge.prevalence.plan.plan_labels`) refits many
    augmented count sets this way. The model is that of Joseph, Gyorkos and Coupal (1995),
    "Bayesian estimation of disease prevalence and the parameters of diagnostic tests in the
    absence of a gold standard", with the :math:`J > 0` restriction of Lee et al. (2025).

    Parameters
    ----------
    counts : sequence of JudgeCounts
        The count sets.
    prob : float
        Interval mass.
    priors : PrevalencePriors, optional
        Beta priors on :math:`\pi, S_e, S_p`, shared by every count set; Jeffreys by default.
    restrict_j : bool
        Restrict the prior to :math:`J = S_e + S_p - 1 > 0` (default).
    grid_size : int
        Number of grid points for :math:`\pi` (made odd for Simpson's rule), at least 33.
    nodes : int
        Gauss-Legendre nodes per calibration variable, at least 8.

    Returns
    -------
    ndarray
        One width per count set, in their order.

    Raises
    ------
    DataError
        If a shape of the prior on pi is below :data:`MIN_PI_SHAPE`, or a count set's
        posterior vanishes on its whole grid.
    ValueError
        If ``prob``, ``grid_size`` or ``nodes`` is out of range, or an element of ``counts``
        is not a :class:`JudgeCounts`.

    Examples
    --------
    >>> from bayesjudge.prevalence.data import JudgeCounts
    >>> sets = [JudgeCounts(150, 140, 150, 24, 2000, 1349)]
    >>> sets.append(JudgeCounts(300, 281, 300, 47, 2000, 1349))
    >>> widths = eti_widths(sets, grid_size=129, nodes=24)
    >>> one = exact_posterior(sets[1], grid_size=129, nodes=24).eti(0.95).width
    >>> bool(abs(widths[1] - one) < 1e-10), bool(widths[0] > widths[1])
    (True, True)
    """
    prob = check_prob(prob)
    priors = _checked_settings(priors, grid_size, nodes)
    sets = list(counts)
    for index, c in enumerate(sets):
        if not isinstance(c, JudgeCounts):
            raise ValueError(f"counts[{index}] must be a JudgeCounts; got {type(c).__name__}")
    if not sets:
        return np.empty(0)
    scale = _PiScale(priors.pi.alpha, priors.pi.beta)
    problems = _Problems.of(sets, priors, restrict_j)
    tails = np.array([(1.0 - prob) / 2.0, (1.0 + prob) / 2.0])
    # count sets are batched with those of the same numbers of outer panels (straight and
    # mirrored), so that no batch carries empty panels
    group = _panels(problems)[2] * 8 + _panels(problems.mirrored())[2]
    widths = np.empty(len(sets))
    for value in np.unique(group):
        rows = np.flatnonzero(group == value)

        def what(row: int, rows: np.ndarray = rows) -> str:
            index = int(rows[row])
            return (
                f"the posterior of pi vanishes on its whole grid for counts[{index}] "
                f"({sets[index]})"
            )

        integrator = _Integrator(problems.take(rows), int(nodes), smooth_large=True)
        t, log_g, _ = _pi_grids(integrator, scale, int(grid_size) | 1, what, moments=False)
        for row, t_row, log_g_row in zip(rows, t, log_g, strict=True):
            _, _, g, cdf = _normalised(t_row, log_g_row)
            ends, _ = scale.pi(_invert_cdf(t_row, cdf, _Hermite(t_row, cdf, g), tails))
            widths[row] = float(ends[1]) - float(ends[0])
    return widths
