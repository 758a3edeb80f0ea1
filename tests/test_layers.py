"""The engine's modules form layers: no import cycle, and lower layers never import upper ones.

The import graph is read with `ast` from every module of `scripts/acp_docs`,
imports inside functions included (a lazy import hides a cycle; it does not
remove it).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "scripts" / "acp_docs"

ORDER = (
    "core",
    "sources",
    "schemalib",
    "config",
    "patches",
    "markdown",
    "policy",
    "diagrams",
    "schema",
    "requirements",
    "rfds",
    "validation",
    "checks",
    "upstream",
    "trace",
    "conform",
    "prompt_suggestions",
    "reporters",
    "authoring",
    "mkdocs",
    "cli",
)
"""The packages from the lowest up: a package imports only packages before it (and itself)."""

LOWER = ORDER[: ORDER.index("checks")]
"""The layers that know nothing of how findings are shown or how the engine is driven."""
UPPER = ("reporters", "cli", "mkdocs")


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _target(name: str, modules: dict[str, Path]) -> str | None:
    """The module of `modules` that importing `name` runs last (a name inside it: its module)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Each module of `package` -> the modules of `package` it imports, anywhere in its code."""
    modules = _modules(package)
    root = package.name
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        edges: set[str] = set()
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = module.split(".")
                    anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                    base = ".".join([*anchor, *([base] if base else [])])
                names = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            for name in names:
                if name == root or name.startswith(root + "."):
                    target = _target(name, modules)
                    if target is not None and target != module:
                        edges.add(target)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of `graph` with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_graph_sees_imports_inside_functions(tmp_path: Path) -> None:
    package = tmp_path / "acp_docs"
    (package / "low").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "low" / "__init__.py").write_text("")
    (package / "low" / "a.py").write_text("def f():\n    from acp_docs.low import b\n")
    (package / "low" / "b.py").write_text("from acp_docs.low.a import f\n")
    (package / "low" / "c.py").write_text("from . import a\n")
    graph = import_graph(package)
    assert graph["acp_docs.low.a"] == {"acp_docs.low.b"}
    assert graph["acp_docs.low.c"] == {"acp_docs.low.a"}
    assert cycles(graph) == [["acp_docs.low.a", "acp_docs.low.b"]]


@functools.cache
def _engine_graph() -> dict[str, set[str]]:
    """The engine's own import graph, read once for the tests that only look at it."""
    return import_graph()


def test_no_import_cycle() -> None:
    found = cycles(_engine_graph())
    assert found == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_lower_layers_never_import_upper_ones() -> None:
    offending = sorted(
        f"{module} imports {target}"
        for module, targets in _engine_graph().items()
        if _layer(module) in LOWER
        for target in targets
        if _layer(target) in UPPER
    )
    assert offending == [], "\n".join(offending)


def test_every_package_imports_only_packages_below_it() -> None:
    packages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    assert packages == set(ORDER), "a new package needs its place in ORDER"
    upward = sorted(
        f"{module} imports {target}"
        for module, targets in _engine_graph().items()
        if _layer(module) in ORDER
        for target in targets
        if _layer(target) in ORDER and ORDER.index(_layer(target)) > ORDER.index(_layer(module))
    )
    assert upward == [], "\n".join(upward)
