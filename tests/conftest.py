"""Shared fixtures: the repository, throwaway copies of it, and running `acp-docs`."""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SDK_SCHEMA = ROOT / "node_modules" / "@agentclientprotocol" / "sdk" / "schema"
IGNORED = shutil.ignore_patterns(
    ".git", ".venv", ".cache", "node_modules", "site", "__pycache__", ".pytest_cache", ".ruff_cache"
)


def run(
    args: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None, timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    """Run a command of the venv (`acp-docs`, `mkdocs`) and capture its output."""
    full_env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})}
    if "GITHUB_ACTIONS" not in (env or {}):
        full_env.pop("GITHUB_ACTIONS", None)
    command = [str(BIN / args[0]), *args[1:]] if (BIN / args[0]).exists() else args
    return subprocess.run(
        command, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout
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

    from acp_docs import cli

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


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    """Fail when a Python traceback reached the user."""
    assert "Traceback" not in result.stderr + result.stdout, result.stderr


def copy_repo(folder: Path) -> Path:
    """A copy of the repository in `folder`, sharing the installed node_modules."""
    dest = folder / "repo"
    shutil.copytree(ROOT, dest, ignore=IGNORED)
    (dest / "node_modules").symlink_to(ROOT / "node_modules")
    return dest


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """A throwaway copy of the repository, sharing the installed node_modules."""
    return copy_repo(tmp_path)


@pytest.fixture(scope="session")
def base_schemas() -> dict[str, dict[str, Any]]:
    """The pinned, published ACP schemas, untouched."""
    return {v: json.loads((SDK_SCHEMA / v / "schema.json").read_text()) for v in ("v1", "v2")}


@pytest.fixture(scope="session")
def schemas():
    """The merged schemas of the repository, validators cached for the session."""
    from acp_docs.validate import SchemaSet

    return SchemaSet.from_repo(ROOT)


@pytest.fixture(scope="session")
def render():
    """The site's Markdown engine, as the examples check renders pages with it."""
    from acp_docs.markdown import renderer
    from acp_docs.repo import Repo

    return renderer(Repo.load(ROOT).config)


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the built site under the path of the published `site_url`, quietly."""

    base = "/"

    def translate_path(self, path: str) -> str:
        if path.startswith(self.base):
            path = "/" + path[len(self.base) :]
        return super().translate_path(path)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def served_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The site, built strictly once per test session and served at a loopback URL.

    It is built with `site_url` set to that URL (under the published path), as
    Material's instant navigation follows only links its sitemap lists for the
    current origin. The site tests read the files; the browser tests load the URL.
    """
    from acp_docs.repo import Repo

    site_url = Repo.load(ROOT).config.get("site_url") or "/"
    base = urlsplit(site_url).path.rstrip("/") + "/"
    out = tmp_path_factory.mktemp("site")
    handler = type("Handler", (_Handler,), {"base": base})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(out))
    )
    url = f"http://127.0.0.1:{server.server_address[1]}{base}"
    result = run(
        ["mkdocs", "build", "--strict", "--site-dir", str(out)], env={"ACP_DOCS_SITE_URL": url}
    )
    assert result.returncode == 0, result.stderr
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield out, url
    server.shutdown()


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
