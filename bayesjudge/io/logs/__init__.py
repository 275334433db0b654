"""Read evaluation tools' logs (Inspect AI, promptfoo, lm-evaluation-harness, OpenAI evals).

Every reader returns an :class:`EvalLog`: one canonical long table with one row per ruling
(``item``, ``epoch``, ``system``, ``judge``, ``verdict``, ``score``, ``raw``, ``status``), the
path, the tool and the version that wrote the log, and the count of each status.
:func:`item_verdicts` reduces it to one verdict per item by an explicit epochs rule;
:func:`rulings` gives every ruling in long form for the retry-gate model; :func:`answers` gives one
row per answer (item, epoch, verdict, cluster) for the repeated-samples estimators.

No tool's package is imported until a reader needs it (only Inspect AI logs need one:
``pip install 'bayesjudge[logs]'``).
"""

from __future__ import annotations

from bayesjudge.io.logs._evallog import COLUMNS, STATUSES, TOOLS, EvalLog, Status, Tool
from bayesjudge.io.logs._inspect import Partial, read_inspect_log
from bayesjudge.io.logs._lm_eval import read_lm_eval_samples
from bayesjudge.io.logs._openai_evals import read_openai_evals_log
from bayesjudge.io.logs._promptfoo import read_promptfoo_results
from bayesjudge.io.logs._read import ToolChoice, detect_tool, read_eval_log
from bayesjudge.io.logs._reduce import EpochRule, item_scores, item_verdicts, rulings
from bayesjudge.io.logs._repeated import Unscored, answers, inspect_metadata

__all__ = [
    "COLUMNS",
    "STATUSES",
    "TOOLS",
    "EpochRule",
    "EvalLog",
    "Partial",
    "Status",
    "Tool",
    "ToolChoice",
    "Unscored",
    "answers",
    "detect_tool",
    "inspect_metadata",
    "item_scores",
    "item_verdicts",
    "read_eval_log",
    "read_inspect_log",
    "read_lm_eval_samples",
    "read_openai_evals_log",
    "read_promptfoo_results",
    "rulings",
]
