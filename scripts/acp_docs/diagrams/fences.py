"""The ```mermaid fences of a page, and the Markdown that stands in for each drawn one.

A drawn diagram leaves the Markdown as one placeholder word, inside the
generated-section comments (so spelling passes over it), which the plugin
swaps for the published figure after the page has passed the allowlist. The
word holds a secret made once per process, so a page cannot write one. A
diagram that is not drawn stays as written: the page shows its text as a
plain code block, which Material's Mermaid loader does not touch (it looks
for `pre.mermaid`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass

from acp_docs.markdown import prose
from acp_docs.markdown.fences import CodeBlock, fenced_blocks

LANG = "mermaid"
_SECRET = secrets.token_hex(8)


@dataclass(frozen=True)
class Diagram:
    """A ```mermaid block: the file line of its fence, and its text."""

    line: int
    text: str


def secret() -> str:
    """This process's secret, part of every placeholder (kept pages hold it as a slot)."""
    return _SECRET


def placeholder(ident: str) -> str:
    """The word that stands for the drawing `ident` until the page is published."""
    return f"ACPDIAGRAM{_SECRET}X{ident.replace('-', '')}"


def _mermaid(text: str) -> list[CodeBlock]:
    return [b for b in fenced_blocks(text) if b.lang == LANG and b.closed]


def diagrams(source: str) -> list[Diagram]:
    """Every closed ```mermaid block of the page's file, at its fence's line."""
    return [Diagram(b.line, b.content) for b in _mermaid(source)]


def replace(markdown: str, source: str, drawn: Callable[[Diagram], str | None]) -> str:
    """`markdown` with each ```mermaid block `drawn` gives a placeholder for replaced by it.

    `markdown` is the page as MkDocs hands it to plugins (its front matter gone,
    markers expanded); lines are taken from `source`, the file as written, by
    matching the blocks' text in order.
    """
    written = diagrams(source)
    lines = markdown.split("\n")
    cursor = 0
    edits: list[tuple[CodeBlock, str]] = []
    for block in _mermaid(markdown):
        match = next(
            (i for i in range(cursor, len(written)) if written[i].text == block.content), None
        )
        if match is None:
            continue  # made by a marker, not written: not a diagram of the page
        cursor = match + 1
        word = drawn(written[match])
        if word is not None:
            edits.append((block, word))
    for block, word in reversed(edits):
        opening = lines[block.line - 1]
        prefix = opening[: block.col - 1]
        made = ["", prose.GENERATED_OPEN, "", word, "", prose.GENERATED_CLOSE, ""]
        lines[block.line - 1 : block.end_line] = [
            f"{prefix}{line}" if line else prefix.rstrip() for line in made
        ]
    return "\n".join(lines)
