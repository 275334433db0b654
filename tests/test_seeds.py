"""The seed contract: ``random_seed=None`` means DEFAULT_SEED in every simulator and sampler.

Two calls without a seed give the same data, equal to a call with
:data:`bayesjudge.validation.DEFAULT_SEED`; an integer seed gives the same data as the Generator
it seeds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bayesjudge.channels.simulate import simulate_slices, simulate_stack, simulate_step
from bayesjudge.gates.simulate import revise_loop
from bayesjudge.panels.simulate import simulate_panel
from bayesjudge.prevalence.simulate import judge_scores_table, judge_table
from bayesjudge.systems.data import Patterns
from bayesjudge.systems.exact import unpooled_two_system
from bayesjudge.systems.simulate import simulate_systems
from bayesjudge.validation import DEFAULT_SEED


def _two_systems(**seed: Any) -> np.ndarray:
    cells = Patterns(
        ("A", "B"),
        np.array([[1, 1], [1, 2], [2, 1], [2, 2], [3, 3], [6, 6], [4, 6], [3, 5]], np.int8),
        np.array([120, 60, 30, 290, 40, 50, 5, 5]),
    )
    return np.asarray(unpooled_two_system(cells, draws=1000, **seed).quantile([0.1, 0.5, 0.9]))


SIMULATORS: dict[str, Callable[..., Any]] = {
    "judge_table": lambda **s: judge_table(pi=0.7, se=0.9, sp=0.85, n=50, m1=10, m0=10, **s),
    "judge_scores_table": lambda **s: judge_scores_table(pi=0.7, n=50, m1=10, m0=10, **s),
    "simulate_step": lambda **s: simulate_step(30, p0=0.5, c=0.2, gamma=0.1, **s),
    "simulate_slices": lambda **s: simulate_slices([5, 3, 0, 0, 3], **s),
    "simulate_stack": lambda **s: simulate_stack(20, p0=0.5, c=[0.3, 0.3], gamma=[0.1, 0.1], **s),
    "revise_loop": lambda **s: revise_loop(30, a=0.3, s=0.9, leak=0.5, **s),
    "simulate_systems": lambda **s: (
        simulate_systems([0.6, 0.7], n_unlabelled=40, n_labelled=10, se=0.9, sp=0.8, **s).frame
    ),
    "simulate_panel": lambda **s: simulate_panel(
        pi=0.7, se=[0.9, 0.8], sp=[0.8, 0.9], loading=0.5, n_unlabelled=40, n_gold=10, **s
    ).data.to_wide(),
    "unpooled_two_system": _two_systems,
}


def _equal(first: Any, second: Any) -> bool:
    if isinstance(first, pd.DataFrame):
        return first.equals(second)
    return bool(np.array_equal(first, second))


@pytest.mark.parametrize("name", SIMULATORS)
def test_no_seed_means_the_default_seed(name: str) -> None:
    simulate = SIMULATORS[name]
    unseeded = simulate()
    assert _equal(unseeded, simulate())
    assert _equal(unseeded, simulate(random_seed=DEFAULT_SEED))
    assert _equal(unseeded, simulate(random_seed=np.random.default_rng(DEFAULT_SEED)))
    assert not _equal(unseeded, simulate(random_seed=DEFAULT_SEED + 1))
