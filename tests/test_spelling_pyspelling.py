"""`acp-docs check --only spell` and a hand run of `pyspelling -c .pyspelling.yml` agree."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from acp_docs.checks import pyspell_html, pyspelling_run, spelling
from acp_docs.config.repo import Repo
from acp_docs.markdown import prose

from conftest import BIN, acp, new_rfd, no_traceback

PLANTED = {
    "prose": "Zorblaxian",
    "tab": "Quintaprox",
    "admonition": "Flembrigast",
    "attribute": "Vortheneal",
}
PAGE = """# A page of planted words

The Zorblaxian word stands in running text, beside `Codewordix` in code.

=== "First tab"

    The Quintaprox word stands in a content tab.

=== "Second tab"

    Nothing to see.

!!! note "A note"

    The Flembrigast word stands in an admonition.

![Vortheneal picture](../assets/none.png)

```text
Fencedwordix stays in a code block.
```
"""


def _checked(repo: Path) -> dict[str, tuple[str, int]]:
    result = acp(["check", "--only", "spell", "--format", "json"], cwd=repo)
    no_traceback(result)
    found = {}
    for finding in json.loads(result.stdout)["findings"]:
        word = re.search(r"unknown word '([^']+)'", finding["message"])
        assert word is not None, finding
        found[word.group(1)] = (finding["path"], finding["line"])
    return found


def _hand_run(repo: Path) -> set[str]:
    """The words a hand run of the pyspelling CLI reports, with the repository's own config."""
    done = subprocess.run(
        [str(BIN / "pyspelling"), "-c", ".pyspelling.yml"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr
    words, inside = set(), False
    for line in done.stdout.splitlines():
        if line.startswith("-" * 20):
            inside = not inside
        elif inside and line.strip():
            words.add(line.strip())
    return words


@pytest.mark.build
def test_the_check_and_a_hand_run_of_pyspelling_report_the_same_words(
    repo_copy: Path, aspell: None
) -> None:
    page = repo_copy / "docs" / "planted.md"
    page.write_text(PAGE, encoding="utf-8")
    nav = repo_copy / "mkdocs.yml"
    nav.write_text(
        nav.read_text(encoding="utf-8").replace(
            "  - Home: index.md\n", "  - Home: index.md\n  - Planted: planted.md\n"
        ),
        encoding="utf-8",
    )
    checked = _checked(repo_copy)
    assert set(checked) == set(PLANTED.values()), checked
    lines = PAGE.split("\n")
    for word, (path, line) in checked.items():
        assert path == "docs/planted.md" and word in lines[line - 1], (word, line)
    assert _hand_run(repo_copy) == set(checked)


def test_a_filter_pyspelling_would_import_is_refused_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    config = tmp_path / ".pyspelling.yml"
    config.write_text(
        "matrix:\n  - name: x\n    sources: ['*.md']\n    pipeline:\n"
        "      - pyspelling.filters.html:\n          ignores: [code]\n"
        "      - os:\n          x: 1\n",
        encoding="utf-8",
    )
    with pytest.raises(Exception, match=r"\.pyspelling\.yml:7:1: .*filter 'os' is not one"):
        spelling.tasks(Repo.load(tmp_path))
    config.write_text(
        "matrix:\n  - name: x\n    sources: ['*.md']\n    pipeline:\n"
        "      - pyspelling.filters.html:\n          ignores: 3\n",
        encoding="utf-8",
    )
    with pytest.raises(Exception, match=r"\.pyspelling\.yml:6:1: .*html option 'ignores'"):
        spelling.tasks(Repo.load(tmp_path))


OPTIONS = {
    "comments": False,
    "attributes": ["title", "alt"],
    "ignores": [":is(code, pre, kbd)", ".headerlink"],
}


@pytest.mark.build
def test_the_projects_filter_reads_the_words_pyspellings_html_filter_reads(
    built_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On every page of the site (the API pages are not spelled), word for word."""
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(tmp_path))
    ours = pyspelling_run.PageWords(OPTIONS, True, pyspelling_run.PROSE_FILTER)
    theirs = pyspelling_run.PageWords(OPTIONS, True, pyspelling_run.HTML_FILTER)
    pages = 0
    for path in sorted(built_site.rglob("index.html")):
        if "tooling/api/" in path.as_posix():
            continue
        article = re.search(r"<article[^>]*>(.*)</article>", path.read_text(), re.S)
        if article is None:
            continue
        content = prose.without_generated(article.group(1))
        assert ours.words(content) == theirs.words(content), path
        pages += 1
    assert pages > 10


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"mode": "xml"}, "option 'mode' is not one this filter takes"),
        ({"comments": "no"}, "option 'comments' must be a boolean"),
        ({"ignores": ["div > p"]}, "selector 'div > p': only tag, .class"),
        ({"ignores": [":not(code)"]}, "selector ':not(code)'"),
    ],
)
def test_the_projects_filter_refuses_what_it_does_not_read(options: dict, says: str) -> None:
    assert says in (pyspell_html.options_problem(options) or "")
    with pytest.raises((ValueError, KeyError)):
        pyspell_html.get_plugin()(options)


def test_the_projects_filter_keeps_prose_and_drops_what_is_not() -> None:
    html = (
        '<p>One <em>two</em><code>three</code></p><div class="headerlink">four</div>'
        '<img alt="five" src="x.png"><!-- six --><script>seven()</script><p>eig<b>ht</b></p>'
    )
    assert pyspell_html.prose(html, OPTIONS).split() == ["One", "two", "five", "eight"]
    with_comments = {**OPTIONS, "comments": True}
    assert "six" in pyspell_html.prose(html, with_comments).split()


@pytest.mark.build
def test_names_the_schemas_define_are_words_the_check_knows(repo_copy: Path, aspell: None) -> None:
    made = new_rfd(repo_copy, "session-renames", "Session renames", "--schema")
    source = repo_copy / "schema" / made.slug / "source.yaml"
    text = source.read_text(encoding="utf-8")
    defined = re.search(r"^\s+fields: (\w+)$", text, re.M)  # the update's own new type
    assert defined, text
    name = defined.group(1)
    page = repo_copy / made.shown
    page.write_text(
        page.read_text(encoding="utf-8").replace(
            "## Status quo\n",
            f"## Status quo\n\nThe {name} type is new, and AvailableCommandsUpdate is not;"
            f" {name}Zorblax is a typo.\n",
            1,
        ),
        encoding="utf-8",
    )
    checked = _checked(repo_copy)
    assert f"{name}Zorblax" in checked
    assert name not in checked and "AvailableCommandsUpdate" not in checked
