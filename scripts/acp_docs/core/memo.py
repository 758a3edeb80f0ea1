"""Results kept between the builds of one process, keyed by the bytes of everything they read.

`mkdocs serve` rebuilds in the same process after every save. The costly,
pure steps of a build (merging the schemas, checking the fixtures, the merged
downloads, the API reference) are kept here under a key made of the content
(never the time stamps) of every file they read, so an unchanged input gives
the same result without the work and a changed one is never served stale.
Only the latest result of each step is kept (or the few latest, when a step
asks to keep more), so memory does not grow over a long session. A one-off
process (`acp-docs check`) computes each step once, as before.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

_kept: dict[str, dict[Hashable, Any]] = {}


def digest_of(paths: Iterable[Path], root: Path | None = None) -> str:
    """One digest of the names and bytes of `paths` (a missing or unreadable file counts too).

    With `root`, names are taken relative to it, so two checkouts holding the
    same files give the same digest.
    """
    hasher = hashlib.blake2b(digest_size=16)
    for path in paths:
        name = str(path.relative_to(root) if root and path.is_relative_to(root) else path)
        hasher.update(name.encode("utf-8", "surrogateescape") + b"\0")
        try:
            if path.is_symlink() or not path.is_file():
                hasher.update(b"\1not a regular file\0")
                continue
            hasher.update(path.read_bytes())
        except OSError as exc:
            hasher.update(f"\1{type(exc).__name__}\0".encode())
        hasher.update(b"\0")
    return hasher.hexdigest()


_ENGINE = Path(__file__).resolve().parent.parent
"""The engine's package: its own code is part of what a kept result depends on."""


@functools.cache
def engine_digest() -> str:
    """The running engine's code (its Python, its Node scripts and its JSON data), read once
    a process (it does not change under it)."""
    code = [p for p in _ENGINE.rglob("*") if p.suffix in {".py", ".mjs", ".json"}]
    return digest_of(sorted(code), _ENGINE)


def remembered(step: str, key: Hashable, make: Callable[[], T], keep: int = 1) -> T:
    """The result of `make()` for `key`, computed once while `key` stays among the `keep`
    latest keys of `step`."""
    held = _kept.setdefault(step, {})
    if key in held:
        held[key] = held.pop(key)  # now the latest
        return held[key]  # type: ignore[no-any-return]
    value = make()
    held[key] = value
    while len(held) > max(1, keep):
        del held[next(iter(held))]
    return value


def forget() -> None:
    """Drop every kept result (tests use it to measure a build from nothing)."""
    _kept.clear()
