"""Tests of the repeated-samples baselines: clustered naive, Rogan-Gladen and PPI++, majority.

Reference checks: inspect_ai's own ``stderr(cluster=...)`` and ``ci(cluster=...)`` metrics, the
prevalence family's unclustered Rogan-Gladen delta interval and ``ppi_py.ppi_mean_ci`` in the
one-row-per-cluster limit, and a cluster jackknife for the sandwich variance.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bayesjudge.errors import DataError, NotIdentifiableError
from bayesjudge.estimators import ppi_mean
from bayesjudge.prevalence import JudgeData, rogan_gladen
from bayesjudge.repeated.baselines import (
    REPEATED_BASELINE_METHODS,
    majority_baselines,
    naive_clustered,
    ppi_plus_plus_clustered,
    repeated_baselines,
    rogan_gladen_cluster_bootstrap,
    rogan_gladen_clustered,
)

Z95 = 1.959963984540054


def repeated_data(
    seed: int,
    *,
    items: int = 60,
    epochs: int = 5,
    clusters: int | None = None,
    spread: float = 1.5,
    se: float = 0.85,
    sp: float = 0.8,
    label_share: float = 0.3,
):
    """Answers with per-item success probabilities (logit-normal), an imperfect judge and gold
    labels on a random share of the answers."""
    rng = np.random.default_rng(seed)
    if clusters is None:
        cluster_of_item = np.arange(items)
        effect = np.zeros(items)
    else:
        cluster_of_item = rng.integers(0, clusters, size=items)
        effect = rng.normal(0.0, 1.0, size=clusters)[cluster_of_item]
    p_item = 1.0 / (1.0 + np.exp(-(0.3 + effect + spread * rng.normal(size=items))))
    item = np.repeat(np.arange(items), epochs)
    truth = (rng.random(item.size) < p_item[item]).astype(float)
    verdict = np.where(truth == 1, rng.random(item.size) < se, rng.random(item.size) > sp)
    gold = np.where(rng.random(item.size) < label_share, truth, np.nan)
    return verdict.astype(float), gold, item, cluster_of_item[item]


# --------------------------------------------------------------------------- naive vs inspect_ai
def _inspect_scores(verdict, cluster):
    from inspect_ai.scorer import SampleScore, Score

    return [
        SampleScore(score=Score(value=float(v)), sample_id=i, sample_metadata={"task": str(c)})
        for i, (v, c) in enumerate(zip(verdict, cluster, strict=True))
    ]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("prob", [0.9, 0.95])
def test_naive_matches_inspect_ai_clustered_stderr_and_ci(seed, prob):
    """se equals inspect_ai's stderr(cluster=...) and the interval its ci(method="t",
    cluster=...) to 1e-9 (inspect's t quantile is a bisection to double precision); with one
    row per cluster both equal the unclustered stderr() and ci()."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.scorer import ci, stderr

    verdict, _, item, cluster = repeated_data(seed, items=30, epochs=4, clusters=8)
    scores = _inspect_scores(verdict, cluster)
    est = naive_clustered(verdict, item, cluster, prob=prob)
    assert est.estimate == pytest.approx(verdict.mean(), abs=1e-12)
    assert est.se == pytest.approx(stderr(cluster="task")(scores), abs=1e-12)
    bounds = ci(level=prob, method="t", cluster="task")(scores)
    assert est.interval.low == pytest.approx(bounds["lower"], abs=1e-9)
    assert est.interval.high == pytest.approx(bounds["upper"], abs=1e-9)
    flat = naive_clustered(verdict, np.arange(verdict.size), prob=prob)
    assert flat.se == pytest.approx(stderr()(scores), abs=1e-12)
    bounds = ci(level=prob, method="t")(scores)
    assert flat.interval.low == pytest.approx(bounds["lower"], abs=1e-9)
    assert flat.interval.high == pytest.approx(bounds["upper"], abs=1e-9)


def test_naive_by_item_is_the_default_cluster():
    verdict, _, item, _ = repeated_data(3)
    assert naive_clustered(verdict, item) == naive_clustered(verdict, item, item)


# --------------------------------------------------------------------------- Rogan-Gladen
def _one_row_per_item(seed: int):
    verdict, gold, _, _ = repeated_data(seed, items=400, epochs=1, label_share=0.4)
    return verdict, gold, np.arange(verdict.size)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_clustered_delta_equals_unclustered_with_one_row_per_cluster(seed):
    """One answer per item: the sandwich variance is eq. 9's delta variance exactly (1e-12),
    so the estimate, se and interval equal the prevalence family's rogan_gladen(delta)."""
    verdict, gold, item = _one_row_per_item(seed)
    lab = ~np.isnan(gold)
    data = JudgeData(
        cal_label=gold[lab], cal_judge=verdict[lab], test_judge=verdict[~lab], kind="verdict"
    )
    ref = rogan_gladen(data, interval="delta", prob=0.9)
    est = rogan_gladen_clustered(verdict, gold, item, prob=0.9)
    assert est.estimate == pytest.approx(ref.estimate, abs=1e-12)
    assert est.unclipped == pytest.approx(ref.unclipped, abs=1e-12)
    assert est.se == pytest.approx(ref.se, abs=1e-12)
    assert est.j == pytest.approx(ref.j, abs=1e-12)
    assert est.interval.low == pytest.approx(ref.interval.low, abs=1e-12)
    assert est.interval.high == pytest.approx(ref.interval.high, abs=1e-12)


def _jackknife_se(fn, verdict, gold, item, cluster):
    """Cluster jackknife: sqrt((C-1)/C * sum_c (theta_(-c) - mean)^2)."""
    ids = np.unique(cluster)
    values = []
    for c in ids:
        keep = cluster != c
        values.append(fn(verdict[keep], gold[keep], item[keep], cluster[keep]))
    values = np.asarray(values)
    return float(np.sqrt((ids.size - 1) / ids.size * np.sum((values - values.mean()) ** 2)))


def test_rogan_gladen_sandwich_se_agrees_with_cluster_jackknife():
    """The influence-function (sandwich) se matches the cluster jackknife, an independent
    computation of the same variance, within 3% on 40 clusters of 3-8 items with 4 epochs
    (both are first-order equal; the gap is O(1/C)). Labelled and unlabelled answers share
    items here, so the cross terms within a cluster are exercised."""
    verdict, gold, item, cluster = repeated_data(5, items=200, epochs=4, clusters=40)
    est = rogan_gladen_clustered(verdict, gold, item, cluster)
    jack = _jackknife_se(
        lambda *a: rogan_gladen_clustered(*a).unclipped, verdict, gold, item, cluster
    )
    assert est.se == pytest.approx(jack, rel=0.03)


def test_ppi_sandwich_se_agrees_with_cluster_jackknife_at_its_lambda():
    """The PPI++ sandwich se matches the cluster jackknife of the estimate at the chosen lambda
    within 3% (40 clusters). Re-tuning lambda in every jackknife replicate adds a little
    variance in finite samples (measured: 2% to 5% in se at 40 to 600 clusters), which the
    first-order variance leaves out."""
    verdict, gold, item, cluster = repeated_data(5, items=200, epochs=4, clusters=40)
    est = ppi_plus_plus_clustered(verdict, gold, item, cluster)
    lam = float(next(n for n in est.notes if n.startswith("lambda="))[7:])

    def at_lambda(v, g, i, c):
        lab = ~np.isnan(g)
        return ppi_mean(g[lab], v[lab], v[~lab], lam=lam)[0]

    jack = _jackknife_se(at_lambda, verdict, gold, item, cluster)
    assert est.se == pytest.approx(jack, rel=0.03)


def test_unclustered_interval_is_narrower_than_clustered():
    """Seeded: 50 items x 5 epochs with a large spread of item difficulty, half the answers
    labelled. Treating the 250 answers as independent gives a narrower interval than
    clustering by item, for every baseline (the within-item correlation is positive; measured
    width ratios 0.76 delta, 0.59 PPI++, 0.71 bootstrap, se ratio 0.60 naive)."""
    verdict, gold, item, _ = repeated_data(
        11, items=50, epochs=5, spread=3.0, se=0.95, sp=0.95, label_share=0.5
    )
    flat = np.arange(verdict.size)
    for fn in (rogan_gladen_clustered, ppi_plus_plus_clustered):
        clustered, independent = fn(verdict, gold, item), fn(verdict, gold, flat)
        assert independent.interval.high - independent.interval.low < 0.85 * (
            clustered.interval.high - clustered.interval.low
        )
        if fn is rogan_gladen_clustered:  # PPI++ tunes lambda to the variance it uses
            assert independent.estimate == pytest.approx(clustered.estimate, abs=1e-12)
    boot = rogan_gladen_cluster_bootstrap(verdict, gold, item, n_boot=1000, random_seed=1)
    boot_flat = rogan_gladen_cluster_bootstrap(verdict, gold, flat, n_boot=1000, random_seed=1)
    assert boot_flat.interval.high - boot_flat.interval.low < (
        boot.interval.high - boot.interval.low
    )
    naive, naive_flat = naive_clustered(verdict, item), naive_clustered(verdict, flat)
    assert naive_flat.se < 0.85 * naive.se
    assert "250 rows treated as independent" in naive_flat.notes[0]
    assert "clustered by item (50 items, 250 answers)" in naive.notes[0]


def test_cluster_bootstrap_agrees_with_the_delta_interval_and_is_seeded():
    """On 150 clusters the bootstrap sd is within 15% of the sandwich se (Monte Carlo error of
    2000 resamples is about 3%, the rest is the skew of a ratio); the same seed gives the same
    interval and another seed another one."""
    verdict, gold, item, cluster = repeated_data(7, items=300, epochs=3, clusters=150)
    delta = rogan_gladen_clustered(verdict, gold, item, cluster)
    boot = rogan_gladen_cluster_bootstrap(verdict, gold, item, cluster, random_seed=3)
    assert boot.estimate == pytest.approx(delta.estimate, abs=1e-12)
    assert boot.j == pytest.approx(delta.j, abs=1e-12)
    assert boot.se == pytest.approx(delta.se, rel=0.15)
    assert boot.interval.kind == "cluster_bootstrap_percentile"
    again = rogan_gladen_cluster_bootstrap(verdict, gold, item, cluster, random_seed=3)
    assert again == boot
    other = rogan_gladen_cluster_bootstrap(verdict, gold, item, cluster, random_seed=4)
    assert other.interval != boot.interval


def test_cluster_bootstrap_counts_dropped_resamples():
    """Few clusters with labels: some resamples lose a gold class and are dropped, in a note."""
    verdict = np.array([1, 1, 0, 0, 1, 0, 1, 0, 1, 1], dtype=float)
    gold = np.array([1, np.nan, 0, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan])
    item = np.repeat(np.arange(5), 2)
    est = rogan_gladen_cluster_bootstrap(verdict, gold, item, n_boot=500, random_seed=0)
    assert any("resamples dropped" in n for n in est.notes)


# --------------------------------------------------------------------------- PPI++
@pytest.fixture(scope="module")
def ppi_py():
    # ppi_py calls warnings.simplefilter("ignore") at import; keep that out of the session.
    with warnings.catch_warnings():
        module = pytest.importorskip("ppi_py")
    return module


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("prob", [0.9, 0.95])
def test_ppi_unclustered_limit_matches_ppi_py(ppi_py, seed, prob):
    """One answer per cluster: the estimate and interval equal ppi_py.ppi_mean_ci at the same
    lambda (1e-10), and lambda is the minimiser of the plug-in variance,
    cov(g, v) / n / (var_u(v) / N + var_l(v) / n), clipped to [0, 1]."""
    verdict, gold, item = _one_row_per_item(seed)
    lab = ~np.isnan(gold)
    y, yhat, unl = gold[lab], verdict[lab], verdict[~lab]
    n, big_n = y.size, unl.size
    cov = np.mean((y - y.mean()) * (yhat - yhat.mean()))
    lam = float(np.clip((cov / n) / (np.var(unl) / big_n + np.var(yhat) / n), 0, 1))
    est = ppi_plus_plus_clustered(verdict, gold, item, prob=prob)
    assert f"lambda={lam:.4g}" in est.notes
    low, high = ppi_py.ppi_mean_ci(y, yhat, unl, alpha=1 - prob, lam=lam)
    point = ppi_py.ppi_mean_pointestimate(y, yhat, unl, lam=lam)
    assert est.estimate == pytest.approx(float(np.squeeze(point)), abs=1e-10)
    assert est.interval.low == pytest.approx(float(np.squeeze(low)), abs=1e-10)
    assert est.interval.high == pytest.approx(float(np.squeeze(high)), abs=1e-10)


def test_ppi_lambda_minimises_the_clustered_variance():
    """The chosen lambda gives a smaller clustered se than lambda = 0, 1 or nearby values."""
    from bayesjudge.repeated.baselines import _ppi_pp, _rows

    verdict, gold, item, cluster = repeated_data(2, items=120, epochs=5, clusters=30)
    rows = _rows(verdict, gold, item, cluster)
    est = _ppi_pp(rows, prob=0.95)
    lam = float(next(n for n in est.notes if n.startswith("lambda="))[7:])
    assert 0.0 < lam < 1.0
    lab = rows.labelled
    for other in (0.0, 1.0, lam - 0.05, lam + 0.05):
        a = np.zeros(verdict.size)
        a[~lab] = other * (verdict[~lab] - verdict[~lab].mean()) / (~lab).sum()
        a[lab] = ((gold[lab] - gold[lab].mean()) - other * (verdict[lab] - verdict[lab].mean())) / (
            lab.sum()
        )
        se_other = np.sqrt(np.sum(rows.cluster_sums(a) ** 2))
        assert est.se <= se_other + 1e-12
    assert any("random gold sample" in n for n in est.notes)


# --------------------------------------------------------------------------- majority
def test_majority_with_one_answer_per_item_equals_the_row_estimates():
    verdict, gold, item = _one_row_per_item(1)
    rows = repeated_baselines(verdict, gold, item, n_boot=50, random_seed=0)
    by = {r.method: r for r in rows}
    for row_method, maj in (
        ("naive_clustered", "majority_naive"),
        ("rogan_gladen_clustered_delta", "majority_rogan_gladen_delta"),
        ("ppi_plus_plus_clustered", "majority_ppi_plus_plus"),
    ):
        assert by[maj].estimate == pytest.approx(by[row_method].estimate, abs=1e-12)
        assert by[maj].interval == by[row_method].interval
        assert "per-item majority" in by[maj].notes[0]


def test_majority_reduction_rule_and_clusters():
    """A tie fails (2 of 4 passes), 3 of 4 passes; the gold label is the majority of the item's
    labelled answers; the reduced rows keep the item's cluster."""
    verdict = [1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1]
    gold = [1, 0, np.nan, np.nan, 1, 1, np.nan, np.nan] + [np.nan] * 8
    item = np.repeat(["a", "b", "c", "d"], 4)
    cluster = np.repeat(["x", "x", "y", "y"], 4)
    rows = majority_baselines(verdict, gold, item, cluster)
    naive = rows[0]
    assert naive.method == "majority_naive"
    assert naive.estimate == pytest.approx(0.5)  # a: tie fails, b: passes, c fails, d passes
    assert "clustered over 2 clusters (4 items, 4 answers)" in naive.notes[1]
    # gold: a tie (1, 0) fails, b (1, 1) passes; c and d are unlabelled. Every majority verdict
    # matches the majority gold (Se = Sp = 1), so Rogan-Gladen is the unlabelled pass rate.
    assert rows[1].estimate == pytest.approx(0.5)


def test_majority_differs_from_the_mean_success_rate():
    """Items solved 60% of the time each: the mean success rate is 0.6, the majority share is
    the probability that 3 of 5 answers pass (0.68), so the reduced naive rate sits above."""
    rng = np.random.default_rng(0)
    item = np.repeat(np.arange(2000), 5)
    verdict = (rng.random(item.size) < 0.6).astype(float)
    maj = majority_baselines(verdict, np.full(item.size, np.nan), item)[0]
    row = naive_clustered(verdict, item)
    assert row.estimate == pytest.approx(0.6, abs=0.01)
    assert maj.estimate == pytest.approx(0.68256, abs=0.015)
    assert maj.estimate - row.estimate > 0.05


# --------------------------------------------------------------------------- the list
def test_repeated_baselines_order_notes_and_not_identifiable():
    verdict, gold, item, cluster = repeated_data(4, items=80, epochs=3, clusters=20)
    rows = repeated_baselines(verdict, gold, item, cluster, n_boot=200, random_seed=0)
    assert tuple(r.method for r in rows) == REPEATED_BASELINE_METHODS
    assert all(r.identifiable for r in rows)
    # a judge that inverts the labels: Rogan-Gladen rows kept with a note, the rest computed
    rows = repeated_baselines(1 - verdict, gold, item, cluster, n_boot=50, random_seed=0)
    by = {r.method: r for r in rows}
    assert by["rogan_gladen_clustered_delta"].estimate is None
    assert "not identifiable" in by["rogan_gladen_cluster_bootstrap"].notes[0]
    assert by["ppi_plus_plus_clustered"].estimate is not None
    with pytest.raises(NotIdentifiableError):
        rogan_gladen_clustered(1 - verdict, gold, item, cluster)


def test_unbalanced_items_are_noted():
    verdict = [1, 0, 1, 1, 0, 1]
    item = ["a", "a", "a", "b", "c", "c"]
    est = naive_clustered(verdict, item)
    assert any("different numbers of answers" in n for n in est.notes)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"verdict": [1, 0, 2, 1]}, r"verdict\[2\] must be 0 or 1; got 2\.0"),
        ({"verdict": [1, 0, np.nan, 1]}, r"verdict\[2\] must be 0 or 1; got nan"),
        ({"verdict": ["pass", 0, 1, 1]}, r"verdict must hold 0/1 values"),
        ({"verdict": []}, r"verdict is empty"),
        ({"gold": [1, 0.5, np.nan, np.nan]}, r"gold\[1\] must be 0, 1 or NaN"),
        ({"gold": [1, 0, np.nan]}, r"gold has 3 entries but verdict has 4"),
        ({"item": ["a", None, "b", "b"]}, r"item\[1\] is missing"),
        ({"item": ["a", "a", "b"]}, r"item has 3 entries but verdict has 4"),
        ({"item": ["a", "a", "a", "a"]}, r"item has 1 distinct value"),
        (
            {"cluster": ["x", "y", "y", "y"]},
            r"item 'a' is in cluster 'x' \(item\[0\]\) and in "
            r"cluster 'y' \(item\[1\]\)",
        ),
        ({"cluster": ["x", "x", np.nan, "y"]}, r"cluster\[2\] is missing"),
        ({"gold": [1, 0, 1, 0]}, r"gold labels every answer"),
        ({"gold": [1, 1, np.nan, np.nan]}, r"gold holds no FAIL \(0\) answer"),
    ],
)
def test_bad_input_names_argument_and_position(kwargs, match):
    args = {
        "verdict": [1, 0, 1, 1],
        "gold": [1, 0, np.nan, np.nan],
        "item": ["a", "a", "b", "b"],
        "cluster": None,
    }
    args.update(kwargs)
    with pytest.raises(DataError, match=match):
        repeated_baselines(**args)


def test_bad_options():
    verdict, gold, item = [1, 0, 1, 1], [1, 0, np.nan, np.nan], ["a", "a", "b", "b"]
    with pytest.raises(ValueError, match="prob"):
        rogan_gladen_clustered(verdict, gold, item, prob=1.5)
    with pytest.raises(ValueError, match="n_boot"):
        rogan_gladen_cluster_bootstrap(verdict, gold, item, n_boot=0)


@pytest.mark.parametrize("estimator", [rogan_gladen_clustered, ppi_plus_plus_clustered])
def test_small_sample_correction_scales_se_and_uses_t(estimator):
    """small_sample=True: se times sqrt(C/(C-1)) and the t quantile with C-1 df (1e-12); the
    estimate (and PPI++'s lambda) unchanged; a note says so."""
    from scipy import stats

    verdict, gold, item, cluster = repeated_data(3, items=120, epochs=3, clusters=12)
    plain = estimator(verdict, gold, item, cluster, prob=0.9)
    small = estimator(verdict, gold, item, cluster, prob=0.9, small_sample=True)
    assert small.estimate == plain.estimate
    assert small.se == pytest.approx(plain.se * np.sqrt(12 / 11), abs=1e-12)
    centre = small.unclipped if small.unclipped is not None else small.estimate
    t = stats.t.ppf(0.95, df=11)
    assert small.interval.high == pytest.approx(min(centre + t * small.se, 1.0), abs=1e-12)
    assert small.interval.low == pytest.approx(max(centre - t * small.se, 0.0), abs=1e-12)
    assert any("t with 11 df" in n for n in small.notes)
    assert not any("small-sample" in n for n in plain.notes)
    with pytest.raises(ValueError, match="small_sample must be True or False"):
        estimator(verdict, gold, item, cluster, small_sample="yes")
