"""The checks of the prompt_suggestions RFD's requirements judged on the wire.

What each requirement says, where it holds and where the RFD states it is
data: `schema/prompt-suggestions/requirements.yaml`. Here is only what cannot
be: for each requirement judged on the wire, a check over the messages of a
session (recorded for `acp-docs trace`, live for `acp-docs conform`) that
yields (line, message) for every message that breaks it. A check reads what
differs between versions from the version's row (`acp_docs.core.protocols`).
`CHECKS` is registered under the entry-point group `acp_docs.wire_checks`.

The messages are in the order the Client saw them. A suggestion the Agent
sent before it received a new prompt may reach the Client after the Client
sent that prompt. Until the Agent shows it has the prompt (by work of the new
turn, or its answer), a suggestion may have crossed the prompt on the wire:
it is a `Breach` that is not certain, unless the prompt was sent after the
Agent had been quiet (`Message.settled`, from the trace's times, or
`acp-docs conform`, which waits for quiet), which leaves nothing in flight.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from acp_docs.core.protocols import ProtocolVersion
from acp_docs.requirements.rules import Breach
from acp_docs.trace.session import TO_AGENT, TO_CLIENT, Message, json_key

TAG = "prompt_suggestions"
LEGACY_KEY = "promptSuggestions"
IDLE = "idle"
WHITE_SPACE = (
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000\ufeff")
)
"""ECMAScript's white space (what `String.prototype.trim` removes): the class the schema's
`pattern` for a suggestion's text excludes."""


def blank(text: str) -> bool:
    """True for a text that is empty or white space alone: one the schema refuses."""
    return not text.strip(WHITE_SPACE)


def update_of(message: Message) -> dict[str, Any] | None:
    """The update an Agent's `session/update` carries, or None."""
    if message.direction != TO_CLIENT or message.body.get("method") != "session/update":
        return None
    update = message.params.get("update")
    return update if isinstance(update, dict) else None


def _suggestions(messages: list[Message]) -> Iterator[tuple[Message, dict[str, Any]]]:
    for message in messages:
        update = update_of(message)
        if update is not None and update.get("sessionUpdate") == TAG:
            yield message, update


def is_legacy(update: dict[str, Any]) -> bool:
    """True for the legacy form: `session_info_update` with `_meta.promptSuggestions`."""
    meta = update.get("_meta")
    return (
        update.get("sessionUpdate") == "session_info_update"
        and isinstance(meta, dict)
        and LEGACY_KEY in meta
    )


def capability(messages: list[Message], version: ProtocolVersion) -> Iterator[tuple[int, str]]:
    """Where unknown updates are rejected (v1): only to a Client that advertised the capability."""
    advertised = False
    for message in messages:
        if message.direction == TO_AGENT and message.body.get("method") == "initialize":
            caps = message.params.get("clientCapabilities")
            session = caps.get("session") if isinstance(caps, dict) else None
            value = session.get("promptSuggestions") if isinstance(session, dict) else None
            advertised = isinstance(value, dict)
        update = update_of(message)
        if update is not None and update.get("sessionUpdate") == TAG and not advertised:
            yield message.line, "prompt_suggestions sent to a Client that did not advertise it"


def empty_text(messages: list[Message], version: ProtocolVersion) -> Iterator[tuple[int, str]]:
    """No suggestion whose text is empty or white space alone."""
    for message, update in _suggestions(messages):
        entries = update.get("suggestions")
        for index, entry in enumerate(entries if isinstance(entries, list) else []):
            text = entry.get("text") if isinstance(entry, dict) else None
            if isinstance(text, str) and blank(text):
                what = "empty text" if not text else "a text of white space alone"
                yield message.line, f"suggestion {index} has {what}"


def _replays(request: Message) -> bool:
    if request.body.get("method") == "session/load":
        return True
    return request.params.get("replayFrom") is not None


def replay(messages: list[Message], version: ProtocolVersion) -> Iterator[tuple[int, str]]:
    """None while history is replayed (session/load; session/resume with replayFrom), nor
    after the replay until new work of the session starts: the suggestions of the
    conversation's past are history, whenever the Agent sends them again."""
    replaying: dict[str, Message] = {}
    """Per session: the replay request, from when it is sent until new work starts."""
    for message in messages:
        session = _session(message)
        if message.is_request and message.method in version.replay_methods:
            if message.direction == TO_AGENT and _replays(message):
                replaying[session] = message
            continue
        if message.is_request and message.method == "session/prompt":
            replaying.pop(session, None)
            continue
        update = update_of(message)
        if update is None:
            continue
        kind = update.get("sessionUpdate")
        if kind == version.state_update and update.get("state") != IDLE:
            replaying.pop(session, None)
        if kind != TAG or session not in replaying:
            continue
        request = replaying[session]
        if request.response is None or request.response.line > message.line:
            yield message.line, "prompt_suggestions sent while the session's history is replayed"
        else:
            yield (
                message.line,
                f"prompt_suggestions sent after the replay of line {request.line} and before any"
                " new work: suggestions of the replayed conversation are history",
            )


WORK = frozenset(
    {
        "user_message_chunk",
        "user_message",
        "agent_message_chunk",
        "agent_message",
        "agent_thought_chunk",
        "agent_thought",
        "tool_call",
        "tool_call_update",
        "tool_call_content_chunk",
        "plan",
        "terminal_update",
        "terminal_output_chunk",
    }
)
"""The updates that only the work of a turn sends (where no state update reports work): one
of them after a prompt shows that the Agent has that prompt (as does a request of the
session, or an answer)."""
INSERTED = frozenset({"user_message", "user_message_chunk"})
"""Where a state update reports work: the updates that show a prompt was inserted."""


def _session(message: Message) -> str:
    return json_key(message.params.get("sessionId"))  # any JSON value, made hashable


def _shows_work(message: Message, version: ProtocolVersion) -> bool:
    """True when an Agent's message shows it is working on a prompt of its session.

    Where a state update reports work, only a state other than idle, or the prompt
    inserted (a user message), shows it: background work goes on while idle and
    sends its own updates. Elsewhere, the updates only a turn sends, or a request."""
    if message.direction != TO_CLIENT:
        return False
    update = update_of(message)
    kind = update.get("sessionUpdate") if update is not None else None
    if version.state_update is not None:
        if kind == version.state_update:
            return update is not None and update.get("state") != IDLE
        return kind in INSERTED
    if message.is_request:
        return "sessionId" in message.params
    return kind in WORK


class _Prompts:
    """Per session: the prompts sent and not yet answered, and the prompt a suggestion that
    arrives now may have crossed on the wire (sent before the Agent read it: in flight)."""

    def __init__(self, version: ProtocolVersion) -> None:
        self.version = version
        self.open: dict[str, dict[int, int]] = {}
        self.in_flight: dict[str, int] = {}

    def sent(self, message: Message, offer_allowed: bool) -> str:
        """Note a `session/prompt` sent while an offer was (or was not) allowed; its
        session. A prompt sent while another is open, or after the Agent had been quiet,
        leaves nothing in flight."""
        session = _session(message)
        if offer_allowed and self.first(session) is None and message.settled is not True:
            self.in_flight[session] = message.line
        self.open.setdefault(session, {})[id(message)] = message.line
        return session

    def answered(self, response: Message) -> str | None:
        """Note the answer to a request; the session when it answers a `session/prompt`."""
        request = response.request
        if request is None or request.method != "session/prompt":
            return None
        session = _session(request)
        self.open.get(session, {}).pop(id(request), None)
        self.in_flight.pop(session, None)
        return session

    def seen(self, message: Message) -> str:
        """Note any other message; its session. Work on the prompt ends what was in flight."""
        session = _session(message)
        if _shows_work(message, self.version):
            self.in_flight.pop(session, None)
        return session

    def crossing(self, message: Message, session: str, breaks: str) -> Breach | None:
        """For a suggestion of `session` that arrives now: an uncertain `Breach` when it may
        have crossed a prompt on the wire, else None."""
        prompt = self.in_flight.get(session)
        if prompt is None:
            return None
        said = (
            f"prompt_suggestions may have crossed the session/prompt at line {prompt} on the"
            f" wire: nothing shows the Agent had that prompt yet ({breaks} otherwise)"
        )
        return Breach(message.line, said, certain=False)

    def first(self, session: str) -> int | None:
        """The line of the session's oldest unanswered prompt, if any."""
        lines = self.open.get(session)
        return min(lines.values()) if lines else None


def after_response(
    messages: list[Message], version: ProtocolVersion
) -> Iterator[tuple[int, str] | Breach]:
    """Where the response ends the turn (v1): suggestions after it, never while a prompt is
    open; one that may have been in flight (sent for the turn that ended before the prompt
    came) is an uncertain breach."""
    prompts = _Prompts(version)
    ended: set[str] = set()
    """The sessions with a turn that has ended: its suggestions may be on their way."""
    for message in messages:
        if message.is_request and message.method == "session/prompt":
            prompts.sent(message, _session(message) in ended)
            continue
        if message.is_response:
            answered = prompts.answered(message)
            if answered is not None:
                ended.add(answered)
            continue
        session = prompts.seen(message)
        update = update_of(message)
        if update is None or update.get("sessionUpdate") != TAG:
            continue
        line = prompts.first(session)
        if line is None:
            continue
        crossing = prompts.crossing(message, session, "sent while a session/prompt is open")
        yield crossing or (
            message.line,
            f"prompt_suggestions sent while the session/prompt at line {line} is unanswered",
        )


def while_idle(
    messages: list[Message], version: ProtocolVersion
) -> Iterator[tuple[int, str] | Breach]:
    """Where the state update ends work (v2): suggestions only once every prompt is answered
    and an idle has followed the last answer.

    Foreground work starts with a `session/prompt` the Agent receives, or with
    a `state_update` other than `idle` (agent-initiated work starts so too),
    and ends with the next `idle`. The Client drops suggestions until it has
    the answer to its prompt and an `idle` after that answer, so the Agent's
    rule is the same: an `idle` before the answer ends nothing the Client can
    see, and an answer (an error included) is followed by an `idle` before any
    offer. A prompt sent while an offer was allowed may be crossed by the
    suggestions already on their way, until the Agent shows it has the prompt:
    such a suggestion is an uncertain breach.
    """
    prompts = _Prompts(version)
    busy: dict[str, tuple[str, int]] = {}
    """Per session: what an idle must still follow (the prompt, its answer, a state) and where."""
    ended: set[str] = set()
    """The sessions where an idle has ended work: an offer for it may be on its way."""
    for message in messages:
        if message.is_request and message.method == "session/prompt":
            session = _session(message)
            prompts.sent(message, session in ended and session not in busy)
            busy[session] = ("a session/prompt", message.line)
            continue
        if message.is_response:
            answered = prompts.answered(message)
            if answered is not None:
                busy[answered] = ("the answer to a session/prompt", message.line)
            continue
        session = prompts.seen(message)
        update = update_of(message)
        if update is None:
            continue
        kind = update.get("sessionUpdate")
        if kind == version.state_update:
            state = update.get("state")
            if state == IDLE:
                if busy.pop(session, None) is not None:
                    ended.add(session)
            else:
                busy[session] = (f"state {state!r}", message.line)
        elif kind != TAG:
            continue
        elif crossing := prompts.crossing(message, session, "sent during foreground work"):
            yield crossing
        elif (line := prompts.first(session)) is not None:
            yield (
                message.line,
                f"prompt_suggestions sent before the answer to the session/prompt at line {line}:"
                " a v2 Agent answers every prompt it received, then reports idle, then suggests",
            )
        elif session in busy:
            why, since = busy[session]
            yield (
                message.line,
                f"prompt_suggestions sent during foreground work: {why} at line {since},"
                " and no idle state_update since",
            )


def one_form(messages: list[Message], version: ProtocolVersion) -> Iterator[tuple[int, str]]:
    """Never both the legacy `_meta.promptSuggestions` and the standard update to one Client."""
    standard = legacy = False
    reported = False
    for message in messages:
        update = update_of(message)
        if update is None:
            continue
        standard = standard or update.get("sessionUpdate") == TAG
        legacy = legacy or is_legacy(update)
        if standard and legacy and not reported:
            reported = True
            yield message.line, "the same Client got both the legacy _meta key and the update"


CHECKS = {
    "prompt-suggestions/capability": capability,
    "prompt-suggestions/empty-text": empty_text,
    "prompt-suggestions/replay": replay,
    "prompt-suggestions/after-response": after_response,
    "prompt-suggestions/while-idle": while_idle,
    "prompt-suggestions/one-form": one_form,
}
"""The check of each requirement judged on the wire, by its id in requirements.yaml."""
