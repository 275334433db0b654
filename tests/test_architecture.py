"""The layering of docs/architecture.md, checked over every import in the package.

Every ``import`` and ``from ... import`` statement of ``bayesjudge/`` and ``models/`` is read
with :mod:`ast` (function-level imports and ``TYPE_CHECKING`` blocks included), and:

* the shared layers (everything that is not a family, ``models`` or ``cli/app.py``) never
  import a model family or the command-line app;
* a family imports another family only through that family's package (its public names), never
  its modules;
* no module imports itself through a cycle of imports, counting every import: module level,
  inside functions and inside ``TYPE_CHECKING`` blocks (a package's ``__init__`` re-exporting
  its modules is the one edge left out: see :func:`_import_graph`).

``bayesjudge.reporting.write`` (the one report writer) sits above the families, like the
command-line app: it asks each family's report module for its content.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FAMILIES = ("prevalence", "gates", "channels", "studies", "systems", "panels", "batches")


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
    root = module.split(".")[0]  # the package's own imports only
    return {name for name in found if name == root or name.startswith(f"{root}.")}


SOURCES = _sources()


def _unit(module: str) -> str:
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in FAMILIES:
        return parts[1]
    if len(parts) >= 2 and parts[1] == "models":
        return "models"
    if module.startswith(
        ("bayesjudge.cli.app", "bayesjudge.__main__", "bayesjudge.reporting.write")
    ):
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


def _import_graph(sources: dict[str, Path]) -> dict[str, set[str]]:
    """Return each module's imports of other modules of ``sources``, wherever they stand.

    A package's ``__init__`` importing one of its own modules is left out: that is how a
    package re-exports its names, and the module importing a name of its package would
    otherwise make every such pair a cycle.
    """

    def existing(name: str) -> str | None:
        while name:
            if name in sources:
                return name
            if "." not in name:
                return None
            name = name.rsplit(".", 1)[0]
        return None

    graph: dict[str, set[str]] = {}
    for module, path in sources.items():
        targets = {existing(name) for name in _imports(path, module, top_level_only=False)}
        package = path.name == "__init__.py"
        graph[module] = {
            t
            for t in targets
            if t is not None and t != module and not (package and t.startswith(f"{module}."))
        }
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return one cycle through each strongly connected set of modules (Tarjan, 1972)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            members: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                members.append(top)
                if top == node:
                    break
            if len(members) > 1:
                found.append(_path_through(graph, sorted(members)))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def _path_through(graph: dict[str, set[str]], members: list[str]) -> list[str]:
    """Return a cycle from the first of ``members`` back to it, inside ``members``."""
    start, inside = members[0], set(members)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node] & inside):
            if nxt == start:
                return [*paths[node], start]
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    return members


def test_no_import_cycles() -> None:
    cycles = _cycles(_import_graph(SOURCES))
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("def f():\n    from pkg.b import g\n", ["pkg.a", "pkg.b", "pkg.a"]),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import g\n", None),
        ("class C:\n    def m(self):\n        from . import b\n", None),
        ("x = 1\n", []),
    ],
    ids=["in-function", "type-checking", "relative-in-method", "no-import"],
)
def test_the_cycle_check_sees_a_planted_cycle(
    tmp_path: Path, where: str, expected: list[str] | None
) -> None:
    # pkg.b imports pkg.a at module level; pkg.a imports pkg.b wherever ``where`` puts it
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg.a import f\n")
    (package / "a.py").write_text(where)
    (package / "b.py").write_text("from pkg.a import f\n")
    sources = {"pkg": package / "__init__.py", "pkg.a": package / "a.py", "pkg.b": package / "b.py"}
    graph = _import_graph(sources)
    cycles = _cycles(graph)
    if expected == []:
        assert cycles == []
    else:
        assert cycles == [expected or ["pkg.a", "pkg.b", "pkg.a"]]


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
