"""The comparison table: posterior rows beside every baseline, same columns, same mass."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import bayesjudge as bj
from bayesjudge.inference.summary import group, posterior_summary
from bayesjudge.prevalence.analysis import _summaries, analyze_prevalence, compare
from bayesjudge.prevalence.baselines import BASELINE_METHODS
from bayesjudge.prevalence.exact import exact_posterior
from bayesjudge.prevalence.fit import fit_prevalence
from bayesjudge.results import ROW_COLUMNS

DATA = bj.JudgeData.from_counts(m1=100, x1=90, m0=100, x0=15, n=1000, k=700)


@pytest.fixture(scope="module")
def fit():
    return fit_prevalence(DATA, random_seed=3, progressbar=False)


def test_table_lines_up_bayes_and_baselines(fit):
    table = compare(fit, DATA, prob=0.9, random_seed=1, exact=exact_posterior(DATA))
    assert list(table.columns) == list(ROW_COLUMNS)
    assert list(table["method"]) == ["bayes_eti", "bayes_hdi", "bayes_exact", *BASELINE_METHODS]
    assert np.allclose(table["prob"], 0.9)  # one interval mass throughout
    assert (table["low"] <= table["estimate"]).all()
    assert (table["estimate"] <= table["high"]).all()


def test_bayes_rows_are_the_posterior_summaries(fit):
    table = compare(fit, DATA, random_seed=1).set_index("method")
    draws = fit["posterior"]["pi"].values.ravel()
    eti = table.loc["bayes_eti"]
    assert eti["estimate"] == pytest.approx(np.median(draws))
    assert (eti["low"], eti["high"]) == pytest.approx(tuple(np.quantile(draws, [0.025, 0.975])))
    hdi = table.loc["bayes_hdi"]
    assert hdi["estimate"] == pytest.approx(draws.mean())
    assert hdi["std_error"] == pytest.approx(draws.std(ddof=1))
    # the highest-density interval is no wider than the equal-tailed one (up to draw noise)
    assert hdi["high"] - hdi["low"] <= eti["high"] - eti["low"] + 1e-3
    assert hdi["j"] == pytest.approx(float(fit["posterior"]["j"].mean()))


def test_posterior_summary_of_known_draws():
    draws = np.random.default_rng(0).beta(30, 70, size=(4, 5000))
    summary = posterior_summary(xr.Dataset({"pi": (("chain", "draw"), draws)}), prob=0.8)
    assert summary.mean == pytest.approx(0.3, abs=0.002)
    assert summary.eti.prob == 0.8
    assert summary.eti.kind == "eti"
    assert summary.hdi.kind == "hdi"
    assert summary.to_dict() == {
        "mean": summary.mean,
        "sd": summary.sd,
        "low": summary.eti.low,
        "high": summary.eti.high,
        "prob": 0.8,
    }


def test_errors(fit):
    with pytest.raises(KeyError, match="no variable 'theta'"):
        posterior_summary(fit, "theta")
    with pytest.raises(ValueError, match="prob must lie in"):
        posterior_summary(fit, "pi", prob=1.0)
    with pytest.raises(KeyError, match="no 'prior' group"):
        group(fit, "prior")
    stratified = xr.Dataset({"pi_s": (("chain", "draw", "stratum"), np.zeros((2, 3, 2)))})
    with pytest.raises(ValueError, match="besides chain and draw"):
        posterior_summary(stratified, "pi_s")


def test_exact_method_summarises_pi_se_sp_j_like_nuts(fit):
    exact = analyze_prevalence(DATA, method="exact", prob=0.9, random_seed=1)
    nuts = _summaries(fit, prob=0.9, stratified=False)
    assert list(exact.summaries) == list(nuts) == ["pi", "se", "sp", "j"]
    for name, sampled in nuts.items():
        summary = exact.summaries[name]
        assert summary.to_dict().keys() == sampled.to_dict().keys()
        # 4 x 2000 NUTS draws: Monte Carlo errors of these summaries are about 2 % of the sd;
        # tolerance 10 %
        tolerance = 0.1 * summary.sd
        for ours, theirs in (
            (summary.mean, sampled.mean),
            (summary.median, sampled.median),
            (summary.eti.low, sampled.eti.low),
            (summary.eti.high, sampled.eti.high),
        ):
            assert ours == pytest.approx(theirs, abs=tolerance), name
        assert summary.sd == pytest.approx(sampled.sd, rel=0.1), name
    assert exact.diagnostics is None
    assert exact.diagnostics_dict()["method"] == "exact"
    assert exact.summaries["pi"].hdi is not None


def test_random_sample_baselines_are_flagged_under_a_by_class_gold_set():
    import bayesjudge as bj
    from bayesjudge.prevalence.analysis import calibration_check, flag_random_sample_estimators
    from bayesjudge.prevalence.baselines import baseline_estimates

    # the bundled example: 150 + 150 gold items, while the judge passes about 67% of test items
    data = bj.JudgeData.from_frame(bj.load_example("judge"))
    check = calibration_check(data)
    assert not check.consistent
    assert check.labelled_rate == pytest.approx(float(data.cal_judge.mean()))
    assert check.unlabelled_rate == pytest.approx(float(data.test_judge.mean()))
    rows = {e.method: e for e in flag_random_sample_estimators(baseline_estimates(data), check)}
    for method in ("calibration_only", "ppi", "ppi_plus_plus"):
        assert "biased under this design" in rows[method].to_row()["note"], method
    for method in ("naive", "rogan_gladen_delta", "rogan_gladen_lang_reiczigel"):
        assert "biased under this design" not in (rows[method].to_row()["note"] or ""), method


def test_random_sample_baselines_are_not_flagged_under_a_random_gold_set():
    import pandas as pd

    from bayesjudge.prevalence.analysis import calibration_check
    from bayesjudge.prevalence.data import JudgeData

    # the first 300 of 3000 items from one population keep their gold label: a random gold set
    rng = np.random.default_rng(5)
    truth = (rng.random(3000) < 0.7).astype(int)
    verdict = np.where(truth == 1, rng.random(3000) < 0.9, rng.random(3000) < 0.15).astype(int)
    frame = pd.DataFrame({"label": pd.array(truth, dtype="Int64"), "verdict": verdict})
    frame.loc[300:, "label"] = pd.NA
    assert calibration_check(JudgeData.from_frame(frame)).consistent


def test_plan_is_computed_only_when_asked() -> None:
    from bayesjudge.prevalence.data import JudgeCounts

    counts = JudgeCounts(m1=40, x1=36, m0=40, x0=6, n=500, k=340)
    assert bj.analyze_prevalence(counts, method="exact").plan is None
    analysis = bj.analyze_prevalence(counts, method="exact", plan=True, prob=0.9, random_seed=3)
    assert analysis.plan is not None
    assert (analysis.plan.seed, analysis.plan.prob, analysis.plan.counts) == (3, 0.9, counts)
    assert analysis.plan.current_width == pytest.approx(analysis.summaries["pi"].eti.width)


@pytest.mark.parametrize("method", ["nuts", "exact"])
def test_plan_reads_the_exact_posterior_computed_once(method, monkeypatch) -> None:
    """With a plan, one default exact posterior serves both uses.

    A sampled fit's reference row and the plan's current width; with method="exact", the answer
    and the plan's current width.
    """
    from bayesjudge.prevalence import exact as exact_module
    from bayesjudge.prevalence import plan as plan_module

    full = []

    def counted(*args, **kwargs):
        if "grid_size" not in kwargs:  # the plan's refits use a smaller grid
            full.append(args)
        return exact_posterior(*args, **kwargs)

    monkeypatch.setattr(exact_module, "exact_posterior", counted)
    monkeypatch.setattr(plan_module, "exact_posterior", counted)
    analysis = analyze_prevalence(DATA, method=method, plan=True, random_seed=3, progressbar=False)
    assert len(full) == 1  # the plan read it instead of computing it again
    assert analysis.plan is not None
    assert analysis.exact is not None
    assert analysis.plan.current == analysis.exact.eti(0.95)
    monkeypatch.undo()
    alone = plan_module.plan_labels(DATA, random_seed=3)
    assert analysis.plan.to_dict() == alone.to_dict()
