"""Safe by construction, round three: one reader of the text, no configuration from content,
every check bounded, no path trusted by its spelling, the cache as input.

The differential tests hold the decisions about Markdown text to the parsers
that render it: the code-span scanner to CommonMark (markdown-it-py), raw HTML
in an RFD to the site's Python-Markdown, the export to the pinned MDX. The
hostile tests plant what an independent red team planted and look at what a
reader gets: in Chromium, in the compiled MDX, in the cache folder.
"""

from __future__ import annotations

import functools
import itertools
import json
import pickle
import random
import re
import subprocess
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from selectolax.lexbor import LexborHTMLParser

from acp_docs.authoring import mdx
from acp_docs.config.repo import Repo
from acp_docs.core import budget, cachedir
from acp_docs.core.escaping import code_spans
from acp_docs.diagrams import publish
from acp_docs.markdown import rawhtml
from acp_docs.markdown.blocks import renderer
from acp_docs.upstream import scan
from acp_docs.upstream.tree import Page

from conftest import ROOT, acp, copy_repo, new_rfd, no_traceback, replace_in, require_tool, run

# -- one reader of the text ---------------------------------------------------------------


def _commonmark_code(lines: list[str]) -> list[list[str]]:
    """The inline code of each line as micromark, the CommonMark parser of MDX, reads it."""
    require_tool("node", "Node")
    done = subprocess.run(
        ["node", str(ROOT / "tests" / "commonmark_code.mjs")],
        input=json.dumps(lines),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _our_code(line: str) -> list[str]:
    out = []
    for start, end in code_spans(line):
        fence = len(line[start:end]) - len(line[start:end].lstrip("`"))
        body = line[start + fence : end - fence]
        if body.startswith(" ") and body.endswith(" ") and body.strip(" "):
            body = body[1:-1]  # CommonMark strips one space from each side
        out.append(body)
    return out


def _corpus(alphabet: str, longest: int, extra: int, seed: int) -> list[str]:
    lines = [
        "x " + "".join(combo)
        for length in range(1, longest + 1)
        for combo in itertools.product(alphabet, repeat=length)
    ]
    chance = random.Random(seed)
    lines += [
        "x " + "".join(chance.choices(alphabet, k=chance.randint(8, 40))) for _ in range(extra)
    ]
    return lines


def test_code_spans_are_read_as_commonmark_reads_them() -> None:
    """Backtick runs of every length, escapes and braces: the same spans, the same code."""
    lines = _corpus("`\\a {", 7, 20_000, 54)
    theirs = _commonmark_code(lines)
    differ = [line for line, code in zip(lines, theirs, strict=True) if code != _our_code(line)]
    assert not differ, differ[:10]
    # The red team's line: a closing backtick inside a longer run closes nothing.
    assert code_spans("`Go <a href=x>```") == []


@functools.cache
def _site_config() -> dict:
    return Repo.load(ROOT).config


RAW_PIECES = ["`", "``", "```", "\\", "a", " ", "<bdi>", "</bdi>", "&lt;", "<!--", "-->", "*"]


def test_raw_html_in_an_rfd_is_what_the_rendered_page_holds() -> None:
    """The raw-HTML rule reads what the site's own engine takes as raw HTML: a `<bdi>` it
    sees is a `<bdi>` element of the rendered page, and one it does not see is not."""
    reader = rawhtml.Reader(_site_config())
    render = renderer(_site_config())
    chance = random.Random(3)
    lines = [
        "x " + "".join(chance.choices(RAW_PIECES, k=chance.randint(2, 12))) for _ in range(3000)
    ]
    lines += ["`Go <bdi>x</bdi>```", "``a`<bdi>``", "\\`<bdi>`", "`<bdi>` <bdi>"]
    differ = []
    for line in lines:
        text = f"# Page\n\n{line}\n"
        seen = any(re.match(r"<bdi\b", piece.text) for piece in reader(text))
        page = LexborHTMLParser(render(text))
        if seen != bool(page.css("bdi")):
            differ.append(line)
    assert not differ, differ[:10]


def test_a_page_whose_front_matter_mkdocs_does_not_take_is_read_whole() -> None:
    """`---` and a form feed opens no front matter for MkDocs, so what follows is the page,
    and its raw HTML is read as the page's."""
    reader = rawhtml.Reader(_site_config())
    text = '---\x0c\ntitle: x\n#<a class="md-button" href="https://x.example">FM</a>\n---\n\n# T\n'
    assert [(p.text, p.line) for p in reader(text)][:1] == [
        ('<a class="md-button" href="https://x.example">', 3)
    ]
    taken = "---\ntitle: x\n---\n\n# T\n\n<b>bold</b>\n"
    assert [(p.text, p.line) for p in reader(taken)] == [("<b>", 7), ("</b>", 7)]


def test_an_rfd_too_complex_to_render_is_not_read_for_raw_html_at_all() -> None:
    """The build refuses to render it (`build/too-complex`); the lint does not render it
    either, so it cannot hold the check for minutes."""
    from acp_docs.rfds import model

    def never(text: str) -> list:
        raise AssertionError("rendered")

    deep = "# T\n\n" + "".join("  " * level + "- a\n" for level in range(80))
    rfd = SimpleNamespace(text=deep, shown="rfds/deep.md")
    assert model._read(rfd, SimpleNamespace(read=never)) is None  # type: ignore[arg-type]


def test_an_exported_block_is_fenced_longer_than_any_run_of_backticks_inside() -> None:
    block = SimpleNamespace(lang="md", title=None, content="```\n{alert(1)}\n```\n")
    lines = _converter().fence(block)  # type: ignore[arg-type]
    assert lines[0] == "````md" and lines[-1] == "````"


def _converter() -> mdx._Converter:
    repo = SimpleNamespace(config={}, docs_dir=Path("/nonexistent"))
    rfd = SimpleNamespace(text="", shown="rfds/x.md", docs_path="rfds/x.md", meta={})
    return mdx._Converter(repo, rfd)  # type: ignore[arg-type]


def test_the_exported_prose_is_never_code_to_mdx() -> None:
    """Lines of backtick runs, escapes and braces, converted as the export converts prose:
    the pinned MDX parser finds no expression in any of them."""
    require_tool("node", "Node")
    converter = _converter()
    lines = _corpus("`\\a{}", 5, 3000, 7)
    lines.append("`a```{globalThis.pwned = 1}`` and {globalThis.pwned = 2}")
    text = "\n\n".join(converter.prose(line, number) for number, line in enumerate(lines, 1))
    found = scan.scan([Page("corpus.mdx", "corpus", text + "\n")])["corpus.mdx"]
    assert found.error is None, found.error
    assert [x for x in found.live if not x.comment] == []


RUN_MDX = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const mdx = await import(pathToFileURL(process.argv[2]).href);
const text = readFileSync(process.argv[3], "utf8");
const h = (type, props) => {
  const kids = [].concat(props.children ?? [])
    .map((c) => (typeof c === "string" ? c : c?.text ?? ""));
  return { text: typeof type === "function" ? type(props).text : kids.join("") };
};
const runtime = { Fragment: "fragment", jsx: h, jsxs: h };
const names = ["CodeGroup", "Note", "Info", "Tip", "Check", "Warning"];
const components = Object.fromEntries(names.map((n) => [n, (p) => h("div", p)]));
const { default: Content } = await mdx.evaluate(text, { ...runtime, development: false });
const page = Content({ components });
process.stdout.write(JSON.stringify({ text: page.text, pwned: globalThis.pwned ?? null }));
"""


def _rendered_mdx(tmp_path: Path, page: Path) -> dict:
    script = tmp_path / "run-mdx.mjs"
    script.write_text(RUN_MDX, encoding="utf-8")
    entry = ROOT / "node_modules" / "@mdx-js" / "mdx" / "index.js"
    done = subprocess.run(
        ["node", str(script), str(entry), str(page)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_an_exported_rfd_is_compiled_and_run_by_mdx_with_no_code_of_its_own(
    repo_copy: Path, tmp_path: Path
) -> None:
    """The red team's line goes upstream as text: compiled and run with the pinned MDX, its
    braces are shown and nothing runs; a line that MDX would run is a finding at its line."""
    require_tool("node", "Node")
    made = new_rfd(repo_copy, "brace-trick", "Brace trick")
    path = repo_copy / made.shown
    hostile = "Closed inside a run: `a```{globalThis.pwned = 1}`` then {globalThis.pwned = 2}."
    path.write_text(path.read_text(encoding="utf-8") + f"\n{hostile}\n", encoding="utf-8")
    env = {"ACP_DOCS_SITE_URL": "https://example.org/acp/"}
    target = tmp_path / "upstream"
    (target / "docs").mkdir(parents=True)
    result = acp(["export", "upstream", "--rfd", made.slug, str(target)], cwd=repo_copy, env=env)
    no_traceback(result)
    page = target / "docs" / "rfds" / f"{made.slug}.mdx"
    assert page.is_file(), result.stdout + result.stderr
    shown = _rendered_mdx(tmp_path, page)
    assert shown["pwned"] is None
    assert "{globalThis.pwned = 2}" in shown["text"]

    line = next(i for i, t in enumerate(path.read_text().split("\n"), 1) if "Closed inside" in t)
    conversion = mdx.Conversion("", [], [("A line {made.up}", line)])
    rfd = SimpleNamespace(slug=made.slug, shown=made.shown)
    (finding,) = mdx.live_code(rfd, conversion, "# Title\n\nA line {made.up}\n")  # type: ignore[arg-type]
    assert (finding.path, finding.line, finding.rule_id) == (made.shown, line, "export/live-code")


# -- the site: raw HTML, diagrams, the demo's attributes -----------------------------------

BUTTON = '`Go <a class="md-button" href="https://elsewhere.example/">Claim</a>```'
DIRECTIVE = """```mermaid
%%{
  init: { "themeVariables": { "primaryTextColor": "#ffffff", "textColor": "#ffffff" } }
}%%
pie
    accTitle: Hidden slices
    accDescr: A pie chart the site does not draw.
    "a" : 1
```"""
FRONT_MATTER = """```mermaid
---
config:
  themeCSS: "text { fill: transparent !important; }"
---
sequenceDiagram
    accTitle: Invisible labels
    accDescr: Labels made invisible by configuration in the text.
    A->>B: hello
```"""
DEMO = (
    '<div class="acp-demo" data-acp-demo="prompt-suggestions" data-acp-demo-examples="'
    "[{&quot;name&quot;:&quot;x&quot;,&quot;label&quot;:&quot;Paste your API key&quot;,"
    '&quot;update&quot;:{}}]"><p>Demo</p></div>'
)


@pytest.fixture
def hostile_site(tmp_path: Path) -> tuple[Path, dict[str, int], str]:
    """A copy with the red team's RFD line, diagrams and demo; where each is, the RFD's page."""
    repo = copy_repo(tmp_path)
    made = new_rfd(repo, "button-trick", "Button trick")
    rfd = repo / made.shown
    rfd.write_text(rfd.read_text(encoding="utf-8") + f"\n{BUTTON}\n", encoding="utf-8")
    page = "# Hostile\n\nText.\n\n" + DIRECTIVE + "\n\n" + FRONT_MATTER + "\n\n" + DEMO + "\n"
    (repo / "docs" / "hostile3.md").write_text(page, encoding="utf-8")
    replace_in(repo / "mkdocs.yml", "\nnav:\n", "\nnav:\n  - Hostile: hostile3.md\n")
    rfd_lines = (repo / made.shown).read_text().split("\n")
    lines = page.split("\n")
    where = {
        "button": rfd_lines.index(BUTTON) + 1,
        "directive": lines.index("%%{") + 1,
        "config": lines.index("config:") + 1,
        "demo": next(i for i, t in enumerate(lines, 1) if t.startswith("<div")),
    }
    return repo, where, made


@pytest.mark.build
@pytest.mark.browser
def test_the_red_teams_page_is_called_out_and_published_as_the_allowlist_admits(
    hostile_site: tuple[Path, dict[str, int], object], tmp_path: Path, browser
) -> None:
    repo, where, made = hostile_site
    result = acp(["check", "--skip", "spell", "format"], cwd=repo)
    no_traceback(result)
    assert result.returncode == 1
    said = result.stdout
    assert (
        f"{made.shown}:{where['button']}:5: error: raw HTML <a> is not allowed in an RFD" in said
    ), said
    assert (
        f"docs/hostile3.md:{where['directive']}:1: error: the diagram holds a Mermaid directive"
        in said
    )
    assert (
        f"docs/hostile3.md:{where['config']}:1: error: the diagram sets Mermaid's configuration"
        in said
    )
    demo = re.search(
        rf"docs/hostile3.md:{where['demo']}:\d+: .*data-acp-demo.* not published", said
    )
    assert demo, said

    site = tmp_path / "site"
    built = run(["mkdocs", "build", "--site-dir", str(site)], cwd=repo)
    assert built.returncode == 0, built.stderr
    from siteserver import serve

    server = serve(str(site), "/")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        context = browser.new_context()
        view = context.new_page()
        view.goto(f"http://127.0.0.1:{server.server_address[1]}/hostile3/")
        view.wait_for_load_state("load")
        assert view.locator("figure.acp-diagram").count() == 0, "neither diagram is drawn"
        assert view.locator("[data-acp-demo], [data-acp-demo-examples]").count() == 0
        assert view.get_by_text("Paste your API key").count() == 0
        assert view.locator("pre code", has_text="themeCSS").count() == 1, "shown as code"
        context.close()
    finally:
        server.shutdown()


@pytest.mark.parametrize(
    ("statement", "word"),
    [
        ("    style B color:#ffffff,fill:#ffffff", "style"),
        ("    A --> B; classDef ghost color:#fff", "classDef"),
        ("    A:::ghost --> B", ":::"),
        ("    LINKSTYLE 0 stroke:#fff", "LINKSTYLE"),
        ('    C["x %% y"] --> D; style D fill:#f00', "style"),  # `%%` in a label: no comment
    ],
)
def test_a_diagram_that_sets_its_own_colors_is_refused_before_drawing(
    tmp_path: Path, statement: str, word: str
) -> None:
    publisher = publish.Publisher(tmp_path)  # no Mermaid here: a drawing would fail
    text = f"flowchart TD\n    accTitle: t\n    accDescr: d\n    A --> B\n{statement}\n"
    outcome = publisher.publish(text, 10)
    assert outcome.figure is None and publisher.renderer.started == 0
    (problem,) = outcome.problems
    assert (problem.line, problem.rule) == (
        15,
        "diagrams/config",
    ) and f"`{word}`" in problem.message
    sequence = "sequenceDiagram\n    accTitle: t\n    accDescr: d\n    rect rgb(255,255,255)\n"
    assert [
        p.rule for p in publisher.publish(sequence + "    A->>B: x\n    end\n", 1).problems
    ] == ["diagrams/config"]


# -- every check bounded --------------------------------------------------------------------


def test_a_step_past_its_budget_is_stopped_with_the_file_it_was_reading() -> None:
    """Nested steps share one timer: the inner one's deadline stops it; the outer goes on."""
    with (
        budget.limited("the build", 600),
        pytest.raises(budget.OutOfTime) as stopped,
        budget.limited("schema/examples/v1/valid/slow.json", 0.2),
    ):
        while True:  # stopped by the timer, the event this test waits for
            pass
    assert stopped.value.what == stopped.value.within == "schema/examples/v1/valid/slow.json"
    # Caught outside the step that ran out: caught inside it, the stop would come again
    # (as the next test shows) at a moment a busy machine decides.
    with (
        pytest.raises(budget.OutOfTime) as whole,
        budget.limited("the build", 0.2),
        budget.limited("docs/page.md", 600),
    ):
        while True:
            pass
    assert (whole.value.what, whole.value.within) == ("the build", "docs/page.md")


def test_a_step_that_catches_the_end_of_its_time_is_stopped_again() -> None:
    """Code that swallows the first stop cannot go on: the step is stopped again."""
    stops = 0
    with pytest.raises(budget.OutOfTime), budget.limited("docs/greedy.md", 0.2):
        try:
            while True:
                pass
        except BaseException:  # what a careless step might do
            stops += 1
        while True:  # waits for the second stop
            pass
    assert stops == 1


def test_prettier_markdown_of_any_extension_is_held_to_the_complexity_limit(
    node_repo: Path,
) -> None:
    from acp_docs.checks import prettier

    deep = "".join("  " * level + "- a\n" for level in range(200))
    (node_repo / "notes.markdown").write_text(deep, encoding="utf-8")
    (finding,) = prettier._plan(Repo.load(node_repo)).too_complex
    assert (finding.path, finding.rule_id) == ("notes.markdown", "format/too-complex")


@pytest.mark.build
def test_a_slow_or_large_fixture_is_a_finding_that_names_it(repo_copy: Path) -> None:
    """A list that must hold unique items and a fixture of thousands of them: the check
    stops reading it and says so, instead of running for minutes."""
    source = next((repo_copy / "schema").glob("*/source.yaml"))
    text = source.read_text(encoding="utf-8")
    assert "        type: array\n" in text
    source.write_text(
        text.replace("        type: array\n", "        type: array\n        uniqueItems: true\n")
    )
    generated = acp(["schema", "generate"], cwd=repo_copy)
    assert generated.returncode == 0, generated.stderr
    valid = repo_copy / "schema" / "examples" / "v1" / "valid"
    fixtures = [json.loads(p.read_text()) for p in sorted(valid.glob("SessionUpdate.*.json"))]
    template, lists = next(
        (f, [k for k, v in f.items() if isinstance(v, list) and v and "text" in v[0]])
        for f in fixtures
        if any(
            isinstance(v, list) and v and isinstance(v[0], dict) and "text" in v[0]
            for v in f.values()
        )
    )
    many = [{"text": f"s{i}"} for i in range(11_000)] + [{"text": "s1"}, {"text": 3}]
    (valid / "SessionUpdate.slow.json").write_text(json.dumps({**template, lists[0]: many}))
    (valid / "SessionUpdate.large.json").write_text(json.dumps({**template, "pad": "x" * 300_000}))
    result = acp(["check", "--only", "examples"], cwd=repo_copy, env={"ACP_DOCS_FILE_SECONDS": "1"})
    no_traceback(result)
    assert result.returncode == 1
    assert (
        "v1/valid/SessionUpdate.slow.json:1:1: error: checking the fixture took more than 1 s"
        in (result.stdout)
    ), result.stdout
    assert "v1/valid/SessionUpdate.large.json:1:1: error: the fixture holds 300," in result.stdout


# -- paths are not trusted by their spelling ------------------------------------------------


@pytest.mark.parametrize("folder", [".git", "site/.cache", "docs/out", "schema"])
def test_site_dir_names_a_new_plain_folder(repo_copy: Path, folder: str) -> None:
    replace_in(repo_copy / "mkdocs.yml", "site_name:", f"site_dir: {folder}\nsite_name:")
    result = acp(["check", "--only", "rfds"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2
    assert "mkdocs.yml:1:" in result.stderr and "site_dir" in result.stderr, result.stderr


@pytest.mark.build
def test_a_plain_mkdocs_build_empties_no_tracked_or_linked_folder(tmp_path: Path) -> None:
    require_tool("git", "Git")
    repo = copy_repo(tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "important.txt").write_text("kept\n")
    (repo / "site").symlink_to(victim)  # the default output folder, a link
    built = run(["mkdocs", "build"], cwd=repo)
    assert built.returncode != 0 and "site is a link" in built.stderr, built.stderr
    assert (victim / "important.txt").read_text() == "kept\n"
    (repo / "site").unlink()
    (repo / "out").symlink_to(repo / "schema")
    built = run(["mkdocs", "build", "--site-dir", str(repo / "out")], cwd=repo)
    assert built.returncode != 0 and "out is a link" in built.stderr, built.stderr
    (repo / "out").unlink()
    (repo / "notes").mkdir()
    (repo / "notes" / "keep.txt").write_text("kept\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "notes/keep.txt"], cwd=repo, check=True)
    replace_in(repo / "mkdocs.yml", "site_name:", "site_dir: notes\nsite_name:")
    built = run(["mkdocs", "build"], cwd=repo)
    assert built.returncode != 0
    assert "notes/keep.txt" in built.stderr and "a file Git tracks" in built.stderr, built.stderr
    assert (repo / "notes" / "keep.txt").read_text() == "kept\n"


@pytest.mark.build
def test_a_page_linked_to_a_file_of_the_checkout_is_not_published(tmp_path: Path) -> None:
    repo = copy_repo(tmp_path)
    (repo / ".env").write_text("---\ntitle: Notes\n---\n# Notes\n\nTOPSECRET-abc123\n")
    (repo / "docs" / "leak.md").symlink_to("../.env")
    site = tmp_path / "site"
    built = run(["mkdocs", "build", "--site-dir", str(site)], cwd=repo)
    assert "docs/leak.md" in built.stderr and "links are not followed" in built.stderr
    published = [p for p in site.rglob("*") if p.is_file()]
    assert published and not [p for p in published if b"TOPSECRET" in p.read_bytes()]


def test_a_baseline_behind_a_link_is_not_read(repo_copy: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"format": "acp-docs-baseline/1", "findings": []}))
    (repo_copy / "baseline.json").symlink_to(outside)
    (repo_copy / "linked").symlink_to(tmp_path)
    for named in ("baseline.json", "linked/outside.json"):
        result = acp(["check", "--only", "format", "--baseline", named], cwd=repo_copy)
        no_traceback(result)
        assert result.returncode == 2, result.stdout
        assert "link" in result.stderr and "not followed" in result.stderr, result.stderr


# -- the cache folder is input --------------------------------------------------------------


class _Planted:
    """Unpickled, it leaves a file behind: proof that planted code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (Path.write_text, (self.marker, "ran"))


def _jinja_entries(repo: Path) -> list[str]:
    """The names a file-system Jinja bytecode cache would give every template of the theme."""
    from jinja2 import FileSystemBytecodeCache
    from mkdocs.config import load_config

    config = load_config(str(repo / "mkdocs.yml"))
    env = config.theme.get_env()
    cache = FileSystemBytecodeCache()
    names = []
    for name in env.list_templates(extensions=["html", "xml", "txt"]):
        _source, filename, _ = env.loader.get_source(env, name)
        names.append(cache.pattern % cache.get_cache_key(name, filename))
    return names


@pytest.mark.build
def test_planted_cache_entries_are_ignored_and_nothing_of_them_is_published_or_run(
    tmp_path: Path,
) -> None:
    from jinja2.bccache import bc_magic

    repo = copy_repo(tmp_path, lean=False)
    cache = tmp_path / "cache"
    site = tmp_path / "site"

    def build() -> None:
        built = run(
            ["mkdocs", "build", "--site-dir", str(site)],
            cwd=repo,
            env={"ACP_DOCS_CACHE_DIR": str(cache)},
            timeout=900,
        )
        assert built.returncode == 0, built.stderr

    build()
    kept = [p for p in cache.rglob("*") if p.is_file() and not p.name.startswith(".")]
    assert kept, "the build kept nothing"
    refresh = '<meta http-equiv="refresh" content="0;url=https://elsewhere.example/">'
    for entry in kept:  # tampered: the planted page text, the seal left as it was
        data = entry.read_bytes()
        entry.write_bytes(data.replace(b"<h1", refresh.encode() + b"<h1", 1) + b" ")
    marker = tmp_path / "planted-code-ran"
    payload = bc_magic + pickle.dumps(_Planted(marker))
    (cache / "jinja").mkdir(exist_ok=True)
    for name in _jinja_entries(repo):
        (cache / "jinja" / name).write_bytes(payload)
    build()
    assert not marker.exists(), "the planted bytecode was loaded"
    pages = [p.read_text(encoding="utf-8") for p in site.rglob("*.html")]
    assert pages and not any("elsewhere.example" in page for page in pages)
    for entry in kept:  # each entry made again, sealed
        kind = entry.parent.name
        assert cachedir.Folder(kind, entry.parent).read(entry.name) is not None, entry


def test_the_cache_key_is_kept_outside_the_cache_folder_for_its_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(cachedir.KEY_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(tmp_path / "cache"))
    key = cachedir.key()
    kept = tmp_path / "config" / "acp-docs" / "cache-key"
    assert kept.read_bytes() == key and kept.stat().st_mode & 0o777 == 0o600
    assert cachedir.key() == key, "the same key for the next run"
    folder = cachedir.cache_dir("pages")
    assert folder is not None and not kept.is_relative_to(tmp_path / "cache")
    folder.write_text("entry.json", "{}")
    assert folder.read_text("entry.json") == "{}"
    kept.chmod(0o644)  # readable by others: somebody may know it, so it is not used
    assert cachedir.key() != key and folder.read_text("entry.json") is None
    kept.unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(key)
    elsewhere.chmod(0o600)
    kept.symlink_to(elsewhere)  # a key behind a link is not read either
    assert cachedir.key() != key
