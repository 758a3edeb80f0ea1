"""The RFD lint: every rule an RFD and the navigation must pass, and the package's public names.

The rules of one file are here (its name, front matter, raw HTML) or in
`sections` (template sections, FAQ, revision history); the rules across files
(navigation, duplicates) are in `lint_nav`. `files` reads RFDs, `template`
holds what upstream's template asks; their names are importable from here.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator
from referencing.exceptions import Unresolvable

from acp_docs.config.repo import Repo
from acp_docs.core import budget
from acp_docs.core.errors import LocatedError
from acp_docs.core.findings import Finding
from acp_docs.markdown import limits as mdlimits
from acp_docs.markdown import markers, rawhtml
from acp_docs.policy import titles
from acp_docs.requirements.model import RequirementSet
from acp_docs.requirements.model import files_of as requirement_files
from acp_docs.requirements.model import parse as parse_requirements
from acp_docs.rfds.files import (
    Rfd,
    load,
    load_all,
    meta_line,
    odd_entries,
    parse_front_matter,
    rfd_files,
    schema_sources,
)
from acp_docs.rfds.placeholders import lint as lint_placeholders
from acp_docs.rfds.placeholders import template_paragraphs
from acp_docs.rfds.sections import Revision, lint_sections, revisions
from acp_docs.rfds.template import (
    ALTERNATIVES,
    ALWAYS,
    CHECK,
    FAQ,
    FRONT_MATTER_SCHEMA,
    HISTORY,
    NAV_SECTION,
    PROMPTS,
    REQUIRED_FROM,
    SECTIONS,
    STATUSES,
    TEMPLATE_NAME,
    nav_group,
    required_sections,
    status_page,
)
from acp_docs.schemalib import schemacheck
from acp_docs.sources import filetree
from acp_docs.sources.textfile import load_json, read_text

__all__ = [
    "ALLOWED_HTML",
    "ALTERNATIVES",
    "ALWAYS",
    "CHECK",
    "FAQ",
    "FRONT_MATTER_SCHEMA",
    "HISTORY",
    "NAV_SECTION",
    "PROMPTS",
    "REQUIRED_FROM",
    "SECTIONS",
    "STATUSES",
    "TEMPLATE_NAME",
    "Revision",
    "Rfd",
    "front_matter_validator",
    "lint",
    "lint_nav",
    "lint_one",
    "load",
    "load_all",
    "nav_group",
    "odd_entries",
    "parse_front_matter",
    "required_sections",
    "revisions",
    "rfd_files",
    "schema_sources",
    "status_page",
]

_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\.md$")


def front_matter_validator(repo: Repo) -> Validator:
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


def lint_one(
    rfd: Rfd,
    validator: Validator,
    read_html: rawhtml.Reader,
    requirements: RequirementSet | None = None,
) -> list[Finding]:
    """The rules one RFD must pass on its own (`read_html`: the site's reading of raw HTML),
    and its link with its `requirements` when it has them."""
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
    elif rfd.meta is not None:  # always, when it has no error (`files.parse_front_matter`)
        try:
            errors = sorted(validator.iter_errors(rfd.meta), key=lambda e: [str(p) for p in e.path])
        except Unresolvable as exc:
            raise LocatedError(FRONT_MATTER_SCHEMA, 1, 1, f"cannot resolve {exc}") from None
        for error in errors:
            key = str(error.path[0]) if error.path else ""
            where = f"front matter `{key}`" if key else "front matter"
            line = meta_line(rfd, key) if key else 1
            find(line, f"{where}: {error.message}", "front-matter")
        created = rfd.meta.get("created")
        if not errors and isinstance(created, str):
            try:
                dt.date.fromisoformat(created)
            except ValueError:
                find(
                    meta_line(rfd, "created"),
                    f"front matter `created`: {created} is not a date",
                    "front-matter",
                )
    if not rfd.text:
        return out
    out.extend(lint_sections(rfd))
    reading = _read(rfd, read_html)
    if reading is None:
        return out
    if isinstance(reading, Finding):
        return [*out, reading]
    out.extend(_lint_html(rfd, reading.html))
    if requirements is not None:
        from acp_docs.requirements import binding
        from acp_docs.requirements.rules import checks

        anchors = binding.heading_anchors(rfd.text, reading.anchors)
        ids = [name for name in checks() if name.startswith(f"{requirements.slug}/")]
        out.extend(binding.lint(rfd.text, rfd.shown, requirements, anchors, ids))
    return out


def _read(rfd: Rfd, read_html: rawhtml.Reader) -> rawhtml.Reading | Finding | None:
    """The site engine's reading of the RFD, or the finding that it was too slow to read;
    None for an RFD the build refuses to render (its `build/too-complex` finding says why),
    which is not read at all."""
    if mdlimits.hazard(rfd.text) is not None:
        return None
    try:
        with budget.limited(rfd.shown):
            return read_html.read(rfd.text)
    except budget.OutOfTime as stopped:
        if stopped.what != rfd.shown:
            raise
        message = (
            f"reading the RFD's Markdown took more than {stopped.seconds:g} s, and was stopped:"
            " it holds input made to be slow for Markdown"
        )
        return Finding(rfd.shown, 1, 1, CHECK, message, "rfds/too-slow")


ALLOWED_HTML = ("br", "kbd", "sub", "sup", "details", "summary")
"""The HTML elements an RFD body may use; everything else is written in Markdown."""
_TAG = re.compile(r"<(?P<close>/?)(?P<name>[A-Za-z][A-Za-z0-9-]{0,40})(?=[\s/>]|$)")
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)


def _lint_html(rfd: Rfd, pieces: list[rawhtml.RawHtml]) -> list[Finding]:
    """Raw HTML, as the site's Markdown engine takes it (`pieces`): only the allowed
    elements, and acp-docs markers alone on their line."""
    out: list[Finding] = []
    lines = rfd.text.split("\n")
    allowed = ", ".join(f"<{name}>" for name in ALLOWED_HTML)
    said: set[int] = set()
    for piece in pieces:
        source = lines[piece.line - 1] if piece.line <= len(lines) else ""
        problem, needle = None, ""
        for comment in _COMMENT.finditer(piece.text):
            marker = markers.match_line(source)
            if marker is None or not marker.closed or comment.group(0).strip() != source.strip():
                problem, needle = "an HTML comment (only acp-docs markers, alone on a line)", "<!--"
                break
        if problem is None:
            for tag in _TAG.finditer(_COMMENT.sub(" ", piece.text)):
                if tag["name"].lower() not in ALLOWED_HTML:
                    problem = f"raw HTML <{tag['close']}{tag['name']}>"
                    needle = f"<{tag['close']}{tag['name']}"
                    break
        if problem is None or piece.line in said:
            continue
        said.add(piece.line)
        col = source.find(needle) + 1 if needle in source else 1
        message = f"{problem} is not allowed in an RFD: write it in Markdown (allowed: {allowed})"
        out.append(Finding(rfd.shown, piece.line, col, CHECK, message, "rfds/raw-html"))
    return out


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
            where = " > ".join(nav_group(group, rfd.folder))
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
        status_group = STATUSES.get(rfd.status or "")
        first = places[0]
        expected = nav_group(status_group, rfd.folder) if status_group is not None else None
        if expected is not None and first.sections != expected:
            shown = " > ".join(first.sections) or "the top level"
            out.append(
                Finding(
                    "mkdocs.yml",
                    first.line,
                    1,
                    CHECK,
                    f"{rfd.docs_path} has status {rfd.status!r} but sits under {shown};"
                    f" move it under {' > '.join(expected)}",
                    "rfds/nav-group",
                )
            )
    slugs = Counter(r.slug for r in rfds)
    for rfd in rfds:
        if slugs[rfd.slug] > 1 and rfd.folder:
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
                    meta_line(rfd, "title"),
                    1,
                    CHECK,
                    f"another RFD has the same title {rfd.title!r}",
                    "rfds/duplicate-title",
                )
            )
    out.extend(
        titles.check(
            [titles.TitleAt(r.shown, meta_line(r, "title"), r.title) for r in rfds if r.meta]
        )
    )
    return out


def _requirement_sets(
    repo: Repo, rfds: list[Rfd], findings: list[Finding]
) -> dict[str, RequirementSet]:
    """Each RFD's requirements by slug; a file that cannot be read is a finding at its line."""
    paths = {rfd.slug: rfd.shown for rfd in rfds}
    sets: dict[str, RequirementSet] = {}
    for slug, path, shown in requirement_files(repo):
        try:
            if slug not in paths:
                raise LocatedError(shown, 1, None, f"no RFD has the slug {slug!r}")
            sets[slug] = parse_requirements(read_text(path, shown), shown, slug, paths[slug])
        except LocatedError as exc:
            findings.append(
                Finding(exc.path, exc.line, exc.col, CHECK, exc.reason, f"{CHECK}/requirements")
            )
    return sets


def lint(repo: Repo, rfds: list[Rfd] | None = None) -> list[Finding]:
    """Every RFD rule over the repository (`rfds`: already loaded, else read here)."""
    rfds = load_all(repo) if rfds is None else rfds
    validator = front_matter_validator(repo)
    read_html = rawhtml.Reader(repo.config)
    placeholders = template_paragraphs(repo.rfds_dir)
    findings: list[Finding] = []
    sets = _requirement_sets(repo, rfds, findings)
    for rfd in rfds:
        findings.extend(lint_one(rfd, validator, read_html, sets.get(rfd.slug)))
        findings.extend(lint_placeholders(rfd, placeholders))
    findings.extend(lint_nav(repo, rfds))
    findings.extend(odd_entries(repo))
    return sorted(findings)
