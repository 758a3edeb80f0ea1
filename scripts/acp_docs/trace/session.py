"""A recorded ACP session checked against the merged schema and the RFDs' wire rules.

A trace is JSON Lines, one JSON-RPC message per line, either wrapped with its
direction or plain:

    {"direction": "client-to-agent", "message": {"jsonrpc": "2.0", "id": 0, ...}}
    {"jsonrpc": "2.0", "method": "session/update", "params": {...}}

The direction of a plain request or notification comes from its method (the
side that handles it, `x-side` in the schema); a plain response goes the other
way from the request it answers. Every message is validated by dispatch, a
response against the `...Response` of its request's method; responses are
matched to requests by id (ids are per sender), and unknown or unanswered ids
are findings. Then every wire rule of the version runs over the messages: each
RFD registers its list of rules under the entry-point group `acp_docs.wire_rules`
(a list that fails to load is an error naming its entry point, never skipped).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_docs.core import protocols
from acp_docs.core.findings import Finding
from acp_docs.core.plugins import entries, load_group
from acp_docs.core.plugins import error as plugin_error
from acp_docs.core.protocols import ProtocolVersion
from acp_docs.sources import jsonparse
from acp_docs.sources.textfile import read_text
from acp_docs.validation.schemaset import DispatchError, SchemaSet

CHECK = "trace"
TO_AGENT, TO_CLIENT = "client-to-agent", "agent-to-client"
DIRECTIONS = (TO_AGENT, TO_CLIENT)
SIDE_RECEIVES = {"agent": TO_AGENT, "client": TO_CLIENT}
GROUP = "acp_docs.wire_rules"


@dataclass
class Message:
    """One line of a trace: where it is, which way it went, what it is."""

    line: int
    direction: str
    body: dict[str, Any]
    request: Message | None = None
    """For a response: the request it answers."""
    response: Message | None = None
    """For a request: its response, once seen."""

    @property
    def method(self) -> str | None:
        """The method of a request or notification, or of the request a response answers."""
        if isinstance(self.body.get("method"), str):
            return self.body["method"]
        return self.request.method if self.request is not None else None

    @property
    def is_request(self) -> bool:
        """True for a request (a method and an id)."""
        return "method" in self.body and "id" in self.body

    @property
    def is_response(self) -> bool:
        """True for a response (an id and a result or an error, no method)."""
        return "method" not in self.body and "id" in self.body

    @property
    def params(self) -> dict[str, Any]:
        """The params, or an empty mapping."""
        params = self.body.get("params")
        return params if isinstance(params, dict) else {}


def every_version(_version: ProtocolVersion) -> bool:
    """A rule's `applies` when it holds in every protocol version."""
    return True


@dataclass(frozen=True)
class Rule:
    """A wire rule: its id, the RFD's words, where the RFD states it, and where it holds.

    `check` yields (line, message) for every message that breaks the rule;
    `applies` says, from a version's row, whether the rule holds in it.
    """

    id: str
    statement: str
    link: str
    check: Callable[[list[Message], ProtocolVersion], Iterable[tuple[int, str]]]
    applies: Callable[[ProtocolVersion], bool] = every_version

    @property
    def versions(self) -> tuple[str, ...]:
        """The names of the versions the rule holds in, in the order of the version table."""
        return tuple(v.name for v in protocols.VERSIONS.values() if self.applies(v))


@dataclass
class Trace:
    """A parsed trace: its messages, and the findings of reading it."""

    messages: list[Message] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def _not_rules(value: Sequence[object], _name: str) -> str | None:
    if isinstance(value, str) or not all(isinstance(rule, Rule) for rule in value):
        return "must name a list of wire rules (`Rule`s of acp_docs.trace.session)"
    return None


def rules() -> list[Rule]:
    """Every wire rule of every RFD, from the entry points of group `acp_docs.wire_rules`.

    An entry that fails to import or names no list of rules, and a rule id two
    rules share, is a PluginLoadError naming the entry point.
    """
    found: list[Rule] = []
    owner: dict[str, str] = {}
    for name, listed in load_group(GROUP, Sequence, _not_rules).items():
        for rule in listed:
            if rule.id in owner:
                entry = next(e for e in entries(GROUP) if e.name == name)
                raise plugin_error(
                    entry, f"rule {rule.id!r} is also a rule of entry point {owner[rule.id]!r}"
                )
            owner[rule.id] = name
            found.append(rule)
    return found


def _side_of(schemas: SchemaSet, version: str, method: str) -> str | None:
    sides = [d.get("x-side") for _name, d in schemas.by_method(version, method)]
    return next((SIDE_RECEIVES[s] for s in sides if s in SIDE_RECEIVES), None)


def parse(text: str, shown: str, schemas: SchemaSet, version: str) -> Trace:
    """Read a trace: each line a message; problems as findings at their lines."""
    trace = Trace()

    def find(line: int, message: str, rule: str) -> None:
        trace.findings.append(Finding(shown, line, 1, CHECK, message, f"{CHECK}/{rule}"))

    pending: dict[tuple[str, str], Message] = {}
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            value = jsonparse.loads(raw)
        except jsonparse.JsonProblem as exc:
            find(number, exc.message, "malformed")
            continue
        direction = None
        if isinstance(value, dict) and "message" in value and "direction" in value:
            direction, value = value["direction"], value["message"]
            if direction not in DIRECTIONS:
                find(
                    number,
                    f"direction {direction!r} is not one of {', '.join(DIRECTIONS)}",
                    "direction",
                )
                continue
        if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
            find(number, 'not a JSON-RPC 2.0 message (`jsonrpc` must be "2.0")', "not-json-rpc")
            continue
        message = Message(number, direction or "", value)
        if "method" in value:
            method = value["method"]
            side = _side_of(schemas, version, method) if isinstance(method, str) else None
            if side is None:
                find(number, f"no ACP {version} method {method!r}", "unknown-method")
                continue
            if direction and direction != side:
                find(number, f"{method} goes {side}, not {direction}", "direction")
                continue
            message.direction = side
            if message.is_request:
                key = (side, json_key(value["id"]))
                if key in pending:
                    find(number, f"request id {value['id']!r} is still in use", "duplicate-id")
                pending[key] = message
        elif "id" in value:
            answer_to = {TO_AGENT: TO_CLIENT, TO_CLIENT: TO_AGENT}
            candidates = [d for d in DIRECTIONS if (answer_to[d], json_key(value["id"])) in pending]
            if direction:
                candidates = [d for d in candidates if d == direction]
            if not candidates:
                find(number, f"response to unknown request id {value['id']!r}", "unknown-id")
                continue
            if len(candidates) > 1:
                find(
                    number,
                    f"response id {value['id']!r} is ambiguous: give its direction",
                    "direction",
                )
                continue
            message.direction = candidates[0]
            request = pending.pop((answer_to[candidates[0]], json_key(value["id"])))
            message.request, request.response = request, message
        else:
            find(number, "neither a request, a notification nor a response", "not-json-rpc")
            continue
        trace.messages.append(message)
    for request in pending.values():
        find(
            request.line,
            f"{request.body['method']} (id {request.body['id']!r}) is never answered",
            "unanswered",
        )
    return trace


def json_key(value: Any) -> str:
    """A hashable form of a JSON-RPC id."""
    return json.dumps(value, sort_keys=True)


def _validate(trace: Trace, shown: str, schemas: SchemaSet, version: str) -> None:
    for message in trace.messages:
        if message.is_response:
            outcome = _check_response(message, schemas, version)
        else:
            try:
                outcome = schemas.check_message(version, message.body)
            except DispatchError as exc:
                trace.findings.append(
                    Finding(shown, message.line, 1, CHECK, str(exc), f"{CHECK}/dispatch")
                )
                continue
        if outcome is None:
            continue
        for problem in outcome.problems:
            trace.findings.append(
                Finding(
                    shown, message.line, 1, CHECK, f"{outcome.label()} {problem}", f"{CHECK}/schema"
                )
            )


def _check_response(message: Message, schemas: SchemaSet, version: str) -> Any:
    method = message.method
    if "error" in message.body:
        return (
            schemas.check(version, "Error", message.body["error"], "/error")
            if schemas.has(version, "Error")
            else None
        )
    names = [n for n, _d in schemas.by_method(version, method or "") if n.endswith("Response")]
    if len(names) != 1:
        return None
    return schemas.check(version, names[0], message.body.get("result"), "/result")


def check(path: Path, shown: str, schemas: SchemaSet, version: str) -> list[Finding]:
    """Every finding of one trace file: reading, schema, ids, and every wire rule."""
    table = protocols.get(version)
    trace = parse(read_text(path, shown), shown, schemas, version)
    _validate(trace, shown, schemas, version)
    for rule in rules():
        if not rule.applies(table):
            continue
        for line, message in rule.check(trace.messages, table):
            trace.findings.append(
                Finding(shown, line, 1, CHECK, f"{message} ({rule.link})", rule.id)
            )
    return sorted(trace.findings)
