"""The Content-Security-Policy of every page: present, exact, and enforced by Chromium."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from acp_docs.policy import csp

pytestmark = [pytest.mark.build, pytest.mark.browser]

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(
  e.violatedDirective));
"""
POLICY = re.compile(
    r'<head>\s*<meta charset="utf-8">\s*<meta http-equiv="Content-Security-Policy"'
    r' content="([^"]*)">'
)


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "assets" not in p.parts)


def test_every_page_starts_with_a_policy_that_allows_only_its_own_inline_scripts(
    built_site: Path,
) -> None:
    pages = _pages(built_site)
    assert pages
    for path in pages:
        text = path.read_text(encoding="utf-8")
        found = POLICY.search(text)
        assert found, f"{path}: no policy first in <head>"
        directives = dict(d.strip().split(" ", 1) for d in found.group(1).split(";"))
        assert "'unsafe-inline'" not in found.group(1) and "'unsafe-eval'" not in found.group(1)
        assert directives["object-src"] == "'none'" and directives["base-uri"] == "'none'"
        assert directives["default-src"] == "'self'"
        hashes = directives["script-src"].split()[1:]
        # Exactly the page's inline scripts: the theme's, none from its content.
        assert sorted(hashes) == sorted(csp.inline_script_hashes(text)), path
        assert len(hashes) <= 5, path


def test_chromium_blocks_an_inline_script_and_handler_that_reach_a_page(
    browser, served_site: tuple[Path, str]
) -> None:
    """Should content ever get past the sanitizer, the policy still stops it running."""
    site, url = served_site
    original = (site / "index.html").read_text(encoding="utf-8")
    planted = original.replace(
        "</article>",
        '<img src="nowhere.png" onerror="window.__ran = 1; alert(1)">'
        "<script>window.__ran = 2; alert(2)</script>"
        '<a id="away" href="javascript:window.__ran = 3">x</a></article>',
        1,
    )
    assert planted != original
    context = browser.new_context()
    dialogs: list[str] = []
    requests: list[str] = []
    try:
        page = context.new_page()
        page.add_init_script(RECORD_VIOLATIONS)
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.on("request", lambda request: requests.append(request.url))
        probe = url + "csp-probe/"
        page.route(probe, lambda route: route.fulfill(body=planted, content_type="text/html"))
        page.goto(probe)
        page.wait_for_load_state("networkidle")
        page.click("#away")
        page.wait_for_timeout(200)
        ran = page.evaluate("window.__ran")
        violations = page.evaluate("window.__cspViolations")
    finally:
        context.close()
    assert dialogs == [] and ran is None
    assert "script-src-attr" in violations and "script-src-elem" in violations
    host = urlsplit(url).netloc
    assert [r for r in requests if urlsplit(r).netloc not in ("", host)] == []
