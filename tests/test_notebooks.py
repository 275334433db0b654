"""Notebooks are documentation that runs: each is executed here with small draw counts."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

#: The line a notebook shows its draw count on (``DRAWS = 2000  # ...``); the test substitutes a
#: small count for the number.
DRAWS_LINE = re.compile(r"^DRAWS = \d+(?=\s|$)", re.MULTILINE)

#: Draws per chain the notebooks are executed with here.
TEST_DRAWS = 500

#: Text a reader must not see: test plumbing, internal names, the old citation.
HIDDEN = ("BAYESJUDGE_NB", "os.environ", "judged_rate_z", "anonymous, under review")


def _builder():
    spec = importlib.util.spec_from_file_location("notebook_build", NOTEBOOKS / "_build.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD = _builder()


def with_test_draws(notebook: nbformat.NotebookNode, draws: int = TEST_DRAWS) -> int:
    """Replace the notebook's ``DRAWS = N`` line by ``DRAWS = draws`` in place; return the count.

    Raises
    ------
    AssertionError
        When the notebook has no such line, or more than one: the substitution would silently
        stop shortening the test run.
    """
    found = 0
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.source, n = DRAWS_LINE.subn(f"DRAWS = {draws}", cell.source)
            found += n
    assert found == 1, (
        f"expected exactly one line 'DRAWS = N' in the notebook's code cells, found {found}: "
        "the test substitutes its small draw count for that line"
    )
    return found


def _visible_text(notebook: nbformat.NotebookNode) -> str:
    """Return every cell source and every text output of the notebook, joined."""
    parts = []
    for cell in notebook.cells:
        parts.append(cell.source)
        for output in cell.get("outputs", []):
            parts.append(str(output.get("text", "")))
            parts.extend(str(v) for v in output.get("data", {}).values())
    return "\n".join(parts)


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
def test_committed_notebook_shows_no_plumbing_or_internal_names(name):
    text = _visible_text(nbformat.read(NOTEBOOKS / name, as_version=4))
    assert not [word for word in HIDDEN if word in text]
    code = "\n".join(c.source for c in BUILD.NOTEBOOKS[name]().cells if c.cell_type == "code")
    assert not re.findall(r"\b_[A-Za-z]\w*", code), "a private name in a code cell"


def test_draws_substitution_refuses_a_notebook_without_the_line():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("DRAWS = int('9')")])
    with pytest.raises(AssertionError, match=r"exactly one line 'DRAWS = N'.*found 0"):
        with_test_draws(notebook)
    notebook.cells.append(nbformat.v4.new_code_cell("x = 1\nDRAWS = 2000  # per chain\ny = 2"))
    assert with_test_draws(notebook) == 1
    assert notebook.cells[1].source == f"x = 1\nDRAWS = {TEST_DRAWS}  # per chain\ny = 2"
    notebook.cells.append(nbformat.v4.new_code_cell("DRAWS = 1000"))
    with pytest.raises(AssertionError, match="found 2"):
        with_test_draws(notebook)


@pytest.mark.parametrize("name", sorted(BUILD.NOTEBOOKS))
def test_notebook_executes(name, tmp_path):
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    with_test_draws(notebook)
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
