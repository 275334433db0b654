"""The repeated-samples model reduces to the prevalence model, and widens where it should.

* One answer per item and no spread between items: every item has the rate pi, the unlabelled
  verdicts are Bin(n, pi Se + (1 - pi)(1 - Sp)) and the gold answers a calibration set, so the
  posterior of the mean success rate is the prevalence model's posterior of pi, which
  :func:`bayesjudge.prevalence.exact.exact_posterior` computes by numerical integration.
* Five answers per item with a large spread of difficulty: the answers of one item are
  correlated, so the interval of the population's mean success rate is wider than one that
  treats the 1,000 rows as independent, and covers the truth. Likewise with items grouped in
  tasks: the rows read as independent give a narrower interval than the one clustered by task,
  and the model with its task level is wider than the former and covers.
"""

from __future__ import annotations

import numpy as np
from arviz_stats.base import array_stats
from scipy import special

from bayesjudge.prevalence import JudgeCounts
from bayesjudge.prevalence.exact import exact_posterior
from bayesjudge.repeated import RepeatedData, fit_repeated, simulate_repeated
from bayesjudge.repeated.baselines import rogan_gladen_clustered


def _counts(data: RepeatedData) -> JudgeCounts:
    return JudgeCounts(
        m1=int(data.m1.sum()),
        x1=int(data.x1.sum()),
        m0=int(data.m0.sum()),
        x0=int(data.x0.sum()),
        n=int(data.n.sum()),
        k=int(data.k.sum()),
    )


def test_one_answer_per_item_without_spread_is_the_prevalence_model() -> None:
    sim = simulate_repeated(
        400, 1, mean_logit=0.4, sigma=0.0, se=0.85, sp=0.8, gold_answers=120, random_seed=11
    )
    data = RepeatedData.from_frame(sim.frame.drop(columns="truth"))
    tree = fit_repeated(data, spread=False, random_seed=5, progressbar=False)
    assert tree.attrs["diagnostics_passed"]
    draws = tree.posterior["mean_rate"].to_numpy().ravel()
    exact = exact_posterior(_counts(data))
    mcse = float(array_stats.mcse(tree.posterior["mean_rate"].to_numpy(), method="mean"))
    # the posterior mean agrees with the exact one to Monte Carlo error (4 MCSE)
    assert abs(draws.mean() - exact.mean) < 4.0 * mcse
    # and so does the spread, and the whole distribution: the probability integral transform
    # of the draws under the exact CDF is uniform (Kolmogorov distance well inside its noise)
    assert abs(draws.std() / exact.sd - 1.0) < 0.05
    u = np.sort(np.asarray(exact.cdf(draws[:: max(1, draws.size // 1000)])))
    grid = (np.arange(u.size) + 0.5) / u.size
    assert np.max(np.abs(u - grid)) < 0.08


def test_repetition_widens_the_interval_and_the_model_covers() -> None:
    # an accurate, well-calibrated judge, so that the interval is mostly sampling error
    sim = simulate_repeated(
        200, 5, mean_logit=0.3, sigma=3.0, se=0.95, sp=0.95, gold_answers=400, random_seed=7
    )
    data = RepeatedData.from_frame(sim.frame.drop(columns="truth"))
    tree = fit_repeated(data, random_seed=3, progressbar=False)
    assert tree.attrs["diagnostics_passed"]
    truth = float(np.mean(sim.truth.item_rate))
    for name in ("mean_rate", "population_rate"):
        low, high = np.quantile(tree.posterior[name].to_numpy().ravel(), [0.025, 0.975])
        assert low < truth < high, name
    # the rows read as independent: the prevalence model's exact posterior on the same counts
    rows = exact_posterior(_counts(data)).eti(0.95)
    low, high = np.quantile(tree.posterior["population_rate"].to_numpy().ravel(), [0.025, 0.975])
    # measured: 0.130 against 0.099, 1.31 times as wide
    assert (high - low) > 1.15 * (rows.high - rows.low)


def test_clustered_items_widen_the_interval_and_the_model_covers() -> None:
    """Seeded: 120 items x 4 answers in 12 tasks (task spread tau 1, item spread sigma 1), an
    accurate judge with 200 random gold answers. The Rogan-Gladen interval on the rows read as
    independent is narrower than the one clustered by task, the model (with its task level)
    is wider than the rows-independent one, and its interval of the population mean covers."""
    sim = simulate_repeated(
        120,
        4,
        mean_logit=0.3,
        sigma=1.0,
        n_clusters=12,
        tau=1.0,
        se=0.95,
        sp=0.95,
        gold_answers=200,
        random_seed=5,
    )
    frame = sim.frame.drop(columns="truth")
    data = RepeatedData.from_frame(frame)
    verdict = frame["verdict"].to_numpy(dtype=float)
    gold = frame["label"].to_numpy(dtype=float)
    item, task = frame["item"].to_numpy(), frame["cluster"].to_numpy()
    rows = rogan_gladen_clustered(verdict, gold, np.arange(verdict.size)).interval
    clustered = rogan_gladen_clustered(verdict, gold, item, task).interval
    assert rows is not None
    assert clustered is not None
    # measured: widths 0.202 (rows) and 0.399 (clustered by task)
    assert rows.high - rows.low < 0.7 * (clustered.high - clustered.low)
    tree = fit_repeated(data, draws=1000, random_seed=3, progressbar=False)
    assert tree.attrs["diagnostics_passed"]
    assert tree.attrs["clustered"]
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    truth = float(weights @ special.expit(0.3 + np.hypot(1.0, 1.0) * nodes) / weights.sum())
    low, high = np.quantile(tree.posterior["population_rate"].to_numpy().ravel(), [0.025, 0.975])
    assert low < truth < high
    # measured: 0.336 (0.417 to 0.753 around a truth of 0.554) against 0.202
    assert high - low > 1.3 * (rows.high - rows.low)
