"""The upstream `docs/docs.json` with an RFD added to its navigation, edited in place.

The RFD goes under the group of its status in the "RFDs" tab (and a nested
group, such as "v2", for an RFD of one version alone, made at the end of the
status group when it has none yet); the file's formatting is kept, and the edit
is proven to change nothing but the added entry.
"""

from __future__ import annotations

import json
import re
from typing import Any

from acp_docs.core.errors import UsageError
from acp_docs.sources import jsonparse


def _array_end(text: str, start: int) -> int:
    """The index of the `]` closing the array opened at `start`, strings skipped."""
    depth, index, in_string = 0, start, False
    while index < len(text):
        char = text[index]
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    raise UsageError("docs/docs.json: an array is never closed")


def _load(text: str) -> Any:
    """docs.json's data, read strictly (nesting, duplicate keys): a usage error naming it."""
    try:
        return jsonparse.loads(text)
    except jsonparse.JsonProblem as exc:
        raise UsageError(f"docs/docs.json:{exc}") from None


def _rfds_tab(data: object) -> dict[str, Any] | None:
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("tab") == "RFDs":
                return node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def _group(tab: dict[str, Any] | None, path: tuple[str, ...]) -> dict[str, Any] | None:
    node = tab
    for name in path:
        items = node.get("pages") if isinstance(node, dict) else None
        node = next(
            (
                i
                for i in (items if isinstance(items, list) else [])
                if isinstance(i, dict) and i.get("group") == name
            ),
            None,
        )
    return node if isinstance(node, dict) and isinstance(node.get("pages"), list) else None


def _pages(tab: dict[str, Any] | None) -> dict[tuple[str, ...], list[str]]:
    found: dict[tuple[str, ...], list[str]] = {}
    stack: list[tuple[tuple[str, ...], Any]] = [((), tab)]
    while stack:
        path, node = stack.pop()
        items = node.get("pages") if isinstance(node, dict) else None
        for item in items if isinstance(items, list) else []:
            if isinstance(item, str):
                found.setdefault(path, []).append(item)
            elif isinstance(item, dict) and isinstance(item.get("group"), str):
                stack.append(((*path, item["group"]), item))
    return found


def nav_entry(text: str, path: tuple[str, ...], page: str) -> str:
    """docs.json with `page` appended to the RFDs group at `path`, formatting kept."""
    data = _load(text)
    tab = _rfds_tab(data)
    shown = " > ".join(path)
    if _group(tab, path) is None and len(path) > 1 and _group(tab, path[:-1]) is not None:
        return _with_group(text, path, page)
    if _group(tab, path) is None:
        raise UsageError(f'docs/docs.json: the "RFDs" tab has no group {shown}')
    for where, pages in _pages(tab).items():
        if page in pages:
            if where == path:
                return text
            raise UsageError(f"docs/docs.json: {page} is under {' > '.join(where)}, not {shown}")
    updated = _appended(text, path, json.dumps(page))
    return _proven(text, updated, path, page, page)


def _with_group(text: str, path: tuple[str, ...], page: str) -> str:
    """docs.json with a new group `path[-1]` holding `page`, at the end of its parent group.

    Written as Prettier writes it: the object expanded, its one-page list on one line.
    """
    item = f'{{\n  "group": {json.dumps(path[-1])},\n  "pages": [{json.dumps(page)}]\n}}'
    updated = _appended(text, path[:-1], item)
    return _proven(text, updated, path[:-1], {"group": path[-1], "pages": [page]}, page)


def _appended(text: str, path: tuple[str, ...], item: str) -> str:
    """`text` with `item` (JSON text, lines after its first indented from 0) appended to the
    pages of the RFDs group at `path`."""
    position = text.find('"tab": "RFDs"')
    for name in path:
        position = text.find(f'"group": {json.dumps(name)}', max(position, 0))
    opening = text.find("[", text.find('"pages"', position))
    closing = _array_end(text, opening)
    inside = text[opening + 1 : closing]
    if inside.strip():
        last = inside.rstrip()
        indent = re.search(r"\n([ \t]*)\S[^\n]*$", last)
        pad = indent.group(1) if indent else "  "
        placed = item.replace("\n", "\n" + pad)
        return f"{text[: opening + 1]}{last},\n{pad}{placed}{text[opening + 1 + len(last) :]}"
    line_start = text.rfind("\n", 0, opening) + 1
    line = text[line_start:]
    base = line[: len(line) - len(line.lstrip(" \t"))]
    placed = item.replace("\n", "\n" + base + "  ")
    return f"{text[: opening + 1]}\n{base}  {placed}\n{base}{text[closing:]}"


def _proven(text: str, updated: str, path: tuple[str, ...], added: object, page: str) -> str:
    """`updated`, once it is proven to be `text` with `added` appended at `path` and no more."""
    expected = _load(text)
    target = _group(_rfds_tab(expected), path)
    assert target is not None
    target["pages"].append(added)
    if _load(updated) != expected:
        shown = " > ".join(path)
        raise UsageError(f"docs/docs.json: could not add {page} under {shown}; add it by hand")
    return updated
