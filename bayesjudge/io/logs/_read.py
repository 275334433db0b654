"""One entry point for every eval-log format: recognise the tool, then read with its reader."""

from __future__ import annotations

import json
import os
import re
from typing import Literal, get_args

from bayesjudge.errors import DataError
from bayesjudge.io.logs._evallog import EvalLog, Tool
from bayesjudge.io.logs._inspect import Partial, read_inspect_log
from bayesjudge.io.logs._lm_eval import read_lm_eval_samples
from bayesjudge.io.logs._openai_evals import read_openai_evals_log
from bayesjudge.io.logs._promptfoo import read_promptfoo_results

__all__ = ["ToolChoice", "detect_tool", "read_eval_log"]

#: The ``tool`` argument of :func:`read_eval_log`.
type ToolChoice = Literal["auto", "inspect", "promptfoo", "lm_eval", "openai_evals"]

_HEAD = 65536  # bytes read to recognise a format
_ZIP = b"PK\x03\x04"
_INSPECT_JSON = re.compile(r'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
_PROMPTFOO_JSON = re.compile(r'^\s*\{\s*"evalId"\s*:')
_KNOWN = (
    "an Inspect AI log (.eval or .json), a promptfoo result file (promptfoo eval --output "
    "results.json), an lm-evaluation-harness samples file (--log_samples: "
    "samples_<task>_<date>.jsonl) or an OpenAI evals record log (oaieval --record_path)"
)


def detect_tool(path: str | os.PathLike[str]) -> Tool:
    r"""Return which tool wrote an eval log, from its extension and its first bytes.

    Parameters
    ----------
    path : str or PathLike
        The log file.

    Returns
    -------
    str
        ``"inspect"``, ``"promptfoo"``, ``"lm_eval"`` or ``"openai_evals"``.

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    DataError
        If the file is none of the formats bayesjudge reads (the message names the path).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "samples_demo_2026.jsonl"
    >>> _ = path.write_text(json.dumps({"doc_id": 0, "filter": "none", "acc": 1.0}) + "\n")
    >>> detect_tool(path)
    'lm_eval'
    """
    name = os.fspath(path)
    if not os.path.exists(name):
        raise FileNotFoundError(f"no such file: {name!r}")
    with open(name, "rb") as handle:
        head = handle.read(_HEAD)
    if head.startswith(_ZIP):
        return "inspect"  # Inspect's .eval logs are zip archives
    text = head.decode("utf-8", errors="replace")
    if _INSPECT_JSON.match(text):
        return "inspect"
    if _PROMPTFOO_JSON.match(text):
        return "promptfoo"
    first = _first_json_line(text)
    if isinstance(first, dict):
        if "doc_id" in first and ("filter" in first or "doc" in first):
            return "lm_eval"
        if "spec" in first or {"run_id", "event_id", "sample_id", "type"} <= first.keys():
            return "openai_evals"
        if isinstance(first.get("results"), dict) and "results" in first["results"]:
            return "promptfoo"
    raise DataError(f"{name}: not a log bayesjudge recognises; it reads {_KNOWN}")


def _first_json_line(text: str) -> object:
    line = text.lstrip().split("\n", 1)[0]
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None


def read_eval_log(
    path: str | os.PathLike[str],
    *,
    tool: ToolChoice = "auto",
    judge: str | None = None,
    partial: Partial | None = None,
    filter: str | None = None,
    item_field: str | None = None,
) -> EvalLog:
    r"""Read an evaluation tool's log into the canonical table of rulings.

    ================  ===========================================  ===================
    ``tool``          reads                                        ``judge`` is
    ================  ===========================================  ===================
    ``inspect``       Inspect AI ``.eval`` / ``.json`` logs        a scorer
    ``promptfoo``     ``promptfoo eval --output results.json``     an assertion
    ``lm_eval``       lm-eval ``samples_<task>_<date>.jsonl``      a metric
    ``openai_evals``  ``oaieval --record_path log.jsonl``          ``"match"`` or a
                                                                   ``metrics`` key
    ================  ===========================================  ===================

    See :func:`read_inspect_log`, :func:`read_promptfoo_results`,
    :func:`read_lm_eval_samples` and :func:`read_openai_evals_log` for what each maps to
    what, and :class:`EvalLog` for the table.

    Parameters
    ----------
    path : str or PathLike
        The log file.
    tool : {"auto", "inspect", "promptfoo", "lm_eval", "openai_evals"}
        Which tool wrote it; ``"auto"`` recognises it (:func:`detect_tool`).
    judge : str, optional
        The scorer (Inspect), assertion (promptfoo), metric (lm-eval) or ``"match"`` /
        metrics key (OpenAI evals) to read; by default the log's only one (promptfoo: each
        test's overall pass/fail).
    partial : {"fail", "pass", "drop"}, optional
        Inspect only: what a partial grade counts as (required when the log holds any).
    filter : str, optional
        lm-eval only: the filter whose scores are read.
    item_field : str, optional
        promptfoo: a test variable to use as the item id; lm-eval: a field of the document.

    Returns
    -------
    EvalLog

    Raises
    ------
    ValueError
        If ``tool`` is not one of the choices, or an option does not apply to the tool.
    DataError
        If the format is not recognised, or the tool's reader rejects the log.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "samples_demo_2026.jsonl"
    >>> lines = [{"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": a}
    ...          for i, a in enumerate([1.0, 0.0, 1.0])]
    >>> _ = path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    >>> log = read_eval_log(path)
    >>> log.frame[["item", "judge", "verdict"]]
      item judge  verdict
    0    0   acc      1.0
    1    1   acc      0.0
    2    2   acc      1.0
    """
    choices = get_args(ToolChoice.__value__)
    if tool not in choices:
        raise ValueError(f"tool must be one of {list(choices)}; got {tool!r}")
    found: Tool = detect_tool(path) if tool == "auto" else tool
    _check_options(found, partial=partial, filter=filter, item_field=item_field)
    if found == "inspect":
        return read_inspect_log(path, scorer=judge, partial=partial)
    if found == "promptfoo":
        return read_promptfoo_results(path, assertion=judge, item_var=item_field)
    if found == "lm_eval":
        return read_lm_eval_samples(path, metric=judge, filter=filter, item_field=item_field)
    return read_openai_evals_log(path, metric=judge)


def _check_options(
    tool: Tool, *, partial: str | None, filter: str | None, item_field: str | None
) -> None:
    applies = {
        "partial": (partial, ("inspect",)),
        "filter": (filter, ("lm_eval",)),
        "item_field": (item_field, ("promptfoo", "lm_eval")),
    }
    for option, (value, tools) in applies.items():
        if value is not None and tool not in tools:
            applies_to = " and ".join(tools)
            raise ValueError(f"{option} applies to {applies_to} logs only; this is a {tool} log")
