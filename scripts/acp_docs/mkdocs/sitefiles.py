"""The site's files and navigation: what is published, what is added, what must be in the nav.

`vet_and_add` (`on_files`) drops every file the scan of the checkout refused
and every static file of docs/ that is not a known-good kind, then adds the
RFD sources (served as `rfds/<name>.md`, no copy in docs/), the merged
schemas, each RFD's fragments and the fixtures. `check_nav` (`on_nav`) makes
every page reachable from the navigation.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files, InclusionLevel

from acp_docs.core import protocols
from acp_docs.mkdocs import proposal
from acp_docs.mkdocs.state import BuildState, downloads
from acp_docs.policy import staticfiles
from acp_docs.rfds import model as rfds
from acp_docs.schema import fragments
from acp_docs.sources import filetree
from acp_docs.validation.payloads import fixture_files


def vet_and_add(state: BuildState, files: Files, config: Any) -> Files:
    """Keep only vetted files; add the RFD sources and the published schema files."""
    loaded = state.loaded_or_fail()
    repo = loaded.repo
    static_refs = staticfiles.StaticRefs.from_config(config)
    for file in list(files):
        source = file.abs_src_path
        # The installed theme's own files live wherever the theme is installed (mkdocs.yml
        # may set no custom_dir, see acp_docs.config.mkdocsconfig); every other file must be a
        # vetted file inside the checkout.
        from_theme = file.src_dir is not None and not filetree.within(repo.root, file.src_dir)
        if (
            not from_theme
            and source
            and not (loaded.tree.allows(repo.root, source) and filetree.inside(repo.root, source))
        ) or (
            file.src_dir is not None
            and Path(file.src_dir) == Path(config.docs_dir)
            and source
            and not file.is_documentation_page()
            and file.inclusion is not InclusionLevel.EXCLUDED
            # Only known-good kinds are published from docs/ (`acp_docs.policy.staticfiles`;
            # the `files` check reports the others).
            and staticfiles.review(file.src_uri, Path(source), static_refs)
        ):
            files.remove(file)
    _add_rfds(state, files, config)
    if loaded.schemas is not None:
        for download in downloads(loaded):
            files.append(File.generated(config, download.path, content=download.content))
    published = [fragments.fragment_path(s, v) for s in loaded.sources for v in s.versions]
    for version in protocols.NAMES:
        for paths in fixture_files(repo.root, version).values():
            published.extend(paths)
    for path in published:
        if path.is_file():
            rel = path.relative_to(repo.root).as_posix()
            files.append(File.generated(config, rel, abs_src_path=str(path)))
    docs_pages = [
        (f.src_uri, f.abs_src_path)
        for f in files.documentation_pages()
        if f.abs_src_path and not f.src_uri.startswith("rfds/")
    ]
    state.owned = proposal.owned_pages(repo.root, docs_pages)
    return files


def _add_rfds(state: BuildState, files: Files, config: Any) -> None:
    """Each RFD (and the template) as a page of the site; a copy of one in docs/ is left out
    (the `rfds` check reports it) and the RFD is published in its place."""
    loaded = state.loaded_or_fail()
    repo = loaded.repo
    pages = [r.docs_path for r in loaded.rfds]
    template = repo.rfds_dir / rfds.TEMPLATE_NAME
    if filetree.inside(repo.root, template):
        pages.append(f"rfds/{rfds.TEMPLATE_NAME}")
    for src_uri in sorted(pages):
        copy = files.get_file_from_path(src_uri)
        if copy is not None:  # a copy in docs/ is never published in the RFD's place
            files.remove(copy)
        files.append(File(src_uri, str(repo.root), config.site_dir, config.use_directory_urls))


def check_nav(state: BuildState, nav: Any, files: Files) -> Any:
    """The pages the navigation holds (`BuildState.nav`, for the checks' site hooks).

    A status page with no RFD stays in the navigation but leaves the chain
    of Previous and Next links, so reading on from an RFD never lands on
    an empty page.
    """
    loaded = state.loaded_or_fail()
    empty = {
        rfds.status_page(status)
        for status in rfds.STATUSES
        if not any(r.status == status for r in loaded.rfds)
    }
    chain = [page for page in nav.pages if page.file.src_uri not in empty]
    for before, after in itertools.pairwise(chain):
        before.next_page, after.previous_page = after, before
    state.nav = frozenset(page.file.src_uri for page in nav.pages)
    return nav
