"""The site: a strict build, the RFD page's anchors, the navigation and the RFD index.

The site is built from a checkout with the sample RFD (`site_repo`), whose
content the tests know; what they say of every RFD holds for whichever the
repository has.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from acp_docs.config.repo import Repo
from acp_docs.markdown.blocks import headings
from acp_docs.rfds import model as rfds
from acp_docs.rfds.model import SECTIONS, STATUSES

from conftest import ROOT, replace_in, run, sample

SAMPLE = sample()


def _slug(text: str) -> str:
    from markdown.extensions.toc import slugify

    return slugify(re.sub(r"`", "", text), "-")


@pytest.mark.build
def test_rfd_page_has_an_anchor_for_every_section_and_faq_question(built_site: Path) -> None:
    html = (built_site / SAMPLE.page / "index.html").read_text()
    ids = set(re.findall(r'id="([^"]+)"', html))
    source = SAMPLE.text
    heads = headings(source)
    faq_line = next(h.line for h in heads if h.text == "Frequently asked questions")
    history_line = next(h.line for h in heads if h.text == "Revision history")
    questions = [h.text for h in heads if h.level == 3 and faq_line < h.line < history_line]
    assert questions, "the FAQ has no questions"
    for text in [*SECTIONS, *questions]:
        assert _slug(text) in ids, f"no anchor for {text!r}"
    for seed_question in ("alternative approaches", "a list", "plain text"):
        assert any(seed_question in q for q in questions), seed_question


def test_navigation_lists_each_rfd_once_under_its_status(site_repo: Path) -> None:
    repo = Repo.load(site_repo)
    loaded = rfds.load_all(repo)
    assert SAMPLE.rfd in [r.docs_path for r in loaded]
    for rfd in loaded:
        entries = [e for e in repo.nav() if e.file == rfd.docs_path]
        group = ("RFDs", STATUSES[rfd.status], *((rfd.folder,) if rfd.folder else ()))
        assert [e.sections for e in entries] == [group], rfd.shown


@pytest.mark.build
def test_built_navigation_links_the_rfd_once_after_draft(built_site: Path) -> None:
    html = (built_site / "index.html").read_text()
    nav = html.split('<nav class="md-nav md-nav--primary', 1)[1]
    nav = nav.split('<div class="md-content"', 1)[0]
    links = [m.start() for m in re.finditer(rf'href="{SAMPLE.page}" class="md-nav', nav)]
    assert len(links) == 1
    before = nav[: links[0]]
    assert before.rfind("Draft") > before.rfind("Template")
    assert "Active" not in before[before.rfind("Draft") :]


@pytest.mark.build
def test_rfd_index_lists_the_rfd_with_its_status(built_site: Path, site_repo: Path) -> None:
    html = (built_site / "rfds" / "index.html").read_text()
    row = re.search(
        rf"<tr>\s*<td><a href=\"[^\"]*{SAMPLE.slug}/\">{SAMPLE.title}</a>.*?</tr>", html, re.S
    )
    assert row, "the RFD index has no row for the RFD"
    assert "<td>Draft</td>" in row.group(0)
    loaded = rfds.load_all(Repo.load(site_repo))
    (rfd,) = [r for r in loaded if r.slug == SAMPLE.slug]
    for author in rfd.meta["authors"]:
        assert f"@{author}" in row.group(0)
    draft = (built_site / "rfds" / "draft" / "index.html").read_text()
    assert f"{SAMPLE.title}</a>" in draft
    active = (built_site / "rfds" / "active" / "index.html").read_text()
    article = active.split("<article", 1)[1].split("</article>", 1)[0]
    assert f"{SAMPLE.slug}/" not in article
    if not [r for r in loaded if r.status == "active"]:
        assert "<table>" not in article


@pytest.mark.build
def test_no_page_names_a_repository_or_calls_a_repository_host(built_site: Path) -> None:
    for page in built_site.rglob("*.html"):
        html = page.read_text()
        assert 'class="md-source"' not in html, page  # Material's widget calls GitHub's API
        assert "/edit/main/" not in html, page


@pytest.mark.build
def test_site_has_tabs_search_palette_and_copy_buttons(built_site: Path) -> None:
    html = (built_site / "protocol" / SAMPLE.slug / "index.html").read_text()
    assert 'class="md-tabs"' in html
    assert 'data-md-component="search"' in html
    assert 'data-md-color-scheme="slate"' in html
    assert "tabbed-set" in html
    assert '"content.code.copy"' in html
    assert 'class="headerlink"' in html
    assert not (built_site / "assets" / "external").exists()
    assert "fonts.googleapis.com" not in html


@pytest.mark.build
def test_editing_an_rfd_is_picked_up_without_a_copy(sample_copy: Path) -> None:
    replace_in(
        sample_copy / SAMPLE.rfd,
        "Why would we change things?\n",
        "Why would we change things?\n\nA planted sentence about a lighthouse.\n",
    )
    out = sample_copy / "site"
    result = run(["mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=sample_copy)
    assert result.returncode == 0, result.stderr
    assert "lighthouse" in (out / SAMPLE.page / "index.html").read_text()
    docs = sample_copy / "docs"
    in_docs = [p.relative_to(sample_copy).as_posix() for p in docs.rglob(f"{SAMPLE.slug}.md")]
    assert in_docs == [SAMPLE.protocol], "only the protocol page: the RFD is not copied into docs/"
    assert not (docs / "rfds" / f"{SAMPLE.slug}.md").exists()


def _make(*args: str, extra: str = "") -> subprocess.CompletedProcess[str]:
    """`make` on the repository's Makefile, plus the rules in `extra` (read from stdin)."""
    return subprocess.run(
        ["make", "--no-print-directory", "-s", "-f", "Makefile", "-f", "-", *args],
        cwd=ROOT,
        input=extra,
        capture_output=True,
        text=True,
    )


def test_set_up_is_stamped_and_a_second_make_setup_would_install_nothing() -> None:
    """`make -n` prints what make would run, and runs nothing: after set-up, no install."""
    stamps = [".venv/.acp-docs-installed", "node_modules/.acp-docs-installed"]
    plan = _make("-n", *stamps)
    assert plan.returncode == 0, plan.stderr
    for step in ("pip install", "npm ci"):
        assert step not in plan.stdout, plan.stdout
    newer = _make("-n", "-W", "package-lock.json", *stamps)
    assert "npm ci" in newer.stdout and "pip install" not in newer.stdout, newer.stdout
    changed = _make("-n", "-W", "pyproject.toml", *stamps)
    assert "pip install" in changed.stdout and "npm ci" not in changed.stdout, changed.stdout


def test_python_finds_bytecode_beside_what_a_check_imports_never_in_the_cache() -> None:
    """Compiled code comes from beside its source (made by pip and `make setup`), never from
    the shared cache folder, and the standard library is not compiled again per process."""
    probe = (
        "import importlib.util, pathlib, sys, enum, pathlib as p, mkdocs, acp_docs.cli.main as c;"
        "missing = [m.__file__ for m in (enum, p, mkdocs, c)"
        " if not pathlib.Path(importlib.util.cache_from_source(m.__file__)).is_file()];"
        "print(sys.pycache_prefix, missing)"
    )
    shown = _make("probe", extra=f"probe:\n\t@$(BIN)/python -c '{probe}'\n")
    assert shown.returncode == 0, shown.stderr
    prefix, _, missing = shown.stdout.strip().partition(" ")
    assert prefix == "None", shown.stdout
    assert missing == "[]", f"compiled again in every process: {missing}"
