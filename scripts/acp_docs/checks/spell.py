"""The `spell` check: the prose readers see, spell-checked by pyspelling after the one build.

The build hands over every page it rendered (`SiteView`); the work is
`acp_docs.checks.spelling` and `acp_docs.checks.pyspelling_run`, imported only when the
check runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_docs.checks.registry import Check, Guide, SiteView
from acp_docs.core.errors import UsageError

NAME = "spell"


if TYPE_CHECKING:
    from acp_docs.config.repo import Repo
    from acp_docs.core.findings import Finding


def _preflight(repo: Repo) -> None:
    from acp_docs.checks import spelling

    spelling.preflight(repo)


def _site(pages: SiteView) -> list[Finding]:
    """The spelling of the pages the build rendered. While serving, Aspell that cannot run is
    a finding shown on the pages (the served site has no summary to say it)."""
    from acp_docs.checks import spelling
    from acp_docs.core.findings import Finding

    if pages.checkout is None:
        return []
    repo = pages.checkout.repo
    if not pages.serving:
        from acp_docs.markdown.blocks import renderer

        render = renderer(repo.config)
        return spelling.check_pages(repo, dict(pages.html), dict(pages.sources), render)
    try:
        return spelling.check_served_pages(repo, dict(pages.html), dict(pages.sources))
    except UsageError as exc:
        message = f"spelling is not checked while serving: {exc}"
        return [Finding(spelling.CONFIG, 1, 1, NAME, message, "spell/unavailable")]


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
    runs_in=frozenset({"check", "serve"}),
    site=_site,
)
