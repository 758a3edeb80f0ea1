"""python-jsonschema validators that are safe on contributors' schemas and payloads.

They say why a payload is invalid (`acp_docs.validation.explain`) and check
the tool's own configuration; the yes-or-no decision on payloads is
jsonschema-rs's (`acp_docs.schemalib.decide`).

- `pattern` and `patternProperties` run on RE2, whose matching time is linear
  in the input: a schema from a pull request cannot make validation backtrack.
  A pattern RE2 or the deciding `regex` engine cannot run (lookaround,
  backreferences) is refused up front (`problems`).
- No `$ref` is ever retrieved: the registry's retrieve function refuses every
  URI, and `problems` names each reference that leaves the document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any, NoReturn

import jsonschema_rs
import re2
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from referencing import Registry
from referencing.exceptions import NoSuchResource

from acp_docs.schemalib import decide
from acp_docs.sources import pointer as ptr

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


@lru_cache(maxsize=1024)
def compiled(pattern: str) -> Any:
    """The RE2 program of a pattern; `re2.error` when RE2 cannot run it."""
    return re2.compile(pattern, _OPTIONS)


@lru_cache(maxsize=1024)
def pattern_problem(pattern: str) -> str | None:
    """Why RE2 (which explains) or the `regex` engine (which decides) cannot run `pattern`."""
    try:
        compiled(pattern)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        return f"pattern {pattern!r} is not RE2 syntax ({reason}): no lookaround or backreferences"
    try:
        decide.compile({"pattern": pattern})
    except decide.SchemaRefused:
        return (
            f"pattern {pattern!r} is not a regular expression the linear-time `regex` engine"
            " runs (ECMA-262 syntax, no lookaround or backreferences)"
        )
    return None


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not compiled(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        program = compiled(pattern)
        for key, value in instance.items():
            if program.search(key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


SafeValidator: type[Validator] = validators.extend(
    Draft202012Validator,
    validators={"pattern": _pattern, "patternProperties": _pattern_properties},
)
"""Draft 2020-12 with RE2 for patterns."""


def _refuse(uri: str) -> NoReturn:
    # Positional: referencing's attrs classes wrap `attrs.frozen` in a helper mypy does not
    # read as attrs, so it knows only KeyError's `__init__`; `ref` is the one field.
    raise NoSuchResource(uri)


# `retrieve` is the attrs alias of `Registry._retrieve`; mypy does not see referencing's
# attrs `__init__` (see `_refuse`), so it rejects the keyword that works at run time.
NO_RETRIEVAL: Registry = Registry(retrieve=_refuse)  # type: ignore[call-arg]


Condition = Callable[[Any, Any], bool]


def _deciding_if(condition: Condition) -> type[Validator]:
    def if_(validator: Any, if_: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        branch = "then" if condition(if_, instance) else "else"
        if branch in schema:
            yield from validator.descend(instance, schema[branch], schema_path=branch)

    def all_of(
        validator: Any, all_of: Any, instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        # An item that is only `if` and `then` (a discriminated union's case) yields
        # nothing when its `if` fails: it is skipped without descending into it.
        for index, item in enumerate(all_of):
            case = isinstance(item, dict) and item.keys() == {"if", "then"}
            if not case or condition(item["if"], instance):
                yield from validator.descend(instance, item, schema_path=index)

    deciding: type[Validator] = validators.extend(
        SafeValidator, validators={"if": if_, "allOf": all_of}
    )
    return deciding


def validator(schema: dict[str, Any], condition: Condition | None = None) -> Validator:
    """A validator of `schema` that never retrieves a reference.

    `condition(if_schema, instance)`, when given, decides each `if` in place of
    a copy of the validator: it must give the same answer, only faster. The
    errors are jsonschema's own; an `allOf` item that is only `if` and `then`
    whose `if` fails is skipped, as it yields no error.
    """
    cls = SafeValidator if condition is None else _deciding_if(condition)
    return cls(schema, registry=NO_RETRIEVAL)


def problems(schema: Any) -> list[tuple[str, str]]:
    """(pointer, reason) for what no check can run: a `$ref` that leaves the document, a
    pattern a linear engine cannot run, a value that is not JSON Schema 2020-12."""
    found = []
    if isinstance(schema, dict | bool):
        try:
            # One call for each: the stub's schema type variable is a bool or a dict, not either.
            if isinstance(schema, bool):
                jsonschema_rs.meta.validate(schema)
            else:
                jsonschema_rs.meta.validate(schema)
        except jsonschema_rs.ValidationError as exc:
            found.append((ptr.format(exc.instance_path), f"not JSON Schema 2020-12: {exc.message}"))
    for where, node in ptr.nodes(schema):
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            found.append((where, f"$ref {ref!r} leaves the document; nothing is retrieved"))
        pattern = node.get("pattern")
        if isinstance(pattern, str) and (reason := pattern_problem(pattern)):
            found.append((where, reason))
        for key in node.get("patternProperties") or {}:
            if isinstance(key, str) and (reason := pattern_problem(key)):
                found.append((where, reason))
    return sorted(found)
