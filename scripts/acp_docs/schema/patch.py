"""RFC 6902 JSON Patch operations (`test`, `add`, `replace`, `remove`) under `/$defs/`.

An RFD's schema source may change a published definition with these when no
higher-level change says it; paths are JSON Pointers (`acp_docs.sources.pointer`).
"""

from __future__ import annotations

import copy
from typing import Any

from acp_docs.sources import pointer as ptr


class PatchFailed(ValueError):
    """A path that is not under `/$defs/`, or an operation the base does not allow."""


def path_parts(path: str) -> list[str]:
    """The member names of a patch path; PatchFailed unless it points under `/$defs/`."""
    if not path.startswith("/$defs/") or path == "/$defs/":
        raise PatchFailed(f"JSON Patch paths must point under /$defs/, not {path!r}")
    try:
        return ptr.parse(path)
    except ptr.PointerError as exc:
        raise PatchFailed(f"JSON Patch path {path!r} is not a JSON Pointer: {exc}") from None


def _parent(doc: Any, path: str) -> tuple[Any, str]:
    parts = path_parts(path)
    try:
        node = ptr.resolve(doc, ptr.format(parts[:-1]))
    except ptr.PointerError:
        raise PatchFailed(f"{path} does not exist in the base") from None
    return node, parts[-1]


def apply(doc: dict[str, Any], op: str, path: str, value: Any = None) -> None:
    """Apply one operation to `doc` in place; PatchFailed when the base does not allow it."""
    parent, last = _parent(doc, path)
    index = ptr.list_index(last) if isinstance(parent, list) else None
    exists = (isinstance(parent, dict) and last in parent) or (
        index is not None and index < len(parent)
    )
    key: Any = index if isinstance(parent, list) else last
    if op == "test":
        if not exists or parent[key] != value:
            raise PatchFailed(f"test failed at {path}: the base has changed")
    elif op == "add":
        if isinstance(parent, list):
            if last == "-":
                parent.append(copy.deepcopy(value))
            elif index is not None and index <= len(parent):
                parent.insert(index, copy.deepcopy(value))
            else:
                raise PatchFailed(f"cannot add at {path}")
        elif isinstance(parent, dict):
            parent[last] = copy.deepcopy(value)
        else:
            raise PatchFailed(f"cannot add at {path}")
    elif not exists:
        raise PatchFailed(f"{path} does not exist in the base")
    elif op == "replace":
        parent[key] = copy.deepcopy(value)
    else:
        del parent[key]
