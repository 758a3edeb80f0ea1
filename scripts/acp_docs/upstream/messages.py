"""The JSON blocks of an upstream page checked against the published schemas, kinds inferred.

No declaration is needed: a JSON-RPC request or notification is found by its
`method` (the definition whose `x-method` matches), a response by its `id`
(paired with the request before it on the page), an error response by its
`error`, and a session update by its `sessionUpdate` tag. A block may still be
declared, in an MDX comment right before its fence: `{/* acp-docs: Plan v2 */}`.
The version is the fence's (`json v2`), the words before the block, or the
page's folder (`blockwords`), else the oldest. A method no stable schema has is
checked against `schema.unstable.json`; one in no schema is a note. On a
proposal page (a Draft RFD, a draft protocol page) a payload the schema refuses
is a warning: the proposal may lead the schema.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from acp_docs.core import protocols
from acp_docs.core.findings import Finding
from acp_docs.sources import jsonplaces as places
from acp_docs.upstream import blocks
from acp_docs.upstream import blocks as blocks_module
from acp_docs.upstream.blockwords import in_future, is_json_schema, prose_before, version_of
from acp_docs.upstream.scan import Block
from acp_docs.validation import causes, shapes
from acp_docs.validation.schemaset import DispatchError, Outcome, SchemaSet

CHECK = "upstream-examples"


@dataclass(frozen=True)
class Schemas:
    """The published schemas of every version: `stable` (schema.json) and `unstable`."""

    stable: SchemaSet
    unstable: SchemaSet
    own: frozenset[str] = frozenset(protocols.NAMES)
    """The versions whose schemas are the tree's own (the others are the pinned SDK's, which
    may be younger than the tree: they judge its pages, but say nothing of its past)."""


def _id_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


class PageChecker:
    """Checks the blocks of one page in order, pairing responses with earlier requests."""

    def __init__(
        self,
        path: str,
        route: str,
        proposal: bool,
        schemas: Schemas,
        blocks: tuple = (),
        text: str = "",
    ) -> None:
        self.path = path
        self.route = route
        self.proposing = proposal
        """The block being checked is a proposal: on a proposal's page, or in a page's "Shiny
        future" (what does not exist yet)."""
        self.text = text
        """The page's text, for the words before each block."""
        self.proposal = proposal
        self.schemas = schemas
        self.requests: dict[tuple[str, str], str] = {}
        self.findings: list[Finding] = []
        self.checked = 0
        self.page_requests = self._requests_of(blocks)
        """Every request of the page by (version, id): a response pairs with one after it too."""

    def _requests_of(self, blocks: tuple) -> dict[tuple[str, str], str]:
        found: dict[tuple[str, str], str] = {}
        for block in blocks:
            if block.lang.lower() not in blocks_module.LANGS or block.declared is not None:
                continue
            read = blocks_module.read(block.value)
            value = read.value if read.kind in ("json", "jsonc") else None
            if isinstance(value, dict) and isinstance(value.get("method"), str) and "id" in value:
                key = (self.version(block), _id_key(value["id"]))
                found.setdefault(key, value["method"])
        return found

    def _add(self, line: int, rule: str, message: str, level: str = "error") -> None:
        self.findings.append(Finding(self.path, line, 1, CHECK, message, f"upstream/{rule}", level))

    def block(self, block: Block) -> None:
        """Check one fenced block (blocks of other languages are left alone)."""
        if block.lang.lower() not in blocks.LANGS:
            return
        version = self.version(block)
        self.proposing = self.proposal or in_future(self.text, block.line)
        read = blocks.read(block.value)
        if read.kind == "abridged":
            self._add(
                block.line, "abridged", "abridged with `...` or a placeholder: not checked", "note"
            )
            return
        if read.kind == "invalid":
            self._add(block.line + read.line, "not-json", f"not JSON: {read.message}")
            return
        text = block.value if read.kind == "json" else blocks.strip_jsonc(block.value)
        lines = places.lines(text)

        def at(pointer: str) -> int:
            return block.line + places.line_of(lines, pointer)

        if block.declared is not None:
            self._declared(block, version, read.value, at)
        else:
            self._message(version, read.value, at, block.line + 1)

    def version(self, block: Block) -> str:
        """The block's version: its fence, the words before it, or its page's folder."""
        return version_of(self.route, block.meta, prose_before(self.text, block.line))

    def stray(self, line: int) -> None:
        """An `acp-docs:` declaration with no fenced block right after it."""
        message = "an `acp-docs:` declaration must come right before the fence it declares"
        self._add(line, "declaration", message)

    def _declared(self, block: Block, version: str, value: Any, at: Any) -> None:
        """A block checked as what its `{/* acp-docs: ... */}` comment declares it to be."""
        words = (block.declared or "").split()
        version = next((w for w in words if w in protocols.VERSIONS), version)
        names = [w for w in words if w not in protocols.VERSIONS]
        if names == ["skip"]:
            self._add(block.line, "declared-skip", "declared `skip`: not checked", "note")
            return
        if len(names) != 1:
            message = (
                "declare one definition and, if you like, a version:"
                " `{/* acp-docs: ToolCallContent v2 */}`, or `skip`"
            )
            self._add(block.declared_line, "declaration", message)
            return
        (definition,) = names
        for schemas in self._sets():
            if schemas.has(version, definition):
                outcome = schemas.check(version, definition, value)
                self._outcome(outcome, at, schemas is self.schemas.unstable)
                return
        message = f"[{version}] declares {definition!r}, which no published schema defines"
        self._add(block.declared_line, "declaration", message)

    def _message(self, version: str, value: Any, at: Any, first: int) -> None:
        if not isinstance(value, dict):
            self._add(first, "not-a-message", "not an ACP message: read as JSON only", "note")
            return
        if isinstance(value.get("method"), str):
            self._call(version, value, at)
        elif "id" in value and ("result" in value or "error" in value):
            self._response(version, value, at)
        elif "sessionUpdate" in value:
            union = protocols.get(version).unions.get("SessionUpdate")
            if union is not None and not self._other_version(version, value, at):
                schemas = self._pick(version, union.definition)
                outcome = schemas.check(version, union.definition, value)
                self._outcome(outcome, at, schemas is self.schemas.unstable)
        elif is_json_schema(value):
            said = "a JSON Schema (it describes values), not a payload: read as JSON only"
            self._add(first, "json-schema", said, "note")
        elif not self._inferred(version, value, at, first):
            self._add(
                first,
                "not-a-message",
                "not an ACP message (no `method`, `id` or `sessionUpdate`), and no one"
                " definition has its shape: read as JSON only",
                "note",
            )

    def _tags(self, schemas: SchemaSet, version: str) -> set[Any]:
        union = protocols.get(version).unions.get("SessionUpdate")
        if union is None or not schemas.has(version, union.definition):
            return set()
        return {
            fixed
            for shape in schemas.shapes(version).shapes(union.definition)
            for tag, fixed in shape.tags
            if tag == union.discriminator
        }

    def _other_version(self, version: str, value: dict[str, Any], at: Any) -> bool:
        """A tag no schema of `version` knows but another version's does: say which fence."""
        tag = value.get("sessionUpdate")
        union = protocols.get(version).unions.get("SessionUpdate")
        if union is None or union.is_open:
            return False  # an open union keeps a tag it does not know: nothing to say
        if any(tag in self._tags(s, version) for s in self._sets()):
            return False
        if self.proposing:
            said = (
                f"[{version}] sessionUpdate {tag!r}: a proposal's update, which no schema of the"
                " tree has yet: not checked"
            )
            self._add(at("/sessionUpdate"), "not-in-schema", said, "note")
            return True
        for other in protocols.NAMES:
            if other != version and version in self.schemas.own and other not in self.schemas.own:
                continue  # the SDK's schema of a version the tree did not have yet says nothing
            if other != version and any(tag in self._tags(s, other) for s in self._sets()):
                message = (
                    f"[{version} SessionUpdate] {tag!r} is a sessionUpdate of {other}, not"
                    f" {version}: tag the fence `json {other}`, or move the block to a {other} page"
                )
                level = "warning" if self.proposing else "error"
                self._add(at("/sessionUpdate"), "invalid-payload", message, level)
                return True
        return False

    def _inferred(
        self,
        version: str,
        value: Any,
        at: Any,
        first: int,
        names: list[str] | None = None,
        prefix: str = "",
    ) -> bool:
        """Check a value no member names the kind of against the one definition of its shape."""
        for schemas in self._sets():
            pool = None if names is None else [n for n in names if schemas.has(version, n)]
            found = shapes.infer(schemas.shapes(version), value, pool)
            if found is None:
                continue
            unstable = schemas is self.schemas.unstable
            if found.whole:
                said = f"[{version}] inferred from its members: {found.definition}"
                self._add(first, "inferred", said, "note")
                self._outcome(schemas.check(version, found.definition, value, prefix), at, unstable)
            else:
                each = ", ".join(f"{member} as {target}" for member, target in found.members)
                said = f"[{version}] inferred as members of {found.definition}: {each}"
                self._add(first, "inferred", said, "note")
                for member, target in found.members:
                    where = f"{prefix}/{member}"
                    self._outcome(
                        schemas.check(version, target, value[member], where), at, unstable
                    )
            return True
        return False

    def _sets(self) -> list[SchemaSet]:
        """The schemas to try in order: a proposal's only against the unstable ones."""
        if self.proposal:
            return [self.schemas.unstable]
        return [self.schemas.stable, self.schemas.unstable]

    def _pick(self, version: str, definition: str) -> SchemaSet:
        """The stable schemas when they define `definition`, else the unstable ones."""
        if self.schemas.stable.has(version, definition) and not self.proposal:
            return self.schemas.stable
        return self.schemas.unstable

    def _call(self, version: str, value: dict[str, Any], at: Any) -> None:
        method = value["method"]
        if "id" in value:
            self.requests[(version, _id_key(value["id"]))] = method
        params = value.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        if (
            method == "session/update"
            and isinstance(update, dict)
            and "sessionUpdate" in update
            and self._other_version(version, update, lambda p: at("/params/update" + p))
        ):
            return
        unstable_only = False
        sets = self._sets()
        for index, schemas in enumerate(sets):
            try:
                outcome = schemas.check_message(version, value)
            except DispatchError as exc:
                if exc.method is not None and index + 1 < len(sets):
                    unstable_only = True
                    continue  # in no stable schema: the unstable one may have it
                if exc.method is not None:
                    self._add(
                        at("/method"),
                        "not-in-schema",
                        f"[{version}] {exc}: not in any published schema; a proposal?",
                        "note",
                    )
                else:
                    self._add(at("/method"), "dispatch", f"[{version}] {exc}")
                return
            self._outcome(outcome, at, unstable_only or self.proposal)
            return

    def _response(self, version: str, value: dict[str, Any], at: Any) -> None:
        if "error" in value:
            definition = "Error"
            if self.schemas.stable.has(version, definition):
                outcome = self.schemas.stable.check(version, definition, value["error"], "/error")
                self._outcome(outcome, at, False)
            return
        key = (version, _id_key(value["id"]))
        method = self.requests.get(key) or self.page_requests.get(key)
        if method is None:
            responses = sorted({n for s in self._sets() for n in s.responses(version)})
            result = value.get("result")
            if self._inferred(version, result, at, at("/id"), responses, "/result"):
                return
            self._add(
                at("/id"),
                "unpaired-response",
                f"[{version}] a response whose request is not on the page, and whose result has"
                " the shape of no one response: not checked",
                "note",
            )
            return
        for schemas in self._sets():
            names = [n for n, _d in schemas.by_method(version, method) if n.endswith("Response")]
            if len(names) == 1:
                outcome = schemas.check(version, names[0], value["result"], "/result")
                self._outcome(outcome, at, schemas is self.schemas.unstable)
                return
        self._add(
            at("/id"),
            "not-in-schema",
            f"[{version}] no response of method {method!r} in any published schema: a proposal?",
            "note",
        )

    def _outcome(self, outcome: Outcome, at: Any, unstable: bool) -> None:
        self.checked += 1
        label = (
            outcome.label()
            if not unstable
            else f"[{outcome.protocol} {outcome.definition}, unstable]"
        )
        level = "warning" if self.proposing else "error"
        for cause in causes.causes(outcome.problems, outcome.unknown):
            if cause.unknown:
                self._add(
                    at(cause.pointer), "unknown-property", f"{label} {cause.message}", "warning"
                )
            else:
                self._add(at(cause.pointer), "invalid-payload", f"{label} {cause.message}", level)
