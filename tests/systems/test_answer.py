"""The rank answer: near-ties shown as ties, and a headline that answers "which is best?".

Synthetic posteriors (tests/systems/conftest.py), no sampling.
"""

from __future__ import annotations

import re

from bayesjudge.systems.analysis import CLEAR_ORDER, summarize_systems
from bayesjudge.systems.report import rank_answer, rank_summary, ranking_sentence


def test_a_clear_posterior_names_the_order_and_the_winner(answers, make_tree):
    analysis = summarize_systems(make_tree(answers, centres=(0.8, 0.6, 0.4)), answers)
    assert analysis.ranking() == (("a",), ("b",), ("c",))
    assert ranking_sentence(analysis).startswith("Corrected ranking: a > b > c (")
    assert f">= {CLEAR_ORDER:g}" in ranking_sentence(analysis)  # the rule is stated
    assert rank_answer(analysis) == "a is best, P(best) 1.00"
    summary = rank_summary(analysis)
    assert summary.headline.big_text() == "a is best, P(best) 1.00"
    assert "a is best, P(best) 1.00" in summary.to_text()
    assert "Corrected ranking: a > b > c" in summary.shown_reading


def test_a_near_tie_is_shown_as_a_tie(answers, make_tree):
    # a and b 0.01 apart with sd 0.03: P(a > b) is far below CLEAR_ORDER; both beat c clearly
    analysis = summarize_systems(make_tree(answers, centres=(0.7, 0.69, 0.4)), answers)
    groups = analysis.ranking()
    assert [set(g) for g in groups] == [{"a", "b"}, {"c"}]
    first, second = groups[0]
    sentence = ranking_sentence(analysis)
    assert f"Corrected ranking: {{{first}, {second}}} > c;" in sentence
    assert f"no clear order between {first} and {second}" in sentence
    assert f"{first} > {second}" not in sentence
    answer = rank_answer(analysis)
    assert re.fullmatch(rf"No clear winner; most likely {first}, P\(best\) 0\.\d\d", answer)
    page = rank_summary(analysis).to_html()
    assert f'<span class="big big-answer">{answer}</span>' in page
    assert "no clear order between" in page


def test_a_three_way_tie_names_no_order_at_all(answers, make_tree):
    analysis = summarize_systems(make_tree(answers, centres=(0.6, 0.6, 0.6)), answers)
    assert len(analysis.ranking()) == 1
    sentence = ranking_sentence(analysis)
    assert sentence.startswith("Corrected ranking: no clear order between ")
    assert " > " not in sentence.split("(")[0]
    assert rank_answer(analysis).startswith("No clear winner; most likely ")


def test_the_threshold_decides_which_steps_count(answers, make_tree):
    analysis = summarize_systems(make_tree(answers, centres=(0.7, 0.69, 0.4)), answers)
    assert len(analysis.ranking(threshold=0.0)) == 3  # every step counts: a full order
    assert len(analysis.ranking(threshold=CLEAR_ORDER)) == 2  # a and b tie, c is clear
    above = float(analysis.prob_better[0, 1]) + 1e-9  # just above P(a > b): a and b tie
    below = float(analysis.prob_better[0, 1]) - 1e-9  # just below: a > b counts
    assert analysis.order[:2] == ("a", "b")
    assert len(analysis.ranking(threshold=above)) == 2
    assert len(analysis.ranking(threshold=below)) == 3
