"""The batched numpy convergence statistics against ArviZ's own (``arviz_stats.base.array_stats``).

``check_fit`` calls ArviZ itself; the studies use :func:`bayesjudge.inference._convergence.
convergence` for thousands of fits at once. Its R-hat, bulk ESS and tail ESS are compared,
scalar by scalar, with ArviZ's values on the same seeded arrays: independent and autocorrelated
chains (AR(1) up to phi = 0.99 and negative), heavy tails (Cauchy), discrete draws (ties),
constant and nearly constant scalars, a chain stuck at one value, chains that disagree, short and
odd-length chains, one chain, and NaN / infinite draws. Tolerance: rtol 1e-12 (the two agree to
the last bit on these arrays on the machine they were written on; 1e-12 leaves room for another
numpy build's rounding).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from arviz_stats.base import array_stats

from bayesjudge.inference import _convergence as conv

RTOL = 1e-12


def _ar1(rng: np.random.Generator, shape: tuple[int, ...], phi: float) -> np.ndarray:
    noise = rng.normal(size=shape)
    out = np.empty(shape)
    out[..., 0] = noise[..., 0]
    for t in range(1, shape[-1]):
        out[..., t] = phi * out[..., t - 1] + noise[..., t]
    return out


def _cases() -> dict[str, np.ndarray]:
    """Seeded arrays of shape (scalar, chain, draw), one per kind of posterior."""
    rng = np.random.default_rng(20261123)
    cases = {
        "iid normal": rng.normal(size=(12, 4, 500)),
        "ar1 0.5": _ar1(rng, (8, 4, 400), 0.5),
        "ar1 0.9": _ar1(rng, (8, 4, 400), 0.9),
        "ar1 0.99": _ar1(rng, (6, 4, 300), 0.99),
        "ar1 negative, odd draws": _ar1(rng, (6, 4, 301), -0.7),
        "cauchy": rng.standard_cauchy(size=(8, 4, 300)),
        "beta near the boundary": rng.beta(0.05, 5.0, size=(6, 4, 300)),
        "discrete (ties)": rng.poisson(1.5, size=(8, 4, 200)).astype(float),
        "binary (ties)": rng.binomial(1, 0.03, size=(6, 4, 200)).astype(float),
        "chains disagree": rng.normal(size=(6, 4, 300)) + np.arange(4)[:, None] * 0.5,
        "short: 4 draws": rng.normal(size=(6, 3, 4)),
        "short: 5 draws": rng.normal(size=(6, 2, 5)),
        "short: 7 draws": rng.normal(size=(6, 4, 7)),
        "short: 3 draws (too few)": rng.normal(size=(3, 4, 3)),
        "one chain": _ar1(rng, (4, 1, 200), 0.6),
    }
    edge = rng.normal(size=(10, 4, 200))
    edge[0] = 0.25  # constant
    edge[1] = 0.25 + rng.normal(size=(4, 200)) * 1e-17  # constant to within 1e-15
    edge[2] = 0.25 + rng.normal(size=(4, 200)) * 1e-9  # nearly constant, not below 1e-15
    edge[3, 1] = 0.7  # one chain stuck at one value
    edge[4, :, 17] = np.nan  # one NaN draw
    edge[5] = np.nan  # all NaN
    edge[6, 2, 5] = np.inf  # one infinite draw
    edge[7, :, :130] = np.inf  # most draws infinite: the median is infinite
    edge[8, 0, :] = -np.inf  # a chain at -inf
    edge[9, :, ::2] = 1.0  # half the draws tied at one value
    cases["edge cases"] = edge
    return cases


CASES = _cases()


def _reference(name: str, values: np.ndarray, **kwargs: float) -> np.ndarray:
    """ArviZ's array function ``name`` (``rhat``, ``ess`` or ``mcse``) with ``kwargs``."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(getattr(array_stats, name)(values, **kwargs), dtype=float)


def _close(actual: np.ndarray, expected: np.ndarray) -> None:
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=0.0, equal_nan=True)


@pytest.mark.parametrize("case", list(CASES))
def test_rhat_and_ess_match_arviz(case):
    values = CASES[case]
    for prob in (0.9, 0.95, 0.05, 0.5):
        r_hat, bulk, tail = conv.convergence(values, tail_prob=prob)
        _close(r_hat, _reference("rhat", values, method="rank"))
        _close(bulk, _reference("ess", values, method="bulk"))
        _close(tail, _reference("ess", values, method="tail", prob=prob))


def test_many_random_arrays_match_arviz():
    """Fifty seeded posteriors of random shape, mixing time and tail weight."""
    rng = np.random.default_rng(7)
    for _ in range(50):
        chains = int(rng.integers(1, 6))
        draws = int(rng.integers(4, 260))
        phi = float(rng.uniform(-0.9, 0.995))
        values = _ar1(rng, (3, chains, draws), phi)
        values[1] = rng.standard_t(float(rng.uniform(0.5, 5.0)), size=(chains, draws))
        values[2] = np.round(values[2] * rng.uniform(0.2, 3.0))  # ties
        r_hat, bulk, tail = conv.convergence(values, tail_prob=0.9)
        _close(r_hat, _reference("rhat", values, method="rank"))
        _close(bulk, _reference("ess", values, method="bulk"))
        _close(tail, _reference("ess", values, method="tail", prob=0.9))


def test_batch_axes_and_strided_input():
    """Any leading batch shape, and a non-contiguous view (as check_fit passes), give ArviZ's."""
    rng = np.random.default_rng(11)
    values = np.moveaxis(_ar1(rng, (4, 300, 6), 0.8), -1, 0)  # (6, 4, 300), strided
    assert not values.flags.c_contiguous
    for got, expected in zip(
        conv.convergence(values, tail_prob=0.9),
        (
            _reference("rhat", values, method="rank"),
            _reference("ess", values, method="bulk"),
            _reference("ess", values, method="tail", prob=0.9),
        ),
        strict=True,
    ):
        _close(got, expected)
    grid = values.reshape(2, 3, 4, 300)
    r_hat, bulk, _ = conv.convergence(grid, tail_prob=0.9)
    assert r_hat.shape == (2, 3)
    _close(bulk, conv.convergence(values, tail_prob=0.9)[1].reshape(2, 3))
    single = conv.convergence(values[0], tail_prob=0.9)
    assert all(np.ndim(a) == 0 for a in single)
    _close(np.asarray(single[0]), _reference("rhat", values[0], method="rank"))


def test_tail_prob_names_one_quantile():
    """prob=0.9 is the 10% and 90% quantiles (ArviZ's meaning), not a 90% interval."""
    values = CASES["ar1 0.9"]
    low = _reference("ess", values, method="quantile", prob=1 - 0.9)
    high = _reference("ess", values, method="quantile", prob=0.9)
    tail = conv.convergence(values, tail_prob=0.9)[2]
    _close(tail, np.minimum(low, high))
    assert not np.array_equal(tail, conv.convergence(values, tail_prob=0.95)[2])


def test_known_values():
    """A constant scalar: R-hat undefined (NaN), every ESS the number of split draws."""
    constant = np.full((4, 101), 3.0)  # the middle draw of each odd chain is dropped: S = 400
    r_hat, bulk, tail = conv.convergence(constant, tail_prob=0.9)
    assert np.isnan(r_hat)
    assert bulk == 400
    assert tail == 400


def test_draws_must_have_chain_and_draw_axes():
    with pytest.raises(ValueError, match=r"draws must have shape \(\.\.\., chain, draw\)"):
        conv.convergence(np.zeros(10), tail_prob=0.9)
