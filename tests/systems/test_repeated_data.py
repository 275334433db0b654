"""The data contract of rank with repeated answers (RepeatedSystemsData) and its baselines."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from bayesjudge.errors import DataError
from bayesjudge.systems.data import SystemsData
from bayesjudge.systems.repeated import (
    RepeatedSystemsData,
    clustered_naive_difference,
    simulate_repeated_systems,
)


def _frame() -> pd.DataFrame:
    rows = []
    for system, verdicts in (("a", [1, 0, 1, 0, 0, 0]), ("b", [1, 1, 1, 1, 0, 1])):
        for pos, v in enumerate(verdicts):
            item, epoch = pos // 3 + 1, pos % 3 + 1
            rows.append({"system": system, "item": item, "epoch": epoch, "verdict": v})
    frame = pd.DataFrame(rows)
    frame["label"] = np.nan
    frame.loc[0, "label"] = 1.0  # a, item 1, epoch 1
    frame.loc[9, "label"] = 0.0  # b, item 2, epoch 1
    return frame


def test_counts_per_system_item() -> None:
    data = RepeatedSystemsData.from_frame(_frame())
    assert data.systems == ("a", "b")
    assert data.items == ("1", "2")
    # cells ordered by item then system: (1, a), (1, b), (2, a), (2, b)
    assert data.cell_system.tolist() == [0, 1, 0, 1]
    assert data.cell_item.tolist() == [0, 0, 1, 1]
    assert data.n.tolist() == [2, 3, 3, 2]
    assert data.k.tolist() == [1, 3, 0, 1]
    assert data.m1.tolist() == [1, 0, 0, 0]
    assert data.x1.tolist() == [1, 0, 0, 0]
    assert data.m0.tolist() == [0, 0, 0, 1]
    assert data.x0.tolist() == [0, 0, 0, 1]
    assert data.design() == "2 items, 3 answers each"
    assert data.n_answers == 12


def test_systems_data_refuses_repeats_and_names_the_epoch_option() -> None:
    with pytest.raises(DataError, match=r"appears twice .*--epoch COL"):
        SystemsData.from_frame(_frame().drop(columns="epoch"))


def test_repeated_epoch_and_gold_per_item_and_cluster_errors() -> None:
    frame = _frame()
    frame.loc[1, "epoch"] = 1
    with pytest.raises(DataError, match=r"column 'epoch': system 'a' answers item '1' twice"):
        RepeatedSystemsData.from_frame(frame)
    with pytest.raises(DataError, match=r"column 'label' must be the same on every row"):
        RepeatedSystemsData.from_frame(_frame(), gold_per="item")
    frame = _frame()
    frame["cluster"] = ["t", "t", "t", "u", "u", "u", "t", "t", "t", "u", "u", "v"]
    with pytest.raises(DataError, match=r"column 'cluster' must be the same.*rows 10 and 11"):
        RepeatedSystemsData.from_frame(frame)
    frame["cluster"] = ["t"] * 3 + ["u"] * 3 + ["t"] * 3 + ["u"] * 3
    data = RepeatedSystemsData.from_frame(frame)
    assert data.clusters == ("t", "u")
    assert data.cluster_index is not None
    assert data.cluster_index.tolist() == [0, 1]
    with pytest.raises(DataError, match=r"missing required column\(s\) \['epoch'\]"):
        RepeatedSystemsData.from_frame(_frame().drop(columns="epoch"))


def test_gold_per_item_labels_every_answer() -> None:
    frame = _frame()
    frame.loc[[0, 1, 2], "label"] = 1.0
    frame.loc[[9, 10, 11], "label"] = 0.0
    data = RepeatedSystemsData.from_frame(frame, gold_per="item")
    assert data.m1.tolist() == [3, 0, 0, 0]
    assert data.m0.tolist() == [0, 0, 0, 3]
    frame.loc[[3, 4, 5, 6, 7, 8], "label"] = 1.0
    with pytest.raises(DataError, match=r"system 'a' has no unlabelled answers"):
        RepeatedSystemsData.from_frame(frame, gold_per="item")


def test_read_maps_columns() -> None:
    text = b"model,q,try,judge,gold\nA,1,1,pass,pass\nA,1,2,fail,\nB,1,1,pass,fail\nB,1,2,pass,\n"
    data = RepeatedSystemsData.read(
        io.BytesIO(text),
        columns={
            "system": "model",
            "item": "q",
            "epoch": "try",
            "verdict": "judge",
            "label": "gold",
        },
    )
    assert data.origin is not None
    assert data.origin.rows == 4
    assert data.k.tolist() == [0, 1]


def test_naive_difference_by_hand() -> None:
    # items 1 and 2; A answers 1,0 / 0,0; B answers 1,1 / 1,1
    verdict = [1, 0, 1, 1, 0, 0, 1, 1]
    second = [0, 0, 1, 1, 0, 0, 1, 1]
    item = [1, 1, 1, 1, 2, 2, 2, 2]
    clustered = clustered_naive_difference(verdict, second, item)
    assert clustered.estimate == pytest.approx(0.75)
    assert clustered.se == pytest.approx(0.25)
    rows = clustered_naive_difference(verdict, second, item, clustered=False)
    # independent rows: sum of squared influences times C/(C-1), C = 8
    phi = np.array([-0.1875, 0.0625, 0, 0, 0.0625, 0.0625, 0, 0])
    assert rows.se == pytest.approx(np.sqrt(np.sum(phi**2) * 8 / 7))
    assert rows.method == "naive_diff_rows_independent"


def test_clustering_widens_with_repetition_and_narrows_with_pairing() -> None:
    # system-specific spread between items (cell_sd) makes one system's answers to an item
    # alike: clustering by item widens the interval. An item effect shared by both systems
    # (item_sd) makes the two systems' answers to an item alike: the paired difference's
    # clustered interval is narrower than the rows-as-independent one.
    def ratio(item_sd: float, cell_sd: float) -> float:
        sim = simulate_repeated_systems(
            300, 5, [0.0, 0.3], item_sd=item_sd, cell_sd=cell_sd, gold_answers=0, random_seed=4
        )
        f = sim.frame
        args = (f["verdict"], f["system"] == "s1", f["item"])
        clustered = clustered_naive_difference(*args).se
        independent = clustered_naive_difference(*args, clustered=False).se
        assert clustered is not None
        assert independent is not None
        return clustered / independent

    # measured (seed 4): 1.39 and 0.83
    assert ratio(0.0, 2.0) > 1.25
    assert ratio(3.0, 0.0) < 0.9
