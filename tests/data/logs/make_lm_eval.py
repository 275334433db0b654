"""Regenerate the lm-evaluation-harness per-sample logs in tests/data/logs/lm_eval/out/.

Run with a Python that has lm-eval installed (it pulls torch, so use a side virtualenv):

    python -m venv /tmp/lmeval-venv
    /tmp/lmeval-venv/bin/pip install torch==2.13.0 lm-eval==0.4.13
    /tmp/lmeval-venv/bin/python tests/data/logs/make_lm_eval.py

Everything is offline: the two tasks in lm_eval/tasks/ read local JSON Lines files through the
`json` dataset builder, and the model is `bj-canned`, a deterministic language model registered
below, so every verdict can be recomputed by hand:

* generate_until: the first of every three repeats answers with the last word of the question,
  the other two answer "lol" (so the `first` and `vote` filters disagree on some questions);
* loglikelihood: minus the length of the continuation (the choice after a space), so `acc` picks
  the shortest choice and `acc_norm`, which divides by the length of the bare choice, the longest
  (the first of equal ones in both cases).

The files are written by lm-eval's own command line (`lm_eval --log_samples --output_path`).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from lm_eval.__main__ import cli_evaluate
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

HERE = Path(__file__).resolve().parent / "lm_eval"


@register_model("bj-canned")
class CannedLM(LM):
    """A deterministic stand-in for a language model (see the module docstring)."""

    def __init__(self, pretrained: str = "bj-canned", **kwargs: object) -> None:
        super().__init__()

    def generate_until(self, requests: list, disable_tqdm: bool = False) -> list[str]:
        answers = []
        for position, request in enumerate(requests):
            question = request.arguments[0].split("Q:")[-1].split("\n")[0]
            answers.append(question.split()[-1] if position % 3 == 0 else "lol")
        return answers

    def loglikelihood(self, requests: list, disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        return [(-float(len(request.arguments[1])), False) for request in requests]

    def loglikelihood_rolling(self, requests: list, disable_tqdm: bool = False) -> list[float]:
        return [-float(len(request.arguments[0])) for request in requests]


def main() -> None:
    """Run both tasks through lm-eval's command line."""
    os.environ.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    os.chdir(HERE)
    shutil.rmtree("out", ignore_errors=True)
    sys.argv = [
        "lm_eval",
        "--model", "bj-canned",
        "--model_args", "pretrained=bj-canned",
        "--tasks", "bj_gen,bj_mc",
        "--include_path", "tasks",
        "--log_samples",
        "--output_path", "out",
        "--seed", "0",
    ]  # fmt: skip
    cli_evaluate()


if __name__ == "__main__":
    main()
