"""The yes-or-no JSON Schema decision, made by jsonschema-rs: valid or not, nothing more.

- Draft 2020-12, formats not asserted (as python-jsonschema, which explains).
- Offline: every reference that leaves the registered documents goes to a
  retriever that refuses it, so nothing is ever fetched; such a schema is a
  `SchemaRefused` that names the reference.
- `pattern` and `patternProperties` run on the Rust `regex` engine
  (`RegexOptions`), whose matching time is linear in the input; a pattern it
  cannot run (lookaround, backreferences) refuses the schema.

When the answer is no, python-jsonschema says why (`acp_docs.validation.explain`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import jsonschema_rs

from acp_docs.core.errors import UsageError
from acp_docs.sources import pointer as ptr

if TYPE_CHECKING:
    # Only in jsonschema-rs's stubs: what a `retriever=` is called as, `retrieve(uri)`.
    from jsonschema_rs import RetrieverProtocol

PATTERNS = jsonschema_rs.RegexOptions()
"""The linear-time `regex` engine: no backtracking, so no pattern can make matching slow."""

Validator = jsonschema_rs.Draft202012Validator
"""A compiled jsonschema-rs validator (`is_valid(instance) -> bool`)."""

_Built = TypeVar("_Built")


class SchemaRefused(UsageError):
    """A schema jsonschema-rs will not compile: a reference leaving it, a bad pattern or keyword."""


def _compiling(build: Callable[[RetrieverProtocol], _Built]) -> _Built:
    """Run `build(retrieve)` (a registry or a validator), a failure a SchemaRefused saying why."""
    refused: list[str] = []

    def retrieve(uri: str) -> NoReturn:
        refused.append(uri)
        raise LookupError(f"{uri}: nothing is retrieved")

    try:
        return build(retrieve)
    except (jsonschema_rs.ValidationError, ValueError) as exc:
        if refused:
            raise SchemaRefused(
                f"$ref {refused[0]!r} leaves the document; nothing is retrieved"
            ) from None
        reason = getattr(exc, "message", None) or str(exc).splitlines()[0]
        place = getattr(exc, "instance_path", None)
        where = f" at {ptr.format(place)}" if place else ""
        raise SchemaRefused(f"not a schema this tool can check{where}: {reason}") from None


def compile(schema: Any) -> Validator:
    """The yes-or-no check of one standalone schema; SchemaRefused when it cannot be made."""
    return _compiling(
        lambda retrieve: jsonschema_rs.Draft202012Validator(
            schema, retriever=retrieve, pattern_options=PATTERNS, validate_formats=False
        )
    )


def _absolute(node: Any, uri: str) -> Any:
    """A copy of `node` whose same-document `$ref`s name `uri`'s document."""
    if isinstance(node, list):
        return [_absolute(item, uri) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _absolute(value, uri) for key, value in node.items()}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        out["$ref"] = uri + ref
    return out


def _own_uri(document: Any) -> str | None:
    """The absolute URI a document's `$id` gives it (without an empty fragment), or None."""
    own = document.get("$id") if isinstance(document, dict) else None
    if not isinstance(own, str) or ":" not in own.split("/", 1)[0]:
        return None
    return own.removesuffix("#")


class Decider:
    """Yes-or-no checks of the subschemas of some documents, each compiled once, on first use.

    The documents are registered once, by URI; a subschema is checked through a
    `$ref` to its place (`urn:...#/$defs/X/anyOf/2`), so its own references
    resolve in its document. A subschema is found by identity: pass the very
    objects the documents hold (of the documents `indexed` names; all when it
    names none). The documents must not change afterwards.
    """

    def __init__(self, documents: Mapping[str, Any], indexed: Collection[str] = ()) -> None:
        # A document that names itself with an absolute `$id` is registered under it,
        # so that the references of the resources it embeds resolve as it means.
        self.uris = {uri: _own_uri(document) or uri for uri, document in documents.items()}
        resources = [(self.uris[uri], document) for uri, document in documents.items()]
        self._registry = _compiling(
            lambda retrieve: jsonschema_rs.Registry(resources, retriever=retrieve)
        )
        self._home = resources[0][0]
        self._places: dict[int, tuple[Any, str]] = {}
        for uri, document in documents.items():
            if indexed and uri not in indexed:
                continue
            for where, node in ptr.nodes(document):
                self._places.setdefault(id(node), (node, self.uris[uri] + ptr.fragment(where)))
        self._compiled: dict[str, Validator] = {}
        self._foreign: dict[str, Validator] = {}

    def at(self, uri: str, where: str) -> Validator:
        """The check of the subschema at pointer `where` of the document registered as `uri`."""
        return self._ref(self.uris.get(uri, uri) + ptr.fragment(where))

    def _ref(self, target: str) -> Validator:
        check = self._compiled.get(target)
        if check is None:
            check = self._build({"$ref": target})
            self._compiled[target] = check
        return check

    def _build(self, schema: Any) -> Validator:
        return _compiling(
            lambda retrieve: jsonschema_rs.Draft202012Validator(
                schema,
                registry=self._registry,
                retriever=retrieve,
                pattern_options=PATTERNS,
                validate_formats=False,
            )
        )

    def valid(self, schema: Any, instance: Any) -> bool:
        """True when `instance` satisfies `schema`, a subschema of a document (or any schema)."""
        if schema is True or schema is False:
            return schema
        place = self._places.get(id(schema))
        if place is not None and place[0] is schema:
            return bool(self._ref(place[1]).is_valid(instance))
        # A schema the documents do not hold: its same-document references are the first's.
        key = json.dumps(schema, sort_keys=True)
        check = self._foreign.get(key)
        if check is None:
            check = self._build(_absolute(schema, self._home))
            self._foreign[key] = check
        return bool(check.is_valid(instance))
