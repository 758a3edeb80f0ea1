"""Upstream's own RFD template, read from the tree (`docs/rfds/TEMPLATE`), as a lint.

Each `##` section of the template is expected in every RFD, in its order of
the template; a section whose guidance says OPTIONAL may be left out while the
RFD is a Draft. The template asks authors to keep its `>` prompt lines, but
a tree's practice decides: upstream merges RFDs without them and never adds
them (none keeps one at b7f0005; 18 of 27 did in April 2026), so an RFD is
asked to keep them only where every other RFD of the tree does; otherwise a
note says that the practice is to drop them. Upstream merges RFDs that
bend these rules, so they are warnings; a title left as the template's
placeholder is an error.
A Completed RFD (or one to be removed) is a record, not a draft: it is not held
to a template that may have changed since it was written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acp_docs.core.findings import Finding
from acp_docs.sources.textfile import UnreadableFile, read_text
from acp_docs.upstream.nav import Nav
from acp_docs.upstream.scan import Scanned
from acp_docs.upstream.tree import Tree

CHECK = "upstream-template"
TEMPLATE = "docs/rfds/TEMPLATE"
_HEADING = re.compile(r"^## (.+?)\s*$", re.M)
_TITLE = re.compile(r"^title:\s*[\"']?(.*?)[\"']?\s*$", re.M)
_AUTHOR = re.compile(r"^\s*(?:[-*]\s*)?\**authors?(?:\(s\))?\**\s*:", re.M | re.I)


@dataclass(frozen=True)
class Section:
    """One section of the template: its heading, whether it has a `>` prompt, and if optional."""

    heading: str
    prompted: bool
    optional: bool


@dataclass(frozen=True)
class Template:
    """The template's sections, and its placeholder title."""

    sections: tuple[Section, ...]
    placeholder: str


def _front_matter(text: str) -> str:
    match = re.match(r"---\r?\n(.*?)\r?\n---", text, re.S)
    return match.group(1) if match else ""


def parse(text: str) -> Template:
    """The template's sections (see `Section`) from its text."""
    sections = []
    bodies = _HEADING.split(text)
    for heading, body in zip(bodies[1::2], bodies[2::2], strict=True):
        first = next((ln for ln in body.split("\n") if ln.strip()), "")
        sections.append(Section(heading, first.startswith(">"), "OPTIONAL" in body))
    title = _TITLE.search(_front_matter(text))
    return Template(tuple(sections), title.group(1) if title else "")


def load(tree: Tree) -> Template | None:
    """The tree's template, or None when it has none (or it cannot be read)."""
    path = tree.root / TEMPLATE
    if path.is_symlink() or not path.is_file():
        return None
    try:
        return parse(read_text(path, TEMPLATE))
    except UnreadableFile:
        return None


SETTLED = ("Completed", "To be removed", "Removed")
"""The status groups whose RFDs the template no longer applies to."""


def check(tree: Tree, nav: Nav, scanned: dict[str, Scanned]) -> list[Finding]:
    """Every RFD page held to the tree's template."""
    template = load(tree)
    if template is None:
        message = f"{TEMPLATE} is missing or not a readable file: RFDs are not held to a template"
        return [Finding(TEMPLATE, 1, 1, CHECK, message, "upstream/template-missing", "note")]
    found = []
    rfds = [
        (route, page)
        for route, page in sorted(tree.pages.items())
        if nav.is_rfd(route) and scanned.get(page.path, Scanned()).error is None
    ]
    keeps = {page.path: _keeps_prompts(page.text, template) for _route, page in rfds}
    judged = [kept for kept in keeps.values() if kept is not None]
    prompting = sum(judged)
    if prompting < len(judged) - 1 and any(s.prompted for s in template.sections):
        message = (
            f"{prompting} of the tree's {len(judged)} RFDs keep the template's `>` prompt lines:"
            " an RFD is asked to keep them only where every other RFD does"
        )
        found.append(Finding(TEMPLATE, 1, 1, CHECK, message, "upstream/template-practice", "note"))
    for route, page in rfds:
        status = nav.status(route)[:1]
        if status and status[0] in SETTLED:
            continue  # the template is for RFDs still being written
        others = prompting - bool(keeps[page.path]) == len(judged) - (keeps[page.path] is not None)
        found += _page(page.path, page.text, template, status == ["Draft"], others)
    return found


def _expanded(heading: str, template: Template) -> str:
    """The template's heading that `heading` names in other case or as its initials (`FAQ`
    for "Frequently asked questions", as upstream's RFDs write it), or `heading` itself."""
    for section in template.sections:
        words = re.findall(r"[A-Za-z]+", section.heading)
        initials = "".join(w[0] for w in words)
        if heading.casefold() in (section.heading.casefold(), initials.casefold()) and (
            len(heading) > 1
        ):
            return section.heading
    return heading


def _keeps_prompts(text: str, template: Template) -> bool | None:
    """Whether an RFD keeps a `>` prompt line under a prompted section of the template; None
    when it has none of those sections (it says nothing of the practice)."""
    prompted = {s.heading for s in template.sections if s.prompted}
    found = False
    for match in _HEADING.finditer(text):
        if match.group(1) in prompted:
            found = True
            after = next((ln for ln in text[match.end() :].split("\n") if ln.strip()), "")
            if after.startswith(">"):
                return True
    return False if found else None


def _page(
    path: str, text: str, template: Template, draft: bool, prompts: bool = True
) -> list[Finding]:
    found = []

    def add(line: int, rule: str, message: str, level: str = "warning") -> None:
        found.append(Finding(path, line, 1, CHECK, message, f"upstream/{rule}", level))

    title = _TITLE.search(_front_matter(text))
    if title is None or not title.group(1).strip():
        add(1, "template-title", "the front matter has no `title:` (Mintlify shows it)", "error")
    elif template.placeholder and title.group(1).strip() == template.placeholder:
        add(
            2,
            "template-title",
            f"the title is still the template's {template.placeholder!r}",
            "error",
        )
    if not _AUTHOR.search(text):
        add(1, "template-author", "no `Author(s):` line: the template asks who wrote the RFD")
    headings = {m.group(1): m for m in _HEADING.finditer(text)}
    for heading, found_at in list(headings.items()):
        headings.setdefault(_expanded(heading, template), found_at)
    for section in template.sections:
        match = headings.get(section.heading)
        if match is None:
            if not (section.optional and draft):
                why = " (optional only while a Draft)" if section.optional else ""
                add(1, "template-section", f"no `## {section.heading}` section{why}")
            continue
        line = text.count("\n", 0, match.start()) + 1
        after = next((ln for ln in text[match.end() :].split("\n") if ln.strip()), "")
        if prompts and section.prompted and not after.startswith(">"):
            add(line, "template-prompt", "the template's `>` prompt line is missing here (keep it)")
    return found
