"""An RFD as the pull request the upstream ACP repository expects: Mintlify MDX and a nav entry.

`docs/rfds/<slug>.mdx` gets title-only front matter, no H1, the `Author(s):` and
`Champion:` lines, content tabs of code as `<CodeGroup>`, admonitions as
Mintlify callouts, code-block titles as fence titles, links to this site made
absolute, and the demo marker as a sentence with a link. `docs/docs.json`, when
there is one, gets the RFD under the group of its status, edited in place.
Whatever cannot be converted is a finding at its line, and nothing is written.
What was written is then held to the upstream check (`acp-docs check
--upstream`), as upstream's maintainers would hold the pull request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from acp_docs.authoring.docsjson import nav_entry
from acp_docs.authoring.mdx import CHECK, convert, live_code
from acp_docs.config.repo import Repo
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.markdown import rawhtml
from acp_docs.rfds.model import STATUSES, Rfd, front_matter_validator, lint_one
from acp_docs.sources.textfile import linked_folder, read_text, unwritable, write_atomic
from acp_docs.upstream import check as upstream
from acp_docs.upstream import prettier

UPSTREAM_GROUPS = {
    "draft": "Draft",
    "active": "Active",
    "preview": "Preview",
    "completed": "Completed",
}


@dataclass
class Exported:
    """What an export wrote, left alone, or found."""

    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    page: str = ""
    """The page's path from the target (`docs/rfds/<slug>.mdx`), once converted."""


def export(
    repo: Repo, rfd: Rfd, target: Path, force: bool = False, folder: str | None = None
) -> Exported:
    """Write the upstream pull request of `rfd` into `target`; nothing when it cannot convert.

    An RFD about one version alone goes where upstream keeps them: `folder` is that
    version's `rfds_folder`, so the page is `docs/rfds/<folder>/<slug>.mdx`, in the
    nested `<folder>` group of its status group.
    """
    result = Exported()
    # Front matter becomes links and YAML in the export: it must pass the RFD
    # lint (handles, title, status) before any of it is written anywhere.
    result.findings = lint_one(rfd, front_matter_validator(repo), rawhtml.Reader(repo.config))
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
    page = f"rfds/{folder}/{rfd.slug}" if folder else f"rfds/{rfd.slug}"
    mdx_path = target / "docs" / f"{page}.mdx"
    result.page = f"docs/{page}.mdx"
    mdx = prettier.formatted({f"{rfd.slug}.mdx": conversion.text})[f"{rfd.slug}.mdx"]
    result.findings = live_code(rfd, conversion, mdx)
    if result.findings:
        return result
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
    if docs_json.is_symlink() or linked_folder(docs_json, target) is not None:
        raise UsageError(f"{docs_json}: a symbolic link on the way; refusing to read through it")
    if docs_json.is_file():
        before = read_text(docs_json, "docs/docs.json")
        after = nav_entry(before, (group, folder) if folder else (group,), page)
        if after != before:
            # A file Prettier keeps as it is stays so: the new entry laid out as Prettier would.
            laid_out = prettier.formatted({"docs.json": before, "after/docs.json": after})
            if laid_out["docs.json"] == before and json.loads(laid_out["after/docs.json"]) == (
                json.loads(after)
            ):
                after = laid_out["after/docs.json"]
        if after == before:
            result.unchanged.append(docs_json)
        else:
            writes.append((docs_json, after))
    else:
        result.notes.append("no docs/docs.json in the target: add the nav entry by hand")
    for path, _text in writes:  # refused before anything is written: all or nothing
        refused = unwritable(path, target)
        if refused is not None:
            raise UsageError(f"{path}: {refused}")
    for path, text in writes:
        write_atomic(path, text, within=target)
        result.written.append(path)
    if not (rfd.meta or {}).get("champion"):
        result.notes.append(
            "no champion yet: upstream merges a Draft once a core team member champions it"
        )
    return result


def check_written(target: Path, page: str) -> tuple[list[Finding], list[str]]:
    """The upstream check of the tree the export wrote into: findings on `page`, and notes.

    The whole tree is read (links and anchors need every page), but only what
    is found in the exported page is the export's to answer for; a check that
    could not run is a note.
    """
    found: list[Finding] = []
    notes: list[str] = []
    for result in upstream.run(target, only=frozenset({page})):
        if result.error:
            notes.append(f"{result.name} could not check the export: {result.error}")
        found += [f for f in result.findings if f.path == page]
    return found, notes


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
