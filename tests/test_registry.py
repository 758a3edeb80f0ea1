"""Checks come from entry points: a new check is one module, and a broken one is an error.

A check outside this package is written in a temporary folder, with a
dist-info that registers it under `acp_docs.checks`, and put on the path of
this process and of the site build's child process (PYTHONPATH).
"""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

import pytest

from acp_docs.checks import registry
from acp_docs.core.findings import Finding
from acp_docs.reporters import page as page_report

from conftest import ROOT, acp, no_traceback, sample

WORDS = '''\
"""A check that flags one word: a whole check in one module."""

import re

from acp_docs.checks.registry import Check
from acp_docs.core.findings import Finding
from acp_docs.sources.lines import LineIndex

HINT = "Write 'widget' instead of 'frobnicator'."


def _page(view):
    lines = LineIndex(view.markdown)
    for found in re.finditer(r"\\bfrobnicator\\b", view.markdown):
        line, col = lines.at(found.start())
        yield Finding(view.path, line, col, "words", "the word 'frobnicator'", "words/banned")


CHECK = Check(
    name="words",
    summary="Words the project does not use.",
    rules={"words/banned": HINT},
    docs="words",
    page=_page,
)
'''


def _register(folder: Path, dist: str, entries: dict[str, str], modules: dict[str, str]) -> Path:
    """A distribution in `folder` that registers `entries` under acp_docs.checks."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in modules.items():
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    info = folder / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = ["[console_scripts]", "", "[acp_docs.checks]"]
    lines += [f"{name} = {value}" for name, value in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return info / "entry_points.txt"


@pytest.fixture
def on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Put a folder on this process's path and on the path of the processes it starts."""

    def put(folder: Path) -> None:
        monkeypatch.syspath_prepend(str(folder))
        before = os.environ.get("PYTHONPATH", "")
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(folder), before) if p))

    return put


def test_the_built_in_checks_are_registered_in_summary_order() -> None:
    checks = registry.load_checks()
    assert list(checks)[:2] == ["files", "schema"]
    assert {"examples", "rfds", "links", "build", "spell", "format"} <= set(checks)
    assert registry.causes(checks) == {"files", "schema"}
    assert checks["format"].runs_in == {"check"} and checks["format"].sources is not None
    assert not checks["format"].needs_pages
    assert checks["spell"].site is not None and checks["spell"].preflight is not None
    assert "build" not in checks["spell"].runs_in  # `mkdocs build` spells nothing


def test_every_check_has_its_section_in_the_checks_page() -> None:
    page = (ROOT / registry.DOCS).read_text(encoding="utf-8")
    anchors = {
        re.sub(r"[^a-z0-9 -]", "", heading.lower()).strip().replace(" ", "-")
        for heading in re.findall(r"^#+ (.+)$", page, re.M)
    }
    for check in registry.load_checks(ROOT).values():
        assert check.docs in anchors, f"{check.name}: no section #{check.docs} in {registry.DOCS}"
        for rule in check.rules:
            assert rule == check.name or rule.startswith(f"{check.name}/"), rule


def test_a_fix_hint_is_the_rule_s_own_or_else_the_check_s() -> None:
    links = registry.load_checks()["links"]
    assert registry.fix_hint(links, "links/not-in-nav") == links.rules["links/not-in-nav"]
    assert registry.fix_hint(links, "links/anchor") == links.rules["links"]
    assert registry.fix_hint(None, "links/anchor") is None


@pytest.mark.build
def test_a_new_check_in_one_module_reports_with_its_hint(
    sample_copy: Path, tmp_path: Path, on_path
) -> None:
    on_path(tmp_path / "plugins")
    _register(tmp_path / "plugins", "wordcheck", {"words": "wordcheck:CHECK"}, {"wordcheck": WORDS})
    rfd = sample_copy / sample().rfd
    rfd.write_text(rfd.read_text(encoding="utf-8") + "\nThe frobnicator is here.\n")
    line = rfd.read_text(encoding="utf-8").count("\n")

    checks = registry.load_checks()
    assert "words" in checks and checks["words"].needs_pages
    result = acp(["check", "--only", "words", "--format", "json"], cwd=sample_copy)
    no_traceback(result)
    assert result.returncode == 1, result.stderr
    assert re.search(r"words\s+failed\s+\S+\s+1 finding", result.stderr), result.stderr
    assert f'"path": "{sample().rfd}"' in result.stdout
    assert f'"line": {line}' in result.stdout and '"rule": "words/banned"' in result.stdout

    finding = Finding(sample().rfd, line, 5, "words", "the word 'frobnicator'", "words/banned")
    note = page_report.note(finding, 1)
    assert "How to fix: Write &#x27;widget&#x27; instead of &#x27;frobnicator&#x27;." in note

    skipped = acp(["check", "--only", "words", "--skip", "words"], cwd=sample_copy)
    assert skipped.returncode == 2 and "nothing would be checked" in skipped.stderr


@pytest.mark.parametrize(
    ("modules", "says"),
    [
        ({}, "cannot be imported: ModuleNotFoundError: No module named 'brokencheck'"),
        ({"brokencheck": "raise RuntimeError('boom')\n"}, "RuntimeError: boom"),
        ({"brokencheck": "CHECK = 'words'\n"}, "is of type str, not a Check"),
    ],
    ids=["missing", "raises", "not a check"],
)
def test_a_registered_check_that_cannot_load_is_an_error_naming_its_entry_point(
    tmp_path: Path, on_path, modules: dict[str, str], says: str
) -> None:
    on_path(tmp_path / "plugins")
    declared = _register(
        tmp_path / "plugins", "brokencheck", {"broken": "brokencheck:CHECK"}, modules
    )
    with pytest.raises(registry.PluginLoadError) as caught:
        registry.load_checks()
    assert caught.value.path == str(declared) and caught.value.line == 4
    assert "acp_docs.checks `broken = brokencheck:CHECK`" in str(caught.value)

    result = acp(["check"], cwd=ROOT)
    no_traceback(result)
    assert result.returncode == 2
    assert f"{declared}:4:1: entry point acp_docs.checks `broken = brokencheck:CHECK`" in (
        result.stderr
    )
    assert says in result.stderr


@pytest.mark.build
def test_a_site_build_refuses_a_check_that_cannot_load(tmp_path: Path, on_path) -> None:
    from acp_docs.mkdocs import sitebuild

    on_path(tmp_path / "plugins")
    _register(tmp_path / "plugins", "brokencheck", {"broken": "brokencheck:CHECK"}, {})
    done = sitebuild.build(ROOT)
    assert "findings" not in done
    assert "entry point acp_docs.checks `broken = brokencheck:CHECK`" in done["error"]


def test_a_check_without_a_hook_is_refused(tmp_path: Path, on_path) -> None:
    text = textwrap.dedent(
        """\
        from acp_docs.checks.registry import Check
        CHECK = Check(name="idle", summary="", rules={}, docs="idle")
        """
    )
    on_path(tmp_path / "plugins")
    _register(tmp_path / "plugins", "idlecheck", {"idle": "idlecheck:CHECK"}, {"idlecheck": text})
    with pytest.raises(registry.PluginLoadError, match="has no hook"):
        registry.load_checks()
