"""Checks that live in the checkout: `[tool.acp-docs.local-checks]` of its `pyproject.toml`.

    [tool.acp-docs.local-checks]
    paths = ["checks"]          # folders of the checkout, put on the import path
    words = "words:CHECK"       # name = "module:ATTRIBUTE", as an entry point says it

A check declared here loads like an installed one (`acp_docs.checks.registry`)
without reinstalling anything: saving the module is enough. Each folder must
be a real folder inside the checkout (no link leaving it); a malformed table
is a `UsageError` at its line of `pyproject.toml`. The code is the checkout's
own, trusted as the rest of its code is (`make test` runs its tests too);
`acp-docs check --upstream` never reads another tree's table.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from acp_docs.core.errors import LocatedError
from acp_docs.core.plugins import Located
from acp_docs.sources import filetree

FILE = "pyproject.toml"
TABLE = "local-checks"
MAX_CHARS = 200_000
_NAME = re.compile(r"[a-z][a-z0-9-]{0,39}")
_TARGET = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


_HEADER = re.compile(r"^\s*\[\s*tool\s*\.\s*[\"']?acp-docs[\"']?\s*\.\s*[\"']?local-checks", re.M)


def _line_of(text: str, key: str) -> int:
    """The line of `text` that sets `key` in the local-checks table (1 when none does)."""
    table = _HEADER.search(text)
    if key == TABLE and table is not None:
        return text.count("\n", 0, table.start()) + 1
    start = table.end() if table is not None and key != TABLE else 0
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=", re.M)
    found = pattern.search(text, start)
    return text.count("\n", 0, found.start()) + 1 if found else 1


def _read(path: Path) -> str | None:
    """The text of `path` (None when there is none); a LocatedError when it is a link, not a
    regular file, too long or not UTF-8: its local checks would be left out in silence."""
    if not path.is_symlink() and not path.exists():
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        raise LocatedError(FILE, 1, 1, "is a link or cannot be opened: make it a file") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise LocatedError(FILE, 1, 1, "is not a regular file")
        data = handle.read(MAX_CHARS * 4 + 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise LocatedError(FILE, line, 1, "is not UTF-8") from None
    if len(text) > MAX_CHARS:
        raise LocatedError(FILE, 1, 1, f"is longer than {MAX_CHARS} characters")
    return text


def _table(root: Path) -> tuple[dict[str, object], str] | None:
    text = _read(root / FILE)
    if text is None:
        return None
    if TABLE not in text:
        return None
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise LocatedError(FILE, 1, 1, "is nested too deeply to be read") from None
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"\(at line (\d+), column (\d+)\)$", str(exc))
        line, col = (int(at.group(1)), int(at.group(2))) if at else (1, 1)
        reason = str(exc)[: at.start()].strip() if at else str(exc)
        raise LocatedError(FILE, line, col, reason) from None
    tool = data.get("tool")
    ours = tool.get("acp-docs") if isinstance(tool, dict) else None
    table = ours.get(TABLE) if isinstance(ours, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise LocatedError(FILE, _line_of(text, TABLE), 1, f"{TABLE} must be a table")
    return table, text


def _folders(root: Path, table: dict[str, object], text: str) -> list[Path]:
    paths = table.get("paths", [])
    line = _line_of(text, "paths")
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise LocatedError(FILE, line, 1, f"{TABLE}.paths must be a list of folder names")
    folders = []
    for name in paths:
        folder = root / name
        if (
            Path(name).is_absolute()
            or ".." in Path(name).parts
            or folder.is_symlink()
            or not folder.is_dir()
            or not filetree.within(root, folder)
        ):
            reason = f"{TABLE}.paths: {name!r} is not a folder inside the checkout"
            raise LocatedError(FILE, line, 1, reason)
        linked = _first_link(folder)
        if linked is not None:
            shown = linked.relative_to(root).as_posix()
            reason = f"{TABLE}.paths: {shown} is a link: a check's code is the checkout's own files"
            raise LocatedError(FILE, line, 1, reason)
        folders.append(folder.resolve())
    return folders


def _first_link(folder: Path) -> Path | None:
    """The first link (to a file or a folder) under `folder`, which Python would import
    through, or None."""
    for current, dirs, files in os.walk(folder, followlinks=False):
        for name in sorted([*dirs, *files]):
            if Path(current, name).is_symlink():
                return Path(current, name)
    return None


def entries(root: Path) -> list[Located]:
    """The checks the checkout at `root` declares, as entry points with their line."""
    found = _table(root)
    if found is None:
        return []
    table, text = found
    _folders(root, table, text)
    out: list[Located] = []
    for name, target in table.items():
        if name == "paths":
            continue
        line = _line_of(text, name)
        if not _NAME.fullmatch(name):
            raise LocatedError(FILE, line, 1, f"{TABLE}: {name!r} is not a check name")
        if not isinstance(target, str) or not _TARGET.fullmatch(target):
            reason = f'{TABLE}.{name} must say "module:ATTRIBUTE" (like an entry point)'
            raise LocatedError(FILE, line, 1, reason)
        entry = metadata.EntryPoint(name=name, value=target, group="acp_docs.checks")
        out.append((entry, FILE, line))
    return out


def put_on_path(root: Path) -> None:
    """Put the local-checks folders of `root` last on the import path (for good: a check
    may import its own modules when its hooks run). Last, so a module of the checkout never
    stands in for an installed one: a check named like one is not found, and says so."""
    found = _table(root)
    folders = [str(f) for f in _folders(root, *found)] if found is not None else []
    sys.path.extend(f for f in folders if f not in sys.path)
