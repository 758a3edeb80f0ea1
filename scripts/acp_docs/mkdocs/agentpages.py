"""After the build: the pages for agents are reviewed as readers' pages are, each problem a
finding.

mkdocs-llmstxt has written `llms.txt`, `llms-full.txt` and each page's
Markdown beside its HTML (`index.md` beside `index.html`). Each is read by
`acp_docs.policy.agentfiles`; a problem of a page's Markdown is reported at
that page's source, one of `llms.txt` or `llms-full.txt` at `mkdocs.yml`,
which configures them. A link of `llms.txt` that leads to no file of the
site is a `links` finding; raw HTML or a link of another scheme is a `build`
finding, and the file is not published: it is emptied, so no agent reads it.
The review of a page's Markdown is kept in the cache folder by its text.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from acp_docs.checks.registry import build_problem
from acp_docs.core import cachedir, memo
from acp_docs.mkdocs.state import BuildState
from acp_docs.patches import agentmarkdown
from acp_docs.policy import agentfiles
from acp_docs.sources.textfile import write_atomic

CONFIGURED_BY = "mkdocs.yml"
CACHE_KIND = "agent-reviews"
"""The cache folder's entries of each agent page's review (by its text)."""
KEPT = 2000
"""Entries kept after a build: those used last."""
REVIEWERS = ("markdown-it-py",)
"""The packages whose code reviews an agent page (`acp_docs.policy.agentfiles`)."""


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
    folder = cachedir.cache_dir(CACHE_KIND)
    for path, index in agentfiles.outputs(site, pages):
        text = path.read_text(encoding="utf-8", errors="replace")
        if index:  # its links are judged against the site's files: never kept
            problems = agentfiles.review(text, site, site_url)
        else:
            problems = _reviewed(folder, text, site_url)
        shown = sources.get(path, CONFIGURED_BY)
        named = path.relative_to(site).as_posix()
        for problem in problems:
            rule = "links/agent-link" if problem.link else "build/agent-page"
            message = f"{named}, line {problem.line}: {problem.message}"
            state.report(build_problem(shown, 1, 1, message, rule))
        if any(not problem.link for problem in problems):
            write_atomic(path, "")
    if folder is not None:
        folder.keep_latest(KEPT, ".json")


def _reviewed(folder: cachedir.Folder | None, text: str, site_url: str) -> list[agentfiles.Problem]:
    """The problems of one agent page that links nowhere in particular, kept in the cache
    folder by its text, the site's address and the engine (the review reads nothing else)."""
    if folder is None:
        return agentfiles.review(text, None, site_url)
    key = json.dumps([memo.engine_digest(), agentmarkdown.versions(REVIEWERS), site_url, text])
    name = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest() + ".json"
    held = folder.read_json(name)
    if isinstance(held, list) and all(_is_problem(row) for row in held):
        return [agentfiles.Problem(row[0], row[1], row[2]) for row in held]
    problems = agentfiles.review(text, None, site_url)
    folder.write_json(name, [[p.line, p.message, p.link] for p in problems])
    return problems


def _is_problem(row: object) -> bool:
    return (
        isinstance(row, list)
        and len(row) == 3
        and isinstance(row[0], int)
        and isinstance(row[1], str)
        and isinstance(row[2], bool)
    )
