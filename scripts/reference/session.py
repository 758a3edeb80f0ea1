"""Run the reference Client against the reference Agent and record the session as a trace.

The Client is built on the real Python SDK's lower-level `Connection` (its
typed API cannot carry `prompt_suggestions`, nor ACP v2). It speaks ACP v1 (the
default) or v2 (`--protocol v2`, passed on to the Agent), sends prompts,
accepts a suggestion into its composer without sending it, and keeps an offer
only while it can still be current:

- v1: it advertises `session.promptSuggestions` (or, with `--legacy-client`,
  does not, and reads the legacy `session_info_update._meta.promptSuggestions`
  instead) and drops any suggestion that arrives while one of its prompts is
  unanswered.
- v2: the answer to `session/prompt` only acknowledges it; `state_update`
  tells when work runs. The Client drops any suggestion that arrives after it
  sent a prompt and before it has the answer and an `idle` after that answer,
  or while the last state it saw is not `idle`, and withdraws its offer when
  work starts (agent-initiated work too). It resumes the session with the whole history replayed.

In both, it drops any suggestion that arrives while history is replayed, and
rejects whole an update whose `suggestions` is not a list or holds an entry
that is not an object with a string `text` holding a character that is not
white space: the offer stays. Every message is recorded, in order and with
the time it was seen, as the JSON Lines trace `acp-docs trace` reads.

    python scripts/reference/session.py --out .cache/sessions/v1.jsonl
    python scripts/reference/session.py --protocol v2 --out .cache/sessions/v2.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acp.connection import Connection, StreamDirection, StreamEvent
from acp.exceptions import RequestError
from acp.stdio import spawn_stdio_connection

from acp_docs.prompt_suggestions.wire import blank

AGENT = Path(__file__).with_name("agent.py")
DIRECTION = {
    StreamDirection.OUTGOING: "client-to-agent",
    StreamDirection.INCOMING: "agent-to-client",
}
INFO = {"name": "acp-docs reference client", "version": "1.0.0"}
IDLE = "idle"
HISTORY = ("user_message", "agent_message", "user_message_chunk", "agent_message_chunk")


def offered_texts(suggestions: Any) -> list[str] | None:
    """The texts of a valid `suggestions` list, or None when the update must be rejected whole."""
    if not isinstance(suggestions, list):
        return None
    texts = [s.get("text") if isinstance(s, dict) else None for s in suggestions]
    if not all(isinstance(t, str) and not blank(t) for t in texts):
        return None
    return [str(t) for t in texts]


class ReferenceClient:
    """The Client's state: its composer, the offer, and whether it may be current."""

    def __init__(self, legacy: bool, protocol: str = "v1") -> None:
        self.legacy = legacy
        self.protocol = protocol
        self.composer = ""
        self.offer: list[str] = []
        self.in_flight = 0
        """v1: unanswered `session/prompt` requests."""
        self.state = IDLE
        """v2: the last foreground state the Agent reported; a new session is idle."""
        self.prompted = False
        """v2: a `session/prompt` was sent, and no `idle` has followed its answer yet."""
        self.unanswered: set[str] = set()
        """Ids of the `session/prompt` requests whose answer has not arrived yet."""
        self.replaying = 0
        """Unanswered requests that replay history: `session/load` (v1), `session/resume` (v2)."""
        self.dropped = 0
        self.rejected = 0
        self.withdrawn = 0
        self.offers = 0
        """How many updates replaced the offer."""
        self.replayed = 0
        """Messages of the history replayed to this Client."""
        self.offered = asyncio.Event()
        self.changed = asyncio.Event()
        self.trace: list[str] = []

    def record(self, event: StreamEvent) -> None:
        """Keep every message, in the order the Client saw it, and note prompts and answers."""
        message = event.message
        seen = datetime.now(UTC).isoformat(timespec="microseconds")
        line = {"direction": DIRECTION[event.direction], "time": seen, "message": message}
        self.trace.append(json.dumps(line, ensure_ascii=False, sort_keys=True))
        key = json.dumps(message.get("id"))
        if (
            event.direction is StreamDirection.OUTGOING
            and message.get("method") == "session/prompt"
        ):
            self.unanswered.add(key)
        elif event.direction is StreamDirection.INCOMING and "method" not in message:
            # Notifications are handled in tasks, in the order they came; the
            # answer is noted in the same queue, so an `idle` that came before
            # the answer is handled before it, as the rule needs.
            asyncio.get_running_loop().call_soon(self.unanswered.discard, key)

    def stale(self) -> bool:
        """Whether a suggestion arriving now must be dropped: replayed, or for earlier work."""
        if self.replaying:
            return True
        if self.protocol == "v2":
            return self.prompted or self.state != IDLE
        return self.in_flight > 0

    def _take(self, suggestions: Any) -> None:
        if self.stale():
            self.dropped += 1  # replayed, or made for earlier work: never offer it
            return
        texts = offered_texts(suggestions)
        if texts is None:
            self.rejected += 1  # rejected whole, never read as a withdrawal: the offer stays
            return
        self.offer = texts
        self.offers += 1
        self.offered.set()

    def _see(self, state: Any) -> None:
        """v2: a state_update. Any state but idle is work (unknown ones too): the offer ends."""
        if state == IDLE:
            # Only an idle after the answer ends the prompted work: the earlier
            # work's idle may still have been on its way when the prompt went out.
            if not self.unanswered:
                self.prompted = False
        elif self.offer:
            self.offer = []
            self.withdrawn += 1
        self.state = state if isinstance(state, str) else repr(state)

    async def handle(self, method: str, params: Any, is_notification: bool) -> Any:
        """Session updates from the Agent; this Client offers no other methods."""
        if method == "session/update" and isinstance(params, dict):
            update = params.get("update") or {}
            kind = update.get("sessionUpdate")
            if kind == "prompt_suggestions" and not self.legacy:
                self._take(update.get("suggestions"))
            elif kind == "session_info_update" and self.legacy:
                meta = update.get("_meta") or {}
                legacy = meta.get("promptSuggestions")
                if legacy is not None:
                    self._take(legacy.get("suggestions") if isinstance(legacy, dict) else None)
            elif kind == "state_update" and self.protocol == "v2":
                self._see(update.get("state"))
            elif kind in HISTORY and self.replaying:
                self.replayed += 1
            self.changed.set()
            return None
        raise RequestError.method_not_found(method)

    async def until(self, done: Callable[[], bool], timeout: float) -> bool:
        """Wait until `done()` holds or `timeout` seconds pass; say whether it holds."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not done():
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), max(0.0, end - loop.time()))
            if loop.time() >= end:
                return done()
        return True

    def accept(self) -> None:
        """Tab: the first suggestion fills the composer. Nothing is sent."""
        if self.offer:
            self.composer = self.offer[0]
        self.offer = []

    async def prompt(self, connection: Connection, session: str, text: str) -> Any:
        """Send a prompt; sending ends the current offer (and, in v2, starts work until idle)."""
        self.offer = []
        self.offered.clear()
        self.prompted = True
        self.in_flight += 1
        try:
            return await connection.send_request(
                "session/prompt",
                {"sessionId": session, "prompt": [{"type": "text", "text": text}]},
            )
        finally:
            self.in_flight -= 1

    async def replay(self, connection: Connection, method: str, params: dict[str, Any]) -> Any:
        """Send a request that replays history: nothing offered until it is answered is live."""
        self.replaying += 1
        try:
            return await connection.send_request(method, params)
        finally:
            self.replaying -= 1

    async def resume(self, connection: Connection, session: str) -> Any:
        """v2: resume the session with its whole history replayed."""
        params = {"sessionId": session, "cwd": "/", "replayFrom": {"type": "start"}}
        return await self.replay(connection, "session/resume", params)

    async def load(self, connection: Connection, session: str) -> Any:
        """v1: load the session, which replays its history (the v1 session does not)."""
        params = {"sessionId": session, "cwd": "/", "mcpServers": []}
        return await self.replay(connection, "session/load", params)


async def run(legacy: bool, migration: bool, wait: float) -> ReferenceClient:
    """One v1 session: initialize, a new session, two prompts, a suggestion accepted."""
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
                "clientInfo": INFO,
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


async def run_v2(wait: float) -> ReferenceClient:
    """One v2 session: two prompts and the Agent's own follow-up, each ended by idle; a resume.

    The script, standing in for the user, only gives each step `wait` seconds:
    the Client itself never waits for a suggestion.
    """
    client = ReferenceClient(legacy=False, protocol="v2")
    async with spawn_stdio_connection(
        client.handle,
        sys.executable,
        str(AGENT),
        "--protocol",
        "v2",
        observers=[client.record],
    ) as (connection, _process):
        await connection.send_request(
            "initialize", {"protocolVersion": 2, "info": INFO, "capabilities": {}}
        )
        created = await connection.send_request("session/new", {"cwd": "/"})
        session = created["sessionId"]
        # The answer only acknowledges the prompt: the work ends with idle, then suggestions.
        await client.prompt(connection, session, "Fix the parser")
        await client.until(lambda: client.offers >= 1, wait)
        client.accept()
        # The accepted text, sent by the user. The Agent runs the tests in the background,
        # offers suggestions after idle, and follows up on its own when the run ends:
        # its `running` withdraws the offer, and new suggestions come after its idle.
        await client.prompt(connection, session, client.composer or "Thanks")
        await client.until(lambda: client.offers >= 3, wait)
        await client.resume(connection, session)
    return client


def main(argv: list[str] | None = None) -> int:
    """Run the pair, write the trace, and say what the Client did."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="where to write the trace")
    parser.add_argument(
        "--protocol", choices=("v1", "v2"), default="v1", help="the ACP version the pair speaks"
    )
    parser.add_argument(
        "--legacy-client",
        action="store_true",
        help="v1: the Client does not advertise the capability and reads the legacy _meta key",
    )
    parser.add_argument(
        "--no-migration", action="store_true", help="v1: the Agent sends no legacy form"
    )
    parser.add_argument(
        "--wait", type=float, default=10.0, help="seconds the user gives a suggestion to arrive"
    )
    args = parser.parse_args(argv)
    if args.protocol == "v2" and args.legacy_client:
        parser.error("--legacy-client is v1 only: v2 has no capability and no legacy form")
    if args.protocol == "v2":
        client = asyncio.run(run_v2(args.wait))
    else:
        client = asyncio.run(run(args.legacy_client, not args.no_migration, args.wait))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(client.trace) + "\n", encoding="utf-8")
    print(f"trace: {args.out} ({len(client.trace)} messages)")
    print(f"composer after accepting: {client.composer!r} (not sent by the Client)")
    print(f"suggestions dropped as stale: {client.dropped}")
    if args.protocol == "v2":
        print(f"offers withdrawn when work started: {client.withdrawn}")
        print(f"updates rejected as malformed: {client.rejected}")
        print(f"history replayed on resume: {client.replayed} messages")
        print(f"offer after resuming: {client.offer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
