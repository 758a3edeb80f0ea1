"""Shared fixtures: the repository, throwaway copies of it, and running `acp-docs`.

Tests never assume which RFDs the repository holds. A test that needs an RFD
with known content makes a checkout with the sample RFD (`sample_copy`, or
`add_sample`), or starts one with `new_rfd`, which picks a name no RFD of the
checkout has.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import functools
import gc
import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SDK_SCHEMA = ROOT / "node_modules" / "@agentclientprotocol" / "sdk" / "schema"
MEMORY_TMP = Path("/dev/shm")
MEMORY_TMP_FREE = 4 * 1024**3


def _temporary_folders_in_memory() -> None:
    """Put pytest's temporary folders (the throwaway checkouts) on tmpfs when there is room.

    Most tests copy the checkout, and opening hundreds of small files costs ten
    times more on a disk than in memory. A TMPDIR the user set is kept, and so
    is the default when /dev/shm is missing, read-only or small (a container's
    64 MB one). Only failed tests keep their folders (see pyproject.toml).
    """
    if os.environ.get("TMPDIR") or not MEMORY_TMP.is_dir():
        return
    try:
        stats = os.statvfs(MEMORY_TMP)
    except OSError:
        return
    if stats.f_bavail * stats.f_frsize < MEMORY_TMP_FREE or not os.access(MEMORY_TMP, os.W_OK):
        return
    os.environ["TMPDIR"] = str(MEMORY_TMP)  # xdist's workers and every tool a test runs inherit it
    tempfile.tempdir = None


_temporary_folders_in_memory()
# Tests run as outside GitHub Actions: one that wants its annotations sets GITHUB_ACTIONS.
os.environ.pop("GITHUB_ACTIONS", None)
IGNORED = shutil.ignore_patterns(
    ".git", ".venv", ".cache", "node_modules", "site", "__pycache__", ".pytest_cache", ".ruff_cache"
)


def run(
    args: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None, timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    """Run a command of the venv (`acp-docs`, `mkdocs`) and capture its output.

    `mkdocs` runs as its installed command does, in a child forked from this
    worker (`acp_docs.core.runner.start_module`), which has it imported already.
    """
    full_env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})}
    if args[:1] == ["mkdocs"]:
        tier = _launch_tier(args)
        if tier is not None:
            _guard(tier, f"runs {' '.join(args)[:200]!r}")
        from acp_docs.core import runner

        if threading.active_count() > 1:  # the runner starts a new interpreter: show it the way
            paths = [str(Path(__file__).parent), full_env.get("PYTHONPATH", "")]
            full_env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
        done = runner.start_module(
            "mkdocs",
            "mkdocs_cli",
            args[1:],
            cwd=cwd,
            fix="",
            timeout=timeout,
            env=full_env,
            ok=range(-64, 256),
        )()
        return subprocess.CompletedProcess(args, done.returncode, done.stdout, done.stderr)
    command = [str(BIN / args[0]), *args[1:]] if (BIN / args[0]).exists() else args
    return subprocess.run(
        command, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout
    )


def actions_step(
    script: str, cwd: Path, env: dict[str, str], timeout: int = 600
) -> subprocess.CompletedProcess[str]:
    """A workflow's `run:` script as the GitHub runner runs it (bash -e -o pipefail), with
    `env` added to this environment."""
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def acp(
    args: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `acp-docs` in this process (no interpreter start-up), as a user would call it.

    For commands that start no tool of their own; the output and exit status
    are what the installed command gives (tests of the installed entry point
    and of limits use `run`).
    """
    import contextlib
    import io

    from acp_docs.cli import main as cli

    out, err = io.StringIO(), io.StringIO()
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    os.environ.pop("GITHUB_ACTIONS", None)
    os.environ.update(env or {})
    try:
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = cli.main(args)
            except SystemExit as exc:  # argparse's usage errors
                status = exc.code if isinstance(exc.code, int) else 2
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["acp-docs", *args], status, out.getvalue(), err.getvalue())


RENDER_CONFIG = {
    "markdown_extensions": ["toc"],
    "mdx_configs": {},
    "use_directory_urls": True,
    "validation": {},
    "plugins": {},
}
"""The least of a MkDocs configuration a kept page's key reads (`acp_docs.patches.pagerender`)."""


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    """Fail when a Python traceback reached the user."""
    assert "Traceback" not in result.stderr + result.stdout, result.stderr


def copy_repo(folder: Path, *, lean: bool = True) -> Path:
    """A copy of the repository in `folder`, sharing the installed node_modules.

    A lean copy (the default) leaves out the engine's source and tests
    (`scripts/`, `tests/`: three files of four; `make test` checks them in the
    real checkout), and so the API pages mkdocstrings draws from that source
    (their index page stays, with its prose): no throwaway checkout is about
    them, and they cost every copy and every build. The site every reader test
    reads (`site_repo`) keeps them.
    """
    dest = folder / "repo"
    shutil.copytree(ROOT, dest, ignore=_lean_ignored if lean else IGNORED)
    (dest / "node_modules").symlink_to(ROOT / "node_modules")
    if lean:
        _drop_api_reference(dest)
    return dest


def _lean_ignored(folder: str, names: list[str]) -> set[str]:
    """What a lean copy leaves out of `folder`: what every copy does, and at the top the engine."""
    ignored = IGNORED(folder, names)
    if Path(folder) == ROOT:
        ignored |= {"scripts", "tests"} & set(names)
    return ignored


def _drop_api_reference(repo: Path) -> None:
    """Take the mkdocstrings plugin out of mkdocs.yml: no API page is generated; the API
    index page and its links stay."""
    config = repo / "mkdocs.yml"
    lines = config.read_text(encoding="utf-8").split("\n")
    start = end = lines.index("  - mkdocstrings:")
    end += 1
    while end < len(lines) and lines[end].startswith("    "):
        end += 1
    # As many comment lines: every later line of mkdocs.yml keeps its number.
    lines[start:end] = ["  # mkdocstrings: left out of this test checkout"] * (end - start)
    config.write_text("\n".join(lines), encoding="utf-8")


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """A throwaway copy of the repository, sharing the installed node_modules."""
    return copy_repo(tmp_path)


def _taken(repo: Path) -> tuple[set[str], set[str], str]:
    """The slugs and casefolded titles of the RFDs of `repo`, and its schema sources' text."""
    from acp_docs.config.repo import Repo
    from acp_docs.rfds import model as rfds

    loaded = rfds.load_all(Repo.load(repo))
    sources = "".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in sorted((repo / "schema").glob("*/source.yaml"))
    )
    return {r.slug for r in loaded}, {r.title.casefold() for r in loaded}, sources


def free_name(repo: Path, slug: str, title: str) -> tuple[str, str]:
    """`slug` and `title`, or `slug-N` and `title N`: a name no RFD, page or schema of `repo` uses.

    A test that makes its own RFD picks its name with this, so the RFDs an
    author adds to the repository never collide with the ones tests make.
    """
    slugs, titles, sources = _taken(repo)
    for n in itertools.count(1):
        name, heading = (slug, title) if n == 1 else (f"{slug}-{n}", f"{title} {n}")
        paths = (
            repo / "rfds" / f"{name}.md",
            repo / "rfds" / "v2" / f"{name}.md",
            repo / "schema" / name,
            repo / "docs" / "protocol" / f"{name}.md",
            repo / "docs" / "rfds" / f"{name}.md",
        )
        if (
            name not in slugs
            and heading.casefold() not in titles
            and _camel(name) not in sources
            and not any(p.exists() or p.is_symlink() for p in paths)
        ):
            return name, heading
    raise AssertionError("unreachable")


def _camel(slug: str) -> str:
    first, *rest = slug.split("-")
    return first + "".join(part.capitalize() for part in rest)


@dataclass(frozen=True)
class NewRfd:
    """An RFD a test made with `acp-docs new`: its slug, title and path in the checkout."""

    slug: str
    title: str
    shown: str

    @property
    def page(self) -> str:
        """The RFD's page in the site, relative to the site's root."""
        return self.shown[: -len(".md")] + "/"


def new_rfd(repo: Path, slug: str, title: str, *flags: str) -> NewRfd:
    """`acp-docs new` in `repo`, under a name no RFD of `repo` has yet (see `free_name`)."""
    slug, title = free_name(repo, slug, title)
    result = acp(["new", slug, "--title", title, "--author", "octocat", *flags], cwd=repo)
    assert result.returncode == 0, result.stderr
    shown = result.stderr.split("wrote ", 1)[1].split("\n", 1)[0]
    assert (repo / shown).is_file(), result.stderr
    return NewRfd(slug, title, shown)


SAMPLE_RFD = """\
---
title: "@TITLE@"
status: draft
authors:
  - octocat
champion: hubot
created: 2026-12-02
discussion: "https://github.com/agentclientprotocol/agent-client-protocol/discussions/1"
---

# @TITLE@

## Elevator pitch

> What are you proposing to change?

A Client may show a few short badges next to a session in its list, as a jar of
marmalade wears its label, so the user can tell sessions apart at a glance. The
Agent picks them from words it already has, so it costs little.

```json title="ClientSessionCapabilities (v1)"
{ "@PROP@": { "maxBadges": 3, "badges": [{ "text": "urgent" }] } }
```

## Status quo

> How do things work today and what problems does this cause? Why would we change things?

A user finishes reading the list of sessions and still cannot tell which one is
which: every Client shows the title alone.

## What we propose to do about it

> What are you proposing to improve the situation?

A Client advertises the `session.@PROP@` capability, with or without a limit:

=== "Limited"

    ```json title="ClientSessionCapabilities (v1)"
    { "@PROP@": { "maxBadges": 2 } }
    ```

=== "Open"

    ```json title="ClientSessionCapabilities (v1)"
    { "@PROP@": {} }
    ```

A badge is never empty:

```json title="Invalid ClientSessionCapabilities (v1): a badge has text"
{ "@PROP@": { "badges": [{ "text": "" }] } }
```

The [schema reference](../schema/index.md) lists every field, and the
[protocol page](../protocol/@SLUG@.md) shows the negotiation.

## Shiny future

> How will things will play out once this feature exists?

Each session in the list carries its badges, and the user finds the one they
want at once.

## Implementation details and plan

> Tell me more about your implementation. What is your detailed implementation plan?

The schema change is one capability; the [shiny future](#shiny-future) needs
nothing else.

## Frequently asked questions

> @FAQ_PROMPT@

### What alternative approaches did you consider, and why did you settle on this one?

A field of `session_info_update` was considered. A capability lets the Agent
skip the work for a Client that shows no badges.

### Why a list and not a single badge?

A session may be urgent and shared at once.

### Why is a badge plain text?

Plain text is safe to show anywhere.

## Revision history

- 2026-12-02: First draft.
"""
"""The sample RFD: each section, a JSON example of each kind, content tabs, links, a FAQ."""

FAQ_PROMPT = (
    "What questions have arisen over the course of authoring this document or during"
    " subsequent discussions?"
)

SAMPLE_PAGE = """\
---
rfd: @SLUG@
---

# @TITLE@

A Client shows badges next to a session in its list, as a jar of marmalade
wears its label. The [RFD](../rfds/@SLUG@.md) explains why, and its
[frequently asked questions](../rfds/@SLUG@.md#frequently-asked-questions)
answer the rest.

## Negotiation

=== "v1"

    A Client that can show badges advertises the `session.@PROP@` capability
    in its `initialize` request.

    ```json title="ClientSessionCapabilities (v1)"
    { "@PROP@": { "maxBadges": 5 } }
    ```

=== "v2"

    There is nothing to negotiate. The capability is not part of v2.
"""
"""The sample RFD's protocol page, with content tabs."""

SAMPLE_SOURCE = """\
# The schema change of the sample RFD of the tests: one Client capability.
title: session badges capability
versions: [v1]

shared:
  text: The badge as plain text, shown as it is. Never empty.

definitions:
  @ENTRY@:
    description: One badge a Client knows how to show.
    type: object
    properties:
      text:
        description: { $shared: text }
        type: string
        minLength: 1
    required: [text]

  @CAPS@:
    description: Client support for showing session badges.
    type: object
    properties:
      maxBadges:
        description: How many badges the Client shows at most.
        type: integer
        minimum: 1
      badges:
        description: The badges the Client already knows how to show.
        type: array
        items: { $ref: "#/$defs/@ENTRY@" }

changes:
  - op: add-capability
    scope: session
    property: @PROP@
    schema:
      description: Support for session badges. Omitted or `null` means no support.
      anyOf:
        - $ref: "#/$defs/@CAPS@"
        - type: "null"
"""
"""The sample RFD's schema change (v1 only): a definition, a list of another, a capability."""


@dataclass(frozen=True)
class Sample:
    """An RFD's names, as tests derive them from its slug: its files, the schema names it adds.

    `sample()` is the sample RFD; tests that plant a schema change of their own
    name it the same way, from a slug `free_name` gave them.
    """

    slug: str
    title: str

    @property
    def rfd(self) -> str:
        return f"rfds/{self.slug}.md"

    @property
    def page(self) -> str:
        """The RFD's page in the site."""
        return f"rfds/{self.slug}/"

    @property
    def protocol(self) -> str:
        """Its protocol page in the checkout."""
        return f"docs/protocol/{self.slug}.md"

    @property
    def source(self) -> str:
        return f"schema/{self.slug}/source.yaml"

    @property
    def fragment(self) -> str:
        return f"schema/{self.slug}/v1.json"

    @property
    def prop(self) -> str:
        """The Client session capability it adds."""
        return _camel(self.slug)

    @property
    def capabilities(self) -> str:
        """The definition of the capability's value."""
        return self.prop[0].upper() + self.prop[1:] + "Capabilities"

    @property
    def entry(self) -> str:
        """The definition of one entry of its list."""
        return self.prop[0].upper() + self.prop[1:] + "Entry"

    def fill(self, template: str) -> str:
        for token, value in (
            ("@SLUG@", self.slug),
            ("@TITLE@", self.title),
            ("@PROP@", self.prop),
            ("@CAPS@", self.capabilities),
            ("@ENTRY@", self.entry),
            ("@FAQ_PROMPT@", FAQ_PROMPT),
        ):
            template = template.replace(token, value)
        return template

    @property
    def text(self) -> str:
        """The RFD's text."""
        return self.fill(SAMPLE_RFD)

    def line_of(self, text: str) -> int:
        """The line of the RFD that holds `text`."""
        return next(n for n, line in enumerate(self.text.split("\n"), 1) if text in line)


@functools.cache
def sample() -> Sample:
    """The sample RFD's names: free in the repository, so free in every copy of it."""
    return Sample(*free_name(ROOT, "session-badges", "Session badges"))


def add_sample(repo: Path) -> Sample:
    """Add the sample RFD to `repo`: the RFD, its protocol page and schema change, their nav."""
    made = sample()
    result = acp(["new", made.slug, "--title", made.title, "--author", "octocat"], cwd=repo)
    assert result.returncode == 0, result.stderr
    (repo / made.rfd).write_text(made.text, encoding="utf-8")
    (repo / made.protocol).write_text(made.fill(SAMPLE_PAGE), encoding="utf-8")
    (repo / made.source).parent.mkdir()
    (repo / made.source).write_text(made.fill(SAMPLE_SOURCE), encoding="utf-8")
    config = repo / "mkdocs.yml"
    text, count = re.subn(
        r"^(\s*)- protocol/index\.md\n",
        lambda m: f"{m[0]}{m[1]}- {json.dumps(made.title)}: protocol/{made.slug}.md\n",
        config.read_text(encoding="utf-8"),
        count=1,
        flags=re.M,
    )
    assert count == 1, "mkdocs.yml lists no protocol/index.md"
    config.write_text(text, encoding="utf-8")
    generated = acp(["schema", "generate"], cwd=repo)
    assert generated.returncode == 0, generated.stderr
    return made


@pytest.fixture(scope="session")
def sample_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository with the sample RFD, made once: copied, never changed."""
    repo = copy_repo(tmp_path_factory.mktemp("sample"))
    add_sample(repo)
    return repo


def copy_sample(template: Path, folder: Path) -> Path:
    """A copy of the checkout with the sample RFD in `folder`."""
    dest = folder / "repo"
    shutil.copytree(template, dest, symlinks=True, ignore=IGNORED)
    (dest / "node_modules").symlink_to(ROOT / "node_modules")
    return dest


@pytest.fixture
def sample_copy(sample_template: Path, tmp_path: Path) -> Path:
    """A throwaway copy of the repository with the sample RFD (see `add_sample`)."""
    return copy_sample(sample_template, tmp_path)


@pytest.fixture(scope="session")
def base_schemas() -> dict[str, dict[str, Any]]:
    """The pinned, published ACP schemas, untouched."""
    from acp_docs.core import protocols

    return {
        v.name: json.loads((SDK_SCHEMA.parent / v.base_files["stable"]).read_text())
        for v in protocols.VERSIONS.values()
    }


@pytest.fixture(scope="session")
def schemas():
    """The merged schemas of the repository, validators cached for the session."""
    from acp_docs.validation.schemaset import SchemaSet

    return SchemaSet.from_repo(ROOT)


@pytest.fixture(scope="session")
def render():
    """The site's Markdown engine, as the examples check renders pages with it."""
    from acp_docs.config.repo import Repo
    from acp_docs.markdown.blocks import renderer

    return renderer(Repo.load(ROOT).config)


def _run_folder(factory: pytest.TempPathFactory) -> Path:
    """A folder of this test run that every xdist worker of it sees."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (made if missing): one process at a time."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def site_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The checkout the session's site is built from: the whole repository with the sample RFD.

    Made once per test run, whichever worker asks first; tests only read it.
    """
    folder = _run_folder(tmp_path_factory)
    made = folder / "site-repo" / "made"
    with _locked(folder / "site-repo.lock"):
        if not made.exists():
            shutil.rmtree(folder / "site-repo", ignore_errors=True)
            (folder / "site-repo").mkdir()
            add_sample(copy_repo(folder / "site-repo", lean=False))
            made.touch()
    return folder / "site-repo" / "repo"


@pytest.fixture(scope="session")
def served_site(
    site_repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, str]]:
    """The site of `site_repo`, built strictly once per test run and served at a loopback URL.

    It is built with `site_url` set to that URL (under the published path), as
    Material's instant navigation follows only links its sitemap lists for the
    current origin. The site tests read the files; the browser tests load the URL.
    The first worker to ask builds it and starts its server (`siteserver.py`,
    which lives as long as the test run); the others wait, then read the same.
    """
    from acp_docs.config.repo import Repo

    folder = _run_folder(tmp_path_factory)
    out, ready = folder / "site", folder / "site.json"
    run_pid = os.getppid() if os.environ.get("PYTEST_XDIST_WORKER") else os.getpid()
    server = None
    with _locked(folder / "site.lock"):
        if not ready.exists():
            site_url = Repo.load(site_repo).config.get("site_url") or "/"
            base = urlsplit(site_url).path.rstrip("/") + "/"
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            script = Path(__file__).with_name("siteserver.py")
            server = subprocess.Popen(
                [sys.executable, str(script), str(out), base, str(run_pid)],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            assert server.stdout is not None
            port = server.stdout.readline().strip()
            server.stdout.close()
            url = f"http://127.0.0.1:{port}{base}"
            result = run(
                ["mkdocs", "build", "--strict", "--site-dir", str(out)],
                cwd=site_repo,
                env={"ACP_DOCS_SITE_URL": url},
            )
            if result.returncode != 0:
                server.kill()
                server.wait()
            assert result.returncode == 0, result.stderr
            ready.write_text(json.dumps({"url": url}), encoding="utf-8")
        url = json.loads(ready.read_text(encoding="utf-8"))["url"]
    yield out, url
    if server is not None and run_pid == os.getpid():
        server.terminate()
        server.wait()


@pytest.fixture(scope="session")
def built_site(served_site: tuple[Path, str]) -> Path:
    """The folder of the site built once per test session."""
    return served_site[0]


def replace_in(path: Path, old: str, new: str) -> None:
    """Replace one occurrence of `old` in a file, failing when it is not there."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def require_tool(command: str, what: str) -> None:
    """Skip when `command` is missing, except under CI=true, where the test fails instead."""
    if shutil.which(command) is not None:
        return
    message = f"{what} is not installed ({command} not on PATH): run `make setup`"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def require_network_namespace() -> None:
    """Skip when no fresh network namespace can be made (`unshare --net`); fail under CI=true."""
    require_tool("unshare", "util-linux's unshare")
    probe = subprocess.run(["unshare", "--net", "true"], capture_output=True)
    if probe.returncode != 0:
        message = f"cannot make a network namespace: {probe.stderr.decode().strip()}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="session")
def answers_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache folder for a worker's upstream checks: answers are keyed by what they
    depend on (text, options, tool version), so sharing it saves time and hides nothing."""
    return tmp_path_factory.mktemp("answers-cache")


@pytest.fixture
def upstream_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers_cache: Path) -> Path:
    """The sample upstream tree (`upstream_tree`), written for one test."""
    import upstream_tree

    require_tool("node", "Node")
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(answers_cache))
    return upstream_tree.write(tmp_path / "upstream")


@pytest.fixture
def node_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A bare checkout (`mkdocs.yml`, `docs/`) on the installed node_modules, with its own cache."""
    require_tool("node", "Node")
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "node_modules").symlink_to(ROOT / "node_modules")
    (root / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    return root


@pytest.fixture
def aspell() -> None:
    """The test needs Aspell."""
    require_tool("aspell", "Aspell")


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


BUILD_FIXTURES = frozenset({"served_site", "built_site"})
"""Session fixtures that build the site: a test using one is a `build` test."""

BROWSER_FIXTURES = frozenset({"browser"})
"""Session fixtures that start Chromium: a test using one is a `browser` test."""

_MKDOCS_BUILDS = frozenset({"build", "serve", "gh-deploy"})


def _launch_tier(argv: list[str]) -> str | None:
    """`build` or `browser` when the command `argv` builds the site or starts a browser.

    A build: `mkdocs build|serve|gh-deploy`, the check's build child
    (`acp_docs.mkdocs.sitebuild`, when not forked), the diagram drawer a build starts
    (`-m acp_docs.diagrams.worker`), or `acp-docs check` unless `--only format`
    (every other check comes out of the one build). A browser: Playwright's
    driver or a Chromium binary. The command may be wrapped
    (`unshare --net acp-docs check`), so every word is looked at.
    """
    words = [os.fsdecode(word) for word in argv]
    if "run-driver" in words:
        return "browser"
    if "acp_docs.mkdocs.sitebuild" in words or "acp_docs.diagrams.worker" in words:
        return "build"  # a build draws its Mermaid diagrams in Chromium: part of building
    for index, word in enumerate(words):
        name, rest = os.path.basename(word), words[index + 1 :]
        if name == "mkdocs" and rest[:1] and rest[0] in _MKDOCS_BUILDS:
            return "build"
        if name == "acp-docs" and rest[:1] == ["check"]:
            only = rest[rest.index("--only") + 1 :] if "--only" in rest else []
            chosen = set(itertools.takewhile(lambda w: not w.startswith("-"), only))
            return None if chosen == {"format"} else "build"
        if name.startswith(("chromium", "chrome", "headless_shell")):
            return "browser"
    return None


class TierError(pytest.fail.Exception):  # type: ignore[name-defined,misc]
    """A test did what only a test of a marked tier may do (escapes `except Exception`)."""


_TIER_VIOLATION = pytest.StashKey[str]()
_violations: list[Path] = []
"""The file where guards note violations, read after each test (one per pytest process)."""
_running: list[pytest.Item] = []
"""The test being set up, run or torn down (fixtures of any scope it sets up included)."""


def _tiers(item: pytest.Item) -> set[str]:
    return {mark.name for mark in item.iter_markers()} & {"build", "browser"}


def _guard(tier: str, what: str) -> None:
    """Fail the running test unless it is marked `tier`; `what` says what it did."""
    if not _running or tier in _tiers(_running[-1]):
        return
    item = _running[-1]
    message = (
        f"{item.nodeid} {what}, but is not marked `{tier}`: add @pytest.mark.{tier}"
        " (see 'Tests' in docs/tooling/project.md)"
    )
    item.stash[_TIER_VIOLATION] = message
    if _violations:  # a forked child's stash never reaches pytest: its file does
        with _violations[0].open("a", encoding="utf-8") as log:
            log.write(f"{item.nodeid}\t{message}\n")
    raise TierError(message, pytrace=False)


def _install_tier_guards() -> None:
    """Wrap the two chokepoints every build and every browser goes through.

    Every child process starts in `Popen._execute_child` (asyncio's, and so
    Playwright's driver, too); an in-process build calls
    `mkdocs.commands.build.build`.
    """
    import mkdocs.commands.build

    launch = subprocess.Popen._execute_child  # type: ignore[attr-defined]
    if getattr(launch, "tier_guard", False):
        return

    def guarded_launch(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> Any:
        if isinstance(args, str | bytes | os.PathLike):
            text = os.fsdecode(args)
            try:
                argv = shlex.split(text)  # a shell command line, or one program's path
            except ValueError:
                argv = text.split()
        else:
            argv = [os.fsdecode(word) for word in args]
        tier = _launch_tier(argv)
        if tier is not None:
            _guard(tier, f"runs {' '.join(argv)[:200]!r}")
        return launch(self, args, *rest, **kwargs)

    build = mkdocs.commands.build.build

    def guarded_build(*args: Any, **kwargs: Any) -> Any:
        _guard("build", "builds the site in-process (mkdocs.commands.build.build)")
        return build(*args, **kwargs)

    guarded_launch.tier_guard = True  # type: ignore[attr-defined]
    subprocess.Popen._execute_child = guarded_launch  # type: ignore[attr-defined]
    mkdocs.commands.build.build = guarded_build


def pytest_configure(config: pytest.Config) -> None:
    """Guard the tiers for the whole session (each xdist worker loads this file too)."""
    _install_tier_guards()
    folder = Path(tempfile.mkdtemp(prefix="acp-docs-tiers-"))
    _violations.append(folder / "violations.log")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the file of violations."""
    if _violations:
        shutil.rmtree(_violations.pop().parent, ignore_errors=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with a browser test run last; otherwise files with more tests first (as xdist
    orders them), each file's tests in their order.

    Playwright keeps threads running while its browser is open (until the
    worker ends), and a process running threads starts its builds as new
    interpreters instead of forking them (`acp_docs.core.runner.start_module`).
    """
    with_browser = {item.path for item in items if item.get_closest_marker("browser")}
    sizes = collections.Counter(item.path for item in items)
    items.sort(key=lambda item: (item.path in with_browser, -sizes[item.path], str(item.path)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Note the running test, so the guards know whose marks to read."""
    _running.append(item)
    try:
        yield
    finally:
        _running.pop()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test using a fixture that builds or starts a browser carries that marker."""
    fixtures = set(getattr(item, "fixturenames", ()))
    for tier, named in (("build", BUILD_FIXTURES), ("browser", BROWSER_FIXTURES)):
        used = sorted(named & fixtures)
        if used:
            _guard(tier, f"uses the fixture {used[0]!r}")
    if item.get_closest_marker("build") is not None:
        _preload_the_build()


@functools.cache
def _preload_the_build() -> None:
    """Import what a site build imports, once a worker, before its first build test.

    `acp-docs check` forks its build from the process it runs in
    (`acp_docs.core.runner.start_module`): run in-process by `acp`, each build
    then starts with these modules instead of importing them again.
    """
    import mkdocstrings_handlers.python  # noqa: F401
    from mkdocs.config import load_config

    import acp_docs.mkdocs.sitebuild  # noqa: F401

    load_config(str(ROOT / "mkdocs.yml"))


@pytest.fixture(autouse=True)
def _no_kept_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every upstream run of a test runs its checks: no test takes another's kept run
    (`test_upstream.py` turns the cache on where the cache is what it tests)."""
    monkeypatch.setenv("ACP_DOCS_RUN_CACHE", "off")


@pytest.fixture(autouse=True)
def _tier_violation(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test whose unmarked build or browser the code under test caught and swallowed."""
    yield
    violation = request.node.stash.get(_TIER_VIOLATION, None)
    if violation is None and _violations and _violations[0].exists():
        noted = _violations[0].read_text(encoding="utf-8").splitlines()
        prefix = request.node.nodeid + "\t"
        mine = [line[len(prefix) :] for line in noted if line.startswith(prefix)]
        violation = mine[0] if mine else None
    if violation is not None:
        pytest.fail(violation, pytrace=False)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, driven by Playwright (no browser download), once per worker."""
    require_tool("chromium", "Chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS
        )
        yield instance
        instance.close()


# The suite keeps many objects alive (schemas, parsed pages) and makes few cycles:
# collecting the youngest generation every 700 allocations costs more than it frees.
gc.set_threshold(50_000, 20, 20)
