"""Each page through the build: its metadata, its markers, its checks, its header, its policy.

- `prepare` (`on_page_markdown`): refuse input made to be slow, escape the
  titles, keep only the metadata a page may set, expand the markers.
- `check_content` (`on_page_content`): the page's links recorded, the
  selected checks' `page` hooks called with a `PageView`, the RFD header and
  proposal notice, and the allowlist (`acp_docs.policy.sanitize`): what it
  drops is a problem of the build.
- `finish` (`on_post_page`): the theme's markup repaired
  (`acp_docs.patches.themefix`) and, outside `mkdocs serve`, the
  Content-Security-Policy first in the page (`acp_docs.policy.csp`).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from mkdocs.structure.files import Files
from mkdocs.utils.meta import YAML_RE

from acp_docs.checks import registry
from acp_docs.checks.registry import PageView, build_problem
from acp_docs.config import configschema as configpolicy
from acp_docs.core.errors import UsageError
from acp_docs.markdown import limits as mdlimits
from acp_docs.markdown import prose
from acp_docs.mkdocs import apipages, diagrams, links, markers, proposal, rfdheader
from acp_docs.mkdocs.state import BuildState
from acp_docs.patches import themefix
from acp_docs.policy import csp, sanitize, themetext
from acp_docs.rfds import model as rfds
from acp_docs.sources.textfile import read_text

RFD_META = frozenset({"title", "search"})
"""What of an RFD's front matter the theme sees: the RFD header shows the rest."""
PAGE_META = frozenset(configpolicy.PAGE_SCHEMA["properties"])

RFD_SEARCH_BOOST = 2
"""Search ranks RFD pages above the other pages (the API reference is not searched)."""

NOT_RENDERED = "This page is not rendered: it holds input made to be slow to render."


def source_text(state: BuildState, page: Any) -> str:
    """The page's file as written (front matter included: findings' lines are its lines)."""
    path = page.file.abs_src_path
    try:
        return read_text(Path(path), state.shown(page.file)) if path else ""
    except UsageError:
        return ""


def prepare(state: BuildState, markdown: str, page: Any) -> str:
    """The page's Markdown to render: titles escaped, metadata vetted, markers expanded.

    An RFD's `status` is taken out of the page's metadata: Material reads that
    key as its own page status and would put an unexplained icon in the
    navigation. The RFD header says the status in words instead. An RFD's
    browser title says it is an RFD, and search ranks it up.
    """
    loaded = state.loaded_or_fail()
    ours = loaded.ours(page.file)
    shown = state.shown(page.file)
    # Lines as the file has them: `markdown` has lost the front matter.
    slow = mdlimits.hazard(source_text(state, page) or markdown)
    if slow is not None:
        state.report(build_problem(shown, slow.line, slow.col, slow.message, "build/too-complex"))
        markdown = NOT_RENDERED
    if ours and not page.meta:
        # Front matter MkDocs could not read (the RFD lint says why) is not shown as text.
        unread = YAML_RE.match(markdown)  # front matter as MkDocs finds it
        if unread:
            markdown = markdown[unread.end() :]
    if ours and page.file.src_uri == f"rfds/{rfds.TEMPLATE_NAME}":
        # The template's front matter is an example for authors, not its title.
        page.meta.pop("title", None)
    _vet_meta(page, ours, loaded.rfd_of(page.file) is not None)
    state.links.clear()
    state.api.current = page.file.src_uri
    expanded = markers.expand(state, markdown, page)
    prepared = diagrams.prepare(state, expanded, source_text(state, page) or markdown, page)
    # From here to `check_content`, the Markdown rendering: drawing diagrams (each with a
    # deadline of its own, in another process) is not part of it.
    state.clock.start(shown)
    return prepared


def _vet_meta(page: Any, ours: bool, is_rfd: bool) -> None:
    title = page.meta.get("title") if isinstance(page.meta, dict) else None
    # The theme prints titles into <title>, the header and the navigation
    # unescaped. A title the navigation gives stays the page's label.
    explicit = vars(page).get("title")
    if isinstance(title, str):
        page.meta["title"] = html.escape(title, quote=True)
    if isinstance(explicit, str):
        page.title = html.escape(explicit, quote=True)
    elif isinstance(title, str):
        page.title = page.meta["title"]
    if ours and page.file.src_uri.startswith("rfds/"):
        page.meta.pop("status", None)
        if is_rfd and isinstance(title, str):
            page.meta["title"] = html.escape(f"RFD: {title}", quote=True)
            page.meta.setdefault("search", {"boost": RFD_SEARCH_BOOST})
    if isinstance(page.meta, dict):
        # The theme prints some metadata (description, subtitle, ...) unescaped: only the
        # keys a page may set reach it; any other is a front-matter finding.
        keep = RFD_META if ours else PAGE_META
        page.meta = {key: value for key, value in page.meta.items() if key in keep}


def check_content(state: BuildState, content: str, page: Any, files: Files) -> str:
    """Run the selected checks' page hooks on the page; publish only what the allowlist keeps
    (`acp_docs.policy.sanitize`)."""
    loaded = state.loaded_or_fail()
    shown = state.shown(page.file)
    text = source_text(state, page)
    labels = themetext.publish(page)
    if labels:
        where = [sanitize.Problem("data-toc-label", "") for _label in labels]
        for line, col, _message in sanitize.locate(text or "", where):
            message = (
                "a table-of-contents label holds markup: only its text is published"
                " (docs/tooling/checks.md#what-a-page-may-hold)"
            )
            state.report(build_problem(shown, line, col, message, "build/not-allowed"))
    written = links.record(state, page, shown, text)
    for finding in apipages.refusals(shown, text, content):
        state.report(finding)
    shows = loaded.rfd_of(page.file)
    own = shows.slug if shows is not None else proposal.owner(page.meta, loaded.rfds)[0]
    view = PageView(shown, text, content, loaded, own, written, tuple(state.drawn))
    for registered in registry.with_hook(state.selected.values(), "page"):
        state.run_hook(registered, "page", view)
    rfd = loaded.rfd_of(page.file)
    if rfd is not None:
        content = _with_header(state, content, rfd, page, files)
    content = _with_proposal_notice(state, content, page, files, shown, text)
    if page.file.src_uri in state.api.allowed:
        published, outside = apipages.reviewed(content)
    else:
        published, outside = sanitize.review(content)
    state.clock.stop()
    # A Markdown link's unsafe scheme is a finding of its own, at the same place.
    schemes = {(link.line, link.col) for link in written if sanitize.unsafe_link(link.url)}
    for line, col, what in sanitize.locate(text, outside):
        if (line, col) not in schemes:
            message = (
                f"{what} is outside what a page may hold, and is not published: write it in"
                " Markdown (docs/tooling/checks.md#what-a-page-may-hold)"
            )
            state.report(build_problem(shown, line, col, message, "build/not-allowed"))
    if page.file.src_uri not in state.api.allowed:  # docstrings: no source `.pyspelling.yml` names
        state.page_html[shown] = content
    state.page_sources[shown] = text
    state.page_files[shown] = page.file
    return diagrams.publish(state, published)


def _with_header(state: BuildState, content: str, rfd: rfds.Rfd, page: Any, files: Files) -> str:
    """The RFD header (from its front matter) right after the page's title."""
    status_page = files.get_file_from_path(rfds.status_page(rfd.status)) if rfd.status else None
    url = status_page.url_relative_to(page.file) if status_page is not None else None
    related = []
    for title, src_uri in state.owned.get(rfd.slug, []):
        target = files.get_file_from_path(src_uri)
        if target is not None:
            section = src_uri.split("/", 1)[0] if "/" in src_uri else "page"
            related.append((f"{title} ({section})", target.url_relative_to(page.file)))
    sources = state.loaded_or_fail().sources
    source = next((s for s in sources if s.slug == rfd.slug), None)
    for version in source.versions if source is not None else ():
        target = files.get_file_from_path(f"schema/{version}.md")
        if target is not None:
            related.append((f"Schema reference ({version})", target.url_relative_to(page.file)))
    made = rfdheader.render(rfd, url, related)
    header = f"\n{prose.GENERATED_OPEN}\n{made}\n{prose.GENERATED_CLOSE}\n"
    return rfdheader.after_title(content, header)


def _with_proposal_notice(
    state: BuildState, content: str, page: Any, files: Files, shown: str, text: str
) -> str:
    """A page that names its RFD in front matter says, until it completes, it is a proposal."""
    slug, owner = proposal.owner(page.meta, state.loaded_or_fail().rfds)
    if slug is None:
        return content
    target = files.get_file_from_path(owner.docs_path) if owner is not None else None
    if owner is None or target is None:
        message = (
            f"front matter `{proposal.KEY}: {slug}` names no RFD: use the name of one in rfds/"
        )
        line = proposal.key_line(text)
        state.report(build_problem(shown, line, 1, message, "links/unknown-rfd"))
        return content
    notice = proposal.notice(owner, target.url_relative_to(page.file))
    return rfdheader.after_title(content, notice)


def edit_url(state: BuildState, page: Any, repo_url: str | None) -> None:
    """Point the edit link of an RFD page at its source in rfds/."""
    if page.file.src_uri.startswith("rfds/") and state.loaded_or_fail().ours(page.file):
        url = (repo_url or "").rstrip("/")
        if url:
            page.edit_url = f"{url}/edit/main/{page.file.src_uri}"


def finish(state: BuildState, output: str, page: Any, repair: bool) -> str:
    """The page as written to the site: the theme's markup repaired (when `repair`: the
    templates are those `themefix` was written for); outside `mkdocs serve`, the policy."""
    shown = state.shown(page.file)
    repaired = output
    if repair:
        repaired, missing = themefix.apply(output)
        for name in missing:
            message = (
                f"the theme's markup for {name} has changed: update acp_docs/patches/themefix.py"
            )
            state.report(build_problem(shown, 1, 1, message, "build/theme"))
    if state.serving:
        return repaired
    with_policy = csp.apply(repaired, page.content or "")
    if with_policy is None:
        message = (
            "the page has no <head> for its Content-Security-Policy: the theme's markup has changed"
        )
        state.report(build_problem(shown, 1, 1, message, "build/theme"))
        return repaired
    return with_policy
