"""``bayesjudge rank``: system names from the data are inert in CSV files and on the terminal.

The fit is replaced by a synthetic posterior (as in test_cli.py); the CSV files, the JSON and
the printed text are the real ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesjudge.cli.app import main
from bayesjudge.cli.common import report_failures
from bayesjudge.systems import analysis as analysis_module

FORMULA_NAMES = ('=HYPERLINK("http://evil/?x","click")', "+1", "-2+3", "@SUM(A1)")
ESCAPING_NAMES = ("\x1b[31mred\x1b[0m", "bell\x07\x9b2J", "abc\u202edcb", "plain")


def _answers(path: Path, systems: tuple[str, ...]) -> Path:
    """Four systems on 40 paired items, gold labels on the first ten, seeded."""
    rng = np.random.default_rng(11)
    rows = [
        {
            "system": system,
            "item": f"i{item}",
            "label": (item % 2) if item < 10 else None,
            "verdict": int(rng.random() < rate),
        }
        for item in range(40)
        for system, rate in zip(systems, (0.5, 0.6, 0.7, 0.8), strict=True)
    ]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.fixture
def fake_fit(monkeypatch, make_tree):
    """Replace the sampler: analyze_systems summarises a synthetic posterior of the data."""

    def analyze(data, **options):
        tree = make_tree(data, centres=(0.8, 0.7, 0.6, 0.5))
        return analysis_module.summarize_systems(
            tree,
            data,
            prob=options["prob"],
            random_seed=options["random_seed"],
            priors=options["priors"],
        )

    monkeypatch.setattr(analysis_module, "analyze_systems", analyze)


def test_rank_report_csv_cells_holding_names_start_with_a_quote(
    capsys, tmp_path: Path, fake_fit, inert_csv
) -> None:
    data = _answers(tmp_path / "answers.csv", FORMULA_NAMES)
    out = tmp_path / "report"
    code = main(["rank", str(data), "--json", "--out", str(out), "--judge", "shared"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(payload["systems"]) == set(FORMULA_NAMES)  # the JSON keeps every name as it is
    cells = inert_csv(out)  # no cell a spreadsheet would read as a formula
    assert {"systems.csv", "differences.csv", "baselines.csv", "diagnostics.csv"} <= set(cells)
    for name in ("systems.csv", "differences.csv", "baselines.csv"):
        quoted = {c for c in cells[name] if c.startswith("'")}
        # each name appears alone in these tables, quoted: none is left bare
        assert {"'" + system for system in FORMULA_NAMES} <= quoted, name
        assert not set(FORMULA_NAMES) & set(cells[name]), name
    systems = pd.read_csv(out / "systems.csv", index_col=0)
    assert systems.select_dtypes("number").shape[1] >= 3  # numbers are still numbers


def test_rank_prints_no_raw_escape_sequence(capsys, tmp_path: Path, fake_fit) -> None:
    data = _answers(tmp_path / "answers.csv", ESCAPING_NAMES)
    code = main(["rank", str(data), "--judge", "shared"])
    out, err = capsys.readouterr()
    assert code == 0
    for text in (out, err):
        assert "\x1b" not in text
        assert "\x07" not in text
        assert "\x9b" not in text
        assert "\u202e" not in text
    # the names are shown escaped, as Python's repr shows them
    assert "\\x1b[31mred\\x1b[0m" in out
    assert "abc\\u202edcb" in out
    # the ranking table's row: the escaped name, then its nine numbers
    shown = "\\x1b[31mred\\x1b[0m"
    rows = [line.split() for line in out.splitlines() if line.startswith(shown + " ")]
    assert [len(row) for row in rows] == [10]
    # JSON output keeps the name exactly (json.dumps escapes it as \u001b)
    main(["rank", str(data), "--judge", "shared", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert set(payload["systems"]) == set(ESCAPING_NAMES)


def test_failed_diagnostics_name_parameters_inertly(capsys) -> None:
    code = report_failures(False, ["r_hat(pi[\x1b]0;owned\x07]) = 1.2 (needs <= 1.01)"])
    err = capsys.readouterr().err
    assert code == 3
    assert "\x1b" not in err
    assert "\x07" not in err
    assert "r_hat(pi[\\x1b]0;owned\\x07])" in err
