"""What a reader of the built site gets: the RFD header, titles, navigation, links, downloads.

The site is built from a checkout with the sample RFD (`site_repo`); what the
tests say of every RFD holds for whichever RFDs the repository has.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from acp_docs.config.repo import Repo
from acp_docs.core import protocols
from acp_docs.rfds.model import STATUSES, load_all, schema_sources

from conftest import sample

pytestmark = pytest.mark.build

SAMPLE = sample()
RFD = SAMPLE.page.rstrip("/")


def _page(site: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((site / path / "index.html").read_text(encoding="utf-8"), "html.parser")


def _pages(site: Path) -> list[str]:
    return sorted(
        p.parent.relative_to(site).as_posix()
        for p in site.rglob("index.html")
        if "assets" not in p.parts
    )


def test_the_rfd_page_has_a_header_from_its_front_matter(built_site: Path, site_repo: Path) -> None:
    rfd = next(r for r in load_all(Repo.load(site_repo)) if r.slug == SAMPLE.slug)
    meta = rfd.meta or {}
    page = _page(built_site, RFD)
    header = page.select_one("article h1 + dl.acp-rfd-header")
    assert header is not None, "no header right under the title"
    fields = {
        div.dt.get_text(strip=True): div.dd for div in header.find_all("div", recursive=False)
    }
    assert list(fields) == ["Status", "Author", "Champion", "Created", "Discussion", "Pages"]
    # The RFD's other pages, grouped under it: its protocol page and schema reference.
    pages = {a.get_text(): a["href"] for a in fields["Pages"].find_all("a")}
    assert pages == {
        f"{rfd.title} (protocol)": f"../../protocol/{SAMPLE.slug}/",
        "Schema reference (v1)": "../../schema/v1/",
    }
    for href in pages.values():
        assert (built_site / "rfds" / SAMPLE.slug / href / "index.html").resolve().is_file()
    status = fields["Status"].a
    assert status.get_text() == STATUSES[meta["status"]]
    assert status["href"] == f"../{meta['status']}/"
    assert (built_site / "rfds" / meta["status"] / "index.html").is_file()
    authors = [a.get_text() for a in fields["Author"].find_all("a")]
    assert authors == [f"@{name}" for name in meta["authors"]]
    expected_champion = f"@{meta['champion']}" if meta.get("champion") else "none yet"
    assert fields["Champion"].get_text() == expected_champion
    assert fields["Created"].time["datetime"] == str(meta["created"])
    if meta["discussion"]:
        assert fields["Discussion"].a["href"] == meta["discussion"]
    else:
        assert fields["Discussion"].get_text() == "none yet"


def test_no_page_carries_an_unexplained_status_icon(built_site: Path) -> None:
    for path in _pages(built_site):
        assert "md-status" not in (built_site / path / "index.html").read_text(), path


def test_every_page_has_its_own_title(built_site: Path, site_repo: Path) -> None:
    titles: dict[str, str] = {}
    for path in _pages(built_site):
        title = _page(built_site, path).title.get_text()
        assert title not in titles, f"{path} and {titles.get(title)} share the title {title!r}"
        titles[title] = path
    site_name = Repo.load(site_repo).config["site_name"]
    assert titles[f"RFD: {SAMPLE.title} - {site_name}"] == RFD


def test_navigation_names_each_status_once_and_the_rfd_reads_on_to_a_full_page(
    built_site: Path,
) -> None:
    page = _page(built_site, RFD)
    nav = page.select_one("nav.md-nav--primary")
    labels = [a.get_text(" ", strip=True) for a in nav.select("a.md-nav__link")]
    for status in STATUSES.values():
        assert labels.count(status) == 1, (status, labels)
    following = page.select_one("a.md-footer__link--next")["href"]
    target = (built_site / RFD / following / "index.html").resolve()
    assert "No RFD is in" not in target.read_text(encoding="utf-8")


def test_an_empty_status_page_says_so_and_links_the_list_of_rfds(
    built_site: Path, site_repo: Path
) -> None:
    used = {r.status for r in load_all(Repo.load(site_repo))}
    empty = [status for status in STATUSES if status not in used]
    if not empty:
        pytest.skip("every status holds an RFD: no status page is empty")
    page = _page(built_site, f"rfds/{empty[0]}")
    text = page.select_one("article").get_text(" ", strip=True)
    assert f"No RFD is in {STATUSES[empty[0]]} at the moment." in text
    assert "list of RFDs" in text


def test_the_schema_reference_links_the_rfd_page_of_this_site(built_site: Path) -> None:
    page = _page(built_site, "schema/v1")
    links = [a["href"] for a in page.select("article a") if "RFD" in a.parent.get_text()]
    assert f"../../{SAMPLE.page}" in links
    assert not [h for h in links if "agentclientprotocol.com/rfds" in h]


def test_downloads_say_what_they_are(built_site: Path, site_repo: Path) -> None:
    page = _page(built_site, "schema")
    texts = [a.get_text(" ", strip=True) for a in page.select("article td a")]
    assert len(texts) == len(set(texts)), texts
    sources = schema_sources(Repo.load(site_repo))
    for version in protocols.NAMES:
        merged = json.loads((built_site / "schema" / version / "schema.unstable.json").read_text())
        changed = {s.slug for s in sources if version in s.versions}
        assert (SAMPLE.slug in changed) == (version == "v1")
        prefix = f"Agent Client Protocol {version}, unstable"
        if changed:
            assert merged["title"].startswith(f"{prefix} + RFDs: "), merged["title"]
            assert set(merged["title"].split(" + RFDs: ", 1)[1].split(", ")) == changed
        else:
            assert merged["title"] == f"{prefix} (no RFD merged in)"
        assert "@agentclientprotocol/sdk@" in merged["$comment"]
        stable = json.loads((built_site / "schema" / version / "schema.json").read_text())
        assert stable["title"].endswith(f"{version}, stable (no RFD merged in)")


def test_markers_expand_only_as_whole_lines_outside_code(built_site: Path) -> None:
    writing = _page(built_site, "tooling/writing")
    shown = [c.get_text() for c in writing.select("article code")]
    assert "<!-- acp-docs:rfd-index -->" in shown, "the marker in inline code is shown literally"
    assert any("<!-- acp-docs:rfd-index status=draft -->" in c for c in shown), "in a code block"
    assert writing.select("article th") == [] or "Champion" not in writing.get_text()
    assert SAMPLE.capabilities not in writing.get_text()
    index = _page(built_site, "rfds")
    assert [th.get_text() for th in index.select("article th")][:2] == ["RFD", "Status"]


def test_the_api_reference_is_not_searched_and_rfds_rank_up(
    built_site: Path, site_repo: Path
) -> None:
    index = json.loads((built_site / "search" / "search_index.json").read_text())
    locations = {doc["location"].split("#")[0] for doc in index["docs"]}
    assert "tooling/api/" not in locations
    boosts = {
        doc["location"]: doc.get("boost") for doc in index["docs"] if "#" not in doc["location"]
    }
    pages = [r.docs_path[: -len(".md")] + "/" for r in load_all(Repo.load(site_repo))]
    assert SAMPLE.page in pages
    for page in pages:
        assert boosts[page] == 2, page


def test_no_page_loads_anything_from_another_host(built_site: Path) -> None:
    for path in _pages(built_site):
        html = (built_site / path / "index.html").read_text(encoding="utf-8")
        page = BeautifulSoup(html, "html.parser")
        for tag, attribute in (("script", "src"), ("link", "href"), ("img", "src")):
            for element in page.find_all(tag):
                url = element.get(attribute) or ""
                if tag == "link" and element.get("rel") not in (["stylesheet"], ["icon"]):
                    continue
                assert not re.match(r"(https?:)?//", url), f"{path}: {tag} {url}"
        assert page.select('[data-md-component="source"]') == [], f"{path}: the repository widget"
