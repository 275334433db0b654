"""One set of command-line options (issue 25): declared once, each default written once."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from bayesjudge.cli.app import build_parser, main
from bayesjudge.cli.common import EXIT_BAD_INPUT, UserError
from bayesjudge.cli.options import ModelDefault, SamplerOptions, parse_priors
from bayesjudge.examples import example_file
from bayesjudge.priors import GatePriors

# each fitting command and the fit module that holds its model's target acceptance
FITTING = {
    "estimate": "bayesjudge.prevalence.fit",
    "report": "bayesjudge.prevalence.fit",
    "gate": "bayesjudge.gates.fit",
    "channel": "bayesjudge.channels.fit",
    "panel": "bayesjudge.panels.fit",
    "rank": "bayesjudge.systems.fit",
    "repeated": "bayesjudge.repeated.fit",
}


def _help(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return " ".join(capsys.readouterr().out.split())  # one line, whatever the terminal width


@pytest.mark.parametrize("command", sorted(FITTING))
def test_the_help_shows_the_fit_modules_target_accept(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    constant = importlib.import_module(FITTING[command]).TARGET_ACCEPT
    shown = (
        f"{constant[False]:g}; {constant[True]:g} stratified"
        if isinstance(constant, dict)
        else f"{constant:g}"
    )
    text = _help(command, capsys)
    assert f"NUTS target acceptance in (0, 1) (default {shown});" in text
    for option in ("--draws N", "--tune N", "--chains N", "--prior NAME=SPEC", "--no-progress"):
        assert option in text


def test_unset_target_accept_reaches_the_analysis_as_none() -> None:
    for command, module in FITTING.items():
        args = build_parser().parse_args([command, "x.csv"])
        assert args.target_accept == ModelDefault(importlib.import_module(module).TARGET_ACCEPT)
        assert SamplerOptions.from_args(args).target_accept is None  # the model's own
    args = build_parser().parse_args(["gate", "x.csv", "--target-accept", "0.97"])
    assert SamplerOptions.from_args(args).target_accept == 0.97


def test_sampler_options_carry_every_setting_once() -> None:
    from bayesjudge.channels.fit import DRAWS

    argv = ["channel", "x.csv", "--tune", "7", "--chains", "3", "--random-seed", "5"]
    options = SamplerOptions.from_args(
        build_parser().parse_args([*argv, "--prior", "rate=beta:1,1"])
    )
    assert options == SamplerOptions(
        draws=DRAWS, tune=7, chains=3, random_seed=5, priors=("rate=beta:1,1",)
    )
    assert options.fit_kwargs() == {
        "draws": DRAWS,
        "tune": 7,
        "chains": 3,
        "target_accept": None,
        "random_seed": 5,
        "progressbar": None,
    }
    args = build_parser().parse_args(["rank", "--no-progress"])
    assert SamplerOptions.from_args(args).progressbar is False
    assert (
        SamplerOptions.from_args(build_parser().parse_args(["rank"]), quiet=True).progressbar
        is False
    )
    # the field defaults are the command line's
    rank = SamplerOptions.from_args(build_parser().parse_args(["rank"]))
    assert rank == SamplerOptions()


def test_a_bad_prior_is_a_user_error_naming_the_option() -> None:
    assert parse_priors(GatePriors, ["omega=beta:2,2"]) == GatePriors().updated(["omega=beta:2,2"])
    with pytest.raises(UserError, match=r"^--prior: "):
        parse_priors(GatePriors, ["nope=beta:1,1"])


def test_a_bad_prior_on_the_command_line_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["panel", example_file("panel"), "--prior", "nope=beta:1,1"])
    assert code == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("bayesjudge panel: error: --prior: ")
    assert "Traceback" not in err


def test_the_help_reads_each_default_without_importing_its_fit_module() -> None:
    # the help shows each model's default from bayesjudge.inference.defaults, which imports
    # nothing; the fit modules hold the same values, and parsing imports no model
    script = (
        "import contextlib, importlib, io, json, sys\n"
        "from bayesjudge.cli.app import build_parser\n"
        "parser = build_parser()\n"
        "parser.parse_args(['gate', 'x.csv'])\n"
        "shown = {}\n"
        f"for command in {sorted(FITTING)!r}:\n"
        "    shown[command] = str(parser.parse_args([command, 'x.csv']).target_accept)\n"
        "    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "        parser.parse_args([command, '--help'])\n"
        "shown['channel draws'] = str(parser.parse_args(['channel', 'x.csv']).draws)\n"
        "fits = sorted(m for m in sys.modules if m.endswith('.fit'))\n"
        "print(json.dumps({'fits': fits, 'shown': shown}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["fits"] == []
    for command, module in FITTING.items():
        held = importlib.import_module(module).TARGET_ACCEPT
        expected = (
            f"{held[False]:g}; {held[True]:g} stratified" if isinstance(held, dict) else f"{held:g}"
        )
        assert out["shown"][command] == expected
    from bayesjudge.channels.fit import DRAWS

    assert out["shown"]["channel draws"] == str(DRAWS)
