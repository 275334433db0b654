"""The label planner (bayesjudge.prevalence.plan): how many more gold labels.

Checks, in tiers:

* the posterior draws it simulates from agree with the exact posterior's moments;
* the split of the extra labels is Lee et al. (2025)'s allocation (``allocate(rule="exact")``
  when both apply) and minimises the eq. 6 length over every whole split;
* the predicted width agrees with direct simulation (posterior draws, simulated labels,
  exact refits at the default precision, a plain average) within Monte Carlo error;
* in large samples it approaches the eq. 9 delta-method width of Lee et al. (2025);
* the reduced exact grid of the refits costs less than 1e-4 of width;
* the floor agrees with a one-dimensional quadrature of pi's posterior with Se and Sp known;
* the answer, the statuses, the JSON, the command line, the figure and the errors.

The larger studies (direct simulation over 200 data sets, the fixed-truth comparison, widths
by split) are ``benchmarks/bench_plan.py``, with results in ``benchmarks/results/plan.md``; a
smaller version of the over-data-sets check is the slow test at the end.
"""

from __future__ import annotations

import doctest
import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, optimize, stats

import bayesjudge as bj
from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_OK
from bayesjudge.errors import DataError
from bayesjudge.estimators.rogan_gladen import rogan_gladen_variance
from bayesjudge.prevalence import plan as plan_module
from bayesjudge.prevalence.allocation import allocate, optimal_ratio
from bayesjudge.prevalence.data import JudgeCounts, JudgeData
from bayesjudge.prevalence.exact import exact_posterior
from bayesjudge.prevalence.plan import (
    LabelPlan,
    PlanPoint,
    plan_labels,
    plot_label_plan,
    posterior_draws,
)
from bayesjudge.prevalence.simulate import judge_table
from bayesjudge.priors import Beta, PrevalencePriors

EXAMPLE = JudgeCounts(m1=150, x1=140, m0=150, x0=24, n=2000, k=1349)  # the bundled example
LOW = JudgeCounts(m1=122, x1=103, m0=401, x0=2, n=3330, k=50)  # low prevalence
SMALL = JudgeCounts(m1=40, x1=36, m0=40, x0=6, n=5000, k=3400)  # a small calibration set
INFORMATIVE = PrevalencePriors(pi=Beta(14.0, 6.0), se=Beta(18.0, 2.0), sp=Beta(17.0, 3.0))
ROW = {"m", "m1", "m0", "width", "mcse", "lang_reiczigel_width", "searched"}


def test_example_counts_are_the_bundled_example():
    assert JudgeData.from_frame(bj.load_example("judge")).counts == EXAMPLE


# --------------------------------------------------------------------------- posterior draws
@pytest.mark.parametrize(
    ("counts", "priors"),
    [(EXAMPLE, None), (LOW, None), (SMALL, None), (SMALL, INFORMATIVE)],
    ids=["example", "low-prevalence", "small", "informative-prior"],
)
def test_posterior_draws_match_the_exact_posterior(counts, priors):
    size = 20_000
    draws = posterior_draws(counts, size=size, priors=priors, random_seed=11)
    exact = exact_posterior(counts, priors=priors).summary()
    ess = draws.attrs["ess"]
    assert ess > 2_000
    for name in ("pi", "se", "sp", "j"):
        sd = exact.loc[name, "sd"]
        # resampled draws: the error of the pool (ess) plus that of the resampling (size)
        tolerance = 4.0 * sd * np.sqrt(1.0 / size + 1.0 / ess)
        assert draws[name].mean() == pytest.approx(exact.loc[name, "mean"], abs=tolerance)
        assert draws[name].std() == pytest.approx(sd, rel=4.0 * np.sqrt(1.0 / ess + 1.0 / size))
    assert (draws["j"] > 0).all()
    assert list(draws.columns) == ["pi", "se", "sp", "j"]


def test_posterior_draws_are_seeded():
    a = posterior_draws(SMALL, size=50, random_seed=3)
    b = posterior_draws(SMALL, size=50, random_seed=3)
    c = posterior_draws(SMALL, size=50, random_seed=4)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    assert posterior_draws(SMALL, size=5).equals(posterior_draws(SMALL, size=5, random_seed=None))


# --------------------------------------------------------------------------- the split
@pytest.mark.parametrize(
    ("counts", "m"),
    [
        (JudgeCounts(100, 90, 100, 15, 1000, 700), 100),  # the bias-correction article's numbers
        (JudgeCounts(100, 90, 100, 15, 1000, 700), 1000),
        (JudgeCounts(400, 380, 400, 40, 100_000, 69_500), 800),
        (JudgeCounts(50, 45, 50, 12, 2000, 600), 300),
    ],
)
def test_split_is_lee_et_al_exact_allocation(counts, m):
    """With equal classes now, the totals are what allocate(rule="exact") gives the budget."""
    ratio = plan_module._allocation_ratio(counts)[0]
    m1, m0 = plan_module._split(m, m1_now=counts.m1, m0_now=counts.m0, ratio=ratio)
    expected = allocate(
        counts.m1 + counts.m0 + m,
        p_hat=counts.p_hat,
        pilot_q0=counts.q0,
        pilot_q1=counts.q1,
        pilot_size=counts.m1,
        rule="exact",
    )
    assert (counts.m1 + m1, counts.m0 + m0) == (expected.m1, expected.m0)
    assert ratio == pytest.approx(expected.ratio, rel=1e-12)


@given(
    m=st.integers(1, 400),
    m1_now=st.integers(1, 300),
    m0_now=st.integers(1, 300),
    ratio=st.floats(0.0, 20.0),
)
def test_split_minimises_the_eq6_length_over_every_whole_split(m, m1_now, m0_now, ratio):
    m1, m0 = plan_module._split(m, m1_now=m1_now, m0_now=m0_now, ratio=ratio)
    assert m1 + m0 == m
    assert m1 >= 0
    assert m0 >= 0
    every = np.arange(m + 1)
    length = ratio**2 / (m0_now + m - every + 2.0) + 1.0 / (m1_now + every + 2.0)
    ours = ratio**2 / (m0_now + m0 + 2.0) + 1.0 / (m1_now + m1 + 2.0)
    assert ours <= length.min() * (1 + 1e-12)


def test_split_edge_ratios():
    assert plan_module._split(0, m1_now=5, m0_now=5, ratio=1.0) == (0, 0)
    assert plan_module._split(10, m1_now=5, m0_now=5, ratio=np.inf) == (0, 10)
    assert plan_module._split(10, m1_now=5, m0_now=5, ratio=0.0) == (10, 0)


# --------------------------------------------------------------------------- against simulation
def test_predicted_width_agrees_with_direct_simulation():
    """Direct simulation: posterior draws, simulated labels, exact refits, a plain average.

    The reference refits use grid_size=257, nodes=32 (twice the planner's 129 and 24; checked
    here against the defaults on the first replicate) so that 40 of them take about 2 s.
    """
    counts = JudgeData.from_frame(
        judge_table(pi=0.7, se=0.9, sp=0.85, n=1000, m1=60, m0=60, random_seed=21)
    ).counts
    m = 200
    plan = plan_labels(counts, m_grid=[m], max_labels=m, random_seed=1)
    point = plan.curve[1]
    replicates = 40
    rng = np.random.default_rng(22)
    theta = posterior_draws(counts, size=replicates, random_seed=23)
    widths = []
    for se, sp in zip(theta["se"], theta["sp"], strict=True):
        x1 = int(rng.binomial(point.m1, se))
        x0 = int(rng.binomial(point.m0, 1.0 - sp))
        augmented = JudgeCounts(
            counts.m1 + point.m1,
            counts.x1 + x1,
            counts.m0 + point.m0,
            counts.x0 + x0,
            counts.n,
            counts.k,
        )
        widths.append(exact_posterior(augmented, grid_size=257, nodes=32).eti(0.95).width)
        if len(widths) == 1:
            assert widths[0] == pytest.approx(exact_posterior(augmented).eti(0.95).width, abs=1e-6)
    direct = np.mean(widths)
    direct_se = np.std(widths, ddof=1) / np.sqrt(replicates)
    combined = np.hypot(point.mcse, direct_se)
    assert abs(point.width - direct) < 4.0 * combined
    assert point.mcse < direct_se  # the control variate earns its keep
    assert plan.curve[0].width > point.width > plan.floor


@pytest.mark.parametrize(("m_cal", "m"), [(400, 800), (1000, 2000)])
def test_large_samples_approach_lee_et_al_eq9(m_cal, m):
    """n = 100,000, an informative judge: the width approaches 2 z sd of eq. 9 at the totals."""
    pi, se, sp, n = 0.7, 0.95, 0.9, 100_000
    rate = pi * se + (1.0 - pi) * (1.0 - sp)
    counts = JudgeCounts(
        m_cal, round(se * m_cal), m_cal, round((1.0 - sp) * m_cal), n, round(rate * n)
    )
    plan = plan_labels(counts, m_grid=[m], max_labels=m, draws=8, random_seed=2)
    point = plan.curve[1]
    closed = (
        2.0
        * 1.959963984540054
        * np.sqrt(
            rogan_gladen_variance(
                rate=counts.p_hat,
                se=counts.q1,
                sp=counts.q0,
                n=n,
                m1=counts.m1 + point.m1,
                m0=counts.m0 + point.m0,
            )
        )
    )
    # measured: 1.017 at (400, 800), 1.006 at (1000, 2000); the gap is O(1/m)
    tolerance = 0.025 if m_cal == 400 else 0.01
    assert point.width / closed == pytest.approx(1.0, abs=tolerance)
    assert point.lang_reiczigel_width / closed == pytest.approx(1.0, abs=tolerance)


def test_mirrored_data_give_the_mirrored_plan():
    """Swapping PASS and FAIL swaps the split and leaves the width (pi -> 1 - pi)."""
    a = JudgeCounts(400, 380, 400, 40, 100_000, 69_500)
    b = JudgeCounts(400, 400 - 40, 400, 400 - 380, 100_000, 100_000 - 69_500)
    pa = plan_labels(a, m_grid=[800], max_labels=800, draws=8, random_seed=5).curve[1]
    pb = plan_labels(b, m_grid=[800], max_labels=800, draws=8, random_seed=5).curve[1]
    assert (pa.m1, pa.m0) == (pb.m0, pb.m1)
    assert pa.width == pytest.approx(pb.width, abs=4.0 * np.hypot(pa.mcse, pb.mcse))


def test_reduced_refit_grid_costs_less_than_1e_4():
    for counts in (EXAMPLE, LOW, SMALL, JudgeCounts(1150, 1080, 1150, 180, 2000, 1349)):
        fast = exact_posterior(counts, grid_size=plan_module._GRID, nodes=plan_module._NODES)
        assert fast.eti(0.95).width == pytest.approx(
            exact_posterior(counts).eti(0.95).width, abs=1e-4
        )


def _known_judge_width(se: float, sp: float, n: int, k: int, prob: float = 0.95) -> float:
    """Width of pi's ETI with Se and Sp known (Jeffreys prior on pi), by scipy quadrature."""
    j = se + sp - 1.0
    peak = (k / n - 1.0 + sp) / j
    top = stats.binom.logpmf(k, n, k / n)

    def density(p: float) -> float:
        return stats.beta.pdf(p, 0.5, 0.5) * np.exp(stats.binom.logpmf(k, n, 1 - sp + j * p) - top)

    points = [peak] if 0.0 < peak < 1.0 else None
    total = integrate.quad(density, 0.0, 1.0, points=points, limit=200)[0]

    def cdf(x: float) -> float:
        return integrate.quad(density, 0.0, x, limit=200)[0] / total

    tail = (1.0 - prob) / 2.0
    low = optimize.brentq(lambda x: cdf(x) - tail, 1e-12, 1 - 1e-12)
    high = optimize.brentq(lambda x: cdf(x) - 1.0 + tail, 1e-12, 1 - 1e-12)
    return high - low


def test_floor_is_the_width_with_se_and_sp_known():
    """With 10^6 labels per class already, Se and Sp are known: floor = the 1-D reference."""
    se, sp, n, k = 0.93, 0.84, 2000, 1349
    big = 10**6
    counts = JudgeCounts(big, round(se * big), big, round((1 - sp) * big), n, k)
    plan = plan_labels(counts, m_grid=[1], max_labels=1, draws=4, random_seed=3)
    reference = _known_judge_width(se, sp, n, k)
    assert plan.floor == pytest.approx(reference, abs=2e-4)
    assert plan.current_width == pytest.approx(reference, abs=2e-4)


def test_floor_lies_below_the_curve_and_the_curve_falls():
    plan = plan_labels(SMALL, m_grid=[20, 100, 500, 2500], max_labels=2500, draws=4)
    widths = [p.width for p in plan.curve]
    assert all(a > b for a, b in itertools.pairwise(widths))
    assert plan.floor < widths[-1]
    assert plan.floor_mcse > 0


# --------------------------------------------------------------------------- the answer
def test_answer_reaches_the_target_and_the_point_below_does_not():
    plan = plan_labels(SMALL, target_width=0.15, max_labels=500, draws=6, random_seed=4)
    assert plan.status == "reached"
    answer = plan.answer
    assert isinstance(answer, PlanPoint)
    assert answer.width <= 0.15
    below = [p for p in plan.curve if p.m < answer.m]
    assert below
    assert below[-1].width > 0.15
    assert any(p.searched for p in plan.curve)
    assert [p.m for p in plan.curve] == sorted(p.m for p in plan.curve)
    bracket = answer.m - below[-1].m
    assert bracket <= max(1, np.ceil(0.02 * answer.m)) or (
        below[-1].width - answer.width <= 2 * max(answer.mcse, below[-1].mcse)
    )
    text = plan.reading()
    assert f"Label {answer.m1} more gold-PASS and {answer.m0} more gold-FAIL items" in text
    assert f"about {answer.width:.3f}" in text


def test_status_already_met():
    plan = plan_labels(SMALL, target_width=0.9, max_labels=10, draws=2)
    assert plan.status == "already_met"
    assert plan.answer is plan.curve[0]
    assert plan.answer.m == 0
    assert plan.answer.mcse == 0.0
    assert "no more gold labels are needed" in plan.reading()


def test_status_below_floor_and_needs_more_labels():
    floor = plan_labels(EXAMPLE, max_labels=10, draws=2).floor
    below = plan_labels(EXAMPLE, target_width=floor * 0.9, max_labels=10, draws=2)
    assert below.status == "below_floor"
    assert below.answer is None
    assert "Only more test items or a better judge" in below.reading()
    more = plan_labels(EXAMPLE, target_width=floor * 1.1, max_labels=10, draws=2)
    assert more.status == "needs_more_labels"
    assert more.answer is None
    assert "up to 10" in more.reading()


def test_a_point_does_not_depend_on_the_rest_of_the_grid():
    a = plan_labels(SMALL, m_grid=[100], max_labels=200, draws=3, random_seed=9)
    b = plan_labels(SMALL, m_grid=[30, 100], max_labels=200, draws=3, random_seed=9)
    assert a.curve[1] == b.curve[2]
    assert a.floor == b.floor
    c = plan_labels(SMALL, m_grid=[100], max_labels=200, draws=3, random_seed=10)
    assert c.curve[1].width != a.curve[1].width


def test_default_grid_is_a_1_2_5_series():
    assert plan_module._default_grid(2000) == [10, 20, 50, 100, 200, 500, 1000, 2000]
    assert plan_module._default_grid(7) == [7]
    assert plan_module._default_grid(10) == [10]


# --------------------------------------------------------------------------- outputs
def test_to_dict_and_to_frame():
    plan = plan_labels(SMALL, target_width=0.2, max_labels=100, draws=3, random_seed=1)
    assert isinstance(plan, LabelPlan)
    payload = json.loads(json.dumps(plan.to_dict()))
    assert set(payload) == {
        "counts",
        "prob",
        "current",
        "target_width",
        "status",
        "answer",
        "floor",
        "max_labels",
        "allocation",
        "curve",
        "simulation",
        "reading",
        "notes",
        "provenance",
    }
    assert payload["counts"] == SMALL.as_dict()
    assert set(payload["current"]) == {"low", "high", "width"}
    assert set(payload["answer"]) == ROW
    assert all(set(row) == ROW for row in payload["curve"])
    assert set(payload["allocation"]) == {"rule", "ratio", "q0_tilde", "q1_tilde", "p_hat"}
    assert payload["allocation"]["ratio"] == pytest.approx(
        optimal_ratio(p_hat=0.68, q0=35 / 42, q1=37 / 42)
    )
    assert payload["simulation"]["draws"] == 3
    assert payload["provenance"]["seed"] == 1
    frame = plan.to_frame()
    assert list(frame.columns) == [
        "m",
        "m1",
        "m0",
        "width",
        "mcse",
        "lang_reiczigel_width",
        "searched",
    ]
    assert frame["m"].iloc[0] == 0
    assert frame["width"].iloc[0] == pytest.approx(plan.current_width)
    assert (frame["m1"] + frame["m0"] == frame["m"]).all()


def test_plot_label_plan():
    from matplotlib.figure import Figure

    plan = plan_labels(SMALL, target_width=0.15, m_grid=[50, 200], max_labels=200, draws=2)
    fig = plot_label_plan(plan)
    assert isinstance(fig, Figure)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert "target width" in labels
    assert "answer" in labels
    assert any("floor" in label for label in labels)
    assert any("Lang-Reiczigel" in label for label in labels)
    other = Figure()
    ax = other.subplots()
    assert plot_label_plan(plan, ax=ax) is other


def test_module_doctests():
    result = doctest.testmod(plan_module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"target_width": 0.0}, "target_width must be a number in \\(0, 1\\]"),
        ({"target_width": -0.1}, "target_width"),
        ({"target_width": 1.5}, "target_width"),
        ({"target_width": True}, "target_width"),
        ({"prob": 1.0}, "prob"),
        ({"draws": 1}, "draws"),
        ({"max_labels": 0}, "max_labels"),
        ({"m_grid": [0]}, "m_grid"),
        ({"m_grid": [50], "max_labels": 10}, "m_grid"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        plan_labels(SMALL, **kwargs)


def test_scores_are_a_data_error():
    frame = pd.DataFrame({"label": [1, 0, None, None], "score": [0.9, 0.2, 0.7, 0.4]})
    with pytest.raises(DataError, match="scores"):
        plan_labels(frame, target_width=0.1)


# --------------------------------------------------------------------------- command line
def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def small_csv(tmp_path: Path) -> Path:
    path = tmp_path / "small.csv"
    judge_table(pi=0.6, se=0.9, sp=0.8, n=400, m1=40, m0=40, random_seed=3).to_csv(
        path, index=False
    )
    return path


def test_cli_json(capsys, small_csv):
    argv = ["plan", str(small_csv), "--target-width", "0.2", "--max-labels", "100"]
    code, out, err = run(capsys, *argv, "--draws", "3", "--json", "--random-seed", "2")
    assert code == EXIT_OK, err
    payload = json.loads(out)
    data = JudgeData.from_csv(small_csv)
    expected = plan_labels(data, target_width=0.2, max_labels=100, draws=3, random_seed=2)
    assert payload["curve"] == json.loads(json.dumps(expected.to_dict()["curve"]))
    assert payload["status"] == expected.status
    assert payload["max_labels"] == 100


def test_cli_plain_output(capsys, small_csv):
    code, out, _ = run(
        capsys,
        "plan",
        str(small_csv),
        "--target-width",
        "0.2",
        "--max-labels",
        "200",
        "--draws",
        "3",
    )
    assert code == EXIT_OK
    lines = out.splitlines()
    assert lines[0].startswith(f"{small_csv}: 80 labelled (40 gold-PASS, 40 gold-FAIL)")
    assert "interval of pi" in lines[1]
    header = next(line for line in lines if "expected width" in line)
    assert "gold-PASS" in header
    assert "MC error" in header
    assert any(line.strip().startswith("0 ") and "exact" in line for line in lines)
    assert any(line.strip().startswith("unlimited") for line in lines)
    assert lines[-1].startswith("seed ")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["plan", "--target-width", "0"], "--target-width"),
        (["plan", "--target-width", "-1"], "--target-width"),
        (["plan", "--target-width", "abc"], "--target-width"),
        (["plan"], "--target-width"),
        (["plan", "--target-width", "0.1", "--max-labels", "0"], "--max-labels"),
        (["plan", "--target-width", "0.1", "--draws", "1"], "--draws"),
        (["plan", "--target-width", "0.1", "--prior", "pi=beta:0,1"], "--prior"),
        (["plan", "missing.csv", "--target-width", "0.1"], "no such file"),
    ],
)
def test_cli_bad_input_exits_2(capsys, argv, message):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors (Parser.error exits with code 2)
        code = exc.code
    out, err = capsys.readouterr()
    assert code == EXIT_BAD_INPUT
    assert message in err
    assert "Traceback" not in err
    assert out == ""


def test_cli_scores_without_threshold_exits_2(capsys, tmp_path):
    path = tmp_path / "scores.csv"
    pd.DataFrame({"label": [1, 0, None, None], "score": [0.9, 0.2, 0.7, 0.4]}).to_csv(
        path, index=False
    )
    code, out, err = run(capsys, "plan", str(path), "--target-width", "0.1")
    assert code == EXIT_BAD_INPUT
    assert "scores" in err
    assert len(err.strip().splitlines()) == 1
    assert out == ""


# --------------------------------------------------------------------------- slow study
@pytest.mark.slow
def test_predictions_average_to_the_widths_obtained_over_data_sets():
    """Tower property: truth drawn from the analysis prior, the mean prediction is exact."""
    rng = np.random.default_rng(6)
    diffs = []
    for s in range(80):
        while True:
            pi, se, sp = (
                rng.beta(p.alpha, p.beta) for p in (INFORMATIVE.pi, INFORMATIVE.se, INFORMATIVE.sp)
            )
            if se + sp > 1.0:
                break
        rate = pi * se + (1.0 - pi) * (1.0 - sp)
        counts = JudgeCounts(
            60,
            int(rng.binomial(60, se)),
            60,
            int(rng.binomial(60, 1.0 - sp)),
            1000,
            int(rng.binomial(1000, rate)),
        )
        point = plan_labels(
            counts, priors=INFORMATIVE, m_grid=[200], max_labels=200, draws=8, random_seed=s
        ).curve[1]
        augmented = JudgeCounts(
            counts.m1 + point.m1,
            counts.x1 + int(rng.binomial(point.m1, se)),
            counts.m0 + point.m0,
            counts.x0 + int(rng.binomial(point.m0, 1.0 - sp)),
            counts.n,
            counts.k,
        )
        diffs.append(exact_posterior(augmented, priors=INFORMATIVE).eti(0.95).width - point.width)
    d = np.array(diffs)
    assert abs(d.mean()) < 4.0 * d.std(ddof=1) / np.sqrt(d.size)


def test_a_given_current_posterior_gives_the_same_plan():
    """The analysis hands the plan its exact reference posterior: same plan, computed once."""
    counts = JudgeCounts(m1=40, x1=36, m0=40, x0=6, n=5000, k=3400)
    kwargs = {"m_grid": [100], "max_labels": 200, "draws": 4, "random_seed": 1}
    own = plan_labels(counts, **kwargs)
    given_posterior = plan_labels(counts, current=exact_posterior(counts), **kwargs)
    assert given_posterior.to_dict() == own.to_dict()
    other = exact_posterior(JudgeCounts(m1=40, x1=35, m0=40, x0=6, n=5000, k=3400))
    with pytest.raises(ValueError, match="current"):
        plan_labels(counts, current=other, **kwargs)
    with pytest.raises(ValueError, match="current"):
        plan_labels(counts, current=exact_posterior(counts, grid_size=129), **kwargs)
