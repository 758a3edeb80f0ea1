"""Pages for agents: `llms.txt`, `llms-full.txt` and each page's Markdown beside its HTML.

What an agent reads must be what a reader sees, allowlisted the same way:
the tests read the built site's files as a CommonMark renderer does.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from markdown_it import MarkdownIt

from acp_docs.policy import agentfiles

from conftest import add_sample, copy_repo, replace_in, run, sample

LINK = re.compile(r"^- \[(?P<title>[^\]]+)\]\((?P<url>[^)]+)\)(?::\s(?P<description>.+))?$")


def _entries(site: Path) -> list[re.Match[str]]:
    lines = (site / "llms.txt").read_text(encoding="utf-8").splitlines()
    listed = [line for line in lines if line.startswith("- ")]
    matches = [LINK.match(line) for line in listed]
    assert all(matches), [line for line, m in zip(listed, matches, strict=True) if m is None]
    return [m for m in matches if m is not None]


def _local(url: str) -> str:
    return urlsplit(url).path


def _site_path(site: Path, url: str, base: str) -> Path:
    path = _local(url)
    assert path.startswith(base), (url, base)
    return site / path[len(base) :]


def _base(site: Path, entries: list[re.Match[str]]) -> str:
    """The site's path prefix in the links (`/` at the root, `/repo/` under a project site)."""
    home = min((_local(m["url"]) for m in entries), key=len)
    return home[: -len("index.md")]


@pytest.mark.build
def test_llms_txt_lists_every_page_of_the_site_with_its_description(built_site: Path) -> None:
    entries = _entries(built_site)
    base = _base(built_site, entries)
    listed = {_site_path(built_site, m["url"], base).with_suffix(".html") for m in entries}
    pages = {p for p in built_site.rglob("index.html")}
    assert listed == pages
    assert all(m["description"] and m["description"].strip() for m in entries), [
        m[0] for m in entries if not m["description"]
    ]
    text = (built_site / "llms.txt").read_text(encoding="utf-8")
    assert text.startswith("# ") and "\n> " in text and "\n## " in text


@pytest.mark.build
def test_every_link_of_llms_txt_leads_to_a_file_of_the_site(built_site: Path) -> None:
    entries = _entries(built_site)
    base = _base(built_site, entries)
    for entry in entries:
        target = _site_path(built_site, entry["url"], base)
        assert target.is_file(), entry[0]
        assert target.with_suffix(".html").is_file(), entry[0]


@pytest.mark.build
def test_sections_follow_the_navigation_and_rfds_are_grouped_by_status(built_site: Path) -> None:
    text = (built_site / "llms.txt").read_text(encoding="utf-8")
    sections = re.findall(r"^## (.+)$", text, re.M)
    assert sections.index("RFDs: Draft") < sections.index("RFDs: Completed")
    draft = text.split("## RFDs: Draft", 1)[1].split("\n## ", 1)[0]
    assert f"[{sample().title}](" in draft


@pytest.mark.build
def test_llms_full_holds_the_rfds_rules_and_its_examples_with_their_titles(
    built_site: Path,
) -> None:
    full = (built_site / "llms-full.txt").read_text(encoding="utf-8")
    assert "A session may be urgent and shared at once." in full
    assert "Invalid ClientSessionCapabilities (v1): a badge has text\n\n```json" in full
    page = built_site / sample().page / "index.md"
    markdown = page.read_text(encoding="utf-8")
    assert markdown.startswith(f"# {sample().title}\n")
    assert "Status : [Draft]" in markdown  # the RFD header, as readers see it
    protocol = (built_site / "protocol" / sample().slug / "index.md").read_text(encoding="utf-8")
    assert "A proposal, not ACP" in protocol


@pytest.mark.build
def test_every_agent_page_of_the_site_passes_the_allowlist(built_site: Path) -> None:
    pages = sorted(built_site.rglob("index.md"))
    for path, _index in agentfiles.outputs(built_site, pages):
        text = path.read_text(encoding="utf-8")
        assert agentfiles.review(text) == [], path
    assert not any("acp-docs:" in p.read_text(encoding="utf-8").split("`")[0] for p in pages)


HOSTILE_PAGE = """\
---
description: "<script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(2)>"
---

# Hostile

Text that reads as markup: &lt;img src=x onerror=alert(3)&gt; and
&lt;script&gt;alert(4)&lt;/script&gt;, a bracket pair [y](javascript:alert(5))
written as text, and `<b>code</b>` in code.

<div onclick="alert(6)"><b>raw</b> <a href="javascript:alert(7)">link</a></div>

[a link](javascript:alert(8)) and ![an image](data:image/png;base64,AAAA)
"""


def _built_with(tmp_path: Path, name: str, text: str, *flags: str) -> tuple[Path, Any]:
    """A copy of the repository with `docs/tooling/<name>.md` in its nav, built: (site, run)."""
    repo = copy_repo(tmp_path)
    (repo / "docs" / "tooling" / f"{name}.md").write_text(text, encoding="utf-8")
    replace_in(
        repo / "mkdocs.yml",
        "      - Checks: tooling/checks.md\n",
        f"      - Checks: tooling/checks.md\n      - tooling/{name}.md\n",
    )
    site = tmp_path / "site"
    return site, run(["mkdocs", "build", *flags, "--site-dir", str(site)], cwd=repo)


def _hostile_site(tmp_path: Path) -> tuple[Path, str]:
    site, result = _built_with(tmp_path, "hostile", HOSTILE_PAGE)
    assert result.returncode == 0, result.stderr
    return site, result.stderr


def _unsafe(text: str) -> list[str]:
    found = []
    parser = MarkdownIt("commonmark")
    parser.validateLink = lambda url: True  # a link of any scheme is a link, as elsewhere
    for token in parser.parse(text):
        for node in [token, *(token.children or [])]:
            if node.type in ("html_block", "html_inline"):
                found.append(node.content)
            for attr in ("href", "src"):
                value = str(node.attrGet(attr) or "")
                scheme = urlsplit(value).scheme
                if scheme and scheme not in ("http", "https", "mailto"):
                    found.append(value)
    return found


@pytest.mark.build
def test_nothing_a_hostile_page_holds_reaches_the_pages_for_agents(tmp_path: Path) -> None:
    site, _log = _hostile_site(tmp_path)
    outputs = [site / "llms.txt", site / "llms-full.txt", site / "tooling/hostile/index.md"]
    for path in outputs:
        text = path.read_text(encoding="utf-8")
        assert _unsafe(text) == [], (path, _unsafe(text))
    page = outputs[2].read_text(encoding="utf-8")
    assert "onerror=alert(3)" in page  # the text a reader sees, as text
    assert "`<b>code</b>`" in page  # code keeps its characters
    hostile = next(line for line in outputs[0].read_text().splitlines() if "Hostile" in line)
    assert "\\<script\\>" in hostile and "(javascript:" not in hostile


@pytest.mark.build
def test_a_title_that_forges_a_link_in_llms_txt_is_a_finding_and_not_published(
    tmp_path: Path,
) -> None:
    forged = "---\ntitle: 'x](javascript:alert(1)) [y'\n---\n\n# Forged\n\nA page.\n"
    site, result = _built_with(tmp_path, "forged", forged, "--strict")
    assert result.returncode != 0
    assert "llms.txt" in result.stderr and "'javascript'" in result.stderr, result.stderr
    assert "javascript:" not in (site / "llms.txt").read_text(encoding="utf-8")


@pytest.mark.build
def test_the_same_build_gives_the_same_bytes(tmp_path: Path) -> None:
    repo = copy_repo(tmp_path)
    add_sample(repo)
    sites = []
    for name in ("one", "two"):
        site = tmp_path / name
        result = run(["mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=repo)
        assert result.returncode == 0, result.stderr
        sites.append(site)
    one, two = sites
    agent_files = [p.relative_to(one) for p in one.rglob("*") if p.suffix in (".md", ".txt")]
    assert len(agent_files) > 3
    for relative in agent_files:
        assert (one / relative).read_bytes() == (two / relative).read_bytes(), relative


def test_review_finds_raw_html_other_schemes_and_links_to_nothing(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.md").write_text("# A\n")
    text = "# S\n\n- [A](/a/index.md)\n- [B](/b/index.md)\n- [C](javascript:x)\n\n<div>x</div>\n"
    problems = agentfiles.review(text, tmp_path)
    assert [(p.line, p.link) for p in problems] == [(4, True), (5, False), (7, False)]
    assert agentfiles.review("a <b>c</b>\n")[0].message.startswith("raw HTML")


@pytest.mark.build
def test_llms_txt_lists_the_pages_whichever_order_the_plugins_are_listed_in(
    tmp_path: Path,
) -> None:
    repo = copy_repo(tmp_path)
    config = repo / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    block = "  - llmstxt:\n      full_output: llms-full.txt\n      sections: {}\n"
    assert block in text
    text = text.replace(block, "").replace("  - search\n", "  - search\n" + block, 1)
    config.write_text(text, encoding="utf-8")
    site = tmp_path / "site"
    result = run(["mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=repo)
    assert result.returncode == 0, result.stderr
    listed = [ln for ln in (site / "llms.txt").read_text().splitlines() if ln.startswith("- [")]
    assert len(listed) >= 10 and any("/tooling/checks/" in ln for ln in listed)


def test_a_page_s_markdown_is_kept_by_everything_its_conversion_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from acp_docs.patches import agentmarkdown

    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(tmp_path / "cache"))
    calls: list[str] = []

    def generate(html: str, **options: Any) -> str:
        calls.append(html)
        return f"md of {html} at {options['page_uri']}"

    options = {"should_autoclean": True, "base_uri": "", "page_uri": "a/index.html"}
    convert = agentmarkdown.remembering(generate)
    first = convert("<p>a</p>", preprocess=None, path="/tmp/one/a.md", **options)
    again = convert("<p>a</p>", preprocess=None, path="/tmp/two/a.md", **options)
    assert first == again == "md of <p>a</p> at a/index.html" and len(calls) == 1
    convert("<p>b</p>", preprocess=None, path="/x", **options)
    convert("<p>a</p>", preprocess=None, path="/x", **{**options, "page_uri": "b/index.html"})
    assert len(calls) == 3, "another page or another address is converted again"
    convert("<p>a</p>", preprocess="module.py", path="/x", **options)
    assert len(calls) == 4, "a preprocess module may read the path: nothing is kept"

    for entry in (tmp_path / "cache" / agentmarkdown.CACHE_KIND).glob("*.md"):
        entry.write_bytes(entry.read_bytes().replace(b"md of", b"forged"))
    tampered = convert("<p>a</p>", preprocess=None, path="/x", **options)
    assert tampered == first and len(calls) == 5, "a changed entry is made again, not read"
