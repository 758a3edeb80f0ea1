"""The Client side of a scenario: what `acp-docs conform` sends, waits for, and records.

Every message either way goes into the transcript, in the order the Client
saw it, with the time it was seen. The Client plays a legal Client that offers
no file system and no terminal: it answers a permission request (with the
`cancelled` outcome in a cancelled turn, a granted option otherwise) and
refuses every other request with `-32601`, as ACP says of a method a Client
does not offer (extension methods included). Before each prompt it waits
until the Agent has been quiet for the settle time, so nothing the Agent sent
before the prompt can still be on its way (`settle`).

Every wait is bounded twice: by the time one answer may take (`timeout`, or
`startup` for the first) and by what is left of the scenario (`deadline`);
running out of either is a `Broken` that says what was awaited. What the
scenario needs and the Agent does not give (a login, the version asked for, a
session, a turn that ran) is a `Blocked`: a prerequisite, never a rule broken.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_docs import __version__
from acp_docs.conform.agent import AgentProcess, Broken
from acp_docs.core.protocols import Handshake, ProtocolVersion
from acp_docs.trace import SETTLE
from acp_docs.trace.session import TO_AGENT, TO_CLIENT

NOT_OFFERED = -32601
AUTH_REQUIRED = -32000
CLIENT_INFO = {"name": "acp-docs", "version": __version__}
PERMISSION = "session/request_permission"
GRANTS = ("allow_once", "allow_always")
"""The kinds of permission option that grant what the Agent asked, the first chosen."""
AUTH, VERSION, REFUSED, NO_TURN = "auth", "version", "refused", "no-turn"


class Blocked(Exception):
    """A prerequisite of the scenario failed: the Agent needs a login, speaks another
    version, or refused what the scenario needs. Neither a PASS nor a FAIL of any rule."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


@dataclass
class Entry:
    """One message of a scenario, which way it went, and when it was seen (seconds from the
    scenario's start)."""

    direction: str
    message: Any
    time: float = 0.0


@dataclass
class Limits:
    """How long an answer, the first answer, a scenario, and the quiet that ends a scenario
    (and comes before each prompt) may take, in s."""

    timeout: float = 10.0
    scenario: float = 60.0
    settle: float = SETTLE
    grace: float = 2.0
    startup: float = 30.0


@dataclass
class Client:
    """A Client talking to one Agent process, in one protocol version."""

    agent: AgentProcess
    version: ProtocolVersion
    limits: Limits
    cwd: Path
    """The folder the sessions are opened in (a fresh, empty one per scenario)."""
    transcript: list[Entry] = field(default_factory=list)
    advertise: dict[str, Any] = field(default_factory=dict)
    """The Client capabilities `open` advertises."""
    auth_method: str | None = None
    """The method `open` logs in with (`authenticate` in v1, `auth/login` in v2), if any."""
    initialize: tuple[dict[str, Any], Any] | None = None
    """The `initialize` params sent and the result received."""
    _next_id: int = 0
    _start: float = 0.0
    _deadline: float = 0.0
    _answers: dict[int, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    """Each answered request's id: where its answer is in the transcript, and the answer."""
    _cancelled: set[str] = field(default_factory=set)
    """The sessions whose turn the Client cancelled, until that turn's work ends."""

    def __post_init__(self) -> None:
        self._start = time.monotonic()
        self._deadline = self._start + self.limits.scenario

    @property
    def handshake(self) -> Handshake:
        """How this version opens connections and sessions."""
        assert self.version.handshake is not None
        return self.version.handshake

    def _wait(self, what: str, limit: float) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise Broken(f"the scenario took longer than {self.limits.scenario:g} s ({what})")
        return min(limit, left)

    def _record(self, direction: str, message: Any) -> Entry:
        entry = Entry(direction, message, time.monotonic() - self._start)
        self.transcript.append(entry)
        return entry

    def _take(self, timeout: float) -> Entry | None:
        """The next message of the Agent within `timeout`, recorded (and answered when it is
        a request), or None."""
        message = self.agent.receive(timeout)
        if message is None:
            return None
        entry = self._record(TO_CLIENT, message)
        if not isinstance(message, dict):
            return entry
        if "method" not in message and type(message.get("id")) is int:
            self._answers.setdefault(message["id"], (len(self.transcript) - 1, message))
        if isinstance(message.get("method"), str) and "id" in message:
            self._send(self._answer(message))
        return entry

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """What a Client with no file system and no terminal answers an Agent's request."""
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"]}
        params = request.get("params")
        if request["method"] == PERMISSION and isinstance(params, dict):
            reply["result"] = {"outcome": self._permission(params)}
        else:
            reply["error"] = {"code": NOT_OFFERED, "message": "Method not found"}
        return reply

    def _permission(self, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("sessionId") in self._cancelled:
            return {"outcome": "cancelled"}
        options = params.get("options")
        listed = [o for o in options if isinstance(o, dict)] if isinstance(options, list) else []
        granted = [o for o in listed if o.get("kind") in GRANTS] or listed
        if not granted or "optionId" not in granted[0]:
            return {"outcome": "cancelled"}
        return {"outcome": "selected", "optionId": granted[0]["optionId"]}

    def _send(self, message: dict[str, Any]) -> None:
        self._record(TO_AGENT, message)
        what = f"the Agent to read {message.get('method') or 'an answer'}"
        self.agent.send(message, self._wait(what, self.limits.timeout))

    def notify(self, method: str, params: Mapping[str, Any]) -> None:
        """Send a notification."""
        self._send({"jsonrpc": "2.0", "method": method, "params": dict(params)})

    def send_request(self, method: str, params: Mapping[str, Any]) -> int:
        """Send a request; its id."""
        self._next_id += 1
        self._send(
            {"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": dict(params)}
        )
        return self._next_id

    def until(self, done: Callable[[], bool], what: str, limit: float | None = None) -> None:
        """Take the Agent's messages until `done()`; a `Broken` naming `what` when no message
        comes within the answer's time limit (or `limit`), or the scenario's time runs out."""
        wait = self.limits.timeout if limit is None else limit
        while not done():
            if self._take(self._wait(what, wait)) is None:
                raise Broken(f"no {what} within {wait:g} s")

    def response(self, request_id: int, method: str, limit: float | None = None) -> dict[str, Any]:
        """Wait for the answer to `request_id`: its message (result or error)."""
        what = f"answer to {method} (id {request_id})"
        self.until(lambda: request_id in self._answers, what, limit)
        return self._answers[request_id][1]

    def call(self, method: str, params: Mapping[str, Any], limit: float | None = None) -> Any:
        """Send a request and wait for its result; a `Blocked` when the Agent answers with an
        error, since the scenario cannot go on without what it asked for."""
        answer = self.response(self.send_request(method, params), method, limit)
        if "result" not in answer:
            raise _refusal(method, answer.get("error"))
        return answer["result"]

    def settle(self) -> None:
        """Take messages until none has come for `settle` seconds (or the scenario's time is
        up): what the Agent sends after its last answer, such as suggestions, is recorded,
        and nothing it sent is still on its way."""
        while time.monotonic() < self._deadline:
            if self._take(min(self.limits.settle, self._deadline - time.monotonic())) is None:
                return

    def open(self) -> Any:
        """`initialize`, advertising the scenario's Client capabilities, then the login the
        run was given; the Agent's result. A `Blocked` when the Agent answers another
        protocol version: in ACP's negotiation its answer decides, and this Client speaks
        the version it was asked for alone."""
        shake = self.handshake
        params = {
            "protocolVersion": shake.number,
            shake.client_capabilities: dict(self.advertise),
            shake.client_info: dict(CLIENT_INFO),
        }
        result = self.call("initialize", params, limit=self.limits.startup)
        self.initialize = (params, result)
        answered = result.get("protocolVersion") if isinstance(result, dict) else None
        if answered != shake.number:
            raise Blocked(
                VERSION,
                f"asked for ACP {self.version.name} (protocolVersion {shake.number}), the Agent"
                f" answered protocolVersion {answered!r}",
            )
        if self.auth_method is not None:
            self.call(self.handshake.login, {"methodId": self.auth_method})
        return result

    def new_session(self) -> str:
        """`session/new` in the scenario's folder; the session's id."""
        result = self.call("session/new", {"cwd": str(self.cwd), **self.handshake.new_session})
        session = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(session, str):
            raise Broken("the Agent's answer to session/new has no sessionId string")
        return session

    def prompt(self, session: str, text: str) -> int:
        """Once the Agent has been quiet for the settle time, send a `session/prompt` of one
        text block (without waiting for its answer); its request id."""
        self.settle()
        self._cancelled.discard(session)
        return self.send_request(
            "session/prompt",
            {"sessionId": session, "prompt": [{"type": "text", "text": text}]},
        )

    def cancel(self, session: str) -> None:
        """Send `session/cancel`: permission requests of the session get `cancelled` until its
        next prompt."""
        self._cancelled.add(session)
        self.notify("session/cancel", {"sessionId": session})

    def work_ends(self, session: str, request_id: int) -> None:
        """Wait until the work of the prompt `request_id` has ended as the version says.

        v1: its answer. Where a state update reports work (v2): its answer, and the last
        state the session reported `idle`, with an `idle` after the prompt when the prompt
        was inserted (an error answer means it was not). An error answer, or work that ends
        in an error, means no turn ran: a `Blocked`, unless the Client cancelled the turn,
        where an error is how a prompt not yet inserted is answered."""
        answer = self.response(request_id, "session/prompt")
        cancelled = session in self._cancelled
        if "result" not in answer and not cancelled:
            raise _refusal("session/prompt", answer.get("error"), NO_TURN)
        state = self.version.state_update
        if state is None:
            return
        sent = next(
            n
            for n, e in enumerate(self.transcript)
            if e.direction == TO_AGENT and _id_of(e, "session/prompt") == request_id
        )

        def ended() -> bool:
            states = [
                u for e in self.transcript[sent:] if (u := _state(e, session, state)) is not None
            ]
            if states and states[-1].get("state") != "idle":
                return False
            return "result" not in answer or any(u.get("state") == "idle" for u in states)

        self.until(ended, f"idle {state} after the session/prompt (id {request_id})")
        last = [u for e in self.transcript[sent:] if (u := _state(e, session, state))]
        if last and last[-1].get("stopReason") == "error" and not cancelled:
            raise _refusal(
                f"session/prompt (id {request_id})", last[-1].get("error"), NO_TURN, "ended"
            )

    def replay(self, session: str) -> Any:
        """Ask for the session's history to be replayed (the version's replay method)."""
        method = self.version.replay_methods[0]
        params = {"sessionId": session, "cwd": str(self.cwd), **self.handshake.replay}
        return self.call(method, params)

    def gate(self, path: str) -> bool:
        """True when the capability at `path` was advertised (`has_capability`)."""
        return has_capability(self.initialize, path)


def _refusal(what: str, error: Any, kind: str = REFUSED, how: str = "answered") -> Blocked:
    """The `Blocked` of an error answer (or of work that `how` "ended" in an error): a login,
    when its code says authentication is required."""
    code = error.get("code") if isinstance(error, dict) else None
    said = error.get("message") if isinstance(error, dict) else error
    if code == AUTH_REQUIRED:
        kind = AUTH
    if how == "ended":
        return Blocked(kind, f"the Agent ended the work of {what} with error {code}: {said!s:.200}")
    return Blocked(kind, f"the Agent answered {what} with error {code}: {str(said)[:200]}")


def has_capability(initialize: tuple[dict[str, Any], Any] | None, path: str) -> bool:
    """True when the capability at `path` (`params.…` or `result.…` of an `initialize`
    exchange) is there: not missing, null or false."""
    if initialize is None:
        return False
    side, _, rest = path.partition(".")
    node: Any = initialize[0] if side == "params" else initialize[1]
    for key in rest.split("."):
        node = node.get(key) if isinstance(node, dict) else None
    return node is not None and node is not False


def _id_of(entry: Entry, method: str) -> Any:
    body = entry.message
    return body.get("id") if isinstance(body, dict) and body.get("method") == method else None


def _state(entry: Entry, session: str, state_tag: str) -> dict[str, Any] | None:
    """The update of an Agent's `state_update` of `session`, or None."""
    body = entry.message
    if entry.direction != TO_CLIENT or not isinstance(body, dict):
        return None
    params = body.get("params")
    if body.get("method") != "session/update" or not isinstance(params, dict):
        return None
    update = params.get("update")
    if params.get("sessionId") != session or not isinstance(update, dict):
        return None
    if update.get("sessionUpdate") != state_tag or not isinstance(update.get("state"), str):
        return None
    return update
