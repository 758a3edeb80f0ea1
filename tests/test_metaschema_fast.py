"""The merge's meta-schema check decides as `Draft202012Validator.check_schema` does."""

from __future__ import annotations

import copy
import functools
import json

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from acp_docs.core import protocols
from acp_docs.schema.merge import _meets_metaschema

from conftest import ROOT

SDK = ROOT / "node_modules" / "@agentclientprotocol" / "sdk"

BROKEN = {
    "a pattern that does not compile": {"pattern": "(unclosed"},
    "a patternProperties key that does not compile": {"patternProperties": {"[": {}}},
    "a type that is not one": {"type": "strin"},
    "a length that is not a number": {"minLength": "one"},
    "required that is not a list": {"required": "id"},
}


def _check_schema(schema: dict) -> bool:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return True


@functools.cache
def _base(name: str) -> dict:
    path = SDK / protocols.get(name).base_files["unstable"]
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", protocols.NAMES)
def test_every_published_base_passes_both(name: str) -> None:
    base = copy.deepcopy(_base(name))
    assert _meets_metaschema(base) and _check_schema(base)


@pytest.mark.parametrize("definition", list(BROKEN.values()), ids=list(BROKEN))
def test_a_broken_definition_fails_both(definition: dict) -> None:
    # The meta-schema checks each definition on its own, and the published ones pass
    # (above): the newest base with the broken definition alone, so that
    # check_schema, which walks `$defs` in no set order, meets it at once.
    shell = {**copy.deepcopy(_base(protocols.NAMES[-1])), "$defs": {}}
    assert _check_schema(shell) and _meets_metaschema(shell)
    schema = {**shell, "$defs": {"ZzBroken": definition}}
    assert not _check_schema(schema)
    assert not _meets_metaschema(schema)
