"""The explain-side union rewrite and the jsonschema-rs decision agree with the merged schema."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from acp_docs.core import protocols
from acp_docs.validation.explain import discriminate
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
    """Each (definition, payload) once: fixtures share their mutations (`[]`, `None`, ...)."""
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
    return _once(cases)


def _once(cases: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """`cases` without repeats (`1`, `1.0` and `true` stay apart), in their order."""
    seen: set[str] = set()
    out = []
    for name, payload in cases:
        key = json.dumps([name, payload])
        if key not in seen:
            seen.add(key)
            out.append((name, payload))
    return out


@pytest.fixture(scope="module")
def plain_verdict(schemas) -> Callable[[str, str, Any], bool]:
    """python-jsonschema's verdict on the merged schema, one validator per definition.

    A payload's verdict is reached once, however many tests ask for it.
    """
    validators: dict[tuple[str, str], Draft202012Validator] = {}
    verdicts: dict[str, bool] = {}

    def verdict(protocol: str, name: str, payload: Any) -> bool:
        key = json.dumps([protocol, name, payload])
        if key not in verdicts:
            if (protocol, name) not in validators:
                schema = {"$defs": schemas.definitions(protocol), "$ref": f"#/$defs/{name}"}
                validators[protocol, name] = Draft202012Validator(schema)
            verdicts[key] = validators[protocol, name].is_valid(payload)
        return verdicts[key]

    return verdict


@pytest.mark.parametrize("protocol", protocols.NAMES)
def test_rewritten_unions_agree_with_the_merged_schema(
    schemas, plain_verdict, protocol: str
) -> None:
    defs = schemas.definitions(protocol)
    rewritten = discriminate(defs, protocols.get(protocol).fallback_titles)
    assert rewritten != defs, "nothing was rewritten"
    cases = _cases(protocol)
    assert len(cases) > 100
    valid = 0
    fast: dict[str, Draft202012Validator] = {}
    for name, payload in cases:
        if name not in fast:
            fast[name] = Draft202012Validator({"$defs": rewritten, "$ref": f"#/$defs/{name}"})
        plain = plain_verdict(protocol, name, payload)
        assert plain == fast[name].is_valid(payload), (name, payload)
        valid += plain
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
def test_the_deciding_check_agrees_with_python_jsonschema(
    schemas, plain_verdict, protocol: str
) -> None:
    defs = schemas.definitions(protocol)
    cases = _cases(protocol)
    cases += [(name, None) for name in defs] + [(name, {}) for name in defs]
    for x in ([{"text": 1.0}], [{"text": ""}], [True], [{"text": "a", "_meta": None}], [], 0):
        cases.append(("SessionUpdate", {"sessionUpdate": "prompt_suggestions", "suggestions": x}))
    disagreements = []
    for name, payload in _once(cases):
        if plain_verdict(protocol, name, payload) != schemas.is_valid(protocol, name, payload):
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
def test_errors_are_those_of_jsonschema_when_jsonschema_rs_decides_each_if(
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


def test_the_deciding_check_follows_json_equality_and_types() -> None:
    from acp_docs.schemalib import decide

    one = decide.compile({"const": 1})
    assert one.is_valid(1) and one.is_valid(1.0)
    assert not one.is_valid(True) and not one.is_valid("1")
    integer = decide.compile({"type": "integer", "minimum": 0})
    assert integer.is_valid(0) and integer.is_valid(2.0)
    assert not integer.is_valid(-1) and not integer.is_valid(False) and not integer.is_valid(1.5)
    dependent = decide.compile({"dependentRequired": {"a": ["b"]}})
    assert not dependent.is_valid({"a": 1}) and dependent.is_valid({"a": 1, "b": 2})
