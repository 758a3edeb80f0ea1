"""A recorded ACP session checked against the merged schema and the RFDs' requirements.

A trace is JSON Lines, one JSON-RPC message per line, either wrapped with its
direction or plain:

    {"direction": "client-to-agent", "message": {"jsonrpc": "2.0", "id": 0, ...}}
    {"direction": "agent-to-client", "time": "2026-12-07T10:00:01.250Z", "message": {...}}
    {"jsonrpc": "2.0", "method": "session/update", "params": {...}}

A wrapped line may carry `time`: when the recorder saw the message, as an
RFC 3339 date and time with its offset, or as a number of seconds from any
start; one form in a trace, never going back. Times let the checks tell a
suggestion that crossed a prompt on the wire from one sent after it: a
prompt sent when the Agent had been quiet for the settle time (`SETTLE`)
left nothing of the Agent's on its way (`Message.settled`).

The direction of a plain request or notification comes from its method (the
side that handles it, `x-side` in the schema); a plain response goes the other
way from the request it answers. Extension methods (`_`-prefixed, ACP's
extension space) and the protocol's own methods (`x-side: protocol`, such as
`$/cancel_request`) go either way, so their lines give their direction.
Every message is validated by dispatch, a response against the `...Response`
of its request's method; responses are matched to requests by id (ids are per
sender), and unknown or unanswered ids are findings. Then every requirement
judged on the wire that holds in the version runs its check over the messages
(`acp_docs.requirements.rules`: the requirements are each RFD's
`requirements.yaml`, their checks registered under the entry-point group
`acp_docs.wire_checks`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_docs.core import protocols
from acp_docs.core.findings import Finding
from acp_docs.sources import jsonparse
from acp_docs.sources.textfile import read_text
from acp_docs.trace import SETTLE
from acp_docs.validation.schemaset import EXTENSION, DispatchError, SchemaSet

if TYPE_CHECKING:
    from acp_docs.requirements.rules import Rule

CHECK = "trace"
TO_AGENT, TO_CLIENT = "client-to-agent", "agent-to-client"
DIRECTIONS = (TO_AGENT, TO_CLIENT)
SIDE_RECEIVES = {"agent": TO_AGENT, "client": TO_CLIENT}


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
    time: float | None = None
    """When the recorder saw it, in seconds, where the trace says."""
    settled: bool | None = None
    """For a message to the Agent: True when the Agent had been quiet for the settle time
    before it (nothing the Agent sent before it was still on its way), False when not, None
    when the trace carries no times to tell."""

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


@dataclass
class Trace:
    """A parsed trace: its messages, and the findings of reading it."""

    messages: list[Message] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


EITHER = "either"
"""The side of a method either side may send: an extension's, or the protocol's own."""


def _side_of(schemas: SchemaSet, version: str, method: str) -> str | None:
    sides = [d.get("x-side") for _name, d in schemas.by_method(version, method)]
    if "protocol" in sides or (not sides and method.startswith(EXTENSION)):
        return EITHER
    return next((SIDE_RECEIVES[s] for s in sides if s in SIDE_RECEIVES), None)


def _seconds(value: Any) -> tuple[str, float] | str:
    """A line's `time` as (its form, seconds), or why it is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return "`time` is neither an RFC 3339 date and time nor a number of seconds"
    if not isinstance(value, str):
        return ("seconds", float(value)) if math.isfinite(value) else "`time` is not finite"
    try:
        when = datetime.fromisoformat(value) if len(value) <= 64 else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None or "T" not in value.upper():
        return "`time` is not an RFC 3339 date and time with its offset"
    return "RFC 3339", when.timestamp()


class _Clock:
    """The times of a trace, read where present: one form, never going back; and when the
    Agent last spoke, so that each message to the Agent knows whether it came after quiet."""

    def __init__(self, settle: float) -> None:
        self.settle = settle
        self.form: str | None = None
        self.last: float | None = None
        self.agent_spoke: float | None = None

    def read(self, value: Any) -> tuple[float | None, str | None]:
        """The seconds of a line's `time`, or None and why it cannot be used."""
        read = _seconds(value)
        if isinstance(read, str):
            return None, read
        form, seconds = read
        if self.form is not None and form != self.form:
            return None, f"`time` is {form} where earlier lines give {self.form}: use one form"
        if self.last is not None and seconds < self.last:
            return None, "`time` goes back: a trace is in the order the messages were seen"
        self.form, self.last = form, seconds
        return seconds, None

    def note(self, message: Message, start: float | None) -> None:
        """Mark a message to the Agent settled or not, and note when the Agent spoke."""
        if message.time is None:
            return
        if message.direction == TO_CLIENT:
            self.agent_spoke = message.time
            return
        since = self.agent_spoke if self.agent_spoke is not None else start
        if since is not None:
            message.settled = message.time - since >= self.settle


def parse(text: str, shown: str, schemas: SchemaSet, version: str, settle: float = SETTLE) -> Trace:
    """Read a trace: each line a message; problems as findings at their lines."""
    trace = Trace()

    def find(line: int, message: str, rule: str) -> None:
        trace.findings.append(Finding(shown, line, 1, CHECK, message, f"{CHECK}/{rule}"))

    pending: dict[tuple[str, str], Message] = {}
    clock = _Clock(settle)
    start: float | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            value = jsonparse.loads(raw)
        except jsonparse.JsonProblem as exc:
            find(number, exc.message, "malformed")
            continue
        direction = None
        seen: float | None = None
        if isinstance(value, dict) and "message" in value and "direction" in value:
            if "time" in value:
                seen, why = clock.read(value["time"])
                if why is not None:
                    find(number, why, "time")
                start = seen if start is None else start
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
        message = Message(number, direction or "", value, time=seen)
        if "method" in value:
            method = value["method"]
            side = _side_of(schemas, version, method) if isinstance(method, str) else None
            if side is None:
                find(number, f"no ACP {version} method {method!r}", "unknown-method")
                continue
            if side == EITHER:
                if not direction:
                    find(number, f"{method} goes either way: give its direction", "direction")
                    continue
                side = direction
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
        clock.note(message, start)
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


def validate(trace: Trace, shown: str, schemas: SchemaSet, version: str) -> None:
    """Validate every message of `trace` against the merged schema; problems as findings."""
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


UNSETTLED = (
    "; if the Agent sent it after it received that prompt, it breaks {rule} ({link}). To"
    " tell, record a `time` on each line of the trace, or run `acp-docs conform`, which"
    " sends no prompt before the Agent has been quiet"
)


def check(
    path: Path,
    shown: str,
    schemas: SchemaSet,
    version: str,
    rules: Sequence[Rule],
    settle: float = SETTLE,
) -> list[Finding]:
    """Every finding of one trace file: reading, schema, ids, and every rule of `rules`
    that holds in the version; a breach the messages cannot settle is a warning."""
    table = protocols.get(version)
    trace = parse(read_text(path, shown), shown, schemas, version, settle)
    validate(trace, shown, schemas, version)
    for rule in rules:
        if not rule.applies(table):
            continue
        for breach in rule.breaches(trace.messages, table):
            if breach.certain:
                said, level = f"{breach.message} ({rule.link})", "error"
            else:
                said = breach.message + UNSETTLED.format(rule=rule.id, link=rule.link)
                level = "warning"
            trace.findings.append(Finding(shown, breach.line, 1, CHECK, said, rule.id, level))
    return sorted(trace.findings)
