"""Shared pytest configuration for the bayesjudge test suite.

Hypothesis profiles
-------------------
``ci`` (the default): deterministic (``derandomize=True``), no per-example deadline (the first call
of a numerical routine may compile or warm caches), and a modest number of examples so the
default run stays fast on a small machine. ``dev``: more examples, random, for local bug hunting.
Select one with the ``HYPOTHESIS_PROFILE`` environment variable, e.g.
``HYPOTHESIS_PROFILE=dev python -m pytest tests``.

The on-disk model cache
-----------------------
Tests leave the user's cache folder alone: ``BAYESJUDGE_CACHE_DIR`` is set to ``off`` for the
session (and the subprocesses it starts) unless it is already set, so every test compiles its
models as a fresh process without a cache would. The tests of the cache itself point it at
temporary folders.

The live Inspect AI log
-----------------------
``inspect_run`` (session scope) runs the small task described by
``tests/data/logs/inspect_task.json`` through Inspect itself, offline (its ``mockllm``
provider), once per test session, and gives the ``.eval`` log and the same log as JSON.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    max_examples=40,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=300, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# scripts that made the bundled eval logs (they need the tools themselves), not tests
collect_ignore = ["data"]


def pytest_configure(config: object) -> None:
    os.environ.setdefault("BAYESJUDGE_CACHE_DIR", "off")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the tests in reverse order when ``BAYESJUDGE_TEST_ORDER=reverse`` (CI's second pass).

    A test that passes only after (or before) another one is a defect; running the suite in
    both orders finds it.
    """
    order = os.environ.get("BAYESJUDGE_TEST_ORDER", "")
    if order not in ("", "reverse"):
        raise pytest.UsageError(f"BAYESJUDGE_TEST_ORDER must be 'reverse' or unset; got {order!r}")
    if order == "reverse":
        items.reverse()


INSPECT_TASK = Path(__file__).parent / "data" / "logs" / "inspect_task.json"


@dataclass(frozen=True)
class InspectRun:
    """The live Inspect run: its logs and the task that made them (inspect_task.json)."""

    eval: Path
    json: Path
    spec: dict[str, Any]


def _write_inspect_log(log_dir: Path, spec: dict[str, Any]) -> Path:
    """Run a tiny task through Inspect with its mockllm provider; return the .eval log."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import Score, Target, accuracy, mean, scorer
    from inspect_ai.solver import Generate, TaskState, solver

    grades = {(i, e): g for i, e, g in spec["grades"]}

    @solver
    def fail_on_err():  # type: ignore[no-untyped-def]
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            if state.sample_id == "err":
                raise RuntimeError("solver crashed on purpose")
            return await generate(state)

        return solve

    @scorer(metrics=[accuracy()])
    def grade():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: Target) -> Score:
            value = grades[(str(state.sample_id), state.epoch)]
            return Score.unscored(reason="grader_failed") if value is None else Score(value=value)

        return score

    @scorer(metrics=[mean()])
    def length():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=0.25 * state.epoch)

        return score

    @scorer(metrics=[mean()])
    def binary():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=spec["binary"][str(state.sample_id)])

        return score

    def canned(*_: object) -> ModelOutput:
        # A usage given up front keeps mockllm from counting tokens (which downloads a tokenizer).
        output = ModelOutput.from_content(model="mockllm/model", content="an answer")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    task = Task(
        dataset=MemoryDataset(
            [Sample(id=i, input=f"question {i}", target="x") for i in spec["ids"]]
        ),
        solver=[fail_on_err()],
        scorer=[grade(), length(), binary()],
        epochs=spec["epochs"],
    )
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=canned),
        log_dir=str(log_dir),
        log_format="eval",
        display="none",
        fail_on_error=False,
    )
    return Path(log.location)


@pytest.fixture(scope="session")
def inspect_run(tmp_path_factory: pytest.TempPathFactory) -> InspectRun:
    """The same run as an .eval log (from eval) and a .json log (Inspect's write_eval_log)."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log as inspect_read
    from inspect_ai.log import write_eval_log

    spec = json.loads(INSPECT_TASK.read_text(encoding="utf-8"))
    folder = tmp_path_factory.mktemp("inspect")
    with pytest.MonkeyPatch.context() as patch:  # Inspect's traces and caches go here, not ~
        patch.setenv("XDG_DATA_HOME", str(folder / "data"))
        patch.setenv("XDG_CACHE_HOME", str(folder / "cache"))
        eval_path = _write_inspect_log(folder / "logs", spec)
    json_path = folder / "run.json"
    write_eval_log(inspect_read(str(eval_path)), str(json_path), format="json")
    return InspectRun(eval=eval_path, json=json_path, spec=spec)
