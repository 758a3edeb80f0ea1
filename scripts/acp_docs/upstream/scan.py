"""Each page read by the pinned MDX parser (`mdx_scan.mjs` in Node): blocks, headings, links.

A page's reading depends only on its text, the script and the parser's
version, so it is kept in the user's cache under their digest: a warm check
starts no Node at all. Pages not in the cache are read by up to `WORKERS`
Node processes side by side.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_docs.core import cachedir, runner
from acp_docs.core.errors import UsageError
from acp_docs.sources.textfile import read_text, write_atomic
from acp_docs.upstream.tree import Page

SCRIPT = Path(__file__).with_name("mdx_scan.mjs")
PROJECT = Path(__file__).resolve().parents[3]
"""This project's checkout, whose `node_modules` holds the pinned @mdx-js/mdx."""
MDX = PROJECT / "node_modules" / "@mdx-js" / "mdx"
FIX = "run `make setup` in the acp-docs checkout (it runs `npm ci`; Node 20 or newer)"
TIMEOUT = 120.0
WORKERS = 2


@dataclass(frozen=True)
class Block:
    """A fenced code block: the line of its opening fence, its language, meta and text."""

    line: int
    lang: str
    meta: str
    value: str
    group: int | None
    """The line of the `<CodeGroup>` holding it, if any."""


@dataclass(frozen=True)
class Scanned:
    """What the MDX parser saw in one page, or where it stopped (`error`, `line`, `col`)."""

    blocks: tuple[Block, ...] = ()
    headings: tuple[tuple[int, int, str], ...] = ()
    """(line, depth, text) of each heading."""
    links: tuple[tuple[int, int, str], ...] = ()
    """(line, column, URL) of each Markdown link and JSX `href`."""
    ids: tuple[str, ...] = ()
    """The `id` attributes of JSX elements: anchors as much as headings are."""
    error: str | None = None
    line: int = 1
    col: int = 1


def _version() -> str:
    try:
        data = json.loads(read_text(MDX / "package.json"))
    except Exception as exc:  # a missing or broken install is the tool's failure
        raise runner.ToolFailure("mdx", f"@mdx-js/mdx is not installed ({exc})", FIX) from None
    return str(data.get("version", "")) if isinstance(data, dict) else ""


def _from(answer: dict[str, Any]) -> Scanned:
    if "error" in answer:
        return Scanned(error=str(answer["error"]), line=int(answer["line"]), col=int(answer["col"]))
    return Scanned(
        tuple(
            Block(int(b["line"]), str(b["lang"]), str(b["meta"]), str(b["value"]), b["group"])
            for b in answer["blocks"]
        ),
        tuple((int(h["line"]), int(h["depth"]), str(h["text"])) for h in answer["headings"]),
        tuple((int(k["line"]), int(k["col"]), str(k["url"])) for k in answer["links"]),
        tuple(str(i) for i in answer["ids"]),
    )


def _run(node: str, pages: list[Page]) -> dict[str, dict[str, Any]]:
    request = json.dumps({"files": [{"path": p.path, "text": p.text} for p in pages]})
    done = runner.run(
        "mdx",
        [node, str(SCRIPT), str(MDX / "index.js")],
        cwd=SCRIPT.parent,
        fix=FIX,
        timeout=TIMEOUT,
        stdin=request,
    )
    answers = {}
    for line in done.stdout.splitlines():
        try:
            answer = json.loads(line)
            answers[answer["path"]] = answer
        except (ValueError, KeyError, TypeError):
            raise runner.ToolFailure("mdx", f"unexpected output: {line[:200]}", FIX) from None
    return answers


def scan(pages: list[Page]) -> dict[str, Scanned]:
    """Every page read by the MDX parser, by path (from the cache where it can be)."""
    salt = hashlib.sha256(SCRIPT.read_bytes() + _version().encode()).hexdigest()
    folder = cachedir.cache_dir("upstream-mdx")
    digests = {
        p.path: hashlib.sha256((salt + "\0" + p.text).encode("utf-8", "surrogatepass")).hexdigest()
        for p in pages
    }
    found: dict[str, dict[str, Any]] = {}
    missing = []
    for page in pages:
        cached = folder / f"{digests[page.path]}.json" if folder else None
        try:
            found[page.path] = json.loads(cached.read_text("utf-8")) if cached else {}
            if not found[page.path]:
                raise ValueError
        except (OSError, ValueError):
            found.pop(page.path, None)
            missing.append(page)
    if missing:
        node = runner.require("node", "mdx", FIX)
        chunks = [missing[i::WORKERS] for i in range(WORKERS) if missing[i::WORKERS]]
        with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
            for answers in pool.map(lambda chunk: _run(node, chunk), chunks):
                for path, answer in answers.items():
                    found[path] = answer
                    if folder:
                        with contextlib.suppress(UsageError):  # a cache only saves time
                            write_atomic(folder / f"{digests[path]}.json", json.dumps(answer))
    out = {}
    for page in pages:
        answer = found.get(page.path)
        if answer is None:
            raise runner.ToolFailure("mdx", f"no answer for {page.path}", FIX)
        try:
            out[page.path] = _from(answer)
        except (KeyError, TypeError, ValueError):
            raise runner.ToolFailure("mdx", f"unexpected answer for {page.path}", FIX) from None
    return out
