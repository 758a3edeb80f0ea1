"""`docs/docs.json` as Mintlify reads it: the pages it lists, status groups, redirects.

Every page the navigation names must exist; every RFD page (`rfds/...`, but
the tab's own pages) must sit in exactly one status group of the RFDs tab
(Draft, Active, Preview, Completed, ...). Pages of a Draft RFD, and protocol
pages in a group named "Draft...", are proposals: their examples may lead the
schema (see `messages`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from acp_docs.core.findings import Finding
from acp_docs.sources.lines import LineIndex
from acp_docs.upstream import blocks
from acp_docs.upstream.tree import NAV_FILE, Tree

CHECK = "upstream-nav"
RFDS_TAB = "RFDs"
DRAFT = "Draft"


@dataclass
class Nav:
    """What the navigation says: each listed page with its groups, and redirect sources."""

    listed: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)
    """(route, tabs, groups from the outside in) for each page entry."""
    redirects: set[str] = field(default_factory=set)
    roots: set[str] = field(default_factory=set)
    """The pages groups open on (`"root"`): landing pages of a group, not RFDs of their own."""

    _trie: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    def redirected(self, route: str) -> bool:
        """True when a redirect's source matches `route`: exactly, or with `:name` standing
        for one segment and `:name*` for any number of them.

        The sources are read once into a tree of segments, so a link costs the length of
        its route, however many redirects `docs.json` lists.
        """
        if route in self.redirects:
            return True
        if self._trie is None:
            self._trie = _trie(self.redirects)
        return _matches(self._trie, route.split("/") if route else [])

    def is_rfd(self, route: str) -> bool:
        """True for an RFD page: under `rfds/`, not an index, about, updates or group root page."""
        parts = route.split("/")
        return (
            parts[0] == "rfds"
            and len(parts) > 1
            and parts[-1] not in ("about", "updates", "index")
            and route not in self.roots
        )

    def status(self, route: str) -> list[str]:
        """The status groups of the RFDs tab that list `route` (one, when all is well)."""
        return [
            groups[0]
            for r, tabs, groups in self.listed
            if r == route and RFDS_TAB in tabs and groups
        ]

    def proposals(self) -> set[str]:
        """The routes of proposal pages: in the RFDs tab's Draft group, or a "Draft..." group."""
        out = set()
        for route, tabs, groups in self.listed:
            if (RFDS_TAB in tabs and groups[:1] == (DRAFT,)) or (
                any(g.startswith(DRAFT) for g in groups) and RFDS_TAB not in tabs
            ):
                out.add(route)
        return out


Entry = tuple[str, tuple[str, ...], tuple[str, ...], bool]
"""A page of the navigation: its route, tabs, groups, and whether it is a group's root."""


def route(entry: str) -> str:
    """The route a navigation entry names: `x/index` is served as `x`, `index` as the root."""
    path = entry.strip("/")
    if path == "index":
        return ""
    return path[: -len("/index")] if path.endswith("/index") else path


def _walk(node: Any, tabs: tuple[str, ...], groups: tuple[str, ...]) -> Iterator[Entry]:
    if isinstance(node, str):
        yield route(node), tabs, groups, False
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item, tabs, groups)
    elif isinstance(node, dict):
        if isinstance(node.get("tab"), str):
            tabs = (*tabs, node["tab"])
        if isinstance(node.get("group"), str):
            groups = (*groups, node["group"])
            if isinstance(node.get("root"), str):  # the page the group opens on
                yield route(node["root"]), tabs, groups, True
        for key in (
            "pages",
            "groups",
            "tabs",
            "anchors",
            "versions",
            "languages",
            "dropdowns",
            "products",
            "menu",
        ):
            if key in node:
                yield from _walk(node[key], tabs, groups)


def read(tree: Tree) -> Nav:
    """The navigation of the tree (empty when docs.json is missing or refused)."""
    nav = Nav()
    data = tree.nav if isinstance(tree.nav, dict) else {}
    for route, tabs, groups, root in _walk(data.get("navigation"), (), ()):
        nav.listed.append((route, tabs, groups))
        if root:
            nav.roots.add(route)
    for redirect in data.get("redirects") or []:
        if isinstance(redirect, dict) and isinstance(redirect.get("source"), str):
            nav.redirects.add(redirect["source"].strip("/"))
    return nav


_PARAM, _REST, _END = ":", "*", ""
"""Trie keys: any one segment, the rest of the route (zero segments or more), the end."""


def _trie(sources: set[str]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for source in sources:
        node = root
        for segment in source.split("/") if source else []:
            if segment.startswith(":") and segment.endswith("*"):
                node[_REST] = True
                break
            key = _PARAM if segment.startswith(":") else "=" + segment
            node = node.setdefault(key, {})
        else:
            node[_END] = True
    return root


def _matches(trie: dict[str, Any], parts: list[str]) -> bool:
    """Whether route `parts` match a source in `trie`; each (node, place) is tried once."""
    todo, seen = [(trie, 0)], set()
    while todo:
        node, index = todo.pop()
        if (id(node), index) in seen:
            continue
        seen.add((id(node), index))
        if node.get(_REST) or (index == len(parts) and node.get(_END)):
            return True
        if index < len(parts):
            for key in ("=" + parts[index], _PARAM):
                if key in node:
                    todo.append((node[key], index + 1))
    return False


_STRING = re.compile(blocks.STRING, re.S)


def _places(text: str) -> dict[str, tuple[int, int]]:
    """The line and column of the first string of each value in `text`, found in one pass."""
    lines = LineIndex(text)
    out: dict[str, tuple[int, int]] = {}
    for match in _STRING.finditer(text):
        try:
            value = json.loads(match.group(0))
        except ValueError:
            continue
        out.setdefault(value.strip("/"), lines.at(match.start()))
    return out


def _found(path: str, place: tuple[int, int] | None, message: str, rule: str) -> Finding:
    line, col = place or (1, 1)
    return Finding(path, line, col, CHECK, message, f"upstream/{rule}")


def check(tree: Tree, nav: Nav, rfds: bool = True) -> list[Finding]:
    """Pages listed but missing, and (with `rfds`, on ACP's tree) RFDs in no status group or
    in more than one."""
    found: list[Finding] = []
    if tree.nav is None:
        return found
    seen = set()
    places = _places(tree.nav_text)
    for route, _tabs, _groups in nav.listed:
        if route in seen:
            continue
        seen.add(route)
        if route not in tree.pages:
            message = f"the navigation lists {route!r}, which no page is (docs/{route}.mdx)"
            found.append(_found(NAV_FILE, places.get(route), message, "nav-missing-page"))
    for route, page in sorted(tree.pages.items()) if rfds else ():
        if not nav.is_rfd(route):
            continue
        statuses = nav.status(route)
        if not statuses:
            message = (
                "this RFD is in no status group of the RFDs tab in docs/docs.json"
                " (Draft, Active, Preview, Completed)"
            )
            found.append(_found(page.path, None, message, "nav-no-status"))
        elif len(statuses) > 1:
            message = f"{route!r} is in more than one status group: {', '.join(statuses)}"
            found.append(_found(NAV_FILE, places.get(route), message, "nav-two-statuses"))
    return found
