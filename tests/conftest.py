"""Shared fixtures: the repository, throwaway copies of it, and running `acp-docs`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SDK_SCHEMA = ROOT / "node_modules" / "@agentclientprotocol" / "sdk" / "schema"
IGNORED = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "site", "__pycache__", ".pytest_cache", ".ruff_cache"
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


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    """Fail when a Python traceback reached the user."""
    assert "Traceback" not in result.stderr + result.stdout, result.stderr


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """A throwaway copy of the repository, sharing the installed node_modules."""
    dest = tmp_path / "repo"
    shutil.copytree(ROOT, dest, ignore=IGNORED)
    (dest / "node_modules").symlink_to(ROOT / "node_modules")
    return dest


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


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built strictly once per test session from the repository."""
    out = tmp_path_factory.mktemp("site")
    result = run(["mkdocs", "build", "--strict", "--site-dir", str(out)])
    assert result.returncode == 0, result.stderr
    return out


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
def aspell() -> None:
    """The test needs Aspell."""
    require_tool("aspell", "Aspell")
