"""Reading the project's text files: UTF-8 (a byte-order mark allowed), any line ending."""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from acp_docs.errors import UsageError


class UnreadableFile(UsageError):
    """A file that is missing, not a file, or not UTF-8; `line` is where (1 if unknown)."""

    def __init__(self, name: str, reason: str, line: int = 1) -> None:
        where = f"{name}:{line}" if line > 1 else name
        super().__init__(f"{where}: {reason}")
        self.name = name
        self.reason = reason
        self.line = line


def read_text(path: Path, shown: str | None = None) -> str:
    """Return the file's text with a BOM dropped and line ends made `\\n`.

    `shown` is the name used in error messages (default: the path itself).
    """
    name = shown or str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UnreadableFile(name, "no such file") from None
    except IsADirectoryError:
        raise UnreadableFile(name, "is a directory, expected a file") from None
    except OSError as exc:
        raise UnreadableFile(name, f"cannot read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UnreadableFile(name, f"not valid UTF-8 (byte {exc.start})", line) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_json(path: Path, shown: str | None = None) -> Any:
    """Parse a JSON file; malformed JSON is a UsageError naming line and column."""
    name = shown or str(path)
    text = read_text(path, name)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{name}:{exc.lineno}:{exc.colno}: malformed JSON: {exc.msg}") from None


def line_of(path: Path, *needles: str) -> tuple[int, int]:
    """Line and column of the first needle found in the file, trying them in order."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return 1, 1
    for needle in needles:
        for number, line in enumerate(lines, start=1):
            col = line.find(needle)
            if col >= 0:
                return number, col + 1
    return 1, 1


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a new temporary file beside it and a rename.

    The temporary file is created exclusively under a random name, so a planted
    file or symlink is never followed; a symlink or directory at `path` is refused.
    """
    if path.is_symlink() or path.is_dir():
        raise UsageError(f"{path}: refusing to write through a symlink or over a directory")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    """`text` without terminal colour codes (tools colour their output under CI)."""
    return _ANSI.sub("", text)
