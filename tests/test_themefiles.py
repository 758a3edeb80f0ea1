"""The theme's files listed without its hidden folders are the files MkDocs itself adds."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest
from mkdocs.config import load_config
from mkdocs.structure.files import Files

from acp_docs.patches import themefiles

from conftest import ROOT


def _theme_files(add: object, config_file: Path, site_dir: Path) -> list[tuple[str, str]]:
    config = load_config(config_file=str(config_file), site_dir=str(site_dir))
    files = Files([])
    add(files, config.theme.get_env(), config)  # type: ignore[operator]
    return [(f.src_uri, f.abs_src_path) for f in files]


def test_the_same_theme_files_are_added_as_by_mkdocs(tmp_path: Path) -> None:
    expected = _theme_files(themefiles.ORIGINAL, ROOT / "mkdocs.yml", tmp_path)
    found = _theme_files(themefiles._add_files_from_theme, ROOT / "mkdocs.yml", tmp_path)
    assert found == expected
    assert any(uri.startswith("assets/javascripts/") for uri, _path in found)
    assert not any("/." in f"/{uri}" for uri, _path in found)


def test_a_theme_folder_with_hidden_and_visible_files_gives_the_same_files(tmp_path: Path) -> None:
    """A custom theme folder: hidden folders and files, nested ones, a template, a stylesheet."""
    theme = tmp_path / "overrides"
    for name in (
        "extra.css",
        ".hidden.css",
        ".cache/inside.css",
        "assets/.icons/deep/icon.svg",
        "assets/img/logo.svg",
        "assets/img/.draft/logo.svg",
        "main.html",
        "partials/footer.html",
        "README.md",
    ):
        (theme / name).parent.mkdir(parents=True, exist_ok=True)
        (theme / name).write_text("x", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    config_file = tmp_path / "mkdocs.yml"
    config_file.write_text(
        "site_name: T\ntheme:\n  name: material\n  custom_dir: overrides\n", encoding="utf-8"
    )
    site = tmp_path / "site"
    expected = _theme_files(themefiles.ORIGINAL, config_file, site)
    found = _theme_files(themefiles._add_files_from_theme, config_file, site)
    assert found == expected
    uris = {uri for uri, _path in found}
    assert {"extra.css", "assets/img/logo.svg"} <= uris
    assert not uris & {".hidden.css", "assets/img/.draft/logo.svg", "main.html"}


def test_another_kind_of_loader_gets_mkdocs_own_listing(monkeypatch: pytest.MonkeyPatch) -> None:
    env = jinja2.Environment(loader=jinja2.DictLoader({"a.css": "", ".b/c.css": ""}))
    seen: list[object] = []
    monkeypatch.setattr(themefiles, "ORIGINAL", lambda _files, given, _config: seen.append(given))
    themefiles._add_files_from_theme(Files([]), env, None)
    assert seen == [env]


def test_only_a_filter_is_accepted() -> None:
    listing = themefiles._VisibleListing(jinja2.FileSystemLoader(str(ROOT)))
    with pytest.raises(TypeError):
        listing.list_templates(extensions=["css"])
