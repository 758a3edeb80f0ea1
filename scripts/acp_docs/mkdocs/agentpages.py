"""After the build: the pages for agents are reviewed as readers' pages are, each problem a
finding.

mkdocs-llmstxt has written `llms.txt`, `llms-full.txt` and each page's
Markdown beside its HTML (`index.md` beside `index.html`). Each is read by
`acp_docs.policy.agentfiles`; a problem of a page's Markdown is reported at
that page's source, one of `llms.txt` or `llms-full.txt` at `mkdocs.yml`,
which configures them. A link of `llms.txt` that leads to no file of the
site is a `links` finding; raw HTML or a link of another scheme is a `build`
finding, and the file is not published: it is emptied, so no agent reads it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_docs.checks.registry import build_problem
from acp_docs.mkdocs.state import BuildState
from acp_docs.policy import agentfiles
from acp_docs.sources.textfile import write_atomic

CONFIGURED_BY = "mkdocs.yml"


def _sources(state: BuildState, site: Path) -> dict[Path, str]:
    """Each page's Markdown output in the site -> the page's source, as findings name it."""
    out: dict[Path, str] = {}
    for file in state.page_files.values():
        dest = getattr(file, "dest_uri", "")
        if dest.endswith(".html"):
            out[site / Path(dest).with_suffix(".md")] = state.shown(file)
    return out


def review(state: BuildState, config: Any) -> None:
    """Report every problem of the site's agent pages; empty a file that holds unsafe markup."""
    site = Path(config.site_dir)
    if not (site / agentfiles.INDEX).exists():
        return
    sources = _sources(state, site)
    pages = sorted(p for p in sources if p.exists())
    site_url = config.site_url or ""
    for path, index in agentfiles.outputs(site, pages):
        text = path.read_text(encoding="utf-8", errors="replace")
        problems = agentfiles.review(text, site if index else None, site_url)
        shown = sources.get(path, CONFIGURED_BY)
        named = path.relative_to(site).as_posix()
        for problem in problems:
            rule = "links/agent-link" if problem.link else "build/agent-page"
            message = f"{named}, line {problem.line}: {problem.message}"
            state.report(build_problem(shown, 1, 1, message, rule))
        if any(not problem.link for problem in problems):
            write_atomic(path, "")
