"""A docs page's front matter holds only what the allowlist names: anything else, markup
in a value, or front matter that is not a YAML mapping is a finding at its line."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from acp_docs.config import configschema as configpolicy
from acp_docs.policy import frontmatter

from conftest import ROOT, acp, new_rfd, no_traceback, replace_in

PAGE = "docs/tooling/page.md"


def _findings(text: str) -> list[tuple[int, str, str]]:
    return [(f.line, f.rule_id, f.message) for f in frontmatter.check_text(PAGE, text)]


def test_the_repository_s_own_docs_pages_pass() -> None:
    pages = frontmatter.docs_pages(ROOT / "docs")
    assert ROOT / "docs" / "index.md" in pages
    assert frontmatter.check_pages(ROOT, pages) == []


@pytest.mark.parametrize(
    "meta",
    [
        "title: Prompt suggestions, v2 & more (draft)",
        "rfd: prompt-suggestions",
        *(f"hide: [{value}]" for value in ("navigation", "toc", "footer", "path", "feedback")),
        "hide:\n  - navigation\n  - toc",
        "search:\n  boost: 2.5",
        "search:\n  exclude: true",
        "",
    ],
)
def test_each_allowlisted_key_is_accepted(meta: str) -> None:
    assert _findings(f"---\n{meta}\n---\n\n# Page\n") == []


def test_the_allowlist_is_what_is_meant() -> None:
    assert set(configpolicy.PAGE_SCHEMA["properties"]) == {"title", "rfd", "hide", "search"}
    assert set(configpolicy.PAGE_SCHEMA["properties"]["search"]["properties"]) == {
        "boost",
        "exclude",
    }


@pytest.mark.parametrize(
    ("meta", "line", "rule", "says"),
    [
        # Keys Material prints into <head>, the header or the navigation, or uses as paths.
        (
            "title: T\ndescription: '\"><script>alert(1)</script>'",
            3,
            "front-matter/unknown-key",
            "front matter: description is not allowed here; front matter may hold: title, rfd,"
            " hide, search",
        ),
        ("subtitle: <img src=x onerror=alert(1)>", 2, "front-matter/unknown-key", "subtitle"),
        ("template: ../../../etc/passwd", 2, "front-matter/unknown-key", "template is not"),
        ("icon: ../../../../etc/passwd", 2, "front-matter/unknown-key", "icon is not allowed"),
        ("status: new", 2, "front-matter/unknown-key", "status is not allowed"),
        ("author: x", 2, "front-matter/unknown-key", "author is not allowed"),
        ("tags: [a]", 2, "front-matter/unknown-key", "tags is not allowed"),
        # Values of allowed keys outside their pattern.
        ("title: <b>Bold</b>", 2, "front-matter/invalid", "title must be plain text"),
        ("title: 'a\" onload=\"x'", 2, "front-matter/invalid", "title must be plain text"),
        ('title: "Safe\\u202eexe.md"', 2, "front-matter/invalid", "title must be plain text"),
        ('title: "a\\u0007b"', 2, "front-matter/invalid", "title must be plain text"),
        ("title: ''", 2, "front-matter/invalid", "title must be plain text"),
        ("title: [a]", 2, "front-matter/invalid", "title must be plain text"),
        ("rfd: ../../etc", 2, "front-matter/invalid", "rfd must be the name of an RFD"),
        ("hide: [everything]", 2, "front-matter/invalid", "hide[0] must be one of navigation"),
        ("hide: toc", 2, "front-matter/invalid", "hide must be a list"),
        ("search:\n  boost: high", 3, "front-matter/invalid", "search.boost must be a number"),
        ("search:\n  exclude: 1", 3, "front-matter/invalid", "search.exclude must be true"),
        ("search:\n  tokenize: x", 3, "front-matter/unknown-key", "search.tokenize is not"),
        ("search: [boost]", 2, "front-matter/invalid", "search must be a mapping"),
        # Front matter that is not a YAML mapping.
        ("- title\n- x", 2, "front-matter/not-mapping", "front matter is not a YAML mapping"),
        ("just words", 2, "front-matter/not-mapping", "front matter is not a YAML mapping"),
        ("title: [unclosed", 3, "front-matter/malformed", "malformed YAML front matter"),
        ("a: &a x\nb: *a", 3, "front-matter/malformed", "aliases"),
        ("title: a\ntitle: b", 3, "front-matter/malformed", "duplicate key 'title'"),
    ],
)
def test_what_is_not_allowed_is_a_finding_at_its_line(
    meta: str, line: int, rule: str, says: str
) -> None:
    found = _findings(f"---\n{meta}\n---\n\n# Page\n")
    assert [(at, kind) for at, kind, _ in found][:1] == [(line, rule)], found
    assert says in found[0][2], found


def test_metadata_lines_without_a_block_are_a_finding() -> None:
    """MkDocs reads `key: value` lines at the top of a page as metadata too."""
    found = _findings("Description: <script>alert(1)</script>\n\n# Page\n")
    assert found == [
        (
            1,
            "front-matter/metadata-lines",
            "the first lines of the page (description: ...) are read as page metadata; start"
            " the page with its heading, or write metadata in a --- block",
        )
    ]
    assert _findings("# Page\n\nDescription: words.\n") == []


def test_every_finding_is_reported_with_its_file(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "index.md").write_text("---\ntitle: Home\n---\n# Home\n", encoding="utf-8")
    (docs / "sub" / "a.md").write_text("---\ntitle: A\nsubtitle: x\n---\n", encoding="utf-8")
    (docs / "sub" / "b.md").write_bytes(b"---\r\nhide: [x]\r\n---\r\n")
    (docs / "sub" / "c.md").write_bytes(b"\xff\xfe not UTF-8")
    (docs / "sub" / "link.md").symlink_to(ROOT / "README.md")
    found = frontmatter.check_pages(tmp_path, frontmatter.docs_pages(docs))
    assert [(f.location(), f.check, f.rule_id) for f in found] == [
        ("docs/sub/a.md:3:1", "build", "front-matter/unknown-key"),
        ("docs/sub/b.md:2:1", "build", "front-matter/invalid"),
    ]


def _tree(root: Path) -> dict[str, str]:
    out = {}
    for current, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if d not in ("node_modules", "site")]
        for name in files:
            path = Path(current, name)
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.mark.build
def test_acp_docs_check_reports_front_matter_at_its_line(repo_copy: Path) -> None:
    page = repo_copy / "docs" / "tooling" / "hostile.md"
    page.write_text(
        "---\ntitle: Hostile\ndescription: '\"><script>alert(1)</script>'\n---\n\n# Hostile\n",
        encoding="utf-8",
    )
    before = _tree(repo_copy)
    result = acp(["check", "--only", "build"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        "docs/tooling/hostile.md:3:1: error: front matter: description is not allowed here"
        in result.stdout
    ), result.stdout
    assert _tree(repo_copy) == before


def test_placeholder_text_left_from_the_template_is_a_warning_then_an_error(
    repo_copy: Path,
) -> None:
    made = new_rfd(repo_copy, "session-labels", "Session labels")
    page = repo_copy / made.shown
    guidance = next(
        n for n, line in enumerate(page.read_text().splitlines(), 1) if line.startswith("Copy this")
    )
    result = acp(["rfds", "--format", "json"], cwd=repo_copy)
    found = [
        f
        for f in json.loads(result.stdout)["findings"]
        if f["rule"] == "rfds/placeholder" and f["path"] == made.shown
    ]
    assert result.returncode == 0, result.stdout  # warnings only, while a Draft
    assert (guidance, "warning") in [(f["line"], f["level"]) for f in found]
    replace_in(page, "status: draft", "status: active")
    result = acp(["rfds", "--format", "json"], cwd=repo_copy)
    found = [
        f
        for f in json.loads(result.stdout)["findings"]
        if f["rule"] == "rfds/placeholder" and f["path"] == made.shown
    ]
    assert result.returncode == 1
    assert found and {f["level"] for f in found} == {"error"}
