"""Checks are stages: each check owns its work behind hooks, and runs only where it needs to.

A check with only a `sources` hook runs in the process of `acp-docs check`
and starts no site build; a check with a `page` or `site` hook runs inside
the one build. The MkDocs plugin names no check. A check that lives in the
checkout (`[tool.acp-docs.local-checks]`) runs without a reinstall.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from acp_docs.checks import registry
from acp_docs.checks import run as check_run
from acp_docs.config.repo import Repo
from acp_docs.core import runner
from acp_docs.core.findings import CheckResult, Finding, report_order

from conftest import ROOT, acp, no_traceback, run

PACKAGE = ROOT / "scripts" / "acp_docs"

PID_CHECKS = '''\
"""Two checks that say which process ran their hook."""

import os
from pathlib import Path

from acp_docs.checks.registry import Check
from acp_docs.core.findings import Finding

OUT = Path(os.environ["PID_CHECKS_OUT"])


def _said(name, path):
    (OUT / name).write_text(str(os.getpid()), encoding="utf-8")
    return [Finding(path, 1, 1, name, f"ran in {os.getpid()}", f"{name}/ran", "note")]


def _sources(checkout):
    return _said("from-sources", "mkdocs.yml")


def _page(view):
    if view.path != "docs/index.md":
        return []
    return _said("from-pages", view.path)


SOURCES = Check(
    name="from-sources", summary="", rules={}, docs="from-sources", sources=_sources
)
PAGES = Check(name="from-pages", summary="", rules={}, docs="from-pages", page=_page)
'''


def _register(folder: Path, entries: dict[str, str], modules: dict[str, str]) -> None:
    """A distribution in `folder` that registers `entries` under acp_docs.checks."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in modules.items():
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    info = folder / "pidchecks-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pidchecks\nVersion: 0.1\n")
    lines = ["[acp_docs.checks]", *(f"{name} = {value}" for name, value in entries.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def no_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if anything starts the site build (or any other tool)."""

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a child process was started: {args[:2]}")

    monkeypatch.setattr(runner, "start_module", refused)


def test_every_registered_check_has_a_hook_of_its_own() -> None:
    for check in registry.load_checks().values():
        hooks = [h for h in ("sources", "page", "site") if getattr(check, h) is not None]
        assert hooks, f"{check.name} has no hook"


def _calls_and_imports(path: Path) -> tuple[list[ast.Call], list[str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    imports = [
        n.module if isinstance(n, ast.ImportFrom) else alias.name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for alias in n.names
        if (n.module if isinstance(n, ast.ImportFrom) else alias.name)
    ]
    return calls, [i for i in imports if i]


def test_the_plugin_names_no_check() -> None:
    checks = registry.load_checks()
    modules = {f"acp_docs.checks.{name}" for name in checks}
    for path in sorted((PACKAGE / "mkdocs").glob("*.py")):
        calls, imports = _calls_and_imports(path)
        assert not modules & set(imports), f"{path.name} imports a check's module"
        for call in calls:
            named = call.func.id if isinstance(call.func, ast.Name) else None
            if named == "Finding" and len(call.args) >= 4:
                said = call.args[3]
                assert not (isinstance(said, ast.Constant) and said.value in checks), (
                    f"{path.name}:{call.lineno} names the check {said.value!r}"
                )


def test_a_finding_sorts_by_its_own_fields_with_no_plugin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    findings_module = PACKAGE / "core" / "findings.py"
    _calls, imports = _calls_and_imports(findings_module)
    assert not [i for i in imports if i.startswith("acp_docs.") and "core" not in i], imports

    from acp_docs.core import plugins

    def refused(group: str) -> list[object]:
        raise AssertionError(f"sorting loaded the plugins of {group}")

    monkeypatch.setattr(plugins, "entries", refused)
    cause = Finding("schema/x/source.yaml", 9, 1, "schema", "missing", "schema/source")
    effect = Finding("docs/a.md", 3, 1, "examples", "unknown", "examples/x")
    assert sorted([cause, effect]) == [effect, cause]
    results = [
        CheckResult("examples", (effect,), 0.0),
        CheckResult("schema", (cause,), 0.0, cause=True),
    ]
    assert report_order(results) == [cause, effect]


@pytest.mark.parametrize("only", ["rfds", "schema", "files"])
def test_a_sources_check_runs_here_and_starts_no_build(no_build: None, only: str) -> None:
    results = check_run.run(Repo.load(ROOT), [only])
    assert [r.name for r in results] == [only]
    assert results[0].error is None, results[0].error


@pytest.mark.build
def test_a_third_party_check_runs_at_the_stage_it_needs(
    sample_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugins_dir, out = tmp_path / "plugins", tmp_path / "out"
    out.mkdir()
    _register(
        plugins_dir,
        {"from-pages": "pidchecks:PAGES", "from-sources": "pidchecks:SOURCES"},
        {"pidchecks": PID_CHECKS},
    )
    monkeypatch.syspath_prepend(str(plugins_dir))
    before = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(plugins_dir), before) if p))
    monkeypatch.setenv("PID_CHECKS_OUT", str(out))
    repo = Repo.load(sample_copy)

    results = {r.name: r for r in check_run.run(repo, ["from-sources", "from-pages"])}
    assert results["from-sources"].error is None and results["from-pages"].error is None
    here = str(os.getpid())
    assert (out / "from-sources").read_text() == here, "a sources check runs in this process"
    assert (out / "from-pages").read_text() != here, "a pages check runs in the site build"
    assert [f.rule for f in results["from-pages"].findings] == ["from-pages/ran"]

    (out / "from-pages").unlink()
    started: list[object] = []
    monkeypatch.setattr(runner, "start_module", lambda *a, **k: started.append(a))
    alone = check_run.run(repo, ["from-sources"])
    assert alone[0].findings and not started and not (out / "from-pages").exists()


LOCAL = '''\
"""A check of this checkout: a title that shouts."""

from acp_docs.checks.registry import Check
from acp_docs.core.findings import Finding


def _sources(checkout):
    for rfd in checkout.rfds:
        yield Finding(rfd.shown, 1, 1, "shout", "the RFD was read", "shout/read", "warning")


CHECK = Check(name="shout", summary="", rules={}, docs="shout", sources=_sources)
'''


def _local(repo: Path, table: str, module: str | None = LOCAL, name: str = "shoutcheck") -> None:
    (repo / "checks").mkdir(exist_ok=True)
    if module is not None:
        (repo / "checks" / f"{name}.py").write_text(module, encoding="utf-8")
    with (repo / "pyproject.toml").open("a", encoding="utf-8") as out:
        out.write("\n" + textwrap.dedent(table))


def test_a_check_in_the_checkout_runs_without_a_reinstall(repo_copy: Path, no_build: None) -> None:
    _local(
        repo_copy,
        """\
        [tool.acp-docs.local-checks]
        paths = ["checks"]
        shout = "shoutcheck_a:CHECK"
        """,
        name="shoutcheck_a",
    )
    result = acp(["check", "--only", "shout", "--format", "json"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert '"rule": "shout/read"' in result.stdout
    assert "shout" in registry.load_checks(repo_copy)
    assert "shout" not in registry.load_checks(ROOT)


@pytest.mark.parametrize(
    ("table", "says", "at"),
    [
        ("shout = 5\n", 'local-checks.shout must say "module:', 1),
        ('shout = "os.system"\n', 'must say "module:ATTRIBUTE"', 1),
        ('paths = ["../"]\n', "is not a folder inside the checkout", 1),
        ('paths = ["link"]\n', "is not a folder inside the checkout", 1),
        ('"Bad Name" = "x:CHECK"\n', "is not a check name", 1),
        ("shout = \n", "Invalid value", 1),
        ('paths = ["checks"]\nshout = "nosuchmodule:CHECK"\n', "ModuleNotFoundError", 2),
        ('paths = ["checks"]\nfiles = "shoutcheck:CHECK"\n', "already has the name 'files'", 2),
    ],
    ids=["not-a-string", "no-attribute", "outside", "symlink", "name", "toml", "missing", "clash"],
)
def test_a_bad_local_check_is_an_error_at_its_line(
    repo_copy: Path, table: str, says: str, at: int
) -> None:
    (repo_copy / "link").symlink_to(ROOT / "scripts")
    header = (repo_copy / "pyproject.toml").read_text(encoding="utf-8").count("\n") + 2
    _local(repo_copy, "[tool.acp-docs.local-checks]\n" + table, module=None)
    result = acp(["check", "--only", "rfds"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2, result.stderr
    assert says in result.stderr
    assert f"pyproject.toml:{header + at}:" in result.stderr, result.stderr


UPSTREAM_WORDS = '''\
"""An upstream check in one module: pages that say "frobnicate"."""

from acp_docs.core.findings import Finding
from acp_docs.upstream.registry import UpstreamCheck


def _run(read):
    return [
        Finding(page.path, 1, 1, "upstream-words", "says frobnicate", "upstream-words/banned")
        for page in read.tree.pages.values()
    ]


UPSTREAM_CHECK = UpstreamCheck("upstream-words", "A banned word.", _run, 90)
'''


def test_an_upstream_check_is_registered_like_any_other(
    upstream_sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from acp_docs.upstream import check as upstream

    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "upwords.py").write_text(UPSTREAM_WORDS, encoding="utf-8")
    info = folder / "upwords-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: upwords\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[acp_docs.upstream_checks]\nupstream-words = upwords:UPSTREAM_CHECK\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(folder))
    assert "upstream-words" in upstream.names()
    results = {r.name: r for r in upstream.run(upstream_sample, ("upstream-words",))}
    assert list(results) == ["upstream-words"] and results["upstream-words"].findings

    result = acp(["check", "--upstream", str(upstream_sample), "--only", "upstream-words"])
    no_traceback(result)
    assert result.returncode == 1 and ": says frobnicate" in result.stdout, result.stderr
    assert "upstream-words  failed" in result.stderr


def test_a_check_is_held_to_its_rules_and_names_when_it_loads(repo_copy: Path) -> None:
    odd = LOCAL.replace("rules={}", 'rules={"loud": "Speak softly."}')
    _local(
        repo_copy,
        """\
        [tool.acp-docs.local-checks]
        paths = ["checks"]
        shout = "shoutcheck_b:CHECK"
        """,
        module=odd,
        name="shoutcheck_b",
    )
    result = acp(["check", "--only", "shout"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2 and "rule 'loud' is not named `shout/...`" in result.stderr

    unknown = acp(["check", "--only", "nosuch"], cwd=ROOT)
    assert unknown.returncode == 2 and "--only/--skip nosuch: no such check" in unknown.stderr
    upstream = acp(["check", "--only", "upstream-links"], cwd=ROOT)
    assert upstream.returncode == 2 and "add --upstream DIR" in upstream.stderr


def test_only_and_skip_may_be_given_more_than_once(no_build: None) -> None:
    from acp_docs.cli.args import build_parser

    args = build_parser().parse_args(["check", "--only", "rfds", "--only", "schema"])
    assert args.only == ["rfds", "schema"]
    result = acp(["check", "--only", "rfds", "--only", "schema"], cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "rfds" in result.stderr and "schema" in result.stderr


BOOM = '''\
"""Checks whose own code fails: each is that check's error, never the others'."""

from acp_docs.checks.registry import Check
from acp_docs.core.findings import Finding


def _page(view):
    raise RuntimeError("boom in a page hook")


def _sources(checkout):
    raise SystemExit(0)


def _odd(checkout):
    return [Finding("mkdocs.yml", "1", 1, "odd", "a line that is text", "odd/x")]


PAGE = Check(name="boom", summary="", rules={}, page=_page)
EXITS = Check(name="exits", summary="", rules={}, sources=_sources)
ODD = Check(name="odd", summary="", rules={}, sources=_odd)
'''


@pytest.mark.build
def test_a_check_whose_code_fails_is_its_own_error_and_the_others_report(
    repo_copy: Path,
) -> None:
    _local(
        repo_copy,
        """\
        [tool.acp-docs.local-checks]
        paths = ["checks"]
        boom = "boomchecks:PAGE"
        exits = "boomchecks:EXITS"
        odd = "boomchecks:ODD"
        """,
        module=BOOM,
        name="boomchecks",
    )
    only = ["--only", "boom", "exits", "odd", "links", "rfds"]
    result = run(["acp-docs", "check", *only], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2, result.stderr
    said = {line.split()[0]: line for line in result.stderr.splitlines() if line.startswith("  ")}
    assert "error" in said["boom"] and "RuntimeError: boom in a page hook" in said["boom"]
    assert "error" in said["exits"] and "SystemExit" in said["exits"]
    assert "error" in said["odd"] and "line or column is not a whole number" in said["odd"]
    assert " ok " in said["links"] and " ok " in said["rfds"], result.stderr


@pytest.mark.build
def test_an_rfd_copied_into_docs_is_a_finding_and_never_published(
    repo_copy: Path, tmp_path: Path, no_build: None
) -> None:
    rfd = next(p for p in sorted((repo_copy / "rfds").glob("*.md")) if p.name != "TEMPLATE.md")
    copy = repo_copy / "docs" / "rfds" / rfd.name
    copy.write_text("---\ntitle: Copy\n---\n\n# A copy\n\nNOT THE RFD\n", encoding="utf-8")
    results = check_run.run(Repo.load(repo_copy), ["rfds"])
    shadowed = [f for f in results[0].findings if f.rule == "rfds/shadowed"]
    assert [(f.path, f.line) for f in shadowed] == [(f"docs/rfds/{rfd.name}", 1)]

    site = tmp_path / "site"
    built = subprocess.run(
        [str(Path(sys.executable).parent / "mkdocs"), "build", "--site-dir", str(site)],
        cwd=repo_copy,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    page = (site / "rfds" / rfd.stem / "index.html").read_text(encoding="utf-8")
    assert "NOT THE RFD" not in page
    assert "rfds/shadowed" in built.stderr or "shadows" in built.stderr


def test_a_local_check_folder_holding_a_link_is_refused(repo_copy: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text(LOCAL, encoding="utf-8")
    (repo_copy / "checks").mkdir()
    (repo_copy / "checks" / "linked.py").symlink_to(outside)
    (repo_copy / "pyproject.toml").unlink()
    (repo_copy / "pyproject.toml").write_text(
        '[tool.acp-docs.local-checks]\npaths = ["checks"]\nshout = "linked:CHECK"\n'
    )
    result = acp(["check", "--only", "shout"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2
    assert "pyproject.toml:2:1: local-checks.paths: checks/linked.py is a link" in result.stderr

    (repo_copy / "pyproject.toml").unlink()
    (repo_copy / "pyproject.toml").symlink_to(ROOT / "pyproject.toml")
    linked = acp(["check", "--only", "rfds"], cwd=repo_copy)
    assert linked.returncode == 2 and "pyproject.toml:1:1: is a link" in linked.stderr


def test_a_file_prettier_cannot_read_is_a_finding_at_its_place(repo_copy: Path) -> None:
    script = next((repo_copy / "docs").rglob("*.js"))
    lines = script.read_text(encoding="utf-8").count("\n")
    with script.open("a", encoding="utf-8") as out:
        out.write("function ( {\n")
    result = acp(["check", "--only", "format", "--format", "json"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 1, result.stderr
    rel = script.relative_to(repo_copy).as_posix()
    assert f'"path": "{rel}"' in result.stdout and f'"line": {lines + 1}' in result.stdout
    assert '"rule": "format/syntax"' in result.stdout


def test_a_local_module_never_stands_in_for_an_installed_package(repo_copy: Path) -> None:
    _local(
        repo_copy,
        """\
        [tool.acp-docs.local-checks]
        paths = ["checks"]
        shout = "pygments:CHECK"
        """,
        name="pygments",
    )
    result = acp(["check", "--only", "rfds", "shout"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2
    assert "`shout = pygments:CHECK`: cannot be imported: AttributeError" in result.stderr
