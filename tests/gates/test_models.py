"""The per-item pass-rate hierarchy: structure, likelihood, one real fit, refits, baselines."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import logit

from bayesjudge.errors import DataError
from bayesjudge.gates.analysis import analyze_gate
from bayesjudge.gates.baselines import GATE_BASELINES, gate_baselines
from bayesjudge.gates.cells import gate_cells, pad_cells
from bayesjudge.gates.curves import PassRateDistribution, gate_curve
from bayesjudge.gates.data import Rulings
from bayesjudge.gates.fit import cap_curve_draws, fit_gate, zibb_logpmf
from bayesjudge.gates.simulate import TABLE4, rejudgment_gate, table4_gate
from bayesjudge.inference.cache import model_cache_info
from bayesjudge.inference.diagnostics import check_fit
from bayesjudge.models.gate import CLASSES, gate_model
from bayesjudge.priors import GatePriors, Normal

GATE = table4_gate(*TABLE4["HaluEval / Gemini-Flash"][:2])


def _rulings(seed: int, n_items: int = 2000, labelled: float = 0.1) -> tuple[Rulings, object]:
    gate = rejudgment_gate(
        *GATE, pi=0.5, n_items=n_items, rulings=6, labelled_fraction=labelled, random_seed=seed
    )
    return Rulings.from_frame(gate.table), gate


def _small_cells():
    return gate_cells(
        [1, 1, 0, 0, np.nan, np.nan, np.nan], [6, 6, 6, 4, 6, 6, 3], [6, 5, 0, 1, 6, 0, 2]
    )


# --------------------------------------------------------------------------- structure
def test_model_structure():
    model = gate_model(pad_cells(_small_cells(), 32))
    assert model.coords["class"] == CLASSES
    assert set(model.coords) == {"class", "cell"}  # the caps are derived after sampling
    assert len(model.coords["cell"]) == 32
    free = {v.name for v in model.free_RVs}
    assert free == {"pi", "omega", "mu", "log_kappa"}
    dims = model.named_vars_to_dims
    for name in ("omega", "mu", "log_kappa", "kappa"):
        assert dims[name] == ("class",)
    assert "j_inf" in model.named_vars
    assert "pi" not in dims  # a scalar
    for name in ("cell_label", "cell_r", "cell_k", "cell_weight"):
        assert dims[name] == ("cell",)
    # by class (the default): the labels' class mix says nothing about pi
    assert [p.name for p in model.potentials] == ["loglik"]
    random = gate_model(pad_cells(_small_cells(), 32), calibration="random")
    assert [p.name for p in random.potentials] == ["loglik", "calibration_labels"]


def _evaluate(model, names, pi, omega, mu, kappa):
    """Evaluate model expressions at given parameter values (through the value variables)."""
    import pytensor

    outs = model.replace_rvs_by_values([model[n] for n in names])
    fn = pytensor.function(model.value_vars, outs, on_unused_input="ignore")
    values = {
        "pi_logodds__": logit(pi),
        "omega_logodds__": logit(np.asarray(omega)),
        "mu_logodds__": logit(np.asarray(mu)),
        "log_kappa": np.log(np.asarray(kappa)),
    }
    return fn(*[values[v.name] for v in model.value_vars])


def test_cell_likelihood_equals_the_per_item_brute_force():
    rng = np.random.default_rng(0)
    n = 300
    label = np.where(rng.random(n) < 0.3, rng.integers(0, 2, n).astype(float), np.nan)
    r = rng.integers(2, 7, n)
    k = rng.binomial(r, 0.5)
    cells = gate_cells(label, r, k)
    model = gate_model(pad_cells(cells, 64), calibration="random")  # padding adds exactly 0
    pi, omega, mu, kappa = 0.35, [0.3, 0.05], [0.4, 0.8], [2.0, 5.0]
    value = float(_evaluate(model, ["loglik"], pi, omega, mu, kappa)[0])

    def item_pmf(c, ki, ri):
        a, b = mu[c] * kappa[c], (1 - mu[c]) * kappa[c]
        return omega[c] * (ki == 0) + (1 - omega[c]) * stats.betabinom.pmf(ki, ri, a, b)

    total = 0.0
    for yi, ri, ki in zip(label, r, k, strict=True):
        if np.isnan(yi):
            total += np.log(pi * item_pmf(1, ki, ri) + (1 - pi) * item_pmf(0, ki, ri))
        else:
            total += np.log(item_pmf(int(yi), ki, ri))
    # the same sum, grouped by cell: equal to floating-point accuracy
    assert value == pytest.approx(total, rel=1e-10)
    labels = float(_evaluate(model, ["calibration_labels"], pi, omega, mu, kappa)[0])
    n1, n0 = int(np.sum(label == 1)), int(np.sum(label == 0))
    assert labels == pytest.approx(n1 * np.log(pi) + n0 * np.log1p(-pi), rel=1e-12)
    # the numpy twin used for the derived draws is the same likelihood, cell by cell
    a, b = np.asarray(mu) * np.asarray(kappa), (1 - np.asarray(mu)) * np.asarray(kappa)
    twin = 0.0
    for yi, ri, ki in zip(label, r, k, strict=True):
        per_class = [zibb_logpmf(np.array(ki), np.array(ri), omega[c], a[c], b[c]) for c in (0, 1)]
        if np.isnan(yi):
            twin += np.logaddexp(np.log(pi) + per_class[1], np.log1p(-pi) + per_class[0])
        else:
            twin += per_class[int(yi)]
    assert twin == pytest.approx(value, rel=1e-10)


def test_derived_quantities_equal_the_closed_forms():
    import xarray as xr

    model = gate_model(pad_cells(_small_cells(), 32))
    pi, omega, mu, kappa = 0.6, [0.25, 0.02], [0.45, 0.85], [1.5, 6.0]
    j_inf = float(_evaluate(model, ["j_inf"], pi, omega, mu, kappa)[0])
    # one chain, two identical draws of the class parameters
    posterior = xr.Dataset(
        {
            "pi": (("chain", "draw"), np.full((1, 2), pi)),
            "omega": (("chain", "draw", "class"), np.tile(omega, (1, 2, 1))),
            "mu": (("chain", "draw", "class"), np.tile(mu, (1, 2, 1))),
            "kappa": (("chain", "draw", "class"), np.tile(kappa, (1, 2, 1))),
        },
        coords={"class": list(CLASSES)},
    )
    caps = [1, 2, 5, 1000, 10**9]
    values = cap_curve_draws(posterior, caps).isel(chain=0, draw=0)
    curve = gate_curve(
        PassRateDistribution(omega[1], mu[1], kappa[1]),
        PassRateDistribution(omega[0], mu[0], kappa[0]),
        caps=caps,
        pi=pi,
    )
    np.testing.assert_allclose(values["se"], curve.se, rtol=1e-10)
    np.testing.assert_allclose(values["sp"], curve.sp, rtol=1e-10)
    np.testing.assert_allclose(values["j"], curve.j, rtol=1e-10)
    np.testing.assert_allclose(values["judged_rate"], curve.reported, rtol=1e-10)
    np.testing.assert_allclose(values["bias"], curve.bias, atol=1e-12)
    assert values["cap"].values.tolist() == caps
    assert j_inf == pytest.approx(curve.j_inf)
    # at a huge cap J(K) reaches the reliability floor J(inf)
    assert float(values["j"].sel(cap=10**9)) == pytest.approx(curve.j_inf, abs=1e-3)


def test_model_errors():
    with pytest.raises(ValueError, match="smaller than the number of cells"):
        pad_cells(_small_cells(), 2)
    with pytest.raises(ValueError, match=r"calibration must be one of \['by_class', 'random'\]"):
        gate_model(pad_cells(_small_cells(), 32), calibration="stratified")
    with pytest.raises(ValueError, match="sigma must be a positive number"):
        GatePriors(log_kappa=Normal(1.0, 0.0))
    with pytest.raises(TypeError, match="priors must be a GatePriors"):
        gate_model(pad_cells(_small_cells(), 32), priors={"pi": 1})


# --------------------------------------------------------------------------- fitting
@pytest.fixture(scope="module")
def fitted():
    rulings, gate = _rulings(seed=21)
    analysis = analyze_gate(rulings, caps=[1, 5], random_seed=3, progressbar=False)
    return rulings, gate, analysis


def test_real_fit_passes_its_diagnostics_and_covers_the_truth(fitted):
    rulings, gate, analysis = fitted
    tree = analysis.posterior
    diagnostics = check_fit(tree, mcse_var_names=["pi", "j_inf", "se", "sp", "j", "judged_rate"])
    assert diagnostics.passed, diagnostics.describe_failures()
    assert diagnostics.divergences == 0
    assert analysis.diagnostics.passed
    assert tree.attrs["model"] == "gate"
    assert tree.attrs["calibration"] == "by_class"
    assert tree.attrs["n_unlabelled"] == int((~rulings.labelled).sum())
    assert set(tree["observed_data"].data_vars) == {"never_passed", "always_passed"}
    assert tree["posterior"]["j"].dims == ("chain", "draw", "cap")
    truth = gate_curve(gate.compliant, gate.violation, caps=[1, 5], pi=0.5)
    # a single seeded fit: each 95% interval holds its true value
    assert analysis.summary("pi").eti.contains(0.5)
    for j, cap in enumerate((1, 5)):
        assert analysis.summary("j", cap).eti.contains(truth.j[j])
        assert analysis.summary("se", cap).eti.contains(truth.se[j])
    pi_sample = tree["posterior"]["pi_sample"].to_numpy()
    lo, hi = np.quantile(pi_sample, [0.025, 0.975])
    assert lo <= gate.pi_unlabelled <= hi
    payload = analysis.to_dict()
    assert set(payload["posterior"]) == {"pi", "j_inf", "j", "se", "sp", "judged_rate"}
    assert set(payload["posterior"]["j"]) == {"1", "5"}
    assert set(payload["posterior"]["pi"]) == {"mean", "sd", "low", "high", "prob"}


@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
def test_refit_reuses_the_compiled_model(fitted):
    before = model_cache_info()
    rulings, _ = _rulings(seed=22)
    tree = fit_gate(
        rulings, caps=[1, 5], draws=300, tune=300, random_seed=4, progressbar=False, escalate=False
    )
    after = model_cache_info()
    assert after.compiles == before.compiles
    assert after.hits == before.hits + 1
    assert tree["posterior"]["pi"].shape == (4, 300)


@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
def test_fit_gate_takes_draws_auto_and_records_its_stopping_rule(fitted):
    """``draws="auto"`` through the family's own signature (as ``gate --draws auto`` passes it)."""
    import json

    from bayesjudge.inference import defaults

    rulings, _ = _rulings(seed=22)
    tree = fit_gate(rulings, caps=[1, 5], draws="auto", tune=300, random_seed=4, progressbar=False)
    rule = json.loads(tree.attrs["stopping_rule"])
    kept = int(tree.attrs["draws_kept"])
    assert kept % defaults.AUTO_CHECKPOINT == 0
    assert defaults.AUTO_CHECKPOINT <= kept <= defaults.AUTO_MAX_DRAWS
    assert tree["posterior"]["pi"].shape == (4, kept)
    assert rule["checkpoint"] == defaults.AUTO_CHECKPOINT


def test_fit_errors():
    rulings, _ = _rulings(seed=23, n_items=200)
    no_violation = Rulings(
        items=rulings.items,
        r=rulings.r,
        k=rulings.k,
        label=np.where(rulings.label == 0, np.nan, rulings.label),
    )
    with pytest.raises(DataError, match="both classes"):
        fit_gate(no_violation)
    with pytest.raises(ValueError, match=r"sampler must be one of \['auto', 'nutpie', 'pymc'\]"):
        fit_gate(rulings, sampler="stan")
    with pytest.raises(ValueError, match="draws must be a whole number"):
        fit_gate(rulings, draws=0)
    with pytest.raises(TypeError, match="rulings must be Rulings"):
        fit_gate(pd.DataFrame())


# --------------------------------------------------------------------------- baselines at K
def test_gate_baselines_rows_and_reference_values():
    ppi_py = pytest.importorskip("ppi_py")
    rulings, _ = _rulings(seed=24, n_items=1000, labelled=0.3)
    rows = gate_baselines(rulings, caps=[1, 3, 7])
    assert [(r.cap, r.estimate.method) for r in rows[:4]] == [(1, m) for m in GATE_BASELINES]
    by = {(r.cap, r.estimate.method): r.estimate for r in rows}
    lab = rulings.labelled
    score = rulings.k / rulings.r
    y = rulings.label[lab]
    # naive at K = 1 is the mean fraction of rulings passed on the unlabelled items
    assert by[1, "naive"].estimate == pytest.approx(score[~lab].mean())
    # PPI on the continuous score equals the reference implementation (float accuracy)
    reference = ppi_py.ppi_mean_pointestimate(y, score[lab], score[~lab], lam=1.0)
    assert by[1, "ppi"].estimate == pytest.approx(float(np.ravel(reference)[0]), rel=1e-10)
    # Rogan-Gladen uses the class means of the labelled scores
    se_hat, fpr_hat = score[lab][y == 1].mean(), score[lab][y == 0].mean()
    assert by[1, "rogan_gladen_delta"].j == pytest.approx(se_hat - fpr_hat)
    # caps beyond the number of rulings are refused, not extrapolated
    assert by[7, "ppi"].estimate is None
    assert "extrapolation" in by[7, "ppi"].notes[0]
    assert rows[0].to_row()["cap"] == 1


def test_gate_baselines_errors():
    rulings, _ = _rulings(seed=25, n_items=100)
    everyone = Rulings(
        items=rulings.items, r=rulings.r, k=rulings.k, label=np.zeros(rulings.items.size)
    )
    with pytest.raises(DataError, match="both classes"):
        gate_baselines(everyone, caps=[1])
    with pytest.raises(ValueError, match="prob must lie in"):
        gate_baselines(rulings, caps=[1], prob=1.0)


@pytest.mark.slow
def test_recovery_study_small():
    """Seeded small recovery study (the full one is benchmarks/gate_recovery.py)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "gate_recovery.py"
    spec = importlib.util.spec_from_file_location("gate_recovery", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table = module.recovery_study(replicates=10, random_seed=1)
    overall = table[table["gate"] == "all"].set_index("method")
    # 40 fits: the model is no worse than PPI++ (10% slack for Monte Carlo noise) and its
    # 95% intervals of pi, J(1) and J(5) cover in at least 85% of fits
    assert overall.loc["gate_model", "mae"] <= 1.1 * overall.loc["ppi_plus_plus", "mae"]
    for column in ("coverage_pi", "coverage_j1", "coverage_j5"):
        assert overall.loc["gate_model", column] >= 0.85


# --------------------------------------------------------------------------- calibration design
@pytest.fixture(scope="module")
def by_class_gate():
    # a gold set drawn 150 + 150 by class while only 30% of the items are compliant
    gate = rejudgment_gate(
        *GATE, pi=0.3, n_items=3000, rulings=6, labelled_by_class=(150, 150), random_seed=41
    )
    return Rulings.from_frame(gate.table), gate


def test_default_calibration_is_robust_to_a_class_balanced_gold_set(by_class_gate):
    rulings, gate = by_class_gate
    tree = fit_gate(rulings, caps=[1], draws=1000, random_seed=5, progressbar=False)
    assert tree.attrs["calibration"] == "by_class"
    draws = tree["posterior"]["pi_sample"].to_numpy().reshape(-1)
    low, high = np.quantile(draws, [0.025, 0.975])
    assert low <= gate.pi_unlabelled <= high


# the misspecified design may also fail a posterior predictive check: that is the point
@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
def test_random_calibration_check_fires_on_a_class_balanced_gold_set(by_class_gate):
    rulings, gate = by_class_gate
    with pytest.warns(UserWarning, match="not a random sample|random sample of all items"):
        tree = fit_gate(
            rulings, caps=[1], calibration="random", draws=1000, random_seed=5, progressbar=False
        )
    check = json.loads(tree.attrs["calibration_check"])
    assert check["consistent"] is False
    assert check["labelled_rate"] > check["unlabelled_rate"]
    # the gold labels' 50/50 mix pulls the random-design posterior towards 0.5
    biased = float(tree["posterior"]["pi_sample"].mean())
    assert biased - gate.pi_unlabelled > 0.05


def test_random_calibration_check_stays_quiet_on_a_random_gold_set():
    rulings, _ = _rulings(seed=26, n_items=1000, labelled=0.3)
    from bayesjudge.gates.fit import gate_calibration_check

    assert gate_calibration_check(rulings).consistent
