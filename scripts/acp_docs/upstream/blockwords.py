"""What a page's words and a block's own shape say about the block, before any schema is read.

- Its version: the fence's title (`json v2`); else the sentence right before
  it when it names one version ("For v2, the equivalent carrier is:"); else the
  page's folder (`rfds/v2/`); else the oldest.
- Whether it is a proposal's: it stands in a "Shiny future" section, which
  tells what does not exist yet.
- Whether it is a JSON Schema (it describes values) rather than a payload.
"""

from __future__ import annotations

import re
from typing import Any

from acp_docs.core import protocols

FUTURE = re.compile(r"^##\s+shiny future\s*$", re.I)
"""The template's section that tells what does not exist yet: its examples are proposals."""
_SECTION = re.compile(r"^##\s+\S")


def in_future(text: str, line: int) -> bool:
    """True when the fence at `line` stands in a "Shiny future" section of the page."""
    for row in reversed(text.split("\n")[: max(0, line - 1)]):
        if _SECTION.match(row):
            return FUTURE.match(row.strip()) is not None
    return False


_NAMED = re.compile(r"\b(?:for|in|with|under|of)\s+(?:ACP\s+|protocol\s+)?(v\d+)\b", re.I)


def prose_before(text: str, line: int) -> str:
    """The paragraph of prose right before the fence at `line` (1-based): the lines above it
    up to the blank line before them, at most five, a declaration comment left out."""
    rows = text.split("\n")[: max(0, line - 1)]
    while rows and (not rows[-1].strip() or rows[-1].lstrip().startswith("{/*")):
        rows.pop()
    kept: list[str] = []
    while rows and rows[-1].strip() and len(kept) < 5:
        kept.insert(0, rows.pop())
    return " ".join(kept)


def version_of(route: str, meta: str, prose: str = "") -> str:
    """The protocol version of a block: the fence's title names it; else the words right
    before it ("For v2, ...") when they name one version alone; else the page's folder."""
    for word in meta.replace('"', " ").split():
        if word in protocols.VERSIONS:
            return word
    named = {m.lower() for m in _NAMED.findall(prose[:2000])} & set(protocols.VERSIONS)
    if len(named) == 1:
        return named.pop()
    folders = route.split("/")[:-1]
    for name in protocols.NAMES:
        if name in folders:
            return name
    return protocols.NAMES[0]


SCHEMA_WORDS = frozenset(
    {"type", "$ref", "const", "enum", "anyOf", "oneOf", "allOf", "items", "properties", "format"}
)
TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})


def is_json_schema(value: Any) -> bool:
    """True for a JSON Schema rather than a payload: `$schema` or `$defs`, or an object type
    whose `properties` each hold schema keywords (`{"type": "string", "const": "acp"}`).
    Payloads that are schemas (an elicitation's) are checked when their message carries
    them, or when a declaration names them."""
    if not isinstance(value, dict):
        return False
    if "$schema" in value or "$defs" in value:
        return True
    kind = value.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    props = value.get("properties")
    if not kinds <= TYPES or not isinstance(props, dict) or not props:
        return False
    return all(isinstance(p, dict) and p and set(p) & SCHEMA_WORDS for p in props.values())
