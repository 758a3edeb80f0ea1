"""The `schema` check: schema sources, their generated fragments and the merged schemas.

Reported by the plugin when it loads the repository: a source or merge that is
refused, a fragment that differs from its source (drift), a source no RFD
owns. Its findings are causes: a source that cannot be used makes findings in
the pages and fixtures that rely on it, so they are read first.
"""

from __future__ import annotations

from acp_docs.checks.registry import Check, Guide

CHECK = Check(
    name="schema",
    summary="A fragment that differs from its source; a source or merge that is refused;"
    " a source no RFD owns.",
    rules={
        "schema": "Run `acp-docs schema generate` after editing a schema source.",
        "schema/orphan-source": "Name the folder of schema/ after the RFD that owns it,"
        " or remove it.",
    },
    docs="schema",
    first=True,
    order=20,
    guide=Guide("docs/tooling/engine.md", "an-rfds-schema-change", "An RFD's schema change"),
)
