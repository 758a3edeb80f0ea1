"""The pull request's call-out: every change that is not plain content is listed, safely shown.

Each test makes a small git repository of its own, commits a base, changes it,
and runs `scripts/acp_docs/callout.py` the way the workflow does: a copy of
the file on its own, with `python -I`, so it cannot lean on the package.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import markdown
import pytest

from acp_docs.core import escaping

from conftest import ROOT

PROGRAM = ROOT / "scripts" / "acp_docs" / "callout.py"
TITLE = "### Changes to read before trusting the checks"


GIT_CONFIG = ("-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "maintenance.auto=0")
"""The tests' own git commands: an author, and no background maintenance after each commit."""


class Repo:
    """A throwaway git repository with a committed base."""

    def __init__(self, path: Path, base: str = "") -> None:
        self.path = path
        if not base:
            path.mkdir()
            self.git("init", "-q", "-b", "main")
        self.base = base

    def git(self, *args: str, data: bytes | None = None) -> str:
        done = subprocess.run(
            ["git", *GIT_CONFIG, *args],
            cwd=self.path,
            input=data,
            capture_output=True,
            check=True,
        )
        return done.stdout.decode("utf-8", "surrogateescape").strip()

    def write(self, name: str | bytes, text: str = "x\n") -> Path:
        raw = name if isinstance(name, bytes) else name.encode("utf-8")
        target = Path(os.fsdecode(os.path.join(os.fsencode(self.path), raw)))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        return target

    def commit(self) -> str:
        self.git("add", "-A")
        self.git("commit", "-qm", "change", "--allow-empty")
        return self.git("rev-parse", "HEAD")

    def commit_base(self) -> None:
        self.base = self.commit()

    def callout(self, *extra: str) -> subprocess.CompletedProcess[str]:
        """The program, copied out of the package as the workflow copies it, on base..HEAD."""
        program = self.path.parent / "bin" / "callout.py"
        program.parent.mkdir(exist_ok=True)
        shutil.copyfile(PROGRAM, program)
        return subprocess.run(
            [sys.executable, "-I", str(program), f"--base={self.base}", *extra],
            cwd=self.path,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=60,
        )


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """A repository with an RFD, a docs page and the site's configuration committed (kept as is)."""
    made = Repo(tmp_path_factory.mktemp("callout") / "repo")
    made.write("rfds/session-labels.md", "# Session labels\n")
    made.write("docs/index.md", "# Home\n")
    made.write("mkdocs.yml", "site_name: x\n")
    made.write("package.json", '{"scripts": {"format": "prettier --check ."}}\n')
    made.commit_base()
    return made


def _copy(base_repo: Repo, folder: Path) -> Repo:
    """A copy of `base_repo` (its git folder too) in `folder`, at the same base commit."""
    shutil.copytree(base_repo.path, folder / "repo", symlinks=True)
    return Repo(folder / "repo", base_repo.base)


@pytest.fixture
def repo(base_repo: Repo, tmp_path: Path) -> Repo:
    """A throwaway copy of `base_repo`."""
    return _copy(base_repo, tmp_path)


def _summary(repo: Repo) -> str:
    result = repo.callout()
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def _items(summary: str) -> dict[str, str]:
    """Each listed change by its first name as shown (the code span's content), and its line."""
    items = {}
    for line in summary.splitlines():
        if line.startswith("- **"):
            items[_first_code_span(line)] = line
    return items


def _first_code_span(line: str) -> str:
    """The content of the line's first code span, read by CommonMark's rules."""
    opening = re.search(r"`+", line)
    assert opening is not None, line
    fence = opening.group()
    close = re.compile(r"(?<!`)" + fence + r"(?!`)").search(line, opening.end())
    assert close is not None, f"the code span never closes: {line}"
    content = line[opening.end() : close.start()]
    if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
        content = content[1:-1]
    return content


def test_plain_content_alone_is_not_called_out(repo: Repo) -> None:
    repo.write("rfds/session-labels.md", "# Session labels, edited\n")
    repo.write("rfds/v2/other.md", "# Other\n")
    repo.write("docs/tooling/guide.md", "# Guide\n")
    repo.write("docs/img/shot.png", "png")
    repo.write("rfds/img/diagram.webp", "webp")
    repo.write("schema/session-labels/source.yaml", "title: x\n")
    repo.write("schema/session-labels/v1.json", "{}\n")
    repo.write("schema/examples/v1/valid/SessionUpdate.one.json", "{}\n")
    (repo.path / "docs" / "index.md").unlink()
    repo.commit()
    result = repo.callout()
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_a_rename_within_plain_content_is_plain_but_out_of_it_lists_both_names(
    repo: Repo,
) -> None:
    repo.git("mv", "rfds/session-labels.md", "rfds/labels.md")
    repo.commit()
    assert _summary(repo) == ""
    repo.base = repo.git("rev-parse", "HEAD")
    repo.path.joinpath("scripts").mkdir()
    repo.git("mv", "rfds/labels.md", "scripts/labels.py")
    repo.commit()
    (line,) = _items(_summary(repo)).values()
    assert line.startswith(
        "- **renamed** `rfds/labels.md` \N{RIGHTWARDS ARROW} `scripts/labels.py`"
    )
    assert "not plain content" in line


NOT_ALLOWED = [
    "GNUmakefile",
    "makefile",
    "docs/conftest.py",
    "pytest.ini",
    "tox.ini",
    "setup.cfg",
    "module.cpython-311.pyc",
    "docs/helper.so",
    "docs/logo.svg",
    "rfds/diagram.svg",
    "docs/page.html",
    "docs/page.xhtml",
    "docs/assets/extra.css",
    "docs/assets/notes.md",
    "docs/.pages",
    "rfds/.hidden.md",
    "rfds/upper.MD",
    ".wordlist.txt",
    ".pyspelling.yml",
    ".github/workflows/other.yml",
    "schema/rfd-front-matter.schema.json",
    "schema/session-labels/demo.js",
    "tests/test_new.py",
]
"""Names off the allowlist, each called out however plain its content."""


@pytest.fixture(scope="module")
def not_allowed_summary(base_repo: Repo, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The summary of one change that adds every name of `NOT_ALLOWED`."""
    made = _copy(base_repo, tmp_path_factory.mktemp("not-allowed"))
    for name in NOT_ALLOWED:
        made.write(name)
    made.commit()
    return _summary(made)


@pytest.mark.parametrize("name", NOT_ALLOWED)
def test_what_is_not_on_the_allowlist_is_called_out(not_allowed_summary: str, name: str) -> None:
    summary = not_allowed_summary
    assert summary.startswith(TITLE + "\n")
    items = _items(summary)
    assert items[name] == f"- **added** `{name}`: not plain content"
    assert items == {n: f"- **added** `{n}`: not plain content" for n in NOT_ALLOWED}


def test_an_npm_lifecycle_script_and_a_deleted_makefile_are_called_out(repo: Repo) -> None:
    repo.write("package.json", '{"scripts": {"postinstall": "node steal.js"}}\n')
    repo.write("Makefile", "all:\n")
    repo.commit()
    repo.base = repo.git("rev-parse", "HEAD")
    repo.write("package.json", '{"scripts": {"postinstall": "node steal.js --more"}}\n')
    (repo.path / "Makefile").unlink()
    repo.commit()
    items = _items(_summary(repo))
    assert items["package.json"] == "- **modified** `package.json`: not plain content"
    assert items["Makefile"] == "- **deleted** `Makefile`: not plain content"


def test_an_rfd_turned_into_a_link_is_called_out_with_its_target(repo: Repo) -> None:
    page = repo.path / "rfds" / "session-labels.md"
    page.unlink()
    page.symlink_to("../mkdocs.yml")
    repo.commit()
    line = _items(_summary(repo))["rfds/session-labels.md"]
    assert line.startswith("- **type changed** `rfds/session-labels.md`: ")
    assert "a symbolic link" in line and "points at `../mkdocs.yml`" in line


def test_a_new_link_with_a_plain_name_is_called_out(repo: Repo) -> None:
    (repo.path / "docs" / "shot.png").symlink_to("/etc/passwd")
    repo.commit()
    line = _items(_summary(repo))["docs/shot.png"]
    assert "a symbolic link" in line and "points at `/etc/passwd`" in line


def test_a_later_edit_of_a_links_target_is_called_out_through_the_link(repo: Repo) -> None:
    (repo.path / "mkdocs.yml").unlink()
    (repo.path / "mkdocs.yml").symlink_to("rfds/session-labels.md")
    (repo.path / "docs" / "shelf").symlink_to("../rfds")
    repo.commit()
    repo.base = repo.git("rev-parse", "HEAD")
    repo.write("rfds/session-labels.md", "site_name: x\nhooks: [evil.py]\n")
    repo.commit()
    line = _items(_summary(repo))["rfds/session-labels.md"]
    assert "reached through the link `mkdocs.yml`" in line
    assert "reached through the link `docs/shelf`" in line


def test_mode_changes_and_submodules_are_called_out(repo: Repo) -> None:
    (repo.path / "rfds" / "session-labels.md").chmod(0o755)
    repo.git("add", "rfds/session-labels.md")
    commit = repo.git("rev-parse", "HEAD")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{commit},docs/vendor")
    repo.git("commit", "-qm", "modes")
    items = _items(_summary(repo))
    assert items["rfds/session-labels.md"] == (
        "- **modified** `rfds/session-labels.md`: an executable file"
    )
    assert items["docs/vendor"] == "- **added** `docs/vendor`: not plain content; a submodule"


def test_gitattributes_that_hide_a_diff_are_called_out_with_the_files_they_hide(
    repo: Repo,
) -> None:
    repo.write(".gitattributes", "*.md -diff\n")
    repo.write("docs/guides/.gitattributes", "*.md linguist-generated\n")
    repo.write("rfds/session-labels.md", "# Session labels\n\n<script>alert(1)</script>\n")
    repo.write("docs/guides/a.md", "# A\n")
    repo.commit()
    items = _items(_summary(repo))
    for name in (".gitattributes", "docs/guides/.gitattributes"):
        assert items[name].startswith(f"- **added** `{name}`: git attributes: they can hide")
    assert items["rfds/session-labels.md"] == (
        "- **modified** `rfds/session-labels.md`: git attributes `-diff`"
    )
    assert "git attributes `-diff`, `linguist-generated`" in items["docs/guides/a.md"]


def test_attributes_already_in_the_base_still_name_the_files_they_hide(repo: Repo) -> None:
    repo.write(".gitattributes", "*.md binary\n")
    repo.commit()
    repo.base = repo.git("rev-parse", "HEAD")
    repo.write("docs/index.md", "# Home, edited\n")
    repo.commit()
    (line,) = _items(_summary(repo)).values()
    assert line.startswith("- **modified** `docs/index.md`: git attributes `binary`, `-diff`")


def test_line_ending_attributes_are_harmless(repo: Repo) -> None:
    repo.write(".gitattributes", "* text=auto eol=lf\n*.png -text export-ignore\n")
    repo.commit()
    repo.base = repo.git("rev-parse", "HEAD")
    repo.write("rfds/session-labels.md", "# Session labels, edited\n")
    repo.write("docs/a.png", "png")
    repo.commit()
    assert _summary(repo) == ""


def test_a_name_with_a_bidi_override_and_backticks_is_shown_escaped_in_its_code_span(
    repo: Repo,
) -> None:
    name = "rfds/a``b\u202eevil\u200b\t`.md"
    repo.write(name)
    repo.commit()
    summary = _summary(repo)
    assert "\u202e" not in summary and "\u200b" not in summary and "\t" not in summary
    (line,) = [line for line in summary.splitlines() if line.startswith("- ")]
    shown = "rfds/a``b\\u202eevil\\u200b\\t`.md"
    assert _first_code_span(line) == shown
    assert line.endswith(": a name that is not UTF-8 or holds characters shown escaped")
    rendered = markdown.markdown(summary)
    assert "<code>rfds/a``b\\u202eevil\\u200b\\t`.md</code>" in rendered


def test_a_name_that_is_not_utf8_is_shown_escaped(repo: Repo) -> None:
    repo.write(b"rfds/caf\xe9.md")
    repo.commit()
    summary = _summary(repo)
    line = _items(summary)["rfds/caf\\udce9.md"]
    assert "a name that is not UTF-8" in line
    summary.encode("utf-8")


def test_a_backslash_and_outer_spaces_cannot_pass_for_escapes_or_vanish(repo: Repo) -> None:
    repo.write("docs/ a\\u202e.md ")
    repo.commit()
    (shown,) = _items(_summary(repo))
    assert shown == "docs/ a\\\\u202e.md\\x20"


def test_a_huge_pull_request_keeps_the_summary_small(repo: Repo) -> None:
    blob = repo.git("hash-object", "-w", "--stdin", data=b"x\n")
    index = "".join(f"100644 {blob}\tscripts/{'n' * 200}{i}.py\n" for i in range(1500))
    repo.git("update-index", "--index-info", data=index.encode())
    repo.git("commit", "-qm", "many")
    summary = _summary(repo)
    assert len(summary.encode()) < 1024 * 1024 // 2
    assert summary.rstrip().endswith("500 more change(s): run this program locally.")


@pytest.mark.parametrize("base", ["no-such-commit", "--output=/tmp/x", "a\u202eb"])
def test_a_base_that_is_no_commit_is_a_usage_error(repo: Repo, base: str) -> None:
    repo.base = base
    result = repo.callout()
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("callout.py: error: ")
    assert "Traceback" not in result.stderr and "\u202e" not in result.stderr


def test_the_program_imports_nothing_but_the_standard_library() -> None:
    source = PROGRAM.read_text()
    imported = re.findall(r"^(?:from|import) ([\w.]+)", source, re.M)
    assert imported
    for module in imported:
        top = module.split(".")[0]
        assert top == "__future__" or top in sys.stdlib_module_names, module


def _callout_module() -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location("callout_under_test", PROGRAM)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_names_are_escaped_as_the_reporters_escape_text() -> None:
    visible: Callable[[str], str] = _callout_module().visible  # type: ignore[attr-defined]
    for code in [*range(0x0, 0x3000), *range(0xD800, 0xE000), *range(0xFE00, 0x10000)]:
        char = chr(code)
        if char in " \\":
            continue
        text = f"a{char}b"
        assert visible(text) == escaping.visible(text), hex(code)
    for code in (0xE0001, 0xE0100, 0x1D173, 0x10FFFF):
        assert visible(chr(code)) == escaping.visible(chr(code)), hex(code)
