"""What the site build adds: the RFD index, fixture lists, and the published schema files."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path

from acp_docs.payloads import fixture_files
from acp_docs.rfds import STATUSES, Rfd
from acp_docs.schema.source import PROTOCOLS
from acp_docs.validate import SchemaSet


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def rfd_table(rfds: list[Rfd], from_page: str, status: str | None = None) -> str:
    """A Markdown table of RFDs (all, or one status), linked relative to `from_page`."""
    chosen = [r for r in rfds if r.meta and (status is None or r.status == status)]
    if not chosen:
        label = STATUSES.get(status or "", "any status")
        return f"*No RFD is {label} yet.*\n"
    depth = from_page.count("/")
    prefix = "../" * depth
    rows = ["| RFD | Status | Authors | Champion | Created |", "| --- | --- | --- | --- | --- |"]
    for rfd in sorted(chosen, key=lambda r: (str(r.meta.get("created", "")), r.title)):
        meta = rfd.meta or {}
        authors = ", ".join(f"@{a}" for a in meta.get("authors") or [])
        champion = f"@{meta['champion']}" if meta.get("champion") else "none yet"
        label = STATUSES.get(rfd.status or "", str(rfd.status))
        rows.append(
            f"| [{_escape(rfd.title)}]({prefix}{rfd.docs_path}) | {label} | {authors}"
            f" | {champion} | {meta.get('created', '')} |"
        )
    return "\n".join(rows) + "\n"


@dataclass(frozen=True)
class Download:
    """A file the site publishes: its path in the site and its content."""

    path: str
    content: str


def merged_downloads(schemas: SchemaSet) -> list[Download]:
    """The merged schema of each version, as the site publishes it."""
    return [
        Download(
            f"schema/{protocol}/schema.json",
            json.dumps(schemas.schemas[protocol], indent=2, ensure_ascii=False) + "\n",
        )
        for protocol in PROTOCOLS
    ]


def fixture_list(root: Path, from_page: str) -> str:
    """Markdown lists of every fixture file, linked to the published copies."""
    prefix = "../" * from_page.count("/")
    out: list[str] = []
    for protocol in PROTOCOLS:
        out += [f"### {protocol}", ""]
        for kind, files in fixture_files(root, protocol).items():
            out += [f"**{kind.capitalize()}** ({len(files)} files)", ""]
            for path in files:
                rel = path.relative_to(root).as_posix()
                out.append(f"- [`{path.name}`]({prefix}{rel})")
            out.append("")
    return "\n".join(out)


DEMO_EXAMPLES = (
    ("one", "Offer one suggestion", "SessionUpdate.one-suggestion.json"),
    ("several", "Offer three suggestions", "SessionUpdate.several-suggestions.json"),
    ("empty", "Withdraw them (empty list)", "SessionUpdate.empty-list.json"),
)
"""The demo's Agent buttons: validated v1 and v2 fixtures, so the demo shows real payloads."""


def composer_demo(root: Path) -> str:
    """The HTML root of the composer demo, carrying the example updates it sends."""
    examples = []
    for name, label, file in DEMO_EXAMPLES:
        update = json.loads((root / "schema" / "examples" / "v1" / "valid" / file).read_text())
        examples.append({"name": name, "label": label, "update": update})
    payload = html.escape(json.dumps(examples, ensure_ascii=False), quote=True)
    title = html.escape("Try it: a composer that follows the Client rules")
    # The examples ride in an attribute, not a <script>: Material's instant
    # navigation re-creates (and runs) scripts found in the page content.
    return (
        f'<div class="acp-demo" data-acp-demo="prompt-suggestions" role="region"'
        f' aria-label="{title}" data-acp-demo-examples="{payload}"></div>\n'
    )
