"""The built-in upstream checks, as entry points of `acp_docs.upstream_checks` name them.

`upstream-files`: what the tree's loading met (files that cannot be read,
names, links); `upstream-mdx`: pages the MDX parser cannot compile;
`upstream-examples`: every JSON example against the schemas of the tree
(`acp_docs.upstream.messages`, `acp_docs.upstream.treeschemas`).
"""

from __future__ import annotations

from acp_docs.core.findings import Finding
from acp_docs.upstream import links, messages, nav, prettier, spelling, template, treeschemas
from acp_docs.upstream.registry import UpstreamCheck, UpstreamTree


def _files(read: UpstreamTree) -> list[Finding]:
    return list(read.tree.problems)


def _mdx(read: UpstreamTree) -> list[Finding]:
    return [
        Finding(
            path, s.line, s.col, "upstream-mdx", f"MDX does not compile: {s.error}", "upstream/mdx"
        )
        for path, s in read.pages().items()
        if s.error is not None
    ]


def _examples(read: UpstreamTree) -> list[Finding]:
    scanned = read.pages()
    chosen = treeschemas.choose(read.root)
    schemas = chosen.schemas
    proposals = read.nav.proposals()
    found = [*chosen.problems, *chosen.notes()]
    for route, page in sorted(read.tree.pages.items()):
        page_scan = scanned[page.path]
        checker = messages.PageChecker(
            page.path, route, route in proposals, schemas, page_scan.blocks, page.text
        )
        for block in page_scan.blocks:
            checker.block(block)
        for line in page_scan.stray:
            checker.stray(line)
        found += checker.findings
    return found


FILES = UpstreamCheck(
    "upstream-files", "Files of the tree that cannot be read or are not what they say.", _files, 10
)
MDX = UpstreamCheck(
    "upstream-mdx", "A page the MDX parser cannot compile.", _mdx, 20, reads_pages=True
)
EXAMPLES = UpstreamCheck(
    "upstream-examples",
    "An invalid or undeclared JSON example, against the tree's own schemas.",
    _examples,
    30,
    acp_only=True,
    reads_pages=True,
)


def _nav(read: UpstreamTree) -> list[Finding]:
    return nav.check(read.tree, read.nav, rfds=read.acp)


NAV = UpstreamCheck(
    nav.CHECK, "A page missing from docs.json, or an entry of it with no page.", _nav, 40
)


def _links(read: UpstreamTree) -> list[Finding]:
    return links.check(read.tree, read.nav, read.pages())


LINKS = UpstreamCheck(
    links.CHECK, "A link to a missing page, anchor or file.", _links, 50, reads_pages=True
)


def _template(read: UpstreamTree) -> list[Finding]:
    return template.check(read.tree, read.nav, read.pages())


TEMPLATE = UpstreamCheck(
    template.CHECK,
    "An RFD page that leaves out a section of ACP's RFD template.",
    _template,
    60,
    acp_only=True,
    reads_pages=True,
)


def _spelling(read: UpstreamTree) -> list[Finding]:
    return spelling.check(read.tree, read.only)


SPELLING = UpstreamCheck(
    spelling.CHECK, "A typo, as the tree's own typos.toml reads it.", _spelling, 70
)


def _prettier(read: UpstreamTree) -> list[Finding]:
    return prettier.check(read.tree, read.only)


PRETTIER = UpstreamCheck(
    prettier.CHECK, "A file Prettier would rewrite, with the tree's own settings.", _prettier, 80
)
