"""SystemsData.read: tables through the input layer, column mapping, spellings, label joins."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.errors import DataError
from bayesjudge.examples import load_example
from bayesjudge.systems.data import SystemsData

TABLE = b"""model,prompt,gold,judge
old,1,pass,yes
new,1,fail,no
old,2,,yes
new,2,,no
old,3,,no
new,3,,yes
old,4,fail,no
new,4,pass,yes
"""
MAP = {"system": "model", "item": "prompt", "label": "gold", "verdict": "judge"}


def test_read_maps_columns_and_spellings():
    data = SystemsData.read(io.BytesIO(TABLE), columns=MAP)
    direct = SystemsData.from_frame(
        pd.DataFrame(
            {
                "system": ["old", "new"] * 4,
                "item": ["1", "1", "2", "2", "3", "3", "4", "4"],
                "label": [1, 0, None, None, None, None, 0, 1],
                "verdict": [1, 0, 1, 0, 0, 1, 0, 1],
            }
        )
    )
    assert data.systems == direct.systems
    assert data.paired
    np.testing.assert_array_equal(data.states(), direct.states())
    assert data.origin is not None
    assert data.origin.columns["system"] == "model"
    assert data.origin.rows == 8


def test_read_joins_labels_by_item_and_system(tmp_path):
    results = tmp_path / "results.csv"
    results.write_text("system,item,verdict\na,q1,1\nb,q1,0\na,q2,1\nb,q2,1\na,q3,0\nb,q3,0\n")
    labels = tmp_path / "gold.csv"
    labels.write_text("id,model,gold\nq1,a,correct\nq1,b,incorrect\nq3,b,correct\n")
    data = SystemsData.read(
        results, labels=labels, label_columns={"item": "id", "system": "model", "label": "gold"}
    )
    # q1 labelled for both (a pass, b fail), q3 labelled for b only (pass)
    frame = pd.DataFrame(
        {
            "system": ["a", "b"] * 3,
            "item": ["q1", "q1", "q2", "q2", "q3", "q3"],
            "label": [1, 0, None, None, None, 1],
            "verdict": [1, 0, 1, 1, 0, 0],
        }
    )
    np.testing.assert_array_equal(data.states(), SystemsData.from_frame(frame).states())
    assert data.origin is not None
    assert data.origin.join is not None
    assert (data.origin.join.labelled, data.origin.join.unlabelled) == (3, 3)
    assert data.items == ("q1", "q2", "q3")  # the item ids are restored after the join


def test_labels_without_system_column_join_unpaired_data(tmp_path):
    results = tmp_path / "results.csv"
    results.write_text("system,item,verdict\na,1,1\na,2,0\nb,3,1\nb,4,0\na,5,1\nb,6,1\n")
    labels = tmp_path / "gold.csv"
    labels.write_text("item,label\n1,1\n2,0\n3,0\n")
    data = SystemsData.read(results, labels=labels)
    assert not data.paired
    assert data.system_counts().m1.tolist() == [1, 0]
    assert data.system_counts().m0.tolist() == [1, 1]


@pytest.mark.parametrize(
    ("results", "labels", "message"),
    [
        (
            "system,item,verdict\na,1,1\nb,1,0\na,2,1\nb,2,0\n",
            "item,label\n1,1\n",
            "no 'system' column, but item '1' of the data was answered by several systems",
        ),
        (
            "system,item,verdict,label\na,1,1,1\nb,1,0,\na,2,1,0\nb,2,0,\n",
            "item,system,label\n2,b,1\n",
            "already carry gold labels",
        ),
        (
            "system,verdict\na,1\nb,0\n",
            "item,label\n1,1\n",
            "the data have no 'item' column",
        ),
        (
            "system,item,verdict\na,1,1\nb,1,0\na,2,1\nb,2,0\n",
            "item,system,label\n9,a,1\n",
            "not among the results' ids",
        ),
    ],
)
def test_label_join_errors(tmp_path, results, labels, message):
    (tmp_path / "r.csv").write_text(results)
    (tmp_path / "l.csv").write_text(labels)
    with pytest.raises(DataError, match=message):
        SystemsData.read(tmp_path / "r.csv", labels=tmp_path / "l.csv")


def test_read_errors_name_the_column_and_line(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("system,item,verdict,label\na,1,1,1\nb,1,maybe,0\n")
    with pytest.raises(DataError, match=r"verdict.*line 3|line 3.*verdict"):
        SystemsData.read(path)
    path.write_text("system,item,verdict\na,1,1\nb,1,0\n")
    with pytest.raises(DataError, match="no 'label' column and no separate labels table"):
        SystemsData.read(path)
    path.write_text("item,verdict,label\n1,1,1\n")
    with pytest.raises(DataError, match="system"):
        SystemsData.read(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("system,item,verdict,label\na,1,1,1\na,2,0,0\na,3,1,\n", "needs at least two"),
        ("system,item,verdict,label\na,1,1,1\nb,1,0,0\na,2,1,\n", "system 'b' has no unlabelled"),
        ("system,item,verdict,label\na,1,1,1\na,1,0,\nb,1,0,0\nb,2,0,\na,3,1,\n", "appears twice"),
    ],
)
def test_bad_designs_are_clear_errors(tmp_path, text, message):
    path = tmp_path / "r.csv"
    path.write_text(text)
    with pytest.raises(DataError, match=message):
        SystemsData.read(path)


def test_the_bundled_example_matches_its_documented_simulation():
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "make_examples.py"
    spec = importlib.util.spec_from_file_location("make_examples", script)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected = module.systems_example()
    shipped = load_example("systems")
    assert shipped.columns.tolist() == ["system", "item", "label", "verdict"]
    data = SystemsData.read(shipped)
    reference = SystemsData.from_frame(expected)
    assert data.systems == reference.systems == ("assistant-a", "assistant-b", "assistant-c")
    assert data.items == reference.items
    np.testing.assert_array_equal(data.states(), reference.states())
    assert data.paired


PROMPTFOO = Path(__file__).resolve().parents[1] / "data" / "logs" / "promptfoo" / "results.json"


@pytest.fixture
def gold(tmp_path):
    path = tmp_path / "gold.csv"
    path.write_text("item,system,label\n007,echo,1\n007,shell,0\nrome,echo,0\nrome,shell,1\n")
    return path


def test_a_log_with_two_systems_is_paired_data(gold):
    data = SystemsData.from_logs([PROMPTFOO], labels=gold, epochs="first")
    assert data.systems == ("echo", "shell")
    assert data.paired
    assert data.system_counts().m1.tolist() == [1, 1]
    assert data.origin is not None
    assert data.origin.format == "promptfoo"
    assert data.origin.without_verdict == 1  # one answer errored in every epoch


def test_log_errors(gold, tmp_path):
    with pytest.raises(DataError, match="several rulings"):
        SystemsData.from_logs([PROMPTFOO], labels=gold)
    with pytest.raises(DataError, match="system 'echo' is also in"):
        SystemsData.from_logs([PROMPTFOO, PROMPTFOO], labels=gold, epochs="first")
    with pytest.raises(DataError, match="at least one evaluation log"):
        SystemsData.from_logs([], labels=gold)
