"""The repository as one build sees it: RFDs, schema sources, merged schemas, and what they lack.

`load` runs in the plugin's `on_config`: it scans the source folders, checks
the docs pages' front matter, loads the RFDs and schema sources, merges the
schemas, and reports drift of the fragments, the RFD lint and the fixtures.
Costly steps are kept while serving until one of their inputs changes
(`acp_docs.core.memo`).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from acp_docs.config.repo import Repo
from acp_docs.core import memo, protocols
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.mkdocs.state import BuildState, Loaded
from acp_docs.policy import frontmatter
from acp_docs.rfds import model as rfds
from acp_docs.schema import drift, merge
from acp_docs.sources import filetree
from acp_docs.validation.examples import held_back
from acp_docs.validation.payloads import check_fixtures, fixture_files
from acp_docs.validation.schemaset import SchemaSet


def load(state: BuildState, root: Path) -> Loaded:
    """Load the repository at `root` into `state`, reporting what is wrong with it."""
    try:
        repo = Repo.load(root)
    except UsageError as exc:
        raise PluginError(str(exc)) from None
    tree = filetree.scan(root, repo.source_folders)
    for finding in tree.findings:
        state.report(finding)
    pages = [p for p in frontmatter.docs_pages(repo.docs_dir) if tree.allows(root, p)]
    for finding in frontmatter.check_pages(root, pages):
        state.report(finding)
    if tree.undecodable:
        raise PluginError(
            f"{tree.undecodable[0]}: the file name is not UTF-8, and MkDocs cannot build a"
            " site that holds it; rename it"
        )
    loaded_rfds = rfds.load_all(repo)
    try:
        sources = rfds.schema_sources(repo, loaded_rfds)
    except UsageError as exc:
        state.load_error(exc, "schema/source")
        sources = []
    # Everything the merged schemas depend on: kept while serving until one of them changes.
    schema_key = (
        str(root),
        tuple((s.slug, s.shown, s.channel) for s in sources),
        memo.digest_of([s.path for s in sources] + merge.base_inputs(root)),
    )
    schemas: SchemaSet | None = None
    try:
        schemas = memo.remembered(
            "schemas", schema_key, lambda: SchemaSet.from_sources(root, sources)
        )
    except UsageError as exc:
        state.load_error(exc, "schema/merge")
    loaded = Loaded(repo, tree, loaded_rfds, sources, schemas, schema_key)
    state.loaded = loaded
    _check_sources(state, loaded)
    try:
        for finding in rfds.lint(repo, loaded_rfds):
            state.report(finding)
    except UsageError as exc:
        state.load_error(exc, "rfds/front-matter-schema", "rfds")
    if schemas is not None:
        fixtures = [
            path
            for version in protocols.NAMES
            for paths in fixture_files(root, version).values()
            for path in paths
        ]
        checked = memo.remembered(
            "fixtures",
            (schema_key, memo.digest_of(fixtures)),
            lambda: check_fixtures(root, schemas),
        )
        causes = loaded.unusable
        first = min(checked).path if checked else ""
        # The fixtures are the RFDs' own: while one source cannot be used, none is judged.
        owner = causes[0].slug if causes else None
        for finding in held_back(list(checked), first, causes, owner):
            state.report(finding)
    return loaded


def _check_sources(state: BuildState, loaded: Loaded) -> None:
    """Each schema source has its RFD, and its fragments are what it generates."""
    root = loaded.repo.root
    slugs = {r.slug for r in loaded.rfds}
    for source in loaded.sources:
        if source.slug not in slugs:
            message = f"no RFD rfds/{source.slug}.md owns this schema source"
            state.report(Finding(source.shown, 1, 1, "schema", message, "schema/orphan-source"))
    fragment_files = [p for s in loaded.sources for p in sorted(s.directory.glob("v*.json"))]
    try:
        drifts = memo.remembered(
            "drift",
            (loaded.schema_key, memo.digest_of(fragment_files)),
            lambda: drift.check(root, loaded.sources),
        )
        for problem in drifts:
            state.report(problem.finding())
    except UsageError as exc:
        state.load_error(exc, "schema/source")
