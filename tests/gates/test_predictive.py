"""The gate's posterior predictive check: the histogram of passes per group and number of rulings.

The fast tests put the posterior at a point (the truth, or the maximum-likelihood fit of the
model to data it cannot produce) so that nothing is sampled; the command-line test fits the
model to data it cannot produce. A fit to data from the model passing its diagnostics, this
check included, is ``test_real_fit_passes_its_diagnostics_and_covers_the_truth`` of
``tests/gates/test_models.py``.
"""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import optimize
from scipy.special import expit
from scipy.stats import binom

from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_DIAGNOSTICS
from bayesjudge.gates.cells import GateCells, gate_cells
from bayesjudge.gates.data import Rulings
from bayesjudge.gates.fit import zibb_logpmf
from bayesjudge.gates.predictive import gate_predictive_check, pass_histogram_probabilities
from bayesjudge.gates.simulate import TABLE4, rejudgment_gate, table4_gate
from bayesjudge.inference.ppc import PPC_LEVEL

TRUTH = table4_gate(*TABLE4["TruthfulQA / Gemini-Flash"][:2])  # compliant, violation


def point_posterior(pi, omega, mu, kappa, draws=400):
    """A posterior with every draw at the same parameters (class order violation, compliant)."""
    shape = (1, draws, 2)
    return xr.Dataset(
        {
            "pi": (("chain", "draw"), np.full((1, draws), pi)),
            "omega": (("chain", "draw", "class"), np.broadcast_to(omega, shape)),
            "mu": (("chain", "draw", "class"), np.broadcast_to(mu, shape)),
            "kappa": (("chain", "draw", "class"), np.broadcast_to(kappa, shape)),
        },
        coords={"class": ["violation", "compliant"]},
    )


def truth_posterior(pi, compliant=TRUTH[0], violation=TRUTH[1]):
    return point_posterior(
        pi,
        [violation.omega, compliant.omega],
        [violation.mu, compliant.mu],
        [violation.kappa, compliant.kappa],
    )


def cells_of(table: pd.DataFrame) -> GateCells:
    rulings = Rulings.from_frame(table)
    return gate_cells(rulings.label, rulings.r, rulings.k)


def mle_posterior(cells: GateCells) -> xr.Dataset:
    """The model's maximum-likelihood parameters, as a point posterior (no prior, no sampling)."""

    def negative(theta):
        pi = expit(theta[0])
        omega, mu = expit(theta[1:3]), expit(theta[3:5])
        kappa = np.exp(theta[5:7])
        a, b = mu * kappa, (1 - mu) * kappa
        log = [zibb_logpmf(cells.k, cells.r, omega[c], a[c], b[c]) for c in (0, 1)]
        mixed = np.logaddexp(np.log(pi) + log[1], np.log1p(-pi) + log[0])
        per = np.where(cells.label == 1, log[1], np.where(cells.label == 0, log[0], mixed))
        return -float(np.sum(cells.weight * per))

    start = np.array([0.0, -3.0, -3.0, -1.0, 1.0, 1.0, 1.0])
    with np.errstate(all="ignore"):
        fit = optimize.minimize(negative, start, method="Nelder-Mead", options={"maxiter": 8000})
    theta = fit.x
    return point_posterior(
        expit(theta[0]), expit(theta[1:3]), expit(theta[3:5]), np.exp(theta[5:7])
    )


def bimodal_gate(n=1000, rulings=8, seed=4) -> pd.DataFrame:
    """Violation items pass about 15% or about 85% of their rulings (half each), none between."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.5
    p = np.where(y, rng.beta(18, 2, n), np.where(rng.random(n) < 0.5, 0.15, 0.85))
    return _table(rng, y, (rng.random((n, rulings)) < p[:, None]).astype(int))


def drifting_gate(n=1000, rulings=6, seed=3) -> pd.DataFrame:
    """A judge that passes violations 95% of the time in its first three rulings, then 5%."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.5
    drift = np.r_[np.full(rulings // 2, 0.95), np.full(rulings - rulings // 2, 0.05)]
    p = np.where(y[:, None], 0.9, drift[None, :])
    return _table(rng, y, (rng.random((n, rulings)) < p).astype(int))


def _table(rng, y, verdict) -> pd.DataFrame:
    n, rulings = verdict.shape
    label = np.where(rng.random(n) < 0.3, y.astype(float), np.nan)
    return pd.DataFrame(
        {
            "item": np.repeat([f"i{j}" for j in range(n)], rulings),
            "verdict": verdict.reshape(-1),
            "label": np.repeat(label, rulings),
        }
    )


@pytest.fixture(scope="module")
def model_gate():
    return rejudgment_gate(
        *TRUTH, pi=0.5, n_items=1000, rulings=6, labelled_fraction=0.3, random_seed=5
    )


def test_every_count_of_every_group_and_number_of_rulings(model_gate):
    table = model_gate.table
    table = table[
        ~((table["item"].isin([f"i{j}" for j in range(0, 1000, 3)])) & (table["ruling"] > 4))
    ]
    cells = cells_of(table)  # a third of the items keep 4 of their 6 rulings
    check = gate_predictive_check(truth_posterior(0.5), cells, random_seed=0)
    assert [t.family for t in check.tests] == [
        "passes[violation]",
        "passes[compliant]",
        "passes[unlabelled]",
    ]
    for code, group in ((0, "violation"), (1, "compliant"), (-1, "unlabelled")):
        for r in (4, 6):
            members = [
                s
                for s in check.statistics
                if s.family == f"passes[{group}]" and s.subject.endswith(f"of {r} rulings passed")
            ]
            assert [s.subject for s in members] == [
                f"{k} of {r} rulings passed" for k in range(r + 1)
            ]
            here = (cells.label == code) & (cells.r == r)
            assert {s.trials for s in members} == {int(cells.weight[here].sum())}
            for k, s in enumerate(members):
                assert s.observed == int(cells.weight[here & (cells.k == k)].sum())
    assert len(check.statistics) == 3 * (5 + 7)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
def test_probabilities_are_the_zero_inflated_beta_binomial_and_its_mixture():
    post = truth_posterior(0.3)
    for code, dist in ((0, TRUTH[1]), (1, TRUTH[0])):
        p = pass_histogram_probabilities(post, 5, code)[0]
        brute = [
            dist.omega * (k == 0)
            + (1 - dist.omega)
            * float(np.exp(zibb_logpmf(np.array(k), np.array(5), 0.0, dist.a, dist.b)))
            for k in range(6)
        ]
        np.testing.assert_allclose(p, brute, rtol=1e-10, atol=1e-14)
        assert p.sum() == pytest.approx(1.0)
    mixed = pass_histogram_probabilities(post, 5, -1)[0]
    np.testing.assert_allclose(
        mixed,
        0.3 * pass_histogram_probabilities(post, 5, 1)[0]
        + 0.7 * pass_histogram_probabilities(post, 5, 0)[0],
    )


def test_tail_probability_and_interval_of_a_point_posterior_are_the_binomials(model_gate):
    cells = cells_of(model_gate.table)
    post = truth_posterior(0.5)
    check = gate_predictive_check(post, cells, random_seed=0)
    p = pass_histogram_probabilities(post, 6, 0)[0]
    for k, s in enumerate(s for s in check.statistics if s.family == "passes[violation]"):
        low, high = binom.cdf(s.observed, s.trials, p[k]), binom.sf(s.observed - 1, s.trials, p[k])
        assert s.tail_prob == pytest.approx(min(1.0, 2 * min(low, high)))
        assert s.expected == pytest.approx(s.trials * p[k])
        assert s.low == binom.ppf(0.005, s.trials, p[k])
        assert s.high == binom.ppf(0.995, s.trials, p[k])


def test_passes_on_data_from_the_model_at_the_truth_and_at_its_best_fit(model_gate):
    cells = cells_of(model_gate.table)
    for post in (truth_posterior(0.5), mle_posterior(cells)):
        check = gate_predictive_check(post, cells, random_seed=1)
        assert check.passed, check.to_dict()["failures"]
        assert check.threshold == pytest.approx(PPC_LEVEL / 3)
        assert all(c.passed for c in check.checks())


def test_false_alarms_at_the_truth_are_rare():
    """On 20 datasets from the model at the truth, at most 3 fail (5% expected, 1 of 20)."""
    failed = 0
    for seed in range(20):
        gate = rejudgment_gate(
            *TRUTH, pi=0.4, n_items=400, rulings=5, labelled_fraction=0.3, random_seed=100 + seed
        )
        failed += not gate_predictive_check(
            truth_posterior(0.4), cells_of(gate.table), random_seed=seed
        ).passed
    assert failed <= 3


@pytest.mark.parametrize(
    ("table", "most_off"),
    [(bimodal_gate(), "passes[violation]"), (drifting_gate(), "passes[violation]")],
    ids=["bimodal", "drifting"],
)
def test_fails_on_data_no_beta_binomial_makes_even_at_its_best_fit(table, most_off):
    cells = cells_of(table)
    check = gate_predictive_check(mle_posterior(cells), cells, random_seed=2)
    assert not check.passed
    failed = {t.family for t in check.failures}
    assert most_off in failed
    assert "passes[compliant]" not in failed  # the compliant items do come from a beta-binomial
    block = check.to_dict()
    assert block["passed"] is False
    assert any(
        text.startswith(most_off) and "rulings passed observed" in text
        for text in block["failures"]
    )
    assert next(c.variable for c in check.checks() if not c.passed).startswith(
        f"{most_off}; most off: {most_off}: "
    )


def test_the_extreme_counts_alone_miss_interior_bimodality():
    """The never- and always-passed counts fit the bimodal gate; the histogram does not."""
    cells = cells_of(bimodal_gate())
    post = mle_posterior(cells)
    for code in (0, -1):
        here = cells.label == code
        p = pass_histogram_probabilities(post, 8, code)[0]
        n = int(cells.weight[here].sum())
        for k in (0, 8):
            y = int(cells.weight[here & (cells.k == k)].sum())
            tail = 2 * min(binom.cdf(y, n, p[k]), binom.sf(y - 1, n, p[k]))
            assert tail > 0.01
    assert not gate_predictive_check(post, cells, random_seed=3).passed


def test_bad_level_is_refused(model_gate):
    with pytest.raises(ValueError, match="level must lie in"):
        gate_predictive_check(truth_posterior(0.5), cells_of(model_gate.table), level=1.5)


def test_a_failed_check_exits_3_and_withholds_the_reading(tmp_path):
    """End to end: the command fits the bimodal gate, which converges but fails the check."""
    path = tmp_path / "rulings.csv"
    bimodal_gate(n=800).to_csv(path, index=False)
    out = tmp_path / "report"
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["gate", str(path), "--json", "--no-progress", "--random-seed", "1", "--out", str(out)]
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main([*argv, "--draws", "400", "--tune", "400", "--chains", "2"])
    assert code == EXIT_DIAGNOSTICS
    diagnostics = json.loads(stdout.getvalue())["diagnostics"]
    assert diagnostics["passed"] is False
    assert all(f.startswith("ppc_tail_prob(") for f in diagnostics["failures"])  # converged
    assert any("passes[violation]" in f for f in diagnostics["failures"])
    block = diagnostics["predictive_check"]
    assert block["passed"] is False
    assert any(t.startswith("passes[violation]") for t in block["failures"])
    assert "FAILED its diagnostics" in stderr.getvalue()
    summary = (out / "summary.md").read_text()
    assert "No reading is given" in summary
    assert "passes[violation]" in summary
