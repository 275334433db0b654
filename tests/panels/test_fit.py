"""Real fits of the panel model through ``fit_panel``: recovery, and missing verdicts.

Each fit compiles the random-effects model (about 30 s) and samples it, so the module is
``slow``; the fast tests of the model (likelihood, prior, coordinates) are in test_model.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from bayesjudge.panels.data import PanelData
from bayesjudge.panels.fit import fit_panel, unanimity_counts
from bayesjudge.panels.simulate import panel_scenario, simulate_panel

pytestmark = pytest.mark.slow
pytest.importorskip("nutpie")

SETTINGS = {"draws": 1000, "tune": 1000, "chains": 4, "progressbar": False}


@pytest.fixture(scope="module")
def simulated():
    scenario = panel_scenario(3)  # a, its near-copy a_copy, b
    return simulate_panel(pi=0.7, **scenario, n_unlabelled=2000, n_gold=200, random_seed=1)


@pytest.fixture(scope="module")
def full_fit(simulated):
    return fit_panel(simulated.data, random_seed=1, **SETTINGS)


def _covers(draws, truth) -> np.ndarray:
    low, high = np.quantile(draws, [0.025, 0.975], axis=(0, 1))
    return (low <= truth) & (truth <= high)


def test_recovery_of_pi_accuracy_and_effective_judges(full_fit, simulated):
    assert full_fit.attrs["diagnostics_passed"]
    post = full_fit["posterior"]
    truth = simulated.truth
    # one seeded fit: pi's and the effective number of judges' 95% intervals hold the truth
    assert _covers(post["pi"].to_numpy(), truth.pi)
    assert _covers(post["effective_judges"].to_numpy(), truth.effective_judges)
    # each Se and Sp within 3 posterior sd of its true value (seven quantities at once)
    for name in ("se", "sp"):
        draws = post[name].to_numpy().reshape(-1, 3)
        z = np.abs(draws.mean(axis=0) - getattr(truth, name)) / draws.std(axis=0)
        assert (z < 3).all(), (name, z)
    # the near-copies are seen as such, in both classes
    corr = post["error_correlation"].mean(("chain", "draw"))
    copies = corr.sel(judge="a", other_judge="a_copy")
    assert (copies > corr.sel(judge="a", other_judge="b") + 0.1).all()
    assert float(post["effective_judges"].mean()) < 2.0  # three judges count as fewer than two
    assert full_fit.attrs["best_rule"] in post["rule"].to_numpy().tolist()
    # the unanimity check: observed counts and their replicates, per group
    observed = unanimity_counts(simulated.data.patterns())
    np.testing.assert_array_equal(
        full_fit["observed_data"]["all_pass"].to_numpy(), observed["all_pass"]
    )
    assert full_fit["posterior_predictive"]["all_pass"].dims == ("chain", "draw", "group")


def test_missing_verdicts_leave_pi_consistent(full_fit, simulated):
    rng = np.random.default_rng(5)
    verdicts = np.array(simulated.data.verdicts)
    dropped = rng.random(verdicts.shape[0]) < 0.2
    verdicts[dropped, 2] = np.nan  # judge b loses 20% of its verdicts at random
    data = PanelData.from_arrays(
        verdicts, labels=simulated.data.labels, judges=simulated.data.judges
    )
    assert data.missing_share["b"] == pytest.approx(0.2, abs=0.02)
    fit = fit_panel(data, random_seed=1, **SETTINGS)
    full = full_fit["posterior"]["pi"].to_numpy()
    less = fit["posterior"]["pi"].to_numpy()
    # reading the missing verdicts as FAIL would cut judge b's pass rate by a fifth and move pi
    # by many sds; at random they only widen the posterior a little
    assert abs(less.mean() - full.mean()) < 0.75 * full.std()
    assert 0.9 < less.std() / full.std() < 1.5
    assert _covers(less, simulated.truth.pi)
