"""The batched interval widths of the exact posterior (``eti_widths``) against one at a time.

``eti_widths`` runs the quadrature of ``exact_posterior`` for many count sets together; each
width must equal ``exact_posterior(c, ...).eti(prob).width`` to rounding (1e-10 here).
"""

from __future__ import annotations

import numpy as np
import pytest

from bayesjudge.errors import DataError
from bayesjudge.prevalence.data import JudgeCounts
from bayesjudge.prevalence.exact import eti_widths, exact_posterior
from bayesjudge.priors import Beta, PrevalencePriors


def _random_counts(rng: np.random.Generator, size: int) -> list[JudgeCounts]:
    out = []
    for _ in range(size):
        m1, m0, n = (int(v) for v in rng.integers(1, [300, 300, 4000]))
        out.append(
            JudgeCounts(
                m1,
                int(rng.integers(0, m1 + 1)),
                m0,
                int(rng.integers(0, m0 + 1)),
                n,
                int(rng.integers(0, n + 1)),
            )
        )
    return out


EDGES = [
    JudgeCounts(122, 103, 401, 2, 3330, 50),  # low prevalence: the mirrored orientation
    JudgeCounts(150, 140, 150, 24, 2000, 1349),  # the bundled example
    JudgeCounts(5, 5, 5, 0, 10, 0),  # full and empty calibration counts, k = 0
    JudgeCounts(40, 36, 40, 6, 10**6, 680_000),  # a large test set: the R window
    JudgeCounts(10**8, 9 * 10**7, 10**8, 10**7, 2000, 1349),  # the plan's floor
]


@pytest.mark.parametrize(
    ("priors", "restrict_j", "prob"),
    [
        (None, True, 0.95),
        (PrevalencePriors(pi=Beta(1.0, 1.0), se=Beta(1.0, 1.0), sp=Beta(1.0, 1.0)), True, 0.9),
        (PrevalencePriors(pi=Beta(2.0, 0.5), se=Beta(3.0, 1.0), sp=Beta(0.5, 0.5)), True, 0.5),
        (None, False, 0.95),
    ],
)
def test_batched_widths_equal_one_at_a_time(priors, restrict_j, prob):
    sets = _random_counts(np.random.default_rng(7), 10) + EDGES
    batched = eti_widths(sets, prob, priors=priors, restrict_j=restrict_j, grid_size=65, nodes=12)
    one = [
        exact_posterior(c, priors=priors, restrict_j=restrict_j, grid_size=65, nodes=12)
        .eti(prob)
        .width
        for c in sets
    ]
    np.testing.assert_allclose(batched, one, rtol=0.0, atol=1e-10)


def test_batched_widths_at_the_plans_settings():
    # the label plan's refits: 129 grid points, 24 nodes, replicates of one split
    rng = np.random.default_rng(3)
    sets = [
        JudgeCounts(235, 220 - int(a), 165, 26 + int(b), 2000, 1349)
        for a, b in rng.integers(0, 10, size=(6, 2))
    ]
    sets.append(sets[0])  # a repeat gets the same width
    batched = eti_widths(sets, grid_size=129, nodes=24)
    one = [exact_posterior(c, grid_size=129, nodes=24).eti(0.95).width for c in sets]
    np.testing.assert_allclose(batched, one, rtol=0.0, atol=1e-10)
    assert batched[-1] == batched[0]


def test_default_settings_match_exact_posterior():
    counts = JudgeCounts(150, 140, 150, 24, 2000, 1349)
    assert eti_widths([counts])[0] == pytest.approx(
        exact_posterior(counts).eti(0.95).width, abs=1e-10
    )


def test_empty_sequence_gives_no_widths():
    assert eti_widths([]).shape == (0,)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"grid_size": 10}, ValueError, "grid_size"),
        ({"nodes": 4}, ValueError, "nodes"),
        ({"prob": 1.5}, ValueError, "prob"),
        ({"priors": PrevalencePriors(pi=Beta(0.05, 1.0))}, DataError, "priors"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, error, message):
    with pytest.raises(error, match=message):
        eti_widths([JudgeCounts(10, 9, 10, 1, 100, 60)], **kwargs)


def test_an_element_that_is_not_counts_is_named():
    with pytest.raises(ValueError, match=r"counts\[1\]"):
        eti_widths([JudgeCounts(10, 9, 10, 1, 100, 60), (10, 9, 10, 1, 100, 60)])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("a", "b", "tolerance"),
    [(1e4, 1e3, 1e-8), (1e4, 1e4, 1e-10), (1e8 + 140.5, 1.6e7 + 24.5, 1e-6)],
)
def test_large_shape_quantiles_match_betaincinv(a, b, tolerance):
    # the batched nodes of large Beta shapes come from a Chebyshev interpolant; it agrees with
    # scipy's betaincinv to that function's own scatter (in units of the Beta sd)
    from scipy import special

    from bayesjudge.prevalence.exact import _smooth_beta_ppf

    z = np.random.default_rng(0).uniform(-9.0, 9.0, size=(1, 500))
    ours = _smooth_beta_ppf(np.array([a]), np.array([b]), z)
    theirs = np.where(
        z <= 0,
        special.betaincinv(a, b, special.ndtr(z)),
        1.0 - special.betaincinv(b, a, special.ndtr(-z)),
    )
    sd = np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1.0)))
    assert np.max(np.abs(ours - theirs)) / sd < tolerance


def test_a_posterior_that_vanishes_on_its_grid_names_its_count_set():
    # an inverted judge by its labels (Se = 0, Sp = 0 on 100 each): under the default J > 0
    # restriction P(1 - Sp < Se) underflows at every node, so the density is zero everywhere
    inverted = JudgeCounts(100, 0, 100, 100, 100, 50)
    with pytest.raises(DataError, match=r"vanishes on its whole grid for counts\[1\]"):
        eti_widths([JudgeCounts(10, 9, 10, 1, 100, 60), inverted], grid_size=65, nodes=12)
    # without the restriction the same counts have a posterior
    assert eti_widths([inverted], grid_size=65, nodes=12, restrict_j=False)[0] > 0.0
