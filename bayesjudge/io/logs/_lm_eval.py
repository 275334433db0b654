"""Read lm-evaluation-harness per-sample logs (``lm_eval --log_samples``)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from bayesjudge.errors import DataError
from bayesjudge.io.logs._evallog import (
    NAN,
    EvalLog,
    Ruling,
    choose,
    epochs_in_order,
    fail,
    item_id,
    iter_jsonl,
    load_json,
    number,
    raw_text,
)

__all__ = ["read_lm_eval_samples"]

# Keys of a per-sample record that are not metrics (for files older than the `metrics` list).
_NOT_METRICS = frozenset(
    {
        "doc_id",
        "doc",
        "target",
        "arguments",
        "resps",
        "filtered_resps",
        "filter",
        "metrics",
        "doc_hash",
        "prompt_hash",
        "target_hash",
        "task_name",
    }
)
_SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>[^_]+)\.jsonl$")


def read_lm_eval_samples(
    path: str | os.PathLike[str],
    *,
    metric: str | None = None,
    filter: str | None = None,
    item_field: str | None = None,
) -> EvalLog:
    """Read an lm-evaluation-harness per-sample file into one ruling per document.

    ``lm_eval ... --log_samples --output_path DIR`` writes one ``samples_<task>_<date>.jsonl``
    per task, one line per document and filter, each holding that document's per-sample value
    of every metric of the task. The item is ``doc_id`` (the document's position in the
    evaluated split) as text, or the document's own field ``item_field`` (e.g. an ``id``
    column of the dataset); ``judge`` is the metric; the filter is chosen, not kept as a
    judge. A metric value of exactly 0 or 1 throughout (``acc``, ``exact_match``) is a
    pass/fail verdict; any other number is kept as a score.

    Repeats: lm-eval scores a document once per filter, after the filter has reduced the
    ``repeats`` generations (``take_first``, ``majority_vote``, ...), so a samples file holds
    one ruling per document (``epoch`` 1), and a document that appears twice for one filter
    (files concatenated) is numbered as a second epoch.

    ``system`` and ``version`` come from the ``results_<date>.json`` that lm-eval writes beside
    the samples file (``model_name`` and ``lm_eval_version``); without it they are
    ``"unknown"`` and ``""``. Neither file records a version of its format (``lm_eval_version``
    is the program's), so no format version is checked, unlike Inspect and promptfoo logs.

    Parameters
    ----------
    path : str or PathLike
        The ``samples_<task>_<date>.jsonl`` file.
    metric : str, optional
        The per-sample metric that is the verdict; by default the task's only metric.
    filter : str, optional
        The filter whose scores are read; by default the file's only filter.
    item_field : str, optional
        A field of ``doc`` to use as the item id instead of ``doc_id``.

    Returns
    -------
    EvalLog
        ``tool="lm_eval"``.

    Raises
    ------
    DataError
        On a line that is not JSON (a truncated file), a line without ``doc_id``, a missing
        or unnamed metric or filter, a metric value that is not a number (corpus-level
        metrics such as ``bleu`` keep pairs per sample), or a missing ``item_field``.

    Examples
    --------
    >>> log = read_lm_eval_samples("samples_gsm8k_2026.jsonl", metric="exact_match",
    ...                            filter="strict-match")  # doctest: +SKIP
    """
    name = os.fspath(path)
    records = []
    for line, record in iter_jsonl(name):
        if not isinstance(record, Mapping) or "doc_id" not in record:
            raise fail(
                name,
                f"line {line}",
                "no doc_id: not an lm-eval samples file (lm_eval --log_samples writes "
                "samples_<task>_<date>.jsonl)",
            )
        records.append((line, record))
    if not records:
        raise DataError(f"{name}: the file holds no samples")
    filters = list(dict.fromkeys(str(r.get("filter", "none")) for _, r in records))
    chosen_filter = choose(
        name, field="filter", what="filter", option="filter", name=filter, names=filters
    )
    records = [(n, r) for n, r in records if str(r.get("filter", "none")) == chosen_filter]
    metrics = list(dict.fromkeys(m for _, r in records for m in _metric_names(r)))
    judge = choose(
        name, field="metrics", what="metric", option="metric", name=metric, names=metrics
    )
    system, version = _run_info(name)
    items = [_item(record, item_field, path=name, line=line) for line, record in records]
    epochs = epochs_in_order([(item,) for item in items])
    rulings = [
        _ruling(record, item, epoch, system, judge, path=name, line=line)
        for (line, record), item, epoch in zip(records, items, epochs, strict=True)
    ]
    return EvalLog.from_rulings(rulings, path=name, tool="lm_eval", version=version)


def _metric_names(record: Mapping[str, Any]) -> list[str]:
    listed = record.get("metrics")
    if isinstance(listed, list):
        return [str(m) for m in listed]
    return [str(k) for k in record if k not in _NOT_METRICS]


def _item(record: Mapping[str, Any], item_field: str | None, *, path: str, line: int) -> str:
    if item_field is None:
        return item_id(record["doc_id"], path=path, field=f"line {line}: doc_id")
    doc = record.get("doc")
    if not isinstance(doc, Mapping) or item_field not in doc:
        fields = sorted(doc) if isinstance(doc, Mapping) else []
        raise fail(
            path,
            f"line {line}: doc.{item_field}",
            f"missing (the document has {fields})",
            sample=f"doc_id {record['doc_id']!r}",
        )
    return item_id(doc[item_field], path=path, field=f"line {line}: doc.{item_field}")


def _ruling(
    record: Mapping[str, Any],
    item: str,
    epoch: int,
    system: str,
    judge: str,
    *,
    path: str,
    line: int,
) -> Ruling:
    if judge not in record:
        return Ruling(item, epoch, system, judge, NAN, NAN, "", "unscored")
    value = record[judge]
    if isinstance(value, bool):
        return Ruling(item, epoch, system, judge, float(value), float(value), raw_text(value), "ok")
    score = number(value)
    if isinstance(value, float) and score is None:  # NaN or infinite: no score
        return Ruling(item, epoch, system, judge, NAN, NAN, raw_text(value), "unscored")
    if score is None:
        raise fail(
            path,
            f"line {line}: {judge}",
            f"{value!r} is not a number: lm-eval keeps this metric per sample only to "
            "aggregate it over the corpus; choose a per-sample metric (acc, exact_match, ...)",
            sample=f"doc_id {record['doc_id']!r}",
        )
    return Ruling(item, epoch, system, judge, NAN, score, raw_text(value), "ok")


def _run_info(path: str) -> tuple[str, str]:
    """Return (model name, lm-eval version) from the results file beside the samples file."""
    match = _SAMPLES_NAME.match(os.path.basename(path))
    if match is None:
        return "unknown", ""
    results = os.path.join(os.path.dirname(path), f"results_{match['date']}.json")
    if not os.path.exists(results):
        return "unknown", ""
    document = load_json(results)
    if not isinstance(document, Mapping):
        return "unknown", ""
    config = document.get("config")
    model = document.get("model_name") or (
        config.get("model") if isinstance(config, Mapping) else None
    )
    return str(model or "unknown"), str(document.get("lm_eval_version") or "")
