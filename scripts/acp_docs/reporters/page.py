"""Findings shown on the served page (`mkdocs serve` only): notes in place, a summary, a banner.

Each finding about a page becomes a note next to the block its line produced
(see `acp_docs.markdown.blockmap`), naming the rule, the place and the message, with a
line on how to fix that kind of problem. A summary at the top of the page
links to each note; a banner lists the problems of other pages (linked to
their notes) and of files that are no page (`mkdocs.yml`, schema sources,
fixtures). The plugin calls this only while serving, so a built site never
carries any of it.
"""

from __future__ import annotations

import html
import re
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from acp_docs.checks import registry
from acp_docs.core.findings import Finding
from acp_docs.reporters import Reporter

NOTE_ID = "acp-problem-{}"
SUMMARY_ID = "acp-problems"
BANNER_ID = "acp-problems-elsewhere"
BANNER_OPEN_UP_TO = 10
BUILD_FAILED_ID = "acp-build-failed"
# A token of this process: a page's own comments cannot pose as the notice's bounds.
_FAILED_MARK = f"<!-- acp-docs: build failed {secrets.token_hex(8)} -->"
_FAILED_OLD = re.compile(re.escape(_FAILED_MARK) + ".*?" + re.escape(_FAILED_MARK), re.S)
_ARTICLE = re.compile(r'<article\b[^>]*class="[^"]*\bmd-typeset\b[^"]*"[^>]*>')
_BODY = re.compile(r"<body\b[^>]*>")
MAX_PLACED = 200
"""Notes placed in the page at most; beyond them, a page's problems are listed at the top only."""

STYLE = """<style>
.md-typeset .acp-problem,.md-typeset .acp-problems{border:2px solid #b3261e;
border-left-width:.5rem;border-radius:.2rem;background:#fdecea;color:#410e0b;
padding:.4rem .8rem;margin:.6rem 0;font-size:.75rem;box-shadow:none}
.md-typeset .acp-problem p,.md-typeset .acp-problems p{margin:.2rem 0}
.md-typeset .acp-problem code,.md-typeset .acp-problems code{color:#410e0b;background:#f9d6d2}
.md-typeset .acp-problems a,.md-typeset .acp-problem a{color:#5c0a05;text-decoration:underline}
.md-typeset .acp-problems ol{margin:.2rem 0 .2rem 1.2rem}
.md-typeset .acp-problem__rule{font-weight:700}
.md-typeset details.acp-problems>summary{background:transparent;padding:.2rem 1.8rem .2rem 0;
color:inherit;margin:0}
.md-typeset details.acp-problems>summary::before{content:none}
[data-md-color-scheme=slate] .md-typeset .acp-problem,
[data-md-color-scheme=slate] .md-typeset .acp-problems{
background:#3b1412;color:#ffdad6;border-color:#ffb4ab}
[data-md-color-scheme=slate] .md-typeset .acp-problem code,
[data-md-color-scheme=slate] .md-typeset .acp-problems code{color:#ffdad6;background:#5c1a16}
[data-md-color-scheme=slate] .md-typeset .acp-problems a,
[data-md-color-scheme=slate] .md-typeset .acp-problem a{color:#ffdad6}
</style>"""


def _fix(finding: Finding, page_urls: Mapping[str, str], checks: Mapping[str, Any]) -> str:
    check = checks.get(finding.check)
    text = registry.fix_hint(check, finding.rule_id)
    if check is None or text is None:
        return ""
    guide = check.guide
    url = page_urls.get(guide.doc) if guide is not None else None
    more = ""
    if guide is not None and url:
        href = html.escape(f"{url}#{guide.anchor}", quote=True)
        more = f' See <a href="{href}">{html.escape(guide.title)}</a>.'
    return f'<p class="acp-problem__fix">How to fix: {html.escape(text)}{more}</p>'


def ordered(findings: Sequence[Finding]) -> list[Finding]:
    """A page's findings in the order their notes are numbered (the same on every page)."""
    return sorted(set(findings))


def _where(finding: Finding) -> str:
    return html.escape(finding.location())


def note(
    finding: Finding,
    number: int,
    page_urls: Mapping[str, str] | None = None,
    checks: Mapping[str, Any] | None = None,
) -> str:
    """One finding as a note placed in the page: the rule, the place, the message, the fix.

    `checks` is the check registry (`registry.load_checks()`), loaded once by the caller of
    many notes."""
    return (
        f'<aside class="acp-problem" id="{NOTE_ID.format(number)}" role="note"'
        f' aria-label="Problem {number}: {html.escape(finding.rule_id, quote=True)}">'
        f'<p class="acp-problem__rule">Problem {number}:'
        f" <code>{html.escape(finding.rule_id)}</code> at <code>{_where(finding)}</code></p>"
        f'<p class="acp-problem__message">{html.escape(finding.message)}</p>'
        f"{_fix(finding, page_urls or {}, registry.load_checks() if checks is None else checks)}"
        "</aside>"
    )


def _summary(findings: list[Finding], placed: set[int]) -> str:
    items = []
    for number, finding in enumerate(findings, start=1):
        text = (
            f"line {finding.line}: <code>{html.escape(finding.rule_id)}</code>"
            f" {html.escape(finding.message)}"
        )
        if number > MAX_PLACED:
            items.append(f"<li>{text}</li>")
            continue
        items.append(f'<li><a href="#{NOTE_ID.format(number)}">{text}</a></li>')
    count = len(findings)
    unplaced = count - len(placed)
    extra = f" ({unplaced} shown here only)" if unplaced else ""
    return (
        f'<div class="acp-problems" id="{SUMMARY_ID}" role="region"'
        f' aria-label="Problems on this page">'
        f"<p><strong>{count} problem{'s' if count != 1 else ''} on this page</strong>{extra}."
        " Shown while serving only; each disappears when it is fixed.</p>"
        f"<ol>{''.join(items)}</ol></div>"
    )


def _banner(
    elsewhere: Sequence[Finding], page_urls: Mapping[str, str], causes: frozenset[str]
) -> str:
    by_path: dict[str, list[Finding]] = {}
    for finding in elsewhere:
        by_path.setdefault(finding.path, []).append(finding)
    items = []

    # Files in the order of their first finding: a schema source that cannot be used
    # (the cause of findings elsewhere) comes first.
    def first(path: str) -> tuple[bool, tuple[str, int, int, str, str, str, str]]:
        found = by_path[path]
        return (not any(f.check in causes for f in found), min(found).sort_key())

    for path in sorted(by_path, key=first):
        for number, finding in enumerate(ordered(by_path[path]), start=1):
            where = _where(finding)
            url = page_urls.get(path)
            if url is not None and number <= MAX_PLACED:
                href = html.escape(f"{url}#{NOTE_ID.format(number)}", quote=True)
                where = f'<a href="{href}">{where}</a>'
            items.append(
                f"<li><code>{where}</code> <code>{html.escape(finding.rule_id)}</code>"
                f" {html.escape(finding.message)}</li>"
            )
    count = len(items)
    # A long list stays folded so that the page itself remains in view, unless it
    # starts with a cause, such as a schema source that cannot be used.
    cause = any(f.check in causes for f in elsewhere)
    opened = " open" if count <= BANNER_OPEN_UP_TO or cause else ""
    return (
        f'<details class="acp-problems" id="{BANNER_ID}"{opened}>'
        f"<summary><strong>{count} problem{'s' if count != 1 else ''} elsewhere</strong>"
        " (other pages, mkdocs.yml, schema sources, fixtures)</summary>"
        f"<ol>{''.join(items)}</ol></details>"
    )


def annotate(
    content: str,
    source: str,
    mine: Sequence[Finding],
    elsewhere: Sequence[Finding],
    page_urls: Mapping[str, str],
    checks: Mapping[str, registry.Check] | None = None,
) -> str:
    """The page's HTML with a note beside each of its problems, a summary and a banner on top.

    `source` is the page's Markdown as written (the findings' lines are its
    lines); `page_urls` maps the path of each page to its URL relative to
    this page, so the banner links to the notes on other pages. `checks` are
    the build's checks (their hints, and which are causes); default: those
    installed.
    """
    if not mine and not elsewhere:
        return content
    from acp_docs.markdown import blockmap  # the Markdown engine: only for a page to annotate

    findings = ordered(mine)
    if checks is None:
        checks = registry.load_checks()
    causes = registry.causes(checks)
    inserts: dict[int, list[str]] = {}
    placed: set[int] = set()
    if findings:
        found = blockmap.blocks(content)
        lines = blockmap.source_of(source)
    for number, finding in enumerate(findings[:MAX_PLACED], start=1):
        at = blockmap.place(content, lines, finding.line, finding.col, found)
        if at is not None:
            inserts.setdefault(at, []).append(note(finding, number, page_urls, checks))
            placed.add(number)
    top = [STYLE]
    if elsewhere:
        top.append(_banner(elsewhere, page_urls, causes))
    if findings:
        top.append(_summary(findings, placed))
        top += [
            note(f, n, page_urls, checks)
            for n, f in enumerate(findings, start=1)
            if n not in placed and n <= MAX_PLACED
        ]
    pieces = []
    last = 0
    for at in sorted(inserts):
        pieces += [content[last:at], *inserts[at]]
        last = at
    pieces.append(content[last:])
    return "".join(top) + "".join(pieces)


def build_failed(message: str) -> str:
    """The notice that the last save could not be built, with what the build said."""
    return (
        f"{_FAILED_MARK}{STYLE}"
        f'<div class="acp-problems" id="{BUILD_FAILED_ID}" role="alert">'
        "<p><strong>The site could not be built</strong> after the last save; what you see"
        " below is the last build that worked.</p>"
        f'<pre><code style="white-space:pre-wrap">{html.escape(message)}</code></pre>'
        "<p>Fix it and save again: this page reloads by itself.</p></div>"
        f"{_FAILED_MARK}"
    )


def with_build_failed(page: str, message: str) -> str:
    """A whole served page with the build-failed notice on top of its content (one, the last)."""
    page = _FAILED_OLD.sub("", page)
    found = _ARTICLE.search(page) or _BODY.search(page)
    at = found.end() if found else 0
    return page[:at] + build_failed(message) + page[at:]


def build_failed_page(message: str) -> str:
    """A page of its own for the notice, where the last build left no page."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        "<title>The site could not be built</title></head>"
        f'<body><main class="md-typeset">{build_failed(message)}</main></body></html>'
    )


REPORTER = Reporter(
    summary="notes in place, a summary and a banner on the page `mkdocs serve` shows",
    cli=False,
    annotate=annotate,
)
"""The served page's findings (the plugin calls its `annotate`); no `--format` choice."""
