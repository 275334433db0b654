"""The benchmarks folder a newcomer can follow: an index naming every script and result, results
that record their provenance, and a quick set that names scripts which exist."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
INDEX = (BENCHMARKS / "README.md").read_text(encoding="utf-8")


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tracked(folder: Path) -> list[Path]:
    """Files under ``folder`` that git tracks (a local quick run's results are not)."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--", str(folder)],
        cwd=BENCHMARKS.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    return [BENCHMARKS.parent / name for name in out.stdout.split("\0") if name]


def test_index_names_every_script():
    scripts = sorted(path.name for path in BENCHMARKS.glob("*.py"))
    assert scripts, "no benchmark scripts found"
    missing = [name for name in scripts if f"`{name}`" not in INDEX]
    assert not missing, f"benchmarks/README.md does not list {missing}"


def test_index_names_every_result_and_each_record_its_provenance():
    results = [p for p in _tracked(BENCHMARKS / "results") if p.suffix in {".md", ".csv"}]
    assert results
    unnamed = [p.name for p in results if p.name not in INDEX]
    assert not unnamed, f"benchmarks/README.md does not name {unnamed}"
    for path in results:
        if path.suffix == ".md":
            head = path.read_text(encoding="utf-8")[:2000]
            assert re.search(r"^- commit: ", head, re.MULTILINE), f"{path.name} has no commit line"
            assert re.search(r"command:|Command|python benchmarks/", head), (
                f"{path.name} has no command"
            )


def test_quick_set_names_scripts_that_exist_and_the_index_times_it():
    run = _module("run")
    assert run.QUICK
    for name in run.QUICK:
        assert (BENCHMARKS / f"{name}.py").exists(), name
        assert f"`{name}.py" in INDEX.split("## The quick set", 1)[1], name
    with pytest.raises(SystemExit):
        run.main(["--quick", "no_such_benchmark"])


def test_write_result_adds_the_provenance_block(tmp_path: Path, monkeypatch):
    record = _module("_record")
    monkeypatch.setattr(sys, "argv", [str(BENCHMARKS / "bench_x.py"), "--sizes", "10"])
    path = record.write_result(tmp_path / "x.md", "# Title\n\nbody line\n")
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "# Title"
    assert lines[2] == "- command: `python benchmarks/bench_x.py --sizes 10`"
    assert re.fullmatch(r"- commit: [0-9a-f]{12}( with uncommitted changes)?", lines[3])
    assert re.fullmatch(r"- date: \d{4}-\d\d-\d\d \d\d:\d\d UTC", lines[4])
    assert lines[5].startswith("- machine: ")
    assert re.fullmatch(
        r"- load average at the end \(1, 5, 15 min\): [\d.]+, [\d.]+, [\d.]+", lines[6]
    )
    assert text.endswith("body line\n")
    # record() writes <name>.md in the results folder with the command it is given
    monkeypatch.setattr(record, "RESULTS", tmp_path)
    written = record.record("y", "Y", "python benchmarks/y.py", "rows")
    assert written == tmp_path / "y.md"
    assert "- command: `python benchmarks/y.py`" in written.read_text(encoding="utf-8")
