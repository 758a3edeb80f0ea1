"""Run the reference Client against the reference Agent and record the session as a trace.

The Client is built on the real Python SDK's lower-level `Connection` (its
typed API cannot carry `prompt_suggestions`). It advertises
`session.promptSuggestions` (or, with `--legacy-client`, does not, and reads
the legacy `session_info_update._meta.promptSuggestions` instead), sends
prompts, accepts a suggestion into its composer without sending it, and drops
any suggestion that arrives while one of its prompts is unanswered. Every
message is recorded, in order, as the JSON Lines trace `acp-docs trace` reads.

    python scripts/reference/session.py --out .cache/sessions/v1.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from acp.connection import Connection, StreamDirection, StreamEvent
from acp.exceptions import RequestError
from acp.stdio import spawn_stdio_connection

AGENT = Path(__file__).with_name("agent.py")
DIRECTION = {
    StreamDirection.OUTGOING: "client-to-agent",
    StreamDirection.INCOMING: "agent-to-client",
}


class ReferenceClient:
    """The Client's state: its composer, the offer, and whether a prompt is in flight."""

    def __init__(self, legacy: bool) -> None:
        self.legacy = legacy
        self.composer = ""
        self.offer: list[str] = []
        self.in_flight = 0
        self.dropped = 0
        self.offered = asyncio.Event()
        self.trace: list[str] = []

    def record(self, event: StreamEvent) -> None:
        """Keep every message, in the order the Client saw it."""
        line = {"direction": DIRECTION[event.direction], "message": event.message}
        self.trace.append(json.dumps(line, ensure_ascii=False, sort_keys=True))

    def _take(self, suggestions: Any) -> None:
        if self.in_flight:
            self.dropped += 1  # made for an earlier turn: never offer it
            return
        entries = suggestions if isinstance(suggestions, list) else []
        self.offer = [
            s["text"]
            for s in entries
            if isinstance(s, dict) and isinstance(s.get("text"), str) and s["text"]
        ]
        self.offered.set()

    async def handle(self, method: str, params: Any, is_notification: bool) -> Any:
        """Session updates from the Agent; this Client offers no other methods."""
        if method == "session/update" and isinstance(params, dict):
            update = params.get("update") or {}
            kind = update.get("sessionUpdate")
            if kind == "prompt_suggestions" and not self.legacy:
                self._take(update.get("suggestions"))
            elif kind == "session_info_update" and self.legacy:
                meta = update.get("_meta") or {}
                if "promptSuggestions" in meta:
                    self._take(meta["promptSuggestions"])
            return None
        raise RequestError.method_not_found(method)

    def accept(self) -> None:
        """Tab: the first suggestion fills the composer. Nothing is sent."""
        if self.offer:
            self.composer = self.offer[0]
        self.offer = []

    async def prompt(self, connection: Connection, session: str, text: str) -> Any:
        """Send a prompt; sending ends the current offer."""
        self.offer = []
        self.offered.clear()
        self.in_flight += 1
        try:
            return await connection.send_request(
                "session/prompt",
                {"sessionId": session, "prompt": [{"type": "text", "text": text}]},
            )
        finally:
            self.in_flight -= 1


async def run(legacy: bool, migration: bool, wait: float) -> ReferenceClient:
    """One session: initialize, a new session, two prompts, a suggestion accepted."""
    client = ReferenceClient(legacy)
    args = [str(AGENT), *(["--migration"] if migration else [])]
    async with spawn_stdio_connection(
        client.handle, sys.executable, *args, observers=[client.record]
    ) as (connection, _process):
        session_caps = {} if legacy else {"promptSuggestions": {}}
        await connection.send_request(
            "initialize",
            {
                "protocolVersion": 1,
                "clientCapabilities": {"session": session_caps},
                "clientInfo": {"name": "acp-docs reference client", "version": "1.0.0"},
            },
        )
        created = await connection.send_request("session/new", {"cwd": "/", "mcpServers": []})
        session = created["sessionId"]
        await client.prompt(connection, session, "Fix the parser")
        # A turn may end with no suggestion: the Client never waits for one; the
        # script only gives a suggestion a moment to arrive before the user acts.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client.offered.wait(), timeout=wait)
        client.accept()
        await client.prompt(connection, session, client.composer or "Thanks")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client.offered.wait(), timeout=wait)
    return client


def main(argv: list[str] | None = None) -> int:
    """Run the pair, write the trace, and say what the Client did."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="where to write the trace")
    parser.add_argument(
        "--legacy-client",
        action="store_true",
        help="the Client does not advertise the capability and reads the legacy _meta key",
    )
    parser.add_argument(
        "--no-migration", action="store_true", help="the Agent sends no legacy form"
    )
    parser.add_argument(
        "--wait", type=float, default=10.0, help="seconds the user gives a suggestion to arrive"
    )
    args = parser.parse_args(argv)
    client = asyncio.run(run(args.legacy_client, not args.no_migration, args.wait))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(client.trace) + "\n", encoding="utf-8")
    print(f"trace: {args.out} ({len(client.trace)} messages)")
    print(f"composer after accepting: {client.composer!r} (not sent by the Client)")
    print(f"suggestions dropped as stale: {client.dropped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
