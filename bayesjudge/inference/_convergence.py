r"""Rank-normalised split R-hat, bulk ESS and tail ESS in numpy, over any leading batch axes.

:func:`~bayesjudge.inference.diagnostics.check_fit` takes these statistics (and the MCSE) from
ArviZ (``arviz_stats.base.array_stats``). The studies check thousands of fits at once, where
ArviZ's Python loop over scalars and over autocorrelation lags would cost more than the
sampling; :func:`convergence` computes the numbers ``array_stats`` (1.3) gives for the same
array, operation for operation, for an array of shape ``(..., chain, draw)`` in one pass
(``tests/inference/test_convergence.py`` checks them against ArviZ on many seeded arrays).

The definitions (Vehtari, Gelman, Simpson, Carpenter and Bürkner, "Rank-normalization,
folding, and localization: an improved R-hat for assessing convergence of MCMC", 2021), with
the details ArviZ fixes:

* **split**: each chain of :math:`n` draws is cut into its first and last
  :math:`\lfloor n/2 \rfloor` draws (the middle draw of an odd chain is dropped), giving
  :math:`2 \times` chains half-chains.
* **rank normalisation**: over all draws of the split array, ranks :math:`r` with ties given
  their average rank (``scipy.stats.rankdata(method="average")``; NaN left out of the ranking
  but counted in :math:`S`), then :math:`z = \Phi^{-1}((r - 3/8) / (S - 3/4 + 1))` (Blom 1958),
  :math:`S` the number of draws.
* **R-hat**: :math:`\hat R = \max(\hat R_{bulk}, \hat R_{tail})`, each the split
  :math:`\sqrt{(B/W + n - 1)/n}` of Gelman and Rubin on the rank-normalised draws (bulk) and on
  the rank-normalised draws folded about their median, :math:`|x - \mathrm{median}(x)|`
  (tail); :math:`B/n` the variance of the half-chain means, :math:`W` the mean of the
  half-chain variances (both with ``ddof=1``). As Python's ``max`` in ArviZ: a NaN tail value
  gives the bulk value.
* **ESS**: :math:`S / \hat\tau` with :math:`\hat\tau = -1 + 2 \sum_{t=0}^{T} \hat\rho_t +
  \hat\rho_{T+1}`, :math:`\hat\rho_t = 1 - (W - \bar\gamma_t)/\widehat{\mathrm{var}}^+` from the
  FFT autocovariances :math:`\bar\gamma_t` averaged over half-chains, truncated by Geyer's
  initial positive sequence (sums of pairs :math:`\hat\rho_{2j} + \hat\rho_{2j+1}`, stopping at
  the first pair that is not positive) and made monotone by Geyer's initial monotone sequence;
  :math:`\hat\tau` is at least :math:`1/\log_{10} S`, and a scalar whose range is below
  ``numpy.finfo(float).resolution`` (1e-15) has ESS :math:`S`.
* **bulk ESS**: the ESS of the rank-normalised split draws.
* **tail ESS** with ``prob`` :math:`p`: the smaller ESS of the indicators
  :math:`I(x \le q_p)` and :math:`I(x \le q_{1-p})` of the two quantiles (numpy's linear
  quantile over all draws), split. ArviZ's ``prob`` names one quantile, not an interval mass:
  ``prob=0.9`` gives the 10% and 90% quantiles. As Python's ``min`` in ArviZ, a NaN ESS of the
  lower quantile wins and one of the upper quantile is ignored.

A scalar with a NaN draw or fewer than 4 draws gets NaN (and, for R-hat, one with fewer than 2
chains), as in ArviZ. Infinite draws are ranked like any other value.

The sums whose floating-point result depends on the summation order are taken with the same
numpy reductions ArviZ uses on the same contiguous rows, so the values agree with ArviZ's to
the last bit on the arrays tested, not only to rounding.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["convergence", "ess"]

#: Blom's fractional offset of the rank back-transformation.
_BLOM = 3 / 8
#: Fewest draws per chain for any statistic.
_MIN_DRAWS = 4
#: Autocorrelation lags examined before all of them (Geyer's sequence stops early in a chain
#: that mixes; the result is the same either way).
_FIRST_LAGS = 64


def _as_draws(draws: np.ndarray) -> np.ndarray:
    values = np.asarray(draws, dtype=float)
    if values.ndim < 2:
        raise ValueError(
            f"draws must have shape (..., chain, draw); got an array of shape {values.shape}"
        )
    return values


def _nan(values: np.ndarray) -> np.ndarray:
    """NaN for each scalar: what every statistic gives for fewer than 4 draws."""
    return np.full(values.shape[:-2], np.nan)


def _split(values: np.ndarray) -> np.ndarray:
    """Cut each chain into its first and last halves: ``(..., 2 chain, draw // 2)``."""
    half = values.shape[-1] // 2
    return np.concatenate((values[..., :half], values[..., values.shape[-1] - half :]), axis=-2)


def _scores_in_order(order: np.ndarray, ordered: np.ndarray) -> np.ndarray:
    """Return the normal scores of rows, given their sorting ``order`` and sorted ``ordered``.

    Tied values get the score of their average rank; NaN (sorted last) stays NaN.
    """
    size = ordered.shape[-1]
    z_sorted = np.empty(ordered.shape)  # C order, so that reshape(-1) is a view
    z_sorted[...] = _normal_scores(size)
    ties = ordered[..., 1:] == ordered[..., :-1]
    if ties.any():
        # each run of consecutive tied pairs at sorted positions first .. last - 1 is one tie
        # group first .. last (flat indices; a run never crosses rows)
        rows, pos = np.nonzero(ties.reshape(-1, size - 1))
        where = rows * size + pos
        breaks = np.flatnonzero(np.diff(where) != 1)
        first = where[np.r_[0, breaks + 1]]
        last = where[np.r_[breaks, where.size - 1]] + 1
        lengths = last - first + 1
        # the group's average of the ranks first + 1 .. last + 1 (positions within the row)
        scores = _scores(0.5 * (first % size + last % size + 2), size)
        offsets = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        z_sorted.reshape(-1)[np.repeat(first, lengths) + offsets] = np.repeat(scores, lengths)
    z_sorted[np.isnan(ordered)] = np.nan
    z = np.empty(ordered.shape)  # C order: the reductions that follow sum as ArviZ's do
    np.put_along_axis(z, order, z_sorted, axis=-1)
    return z


def _median_sorted(ordered: np.ndarray) -> np.ndarray:
    """``np.median`` of each row from the row sorted (NaN last): the same number."""
    size = ordered.shape[-1]
    half = size // 2
    if size % 2:
        median = ordered[..., half].copy()
    else:
        median = np.mean(ordered[..., half - 1 : half + 1], axis=-1)
    return np.where(np.isnan(ordered[..., -1]), np.nan, median)


def _folded_scores(order: np.ndarray, ordered: np.ndarray) -> np.ndarray:
    r"""Return the normal scores of :math:`|x - \mathrm{median}(x)|` per row, from its sorting.

    In sorted order the folded values fall to the median and rise after it: two sorted runs,
    which a stable sort (timsort) merges in linear time instead of sorting afresh.
    """
    size = ordered.shape[-1]
    median = _median_sorted(ordered)[..., None]
    folded = np.abs(ordered - median)
    below = np.sum(ordered < median, axis=-1, keepdims=True)
    position = np.arange(size)
    runs = np.where(position < below, below - 1 - position, position)
    merged = np.take_along_axis(folded, runs, axis=-1)
    perm = np.argsort(merged, axis=-1, kind="stable")
    order_folded = np.take_along_axis(np.take_along_axis(order, runs, axis=-1), perm, axis=-1)
    return _scores_in_order(order_folded, np.take_along_axis(merged, perm, axis=-1))


def _scores(ranks: np.ndarray, size: int) -> np.ndarray:
    """Blom's normal scores of ``ranks`` among ``size`` draws."""
    from scipy.special import ndtri

    return np.asarray(ndtri((ranks - _BLOM) / (size - 2 * _BLOM + 1)))


@functools.lru_cache(maxsize=16)
def _normal_scores(size: int) -> np.ndarray:
    """Return the normal scores of the ranks 1 .. ``size`` (those of every scalar without ties)."""
    scores = _scores(np.arange(size) + 1.0, size)
    scores.flags.writeable = False
    return scores


def _gelman_rubin(values: np.ndarray) -> np.ndarray:
    """Split-free Gelman-Rubin R-hat of ``(..., chain, draw)`` (the chains given)."""
    n = values.shape[-1]
    chain_mean = np.mean(values, axis=-1)
    chain_var = np.var(values, axis=-1, ddof=1)
    between = n * np.var(chain_mean, axis=-1, ddof=1)
    within = np.mean(chain_var, axis=-1)
    return np.sqrt((between / within + n - 1) / n)


def _bulk_and_tail_rhat(split: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bulk and tail (folded) R-hat of split draws, and their rank-normalised values."""
    flat = split.reshape(*split.shape[:-2], -1)
    order = np.argsort(flat, axis=-1)
    ordered = np.take_along_axis(flat, order, axis=-1)
    z = _scores_in_order(order, ordered).reshape(split.shape)
    folded = _folded_scores(order, ordered).reshape(split.shape)
    return _gelman_rubin(z), _gelman_rubin(folded), z


def _geyer_sums(
    acov: np.ndarray, chain_mean: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, bool]:
    r"""Return (rho, L, complete): Geyer's truncated, monotone autocorrelations.

    ``acov`` has shape (..., chain, lag): the autocovariances of the first lags of chains of
    ``n`` draws; ``chain_mean`` (..., chain). ``rho[..., :L]`` enters :math:`\hat\tau` twice
    and ``rho[..., L]`` once. ``complete`` is False when a scalar's initial positive sequence
    runs past the lags given (then the caller passes them all).
    """
    n_chain, lags = acov.shape[-2], acov.shape[-1]
    # the mean over chains of each lag, reduced along a contiguous axis as ArviZ's np.mean of
    # one lag's column is
    lag_mean = np.mean(np.ascontiguousarray(np.swapaxes(acov, -1, -2)), axis=-1)
    mean_var = lag_mean[..., 0] * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n
    if n_chain > 1:
        var_plus = var_plus + np.var(chain_mean, axis=-1, ddof=1)
    rho = 1.0 - (mean_var[..., None] - lag_mean) / var_plus[..., None]
    rho[..., 0] = 1.0
    reachable = max(0, (n - 3) // 2)  # pairs j = 1..reachable are reachable by ArviZ's loop
    pairs = min(reachable, max(0, (lags - 2) // 2))
    pair_sum = np.empty((*rho.shape[:-1], pairs + 1))
    pair_sum[..., 0] = 1.0 + rho[..., 1]
    pair_sum[..., 1:] = rho[..., 2 : 2 * pairs + 2 : 2] + rho[..., 3 : 2 * pairs + 2 : 2]
    stops = ~(pair_sum > 0.0)
    stopped = stops.any(axis=-1)
    complete = pairs == reachable or bool(stopped.all())
    last = np.where(stopped, np.argmax(stops, axis=-1), pairs)  # the last pair computed
    j = np.arange(pairs + 1)
    kept = (j <= last[..., None]) & (pair_sum >= 0.0)
    kept[..., 0] = True
    out = np.zeros_like(rho)
    both = np.repeat(kept, 2, axis=-1)
    out[..., : 2 * pairs + 2] = np.where(both, rho[..., : 2 * pairs + 2], 0.0)
    # the even value after the last pair computed, when positive
    last_even = np.take_along_axis(rho, (2 * last)[..., None], axis=-1)[..., 0]
    last_even = np.where(last == 0, 1.0, last_even)
    np.put_along_axis(
        out,
        (2 * last)[..., None],
        np.where(
            last_even > 0,
            last_even,
            np.take_along_axis(out, (2 * last)[..., None], axis=-1)[..., 0],
        )[..., None],
        axis=-1,
    )
    # Geyer's initial monotone sequence over pairs 1 .. last - 1: a pair whose sum exceeds the
    # running minimum of the earlier sums is replaced by half that minimum in both places
    running = np.minimum.accumulate(pair_sum, axis=-1)
    lower = np.zeros_like(pair_sum, dtype=bool)
    lower[..., 1:] = (pair_sum[..., 1:] > running[..., :-1]) & (j[1:] <= last[..., None] - 1)
    if lower.any():
        half = np.zeros_like(pair_sum)
        half[..., 1:] = running[..., :-1] / 2.0
        both = np.repeat(lower, 2, axis=-1)
        out[..., : 2 * pairs + 2] = np.where(
            both, np.repeat(half, 2, axis=-1), out[..., : 2 * pairs + 2]
        )
    return out, 2 * last, complete


def ess(values: np.ndarray) -> np.ndarray:
    r"""Effective sample size of already split (and transformed) draws ``(..., chain, draw)``.

    :math:`S/\hat\tau` with Geyer's truncation (module docstring); :math:`S` when the range of
    a scalar's draws is below 1e-15. No NaN or shape check: the callers make those.

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(size=(8, 500))
    >>> bool(3000 < ess(x) < 5000)
    True
    """
    from scipy import fft  # on these batched rows about 15% faster than numpy.fft (measured)

    y = np.ascontiguousarray(values, dtype=float)
    n_chain, n = y.shape[-2], y.shape[-1]
    size = n_chain * n
    with np.errstate(divide="ignore", invalid="ignore"):
        constant = (np.max(y, axis=(-2, -1)) - np.min(y, axis=(-2, -1))) < np.finfo(
            float
        ).resolution
        m = fft.next_fast_len(2 * n)
        centred = y - y.mean(axis=-1, keepdims=True)
        spectrum = fft.rfft(centred, n=m, axis=-1)
        spectrum *= np.conjugate(spectrum)
        acov = fft.irfft(spectrum, n=m, axis=-1)
        chain_mean = y.mean(axis=-1)
        # the truncation is usually reached within a few lags: look at the first ones first
        window = min(n, _FIRST_LAGS)
        rho, twice, complete = _geyer_sums(acov[..., :window] / n, chain_mean, n)
        if not complete:
            rho, twice, _ = _geyer_sums(acov[..., :n] / n, chain_mean, n)
        # np.sum of rho[:L], one length at a time: the same pairwise summation as ArviZ's
        flat_rho = rho.reshape(-1, rho.shape[-1])
        flat_twice = twice.reshape(-1)
        head = np.empty(flat_twice.shape)
        for length in np.unique(flat_twice):
            rows = np.flatnonzero(flat_twice == length)
            head[rows] = np.sum(flat_rho[rows, :length], axis=-1)
        once = np.take_along_axis(flat_rho, flat_twice[:, None], axis=-1)[:, 0]
        tau = -1.0 + 2.0 * head + once
        floor = 1 / np.log10(size)
        tau = np.where(floor > tau, floor, tau).reshape(twice.shape)
        out = size / tau
        out = np.where(np.isnan(rho).any(axis=-1), np.nan, out)
    return np.where(constant, float(size), out)


def convergence(draws: np.ndarray, *, tail_prob: float) -> tuple[np.ndarray, ...]:
    """Return rank-normalised split R-hat, bulk ESS and tail ESS, sharing the work.

    The numbers of ArviZ's ``array_stats.rhat(method="rank")``, ``array_stats.ess(method=
    "bulk")`` and ``array_stats.ess(method="tail", prob=tail_prob)`` (module docstring), from
    one split and rank normalisation and one batched autocovariance pass.

    Parameters
    ----------
    draws : ndarray, shape (..., chain, draw)
    tail_prob : float
        One of the two quantiles of the tail ESS (the other is ``1 - tail_prob``).

    Returns
    -------
    r_hat, ess_bulk, ess_tail : ndarray, shape (...)

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(size=(3, 4, 500))
    >>> [a.shape for a in convergence(x, tail_prob=0.9)]
    [(3,), (3,), (3,)]
    """
    values = _as_draws(draws)
    if values.shape[-1] < _MIN_DRAWS:
        return _nan(values), _nan(values), _nan(values)
    low, high = sorted((tail_prob, 1 - tail_prob))
    with np.errstate(divide="ignore", invalid="ignore"):
        bulk_r, tail_r, z = _bulk_and_tail_rhat(_split(values))
        r_hat = np.where(tail_r > bulk_r, tail_r, bulk_r)
        quantiles = _quantiles(values, (low, high))
        bulk, ess_low, ess_high = ess(
            np.stack(
                (
                    z,
                    _split(values <= quantiles[..., 0, None, None]),
                    _split(values <= quantiles[..., 1, None, None]),
                )
            )
        )
    tail = np.where(ess_high < ess_low, ess_high, ess_low)
    nan = np.isnan(values).any(axis=(-2, -1))
    return (
        np.where(nan | (values.shape[-2] < 2), np.nan, r_hat),
        np.where(nan, np.nan, bulk),
        np.where(nan, np.nan, tail),
    )


def _quantiles(values: np.ndarray, probs: tuple[float, ...]) -> np.ndarray:
    """Numpy's linear quantiles ``probs`` of each scalar's draws: shape (..., len(probs))."""
    flat = values.reshape(*values.shape[:-2], -1)
    return np.moveaxis(np.quantile(flat, list(probs), axis=-1), 0, -1)
