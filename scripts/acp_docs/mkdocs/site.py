"""What the site build generates: RFD tables, download and fixture lists, the published files."""

from __future__ import annotations

import hashlib
import html
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeGuard
from urllib.parse import quote

from acp_docs.core import cachedir, memo, protocols
from acp_docs.core.errors import UsageError
from acp_docs.core.escaping import literal, text_with_code
from acp_docs.requirements.model import RequirementSet
from acp_docs.rfds.model import STATUSES, Rfd, revisions
from acp_docs.schema import fragments, merge
from acp_docs.schema.source import SchemaSource
from acp_docs.sources import filetree
from acp_docs.sources.textfile import load_json, read_text
from acp_docs.sources.yamlfile import load as load_yaml
from acp_docs.validation.payloads import fixture_files
from acp_docs.validation.schemaset import SchemaSet


def prefix_of(from_page: str) -> str:
    """The relative prefix from a docs page back to the docs root."""
    return "../" * from_page.count("/")


def rfd_table(rfds: list[Rfd], from_page: str, status: str | None = None) -> str:
    """A Markdown table of RFDs (all, or one status), linked relative to `from_page`."""
    chosen = [r for r in rfds if r.meta and (status is None or r.status == status)]
    prefix = prefix_of(from_page)
    if not chosen:
        if status is None:
            return "*No RFD has been proposed yet.*\n"
        label = STATUSES.get(status, status)
        return (
            f"*No RFD is in {literal(label)} at the moment.* The [list of RFDs]"
            f"({prefix}rfds/index.md) shows where each one is.\n"
        )
    rows = [
        "| RFD | Status | Protocol | Authors | Champion | Created |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for rfd in sorted(chosen, key=lambda r: (str((r.meta or {}).get("created", "")), r.title)):
        meta = rfd.meta or {}
        authors = ", ".join(literal(f"@{a}") for a in meta.get("authors") or [])
        champion = literal(f"@{meta['champion']}") if meta.get("champion") else "none yet"
        label = literal(STATUSES.get(rfd.status or "", str(rfd.status)))
        link = quote(f"{prefix}{rfd.docs_path}")
        about = ", ".join(rfd.versions or protocols.NAMES)
        rows.append(
            f"| [{literal(rfd.title)}]({link}) | {label} | {about}"
            f" | {authors}"
            f" | {champion} | {literal(str(meta.get('created', '')))} |"
        )
    return "\n".join(rows) + "\n"


def recent_changes(rfds: list[Rfd], from_page: str, limit: int = 8) -> str:
    """The latest dated entries of every RFD's revision history, newest first, as a list."""
    entries = [(rev, rfd) for rfd in rfds if rfd.meta for rev in revisions(rfd)]
    if not entries:
        return "*No RFD has a revision history yet.*\n"
    entries.sort(key=lambda pair: (pair[0].date, pair[1].title, pair[0].line), reverse=True)
    prefix = prefix_of(from_page)
    rows = []
    for rev, rfd in entries[:limit]:
        text = text_with_code(rev.text) if len(rev.text) <= 400 else literal(rev.text[:397] + "...")
        link = quote(f"{prefix}{rfd.docs_path}") + "#revision-history"
        rows.append(f"- **{rev.date.isoformat()}**, [{literal(rfd.title)}]({link}): {text}")
    return "\n".join(rows) + "\n"


@dataclass(frozen=True)
class Download:
    """A merged schema the site publishes: where, what, and what it was built from."""

    path: str
    content: str
    version: str
    channel: str
    provenance: dict[str, Any]


def merged_downloads(root: Path, sources: list[SchemaSource], schemas: SchemaSet) -> list[Download]:
    """Each version's stable and unstable base with their RFDs merged, as published.

    The unstable one is the validation set's own merge (`SchemaSet.from_sources`),
    so each base is merged once per build.
    """
    out = []
    for name in schemas.versions:
        version = protocols.get(name)
        made = [fragments.contribution(s, name) for s in sources if name in s.versions]
        for channel in protocols.CHANNELS:
            if channel == "unstable":
                schema = schemas.schemas[name]
            else:
                schema = merge.merged(root, version, made, channel, meta_check=False)
            out.append(
                Download(
                    version.base_files[channel],
                    json.dumps(schema, indent=2, ensure_ascii=False) + "\n",
                    name,
                    channel,
                    schema[merge.PROVENANCE_KEY],
                )
            )
    return out


def _well_formed(data: Any) -> TypeGuard[list[dict[str, Any]]]:
    """True for kept downloads as `kept_downloads` writes them (a cache file may hold anything)."""
    fields = {"path": str, "content": str, "version": str, "channel": str, "provenance": dict}
    return isinstance(data, list) and all(
        isinstance(item, dict)
        and item.keys() == fields.keys()
        and all(isinstance(item[name], kind) for name, kind in fields.items())
        for item in data
    )


def kept_downloads(root: Path, sources: list[SchemaSource], schemas: SchemaSet) -> list[Download]:
    """`merged_downloads`, kept in the cache folder by what they are made of.

    The key is the content of every input (each schema source, each pinned base,
    the SDK's package.json), the sources' names and versions, and the engine's
    own code: the same inputs in another checkout, or in the next `acp-docs
    check`, give the same bytes without merging and writing them again.
    """
    inputs = [s.path for s in sources] + merge.base_inputs(root)
    key = hashlib.sha256(
        repr(
            (
                [(s.slug, s.shown, s.channel, tuple(s.versions)) for s in sources],
                memo.digest_of(inputs, root),
                memo.engine_digest(),
            )
        ).encode()
    ).hexdigest()
    folder = cachedir.cache_dir("downloads")
    data = folder.read_json(f"{key}.json") if folder else None
    if _well_formed(data):
        return [Download(**item) for item in data]
    made = merged_downloads(root, sources, schemas)
    if folder is not None:
        folder.write_json(f"{key}.json", [asdict(d) for d in made])
        folder.keep_latest(8, ".json")
    return made


def download_table(
    root: Path, sources: list[SchemaSource], downloads: list[Download], from_page: str
) -> str:
    """A table of every merged schema (its base and the RFDs in it) and every fragment."""
    prefix = prefix_of(from_page)
    rows = [
        "| Version | Merged schema | Built from | RFDs merged in |",
        "| --- | --- | --- | --- |",
    ]
    for item in downloads:
        label = f"{item.version} {'stable' if item.channel == 'stable' else 'unstable'} schema"
        link = f"[{label}]({prefix}{quote(item.path)})"
        rfds = ", ".join(literal(r["rfd"]) for r in item.provenance["rfds"]) or "none"
        base = f"`{literal(item.provenance['base'])}`"
        rows.append(f"| {item.version} | {link} | {base} | {rfds} |")
    rows += ["", "| RFD | Fragments (what the RFD adds) |", "| --- | --- |"]
    for source in sources:
        paths = [fragments.fragment_path(source, v).relative_to(root) for v in source.versions]
        links = [
            f"[{literal(source.slug)} {version}]({prefix}{quote(path.as_posix())})"
            for version, path in zip(source.versions, paths, strict=True)
        ]
        rows.append(f"| {literal(source.slug)} | {', '.join(links)} |")
    return "\n".join(rows) + "\n"


def fixture_list(root: Path, versions: tuple[str, ...], from_page: str) -> str:
    """Markdown lists of every fixture file, linked to the published copies."""
    prefix = prefix_of(from_page)
    out: list[str] = []
    for version in versions:
        out += [f"### {version}", ""]
        for kind, files in fixture_files(root, version).items():
            out += [f"**{kind.capitalize()}** ({len(files)} files)", ""]
            for path in files:
                rel = path.relative_to(root).as_posix()
                out.append(f"- [`{path.name}`]({prefix}{rel})")
            out.append("")
    return "\n".join(out)


DEMO_FILE = "demo.yaml"


@dataclass(frozen=True)
class DemoData:
    """An RFD's demo: its title, the text shown without JavaScript, the Agent's examples."""

    title: str
    fallback: str
    examples: list[dict[str, Any]]


_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_VALID_FIXTURE = re.compile(
    r"examples/(?P<version>[a-z0-9]{1,8})/valid/[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.json"
)
"""A demo sends only fixtures the examples check holds valid: of a protocol version it
checks fixtures of (`protocols.NAMES`)."""


def _inside(root: Path, shown: str) -> Path:
    """`root / shown`, refused unless it is a regular file inside the checkout (no link out)."""
    path = root / shown
    if path.is_symlink() or not filetree.inside(root, path):
        raise UsageError(f"{shown}: no such file in the checkout (links are not followed)")
    return path


def _demo_data(root: Path, slug: str) -> DemoData:
    if not _SLUG.fullmatch(slug):
        raise UsageError(f"demo {slug!r}: name an RFD by its slug (kebab-case)")
    shown = f"schema/{slug}/{DEMO_FILE}"
    data = load_yaml(read_text(_inside(root, shown), shown), shown)
    entries = data.get("examples") if isinstance(data, dict) else None
    title = data.get("title") if isinstance(data, dict) else None
    fallback = data.get("fallback") if isinstance(data, dict) else None
    if (
        not isinstance(title, str)
        or not isinstance(fallback, str)
        or not isinstance(entries, list)
        or not entries
    ):
        raise UsageError(
            f"{shown}:1:1: expected `title:`, `fallback:` (the text shown without JavaScript)"
            " and `examples:`, a list of name, label and fixture"
        )
    examples = []
    for entry in entries:
        if not isinstance(entry, dict) or set(entry) != {"name", "label", "fixture"}:
            raise UsageError(f"{shown}:1:1: each example has exactly name, label and fixture")
        fixture = str(entry["fixture"])
        named = _VALID_FIXTURE.fullmatch(fixture)
        if named is None or named["version"] not in protocols.NAMES:
            raise UsageError(
                f"{shown}:1:1: fixture {fixture!r} is not a valid fixture: name one of"
                " schema/examples/<version>/valid/, which the examples check validates"
            )
        update = load_json(_inside(root, f"schema/{fixture}"), f"schema/{fixture}")
        examples.append(
            {"name": str(entry["name"]), "label": str(entry["label"]), "update": update}
        )
    return DemoData(title, fallback, examples)


def demo(root: Path, slug: str) -> str:
    """The HTML root of an RFD's live demo, carrying the example payloads it sends.

    The examples come from `schema/<slug>/demo.yaml`, which names validated
    fixtures, so the demo shows real payloads.
    """
    data = _demo_data(root, slug)
    payload = html.escape(json.dumps(data.examples, ensure_ascii=False), quote=True)
    title = html.escape(data.title, quote=True)
    # The examples ride in an attribute, not a <script>: Material's instant
    # navigation re-creates (and runs) scripts found in the page content.
    # The fallback text is what a reader without JavaScript sees; the script replaces it.
    return (
        f'<div class="acp-demo" data-acp-demo="{html.escape(slug, quote=True)}" role="region"'
        f' aria-label="{title}" data-acp-demo-examples="{payload}">'
        f'<p class="acp-demo__fallback">{html.escape(data.fallback.strip())}</p></div>\n'
    )


def wire_rules_table(src: str, sets: list[RequirementSet]) -> str:
    """A table of every requirement judged on the wire, as `acp-docs trace` checks them, for
    the page `src`.

    A requirement's citation names the RFD's file in the checkout
    (`rfds/<slug>.md#anchor`), which is also the RFD's path in the site: it is
    made relative to `src`.
    """
    rows = ["| Requirement | Versions | What the RFD says |", "| --- | --- | --- |"]
    for reqs in sets:
        for req in reqs.requirements:
            if req.judged is not None:
                link = prefix_of(src) + req.citation
                versions = ", ".join(req.versions)
                rows.append(f"| `{req.id}` | {versions} | [{literal(req.text)}]({link}) |")
    return "\n".join(rows) + "\n"


_JUDGED = {
    "always": "on the wire, in every scenario that runs it.",
    "offer": "on the wire when the Agent offers something it is about; SKIPPED otherwise.",
}


def requirement_tables(src: str, sets: list[RequirementSet], titles: dict[str, str]) -> str:
    """Each RFD's requirements, a table a tier, with their citations, for the page `src`."""
    from acp_docs.requirements.model import TIERS

    if not sets:
        return "*No RFD has requirements yet.*\n"
    out = []
    for reqs in sets:
        title = literal(titles.get(reqs.slug, reqs.slug))
        out.append(f"**[{title}]({prefix_of(src)}{reqs.rfd})**, from `{reqs.shown}`:\n")
        for tier in TIERS:
            chosen = [r for r in reqs.requirements if r.tier == tier]
            if not chosen:
                continue
            out.append(f"*{tier}*\n")
            for req in sorted(chosen, key=lambda r: r.party != "agent"):
                who = f"{req.party.capitalize()}; {', '.join(req.versions)}"
                judged = (
                    f"Judged {_JUDGED[req.judged]}"
                    if req.judged
                    else f"Not on the wire: {literal(req.untested or '')}"
                )
                gates = "; ".join(f"{v}: `{g}`" for v, g in req.capability.items())
                if gates:
                    judged += f" Gated on {gates}."
                link = prefix_of(src) + req.citation
                out.append(f"- `{req.id}` ({who}): [{literal(req.text)}]({link}) {judged}")
            out.append("")
        out.extend(_scenario_list(reqs.slug))
    return "\n".join(out) + "\n"


def _scenario_list(slug: str) -> list[str]:
    """The scenarios `acp-docs conform` drives an Agent through for the RFD `slug`."""
    from acp_docs.conform.scenario import registered
    from acp_docs.core import protocols

    conformance = registered().get(slug)
    if conformance is None:
        return ["No scenario drives a live Agent through these requirements yet.", ""]
    out = ["The scenarios of `acp-docs conform`, each with a fresh Agent:", ""]
    for scenario in conformance.scenarios:
        versions = ", ".join(v.name for v in protocols.VERSIONS.values() if scenario.holds(v))
        out.append(f"- `{scenario.name}` ({versions}): {literal(scenario.title)}.")
    return [*out, ""]
