"""The cache folder, read and written as sealed entries: data only, checked on every read.

A cache folder may be shared by several checkouts, restored in CI from an
earlier run, or written by someone else, so nothing in it is trusted for being
there. Each entry is one file: a header, a keyed digest and the entry's bytes.
The digest is BLAKE2b keyed with this user's cache key, over the entry's kind,
its name and its bytes. `Folder.read` gives the bytes back only when the digest
matches: a damaged, foreign, moved or linked entry counts as missing, and the
work is done again. Entries are data (JSON, text, SVG); nothing from the cache
is unpickled, unmarshalled or run.

The folder is `ACP_DOCS_CACHE_DIR`, else `$XDG_CACHE_HOME/acp-docs`, else
`~/.cache/acp-docs`. The key (`key`) is `ACP_DOCS_CACHE_KEY` when it is set,
else a random key kept outside the cache folder in
`$XDG_CONFIG_HOME/acp-docs/cache-key` (`~/.config/...`), made on first use and
readable by its owner only, else one made for this process. A cache only saves
time: a run without one gives the same findings, and a cold run the same as a
warm one.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import os
import secrets
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

KEY_VARIABLE = "ACP_DOCS_CACHE_KEY"
_HEADER = b"acp-docs sealed 1\n"
_DIGEST = 32
MAX_ENTRY = 64 * 1024 * 1024
"""Bytes of one entry: a larger file in the cache folder is not read."""


def _root() -> Path:
    base = os.environ.get("ACP_DOCS_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = str(Path(xdg) / "acp-docs") if xdg else str(Path.home() / ".cache" / "acp-docs")
    return Path(base)


def _key_file() -> Path:
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return (Path(xdg) if xdg else Path.home() / ".config") / "acp-docs" / "cache-key"


@functools.cache
def _process_key() -> bytes:
    return secrets.token_bytes(32)


def _read_private(path: Path) -> bytes | None:
    """The bytes of a regular file only its owner may read or write, not a link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            return None
        return handle.read(4096)


def key() -> bytes:
    """This user's cache key (see the module's text); never stored in the cache folder."""
    named = os.environ.get(KEY_VARIABLE, "")
    if len(named) >= 16:
        return hashlib.blake2b(named.encode("utf-8", "surrogateescape"), digest_size=32).digest()
    path = _key_file()
    kept = _read_private(path)
    if kept is not None and len(kept) >= 32:
        return kept[:32]
    made = secrets.token_bytes(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(made)
        return made
    except OSError:
        kept = _read_private(path)  # another process made it first
        return kept[:32] if kept is not None and len(kept) >= 32 else _process_key()


def _seal(kind: str, name: str, data: bytes) -> bytes:
    hasher = hashlib.blake2b(key=key(), digest_size=_DIGEST)
    hasher.update(f"{kind}\0{name}\0".encode("utf-8", "surrogateescape"))
    hasher.update(data)
    return hasher.digest()


class Folder:
    """One kind of cache entry: sealed files in one folder of the cache."""

    def __init__(self, kind: str, path: Path) -> None:
        self.kind = kind
        self.path = path

    def _file(self, name: str) -> Path:
        if not name or "/" in name or name.startswith(".") or "\0" in name:
            raise ValueError(f"not an entry name: {name!r}")
        return self.path / name

    def read(self, name: str) -> bytes | None:
        """The entry's bytes when this user's key sealed them under this name, else None."""
        try:
            fd = os.open(self._file(name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except (OSError, ValueError):
            return None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY:
                return None
            whole = handle.read(MAX_ENTRY + 1)
        if not whole.startswith(_HEADER) or len(whole) > MAX_ENTRY:
            return None
        digest = whole[len(_HEADER) : len(_HEADER) + _DIGEST]
        data = whole[len(_HEADER) + _DIGEST :]
        if not hmac.compare_digest(digest, _seal(self.kind, name, data)):
            return None
        with contextlib.suppress(OSError):
            os.utime(self.path / name)  # in use: the last to be cleared away
        return data

    def read_text(self, name: str) -> str | None:
        """The entry as UTF-8 text, or None (see `read`)."""
        data = self.read(name)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def read_json(self, name: str) -> Any:
        """The entry as JSON, or None (see `read`); the caller still checks its shape."""
        text = self.read_text(name)
        try:
            return json.loads(text) if text is not None else None
        except ValueError:
            return None

    def write(self, name: str, data: bytes) -> None:
        """Keep `data` as the entry `name`, sealed; a cache that cannot be written is skipped."""
        try:
            target = self._file(name)
            fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=self.path)
        except (OSError, ValueError):
            return
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(_HEADER + _seal(self.kind, name, data) + data)
            os.replace(tmp, target)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)

    def write_text(self, name: str, text: str) -> None:
        """Keep `text` (UTF-8) as the entry `name` (see `write`)."""
        self.write(name, text.encode("utf-8", "surrogatepass"))

    def write_json(self, name: str, value: Any) -> None:
        """Keep `value` as JSON in the entry `name` (see `write`)."""
        self.write_text(name, json.dumps(value))

    def entries(self, suffix: str = "") -> list[Path]:
        """The entry files ending in `suffix`, oldest first (for clearing old ones away)."""
        with contextlib.suppress(OSError):
            found = [p for p in self.path.iterdir() if p.name.endswith(suffix)]
            found = [p for p in found if not p.name.startswith(".")]
            return sorted(found, key=_mtime)
        return []

    def keep_latest(self, count: int, suffix: str = "") -> None:
        """Remove all but the `count` entries used last."""
        for old in self.entries(suffix)[:-count] if count > 0 else []:
            with contextlib.suppress(OSError):
                old.unlink()

    @contextlib.contextmanager
    def borrowed(self, name: str) -> Iterator[Path]:
        """A private copy of the entry (empty when there is none) for a tool that reads and
        writes a cache file itself; what the tool leaves in it is sealed back afterwards."""
        data = self.read(name) or b""
        with tempfile.TemporaryDirectory(prefix="acp-docs-") as private:
            path = Path(private) / name
            path.write_bytes(data)
            yield path
            try:
                after = path.read_bytes()
            except OSError:
                return
            if after and after != data and len(after) <= MAX_ENTRY:
                self.write(name, after)


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0


def cache_dir(kind: str) -> Folder | None:
    """The cache folder for `kind` (made if missing), or None when there can be none."""
    path = _root() / kind
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = path.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or not os.access(path, os.W_OK):
        return None
    return Folder(kind, path)
