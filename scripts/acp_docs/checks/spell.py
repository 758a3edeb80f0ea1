"""The `spell` check: the prose readers see, spell-checked by pyspelling after the one build.

The build hands over every page it rendered (`Pages`); the work is
`acp_docs.checks.aspell` and `acp_docs.checks.pyspell`, imported only when the
check runs.
"""

from __future__ import annotations

from typing import Any

from acp_docs.checks.registry import Check, Guide, Pages
from acp_docs.core.errors import UsageError

NAME = "spell"


def _preflight(repo: Any) -> None:
    from acp_docs.checks import aspell

    aspell.preflight(repo)


def _after_build(repo: Any, pages: Pages) -> list[Any]:
    """The spelling of the pages the build rendered. While serving, Aspell that cannot run is
    a finding shown on the pages (the served site has no summary to say it)."""
    from acp_docs.checks import aspell
    from acp_docs.core.findings import Finding

    if not pages.serving:
        from acp_docs.markdown.blocks import renderer

        render = renderer(repo.config)
        return aspell.check_pages(repo, dict(pages.html), dict(pages.sources), render)
    try:
        return aspell.check_served_pages(repo, dict(pages.html), dict(pages.sources))
    except UsageError as exc:
        message = f"spelling is not checked while serving: {exc}"
        return [Finding(aspell.CONFIG, 1, 1, NAME, message, "spell/unavailable")]


CHECK = Check(
    name=NAME,
    summary="A word Aspell does not know and the word list does not hold.",
    rules={
        NAME: "Fix the word, or add it to .wordlist.txt (kept sorted).",
        "spell/config": "Fix .pyspelling.yml: the message says which key.",
    },
    docs="spell",
    order=70,
    guide=Guide("docs/tooling/writing.md", "spelling", "Spelling"),
    preflight=_preflight,
    after_build=_after_build,
)
