"""The page's Mermaid diagrams in the build: drawn, reported, and published after the allowlist.

`prepare` (from `on_page_markdown`) hands each ```mermaid block to the build's
`Publisher`, keeps what the drawing met for the checks, and leaves a placeholder
for each drawn one; `publish` (from `on_page_content`, after the page passed
the allowlist) puts the figures in; `write_stylesheet` (from `on_post_build`)
writes the rules of every drawing to the site.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_docs.checks.registry import Drawn
from acp_docs.diagrams import fences
from acp_docs.diagrams.publish import STYLESHEET, Publisher
from acp_docs.mkdocs.state import BuildState
from acp_docs.sources.textfile import write_atomic


def prepare(state: BuildState, markdown: str, source: str, page: Any) -> str:
    """`markdown` with each drawn diagram replaced by its placeholder; what the drawing met is
    kept for the checks' page hooks (`BuildState.drawn`)."""
    state.drawn.clear()
    if fences.LANG not in markdown:
        return markdown
    if state.publisher is None:
        state.publisher = Publisher(state.repo.root)
    publisher = state.publisher

    def drawn(diagram: fences.Diagram) -> str | None:
        outcome = publisher.publish(diagram.text, diagram.line)
        state.drawn.extend(Drawn(p.line, p.message, p.rule) for p in outcome.problems)
        if outcome.figure is None:
            return None
        word = fences.placeholder(outcome.ident)
        state.figures[word] = outcome.figure
        return word

    return fences.replace(markdown, source, drawn)


def publish(state: BuildState, html: str) -> str:
    """The published page `html` with each placeholder paragraph replaced by its figure (or
    the plugin's other HTML held in `state.figures`, such as a demo's root)."""
    if fences.secret() not in html:
        return html
    for word, figure in state.figures.items():
        html = html.replace(f"<p>{word}</p>", figure)
    return html


def write_stylesheet(state: BuildState, site_dir: str) -> None:
    """Write the diagram style sheet into the built site, and stop the renderer."""
    publisher = state.publisher
    sheet = publisher.stylesheet() if publisher is not None else Publisher.empty_stylesheet()
    target = Path(site_dir) / STYLESHEET
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, sheet)
    close(state)


def close(state: BuildState) -> None:
    """Stop the renderer's browser, if the build started one."""
    if state.publisher is not None:
        state.publisher.close()
