"""`acp-docs export upstream`: the RFD as the pull request the ACP repository expects.

Each test exports the sample RFD (see conftest) from a checkout that holds it,
naming it with `--rfd`, as an author does when the repository has several.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from acp_docs.markdown.blocks import code_blocks, rendered_blocks
from acp_docs.sources import jsonfmt

from conftest import ROOT, acp, copy_sample, no_traceback, replace_in, require_tool, sample

SAMPLE = sample()
RFD = SAMPLE.rfd
MDX = f"docs/rfds/{SAMPLE.slug}.mdx"
DOCS_JSON = {
    "name": "Agent Client Protocol",
    "navigation": {
        "tabs": [
            {"tab": "Protocol", "pages": ["overview"]},
            {
                "tab": "RFDs",
                "pages": [
                    "rfds/about",
                    {"group": "Draft", "pages": ["rfds/session-fork", "rfds/session-notices"]},
                    {"group": "Active", "pages": []},
                    {"group": "Preview", "pages": []},
                    {"group": "Completed", "pages": ["rfds/session-list"]},
                ],
            },
        ]
    },
}


def _upstream(parent: Path) -> Path:
    """A folder laid out like the upstream repository, with a small docs.json, in `parent`."""
    folder = parent / "upstream"
    (folder / "docs" / "rfds").mkdir(parents=True)
    (folder / "docs" / "docs.json").write_text(jsonfmt.dumps(DOCS_JSON))  # as Prettier writes it
    (folder / "typos.toml").write_text("[default.extend-words]\n")  # upstream spells with typos
    return folder


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    """A folder laid out like the upstream repository, with a small docs.json."""
    return _upstream(tmp_path)


SITE = "https://example.org/acp-rfds"
"""Where the tests say the proposal's site is published (ACP_DOCS_SITE_URL)."""


def _export(upstream: Path, repo: Path, *extra: str):
    env = {"ACP_DOCS_SITE_URL": SITE + "/"}
    command = ["export", "upstream", str(upstream), "--rfd", SAMPLE.slug, *extra]
    result = acp(command, cwd=repo, env=env)
    no_traceback(result)
    return result


def _normal(text: str) -> str:
    return json.dumps(json.loads(text), sort_keys=True)


@dataclass(frozen=True)
class Export:
    """A checkout, the upstream folder the sample RFD was exported into, and the run's result."""

    repo: Path
    upstream: Path
    result: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def exported(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Export:
    """The sample RFD exported as it is, once: read, never changed."""
    folder = tmp_path_factory.mktemp("exported")
    repo, upstream = copy_sample(sample_template, folder), _upstream(folder)
    return Export(repo, upstream, _export(upstream, repo))


DEMO_ANCHOR = "want at once.\n"
ADMONITION_ANCHOR = "Why would we change things?\n"
ADMONITION = '!!! warning "Heads up"\n\n    Suggestions are `text`, never markup.\n'


@pytest.fixture(scope="module")
def planted_export(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Export:
    """The sample RFD with a demo marker and an admonition planted, exported once: read only."""
    folder = tmp_path_factory.mktemp("planted-export")
    repo, upstream = copy_sample(sample_template, folder), _upstream(folder)
    marker = f"\n<!-- acp-docs:demo {SAMPLE.slug} -->\n"
    replace_in(repo / RFD, DEMO_ANCHOR, DEMO_ANCHOR + marker)
    replace_in(repo / RFD, ADMONITION_ANCHOR, ADMONITION_ANCHOR + "\n" + ADMONITION)
    return Export(repo, upstream, _export(upstream, repo))


def test_the_export_compiles_is_prettier_clean_and_keeps_every_validated_block(
    exported: Export, render
) -> None:
    require_tool("node", "Node.js")
    sample_copy, upstream, result = exported.repo, exported.upstream, exported.result
    assert result.returncode == 0, result.stderr
    mdx = upstream / MDX
    text = mdx.read_text()

    compiled = subprocess.run(
        ["node", str(ROOT / "tests" / "mdx_compile.mjs"), str(mdx)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    prettier = subprocess.run(
        [
            "node",
            str(ROOT / "node_modules/prettier/bin/prettier.cjs"),
            "--no-config",
            "--check",
            MDX,
        ],
        cwd=upstream,
        capture_output=True,
        text=True,
    )
    assert prettier.returncode == 0, prettier.stdout + prettier.stderr

    assert text.startswith(f'---\ntitle: "{SAMPLE.title}"\n---\n\nAuthor(s): [@octocat]')
    assert "\n# " not in text, "upstream RFDs have no H1"
    for material in ('=== "', "!!! ", 'title="', "<!--", "///"):
        assert material not in text, material
    assert "<CodeGroup>" in text and "</CodeGroup>" in text
    assert "> What are you proposing to change?" in text

    source = (sample_copy / RFD).read_text()
    validated = {
        _normal(b.text) for b in rendered_blocks(render(source)) if b.lang == "json" and b.title
    }
    exported = [b for b in code_blocks(text) if b.lang == "json"]
    assert {_normal(b.content) for b in exported} == validated
    heads = [text.split("\n")[b.line - 1].strip() for b in exported]
    assert all(len(head) > len("```json ") for head in heads), "every JSON block keeps its title"

    nav = json.loads((upstream / "docs" / "docs.json").read_text())
    groups = {g["group"]: g["pages"] for g in nav["navigation"]["tabs"][1]["pages"][1:]}
    assert groups["Draft"] == [
        "rfds/session-fork",
        "rfds/session-notices",
        f"rfds/{SAMPLE.slug}",
    ]
    assert groups["Completed"] == ["rfds/session-list"]
    assert nav["navigation"]["tabs"][0] == DOCS_JSON["navigation"]["tabs"][0]
    assert "suggested pull request title" in result.stderr
    assert sorted(
        p.relative_to(upstream).as_posix()
        for p in upstream.rglob("*")
        if p.is_file() and p.name != "typos.toml"  # the tree's own, not the export's
    ) == [
        "docs/docs.json",
        MDX,
    ]


def test_links_into_this_site_become_absolute_and_the_demo_a_link(planted_export: Export) -> None:
    assert planted_export.result.returncode == 0, planted_export.result.stderr
    text = (planted_export.upstream / MDX).read_text()
    site = SITE
    assert f"]({site}/schema/)" in text
    assert f"]({site}/protocol/{SAMPLE.slug}/)" in text
    assert f"({site}/rfds/{SAMPLE.slug}/#shiny-future)" in text
    assert "acp-docs:demo" not in text
    assert "](../" not in text and ".md)" not in text


def test_a_second_run_changes_nothing(exported: Export, tmp_path: Path) -> None:
    assert exported.result.returncode == 0, exported.result.stderr
    upstream = tmp_path / "upstream"
    shutil.copytree(exported.upstream, upstream)  # as the first run left it
    before = {p: p.read_bytes() for p in upstream.rglob("*") if p.is_file()}
    again = _export(upstream, exported.repo)
    assert again.returncode == 0
    assert "wrote" not in again.stderr and again.stderr.count("unchanged") == 2
    assert {p: p.read_bytes() for p in upstream.rglob("*") if p.is_file()} == before


def test_it_refuses_to_replace_a_file_it_did_not_write(sample_copy: Path, upstream: Path) -> None:
    (upstream / MDX).write_text("---\ntitle: mine\n---\n")
    refused = _export(upstream, sample_copy)
    assert refused.returncode == 2
    assert "pass --force" in refused.stderr
    assert (upstream / MDX).read_text() == "---\ntitle: mine\n---\n"
    assert _export(upstream, sample_copy, "--force").returncode == 0
    assert SAMPLE.title in (upstream / MDX).read_text()


@pytest.mark.parametrize(
    ("planted", "says"),
    [
        ("/// note\nA pymdownx block.\n///\n", "pymdownx blocks (///) have no MDX form"),
        ('=== "A"\n\n    Prose in a tab.\n', "a content tab that holds more than one code block"),
        ("See [this](x.md){: .button }.\n", "attribute lists"),
        ('import Text from "https://example.invalid/x.js"\n', "is module code in MDX"),
        ("export let shown = alert(1)\n", "is module code in MDX"),
    ],
)
def test_what_cannot_be_converted_is_reported_at_its_line_and_nothing_is_written(
    sample_copy: Path, upstream: Path, planted: str, says: str
) -> None:
    anchor = "Why would we change things?\n"
    replace_in(sample_copy / RFD, anchor, anchor + "\n" + planted)
    line = (sample_copy / RFD).read_text().split(anchor)[0].count("\n") + 3
    before = (upstream / "docs" / "docs.json").read_bytes()
    result = _export(upstream, sample_copy)
    assert result.returncode == 1
    assert f"{RFD}:{line}:1: " in result.stdout and says in result.stdout
    assert not (upstream / MDX).exists()
    assert (upstream / "docs" / "docs.json").read_bytes() == before


def test_an_admonition_becomes_a_mintlify_callout(planted_export: Export) -> None:
    require_tool("node", "Node.js")
    upstream = planted_export.upstream
    assert planted_export.result.returncode == 0, planted_export.result.stderr
    text = (upstream / MDX).read_text()
    warning = text.split("<Warning>", 1)[1].split("</Warning>", 1)[0]
    assert "**Heads up**" in warning and "Suggestions are `text`, never markup." in warning
    compiled = subprocess.run(
        ["node", str(ROOT / "tests" / "mdx_compile.mjs"), str(upstream / MDX)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert compiled.returncode == 0, compiled.stdout


def _v2_only(sample_copy: Path) -> None:
    """Make the sample RFD's schema change one of protocol v2 alone."""
    # A variant of v2's open SessionUpdate.
    (sample_copy / SAMPLE.source).write_text(
        f"title: session badges update\nversions: [v2]\ndefinitions:\n"
        f"  {SAMPLE.capabilities}:\n    type: object\nchanges:\n  - op: add-variant\n"
        f"    union: SessionUpdate\n    tag: {SAMPLE.slug.replace('-', '_')}\n"
        f"    fields: {SAMPLE.capabilities}\n"
    )


def test_a_v2_only_rfd_goes_where_upstream_keeps_them(sample_copy: Path, tmp_path: Path) -> None:
    _v2_only(sample_copy)
    folder = tmp_path / "upstream-v2"
    (folder / "docs").mkdir(parents=True)
    nav = json.loads(json.dumps(DOCS_JSON))
    draft = nav["navigation"]["tabs"][1]["pages"][1]
    draft["pages"].append({"group": "v2", "pages": ["rfds/v2/overview"]})
    (folder / "docs" / "docs.json").write_text(json.dumps(nav, indent=2) + "\n")
    assert _export(folder, sample_copy).returncode == 0
    assert (folder / "docs" / "rfds" / "v2" / f"{SAMPLE.slug}.mdx").is_file()
    written = json.loads((folder / "docs" / "docs.json").read_text())
    group = written["navigation"]["tabs"][1]["pages"][1]["pages"][-1]
    assert group == {"group": "v2", "pages": ["rfds/v2/overview", f"rfds/v2/{SAMPLE.slug}"]}
    assert written["navigation"]["tabs"][1]["pages"][1]["pages"][:2] == draft["pages"][:2]


def test_a_status_group_without_a_v2_group_gets_one_as_prettier_writes_it(
    sample_copy: Path, upstream: Path
) -> None:
    require_tool("node", "Node.js")
    _v2_only(sample_copy)
    result = _export(upstream, sample_copy)
    assert result.returncode == 0, result.stdout + result.stderr
    nav = json.loads((upstream / "docs" / "docs.json").read_text())
    draft = nav["navigation"]["tabs"][1]["pages"][1]
    assert draft["pages"][-1] == {"group": "v2", "pages": [f"rfds/v2/{SAMPLE.slug}"]}
    assert draft["pages"][:-1] == DOCS_JSON["navigation"]["tabs"][1]["pages"][1]["pages"]
    script = ROOT / "node_modules" / "prettier" / "bin" / "prettier.cjs"
    formatted = subprocess.run(
        ["node", str(script), "--no-config", "--check", "docs/docs.json"],
        cwd=upstream,
        capture_output=True,
        text=True,
    )
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def test_front_matter_that_fails_the_lint_is_never_exported(
    sample_copy: Path, upstream: Path
) -> None:
    hostile = "  - octocat\n  - x)](javascript:alert(1))[y\n"
    replace_in(sample_copy / RFD, "  - octocat\n", hostile)
    result = _export(upstream, sample_copy)
    assert result.returncode == 1
    assert f"{RFD}:" in result.stdout and "front matter `authors`" in result.stdout
    assert not (upstream / MDX).exists()


def test_what_it_wrote_is_held_to_the_upstream_check(exported: Export) -> None:
    assert exported.result.returncode == 0, exported.result.stdout + exported.result.stderr
    assert f"the upstream check of {MDX}: " in exported.result.stderr


def test_a_problem_only_the_upstream_check_knows_fails_the_export(
    sample_copy: Path, upstream: Path
) -> None:
    # A typo upstream's typos knows: this repository spells with Aspell, upstream with typos.
    replace_in(sample_copy / RFD, DEMO_ANCHOR, DEMO_ANCHOR + "\nAgents answer teh client.\n")
    result = _export(upstream, sample_copy)
    assert result.returncode == 1
    line = (upstream / MDX).read_text().split("teh client")[0].count("\n") + 1
    assert f"{MDX}:{line}:" in result.stdout and "'teh' is a typo" in result.stdout
    assert f"the upstream check of {MDX}: " in result.stderr and "1 error(s)" in result.stderr


def _files(path: Path) -> dict[Path, bytes]:
    """Every file at or under `path`, with its bytes."""
    if path.is_file():
        return {path: path.read_bytes()}
    return {p: p.read_bytes() for p in path.rglob("*") if p.is_file()}


@pytest.mark.parametrize("linked", ["docs/rfds", "docs", "docs/docs.json"])
def test_a_linked_folder_or_file_in_the_target_is_refused_and_nothing_is_written_outside(
    sample_copy: Path, upstream: Path, tmp_path: Path, linked: str
) -> None:
    outside = tmp_path / "outside"
    moved = upstream / linked
    shutil.move(moved, outside)
    moved.symlink_to(outside)
    before = _files(outside)
    result = _export(upstream, sample_copy)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "symbolic link" in result.stderr or "linked folder" in result.stderr, result.stderr
    assert _files(outside) == before


@pytest.mark.parametrize(
    ("docs_json", "says"),
    [
        ("[" * 100_000, "nested deeper than 64 levels"),
        ('{"navigation": {"tabs": [{"tab": "RFDs", "pages": 3}]}}', "has no group"),
        (
            '{"navigation": {"tabs": [{"tab": "RFDs",'
            ' "pages": [{"group": "Draft", "pages": "x"}]}]}}',
            "has no group",
        ),
    ],
    ids=["too deep", "pages a number", "a group's pages a string"],
)
def test_a_docs_json_of_another_shape_is_a_usage_error_and_nothing_is_written(
    sample_copy: Path, upstream: Path, docs_json: str, says: str
) -> None:
    (upstream / "docs" / "docs.json").write_text(docs_json)
    result = _export(upstream, sample_copy)
    assert result.returncode == 2 and "docs/docs.json" in result.stderr and says in result.stderr
    assert not (upstream / MDX).exists()
