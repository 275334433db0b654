"""The seed contract: ``random_seed=None`` means DEFAULT_SEED in every simulator and sampler.

Two calls without a seed give the same data, equal to a call with
:data:`bayesjudge.validation.DEFAULT_SEED`; an integer seed gives the same data as the Generator
it seeds. The other consumers of one integer (the sampler, the bootstrap, the label plan, the
posterior draws) each draw from their own spawned stream, never the simulation's or each other's.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any, get_args

import numpy as np
import pandas as pd
import pytest

from bayesjudge.channels.simulate import simulate_slices, simulate_stack, simulate_step
from bayesjudge.errors import FitWarning
from bayesjudge.gates.simulate import revise_loop
from bayesjudge.inference.sampling import draw_sampler_seed
from bayesjudge.panels.simulate import simulate_panel
from bayesjudge.prevalence.baselines import rogan_gladen_bootstrap_draws
from bayesjudge.prevalence.data import JudgeCounts
from bayesjudge.prevalence.fit import fit_prevalence
from bayesjudge.prevalence.plan import posterior_draws
from bayesjudge.prevalence.simulate import judge_scores_table, judge_table
from bayesjudge.systems.data import Patterns
from bayesjudge.systems.exact import unpooled_two_system
from bayesjudge.systems.simulate import simulate_systems
from bayesjudge.validation import DEFAULT_SEED, SEED_STREAMS, SeedConsumer, rng_from, seed_stream


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


COUNTS = JudgeCounts(m1=100, x1=90, m0=100, x0=15, n=1000, k=700)


def _bootstrap(**seed: Any) -> np.ndarray:
    return rogan_gladen_bootstrap_draws(COUNTS, n_boot=200, **seed)


def _plan_draws(**seed: Any) -> pd.DataFrame:
    return posterior_draws(COUNTS, size=200, **seed)


def test_each_consumer_has_its_own_stream():
    assert set(SEED_STREAMS) == set(get_args(SeedConsumer))
    assert len(set(SEED_STREAMS.values())) == len(SEED_STREAMS)
    firsts = {name: seed_stream(7, name).random(4).tolist() for name in SEED_STREAMS}
    assert len({tuple(v) for v in firsts.values()}) == len(SEED_STREAMS)
    # a stream is fixed by the integer and its consumer alone, not by the order of the calls
    assert {name: seed_stream(7, name).random(4).tolist() for name in reversed(SEED_STREAMS)} == (
        firsts
    )
    assert firsts["simulate"] == np.random.default_rng(7).random(4).tolist()
    assert firsts["simulate"] == rng_from(7).random(4).tolist()
    assert seed_stream(None, "resample").random() == seed_stream(DEFAULT_SEED, "resample").random()
    generator = np.random.default_rng(1)
    assert seed_stream(generator, "sampler") is generator


@pytest.mark.parametrize("bad", [-1, 1.5, True, "7"])
def test_seed_stream_names_a_bad_seed(bad: Any) -> None:
    with pytest.raises(ValueError, match="random_seed must be"):
        seed_stream(bad, "plan")


def test_seed_stream_names_an_unknown_consumer():
    with pytest.raises(ValueError, match=r"consumer must be one of \[.*'sampler'.*; got 'fit'"):
        seed_stream(1, "fit")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("draw", "consumer"), [(_bootstrap, "resample"), (_plan_draws, "draws")], ids=["boot", "plan"]
)
def test_bootstrap_and_plan_draw_from_their_own_streams(
    draw: Callable[..., Any], consumer: SeedConsumer
) -> None:
    unseeded = draw()
    assert _equal(unseeded, draw())
    assert _equal(unseeded, draw(random_seed=DEFAULT_SEED))
    assert _equal(draw(random_seed=5), draw(random_seed=seed_stream(5, consumer)))
    # not the simulation's stream, nor another consumer's, for the same integer
    assert not _equal(draw(random_seed=5), draw(random_seed=np.random.default_rng(5)))
    other = "sampler" if consumer != "sampler" else "plan"
    assert not _equal(draw(random_seed=5), draw(random_seed=seed_stream(5, other)))


def _short_fit() -> Any:
    # too short to pass its checks: the warning saying so is not what this test looks at
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitWarning)
        return fit_prevalence(
            COUNTS, draws=100, tune=100, chains=1, random_seed=5, escalate=False, progressbar=False
        )


def test_sampler_and_bootstrap_streams_differ_for_one_integer():
    fit, again = _short_fit(), _short_fit()
    seed = int(fit.attrs["sampler_seed"])
    assert seed == draw_sampler_seed(seed_stream(5, "sampler"))
    # before: the sampler's seed was the first number of the stream the bootstrap and the
    # simulation read from their start
    assert seed != draw_sampler_seed(np.random.default_rng(5))
    assert seed != draw_sampler_seed(seed_stream(5, "resample"))
    np.testing.assert_array_equal(fit["posterior"]["pi"], again["posterior"]["pi"])


_FRESH_PROCESS = """
import numpy as np
from bayesjudge.prevalence.baselines import rogan_gladen_bootstrap_draws
from bayesjudge.prevalence.data import JudgeCounts
from bayesjudge.prevalence.simulate import judge_table
counts = JudgeCounts(m1=100, x1=90, m0=100, x0=15, n=1000, k=700)
boot = rogan_gladen_bootstrap_draws(counts, n_boot=200, random_seed=5)
table = judge_table(pi=0.7, se=0.9, sp=0.85, n=50, m1=10, m0=10, random_seed=5)
print(repr(boot.tolist()), repr(table.to_numpy().tolist()))
"""


def test_one_integer_gives_the_same_results_in_a_new_process():
    out = subprocess.run(
        [sys.executable, "-c", _FRESH_PROCESS], capture_output=True, text=True, check=True
    ).stdout.strip()
    boot = _bootstrap(random_seed=5).tolist()
    table = judge_table(pi=0.7, se=0.9, sp=0.85, n=50, m1=10, m0=10, random_seed=5)
    assert out == f"{boot!r} {table.to_numpy().tolist()!r}"
