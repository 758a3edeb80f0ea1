"""The API reference: mkdocstrings' pages per package, the `:::` guard, the kept renderings."""

from __future__ import annotations

import json
import os
import re
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mkdocs.structure.toc import AnchorLink, TableOfContents
from mkdocstrings import AutoDocProcessor

from acp_docs.mkdocs import apipages
from acp_docs.mkdocs.state import Link
from acp_docs.patches import apirender
from test_mkdocsconfig import _refusal

from conftest import RENDER_CONFIG, ROOT, acp, copy_repo, no_traceback, run


def _article(html: str) -> str:
    found = re.search(r"<article[^>]*>(.*)</article>", html, re.S)
    assert found is not None
    return found.group(1)


def test_the_guard_reads_instructions_as_mkdocstrings_does() -> None:
    assert apipages._AUTODOC.pattern == AutoDocProcessor.regex.pattern
    assert apipages._AUTODOC.flags == AutoDocProcessor.regex.flags


def test_every_package_folder_gets_a_page_and_nothing_else_does(tmp_path: Path) -> None:
    base = tmp_path / "scripts" / "acp_docs"
    for name in ("core", "zeta", "Bad-Name", "no_init", "linked"):
        (base / name).mkdir(parents=True)
    (base / "__init__.py").write_text('"""Top."""\n')
    for name in ("core", "zeta", "Bad-Name"):
        (base / name / "__init__.py").write_text('"""A package."""\n')
    (base / "linked" / "__init__.py").symlink_to(base / "core" / "__init__.py")
    (base / "elsewhere").symlink_to(base / "core")
    assert apipages.packages(tmp_path) == ["acp_docs", "acp_docs.core", "acp_docs.zeta"]
    assert apipages.page_path("acp_docs.zeta") == "tooling/api/zeta.md"
    assert "::: acp_docs.zeta\n" in apipages.page_markdown("acp_docs.zeta", [])
    (base / "tool.py").write_text('"""A module at the top."""\n')
    (base / "Odd.py").write_text("")
    assert apipages.top_modules(tmp_path) == ["acp_docs.tool"]
    top = apipages.page_markdown("acp_docs", ["acp_docs.tool"])
    assert "::: acp_docs\n    options:\n      show_submodules: false\n" in top
    assert "::: acp_docs.tool\n" in top


def test_mkdocstrings_options_are_fixed_by_the_configuration_check() -> None:
    inspecting = (
        "plugins:\n  - mkdocstrings:\n      handlers:\n        python:\n"
        "          options:\n            allow_inspection: true\n"
    )
    assert _refusal(inspecting).startswith("mkdocs.yml:3:5: plugins[0].mkdocstrings must be")
    assert "not 'mkdocstrings'" in _refusal("plugins:\n  - mkdocstrings\n")


def test_the_sources_key_follows_every_python_file_of_the_package(tmp_path: Path) -> None:
    package = tmp_path / "scripts" / "acp_docs"
    (package / "core").mkdir(parents=True)
    (package / "__init__.py").write_text('"""Top."""\n')
    (package / "core" / "x.py").write_text("def f() -> int:\n    return 1\n")
    first = apirender.sources_key(package, tmp_path)
    assert apirender.sources_key(package, tmp_path) == first
    (package / "core" / "x.py").write_text('def f() -> int:\n    """Now documented."""\n')
    second = apirender.sources_key(package, tmp_path)
    (package / "core" / "y.py").write_text("")
    assert len({first, second, apirender.sources_key(package, tmp_path)}) == 3


class _Autorefs:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def register_anchor(self, page: Any, identifier: str, anchor: str | None = None, **kw: Any):
        self.calls.append((page.file.src_uri, identifier, anchor, kw.get("title"), kw["primary"]))


def _page(markdown: str) -> Any:
    page = SimpleNamespace(
        file=SimpleNamespace(src_uri="tooling/api/core.md", url="tooling/api/core/"),
        markdown=markdown,
        content=None,
        toc=None,
        present_anchor_ids=None,
    )
    return page


def _rendering(autorefs: _Autorefs, links: list[Any], counter: list[int]) -> Any:
    def render(config: Any, files: Any) -> None:
        counter[0] += 1
        page = render.page
        page.content = f"<h2 id='a'>A {counter[0]}</h2>"
        top = AnchorLink("A", "a", 2)
        top.children = [AnchorLink("B", "b", 3)]
        page.toc = TableOfContents([top])
        page._title_from_render = "Core"
        page.present_anchor_ids = {"a", "b"}
        links.append(Link("../core/#x", 1))
        autorefs.register_anchor(page, "acp_docs.core.A", title="A", primary=True)
        autorefs.register_anchor(page, "acp_docs.A", "acp_docs.core.A", primary=False)

    return render


def test_a_kept_rendering_restores_the_page_and_its_autorefs_anchors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(tmp_path / "cache"))
    counter = [0]
    made: list[dict[str, Any]] = []
    for run_number in range(3):
        autorefs, links, seen = _Autorefs(), [], []
        page = _page("::: acp_docs.core\n")
        render = _rendering(autorefs, links, counter)
        render.page = page
        page.render = render
        renders = apirender.ApiRenders() if run_number != 1 else made[0]["renders"]
        renders.install_api(
            page,
            "sources-1",
            "context",
            links,
            Link,
            autorefs,
            partial(seen.append, 1),
        )
        page.render(RENDER_CONFIG, None)
        made.append(
            {
                "renders": renders,
                "content": page.content,
                "toc": [(i.id, [c.id for c in i.children]) for i in page.toc.items],
                "title": page._title_from_render,
                "anchors": page.present_anchor_ids,
                "links": [(x.url, x.occurrence) for x in links],
                "calls": autorefs.calls,
                "seen": seen,
            }
        )
    assert counter == [1], "rendered once: then from memory, then from the cache folder"
    first = {k: v for k, v in made[0].items() if k not in ("renders", "seen")}
    for later in made[1:]:
        assert {k: v for k, v in later.items() if k not in ("renders", "seen")} == first
        assert later["seen"] == [1], "mkdocstrings is told its handler is in use"
    assert made[0]["calls"][1] == (
        "tooling/api/core.md",
        "acp_docs.A",
        "acp_docs.core.A",
        None,
        False,
    )
    (kept,) = (tmp_path / "cache" / "api-pages").glob("*.json")
    kept.write_text(json.dumps({"content": 3}))  # a damaged cache entry is rendered again
    page = _page("::: acp_docs.core\n")
    render = _rendering(_Autorefs(), [], counter)
    render.page = page
    page.render = render
    apirender.ApiRenders().install_api(page, "sources-1", "context", [], Link, _Autorefs(), list)
    page.render(RENDER_CONFIG, None)
    assert counter == [2]
    page = _page("::: acp_docs.core\n")
    render.page = page
    page.render = render
    apirender.ApiRenders().install_api(page, "sources-2", "context", [], Link, _Autorefs(), list)
    page.render(RENDER_CONFIG, None)
    assert counter == [3], "other sources: rendered again"


@pytest.mark.build
def test_each_package_has_its_page_in_the_nav_with_signatures_and_cross_references(
    built_site: Path,
) -> None:
    index = (built_site / "tooling" / "api" / "index.html").read_text()
    packages = apipages.packages(ROOT)
    assert len(packages) > 5
    for package in packages:
        folder = apipages.page_path(package).removesuffix(".md")
        assert f'href="{folder.rsplit("/", 1)[1]}/"' in index, f"{package} is in no navigation"
        html = (built_site / folder / "index.html").read_text()
        article = _article(html)
        assert "doc-heading" in article and 'class="md-nav__link' in html
        assert '"search": {"exclude": true}' not in article
    core = (built_site / "tooling" / "api" / "core" / "index.html").read_text()
    assert "acp_docs.core.findings.Finding" in core
    # A signature, with its annotations, and a link to a type documented on another page.
    mkdocs_page = (built_site / "tooling" / "api" / "mkdocs" / "index.html").read_text()
    assert re.search(
        r'<a class="autorefs autorefs-internal"[^>]*href="\.\./core/#acp_docs\.core\.', mkdocs_page
    )
    assert "<autoref" not in mkdocs_page and "filepath=" not in mkdocs_page
    search = json.loads((built_site / "search" / "search_index.json").read_text())
    assert not [d for d in search["docs"] if d["location"].startswith("tooling/api/")]


@pytest.mark.build
def test_an_instruction_outside_the_api_pages_is_text_and_a_finding_at_its_line(
    tmp_path: Path,
) -> None:
    repo = copy_repo(tmp_path)
    page = repo / "docs" / "tooling" / "writing.md"
    text = page.read_text(encoding="utf-8")
    planted = [
        "::: json",
        "- a list item\n\n    ::: os.path",
        "> ::: acp_docs.core",
        '!!! note "x"\n\n    ::: acp_docs.core.findings\n'
        "        options:\n          allow_inspection: true",
    ]
    page.write_text(text + "\n" + "\n\n".join(planted) + "\n", encoding="utf-8")
    lines = page.read_text(encoding="utf-8").split("\n")
    first = text.count("\n") + 2  # the planted lines, whatever the page says of `:::` itself
    expected = sorted(
        n
        for n, line in enumerate(lines, start=1)
        if n >= first and line.strip(" >-!").startswith(":::")
    )
    assert len(expected) == len(planted)
    result = acp(["check", "--only", "build", "--format", "json"], cwd=repo)
    no_traceback(result)
    assert result.returncode == 1
    found = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "build/autodoc"]
    assert sorted(f["line"] for f in found) == expected
    assert all(f["path"] == "docs/tooling/writing.md" for f in found)
    site = tmp_path / "site"
    built = run(["mkdocs", "build", "--site-dir", str(site)], cwd=repo)
    html = _article((site / "tooling" / "writing" / "index.html").read_text())
    assert "::: json" in html and "doc-object" not in html and "doc-heading" not in html
    assert built.stderr.count("is mkdocstrings' instruction") == len(expected), "a warning each"


@pytest.mark.build
def test_a_link_or_fifo_in_the_package_generates_no_api_page_and_is_a_finding(
    tmp_path: Path,
) -> None:
    """griffe follows links and blocks on a FIFO: neither is read, each is named."""
    repo = copy_repo(tmp_path, lean=False)
    outside = tmp_path / "outside.py"
    outside.write_text('"""A module outside the checkout: SECRETDOCXYZ."""\n')
    (repo / "scripts" / "acp_docs" / "core" / "leak.py").symlink_to(outside)
    os.mkfifo(repo / "scripts" / "acp_docs" / "core" / "stuck.py")
    site = tmp_path / "site"
    built = run(["mkdocs", "build", "--site-dir", str(site)], cwd=repo, timeout=120)
    no_traceback(built)
    said = built.stderr
    assert re.search(
        r"core/leak.py:1:1: (?:error|warning): a symbolic link: griffe would read", said
    )
    assert re.search(r"core/stuck.py:1:1: (?:error|warning): not a regular file", said)
    assert not (site / "tooling" / "api" / "core").exists()
    assert (site / "tooling" / "api" / "index.html").is_file(), "the index page stays"
    assert not [p for p in site.rglob("*.html") if "SECRETDOCXYZ" in p.read_text()]
