"""An upstream docs tree read safely: its MDX pages and `docs/docs.json`, nothing written.

Only regular files inside DIR are read, each within the size limit; a link, a
FIFO, a file that is not UTF-8 or one past the limit is a finding at its name,
never followed or read. The walk stops at `MAX_FILES` files.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.markdown import limits as mdlimits
from acp_docs.markdown.fences import code_lines
from acp_docs.sources import filetree, jsonparse
from acp_docs.sources.textfile import UnreadableFile, read_text
from acp_docs.upstream.layout import DOCS, MAX_FILES, NAV_FILE, PAGE_SUFFIXES
from acp_docs.upstream.layout import NOT_WALKED as _NOT_WALKED

_BRACE = re.compile(r"[{}]")
MAX_BRACES = 64
"""How deep `{` may nest outside code: MDX hands each expression to a JavaScript parser."""


@dataclass(frozen=True)
class Page:
    """One MDX (or Markdown) page: its path from DIR, its Mintlify route, its text."""

    path: str
    route: str
    text: str


@dataclass
class Tree:
    """What the check reads of an upstream checkout."""

    root: Path
    pages: dict[str, Page] = field(default_factory=dict)
    """By route: `rfds/session-fork` for `docs/rfds/session-fork.mdx`."""
    files: set[str] = field(default_factory=set)
    """Every regular file under `docs/`, as a path from `docs/` (images, snippets)."""
    nav: Any = None
    """`docs/docs.json`, parsed; None when it is missing or refused (a finding says why)."""
    nav_text: str = ""
    problems: list[Finding] = field(default_factory=list)


def route_of(rel: str) -> str:
    """The route Mintlify serves a page under `docs/` at: no suffix, `index` dropped."""
    stem = rel.rsplit(".", 1)[0]
    if stem == "index":
        return ""
    return stem[: -len("/index")] if stem.endswith("/index") else stem


def _link(root: Path, full: Path, shown: str) -> Finding:
    """A symbolic link of the tree: Mintlify resolves links when it deploys (its documentation
    says so of folders of skills, which MCP links on purpose), so one whose target stays in
    the checkout is published, and said in a note; one that leaves the checkout, or leads
    nowhere, would publish what is not the tree's, or nothing: an error. Neither is ever
    followed or read here."""
    try:
        target = Path(os.path.realpath(full))
        inside = target.is_relative_to(root) and target.exists()
    except (OSError, ValueError):
        inside = False
    if inside:
        message = (
            "a symbolic link inside the checkout: Mintlify publishes what it leads to; this"
            " check does not follow it"
        )
        return Finding(shown, 1, 1, "upstream-files", message, "upstream/link", "note")
    message = (
        "a symbolic link out of the checkout, or to nothing: not followed, and not publishable"
    )
    return _problem(shown, message, "upstream/link")


def load(root: Path) -> Tree:
    """Read the tree at `root`; a UsageError when it has no `docs/` folder."""
    root = root.resolve()
    docs = root / DOCS
    if not docs.is_dir() or docs.is_symlink():
        raise UsageError(f"{root}: not an upstream checkout: it has no docs/ folder")
    tree = Tree(root)
    count = 0
    for current, dirs, names in os.walk(docs):
        dirs[:] = sorted(d for d in dirs if d not in _NOT_WALKED)
        for name in sorted(
            [*names, *(d for d in dirs if os.path.islink(os.path.join(current, d)))]
        ):
            full = Path(current, name)
            rel = full.relative_to(root).as_posix()
            shown = filetree.shown(rel)
            count += 1
            if count > MAX_FILES:
                tree.problems.append(
                    _problem(
                        DOCS,
                        f"more than {MAX_FILES} files: the rest is not read",
                        "upstream/too-many-files",
                    )
                )
                return _with_nav(tree)
            if not filetree.plain(rel):
                message = "a name that is not UTF-8 or holds a control character: not read"
                tree.problems.append(_problem(shown, message, "upstream/file-name"))
                continue
            info = full.lstat()
            if stat.S_ISLNK(info.st_mode):
                tree.problems.append(_link(root, full, shown))
                continue
            if not stat.S_ISREG(info.st_mode):
                tree.problems.append(
                    _problem(
                        shown,
                        "not a regular file (a FIFO, device or socket): not read",
                        "upstream/special-file",
                    )
                )
                continue
            in_docs = rel[len(DOCS) + 1 :]
            tree.files.add(in_docs)
            if not name.endswith(PAGE_SUFFIXES):
                continue
            try:
                text = read_text(full, shown)
            except UnreadableFile as exc:
                tree.problems.append(_problem(shown, exc.reason, "upstream/unreadable"))
                continue
            slow = _too_complex(text)
            if slow is not None:
                message = f"{slow.message}; the page is not read further (MDX, Prettier)"
                tree.problems.append(
                    Finding(
                        shown,
                        slow.line,
                        slow.col,
                        "upstream-files",
                        message,
                        "upstream/too-complex",
                    )
                )
                continue
            tree.pages[route_of(in_docs)] = Page(rel, route_of(in_docs), text)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(current, d))]
    return _with_nav(tree)


def _too_complex(text: str) -> mdlimits.Hazard | None:
    """What would make the Node steps take minutes on a page outside its code blocks (which
    MDX and Prettier read in one pass): Markdown's hazards, and braces nested deeper than
    `MAX_BRACES`."""
    in_code = code_lines(text)
    lines = text.split("\n")
    prose = "\n".join("" if n in in_code else line for n, line in enumerate(lines, start=1))
    slow = mdlimits.hazard(prose)
    if slow is not None or prose.count("{") <= MAX_BRACES:
        return slow
    depth = 0
    for number, line in enumerate(lines, start=1):
        if number in in_code or ("{" not in line and depth == 0):
            continue
        for brace in _BRACE.finditer(line):
            depth = depth + 1 if brace.group() == "{" else max(depth - 1, 0)
            if depth > MAX_BRACES:
                message = f"braces nested deeper than {MAX_BRACES} levels"
                return mdlimits.Hazard(number, brace.start() + 1, message)
    return None


def _with_nav(tree: Tree) -> Tree:
    path = tree.root / NAV_FILE
    if not path.exists() and not path.is_symlink():
        tree.problems.append(
            _problem(NAV_FILE, "missing: Mintlify needs it for the navigation", "upstream/nav")
        )
        return tree
    if path.is_symlink():
        return tree  # reported by the walk
    try:
        tree.nav_text = read_text(path, NAV_FILE)
        tree.nav = jsonparse.loads(tree.nav_text)
    except UnreadableFile as exc:
        tree.problems.append(_problem(NAV_FILE, exc.reason, "upstream/nav"))
    except jsonparse.JsonProblem as exc:
        tree.problems.append(
            Finding(NAV_FILE, exc.line, exc.col, "upstream-nav", exc.message, "upstream/nav")
        )
    return tree


def _problem(path: str, message: str, rule: str) -> Finding:
    return Finding(path, 1, 1, "upstream-files", message, rule)
