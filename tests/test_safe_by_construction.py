"""A hostile pull request, built and opened in Chromium: nothing of it runs or loads elsewhere.

One page plants a case of each class that reaches the rendered site (markup
hidden from a scanner by comments and raw-text elements, SVG animation that
sets a link, attributes from `attr_list`, a remote image, a diagram that
would pull a script from a CDN, front matter the theme prints), and the
pull request adds files the site must not publish. `acp-docs check` names
each at its line; the site built from it (not strictly, as an author's
`mkdocs build` would) is then opened: no dialog, no request to another host,
no navigation away.
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from selectolax.lexbor import LexborHTMLParser

from conftest import copy_repo, copy_sample, replace_in, run

pytestmark = pytest.mark.build

NAV_ENTRY = "      - Checks: tooling/checks.md\n"
PLANTS = {
    # name: (Markdown line, what the finding says)
    "cross-reference": (
        '<autoref identifier="x&quot;&gt;&lt;meta http-equiv=refresh'
        ' content=&quot;0;url=https://example.invalid/ref&quot;&gt;" optional>text</autoref>',
        "in a cross-reference's identifier",
    ),
    "comment": ("<!-- x --!><img src=x onerror=alert(1)>", "the attribute onerror= on <img>"),
    "noscript": (
        '<noscript><p title="</noscript><img src=x onerror=alert(2)>"></noscript>',
        "a <noscript> element",
    ),
    "xmp": ("<xmp><script>alert(3)</script></xmp>", "a <xmp> element"),
    "svg": (
        '<svg><a><animate attributeName="href" values="javascript:alert(4)"/>'
        '<text y="20">svg</text></a></svg>',
        "a <svg> element",
    ),
    "overlay": (
        '[Away](https://example.invalid/){ style="position:fixed;inset:0;z-index:9999" }',
        "the attribute style= on <a>",
    ),
    "pixel": ("![pixel](https://example.invalid/pixel.gif)", "an image from elsewhere"),
    "diagram": ('<pre class="mermaid">graph TD; A-->B</pre>', "the class 'mermaid'"),
    "theme class": ('<div class="md-overlay">x</div>', "the class 'md-overlay'"),
}
UNTITLED = "# Untitled &lt;/title&gt;&lt;meta http-equiv=refresh content=0;url=https://example.invalid/title&gt;\n"
"""A page without a title of its own: its heading names it in the `<title>` element."""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def hostile(sample_template: Path, tmp_path_factory: pytest.TempPathFactory):
    repo = copy_sample(sample_template, tmp_path_factory.mktemp("hostile"))
    lines = ["---", "title: Hostile", "description: '\"><script>alert(5)</script>'", "---", ""]
    lines += ["# Hostile", ""]
    where = {}
    for name, (markdown, _says) in PLANTS.items():
        lines += [markdown, ""]
        where[name] = len(lines) - 1
    (repo / "docs" / "tooling" / "hostile.md").write_text("\n".join(lines), encoding="utf-8")
    (repo / "docs" / "tooling" / "untitled.md").write_text(UNTITLED + "\nText.\n")
    replace_in(
        repo / "mkdocs.yml",
        NAV_ENTRY,
        NAV_ENTRY + "      - Hostile: tooling/hostile.md\n      - tooling/untitled.md\n",
    )
    (repo / "docs" / "tooling" / "drawing.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg">\n<script>alert(6)</script>\n</svg>\n'
    )
    (repo / "docs" / "tooling" / "page.xhtml").write_text(
        '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(7)</script></html>\n'
    )
    checked = run(["acp-docs", "check", "--only", "build", "files"], cwd=repo)
    site = tmp_path_factory.mktemp("hostile-site")
    built = run(["mkdocs", "build", "--site-dir", str(site)], cwd=repo)
    assert built.returncode == 0, built.stderr
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield checked, where, site, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_the_check_names_each_plant_at_its_line(hostile) -> None:
    checked, where, _site, _url = hostile
    assert checked.returncode == 1
    for name, (_markdown, says) in PLANTS.items():
        found = [
            line
            for line in checked.stdout.splitlines()
            if line.startswith(f"docs/tooling/hostile.md:{where[name]}:") and says in line
        ]
        assert found, f"{name}: no finding at line {where[name]} saying {says!r}"
    assert "docs/tooling/hostile.md:3:" in checked.stdout  # the description key
    assert "docs/tooling/drawing.svg:2:" in checked.stdout
    assert "docs/tooling/page.xhtml:" in checked.stdout


def test_what_is_refused_is_not_published(hostile) -> None:
    _checked, _where, site, _url = hostile
    assert not (site / "tooling" / "drawing.svg").exists()
    assert not (site / "tooling" / "page.xhtml").exists()
    page = (site / "tooling" / "hostile" / "index.html").read_text(encoding="utf-8")
    assert "alert(5)" not in page  # the description never reaches <head>
    assert "mermaid" not in page and "example.invalid/pixel" not in page
    for name in ("hostile", "untitled"):
        tree = LexborHTMLParser((site / "tooling" / name / "index.html").read_text())
        handlers = [
            f"<{node.tag} {attribute}>"
            for node in tree.root.traverse()
            for attribute in node.attributes
            if attribute.lower().startswith("on")
        ]
        assert handlers == [], name
        assert [m.html for m in tree.css("meta[http-equiv]") if "refresh" in m.html] == [], name
    untitled = LexborHTMLParser((site / "tooling" / "untitled" / "index.html").read_text())
    assert untitled.css_first("title").text().startswith("Untitled </title><meta")


@pytest.mark.browser
def test_in_chromium_nothing_runs_loads_elsewhere_or_navigates_away(browser, hostile) -> None:
    _checked, _where, _site, url = hostile
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    dialogs: list[str] = []
    requests: list[str] = []
    try:
        page = context.new_page()
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.on("request", lambda request: requests.append(request.url))
        page.goto(url + "tooling/untitled/")
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)
        untitled = page.url
        page.goto(url + "tooling/hostile/")
        page.wait_for_load_state("networkidle")
        page.mouse.click(640, 450)  # where an overlay would lie
        page.wait_for_timeout(300)
        for text in ("svg", "x"):
            target = page.get_by_text(text, exact=True)
            if target.count():
                target.first.click()
        page.wait_for_timeout(300)
        landed = page.url
        for asset in ("tooling/drawing.svg", "tooling/page.xhtml"):
            response = page.goto(url + asset)
            assert response is not None and response.status == 404
    finally:
        context.close()
    host = urlsplit(url).netloc
    assert dialogs == []
    assert [r for r in requests if urlsplit(r).netloc not in ("", host)] == []
    assert urlsplit(landed).netloc == host
    assert untitled == url + "tooling/untitled/"


def test_a_contents_label_with_markup_is_a_finding_and_published_as_text(tmp_path: Path) -> None:
    """With mkdocstrings (left out of lean copies), a heading's label reaches the contents as
    written: its markup is a finding, and the page's contents get its text only."""
    repo = copy_repo(tmp_path, lean=False)
    (repo / "docs" / "tooling" / "labelled.md").write_text(
        "# Labelled\n\n"
        '## Label { data-toc-label="<meta http-equiv=refresh'
        " content='0;url=https://example.invalid/'>Label\" }\n\nText.\n"
    )
    replace_in(
        repo / "mkdocs.yml", NAV_ENTRY, NAV_ENTRY + "      - Labelled: tooling/labelled.md\n"
    )
    site = tmp_path / "site"
    built = run(["mkdocs", "build", "--site-dir", str(site)], cwd=repo)
    assert built.returncode == 0, built.stderr
    said = [line for line in built.stderr.splitlines() if "docs/tooling/labelled.md:3:" in line]
    assert any("a table-of-contents label holds markup" in line for line in said), built.stderr
    tree = LexborHTMLParser((site / "tooling" / "labelled" / "index.html").read_text())
    assert [m.html for m in tree.css("meta[http-equiv]") if "refresh" in m.html] == []
    labels = {node.text(strip=True) for node in tree.css('a.md-nav__link[href="#label"]')}
    assert labels == {"Label"}
