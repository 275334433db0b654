"""Write the notebooks from their cell sources; the test suite executes them.

Each ``nb_*.py`` module beside this file defines ``NAME`` (the notebook file) and ``cells()``.
Notebooks are committed with outputs; their sources stay reviewable as Python. Each notebook
that fits a model shows its draw count as one line ``DRAWS = N`` (the full count, used here);
the test suite substitutes its own count for that line in its own copy. A notebook whose fit
passes its checks with shorter tuning (panels) shows its tuning steps the same way, as one line
``TUNE = N``, which the test suite shortens too. To refresh one::

    python notebooks/_build.py prevalence.ipynb --execute
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import nbformat
from nbformat.v4 import new_notebook

HERE = Path(__file__).resolve().parent


def _load(path: Path) -> tuple[str, Callable[[], list[nbformat.NotebookNode]]]:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.NAME, module.cells


def _formatted(source: str) -> str:
    """Return a code cell's source as ``ruff format`` leaves it (the lint step checks notebooks)."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", "cell.py", "-"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
        cwd=HERE.parent,  # the project's ruff settings, wherever the script is run from
    )
    return result.stdout.rstrip("\n")


def _notebook(cells: Callable[[], list[nbformat.NotebookNode]]) -> nbformat.NotebookNode:
    notebook = new_notebook(cells=cells())
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.source = _formatted(cell.source)
    notebook.metadata["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
    return notebook


#: Notebook file name -> function building the notebook (without outputs).
NOTEBOOKS = {
    name: (lambda cells=cells: _notebook(cells))
    for name, cells in map(_load, sorted(HERE.glob("nb_*.py")))
}


def main() -> None:
    """Write (and optionally execute) the notebooks named on the command line, or all."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="notebook files; all when omitted")
    parser.add_argument("--execute", action="store_true", help="execute and store outputs")
    args = parser.parse_args()
    for name in args.names or sorted(NOTEBOOKS):
        notebook = NOTEBOOKS[name]()
        if args.execute:
            from nbclient import NotebookClient

            NotebookClient(
                notebook,
                timeout=1200,
                kernel_name="python3",
                resources={"metadata": {"path": HERE}},
            ).execute()
        nbformat.write(notebook, HERE / name)
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
