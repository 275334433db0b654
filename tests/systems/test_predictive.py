"""The paired models' posterior predictive check: counts, cell probabilities, replicates.

No sampling here: the probabilities are checked against independent references (a loop over
the outcomes, adaptive quadrature), the replicates against their laws, and the check itself on
posteriors built at known parameters. Real fits that pass on data from the model and fail on
data it cannot fit are in ``test_fits.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import xarray as xr
from scipy import integrate, stats
from scipy.special import expit

from bayesjudge.inference.diagnostics import check_fit
from bayesjudge.inference.ppc import PPC_LEVEL
from bayesjudge.systems.data import Patterns, SystemsData
from bayesjudge.systems.predictive import (
    VERDICT_PAIRS,
    irt_verdict_probabilities,
    pair_verdicts,
    paired_predictive,
    systems_predictive_check,
    two_system_verdict_probabilities,
)
from bayesjudge.systems.simulate import simulate_systems


def _sim_data(seed: int = 3, systems: int = 3) -> SystemsData:
    sim = simulate_systems(
        [0.5, 0.7, 0.6][:systems],
        n_unlabelled=200,
        n_labelled=40,
        se=0.9,
        sp=0.8,
        difficulty_sd=1.2,
        labelled_systems=["A", "B"],
        random_seed=seed,
    )
    frame = sim.frame
    # drop some answers so that some items miss a system
    return SystemsData.from_frame(frame.drop(index=frame.index[5:60:7]))


def test_pair_verdicts_match_an_item_by_item_tally():
    data = _sim_data()
    states = data.states()
    observed = pair_verdicts(data.patterns())
    n_systems = states.shape[1]
    for p, (s, t) in enumerate(itertools.combinations(range(n_systems), 2)):
        expected = np.zeros(4, dtype=int)
        for row in states:
            if any(code >= 3 for code in row) or row[s] not in (1, 2) or row[t] not in (1, 2):
                continue
            expected[2 * (row[s] - 1) + (row[t] - 1)] += 1
        assert observed.tables[p].tolist() == expected.tolist()
    counts = data.system_counts()
    for name in ("m1", "x1", "m0", "x0"):
        assert getattr(observed, name).tolist() == getattr(counts, name).tolist()
    assert observed.pair_names == ("A|B", "A|C", "B|C")


def test_pair_verdicts_refuse_what_is_not_patterns():
    with pytest.raises(TypeError, match="patterns must be Patterns"):
        pair_verdicts(np.zeros((2, 2)))  # type: ignore[arg-type]


@pytest.mark.parametrize(("se", "sp"), [(0.9, 0.8), (np.array([0.95, 0.7]), np.array([0.6, 0.85]))])
def test_two_system_probabilities_match_a_sum_over_the_outcomes(se, sp):
    theta = np.array([0.1, 0.25, 0.15, 0.5])
    q = two_system_verdict_probabilities(theta, se=se, sp=sp)[0]
    se_s, sp_s = np.broadcast_to(se, 2), np.broadcast_to(sp, 2)

    def verdict(v: int, y: int, s: int) -> float:
        passed = se_s[s] if y else 1.0 - sp_s[s]
        return passed if v else 1.0 - passed

    for cell, (v, w) in enumerate(itertools.product((0, 1), repeat=2)):
        expected = sum(
            theta[2 * a + b] * verdict(v, a, 0) * verdict(w, b, 1)
            for a, b in itertools.product((0, 1), repeat=2)
        )
        assert q[cell] == pytest.approx(expected, abs=1e-15)
    assert VERDICT_PAIRS[1] == "fail_pass"


def test_two_system_probabilities_are_batched_over_draws():
    rng = np.random.default_rng(0)
    theta = rng.dirichlet(np.ones(4), size=(3, 5))
    se, sp = rng.uniform(0.6, 1, (3, 5)), rng.uniform(0.6, 1, (3, 5))
    q = two_system_verdict_probabilities(theta, se=se, sp=sp)
    assert q.shape == (3, 5, 1, 4)
    one = two_system_verdict_probabilities(theta[2, 4], se=se[2, 4], sp=sp[2, 4])
    np.testing.assert_allclose(q[2, 4], one, rtol=1e-14)
    np.testing.assert_allclose(q.sum(axis=-1), 1.0, rtol=1e-14)


def test_irt_probabilities_match_adaptive_quadrature():
    ability, sd = np.array([0.3, 1.1, -0.4]), 1.4
    se, sp = np.array([0.9, 0.8, 0.95]), np.array([0.85, 0.7, 0.9])
    q = irt_verdict_probabilities(ability, difficulty_sd=sd, se=se, sp=sp)
    assert q.shape == (3, 4)
    for p, (s, t) in enumerate(itertools.combinations(range(3), 2)):

        def rate(z: float, k: int) -> float:
            correct = expit(ability[k] - sd * z)
            return float(correct * se[k] + (1 - correct) * (1 - sp[k]))

        for cell, (v, w) in enumerate(itertools.product((0, 1), repeat=2)):

            def integrand(z: float, v: int = v, w: int = w, s: int = s, t: int = t) -> float:
                a, b = rate(z, s), rate(z, t)
                return (a if v else 1 - a) * (b if w else 1 - b) * stats.norm.pdf(z)

            expected, _ = integrate.quad(integrand, -np.inf, np.inf, epsabs=1e-13)
            # 32 Gauss-Hermite nodes: error below 4e-8 up to sigma = 2 (bayesjudge.systems.irt)
            assert q[p, cell] == pytest.approx(expected, abs=4e-8)


def test_irt_probabilities_without_item_effect_are_independent():
    q = irt_verdict_probabilities([0.2, -0.5], difficulty_sd=0.0, se=0.9, sp=0.8)[0]
    judged = expit(np.array([0.2, -0.5])) * 0.9 + (1 - expit(np.array([0.2, -0.5]))) * 0.2
    expected = np.outer([1 - judged[0], judged[0]], [1 - judged[1], judged[1]]).ravel()
    np.testing.assert_allclose(q, expected, rtol=1e-12)


def _two_system_posterior(theta, se, sp, draws=1000):
    shape = (2, draws)
    return xr.Dataset(
        {
            "joint": (("chain", "draw", "outcome"), np.broadcast_to(theta, (*shape, 4))),
            "se": (("chain", "draw"), np.full(shape, se)),
            "sp": (("chain", "draw"), np.full(shape, sp)),
        }
    )


def _checked(groups: dict[str, xr.Dataset], posterior: xr.Dataset):
    diverging = np.zeros((posterior.sizes["chain"], posterior.sizes["draw"]), bool)
    tree = xr.DataTree.from_dict(
        {
            "posterior": posterior,
            "sample_stats": xr.Dataset({"diverging": (("chain", "draw"), diverging)}),
            **groups,
        }
    )
    return [c for c in check_fit(tree, var_names=["se"]).checks if c.name == "ppc_tail_prob"]


def _cells(tables: dict[tuple[int, int], int], gold: dict[tuple[int, int], int]) -> Patterns:
    rows = list(tables) + list(gold)
    counts = list(tables.values()) + list(gold.values())
    return Patterns(("A", "B"), np.array(rows, np.int8), np.array(counts))


def test_replicates_follow_the_multinomial_and_binomial_laws():
    theta, se, sp = np.array([0.2, 0.2, 0.1, 0.5]), 0.9, 0.8
    cells = _cells({(1, 1): 50, (1, 2): 20, (2, 1): 30, (2, 2): 100}, {(6, 3): 40, (5, 4): 10})
    observed = pair_verdicts(cells)
    groups = paired_predictive(
        _two_system_posterior(theta, se, sp, draws=20000),
        observed,
        model="two_system",
        rng=np.random.default_rng(1),
    )
    rep = groups["posterior_predictive"]
    assert rep["pair_verdicts"].dims == ("chain", "draw", "pair", "verdict_pair")
    assert (rep["pair_verdicts"].sum("verdict_pair") == 200).all()
    q = two_system_verdict_probabilities(theta, se=se, sp=sp)[0]
    mean = rep["pair_verdicts"].mean(("chain", "draw")).values[0]
    # 40,000 multinomial draws: the mean of each cell within 5 standard errors
    se_mean = np.sqrt(200 * q * (1 - q) / 40000)
    assert np.all(np.abs(mean - 200 * q) < 5 * se_mean)
    # gold: A has 50 gold-PASS answers (40 judged PASS) and B 40 gold-FAIL (none judged PASS)
    assert groups["constant_data"]["m1"].values.tolist() == [50, 0]
    assert groups["constant_data"]["m0"].values.tolist() == [0, 50]
    assert float(rep["x1"].sel(system="A").mean()) == pytest.approx(50 * se, abs=0.05)
    assert float(rep["x0"].sel(system="B").mean()) == pytest.approx(50 * (1 - sp), abs=0.05)
    assert groups["observed_data"]["x1"].values.tolist() == [40, 0]


def test_the_check_passes_on_data_from_the_parameters_and_fails_on_impossible_verdicts():
    theta, se, sp = np.array([0.2, 0.2, 0.1, 0.5]), 0.9, 0.9
    posterior = _two_system_posterior(theta, se, sp)
    q = two_system_verdict_probabilities(theta, se=se, sp=sp)[0]
    counts = np.round(400 * q).astype(int)  # the expected table
    likely = _cells(dict(zip([(1, 1), (1, 2), (2, 1), (2, 2)], counts, strict=True)), {})
    checks = _checked(
        paired_predictive(
            posterior, pair_verdicts(likely), model="two_system", rng=np.random.default_rng(2)
        ),
        posterior,
    )
    assert len(checks) == 8
    assert all(c.passed for c in checks)
    # every unlabelled pair discordant: a judge with Se = Sp = 0.9 makes some concordant
    impossible = _cells({(1, 2): 200, (2, 1): 200}, {})
    checks = _checked(
        paired_predictive(
            posterior, pair_verdicts(impossible), model="two_system", rng=np.random.default_rng(2)
        ),
        posterior,
    )
    failed = {c.variable for c in checks if not c.passed}
    assert "pair_verdicts[A|B,fail_fail]" in failed
    assert "pair_verdicts[A|B,pass_pass]" in failed


def test_irt_replicates_cover_every_pair():
    data = _sim_data()
    shape = (2, 300)
    posterior = xr.Dataset(
        {
            "ability": (("chain", "draw", "system"), np.broadcast_to([0.0, 1.0, 0.5], (*shape, 3))),
            "difficulty_sd": (("chain", "draw"), np.full(shape, 1.2)),
            "se": (("chain", "draw"), np.full(shape, 0.9)),
            "sp": (("chain", "draw"), np.full(shape, 0.8)),
        }
    )
    observed = pair_verdicts(data.patterns())
    groups = paired_predictive(
        posterior, observed, model="systems_irt", rng=np.random.default_rng(4)
    )
    rep = groups["posterior_predictive"]["pair_verdicts"]
    assert rep.sizes == {"chain": 2, "draw": 300, "pair": 3, "verdict_pair": 4}
    np.testing.assert_array_equal(
        rep.sum("verdict_pair").isel(chain=0, draw=0).values, observed.tables.sum(axis=1)
    )


def test_paired_predictive_refuses_an_unknown_model():
    posterior = _two_system_posterior(np.full(4, 0.25), 0.9, 0.8, draws=5)
    observed = pair_verdicts(_cells({(1, 1): 3}, {}))
    with pytest.raises(ValueError, match=r"model must be one of \['two_system', 'systems_irt'\]"):
        paired_predictive(
            posterior,
            observed,
            model="systems",  # type: ignore[arg-type]
            rng=np.random.default_rng(0),
        )


# ------------------------------------------------------------------ the family tests
def _shared_judge_posterior(counts, draws=400):
    """A one-judge posterior at the pooled gold rates of all systems (its best fit to them)."""
    se = counts.x1.sum() / counts.m1.sum()
    sp = 1.0 - counts.x0.sum() / counts.m0.sum()
    shape = (1, draws)
    return xr.Dataset(
        {
            "se": (("chain", "draw"), np.full(shape, se)),
            "sp": (("chain", "draw"), np.full(shape, sp)),
        }
    )


def _gold_check(sp, *, seed, design="unpaired"):
    sim = simulate_systems(
        [0.6, 0.7], n_unlabelled=200, n_labelled=300, se=0.9, sp=sp, design=design, random_seed=seed
    )
    counts = SystemsData.from_frame(sim.frame).system_counts()
    return systems_predictive_check(
        _shared_judge_posterior(counts),
        systems=("A", "B"),
        m1=counts.m1,
        x1=counts.x1,
        m0=counts.m0,
        x0=counts.x0,
        random_seed=seed,
    )


def test_a_shared_judge_fails_the_gold_rates_of_a_judge_that_treats_the_systems_differently():
    check = _gold_check([0.75, 0.95], seed=7)
    assert [t.family for t in check.failures] == ["gold_rates"]
    assert check.failures[0].worst.startswith("gold_rates: ")
    assert "PASS verdicts among gold-FAIL answers" in check.failures[0].worst
    (text,) = check.to_dict()["failures"]
    assert text.startswith("gold_rates (tail probability")


def test_a_shared_judge_passes_the_gold_rates_of_a_judge_that_treats_them_alike():
    assert _gold_check([0.85, 0.85], seed=7).passed
    failed = sum(not _gold_check([0.85, 0.85], seed=seed).passed for seed in range(20))
    assert failed <= 3  # at the pooled rates, 5% expected: 1 of 20


def test_each_pair_is_a_family_and_impossible_verdicts_fail_it():
    theta, se, sp = np.array([0.2, 0.2, 0.1, 0.5]), 0.9, 0.9
    posterior = _two_system_posterior(theta, se, sp, draws=400)
    q = two_system_verdict_probabilities(theta, se=se, sp=sp)[0]
    gold = {(6, 3): 40, (3, 6): 40, (5, 4): 5, (4, 5): 5}
    expected = dict(
        zip([(1, 1), (1, 2), (2, 1), (2, 2)], np.round(400 * q).astype(int), strict=True)
    )
    impossible = {(1, 2): 200, (2, 1): 200}
    results = {}
    for name, table in (("expected", expected), ("impossible", impossible)):
        pairs = pair_verdicts(_cells(table, gold))
        results[name] = systems_predictive_check(
            posterior,
            systems=("A", "B"),
            m1=pairs.m1,
            x1=pairs.x1,
            m0=pairs.m0,
            x0=pairs.x0,
            pairs=pairs,
            model="two_system",
            random_seed=3,
        )
    assert [t.family for t in results["expected"].tests] == ["verdicts[A|B]", "gold_rates"]
    assert results["expected"].passed
    assert results["expected"].threshold == pytest.approx(PPC_LEVEL / 2)
    assert [s.subject for s in results["expected"].statistics[:4]] == [
        "A=FAIL B=FAIL",
        "A=FAIL B=PASS",
        "A=PASS B=FAIL",
        "A=PASS B=PASS",
    ]
    assert [t.family for t in results["impossible"].failures] == ["verdicts[A|B]"]
    with pytest.raises(ValueError, match="needs the model"):
        systems_predictive_check(
            posterior, systems=("A", "B"), m1=[1, 1], x1=[1, 1], m0=[1, 1], x0=[0, 0], pairs=pairs
        )


def test_many_systems_keep_the_family_wise_false_alarm_rate():
    """Four systems (6 pairs, 7 families) at the truth: at most 3 of 20 datasets fail."""
    failed = 0
    for seed in range(20):
        sim = simulate_systems(
            [0.5, 0.7, 0.6, 0.65],
            n_unlabelled=300,
            n_labelled=60,
            se=0.9,
            sp=0.8,
            difficulty_sd=1.2,
            random_seed=200 + seed,
        )
        pairs = pair_verdicts(SystemsData.from_frame(sim.frame).patterns())
        shape = (1, 100)
        posterior = xr.Dataset(
            {
                "ability": (("chain", "draw", "system"), np.broadcast_to(sim.ability, (*shape, 4))),
                "difficulty_sd": (("chain", "draw"), np.full(shape, sim.difficulty_sd)),
                "se": (("chain", "draw"), np.full(shape, 0.9)),
                "sp": (("chain", "draw"), np.full(shape, 0.8)),
            }
        )
        check = systems_predictive_check(
            posterior,
            systems=sim.systems,
            m1=pairs.m1,
            x1=pairs.x1,
            m0=pairs.m0,
            x0=pairs.x0,
            pairs=pairs,
            model="systems_irt",
            random_seed=seed,
        )
        assert len(check.tests) == 7
        failed += not check.passed
    assert failed <= 3


@pytest.mark.slow
def test_a_shared_judge_fit_to_a_differential_judge_fails_its_diagnostics():
    """End to end: fit_systems with one judge records the failed gold-rate family."""
    import json

    from bayesjudge.errors import FitWarning
    from bayesjudge.systems.fit import fit_systems

    sim = simulate_systems(
        [0.6, 0.7], n_unlabelled=600, n_labelled=300, se=0.9, sp=[0.75, 0.95], random_seed=7
    )
    with pytest.warns(FitWarning, match="gold_rates"):
        tree = fit_systems(
            SystemsData.from_frame(sim.frame), judge="shared", random_seed=1, progressbar=False
        )
    block = json.loads(tree.attrs["predictive_check"])
    assert block["passed"] is False
    assert any(f.startswith("gold_rates") for f in block["failures"])
    assert any("gold_rates" in f for f in json.loads(tree.attrs["diagnostics_failures"]))
