"""Notebooks are documentation that runs: each is executed here with small draw counts."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def _builder():
    spec = importlib.util.spec_from_file_location("notebook_build", NOTEBOOKS / "_build.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD = _builder()


@pytest.mark.parametrize("name", sorted(BUILD.NOTEBOOKS))
def test_committed_notebook_matches_its_source_and_has_outputs(name):
    committed = nbformat.read(NOTEBOOKS / name, as_version=4)
    fresh = BUILD.NOTEBOOKS[name]()
    assert [c.source for c in committed.cells] == [c.source for c in fresh.cells], (
        f"{name} differs from notebooks/_build.py: rerun the build script and re-execute"
    )
    code = [c for c in committed.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code), f"{name} is committed without outputs"


@pytest.mark.parametrize("name", sorted(BUILD.NOTEBOOKS))
def test_notebook_executes(name, tmp_path, monkeypatch):
    monkeypatch.setenv("BAYESJUDGE_NB_DRAWS", os.environ.get("BAYESJUDGE_NB_DRAWS", "500"))
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    client.execute()
    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors
