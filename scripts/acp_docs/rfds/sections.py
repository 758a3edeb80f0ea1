"""The sections of an RFD: the template's order and prompts, its FAQ and its revision history."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass

from acp_docs.core.findings import Finding
from acp_docs.markdown.blocks import Heading
from acp_docs.markdown.fences import code_lines
from acp_docs.rfds.files import Rfd
from acp_docs.rfds.template import (
    ALTERNATIVES,
    ALWAYS,
    CHECK,
    FAQ,
    HISTORY,
    PROMPTS,
    REQUIRED_FROM,
    SECTIONS,
    STATUSES,
    required_sections,
)

_DATED = re.compile(r"^\s*[-*]\s+\**(\d{4}-\d{2}-\d{2})\**\b")


def lint_sections(rfd: Rfd) -> list[Finding]:
    out: list[Finding] = []
    heads = rfd.headings()
    h2 = [h for h in heads if h.level == 2]
    positions: dict[str, Heading] = {}
    for head in h2:
        if head.text in SECTIONS and head.text not in positions:
            positions[head.text] = head
    status = rfd.status or "draft"
    for name in required_sections(status):
        if name not in positions:
            since = (
                "every RFD has it"
                if name in ALWAYS
                else f"required from {STATUSES[REQUIRED_FROM[name]]} on"
            )
            out.append(
                Finding(
                    rfd.shown,
                    1,
                    1,
                    CHECK,
                    f"missing template section '## {name}' ({since}; this RFD is"
                    f" {STATUSES.get(status, status)})",
                    "rfds/missing-section",
                )
            )
    present = [h for h in h2 if h.text in SECTIONS]
    expected = [s for s in SECTIONS if s in positions]
    for head, want in zip(present, expected, strict=False):
        if head.text != want:
            out.append(
                Finding(
                    rfd.shown,
                    head.line,
                    1,
                    CHECK,
                    f"section '{head.text}' is out of order: the template puts '{want}' here",
                    "rfds/section-order",
                )
            )
            break
    lines = rfd.text.split("\n")
    for name, prompt in PROMPTS.items():
        if name in positions:
            out.extend(_lint_prompt(rfd, positions[name], prompt, lines))
    if FAQ in positions:
        out.extend(_lint_faq(rfd, heads, positions[FAQ], lines))
    if HISTORY in positions:
        out.extend(_lint_history(rfd, heads, positions[HISTORY], lines))
    return out


def _lint_prompt(rfd: Rfd, head: Heading, prompt: str, lines: list[str]) -> list[Finding]:
    following = next((ln.strip() for ln in lines[head.line :] if ln.strip()), "")
    if following == f"> {prompt}":
        return []
    return [
        Finding(
            rfd.shown,
            head.line + 1,
            1,
            CHECK,
            f"the template's prompt must open '## {head.text}': add the line '> {prompt}'",
            "rfds/prompt",
        )
    ]


def _section_lines(heads: list[Heading], start: Heading, total: int) -> range:
    later = [h.line for h in heads if h.line > start.line and h.level <= start.level]
    return range(start.line + 1, (later[0] if later else total + 1))


def _lint_faq(rfd: Rfd, heads: list[Heading], faq: Heading, lines: list[str]) -> list[Finding]:
    out: list[Finding] = []
    span = _section_lines(heads, faq, len(lines))
    questions = [h for h in heads if h.line in span and h.level == 3]
    past_draft = (rfd.status or "draft") != "draft"
    if questions and past_draft and not any(q.text == ALTERNATIVES for q in questions):
        out.append(
            Finding(
                rfd.shown,
                faq.line,
                1,
                CHECK,
                f"past Draft, the FAQ answers '### {ALTERNATIVES}', the question the upstream"
                " template opens it with",
                "rfds/alternatives",
            )
        )
    if not questions and past_draft:
        out.append(
            Finding(
                rfd.shown,
                faq.line,
                1,
                CHECK,
                "the FAQ has no question: give each a '###'",
                "rfds/faq",
            )
        )
    in_code = code_lines(rfd.text)
    for number in span:
        line = lines[number - 1]
        if number in in_code or line.startswith("#") or not line.strip():
            continue
        stripped = line.strip()
        bold_question = stripped.startswith(("**", "__")) and stripped.rstrip("*_ ").endswith("?")
        if bold_question or stripped.startswith(("Q:", "**Q:")):
            out.append(
                Finding(
                    rfd.shown,
                    number,
                    1,
                    CHECK,
                    "FAQ question written as a paragraph: make it a '###' heading so it gets"
                    " an anchor",
                    "rfds/faq",
                )
            )
    return out


@dataclass(frozen=True)
class Revision:
    """One dated entry of an RFD's revision history."""

    date: dt.date
    text: str
    line: int


def revisions(rfd: Rfd) -> list[Revision]:
    """The dated entries of the RFD's revision history, as written (continuation lines joined)."""
    heads = rfd.headings()
    history = next((h for h in heads if h.level == 2 and h.text == HISTORY), None)
    if history is None:
        return []
    lines = rfd.text.split("\n")
    out: list[Revision] = []
    for number, line, match in _history_lines(lines, _section_lines(heads, history, len(lines))):
        if match:
            try:
                day = dt.date.fromisoformat(match.group(1))
            except ValueError:
                continue
            text = line[match.end() :].lstrip("*: ").strip()
            out.append(Revision(day, text, number))
        elif out and line.startswith((" ", "\t")) and line.strip():
            last = out[-1]
            out[-1] = Revision(last.date, f"{last.text} {line.strip()}", last.line)
    return out


def _history_lines(
    lines: list[str], span: range
) -> Iterator[tuple[int, str, re.Match[str] | None]]:
    """Each line of a revision history: its number, its text, and its date's match if dated."""
    for number in span:
        line = lines[number - 1]
        yield number, line, _DATED.match(line)


def _lint_history(rfd: Rfd, heads: list[Heading], head: Heading, lines: list[str]) -> list[Finding]:
    span = _section_lines(heads, head, len(lines))
    for number, _line, match in _history_lines(lines, span):
        if match:
            try:
                dt.date.fromisoformat(match.group(1))
            except ValueError:
                return [
                    Finding(
                        rfd.shown,
                        number,
                        1,
                        CHECK,
                        f"{match.group(1)} is not a date",
                        "rfds/revision-history",
                    )
                ]
            return []
    return [
        Finding(
            rfd.shown,
            head.line,
            1,
            CHECK,
            "the revision history has no dated entry: '- 2026-01-31: what changed'",
            "rfds/revision-history",
        )
    ]
