"""Schemas from contributors: refused up front when they leave the document or cannot run."""

from __future__ import annotations

from acp_docs.schemalib import schemacheck


def test_schema_problems_are_located_by_escaped_pointers() -> None:
    schema = {"$defs": {"a/b": {"$ref": "https://example.com/x"}, "c~d": {"pattern": "(?=x)"}}}
    found = dict(schemacheck.problems(schema))
    assert set(found) == {"/$defs/a~1b", "/$defs/c~0d"}
    assert "leaves the document" in found["/$defs/a~1b"]
    assert "lookaround" in found["/$defs/c~0d"]


def test_a_pattern_either_linear_engine_cannot_run_is_refused_up_front() -> None:
    assert "is not RE2 syntax" in (schemacheck.pattern_problem("(?=x)y") or "")
    # RE2 runs `\C` (any byte); the deciding engine, reading ECMA-262, does not.
    assert "linear-time `regex` engine" in (schemacheck.pattern_problem(r"\C") or "")
    assert schemacheck.pattern_problem(r"^[a-z][a-z0-9-]*$") is None


def test_a_value_that_is_not_json_schema_is_refused_where_it_is() -> None:
    found = schemacheck.problems({"properties": {"text": {"type": "string", "minLength": "one"}}})
    assert found == [
        ("/properties/text/minLength", 'not JSON Schema 2020-12: "one" is not of type "integer"')
    ]
    assert schemacheck.problems({"properties": {"text": {"minLength": 1}}}) == []


def test_a_schema_jsonschema_rs_cannot_compile_is_refused_naming_the_place() -> None:
    import pytest

    from acp_docs.schemalib import decide

    with pytest.raises(decide.SchemaRefused, match=r"at /\$defs/A/minLength: .*integer"):
        decide.Decider({"json-schema:///t.json": {"$defs": {"A": {"minLength": "one"}}}}).at(
            "json-schema:///t.json", "/$defs/A"
        )
