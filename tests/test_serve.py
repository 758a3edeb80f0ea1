"""`mkdocs serve` as an author uses it: each problem shown on its page, gone once fixed.

One server runs for the module on a free loopback port, over a copy of the
repository with the sample RFD (see conftest). Each test edits files of that
copy (the sample RFD's, never one the repository may or may not hold), waits
for the served page to change, asserts what the author would see, then
restores the files and waits until the page is clean again.
"""

from __future__ import annotations

import html
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from devserver import DevServer
from test_readers_browser import AUDIT, AXE

from conftest import BIN, copy_sample, replace_in, require_tool, sample

pytestmark = pytest.mark.build

SAMPLE = sample()
RFD = SAMPLE.rfd
RFD_PAGE = SAMPLE.page
PAGE = SAMPLE.protocol
"""The sample RFD's protocol page, which links to the RFD's FAQ."""
PAGE_URL = f"protocol/{SAMPLE.slug}/"
FAQ_LINK = f"../rfds/{SAMPLE.slug}.md#frequently-asked-questions"
INVALID = ('"text": "urgent"', '"text": 42')
"""A valid value of an example of the RFD, and an invalid one."""
NOTE = re.compile(r'<aside class="acp-problem" id="(acp-problem-\d+)"[^>]*>(.*?)</aside>', re.S)


@pytest.fixture(scope="module")
def served(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    """`mkdocs serve` over a copy of the repository with the sample RFD, its page served."""
    require_tool("aspell", "Aspell")
    copy = copy_sample(sample_template, tmp_path_factory.mktemp("serve"))
    with DevServer(copy) as server:
        page = server.wait_for(RFD_PAGE, lambda page: page is not None, 120)
        if not _clean(page):  # each test would wait for a clean page in vain
            log = server.log().splitlines()
            located = [line for line in log if re.search(r"\S\.\w+:\d+:\d+", line)]
            pytest.fail(
                "the copy has problems before any edit (its repository does):\n"
                + "\n".join(located[-20:] or log[-20:]),
                pytrace=False,
            )
        yield server


def _clean(page: str | None) -> bool:
    return page is not None and "acp-problem" not in page


@contextmanager
def edited(server: DevServer, path: str, old: str, new: str, settle: bool = True) -> Iterator[None]:
    """Replace `old` with `new` in a file of the served copy; put it back afterwards.

    With `settle`, wait until the RFD page is served without any problem again.
    """
    file = server.root / path
    before = file.read_text(encoding="utf-8")
    replace_in(file, old, new)
    try:
        yield
    finally:
        file.write_text(before, encoding="utf-8")
        if settle:
            server.wait_for(RFD_PAGE, _clean, 120)


def _notes(page: str) -> dict[str, str]:
    return {
        ident: html.unescape(re.sub(r"<[^>]+>", "", body)) for ident, body in NOTE.findall(page)
    }


def _article(page: str) -> str:
    return page[page.index("<article") : page.index("</article>")]


def _line_of(server: DevServer, path: str, text: str) -> int:
    lines = (server.root / path).read_text(encoding="utf-8").split("\n")
    return next(n for n, line in enumerate(lines, start=1) if text in line)


def test_a_misspelt_word_is_noted_under_its_paragraph_and_goes_when_fixed(served) -> None:
    sentence = "so it costs little."
    with edited(served, RFD, sentence, sentence + " Zorblaxian qwyrt."):
        page = served.wait_for(
            RFD_PAGE, lambda p: p is not None and "Zorblaxian" in p and "acp-problem" in p
        )
        article = _article(page)
        notes = _notes(article)
        assert any("unknown word 'Zorblaxian'" in text for text in notes.values()), notes
        assert 'href="../../tooling/writing/#spelling"' in article
        # The note follows the very paragraph that holds the word, before any other block.
        paragraph_end = article.index("</p>", article.index("costs little. Zorblaxian"))
        first_note = article.index('<aside class="acp-problem"', paragraph_end)
        assert article[paragraph_end + 4 : first_note].strip() == ""
        # The summary at the top links to that note.
        summary = article[article.index('id="acp-problems"') :]
        assert summary.index('href="#acp-problem-') < summary.index("Zorblaxian")
    page = served.get(RFD_PAGE)
    assert page is not None and "Zorblaxian" not in page and "acp-problem" not in page


def test_an_invalid_example_is_noted_under_its_code_block(served) -> None:
    with edited(served, RFD, *INVALID):
        page = served.wait_for(RFD_PAGE, lambda p: p is not None and "invalid-payload" in p)
        article = _article(page)
        code = article.index('<span class="mi">42</span>')
        block_end = article.index("</div>", code) + len("</div>")
        note = article[block_end:].lstrip()
        assert note.startswith('<aside class="acp-problem"')
        first = html.unescape(note[: note.index("</aside>")])
        assert "examples/invalid-payload" in first
        assert "42 is not of type 'string'" in first
        # The terminal names the bad member itself: its line and column.
        said = re.search(
            rf"{RFD}:(\d+):(\d+): error: \[v1 ClientSessionCapabilities\]"
            rf" /{SAMPLE.prop}/badges/0/text",
            served.log(),
        )
        assert said is not None
        line, col = int(said.group(1)), int(said.group(2))
        lines = (served.root / RFD).read_text(encoding="utf-8").split("\n")
        assert lines[line - 1][col - 1 :].startswith('"text": 42'), lines[line - 1]


def test_broken_links_and_anchors_are_noted_and_located_in_the_terminal(served) -> None:
    sentence = "so it costs little."
    broken = sentence + " See [nothing](../nowhere.md) and [no anchor](#no-such-heading)."
    with edited(served, RFD, sentence, broken):
        page = served.wait_for(RFD_PAGE, lambda p: p is not None and "links/anchor" in p)
        notes = " ".join(_notes(_article(page)).values())
        assert "links/not-found" in notes and "links/anchor" in notes
        line = _line_of(served, RFD, "no-such-heading")
        log = served.log()
        assert f"{RFD}:{line}:" in log and "'../nowhere.md'" in log
        assert f"{RFD}:{line}:" in log.split("no-such-heading")[0].rsplit("\n", 1)[-1]


def test_broken_front_matter_is_noted_and_never_shown_as_text(served) -> None:
    with edited(served, RFD, "status: draft", "status: [draft"):
        page = served.wait_for(RFD_PAGE, lambda p: p is not None and "rfds/front-matter" in p)
        article = _article(page)
        assert "status: [draft" not in article and "discussion: https" not in article
        assert article.index('id="acp-problems"') < article.index("<h1")
        assert "malformed YAML front matter" in " ".join(_notes(article).values())


def test_a_problem_of_another_page_is_in_the_banner_with_a_link_to_its_note(served) -> None:
    with edited(
        served, PAGE, FAQ_LINK, FAQ_LINK.replace("#frequently-asked-questions", "#faq-gone")
    ):
        page = served.wait_for(RFD_PAGE, lambda p: p is not None and "acp-problems-elsewhere" in p)
        banner = page[page.index('id="acp-problems-elsewhere"') :]
        banner = banner[: banner.index("</details>")]
        assert "faq-gone" in banner and f'href="../../{PAGE_URL}#acp-problem-1"' in banner
        other = served.wait_for(PAGE_URL, lambda p: p is not None and "faq-gone" in p)
        assert "acp-problem-1" in _notes(_article(other))
        assert "no anchor #faq-gone" in _notes(_article(other))["acp-problem-1"]


def test_an_unchanged_page_is_checked_again_against_the_edited_one(served) -> None:
    # The protocol page is not edited: its rendering is reused, its link still checked.
    heading = "## Frequently asked questions"
    with edited(served, RFD, heading, "## Questions and answers"):
        page = served.wait_for(RFD_PAGE, lambda p: p is not None and "acp-problems-elsewhere" in p)
        assert "no anchor #frequently-asked-questions" in page
        assert f'href="../../{PAGE_URL}#acp-problem-1"' in page


def test_a_schema_source_edit_changes_the_reference_and_shows_the_drift(served) -> None:
    old = "One badge a Client knows how to show."
    new = "One guessed badge a Client knows how to show."
    with edited(served, SAMPLE.source, old, new):
        reference = served.wait_for("schema/v1/", lambda p: p is not None and "One guessed" in p)
        banner = reference[reference.index('id="acp-problems-elsewhere"') :]
        assert SAMPLE.fragment in banner
        assert "acp-docs schema generate" in banner


def test_a_normal_build_carries_none_of_it(served, tmp_path: Path) -> None:
    sentence = "so it costs little."
    with edited(served, RFD, sentence, sentence + " Zorblaxian [x](#nowhere-at-all)."):
        served.wait_for(RFD_PAGE, lambda p: p is not None and "acp-problem" in p)
        built = subprocess.run(
            [str(BIN / "mkdocs"), "build", "--site-dir", str(tmp_path / "site")],
            cwd=served.root,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert built.returncode == 0, built.stderr
        assert "nowhere-at-all" in built.stderr  # the warning is still printed
        pages = list((tmp_path / "site").rglob("*.html"))
        assert len(pages) > 10
        assert not [p for p in pages if "acp-problem" in p.read_text(encoding="utf-8")]


@pytest.mark.browser
def test_in_chromium_the_note_sits_under_the_code_block_it_is_about(served, browser) -> None:
    with edited(served, RFD, *INVALID):
        served.wait_for(RFD_PAGE, lambda p: p is not None and "invalid-payload" in p)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            page = context.new_page()
            page.goto(served.url + RFD_PAGE)
            note = page.locator("aside.acp-problem").first
            note.scroll_into_view_if_needed()
            assert note.is_visible()
            code = page.locator("div.highlight", has_text='"text": 42').first
            below = note.bounding_box()
            above = code.bounding_box()
            assert below is not None and above is not None
            assert 0 <= below["y"] - (above["y"] + above["height"]) < 40
            assert abs(below["x"] - above["x"]) < 2
            # The theme's own style sheets are served too (the theme lives outside the copy).
            header = page.locator("header.md-header").first
            assert header.evaluate("e => getComputedStyle(e).position") == "sticky"
            border = note.evaluate("e => getComputedStyle(e).borderLeftColor")
            assert border == "rgb(179, 38, 30)", border
            page.locator("#acp-problems a").first.click()
            assert page.evaluate("location.hash").startswith("#acp-problem-")
        finally:
            context.close()


@pytest.fixture(scope="module")
def audited(served, browser) -> dict[str, tuple[int, list[str]]]:
    """The notes, summary and banner page audited by axe in each scheme, after one edit.

    Per scheme: how many notes the page shows and axe's serious findings.
    """
    sentence = "so it costs little."
    found = {}
    with (
        edited(served, PAGE, f"../rfds/{SAMPLE.slug}.md#frequently", "#gone-"),
        edited(served, RFD, sentence, sentence + " Zorblaxian [x](#nowhere-at-all).", False),
    ):
        served.wait_for(RFD_PAGE, lambda p: p is not None and "acp-problems-elsewhere" in p)
        served.wait_for(RFD_PAGE, lambda p: p is not None and "nowhere-at-all" in p)
        for scheme in ("light", "dark"):
            context = browser.new_context(color_scheme=scheme)
            try:
                page = context.new_page()
                page.goto(served.url + RFD_PAGE)
                page.add_script_tag(path=str(AXE))
                found[scheme] = (page.locator("aside.acp-problem").count(), page.evaluate(AUDIT))
            finally:
                context.close()
    return found


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_notes_summary_and_banner_have_no_serious_axe_finding(audited, scheme) -> None:
    notes, violations = audited[scheme]
    assert notes >= 2
    assert violations == []


def test_a_build_that_fails_is_shown_on_the_page_and_goes_when_fixed(served) -> None:
    config = served.root / "mkdocs.yml"
    before = config.read_text(encoding="utf-8")
    config.write_text(before.replace("\nnav:\n", "\nnav: [\n", 1), encoding="utf-8")
    try:
        page = served.wait_for(RFD_PAGE, lambda p: p is not None and "acp-build-failed" in p)
        article = _article(page)
        notice = html.unescape(article[article.index('id="acp-build-failed"') :])
        assert notice.index("The site could not be built") < notice.index("Fix it and save")
        assert re.search(r'mkdocs\.yml", line \d+, column \d+', notice), notice[:600]
        # The page under the notice is still the last good build of the RFD.
        assert SAMPLE.title in article
        log = served.log()
        assert "acp-docs: the site could not be built" in log and "Traceback" not in log
    finally:
        config.write_text(before, encoding="utf-8")
    page = served.wait_for(RFD_PAGE, lambda p: p is not None and "acp-build-failed" not in p)
    assert page is not None and _clean(page)


def test_adding_the_word_to_the_word_list_clears_its_note_without_editing_the_page(
    served,
) -> None:
    """The word list is watched: the note goes when the word is added, the page untouched."""
    sentence = "so it costs little."
    with edited(served, RFD, sentence, sentence + " Zorblaxian."):
        served.wait_for(RFD_PAGE, lambda p: p is not None and "Zorblaxian" in p and _notes(p))
        wordlist = served.root / ".wordlist.txt"
        before = wordlist.read_text(encoding="utf-8")
        words = sorted({*before.split(), "Zorblaxian"})
        wordlist.write_text("\n".join(words) + "\n", encoding="utf-8")
        try:
            page = served.wait_for(RFD_PAGE, _clean, 120)
            assert "Zorblaxian" in page and "not sorted" not in page
        finally:
            wordlist.write_text(before, encoding="utf-8")


def test_the_pages_for_agents_are_served_as_text_and_follow_an_edit(served) -> None:
    import urllib.request

    for path in ("llms.txt", "llms-full.txt", f"{RFD_PAGE}index.md"):
        with urllib.request.urlopen(served.url + path, timeout=10) as response:
            kind = response.headers.get_content_type()
            body = response.read().decode("utf-8")
        assert kind in ("text/plain", "text/markdown"), (path, kind)
        assert "<html" not in body.lower(), path
    listed = served.get("llms.txt") or ""
    assert f"[{SAMPLE.title}](" in listed
    new = "A Client may show a few short, tidy badges"
    with edited(served, RFD, "A Client may show a few short badges", new):
        served.wait_for("llms-full.txt", lambda text: text is not None and new in text)
