"""``draws="auto"``: sample until the diagnostics' targets are met (issue 30, item 3)."""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pytest
import xarray as xr

from bayesjudge.inference import defaults, sampling
from bayesjudge.inference.diagnostics import check_fit
from bayesjudge.inference.fit import NutsSettings, StoppingRule, attempts_of

pytest.importorskip("nutpie")

SAMPLER_CHECKS = {"r_hat", "ess_bulk", "ess_tail", "mcse_mean", "mcse_low", "mcse_high"}


def _sampler_checks_pass(tree: xr.DataTree, **kwargs) -> bool:
    diagnostics = check_fit(tree, predictive=False, **kwargs)
    return all(c.passed for c in diagnostics.checks if c.name in SAMPLER_CHECKS | {"divergences"})


# --------------------------------------------------------------------------- settings
def test_auto_settings_resolve_to_the_cap_and_the_checkpoint():
    auto = NutsSettings(draws="auto")
    assert (auto.draws, auto.checkpoint) == (defaults.AUTO_MAX_DRAWS, defaults.AUTO_CHECKPOINT)
    assert NutsSettings.of("auto", 500, 2, None, 0.9).checkpoint == defaults.AUTO_CHECKPOINT
    assert auto.to_dict()["checkpoint"] == defaults.AUTO_CHECKPOINT
    assert "checkpoint" not in NutsSettings().to_dict()  # fixed fits record what they did
    # a retry keeps the rule, with the retry's cap
    assert auto.escalated().checkpoint == auto.lengthened(2.0).checkpoint == 250
    assert auto.lengthened(2.0).draws == 2 * defaults.AUTO_MAX_DRAWS
    with pytest.raises(ValueError, match="draws must be a whole number or 'auto'; got 'many'"):
        NutsSettings(draws="many")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="checkpoint must be a whole number"):
        NutsSettings(checkpoint=0)


def test_stopping_rule_stops_on_a_divergence_and_not_on_short_chains():
    rng = np.random.default_rng(0)
    short = rng.normal(size=(4, 50))  # ESS about 200 < 400
    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((4, 50), bool))})
    trace = xr.DataTree.from_dict(
        {"posterior": xr.Dataset({"pi": (("chain", "draw"), short)}), "sample_stats": stats}
    )
    completed = []
    rule = StoppingRule(lambda t, r: completed.append(1) or t, rng, prob=0.95)
    assert rule(trace) is False
    assert completed == []  # the completion runs only once the sampled variables pass
    assert rule.checkpoints[-1]["met"] is False
    stats["diverging"][0, 3] = True
    diverging = xr.DataTree.from_dict({"posterior": trace["posterior"], "sample_stats": stats})
    assert rule(diverging) is True  # more draws cannot remove a divergence
    assert rule.checkpoints[-1] == {"draws": 50, "met": False, "divergences": 1}
    assert rule.completed is None


def test_stopping_rule_record_says_why_the_run_ended():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 500))
    trace = xr.DataTree.from_dict(
        {
            "posterior": xr.Dataset({"pi": (("chain", "draw"), x)}),
            "sample_stats": xr.Dataset({"diverging": (("chain", "draw"), np.zeros_like(x, bool))}),
        }
    )
    settings = NutsSettings(draws=1000, checkpoint=500)
    final = check_fit(trace)
    rule = StoppingRule(lambda t, r: t, rng)
    assert rule(trace) is True
    assert rule.completed is not None
    record = rule.record(sampling.StoppedRun(trace, 500, True), settings, final)
    assert record["stopped"] == "targets met"
    assert (record["checkpoint"], record["max_draws"], record["draws"]) == (500, 1000, 500)
    assert record["targets"] == {
        "r_hat": 1.01,
        "ess_bulk": 400.0,
        "ess_tail": 400.0,
        "mcse_mean": 0.2,
        "mcse_low": 0.2,
        "mcse_high": 0.2,
        "divergences": 0.0,
    }
    assert record["values"]["ess_bulk_min"] == final.ess_bulk_min
    capped = rule.record(sampling.StoppedRun(trace, 1000, False), settings, final)
    assert capped["stopped"] == "cap reached"
    blind = rule.record(sampling.StoppedRun(trace, 1000, False, "no inspect"), settings, final)
    assert (blind["stopped"], blind["fallback"]) == ("fallback", "no inspect")


# --------------------------------------------------------------------------- the sampler
def _prevalence_run():
    """The unstratified prevalence model as ``fit_prevalence`` caches it (compiled once)."""
    from bayesjudge.inference.cache import model_cache
    from bayesjudge.prevalence import fit as fitting
    from bayesjudge.prevalence.data import JudgeCounts
    from bayesjudge.priors import PrevalencePriors

    counts = JudgeCounts(m1=60, x1=50, m0=60, x0=12, n=500, k=300)
    arrays = {k: np.asarray(v, dtype=np.int64) for k, v in counts.as_dict().items()}
    run = fitting._run((), arrays, PrevalencePriors(), True)
    return {"cache": model_cache(), "key": run.key, "build": run.build, "data": run.data}


SETTINGS = {
    "tune": 200,
    "chains": 3,
    "seed": 7,
    "target_accept": 0.9,
    "progressbar": False,
    "sampler": "nutpie",
}


@pytest.fixture(scope="module")
def prevalence():
    common = _prevalence_run()
    fixed = sampling.sample_nuts(**common, draws=500, **SETTINGS)
    return common, fixed


def test_sampler_stops_where_decide_says_and_keeps_the_first_draws(prevalence):
    common, fixed = prevalence
    seen = []

    def decide(tree):
        seen.append(tree["posterior"].sizes["draw"])
        return seen[-1] >= 200

    run = sampling.sample_nuts_until(**common, decide=decide, checkpoint=100, draws=500, **SETTINGS)
    assert (run.draws, run.stopped, run.fallback) == (200, True, None)
    assert seen == [100, 200]
    for group in ("posterior", "sample_stats"):
        assert run.tree[group].sizes["draw"] == 200
    for name in ("pi", "se", "sp"):  # bit for bit the first draws of the fixed run
        np.testing.assert_array_equal(
            run.tree["posterior"][name].to_numpy(), fixed["posterior"][name][:, :200].to_numpy()
        )


def test_sampler_without_a_stop_runs_to_the_cap(prevalence):
    common, fixed = prevalence
    seen = []
    run = sampling.sample_nuts_until(
        **common,
        decide=lambda tree: seen.append(tree["posterior"].sizes["draw"]) or False,
        checkpoint=200,
        draws=500,
        **SETTINGS,
    )
    assert (run.draws, run.stopped, run.fallback) == (500, False, None)
    assert seen == [200, 400]  # the cap itself is not a checkpoint: it is checked as today
    xr.testing.assert_equal(run.tree["posterior"], fixed["posterior"])


def test_an_interrupt_while_deciding_stops_the_sampler(prevalence, monkeypatch):
    common, _ = prevalence
    started = []
    start = sampling._nutpie_background

    def kept(*args, **kwargs):
        background, compiled = start(*args, **kwargs)
        started.append(background)
        return background, compiled

    def interrupted(tree):
        raise KeyboardInterrupt

    monkeypatch.setattr(sampling, "_nutpie_background", kept)
    with pytest.raises(KeyboardInterrupt):
        sampling.sample_nuts_until(
            **common, decide=interrupted, checkpoint=100, draws=5000, **SETTINGS
        )
    (background,) = started
    deadline = time.monotonic() + 10.0  # cancelled: it stops (at once, in practice)
    while not sampling._finished(background) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sampling._finished(background)
    rows = [batch.num_rows for batch in background.inspect().get_arrow_trace()[0]]
    assert max(rows) < SETTINGS["tune"] + 5000  # stopped well before the cap


class _Blind:
    """nutpie's background sampler, except that its trace cannot be inspected."""

    def __init__(self, background):
        self._background = background

    def inspect(self):
        raise RuntimeError("no inspection here")

    def __getattr__(self, name):
        return getattr(self._background, name)


def test_sampler_falls_back_to_the_cap_where_it_cannot_inspect(prevalence, monkeypatch):
    common, fixed = prevalence
    start = sampling._nutpie_background

    def blind(*args, **kwargs):
        background, compiled = start(*args, **kwargs)
        return _Blind(background), compiled

    monkeypatch.setattr(sampling, "_nutpie_background", blind)
    run = sampling.sample_nuts_until(
        **common, decide=lambda tree: True, checkpoint=100, draws=500, **SETTINGS
    )
    assert (run.draws, run.stopped) == (500, False)
    assert "could not be looked at" in run.fallback
    assert "no inspection here" in run.fallback
    xr.testing.assert_equal(run.tree["posterior"], fixed["posterior"])


class _Unpausable(_Blind):
    """nutpie's background sampler, inspectable but without a working ``pause``."""

    def inspect(self):
        return self._background.inspect()

    def pause(self):
        raise AttributeError("no pause here")


def test_sampler_falls_back_to_the_cap_where_it_cannot_pause(prevalence, monkeypatch):
    common, fixed = prevalence
    start = sampling._nutpie_background

    def unpausable(*args, **kwargs):
        background, compiled = start(*args, **kwargs)
        return _Unpausable(background), compiled

    monkeypatch.setattr(sampling, "_nutpie_background", unpausable)
    run = sampling.sample_nuts_until(
        **common, decide=lambda tree: True, checkpoint=100, draws=500, **SETTINGS
    )
    assert (run.draws, run.stopped) == (500, False)
    assert "pause: AttributeError: no pause here" in run.fallback
    xr.testing.assert_equal(run.tree["posterior"], fixed["posterior"])


def test_pymc_sampler_falls_back_to_the_fixed_draws(monkeypatch):
    calls = []

    def fixed(*args, **kwargs):
        calls.append(kwargs["draws"])
        return "tree"

    monkeypatch.setattr(sampling, "sample_nuts", fixed)
    run = sampling.sample_nuts_until(
        None, "key", lambda: None, {}, decide=lambda tree: True, checkpoint=100, draws=700,
        **{**SETTINGS, "sampler": "pymc"},
    )  # fmt: skip
    assert calls == [700]
    assert (run.tree, run.draws, run.stopped) == ("tree", 700, False)
    assert "PyMC" in run.fallback


# --------------------------------------------------------------------------- a whole fit
@pytest.fixture(scope="module")
def auto_fit():
    from bayesjudge import JudgeData
    from bayesjudge.prevalence.fit import fit_prevalence

    data = JudgeData.from_counts(m1=100, x1=90, m0=100, x0=15, n=1000, k=650)
    options = {"random_seed": 1, "progressbar": False}
    auto = fit_prevalence(data, draws="auto", **options)
    again = fit_prevalence(data, draws="auto", **options)
    fixed = fit_prevalence(data, draws=defaults.AUTO_MAX_DRAWS, **options)
    return auto, again, fixed


def test_fit_stops_at_the_first_checkpoint_where_the_targets_hold(auto_fit):
    auto, _, fixed = auto_fit
    rule = json.loads(auto.attrs["stopping_rule"])
    b, n = rule["checkpoint"], rule["draws"]
    assert b == defaults.AUTO_CHECKPOINT
    assert rule["max_draws"] == defaults.AUTO_MAX_DRAWS
    assert rule["stopped"] == "targets met"
    assert n >= 2 * b  # seed 1: the targets are not all met at the first checkpoint
    assert auto["posterior"].sizes["draw"] == auto.attrs["draws_kept"] == n
    assert bool(auto.attrs["diagnostics_passed"])
    assert [c["draws"] for c in rule["checkpoints"]] == list(range(b, n + 1, b))
    assert [c["met"] for c in rule["checkpoints"]] == [False] * (n // b - 1) + [True]
    # checked afresh on the fixed fit's draws: the targets hold at n and not at n - b
    reported = ["pi", "se", "sp", "j", "judged_rate", "bias"]
    for m, expected in ((n, True), (n - b, False)):
        first = xr.DataTree.from_dict(
            {
                group: fixed[group].to_dataset().isel(draw=slice(0, m))
                for group in ("posterior", "sample_stats")
            }
        )
        assert _sampler_checks_pass(first, mcse_var_names=reported) is expected
    assert rule["values"]["ess_bulk_min"] >= rule["targets"]["ess_bulk"]
    assert rule["values"]["r_hat_max"] <= rule["targets"]["r_hat"]
    (attempt,) = attempts_of(auto)
    assert attempt.stopping == rule
    assert attempt.settings.checkpoint == b


def test_fit_with_the_same_seed_gives_the_same_draws(auto_fit):
    auto, again, fixed = auto_fit
    xr.testing.assert_equal(auto["posterior"].to_dataset(), again["posterior"].to_dataset())
    xr.testing.assert_equal(
        auto["posterior_predictive"].to_dataset(), again["posterior_predictive"].to_dataset()
    )
    n = auto["posterior"].sizes["draw"]
    np.testing.assert_array_equal(
        auto["posterior"]["pi"].to_numpy(), fixed["posterior"]["pi"][:, :n].to_numpy()
    )
    assert "stopping_rule" not in fixed.attrs


# --------------------------------------------------------------------------- command line
def test_draws_option_takes_auto_or_a_number():
    from bayesjudge.cli.options import (
        SamplerOptions,
        add_prob_and_seed,
        add_sampler_options,
        draws_option,
    )

    parser = argparse.ArgumentParser()
    add_prob_and_seed(parser)
    add_sampler_options(parser, target_accept=0.95, priors="pi")
    assert SamplerOptions.from_args(parser.parse_args(["--draws", "auto"])).draws == "auto"
    assert SamplerOptions.from_args(parser.parse_args(["--draws", "300"])).draws == 300
    with pytest.raises(argparse.ArgumentTypeError, match="or 'auto'; got 'lots'"):
        draws_option("lots")
    fixed = argparse.ArgumentParser()
    add_sampler_options(fixed, target_accept=0.95, priors="pi", auto_draws=False)
    with pytest.raises(SystemExit):
        fixed.parse_args(["--draws", "auto"])


def test_estimate_draws_auto_on_the_command_line(capsys, tmp_path):
    import bayesjudge as bj
    from bayesjudge.cli.app import main

    path = tmp_path / "judge.csv"
    bj.load_example("judge").to_csv(path, index=False)
    code = main(["estimate", str(path), "--draws", "auto", "--no-progress", "--json"])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    (attempt,) = payload["diagnostics"]["attempts"]
    assert attempt["checkpoint"] == defaults.AUTO_CHECKPOINT
    assert attempt["stopping"]["stopped"] == "targets met"
    assert attempt["stopping"]["draws"] < defaults.AUTO_MAX_DRAWS
    assert payload["diagnostics"]["passed"] is True


class _Rows:
    def __init__(self, rows):
        self.num_rows = rows


class _Finishing:
    """A background sampler that finishes while its first look at the trace is copied.

    The first look sees ``first`` steps per chain, every later one ``final``.
    """

    def __init__(self, first, final):
        self.looks = 0
        self.is_finished = False
        self._rows = (first, final)

    def inspect(self):
        self._seen = self._rows[min(self.looks, 1)]
        self.looks += 1
        self.is_finished = True  # nutpie copied the trace, then the chains reached the cap
        return self

    def get_arrow_trace(self):
        return ([_Rows(self._seen), _Rows(self._seen)], [])


def test_a_sampler_finishing_during_a_look_is_looked_at_again():
    fake = _Finishing(first=250, final=700)
    raw = sampling._inspect_until(fake, 300, time.monotonic)
    assert raw is not None
    assert fake.looks == 2
    assert [batch.num_rows for batch in raw.batches[0]] == [700, 700]


def test_a_sampler_that_stopped_short_is_reported_finished():
    fake = _Finishing(first=250, final=250)
    assert sampling._inspect_until(fake, 300, time.monotonic) is None
    assert fake.looks == 2
