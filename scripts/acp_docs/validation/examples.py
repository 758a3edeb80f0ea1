"""Declared JSON blocks of the docs, checked against the merged schemas into findings.

Every `json` block declares what it is in its Material code-block title, which
the reader sees too:

- `title="SessionUpdate (v1, v2)"`: a payload of that definition, in each version;
- `title="JSON-RPC session/update (v1)"`: a whole message, dispatched by `method`;
- `title="Invalid SessionUpdate (v2): no list"`: a counter-example that the
  schema rejects and a receiver rejects too, with the reason after the colon;
- `title="Lenient SessionUpdate (v2): empty text"`: a counter-example that the
  schema rejects but a receiver keeps, dropping the annotated bad value;
- `title="Not a payload: ..."`: shown for reading only, not validated.

A member of a payload object that no schema names is reported too
(`examples/unknown-property`): the schemas accept it, but it is most often a
typo a receiver silently ignores.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_docs.core import forkmap, protocols
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.markdown import limits as mdlimits
from acp_docs.markdown.blocks import (
    PLAIN_MARK,
    CodeBlock,
    Renderer,
    locate,
    plain_blocks,
    rendered_blocks,
)
from acp_docs.sources import filetree, jsonparse, jsonplaces
from acp_docs.sources.textfile import UnreadableFile, read_text
from acp_docs.validation import causes
from acp_docs.validation.schemaset import DispatchError, SchemaSet, define_method_hint

CHECK = "examples"
JSON_LANGS = frozenset({"json"})
NOT_A_PAYLOAD = "Not a payload"
DECLARATION_HELP = (
    'declare it with a title: title="SessionUpdate (v1, v2)", title="JSON-RPC session/update'
    ' (v1)", title="Invalid SessionUpdate (v2): why a receiver rejects it", title="Lenient'
    ' SessionUpdate (v2): what a receiver drops" or title="Not a payload: what it is"'
)

MAX_TITLE = 300


def page_versions(path: str) -> tuple[str, ...] | None:
    """The protocol versions every example of the page at `path` is about (None: any): an RFD
    of `rfds/<folder>/` (a version's `rfds_folder`) is about that version alone."""
    parts = path.split("/")
    version = protocols.folders().get(parts[1]) if len(parts) == 3 and parts[0] == "rfds" else None
    return (version,) if version else None


def with_versions(title: str, versions: tuple[str, ...]) -> str:
    """A declaration without `(versions)` given them: `SessionUpdate` -> `SessionUpdate (v2)`."""
    head, colon, reason = title.partition(":")
    if "(" in head or head.strip().startswith(NOT_A_PAYLOAD.rstrip(":")):
        return title
    return f"{head.rstrip()} ({', '.join(versions)}){colon}{reason}"


_JSON_CLASS = re.compile("|".join(f"language-{lang}" for lang in JSON_LANGS), re.I)
_DEFINITION = re.compile(r"[A-Z][A-Za-z0-9]*")
_VERSION = re.compile(r"v[0-9]{1,3}")


def _split_declaration(title: str) -> tuple[str, str, list[str], str | None] | None:
    """(kind, subject, versions, reason) of `[Invalid|Lenient] SUBJECT (v1, v2): reason`."""
    kind = "valid"
    head = title
    for word in ("Invalid", "Lenient"):
        if head.startswith(word) and head[len(word) : len(word) + 1].isspace():
            kind, head = word.lower(), head[len(word) :].lstrip()
    opening = head.find("(")
    closing = head.find(")", opening + 1)
    if opening < 0 or closing < 0:
        return None
    subject = head[:opening].strip()
    versions = [v.strip() for v in head[opening + 1 : closing].split(",")]
    rest = head[closing + 1 :].strip()
    if rest and not rest.startswith(":"):
        return None
    reason = rest[1:].strip() or None if rest else None
    json_rpc = subject == "JSON-RPC" or (subject.startswith("JSON-RPC") and subject[8].isspace())
    if not (json_rpc and "(" not in subject) and not _DEFINITION.fullmatch(subject):
        return None
    if not all(_VERSION.fullmatch(v) for v in versions):
        return None
    return kind, subject, versions, reason


@dataclass(frozen=True)
class Declaration:
    """What a block says it is."""

    definition: str | None
    protocols: tuple[str, ...]
    invalid: bool
    reason: str | None
    lenient: bool = False
    """A counter-example a receiver keeps, dropping the bad values (`Lenient ...`)."""

    @property
    def is_message(self) -> bool:
        """True for a whole JSON-RPC message (dispatched by `method`)."""
        return self.definition is None


def parse_declaration(title: str) -> Declaration | str:
    """The declaration in a code-block title, or why the title is not one."""
    title = title.strip()
    shown = title if len(title) <= 80 else title[:77] + "..."
    parts = _split_declaration(title) if len(title) <= MAX_TITLE else None
    if parts is None:
        return f"title {shown!r} is not a declaration; {DECLARATION_HELP}"
    kind, subject, names, reason = parts
    versions = tuple(dict.fromkeys(names))
    definition = None if subject.startswith("JSON-RPC") else subject
    if kind != "valid" and not reason:
        word = kind.capitalize()
        return f"counter-example {shown!r} must say why it fails: '{word} {subject} (...): why'"
    return Declaration(definition, versions, kind != "valid", reason, kind == "lenient")


@dataclass
class ExampleReport:
    """Findings, and how many payload checks ran per version."""

    findings: list[Finding] = field(default_factory=list)
    checked: Counter[str] = field(default_factory=Counter)
    counter_examples: int = 0
    not_payloads: int = 0
    blocks: int = 0

    def extend(self, other: ExampleReport) -> None:
        """Add another report's findings and counts to this one."""
        self.findings.extend(other.findings)
        self.checked.update(other.checked)
        self.counter_examples += other.counter_examples
        self.not_payloads += other.not_payloads
        self.blocks += other.blocks


def rfd_slug(path: str) -> str | None:
    """The slug of the RFD a file is (`rfds/<slug>.md`, `rfds/<folder>/<slug>.md`), else None."""
    parts = path.split("/")
    if parts[0] != "rfds" or not parts[-1].endswith(".md") or len(parts) > 3:
        return None
    if len(parts) == 3 and parts[1] not in protocols.folders():
        return None
    slug = parts[-1][: -len(".md")]
    return None if slug == "TEMPLATE" else slug


def dispatch_message(error: DispatchError, path: str, schemas: SchemaSet) -> str:
    """A dispatch error, with where to define the method when no message has it."""
    if error.method is None or error.kind is None:
        return str(error)
    slug = rfd_slug(path)
    known = schemas.source_files.get(slug) if slug else None
    source = known or (f"schema/{slug}/source.yaml" if slug else None)
    return f"{error}: {define_method_hint(error.method, error.kind, source, known is not None)}"


def _parse(block: CodeBlock) -> tuple[Any, tuple[int, int, str] | None]:
    try:
        return jsonparse.loads(block.content), None
    except jsonparse.JsonProblem as exc:
        col = exc.col + block.col - 1
        return None, (block.content_line + exc.line - 1, col, exc.message)


def check_block(block: CodeBlock, path: str, schemas: SchemaSet) -> ExampleReport:
    """Check one code block (any language; only `json` blocks are examples)."""
    report = ExampleReport()
    if block.lang not in JSON_LANGS:
        return report
    report.blocks = 1

    def find(rule: str, message: str, line: int = block.line, col: int = block.col) -> None:
        report.findings.append(Finding(path, line, col, CHECK, message, f"{CHECK}/{rule}"))

    if block.title is not None and block.title.strip().startswith(NOT_A_PAYLOAD):
        report.not_payloads = 1
        return report
    if block.title is None:
        find("undeclared", f"undeclared JSON block: {DECLARATION_HELP}")
        return report
    only = page_versions(path)
    title = block.title if only is None else with_versions(block.title, only)
    declaration = parse_declaration(title)
    if isinstance(declaration, str):
        find("bad-declaration", declaration)
        return report
    if only is not None and not set(declaration.protocols) <= set(only):
        others = ", ".join(v for v in declaration.protocols if v not in only)
        find(
            "wrong-version",
            f"this RFD changes {', '.join(only)} alone: an example of {others} does not belong"
            f" here (move the RFD out of {path.rsplit('/', 1)[0]}/ if it changes {others} too)",
        )
        return report
    if not block.closed:
        find("unclosed", "code block is never closed")
        return report
    payload, error = _parse(block)
    if error is not None:
        line, col, msg = error
        find("malformed-json", msg, line, col)
        return report
    if declaration.invalid:
        report.counter_examples = 1
    places = jsonplaces.positions(block.content)

    def at(pointer: str) -> tuple[int, int]:
        """A pointer of the payload as a place in the file: the member's own line."""
        line, col = jsonplaces.position_of(places, pointer)
        return block.content_line + line - 1, block.col + col - 1

    for protocol in declaration.protocols:
        name = declaration.definition
        if protocol not in schemas.versions:
            find("unknown-version", protocols.unknown(protocol))
            continue
        try:
            if name is None:
                outcome = schemas.check_message(protocol, payload)
            elif not schemas.has(protocol, name):
                find(
                    "unknown-definition",
                    f"[{protocol}] unknown definition {name!r}: no $defs/{name} in ACP {protocol}",
                )
                continue
            else:
                outcome = schemas.check(protocol, name, payload)
        except DispatchError as exc:
            find("dispatch", f"[{protocol} JSON-RPC] {dispatch_message(exc, path, schemas)}")
            continue
        except UsageError as exc:
            find("dispatch", f"[{protocol} JSON-RPC] {exc}")
            continue
        report.checked[protocol] += 1
        if declaration.invalid:
            for unknown in outcome.unknown:
                find("unknown-property", f"{outcome.label()} {unknown}", *at(unknown.pointer))
        if declaration.invalid and outcome.valid:
            find(
                "counter-example-passes",
                f"{outcome.label()} counter-example validates, but it should fail"
                f" ({declaration.reason})",
            )
        elif not declaration.invalid:
            for cause in causes.causes(outcome.problems, outcome.unknown):
                rule = "unknown-property" if cause.unknown else "invalid-payload"
                find(rule, f"{outcome.label()} {cause.message}", *at(cause.pointer))
        elif declaration.lenient and not outcome.kept:
            find(
                "counter-example-kind",
                f"{outcome.label()} a receiver rejects this message ({outcome.problems[0]}):"
                " declare it 'Invalid ...', not 'Lenient ...'",
            )
        elif not declaration.lenient and outcome.kept and outcome.verdict is not None:
            find(
                "counter-example-kind",
                f"{outcome.label()} {outcome.verdict.say()}: declare it 'Lenient ...',"
                " not 'Invalid ...'",
            )
    return report


@dataclass(frozen=True)
class Unusable:
    """A schema source that cannot be used: its file, its RFD, and the names it would define."""

    shown: str
    slug: str
    names: frozenset[str]


def unusable(source: Any) -> Unusable:
    """What a source that cannot be used would have brought: its definitions, tags, members."""
    names: set[str] = set()
    data = source.data if isinstance(getattr(source, "data", None), dict) else {}
    defined = data.get("definitions")
    names.update(n for n in (defined if isinstance(defined, dict) else ()) if isinstance(n, str))
    for change in data.get("changes") or []:
        if isinstance(change, dict):
            for key in ("tag", "property", "name", "fields", "definition"):
                if isinstance(change.get(key), str):
                    names.add(change[key])
    return Unusable(source.shown, source.slug, frozenset(names))


def held_back(
    found: list[Finding], path: str, causes: list[Unusable], owner: str | None = None
) -> list[Finding]:
    """A page's example findings, less those a schema source that cannot be used causes,
    which become one note: every example is judged by the schemas the sources make, so each
    such failure would only echo the source's own error (one finding per cause).

    A finding is the source's doing on a page of its own RFD (`owner`), or when it names
    something the source would define."""
    if not causes or not found:
        return found
    mine = [c for c in causes if c.slug == owner]

    def caused(finding: Finding) -> bool:
        return bool(mine) or any(
            re.search(rf"\b{re.escape(name)}\b", finding.message)
            for cause in causes
            for name in cause.names
        )

    echoes = [f for f in found if caused(f)]
    if not echoes:
        return found
    first = min(echoes)
    shown = " and ".join(sorted({c.shown for c in (mine or causes)}))
    message = (
        f"{len(echoes)} example problem(s) here not reported while {shown} cannot be used:"
        " examples are judged by the schemas it makes; fix it first"
    )
    note = Finding(path, first.line, first.col, CHECK, message, f"{CHECK}/held-back", "note")
    return [f for f in found if not caused(f)] + [note]


def check_rendered(text: str, html: str, path: str, schemas: SchemaSet) -> ExampleReport:
    """Check every block that `html`, the rendering of the Markdown `text`, shows."""
    report = ExampleReport()
    if html.startswith(PLAIN_MARK):
        shown = plain_blocks(html)
    elif _JSON_CLASS.search(html):
        shown = rendered_blocks(html)
    else:
        return report
    for block in locate(text, shown):
        report.extend(check_block(block, path, schemas))
    return report


def check_text(text: str, path: str, schemas: SchemaSet, render: Renderer) -> ExampleReport:
    """Render one Markdown text with the site's engine and check every block it shows."""
    return check_rendered(text, render(text), path, schemas)


def markdown_files(root: Path, targets: Iterable[Path]) -> list[Path]:
    """The Markdown files named, folders searched recursively, in a stable order."""
    files: list[Path] = []
    for target in targets:
        path = target if target.is_absolute() else root / target
        if path.is_dir():
            found = []
            for current, dirs, names in os.walk(path, followlinks=False):
                dirs.sort()
                found += [Path(current, n) for n in names if n.endswith(".md")]
            files.extend(sorted(p for p in found if filetree.inside(root, p)))
        elif path.is_file():
            files.append(path)
        else:
            raise UsageError(f"{target}: no such file or directory")
    return list(dict.fromkeys(files))


def check_files(
    root: Path, files: Iterable[Path], schemas: SchemaSet, render: Renderer
) -> ExampleReport:
    """Check every block of the given Markdown files; unreadable files are findings.

    Many files are shared out among forked workers (see `core.forkmap`); the
    report is the same, in the same order, as when one process checks them all.
    """
    paths = list(files)
    report = ExampleReport()
    for part in forkmap.ordered_map(
        lambda i: check_file(root, paths[i], schemas, render), len(paths)
    ):
        report.extend(part)
    return report


def check_file(root: Path, path: Path, schemas: SchemaSet, render: Renderer) -> ExampleReport:
    """Check every block of one Markdown file; an unreadable or too complex file is a finding."""
    report = ExampleReport()
    shown = path.resolve().relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    try:
        text = read_text(path, shown)
    except UnreadableFile as exc:
        report.findings.append(
            Finding(shown, exc.line, 1, CHECK, exc.reason, f"{CHECK}/unreadable")
        )
        return report
    too_much = mdlimits.hazard(text)
    if too_much is not None:
        where = (too_much.line, too_much.col)
        report.findings.append(
            Finding(shown, *where, CHECK, too_much.message, f"{CHECK}/too-complex")
        )
        return report
    return check_text(text, shown, schemas, render)
