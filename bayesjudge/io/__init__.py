"""The input layer: every command reads its data through here.

* :func:`read_table` - CSV, TSV, JSON Lines, Parquet or standard input, every column as text,
  each row named by the file line (or Parquet row) it is on;
* :func:`conform` with :class:`Field` / :class:`OneOf` - map the user's columns
  (``columns={"label": "human_label"}``, :func:`parse_map` for ``--map``) and value spellings
  (:class:`Spellings`), parse every column and report every problem at once (:class:`Problems`);
* :func:`read_labels` / :func:`join_labels` - gold labels from a separate table, joined by id,
  with a :class:`JoinReport`;
* :func:`judge_counts`, :func:`gate_cells`, :func:`judge_counts_on_cluster` - large files
  streamed (or spread over a Dask cluster) to the sufficient statistics; :func:`judge_column`
  and :func:`peek_columns` look at a file's header only;
* :func:`bayesjudge.io.split.split_table` - one table per value of a column (``--by``);
* :func:`log_tool` and :class:`InputReport` - whether a source is an eval log, and what was read;
* :mod:`bayesjudge.io.logs` - the logs of evaluation tools (Inspect AI, promptfoo,
  lm-evaluation-harness, OpenAI evals) read as they are.

Names are imported on first use, so importing this package loads neither pyarrow nor dask.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "INPUT_FORMATS",
    "Field",
    "InputFormat",
    "InputReport",
    "JoinReport",
    "OneOf",
    "Problems",
    "Spellings",
    "StreamCounts",
    "conform",
    "gate_cells",
    "join_labels",
    "judge_column",
    "judge_counts",
    "judge_counts_on_cluster",
    "log_tool",
    "parse_map",
    "peek_columns",
    "read_labels",
    "read_table",
    "row_names",
    "suggest_columns",
    "verdicts_from_scores",
]

_HOME = {
    "read_table": "tables",
    "peek_columns": "tables",
    "INPUT_FORMATS": "source",
    "InputFormat": "source",
    "InputReport": "source",
    "log_tool": "source",
    "Field": "mapping",
    "OneOf": "mapping",
    "Spellings": "mapping",
    "conform": "mapping",
    "parse_map": "mapping",
    "suggest_columns": "mapping",
    "verdicts_from_scores": "mapping",
    "Problems": "problems",
    "row_names": "problems",
    "JoinReport": "labels",
    "join_labels": "labels",
    "read_labels": "labels",
    "StreamCounts": "stream",
    "gate_cells": "stream",
    "judge_counts": "stream",
    "judge_column": "stream",
    "judge_counts_on_cluster": "stream",
}

if TYPE_CHECKING:
    from bayesjudge.io.labels import JoinReport, join_labels, read_labels
    from bayesjudge.io.mapping import (
        Field,
        OneOf,
        Spellings,
        conform,
        parse_map,
        suggest_columns,
        verdicts_from_scores,
    )
    from bayesjudge.io.problems import Problems, row_names
    from bayesjudge.io.source import INPUT_FORMATS, InputFormat, InputReport, log_tool
    from bayesjudge.io.stream import (
        StreamCounts,
        gate_cells,
        judge_column,
        judge_counts,
        judge_counts_on_cluster,
    )
    from bayesjudge.io.tables import peek_columns, read_table


def __getattr__(name: str) -> Any:
    if name in _HOME:
        value = getattr(importlib.import_module(f"bayesjudge.io.{_HOME[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'bayesjudge.io' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
