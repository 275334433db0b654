"""Notebooks are documentation that runs: each is executed here with short sampler settings."""

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

#: The line a costly notebook shows its tuning steps on (``TUNE = 1000  # ...``).
TUNE_LINE = re.compile(r"^TUNE = \d+(?=\s|$)", re.MULTILINE)

#: Notebook -> (draws, tuning steps or None) per chain it is executed with here, for the notebooks
#: whose fits cost the most. Each is a setting under which every fit of the notebook passed its
#: checks at the first attempt: fewer draws cost more, since a fit that fails its checks is
#: sampled again, longer (benchmarks/results/ci_time.md). A notebook given tuning steps shows
#: them as one ``TUNE = N`` line; None leaves its tuning as it is.
SETTINGS: dict[str, tuple[int, int | None]] = {
    "panels.ipynb": (500, 500),
    "systems.ipynb": (1000, None),
}

#: The notebooks whose tuning the test shortens.
TUNED = sorted(name for name, (_, tune) in SETTINGS.items() if tune is not None)

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


def with_test_tune(notebook: nbformat.NotebookNode, tune: int) -> int:
    """Replace the notebook's ``TUNE = N`` line by ``TUNE = tune`` in place; return the count.

    Raises
    ------
    AssertionError
        When the notebook has no such line, or more than one.
    """
    found = 0
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.source, n = TUNE_LINE.subn(f"TUNE = {tune}", cell.source)
            found += n
    assert found == 1, (
        f"expected exactly one line 'TUNE = N' in the notebook's code cells, found {found}: "
        "the test substitutes its short tuning for that line"
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


def test_tune_substitution_refuses_a_notebook_without_the_line():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("DRAWS = 2000")])
    with pytest.raises(AssertionError, match=r"exactly one line 'TUNE = N'.*found 0"):
        with_test_tune(notebook, 10)
    notebook.cells.append(nbformat.v4.new_code_cell("DRAWS = 2000\nTUNE = 1000  # per chain"))
    assert with_test_tune(notebook, 10) == 1
    assert notebook.cells[1].source == "DRAWS = 2000\nTUNE = 10  # per chain"
    notebook.cells.append(nbformat.v4.new_code_cell("TUNE = 1000"))
    with pytest.raises(AssertionError, match="found 2"):
        with_test_tune(notebook, 10)


@pytest.mark.parametrize("name", TUNED)
def test_costly_notebooks_pass_their_tuning_to_every_fit(name):
    # the test's short tuning reaches a fit only through TUNE: each call that takes
    # draws=DRAWS takes tune=TUNE too
    code = "\n".join(c.source for c in BUILD.NOTEBOOKS[name]().cells if c.cell_type == "code")
    assert len(TUNE_LINE.findall(code)) == 1
    assert code.count("draws=DRAWS") >= 1
    assert code.count("draws=DRAWS") == code.count("tune=TUNE")


@pytest.mark.parametrize("name", sorted(BUILD.NOTEBOOKS))
def test_notebook_executes(name, tmp_path):
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    draws, tune = SETTINGS.get(name, (TEST_DRAWS, None))
    with_test_draws(notebook, draws)
    if tune is not None:
        with_test_tune(notebook, tune)
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
