"""The demo marker reads only its RFD's demo file and fixtures inside the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_docs.core.errors import UsageError
from acp_docs.mkdocs import site


def _demo(root: Path, fixture: str) -> None:
    folder = root / "schema" / "zz-demo"
    folder.mkdir(parents=True)
    (folder / "demo.yaml").write_text(
        "title: Try it\nfallback: Needs JavaScript.\n"
        f"examples:\n  - name: one\n    label: One\n    fixture: {fixture}\n"
    )


def test_a_fixture_behind_a_link_out_of_the_checkout_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"secret": "s3cret"}')
    root = tmp_path / "repo"
    _demo(root, "zz-demo/leak.json")
    (root / "schema" / "zz-demo" / "leak.json").symlink_to(secret)
    with pytest.raises(UsageError, match=r"schema/zz-demo/leak\.json: no such file"):
        site.demo(root, "zz-demo")


def test_a_fixture_inside_the_checkout_is_read(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _demo(root, "zz-demo/update.json")
    (root / "schema" / "zz-demo" / "update.json").write_text('{"sessionUpdate": "x"}')
    assert "sessionUpdate" in site.demo(root, "zz-demo")


@pytest.mark.parametrize("slug", ["../../outside", "zz-demo/../zz-demo", "/etc", "ZZ"])
def test_the_demo_names_an_rfd_by_its_slug(tmp_path: Path, slug: str) -> None:
    root = tmp_path / "repo"
    _demo(root, "zz-demo/update.json")
    with pytest.raises(UsageError, match="name an RFD by its slug"):
        site.demo(root, slug)
