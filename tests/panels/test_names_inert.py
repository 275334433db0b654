"""``bayesjudge panel``: judge names from the data are inert in CSV files and on the terminal.

The fit is replaced by a synthetic posterior (every variable the analysis and the report read,
with the data's judge names as coordinates, checked by ``check_fit``), so the baselines, the
analysis, the report's CSV files, the JSON and the printed text are the real ones, in seconds.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from bayesjudge.cli.app import main
from bayesjudge.inference.diagnostics import check_fit
from bayesjudge.panels import analysis as analysis_module

FORMULA_NAMES = ('=HYPERLINK("http://evil/?x","click")', "+1", "-2+3", "@SUM(A1)")
ESCAPING_NAMES = ("\x1b[31mred\x1b[0m", "bell\x07\x9b2J", "abc\u202edcb")


def _verdicts(path: Path, judges: tuple[str, ...]) -> Path:
    """Long-form verdicts of each judge on 120 items, gold labels on 60, seeded."""
    rng = np.random.default_rng(23)
    truth = rng.random(120) < 0.7
    rows = []
    for item, passed in enumerate(truth):
        for judge in judges:
            correct = rng.random() < 0.85
            rows.append(
                {
                    "item": f"q{item:03d}",
                    "judge": judge,
                    "verdict": "PASS" if passed == correct else "FAIL",
                    "label": ("PASS" if passed else "FAIL") if item < 60 else "",
                }
            )
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _synthetic_tree(data) -> xr.DataTree:
    """A posterior of the panel model's reported quantities, as fit_panel returns it."""
    rng = np.random.default_rng(0)
    chains, draws = 4, 400
    judges = list(data.judges)
    n = len(judges)
    rules = [f"at_least_{t}_of_{n}" for t in range(1, n + 1)] + ["likelihood_ratio"]

    def noise(*shape: int) -> np.ndarray:
        return 0.01 * rng.standard_normal((chains, draws, *shape))

    se, sp = 0.85 + noise(n), 0.8 + noise(n)
    post = xr.Dataset(
        {
            "pi": (("chain", "draw"), 0.7 + noise()),
            "se": (("chain", "draw", "judge"), se),
            "sp": (("chain", "draw", "judge"), sp),
            "j": (("chain", "draw", "judge"), se + sp - 1),
            "effective_judges": (("chain", "draw"), n - 0.5 + noise()),
            "error_correlation": (
                ("chain", "draw", "class", "judge", "other_judge"),
                0.1 + noise(2, n, n),
            ),
            "rule_se": (("chain", "draw", "rule"), 0.9 + noise(len(rules))),
            "rule_sp": (("chain", "draw", "rule"), 0.85 + noise(len(rules))),
            "rule_j": (("chain", "draw", "rule"), 0.75 + noise(len(rules))),
            "rule_pi_sd": (("chain", "draw", "rule"), 0.04 + 0.1 * noise(len(rules))),
        },
        coords={"judge": judges, "other_judge": judges, "class": ["pass", "fail"], "rule": rules},
    )
    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((chains, draws), bool))})
    tree = xr.DataTree.from_dict({"posterior": post, "sample_stats": stats})
    diagnostics = check_fit(tree, var_names=["pi", "se", "sp"])
    tree.attrs.update({"diagnostics": json.dumps(diagnostics.to_dict()), "best_rule": rules[-1]})
    return tree


@pytest.fixture
def fake_fit(monkeypatch):
    monkeypatch.setattr(analysis_module, "fit_panel", lambda data, **_: _synthetic_tree(data))


def test_panel_report_csv_cells_holding_names_start_with_a_quote(
    capsys, tmp_path: Path, fake_fit, inert_csv
) -> None:
    data = _verdicts(tmp_path / "verdicts.csv", FORMULA_NAMES)
    out = tmp_path / "report"
    code = main(["panel", str(data), "--json", "--out", str(out), "--no-progress"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    # the JSON keeps every name as it is
    assert set(payload["judges"]) == set(FORMULA_NAMES)
    assert {e.get("judge") for e in payload["estimates"]} >= set(FORMULA_NAMES)
    cells = inert_csv(out)  # no cell a spreadsheet would read as a formula
    assert {"posterior.csv", "estimates.csv", "diagnostics.csv"} <= set(cells)
    for name in ("posterior.csv", "estimates.csv"):
        assert {"'" + judge for judge in FORMULA_NAMES} <= set(cells[name]), name
        assert not set(FORMULA_NAMES) & set(cells[name]), name
    # a pair of judges ("=HYPERLINK(...)|+1") starts with a name too, and is quoted
    pairs = [c for c in cells["posterior.csv"] if "|" in c]
    assert pairs
    assert all(c.startswith("'") for c in pairs)


def test_panel_prints_no_raw_escape_sequence(capsys, tmp_path: Path, fake_fit) -> None:
    data = _verdicts(tmp_path / "verdicts.csv", ESCAPING_NAMES)
    code = main(["panel", str(data), "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0
    for text in (out, err):
        for char in ("\x1b", "\x07", "\x9b", "\u202e"):
            assert char not in text
    assert "\\x1b[31mred\\x1b" in out  # cut to the judge column's 16 characters
    assert "abc\\u202edcb" in out
