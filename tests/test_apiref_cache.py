"""The API reference is kept in the user's cache under the digest of the package's files."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_docs.core import memo
from acp_docs.mkdocs import apiref, markers


def _package(root: Path, doc: str) -> Path:
    package = root / "pkg"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text(f'"""{doc}"""\n')
    return package


def test_the_same_files_read_the_kept_reference_and_changed_ones_make_a_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "repo"
    root.mkdir()
    package = _package(root, "First words.")
    digest = memo.digest_of(apiref.python_files(package))
    first = markers._api_reference_kept(root, package, digest)
    assert "First words." in first
    assert [p.name for p in (tmp_path / "cache" / "api-reference").iterdir()] == [f"{digest}.md"]

    calls = []
    monkeypatch.setattr(apiref, "modules", lambda *a: calls.append(a) or [])
    assert markers._api_reference_kept(root, package, digest) == first and calls == []

    monkeypatch.undo()
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(tmp_path / "cache"))
    _package(root, "Second words.")
    changed = memo.digest_of(apiref.python_files(package))
    assert changed != digest
    assert "Second words." in markers._api_reference_kept(root, package, changed)


def test_without_a_cache_folder_the_reference_is_made_anyway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(blocked))
    root = tmp_path / "repo"
    root.mkdir()
    package = _package(root, "Made without a cache.")
    digest = memo.digest_of(apiref.python_files(package))
    assert "Made without a cache." in markers._api_reference_kept(root, package, digest)
