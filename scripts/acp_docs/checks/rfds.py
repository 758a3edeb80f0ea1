"""The `rfds` check: each RFD's front matter, sections, FAQ, requirements, history and nav entry.

The work is the RFD lint (`acp_docs.rfds.model`), over the checkout as loaded:
no page needs to be built for it.
"""

from __future__ import annotations

from acp_docs.checks.checkout import Checkout, LoadError
from acp_docs.checks.registry import Check, Guide
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.rfds import model as rfds
from acp_docs.sources import filetree

NAME = "rfds"


def _shadowed(checkout: Checkout) -> list[Finding]:
    """A page of docs/ at the place an RFD is served from (`rfds/<name>.md`) hides it."""
    repo = checkout.repo
    served = [r.docs_path for r in checkout.rfds]
    if filetree.inside(repo.root, repo.rfds_dir / rfds.TEMPLATE_NAME):
        served.append(f"rfds/{rfds.TEMPLATE_NAME}")
    found = []
    for src_uri in sorted(served):
        copy = repo.docs_dir / src_uri
        if checkout.tree.allows(repo.root, copy) and filetree.inside(repo.root, copy):
            message = f"shadows {src_uri}; keep RFDs in rfds/ only"
            found.append(Finding(repo.relative(copy), 1, 1, NAME, message, f"{NAME}/shadowed"))
    return found


def _sources(checkout: Checkout) -> list[Finding]:
    try:
        found = rfds.lint(checkout.repo, checkout.rfds)
    except UsageError as exc:
        found = [LoadError(f"{NAME}/front-matter-schema", exc).finding(NAME)]
    return found + _shadowed(checkout)


CHECK = Check(
    name=NAME,
    summary="Bad front matter, a missing or misplaced section, an RFD missing from the nav.",
    rules={
        NAME: "Follow the RFD template and its front matter.",
        "rfds/shadowed": "Keep RFDs in rfds/ only: remove the copy in docs/.",
        "rfds/link": "Make the RFD a file of its own, not a link to another.",
        "rfds/unknown-folder": "Move the RFDs to rfds/ or to their version's folder.",
        "rfds/placeholder": "Replace the template's guidance with the RFD's own text.",
        "rfds/requirements": "Write requirements.yaml as its format says.",
        "rfds/requirement-cite": "Cite the anchor of a heading the RFD has.",
        "rfds/requirement-quote": "Quote the RFD's sentence as the RFD writes it.",
        "rfds/unbound-rule": "Quote the rule in a requirement, judged on the wire or untested.",
        "rfds/requirement-check": "Give each requirement judged on the wire its check.",
    },
    docs=NAME,
    order=40,
    guide=Guide("docs/tooling/writing.md", "front-matter", "Front matter"),
    sources=_sources,
)
