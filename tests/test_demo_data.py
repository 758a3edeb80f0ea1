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
    _demo(root, "examples/v1/valid/leak.json")
    (root / "schema" / "examples" / "v1" / "valid").mkdir(parents=True)
    (root / "schema" / "examples" / "v1" / "valid" / "leak.json").symlink_to(secret)
    with pytest.raises(UsageError, match=r"schema/examples/v1/valid/leak\.json: no such file"):
        site.demo(root, "zz-demo")


def test_a_valid_fixture_inside_the_checkout_is_read(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _demo(root, "examples/v2/valid/update.json")
    (root / "schema" / "examples" / "v2" / "valid").mkdir(parents=True)
    (root / "schema" / "examples" / "v2" / "valid" / "update.json").write_text('{"x": "y"}')
    assert "data-acp-demo-examples" in site.demo(root, "zz-demo")


@pytest.mark.parametrize(
    "fixture",
    [
        "zz-demo/update.json",
        "examples/v1/invalid/x.json",
        "examples/v1/valid/../../x.json",
        "examples/v9/valid/x.json",  # no such version: nothing checks its fixtures
    ],
)
def test_a_demo_sends_only_fixtures_the_examples_check_holds_valid(
    tmp_path: Path, fixture: str
) -> None:
    root = tmp_path / "repo"
    _demo(root, fixture)
    with pytest.raises(UsageError, match="is not a valid fixture"):
        site.demo(root, "zz-demo")


@pytest.mark.parametrize("slug", ["../../outside", "zz-demo/../zz-demo", "/etc", "ZZ"])
def test_the_demo_names_an_rfd_by_its_slug(tmp_path: Path, slug: str) -> None:
    root = tmp_path / "repo"
    _demo(root, "zz-demo/update.json")
    with pytest.raises(UsageError, match="name an RFD by its slug"):
        site.demo(root, slug)
