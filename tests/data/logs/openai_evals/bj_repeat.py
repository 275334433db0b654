"""A custom OpenAI evals eval that records repeated rulings through evals' own recorder.

Each sample lists the rulings a judge gave it (`rulings`), a continuous judge score (`score`)
and, optionally, an error (`fail`). The eval asks the completion function once, as every eval
does, then records one `match` event per ruling, one `metrics` event with the score, or an
`error` event. It exists to write the event-log format, not to measure anything.
"""

from __future__ import annotations

import random
from typing import Any

import evals
import evals.metrics
import evals.record


class RepeatedRulings(evals.Eval):
    """Record each sample's listed rulings as `match` events."""

    def __init__(self, completion_fns: list, samples_jsonl: str, *args: Any, **kwargs: Any):
        super().__init__(completion_fns, *args, **kwargs)
        self.samples_jsonl = samples_jsonl

    def eval_sample(self, sample: dict, rng: random.Random) -> None:
        """Record the sample's rulings, its score, or its error."""
        self.completion_fn(prompt=sample["input"])
        if sample.get("fail"):
            evals.record.record_error(sample["fail"], RuntimeError(sample["fail"]))
            return
        for correct in sample["rulings"]:
            evals.record.record_match(
                correct, expected="pass", picked="pass" if correct else "fail"
            )
        evals.record.record_metrics(score=sample["score"])

    def run(self, recorder: evals.record.RecorderBase) -> dict[str, float]:
        """Evaluate every sample and report the accuracy over all rulings."""
        self.eval_all_samples(recorder, self.get_samples())
        return {"accuracy": evals.metrics.get_accuracy(recorder.get_events("match"))}
