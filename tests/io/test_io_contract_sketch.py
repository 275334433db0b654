"""How a data contract (e.g. ``JudgeData.from_frame``) reads its input through bayesjudge.io.

``judge_input`` below is the shape the contracts can take: read any format, map columns and
spellings, join labels kept apart, turn scores into verdicts, and get plain arrays, with every
problem of the input reported in one error that names file lines.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.errors import DataError
from bayesjudge.io import (
    Field,
    OneOf,
    conform,
    join_labels,
    judge_counts,
    read_labels,
    read_table,
    verdicts_from_scores,
)

JUDGE = (
    Field("label", "binary", missing=True),
    OneOf((Field("verdict", "binary"), Field("score", "score"))),
    Field("stratum", "text", required=False),
    Field("item", "text", required=False),
)
JUDGE_LABELS_APART = (
    Field("label", "binary", required=False, missing=True),
    OneOf((Field("verdict", "binary"), Field("score", "score"))),
    Field("stratum", "text", required=False),
    Field("item", "text"),
)


def judge_input(
    data: pd.DataFrame | str | os.PathLike[str],
    *,
    columns: Mapping[str, str] | None = None,
    positive: Sequence[str] = (),
    negative: Sequence[str] = (),
    threshold: float | None = None,
    labels: pd.DataFrame | str | os.PathLike[str] | None = None,
    label_columns: Mapping[str, str] | None = None,
) -> dict[str, np.ndarray]:
    table = read_table(data, argument="judge data")
    fields = JUDGE if labels is None else JUDGE_LABELS_APART
    parsed = conform(table, fields, columns=columns, positive=positive, negative=negative)
    if labels is not None:
        gold = read_labels(labels, columns=label_columns, positive=positive, negative=negative)
        parsed, _ = join_labels(parsed, gold)
    if threshold is not None and "score" in parsed:
        parsed["verdict"] = verdicts_from_scores(parsed["score"], threshold=threshold)
    label = parsed["label"].to_numpy(dtype=float)
    labelled = ~np.isnan(label)
    judge = parsed["verdict" if "verdict" in parsed else "score"].to_numpy(dtype=float)
    return {
        "cal_label": label[labelled],
        "cal_judge": judge[labelled],
        "test_judge": judge[~labelled],
    }


EXPORT = (
    "id,prompt,model_output,judge_score,judge_verdict,human_label\n"
    "001,q,a,0.91,correct,correct\n"
    "002,q,a,0.20,incorrect,incorrect\n"
    "003,q,a,0.75,correct,\n"
    "004,q,a,0.40,incorrect,NA\n"
)


def test_an_export_with_its_own_names(tmp_path: Path) -> None:
    path = tmp_path / "export.csv"
    path.write_text(EXPORT)
    arrays = judge_input(path, columns={"label": "human_label", "verdict": "judge_verdict"})
    np.testing.assert_array_equal(arrays["cal_label"], [1.0, 0.0])
    np.testing.assert_array_equal(arrays["cal_judge"], [1.0, 0.0])
    np.testing.assert_array_equal(arrays["test_judge"], [1.0, 0.0])


def test_scores_and_labels_kept_apart(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    rows = [("a", 0.9), ("b", 0.1), ("c", 0.5), ("d", 0.3)]
    results.write_text("".join(f'{{"id": "{i}", "p": {p}}}\n' for i, p in rows))
    gold = tmp_path / "gold.tsv"
    gold.write_text("uid\ttruth\nb\tno\na\tyes\n")
    arrays = judge_input(
        results,
        columns={"item": "id", "score": "p"},
        threshold=0.5,
        labels=gold,
        label_columns={"item": "uid", "label": "truth"},
    )
    np.testing.assert_array_equal(arrays["cal_label"], [1.0, 0.0])
    np.testing.assert_array_equal(arrays["cal_judge"], [1.0, 0.0])
    np.testing.assert_array_equal(arrays["test_judge"], [1.0, 0.0])  # 0.5 passes at 0.5
    streamed = judge_counts(
        results,
        columns={"item": "id", "score": "p"},
        threshold=0.5,
        labels=read_labels(gold, columns={"item": "uid", "label": "truth"}),
    )
    assert streamed.as_dict() == {"m1": 1, "x1": 1, "m0": 1, "x0": 0, "n": 2, "k": 1}


def test_every_problem_in_one_error() -> None:
    data = io.BytesIO(b"human_label,judge\ncorrect,yes\nperhaps,no\n,maybe\n")
    with pytest.raises(DataError) as info:
        judge_input(data, columns={"label": "human_label", "verdict": "judge"})
    lines = str(info.value).splitlines()
    assert lines[0] == "<stream>: 2 problems:"
    assert lines[1].endswith("line 3 has 'perhaps'")
    assert lines[2].endswith("line 4 has 'maybe'")
