"""A small ACP Agent for the tests of `acp-docs conform`: correct, or broken in one way.

It speaks ACP v1 or v2 (`--protocol`) on standard input and output, one
message a line, and does everything at once: each message it writes is
written before it reads the next, so what a scenario records never depends on
timing. `--break RULE` breaks one requirement (or misbehaves as a process)
and keeps every other rule.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

SESSION = "sess_fixture"
BREAKS = (
    "capability",
    "empty-text",
    "replay",
    "after-response",
    "while-idle",
    "one-form",
    "invalid-update",
    "silent",
    "hang",
    "crash",
    "garbage",
    "flood-stderr",
    "flood-stdout",
    "stubborn",
    "escape",
    "no-read",
)


def write(message: dict) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def update(body: dict) -> None:
    write({"method": "session/update", "params": {"sessionId": SESSION, "update": body}})


def chunk(kind: str, text: str) -> dict:
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}}


class Agent:
    def __init__(self, protocol: str, broken: str | None) -> None:
        self.v2 = protocol == "v2"
        self.broken = broken
        self.capable = False
        self.history: list[tuple[str, str]] = []

    def suggest(self) -> None:
        if self.broken == "silent" or (
            not self.v2 and not self.capable and self.broken != "capability"
        ):
            return
        text = "" if self.broken == "empty-text" else "Run the tests"
        suggestions = None if self.broken == "invalid-update" else [{"text": text}]
        update({"sessionUpdate": "prompt_suggestions", "suggestions": suggestions})
        if self.broken == "one-form":
            legacy = {"promptSuggestions": {"suggestions": [{"text": "Run the tests"}]}}
            update({"sessionUpdate": "session_info_update", "_meta": legacy})

    def misbehave(self) -> None:
        """The process-level breaks, on a prompt."""
        if self.broken == "hang":
            while True:
                time.sleep(3600)
        if self.broken == "crash":
            sys.stderr.write("fixture agent: giving up\n")
            sys.stderr.flush()
            os._exit(3)
        if self.broken == "garbage":
            sys.stdout.write("this is not JSON \x1b[31mred\x1b[0m \u202eevil\n")
            sys.stdout.flush()
        if self.broken == "flood-stderr":
            line = b"fixture agent: a line of noise on standard error\n" * 1000
            while True:
                os.write(2, line)
        if self.broken == "flood-stdout":
            while True:
                update(chunk("agent_message_chunk", "more"))

    def prompt(self, request: dict) -> None:
        self.misbehave()
        blocks = request["params"].get("prompt") or [{}]
        text = blocks[0].get("text", "")
        if self.v2:
            update({"sessionUpdate": "state_update", "state": "running"})
            write({"id": request["id"], "result": {"messageId": f"m{len(self.history)}"}})
            update({**chunk("agent_message_chunk", f"Done: {text}"), "messageId": "a1"})
            if self.broken == "while-idle":
                self.suggest()
            update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
            if self.broken != "while-idle":
                self.suggest()
        else:
            update(chunk("agent_message_chunk", f"Done: {text}"))
            if self.broken == "after-response":
                self.suggest()
            write({"id": request["id"], "result": {"stopReason": "end_turn"}})
            if self.broken != "after-response":
                self.suggest()
        self.history += [("user", text), ("agent", f"Done: {text}")]

    def replay(self, request: dict) -> None:
        for who, text in self.history:
            if self.v2:
                update(
                    {
                        **chunk(f"{who}_message", text),
                        "content": [{"type": "text", "text": text}],
                        "messageId": "r",
                    }
                )
            else:
                update(chunk(f"{who}_message_chunk", text))
        if self.broken == "replay":
            self.suggest()
        if self.v2:
            update({"sessionUpdate": "state_update", "state": "idle"})
        write({"id": request["id"], "result": {}})

    def handle(self, message: dict) -> None:
        method = message.get("method")
        params = message.get("params") or {}
        if method == "initialize":
            if self.v2:
                result = {
                    "protocolVersion": 2,
                    "info": {"name": "fixture agent", "version": "1"},
                    "capabilities": {"session": {}},
                }
            else:
                session = (params.get("clientCapabilities") or {}).get("session") or {}
                self.capable = isinstance(session.get("promptSuggestions"), dict)
                result = {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}}
            write({"id": message["id"], "result": result})
        elif method == "session/new":
            write({"id": message["id"], "result": {"sessionId": SESSION}})
        elif method == "session/prompt":
            self.prompt(message)
        elif method in ("session/load", "session/resume"):
            self.replay(message)
        elif "id" in message and method is not None:
            write({"id": message["id"], "error": {"code": -32601, "message": "no such method"}})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--protocol", choices=("v1", "v2"), default="v1")
    parser.add_argument("--break", dest="broken", choices=BREAKS)
    parser.add_argument("--pid-file", help="stubborn: where its child writes its process id")
    args = parser.parse_args()
    agent = Agent(args.protocol, args.broken)
    # A grandchild in a session of its own keeps stdout open.
    if args.broken == "escape" and os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(args.pid_file, "a") as pids:
                pids.write(f"{os.getpid()} ")
            time.sleep(3600)
        os._exit(0)
    if args.broken == "no-read":  # answers initialize, then only writes requests
        agent.handle(json.loads(sys.stdin.readline()))
        for number in range(100000):
            path = "/" + "x" * 200
            params = {"sessionId": SESSION, "path": path}
            write({"id": 1000 + number, "method": "fs/read_text_file", "params": params})
        time.sleep(3600)
    if args.broken == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        code = (
            f"import os, time; open({args.pid_file!r}, 'a').write(f'{{os.getpid()}} ');"
            " time.sleep(3600)"
        )
        subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL)
    for line in sys.stdin:
        if line.strip():
            agent.handle(json.loads(line))
    if args.broken == "stubborn":
        while True:  # ignores its closed input, and SIGTERM
            time.sleep(3600)


if __name__ == "__main__":
    main()
