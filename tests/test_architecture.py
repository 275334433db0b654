"""The layering of docs/architecture.md, checked over every import in the package.

Every ``import`` and ``from ... import`` statement of ``bayesjudge/`` and ``models/`` is read
with :mod:`ast` (function-level imports and ``TYPE_CHECKING`` blocks included), and:

* the shared layers (everything that is not a family, ``models`` or ``cli/app.py``) never
  import a model family or the command-line app;
* a family imports another family only through that family's package (its public names), never
  its modules;
* no module imports itself through a cycle of module-level imports.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FAMILIES = ("prevalence", "gates", "channels", "studies", "systems", "panels")


def _module_name(path: Path) -> str:
    relative = path.relative_to(REPO).with_suffix("")
    parts = list(relative.parts)
    if parts[0] == "models":
        parts = ["bayesjudge", *parts]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    files = [*(REPO / "bayesjudge").rglob("*.py"), *(REPO / "models").rglob("*.py")]
    return {_module_name(path): path for path in files}


def _imports(path: Path, module: str, *, top_level_only: bool) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST, top: bool) -> None:
        typing_only = isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        if typing_only and top_level_only:
            return
        if isinstance(node, ast.Import):
            if top or not top_level_only:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (top or not top_level_only):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.add(name)
            # `from bayesjudge.x import y` may import the module bayesjudge.x.y
            found.update(f"{name}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            inner = top and not isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
            )
            visit(child, inner)

    visit(tree, True)
    return {name for name in found if name.startswith("bayesjudge")}


SOURCES = _sources()


def _unit(module: str) -> str:
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in FAMILIES:
        return parts[1]
    if len(parts) >= 2 and parts[1] == "models":
        return "models"
    if module.startswith(("bayesjudge.cli.app", "bayesjudge.__main__")):
        return "app"
    return "core"


def _existing(name: str) -> str | None:
    """Return the module an imported name refers to (a name inside a module maps to it)."""
    while name:
        if name in SOURCES:
            return name
        if "." not in name:
            return None
        name = name.rsplit(".", 1)[0]
    return None


@pytest.mark.parametrize("module", sorted(SOURCES))
def test_layering(module: str) -> None:
    unit = _unit(module)
    for imported in _imports(SOURCES[module], module, top_level_only=False):
        target = _existing(imported)
        if target is None or target == module:
            continue
        other = _unit(target)
        if unit == "core":
            assert other == "core", f"{module} (shared layer) imports {target} ({other})"
        if unit in FAMILIES and other in FAMILIES and other != unit:
            assert target == f"bayesjudge.{other}", (
                f"{module} imports {target}, an internal module of the {other} family; import "
                f"its public names from bayesjudge.{other} instead"
            )


def test_no_import_cycles() -> None:
    graph = {
        module: {
            target
            for name in _imports(path, module, top_level_only=True)
            if (target := _existing(name)) is not None and target != module
        }
        for module, path in SOURCES.items()
    }
    # a package's own __init__ importing its submodules is how packages work; only cycles
    # through a module's top-level imports matter
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    # the import reader finds function-level imports and resolves relative ones
    source = tmp_path / "example.py"
    source.write_text(
        "from . import sibling\n"
        "def f():\n"
        "    from bayesjudge.prevalence.fit import fit_prevalence\n"
    )
    found = _imports(source, "bayesjudge.inference.example", top_level_only=False)
    assert "bayesjudge.prevalence.fit" in found
    assert "bayesjudge.inference.sibling" in found
    assert _unit("bayesjudge.inference.example") == "core"
    assert _unit("bayesjudge.prevalence.fit") == "prevalence"
    assert not _imports(source, "bayesjudge.inference.example", top_level_only=True) & {
        "bayesjudge.prevalence.fit"
    }


_REFERENCE = re.compile(r"\bbayesjudge(?:\.[A-Za-z_]\w*)+")
# names that stand for a module on purpose (the checker's own examples, a patch target that
# need not exist)
_PLACEHOLDERS = frozenset(
    {
        "bayesjudge.x",
        "bayesjudge.x.y",
        "bayesjudge.inference.example",
        "bayesjudge.inference.sibling",
        "bayesjudge.io.tables.open",
    }
)


def _resolves(reference: str) -> bool:
    """Whether a dotted reference names a module of the package or an attribute of one."""
    parts = reference.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(target, name):
                return False
            target = getattr(target, name)
        return True
    return False


def test_every_dotted_reference_resolves() -> None:
    # docstrings and comments of the package, the tests and the benchmark scripts name modules
    # and functions that exist (a module renamed in a refactor leaves none behind)
    files = [
        *(REPO / "bayesjudge").rglob("*.py"),
        *(REPO / "models").rglob("*.py"),
        *(REPO / "tests").rglob("*.py"),
        *(REPO / "benchmarks").glob("*.py"),
    ]
    broken = sorted(
        f"{path.relative_to(REPO)}: {reference}"
        for path in files
        for reference in set(_REFERENCE.findall(path.read_text(encoding="utf-8")))
        if reference not in _PLACEHOLDERS
        and "__main__" not in reference
        and not _resolves(reference)
    )
    assert not broken, "names that do not exist:\n" + "\n".join(broken)
