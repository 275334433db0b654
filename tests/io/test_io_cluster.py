"""Tests of bayesjudge.io.stream.judge_counts_on_cluster against the single-machine reduction."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.errors import DataError
from bayesjudge.io import judge_counts, judge_counts_on_cluster

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster() -> Iterator[object]:
    with distributed.LocalCluster(
        processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None
    ) as local:
        yield local


def write_parts(folder: Path, *, seed: int) -> None:
    rng = np.random.default_rng(seed)
    folder.mkdir()
    for part in range(4):
        n = 500 + 100 * part
        frame = pd.DataFrame(
            {
                "gold": np.array(["correct", "incorrect", ""])[rng.integers(0, 3, n)],
                "judge": np.array(["yes", "no"])[rng.integers(0, 2, n)],
                "task": np.array(["a", "b"])[rng.integers(0, 2, n)],
            }
        )
        if part % 2:
            frame.to_parquet(folder / f"part-{part}.parquet", index=False)
        else:
            frame.to_csv(folder / f"part-{part}.csv", index=False)


def test_the_cluster_gives_the_single_machine_counts(tmp_path: Path, cluster: object) -> None:
    write_parts(tmp_path / "parts", seed=8)
    columns = {"label": "gold", "verdict": "judge", "stratum": "task"}
    local = judge_counts(tmp_path / "parts", columns=columns)
    remote = judge_counts_on_cluster(
        tmp_path / "parts",
        scheduler=cluster.scheduler_address,  # type: ignore[attr-defined]
        columns=columns,
    )
    assert remote.as_dict() == local.as_dict()
    assert (remote.rows, remote.files) == (local.rows, 4)
    assert remote.by_stratum is not None
    assert local.by_stratum is not None
    pd.testing.assert_frame_equal(remote.by_stratum, local.by_stratum)


def test_the_cluster_reports_every_file_problem(tmp_path: Path, cluster: object) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "a.csv").write_text("label,verdict\n1,yes\n0,perhaps\n")
    (folder / "b.csv").write_text("gold,verdict\n1,1\n")
    with pytest.raises(DataError) as info:
        judge_counts_on_cluster(folder, scheduler=cluster.scheduler_address)  # type: ignore[attr-defined]
    message = str(info.value)
    assert "a.csv: column 'verdict' must hold PASS/FAIL values" in message
    assert "line 3 has 'perhaps'" in message
    assert "b.csv: no 'label' column; did you mean 'gold'?" in message


def test_a_missing_dask_names_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"pip install 'bayesjudge\[studies\]'"):
        judge_counts_on_cluster(tmp_path)


def test_the_cluster_joins_labels_kept_apart(tmp_path: Path, cluster: object) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "a.csv").write_text("id,verdict\n1,yes\n2,no\n3,yes\n")
    (folder / "b.csv").write_text("id,verdict\n4,no\n5,yes\n")
    labels = pd.DataFrame({"item": ["2", "5"], "label": [1.0, 0.0]})
    local = judge_counts(folder, columns={"item": "id"}, labels=labels)
    remote = judge_counts_on_cluster(
        folder,
        scheduler=cluster.scheduler_address,  # type: ignore[attr-defined]
        columns={"item": "id"},
        labels=labels,
    )
    assert (
        remote.as_dict() == local.as_dict() == {"m1": 1, "x1": 0, "m0": 1, "x0": 1, "n": 3, "k": 2}
    )
