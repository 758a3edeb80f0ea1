"""The `schema` check: schema sources, their generated fragments and the merged schemas.

A source or merge that is refused, a fragment that differs from its source
(drift), a source no RFD owns. Its findings are causes: a source that cannot
be used makes findings in the pages and fixtures that rely on it, so they are
read first.
"""

from __future__ import annotations

from acp_docs.checks.checkout import Checkout, LoadError
from acp_docs.checks.registry import Check, Guide
from acp_docs.core import memo
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.schema import drift

NAME = "schema"


def _sources(checkout: Checkout) -> list[Finding]:
    found = [error.finding(NAME) for error in checkout.errors_of(f"{NAME}/")]
    slugs = {r.slug for r in checkout.rfds}
    for source in checkout.sources:
        if source.slug not in slugs:
            message = f"no RFD rfds/{source.slug}.md owns this schema source"
            found.append(Finding(source.shown, 1, 1, NAME, message, f"{NAME}/orphan-source"))
    fragment_files = [p for s in checkout.sources for p in sorted(s.directory.glob("v*.json"))]
    try:
        drifts = memo.remembered(
            "drift",
            (checkout.schema_key, memo.digest_of(fragment_files)),
            lambda: drift.check(checkout.root, checkout.sources),
        )
    except UsageError as exc:
        return [*found, LoadError(f"{NAME}/source", exc).finding(NAME)]
    return found + [problem.finding() for problem in drifts]


CHECK = Check(
    name=NAME,
    summary="A fragment that differs from its source; a source or merge that is refused;"
    " a source no RFD owns.",
    rules={
        NAME: "Run `acp-docs schema generate` after editing a schema source.",
        "schema/orphan-source": "Name the folder of schema/ after the RFD that owns it,"
        " or remove it.",
    },
    docs=NAME,
    first=True,
    order=20,
    guide=Guide("docs/tooling/engine.md", "an-rfds-schema-change", "An RFD's schema change"),
    sources=_sources,
)
