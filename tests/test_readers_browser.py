"""Every page as a reader meets it in Chromium: no third-party request, no serious axe finding.

Each of light and dark, desktop (1280 px) and phone (390 px) is one visit:
the home page is loaded afresh, then every page of the built site is reached
by Material's instant navigation, as a reader clicking through would, and
axe-core (pinned in package.json, injected from node_modules) checks each.

The generated API pages (one template, long member lists: most of a sweep's
time) are checked whole in the light desktop visit. The dark phone visit checks
the fewest of them that together hold every kind of element they have (a tag
with its classes, under the classes of its nearest ancestor that has some), so
each kind is seen in both schemes and at both widths. Every other page is
checked in all four visits.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from acp_docs.markdown import htmlscan
from acp_docs.mkdocs import apipages

from conftest import ROOT, sample

pytestmark = [pytest.mark.build, pytest.mark.browser]

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
MODES = [
    ("light", 1280),
    ("dark", 1280),
    ("light", 390),
    ("dark", 390),
]
API_MODES = {("light", 1280): "all", ("dark", 390): "covering"}
"""The visits that check the generated API pages too: all of them, or a covering set."""

NAVIGATE = """(url) => new Promise((resolve, reject) => {
  // A click on a link, as a reader's: Material's instant navigation takes it over.
  // Material ignores some links (one to the page shown): fail then, never hang.
  const late = setTimeout(() => reject(new Error(`no instant navigation to ${url}`)), 30000);
  const link = document.createElement("a");
  link.href = url;
  document.querySelector(".md-content").append(link);
  let first = true;
  const subscription = document$.subscribe(() => {
    if (first) { first = false; return; }
    setTimeout(() => {
      clearTimeout(late);
      subscription.unsubscribe();
      resolve(location.href);
    });
  });
  link.click();
})"""

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(
  `${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
"""

AUDIT = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join(", ")}`);
}"""


def _pages(site: Path, api: str | None) -> list[str]:
    """Every page's path in the site; the generated API pages `all` or `covering`."""
    found, generated = [], []
    for page in site.rglob("index.html"):
        path = "" if page.parent == site else page.parent.relative_to(site).as_posix() + "/"
        if "assets" in page.parts:
            continue
        if path.startswith(f"{apipages.FOLDER}/") and path != f"{apipages.FOLDER}/":
            generated.append(path)
        else:
            found.append(path)
    if api == "all":
        found += generated
    elif api == "covering":
        found += _covering(site, generated)
    return sorted(found)


class _Kinds(htmlscan.ElementParser):
    """Each element's kind: its tag and classes, and the classes of its nearest classed ancestor."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[tuple[str, str]] = []
        self.kinds: set[tuple[str, str, str]] = set()

    def _kind(self, tag: str, attrs: htmlscan.Attrs) -> str:
        classes = " ".join(sorted((dict(attrs).get("class") or "").split()))
        self.kinds.add((tag, classes, next((c for _t, c in reversed(self.open) if c), "")))
        return classes

    def opened(self, tag: str, attrs: htmlscan.Attrs) -> None:
        self.open.append((tag, self._kind(tag, attrs)))

    def void(self, tag: str, attrs: htmlscan.Attrs) -> None:
        self._kind(tag, attrs)

    def closed(self, tag: str) -> None:
        for index in range(len(self.open) - 1, -1, -1):
            if self.open[index][0] == tag:
                del self.open[index:]
                break


def _covering(site: Path, paths: list[str]) -> list[str]:
    """The fewest of `paths` (greedily) that together hold every kind of element they hold."""
    kinds = {}
    for path in paths:
        parser = _Kinds()
        parser.feed((site / path / "index.html").read_text(encoding="utf-8"))
        kinds[path] = parser.kinds
    left = set().union(*kinds.values()) if kinds else set()
    chosen = []
    while left:
        best = max(sorted(kinds), key=lambda path: len(kinds[path] & left))
        chosen.append(best)
        left -= kinds[best]
    return chosen


@pytest.mark.parametrize(("scheme", "width"), MODES, ids=[f"{s}-{w}px" for s, w in MODES])
def test_every_page_is_accessible_and_asks_no_other_host(
    browser, served_site: tuple[Path, str], scheme: str, width: int
) -> None:
    site, url = served_site
    context = browser.new_context(
        viewport={"width": width, "height": 900}, color_scheme=scheme, is_mobile=width < 600
    )
    requests: list[str] = []
    errors: list[str] = []
    try:
        page = context.new_page()
        page.add_init_script(RECORD_VIOLATIONS)
        page.on("request", lambda request: requests.append(request.url))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
        page.wait_for_load_state("networkidle")
        # Evaluated by the driver: the page's Content-Security-Policy would refuse it as a tag.
        page.evaluate(AXE.read_text(encoding="utf-8"))
        found: dict[str, list[str]] = {}
        pages = _pages(site, API_MODES.get((scheme, width)))
        assert len(pages) > 15, pages
        api = [p for p in pages if p.startswith(f"{apipages.FOLDER}/") and p.count("/") > 2]
        assert bool(api) == ((scheme, width) in API_MODES), pages
        for path in pages:
            # The home page is the fresh visit; every other page is reached from it.
            if path:
                assert page.evaluate(NAVIGATE, url + path) == url + path
            violations = page.evaluate(AUDIT)
            if violations:
                found[path or "/"] = violations
        page.wait_for_load_state("networkidle")
        blocked = page.evaluate("window.__cspViolations")
    finally:
        context.close()
    assert found == {}
    assert blocked == [], "the site's own pages break its Content-Security-Policy"
    host = urlsplit(url).netloc
    assert [r for r in requests if urlsplit(r).netloc not in ("", host)] == []
    assert errors == []


def test_search_ranks_the_rfd_and_the_protocol_page_first(
    browser, served_site: tuple[Path, str]
) -> None:
    url = served_site[1]
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url)
        page.locator(".md-search__input").click()
        page.keyboard.type("marmalade")  # a word of the sample RFD and its protocol page
        results = page.locator(".md-search-result__item > .md-search-result__link")
        results.first.wait_for()
        hrefs = results.evaluate_all("links => links.map((a) => a.href)")
    finally:
        context.close()
    pages = list(dict.fromkeys(h[len(url) :].split("?")[0] for h in hrefs))
    assert sorted(pages[:2]) == sorted([sample().page, f"protocol/{sample().slug}/"]), pages
    assert not [p for p in pages if p.startswith("tooling/api")]


def test_on_a_phone_tables_become_cards_and_identifiers_stay_whole(
    browser, served_site: tuple[Path, str]
) -> None:
    url = served_site[1]
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(url + "schema/v1/")
        page.wait_for_selector("table[data-acp-columns]")
        layout = page.evaluate(
            """() => [...document.querySelectorAll("article table")].map((t) => ({
              overflows: t.scrollWidth > t.closest("article").clientWidth + 1,
              unlabelled: [...t.querySelectorAll("tbody td")].filter(
                (td) => !td.dataset.acpColumn).length,
              broken: [...t.querySelectorAll("code")]
                .filter((c) => c.getClientRects().length > 1).map((c) => c.textContent),
            }))"""
        )
    finally:
        context.close()
    assert layout, "the v1 reference has no table"
    for table in layout:
        assert table == {"overflows": False, "unlabelled": 0, "broken": []}
