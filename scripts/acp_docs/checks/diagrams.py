"""The `diagrams` check: every Mermaid diagram of every page, drawn by the pinned Mermaid.

The site build draws each diagram as it renders the page (the drawing is what
it publishes); this check reports what the drawing met (`PageView.drawn`): a
diagram Mermaid cannot draw, at the line it names; one without a text
alternative; one whose drawing holds what a page may not publish.
"""

from __future__ import annotations

from acp_docs.checks.registry import Check, Guide, PageView
from acp_docs.core.findings import Finding

NAME = "diagrams"


def _page(view: PageView) -> list[Finding]:
    return [Finding(view.path, d.line, 1, NAME, d.message, d.rule) for d in view.drawn]


CHECK = Check(
    name=NAME,
    summary="A Mermaid diagram that does not draw, has no text alternative, or draws"
    " something the site may not publish.",
    rules={
        NAME: "Fix the diagram at the line the message names; `make serve` redraws it.",
        "diagrams/syntax": "Fix the diagram at this line: Mermaid's message says what it expected.",
        "diagrams/text-alternative": "Give the diagram `accTitle:` and `accDescr:` lines.",
        "diagrams/not-allowed": "Draw it with sequence diagram or flowchart syntax, without"
        " `click`, links or HTML labels.",
        "diagrams/too-large": "Split the diagram: one diagram may hold 20,000 characters.",
        "diagrams/unavailable": "Run `make setup`: it installs Chromium and the pinned Mermaid.",
    },
    docs=NAME,
    order=55,
    guide=Guide("docs/tooling/writing.md", "diagrams", "Diagrams"),
    page=_page,
)
