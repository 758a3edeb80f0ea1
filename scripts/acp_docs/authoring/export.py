"""An RFD as the pull request the upstream ACP repository expects: Mintlify MDX and a nav entry.

`docs/rfds/<slug>.mdx` gets title-only front matter, no H1, the `Author(s):` and
`Champion:` lines, content tabs of code as `<CodeGroup>`, admonitions as
Mintlify callouts, code-block titles as fence titles, links to this site made
absolute, and the demo marker as a sentence with a link. `docs/docs.json`, when
there is one, gets the RFD under the group of its status, edited in place.
Whatever cannot be converted is a finding at its line, and nothing is written.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from acp_docs.checks import prettier
from acp_docs.core import runner
from acp_docs.core.errors import UsageError
from acp_docs.core.escaping import code_spans
from acp_docs.core.findings import Finding
from acp_docs.core.repo import Repo
from acp_docs.markdown.blocks import CodeBlock, code_blocks, front_matter_end
from acp_docs.rfds.model import STATUSES, Rfd, front_matter_validator, lint_one
from acp_docs.sources.textfile import read_text, write_atomic

CHECK = "export"
UPSTREAM_SITE = "https://agentclientprotocol.com"
_RFD_PAGE = re.compile(r"rfds/(?P<page>(?:v2/)?[^/]+)\.md")
"""A link to another RFD (of rfds/ or rfds/v2/): it points at its upstream page."""
UPSTREAM_GROUPS = {
    "draft": "Draft",
    "active": "Active",
    "preview": "Preview",
    "completed": "Completed",
}
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
_MARKER = re.compile(r"^<!--[ \t]*acp-docs:(?P<name>[a-z-]+)(?P<args>[^\n]*?)[ \t]*-->\s*$")
_LINK = re.compile(r"\]\((?P<target>[^()\s]+)\)")


@dataclass
class Conversion:
    """The MDX text of one RFD, or the findings that stop it."""

    text: str = ""
    findings: list[Finding] = field(default_factory=list)


class _Converter:
    def __init__(self, repo: Repo, rfd: Rfd) -> None:
        self.repo = repo
        self.rfd = rfd
        self.lines = rfd.text.split("\n")
        self.blocks = {b.line: b for b in code_blocks(rfd.text)}
        self.out: list[str] = []
        self.findings: list[Finding] = []
        site = str(repo.config.get("site_url") or "")
        self.site = site if site.startswith("https://") else ""

    def problem(self, line: int, message: str) -> None:
        self.findings.append(
            Finding(self.rfd.shown, line, 1, CHECK, message, f"{CHECK}/unconvertible")
        )

    def fence(self, block: CodeBlock, title: str | None = None) -> list[str]:
        name = title if title is not None else block.title
        head = f"```{block.lang} {name}".rstrip() if name else f"```{block.lang}"
        return [head, *block.content.rstrip("\n").split("\n"), "```"]

    def link(self, target: str, line: int) -> str:
        scheme, netloc, path, _query, anchor = urlsplit(target)
        if scheme or netloc or not path:
            return target
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(self.rfd.docs_path), path))
        suffix = f"#{anchor}" if anchor else ""
        rfd_page = _RFD_PAGE.fullmatch(resolved)
        if rfd_page and not (self.repo.docs_dir / resolved).is_file():
            return f"{UPSTREAM_SITE}/rfds/{rfd_page['page']}{suffix}"
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
        return text.replace("{", "\\{").replace("}", "\\}")

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
        self.out += ["<CodeGroup>", *fences, "", "</CodeGroup>", ""]
        return index

    def admonition(self, start: int, kind: str, title: str | None) -> int:
        callout = CALLOUTS.get(kind)
        if callout is None:
            self.problem(start + 1, f"admonition kind {kind!r} has no Mintlify callout")
        body, index = self.indented(start)
        inner: list[str] = [f"**{self.prose(title, start + 1)}**", ""] if title else []
        skip_to = 0
        for number, text in body:
            if number <= skip_to:
                continue
            block = self.blocks.get(number)
            if block is not None:
                inner += self.fence(block)
                skip_to = block.end_line
            else:
                inner.append(self.prose(text, number))
        self.out += [f"<{callout or 'Note'}>", "", *inner, "", f"</{callout or 'Note'}>", ""]
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
            self.out.append(
                f"A live demo of these rules, a composer driven by the validated examples, is on"
                f" [this RFD's page on the proposal site]({page}#shiny-future)."
            )
            return
        self.problem(line, f"marker acp-docs:{name} has no upstream form")

    def convert(self) -> Conversion:
        meta = self.rfd.meta or {}
        authors = ", ".join(f"[@{a}](https://github.com/{a})" for a in meta.get("authors") or [])
        out = self.out
        out += ["---", f"title: {json.dumps(self.rfd.title, ensure_ascii=False)}", "---", ""]
        out += [f"Author(s): {authors}"]
        if meta.get("champion"):
            champion = meta["champion"]
            out += ["", f"Champion: [@{champion}](https://github.com/{champion})"]
        out.append("")
        index = front_matter_end(self.lines)
        dropped_title = False
        while index < len(self.lines):
            line = self.lines[index]
            number = index + 1
            block = self.blocks.get(number)
            if block is not None:
                pad = " " * (block.col - 1)
                out += [pad + part if part else part for part in self.fence(block)]
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
            marker = _MARKER.match(line)
            if marker:
                self.marker(number, marker["name"], marker["args"].split())
            else:
                out.append(self.prose(line, number))
            index += 1
        text = "\n".join(out).rstrip("\n") + "\n"
        text = re.sub(r"\n{3,}", "\n\n", text)
        return Conversion(text, self.findings)


def convert(repo: Repo, rfd: Rfd) -> Conversion:
    """The MDX text of an RFD for upstream, or the findings that stop it."""
    if rfd.meta is None:
        return Conversion("", [rfd.meta_error] if rfd.meta_error else [])
    return _Converter(repo, rfd).convert()


def _prettier(repo: Repo, text: str, name: str) -> str:
    node = runner.require("node", "prettier", "install Node 20 or newer")
    script = repo.root / "node_modules" / "prettier" / "bin" / "prettier.cjs"
    if not script.is_file():
        raise runner.ToolFailure("prettier", "Prettier is not installed", "run `make setup`")
    done = runner.run(
        "prettier",
        [node, str(script), *prettier.NO_CONFIG, "--stdin-filepath", name],
        cwd=repo.root,
        fix="check the exported MDX",
        timeout=120,
        stdin=text,
    )
    return done.stdout


def _array_end(text: str, start: int) -> int:
    """The index of the `]` closing the array opened at `start`, strings skipped."""
    depth, index, in_string = 0, start, False
    while index < len(text):
        char = text[index]
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    raise UsageError("docs/docs.json: an array is never closed")


def _rfds_tab(data: object) -> dict[str, Any] | None:
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("tab") == "RFDs":
                return node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def _group(tab: dict[str, Any] | None, path: tuple[str, ...]) -> dict[str, Any] | None:
    node = tab
    for name in path:
        items = node.get("pages") if isinstance(node, dict) else None
        node = next(
            (i for i in items or [] if isinstance(i, dict) and i.get("group") == name), None
        )
    return node


def _pages(tab: dict[str, Any] | None) -> dict[tuple[str, ...], list[str]]:
    found: dict[tuple[str, ...], list[str]] = {}
    stack: list[tuple[tuple[str, ...], Any]] = [((), tab)]
    while stack:
        path, node = stack.pop()
        for item in (node or {}).get("pages") or []:
            if isinstance(item, str):
                found.setdefault(path, []).append(item)
            elif isinstance(item, dict) and isinstance(item.get("group"), str):
                stack.append(((*path, item["group"]), item))
    return found


def nav_entry(text: str, path: tuple[str, ...], page: str) -> str:
    """docs.json with `page` appended to the RFDs group at `path`, formatting kept."""
    data = json.loads(text)
    tab = _rfds_tab(data)
    shown = " > ".join(path)
    if _group(tab, path) is None:
        raise UsageError(f'docs/docs.json: the "RFDs" tab has no group {shown}')
    for where, pages in _pages(tab).items():
        if page in pages:
            if where == path:
                return text
            raise UsageError(f"docs/docs.json: {page} is under {' > '.join(where)}, not {shown}")
    position = text.find('"tab": "RFDs"')
    for name in path:
        position = text.find(f'"group": "{name}"', max(position, 0))
    opening = text.find("[", text.find('"pages"', position))
    closing = _array_end(text, opening)
    inside = text[opening + 1 : closing]
    if inside.strip():
        last = inside.rstrip()
        indent = re.search(r"\n([ \t]*)\S[^\n]*$", last)
        pad = indent.group(1) if indent else "  "
        updated = f'{text[: opening + 1]}{last},\n{pad}"{page}"{text[opening + 1 + len(last) :]}'
    else:
        line_start = text.rfind("\n", 0, opening) + 1
        base = re.match(r"[ \t]*", text[line_start:]).group(0)
        updated = f'{text[: opening + 1]}\n{base}  "{page}"\n{base}{text[closing:]}'
    expected = json.loads(text)
    target = _group(_rfds_tab(expected), path)
    assert target is not None
    target["pages"].append(page)
    if json.loads(updated) != expected:
        raise UsageError(f"docs/docs.json: could not add {page} under {shown}; add it by hand")
    return updated


@dataclass
class Exported:
    """What an export wrote, left alone, or found."""

    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def export(
    repo: Repo, rfd: Rfd, target: Path, force: bool = False, v2_only: bool = False
) -> Exported:
    """Write the upstream pull request of `rfd` into `target`; nothing when it cannot convert.

    A v2-only RFD goes where upstream keeps them: `docs/rfds/v2/`, and the nested
    "v2" group of its status group.
    """
    result = Exported()
    # Front matter becomes links and YAML in the export: it must pass the RFD
    # lint (handles, title, status) before any of it is written anywhere.
    result.findings = lint_one(rfd, front_matter_validator(repo))
    if result.findings:
        return result
    group = UPSTREAM_GROUPS.get(rfd.status or "")
    if group is None:
        label = STATUSES.get(rfd.status or "", rfd.status)
        result.findings.append(
            Finding(
                rfd.shown,
                1,
                1,
                CHECK,
                f"upstream has no group for status {label!r}",
                f"{CHECK}/status",
            )
        )
        return result
    conversion = convert(repo, rfd)
    if conversion.findings:
        result.findings = conversion.findings
        return result
    page = f"rfds/v2/{rfd.slug}" if v2_only else f"rfds/{rfd.slug}"
    mdx_path = target / "docs" / f"{page}.mdx"
    mdx = _prettier(repo, conversion.text, f"{rfd.slug}.mdx")
    writes: list[tuple[Path, str]] = []
    if mdx_path.is_file() and read_text(mdx_path, str(mdx_path)) == mdx:
        result.unchanged.append(mdx_path)
    elif mdx_path.exists() and not force:
        raise UsageError(
            f"{mdx_path}: exists and differs from this export; pass --force to replace it"
        )
    else:
        writes.append((mdx_path, mdx))
    docs_json = target / "docs" / "docs.json"
    if docs_json.is_file():
        before = read_text(docs_json, "docs/docs.json")
        after = nav_entry(before, (group, "v2") if v2_only else (group,), page)
        if after == before:
            result.unchanged.append(docs_json)
        else:
            writes.append((docs_json, after))
    else:
        result.notes.append("no docs/docs.json in the target: add the nav entry by hand")
    for path, text in writes:
        write_atomic(path, text)
        result.written.append(path)
    if not (rfd.meta or {}).get("champion"):
        result.notes.append(
            "no champion yet: upstream merges a Draft once a core team member champions it"
        )
    return result


def pull_request(rfd: Rfd, site: str) -> tuple[str, str]:
    """A suggested title and body for the upstream pull request."""
    title = f"docs(rfd): propose {rfd.title}"
    body = (
        f"Proposes the RFD \u201c{rfd.title}\u201d as a Draft.\n\n"
        "Docs only: the RFD and its navigation entry. Prettier (default options) is clean.\n"
        "The schema change, its merged schemas and conformance fixtures are published at"
        f" {site.rstrip('/')}/schema/ ; upstream generates its schema files from Rust types,"
        " so they are not part of this pull request."
    )
    return title, body
