"""The API reference of a Python package, read with `ast` (nothing is imported or run).

Each module becomes a section: its docstring, then every public class and
function with its signature and docstring, in source order. Docstrings are
Markdown prose whose raw HTML is shown as text. Reading the source is cheap,
so the reference page costs the build a few milliseconds.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path

from acp_docs.core.errors import UsageError
from acp_docs.core.escaping import prose
from acp_docs.sources import filetree
from acp_docs.sources.textfile import read_text


@dataclass(frozen=True)
class Member:
    """A public class or function: its name, signature line and docstring."""

    name: str
    signature: str
    doc: str
    methods: tuple[Member, ...] = ()


@dataclass(frozen=True)
class Module:
    """A module of the package: dotted name, docstring, public members."""

    name: str
    doc: str
    members: tuple[Member, ...]


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(b) for b in node.bases)
        return f"class {node.name}({bases})" if bases else f"class {node.name}"
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{prefix} {node.name}({ast.unparse(node.args)}){returns}"


def _public(name: str) -> bool:
    return not name.startswith("_")


def _member(node: ast.AST) -> Member | None:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return None
    if not _public(node.name):
        return None
    methods: tuple[Member, ...] = ()
    if isinstance(node, ast.ClassDef):
        methods = tuple(m for m in map(_member, node.body) if m is not None)
    return Member(node.name, _signature(node), ast.get_docstring(node) or "", methods)


def read_module(path: Path, name: str, shown: str) -> Module:
    """One module's docstring and public members; a UsageError when it does not parse."""
    try:
        tree = ast.parse(read_text(path, shown), filename=shown)
    except SyntaxError as exc:
        raise UsageError(f"{shown}:{exc.lineno or 1}:1: not valid Python: {exc.msg}") from None
    members = tuple(m for m in map(_member, tree.body) if m is not None)
    return Module(name, ast.get_docstring(tree) or "", members)


def python_files(package: Path) -> list[Path]:
    """The `.py` files of `package` and its public subpackages, links to folders not followed.

    What `modules` reads, so it is also what the reference depends on.
    """
    found = []
    for current, dirs, names in os.walk(package, followlinks=False):
        dirs[:] = sorted(
            d for d in dirs if _public(d) and (Path(current, d) / "__init__.py").exists()
        )
        found += [Path(current, n) for n in sorted(names) if n.endswith(".py")]
    return found


def modules(root: Path, package: Path) -> list[Module]:
    """Every public module of the package folder `package`, sorted by dotted name."""
    if not filetree.inside(root, package / "__init__.py"):
        raise UsageError(f"{package}: not a Python package inside the repository")
    found: list[Module] = []
    for path in python_files(package):
        if path.is_symlink() or not filetree.inside(root, path):
            continue
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        elif not _public(parts[-1]) or parts[-1] == "__main__":
            continue
        shown = path.relative_to(root).as_posix()
        found.append(read_module(path, ".".join(parts), shown))
    return sorted(found, key=lambda m: m.name)


def _code(text: str) -> str:
    """`text` as one inline code span (a signature: no highlighter runs)."""
    ticks = "`" * (max((len(r) for r in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _section(member: Member, qualified: str, level: int) -> list[str]:
    out = [f"{'#' * level} `{member.name}` {{#{qualified}}}", "", _code(member.signature), ""]
    if member.doc:
        out += [prose(member.doc), ""]
    for method in member.methods:
        out += _section(method, f"{qualified}.{method.name}", level + 1)
    return out


def render(found: list[Module]) -> str:
    """The Markdown of the reference: a section per module, a subsection per member."""
    out: list[str] = []
    for module in found:
        out += [f"## `{module.name}` {{#{module.name}}}", ""]
        if module.doc:
            out += [prose(module.doc), ""]
        for member in module.members:
            out += _section(member, f"{module.name}.{member.name}", 3)
    return "\n".join(out) + "\n"
