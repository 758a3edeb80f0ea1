"""The validation-only union rewrite gives the same verdict as the merged schema itself."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from acp_docs.core import protocols
from acp_docs.validation.discriminate import discriminate
from acp_docs.validation.payloads import fixture_definition

from conftest import ROOT

NOTIFICATION = {v: protocols.get(v).session_notification for v in protocols.NAMES}


def _mutations(payload: Any) -> list[Any]:
    """The payload, and variants that move it across union branches and error cases."""
    out = [payload, [], "text", None, {}]
    if isinstance(payload, dict):
        for key in payload:
            dropped = copy.deepcopy(payload)
            del dropped[key]
            out.append(dropped)
        if "sessionUpdate" in payload:
            for tag in ("agent_message_chunk", "plan", "notice", "bogus", "_x", 7):
                out.append({**payload, "sessionUpdate": tag})
    return out


def _cases(protocol: str) -> list[tuple[str, Any]]:
    cases = []
    for path in sorted((ROOT / "schema" / "examples" / protocol).rglob("*.json")):
        name = fixture_definition(path)
        payload = json.loads(path.read_text())
        if name is None:
            name, payload = NOTIFICATION[protocol], payload["params"]
        for variant in _mutations(payload):
            cases.append((name, variant))
            if name == "SessionUpdate":
                cases.append((NOTIFICATION[protocol], {"sessionId": "s", "update": variant}))
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
    if protocol == "v2":
        chunk["messageId"] = "m1"
    for variant in _mutations(chunk):
        cases.append(("SessionUpdate", variant))
    return cases


@pytest.mark.parametrize("protocol", protocols.NAMES)
def test_rewritten_unions_agree_with_the_merged_schema(schemas, protocol: str) -> None:
    defs = schemas.definitions(protocol)
    rewritten = discriminate(defs, protocols.get(protocol).fallback_titles)
    assert rewritten != defs, "nothing was rewritten"
    cases = _cases(protocol)
    assert len(cases) > 100
    valid = 0
    for name, payload in cases:
        plain = Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{name}"})
        fast = Draft202012Validator({"$defs": rewritten, "$ref": f"#/$defs/{name}"})
        assert plain.is_valid(payload) == fast.is_valid(payload), (name, payload)
        valid += plain.is_valid(payload)
    assert 0 < valid < len(cases)


def test_non_discriminated_unions_are_left_alone() -> None:
    schema = {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}
    assert discriminate(schema) == schema
    duplicated = {
        "oneOf": [
            {"properties": {"t": {"const": "a"}}, "required": ["t"]},
            {"properties": {"t": {"const": "a"}}, "required": ["t"]},
        ]
    }
    assert discriminate(duplicated) == duplicated


@pytest.mark.parametrize("protocol", protocols.NAMES)
def test_the_compiled_yes_or_no_check_agrees_with_jsonschema(schemas, protocol: str) -> None:
    defs = schemas.definitions(protocol)
    cases = _cases(protocol)
    cases += [(name, None) for name in defs] + [(name, {}) for name in defs]
    for x in ([{"text": 1.0}], [{"text": ""}], [True], [{"text": "a", "_meta": None}], [], 0):
        cases.append(("SessionUpdate", {"sessionUpdate": "prompt_suggestions", "suggestions": x}))
    disagreements = []
    for name, payload in cases:
        plain = Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{name}"})
        if plain.is_valid(payload) != schemas.is_valid(protocol, name, payload):
            disagreements.append((name, payload))
    assert disagreements == []


def _described(errors: Any) -> list[Any]:
    """Each error as a user's finding is built from it, its union branches included."""
    return sorted(
        (
            [str(p) for p in e.absolute_path],
            e.validator,
            e.message,
            [str(p) for p in e.schema_path],
            _described(e.context),
        )
        for e in errors
    )


@pytest.mark.parametrize("protocol", protocols.NAMES)
def test_errors_are_those_of_jsonschema_when_the_compiled_check_decides_each_if(
    schemas, protocol: str
) -> None:
    compared = 0
    for name, payload in _cases(protocol):
        if schemas.is_valid(protocol, name, payload):
            continue
        deciding = schemas.validator(protocol, name)
        plain = Draft202012Validator(deciding.schema)
        assert _described(deciding.iter_errors(payload)) == _described(plain.iter_errors(payload))
        compared += 1
    assert compared > 50


def test_the_compiled_check_follows_json_equality_and_types() -> None:
    from acp_docs.validation.fastvalid import Compiler

    compiler = Compiler({}, lambda schema: lambda value: False)
    one = compiler.compile({"const": 1})
    assert one(1) and one(1.0) and not one(True) and not one("1")
    integer = compiler.compile({"type": "integer", "minimum": 0})
    assert integer(0) and integer(2.0) and not integer(-1) and not integer(False)
    assert not integer(1.5)
    unknown = compiler.compile({"dependentRequired": {"a": ["b"]}})
    assert unknown({"a": 1}) is False, "an unknown keyword goes to the fallback"
