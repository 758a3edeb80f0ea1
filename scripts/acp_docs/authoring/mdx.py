"""An RFD as Mintlify MDX, the form the upstream ACP repository publishes its RFDs in.

Title-only front matter, no H1, the `Author(s):` and `Champion:` lines, content
tabs of code as `<CodeGroup>`, admonitions as Mintlify callouts, code-block
titles as fence titles, links to this site made absolute, and the demo marker
as a sentence with a link. Whatever cannot be converted is a finding at its line.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from acp_docs.config.repo import Repo
from acp_docs.core import protocols
from acp_docs.core.escaping import code_spans
from acp_docs.core.findings import Finding
from acp_docs.markdown.blocks import CodeBlock, code_blocks, front_matter_end
from acp_docs.markdown.markers import match_line
from acp_docs.rfds.model import Rfd

CHECK = "export"
UPSTREAM_SITE = "https://agentclientprotocol.com"
CALLOUTS = {
    "note": "Note",
    "abstract": "Note",
    "info": "Info",
    "tip": "Tip",
    "success": "Check",
    "question": "Info",
    "warning": "Warning",
    "failure": "Warning",
    "danger": "Warning",
    "bug": "Warning",
    "example": "Note",
    "quote": "Note",
}
"""Material admonition kinds and the Mintlify callout each becomes."""

_TAB = re.compile(r'^=== "(?P<label>[^"]*)"\s*$')
_ADMONITION = re.compile(r'^(?:!!!|\?\?\?\+?) (?P<kind>[a-z]+)(?: "(?P<title>[^"]*)")?\s*$')
_LINK = re.compile(r"\]\((?P<target>[^()\s]+)\)")
_BRACE = re.compile(r"(?<!\\)(?:\\\\)*[{}]")
"""A brace no backslash escapes (after an even number of backslashes, escaped in pairs)."""
_ESM = re.compile(r"\s*(?:import|export)\b")
"""A line MDX reads as JavaScript (an ES module statement), not as prose."""


def rfd_page(path: str) -> str | None:
    """The upstream page (`<slug>`, `<folder>/<slug>`) of a path to another RFD, or None.

    An RFD is `rfds/<slug>.md`, or `rfds/<folder>/<slug>.md` for a version's
    folder of RFDs about it alone (`protocols.ProtocolVersion.rfds_folder`).
    """
    folders = {v.rfds_folder for v in protocols.VERSIONS.values() if v.rfds_folder}
    parts = path.split("/")
    if parts[0] != "rfds" or len(parts[-1]) <= len(".md") or not parts[-1].endswith(".md"):
        return None
    if len(parts) == 2 or (len(parts) == 3 and parts[1] in folders):
        return path[len("rfds/") : -len(".md")]
    return None


@dataclass
class Conversion:
    """The MDX text of one RFD, or the findings that stop it."""

    text: str = ""
    findings: list[Finding] = field(default_factory=list)
    origins: list[tuple[str, int]] = field(default_factory=list)
    """Each line of `text` (before Prettier), with the line of the RFD it came from."""

    def origin(self, line: str) -> int:
        """The RFD's line that the MDX line `line` came from (1 when none matches)."""
        stripped = line.strip()
        return next((at for made, at in self.origins if made.strip() == stripped), 1)


class _Converter:
    def __init__(self, repo: Repo, rfd: Rfd) -> None:
        self.repo = repo
        self.rfd = rfd
        self.lines = rfd.text.split("\n")
        self.blocks = {b.line: b for b in code_blocks(rfd.text)}
        self.out: list[str] = []
        self.at: list[int] = []
        """The RFD's line each line of `out` comes from."""
        self.findings: list[Finding] = []
        site = str(repo.config.get("site_url") or "")
        self.site = site if site.startswith("https://") else ""

    def emit(self, lines: list[str], line: int) -> None:
        """Add `lines` to the page, as coming from the RFD's line `line`."""
        self.out += lines
        self.at += [line] * len(lines)

    def problem(self, line: int, message: str) -> None:
        self.findings.append(
            Finding(self.rfd.shown, line, 1, CHECK, message, f"{CHECK}/unconvertible")
        )

    def fence(self, block: CodeBlock, title: str | None = None) -> list[str]:
        name = title if title is not None else block.title
        # Longer than any run of backticks inside, so no line of the block can close it.
        longest = max((len(run) for run in re.findall(r"`+", block.content)), default=0)
        ticks = "`" * max(3, longest + 1)
        head = f"{ticks}{block.lang} {name}".rstrip() if name else f"{ticks}{block.lang}"
        return [head, *block.content.rstrip("\n").split("\n"), ticks]

    def link(self, target: str, line: int) -> str:
        scheme, netloc, path, _query, anchor = urlsplit(target)
        if scheme or netloc or not path:
            return target
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(self.rfd.docs_path), path))
        suffix = f"#{anchor}" if anchor else ""
        upstream_page = rfd_page(resolved)
        if upstream_page and not (self.repo.docs_dir / resolved).is_file():
            return f"{UPSTREAM_SITE}/rfds/{upstream_page}{suffix}"
        if not self.site:
            self.problem(
                line,
                f"link {target!r} points into this site, whose site_url is unknown:"
                " set ACP_DOCS_SITE_URL to the address the site is published at",
            )
            return target
        if resolved.endswith("index.md"):
            page = resolved[: -len("index.md")]
        elif resolved.endswith(".md"):
            page = resolved[:-3] + "/"
        else:
            page = resolved
        return self.site.rstrip("/") + "/" + page + suffix

    def prose(self, text: str, line: int) -> str:
        if _ESM.match(text):
            self.problem(line, "a line that starts with import or export is module code in MDX")
        if "{:" in text or re.search(r"\{\s*[#.][\w-]", text):
            self.problem(line, "attribute lists ({: ...}, {#id}) have no MDX equivalent")
        pieces, last = [], 0
        for start, end in code_spans(text):
            pieces.append(self._escape(text[last:start], line))
            pieces.append(text[start:end])
            last = end
        pieces.append(self._escape(text[last:], line))
        return "".join(pieces)

    def _escape(self, text: str, line: int) -> str:
        text = _LINK.sub(lambda m: f"]({self.link(m['target'], line)})", text)
        if "<" in text:
            self.problem(line, "raw HTML or an autolink has no safe MDX form here; use Markdown")
        return _BRACE.sub(lambda m: m.group(0)[:-1] + "\\" + m.group(0)[-1], text)

    def indented(self, start: int) -> tuple[list[tuple[int, str]], int]:
        """The 4-space-indented body after line `start` (0-based), de-indented."""
        body: list[tuple[int, str]] = []
        index = start + 1
        while index < len(self.lines):
            line = self.lines[index]
            if line.strip() and not line.startswith("    "):
                break
            body.append((index + 1, line[4:] if line.startswith("    ") else ""))
            index += 1
        while body and not body[-1][1].strip():
            body.pop()
        return body, index

    def tabs(self, start: int) -> int:
        index = start
        fences: list[str] = []
        while index < len(self.lines) and _TAB.match(self.lines[index]):
            tab_line = index + 1
            body, index = self.indented(index)
            content = [(n, text) for n, text in body if text.strip()]
            block = self.blocks.get(content[0][0]) if content else None
            if block is None or content[-1][0] != block.end_line:
                self.problem(
                    tab_line, "a content tab that holds more than one code block has no MDX form"
                )
                continue
            fences += ["", *self.fence(block)]
            while index < len(self.lines) and not self.lines[index].strip():
                if index + 1 < len(self.lines) and _TAB.match(self.lines[index + 1]):
                    index += 1
                    break
                index += 1
        self.emit(["<CodeGroup>", *fences, "", "</CodeGroup>", ""], start + 1)
        return index

    def admonition(self, start: int, kind: str, title: str | None) -> int:
        callout = CALLOUTS.get(kind)
        if callout is None:
            self.problem(start + 1, f"admonition kind {kind!r} has no Mintlify callout")
        body, index = self.indented(start)
        self.emit([f"<{callout or 'Note'}>", ""], start + 1)
        if title:
            self.emit([f"**{self.prose(title, start + 1)}**", ""], start + 1)
        skip_to = 0
        for number, text in body:
            if number <= skip_to:
                continue
            block = self.blocks.get(number)
            if block is not None:
                self.emit(self.fence(block), number)
                skip_to = block.end_line
            else:
                self.emit([self.prose(text, number)], number)
        self.emit(["", f"</{callout or 'Note'}>", ""], start + 1)
        return index

    def marker(self, line: int, name: str, args: list[str]) -> None:
        if name == "demo" and args:
            page = f"{self.site.rstrip('/')}/{self.rfd.docs_path[:-3]}/" if self.site else ""
            if not page:
                self.problem(
                    line,
                    "the demo marker needs the site's site_url to link to the demo:"
                    " set ACP_DOCS_SITE_URL to the address the site is published at",
                )
                return
            self.emit(
                [
                    "A live demo of these rules, a composer driven by the validated examples,"
                    f" is on [this RFD's page on the proposal site]({page}#shiny-future)."
                ],
                line,
            )
            return
        self.problem(line, f"marker acp-docs:{name} has no upstream form")

    def convert(self) -> Conversion:
        meta = self.rfd.meta or {}
        authors = ", ".join(f"[@{a}](https://github.com/{a})" for a in meta.get("authors") or [])
        emit = self.emit
        emit(["---", f"title: {json.dumps(self.rfd.title, ensure_ascii=False)}", "---", ""], 1)
        emit([f"Author(s): {authors}"], 1)
        if meta.get("champion"):
            champion = meta["champion"]
            emit(["", f"Champion: [@{champion}](https://github.com/{champion})"], 1)
        emit([""], 1)
        index = front_matter_end(self.lines)
        dropped_title = False
        while index < len(self.lines):
            line = self.lines[index]
            number = index + 1
            block = self.blocks.get(number)
            if block is not None:
                pad = " " * (block.col - 1)
                emit([pad + part if part else part for part in self.fence(block)], number)
                index = block.end_line
                continue
            if not dropped_title and line.startswith("# "):
                dropped_title = True
                index += 1
                while index < len(self.lines) and not self.lines[index].strip():
                    index += 1
                continue
            if _TAB.match(line):
                index = self.tabs(index)
                continue
            admonition = _ADMONITION.match(line)
            if admonition:
                index = self.admonition(index, admonition["kind"], admonition["title"])
                continue
            if line.startswith("///"):
                self.problem(number, "pymdownx blocks (///) have no MDX form; use an admonition")
            marker = match_line(line)
            if marker is not None and marker.closed:
                self.marker(number, marker.name, marker.args.split())
            else:
                emit([self.prose(line, number)], number)
            index += 1
        kept: list[tuple[str, int]] = []
        for made, at in zip(self.out, self.at, strict=True):
            if made or (kept and kept[-1][0]):  # no two blank lines in a row
                kept.append((made, at))
        while kept and not kept[-1][0]:
            kept.pop()
        text = "\n".join(made for made, _ in kept) + "\n"
        return Conversion(text, self.findings, kept)


def convert(repo: Repo, rfd: Rfd) -> Conversion:
    """The MDX text of an RFD for upstream, or the findings that stop it."""
    if rfd.meta is None:
        return Conversion("", [rfd.meta_error] if rfd.meta_error else [])
    return _Converter(repo, rfd).convert()


OWN_COMPONENTS = frozenset({"CodeGroup", *CALLOUTS.values()})
"""The components an export writes itself, each without attributes."""
_LIVE = {
    "mdxFlowExpression": "a JavaScript expression",
    "mdxTextExpression": "a JavaScript expression",
    "mdxjsEsm": "an ES module statement",
}


def live_code(rfd: Rfd, conversion: Conversion, text: str) -> list[Finding]:
    """What MDX itself would run in the exported page `text` that the export did not write:
    each expression, module statement or component at the RFD's line it came from.

    The export escapes what it reads as prose; this holds the result to the parse of
    the pinned MDX (`upstream.scan`), the parser that renders it, so a line the
    export misread is a finding, never live code on the upstream site.
    """
    from acp_docs.upstream import scan
    from acp_docs.upstream.tree import Page

    page = f"{rfd.slug}.mdx"
    scanned = scan.scan([Page(page, page, text)])[page]
    lines = text.split("\n")

    def at(line: int) -> int:
        return conversion.origin(lines[line - 1]) if 0 < line <= len(lines) else 1

    if scanned.error is not None:
        message = f"the exported page does not parse as MDX: {scanned.error}"
        return [Finding(rfd.shown, at(scanned.line), 1, CHECK, message, f"{CHECK}/not-mdx")]
    out = []
    for live in scanned.live:
        own = live.kind == "mdxJsxFlowElement" and live.name in OWN_COMPONENTS
        if (own and not live.attributes) or live.comment:
            continue
        what = _LIVE.get(live.kind) or f"the component <{live.name or ''}>"
        message = (
            f"MDX reads {what} here, which runs when the upstream page renders: write it"
            " in inline code or as Markdown (the export writes no code into a page)"
        )
        out.append(Finding(rfd.shown, at(live.line), 1, CHECK, message, f"{CHECK}/live-code"))
    return out
