"""Jobs for a Node script, one JSON answer a file, cached by digest and shared by two workers.

A script reads `{"files": [...]}` on standard input and prints one JSON line
a file, each with the `path` it answers for. What a file's answer depends on
(its text, the script, the tool's version, the options) is hashed into its
key: an answer in the user's cache is used as it is, and a warm run starts no
Node at all. Files not in the cache go to up to `WORKERS` processes side by side.
"""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_docs.core import cachedir, runner
from acp_docs.sources.textfile import read_text

PROJECT = Path(__file__).resolve().parents[3]
"""This project's checkout, whose `node_modules` holds the pinned Node packages."""
FIX = "run `make setup` in the acp-docs checkout (it runs `npm ci`; Node 20 or newer)"
TIMEOUT = 120.0
WORKERS = 2


@dataclass(frozen=True)
class Script:
    """A Node script, the package it drives and the cache its answers are kept in."""

    tool: str
    path: Path
    package: Path
    """The package's folder in `node_modules`: its `package.json` names the version."""
    entry: str
    """The package's file the script imports, from `package`."""
    cache: str


def package_version(script: Script) -> str:
    """The installed version of the script's package; a ToolFailure when it is missing."""
    try:
        data = json.loads(read_text(script.package / "package.json"))
    except Exception as exc:  # a missing or broken install is the tool's failure
        raise runner.ToolFailure(
            script.tool, f"{script.package.name} is not installed ({exc})", FIX
        ) from None
    return str(data.get("version", "")) if isinstance(data, dict) else ""


def _run(script: Script, node: str, jobs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    done = runner.run(
        script.tool,
        [node, str(script.path), str(script.package / script.entry)],
        cwd=script.path.parent,
        fix=FIX,
        timeout=TIMEOUT,
        stdin=json.dumps({"files": jobs}),
    )
    answers = {}
    for line in done.stdout.splitlines():
        try:
            answer = json.loads(line)
            answers[str(answer["path"])] = answer
        except (ValueError, KeyError, TypeError):
            raise runner.ToolFailure(script.tool, f"unexpected output: {line[:200]}", FIX) from None
    return answers


def _keyed(job: dict[str, Any], unkeyed: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in job.items() if k not in unkeyed}


def answers(
    script: Script,
    jobs: list[dict[str, Any]],
    salt: str = "",
    unkeyed: tuple[str, ...] = (),
) -> dict[str, dict[str, Any]]:
    """The script's answer for each job (a dict with `path`), by path; cached where it can be.

    A job's cache key is its JSON (but for the `unkeyed` members, such as names
    of scratch files) with the script's bytes, the package's version and `salt`
    (what else the answer depends on).
    """
    prefix = hashlib.sha256(
        script.path.read_bytes() + package_version(script).encode() + salt.encode()
    ).hexdigest()
    folder = cachedir.cache_dir(script.cache)
    keys = {
        str(job["path"]): hashlib.sha256(
            (prefix + "\0" + json.dumps(_keyed(job, unkeyed), sort_keys=True)).encode(
                "utf-8", "surrogatepass"
            )
        ).hexdigest()
        for job in jobs
    }
    found: dict[str, dict[str, Any]] = {}
    missing = []
    for job in jobs:
        path = str(job["path"])
        kept = folder.read_text(f"{keys[path]}.json") if folder else None
        try:
            cached = json.loads(kept) if kept is not None else None
        except ValueError:
            cached = None
        if isinstance(cached, dict) and cached.get("path") == path:
            found[path] = cached
        else:
            missing.append(job)
    if missing:
        node = runner.require("node", script.tool, FIX)
        chunks = [missing[i::WORKERS] for i in range(WORKERS) if missing[i::WORKERS]]
        with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
            for got in pool.map(lambda chunk: _run(script, node, chunk), chunks):
                for path, answer in got.items():
                    if path not in keys:
                        continue
                    found[path] = answer
                    if folder:
                        folder.write_text(f"{keys[path]}.json", json.dumps(answer))
    for path in keys:
        if path not in found:
            raise runner.ToolFailure(script.tool, f"no answer for {path}", FIX)
    return found
