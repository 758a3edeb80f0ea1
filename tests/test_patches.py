"""Each patch of third-party code fits the code installed, or stands down and says so.

A test here fails when a library the engine patches is upgraded: the patch's
pinned versions and the fingerprint of each target are compared with what is
installed. Read the new code, adapt the patch, then update `PINNED` and the
fingerprints (`acp_docs.patches.pin.fingerprint`).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from types import ModuleType

import mkdocs.structure.files as mkdocs_files
import pytest
from mkdocs.livereload import LiveReloadServer

from acp_docs.patches import (
    agentmarkdown,
    apirender,
    folderlinks,
    pagerender,
    pin,
    renderspeed,
    servewatch,
    themefix,
)

from conftest import ROOT

PATCHES = [folderlinks, renderspeed, pagerender, servewatch, themefix, apirender, agentmarkdown]


@pytest.mark.parametrize("module", PATCHES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_patch_fits_the_installed_code(module: ModuleType) -> None:
    patch: pin.Patch = module.PATCH
    assert patch.pinned is module.PINNED and patch.module == module.__name__
    installed = patch.versions()
    assert installed == dict(module.PINNED), (
        f"{patch.name} was written for {module.PINNED}; installed: {installed}"
    )
    current = {t.name: t.current() for t in patch.targets}
    pinned = {t.name: t.pinned for t in patch.targets}
    assert current == pinned, f"{patch.name}: its targets changed; read them, adapt the patch"


def test_the_autorefs_pin_of_kept_pages_fits_the_installed_code() -> None:
    anchors = pagerender.ANCHORS
    assert anchors.versions() == dict(anchors.pinned)
    assert not anchors.changed(), "autorefs' register_anchor changed: adapt pagerender"


def test_a_changed_target_is_named_and_the_patch_stands_down(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def target() -> int:
        return 1

    fits = pin.Target("here.target", lambda: target, pin.fingerprint(target))
    moved = pin.Target("here.gone", lambda: ModuleType("x").missing, "0" * 64)
    edited = pin.Target("here.edited", lambda: target, pin.fingerprint("def target(): ..."))
    patch = pin.Patch("sample", "acp_docs.patches.sample", {"mkdocs": "1.6.1"}, (fits,))
    assert patch.usable() and not caplog.records
    changed = pin.Patch(
        "sample", "acp_docs.patches.sample", {"mkdocs": "1.6.1"}, (fits, moved, edited)
    )
    with caplog.at_level(logging.WARNING, logger=pin.LOGGER):
        assert not changed.usable()
    assert changed.changed() == ["here.gone", "here.edited"]
    (record,) = caplog.records
    said = record.getMessage()
    assert "the patch sample is not applied: here.gone, here.edited changed" in said
    assert "mkdocs 1.6.1" in said and "update acp_docs.patches.sample" in said


def test_a_patch_applies_for_a_block_only(monkeypatch: pytest.MonkeyPatch) -> None:
    assert mkdocs_files.os is os
    with folderlinks.applied():
        assert isinstance(mkdocs_files.os, folderlinks.WalkWithoutLinks)
    assert mkdocs_files.os is os
    monkeypatch.setattr(folderlinks.PATCH, "_changed", ["mkdocs.structure.files.get_files"])
    with folderlinks.applied():
        assert mkdocs_files.os is os  # stood down


def test_the_folder_walk_never_follows_a_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.md").write_text("a")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    walk = folderlinks.WalkWithoutLinks().walk
    seen = {Path(folder).name for folder, _dirs, _files in walk(tmp_path, followlinks=True)}
    assert seen == {tmp_path.name, "real"}


@pytest.mark.build
def test_a_site_build_leaves_no_patch_behind() -> None:
    from acp_docs.mkdocs import sitebuild

    done = sitebuild.build(ROOT)
    assert "findings" in done, done
    assert mkdocs_files.os is os


def test_the_server_polls_sooner_and_guards_its_builder(tmp_path: Path) -> None:
    built: list[str] = []
    server = LiveReloadServer(
        builder=lambda: built.append("built"), host="127.0.0.1", port=0, root=str(tmp_path)
    )
    try:
        server.watch(str(tmp_path))
        guarded = []

        def guard(build):
            guarded.append(build)
            return lambda: build()

        same = servewatch.apply(server, 0.1, 0.05, guard)
        assert same is server
        assert server.observer.timeout == 0.1
        assert {e.timeout for e in server.observer.emitters} == {0.1}
        assert server.build_delay == 0.05
        assert len(guarded) == 1
        server.builder()
        assert built == ["built"]
    finally:
        server.server_close()


def test_a_server_whose_code_changed_is_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        servewatch.PATCH, "_changed", ["watchdog.observers.api.EventEmitter.timeout"]
    )
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path))
    try:
        builder = server.builder
        servewatch.apply(server, 0.1, 0.05, lambda build: None)
        assert server.observer.timeout == 0.5 and server.build_delay == 0.1
        assert server.builder is builder
    finally:
        server.server_close()


def test_the_render_speed_patch_is_undone_after_its_block(monkeypatch: pytest.MonkeyPatch) -> None:
    from pymdownx.superfences import SuperFencesBlockPreprocessor

    original = renderspeed.ORIGINALS["reassemble"]
    monkeypatch.setattr(SuperFencesBlockPreprocessor, "reassemble", original)
    with renderspeed.applied():
        assert SuperFencesBlockPreprocessor.reassemble is renderspeed._reassemble
    assert SuperFencesBlockPreprocessor.reassemble is original
