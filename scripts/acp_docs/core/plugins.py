"""Extensions by entry point: every entry of a group loaded, or an error naming the failing one.

A distribution (this one or any installed beside it) lists its extensions in
its metadata (`[project.entry-points."<group>"]` of pyproject.toml, written to
`entry_points.txt`). An entry that cannot be imported, or that is not what its
group takes, stops the command with a located error: never skipped in silence.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TypeVar

from acp_docs.core.errors import LocatedError

T = TypeVar("T")


class PluginLoadError(LocatedError):
    """An entry point that cannot be loaded: at its line of `entry_points.txt` when known."""


Located = tuple[metadata.EntryPoint, str, int]
"""An entry declared outside any distribution's metadata, with its file and line."""


def _where(entry: metadata.EntryPoint, declared: Sequence[Located] = ()) -> tuple[str, int]:
    """The file declaring `entry`, and the entry's line in it (1 when unknown)."""
    for other, where, at in declared:
        if other is entry:
            return where, at
    dist = entry.dist
    folder = getattr(dist, "_path", None) if dist is not None else None
    if not isinstance(folder, Path):
        name = dist.metadata["Name"] if dist is not None else "an installed distribution"
        return f"entry_points.txt of {name}", 1
    file = folder / "entry_points.txt"
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return str(file), 1
    section = ""
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1].strip()
        elif section == entry.group and stripped.partition("=")[0].strip() == entry.name:
            return str(file), number
    return str(file), 1


def error(
    entry: metadata.EntryPoint, reason: str, declared: Sequence[Located] = ()
) -> PluginLoadError:
    """A PluginLoadError naming `entry` (group, name, target) and why it is refused."""
    path, line = _where(entry, declared)
    return PluginLoadError(
        path,
        line,
        1,
        f"entry point {entry.group} `{entry.name} = {entry.value}`: {reason}",
    )


_seen: dict[str, tuple[tuple[tuple[str, int], ...], list[metadata.EntryPoint]]] = {}


def _path_state() -> tuple[tuple[str, int], ...]:
    """Each folder of `sys.path` with its modification time (0 when it is no folder).

    A distribution installed or removed adds or deletes a `.dist-info` folder,
    which changes the time of the folder holding it, as importlib's own
    caches of those folders assume.
    """
    state = []
    for folder in sys.path:
        try:
            state.append((folder, os.stat(folder or ".").st_mtime_ns))
        except (OSError, ValueError):
            state.append((folder, 0))
    return tuple(state)


def entries(group: str) -> list[metadata.EntryPoint]:
    """The entry points of `group`, by name.

    Reading every distribution's metadata costs milliseconds, and a command asks
    for several groups; the answer is kept until `sys.path` or a folder of it changes.
    """
    state = _path_state()
    held = _seen.get(group)
    if held is None or held[0] != state:
        held = (state, sorted(metadata.entry_points(group=group), key=lambda e: e.name))
        _seen[group] = held
    return list(held[1])


def load_group(
    group: str,
    kind: type[T],
    check: Callable[[T, str], str | None] | None = None,
    extra: Sequence[Located] = (),
) -> dict[str, T]:
    """Every entry of `group`, and of `extra`, loaded and of type `kind`, by entry-point name.

    `check(value, name)` may refuse a loaded object with a reason. An entry that fails to
    import, is of another type, is refused, or shares its name with another
    entry is a PluginLoadError naming it.
    """
    loaded: dict[str, T] = {}
    first: dict[str, metadata.EntryPoint] = {}
    for entry in [*entries(group), *(located[0] for located in extra)]:
        if entry.name in loaded:
            other = first[entry.name]
            where = f" of {other.dist.name}" if other.dist is not None else ""
            reason = f"{other.value!r}{where} already has the name {entry.name!r}"
            raise error(entry, reason, extra)
        first[entry.name] = entry
        try:
            value = entry.load()
        except Exception as exc:  # any failure of third-party import code is the entry's fault
            reason = f"cannot be imported: {type(exc).__name__}: {exc}"
            raise error(entry, reason, extra) from None
        if not isinstance(value, kind):
            reason = f"is of type {type(value).__name__}, not a {kind.__name__}: point it at one"
            raise error(entry, reason, extra)
        refused = check(value, entry.name) if check is not None else None
        if refused is not None:
            raise error(entry, refused, extra)
        loaded[entry.name] = value
    return loaded
