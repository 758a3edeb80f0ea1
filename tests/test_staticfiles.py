"""Static files from docs/: only allowlisted kinds are published, each checked for what it is."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from acp_docs.policy import staticfiles
from acp_docs.policy.staticfiles import StaticRefs
from acp_docs.policy.staticproblem import Problem

SVG_OPEN = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
REFS = StaticRefs.from_config(
    {
        "extra_css": ["assets/site.css", "https://cdn.example/x.css"],
        "extra_javascript": ["assets/site.js", {"path": "assets/mod.mjs", "type": "module"}],
    }
)


def png_bytes() -> bytes:
    """A real 1x1 PNG, made by hand: signature, IHDR, IDAT, IEND."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def review(
    tmp_path: Path, rel: str, content: bytes | str, refs: StaticRefs = REFS
) -> list[Problem]:
    path = tmp_path / "docs" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return staticfiles.review(rel, path, REFS)


def only(problems: list[Problem], rule: str) -> Problem:
    assert len(problems) == 1, problems
    assert problems[0].rule_id == rule, problems
    return problems[0]


def svg(tmp_path: Path, body: str, head: str = "") -> list[Problem]:
    return review(tmp_path, "img/drawing.svg", f"{head}{SVG_OPEN}\n{body}\n</svg>\n")


# Images


def test_real_png_is_published(tmp_path: Path) -> None:
    assert review(tmp_path, "img/logo.png", png_bytes()) == []


def test_png_holding_html_is_refused(tmp_path: Path) -> None:
    problem = only(
        review(tmp_path, "img/logo.png", "<html><script>alert(1)</script></html>"),
        "static/mismatch",
    )
    assert "must be a PNG image" in problem.message
    assert "markup" in problem.message


def test_png_holding_svg_is_refused(tmp_path: Path) -> None:
    only(review(tmp_path, "a.png", f"{SVG_OPEN}<script>alert(1)</script></svg>"), "static/mismatch")


def test_image_of_another_format_names_it(tmp_path: Path) -> None:
    problem = only(review(tmp_path, "photo.jpg", png_bytes()), "static/mismatch")
    assert "it is a PNG image" in problem.message


@pytest.mark.parametrize(
    ("name", "head"),
    [
        ("a.gif", b"GIF89a\x01\x00\x01\x00"),
        ("a.jpeg", b"\xff\xd8\xff\xe0\x00\x10JFIF"),
        ("a.webp", b"RIFF\x24\x00\x00\x00WEBPVP8 "),
        ("a.avif", b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf"),
        ("a.ico", b"\x00\x00\x01\x00\x01\x00\x10\x10"),
    ],
)
def test_each_image_format_is_known_by_its_magic_number(
    tmp_path: Path, name: str, head: bytes
) -> None:
    assert review(tmp_path, name, head + b"\x00" * 32) == []
    only(review(tmp_path, f"x{name}", b"<!doctype html>" + head), "static/mismatch")


# SVG


def test_clean_svg_is_published(tmp_path: Path) -> None:
    body = """<title>A drawing</title>
<defs>
  <linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient>
  <marker id="arrow" markerWidth="4" markerHeight="4"><path d="M0 0L4 2L0 4z"/></marker>
</defs>
<g transform="translate(1, 2) rotate(45)" fill="url(#g)"
   style="stroke: rgb(0, 0, 0); stroke-width: 2">
  <rect width="10" height="10" rx="2"/>
  <line x1="0" y1="0" x2="5" y2="5" marker-end="url(#arrow)"/>
  <use xlink:href="#arrow" href="#arrow"/>
  <text x="1" y="8" font-family="'Noto Sans', sans-serif">a &lt; b <![CDATA[<b>]]></text>
</g>"""
    assert svg(tmp_path, body, head='<?xml version="1.0" encoding="UTF-8"?>\n') == []


@pytest.mark.parametrize(
    ("body", "line", "needle"),
    [
        ("<script>alert(1)</script>", 2, "may not hold <script>"),
        ("<script><![CDATA[alert(1)]]></script>", 2, "may not hold <script>"),
        ("<g/>\n<rect onload='alert(1)'/>", 3, "onload: an event handler runs script"),
        (
            '<foreignObject><body xmlns="http://www.w3.org/1999/xhtml"/></foreignObject>',
            2,
            "may not hold <foreignObject>",
        ),
        (
            '<animate attributeName="href" to="javascript:alert(1)"/>',
            2,
            "may not hold <animate>",
        ),
        ('<set attributeName="href" to="https://example.com/"/>', 2, "may not hold <set>"),
        ('<use xlink:href="https://example.com/x.svg#a"/>', 2, "xlink:href="),
        ('<image href="https://example.com/pixel.png"/>', 2, "may not hold <image>"),
        ('<a href="https://example.com/"><text>x</text></a>', 2, "may not hold <a>"),
        ("<style>rect { fill: red }</style>", 2, "may not hold <style>"),
        ('<rect fill="url(https://example.com/p.svg#a)"/>', 2, "url(https://example.com"),
        ('<rect fill="\\75rl(//example.com/a)"/>', 2, "url(//example.com/a)"),
        ('<rect style="fill: u\\rl(//example.com/a)"/>', 2, "url(//example.com/a)"),
        ('<rect style="--x: 1"/>', 2, "the property --x"),
        ('<rect fill="src(&quot;https://example.com&quot;)"/>', 2, "src()"),
        (
            '<h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script>',
            2,
            "SVG elements only, not <h:script>",
        ),
        ('<rect xml:base="https://example.com/"/>', 2, "xml:base"),
        ("<?xml-stylesheet href='https://example.com/x.xsl'?>", 2, "<?xml-stylesheet"),
    ],
)
def test_svg_that_could_run_or_load_is_refused_at_its_line(
    tmp_path: Path, body: str, line: int, needle: str
) -> None:
    problem = only(svg(tmp_path, body), "static/svg")
    assert problem.line == line
    assert needle in problem.message


def test_svg_entity_declaration_is_refused_before_any_expansion(tmp_path: Path) -> None:
    laughs = (
        '<?xml version="1.0"?>\n<!DOCTYPE svg [\n<!ENTITY a "aaaaaaaaaa">\n'
        + "".join(
            f'<!ENTITY a{i} "{"&a;" * 10 if i == 0 else f"&a{i - 1};" * 10}">\n' for i in range(9)
        )
        + "]>\n"
    )
    problem = only(svg(tmp_path, "<text>&a8;</text>", head=laughs), "static/svg")
    assert problem.line == 2
    assert "DOCTYPE" in problem.message


def test_svg_external_entity_is_refused(tmp_path: Path) -> None:
    head = '<!DOCTYPE svg SYSTEM "file:///etc/passwd">\n'
    problem = only(svg(tmp_path, "<text>x</text>", head=head), "static/svg")
    assert "DOCTYPE" in problem.message


def test_svg_that_is_not_well_formed_is_refused_at_its_line(tmp_path: Path) -> None:
    problem = only(svg(tmp_path, "<g>\n<rect>\n</g>"), "static/svg")
    assert problem.line == 4
    assert "not well-formed" in problem.message


def test_svg_without_the_svg_namespace_is_refused(tmp_path: Path) -> None:
    problem = only(review(tmp_path, "a.svg", "<svg><rect/></svg>"), "static/svg")
    assert "root element" in problem.message


def test_svg_in_another_encoding_is_refused(tmp_path: Path) -> None:
    content = f'<?xml version="1.0" encoding="ISO-8859-1"?>\n{SVG_OPEN}</svg>'
    problem = only(review(tmp_path, "a.svg", content), "static/svg")
    assert "UTF-8" in problem.message


# Style sheets


def test_clean_style_sheet_is_published(tmp_path: Path) -> None:
    sheet = """@charset "utf-8";
/* url(https://example.com) in a comment loads nothing */
.md-typeset a:not(.headerlink) { color: rgba(0, 0, 0, 0.5); content: "url(//x)"; }
@media screen and (max-width: 40em) { .x { background: url(../img/logo.png) no-repeat; } }
.y { mask: url("img/mask.svg#m"); width: calc(100% - var(--gap)); }
"""
    (tmp_path / "docs" / "img").mkdir(parents=True)
    assert review(tmp_path, "assets/site.css", sheet) == []


@pytest.mark.parametrize(
    ("sheet", "needle"),
    [
        ("@import url(https://example.com/x.css);", "@import is not allowed"),
        ('@import "theme.css";', "@import is not allowed"),
        ("a { background: url(//example.com/p.png) }", "loads from another host"),
        ("a { background: url(https://example.com/p.png) }", "not a relative path"),
        ('a { background: url("data:image/svg+xml,<svg/>") }', "not a relative path"),
        ("a { background: \\75rl(https://example.com/p.png) }", "url(https://example.com"),
        ("a { background: u\\72l(//example.com/p.png) }", "loads from another host"),
        ("a { background: url('\\2f\\2f example.com/p.png') }", "loads from another host"),
        ("a { background: url(/p.png) }", "starts with '/'"),
        ("a { background: url(../../../p.png) }", "leaves the site"),
        ("a { background: image-set('https://example.com/p.png' 1x) }", "image-set()"),
        ("a { width: expression(alert(1)) }", "expression()"),
        ("a { behavior: url(x.htc) }", "the property behavior"),
        ("a { -moz-binding: url(x.xml#b) }", "the property -moz-binding"),
        ("@\\69mport 'x.css';", "@import"),
        ('@charset "utf-7";', "@charset"),
    ],
)
def test_style_sheet_that_loads_from_elsewhere_is_refused(
    tmp_path: Path, sheet: str, needle: str
) -> None:
    problems = review(tmp_path, "assets/site.css", f"/* a sheet */\n{sheet}\n")
    assert problems, sheet
    assert all(p.rule_id == "static/css" for p in problems)
    assert problems[0].line == 2
    assert any(needle in p.message for p in problems), problems


def test_style_sheet_not_in_extra_css_is_refused(tmp_path: Path) -> None:
    problem = only(review(tmp_path, "assets/other.css", "a { color: red }"), "static/unlisted")
    assert "extra_css" in problem.message


# Scripts and other kinds


def test_script_is_published_only_when_in_extra_javascript(tmp_path: Path) -> None:
    assert review(tmp_path, "assets/site.js", "console.log(1)") == []
    assert review(tmp_path, "assets/mod.mjs", "export {}") == []
    problem = only(review(tmp_path, "assets/evil.js", "alert(1)"), "static/unlisted")
    assert "extra_javascript" in problem.message


@pytest.mark.parametrize(
    "name",
    ["page.html", "page.xhtml", "x.htm", "feed.xml", "a.svgz", "data.json", "README", "a.pdf"],
)
def test_other_kinds_are_refused_with_what_may_be_published(tmp_path: Path, name: str) -> None:
    problem = only(review(tmp_path, f"misc/{name}", "<p>hi</p>"), "static/kind")
    assert ".png" in problem.message
    assert "extra_javascript" in problem.message


@pytest.mark.parametrize(
    ("rel", "shown"),
    [
        ("img/my logo.png", "'my logo.png'"),
        ("img/logo\u202egnp.png", "'logo\\\\u202egnp.png'"),
        (".hidden/logo.png", "'.hidden'"),
        ("img/.logo.png", "'.logo.png'"),
        ("img/logo.html.png", "'logo.html.png'"),
    ],
)
def test_unsafe_file_name_is_refused_and_shown_escaped(
    tmp_path: Path, rel: str, shown: str
) -> None:
    problem = only(review(tmp_path, rel, png_bytes()), "static/name")
    assert shown in problem.message
    assert "\u202e" not in problem.message


def test_file_over_the_size_limit_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_DOCS_MAX_FILE_BYTES", "100")
    problem = only(review(tmp_path, "big.svg", SVG_OPEN + " " * 200 + "</svg>"), "static/size")
    assert "ACP_DOCS_MAX_FILE_BYTES" in problem.message


def test_findings_name_the_file_in_the_files_check(tmp_path: Path) -> None:
    problems = svg(tmp_path, "<script>alert(1)</script>")
    (finding,) = staticfiles.as_findings("docs/img/drawing.svg", problems)
    assert finding.location() == "docs/img/drawing.svg:2:1"
    assert (finding.check, finding.rule_id) == ("files", "static/svg")


def test_static_refs_from_config_keep_site_files_only() -> None:
    refs = StaticRefs.from_config(
        {"extra_css": ["./a/b.css", "https://x/y.css", "//x/z.css", "../up.css"]}
    )
    assert refs.css == frozenset({"a/b.css"})
    assert refs.javascript == frozenset()
