"""Tests of the study runner: specs, determinism, resumption, Dask, summaries, CLI, plots."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import xarray as xr

from bayesjudge.cli.app import main
from bayesjudge.inference.diagnostics import TAIL_ESS_PROB
from bayesjudge.reporting import output
from bayesjudge.reporting.output import OutputError, read_manifest, write_manifest
from bayesjudge.studies import runner as studies
from bayesjudge.studies.runner import (
    StudySpec,
    builtin_study,
    exact_check,
    load_results,
    run_study,
    study_chunks,
    summarize,
)

BASELINES = [
    "naive",
    "rogan_gladen_delta",
    "rogan_gladen_lang_reiczigel",
    "rogan_gladen_bootstrap",
    "ppi",
    "ppi_plus_plus",
]
FIXED = {"n": 400, "m1": 40, "m0": 40}
DEADLINE = 120.0  # seconds: an upper bound for a subprocess to reach a step, never a wait


def _spec(**overrides: object) -> StudySpec:
    base: dict[str, object] = {
        "name": "tiny",
        "design": "prevalence",
        "replicates": 6,
        "seed": 11,
        "chunk_size": 2,
        "estimators": BASELINES,
        "grid": {"theta": [0.2, 0.7], "judge": [{"q0": 0.8, "q1": 0.9}]},
        "fixed": FIXED,
        "n_boot": 200,
    }
    base.update(overrides)
    return StudySpec.from_dict(base)


def _values(ds: xr.Dataset) -> xr.Dataset:
    """The computed variables (fit_time, which is wall time, differs between runs)."""
    return ds.drop_vars("fit_time").drop_attrs()


# --------------------------------------------------------------------------- specs
@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"design": "coin"}, r"design must be one of \['prevalence', 'gate'\]"),
        ({"estimators": ["naive", "oracle"]}, r"unknown estimator\(s\) \['oracle'\]"),
        ({"estimators": ["gate_hierarchy"]}, r"unknown estimator.*design 'prevalence'"),
        ({"estimators": []}, "at least one estimator"),
        ({"fixed": {"n": 400, "m1": 40}}, r"scenario 0 lacks parameter\(s\) \['m0'\]"),
        (
            {"grid": {"theta": [1.5], "judge": [{"q0": 0.8, "q1": 0.9}]}},
            r"theta must lie in \[0, 1\]",
        ),
        ({"replicates": 0}, "replicates must be a whole number >= 1"),
        ({"estimators": ["bayes_exact"]}, "needs exact_replicates >= 1"),
        ({"prob": 1.5}, r"prob must lie in \(0, 1\)"),
        ({"colour": "red"}, r"unknown study setting\(s\) \['colour'\]"),
        ({"mcmc": {"draws": 10, "speed": 2}}, r"unknown mcmc setting\(s\) \['speed'\]"),
        ({"mcmc": {"target_accept": 1.2}}, r"mcmc.target_accept must lie in \(0, 1\)"),
        ({"grid": {"replicate": [1]}}, "grid axes must be distinct"),
        ({"grid": {"theta": []}}, "must be a non-empty list"),
    ],
)
def test_bad_specs_are_rejected(change: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        _spec(**change)


def test_gate_spec_checks_the_gate_name() -> None:
    with pytest.raises(ValueError, match="gate must be one of"):
        StudySpec.from_dict(
            {
                "name": "g",
                "design": "gate",
                "replicates": 1,
                "estimators": ["naive"],
                "grid": {"gate": ["no such gate"]},
                "fixed": {"n_items": 100, "rulings": 3, "labelled_fraction": 0.2},
            }
        )


def test_spec_round_trips_through_dict_and_toml(tmp_path: Path) -> None:
    spec = _spec()
    assert StudySpec.from_dict(spec.to_dict()) == spec
    text = """
name = "from-toml"
design = "prevalence"
replicates = 3
estimators = ["naive"]
[grid]
theta = [0.5]
judge = [{q0 = 0.8, q1 = 0.9}]
[fixed]
n = 100
m1 = 10
m0 = 10
"""
    path = tmp_path / "spec.toml"
    path.write_text(text, encoding="utf-8")
    loaded = StudySpec.from_toml(path)
    assert loaded.scenarios() == [
        {"n": 100, "m1": 10, "m0": 10, "theta": 0.5, "q0": 0.8, "q1": 0.9}
    ]
    (tmp_path / "bad.toml").write_text("name = [", encoding="utf-8")
    with pytest.raises(ValueError, match="is not valid TOML"):
        StudySpec.from_toml(tmp_path / "bad.toml")
    with pytest.raises(ValueError, match="does not exist"):
        StudySpec.from_toml(tmp_path / "missing.toml")


def test_builtin_specs_reproduce_the_seed_designs() -> None:
    spec = builtin_study("lee2025")
    scenarios = spec.scenarios()
    assert spec.shape == (21, 4)
    assert spec.replicates == 200
    assert {(s["q0"], s["q1"]) for s in scenarios} == {
        (0.7, 0.9),
        (0.9, 0.7),
        (0.7, 0.7),
        (0.9, 0.9),
    }
    assert {s["n"] for s in scenarios} == {1000}
    assert {(s["m0"], s["m1"]) for s in scenarios} == {(100, 100)}
    assert sorted({s["theta"] for s in scenarios}) == [round(0.05 * i, 2) for i in range(21)]
    bakeoff = builtin_study("bakeoff")
    assert sorted({s["labelled_fraction"] for s in bakeoff.scenarios()}) == [0.1, 0.2, 0.5]
    assert "gate_hierarchy" in bakeoff.estimators
    with pytest.raises(ValueError, match=r"unknown built-in study 'x'; available"):
        builtin_study("x")


def test_chunks_cover_every_replicate_once() -> None:
    spec = _spec(replicates=7, chunk_size=3)
    chunks = study_chunks(spec)
    assert chunks[:3] == [(0, 0, 3), (0, 3, 6), (0, 6, 7)]
    assert sum(stop - start for _, start, stop in chunks) == 2 * 7


# --------------------------------------------------------------------------- determinism
def test_results_do_not_depend_on_chunking_or_workers() -> None:
    one = run_study(_spec(chunk_size=6), progressbar=False)
    small = run_study(_spec(chunk_size=1), progressbar=False)
    pool = run_study(_spec(chunk_size=2), workers=2, progressbar=False)
    xr.testing.assert_identical(_values(one), _values(small))
    xr.testing.assert_identical(_values(one), _values(pool))
    # a different study seed changes the data
    other = run_study(_spec(seed=12), progressbar=False)
    assert not np.array_equal(other["estimate"].to_numpy(), one["estimate"].to_numpy())


def test_dataset_layout_and_derived_variables() -> None:
    ds = run_study(_spec(), progressbar=False)
    assert dict(ds.sizes) == {"theta": 2, "judge": 1, "replicate": 6, "estimator": 6}
    assert ds["q0"].dims == ("judge",)
    assert float(ds["j"].sel(theta=0.2)[0]) == pytest.approx(0.7)
    truth = ds["truth"]
    np.testing.assert_allclose(ds["error"], ds["estimate"] - truth)
    np.testing.assert_allclose(ds["width"], ds["high"] - ds["low"])
    inside = (ds["low"] <= truth) & (truth <= ds["high"])
    assert bool((ds["covered"] == inside).all())
    # naive ignores the judge's errors: at theta=0.2 with q0=0.8 the judged rate is 0.34
    naive = ds["estimate"].sel(estimator="naive", theta=0.2)
    assert abs(float(naive.mean()) - 0.34) < 0.05  # 6 replicates of Bin(400, 0.34)/400


def test_summary_matches_a_hand_computation() -> None:
    ds = run_study(_spec(replicates=10), progressbar=False)
    table = summarize(ds)
    row = table[(table["estimator"] == "rogan_gladen_delta") & (table["theta"] == 0.7)].iloc[0]
    sel = ds.sel(estimator="rogan_gladen_delta", theta=0.7).isel(judge=0)
    covered = sel["covered"].to_numpy()
    c = covered.mean()
    assert row["n"] == 10
    assert row["coverage"] == pytest.approx(c)
    assert row["coverage_mcse"] == pytest.approx(np.sqrt(c * (1 - c) / 10))
    errors = sel["error"].to_numpy()
    assert row["mae"] == pytest.approx(np.abs(errors).mean())
    assert row["bias"] == pytest.approx(errors.mean())
    assert row["width"] == pytest.approx(sel["width"].to_numpy().mean())
    assert row["failed"] == 0
    assert row["undefined"] == 0


def test_undefined_estimates_are_counted_not_dropped() -> None:
    # a judge no better than chance: Rogan-Gladen has J_hat <= 0 in many replicates
    spec = _spec(grid={"theta": [0.5], "judge": [{"q0": 0.5, "q1": 0.52}]}, replicates=8)
    table = summarize(run_study(spec, progressbar=False))
    rg = table[table["estimator"] == "rogan_gladen_delta"].iloc[0]
    assert rg["undefined"] > 0
    assert rg["n"] + rg["undefined"] == 8


# --------------------------------------------------------------------------- resumption
def test_interrupted_study_resumes_without_recomputing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _spec()
    reference = run_study(spec, progressbar=False)
    real = studies._run_chunk
    calls: list[tuple[int, int, int]] = []

    def interrupted(spec_: StudySpec, scenario: int, start: int, stop: int) -> xr.Dataset:
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append((scenario, start, stop))
        return real(spec_, scenario, start, stop)

    monkeypatch.setattr(studies, "_run_chunk", interrupted)
    out = tmp_path / "study"
    with pytest.raises(KeyboardInterrupt):
        run_study(spec, out=out, progressbar=False)
    written = sorted(p.name for p in (out / "chunks").glob("*.nc"))
    assert len(written) == 3
    assert not (out / "results.nc").exists()
    started = read_manifest(out)  # marks the folder from the start
    assert started is not None
    assert started.kind == "study"
    assert not list(tmp_path.glob(".*"))  # the lock was released
    # a half-written temporary file of a killed run is ignored and cleaned up
    host = output._host_tag()
    killed = out / "chunks" / f".s00000_r0000004-0000006.nc.bayesjudge-tmp-{host}-1-0123abcd"
    killed.write_bytes(b"\x00garbage")
    mtimes = {p.name: p.stat().st_mtime_ns for p in (out / "chunks").glob("*.nc")}

    with pytest.raises(ValueError, match="already holds study 'tiny'; pass resume=True"):
        run_study(spec, out=out, progressbar=False)
    calls.clear()
    counted: list[tuple[int, int, int]] = []

    def counting(spec_: StudySpec, scenario: int, start: int, stop: int) -> xr.Dataset:
        counted.append((scenario, start, stop))
        return real(spec_, scenario, start, stop)

    monkeypatch.setattr(studies, "_run_chunk", counting)
    resumed = run_study(spec, out=out, resume=True, progressbar=False)
    assert len(counted) == len(study_chunks(spec)) - 3
    assert not set(counted) & {(0, 0, 2), (0, 2, 4), (0, 4, 6)}
    for name, mtime in mtimes.items():  # finished chunks were not rewritten
        assert (out / "chunks" / name).stat().st_mtime_ns == mtime
    assert not list((out / "chunks").glob(".*"))
    xr.testing.assert_identical(_values(resumed), _values(reference))
    xr.testing.assert_identical(_values(load_results(out)), _values(reference))
    assert (out / "summary.csv").read_text(encoding="utf-8").startswith("theta,judge,estimator")
    manifest = read_manifest(out)
    assert manifest is not None
    assert manifest.kind == "study"
    assert {"spec.json", "results.nc", "summary.csv"} <= set(manifest.files)
    assert len([f for f in manifest.files if f.startswith("chunks/")]) == len(study_chunks(spec))


def test_output_folder_of_another_study_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "study"
    run_study(_spec(replicates=2), out=out, progressbar=False)
    with pytest.raises(ValueError, match="holds a different study"):
        run_study(_spec(replicates=3), out=out, resume=True, progressbar=False)
    with pytest.raises(ValueError, match="started with chunk_size=2"):
        run_study(_spec(replicates=2, chunk_size=1), out=out, resume=True, progressbar=False)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(OutputError, match="not empty and was not written by bayesjudge"):
        run_study(_spec(), out=tmp_path / "other", progressbar=False)
    assert [p.name for p in (tmp_path / "other").iterdir()] == ["notes.txt"]


# --------------------------------------------------------------------------- the study folder
@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda p: p.write_text("precious"), "it is a regular file, not a folder"),
        (lambda p: write_manifest(_made(p), kind="report"), "holds a bayesjudge report"),
        (lambda p: (_made(p) / "notes.txt").write_text("mine"), "was not written by bayesjudge"),
    ],
    ids=["file", "report", "foreign"],
)
def test_a_study_folder_is_checked_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Any, match: str
) -> None:
    out = tmp_path / "out"
    make(out)
    before = _snapshot(tmp_path)
    monkeypatch.setattr(studies, "_run_chunk", _never)
    with pytest.raises(OutputError, match=match):
        run_study(_spec(), out=out, progressbar=False)
    assert _snapshot(tmp_path) == before


def test_a_study_folder_without_its_spec_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "study"
    run_study(_spec(replicates=2), out=out, progressbar=False)
    (out / "spec.json").unlink()
    with pytest.raises(ValueError, match=f"output folder {out} holds a study without its spec"):
        run_study(_spec(replicates=2), out=out, resume=True, progressbar=False)


def test_figures_are_checked_before_they_are_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bayesjudge.studies import plots

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a figure was drawn")

    monkeypatch.setattr(plots, "plot_mae", never)
    (tmp_path / "figures").write_text("mine")
    table = summarize(run_study(_spec(replicates=2), progressbar=False))
    with pytest.raises(OutputError, match="it is a regular file, not a folder"):
        plots.save_study_figures(table, tmp_path / "figures", name="x")
    assert (tmp_path / "figures").read_text() == "mine"


def test_a_damaged_chunk_is_computed_again_on_resume(tmp_path: Path) -> None:
    spec = _spec()
    out = tmp_path / "study"
    reference = run_study(spec, out=out, progressbar=False)
    chunks = sorted((out / "chunks").glob("*.nc"))
    truncated, garbage, foreign = chunks[1], chunks[2], chunks[3]
    truncated.write_bytes(truncated.read_bytes()[: truncated.stat().st_size // 2])
    garbage.write_bytes(b"\x00not a netcdf file")
    xr.Dataset({"x": ("replicate", [1.0])}, attrs={"fingerprint": spec.fingerprint()}).to_netcdf(
        foreign, engine="h5netcdf"
    )
    with pytest.warns(UserWarning, match="computed again") as caught:
        resumed = run_study(spec, out=out, resume=True, progressbar=False)
    messages = sorted(str(w.message) for w in caught)
    assert len(messages) == 3
    assert f"chunk file {truncated} cannot be read" in messages[0] + messages[1]
    assert f"chunk file {garbage} cannot be read" in messages[0] + messages[1]
    assert messages[2].startswith(f"chunk file {foreign} does not hold replicates")
    assert all(m.endswith("computed again") for m in messages)
    xr.testing.assert_identical(_values(resumed), _values(reference))
    for chunk in (truncated, garbage, foreign):  # rewritten whole
        with xr.open_dataset(chunk, engine="h5netcdf") as ds:
            assert ds.sizes["replicate"] == spec.chunk_size


def test_mcmc_must_be_a_table() -> None:
    with pytest.raises(ValueError, match=r"'mcmc' must be a table of NUTS settings .*got 5"):
        _spec(mcmc=5)


def test_an_unreachable_scheduler_fails_within_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("dask.distributed")
    assert studies._CONNECT_TIMEOUT <= 5  # the default: "a few seconds"
    monkeypatch.setattr(studies, "_CONNECT_TIMEOUT", 1.0)
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"scheduler 'tcp://127.0.0.1:1': cannot connect .* 1 s"):
        run_study(_spec(), scheduler="tcp://127.0.0.1:1", progressbar=False)
    assert time.monotonic() - start < 20  # 1 s of waiting, with room for a loaded machine
    spec = _toml(tmp_path, "s.toml")
    argv = ["study", str(spec), "--out", str(tmp_path / "out"), "--scheduler", "tcp://127.0.0.1:1"]
    assert main([*argv, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bayesjudge study: error: scheduler 'tcp://127.0.0.1:1': cannot")
    assert err.count("\n") == 1
    assert sorted(os.listdir(tmp_path)) == ["s.toml"]  # nothing was started


WORKERS = textwrap.dedent(
    """
    import os, sys, threading
    from pathlib import Path
    from bayesjudge.studies import runner

    def blocked(spec, scenario, start, stop):
        Path(os.environ["STUDY_SIGNALS"], str(os.getpid())).write_text("running")
        threading.Event().wait()

    if __name__ == "__main__":
        import signal
        from bayesjudge.cli.app import main

        signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started ignored
        runner._run_chunk = blocked
        sys.exit(main(["study", *sys.argv[1:], "--workers", "2", "--no-progress"]))
    """
)


def _gone(pid: int) -> bool:
    """True once ``pid`` has ended (a zombie nobody reaped counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in {"Z", "X"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("ending", ["kill", "interrupt"])
def test_a_running_study_holds_its_folder_and_its_workers_end_with_it(
    tmp_path: Path, ending: str
) -> None:
    script = tmp_path / "study.py"
    script.write_text(WORKERS)
    spec_file = _toml(tmp_path, "s.toml")
    signals = tmp_path / "signals"
    signals.mkdir()
    out = tmp_path / "out"
    parent = subprocess.Popen(
        [sys.executable, str(script), str(spec_file), "--out", str(out)],
        env={**os.environ, "STUDY_SIGNALS": str(signals)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + DEADLINE
        while len(workers) < 2 and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.05)
            workers = [int(p.name) for p in signals.iterdir()]
        assert len(workers) == 2, parent.stderr.read().decode() if parent.stderr else ""
        # the study folder is locked while the study runs
        with pytest.raises(OutputError, match="another bayesjudge run is writing it"):
            run_study(StudySpec.from_toml(spec_file), out=out, resume=True, progressbar=False)
        if ending == "kill":
            parent.kill()  # SIGKILL: no clean-up runs in the main process
            parent.wait(timeout=DEADLINE)
        else:  # Ctrl-C for the main process alone: it ends the workers, blocked as they are
            parent.send_signal(signal.SIGINT)
            _, stderr = parent.communicate(timeout=DEADLINE)
            assert parent.returncode == 130
            assert stderr == b"bayesjudge: interrupted\n"
        end = time.monotonic() + 10
        while not all(_gone(pid) for pid in workers) and time.monotonic() < end:
            time.sleep(0.05)
        assert all(_gone(pid) for pid in workers), "study workers outlived their main process"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for pid in workers:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)
    # the lock was released, by the kernel for a killed process: the study resumes
    done = run_study(StudySpec.from_toml(spec_file), out=out, resume=True, progressbar=False)
    assert done.sizes["replicate"] == 4


def _toml(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text(
        'name = "cli"\ndesign = "prevalence"\nreplicates = 4\nseed = 3\nchunk_size = 2\n'
        'estimators = ["naive", "rogan_gladen_lang_reiczigel"]\n'
        "[grid]\ntheta = [0.3, 0.6]\n[fixed]\nq0 = 0.8\nq1 = 0.9\nn = 300\nm1 = 30\nm0 = 30\n",
        encoding="utf-8",
    )
    return path


def _made(path: Path) -> Path:
    path.mkdir()
    return path


def _never(*args: object) -> xr.Dataset:
    raise AssertionError("a chunk was computed")


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(root).as_posix(): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


# --------------------------------------------------------------------------- Dask
def test_dask_local_cluster_gives_the_same_results() -> None:
    distributed = pytest.importorskip("dask.distributed")
    spec = _spec()
    local = run_study(spec, progressbar=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        remote = run_study(spec, scheduler=cluster.scheduler_address, progressbar=False)
    xr.testing.assert_identical(_values(local), _values(remote))


def test_scheduler_without_dask_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(ImportError, match=r"pip install bayesjudge\[studies\]"):
        run_study(_spec(), scheduler="tcp://127.0.0.1:1", progressbar=False)


# --------------------------------------------------------------------------- Bayesian fits
def test_nuts_replicates_reuse_one_compiled_model_and_match_exact() -> None:
    from bayesjudge.inference.cache import model_cache_info

    spec = _spec(
        estimators=["rogan_gladen_delta", "bayes_nuts", "bayes_exact"],
        replicates=4,
        exact_replicates=2,
        grid={"theta": [0.3], "judge": [{"q0": 0.85, "q1": 0.9}]},
    )
    run_study(_spec(estimators=["bayes_nuts"], replicates=1), progressbar=False)  # warm cache
    before = model_cache_info()
    ds = run_study(spec, progressbar=False)
    after = model_cache_info()
    assert after.builds == before.builds
    assert after.compiles == before.compiles
    assert after.hits - before.hits == 4  # one cached refit per replicate
    nuts = ds.sel(estimator="bayes_nuts")
    assert bool(np.isfinite(nuts["r_hat"]).all())
    assert bool(np.isfinite(nuts["ess_tail"]).all())
    expected = (
        (nuts["r_hat"] <= 1.01)
        & (nuts["ess_bulk"] >= 400)
        & (nuts["ess_tail"] >= 400)
        & (nuts["divergences"] == 0)
    )
    assert bool((nuts["passed"] == expected).all())
    # same chunking-independence for MCMC replicates
    rechunked = run_study(replace_chunk(spec, 1), progressbar=False)
    xr.testing.assert_identical(_values(ds), _values(rechunked))
    check = exact_check(ds)
    assert len(check) == 2  # bayes_exact ran on replicates 0 and 1 only
    assert int(summarize(ds).query("estimator == 'bayes_exact'")["n"].iloc[0]) == 2
    # NUTS posterior means agree with the exact ones within 4 Monte Carlo standard errors
    assert (check["z"].abs() < 4).all()
    assert (check[["low_diff_sd", "high_diff_sd"]].abs() < 0.25).all().all()


def replace_chunk(spec: StudySpec, chunk_size: int) -> StudySpec:
    return StudySpec.from_dict({**spec.to_dict(), "chunk_size": chunk_size})


def test_failing_fits_are_counted_and_kept() -> None:
    spec = _spec(
        estimators=["bayes_nuts"],
        replicates=3,
        grid={"theta": [0.4]},
        fixed={**FIXED, "q0": 0.8, "q1": 0.9},
        mcmc={"draws": 30, "tune": 30, "chains": 2},
    )
    ds = run_study(spec, progressbar=False)
    table = summarize(ds)
    # 60 draws cannot reach a bulk ESS of 400: every replicate fails, none is dropped
    assert int(table["failed"].iloc[0]) == 3
    assert int(table["n"].iloc[0]) == 3
    assert bool(np.isfinite(ds["estimate"]).all())
    assert not bool(ds["passed"].any())


@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
def test_replicate_diagnostics_equal_check_fit_on_a_fit() -> None:
    """The study's vectorised R-hat and ESS are check_fit's numbers (tolerance 1e-10)."""
    from bayesjudge.inference.diagnostics import check_fit
    from bayesjudge.prevalence.data import JudgeCounts
    from bayesjudge.prevalence.fit import fit_prevalence

    names = ["pi", "se", "sp"]
    stacked = []
    expected = []
    for seed, counts in enumerate(
        [
            JudgeCounts(m1=100, x1=90, m0=100, x0=28, n=1000, k=660),
            JudgeCounts(m1=40, x1=30, m0=40, x0=9, n=400, k=40),  # pi near 0
        ]
    ):
        tree = fit_prevalence(
            counts,
            draws=400,
            tune=300,
            chains=4,
            random_seed=seed,
            progressbar=False,
            escalate=False,
        )
        diagnostics = check_fit(tree, var_names=names)
        expected.append((diagnostics.r_hat_max, diagnostics.ess_bulk_min, diagnostics.ess_tail_min))
        stacked.append(np.stack([tree["posterior"][v].to_numpy() for v in names]))
    got = np.stack(studies._convergence(np.stack(stacked)), axis=1)
    np.testing.assert_allclose(got, np.array(expected), rtol=0, atol=1e-10)


def _ar1(rng: np.random.Generator, phi: float, chains: int, n: int) -> np.ndarray:
    x = np.zeros((chains, n))
    noise = rng.normal(size=(chains, n))
    for t in range(1, n):
        x[:, t] = phi * x[:, t - 1] + noise[:, t]
    return x


def test_replicate_diagnostics_equal_arviz_stats_on_hard_cases() -> None:
    """Per variable, equal to arviz_stats' array functions (1e-10 relative) on edge cases."""
    from arviz_stats.base import array_stats

    rng = np.random.default_rng(5)
    normal = rng.normal(size=(4, 300))
    cases = {
        "slow mixing": _ar1(rng, 0.99, 4, 300),  # long Geyer sequence, monotone caps
        "antithetic": _ar1(rng, -0.7, 4, 300),  # negative lag-1 autocorrelation
        "ties": rng.integers(0, 3, size=(4, 300)).astype(float),
        "constant": np.full((4, 300), 0.3),  # ESS = size, R-hat NaN
        "stuck chain": np.vstack([np.full((1, 300), 2.0), normal[1:]]),
        "shifted chain": normal + np.array([0.0, 0.0, 0.0, 3.0])[:, None],
        "odd draws": _ar1(rng, 0.9, 3, 77)[:, :77],
        "four draws": normal[:, :4],
        "one chain": normal[:1],  # R-hat NaN (needs 2 chains), ESS defined
        "a NaN": np.where(np.arange(300) == 7, np.nan, normal),  # all NaN
    }
    axes = {"chain_axis": -2, "draw_axis": -1}
    for label, x in cases.items():
        with np.errstate(all="ignore"):
            got = [float(v[0]) for v in studies._convergence(x[None, None])]
            want = [
                float(array_stats.rhat(x, method="rank", **axes)),
                float(array_stats.ess(x, method="bulk", **axes)),
                float(array_stats.ess(x, method="tail", prob=TAIL_ESS_PROB, **axes)),
            ]
        np.testing.assert_allclose(got, want, rtol=1e-10, equal_nan=True, err_msg=label)
    assert [float(v[0]) for v in studies._convergence(normal[None, None, :, :3])] == [
        pytest.approx(np.nan, nan_ok=True)
    ] * 3  # fewer than 4 draws: unknown, so the replicate fails


@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
def test_study_nuts_draws_are_fit_prevalence_draws() -> None:
    """The study's raw-trace fit is fit_prevalence with the replicate's seed, draw for draw."""
    from bayesjudge.prevalence.data import JudgeCounts
    from bayesjudge.prevalence.fit import fit_prevalence

    spec = _spec(estimators=["bayes_nuts"], mcmc={"draws": 200, "tune": 100, "chains": 2})
    counts = JudgeCounts(m1=40, x1=35, m0=40, x0=6, n=400, k=170)
    row, draws, divergences = studies._nuts_prevalence(counts, spec, 1234)
    tree = fit_prevalence(
        counts, draws=200, tune=100, chains=2, random_seed=1234, progressbar=False, escalate=False
    )
    posterior = tree["posterior"]
    for index, name in enumerate(["pi", "se", "sp"]):
        np.testing.assert_array_equal(draws[index], posterior[name].to_numpy())
    assert divergences == int(tree["sample_stats"]["diverging"].sum())
    pi = posterior["pi"].to_numpy().reshape(-1)
    assert row["estimate"] == pytest.approx(float(pi.mean()), abs=1e-15)
    assert row["low"] == pytest.approx(float(np.quantile(pi, 0.025)), abs=1e-15)


def test_exact_check_needs_both_estimators() -> None:
    ds = run_study(_spec(replicates=1), progressbar=False)
    with pytest.raises(ValueError, match="needs estimators 'bayes_nuts' and 'bayes_exact'"):
        exact_check(ds)


# --------------------------------------------------------------------------- CLI
def _cli(argv: list[str]) -> int:
    return main(argv)


def test_cli_runs_a_toml_spec_and_prints_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(
        'name = "cli"\ndesign = "prevalence"\nreplicates = 4\nseed = 3\n'
        'estimators = ["naive", "rogan_gladen_lang_reiczigel"]\n'
        "[grid]\ntheta = [0.3, 0.6]\n[fixed]\nq0 = 0.8\nq1 = 0.9\nn = 300\nm1 = 30\nm0 = 30\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    code = _cli(["study", str(spec), "--out", str(out), "--json", "--no-progress"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    assert payload["study"] == "cli"
    assert payload["failed"] == 0
    assert len(payload["summary"]) == 4
    assert (out / "results.nc").exists()
    # running again without --resume is bad input; with --resume it reuses every chunk
    assert _cli(["study", str(spec), "--out", str(out), "--no-progress"]) == 2
    assert "pass resume=True (--resume)" in capsys.readouterr().err
    assert _cli(["study", str(spec), "--out", str(out), "--resume", "--no-progress"]) == 0
    assert "study cli: 4 replicates per scenario" in capsys.readouterr().out


def test_cli_bad_spec_and_quick_on_toml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(["study", "nonsense", "--out", str(tmp_path / "x")]) == 2
    assert "built-in study ['lee2025', 'bakeoff'] or a TOML file" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "b"\ndesign = "prevalence"\n', encoding="utf-8")
    assert _cli(["study", str(bad)]) == 2
    assert "lacks the required setting(s)" in capsys.readouterr().err
    spec = tmp_path / "ok.toml"
    spec.write_text(
        bad.read_text() + 'replicates = 1\nestimators = ["naive"]\n[grid]\ntheta=[0.5]\n'
        "[fixed]\nq0=0.8\nq1=0.9\nn=10\nm1=5\nm0=5\n",
        encoding="utf-8",
    )
    assert _cli(["study", str(spec), "--quick"]) == 2
    assert "--quick applies to the built-in studies only" in capsys.readouterr().err


def test_cli_figures_option_writes_the_three_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "fig.toml"
    spec.write_text(
        'name = "fig"\ndesign = "prevalence"\nreplicates = 3\nseed = 1\n'
        'estimators = ["naive", "rogan_gladen_delta"]\n'
        "[grid]\ntheta = [0.3, 0.6]\njudge = [{q0 = 0.8, q1 = 0.9}, {q0 = 0.9, q1 = 0.9}]\n"
        "[fixed]\nn = 200\nm1 = 20\nm0 = 20\n",
        encoding="utf-8",
    )
    figures = tmp_path / "figures"
    code = _cli(
        ["study", str(spec), "--out", str(tmp_path / "o"), "--figures", str(figures), "--json"]
    )
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    names = sorted(p.name for p in figures.glob("*.png"))
    assert names == ["study_fig_coverage.png", "study_fig_mae.png", "study_fig_width.png"]
    assert sorted(Path(p).name for p in payload["figures"]) == names
    assert all((figures / n).read_bytes().startswith(b"\x89PNG") for n in names)


# --------------------------------------------------------------------------- plots
def test_plots_return_figures() -> None:
    from matplotlib.figure import Figure

    from bayesjudge.studies.plots import plot_coverage, plot_mae, plot_width_vs_j

    spec = _spec(
        grid={"theta": [0.2, 0.7], "judge": [{"q0": 0.8, "q1": 0.9}, {"q0": 0.7, "q1": 0.7}]}
    )
    table = summarize(run_study(spec, progressbar=False))
    fig = plot_coverage(table)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    lines = plot_width_vs_j(table).axes[0].get_lines()
    assert len(lines) == len(BASELINES)
    np.testing.assert_allclose(lines[0].get_xdata(), [0.4, 0.7])
    assert isinstance(plot_mae(table), Figure)
    with pytest.raises(ValueError, match=r"estimators \['oracle'\] are not in the summary"):
        plot_mae(table, estimators=["oracle"])


# --------------------------------------------------------------------------- slow
@pytest.mark.slow
def test_bayesian_interval_coverage_is_nominal() -> None:
    spec = StudySpec.from_dict(
        {
            "name": "coverage",
            "design": "prevalence",
            "replicates": 300,
            "seed": 2026,
            "chunk_size": 50,
            "estimators": ["rogan_gladen_lang_reiczigel", "bayes_nuts"],
            "grid": {"theta": [0.2, 0.5, 0.8]},
            "fixed": {"q0": 0.7, "q1": 0.9, "n": 1000, "m1": 100, "m0": 100},
        }
    )
    table = summarize(run_study(spec, workers=2, progressbar=False))
    for _, row in table.iterrows():
        # 300 replicates: Monte Carlo sd of a 95 % coverage is 0.0126; allow 3 sd
        assert abs(row["coverage"] - 0.95) < 3 * 0.0126, row.to_dict()
