"""``bayesjudge drift``: the state-space fit across batches from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.batches.simulate import batch_counts
from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_DIAGNOSTICS, EXIT_OK


def _table(counts: np.ndarray, names: list[str]) -> pd.DataFrame:
    rows = []
    for name, (m1, x1, m0, x0, n, k) in zip(names, counts, strict=True):
        for label, verdict, size in ((1, 1, x1), (1, 0, m1 - x1), (0, 1, x0), (0, 0, m0 - x0),
                                     (None, 1, k), (None, 0, n - k)):  # fmt: skip
            rows += [(name, label, verdict)] * int(size)
    return pd.DataFrame(rows, columns=["release", "gold", "judge"])


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four releases; the judge's Sp falls from 0.92 to 0.70 at the third."""
    sp = np.r_[0.92, 0.92, 0.70, 0.70]
    counts = batch_counts(pi=0.5, se=0.9, sp=sp, n=800, m=400, batches=4, random_seed=3)[0]
    path = tmp_path_factory.mktemp("drift") / "releases.csv"
    _table(counts, [f"v{t}" for t in range(1, 5)]).to_csv(path, index=False)
    return path


ARGS = ["--batch", "release", "--map", "label=gold", "--map", "verdict=judge", "--no-progress"]
FAST = ["--draws", "500", "--tune", "500", "--random-seed", "5"]


def test_json_report_and_exit_0(
    capsys: pytest.CaptureFixture[str], table: Path, tmp_path: Path, readable_report
) -> None:
    out = tmp_path / "report"
    code = main(["drift", str(table), *ARGS, *FAST, "--json", "--out", str(out)])
    payload = json.loads(capsys.readouterr().out)
    assert code == EXIT_OK, payload["diagnostics"]
    assert [b["batch"] for b in payload["batches"]] == ["v1", "v2", "v3", "v4"]
    assert payload["drifted"] == ["v3"]  # the judge's Sp fell there, and only there
    assert {"pi", "pi_low", "pi_high", "naive", "drift", "p_pi_down"} <= set(payload["batches"][0])
    for name in ("report.html", "summary.md", "batches.csv", "steps.csv", "diagnostics.csv"):
        assert (out / name).is_file(), name
    html = (out / "report.html").read_text()
    assert "The judge drifted" in html
    assert "v3" in html
    frame = pd.read_csv(out / "batches.csv")
    assert frame["batch"].tolist() == ["v1", "v2", "v3", "v4"]
    readable_report(out, names=("v1", "v2", "v3", "v4"))


def test_terminal_table_names_the_drifted_batch(
    capsys: pytest.CaptureFixture[str], table: Path
) -> None:
    assert main(["drift", str(table), *ARGS, *FAST]) == EXIT_OK
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["batch", "items", "gold"]
    assert [line.split()[0] for line in lines[1:5]] == ["v1", "v2", "v3", "v4"]
    assert lines[3].endswith("drifted")
    assert not lines[2].endswith("drifted")


def test_a_missing_batch_column_is_bad_input(
    capsys: pytest.CaptureFixture[str], table: Path
) -> None:
    code = main(["drift", str(table), "--batch", "week", *ARGS[2:], *FAST])
    assert code == EXIT_BAD_INPUT
    assert "week" in capsys.readouterr().err


def test_a_judged_rate_the_judge_cannot_make_fails_the_predictive_check_exit_3(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """v4's judge passes about 30% of wrong answers on gold, yet only 1% of v4's answers."""
    sp = np.r_[0.92, 0.92, 0.70, 0.70]
    counts = batch_counts(pi=0.5, se=0.9, sp=sp, n=800, m=400, batches=4, random_seed=3)[0]
    counts[3, 5] = 8  # k of v4: 8 of 800 judged PASS
    path = tmp_path / "broken.csv"
    _table(counts, [f"v{t}" for t in range(1, 5)]).to_csv(path, index=False)
    code = main(["drift", str(path), *ARGS, *FAST, "--json"])
    captured = capsys.readouterr()
    assert code == EXIT_DIAGNOSTICS
    failures = json.loads(captured.out)["diagnostics"]["failures"]
    # the fit pulls v4's Sp up towards its judged count, so its gold-FAIL count fails too
    assert "ppc_tail_prob(judged; most off: judged: v4: PASS verdicts among unlabelled items)" in (
        failures
    )
    assert all(f.startswith("ppc_tail_prob(") and ": v4: " in f for f in failures), failures
    assert "v4" in captured.err
    check = json.loads(captured.out)["diagnostics"]["predictive_check"]
    assert [t["family"] for t in check["tests"]] == ["gold_pass", "gold_fail", "judged"]
    assert check["passed"] is False
    assert "judged" in {t["family"] for t in check["tests"] if t["tail_prob"] < check["threshold"]}
