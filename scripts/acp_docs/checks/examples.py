"""The `examples` check: every JSON example a page shows, and every fixture, against the schemas.

Reported by the plugin for each rendered page (`acp_docs.validation.examples`)
and for the fixtures (`acp_docs.validation.payloads`).
"""

from __future__ import annotations

from acp_docs.checks.registry import Check, Guide

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
)
