"""The pair form of panel dependence: exact against an enumeration of the copying judge's law."""

from __future__ import annotations

import itertools

import numpy as np
import pytensor
import pytest

from bayesjudge.models.panel import panel_model
from bayesjudge.panels.data import PanelData
from bayesjudge.panels.dependence import (
    check_pairs,
    log_pattern_probabilities,
    pair_covariance_bound,
    verdict_correlation,
)
from bayesjudge.panels.start import (
    posterior_mode,
    sampling_coordinates,
    sampling_log_density,
    sampling_order,
)

PI = 0.4
SE = np.array([0.85, 0.80, 0.75])
SP = np.array([0.80, 0.78, 0.90])
SHARE = np.array([[0.6], [0.7]])  # (class, pair): pair (0, 1)


def _copy_law(rate_s: float, rate_t: float, gamma: float, a: int, b: int) -> float:
    """P(V_s = a, V_t = b) when t repeats s with probability kappa, else passes with rate q."""
    kappa = gamma / (rate_s * (1 - rate_s))
    own = (rate_t - kappa * rate_s) / (1 - kappa)
    assert 0 <= own <= 1
    first = rate_s if a == 1 else 1 - rate_s
    alone = own if b == 1 else 1 - own
    return first * (kappa * (a == b) + (1 - kappa) * alone)


def _enumerated(pattern: tuple[int, ...], cls: int) -> float:
    """P(pattern | class) summing every completion of the missing verdicts (-1)."""
    rate = np.stack([1 - SP, SE])[cls]
    bound = pair_covariance_bound(rate[0], rate[1])
    gamma = SHARE[cls, 0] * bound
    total = 0.0
    slots = [k for k, v in enumerate(pattern) if v < 0]
    for fill in itertools.product((0, 1), repeat=len(slots)):
        full = list(pattern)
        for k, v in zip(slots, fill, strict=True):
            full[k] = v
        third = rate[2] if full[2] == 1 else 1 - rate[2]
        total += _copy_law(rate[0], rate[1], gamma, full[0], full[1]) * third
    return total


def _data() -> PanelData:
    rng = np.random.default_rng(0)
    verdicts = rng.integers(0, 2, size=(80, 3)).astype(float)
    verdicts[rng.random((80, 3)) < 0.15] = np.nan
    verdicts[np.isnan(verdicts).all(axis=1), 2] = 1.0
    labels = np.where(np.arange(80) < 30, np.arange(80) % 2, np.nan)
    return PanelData.from_arrays(verdicts, labels=labels)


def test_pair_pattern_probabilities_equal_the_copy_law_and_sum_to_one():
    patterns = np.array(list(itertools.product((-1, 0, 1), repeat=3)), dtype=np.int8)
    gamma = SHARE * pair_covariance_bound(
        np.stack([1 - SP, SE])[:, [0]], np.stack([1 - SP, SE])[:, [1]]
    )
    logp = log_pattern_probabilities(
        SE, SP, np.zeros((2, 3)), patterns, pairs=[(0, 1)], pair_covariance=gamma
    )
    expected = np.array([[_enumerated(tuple(v), c) for v in patterns] for c in (0, 1)])
    np.testing.assert_allclose(np.exp(logp), expected, rtol=1e-12)
    complete = patterns[(patterns >= 0).all(axis=1)]
    rows = np.flatnonzero((patterns >= 0).all(axis=1))
    np.testing.assert_allclose(np.exp(logp[:, rows]).sum(axis=1), 1.0, rtol=1e-12)
    assert len(complete) == 8
    corr = verdict_correlation(SE, SP, np.zeros((2, 3)), pairs=[(0, 1)], pair_covariance=gamma)
    rate = np.stack([1 - SP, SE])
    np.testing.assert_allclose(
        corr[:, 0, 1],
        gamma[:, 0] / np.sqrt(rate[:, 0] * (1 - rate[:, 0]) * rate[:, 1] * (1 - rate[:, 1])),
    )
    np.testing.assert_allclose(corr[:, 0, 2], 0.0, atol=1e-12)


def test_pair_form_cells_stay_positive_up_to_the_bound():
    rate = np.array([[0.2, 0.3], [0.9, 0.6]])  # (class, judge)
    bound = pair_covariance_bound(rate[:, [0]], rate[:, [1]])
    patterns = np.array(list(itertools.product((0, 1), repeat=2)), dtype=np.int8)
    for share in (0.0, 0.5, 0.999999):
        p = np.exp(
            log_pattern_probabilities(
                rate[1],
                1 - rate[0],
                np.zeros((2, 2)),
                patterns,
                pairs=[(0, 1)],
                pair_covariance=share * bound,
            )
        )
        assert np.all(p > 0)
        np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    with pytest.raises(ValueError, match=r"\[0, bound\)"):
        log_pattern_probabilities(
            rate[1],
            1 - rate[0],
            np.zeros((2, 2)),
            patterns,
            pairs=[(0, 1)],
            pair_covariance=bound,
        )


def test_model_log_likelihood_is_the_enumerated_one():
    data = _data()
    patterns = data.patterns()
    model = panel_model(patterns, dependence="none", pairs=[(0, 1)], n_patterns=len(patterns) + 3)
    values = sampling_coordinates(PI, SE, SP, pair_share=SHARE)
    outs = model.replace_rvs_by_values([model["loglik"], model["se"], model["pair_covariance"]])
    fn = pytensor.function(model.value_vars, outs, on_unused_input="ignore")
    loglik, se, gamma = fn(**values)
    np.testing.assert_allclose(se, SE, rtol=1e-12)
    rate = np.stack([1 - SP, SE])
    np.testing.assert_allclose(gamma, SHARE * pair_covariance_bound(rate[:, [0]], rate[:, [1]]))
    expected = 0.0
    for label, verdict, count in zip(patterns.label, patterns.verdict, patterns.count, strict=True):
        p = [_enumerated(tuple(int(v) for v in verdict), c) for c in (0, 1)]
        expected += count * np.log(PI * p[1] + (1 - PI) * p[0] if label < 0 else p[label])
    assert float(loglik) == pytest.approx(expected, rel=1e-12)
    # the numpy twin of the whole log density is the compiled model's
    flat = np.concatenate(
        [np.ravel(values[n]) for n, _ in sampling_order(3, dependent=False, n_pairs=1)]
    )
    logp = model.compile_logp()
    point = {n: values[n] for n, _ in sampling_order(3, dependent=False, n_pairs=1)}
    assert sampling_log_density(flat, patterns, dependence="none", pairs=[(0, 1)])[
        0
    ] == pytest.approx(float(logp(point)), abs=1e-6)


def test_pair_form_arguments_are_checked():
    patterns = _data().patterns()
    with pytest.raises(ValueError, match="pairs go with dependence='none'"):
        panel_model(patterns, dependence="random_effect", pairs=[(0, 1)])
    with pytest.raises(ValueError, match="disjoint"):
        check_pairs([(0, 1), (1, 2)], 3)
    with pytest.raises(ValueError, match="two different judges"):
        check_pairs([(0, 3)], 3)
    with pytest.raises(ValueError, match="loading 0"):
        log_pattern_probabilities(
            SE,
            SP,
            np.full((2, 3), 0.5),
            [[1, 1, 1]],
            pairs=[(0, 1)],
            pair_covariance=np.zeros((2, 1)),
        )
    with pytest.raises(ValueError, match="pairs and pair_covariance go together"):
        log_pattern_probabilities(SE, SP, np.zeros((2, 3)), [[1, 1, 1]], pairs=[(0, 1)])
    # Following the advice (both given) gets through; with zero covariance the pair form is
    # the independence law.
    both = log_pattern_probabilities(
        SE, SP, np.zeros((2, 3)), [[1, 1, 1]], pairs=[(0, 1)], pair_covariance=np.zeros((2, 1))
    )
    alone = log_pattern_probabilities(SE, SP, np.zeros((2, 3)), [[1, 1, 1]])
    np.testing.assert_allclose(both, alone, rtol=1e-12)


def test_posterior_mode_of_the_pair_form_finds_the_copy():
    from bayesjudge.panels.simulate import dependence_scenario

    sim = dependence_scenario("copy", random_seed=3)
    start = posterior_mode(sim.data.patterns(), dependence="none", pairs=[(0, 1)])
    assert start.pair_share is not None
    rate = np.stack([1 - start.sp, start.se])
    gamma = start.pair_share[:, 0] * pair_covariance_bound(rate[:, 0], rate[:, 1])
    kappa = gamma / (rate[:, 0] * (1 - rate[:, 0]))
    assert np.all(np.abs(kappa - 0.8) < 0.15)
    assert abs(start.pi - 0.39) < 0.06


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_the_chosen_answer_covers_a_copying_panels_accuracy():
    """A small seeded copying panel: the form chosen by fit covers the copies' Se and Sp.

    The issue's check: the near-copies' intervals cover their Sp (and Se); every other judge's
    Se and Sp and pi lie within 3 posterior sd of the truth (as in ``test_fit.py``: thirteen
    95 % intervals would all cover only about half the time).
    """
    from bayesjudge.panels.analysis import analyze_panel
    from bayesjudge.panels.simulate import dependence_scenario

    sim = dependence_scenario("copy", n_unlabelled=1000, n_gold=200, random_seed=11)
    analysis = analyze_panel(
        sim.data,
        dependence="auto",
        draws=500,
        tune=500,
        chains=2,
        random_seed=11,
        progressbar=False,
    )
    block = analysis.to_dict()["dependence"]
    assert block["choice"]["chosen"] == analysis.dependence
    assert [f["form"] for f in block["choice"]["forms"]] == ["random_effect", "pairs"]
    for j, judge in enumerate(sim.data.judges):
        for name, truth in (("se", sim.truth.se[j]), ("sp", sim.truth.sp[j])):
            summary = analysis.judges[judge][name]
            assert abs(summary.mean - truth) <= 3 * summary.sd, (judge, name, summary)
            if j < 2:  # the copying pair
                assert summary.eti.low <= truth <= summary.eti.high, (judge, name, summary)
    assert abs(analysis.pi.mean - sim.truth.pi) <= 3 * analysis.pi.sd
