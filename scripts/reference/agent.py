"""A reference ACP v1 Agent on the real Python SDK, following the prompt_suggestions RFD.

It talks over stdio like a real Agent. It ends each turn with a
`prompt_suggestions` update sent after its response to `session/prompt`, and
only to a Client that advertised `session.promptSuggestions`; with
`--migration` it sends the legacy `session_info_update._meta.promptSuggestions`
form to a Client that did not, and never both forms to one Client.

The SDK's typed API (`acp.Agent`, `acp.schema`) cannot carry a variant it does
not know, so this Agent uses the SDK's documented lower-level `Connection`,
which sends and receives raw JSON-RPC messages.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from acp.connection import Connection, StreamDirection, StreamEvent
from acp.exceptions import RequestError
from acp.stdio import stdio_streams

SESSION = "sess_reference_1"


class ReferenceAgent:
    """The Agent's state: what the Client can show, and which turn is current."""

    def __init__(self, migration: bool) -> None:
        self.migration = migration
        self.capable = False
        self.turn = 0
        self.prompts: dict[str, int] = {}
        """The turn each unanswered `session/prompt` (by request id) started."""
        self.connection: Connection | None = None

    async def handle(self, method: str, params: Any, is_notification: bool) -> Any:
        """Answer one request or notification from the Client."""
        params = params if isinstance(params, dict) else {}
        if method == "initialize":
            session = (params.get("clientCapabilities") or {}).get("session") or {}
            self.capable = isinstance(session.get("promptSuggestions"), dict)
            return {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
        if method == "session/new":
            return {"sessionId": SESSION}
        if method == "session/prompt":
            text = next(
                (b.get("text", "") for b in params.get("prompt") or [] if b.get("type") == "text"),
                "",
            )
            assert self.connection is not None
            await self.connection.send_notification(
                "session/update",
                {
                    "sessionId": SESSION,
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": f"Done: {text}"},
                    },
                },
            )
            return {"stopReason": "end_turn"}
        if method == "session/cancel" and is_notification:
            return None
        raise RequestError.method_not_found(method)

    def observe(self, event: StreamEvent) -> None:
        """Once the response to a prompt has gone out, the turn is over: suggest."""
        message = event.message
        key = repr(message.get("id"))
        if (
            event.direction is StreamDirection.INCOMING
            and message.get("method") == "session/prompt"
        ):
            self.turn += 1
            self.prompts[key] = self.turn
        if event.direction is StreamDirection.OUTGOING and "result" in message:
            turn = self.prompts.pop(key, None)
            if turn is not None:
                asyncio.get_running_loop().create_task(self.suggest(turn))

    async def suggest(self, turn: int) -> None:
        """Send the turn's suggestions in the form the Client can read, or none."""
        if turn != self.turn or self.connection is None:
            return  # a newer prompt arrived: the prediction is stale
        suggestions = [{"text": "Run the test suite"}, {"text": "Explain the change"}]
        if self.capable:
            update = {"sessionUpdate": "prompt_suggestions", "suggestions": suggestions}
        elif self.migration:
            update = {
                "sessionUpdate": "session_info_update",
                "_meta": {"promptSuggestions": suggestions},
            }
        else:
            return  # no capability, no fallback: the prediction is not worth making
        await self.connection.send_notification(
            "session/update", {"sessionId": SESSION, "update": update}
        )


async def main(argv: list[str] | None = None) -> None:
    """Serve one Client over stdio until it closes the connection."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--migration", action="store_true", help="legacy form for old Clients")
    args = parser.parse_args(argv)
    agent = ReferenceAgent(args.migration)
    reader, writer = await stdio_streams()
    connection = Connection(
        agent.handle, writer, reader, observers=[agent.observe], listening=False
    )
    agent.connection = connection
    await connection.main_loop()


if __name__ == "__main__":
    asyncio.run(main())
