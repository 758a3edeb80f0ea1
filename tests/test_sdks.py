"""The real SDKs agree with what the RFD says about peers and what a receiver drops.

Every fixture goes through the pinned TypeScript SDK's zod schemas (Node, from
node_modules) and, for v1, through the Python SDK `agent-client-protocol`
(0.12.1, generated from schema v1.19.0: it lags the pinned v1 schema).
Neither knows `prompt_suggestions` yet, which is exactly the case the RFD
describes for existing peers. The lenient/invalid split is held against how
the TypeScript and Python SDKs treat comparable existing fields.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pydantic
import pytest
from acp import schema as py_schema

from acp_docs.validation.payloads import fixture_definition

from conftest import ROOT, require_tool

FIXTURES = ROOT / "schema" / "examples"
TAG = "prompt_suggestions"


def zod(cases: list[tuple[str, str, Any]]) -> list[dict[str, Any]]:
    """Parse each (version, zod schema name, payload) with the TypeScript SDK.

    Node starts once for the module: the first call parses every case the
    module's tests give too (`_every_zod_case`), each as if on its own.
    """
    require_tool("node", "Node.js")
    keys = [json.dumps(case) for case in cases]
    if any(key not in _parsed for key in keys):
        todo = {json.dumps(c): c for c in [*cases, *_every_zod_case()]}
        todo = {key: case for key, case in todo.items() if key not in _parsed}
        _parsed.update(zip(todo, _node(list(todo.values())), strict=True))
    return [copy.deepcopy(_parsed[key]) for key in keys]


_parsed: dict[str, dict[str, Any]] = {}
"""What the TypeScript SDK made of each case, by its JSON."""


def _node(cases: list[tuple[str, str, Any]]) -> list[dict[str, Any]]:
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


# Each fixture of ours, what our classifier says a receiver does with it, and
# one existing field with the same annotations, which both real SDKs must treat
# that way. Both SDKs get the same field: the Python SDK 0.12.1 is generated
# from schema v1.19.0 and lacks newer fields (`notices`, `compaction`), so a
# comparison on such a field would pass whatever the SDK did.
PLAN_ENTRY = {"content": "Run it", "priority": "high", "status": "pending"}
TEXT = {"type": "text", "text": "Run it"}


def python_update(payload: Any) -> dict[str, Any] | None:
    """The Python SDK's reading of a v1 `SessionUpdate` (inside a notification), or None."""
    parsed = python_sdk(py_schema.SessionNotification, {"sessionId": "s", "update": payload})
    return parsed["update"] if parsed is not None else None


def python_reads(model: type[pydantic.BaseModel]) -> Any:
    """A reader of one Python SDK model, shaped like `python_update`."""
    return lambda payload: python_sdk(model, payload)


def _plan(**fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "plan", "entries": [PLAN_ENTRY], **fields}


def _prompt(prompt: Any) -> dict[str, Any]:
    return {"sessionId": "s", "prompt": prompt}


COMPARABLE = [
    # A field marked x-deserialize-default-on-error: dropped, the message kept.
    (
        "lenient/InitializeRequest.capability-true.json",
        "zClientSessionCapabilities",
        python_reads(py_schema.ClientSessionCapabilities),
        {"configOptions": True},
        "kept",
        "configOptions",
    ),
    (
        "lenient/SessionUpdate.meta-not-an-object.json",
        "zSessionUpdate",
        python_update,
        _plan(_meta=5),
        "kept",
        "_meta",
    ),
    (
        "lenient/SessionUpdate.suggestion-meta-not-an-object.json",
        "zSessionUpdate",
        python_update,
        _plan(entries=[{**PLAN_ENTRY, "_meta": 5}]),
        "kept",
        "_meta",
    ),
    # A list with neither lenient mark (like `suggestions`): one bad entry, or
    # every entry bad, or no list at all, and the message is rejected; never an
    # empty list, which for suggestions would withdraw the offer.
    (
        "invalid/SessionUpdate.entry-without-text.json",
        "zPromptRequest",
        python_reads(py_schema.PromptRequest),
        _prompt([{"type": "text"}]),
        "rejected",
        "",
    ),
    # A required non-empty string with no mark: SDK 2.4.0's one such field is a
    # notice's `title` (`minLength: 1`). The Python SDK 0.12.1 has no field with
    # a minimum length, so only the TypeScript SDK can be compared here.
    (
        "invalid/SessionUpdate.empty-text.json",
        "zSessionUpdate",
        None,
        {"sessionUpdate": "notice", "severity": "info", "title": ""},
        "rejected",
        "",
    ),
    (
        "invalid/SessionUpdate.one-entry-invalid.json",
        "zPromptRequest",
        python_reads(py_schema.PromptRequest),
        _prompt([TEXT, {"type": "text"}]),
        "rejected",
        "",
    ),
    (
        "invalid/SessionUpdate.suggestions-not-an-array.json",
        "zPromptRequest",
        python_reads(py_schema.PromptRequest),
        _prompt("Run it"),
        "rejected",
        "",
    ),
    # A required value with no mark: the message is rejected.
    (
        "invalid/SessionUpdate.missing-suggestions.json",
        "zPromptRequest",
        python_reads(py_schema.PromptRequest),
        {"sessionId": "s"},
        "rejected",
        "",
    ),
]


@pytest.mark.parametrize("case", COMPARABLE, ids=[c[0] for c in COMPARABLE])
def test_the_lenient_invalid_split_agrees_with_comparable_existing_fields(schemas, case) -> None:
    fixture, zod_schema, python_reader, payload_of_field, expected, gone = case
    path = FIXTURES / "v1" / fixture
    payload = json.loads(path.read_text())
    outcome = schemas.check("v1", fixture_definition(path), payload)
    assert not outcome.valid
    assert outcome.kept is (expected == "kept"), outcome.verdict
    (ts,) = zod([("v1", zod_schema, payload_of_field)])
    assert ts["success"] is (expected == "kept"), ts
    if python_reader is None:
        return
    python = python_reader(payload_of_field)
    assert (python is not None) is (expected == "kept"), python
    if expected == "kept":
        # The bad value is gone from what the SDKs hand to the application.
        ts_data = json.dumps(ts["data"], separators=(",", ":"))
        py_data = json.dumps(python, separators=(",", ":"))
        assert gone not in ts_data and gone not in py_data, (ts_data, py_data)


def _plan_entries(sdk: str, entries: Any) -> Any:
    """What an SDK hands over as a v1 plan's `entries`, or "rejected"."""
    if sdk == "typescript":
        (ts,) = zod([("v1", "zSessionUpdate", _plan(entries=entries))])
        return ts["data"]["entries"] if ts["success"] else "rejected"
    python = python_update(_plan(entries=entries))
    return python["entries"] if python is not None else "rejected"


def test_why_suggestions_carries_no_lenient_mark_the_sdks_facts_the_faq_cites() -> None:
    """The RFD's FAQ "Why does a malformed list not become an empty one?", held to the SDKs.

    If an SDK changes its reading, this fails and the FAQ must be updated.
    """
    # x-deserialize-default-on-error on a list: the SDKs disagree today.
    assert _plan_entries("typescript", "x") == []
    assert _plan_entries("python", "x") == "rejected"
    # x-deserialize-skip-invalid-items: a list whose every entry is bad becomes
    # empty in both SDKs, which for suggestions would read as a withdrawal.
    assert _plan_entries("typescript", [{"content": "no status"}]) == []
    assert _plan_entries("python", [{"content": "no status"}]) == []
    bad_commands = {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [{"name": 5}],
    }
    not_a_list = {"sessionUpdate": "available_commands_update", "availableCommands": "x"}
    every_bad, no_list = zod(
        [("v2", "zSessionUpdate", bad_commands), ("v2", "zSessionUpdate", not_a_list)]
    )
    assert every_bad["success"] and every_bad["data"]["availableCommands"] == []
    # v2's precedent for a list without the default: not a list, rejected.
    assert no_list["success"] is False


def _every_zod_case() -> list[tuple[str, str, Any]]:
    """Every case the tests of this module parse with `zod`."""
    cases = [("v1", "zSessionUpdate", payload) for _k, _p, payload in _updates("v1")]
    cases += [("v1", "zInitializeRequest", p) for _k, _p, p in fixtures("v1", "InitializeRequest")]
    cases += [("v2", "zSessionUpdate", payload) for _k, _p, payload in _updates("v2")]
    cases += [("v1", schema, payload) for _f, schema, _r, payload, _e, _g in COMPARABLE]
    cases += [("v1", "zSessionUpdate", _plan(entries=e)) for e in ("x", [{"content": "no status"}])]
    for commands in ([{"name": 5}], "x"):
        update = {"sessionUpdate": "available_commands_update", "availableCommands": commands}
        cases.append(("v2", "zSessionUpdate", update))
    return cases


def test_a_schema_the_sdk_does_not_export_is_an_error_not_a_rejection() -> None:
    require_tool("node", "Node.js")
    result = subprocess.run(
        ["node", str(ROOT / "tests" / "sdk_zod.mjs")],
        cwd=ROOT,
        input=json.dumps([{"version": "v1", "schema": "zNoSuchThing", "payload": {}}]),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert "v1 zNoSuchThing" in result.stderr
