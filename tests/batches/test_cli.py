"""``bayesjudge monitor``: exit codes, JSON and the inputs it reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.batches.simulate import batch_counts
from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_ALARM, EXIT_BAD_INPUT, EXIT_OK

LOG = Path(__file__).resolve().parents[1] / "data" / "logs" / "openai_evals" / "match.jsonl"


def _table(counts: np.ndarray, names: list[str]) -> pd.DataFrame:
    rows = []
    for name, (m1, x1, m0, x0, n, k) in zip(names, counts, strict=True):
        for label, verdict, size in ((1, 1, x1), (1, 0, m1 - x1), (0, 1, x0), (0, 0, m0 - x0),
                                     (None, 1, k), (None, 0, n - k)):  # fmt: skip
            rows += [(name, label, verdict)] * int(size)
    return pd.DataFrame(rows, columns=["release", "gold", "judge"])


@pytest.fixture
def tables(tmp_path: Path) -> tuple[Path, Path]:
    names = [f"2026-04-{d:02d}" for d in range(1, 9)]
    steady = batch_counts(pi=0.9, se=0.9, sp=0.85, n=400, m=100, batches=8, random_seed=1)[0]
    pi = np.r_[np.full(4, 0.9), np.full(4, 0.6)]
    drop = batch_counts(pi=pi, se=0.9, sp=0.85, n=1500, m=300, batches=8, random_seed=2)[0]
    paths = tmp_path / "steady.csv", tmp_path / "drop.csv"
    for path, counts in zip(paths, (steady, drop), strict=True):
        _table(counts, names).sample(frac=1.0, random_state=0).to_csv(path, index=False)
    return paths


ARGS = ["--batch", "release", "--map", "label=gold", "--map", "verdict=judge", "--no-bayes"]


def test_exit_0_without_alarm(capsys: pytest.CaptureFixture[str], tables: tuple[Path, Path]):
    code = main(["monitor", str(tables[0]), "--threshold", "0.8", *ARGS])
    out = capsys.readouterr().out
    assert code == EXIT_OK
    assert "no alarm" in out
    assert out.splitlines()[1].startswith("2026-04-01")  # date order, not file order


def test_exit_1_on_alarm_with_json(capsys: pytest.CaptureFixture[str], tables: tuple[Path, Path]):
    code = main(["monitor", str(tables[1]), "--threshold", "0.8", *ARGS, "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == EXIT_ALARM
    assert payload["alarm"] is True
    assert payload["first_alarm"] >= "2026-04-05"
    assert payload["reasons"][0].startswith("pi below the threshold")
    assert len(payload["batches"]) == 8
    assert payload["batches"][0]["batch"] == "2026-04-01"


def test_exit_2_on_bad_input(capsys: pytest.CaptureFixture[str], tables: tuple[Path, Path]):
    code = main(["monitor", str(tables[0]), "--threshold", "0.8", "--batch", "week"])
    assert code == EXIT_BAD_INPUT
    assert "week" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        main(["monitor", str(tables[0]), "--threshold", "2"])
    assert stop.value.code == EXIT_BAD_INPUT
    code = main(["monitor", str(tables[0]), str(tables[1]), "--threshold", "0.8", *ARGS])
    assert code == EXIT_BAD_INPUT
    assert "give one table" in capsys.readouterr().err


def test_eval_logs_are_one_batch_each(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    first, second = tmp_path / "r1.jsonl", tmp_path / "r2.jsonl"
    shutil.copy(LOG, first)
    shutil.copy(LOG, second)
    from bayesjudge.io.logs import item_verdicts, read_eval_log

    ids = item_verdicts(read_eval_log(LOG))["item"].tolist()
    labels = tmp_path / "gold.csv"
    pd.DataFrame({"item": ids[:4], "label": [1, 0, 1, 0]}).to_csv(labels, index=False)
    code = main(["monitor", str(first), str(second), "--labels", str(labels),
                 "--threshold", "0.5", "--json", "--no-bayes"])  # fmt: skip
    payload = json.loads(capsys.readouterr().out)
    assert code in (EXIT_OK, EXIT_ALARM)
    assert [b["batch"] for b in payload["batches"]] == ["r1.jsonl", "r2.jsonl"]
    assert payload["batches"][0]["m1"] + payload["batches"][0]["m0"] == 4
