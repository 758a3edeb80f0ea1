"""Validators per (version, definition) over the merged schemas, and JSON-RPC dispatch.

A whole JSON-RPC message is never checked against the schema's lax root `anyOf`:
it is dispatched by `method` to the definition whose `x-method` matches, a request
(with `id`) to a `...Request`, a notification to a `...Notification`.

Besides what the schema rejects, each outcome lists the members no schema names
(`acp_docs.validation.unknownprops`): the schemas accept them, so they are not problems of
validity, but they are most often typos.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_docs.core import protocols
from acp_docs.core.errors import LocatedError, UsageError
from acp_docs.core.findings import Finding
from acp_docs.schema import merge, messages, source
from acp_docs.schemalib import decide, schemacheck
from acp_docs.sources import pointer as ptr
from acp_docs.validation import explain, receiver, shapes, unknownprops
from acp_docs.validation.explain import Problem
from acp_docs.validation.receiver import Verdict

MAX_REMEMBERED = 4096
"""Outcomes kept for payloads seen again (docs repeat them across versions and tabs)."""

__all__ = ["DispatchError", "Outcome", "Problem", "SchemaSet", "define_method_hint"]


@dataclass(frozen=True)
class Outcome:
    """The result of checking one payload: the definition used and its problems."""

    protocol: str
    definition: str
    problems: tuple[Problem, ...]
    verdict: Verdict | None = None
    """What a receiver does with an invalid payload (None when the payload is valid)."""
    unknown: tuple[Problem, ...] = ()
    """Members that no schema applying at their place names (a receiver ignores them)."""

    @property
    def valid(self) -> bool:
        """True when the payload satisfies the definition."""
        return not self.problems

    @property
    def kept(self) -> bool:
        """True when a receiver keeps the message, dropping only annotated values."""
        return self.valid or (self.verdict is not None and self.verdict.kept)

    def label(self) -> str:
        """`[v1 SessionNotification]`, the prefix of every reported problem."""
        return f"[{self.protocol} {self.definition}]"


class DispatchError(UsageError):
    """A JSON-RPC message that cannot be matched to a definition.

    `method` and `kind` are set when no definition of that kind has the method,
    so that the caller can say where to define it (`define_method_hint`).
    """

    def __init__(self, message: str, method: str | None = None, kind: str | None = None) -> None:
        super().__init__(message)
        self.method = method
        self.kind = kind


def define_method_hint(method: str, kind: str, source: str | None, exists: bool) -> str:
    """Where and how to define a method no message has.

    `source` is the schema source of the RFD the message is written in (None
    outside an RFD); `exists` says whether that file exists yet.
    """
    unions = " or ".join(
        f"{union.definition} (x-side: {union.side})"
        for union in messages.MESSAGE_UNIONS.values()
        if union.kind == kind
    )
    what = (
        f"a ...{kind} definition that has `x-method: {method}` and `x-side`, and an"
        f" `add-message` change that adds it to {unions}; see Tooling > Engine layout"
    )
    if source is not None and exists:
        return f"define it in {source}: {what}"
    if source is not None:
        return f"add the method to a schema source: create {source} with {what}"
    return f"add the method to a schema source, schema/<slug>/source.yaml: {what}"


@dataclass
class SchemaSet:
    """The merged schema of each version, with its checks made once and reused.

    jsonschema-rs decides whether a payload is valid (`decide`); python-jsonschema
    says why one is not (`explain`), from the union branch the payload meant.
    """

    schemas: dict[str, dict[str, Any]]
    _dispatched: dict[str, dict[str, Any]] = field(default_factory=dict)
    _deciders: dict[str, decide.Decider] = field(default_factory=dict)
    _explainers: dict[tuple[str, str], Any] = field(default_factory=dict)
    _methods: dict[str, dict[str, list[tuple[str, dict[str, Any]]]]] = field(default_factory=dict)
    _finders: dict[str, unknownprops.Finder] = field(default_factory=dict)
    _outcomes: dict[tuple[str, str, str, str], Outcome] = field(default_factory=dict)
    _shapes: dict[str, shapes.Shapes] = field(default_factory=dict)
    problems: tuple[Finding, ...] = ()
    """What kept a source, or its change in one version, out of the merge (see
    `merge.assemble`); the schema check reports them."""
    source_files: dict[str, str] = field(default_factory=dict)
    """The schema source of each RFD that has one, by slug: `schema/<slug>/source.yaml`."""

    @classmethod
    def from_sources(
        cls, root: Path, sources: list[source.SchemaSource], meta_check: bool = False
    ) -> SchemaSet:
        """Every version's unstable base (a superset of the stable one) with every RFD merged.

        Examples and payloads of any RFD, Completed or not, validate against it.
        A source with problems, or a change the merge refuses, is left out; the
        others are merged (`problems` says what was left out and why).
        """
        made = merge.assemble(root, sources, meta_check)
        return cls(
            dict(made.schemas),
            problems=made.problems,
            source_files={s.slug: s.shown for s in sources},
        )

    @classmethod
    def from_repo(cls, root: Path) -> SchemaSet:
        """The merged schemas of the repository at `root`, from its schema sources.

        For commands that check payloads on their own (`acp-docs validate`,
        `examples`, `trace`): a source with a problem, or a change the merge
        refuses, is a UsageError at its line, so the cause is said first.
        """
        from acp_docs.config.repo import Repo
        from acp_docs.rfds import model as rfds

        sources = rfds.schema_sources(Repo.load(root))
        source.refuse_problems(sources)
        made = cls.from_sources(root, sources)
        for found in made.problems:
            if found.rule_id == "schema/merge":
                raise LocatedError(found.path, found.line, found.col, found.message)
        return made

    @property
    def versions(self) -> tuple[str, ...]:
        """The protocol versions held, oldest first."""
        return tuple(self.schemas)

    def definitions(self, protocol: str) -> dict[str, Any]:
        """The `$defs` of a version."""
        return self.schemas[protocol]["$defs"]

    def has(self, protocol: str, name: str) -> bool:
        """True when the version defines `name`."""
        return name in self.definitions(protocol)

    def shapes(self, protocol: str) -> shapes.Shapes:
        """The shapes of a version's definitions, to infer what a fragment is (made once)."""
        found = self._shapes.get(protocol)
        if found is None:
            fallbacks = protocols.get(protocol).fallback_titles
            found = self._shapes[protocol] = shapes.Shapes(self.schemas[protocol], fallbacks)
        return found

    def responses(self, protocol: str) -> list[str]:
        """The definitions of a version that answer a request (`x-method`, named ...Response)."""
        return [
            name
            for name, definition in self.definitions(protocol).items()
            if name.endswith("Response")
            and isinstance(definition, dict)
            and "x-method" in definition
        ]

    def _published(self, protocol: str) -> str:
        return f"urn:acp-docs:{protocol}"

    def _explained(self, protocol: str) -> str:
        return f"urn:acp-docs:{protocol}:explained"

    def _decider(self, protocol: str) -> decide.Decider:
        """The yes-or-no checks of a version: its merged schema, and the copy `explain` reads."""
        decider = self._deciders.get(protocol)
        if decider is None:
            fallbacks = protocols.get(protocol).fallback_titles
            defs = explain.discriminate(self.schemas[protocol]["$defs"], fallbacks)
            self._dispatched[protocol] = defs
            explained = {"$schema": self.schemas[protocol].get("$schema"), "$defs": defs}
            decider = decide.Decider(
                {
                    self._explained(protocol): explained,
                    self._published(protocol): self.schemas[protocol],
                },
                indexed={self._explained(protocol)},
            )
            self._deciders[protocol] = decider
        return decider

    def _defs(self, protocol: str) -> dict[str, Any]:
        """The `$defs` `explain`, `receiver` and `unknownprops` read (unions dispatched by tag)."""
        self._decider(protocol)
        return self._dispatched[protocol]

    def _known(self, protocol: str, name: str) -> None:
        if not self.has(protocol, name):
            raise UsageError(f"unknown definition {name!r} in ACP {protocol}")

    def validator(self, protocol: str, name: str) -> Any:
        """The python-jsonschema validator that says why a `name` of `protocol` is invalid."""
        key = (protocol, name)
        if key not in self._explainers:
            self._known(protocol, name)
            root = {
                "$schema": self.schemas[protocol].get("$schema"),
                "$defs": self._defs(protocol),
                "$ref": ptr.fragment(ptr.format(("$defs", name))),
            }
            self._explainers[key] = schemacheck.validator(root, self._condition(protocol))
        return self._explainers[key]

    def _condition(self, protocol: str) -> schemacheck.Condition:
        """The yes-or-no check of a subschema of the version (of its `_defs`)."""
        return self._decider(protocol).valid

    def is_valid(self, protocol: str, name: str, payload: Any) -> bool:
        """True when `payload` is a valid `name` of `protocol`, as jsonschema-rs decides."""
        self._known(protocol, name)
        check = self._decider(protocol).at(self._published(protocol), ptr.format(("$defs", name)))
        return bool(check.is_valid(payload))

    def unknown(
        self, protocol: str, name: str, payload: Any, prefix: str = ""
    ) -> tuple[Problem, ...]:
        """The members of `payload`, a `name` of `protocol`, that no applying schema names."""
        self._known(protocol, name)
        finder = self._finders.get(protocol)
        if finder is None:
            finder = unknownprops.Finder(
                self._defs(protocol),
                self._condition(protocol),
                protocols.get(protocol).fallback_titles,
            )
            self._finders[protocol] = finder
        return tuple(
            Problem(prefix + receiver.pointer(found.path), found.message())
            for found in finder.find(self._defs(protocol)[name], payload)
        )

    def check(self, protocol: str, name: str, payload: Any, prefix: str = "") -> Outcome:
        """Validate `payload` as a `name` of `protocol`; pointers start with `prefix`.

        An invalid payload's outcome also says what a receiver does with it; every
        outcome lists the members no schema names (`unknown`). An outcome is a
        function of its arguments alone, so the same payload (the same JSON, its
        members in the same order) is checked once.
        """
        try:
            key = (protocol, name, prefix, json.dumps(payload, allow_nan=True))
        except (TypeError, ValueError, RecursionError):
            return self._check(protocol, name, payload, prefix)
        outcome = self._outcomes.get(key)
        if outcome is None:
            outcome = self._check(protocol, name, payload, prefix)
            if len(self._outcomes) >= MAX_REMEMBERED:
                self._outcomes.clear()
            self._outcomes[key] = outcome
        return outcome

    def _check(self, protocol: str, name: str, payload: Any, prefix: str) -> Outcome:
        unknown = self.unknown(protocol, name, payload, prefix)
        if self.is_valid(protocol, name, payload):
            return Outcome(protocol, name, (), unknown=unknown)
        unique, paths = explain.explain(self.validator(protocol, name), payload, prefix)
        if not unique:
            return Outcome(protocol, name, unique, unknown=unknown)
        defs = self._defs(protocol)
        verdict = receiver.classify(defs[name], defs, payload, paths, self._condition(protocol))
        if verdict.kept and prefix:
            verdict = receiver.Verdict(True, tuple((*ptr.parse(prefix), *d) for d in verdict.drops))
        return Outcome(protocol, name, unique, verdict, unknown)

    def by_method(self, protocol: str, method: str) -> list[tuple[str, dict[str, Any]]]:
        """The (name, definition) pairs whose `x-method` is `method`, indexed once per version."""
        if protocol not in self._methods:
            index: dict[str, list[tuple[str, dict[str, Any]]]] = {}
            for name, definition in self.definitions(protocol).items():
                if isinstance(definition, dict) and isinstance(definition.get("x-method"), str):
                    index.setdefault(definition["x-method"], []).append((name, definition))
            self._methods[protocol] = index
        return self._methods[protocol].get(method, [])

    def dispatch(self, protocol: str, message: Any) -> str:
        """The definition of a JSON-RPC message's params, found by `method` and kind."""
        if not isinstance(message, dict) or "jsonrpc" not in message:
            raise DispatchError("not a JSON-RPC message (no `jsonrpc` member)")
        method = message.get("method")
        if method is None:
            raise DispatchError(
                "a JSON-RPC response carries no `method`: declare the definition of its result"
            )
        if not isinstance(method, str):
            raise DispatchError("`method` is not a string")
        kind = "Request" if "id" in message else "Notification"
        named = sorted(name for name, _d in self.by_method(protocol, method))
        if not named and method.startswith(EXTENSION) and self.has(protocol, f"Ext{kind}"):
            return f"Ext{kind}"
        matches = [name for name in named if name.endswith(kind)]
        if len(matches) > 1:
            raise DispatchError(
                f"more than one ACP {protocol} {kind.lower()} has method {method!r}"
                f" ({', '.join(matches)})"
            )
        if matches:
            return matches[0]
        other = "Notification" if kind == "Request" else "Request"
        if any(name.endswith(other) for name in named):
            fix = "remove its `id`" if kind == "Request" else "give it an `id`"
            raise DispatchError(
                f"no ACP {protocol} {kind.lower()} has method {method!r}: it is the method of a"
                f" {other.lower()}, so {fix}"
            )
        raise DispatchError(f"no ACP {protocol} {kind.lower()} has method {method!r}", method, kind)

    def check_message(self, protocol: str, message: Any) -> Outcome:
        """Validate a whole JSON-RPC message: its envelope, then its params by method."""
        name = self.dispatch(protocol, message)
        envelope = ENVELOPE | {"id"} if "id" in message else ENVELOPE
        unknown = [
            Problem(receiver.pointer([key]), unknownprops.Unknown((key,), key, envelope).message())
            for key in message
            if key not in envelope
        ]
        problems: list[Problem] = []
        if message.get("jsonrpc") != "2.0":
            problems.append(Problem("/jsonrpc", f"{message.get('jsonrpc')!r} should be '2.0'"))
        if "id" in message:
            id_outcome = self.check(protocol, "RequestId", message["id"], "/id")
            problems.extend(id_outcome.problems)
        if "params" not in message:
            problems.append(Problem("", "'params' is a required property"))
        else:
            params = self.check(protocol, name, message["params"], "/params")
            problems.extend(params.problems)
            unknown.extend(params.unknown)
            if len(problems) == len(params.problems):
                return Outcome(protocol, name, tuple(problems), params.verdict, tuple(unknown))
        verdict = receiver.Verdict(False, ()) if problems else None
        return Outcome(protocol, name, tuple(problems), verdict, tuple(unknown))


EXTENSION = "_"
"""The prefix ACP reserves for extension methods: a message of one is an `ExtRequest` or an
`ExtNotification`, whatever its params, in either direction."""
ENVELOPE = frozenset({"jsonrpc", "method", "params"})
"""The members of a JSON-RPC notification; a request has `id` too."""
