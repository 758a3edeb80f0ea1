"""The `rfds` check: each RFD's front matter, sections, FAQ, history and place in the navigation.

Reported by the plugin from the RFD lint (`acp_docs.rfds.model`).
"""

from __future__ import annotations

from acp_docs.checks.registry import Check, Guide

CHECK = Check(
    name="rfds",
    summary="Bad front matter, a missing or misplaced section, an RFD missing from the nav.",
    rules={
        "rfds": "Follow the RFD template and its front matter.",
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
    docs="rfds",
    order=40,
    guide=Guide("docs/tooling/writing.md", "front-matter", "Front matter"),
)
