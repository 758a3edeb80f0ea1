"""The Client side of a scenario: what `acp-docs conform` sends, waits for, and records.

Every message either way goes into the transcript, in the order the Client
saw it. Requests from the Agent are answered at once with a JSON-RPC error
(this Client offers no file system, terminal or permission prompt). Every wait
is bounded twice: by the time one answer may take (`timeout`) and by what is
left of the scenario (`deadline`); running out of either is a `Broken` that
says what was awaited.
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
CLIENT_INFO = {"name": "acp-docs conform", "version": __version__}


@dataclass
class Entry:
    """One message of a scenario, and which way it went."""

    direction: str
    message: Any


@dataclass
class Limits:
    """How long an answer, a scenario, and the quiet that ends a scenario may take, in s."""

    timeout: float = 10.0
    scenario: float = 60.0
    settle: float = SETTLE
    grace: float = 2.0


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
    initialize: tuple[dict[str, Any], Any] | None = None
    """The `initialize` params sent and the result received."""
    _next_id: int = 0
    _deadline: float = 0.0
    _answers: dict[int, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    """Each answered request's id: where its answer is in the transcript, and the answer."""

    def __post_init__(self) -> None:
        self._deadline = time.monotonic() + self.limits.scenario

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

    def _take(self, timeout: float) -> Entry | None:
        """The next message of the Agent within `timeout`, recorded (and answered when it is
        a request), or None."""
        message = self.agent.receive(timeout)
        if message is None:
            return None
        entry = Entry(TO_CLIENT, message)
        self.transcript.append(entry)
        if not isinstance(message, dict):
            return entry
        if "method" not in message and type(message.get("id")) is int:
            self._answers.setdefault(message["id"], (len(self.transcript) - 1, message))
        if isinstance(message.get("method"), str) and "id" in message:
            self._send(
                {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {
                        "code": NOT_OFFERED,
                        "message": "acp-docs conform offers no such method",
                    },
                }
            )
        return entry

    def _send(self, message: dict[str, Any]) -> None:
        self.transcript.append(Entry(TO_AGENT, message))
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

    def response(self, request_id: int, method: str) -> dict[str, Any]:
        """Wait for the answer to `request_id`: its message (result or error)."""
        self.until(lambda: request_id in self._answers, f"answer to {method} (id {request_id})")
        return self._answers[request_id][1]

    def call(self, method: str, params: Mapping[str, Any]) -> Any:
        """Send a request and wait for its result; a `Broken` when the Agent answers with an
        error, which the scenario cannot go on without."""
        answer = self.response(self.send_request(method, params), method)
        if "result" not in answer:
            error = answer.get("error")
            said = error.get("message") if isinstance(error, dict) else error
            raise Broken(f"the Agent answered {method} with an error: {str(said)[:200]}")
        return answer["result"]

    def settle(self) -> None:
        """Take messages until none has come for `settle` seconds (or the scenario's time is
        up): what an Agent sends after its last answer, such as suggestions, is recorded."""
        while time.monotonic() < self._deadline:
            if self._take(min(self.limits.settle, self._deadline - time.monotonic())) is None:
                return

    def open(self) -> Any:
        """`initialize`, advertising the scenario's Client capabilities; the Agent's result."""
        shake = self.handshake
        params = {
            "protocolVersion": shake.number,
            shake.client_capabilities: dict(self.advertise),
            shake.client_info: dict(CLIENT_INFO),
        }
        result = self.call("initialize", params)
        self.initialize = (params, result)
        return result

    def new_session(self) -> str:
        """`session/new` in the scenario's folder; the session's id."""
        result = self.call("session/new", {"cwd": str(self.cwd), **self.handshake.new_session})
        session = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(session, str):
            raise Broken("the Agent's answer to session/new has no sessionId string")
        return session

    def prompt(self, session: str, text: str) -> int:
        """Send a `session/prompt` of one text block (without waiting); its request id."""
        return self.send_request(
            "session/prompt",
            {"sessionId": session, "prompt": [{"type": "text", "text": text}]},
        )

    def cancel(self, session: str) -> None:
        """Send `session/cancel`."""
        self.notify("session/cancel", {"sessionId": session})

    def work_ends(self, session: str, request_id: int) -> None:
        """Wait until the work of the prompt `request_id` has ended as the version says: its
        answer, and where a state update ends work, an idle after that answer. A prompt
        answered with an error is a `Broken`: no turn ran, so no rule about one is judged."""
        answer = self.response(request_id, "session/prompt")
        if "result" not in answer:
            error = answer.get("error")
            said = error.get("message") if isinstance(error, dict) else error
            raise Broken(
                f"the Agent answered session/prompt (id {request_id}) with an error, so no turn"
                f" ran: {str(said)[:200]}"
            )
        state = self.version.state_update
        if state is None:
            return
        start = self._answers[request_id][0] + 1

        def idle() -> bool:
            return any(
                _update(entry, session, state) == "idle" for entry in self.transcript[start:]
            )

        self.until(idle, f"idle {state} after the answer to session/prompt (id {request_id})")

    def replay(self, session: str) -> Any:
        """Ask for the session's history to be replayed (the version's replay method)."""
        method = self.version.replay_methods[0]
        params = {"sessionId": session, "cwd": str(self.cwd), **self.handshake.replay}
        return self.call(method, params)

    def gate(self, path: str) -> bool:
        """True when the capability at `path` was advertised (`has_capability`)."""
        return has_capability(self.initialize, path)


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


def _update(entry: Entry, session: str, state_tag: str) -> str | None:
    """The state an Agent's `state_update` of `session` reports, or None."""
    body = entry.message
    if entry.direction != TO_CLIENT or not isinstance(body, dict):
        return None
    params = body.get("params")
    if body.get("method") != "session/update" or not isinstance(params, dict):
        return None
    update = params.get("update")
    if params.get("sessionId") != session or not isinstance(update, dict):
        return None
    if update.get("sessionUpdate") != state_tag:
        return None
    state = update.get("state")
    return state if isinstance(state, str) else None
