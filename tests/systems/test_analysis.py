"""SystemsAnalysis from a synthetic posterior: the JSON schema and every derived number."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bayesjudge.systems.analysis import summarize_systems

S_KEYS = {"mean", "sd", "low", "high", "prob"}


def _pi(tree, data):
    return tree["posterior"]["pi"].sel(system=list(data.systems)).to_numpy().reshape(-1, 3)


def test_json_schema_is_exactly_the_documented_one(answers, make_tree):
    tree = make_tree(answers, centres=(0.5, 0.6, 0.7))
    out = summarize_systems(tree, answers, random_seed=3).to_dict()
    assert set(out) == {
        "systems",
        "differences",
        "judge",
        "paired",
        "reversals",
        "diagnostics",
        "estimates",
    }
    assert list(out["systems"]) == ["a", "b", "c"]
    for entry in out["systems"].values():
        assert set(entry) == {"pi", "p_best", "rank"}
        assert set(entry["pi"]) == S_KEYS
        assert set(entry["rank"]) == S_KEYS
        assert isinstance(entry["p_best"], float)
    assert [(d["a"], d["b"]) for d in out["differences"]] == [("a", "b"), ("a", "c"), ("b", "c")]
    for d in out["differences"]:
        assert set(d) == {"a", "b", "diff", "p_b_better"}
        assert set(d["diff"]) == S_KEYS
    assert set(out["judge"]) == {"shared", "se", "sp", "by_system"}
    assert out["judge"]["shared"] is True
    assert set(out["judge"]["by_system"]) == {"a", "b", "c"}
    assert all(set(v) == {"se", "sp"} for v in out["judge"]["by_system"].values())
    assert out["paired"] is True
    assert out["diagnostics"]["passed"] is True
    assert {"r_hat_max", "ess_bulk_min", "ess_tail_min", "divergences"} <= set(out["diagnostics"])
    for row in out["estimates"]:
        assert {"method", "estimate", "low", "high", "prob", "note"} <= set(row)
        assert ("system" in row) != ("a" in row and "b" in row)
    per_system = [r for r in out["estimates"] if "system" in r]
    assert [r["system"] for r in per_system] == ["a"] * 3 + ["b"] * 3 + ["c"] * 3


def test_differences_ranks_and_best_match_the_draws(answers, make_tree):
    tree = make_tree(answers, centres=(0.55, 0.58, 0.7), seed=1)
    analysis = summarize_systems(tree, answers, prob=0.9)
    pi = _pi(tree, answers)
    for d in analysis.differences:
        i, j = answers.systems.index(d.a), answers.systems.index(d.b)
        delta = pi[:, j] - pi[:, i]
        assert d.diff.mean == pytest.approx(delta.mean())
        assert d.diff.eti.low == pytest.approx(np.quantile(delta, 0.05))
        assert d.p_b_better == pytest.approx(np.mean(delta > 0))
    best = np.argmax(pi, axis=1)
    for s, name in enumerate(answers.systems):
        assert analysis.p_best[name] == pytest.approx(np.mean(best == s))
        ranks = 1 + (pi > pi[:, [s]]).sum(axis=1)
        assert analysis.rank[name].mean == pytest.approx(ranks.mean())
    np.testing.assert_allclose(analysis.rank_probabilities.sum(axis=1), 1.0)
    for i, j in itertools.permutations(range(3), 2):
        assert analysis.prob_better[i, j] == pytest.approx(np.mean(pi[:, i] > pi[:, j]))
    assert analysis.order == ("c", "b", "a")


def test_reversals_are_the_pairs_the_posterior_flips(answers, make_tree):
    counts = answers.system_counts()
    naive = counts.k / counts.n
    assert naive[2] > naive[1] > naive[0]  # the judge passes c most, a least
    tree = make_tree(answers, centres=(0.7, 0.6, 0.5), seed=2)  # the truth is the reverse
    analysis = summarize_systems(tree, answers)
    assert analysis.naive_order == ("c", "b", "a")
    assert analysis.order == ("a", "b", "c")
    assert {(r.a, r.b) for r in analysis.reversals} == {("c", "b"), ("c", "a"), ("b", "a")}
    assert all(r.prob > 0.5 for r in analysis.reversals)
    assert analysis.to_dict()["reversals"][0] == {
        "a": analysis.reversals[0].a,
        "b": analysis.reversals[0].b,
    }
    unchanged = summarize_systems(make_tree(answers, centres=(0.5, 0.6, 0.7)), answers)
    assert unchanged.reversals == ()


def test_system_specific_judge_says_whether_it_changes_the_ranking(answers, make_tree):
    # c's judge is lenient (sp 0.6 against 0.85): corrected with the shared sp, c's rate is
    # inflated and c would top the ranking; its own judge puts it last
    tree = make_tree(answers, centres=(0.62, 0.6, 0.58), judge="system", seed=4)
    analysis = summarize_systems(tree, answers)
    judge = analysis.judge
    assert not judge.shared
    assert judge.spread_se is not None
    assert judge.shared_order[0] == "c"
    assert analysis.order[0] == "a"
    assert judge.changes_ranking
    out = analysis.to_dict()["judge"]
    assert out["shared"] is False
    assert out["by_system"]["c"]["sp"]["mean"] == pytest.approx(0.6, abs=0.01)
    assert out["sp"]["mean"] == pytest.approx(0.85, abs=0.001)


def test_frames_and_failed_diagnostics(answers, make_tree):
    tree = make_tree(answers, centres=(0.5, 0.6, 0.7), diverging=3)
    analysis = summarize_systems(tree, answers)
    assert not analysis.passed
    assert analysis.to_dict()["diagnostics"]["divergences"] == 3
    frame = analysis.to_frame()
    assert frame.index.tolist() == ["c", "b", "a"]
    assert set(frame.columns) >= {"pi_mean", "p_best", "naive_rate", "naive_rank"}
    assert analysis.differences_frame().shape == (3, 6)


def test_bad_prob_is_refused(answers, make_tree):
    tree = make_tree(answers, centres=(0.5, 0.6, 0.7))
    with pytest.raises(ValueError, match="prob"):
        summarize_systems(tree, answers, prob=1.5)


def test_a_tree_without_recorded_diagnostics_is_checked(answers, make_tree):
    tree = make_tree(answers, centres=(0.5, 0.6, 0.7), diverging=1)
    del tree.attrs["diagnostics"]
    analysis = summarize_systems(tree, answers)
    assert analysis.diagnostics is not None
    assert not analysis.passed
    assert analysis.to_dict()["diagnostics"]["divergences"] == 1
