"""The `format` check: every file Prettier would rewrite, run beside the build (Node).

The work is `acp_docs.checks.prettier`; it runs in `acp-docs check` only, never in the
site build (`mkdocs build` and `mkdocs serve` leave formatting to `make format`).
"""

from __future__ import annotations

from collections.abc import Iterable

from acp_docs.checks.checkout import Checkout
from acp_docs.checks.registry import Check
from acp_docs.core.findings import Finding


def _sources(checkout: Checkout) -> Iterable[Finding]:
    from acp_docs.checks import prettier

    return prettier.check(checkout.repo)


CHECK = Check(
    name="format",
    summary="A file Prettier would rewrite, or a Prettier configuration the check ignores.",
    rules={
        "format": "Run `make format` (Prettier), then commit the result.",
        "format/syntax": "Fix the syntax at the place Prettier names: it cannot read the file.",
        "format/config-file": "Remove the file: the check runs Prettier with the repository's"
        " own settings only.",
        "format/too-complex": "Unnest the lists or quotes, or close what the line opens, as"
        " the build's `build/too-complex` finding says.",
    },
    docs="format",
    order=80,
    runs_in=frozenset({"check"}),
    sources=_sources,
)
