"""The MkDocs plugin `acp-docs`: RFDs into the site, generated sections, findings from the build.

Registered by the `mkdocs.plugins` entry point, so `mkdocs.yml` says only
`plugins: [acp-docs]`. Each event hands its work to the module of that job;
the plugin holds no knowledge of its own:

- `on_config` makes a fresh `BuildState` (`acp_docs.mkdocs.state`), loads
  the checkout (`acp_docs.checks.checkout`: RFDs, schema sources, merged
  schemas) and runs the selected checks' `sources` hooks. `mkdocs serve`
  picks up an edit of an RFD, a schema source or a fixture without a restart.
- `on_files` and `on_nav`: the site's files and navigation (`sitefiles`).
- The page events: markers (`markers`), metadata, the selected checks' `page`
  hooks, the allowlist (`pages`, `links`); `on_env`, once every page is
  rendered, their `site` hooks.
- The plugin names no check: it calls hooks. Which checks are selected is the
  registry's answer for `mkdocs build` or `mkdocs serve` (`Check.runs_in`), or
  what `acp-docs check` asks for (`select`).
- Every problem is a `Finding` on `findings`, and a build warning
  (`acp_docs.reporters.mkdocs_log`), so `mkdocs build --strict` fails on it.
- Under `mkdocs serve`, every finding is shown on the page it concerns, by
  the reporters that annotate pages (`acp_docs.reporters.registry.annotators`).
- A page whose rendering depends on nothing that changed is not rendered
  again (`acp_docs.patches.pagerender`): keyed by content, never by time, in
  memory while serving and in the cache folder for the next build.
- Patches of MkDocs and the Markdown engine (`acp_docs.patches`) apply from
  `on_config` to the end of the build, and only where they fit.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from jinja2.bccache import Bucket, BytecodeCache
from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files

from acp_docs.checks import checkout as checkouts
from acp_docs.checks import registry
from acp_docs.config import mkdocsconfig
from acp_docs.core import budget, memo
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.diagrams import fences
from acp_docs.diagrams.publish import STYLESHEET
from acp_docs.mkdocs import (
    agentpages,
    agentsections,
    apipages,
    diagrams,
    links,
    pages,
    servefail,
    sitefiles,
)
from acp_docs.mkdocs.state import BuildState, Link
from acp_docs.patches import (
    agentmarkdown,
    apirender,
    folderlinks,
    pagerender,
    renderspeed,
    servewatch,
    themefix,
)
from acp_docs.policy import csp
from acp_docs.reporters.registry import annotators


class _ProcessTemplates(BytecodeCache):
    """Compiled templates held in this process's memory only."""

    def __init__(self) -> None:
        self._held: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self._held:
            bucket.bytecode_from_string(self._held[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._held[bucket.key] = bucket.bytecode_to_string()


_TEMPLATES = _ProcessTemplates()


def _build_out_of_time(out: budget.OutOfTime) -> PluginError:
    where = f"{out.within}: " if out.within != out.what else ""
    return PluginError(
        f"{where}the build ran past its budget of {out.seconds:g} s"
        f"{' while reading this' if where else ''}; input made to be slow is refused"
        " (ACP_DOCS_BUILD_SECONDS sets another budget)"
    )


class AcpDocsConfig(base.Config):
    """The plugin's options in mkdocs.yml (all optional)."""

    serve_poll = c.Type(float, default=0.1)
    """Seconds between two looks at the watched folders under `mkdocs serve` (MkDocs: 0.5)."""
    serve_debounce = c.Type(float, default=0.05)
    """Seconds `mkdocs serve` waits for more changes before it rebuilds (MkDocs: 0.1)."""


class AcpDocsPlugin(BasePlugin[AcpDocsConfig]):
    """The `acp-docs` MkDocs plugin; `findings` holds every problem of the last build."""

    def __init__(self) -> None:
        self.serving = False
        """True under `mkdocs serve`: findings are then shown on the pages too."""
        self._state: BuildState | None = None
        self._renders = pagerender.RenderCache()
        self._api = apirender.ApiRenders()
        self._patches = ExitStack()
        self._repair_theme = True
        self._chosen: frozenset[str] | None = None
        self._run_sources = True

    def select(self, names: Iterable[str], sources: bool) -> None:
        """Run only the hooks of the checks `names`, and their `sources` hooks only when
        `sources` (`acp-docs check` runs those in its own process)."""
        self._chosen = frozenset(names)
        self._run_sources = sources

    @property
    def mode(self) -> str:
        """`serve`, `check` (selected by `acp-docs check`) or `build`."""
        return "serve" if self.serving else "check" if self._chosen is not None else "build"

    @property
    def state(self) -> BuildState:
        """The current build (made by `on_config`)."""
        if self._state is None:
            raise RuntimeError("the acp-docs plugin has not seen on_config yet")
        return self._state

    @property
    def findings(self) -> list[Finding]:
        """Every problem the last build found, each once."""
        return self.state.findings

    @property
    def page_html(self) -> dict[str, str]:
        """Each rendered page's content, by source path, for the checks after the build."""
        return self.state.page_html

    @property
    def page_sources(self) -> dict[str, str]:
        """Each rendered page's Markdown as written, by source path."""
        return self.state.page_sources

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """Note whether this process serves the site (the plugin then lives across rebuilds)."""
        self.serving = command == "serve"

    def on_serve(self, server: Any, config: Any, builder: Any) -> Any:
        """Notice a saved file sooner than MkDocs's default; show a failed build on the pages."""
        site_dir = Path(config.site_dir) if config.site_dir else None

        def guard(build: Any) -> Any:
            return servefail.guard(build, site_dir) if site_dir is not None else build

        return servewatch.apply(server, self.config.serve_poll, self.config.serve_debounce, guard)

    def on_config(self, config: Any) -> Any:
        """A fresh build: the registered checks, the patches, the repository and its findings."""
        self._patches.close()  # a build that raised before its end left them applied
        root = Path(config.config_file_path).resolve().parent
        refused = mkdocsconfig.effective_output_problem(root, config.site_dir, config.docs_dir)
        if refused is not None:  # before MkDocs empties the folder
            raise PluginError(f"{mkdocsconfig.CONFIG_NAME}: {refused}")
        try:
            checks = registry.load_checks(root)
        except UsageError as exc:
            raise PluginError(str(exc)) from None
        chosen = self._chosen
        selected = {
            name: check
            for name, check in checks.items()
            if (name in chosen if chosen is not None else self.mode in check.runs_in)
        }
        self._state = state = BuildState(checks, self.serving, selected, self.mode)
        whole = budget.start("the build", budget.build_seconds(), _build_out_of_time)
        self._patches.callback(budget.stop, whole)
        self._patches.enter_context(folderlinks.applied())
        self._patches.enter_context(renderspeed.applied())
        self._patches.enter_context(agentmarkdown.applied())
        self._repair_theme = themefix.PATCH.usable()
        try:
            state.loaded = loaded = checkouts.load(root, self.serving)
        except UsageError as exc:
            raise PluginError(str(exc)) from None
        if self._run_sources:
            for check in registry.with_hook(selected.values(), "sources"):
                state.run_hook(check, "sources", loaded)
        if loaded.tree.undecodable:
            raise PluginError(
                f"{loaded.tree.undecodable[0]}: the file name is not UTF-8, and MkDocs cannot"
                " build a site that holds it; rename it"
            )
        config.markdown_extensions.append(links.LinkExtension(state.links))
        config.markdown_extensions.append(apipages.AutodocGuard(state.api))
        if STYLESHEET not in config.extra_css:
            config.extra_css.append(STYLESHEET)  # written by on_post_build: the diagrams' styles
        return config

    def on_files(self, files: Files, config: Any) -> Files:
        """Add the RFD sources and the published schema files to the build; name the pages
        for agents (`llms.txt`), from the navigation, before the llmstxt plugin reads them."""
        files = sitefiles.vet_and_add(self.state, files, config)
        for finding in self.state.api.add_to(files, config, self.state.repo.root):
            self.state.report(finding)
        agentsections.fill(config, files)
        autorefs = "autorefs" in config["plugins"]
        if pagerender.PATCH.usable() and (not autorefs or pagerender.ANCHORS.usable()):
            self.state.render_context = pagerender.context_key(config, memo.engine_digest())
        return files

    def on_nav(self, nav: Any, config: Any, files: Files) -> Any:
        """Every page must be reachable from the navigation."""
        return sitefiles.check_nav(self.state, nav, files)

    def on_page_markdown(self, markdown: str, page: Any, config: Any, files: Files) -> str:
        """Escape the page's titles, keep the metadata it may set, then replace its markers."""
        state = self.state
        context = state.render_context
        api = apipages.keep_rendering(
            state.api, self._api, page, config, context, (state.links, Link)
        )
        if not api and context is not None:  # an API page is kept by its sources
            allowed = sorted(state.api.allowed.get(page.file.src_uri, ()))  # the `:::` guard's
            self._renders.install(
                page,
                f"{context}:{allowed}",
                state.links,
                Link,
                config["plugins"].get("autorefs"),
                volatile=fences.secret(),  # in the diagrams' placeholders
            )
        return pages.prepare(state, markdown, page)

    def on_page_content(self, html: str, page: Any, config: Any, files: Files) -> str:
        """Check the page's examples, links and registered page checks; publish only what the
        allowlist keeps."""
        return pages.check_content(self.state, html, page, files)

    def on_env(self, env: Any, config: Any, files: Files) -> Any:
        """Every page is rendered now: run the selected checks' `site` hooks.

        The theme's templates are compiled once a process and kept in its memory
        (`mkdocs serve` rebuilds without compiling them again); compiled code is
        never read from the cache folder, which anyone may have written.
        """
        if env.bytecode_cache is None:
            env.bytecode_cache = _TEMPLATES
        state = self.state
        site = registry.with_hook(state.selected.values(), "site")
        if site:
            view = registry.SiteView(
                state.page_html,
                state.page_sources,
                serving=self.serving,
                checkout=state.loaded_or_fail(),
                files=links.site_files(state, files),
                links=state.links_of,
                nav=state.nav,
            )
            for check in site:
                state.run_hook(check, "site", view)
        return env

    def on_page_context(self, context: Any, page: Any, config: Any, nav: Any) -> Any:
        """Point the edit link of an RFD page at its source in rfds/; while serving, show the
        problems on the page."""
        state = self.state
        if self.serving:
            shown = state.shown(page.file)
            mine = [f for f in state.findings if f.path == shown]
            # Other pages' warnings and notes stay on their own pages: a banner on every page
            # is for what fails the check.
            elsewhere = [f for f in state.findings if f.path != shown and f.fails]
            urls = {
                path: file.url_relative_to(page.file) for path, file in state.page_files.items()
            }
            for annotator in annotators():
                page.content = annotator(
                    page.content or "",
                    state.page_sources.get(shown, ""),
                    mine,
                    elsewhere,
                    urls,
                    state.checks,
                )
        pages.edit_url(state, page, config.repo_url)
        return context

    def on_post_page(self, output: str, page: Any, config: Any) -> str:
        """Repair the theme's markup for readers; outside `mkdocs serve`, put the
        Content-Security-Policy first in the page."""
        return pages.finish(self.state, output, page, self._repair_theme)

    def on_post_template(self, output_content: str, template_name: str, config: Any) -> str:
        """The theme's pages that are not Markdown pages (404.html) get the policy too."""
        if self.serving or not template_name.endswith(".html"):
            return output_content
        return csp.apply(output_content) or output_content

    @event_priority(-100)  # after llmstxt has written the pages for agents
    def on_post_build(self, *, config: Any) -> None:
        """The build is done: write the diagrams' style sheet, review the pages for agents,
        undo the patches it applied."""
        try:
            diagrams.write_stylesheet(self.state, config.site_dir)
            agentpages.review(self.state, config)
        finally:
            self._patches.close()

    def on_build_error(self, *, error: Exception) -> None:
        """The build failed: stop the diagram renderer, undo the patches it applied."""
        if self._state is not None:
            diagrams.close(self._state)
        self._patches.close()
