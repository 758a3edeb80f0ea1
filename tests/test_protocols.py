"""The version table holds for the pinned published schemas, and refuses unknown versions."""

from __future__ import annotations

import pytest

from acp_docs.core import protocols
from acp_docs.core.errors import UsageError
from acp_docs.validation.examples import check_text

from conftest import SDK_SCHEMA, acp, no_traceback


@pytest.mark.parametrize("name", protocols.NAMES)
def test_each_version_table_matches_its_published_schemas(base_schemas, name: str) -> None:
    version = protocols.get(name)
    for path in version.base_files.values():
        assert (SDK_SCHEMA.parent / path).is_file(), path
    defs = base_schemas[name]["$defs"]
    for union in version.unions.values():
        branches = defs[union.definition][union.keyword]
        tagged = [b for b in branches if union.discriminator in b.get("properties", {})]
        assert len(tagged) == len(branches)
        if union.is_open:
            assert branches[-1]["title"] == union.fallback
            assert isinstance(branches[-1]["not"]["anyOf"], list)
        else:
            assert all("title" not in b for b in branches)
            other = "anyOf" if union.keyword == "oneOf" else "oneOf"
            assert other not in defs[union.definition]
    for definition in version.capabilities.values():
        assert defs[definition]["type"] == "object"
    assert defs[version.session_notification]["x-method"] == "session/update"
    for method in version.replay_methods:
        assert any(d.get("x-method") == method for n, d in defs.items() if n.endswith("Request"))


def test_v1_is_closed_with_session_capabilities_and_v2_open_without() -> None:
    v1, v2 = protocols.get("v1"), protocols.get("v2")
    assert (v1.union("SessionUpdate").keyword, v1.union("SessionUpdate").is_open) == (
        "oneOf",
        False,
    )
    assert (v2.union("SessionUpdate").keyword, v2.union("SessionUpdate").fallback) == (
        "anyOf",
        "other",
    )
    assert v1.capability_definition("session") == "ClientSessionCapabilities"
    with pytest.raises(UsageError, match="ACP v2 has no Client capabilities scope 'session'"):
        v2.capability_definition("session")
    assert v1.session_notification == "SessionNotification"
    assert v2.session_notification == "UpdateSessionNotification"
    assert (v1.replay_methods, v2.replay_methods) == (("session/load",), ("session/resume",))


def test_an_unknown_version_is_a_usage_error_not_another_version() -> None:
    known = ", ".join(protocols.VERSIONS)
    with pytest.raises(
        UsageError, match=f"unknown ACP protocol version 'v9': known versions are {known}"
    ):
        protocols.get("v9")
    result = acp(["schema", "merge", "--protocol", "v9"])
    no_traceback(result)
    assert result.returncode == 2
    assert "invalid choice: 'v9'" in result.stderr


def test_an_example_declared_for_an_unknown_version_is_a_finding(schemas, render) -> None:
    text = '```json title="SessionUpdate (v1, v9)"\n{"sessionUpdate": "plan", "entries": []}\n```\n'
    findings = check_text(text, "page.md", schemas, render).findings
    assert [(f.line, f.rule_id) for f in findings] == [(1, "examples/unknown-version")]
    assert "unknown ACP protocol version 'v9'" in findings[0].message
