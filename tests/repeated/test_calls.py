"""Several judge calls per answer: the data contract, the beta-binomial likelihood, its check.

The likelihood is checked exactly (against SciPy's beta-binomial, and against the counts
likelihood with one call per answer); the predictive check on built posteriors (no sampling);
one seeded fit shows that reading correlated calls as independent answers fails its check and
misses the truth, while the judge-call model passes and covers it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pandas as pd
import pymc as pm
import pytest
import xarray as xr
from scipy.stats import betabinom

from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_OK
from bayesjudge.errors import DataError, FitWarning
from bayesjudge.models.repeated import _beta_binomial_logp, repeated_model
from bayesjudge.repeated import RepeatedData, simulate_repeated
from bayesjudge.repeated.fit import call_histogram_check, fit_repeated

FIT = {"draws": 500, "tune": 500, "chains": 2, "progressbar": False}
CALLS = {"call": "call"}  # a call column is read as judge calls when it is mapped


def _calls_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item": ["a", "a", "a", "a", "b", "b", "b"],
            "epoch": [1, 1, 2, 2, 1, 1, 1],
            "call": [1, 2, 1, 2, 1, 2, 3],
            "verdict": [1, 1, 0, 1, 0, 0, 0],
            "label": [1, 1, None, None, 0, 0, 0],
        }
    )


def test_calls_group_into_answers_and_patterns() -> None:
    data = RepeatedData.from_frame(_calls_frame(), columns=CALLS)
    assert data.has_calls
    assert (data.n_answers, data.n_calls) == (3, 7)
    assert data.answers_per_item.tolist() == [2, 1]
    patterns = data.call_patterns()
    rows = sorted(zip(*(patterns[c].tolist() for c in patterns), strict=True))
    # (item, calls, passes, label, answers)
    assert rows == [(0, 2, 1, -1, 1), (0, 2, 2, 1, 1), (1, 3, 0, 0, 1)]
    described = data.describe()
    assert (described["gold_pass"], described["gold_fail"]) == (1, 1)  # answers, not calls
    assert described["calls_per_answer"] == {"min": 2, "median": 2.0, "max": 3}
    assert described["judge_calls"] == 7


def test_without_a_call_column_every_row_is_an_answer_with_one_call() -> None:
    data = RepeatedData.from_frame(
        _calls_frame().drop(columns="call").drop_duplicates(["item", "epoch"])
    )
    assert not data.has_calls
    patterns = data.call_patterns()
    assert set(patterns["calls"].tolist()) == {1}
    assert int(patterns["answers"].sum()) == data.n_answers == 3


def test_a_repeated_call_names_its_line() -> None:
    frame = _calls_frame()
    frame.loc[1, "call"] = 1  # item a, epoch 1, call 1 twice
    with pytest.raises(DataError, match="judge call") as error:
        RepeatedData.from_frame(frame, columns=CALLS)
    assert "row 1" in str(error.value)


def test_calls_of_one_answer_must_share_the_gold_label() -> None:
    frame = _calls_frame()
    frame.loc[5, "label"] = 1  # item b's second call says PASS, its first FAIL
    with pytest.raises(DataError, match="every row of an answer") as error:
        RepeatedData.from_frame(frame, columns=CALLS)
    assert "row 5" in str(error.value)


@pytest.mark.parametrize(("mean", "rho"), [(0.9, 0.3), (0.05, 0.01), (0.999, 0.9), (0.4, 0.5)])
def test_beta_binomial_matches_scipy(mean: float, rho: float) -> None:
    calls = np.array([1.0, 3.0, 5.0, 5.0, 10.0])
    passes = np.array([1.0, 0.0, 2.0, 5.0, 7.0])
    precision = (1.0 - rho) / rho
    got = _beta_binomial_logp(
        calls, passes, np.log(mean), np.log1p(-mean), np.log(precision), 10
    ).eval()
    expected = betabinom.logpmf(passes, calls, mean * precision, (1.0 - mean) * precision)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_nearly_independent_calls_are_binomial() -> None:
    """At rho = 1e-9 the rising factorials keep every digit that log-gamma differences lose."""
    from scipy.stats import binom

    calls, passes = np.array([4.0, 10.0]), np.array([1.0, 7.0])
    got = _beta_binomial_logp(
        calls, passes, np.log(0.3), np.log(0.7), np.log((1 - 1e-9) / 1e-9), 10
    ).eval()
    np.testing.assert_allclose(got, binom.logpmf(passes, calls, 0.3), rtol=0, atol=1e-7)


def _density(model: pm.Model) -> Callable[[dict[str, float]], float]:
    """The model's log density at a point (other values from its initial point), compiled once."""
    start, logp = model.initial_point(), model.compile_logp()

    def at(point: dict[str, float]) -> float:
        values = {**start, **{name: np.asarray(value) for name, value in point.items()}}
        return float(logp(values))

    return at


def test_one_call_per_answer_is_the_counts_likelihood() -> None:
    """With one call each, the pattern likelihood equals the counts one up to a constant."""
    sim = simulate_repeated(12, 3, gold_answers=10, random_seed=4)
    data = RepeatedData.from_frame(sim.frame.drop(columns="truth"))
    counts = data.counts()
    plain = _density(repeated_model(data.items, counts, spread=False))
    calls = _density(
        repeated_model(data.items, counts, spread=False, patterns=data.call_patterns())
    )
    points = [
        {"se_z": 0.8, "fpr_share_z": -0.4, "median_z": 0.3, "rho_logodds__": 0.0},
        {"se_z": 1.5, "fpr_share_z": -1.2, "median_z": -0.6, "rho_logodds__": 2.0},
    ]
    gaps = [
        calls(point) - plain({k: v for k, v in point.items() if not k.startswith("rho")})
        for point in points
    ]
    rho_prior = [calls(p) - calls({**p, "rho_logodds__": 0.0}) for p in points]
    # the gap is a constant (binomial coefficients) plus rho's own prior, which the likelihood
    # does not touch with one call per answer. Tolerance: PyTensor's normal log-CDF, which
    # both models take Se, Sp and pi from, differs from SciPy's by up to 2e-8 at these points,
    # and the two models combine its values differently (1.6e-7 apart here; any error in the
    # likelihood itself moves the gap by more than 1e-3)
    assert gaps[0] - rho_prior[0] == pytest.approx(gaps[1] - rho_prior[1], abs=1e-6)


def _posterior(p: float, se: float, sp: float, rho: float, items: int) -> xr.Dataset:
    def scalar(value: float) -> tuple[tuple[str, str], np.ndarray]:
        return ("chain", "draw"), np.full((1, 40), value)

    return xr.Dataset(
        {
            "item_rate": (("chain", "draw", "item"), np.full((1, 40, items), p)),
            "se": scalar(se),
            "sp": scalar(sp),
            "rho": scalar(rho),
        }
    )


def test_the_call_check_passes_model_data_and_fails_split_calls() -> None:
    sim = simulate_repeated(
        100,
        2,
        sigma=0.0,
        se=0.9,
        sp=0.85,
        gold_answers=0,
        calls=4,
        call_correlation=0.5,
        random_seed=11,
    )
    data = RepeatedData.from_frame(sim.frame.drop(columns="truth"), columns=CALLS)
    posterior = _posterior(0.5, 0.9, 0.85, 0.5, data.n_items)
    assert call_histogram_check(posterior, data, random_seed=1).passed
    # calls that always split two against two: no beta-binomial makes that pattern certain
    split = sim.frame.drop(columns="truth").assign(verdict=np.tile([1.0, 1.0, 0.0, 0.0], 200))
    broken = RepeatedData.from_frame(split, columns=CALLS)
    check = call_histogram_check(posterior, broken, random_seed=1)
    assert not check.passed
    assert check.value < 0.01


def test_correlated_calls_read_as_answers_fail_their_check_and_the_call_model_fits() -> None:
    """Three calls per answer at correlation 0.6, read two ways (one seeded dataset).

    Read as independent answers, the calls pass too often all together or not at all for a
    binomial, and the per-item histogram check fails; the judge-call model passes every check,
    recovers the correlation, and its interval is wider (k calls are not k answers). Whether
    its interval covers at its nominal rate is a question for a coverage study, not this test.
    """
    sim = simulate_repeated(
        60,
        4,
        sigma=1.5,
        se=0.85,
        sp=0.8,
        gold_answers=60,
        calls=3,
        call_correlation=0.6,
        random_seed=3,
    )
    data = RepeatedData.from_frame(sim.frame.drop(columns="truth"), columns=CALLS)
    model = fit_repeated(data, random_seed=1, **FIT)
    with pytest.warns(FitWarning, match="pass_histogram"):
        naive = fit_repeated(data, judge_calls=False, random_seed=1, **FIT)
    passed = json.loads(model.attrs["diagnostics"])
    failed = json.loads(naive.attrs["diagnostics"])
    assert passed["passed"], passed["failures"]
    assert "ppc_tail_prob(pass_histogram)" in failed["failures"]
    low, high = np.quantile(model.posterior["mean_rate"].values, [0.025, 0.975])
    n_low, n_high = np.quantile(naive.posterior["mean_rate"].values, [0.025, 0.975])
    assert high - low > 1.3 * (n_high - n_low)
    assert 0.35 < float(model.posterior["rho"].mean()) < 0.85


def test_the_command_reads_a_call_column(tmp_path, capsys) -> None:
    sim = simulate_repeated(30, 2, gold_answers=30, calls=3, call_correlation=0.3, random_seed=5)
    frame = sim.frame.drop(columns="truth").rename(columns={"call": "attempt_of_judge"})
    path = tmp_path / "calls.csv"
    frame.to_csv(path, index=False)
    argv = ["repeated", str(path), "--call", "attempt_of_judge", "--json"]
    tiny = ["--draws", "300", "--tune", "300", "--no-progress", "--random-seed", "2"]
    code = main([*argv, *tiny])
    payload = json.loads(capsys.readouterr().out)
    assert code in (EXIT_OK, 3)
    assert (
        payload["estimand"] == "mean success rate over 30 items, 2 answers each, 3 judge calls each"
    )
    assert set(payload["call_correlation"]) >= {"mean", "low", "high"}
    assert payload["data"]["judge_calls"] == 180
    notes = [b for b in payload["baselines"] if b["method"].startswith("rows_as_independent:")]
    assert all("every judge call read as an independent item" in b["note"] for b in notes)


def test_a_repeated_call_on_the_command_line_is_bad_input(tmp_path, capsys) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("item,epoch,call,verdict\na,1,1,1\na,1,1,0\n")
    assert main(["repeated", str(path), "--call", "call"]) == EXIT_BAD_INPUT
    assert "line 3" in capsys.readouterr().err


def test_a_call_column_found_by_name_is_refused_with_both_fixes_and_each_fix_works() -> None:
    """A column that happens to be called ``call`` is not read as judge calls unasked."""
    frame = _calls_frame()
    with pytest.raises(DataError, match=r"--call call \(columns=\{'call': 'call'\}\)") as error:
        RepeatedData.from_frame(frame)
    assert "rename the column" in str(error.value)
    # the first fix: map it, and the rows are calls on their answers
    assert RepeatedData.from_frame(frame, columns=CALLS).n_answers == 3
    # the second fix: rename it, and every row is an answer of its own
    renamed = frame.drop(columns="epoch").rename(columns={"call": "request"})
    assert RepeatedData.from_frame(renamed).n_answers == 7


def test_a_call_column_with_one_row_per_answer_needs_no_mapping() -> None:
    frame = _calls_frame().drop_duplicates(["item", "epoch"])
    data = RepeatedData.from_frame(frame)
    assert data.n_answers == data.n_calls == 3
