"""Two judge versions on the same items: the paired data, the closed forms, the comparison."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayesjudge.batches.versions import compare_judges, dirichlet_difference, mcnemar_exact
from bayesjudge.batches.versions_data import JudgeVersions, load_judge_versions
from bayesjudge.errors import DataError
from bayesjudge.prevalence import JudgeCounts, exact_posterior


def _paired(
    *,
    n_gold: int = 80,
    n_unlabelled: int = 300,
    pi: float = 0.7,
    old: tuple[float, float] = (0.8, 0.8),
    new: tuple[float, float] = (0.9, 0.9),
    seed: int = 1,
) -> JudgeVersions:
    """Simulate two conditionally independent judges (Se, Sp) on shared items."""
    rng = np.random.default_rng(seed)
    gold = np.r_[np.ones(n_gold), np.zeros(n_gold), np.full(n_unlabelled, np.nan)]
    n = gold.size
    truth = np.where(np.isnan(gold), rng.random(n) < pi, gold == 1)
    verdicts = [
        np.where(truth, rng.random(n) < se, rng.random(n) >= sp).astype(float)
        for se, sp in (old, new)
    ]
    frame = pd.DataFrame({"item": range(n), "v1": verdicts[0], "v2": verdicts[1], "label": gold})
    return JudgeVersions.from_frame(frame, old="v1", new="v2")


# --------------------------------------------------------------------------- data
def test_one_table_pairs_items_and_lists_the_unpaired() -> None:
    frame = pd.DataFrame(
        {
            "item": ["a", "b", "c", "d", "e"],
            "v1": ["PASS", "fail", None, "yes", None],
            "v2": [1, 0, 1, None, None],
            "label": [1, 0, 1, None, 0],
        }
    )
    data = JudgeVersions.from_frame(frame, old="v1", new="v2")
    assert data.items == ("a", "b")
    assert data.old.tolist() == [1.0, 0.0]
    assert data.new.tolist() == [1.0, 0.0]
    assert (data.only_old, data.only_new, data.neither) == (("d",), ("c",), ("e",))
    assert data.unpaired_labelled == 2  # c and e carry gold labels
    note = data.unpaired_note()
    assert note is not None
    assert "'c'" in note
    assert "'d'" in note
    assert "'e'" in note
    assert data.input_dict()["only_new"] == ["c"]


def test_two_tables_are_joined_by_id_as_text() -> None:
    old = pd.DataFrame({"item": ["007", "8", "9"], "verdict": [1.0, 0.0, 1.0]})
    new = pd.DataFrame({"item": ["7", "8", "9"], "verdict": [1.0, 1.0, 1.0]})
    data = JudgeVersions.from_verdicts(old, new)
    assert data.items == ("8", "9")
    assert data.only_old == ("007",)
    assert data.only_new == ("7",)
    assert data.tables()[2].tolist() == [[0, 1], [0, 1]]


def test_labels_in_both_tables_must_agree() -> None:
    old = pd.DataFrame({"item": ["a", "b"], "verdict": [1.0, 0.0], "label": [1.0, 0.0]})
    new = pd.DataFrame({"item": ["a", "b"], "verdict": [1.0, 0.0], "label": [1.0, 1.0]})
    with pytest.raises(DataError, match=r"disagree on 1 item\(s\): 'b'"):
        JudgeVersions.from_verdicts(old, new)


def test_a_repeated_item_is_refused_naming_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "both.csv"
    path.write_text("item,j1,j2\na,1,1\nb,0,1\na,1,0\n")
    with pytest.raises(DataError, match=r"item 'a' appears more than once \(line 2, line 4\)"):
        load_judge_versions(path, old_judge="j1", new_judge="j2")


def test_a_bad_verdict_names_file_column_and_line(tmp_path: Path) -> None:
    path = tmp_path / "both.csv"
    path.write_text("item,j1,j2\na,1,1\nb,maybe,1\n")
    with pytest.raises(DataError) as caught:
        load_judge_versions(path, old_judge="j1", new_judge="j2")
    message = str(caught.value)
    assert "both.csv" in message
    assert "'j1'" in message
    assert "line 3" in message
    assert "'maybe'" in message


def test_no_shared_item_is_an_error() -> None:
    old = pd.DataFrame({"item": ["a"], "verdict": [1.0]})
    new = pd.DataFrame({"item": ["b"], "verdict": [1.0]})
    with pytest.raises(DataError, match="no item has a verdict from both judges"):
        JudgeVersions.from_verdicts(old, new)


def test_labels_apart_are_joined_by_id_from_two_files(tmp_path: Path) -> None:
    (tmp_path / "old.csv").write_text("id,verdict\na,PASS\nb,FAIL\nc,PASS\nd,PASS\n")
    (tmp_path / "new.csv").write_text("id,verdict\na,PASS\nb,PASS\nc,FAIL\n")
    (tmp_path / "gold.csv").write_text("item,label\na,1\nb,0\nd,1\n")
    data = load_judge_versions(
        tmp_path / "old.csv",
        tmp_path / "new.csv",
        labels=tmp_path / "gold.csv",
        columns={"item": "id"},
    )
    assert data.items == ("a", "b", "c")
    assert data.labels[:2].tolist() == [1.0, 0.0]
    assert math.isnan(data.labels[2])
    assert data.only_old == ("d",)
    assert data.unpaired_labelled == 1
    assert data.join is not None
    assert data.join.labelled == 3
    assert data.source == f"{tmp_path / 'old.csv'} and {tmp_path / 'new.csv'}"


def test_labels_given_twice_are_refused() -> None:
    text = b"item,j1,j2,label\na,1,1,1\nb,0,1,0\n"
    with pytest.raises(DataError, match="labels in one place only"):
        load_judge_versions(
            io.BytesIO(text), old_judge="j1", new_judge="j2", labels=io.BytesIO(b"item,label\n")
        )


def test_one_file_needs_both_judges_named() -> None:
    with pytest.raises(DataError, match="--old and --new"):
        load_judge_versions(io.BytesIO(b"item,j1\na,1\n"), old_judge="j1")


# --------------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("table", [[[10, 6], [1, 40]], [[0, 0], [0, 0]], [[3, 0], [9, 2]]])
@pytest.mark.parametrize("prior", ["jeffreys", "uniform"])
def test_dirichlet_difference_matches_dirichlet_draws(table: list[list[int]], prior: str) -> None:
    mean, sd, p = dirichlet_difference(table, prior=prior)  # type: ignore[arg-type]
    a = {"jeffreys": 0.5, "uniform": 1.0}[prior]
    alpha = np.ravel(table) + a
    assert mean == pytest.approx((alpha[1] - alpha[2]) / alpha.sum(), abs=1e-15)
    draws = np.random.default_rng(3).dirichlet(alpha, size=400_000)
    d = draws[:, 1] - draws[:, 2]
    # Monte-Carlo error of a mean is sd / sqrt(draws) = sd / 632; 5 of them
    assert np.mean(d) == pytest.approx(mean, abs=5 * sd / 632)
    assert np.std(d) == pytest.approx(sd, rel=0.01)
    assert np.mean(d > 0) == pytest.approx(p, abs=5 * 0.5 / 632)


def test_dirichlet_difference_with_no_discordant_pair_is_centred() -> None:
    mean, _, p = dirichlet_difference([[30, 0], [0, 30]])
    assert mean == 0.0
    assert p == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize(("b", "c"), [(6, 1), (0, 9), (12, 12), (3, 20), (1, 0)])
def test_mcnemar_exact_matches_statsmodels_and_the_binomial_tail(b: int, c: int) -> None:
    from statsmodels.stats.contingency_tables import mcnemar

    table = [[5, b], [c, 7]]
    p = mcnemar_exact(table)
    assert p == pytest.approx(mcnemar(np.array(table), exact=True).pvalue, rel=1e-12)
    assert p == pytest.approx(min(1.0, 2 * stats.binom.cdf(min(b, c), b + c, 0.5)), rel=1e-12)


def test_mcnemar_without_discordant_pairs_is_one() -> None:
    assert mcnemar_exact([[4, 0], [0, 9]]) == 1.0


def test_closed_forms_refuse_a_bad_table() -> None:
    with pytest.raises(ValueError, match="2x2 table"):
        mcnemar_exact([1, 2, 3])
    with pytest.raises(ValueError, match="2x2 table"):
        dirichlet_difference([[1, -1], [0, 0]])


# --------------------------------------------------------------------------- the comparison
def test_comparison_holds_the_exact_posteriors_of_the_tables() -> None:
    data = _paired()
    result = compare_judges(data, draws=20_000)
    tables = data.tables()
    pos, neg = tables[0], tables[1]
    # each judge's Se is a Beta with the summed cells plus the aggregated Jeffreys Dirichlet prior
    x1_old, m1 = pos[1].sum(), pos.sum()
    se_old = stats.beta(x1_old + 1.0, m1 - x1_old + 1.0)
    assert result.se["old"].mean == pytest.approx(se_old.mean(), rel=1e-12)
    assert result.se["old"].eti.low == pytest.approx(se_old.ppf(0.025), rel=1e-10)
    sp_new = stats.beta(neg[:, 0].sum() + 1.0, neg[:, 1].sum() + 1.0)
    assert result.sp["new"].mean == pytest.approx(sp_new.mean(), rel=1e-12)
    # the changes: exact means, and the Monte-Carlo draws agree with them
    assert result.change["se"].summary.mean == pytest.approx(dirichlet_difference(pos)[0])
    assert result.change["sp"].summary.mean == pytest.approx(
        (neg[1, 0] - neg[0, 1]) / (neg.sum() + 2.0)
    )
    assert result.change["se"].prob_positive == pytest.approx(dirichlet_difference(pos)[2])
    j = result.change["j"].summary
    assert j.mean == pytest.approx(
        result.change["se"].summary.mean + result.change["sp"].summary.mean
    )
    assert j.eti.low < j.mean < j.eti.high
    # flip rates and McNemar per class
    flips = pos[0, 1] + pos[1, 0]
    assert result.classes["gold_pass"].flip_rate.mean == pytest.approx(
        (flips + 0.5) / (pos.sum() + 1.0)
    )
    assert result.classes["gold_fail"].mcnemar_p == pytest.approx(mcnemar_exact(neg))
    assert set(result.classes) == {"gold_pass", "gold_fail", "unlabelled"}


def test_each_judges_pi_is_the_prevalence_exact_posterior() -> None:
    data = _paired(seed=2)
    result = compare_judges(data, draws=5000)
    pos, neg, unl = data.tables()
    counts = JudgeCounts(
        m1=int(pos.sum()),
        x1=int(pos[:, 1].sum()),
        m0=int(neg.sum()),
        x0=int(neg[:, 1].sum()),
        n=int(unl.sum()),
        k=int(unl[:, 1].sum()),
    )
    post = exact_posterior(counts)
    assert result.pi is not None
    assert result.rogan_gladen is not None
    assert result.pi["new"].mean == pytest.approx(post.mean, rel=1e-12)
    assert result.pi["new"].eti.high == pytest.approx(post.eti(0.95).high, rel=1e-12)
    assert result.rogan_gladen["old"].method.startswith("rogan_gladen")
    assert result.narrower in ("old", "new")


def test_a_better_new_judge_is_kept_and_the_true_rate_does_not_move() -> None:
    data = _paired(n_gold=150, n_unlabelled=2000, old=(0.75, 0.75), new=(0.95, 0.95), seed=4)
    result = compare_judges(data, draws=20_000)
    assert result.keep == "new"
    assert result.change["j"].prob_positive > 0.99
    assert result.passed
    change = result.pi_change
    assert change is not None
    assert change.kept is not None
    assert change.kept > 15_000
    # only the judge changed, and both calibrations carry over: the interval holds 0
    assert change.summary.eti.contains(0.0)
    assert result.narrower == "new"  # the better judge also pins pi down better


def test_a_calibration_that_does_not_carry_over_moves_pi() -> None:
    """The new judge passes far more unlabelled items than its gold items predict."""
    data = _paired(n_gold=150, n_unlabelled=2000, old=(0.9, 0.9), new=(0.9, 0.9), seed=5)
    new = data.new.copy()
    unlabelled = np.flatnonzero(np.isnan(data.labels) & (new == 0.0))
    new[unlabelled[: unlabelled.size // 2]] = 1.0  # the new judge drifts on the unlabelled items
    shifted = JudgeVersions(
        items=data.items, old=data.old, new=new, labels=data.labels, names=data.names
    )
    result = compare_judges(shifted, draws=20_000)
    change = result.pi_change
    assert change is not None
    assert change.summary.eti.low > 0.0
    assert change.prob_positive > 0.99
    assert any("moves with the judge alone" in str(w) for w in result.summary().warnings)


def test_the_pairing_narrows_the_difference() -> None:
    """Shared items: the paired sd of the difference is below the sd of two independent rates."""
    data = _paired(n_gold=200, n_unlabelled=1500, old=(0.85, 0.85), new=(0.9, 0.88), seed=6)
    result = compare_judges(data, draws=20_000)
    assert result.pi is not None
    assert result.pi_change is not None
    independent = math.hypot(result.pi["old"].sd, result.pi["new"].sd)
    assert result.pi_change.summary.sd < independent


def test_without_unlabelled_items_pi_is_not_compared() -> None:
    data = _paired(n_unlabelled=0)
    result = compare_judges(data, draws=2000)
    assert result.pi is None
    assert result.pi_change is None
    assert result.narrower is None
    assert "unlabelled" not in result.classes
    assert result.passed
    assert result.to_dict()["pi"] is None


def test_a_missing_gold_class_is_an_error() -> None:
    frame = pd.DataFrame({"item": [1, 2], "a": [1, 0], "b": [1, 1], "label": [1, None]})
    with pytest.raises(DataError, match="no paired gold-FAIL item: the change in Sp"):
        compare_judges(JudgeVersions.from_frame(frame, old="a", new="b"))


def test_options_are_checked() -> None:
    data = _paired(n_unlabelled=10)
    with pytest.raises(ValueError, match="jeffreys"):
        compare_judges(data, prior="flat")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="draws"):
        compare_judges(data, draws=10)


def test_seeded_and_serialisable() -> None:
    data = _paired(seed=7)
    first = compare_judges(data, draws=3000, random_seed=11)
    second = compare_judges(data, draws=3000, random_seed=11)
    assert first.to_dict() == second.to_dict()
    payload = first.to_dict()
    json.dumps(payload, allow_nan=False)
    assert payload["keep"]["judge"] in ("old", "new")
    assert payload["seed"] == 11
    assert payload["input"]["paired"] == data.n_items
    frame = first.to_frame()
    assert {"quantity", "subject", "mean", "low", "high", "prob_positive"} <= set(frame.columns)
    assert set(frame.quantity) == {"se", "sp", "j", "pi", "flip_rate"}


def test_unpaired_items_reach_the_outputs() -> None:
    frame = pd.DataFrame(
        {
            "item": [*list(range(12)), 99],
            "a": [1, 0] * 6 + [None],
            "b": [1, 1, 1, 0] * 3 + [1],
            "label": [1, 0] * 4 + [None] * 4 + [1],
        }
    )
    result = compare_judges(JudgeVersions.from_frame(frame, old="a", new="b"), draws=2000)
    assert result.to_dict()["input"]["only_new"] == ["99"]
    assert any("'99'" in note for note in result.notes)
    assert any("Items not paired" in str(w) for w in result.summary().warnings)
