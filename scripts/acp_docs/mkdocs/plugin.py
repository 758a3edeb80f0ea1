"""The MkDocs plugin `acp-docs`: RFDs into the site, generated sections, findings from the build.

Registered by the `mkdocs.plugins` entry point, so `mkdocs.yml` says only
`plugins: [acp-docs]`. Everything it knows lives on the plugin instance and is
loaded anew on every build, so `mkdocs serve` picks up an edit of an RFD, a
schema source or a fixture without a restart.

- RFD sources in `rfds/` are served as `rfds/<name>.md`, with no copy in docs/.
- `<!-- acp-docs:... -->` markers are replaced with generated Markdown.
- Each RFD's fragments, the merged schemas and the fixtures are published.
- Every problem is a `Finding` on `self.findings`, and a build warning, so
  `mkdocs build --strict` fails on it: schema drift, RFD lint, examples,
  fixtures, broken links and anchors, pages missing from the nav.
- Under `mkdocs serve` only, spelling runs too and every finding is shown on
  the page it concerns (`acp_docs.reporters.page`); costly steps and
  unchanged pages are reused between rebuilds (`acp_docs.core.memo`,
  `acp_docs.mkdocs.rendercache`), keyed by content, never by time.
"""

from __future__ import annotations

import bisect
import html
import itertools
import logging
import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from jinja2 import FileSystemBytecodeCache
from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.utils.meta import YAML_RE

from acp_docs.checks import spell
from acp_docs.core import cachedir, memo, protocols
from acp_docs.core.errors import LocatedError, UsageError
from acp_docs.core.findings import Finding
from acp_docs.core.repo import Repo
from acp_docs.markdown import limits as mdlimits
from acp_docs.markdown import prose
from acp_docs.markdown.blocks import code_lines
from acp_docs.mkdocs import apiref, proposal, rendercache, rfdheader, servefail, site, themefix
from acp_docs.patches import renderspeed, themefiles
from acp_docs.policy import configschema as configpolicy
from acp_docs.policy import csp, frontmatter, sanitize, staticfiles
from acp_docs.reporters import page as page_report
from acp_docs.reporters.text import line as text_line
from acp_docs.rfds import model as rfds
from acp_docs.schema import fragments, merge, reference
from acp_docs.schema.changes import MergeRefused
from acp_docs.schema.source import SchemaSource
from acp_docs.sources import filetree
from acp_docs.sources.textfile import UnreadableFile, read_text
from acp_docs.validation import examples
from acp_docs.validation.payloads import check_fixtures, fixture_files
from acp_docs.validation.schemaset import SchemaSet

log = logging.getLogger("mkdocs.plugins.acp_docs")

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
"""The only schemes a link may use; anything else (javascript:, data:, file:) is a finding."""

_MARKER = re.compile(r"^[ ]{0,3}<!--[ \t]*acp-docs:(?P<name>[a-z-]{1,40})(?P<rest>[^\n]*)$", re.M)
"""A marker is an HTML comment alone on its line; one inside code or a sentence is text."""


SERVE_POLL_SECONDS = 0.1
SERVE_DEBOUNCE_SECONDS = 0.05

RFD_META = frozenset({"title", "search"})
"""What of an RFD's front matter the theme sees: the RFD header shows the rest."""
PAGE_META = frozenset(configpolicy.PAGE_SCHEMA["properties"])

RFD_SEARCH_BOOST = 2
"""Search ranks RFD pages above the other pages (the API reference is not searched)."""


@dataclass
class _Link:
    """A link as written in a page's Markdown, before MkDocs rewrites it."""

    url: str
    occurrence: int


class _LinkRecorder(Treeprocessor):
    """Records every `href` and `src` of the page being rendered, as the author wrote it."""

    def __init__(self, md: Markdown, sink: list[_Link]) -> None:
        super().__init__(md)
        self.sink = sink

    def run(self, root: Any) -> None:
        seen: dict[str, int] = {}
        for element in root.iter():
            key = "href" if element.tag == "a" else "src" if element.tag == "img" else None
            url = element.get(key) if key else None
            if url:
                seen[url] = seen.get(url, 0) + 1
                self.sink.append(_Link(url, seen[url]))


class _LinkExtension(Extension):
    def __init__(self, sink: list[_Link]) -> None:
        super().__init__()
        self.sink = sink

    def extendMarkdown(self, md: Markdown) -> None:
        # Above MkDocs's "relpath" (priority 0), which rewrites the links.
        md.treeprocessors.register(_LinkRecorder(md, self.sink), "acp_docs_links", 0.5)


@dataclass
class _Anchor:
    page: Any
    target: File
    anchor: str
    url: str
    line: int
    col: int


@dataclass
class _Loaded:
    """What one build knows about the repository, loaded in `on_config`."""

    repo: Repo
    tree: filetree.Scan
    rfds: list[rfds.Rfd]
    sources: list[SchemaSource]
    schemas: SchemaSet | None
    schema_key: Any
    """What the merged schemas were built from (see `acp_docs.core.memo`)."""

    def downloads(self) -> list[site.Download]:
        """The merged schemas the site publishes, built once while their inputs stay the same."""
        schemas = self.schemas
        if schemas is None:
            raise UsageError("the merged schemas could not be built (see the schema findings)")
        return memo.remembered(
            "downloads",
            self.schema_key,
            lambda: site.merged_downloads(self.repo.root, self.sources, schemas),
        )


class _WalkWithoutLinks:
    """`os` for MkDocs's file listing, with `walk` never following a link to a folder.

    MkDocs walks docs_dir with `followlinks=True`; a link back up the tree
    (`docs/loop -> ..`) then makes it walk until paths grow too long, and two
    such links make the walk exponential: a pull request could hang the build.
    Links to folders are findings of the `files` check instead.
    """

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    @staticmethod
    def walk(top: Any, topdown: bool = True, onerror: Any = None, followlinks: bool = False) -> Any:
        return os.walk(top, topdown=topdown, onerror=onerror, followlinks=False)


def _never_follow_folder_links() -> None:
    import mkdocs.structure.files as mkdocs_files

    if not isinstance(mkdocs_files.os, _WalkWithoutLinks):
        mkdocs_files.os = _WalkWithoutLinks()  # type: ignore[assignment]


class AcpDocsPlugin(BasePlugin):  # type: ignore[type-arg]
    """The `acp-docs` MkDocs plugin; `findings` holds every problem of the last build."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.page_words: dict[str, set[str]] = {}
        """The distinct words of each page's prose, by source path, for spelling."""
        self.page_sources: dict[str, str] = {}
        self._reported: set[tuple[str, int, int, str]] = set()
        self._loaded: _Loaded | None = None
        self._links: list[_Link] = []
        self._anchors: list[_Anchor] = []
        self._page_files: dict[str, File] = {}
        self._renders = rendercache.RenderCache()
        self._render_context: Any = None
        self._owned: dict[str, list[tuple[str, str]]] = {}
        """Per RFD slug, the docs pages that name it in front matter (set by `on_files`)."""
        self.serving = False
        """True under `mkdocs serve`: findings are then shown on the pages too."""
        self._clock = mdlimits.RenderClock()
        self._places_of = ""
        self._link_places: dict[str, list[int]] = {}
        self._line_starts: list[int] = []

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """Note whether this process serves the site (the plugin then lives across rebuilds)."""
        self.serving = command == "serve"

    @property
    def loaded(self) -> _Loaded:
        """The state of the current build (set by `on_config`)."""
        if self._loaded is None:
            raise RuntimeError("the acp-docs plugin has not seen on_config yet")
        return self._loaded

    def report(self, finding: Finding) -> None:
        """Record a finding and show it as a build warning (each finding once)."""
        key = (finding.path, finding.line, finding.col, finding.message)
        if key in self._reported:
            return
        self._reported.add(key)
        self.findings.append(finding)
        log.warning(text_line(finding))

    def _load_error(self, error: UsageError, rule: str, check: str = "schema") -> None:
        path, line, col = "mkdocs.yml", 1, 1
        reason = str(error)
        if isinstance(error, LocatedError):
            path, line, col, reason = error.path, error.line, error.col, error.reason
        elif isinstance(error, MergeRefused) and error.path:
            path, line, reason = error.path, error.line, error.reason
        elif isinstance(error, UnreadableFile):
            path, line, reason = error.name, error.line, error.reason
        self.report(Finding(path, line, col, check, reason, rule))

    def on_serve(self, server: Any, config: Any, builder: Any) -> Any:
        """Notice a saved file sooner than MkDocs's default; show a failed build on the pages.

        MkDocs polls the watched folders every half second and waits 0.1 s for
        more changes; an author then waits that long before the build even
        starts. The watcher polls every `SERVE_POLL_SECONDS` instead (the
        folders watched are small), and the debounce is halved. Should MkDocs
        change its watcher, these knobs are absent and its defaults stay.
        A rebuild that fails is shown on every page (`servefail`).
        """
        observer = getattr(server, "observer", None)
        if observer is not None and hasattr(observer, "_timeout"):
            observer._timeout = SERVE_POLL_SECONDS
            for emitter in getattr(observer, "emitters", ()):
                if hasattr(emitter, "_timeout"):
                    emitter._timeout = SERVE_POLL_SECONDS
        if isinstance(getattr(server, "build_delay", None), float):
            server.build_delay = min(server.build_delay, SERVE_DEBOUNCE_SECONDS)
        if callable(getattr(server, "builder", None)) and config.site_dir:
            server.builder = servefail.guard(server.builder, Path(config.site_dir))
        return server

    def on_config(self, config: Any) -> Any:
        """Load the repository: RFDs, schema sources, merged schemas; lint and drift."""
        _never_follow_folder_links()
        renderspeed.install()
        themefiles.install()
        self.findings = []
        self.page_words = {}
        self.page_sources = {}
        self._reported = set()
        self._links = []
        self._anchors = []
        self._page_files = {}
        root = Path(config.config_file_path).resolve().parent
        try:
            repo = Repo.load(root)
        except UsageError as exc:
            raise PluginError(str(exc)) from None
        tree = filetree.scan(root, repo.source_folders)
        for finding in tree.findings:
            self.report(finding)
        pages = [p for p in frontmatter.docs_pages(repo.docs_dir) if tree.allows(root, p)]
        for finding in frontmatter.check_pages(root, pages):
            self.report(finding)
        if tree.undecodable:
            raise PluginError(
                f"{tree.undecodable[0]}: the file name is not UTF-8, and MkDocs cannot build a"
                " site that holds it; rename it"
            )
        loaded_rfds = rfds.load_all(repo)
        try:
            sources = rfds.schema_sources(repo, loaded_rfds)
        except UsageError as exc:
            self._load_error(exc, "schema/source")
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
            self._load_error(exc, "schema/merge")
        self._loaded = _Loaded(repo, tree, loaded_rfds, sources, schemas, schema_key)
        slugs = {r.slug for r in loaded_rfds}
        for source in sources:
            if source.slug not in slugs:
                self.report(
                    Finding(
                        source.shown,
                        1,
                        1,
                        "schema",
                        f"no RFD rfds/{source.slug}.md owns this schema source",
                        "schema/orphan-source",
                    )
                )
        fragment_files = [p for s in sources for p in sorted(s.directory.glob("v*.json"))]
        try:
            drifts = memo.remembered(
                "drift",
                (schema_key, memo.digest_of(fragment_files)),
                lambda: fragments.check(root, sources),
            )
            for drift in drifts:
                self.report(drift.finding())
        except UsageError as exc:
            self._load_error(exc, "schema/source")
        try:
            for finding in rfds.lint(repo, loaded_rfds):
                self.report(finding)
        except UsageError as exc:
            self._load_error(exc, "rfds/front-matter-schema", "rfds")
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
            for finding in checked:
                self.report(finding)
        config.markdown_extensions.append(_LinkExtension(self._links))
        return config

    def on_files(self, files: Files, config: Any) -> Files:
        """Add the RFD sources and the published schema files to the build."""
        loaded = self.loaded
        repo = loaded.repo
        static_refs = staticfiles.StaticRefs.from_config(config)
        for file in list(files):
            source = file.abs_src_path
            # The installed theme's own files live wherever the theme is installed (mkdocs.yml
            # may set no custom_dir, see acp_docs.policy.mkdocsconfig); every other file must be a
            # vetted file inside the checkout.
            from_theme = file.src_dir is not None and not filetree.within(repo.root, file.src_dir)
            if (
                not from_theme
                and source
                and not (
                    loaded.tree.allows(repo.root, source) and filetree.inside(repo.root, source)
                )
            ):
                files.remove(file)
            elif (
                file.src_dir is not None
                and Path(file.src_dir) == Path(config.docs_dir)
                and source
                and not file.is_documentation_page()
                and file.inclusion is not InclusionLevel.EXCLUDED
            ):
                # Only known-good kinds are published from docs/ (`acp_docs.policy.staticfiles`).
                problems = staticfiles.review(file.src_uri, Path(source), static_refs)
                if problems:
                    files.remove(file)
                    for finding in staticfiles.as_findings(self._shown(file), problems):
                        self.report(finding)
        pages = [r.docs_path for r in loaded.rfds]
        template = repo.rfds_dir / rfds.TEMPLATE_NAME
        if filetree.inside(repo.root, template):
            pages.append(f"rfds/{rfds.TEMPLATE_NAME}")
        for src_uri in sorted(pages):
            if files.get_file_from_path(src_uri) is not None:
                self.report(
                    Finding(
                        f"docs/{src_uri}",
                        1,
                        1,
                        "rfds",
                        f"shadows {src_uri}; keep RFDs in rfds/ only",
                        "rfds/shadowed",
                    )
                )
                continue
            files.append(File(src_uri, str(repo.root), config.site_dir, config.use_directory_urls))
        if loaded.schemas is not None:
            for download in loaded.downloads():
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
        self._owned = proposal.owned_pages(repo.root, docs_pages)
        if self.serving:
            self._render_context = rendercache.context_key(config, files)
        return files

    def on_nav(self, nav: Any, config: Any, files: Files) -> Any:
        """Every page must be reachable from the navigation.

        A status page with no RFD stays in the navigation but leaves the chain
        of Previous and Next links, so reading on from an RFD never lands on
        an empty page.
        """
        empty = {
            rfds.status_page(status)
            for status in rfds.STATUSES
            if not any(r.status == status for r in self.loaded.rfds)
        }
        chain = [page for page in nav.pages if page.file.src_uri not in empty]
        for before, after in itertools.pairwise(chain):
            before.next_page, after.previous_page = after, before
        in_nav = {page.file.src_uri for page in nav.pages}
        for file in files.documentation_pages():
            if file.src_uri not in in_nav and file.src_uri != "rfds/TEMPLATE.md":
                self.report(
                    Finding(
                        self._shown(file),
                        1,
                        1,
                        "links",
                        "page is not in the mkdocs.yml navigation: add it to `nav`",
                        "links/not-in-nav",
                    )
                )
        return nav

    def _shown(self, file: File) -> str:
        if file.abs_src_path:
            return self.loaded.repo.relative(Path(file.abs_src_path))
        return file.src_uri

    def _expand(self, match: re.Match[str], page: Any) -> str:
        made = self._generate(match, page)
        if made == match.group(0) or not made:
            return made
        # Marked so that spelling passes over it (its words are not the page's prose).
        return f"{prose.GENERATED_OPEN}\n\n{made}\n\n{prose.GENERATED_CLOSE}"

    def _generate(self, match: re.Match[str], page: Any) -> str:
        loaded = self.loaded
        rest = match["rest"].rstrip()
        if not rest.endswith("-->") or ">" in rest[:-3]:
            return match.group(0)
        name, args = match["name"], rest[:-3].split()
        src = page.file.src_uri
        try:
            if name == "recent-changes":
                return site.recent_changes(loaded.rfds, src)
            if name == "rfd-index":
                status = next((a.split("=", 1)[1] for a in args if a.startswith("status=")), None)
                return site.rfd_table(loaded.rfds, src, status)
            if name == "schema-reference" and len(args) == 1:
                version = protocols.get(args[0])
                made = [
                    fragments.contribution(s, version.name)
                    for s in loaded.sources
                    if version.name in s.versions
                ]
                titles = {r.slug: r.title for r in loaded.rfds}
                pages = {r.slug: r.docs_path.removeprefix("rfds/") for r in loaded.rfds}
                prefix = site.prefix_of(src) + "rfds/"
                return reference.render(made, version, titles, prefix, pages)
            if name == "schema-downloads":
                return site.download_table(
                    loaded.repo.root, loaded.sources, loaded.downloads(), src
                )
            if name == "wire-rules":
                return site.wire_rules_table(src)
            if name == "fixtures":
                return site.fixture_list(loaded.repo.root, protocols.NAMES, src)
            if name == "demo" and len(args) == 1:
                return site.demo(loaded.repo.root, args[0])
            if name == "api-reference" and len(args) == 1:
                root = loaded.repo.root
                package = root / args[0]
                if not filetree.inside(root, package / "__init__.py"):
                    return apiref.render(apiref.modules(root, package))  # refused, with the reason
                key = (str(package), memo.digest_of(apiref.python_files(package)))
                return memo.remembered(
                    "api-reference",
                    key,
                    lambda: apiref.render(apiref.modules(root, package)),
                )
        except UsageError as exc:
            self._marker_problem(page, match, str(exc))
            return ""
        self._marker_problem(page, match, f"unknown marker acp-docs:{name} {' '.join(args)}")
        return match.group(0)

    def _marker_problem(self, page: Any, match: re.Match[str], message: str) -> None:
        text = page.markdown or ""
        line = text.count("\n", 0, match.start()) + 1
        self.report(Finding(self._shown(page.file), line, 1, "build", message, "build/marker"))

    def _with_proposal_notice(
        self, content: str, page: Any, files: Files, shown: str, text: str
    ) -> str:
        """A page that names its RFD in front matter says, until it completes, it is a proposal."""
        slug, owner = proposal.owner(page.meta, self.loaded.rfds)
        if slug is None:
            return content
        target = files.get_file_from_path(owner.docs_path) if owner is not None else None
        if owner is None or target is None:
            message = (
                f"front matter `{proposal.KEY}: {slug}` names no RFD: use the name of one in rfds/"
            )
            line = proposal.key_line(text)
            self.report(Finding(shown, line, 1, "links", message, "links/unknown-rfd"))
            return content
        notice = proposal.notice(owner, target.url_relative_to(page.file))
        return rfdheader.after_title(content, notice)

    def _rfd_of(self, page: Any) -> rfds.Rfd | None:
        """The RFD a page shows (None for other pages and the template)."""
        if page.file.src_dir != str(self.loaded.repo.root):
            return None
        return next((r for r in self.loaded.rfds if r.docs_path == page.file.src_uri), None)

    def on_page_markdown(self, markdown: str, page: Any, config: Any, files: Files) -> str:
        """Escape the page's front-matter title, then replace its markers.

        An RFD's `status` is taken out of the page's metadata: Material reads
        that key as its own page status and would put an unexplained icon in
        the navigation. The RFD header says the status in words instead. An
        RFD's browser title says it is an RFD, and search ranks it up.
        """
        ours = page.file.src_dir == str(self.loaded.repo.root)
        shown = self._shown(page.file)
        # Lines as the file has them: `markdown` has lost the front matter.
        slow = mdlimits.hazard(self._source_text(page) or markdown)
        if slow is not None:
            self.report(
                Finding(shown, slow.line, slow.col, "build", slow.message, "build/too-complex")
            )
            markdown = "This page is not rendered: it holds input made to be slow to render."
        self._clock.start(shown)
        if ours and not page.meta:
            # Front matter MkDocs could not read (the RFD lint says why) is not shown as text.
            unread = YAML_RE.match(markdown)  # front matter as MkDocs finds it
            if unread:
                markdown = markdown[unread.end() :]
        if ours and page.file.src_uri == f"rfds/{rfds.TEMPLATE_NAME}":
            # The template's front matter is an example for authors, not its title.
            page.meta.pop("title", None)
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
            if self._rfd_of(page) is not None and isinstance(title, str):
                page.meta["title"] = html.escape(f"RFD: {title}", quote=True)
                page.meta.setdefault("search", {"boost": RFD_SEARCH_BOOST})
        if isinstance(page.meta, dict):
            # The theme prints some metadata (description, subtitle, ...) unescaped: only the
            # keys a page may set reach it; any other is a front-matter finding.
            keep = RFD_META if ours else PAGE_META
            page.meta = {key: value for key, value in page.meta.items() if key in keep}
        self._links.clear()
        if self.serving:
            self._renders.install(page, self._render_context, self._links)
        in_code = code_lines(markdown)

        def expand(match: re.Match[str]) -> str:
            line = markdown.count("\n", 0, match.start()) + 1
            return match.group(0) if line in in_code else self._expand(match, page)

        return _MARKER.sub(expand, markdown)

    def on_page_content(self, html: str, page: Any, config: Any, files: Files) -> str:
        """Check the JSON blocks the page shows and every link it holds; publish only what the
        allowlist keeps (`acp_docs.policy.sanitize`)."""
        shown = self._shown(page.file)
        text = self._source_text(page)
        if self.loaded.schemas is not None and text:
            schemas = self.loaded.schemas

            def check() -> list[Finding]:
                return examples.check_rendered(text, html, shown, schemas).findings

            if self.serving:
                key = (text, html, self.loaded.schema_key)
                found = memo.remembered(f"examples:{shown}", key, check)
            else:
                found = check()
            for finding in found:
                self.report(finding)
        for link in list(self._links):
            self._check_link(page, files, shown, text, link)
        self._links.clear()
        rfd = self._rfd_of(page)
        if rfd is not None:
            html = self._with_header(html, rfd, page, files)
        html = self._with_proposal_notice(html, page, files, shown, text)
        published, outside = sanitize.review(html)
        self._clock.stop()
        # A Markdown link's unsafe scheme is the links check's finding, at the same place.
        schemes = {
            (f.line, f.col)
            for f in self.findings
            if f.path == shown and f.rule_id == "links/scheme"
        }
        for line, col, what in sanitize.locate(text, outside):
            if (line, col) not in schemes:
                message = (
                    f"{what} is outside what a page may hold, and is not published: write it in"
                    " Markdown (docs/tooling/checks.md#what-a-page-may-hold)"
                )
                self.report(Finding(shown, line, col, "build", message, "build/not-allowed"))
        if self.serving:
            self.page_words[shown] = memo.remembered(
                f"words:{shown}", html, lambda: prose.words(html)
            )
        else:
            self.page_words[shown] = prose.words(html)
        self.page_sources[shown] = text
        self._page_files[shown] = page.file
        return published

    def _with_header(self, content: str, rfd: rfds.Rfd, page: Any, files: Files) -> str:
        """The RFD header (from its front matter) right after the page's title."""
        status_page = files.get_file_from_path(rfds.status_page(rfd.status)) if rfd.status else None
        url = status_page.url_relative_to(page.file) if status_page is not None else None
        related = []
        for title, src_uri in self._owned.get(rfd.slug, []):
            target = files.get_file_from_path(src_uri)
            if target is not None:
                section = src_uri.split("/", 1)[0] if "/" in src_uri else "page"
                related.append((f"{title} ({section})", target.url_relative_to(page.file)))
        source = next((s for s in self.loaded.sources if s.slug == rfd.slug), None)
        for version in source.versions if source is not None else ():
            target = files.get_file_from_path(f"schema/{version}.md")
            if target is not None:
                related.append((f"Schema reference ({version})", target.url_relative_to(page.file)))
        made = rfdheader.render(rfd, url, related)
        header = f"\n{prose.GENERATED_OPEN}\n{made}\n{prose.GENERATED_CLOSE}\n"
        return rfdheader.after_title(content, header)

    def _source_text(self, page: Any) -> str:
        path = page.file.abs_src_path
        try:
            return read_text(Path(path), self._shown(page.file)) if path else ""
        except UsageError:
            return ""

    def _check_link(self, page: Any, files: Files, shown: str, text: str, link: _Link) -> None:
        url = link.url
        scheme, netloc, path, _query, anchor = urlsplit(url)
        line, col = self._position(shown, text, url, link.occurrence)

        def find(message: str, rule: str) -> None:
            self.report(Finding(shown, line, col, "links", message, f"links/{rule}"))

        if "\x02" in url:
            return
        read = sanitize.scheme_of(html.unescape(url))  # java&#x09;script: is javascript:
        if read and read not in SAFE_SCHEMES:
            find(
                f"link {url[:80]!r}: the {read}: scheme is not allowed; use https:, http:,"
                " mailto: or a relative link",
                "scheme",
            )
            return
        if scheme or netloc:
            return

        if url.startswith(("/", "\\")):
            find(f"absolute link {url!r}: link to the page's Markdown file relatively", "absolute")
            return
        if not path:
            if anchor:
                self._anchors.append(_Anchor(page, page.file, anchor, url, line, col))
            return
        target = posixpath.normpath(
            posixpath.join(posixpath.dirname(page.file.src_uri), unquote(path))
        )
        if target.startswith("../") or target == "..":
            find(f"link {url!r} leaves the site", "outside")
            return
        found = files.get_file_from_path(target)
        if found is None:
            kind = "not a file" if not posixpath.splitext(path)[1] else "not found"
            find(f"link {url!r}: {target!r} is {kind} among the site's files", "not-found")
        elif anchor and found.page is not None:
            self._anchors.append(_Anchor(page, found, anchor, url, line, col))

    def on_env(self, env: Any, config: Any, files: Files) -> Any:
        """Every page is rendered now: check the anchors links point at.

        The theme's templates are compiled once and kept in the cache folder
        (checked against each template's source), not compiled on every build.
        """
        folder = cachedir.cache_dir("jinja")
        if folder is not None and env.bytecode_cache is None:
            env.bytecode_cache = FileSystemBytecodeCache(str(folder))
        if self.serving:
            self._spell_served_pages()
        for item in self._anchors:
            target_page = item.target.page
            ids = getattr(target_page, "present_anchor_ids", None)
            if ids is None or item.anchor in ids:
                continue
            where = "this page" if item.target is item.page.file else item.target.src_uri
            self.report(
                Finding(
                    self._shown(item.page.file),
                    item.line,
                    item.col,
                    "links",
                    f"link {item.url!r}: {where} has no anchor #{item.anchor}",
                    "links/anchor",
                )
            )
        return env

    def _spell_served_pages(self) -> None:
        """While serving, spelling of the rendered pages joins the other findings."""
        try:
            found = spell.check_served_pages(self.loaded.repo, self.page_words, self.page_sources)
        except UsageError as exc:
            found = [
                Finding(
                    spell.CONFIG,
                    1,
                    1,
                    spell.CHECK,
                    f"spelling is not checked while serving: {exc}",
                    "spell/unavailable",
                )
            ]
        for finding in found:
            self.report(finding)

    def on_page_context(self, context: Any, page: Any, config: Any, nav: Any) -> Any:
        """Point the edit link of an RFD page at its source in rfds/; while serving, show the
        problems on the page."""
        if self.serving:
            self._annotate(page)
        repo = self.loaded.repo
        if page.file.src_uri.startswith("rfds/") and page.file.src_dir == str(repo.root):
            repo_url = (config.repo_url or "").rstrip("/")
            if repo_url:
                page.edit_url = f"{repo_url}/edit/main/{page.file.src_uri}"
        return context

    def _annotate(self, page: Any) -> None:
        shown = self._shown(page.file)
        mine = [f for f in self.findings if f.path == shown]
        elsewhere = [f for f in self.findings if f.path != shown]
        urls = {path: file.url_relative_to(page.file) for path, file in self._page_files.items()}
        page.content = page_report.annotate(
            page.content or "", self.page_sources.get(shown, ""), mine, elsewhere, urls
        )

    def on_post_page(self, output: str, page: Any, config: Any) -> str:
        """Repair the theme's markup for readers (see `acp_docs.mkdocs.themefix`); outside `mkdocs
        serve`, put the Content-Security-Policy first in the page (`acp_docs.policy.csp`)."""
        repaired, missing = themefix.apply(output)
        for name in missing:
            self.report(
                Finding(
                    self._shown(page.file),
                    1,
                    1,
                    "build",
                    f"the theme's markup for {name} has changed: update "
                    "acp_docs/mkdocs/themefix.py",
                    "build/theme",
                )
            )
        if self.serving:
            return repaired
        with_policy = csp.apply(repaired)
        if with_policy is None:
            self.report(
                Finding(
                    self._shown(page.file),
                    1,
                    1,
                    "build",
                    "the page has no <head> for its"
                    " Content-Security-Policy: the theme's markup has changed",
                    "build/theme",
                )
            )
            return repaired
        return with_policy

    def on_post_template(self, output_content: str, template_name: str, config: Any) -> str:
        """The theme's pages that are not Markdown pages (404.html) get the policy too."""
        if self.serving or not template_name.endswith(".html"):
            return output_content
        return csp.apply(output_content) or output_content

    def _position(self, shown: str, text: str, url: str, occurrence: int) -> tuple[int, int]:
        """Line and column of the `occurrence`-th `url` in the page's source ((1, 1) if none).

        Each URL's places and the page's line starts are found once per page,
        so a page of many identical links is placed in linear time.
        """
        if self._places_of != shown:
            self._places_of = shown
            self._link_places = {}
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        places = self._link_places.get(url)
        if places is None:
            places = [m.start() for m in re.finditer(re.escape(url), text)] if url else []
            self._link_places[url] = places
        if not 0 < occurrence <= len(places):
            return 1, 1
        start = places[occurrence - 1]
        line = bisect.bisect_right(self._line_starts, start)
        return line, start - self._line_starts[line - 1] + 1
