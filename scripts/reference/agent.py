"""A reference ACP Agent on the real Python SDK, following the prompt_suggestions RFD.

It talks over stdio like a real Agent, in ACP v1 (the default) or v2
(`--protocol v2`).

In v1 it ends each turn with a `prompt_suggestions` update sent after its
response to `session/prompt`, and only to a Client that advertised
`session.promptSuggestions`; with `--migration` it sends the legacy
`session_info_update._meta.promptSuggestions` form to a Client that did not,
and never both forms to one Client. It supports `session/load`
(`loadSession`): the conversation is replayed, never a suggestion, and a
prediction still on its way when the load arrives is discarded.

In v2 the response to `session/prompt` only acknowledges that the prompt was
inserted. The Agent reports `running` when foreground work starts and `idle`
(with `stopReason`) when it ends, and sends `prompt_suggestions` after that
`idle`, to every Client (v2 has no capability for it). It discards a
prediction once newer work has started (a newer `session/prompt`, or work of
its own) and sends none while a `session/resume` replays history. A prompt to
run the test suite runs it in the background; when the run ends, the Agent
follows up on its own: agent-initiated foreground work, with no prompt. On
`session/resume` with `replayFrom: {"type": "start"}` it replays its history,
then sends the current-state snapshot, then answers.

The SDK's typed API (`acp.Agent`, `acp.schema`) cannot carry a variant it does
not know, nor v2, so this Agent uses the SDK's documented lower-level
`Connection`, which sends and receives raw JSON-RPC messages.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Coroutine
from typing import Any

from acp.connection import Connection, StreamDirection, StreamEvent
from acp.exceptions import RequestError
from acp.stdio import stdio_streams

SESSION = "sess_reference_1"
CWD = "/"
INFO = {"name": "acp-docs reference agent", "version": "1.0.0"}
TEST_RUN = "Run the test suite"
"""v2: a prompt with this text runs the tests in the background, and the Agent follows up."""
SUGGESTIONS = [{"text": TEST_RUN}, {"text": "Explain the change"}]
AFTER_TEST_RUN = [{"text": "Explain the change"}]
AFTER_FOLLOW_UP = [{"text": "Commit the fix"}, {"text": "Explain the change"}]
UNSUPPORTED_VERSION = -32022
"""The v2 error code of an initialize whose protocol version the Agent cannot speak."""


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def _prompt_text(params: Any) -> str:
    """The text of a `session/prompt`'s first text block, or ""."""
    blocks = params.get("prompt") if isinstance(params, dict) else None
    return next(
        (
            b.get("text", "")
            for b in (blocks if isinstance(blocks, list) else [])
            if isinstance(b, dict) and b.get("type") == "text"
        ),
        "",
    )


class ReferenceAgent:
    """The Agent's state: what the Client can show, and which work is current."""

    def __init__(self, migration: bool, protocol: str = "v1") -> None:
        self.migration = migration
        self.protocol = protocol
        self.capable = False
        self.turn = 0
        """How many pieces of foreground work have started: prompts (and, in v2, its own work)."""
        self.prompts: dict[str, tuple[int, str]] = {}
        """The turn each unanswered `session/prompt` (by request id) started, and its text."""
        self.state = "idle"
        """v2: the foreground state last reported; a new session is idle."""
        self.stop_reason: str | None = None
        """v2: why the last foreground work stopped, for the resume snapshot."""
        self.history: list[tuple[str, str, str]] = []
        """The conversation, as (sessionUpdate, messageId, text), for replay (v1: no ids)."""
        self.replays: set[str] = set()
        """The unanswered requests that replay history (by request id): `session/load` (v1),
        `session/resume` with a `replayFrom` (v2)."""
        self.tasks: set[asyncio.Task[None]] = set()
        self.connection: Connection | None = None

    async def handle(self, method: str, params: Any, is_notification: bool) -> Any:
        """Answer one request or notification from the Client."""
        params = params if isinstance(params, dict) else {}
        v2 = self.protocol == "v2"
        if method == "initialize" and v2:
            if not isinstance(params.get("protocolVersion"), int) or params["protocolVersion"] < 2:
                raise RequestError(UNSUPPORTED_VERSION, "This Agent speaks ACP v2 only")
            # `session: {}` advertises the baseline session methods, session/resume included.
            return {"protocolVersion": 2, "info": INFO, "capabilities": {"session": {}}}
        if method == "initialize":
            session = (params.get("clientCapabilities") or {}).get("session") or {}
            self.capable = isinstance(session.get("promptSuggestions"), dict)
            capabilities = {"loadSession": True}
            return {"protocolVersion": 1, "agentCapabilities": capabilities, "authMethods": []}
        if method == "session/new":
            return {"sessionId": SESSION}
        if method == "session/prompt" and v2:
            return await self.insert(_prompt_text(params))
        if method == "session/prompt":
            text = _prompt_text(params)
            self.history += [
                ("user_message_chunk", "", text),
                ("agent_message_chunk", "", f"Done: {text}"),
            ]
            await self.update(
                {"sessionUpdate": "agent_message_chunk", "content": _text(f"Done: {text}")}
            )
            return {"stopReason": "end_turn"}
        if method == "session/load":
            self._known(params)
            self.turn += 1  # a prediction still on its way belongs to the past: discard it
            for kind, _message_id, text in self.history:
                await self.update({"sessionUpdate": kind, "content": _text(text)})
            return {}
        if method == "session/resume" and v2:
            return await self.resume(params)
        if method == "session/list" and v2:
            return {"sessions": [{"sessionId": SESSION, "cwd": CWD}]}
        if method == "session/close" and v2:
            self._known(params)
            return {}
        if method == "session/cancel" and is_notification:
            return None
        raise RequestError.method_not_found(method)

    async def update(self, update: dict[str, Any]) -> None:
        """Send one session/update for the session."""
        assert self.connection is not None
        await self.connection.send_notification(
            "session/update", {"sessionId": SESSION, "update": update}
        )

    async def report(self, state: str, stop_reason: str | None = None) -> None:
        """v2: report the session's foreground state (an idle that ends work says why)."""
        self.state = state
        update: dict[str, Any] = {"sessionUpdate": "state_update", "state": state}
        if stop_reason is not None:
            self.stop_reason = update["stopReason"] = stop_reason
        await self.update(update)

    async def insert(self, text: str) -> dict[str, Any]:
        """v2: the work starts and the prompt is inserted; the answer only acknowledges that."""
        await self.report("running")
        message_id = f"msg_{len(self.history) + 1}"
        self.history.append(("user_message", message_id, text))
        await self.update(
            {"sessionUpdate": "user_message", "messageId": message_id, "content": [_text(text)]}
        )
        return {"messageId": message_id}

    async def say(self, text: str) -> None:
        """v2: stream one agent message (one chunk) and keep it in the history."""
        message_id = f"msg_{len(self.history) + 1}"
        self.history.append(("agent_message", message_id, text))
        await self.update(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": message_id,
                "content": _text(text),
            }
        )

    async def finish(self, turn: int) -> bool:
        """v2: end the work with idle, unless newer work runs (its own end will report idle)."""
        if turn != self.turn:
            return False
        await self.report("idle", "end_turn")
        return True

    async def work(self, turn: int, text: str) -> None:
        """v2: the prompt's work goes on after its answer: a reply, idle, then suggestions."""
        background = text == TEST_RUN
        await self.say(
            "Started the test suite in the background." if background else f"Done: {text}"
        )
        if not await self.finish(turn):
            return
        await self.suggest(turn, AFTER_TEST_RUN if background else SUGGESTIONS)
        if background:
            await self.follow_up()

    async def follow_up(self) -> None:
        """v2: the background run has ended: foreground work of the Agent's own, no prompt."""
        self.turn += 1
        turn = self.turn
        await self.report("running")
        await self.say("The test suite passed.")
        if await self.finish(turn):
            await self.suggest(turn, AFTER_FOLLOW_UP)

    def _known(self, params: dict[str, Any]) -> None:
        if params.get("sessionId") != SESSION:
            raise RequestError.invalid_params({"sessionId": "no such session"})

    async def resume(self, params: dict[str, Any]) -> dict[str, Any]:
        """v2: replay the history from `replayFrom`, send the current-state snapshot, answer."""
        self._known(params)
        cursor = params.get("replayFrom")
        if cursor is not None:
            if not isinstance(cursor, dict) or cursor.get("type") != "start":
                raise RequestError.invalid_params({"replayFrom": 'only {"type": "start"}'})
            for kind, message_id, text in self.history:
                await self.update(
                    {"sessionUpdate": kind, "messageId": message_id, "content": [_text(text)]}
                )
        # A snapshot, not an end of work: it may carry the last stop reason for context.
        snapshot: dict[str, Any] = {"sessionUpdate": "state_update", "state": self.state}
        if self.state == "idle" and self.stop_reason is not None:
            snapshot["stopReason"] = self.stop_reason
        await self.update(snapshot)
        return {}

    def _start(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def observe(self, event: StreamEvent) -> None:
        """Once the response to a prompt has gone out: suggest (v1), or work on (v2)."""
        message = event.message
        key = repr(message.get("id"))
        incoming = event.direction is StreamDirection.INCOMING
        if incoming and message.get("method") == "session/prompt":
            self.turn += 1  # newer work: every earlier prediction is stale from now on
            self.prompts[key] = (self.turn, _prompt_text(message.get("params")))
        if incoming and message.get("method") == "session/resume":
            params = message.get("params")
            if isinstance(params, dict) and params.get("replayFrom") is not None:
                self.replays.add(key)
        if incoming and message.get("method") == "session/load":
            self.replays.add(key)
        if event.direction is StreamDirection.OUTGOING and "method" not in message:
            self.replays.discard(key)  # answered: the replay is over
        if event.direction is StreamDirection.OUTGOING and "result" in message:
            prompt = self.prompts.pop(key, None)
            if prompt is not None:
                turn, text = prompt
                self._start(self.work(turn, text) if self.protocol == "v2" else self.suggest(turn))

    async def suggest(self, turn: int, suggestions: list[dict[str, str]] = SUGGESTIONS) -> None:
        """Send the turn's suggestions in the form the Client can read, or none."""
        if turn != self.turn or self.connection is None:
            return  # newer work has started: the prediction is stale
        if self.protocol == "v2":
            if self.state != "idle" or self.replays:
                return  # never during foreground work, never while history is replayed
            update = {"sessionUpdate": "prompt_suggestions", "suggestions": suggestions}
        elif self.replays:
            return  # never while history is replayed
        elif self.capable:
            update = {"sessionUpdate": "prompt_suggestions", "suggestions": suggestions}
        elif self.migration:
            # As the Claude Agent adapter's published package sends it: an
            # object holding the list, one prediction a turn.
            update = {
                "sessionUpdate": "session_info_update",
                "_meta": {"promptSuggestions": {"suggestions": suggestions[:1]}},
            }
        else:
            return  # no capability, no fallback: the prediction is not worth making
        await self.update(update)


async def main(argv: list[str] | None = None) -> None:
    """Serve one Client over stdio until it closes the connection."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--migration", action="store_true", help="legacy form for old Clients (v1)")
    parser.add_argument(
        "--protocol", choices=("v1", "v2"), default="v1", help="the ACP version to speak"
    )
    args = parser.parse_args(argv)
    agent = ReferenceAgent(args.migration, args.protocol)
    reader, writer = await stdio_streams()
    connection = Connection(
        agent.handle, writer, reader, observers=[agent.observe], listening=False
    )
    agent.connection = connection
    await connection.main_loop()


if __name__ == "__main__":
    asyncio.run(main())
