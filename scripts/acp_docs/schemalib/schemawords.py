"""A JSON Schema validation error in plain words, with the path of the value it is about.

Subschemas say what a value must be in their `description` ("plain text (no
<, >, ...)"); the message quotes it, as in `theme.palette[0].primary must be
one of red, pink, ...; not 'x'`. A key that is not allowed is located at the
key itself, with the keys its mapping may hold.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from jsonschema.exceptions import ValidationError

from acp_docs.core.escaping import printable
from acp_docs.sources import pointer as ptr


def shown(value: Any) -> str:
    """A value as a message quotes it: its repr, printable, at most 80 characters."""
    return printable(repr(value)[:80])


def where(path: Iterable[Any], whole: str) -> str:
    """`theme.palette[0].primary` for a path of keys and indexes; `whole` for the empty path."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or whole


def problem(
    error: ValidationError,
    whole: str,
    show: Callable[[Any], str] = shown,
    why: Mapping[str, str] | None = None,
) -> tuple[list[Any], str]:
    """The path of the value `error` is about, and what is wrong with it, in plain words.

    `whole` names the document (`mkdocs.yml`, `front matter`); `show` quotes a
    value; `why` says why a well-known key or name is not allowed.
    """
    path, message = _problem(error, whole, show)
    name = path[-1] if error.validator == "additionalProperties" else error.instance
    reason = (why or {}).get(name) if isinstance(name, str) else None
    return path, f"{message} ({reason})" if reason else message


def _problem(
    error: ValidationError, whole: str, show: Callable[[Any], str]
) -> tuple[list[Any], str]:
    path: list[Any] = list(error.absolute_path)
    # A validator sets these on every error it yields (the stub's `Unset` is only the
    # constructor's default). The failing subschema is a mapping for each keyword read
    # below; the instance and the keyword's value are any JSON.
    kind = error.validator
    schema: Any = error.schema
    value: Any = error.instance
    rule: Any = error.validator_value
    words = schema.get("description") if isinstance(schema, dict) else None
    if "propertyNames" in error.relative_schema_path:
        path.append(value)
        return path, f"the key {show(value)} must be {words}"
    at = where(path, whole)
    if kind == "additionalProperties":
        allowed = list(schema.get("properties", {}))
        extra = next(k for k in value if k not in allowed)
        path.append(extra)
        may = f"; {at} may hold: {', '.join(allowed)}" if allowed else ""
        return path, f"{where(path, whole)} is not allowed here{may}"
    if kind in ("type", "minProperties", "maxProperties") and words:
        return path, f"{at} must be {words}"
    if kind == "enum":
        options = ", ".join(str(v) for v in rule)
        return path, f"{at} must be one of {options}; not {show(value)}"
    if kind == "const":
        return path, f"{at} must be {json.dumps(rule)}; not {show(value)}"
    if kind in ("pattern", "maxLength", "minLength", "minimum", "maximum") and words:
        return path, f"{at} must be {words}; not {show(value)}"
    if kind == "not":
        reason = rule.get("description") or show(value)
        return path, f"{at} may not be {reason}"
    if kind == "required":
        missing = next(k for k in rule if k not in value)
        return path, f"{at} must set {missing}"
    if kind == "uniqueItems":
        return path, f"{at} lists an item twice"
    return path, f"{at} {error.message}" if kind == "pythonName" else f"{at}: {error.message}"


def pointers(path: list[Any]) -> list[str]:
    """The JSON pointers of `path` and of each of its parents, the longest first."""
    return [ptr.format(path[:n]) for n in range(len(path), -1, -1)]
