"""The `<!-- acp-docs:name args -->` markers a page may hold, and the Markdown each becomes.

`REGISTRY` maps a marker's name to its handler; a handler gets the marker's
arguments, the page's path in the site and the build, and returns Markdown.
A handler that cannot make its section raises `UsageError`: the marker is
replaced by nothing and the reason is a `build/marker` finding at its line.
An unknown marker, or one given arguments it does not take, is a finding and
stays as written. Markers are found with `acp_docs.markdown.markers`, so the
plugin, the RFD lint and the export agree on what a marker is; one inside a
code block is text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from acp_docs.checks.registry import build_problem
from acp_docs.core import protocols
from acp_docs.core.errors import UsageError
from acp_docs.diagrams import fences
from acp_docs.markdown import prose
from acp_docs.markdown.blocks import code_lines
from acp_docs.markdown.markers import MARKER, Marker, parse
from acp_docs.mkdocs import site
from acp_docs.mkdocs.state import BuildState, Loaded, downloads
from acp_docs.requirements.model import RequirementSet
from acp_docs.schema import fragments, reference
from acp_docs.sources.lines import LineIndex


@dataclass(frozen=True)
class Use:
    """One marker where it stands: its arguments, the page's path in the site, the build."""

    args: list[str]
    src: str
    """The page's path inside the site (`schema/v1.md`): links are made relative to it."""
    loaded: Loaded


@dataclass(frozen=True)
class Published:
    """HTML the plugin itself places in the page after the allowlist (the demo's root and
    its `data-acp-*` attributes, which no page may write)."""

    html: str


Handler = Callable[[Use], "str | Published | None"]
"""Markdown for the marker, or None when the arguments do not fit it."""


def _recent_changes(use: Use) -> str:
    return site.recent_changes(use.loaded.rfds, use.src)


def _rfd_index(use: Use) -> str:
    status = next((a.split("=", 1)[1] for a in use.args if a.startswith("status=")), None)
    return site.rfd_table(use.loaded.rfds, use.src, status)


def _schema_reference(use: Use) -> str | None:
    if len(use.args) != 1:
        return None
    loaded = use.loaded
    version = protocols.get(use.args[0])
    made = [
        fragments.contribution(s, version.name)
        for s in loaded.sources
        if version.name in s.versions
    ]
    titles = {r.slug: r.title for r in loaded.rfds}
    pages = {r.slug: r.docs_path.removeprefix("rfds/") for r in loaded.rfds}
    prefix = site.prefix_of(use.src) + "rfds/"
    return reference.render(made, version, titles, prefix, pages)


def _schema_downloads(use: Use) -> str:
    loaded = use.loaded
    return site.download_table(loaded.repo.root, loaded.sources, downloads(loaded), use.src)


def _wire_rules(use: Use) -> str:
    return site.wire_rules_table(use.src, _requirement_sets(use))


def _requirements(use: Use) -> str:
    titles = {r.slug: r.title for r in use.loaded.rfds}
    return site.requirement_tables(use.src, _requirement_sets(use), titles)


def _requirement_sets(use: Use) -> list[RequirementSet]:
    from acp_docs.requirements.model import load_all

    return load_all(use.loaded.repo, {r.slug: r.shown for r in use.loaded.rfds})


def _fixtures(use: Use) -> str:
    return site.fixture_list(use.loaded.repo.root, protocols.NAMES, use.src)


def _demo(use: Use) -> Published | None:
    return Published(site.demo(use.loaded.repo.root, use.args[0])) if len(use.args) == 1 else None


REGISTRY: dict[str, Handler] = {
    "recent-changes": _recent_changes,
    "rfd-index": _rfd_index,
    "schema-reference": _schema_reference,
    "schema-downloads": _schema_downloads,
    "wire-rules": _wire_rules,
    "requirements": _requirements,
    "fixtures": _fixtures,
    "demo": _demo,
}
"""Every marker by name: what it expands to."""


def expand(state: BuildState, markdown: str, page: Any) -> str:
    """`markdown` with every marker outside code replaced by what it generates."""
    in_code = code_lines(markdown)
    lines = LineIndex(markdown)

    def replace(match: Any) -> str:
        line = lines.line(match.start())
        if line in in_code:
            return str(match.group(0))
        return _expanded(state, parse(match), str(match.group(0)), page, line)

    return MARKER.sub(replace, markdown)


def _expanded(state: BuildState, marker: Marker, written: str, page: Any, line: int) -> str:
    # A marker must close on its line, with no `>` before its end.
    if not marker.closed or ">" in marker.args:
        return written
    args = marker.args.split()
    handler = REGISTRY.get(marker.name)
    made: str | Published | None = None
    if handler is not None:
        try:
            made = handler(Use(args, page.file.src_uri, state.loaded_or_fail()))
        except UsageError as exc:
            _problem(state, page, line, str(exc))
            return ""
    if made is None:
        _problem(state, page, line, f"unknown marker acp-docs:{marker.name} {' '.join(args)}")
        return written
    if isinstance(made, Published):
        word = fences.placeholder(hashlib.blake2b(made.html.encode(), digest_size=8).hexdigest())
        state.figures[word] = made.html
        made = word
    if not made:
        return made
    # Marked so that spelling passes over it (its words are not the page's prose).
    return f"{prose.GENERATED_OPEN}\n\n{made}\n\n{prose.GENERATED_CLOSE}"


def _problem(state: BuildState, page: Any, line: int, message: str) -> None:
    state.report(build_problem(state.shown(page.file), line, 1, message, "build/marker"))
