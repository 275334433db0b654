"""``bayesjudge check``: the one-shot CI gate P(pi > bar) >= prob, and its exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_ALARM, EXIT_BAD_INPUT, EXIT_DIAGNOSTICS, EXIT_OK
from bayesjudge.prevalence import JudgeCounts, analyze_prevalence, exact_posterior
from bayesjudge.prevalence.bar import BarCheck, check_bar
from bayesjudge.prevalence.simulate import judge_table


@pytest.fixture
def data_csv(tmp_path: Path) -> Path:
    path = tmp_path / "judge.csv"
    judge_table(pi=0.9, se=0.9, sp=0.85, n=600, m1=80, m0=40, random_seed=3).to_csv(
        path, index=False
    )
    return path


def test_check_bar_reads_the_exact_cdf() -> None:
    counts = JudgeCounts(60, 57, 40, 3, 500, 420)
    analysis = analyze_prevalence(counts, method="exact")
    check = check_bar(analysis, min_pi=0.85, prob=0.9)
    assert check.p_above == pytest.approx(1.0 - exact_posterior(counts).cdf(0.85), abs=1e-9)
    assert check.passed == (check.p_above >= 0.9)
    assert check.mcse is None


def test_reason_never_shows_a_probability_equal_to_the_level() -> None:
    assert BarCheck(0.8, 0.95, 0.9496, None, "exact", True).reason.startswith(
        "P(pi > 0.80) = 0.9496 < 0.95"
    )
    assert BarCheck(0.8, 0.95, 0.97, None, "exact", True).reason == (
        "P(pi > 0.80) = 0.97 >= 0.95: clears the bar"
    )


def test_check_exit_0_and_1(capsys: pytest.CaptureFixture[str], data_csv: Path) -> None:
    base = ["check", str(data_csv), "--method", "exact"]
    assert main([*base, "--min-pi", "0.7"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "clears the bar" in out
    assert out.count("\n") == 1
    assert main([*base, "--min-pi", "0.88"]) == EXIT_ALARM
    out = capsys.readouterr().out
    assert "< 0.95: below the bar" in out
    assert main([*base, "--min-pi", "0.88", "--json"]) == EXIT_ALARM
    payload = json.loads(capsys.readouterr().out)
    assert payload["passed"] is False
    assert payload["min_pi"] == 0.88
    assert payload["p_above"] < 0.95
    assert payload["analysis"]["counts"]["n"] == 600


def test_check_exit_2_on_bad_input(capsys: pytest.CaptureFixture[str], data_csv: Path) -> None:
    for argv in (["--min-pi", "1.5"], []):  # out of (0, 1); --min-pi is required
        with pytest.raises(SystemExit) as stop:
            main(["check", str(data_csv), *argv])
        assert stop.value.code == EXIT_BAD_INPUT
        assert "--min-pi" in capsys.readouterr().err
    code = main(["check", str(data_csv), "--min-pi", "0.8", "--map", "verdict=nope"])
    assert code == EXIT_BAD_INPUT
    assert "nope" in capsys.readouterr().err


def test_check_exit_3_on_failed_diagnostics(
    capsys: pytest.CaptureFixture[str], data_csv: Path
) -> None:
    argv = ["check", str(data_csv), "--min-pi", "0.5", "--json", "--no-progress"]
    code = main([*argv, "--draws", "5", "--tune", "5", "--chains", "2", "--random-seed", "1"])
    out, err = capsys.readouterr()
    assert code == EXIT_DIAGNOSTICS
    payload = json.loads(out)
    assert payload["diagnostics_passed"] is False
    assert payload["method"] == "nuts"
    assert "FAILED its diagnostics" in err
