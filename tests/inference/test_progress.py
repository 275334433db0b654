"""Progress off a terminal: a line with the time left every few seconds, and only then."""

from __future__ import annotations

import io
import sys
import types
from pathlib import Path

import pytest

from bayesjudge.cli.app import main
from bayesjudge.inference import fit as fit_module
from bayesjudge.inference import sampling as sampling_module
from bayesjudge.inference.progress import (
    PROGRESS_EVERY,
    ProgressLines,
    line_stream,
    progress_lines,
)
from bayesjudge.prevalence.simulate import judge_table


def _chains(*done: int, total: int = 3000) -> list[types.SimpleNamespace]:
    return [types.SimpleNamespace(finished_draws=d, total_draws=total) for d in done]


def test_a_line_every_few_seconds_with_the_time_left() -> None:
    times = iter([0.0, 1.0, PROGRESS_EVERY, PROGRESS_EVERY + 1.0, 2 * PROGRESS_EVERY])
    out = io.StringIO()
    report = ProgressLines(out, clock=lambda: next(times))
    report(_chains(0, 0))  # sampling begins: the clock starts here, not at compile time
    report(_chains(100, 100))  # 1 s in: too soon
    assert out.getvalue() == ""
    report(_chains(600, 600))  # 5 s in: 20% of 6000 draws, 20 s left at this pace
    report(_chains(700, 700))  # 1 s after the last line: too soon
    report(_chains(1500, 1500))  # 10 s in: half done, 10 s left
    assert out.getvalue().splitlines() == [
        "sampling: 20% of draws, about 20 s left",
        "sampling: 50% of draws, about 10 s left",
    ]


def test_no_line_before_the_first_draw_or_after_the_last() -> None:
    times = iter([0.0, 10.0, 20.0])
    out = io.StringIO()
    report = ProgressLines(out, clock=lambda: next(times))
    report(_chains(0, 0))
    report(_chains(0, 0))  # 10 s in, no draw yet: nothing to extrapolate from
    report(_chains(3000, 3000))
    assert out.getvalue() == ""


def test_lines_only_by_default_off_a_terminal_and_within_progress_lines() -> None:
    stream = io.StringIO()
    assert line_stream(None, terminal=False) is None  # a library call writes nothing
    with progress_lines(stream):
        assert line_stream(None, terminal=False) is stream
        assert line_stream(None, terminal=True) is None  # nutpie's bar instead
        assert line_stream(False, terminal=False) is None  # --no-progress
        assert line_stream(True, terminal=False) is None  # the bar, as asked
    assert line_stream(None, terminal=False) is None


def test_nutpie_gets_the_line_reporter_as_its_progress_callback(monkeypatch) -> None:
    seen: list[dict[str, object]] = []

    def fake(*args: object, **options: object) -> object:
        seen.append(options)
        return "tree"

    monkeypatch.setattr(sampling_module, "_nutpie_sample", fake)
    common = dict(draws=10, tune=10, chains=1, seed=1, target_accept=0.9, sampler="nutpie")
    stream = io.StringIO()
    sampling_module.sample_nuts(
        None, "k", dict, {}, progressbar=False, progress_lines=stream, **common
    )
    sampling_module.sample_nuts(
        None, "k", dict, {}, progressbar=True, progress_lines=stream, **common
    )
    sampling_module.sample_nuts(None, "k", dict, {}, progressbar=False, **common)
    assert isinstance(seen[0]["progress_callback"], ProgressLines)
    assert seen[0]["progress_rate"] == 500
    assert "progress_callback" not in seen[1]  # the bar shows the time left itself
    assert "progress_callback" not in seen[2]


class _Stop(Exception):
    pass


@pytest.mark.parametrize(("flags", "lines"), [((), True), (("--no-progress",), False)])
def test_the_command_line_reports_progress_lines_off_a_terminal(
    monkeypatch, capsys, tmp_path: Path, flags: tuple[str, ...], lines: bool
) -> None:
    data = tmp_path / "judge.csv"
    judge_table(pi=0.6, se=0.9, sp=0.8, n=100, m1=30, m0=30, random_seed=1).to_csv(
        data, index=False
    )
    seen: list[object] = []

    def fake(*args: object, progress_lines: object = None, **options: object) -> object:
        seen.append(progress_lines)
        raise _Stop

    monkeypatch.setattr(fit_module, "sample_nuts", fake)
    with pytest.raises(_Stop):
        main(["estimate", str(data), *flags])
    assert not sys.stderr.isatty()  # captured: not a terminal
    assert seen == [sys.stderr if lines else None]
