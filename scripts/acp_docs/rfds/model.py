"""RFDs: front matter and sections read from rfds/, and the lint rules they must pass."""

from __future__ import annotations

import datetime as dt
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing.exceptions import Unresolvable

from acp_docs.core import protocols
from acp_docs.core.errors import LocatedError
from acp_docs.core.escaping import code_spans
from acp_docs.core.findings import Finding
from acp_docs.core.repo import Repo
from acp_docs.markdown.blocks import Heading, code_lines, front_matter_end, headings
from acp_docs.policy import titles
from acp_docs.schema.source import SchemaSource
from acp_docs.schema.source import load_all as load_sources
from acp_docs.sources import filetree
from acp_docs.sources.textfile import UnreadableFile, load_json, read_text
from acp_docs.sources.yamlfile import YamlError
from acp_docs.sources.yamlfile import load as load_yaml
from acp_docs.validation import schemacheck

CHECK = "rfds"
TEMPLATE_NAME = "TEMPLATE.md"
V2_DIR = "v2"
"""RFDs of protocol v2 only live in rfds/v2/, as upstream keeps them in docs/rfds/v2/."""
FRONT_MATTER_SCHEMA = "schema/rfd-front-matter.schema.json"

SECTIONS = (
    "Elevator pitch",
    "Status quo",
    "What we propose to do about it",
    "Shiny future",
    "Implementation details and plan",
    "Frequently asked questions",
    "Revision history",
)
FAQ, HISTORY = SECTIONS[5], SECTIONS[6]

PROMPTS = {
    "Elevator pitch": "What are you proposing to change?",
    "Status quo": (
        "How do things work today and what problems does this cause? Why would we change things?"
    ),
    "What we propose to do about it": "What are you proposing to improve the situation?",
    "Shiny future": "How will things will play out once this feature exists?",
    "Implementation details and plan": (
        "Tell me more about your implementation. What is your detailed implementation plan?"
    ),
    "Frequently asked questions": (
        "What questions have arisen over the course of authoring this document or during"
        " subsequent discussions?"
    ),
}
"""The `>` prompt line upstream's template keeps under each section, word for word."""

ALTERNATIVES = "What alternative approaches did you consider, and why did you settle on this one?"
"""The question upstream's template opens the FAQ with."""

ALWAYS = ("Elevator pitch", "Status quo")
"""The sections every RFD has from its first draft: upstream's RFDs may start minimal."""

REQUIRED_FROM = {
    "What we propose to do about it": "active",
    "Shiny future": "active",
    "Frequently asked questions": "active",
    "Implementation details and plan": "preview",
}
"""The status from which each of the other sections is required (optional before it).

Upstream's template marks "What we propose to do about it" and "Shiny future"
optional when an RFD is first opened, and "Implementation details and plan"
optional and not recommended then; its process lets a Draft start with the
elevator pitch and the status quo. The revision history stays optional.
"""

STATUSES = {
    "draft": "Draft",
    "active": "Active",
    "preview": "Preview",
    "completed": "Completed",
    "to-be-removed": "To be removed",
}
"""Front-matter status -> the navigation group under "RFDs" that must hold the RFD."""


_MATURITY = {"draft": 0, "to-be-removed": 0, "active": 1, "preview": 2, "completed": 3}
"""How far an RFD got: "To be removed" holds RFDs that landed as Drafts, so it asks no more."""


def required_sections(status: str | None) -> tuple[str, ...]:
    """The template sections an RFD of `status` must have, in template order."""
    rank = _MATURITY.get(status or "", 0)
    return tuple(
        name
        for name in SECTIONS
        if name in ALWAYS or (name in REQUIRED_FROM and rank >= _MATURITY[REQUIRED_FROM[name]])
    )


def status_page(status: str) -> str:
    """The docs page that lists the RFDs of one status: the index of its navigation group."""
    return f"rfds/{status}/index.md"


NAV_SECTION = "RFDs"
_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\.md$")
_DATED = re.compile(r"^\s*[-*]\s+\**(\d{4}-\d{2}-\d{2})\**\b")


@dataclass
class Rfd:
    """An RFD file: its path, front matter (None when absent or broken), body lines."""

    path: Path
    shown: str
    text: str
    meta: dict[str, Any] | None
    meta_error: Finding | None

    @property
    def slug(self) -> str:
        """The file name without `.md`: the page's URL segment."""
        return self.path.stem

    @property
    def v2_only(self) -> bool:
        """True for an RFD of rfds/v2/: it changes protocol v2 alone."""
        return self.path.parent.name == V2_DIR

    @property
    def versions(self) -> tuple[str, ...] | None:
        """The protocol versions the RFD is about: ("v2",) for rfds/v2/, else None (any)."""
        return (V2_DIR,) if self.v2_only else None

    @property
    def docs_path(self) -> str:
        """The path of the page in the site (as the nav names it): its path in the checkout."""
        return f"rfds/{V2_DIR}/{self.path.name}" if self.v2_only else f"rfds/{self.path.name}"

    @property
    def title(self) -> str:
        """The front-matter title, or the file name when there is none."""
        return str((self.meta or {}).get("title") or self.slug)

    @property
    def status(self) -> str | None:
        """The front-matter status, if any."""
        value = (self.meta or {}).get("status")
        return value if isinstance(value, str) else None

    def headings(self) -> list[Heading]:
        """The headings of the body."""
        return headings(self.text)


def _normalise(value: Any) -> Any:
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _normalise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


def parse_front_matter(text: str, shown: str) -> tuple[dict[str, Any] | None, Finding | None]:
    """The YAML front matter of a Markdown text, or the finding that says what is wrong."""
    lines = text.split("\n")
    end = front_matter_end(lines)
    if end == 0:
        return None, Finding(
            shown, 1, 1, CHECK, "missing YAML front matter (a '---' block)", "rfds/front-matter"
        )
    try:
        meta = load_yaml("\n".join(lines[1 : end - 1]), shown, first_line=2)
    except YamlError as exc:
        return None, Finding(
            shown,
            exc.line,
            exc.col,
            CHECK,
            f"malformed YAML front matter: {exc.problem}",
            "rfds/front-matter",
        )
    if not isinstance(meta, dict):
        return None, Finding(
            shown, 1, 1, CHECK, "front matter is not a YAML mapping", "rfds/front-matter"
        )
    return _normalise(meta), None


def load(repo: Repo, path: Path) -> Rfd:
    """Read one RFD; unreadable bytes become a front-matter finding, never an exception."""
    shown = repo.relative(path)
    try:
        text = read_text(path, shown)
    except UnreadableFile as exc:
        unreadable = Finding(shown, exc.line, 1, CHECK, exc.reason, "rfds/unreadable")
        return Rfd(path, shown, "", None, unreadable)
    meta, error = parse_front_matter(text, shown)
    return Rfd(path, shown, text, meta, error)


def _rfd_folders(repo: Repo) -> list[Path]:
    return [
        folder
        for folder in (repo.rfds_dir, repo.rfds_dir / V2_DIR)
        if folder.is_dir() and not folder.is_symlink()
    ]


def rfd_files(repo: Repo) -> list[Path]:
    """Every RFD source (the template excluded): rfds/*.md, then rfds/v2/*.md, by name.

    Only regular files inside the checkout whose names are UTF-8; `odd_entries`
    reports the others.
    """
    found: list[Path] = []
    for folder in _rfd_folders(repo):
        found.extend(
            sorted(
                p
                for p in folder.glob("*.md")
                if p.name != TEMPLATE_NAME
                and filetree.decodable(p.name)
                and filetree.inside(repo.root, p)
            )
        )
    return found


def odd_entries(repo: Repo) -> list[Finding]:
    """An entry of rfds/ or rfds/v2/ that looks like an RFD but is not one a build can read.

    A name that is not UTF-8, or a `*.md` that is a folder, would otherwise be
    skipped in silence.
    """
    out = []
    for folder in _rfd_folders(repo):
        for path in sorted(folder.iterdir()):
            shown = filetree.shown(os.path.relpath(path, repo.root))
            if not filetree.decodable(path.name):
                reason, rule = "the file name is not UTF-8: rename it", "rfds/file-name"
            elif path.suffix == ".md" and path.is_dir() and not path.is_symlink():
                reason = "is a folder, not an RFD: an RFD is one Markdown file; rename or remove it"
                rule = "rfds/not-a-file"
            else:
                continue
            out.append(Finding(shown, 1, 1, CHECK, reason, rule))
    return out


def load_all(repo: Repo) -> list[Rfd]:
    """Every RFD of the repository."""
    return [load(repo, path) for path in rfd_files(repo)]


def schema_sources(repo: Repo, loaded: list[Rfd] | None = None) -> list[SchemaSource]:
    """Every RFD's schema source, each with the base its RFD's status decides."""
    statuses = {rfd.slug: rfd.status for rfd in (load_all(repo) if loaded is None else loaded)}
    return [
        replace(source, channel=protocols.channel_of(statuses.get(source.slug)))
        for source in load_sources(repo.root, repo.schema_dir)
    ]


def front_matter_validator(repo: Repo) -> Any:
    """The validator of the front-matter schema kept in the repository.

    A UsageError (naming the file) when the schema is not valid JSON Schema,
    references anything outside itself, or uses a pattern RE2 cannot run.
    """
    path = repo.root / FRONT_MATTER_SCHEMA
    schema = load_json(path, FRONT_MATTER_SCHEMA)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise LocatedError(FRONT_MATTER_SCHEMA, 1, 1, f"not a JSON Schema: {exc.message}") from None
    for where, reason in schemacheck.problems(schema):
        raise LocatedError(FRONT_MATTER_SCHEMA, 1, 1, f"at {where or '/'}: {reason}")
    return schemacheck.validator(schema)


def _meta_line(rfd: Rfd, key: str) -> int:
    for number, line in enumerate(rfd.text.split("\n")[:60], start=1):
        if line.startswith(f"{key}:"):
            return number
    return 1


def lint_one(rfd: Rfd, validator: Draft202012Validator) -> list[Finding]:
    """The rules one RFD must pass on its own."""
    out: list[Finding] = []

    def find(line: int, message: str, rule: str) -> None:
        out.append(Finding(rfd.shown, line, 1, CHECK, message, f"{CHECK}/{rule}"))

    if not _KEBAB.match(rfd.path.name):
        find(
            1,
            f"file name {rfd.path.name!r} is not kebab-case (like session-labels.md)",
            "file-name",
        )
    if rfd.meta_error is not None:
        out.append(rfd.meta_error)
    else:
        try:
            errors = sorted(validator.iter_errors(rfd.meta), key=lambda e: [str(p) for p in e.path])
        except Unresolvable as exc:
            raise LocatedError(FRONT_MATTER_SCHEMA, 1, 1, f"cannot resolve {exc}") from None
        for error in errors:
            key = str(error.path[0]) if error.path else ""
            where = f"front matter `{key}`" if key else "front matter"
            line = _meta_line(rfd, key) if key else 1
            find(line, f"{where}: {error.message}", "front-matter")
        created = rfd.meta.get("created")
        if not errors and isinstance(created, str):
            try:
                dt.date.fromisoformat(created)
            except ValueError:
                find(
                    _meta_line(rfd, "created"),
                    f"front matter `created`: {created} is not a date",
                    "front-matter",
                )
    if not rfd.text:
        return out
    out.extend(_lint_sections(rfd))
    out.extend(_lint_html(rfd))
    return out


ALLOWED_HTML = ("br", "kbd", "sub", "sup", "details", "summary")
"""The HTML elements an RFD body may use; everything else is written in Markdown."""
_TAG = re.compile(r"<(?P<close>/?)(?P<name>[A-Za-z][A-Za-z0-9-]{0,40})(?=[\s/>]|$)")
_AUTOLINK = re.compile(r"<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>@]+)>")
_MARKER_LINE = re.compile(r"^[ ]{0,3}<!--[ \t]*acp-docs:[a-z-]+[^\n]*-->[ \t]*$")


def _lint_html(rfd: Rfd) -> list[Finding]:
    """Raw HTML outside code: only the allowed elements and acp-docs markers."""
    out: list[Finding] = []
    lines = rfd.text.split("\n")
    hidden = set(range(1, front_matter_end(lines) + 1)) | code_lines(rfd.text)
    allowed = ", ".join(f"<{name}>" for name in ALLOWED_HTML)
    for number, line in enumerate(lines, start=1):
        if number in hidden or "<" not in line:
            continue
        if _MARKER_LINE.match(line):
            continue
        visible = list(line)
        for start, end in code_spans(line):
            visible[start:end] = " " * (end - start)
        text = _AUTOLINK.sub(lambda m: " " * len(m.group(0)), "".join(visible))
        problem = None
        if "<!--" in text:
            problem = (
                text.index("<!--"),
                "an HTML comment (only acp-docs markers, alone on a line)",
            )
        else:
            for tag in _TAG.finditer(text):
                if tag["name"].lower() not in ALLOWED_HTML:
                    problem = (tag.start(), f"raw HTML <{tag['close']}{tag['name']}>")
                    break
        if problem is not None:
            col, what = problem
            out.append(
                Finding(
                    rfd.shown,
                    number,
                    col + 1,
                    CHECK,
                    f"{what} is not allowed in an RFD: write it in Markdown (allowed: {allowed})",
                    "rfds/raw-html",
                )
            )
    return out


def _lint_sections(rfd: Rfd) -> list[Finding]:
    out: list[Finding] = []
    heads = rfd.headings()
    h2 = [h for h in heads if h.level == 2]
    positions: dict[str, Heading] = {}
    for head in h2:
        if head.text in SECTIONS and head.text not in positions:
            positions[head.text] = head
    status = rfd.status or "draft"
    for name in required_sections(status):
        if name not in positions:
            since = (
                "every RFD has it"
                if name in ALWAYS
                else f"required from {STATUSES[REQUIRED_FROM[name]]} on"
            )
            out.append(
                Finding(
                    rfd.shown,
                    1,
                    1,
                    CHECK,
                    f"missing template section '## {name}' ({since}; this RFD is"
                    f" {STATUSES.get(status, status)})",
                    "rfds/missing-section",
                )
            )
    present = [h for h in h2 if h.text in SECTIONS]
    expected = [s for s in SECTIONS if s in positions]
    for head, want in zip(present, expected, strict=False):
        if head.text != want:
            out.append(
                Finding(
                    rfd.shown,
                    head.line,
                    1,
                    CHECK,
                    f"section '{head.text}' is out of order: the template puts '{want}' here",
                    "rfds/section-order",
                )
            )
            break
    lines = rfd.text.split("\n")
    for name, prompt in PROMPTS.items():
        if name in positions:
            out.extend(_lint_prompt(rfd, positions[name], prompt, lines))
    if FAQ in positions:
        out.extend(_lint_faq(rfd, heads, positions[FAQ], lines))
    if HISTORY in positions:
        out.extend(_lint_history(rfd, heads, positions[HISTORY], lines))
    return out


def _lint_prompt(rfd: Rfd, head: Heading, prompt: str, lines: list[str]) -> list[Finding]:
    following = next((ln.strip() for ln in lines[head.line :] if ln.strip()), "")
    if following == f"> {prompt}":
        return []
    return [
        Finding(
            rfd.shown,
            head.line + 1,
            1,
            CHECK,
            f"the template's prompt must open '## {head.text}': add the line '> {prompt}'",
            "rfds/prompt",
        )
    ]


def _section_lines(heads: list[Heading], start: Heading, total: int) -> range:
    later = [h.line for h in heads if h.line > start.line and h.level <= start.level]
    return range(start.line + 1, (later[0] if later else total + 1))


def _lint_faq(rfd: Rfd, heads: list[Heading], faq: Heading, lines: list[str]) -> list[Finding]:
    out: list[Finding] = []
    span = _section_lines(heads, faq, len(lines))
    questions = [h for h in heads if h.line in span and h.level == 3]
    past_draft = (rfd.status or "draft") != "draft"
    if questions and past_draft and not any(q.text == ALTERNATIVES for q in questions):
        out.append(
            Finding(
                rfd.shown,
                faq.line,
                1,
                CHECK,
                f"past Draft, the FAQ answers '### {ALTERNATIVES}', the question the upstream"
                " template opens it with",
                "rfds/alternatives",
            )
        )
    if not questions and past_draft:
        out.append(
            Finding(
                rfd.shown,
                faq.line,
                1,
                CHECK,
                "the FAQ has no question: give each a '###'",
                "rfds/faq",
            )
        )
    in_code = code_lines(rfd.text)
    for number in span:
        line = lines[number - 1]
        if number in in_code or line.startswith("#") or not line.strip():
            continue
        stripped = line.strip()
        bold_question = stripped.startswith(("**", "__")) and stripped.rstrip("*_ ").endswith("?")
        if bold_question or stripped.startswith(("Q:", "**Q:")):
            out.append(
                Finding(
                    rfd.shown,
                    number,
                    1,
                    CHECK,
                    "FAQ question written as a paragraph: make it a '###' heading so it gets"
                    " an anchor",
                    "rfds/faq",
                )
            )
    return out


@dataclass(frozen=True)
class Revision:
    """One dated entry of an RFD's revision history."""

    date: dt.date
    text: str
    line: int


def revisions(rfd: Rfd) -> list[Revision]:
    """The dated entries of the RFD's revision history, as written (continuation lines joined)."""
    heads = rfd.headings()
    history = next((h for h in heads if h.level == 2 and h.text == HISTORY), None)
    if history is None:
        return []
    lines = rfd.text.split("\n")
    out: list[Revision] = []
    for number, line, match in _history_lines(lines, _section_lines(heads, history, len(lines))):
        if match:
            try:
                day = dt.date.fromisoformat(match.group(1))
            except ValueError:
                continue
            text = line[match.end() :].lstrip("*: ").strip()
            out.append(Revision(day, text, number))
        elif out and line.startswith((" ", "\t")) and line.strip():
            last = out[-1]
            out[-1] = Revision(last.date, f"{last.text} {line.strip()}", last.line)
    return out


def _history_lines(
    lines: list[str], span: range
) -> Iterator[tuple[int, str, re.Match[str] | None]]:
    """Each line of a revision history: its number, its text, and its date's match if dated."""
    for number in span:
        line = lines[number - 1]
        yield number, line, _DATED.match(line)


def _lint_history(rfd: Rfd, heads: list[Heading], head: Heading, lines: list[str]) -> list[Finding]:
    span = _section_lines(heads, head, len(lines))
    for number, _line, match in _history_lines(lines, span):
        if match:
            try:
                dt.date.fromisoformat(match.group(1))
            except ValueError:
                return [
                    Finding(
                        rfd.shown,
                        number,
                        1,
                        CHECK,
                        f"{match.group(1)} is not a date",
                        "rfds/revision-history",
                    )
                ]
            return []
    return [
        Finding(
            rfd.shown,
            head.line,
            1,
            CHECK,
            "the revision history has no dated entry: '- 2026-01-31: what changed'",
            "rfds/revision-history",
        )
    ]


def nav_group(group: str, v2_only: bool) -> tuple[str, ...]:
    """The navigation sections that hold an RFD: RFDs > its status group, and > v2 for a v2 RFD.

    Upstream nests its v2 RFDs the same way, in a "v2" group of the status group.
    """
    return (NAV_SECTION, group, V2_DIR) if v2_only else (NAV_SECTION, group)


def lint_nav(repo: Repo, rfds: list[Rfd]) -> list[Finding]:
    """Across files: each RFD in the nav once, in its status group; no dangling entries."""
    out: list[Finding] = []
    nav = repo.nav()
    for entry in nav:
        source = repo.source_of(entry.file)
        if not filetree.within(repo.root, source) or entry.file.startswith("/"):
            problem = f"navigation entry {entry.file!r} leads out of the checkout"
        elif not any(filetree.within(d, source) for d in (repo.docs_dir, repo.rfds_dir)):
            problem = f"navigation entry {entry.file!r} leads out of docs/ and rfds/"
        elif source.is_dir():
            problem = f"navigation entry {entry.file!r} points at a folder, not a page"
        elif not filetree.inside(repo.root, source):
            problem = f"navigation entry {entry.file!r} points at a missing file"
        else:
            continue
        out.append(Finding("mkdocs.yml", entry.line, 1, CHECK, problem, "rfds/nav-missing-file"))
    for rfd in rfds:
        places = [e for e in nav if e.file == rfd.docs_path]
        if not places:
            group = STATUSES.get(rfd.status or "", "its status group")
            where = " > ".join(nav_group(group, rfd.v2_only))
            out.append(
                Finding(
                    rfd.shown,
                    1,
                    1,
                    CHECK,
                    f"RFD is missing from the mkdocs.yml navigation: add it under {where}",
                    "rfds/not-in-nav",
                )
            )
            continue
        for extra in places[1:]:
            out.append(
                Finding(
                    "mkdocs.yml",
                    extra.line,
                    1,
                    CHECK,
                    f"{rfd.docs_path} is listed twice",
                    "rfds/nav-duplicate",
                )
            )
        group = STATUSES.get(rfd.status or "")
        where = places[0]
        expected = nav_group(group, rfd.v2_only) if group is not None else None
        if expected is not None and where.sections != expected:
            shown = " > ".join(where.sections) or "the top level"
            out.append(
                Finding(
                    "mkdocs.yml",
                    where.line,
                    1,
                    CHECK,
                    f"{rfd.docs_path} has status {rfd.status!r} but sits under {shown};"
                    f" move it under {' > '.join(expected)}",
                    "rfds/nav-group",
                )
            )
    slugs = Counter(r.slug for r in rfds)
    for rfd in rfds:
        if slugs[rfd.slug] > 1 and rfd.v2_only:
            out.append(
                Finding(
                    rfd.shown,
                    1,
                    1,
                    CHECK,
                    f"rfds/{rfd.slug}.md has the same name: an RFD's name is its schema"
                    f" folder (schema/{rfd.slug}/), so rename one",
                    "rfds/duplicate-slug",
                )
            )
    counted = Counter(r.title for r in rfds if r.meta)
    for rfd in rfds:
        if rfd.meta and counted[rfd.title] > 1:
            out.append(
                Finding(
                    rfd.shown,
                    _meta_line(rfd, "title"),
                    1,
                    CHECK,
                    f"another RFD has the same title {rfd.title!r}",
                    "rfds/duplicate-title",
                )
            )
    out.extend(
        titles.check(
            [titles.TitleAt(r.shown, _meta_line(r, "title"), r.title) for r in rfds if r.meta]
        )
    )
    return out


def lint(repo: Repo, rfds: list[Rfd] | None = None) -> list[Finding]:
    """Every RFD rule over the repository (`rfds`: already loaded, else read here)."""
    rfds = load_all(repo) if rfds is None else rfds
    validator = front_matter_validator(repo)
    findings: list[Finding] = []
    for rfd in rfds:
        findings.extend(lint_one(rfd, validator))
    findings.extend(lint_nav(repo, rfds))
    findings.extend(odd_entries(repo))
    return sorted(findings)
