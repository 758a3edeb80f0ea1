"""Reading the project's text files: UTF-8 (a byte-order mark allowed), any line ending."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from acp_docs.core.errors import LocatedError
from acp_docs.sources import jsonparse


class UnreadableFile(LocatedError):
    """A file that is missing, not a file, or not UTF-8; `line` is where (1 if unknown)."""

    def __init__(self, name: str, reason: str, line: int = 1) -> None:
        super().__init__(name, line if line > 1 else None, None, reason)
        self.name = name


MAX_BYTES_VARIABLE = "ACP_DOCS_MAX_FILE_BYTES"
DEFAULT_MAX_BYTES = 4 * 1024 * 1024


def max_bytes() -> int:
    """The size limit of one input file: 4 MiB, or `ACP_DOCS_MAX_FILE_BYTES`."""
    value = os.environ.get(MAX_BYTES_VARIABLE, "")
    return int(value) if value.isdigit() and int(value) > 0 else DEFAULT_MAX_BYTES


def read_bytes(path: Path, shown: str | None = None, *, installed: bool = False) -> bytes:
    """A regular file's bytes, at most `max_bytes()`; never blocks on a FIFO or device.

    A file that is a symbolic link is refused, wherever it leads: every file the
    tool reads from a tree it checks is the file itself (folders on the way are
    the tree walkers' to refuse, `sources.filetree`). Only a file of an
    `installed` package (`node_modules`, which npm fills with links) is followed.
    """
    name = shown or str(path)
    limit = max_bytes()
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    if not installed:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise UnreadableFile(name, "no such file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnreadableFile(
                name, "is a symbolic link, and links are not followed: put the file itself here"
            ) from None
        if exc.errno == errno.EISDIR:
            raise UnreadableFile(name, "is a directory, expected a file") from None
        raise UnreadableFile(name, f"cannot read: {exc.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UnreadableFile(name, "is a directory, expected a file")
        raise UnreadableFile(name, "is not a regular file (a FIFO, device or socket)")
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > limit:
            raise UnreadableFile(
                name, f"is larger than {limit} bytes (raise {MAX_BYTES_VARIABLE} to allow it)"
            )
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise UnreadableFile(name, f"cannot read: {exc.strerror}") from None
    if len(data) > limit:
        raise UnreadableFile(
            name, f"is larger than {limit} bytes (raise {MAX_BYTES_VARIABLE} to allow it)"
        )
    return data


def read_text(path: Path, shown: str | None = None, *, installed: bool = False) -> str:
    """Return the file's text with a BOM dropped and line ends made `\\n`.

    `shown` is the name used in error messages (default: the path itself).
    The file must be a regular file of at most `max_bytes()`.
    """
    name = shown or str(path)
    data = read_bytes(path, name, installed=installed)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UnreadableFile(name, f"not valid UTF-8 (byte {exc.start})", line) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_json(path: Path, shown: str | None = None, *, installed: bool = False) -> Any:
    """Parse a JSON file strictly (see `jsonparse`); a UsageError naming line and column."""
    name = shown or str(path)
    text = read_text(path, name, installed=installed)
    try:
        return jsonparse.loads(text)
    except jsonparse.JsonProblem as exc:
        raise LocatedError(name, exc.line, exc.col, exc.message) from None


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


def linked_folder(path: Path, within: Path) -> Path | None:
    """The first folder between `within` and `path` (both excluded) that is a symbolic link."""
    within = Path(os.path.abspath(within))
    try:
        parts = Path(os.path.abspath(path)).parent.relative_to(within).parts
    except ValueError:
        return None
    current = within
    for part in parts:
        current = current / part
        if current.is_symlink():
            return current
    return None


def unwritable(path: Path, within: Path | None = None) -> str | None:
    """Why `write_atomic` refuses to write `path` (None: it writes it)."""
    if path.is_symlink() or path.is_dir():
        return "refusing to write through a symlink or over a directory"
    linked = linked_folder(path, within) if within is not None else None
    return f"refusing to write through the linked folder {linked}" if linked else None


def write_atomic(path: Path, text: str, within: Path | None = None) -> None:
    """Write `text` to `path` through a new temporary file beside it and a rename.

    The temporary file is created exclusively under a random name, so a planted
    file or symlink is never followed; a symlink or directory at `path` is refused,
    and so is a path that a linked folder below `within` (a checkout, a tree
    from a pull request) would lead out of it.
    """
    refused = unwritable(path, within)
    if refused is not None:
        raise LocatedError(str(path), None, None, refused)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise LocatedError(
            str(path), None, None, f"cannot write here: {exc.strerror or exc}"
        ) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise LocatedError(
                str(path), None, None, f"cannot write here: {exc.strerror or exc}"
            ) from None
        raise
