"""Which channel fits have a posterior predictive check to make, and what a failed one does.

Exact conjugate draws throughout (no sampling): the step counts are reproduced whatever the
data (a rate per count), the later-stage counts are what the Markov null restricts, and a
non-Markov stack is reported as a finding of ``bayesjudge channel``, not as a failed fit.
"""

from __future__ import annotations

import numpy as np
import pytest

from bayesjudge.channels.analysis import analyze_channel
from bayesjudge.channels.counts import markov_counts, stack_counts
from bayesjudge.channels.data import PairedOutcomes
from bayesjudge.channels.rates import channel_posterior
from bayesjudge.channels.simulate import simulate_stack
from bayesjudge.inference.ppc import CountFamily, count_table_check

STACK = {"p0": 0.5, "c": [0.3, 0.25], "gamma": [0.1, 0.15]}


def _stack(history: float, seed: int = 2, n: int = 1500) -> np.ndarray:
    table = simulate_stack(n, **STACK, history=history, random_seed=seed)
    return table[["e0", "e1", "e2"]].to_numpy()


def _rates(e: np.ndarray, draws: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """Exact posterior draws of each step's c and gamma, shape (draws, steps)."""
    c_post, g_post = channel_posterior(stack_counts(e))
    rng = np.random.default_rng(0)
    return c_post.sample(draws, random_seed=rng).T, g_post.sample(draws, random_seed=rng).T


def _step_check(e: np.ndarray):
    """Each step's corrected and corrupted counts against the step model's exact posterior."""
    counts = stack_counts(e)
    c, gamma = _rates(e)
    families = []
    for t in range(counts.shape[0]):
        n0, n1 = counts[t, 0].sum(), counts[t, 1].sum()
        families.append(
            CountFamily(
                f"step[{t}]",
                ["corrected", "corrupted"],
                [counts[t, 0, 1], counts[t, 1, 0]],
                np.column_stack([c[:, t], gamma[:, t]]),
                [0, 1],
                trials=[n0, n1],
            )
        )
    return count_table_check(families, random_seed=1)


def _later_check(e: np.ndarray):
    """The later-stage counts split by the stage before, against the Markov null's posterior."""
    _, _, later_n, later_y = markov_counts(e)
    c, gamma = _rates(e)
    families = []
    for t in range(later_n.shape[0]):
        q = np.stack([c[:, t + 1], 1.0 - gamma[:, t + 1]], axis=1)  # by current state
        cells = [(a, b) for a in (0, 1) for b in (0, 1)]
        families.append(
            CountFamily(
                f"later[{t}]",
                [f"E{t}={a} E{t + 1}={b}: correct next" for a, b in cells],
                [later_y[t, a, b] for a, b in cells],
                np.column_stack([q[:, b] for _, b in cells]),
                np.arange(4),
                trials=[later_n[t, a, b] for a, b in cells],
            )
        )
    return count_table_check(families, random_seed=1)


@pytest.mark.parametrize("history", [0.0, 1.5, -3.0])
def test_the_step_model_reproduces_its_counts_whatever_the_dependence(history):
    """A rate per count: nothing for a predictive check of the step fit to find."""
    assert _step_check(_stack(history)).passed


def test_the_markov_restriction_is_the_testable_one():
    """The same counts split by the stage before: a Markov stack passes, a non-Markov one fails."""
    assert _later_check(_stack(0.0)).passed
    failed = _later_check(_stack(1.5)).failures
    assert [t.family for t in failed] == ["later[0]"]


def test_a_non_markov_stack_is_a_finding_not_a_failed_fit():
    analyses = {
        history: analyze_channel(
            PairedOutcomes.from_frame(
                simulate_stack(1500, **STACK, history=history, random_seed=2)
            ),
            random_seed=3,
        )
        for history in (0.0, 1.5)
    }
    markov, other = analyses[0.0], analyses[1.5]
    assert markov.composition is not None
    assert other.composition is not None
    assert markov.composition.markov.verdict == "consistent_with_markov"
    assert other.composition.markov.verdict == "not_markov"
    for analysis in (markov, other):
        block = analysis.to_dict()["diagnostics"]
        assert block["predictive_check"] is None
        assert block["passed"] is True  # the per-step rates do not assume the Markov condition
    summary = other.summary()
    assert [w.title for w in summary.active_warnings if "Markov" in w.title] == [
        "The stack is not Markov"
    ]
    assert "No reading is given" not in summary.shown_reading
