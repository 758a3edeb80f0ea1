"""Whether a Mintlify tree is ACP's: only then are its examples judged by ACP's schemas.

A tree is ACP's when it keeps ACP's schemas (`schema/v1/schema.json`,
`schema/v2/schema.json`, or before v2 `schema/schema.json`, when that schema
has ACP's `SessionUpdate` and `InitializeRequest`), when `docs/docs.json` names the Agent Client
Protocol, or when its navigation has the RFDs tab with status groups. Any
other Mintlify tree (MCP's, a product's) gets the checks that hold for every
Mintlify tree: its files, MDX, navigation, links, spelling and formatting,
and a note that says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from acp_docs.core import protocols
from acp_docs.upstream.nav import RFDS_TAB, Nav
from acp_docs.upstream.tree import Tree
from acp_docs.upstream.treeschemas import tree_file

ACP_NAME = "agent client protocol"
ACP_DEFINITIONS = (b'"SessionUpdate"', b'"InitializeRequest"')
"""Names an ACP schema holds: a `schema/schema.json` of another project does not make its
tree ACP's."""
SNIFF = 8 * 1024 * 1024
"""The most bytes of a schema file read to tell whether it is ACP's."""


def _names_acp(path: Path) -> bool:
    try:
        with open(path, "rb") as schema:
            head = schema.read(SNIFF)
    except OSError:
        return False
    return all(name in head for name in ACP_DEFINITIONS)


@dataclass(frozen=True)
class Recognised:
    """What the tree is, and why the check thinks so."""

    acp: bool
    why: str


def recognise(tree: Tree, nav: Nav) -> Recognised:
    """Whether `tree` is ACP's, with the reason."""
    for version in protocols.VERSIONS.values():
        for rel in protocols.tree_files(version, "stable"):
            if tree_file(tree.root, rel) is not None and _names_acp(tree.root / rel):
                return Recognised(True, f"it keeps ACP's {rel}")
    name = tree.nav.get("name") if isinstance(tree.nav, dict) else None
    if isinstance(name, str) and ACP_NAME in name.casefold():
        return Recognised(True, f"docs/docs.json names {name!r}")
    for _route, tabs, groups in nav.listed:
        if RFDS_TAB in tabs and groups:
            return Recognised(True, f"its navigation has the {RFDS_TAB} tab with status groups")
    named = f"docs/docs.json names {name!r}" if isinstance(name, str) else "docs/docs.json"
    return Recognised(
        False,
        f"a Mintlify tree, but not ACP's ({named}; no schema/v1 or schema/v2; no {RFDS_TAB} tab"
        " with status groups): only the checks that hold for any Mintlify tree ran (files,"
        " MDX, navigation, links, spelling, formatting); no example was judged by ACP's schemas",
    )
