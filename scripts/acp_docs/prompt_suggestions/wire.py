"""The prompt_suggestions RFD's wire rules, checked over a recorded session by `acp-docs trace`.

Each rule quotes the RFD and links to the section that states it. A rule
yields (line, message) for every message that breaks it. Where a rule holds
is said by the version's row (`acp_docs.core.protocols`), never by its name.
`RULES` is registered under the entry-point group `acp_docs.wire_rules`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from acp_docs.core.protocols import ProtocolVersion
from acp_docs.trace.session import TO_AGENT, TO_CLIENT, Message, Rule, json_key

RFD = "rfds/prompt-suggestions.md"
"""Where the rules are stated: the RFD's file in this checkout (links add its section's anchor)."""
TAG = "prompt_suggestions"
LEGACY_KEY = "promptSuggestions"


def _update(message: Message) -> dict[str, Any] | None:
    if message.direction != TO_CLIENT or message.body.get("method") != "session/update":
        return None
    update = message.params.get("update")
    return update if isinstance(update, dict) else None


def _suggestions(messages: list[Message]) -> Iterator[tuple[Message, dict[str, Any]]]:
    for message in messages:
        update = _update(message)
        if update is not None and update.get("sessionUpdate") == TAG:
            yield message, update


def _legacy(update: dict[str, Any]) -> bool:
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
        update = _update(message)
        if update is not None and update.get("sessionUpdate") == TAG and not advertised:
            yield message.line, "prompt_suggestions sent to a Client that did not advertise it"


def empty_text(messages: list[Message], version: ProtocolVersion) -> Iterator[tuple[int, str]]:
    """No suggestion with empty text."""
    for message, update in _suggestions(messages):
        entries = update.get("suggestions")
        for index, entry in enumerate(entries if isinstance(entries, list) else []):
            if isinstance(entry, dict) and entry.get("text") == "":
                yield message.line, f"suggestion {index} has empty text"


def _open_requests(messages: list[Message], methods: tuple[str, ...], replaying: bool = False):
    """For each message, the requests of `methods` sent before it and not yet answered."""
    open_: dict[int, Message] = {}
    for message in messages:
        opens = message.is_request and message.body.get("method") in methods
        if opens and (not replaying or _replays(message)):
            open_[id(message)] = message
        if message.is_response and message.request is not None:
            open_.pop(id(message.request), None)
        yield message, list(open_.values())


def _replays(request: Message) -> bool:
    if request.body.get("method") == "session/load":
        return True
    return request.params.get("replayFrom") is not None


def replay(messages: list[Message], version: ProtocolVersion) -> Iterator[tuple[int, str]]:
    """None while history is replayed (session/load; session/resume with replayFrom)."""
    for message, open_ in _open_requests(messages, version.replay_methods, replaying=True):
        update = _update(message)
        if update is None or update.get("sessionUpdate") != TAG:
            continue
        session = message.params.get("sessionId")
        if any(r.params.get("sessionId") == session for r in open_):
            yield message.line, "prompt_suggestions sent while the session's history is replayed"


def after_response(messages: list[Message], version: ProtocolVersion) -> Iterator[tuple[int, str]]:
    """Where the response ends the turn (v1): suggestions after it, never while one is open."""
    for message, open_ in _open_requests(messages, ("session/prompt",)):
        update = _update(message)
        if update is None or update.get("sessionUpdate") != TAG:
            continue
        session = message.params.get("sessionId")
        if any(r.params.get("sessionId") == session for r in open_):
            yield (
                message.line,
                "prompt_suggestions sent while a session/prompt of the session is unanswered",
            )


IDLE = "idle"


def while_idle(messages: list[Message], version: ProtocolVersion) -> Iterator[tuple[int, str]]:
    """Where the state update ends work (v2): suggestions only once every prompt is answered
    and an idle has followed the last answer.

    Foreground work starts with a `session/prompt` the Agent receives, or with
    a `state_update` other than `idle` (agent-initiated work starts so too),
    and ends with the next `idle`. The Client drops suggestions until it has
    the answer to its prompt and an `idle` after that answer, so the Agent's
    rule is the same: an `idle` before the answer ends nothing the Client can
    see, and an answer (an error included) is followed by an `idle` before any
    offer.
    """
    unanswered: dict[str, dict[int, int]] = {}
    """Per session: the prompts received and not yet answered (id of the message to its line)."""
    busy: dict[str, tuple[str, int]] = {}
    """Per session: what an idle must still follow (the prompt, its answer, a state) and where."""
    for message in messages:
        if message.is_request and message.method == "session/prompt":
            session = json_key(message.params.get("sessionId"))  # any JSON value, made hashable
            unanswered.setdefault(session, {})[id(message)] = message.line
            busy[session] = ("a session/prompt", message.line)
            continue
        if message.is_response and message.request is not None:
            request = message.request
            if request.method == "session/prompt":
                session = json_key(request.params.get("sessionId"))
                unanswered.get(session, {}).pop(id(request), None)
                busy[session] = ("the answer to a session/prompt", message.line)
            continue
        update = _update(message)
        if update is None:
            continue
        session = json_key(message.params.get("sessionId"))
        kind = update.get("sessionUpdate")
        if kind == version.state_update:
            state = update.get("state")
            if state == IDLE:
                busy.pop(session, None)
            else:
                busy[session] = (f"state {state!r}", message.line)
        elif kind == TAG and unanswered.get(session):
            line = min(unanswered[session].values())
            yield (
                message.line,
                f"prompt_suggestions sent before the answer to the session/prompt at line {line}:"
                " a v2 Agent answers every prompt it received, then reports idle, then suggests",
            )
        elif kind == TAG and session in busy:
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
        update = _update(message)
        if update is None:
            continue
        standard = standard or update.get("sessionUpdate") == TAG
        legacy = legacy or _legacy(update)
        if standard and legacy and not reported:
            reported = True
            yield message.line, "the same Client got both the legacy _meta key and the update"


RULES = [
    Rule(
        "prompt-suggestions/capability",
        "An Agent MUST NOT send prompt_suggestions to a Client that did not advertise"
        " clientCapabilities.session.promptSuggestions.",
        RFD + "#rules-for-agents",
        capability,
        lambda version: version.gates_unknown_updates,
    ),
    Rule(
        "prompt-suggestions/empty-text",
        "An Agent MUST NOT send a suggestion whose text is empty.",
        RFD + "#rules-for-agents",
        empty_text,
    ),
    Rule(
        "prompt-suggestions/replay",
        "An Agent MUST NOT send prompt_suggestions while it replays history.",
        RFD + "#rules-for-agents",
        replay,
    ),
    Rule(
        "prompt-suggestions/after-response",
        "An Agent MUST send a turn's suggestions after its response to that turn's"
        " session/prompt, and MUST NOT send them once a newer session/prompt has arrived.",
        RFD + "#in-v1-the-response-ends-the-turn",
        after_response,
        lambda version: version.state_update is None,
    ),
    Rule(
        "prompt-suggestions/while-idle",
        "An Agent MUST NOT send prompt_suggestions during foreground work: from a"
        " session/prompt it received, or a state_update that is not idle, until it has answered"
        " every session/prompt it received and then reported an idle state_update.",
        RFD + "#in-v2-idle-ends-the-work",
        while_idle,
        lambda version: version.state_update is not None,
    ),
    Rule(
        "prompt-suggestions/one-form",
        "An Agent SHOULD NOT send both forms (the legacy _meta key and the update) to the"
        " same Client.",
        RFD + "#migration-from-_metapromptsuggestions",
        one_form,
    ),
]
"""The rules `acp-docs trace` checks, in the order the docs list them."""
