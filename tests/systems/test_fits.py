"""Short real fits of the systems models with nutpie, against exact references and the truth.

Each model is compiled once per module (numba compilation, not sampling, dominates the time) and
refitted on new data through ``CompiledModel.with_data``: the cell arrays are padded to one
length. Every fit is seeded. Comparisons with an exact reference allow four Monte Carlo standard
errors (computed by ArviZ from the same draws) plus a small floor; recovery checks ask that the
truth lies inside the 99 % interval of one seeded data set.

The three tests that need a model of their own (system-specific judge, item-response model,
unpaired model) are marked ``slow``: sampling takes 2-3 s, but each numba compilation takes
40-80 s on a shared two-core machine. Run them with ``pytest -m slow tests/systems``.
"""

from __future__ import annotations

import arviz as az
import numpy as np
import pytest
import xarray as xr

from bayesjudge.inference.diagnostics import check_fit
from bayesjudge.models.systems import irt_model, systems_model, two_system_model
from bayesjudge.prevalence.data import JudgeCounts
from bayesjudge.prevalence.exact import exact_posterior
from bayesjudge.systems.baselines import naive_difference
from bayesjudge.systems.data import Patterns, SystemsData
from bayesjudge.systems.exact import dirichlet_difference, exact_two_system, unpooled_two_system
from bayesjudge.systems.predictive import pair_verdicts, paired_predictive
from bayesjudge.systems.rank import prob_best
from bayesjudge.systems.simulate import simulate_systems

nutpie = pytest.importorskip("nutpie")

SIZE = 64  # padded cell length shared by every two-system data set in this module


def _sample(
    compiled, data: dict, *, draws=1000, tune=1000, chains=4, seed=1, target_accept=0.8
) -> xr.Dataset:
    trace = nutpie.sample(
        compiled.with_data(**data),
        draws=draws,
        tune=tune,
        chains=chains,
        cores=chains,
        seed=seed,
        progress_bar=False,
        target_accept=target_accept,
    )
    divergences = int(trace.sample_stats["diverging"].sum())
    assert divergences == 0, f"{divergences} divergent transitions"
    return trace.posterior


def _within(post: xr.Dataset, name: str, value: float, method: str = "mean", **kw) -> None:
    """|posterior statistic - exact| <= 4 MCSE + 1e-4."""
    stat = {
        "mean": lambda x: float(x.mean()),
        "sd": lambda x: float(x.std()),
        "quantile": lambda x: float(np.quantile(x, kw["prob"])),
    }[method](post[name].values)
    mcse = float(az.mcse(post, var_names=[name], method=method, **kw)[name])
    assert abs(stat - value) <= 4 * mcse + 1e-4, (name, method, stat, value, mcse)


def _cover(post: xr.Dataset, name: str, truth, mass: float = 0.99) -> None:
    values = post[name].values.reshape(-1, *post[name].shape[2:])
    tail = 0.5 * (1 - mass)
    low, high = np.quantile(values, [tail, 1 - tail], axis=0)
    assert np.all((low <= truth) & (truth <= high)), (name, low, high, truth)


@pytest.fixture(scope="module")
def two_shared():
    cells = Patterns(("A", "B"), np.array([[1, 1]], np.int8), np.array([1]))
    return nutpie.compile_pymc_model(two_system_model(cells, size=SIZE))


# ----------------------------------------------------------------------------- two systems
def test_perfect_judge_limit_is_the_dirichlet_posterior(two_shared):
    """Se = Sp = 1 (pinned by two million correctly judged gold items): Dirichlet(1/2 + n)."""
    counts = np.array([31, 9, 4, 56])  # judged fail/fail, fail/pass, pass/fail, pass/pass
    cells = Patterns(
        ("A", "B"),
        np.array([[1, 1], [1, 2], [2, 1], [2, 2], [6, 6], [3, 3]], np.int8),
        np.array([*counts, 1_000_000, 1_000_000]),
    )
    post = _sample(two_shared, cells.padded(SIZE), seed=11)
    assert float(post["se"].min()) > 1 - 1e-4
    exact = dirichlet_difference(0.5 + counts)
    _within(post, "diff", float(exact.mean))
    _within(post, "diff", float(exact.sd), method="sd")
    for q in (0.025, 0.975):
        _within(post, "diff", exact.quantile(q), method="quantile", prob=q)
    share = float((post["diff"] > 0).mean())
    ess = float(az.ess(post, var_names=["diff"], method="tail", prob=0.5)["diff"])
    assert abs(share - float(exact.prob_positive)) <= 4 * np.sqrt(share * (1 - share) / ess)


def test_two_system_posterior_matches_the_exact_reference(two_shared):
    cells = Patterns(
        ("A", "B"),
        np.array([[6, 6], [3, 3], [6, 3], [1, 2], [2, 2], [2, 1], [1, 1], [0, 2], [5, 4]], np.int8),
        np.array([40, 30, 10, 4, 6, 2, 3, 2, 3]),
    )
    exact = exact_two_system(cells)
    assert exact.mass_j_nonpositive < 1e-30  # the J > 0 restriction is immaterial here
    post = _sample(two_shared, cells.padded(SIZE), seed=12)
    _within(post, "diff", exact.diff_mean)
    _within(post, "diff", exact.diff_sd, method="sd")
    for s in range(2):
        _within(post.isel(system=s), "pi", float(exact.pi_mean[s]))
    _within(post, "se", exact.se_mean)
    share = float((post["diff"] > 0).mean())
    ess = float(az.ess(post, var_names=["diff"], method="tail", prob=0.5)["diff"])
    assert abs(share - exact.prob_b_better) <= 4 * np.sqrt(share * (1 - share) / ess) + 1e-3


def test_two_system_recovers_the_truth_with_labels_for_one_system_only(two_shared):
    sim = simulate_systems(
        [0.6, 0.7],
        n_unlabelled=1500,
        n_labelled=200,
        se=0.85,
        sp=0.8,
        difficulty_sd=1.5,
        labelled_systems=["A"],
        random_seed=21,
    )
    data = SystemsData.from_frame(sim.frame)
    post = _sample(two_shared, data.patterns().padded(SIZE), seed=13)
    _cover(post, "pi", sim.pi)
    _cover(post, "diff", sim.diff)
    joint = sim.joint()
    _cover(post, "discordant", np.array([joint[1, 0], joint[0, 1]]))
    # the naive difference is shrunk by J = 0.65; the posterior mean is closer to the truth
    naive = naive_difference(data).estimate
    assert abs(float(post["diff"].mean()) - sim.diff) < abs(naive - sim.diff)


@pytest.mark.slow  # its own numba compile: 40-80 s on a loaded 2-core machine
def test_two_system_with_system_specific_judges():
    sim = simulate_systems(
        [0.6, 0.7],
        n_unlabelled=1500,
        n_labelled=250,
        se=[0.92, 0.8],
        sp=[0.75, 0.88],
        difficulty_sd=1.0,
        random_seed=31,
    )
    data = SystemsData.from_frame(sim.frame)
    model = two_system_model(data.patterns(), judge="system", size=SIZE)  # no pooling for two
    post = _sample(nutpie.compile_pymc_model(model), data.patterns().padded(SIZE), seed=14)
    _cover(post, "se", sim.se)
    _cover(post, "sp", sim.sp)
    _cover(post, "pi", sim.pi)
    _cover(post, "diff", sim.diff)
    # against the importance-sampling reference of the same model: ESS 3.8e5 of 4e5 draws, so
    # its mean errs by about sd / sqrt(ESS) = 1e-4, within the 1e-4 floor of _within
    reference = unpooled_two_system(data.patterns(), draws=400_000, random_seed=2)
    assert reference.ess > 200_000
    _within(post, "diff", reference.mean)
    _within(post, "diff", reference.sd, method="sd")
    for q in (0.025, 0.975):
        _within(post, "diff", float(reference.quantile(q)), method="quantile", prob=q)


def _failed_predictive_checks(post: xr.Dataset, cells: Patterns, model: str) -> set[str]:
    """Run the paired predictive check on a fit; return the counts it flags."""
    groups = paired_predictive(
        post, pair_verdicts(cells), model=model, rng=np.random.default_rng(0)
    )
    stats = xr.Dataset(
        {
            "diverging": (
                ("chain", "draw"),
                np.zeros((post.sizes["chain"], post.sizes["draw"]), bool),
            )
        }
    )
    tree = xr.DataTree.from_dict({"posterior": post, "sample_stats": stats, **groups})
    checks = [c for c in check_fit(tree, var_names=["pi"]).checks if c.name == "ppc_tail_prob"]
    assert len(checks) == 4 * len(cells.systems) * (len(cells.systems) - 1) // 2 + 2 * len(
        cells.systems
    )
    return {c.variable for c in checks if not c.passed}


def _gold_with(unlabelled: dict[tuple[int, ...], int], *, seed: int, systems: int = 2) -> Patterns:
    """Gold cells of a simulated judge with Se = Sp = 0.9, plus the given unlabelled cells."""
    sim = simulate_systems(
        [0.5, 0.5, 0.5][:systems],
        n_unlabelled=1,
        n_labelled=150,
        se=0.9,
        sp=0.9,
        labelled_systems=["A", "B"],
        random_seed=seed,
    )
    gold = SystemsData.from_frame(sim.frame).patterns()
    keep = (gold.state >= 3).any(axis=1)
    return Patterns(
        gold.systems,
        np.concatenate([gold.state[keep], np.array(list(unlabelled), np.int8)]),
        np.concatenate([gold.count[keep], np.array(list(unlabelled.values()))]),
    )


def test_two_system_predictive_check_passes_on_data_from_the_model(two_shared):
    sim = simulate_systems(
        [0.6, 0.7], n_unlabelled=600, n_labelled=150, se=0.9, sp=0.85, random_seed=61
    )
    cells = SystemsData.from_frame(sim.frame).patterns()
    post = _sample(two_shared, cells.padded(SIZE), chains=2, seed=17)
    assert _failed_predictive_checks(post, cells, "two_system") == set()


def test_two_system_predictive_check_fails_on_verdicts_the_judge_cannot_give(two_shared):
    # 150 gold items pin Se and Sp near 0.9; then 500 unlabelled pairs judged discordant every
    # time are impossible: a judge that good calls about a fifth of discordant pairs concordant
    cells = _gold_with({(1, 2): 250, (2, 1): 250}, seed=62)
    post = _sample(two_shared, cells.padded(SIZE), chains=2, seed=18)
    failed = _failed_predictive_checks(post, cells, "two_system")
    assert {"pair_verdicts[A|B,fail_fail]", "pair_verdicts[A|B,pass_pass]"} <= failed


# ----------------------------------------------------------------------------- many systems
@pytest.mark.slow  # its own numba compile: 40-80 s on a loaded 2-core machine
def test_irt_predictive_check_passes_on_model_data_and_fails_on_anticorrelated_verdicts():
    sim = simulate_systems(
        [0.55, 0.7, 0.62],
        n_unlabelled=600,
        n_labelled=150,
        se=0.9,
        sp=0.85,
        difficulty_sd=1.5,
        labelled_systems=["A", "B"],
        random_seed=63,
    )
    cells = SystemsData.from_frame(sim.frame).patterns()
    compiled = nutpie.compile_pymc_model(irt_model(cells, size=SIZE))
    post = _sample(compiled, cells.padded(SIZE), chains=2, seed=19)
    assert _failed_predictive_checks(post, cells, "systems_irt") == set()
    # A and B judged opposite on every unlabelled item: one shared item difficulty can only
    # make two systems' outcomes agree more often than independent ones would
    opposite = _gold_with(
        {(1, 2, 2): 150, (2, 1, 1): 150, (1, 2, 1): 150, (2, 1, 2): 150}, seed=64, systems=3
    )
    post = _sample(compiled, opposite.padded(SIZE), chains=2, seed=20)
    failed = _failed_predictive_checks(post, opposite, "systems_irt")
    assert any(name.startswith("pair_verdicts[A|B,") for name in failed)


@pytest.mark.slow  # its own numba compile: 40-80 s on a loaded 2-core machine
def test_irt_model_recovers_rates_and_the_best_system():
    sim = simulate_systems(
        [0.55, 0.7, 0.62, 0.8],
        n_unlabelled=1500,
        n_labelled=150,
        se=0.88,
        sp=0.8,
        difficulty_sd=1.5,
        labelled_systems=["A", "B"],
        random_seed=41,
    )
    data = SystemsData.from_frame(sim.frame)
    cells = data.patterns()
    post = _sample(nutpie.compile_pymc_model(irt_model(cells)), cells.padded(), seed=15)
    _cover(post, "pi", sim.pi)
    _cover(post, "difficulty_sd", sim.difficulty_sd)
    draws = post["pi"].values.reshape(-1, 4)
    assert prob_best(draws)[3] > 0.9


@pytest.mark.slow  # its own numba compile: 40-80 s on a loaded 2-core machine
def test_unpaired_systems_model_recovers_rates():
    sim = simulate_systems(
        [0.5, 0.65, 0.6],
        n_unlabelled=800,
        n_labelled=100,
        se=0.9,
        sp=0.8,
        design="unpaired",
        labelled_systems=["A", "C"],
        random_seed=51,
    )
    counts = SystemsData.from_frame(sim.frame).system_counts()
    post = _sample(nutpie.compile_pymc_model(systems_model(counts)), {}, seed=16)
    _cover(post, "pi", sim.pi)


@pytest.mark.slow  # its own numba compile: 40-80 s on a loaded 2-core machine
def test_unpooled_judge_per_system_matches_the_exact_prevalence_posteriors():
    """Unpaired, a judge per system without pooling: each pi is the prevalence model's exact one.

    The model factorises by system (``test_models.py``), so each system's marginal posterior of
    pi is :func:`bayesjudge.prevalence.exact.exact_posterior` of its six counts.
    """
    sim = simulate_systems(
        [0.55, 0.7],
        n_unlabelled=500,
        n_labelled=120,
        se=[0.86, 0.92],
        sp=[0.85, 0.74],
        design="unpaired",
        random_seed=61,
    )
    counts = SystemsData.from_frame(sim.frame).system_counts()
    model = systems_model(counts, judge="system", pooling="none")
    post = _sample(nutpie.compile_pymc_model(model), {}, draws=3000, seed=17)
    for s in range(2):
        exact = exact_posterior(
            JudgeCounts(
                m1=int(counts.m1[s]),
                x1=int(counts.x1[s]),
                m0=int(counts.m0[s]),
                x0=int(counts.x0[s]),
                n=int(counts.n[s]),
                k=int(counts.k[s]),
            )
        )
        one = post.isel(system=s)
        _within(one, "pi", exact.mean)
        _within(one, "pi", exact.sd, method="sd")
        for q in (0.025, 0.975):
            _within(one, "pi", float(exact.quantile(q)), method="quantile", prob=q)
