"""Each page read by the pinned MDX parser (`mdx_scan.mjs` in Node): blocks, headings, links.

A page's reading depends only on its text, the script and the parser's
version, so it is kept in the user's cache (`nodejobs`): a warm check starts
no Node at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_docs.core import runner
from acp_docs.upstream import nodejobs
from acp_docs.upstream.tree import Page

FIX = nodejobs.FIX
MDX_SCAN = nodejobs.Script(
    "mdx",
    Path(__file__).with_name("mdx_scan.mjs"),
    nodejobs.PROJECT / "node_modules" / "@mdx-js" / "mdx",
    "index.js",
    "upstream-mdx",
)


@dataclass(frozen=True)
class Block:
    """A fenced code block: the line of its opening fence, its language, meta and text."""

    line: int
    lang: str
    meta: str
    value: str
    group: int | None
    """The line of the `<CodeGroup>` holding it, if any."""
    declared: str | None = None
    """What an `{/* acp-docs: ... */}` comment right before the fence declares it to be."""
    declared_line: int = 0


@dataclass(frozen=True)
class Live:
    """An expression, module statement or component of a page, where MDX read it."""

    line: int
    col: int
    kind: str
    """The MDX node: `mdxFlowExpression`, `mdxTextExpression`, `mdxjsEsm`, `mdxJsx...Element`."""
    name: str | None
    """A component's name (None for a fragment and for what is not a component)."""
    attributes: int
    comment: bool
    """An expression that is only a comment, `{/* ... */}`: it renders nothing."""


@dataclass(frozen=True)
class Scanned:
    """What the MDX parser saw in one page, or where it stopped (`error`, `line`, `col`)."""

    blocks: tuple[Block, ...] = ()
    headings: tuple[tuple[int, int, str], ...] = ()
    """(line, depth, text) of each heading."""
    custom_ids: tuple[tuple[int, str], ...] = ()
    """(line, id) of each heading that sets its own id (`## Title {#custom-id}`)."""
    heading_parts: tuple[tuple[tuple[bool, str], ...], ...] = ()
    """Each heading's text in parts, (is inline code, text), in the order of `headings`."""
    components: tuple[tuple[str, str], ...] = ()
    """(component, title or name) of each `<Tab>`, `<Accordion>` without an `id`, and each
    field name of a `...Field`: Mintlify anchors them too."""
    links: tuple[tuple[int, int, str], ...] = ()
    """(line, column, URL) of each Markdown link and JSX `href`."""
    media: tuple[tuple[int, int, str], ...] = ()
    """(line, column, URL) of each image (`![](...)`) and media `src` (`<img>`, `<video>`,
    `<audio>`, `<source>`, `<track>`): files the site must have."""
    ids: tuple[str, ...] = ()
    """The `id` attributes of JSX elements: anchors as much as headings are."""
    stray: tuple[int, ...] = ()
    """Lines of `acp-docs:` declarations that no fenced block follows."""
    live: tuple[Live, ...] = ()
    """What MDX makes code of when the page renders: expressions, ES module statements,
    components (JSX elements)."""
    error: str | None = None
    line: int = 1
    col: int = 1


def _from(answer: dict[str, Any]) -> Scanned:
    if "error" in answer:
        return Scanned(error=str(answer["error"]), line=int(answer["line"]), col=int(answer["col"]))
    return Scanned(
        tuple(
            Block(
                int(b["line"]),
                str(b["lang"]),
                str(b["meta"]),
                str(b["value"]),
                b["group"],
                None if b["declared"] is None else str(b["declared"]),
                int(b["declaredLine"] or 0),
            )
            for b in answer["blocks"]
        ),
        tuple((int(h["line"]), int(h["depth"]), str(h["text"])) for h in answer["headings"]),
        custom_ids=tuple(
            (int(h["line"]), str(h["id"])) for h in answer["headings"] if h.get("id") is not None
        ),
        heading_parts=tuple(
            tuple((bool(code), str(value)) for code, value in h.get("parts", []))
            for h in answer["headings"]
        ),
        components=tuple((str(kind), str(value)) for kind, value in answer.get("components", [])),
        links=tuple((int(k["line"]), int(k["col"]), str(k["url"])) for k in answer["links"]),
        media=tuple((int(k["line"]), int(k["col"]), str(k["url"])) for k in answer["media"]),
        ids=tuple(str(i) for i in answer["ids"]),
        stray=tuple(int(line) for line in answer["stray"]),
        live=tuple(
            Live(
                int(x["line"]),
                int(x["col"]),
                str(x["kind"]),
                None if x["name"] is None else str(x["name"]),
                int(x["attributes"]),
                x["comment"] is True,
            )
            for x in answer.get("live", [])
        ),
    )


def scan(pages: list[Page]) -> dict[str, Scanned]:
    """Every page read by the MDX parser, by path (from the cache where it can be)."""
    found = nodejobs.answers(MDX_SCAN, [{"path": p.path, "text": p.text} for p in pages])
    out = {}
    for page in pages:
        try:
            out[page.path] = _from(found[page.path])
        except (KeyError, TypeError, ValueError):
            raise runner.ToolFailure("mdx", f"unexpected answer for {page.path}", FIX) from None
    return out
