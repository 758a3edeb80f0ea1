"""The `examples` check: every JSON example a page shows, and every fixture, against the schemas.

The fixtures are read from the checkout (`sources`); a page's examples as the
site renders them (`page`), so a block is judged as readers see it. While a
schema source cannot be used, what it causes is held back in one note.
"""

from __future__ import annotations

from acp_docs.checks.checkout import Checkout
from acp_docs.checks.registry import Check, Guide, PageView
from acp_docs.core import memo, protocols
from acp_docs.core.findings import Finding
from acp_docs.validation import examples
from acp_docs.validation.payloads import check_fixtures, fixture_files


def _sources(checkout: Checkout) -> list[Finding]:
    schemas = checkout.schemas
    if schemas is None:
        return []
    root = checkout.root
    fixtures = [
        path
        for version in protocols.NAMES
        for paths in fixture_files(root, version).values()
        for path in paths
    ]
    checked = memo.remembered(
        "fixtures",
        (checkout.schema_key, memo.digest_of(fixtures)),
        lambda: check_fixtures(root, schemas),
    )
    causes = checkout.unusable
    first = min(checked).path if checked else ""
    # The fixtures are the RFDs' own: while one source cannot be used, none is judged.
    owner = causes[0].slug if causes else None
    return examples.held_back(list(checked), first, causes, owner)


def _page(view: PageView) -> list[Finding]:
    checkout = view.checkout
    schemas = checkout.schemas if checkout is not None else None
    if checkout is None or schemas is None or not view.markdown:
        return []

    def check() -> list[Finding]:
        return examples.check_rendered(view.markdown, view.html, view.path, schemas).findings

    if checkout.serving:
        key = (view.markdown, view.html, checkout.schema_key)
        found = memo.remembered(f"examples:{view.path}", key, check)
    else:
        found = check()
    return examples.held_back(found, view.path, checkout.unusable, view.rfd)


CHECK = Check(
    name="examples",
    summary="An invalid, malformed or undeclared JSON example; a misfiled or invalid fixture.",
    rules={
        "examples": "Fix the JSON, or declare what the block is in its title ('Invalid ...',"
        " 'Lenient ...', 'Not a payload: ...').",
        "examples/held-back": "Fix the schema source the note names; its examples follow.",
    },
    docs="examples",
    order=30,
    guide=Guide("docs/tooling/writing.md", "declaring-json-examples", "Declaring JSON examples"),
    sources=_sources,
    page=_page,
)
