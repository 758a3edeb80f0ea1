"""Text of the template left in an RFD: a warning while it is a Draft, an error from Active on.

`acp-docs new` copies `rfds/TEMPLATE.md`, whose sections hold guidance for
the author ("Copy this file...", "What are you proposing, in a paragraph or
two?"). Each paragraph of the template's body that is neither a heading, a
`>` prompt line (which the template asks authors to keep) nor an item of the
revision history is placeholder text; the same paragraph in an RFD, white
space aside, has not been written yet. The finding is at its first line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from acp_docs.core.findings import Finding
from acp_docs.markdown.blocks import front_matter_end
from acp_docs.markdown.fences import code_lines
from acp_docs.rfds.files import Rfd
from acp_docs.rfds.template import CHECK, STATUSES, TEMPLATE_NAME
from acp_docs.sources.textfile import UnreadableFile, read_text

RULE = f"{CHECK}/placeholder"
SHORTEST = 20
"""Characters of a paragraph, at least, to count: a short line may be written on purpose."""


def _paragraphs(text: str) -> Iterator[tuple[int, str]]:
    """(first line, text with white space made single) of each prose paragraph of a body."""
    lines = text.split("\n")
    hidden = set(range(1, front_matter_end(lines) + 1)) | code_lines(text)
    start = 0
    block: list[str] = []
    for number, line in enumerate([*lines, ""], start=1):
        stripped = line.strip()
        if number in hidden or not stripped or stripped.startswith(("#", ">", "- ", "* ", "<!--")):
            if block:
                yield start, " ".join(block)
            start, block = 0, []
            continue
        if not block:
            start = number
        block.append(stripped)


def template_paragraphs(rfds_dir: Path) -> frozenset[str]:
    """The placeholder paragraphs of `rfds/TEMPLATE.md` (none when it cannot be read)."""
    try:
        text = read_text(rfds_dir / TEMPLATE_NAME, f"rfds/{TEMPLATE_NAME}")
    except UnreadableFile:
        return frozenset()
    return frozenset(" ".join(p.split()) for _line, p in _paragraphs(text) if len(p) >= SHORTEST)


def lint(rfd: Rfd, placeholders: frozenset[str]) -> list[Finding]:
    """A finding for each paragraph of the template the RFD still holds as it is."""
    if not placeholders or rfd.path.name == TEMPLATE_NAME:
        return []
    status = (rfd.meta or {}).get("status") if isinstance(rfd.meta, dict) else None
    status = status if isinstance(status, str) else "draft"
    level = "warning" if status == "draft" else "error"
    said = STATUSES.get(status, status) if level == "error" else STATUSES["active"]
    out = []
    for line, paragraph in _paragraphs(rfd.text):
        if " ".join(paragraph.split()) in placeholders:
            shown = paragraph if len(paragraph) <= 60 else paragraph[:57] + "..."
            message = (
                f"placeholder text of the template, not yet written: {shown!r}; replace it with"
                f" the RFD's own text (a warning while a Draft, an error once {said})"
            )
            out.append(Finding(rfd.shown, line, 1, CHECK, message, RULE, level))
    return out
