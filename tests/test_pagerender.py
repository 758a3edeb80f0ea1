"""A page's kept rendering comes back only while everything it was rendered from is the same."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mkdocs.structure.toc import AnchorLink, TableOfContents

from acp_docs.core import cachedir
from acp_docs.mkdocs.state import Link
from acp_docs.patches import pagerender

from conftest import RENDER_CONFIG, acp, no_traceback, replace_in


class _File:
    """A site file (hashable, as MkDocs's are)."""

    def __init__(self, src_uri: str, url: str) -> None:
        self.src_uri, self.url = src_uri, url


class _Files:
    """The site's files by path, each an address (what `get_file_from_path` finds)."""

    def __init__(self, urls: dict[str, str]) -> None:
        self.urls = urls

    def get_file_from_path(self, path: str) -> Any:
        url = self.urls.get(path)
        return None if url is None else _File(path, url)


class _Site:
    """Renders `guide.md` as MkDocs would: looks its link up, records it, may log."""

    def __init__(self) -> None:
        self.renders = 0
        self.links: list[Link] = []
        self.say: str | None = None

    def page(self, markdown: str, cache: pagerender.RenderCache, volatile: str = "") -> Any:
        page = SimpleNamespace(
            file=SimpleNamespace(src_uri="guide.md", url="guide/"),
            markdown=markdown,
            content=None,
            toc=None,
            present_anchor_ids=None,
            links_to_anchors=None,
        )

        def render(config: Any, files: Any) -> None:
            self.renders += 1
            target = files.get_file_from_path("other.md")
            href = target.url if target is not None else "other.md"
            page.content = f"<h1 id='top'>{page.markdown} {self.renders}</h1><a href='{href}'>"
            page.toc = TableOfContents([AnchorLink("Top", "top", 1)])
            page._title_from_render = "Guide"
            page.present_anchor_ids = {"top"}
            page.links_to_anchors = {target: {"x": "other.md#x"}} if target else {}
            self.links.append(Link("other.md#x", 1))
            if self.say:
                logging.getLogger("mkdocs.structure.pages").warning(self.say)

        page.render = render
        cache.install(page, "context", self.links, Link, volatile=volatile)
        return page


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "pages"


def _seen(page: Any, links: list[Link]) -> tuple[Any, ...]:
    return (
        page.content,
        [(i.title, i.id, i.level) for i in page.toc.items],
        page._title_from_render,
        page.present_anchor_ids,
        {f.src_uri: anchors for f, anchors in page.links_to_anchors.items()},
        [(x.url, x.occurrence) for x in links],
    )


def test_a_kept_page_comes_back_from_another_process_as_it_was_rendered(
    cache_dir: Path,
) -> None:
    files = _Files({"other.md": "other/"})
    site = _Site()
    first = site.page("Hello", pagerender.RenderCache())
    first.render(RENDER_CONFIG, files)
    rendered = _seen(first, site.links)
    site.links.clear()
    again = site.page("Hello", pagerender.RenderCache())  # a new process: the cache folder
    again.render(RENDER_CONFIG, files)
    assert site.renders == 1
    assert _seen(again, site.links) == rendered
    assert rendered[4] == {"other.md": {"x": "other.md#x"}}

    site.page("Hello, edited", pagerender.RenderCache()).render(RENDER_CONFIG, files)
    assert site.renders == 2, "other Markdown: rendered again"


def test_a_page_is_rendered_again_when_a_file_it_names_changes(cache_dir: Path) -> None:
    site = _Site()
    site.page("Hello", pagerender.RenderCache()).render(
        RENDER_CONFIG, _Files({"other.md": "other/"})
    )
    unrelated = _Files({"other.md": "other/", "new.md": "new/"})
    site.page("Hello", pagerender.RenderCache()).render(RENDER_CONFIG, unrelated)
    assert site.renders == 1, "a file the page does not name changes nothing"
    moved = site.page("Hello", pagerender.RenderCache())
    moved.render(RENDER_CONFIG, _Files({"other.md": "elsewhere/other/"}))
    assert site.renders == 2 and "href='elsewhere/other/'" in moved.content
    gone = site.page("Hello", pagerender.RenderCache())
    gone.render(RENDER_CONFIG, _Files({}))
    assert site.renders == 3 and "href='other.md'" in gone.content


def test_a_rendering_that_logged_is_rendered_and_says_it_again(
    cache_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    files = _Files({"other.md": "other/"})
    site = _Site()
    site.say = "Doc file 'guide.md' contains a link that is not found"
    cache = pagerender.RenderCache()
    for _ in range(2):
        with caplog.at_level(logging.INFO):
            site.page("Hello", cache).render(RENDER_CONFIG, files)
    assert site.renders == 2
    assert [r.getMessage() for r in caplog.records].count(site.say) == 2
    assert not cache_dir.exists() or not list(cache_dir.glob("*.json"))


def test_the_volatile_word_is_kept_as_a_slot_and_put_back(cache_dir: Path) -> None:
    files = _Files({})
    site = _Site()
    site.page("see ACPDIAGRAMaaaa", pagerender.RenderCache(), volatile="aaaa").render(
        RENDER_CONFIG, files
    )
    (kept,) = cache_dir.glob("*.json")
    assert "aaaa" not in str(cachedir.cache_dir("pages").read_json(kept.name))
    later = site.page("see ACPDIAGRAMbbbb", pagerender.RenderCache(), volatile="bbbb")
    later.render(RENDER_CONFIG, files)
    assert site.renders == 1 and "see ACPDIAGRAMbbbb 1" in later.content
    written = site.page(f"see {pagerender.SLOT}", pagerender.RenderCache(), volatile="bbbb")
    written.render(RENDER_CONFIG, files)
    written.render(RENDER_CONFIG, files)
    assert site.renders == 3, "a page that writes the slot itself is never kept"
    assert "bbbb" not in written.content


def test_a_damaged_planted_foreign_or_linked_cache_entry_is_rendered_again(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _Files({})
    site = _Site()
    site.page("Hello", pagerender.RenderCache()).render(RENDER_CONFIG, files)
    (kept,) = cache_dir.glob("*.json")
    folder = cachedir.cache_dir("pages")
    whole = folder.read_json(kept.name)
    assert whole["content"].startswith("<h1 id='top'>Hello")
    folder.write_json(kept.name, {"content": 3})  # sealed, but not a kept page
    site.page("Hello", pagerender.RenderCache()).render(RENDER_CONFIG, files)
    assert site.renders == 2
    site.links.clear()
    forged = [*whole["links"], {"url": "other.md#x", "forged": 1}]  # the first one restores
    folder.write_json(kept.name, {**whole, "links": forged})
    site.page("Hello", pagerender.RenderCache()).render(RENDER_CONFIG, files)
    assert site.renders == 3, "a kept page that does not restore whole is rendered"
    assert [(x.url, x.occurrence) for x in site.links] == [("other.md#x", 1)], "links once"

    planted = {**whole, "content": '<meta http-equiv="refresh" content="0;url=https://x.example">'}
    kept.write_text(json.dumps(planted))  # as the cache held entries before they were sealed
    page = site.page("Hello", pagerender.RenderCache())
    page.render(RENDER_CONFIG, files)
    assert site.renders == 4 and "x.example" not in page.content, "a planted entry is not used"

    monkeypatch.setenv(cachedir.KEY_VARIABLE, "another person's key, 32 chars")
    folder.write_json(kept.name, planted)  # sealed, with somebody else's key
    monkeypatch.delenv(cachedir.KEY_VARIABLE)
    page = site.page("Hello", pagerender.RenderCache())
    page.render(RENDER_CONFIG, files)
    assert site.renders == 5 and "x.example" not in page.content, "a foreign entry is not used"

    folder.write_json(kept.name, whole)
    elsewhere = tmp_path / "planted.json"
    elsewhere.write_bytes(kept.read_bytes())
    kept.unlink()
    kept.symlink_to(elsewhere)
    site.page("Hello", pagerender.RenderCache()).render(RENDER_CONFIG, files)
    assert site.renders == 6, "a link in the cache folder is not followed"
    other = cache_dir.parent / "elsewhere"
    other.mkdir()
    (other / kept.name).write_bytes(elsewhere.read_bytes())
    assert cachedir.Folder("elsewhere", other).read(kept.name) is None, "sealed for its kind"


HOSTILE = """# Hostile

[run](javascript:alert(1)) and [there](other.md#there) and [self](#nowhere).

<script>alert(2)</script>

<img src=x onerror=alert(3)>
"""
NOISY = "# Noisy\n\nMkDocs says this link is not found while rendering: [gone](gone.md).\n"


@pytest.mark.build
def test_a_warm_check_finds_on_kept_pages_what_a_cold_check_found(
    repo_copy: Path, tmp_path: Path
) -> None:
    docs = repo_copy / "docs" / "tooling"
    (docs / "hostile.md").write_text(HOSTILE, encoding="utf-8")
    (docs / "noisy.md").write_text(NOISY, encoding="utf-8")
    (docs / "other.md").write_text("# Other\n\n## There\n\nText.\n", encoding="utf-8")
    entry = "      - Checks: tooling/checks.md\n"
    pages = "".join(f"      - {n.title()}: tooling/{n}.md\n" for n in ("hostile", "noisy", "other"))
    replace_in(repo_copy / "mkdocs.yml", entry, entry + pages)
    env = {"ACP_DOCS_CACHE_DIR": str(tmp_path / "cache")}

    def findings() -> list[str]:
        # In this process, so each check's build is a fresh child: a warm one has only the cache.
        result = acp(["check", "--skip", "spell", "format"], cwd=repo_copy, env=env)
        no_traceback(result)
        assert result.returncode == 1, result.stdout + result.stderr
        return [line for line in result.stdout.splitlines() if line.startswith("docs/")]

    cold = findings()
    entries = (tmp_path / "cache" / "pages").glob("*.json")
    kept = [p.read_bytes().decode("utf-8", "replace") for p in entries]
    assert any("javascript:alert(1)" in text for text in kept), "the hostile page was kept"
    assert not any("gone.md" in text for text in kept), "a page MkDocs spoke of was not"
    said = "\n".join(cold)
    assert "javascript: scheme is not allowed" in said and "#nowhere" in said
    assert "'gone.md'" in said and "<script>" in said and "other.md#there" not in said
    assert findings() == cold, "restored pages: the same findings, at the same places"
    # The linked page changes, the linking page does not: its kept links are judged again.
    replace_in(docs / "other.md", "## There", "## Elsewhere")
    moved = findings()
    assert [x for x in moved if x not in cold] == [
        x for x in moved if "other.md#there" in x and "has no anchor #there" in x
    ]
    assert len(moved) == len(cold) + 1
