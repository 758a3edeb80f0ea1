"""The real SDKs agree with what the RFD says about peers and what a receiver drops.

Every fixture goes through the pinned TypeScript SDK's zod schemas (Node, from
node_modules) and, for v1, through the Python SDK `agent-client-protocol`.
Neither knows `prompt_suggestions` yet, which is exactly the case the RFD
describes for existing peers. The lenient/invalid split is held against how
the TypeScript and Python SDKs treat comparable existing fields.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pydantic
import pytest
from acp import schema as py_schema

from acp_docs.payloads import fixture_definition

from conftest import ROOT, require_tool

FIXTURES = ROOT / "schema" / "examples"
TAG = "prompt_suggestions"


def zod(cases: list[tuple[str, str, Any]]) -> list[dict[str, Any]]:
    """Parse each (version, zod schema name, payload) with the TypeScript SDK."""
    require_tool("node", "Node.js")
    result = subprocess.run(
        ["node", str(ROOT / "tests" / "sdk_zod.mjs")],
        cwd=ROOT,
        input=json.dumps([{"version": v, "schema": s, "payload": p} for v, s, p in cases]),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def python_sdk(model: type[pydantic.BaseModel], payload: Any) -> dict[str, Any] | None:
    """The Python SDK's reading of a v1 payload, or None when it rejects it."""
    try:
        parsed = model.model_validate(payload)
    except pydantic.ValidationError:
        return None
    return parsed.model_dump(by_alias=True, exclude_none=True)


def fixtures(version: str, definition: str | None) -> list[tuple[str, Path, Any]]:
    """(kind, path, payload) of every fixture of a version for one definition."""
    out = []
    for kind in ("valid", "lenient", "invalid"):
        for path in sorted((FIXTURES / version / kind).glob("*.json")):
            if fixture_definition(path) == definition:
                out.append((kind, path, json.loads(path.read_text())))
    return out


def _updates(version: str) -> list[tuple[str, Path, Any]]:
    return [f for f in fixtures(version, "SessionUpdate") if f[2].get("sessionUpdate") == TAG]


def test_a_v1_peer_that_does_not_know_the_update_rejects_it() -> None:
    cases = _updates("v1")
    assert len(cases) >= 10
    parsed = zod([("v1", "zSessionUpdate", payload) for _kind, _path, payload in cases])
    for (_kind, path, payload), ts in zip(cases, parsed, strict=True):
        assert ts["success"] is False, path.name
        notification = {"sessionId": "s", "update": payload}
        assert python_sdk(py_schema.SessionNotification, notification) is None, path.name


def test_a_v1_peer_that_does_not_know_the_capability_ignores_it() -> None:
    cases = fixtures("v1", "InitializeRequest")
    assert {kind for kind, _p, _d in cases} == {"valid", "lenient"}
    parsed = zod([("v1", "zInitializeRequest", payload) for _k, _p, payload in cases])
    for (_kind, path, payload), ts in zip(cases, parsed, strict=True):
        assert ts["success"] is True, path.name
        assert "promptSuggestions" not in ts["data"]["clientCapabilities"].get("session", {})
        python = python_sdk(py_schema.InitializeRequest, payload)
        assert python is not None, path.name
        assert "promptSuggestions" not in python["clientCapabilities"].get("session", {})


def test_a_v2_peer_keeps_the_update_as_an_unknown_one_with_its_raw_payload() -> None:
    cases = _updates("v2")
    assert {kind for kind, _p, _d in cases} == {"valid", "lenient", "invalid"}
    parsed = zod([("v2", "zSessionUpdate", payload) for _kind, _path, payload in cases])
    for (_kind, path, payload), ts in zip(cases, parsed, strict=True):
        assert ts["success"] is True, path.name
        assert ts["data"] == payload, f"{path.name}: the raw payload was not kept"


# Each fixture of ours, what our classifier says a receiver does with it, a
# payload of an existing field with the same annotations, which the real SDKs
# must treat the same way, and what must be gone from what they keep.
PLAN_ENTRY = {"content": "Run it", "priority": "high", "status": "pending"}
COMPARABLE = [
    # A field marked x-deserialize-default-on-error: dropped, the message kept.
    (
        "lenient/InitializeRequest.capability-true.json",
        "v1",
        "zClientSessionCapabilities",
        {"notices": True},
        py_schema.ClientSessionCapabilities,
        {"notices": True},
        "kept",
        "notices",
    ),
    (
        "lenient/SessionUpdate.meta-not-an-object.json",
        "v1",
        "zSessionUpdate",
        {"sessionUpdate": "notice", "severity": "info", "title": "t", "_meta": 5},
        py_schema.SessionNotification,
        {"sessionId": "s", "update": {"sessionUpdate": "plan", "entries": [], "_meta": 5}},
        "kept",
        "_meta",
    ),
    (
        "lenient/SessionUpdate.suggestion-meta-not-an-object.json",
        "v1",
        "zSessionUpdate",
        {"sessionUpdate": "plan", "entries": [{**PLAN_ENTRY, "_meta": 5}]},
        py_schema.SessionNotification,
        {
            "sessionId": "s",
            "update": {"sessionUpdate": "plan", "entries": [{**PLAN_ENTRY, "_meta": 5}]},
        },
        "kept",
        "_meta",
    ),
    # A list marked x-deserialize-skip-invalid-items: the bad entry dropped.
    (
        "lenient/SessionUpdate.entry-without-text.json",
        "v1",
        "zSessionUpdate",
        {"sessionUpdate": "plan", "entries": [PLAN_ENTRY, {"content": "no status"}]},
        py_schema.SessionNotification,
        {"sessionId": "s", "update": {"sessionUpdate": "plan", "entries": [PLAN_ENTRY, {}]}},
        "kept",
        "{}",
    ),
    # A required value with no such mark: the message is rejected.
    (
        "invalid/SessionUpdate.missing-suggestions.json",
        "v1",
        "zSessionUpdate",
        {"sessionUpdate": "notice", "severity": "info"},
        py_schema.SessionNotification,
        {"sessionId": "s", "update": {"sessionUpdate": "plan"}},
        "rejected",
        "",
    ),
    (
        "invalid/SessionUpdate.suggestions-not-an-array.json",
        "v1",
        "zSessionUpdate",
        {"sessionUpdate": "notice", "severity": "info", "title": ["not", "text"]},
        py_schema.SessionNotification,
        {"sessionId": "s", "update": {"sessionUpdate": "plan", "entries": "x"}},
        "rejected",
        "",
    ),
]


@pytest.mark.parametrize("case", COMPARABLE, ids=[c[0] for c in COMPARABLE])
def test_the_lenient_invalid_split_agrees_with_comparable_existing_fields(schemas, case) -> None:
    fixture, version, zod_schema, ts_payload, py_model, py_payload, expected, gone = case
    path = FIXTURES / version / fixture
    payload = json.loads(path.read_text())
    definition = fixture_definition(path)
    outcome = schemas.check(version, definition, payload)
    assert not outcome.valid
    assert outcome.kept is (expected == "kept"), outcome.verdict
    (ts,) = zod([(version, zod_schema, ts_payload)])
    assert ts["success"] is (expected == "kept"), ts
    python = python_sdk(py_model, py_payload)
    assert (python is not None) is (expected == "kept"), python
    if expected == "kept":
        # The bad value is gone from what the SDKs hand to the application.
        ts_data = json.dumps(ts["data"], separators=(",", ":"))
        py_data = json.dumps(python, separators=(",", ":"))
        assert gone not in ts_data and gone not in py_data, (ts_data, py_data)
        assert "no status" not in ts_data
