"""A yes-or-no JSON Schema check compiled to closures, for the payloads that are valid.

Most example payloads are valid, and jsonschema spends most of its time
building error objects and validator copies it then throws away. `compile`
turns a schema (draft 2020-12, `$ref` into the same `$defs`) into a function
that only answers "valid?"; the full validator runs only when the answer is
no, to say why. Keywords this module does not know are not guessed at: a
subschema holding one is handed to `fallback` (jsonschema) whole. Patterns run
on RE2, as everywhere else. Tests compare its verdicts with jsonschema's.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from acp_docs.validation.schemacheck import compiled

Check = Callable[[Any], bool]

ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "$anchor",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
        "contentEncoding",
        "contentMediaType",
        "discriminator",
        "propertyName",
        "$defs",
        "definitions",
    }
)
"""Keywords that never change a verdict (formats are not asserted, as in jsonschema)."""

KNOWN = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "const",
        "enum",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "pattern",
        "$ref",
    }
)


def _is_type(value: Any, name: str) -> bool:
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if isinstance(value, bool):
        return False
    if name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if name == "number":
        return isinstance(value, int | float)
    return False


def _equal(one: Any, two: Any) -> bool:
    """JSON equality: 1 equals 1.0, but true is not 1."""
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(_equal(one[k], two[k]) for k in one)
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, int | float) and isinstance(two, int | float):
        return one == two
    return type(one) is type(two) and one == two


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same(value: Any) -> Any:
    return value


_BOUNDS: dict[
    str, tuple[Callable[[Any], bool], Callable[[Any], Any], Callable[[Any, Any], bool]]
] = {
    "minimum": (_number, _same, operator.ge),
    "maximum": (_number, _same, operator.le),
    "exclusiveMinimum": (_number, _same, operator.gt),
    "exclusiveMaximum": (_number, _same, operator.lt),
    # A string's length is counted in code points, as JSON Schema counts it.
    "minLength": (lambda v: isinstance(v, str), len, operator.ge),
    "maxLength": (lambda v: isinstance(v, str), len, operator.le),
    "minItems": (lambda v: isinstance(v, list), len, operator.ge),
    "maxItems": (lambda v: isinstance(v, list), len, operator.le),
}
"""Each bounding keyword: which values it applies to, what it measures, how it compares."""


class Compiler:
    """Compiles subschemas of one schema document, sharing the `$defs` they refer to."""

    def __init__(self, defs: dict[str, Any], fallback: Callable[[dict[str, Any]], Check]) -> None:
        self.defs = defs
        self.fallback = fallback
        self._refs: dict[str, Check] = {}
        self._made: dict[int, tuple[Any, Check]] = {}

    def compile(self, schema: Any) -> Check:
        """The yes-or-no check of one subschema."""
        if schema is True:
            return lambda _value: True
        if schema is False:
            return lambda _value: False
        if not isinstance(schema, dict):
            raise ValueError(f"not a schema: {schema!r}")
        made = self._made.get(id(schema))
        if made is not None and made[0] is schema:
            return made[1]
        check = self._compile(schema)
        self._made[id(schema)] = (schema, check)
        return check

    def _ref(self, ref: str) -> Check:
        if not ref.startswith("#/$defs/") or "/" in ref[len("#/$defs/") :]:
            raise ValueError(f"unsupported $ref {ref!r}")
        name = ref[len("#/$defs/") :].replace("~1", "/").replace("~0", "~")
        if name not in self.defs:
            raise ValueError(f"$ref {ref!r} names no definition")
        if name not in self._refs:
            # Registered before compiling, so a recursive definition refers to itself.
            holder: list[Check] = []
            self._refs[name] = lambda value: holder[0](value)
            holder.append(self.compile(self.defs[name]))
        return self._refs[name]

    def _compile(self, schema: dict[str, Any]) -> Check:
        unknown = [k for k in schema if k not in KNOWN and k not in ANNOTATIONS]
        if any(not k.startswith("x-") for k in unknown):
            return self.fallback(schema)
        checks: list[Check] = []
        types = schema.get("type")
        if isinstance(types, str):
            name = types
            checks.append(lambda v: _is_type(v, name))
        elif isinstance(types, list):
            names = tuple(types)
            checks.append(lambda v: any(_is_type(v, n) for n in names))
        if "const" in schema:
            constant = schema["const"]
            if isinstance(constant, str):
                checks.append(lambda v: isinstance(v, str) and v == constant)
            else:
                checks.append(lambda v: _equal(v, constant))
        if "enum" in schema:
            options = tuple(schema["enum"])
            checks.append(lambda v: any(_equal(v, o) for o in options))
        checks += self._bounds(schema)
        checks += self._objects(schema) + self._arrays(schema) + self._combinators(schema)
        if "$ref" in schema:
            checks.append(self._ref(schema["$ref"]))
        if not checks:
            return lambda _value: True
        if len(checks) == 1:
            return checks[0]
        steps = tuple(checks)
        return lambda v: all(step(v) for step in steps)

    def _bounds(self, schema: dict[str, Any]) -> list[Check]:
        """minimum ... maxItems: each applies only to values of its kind."""
        out: list[Check] = []
        for keyword, (applies, measure, holds) in _BOUNDS.items():
            if keyword in schema:
                bound = schema[keyword]
                out.append(lambda v, a=applies, m=measure, h=holds, b=bound: not a(v) or h(m(v), b))
        if "pattern" in schema:
            program = compiled(schema["pattern"])
            out.append(lambda v: not isinstance(v, str) or program.search(v) is not None)
        return out

    def _objects(self, schema: dict[str, Any]) -> list[Check]:
        out: list[Check] = []
        required = tuple(schema.get("required") or ())
        if required:
            out.append(lambda v: not isinstance(v, dict) or all(k in v for k in required))
        props = {k: self.compile(s) for k, s in (schema.get("properties") or {}).items()}
        extra = schema.get("additionalProperties", True)
        extra_check = None if extra is True else self.compile(extra)
        if props or extra_check is not None:

            def members(v: Any) -> bool:
                if not isinstance(v, dict):
                    return True
                for key, value in v.items():
                    check = props.get(key)
                    if check is not None:
                        if not check(value):
                            return False
                    elif extra_check is not None and not extra_check(value):
                        return False
                return True

            out.append(members)
        return out

    def _arrays(self, schema: dict[str, Any]) -> list[Check]:
        out: list[Check] = []
        if "items" in schema:
            item = self.compile(schema["items"])
            out.append(lambda v: not isinstance(v, list) or all(item(x) for x in v))
        return out

    def _combinators(self, schema: dict[str, Any]) -> list[Check]:
        out: list[Check] = []
        if "allOf" in schema:
            every = tuple(self.compile(s) for s in schema["allOf"])
            out.append(lambda v: all(c(v) for c in every))
        if "anyOf" in schema:
            some = tuple(self.compile(s) for s in schema["anyOf"])
            out.append(lambda v: any(c(v) for c in some))
        if "oneOf" in schema:
            exactly = tuple(self.compile(s) for s in schema["oneOf"])
            out.append(lambda v: sum(1 for c in exactly if c(v)) == 1)
        if "not" in schema:
            negated = self.compile(schema["not"])
            out.append(lambda v: not negated(v))
        if "if" in schema:
            condition = self.compile(schema["if"])
            then = self.compile(schema.get("then", True))
            otherwise = self.compile(schema.get("else", True))
            out.append(lambda v: then(v) if condition(v) else otherwise(v))
        return out
