"""mkdocs.yml is vetted before MkDocs reads it: what would run code is refused at its line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from acp_docs.errors import UsageError
from acp_docs.repo import Repo

from conftest import BIN, ROOT

BASE = "site_name: T\n"


def _refusal(text: str) -> str:
    with pytest.raises(UsageError) as caught:
        Repo.parse(ROOT, BASE + text)
    return str(caught.value)


def test_what_the_site_may_use_is_accepted() -> None:
    repo = Repo.parse(
        ROOT,
        BASE
        + "site_url: !ENV [ACP_DOCS_SITE_URL, https://example.org/]\n"
        + "theme:\n  name: material\n"
        + "plugins:\n  search: {}\n  material/tags: {}\n  acp-docs: {}\n"
        + "markdown_extensions:\n"
        + "  - toc:\n      permalink: true\n"
        + "  - pymdownx.superfences:\n"
        + "      custom_fences:\n"
        + "        - name: diagram\n"
        + "          class: diagram\n"
        + "          format: !!python/name:pymdownx.superfences.fence_code_format\n"
        + "  - pymdownx.emoji:\n"
        + "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        + "extra_css:\n  - assets/site.css\n"
        + "copyright: Apache-2.0 &copy; 2026, a > b\n"
        + "nav:\n  - Home: index.md\n  - Upstream: https://example.org/a:b\n",
    )
    assert repo.config["site_url"] == "https://example.org/"
    assert Repo.load(ROOT).config["site_name"]


@pytest.mark.parametrize(
    ("text", "where", "says"),
    [
        ("x: !!python/object/new:os.system [id]\n", "2:4", "!!python/object/new:os.system"),
        ("x: !!python/name:pymdownx..util\n", "2:4", "!!python/name:pymdownx..util"),
        ("x: !!python/module:pymdownx\n", "2:4", "!!python/module:pymdownx"),
        ("x: !ENV HOME\n", "2:4", "not 'HOME'"),
        ("x: !ENV [HOME]\n", "2:10", "not 'HOME'"),
        ("x: !ENV [ACP_DOCS_A, GITHUB_TOKEN, fallback]\n", "2:22", "not 'GITHUB_TOKEN'"),
        ("markdown_extensions:\n  toc: {}\n  os.path: {}\n", "4:1", "'os.path' would import"),
        ("markdown_extensions:\n  - pymdownx.b64:B64Extension\n", "3:1", "pymdownx.b64 reads"),
        ("markdown_extensions:\n  - antigravity\n", "3:1", "'antigravity' is not one of"),
        ("plugins:\n  search: {}\n  material/social: {}\n", "4:1", "'material/social' is not"),
        ("extra_javascript:\n  - path: //cdn.example/x.js\n", "3:1", "from another host"),
        ("extra_css:\n  - https://cdn.example/x.css\n", "3:1", "from another host"),
        ("theme:\n  name: material\n  custom_dir: overrides\n", "4:1", "templates are code"),
        ("extra_templates:\n  - robots.txt\n", "2:1", "rendered as Jinja templates"),
        ("copyright: <script>alert(1)</script>\n", "2:12", "holds markup"),
        ("nav:\n  - <img src=x onerror=alert(1)>: index.md\n", "3:5", "holds markup"),
        ("nav:\n  - Home: ' java\tscript:alert(1)'\n", "3:11", "runs code"),
        ("extra:\n  social:\n    - link: DATA:text/html,x\n", "4:13", "embeds data"),
        ("docs_dir: /etc\n", "2:1", "docs_dir '/etc' is outside the checkout"),
        ("site_dir: ../../home\n", "2:1", "MkDocs empties and writes it"),
    ],
)
def test_what_would_run_code_is_refused_at_its_line(text: str, where: str, says: str) -> None:
    message = _refusal(text)
    assert message.startswith(f"mkdocs.yml:{where}: "), message
    assert says in message, message


def test_make_serve_and_build_stop_before_mkdocs_reads_a_refused_config(tmp_path: Path) -> None:
    plan = subprocess.run(
        ["make", "-n", "--no-print-directory", "serve", "build"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert plan.returncode == 0, plan.stderr
    lines = [ln for ln in plan.stdout.splitlines() if "mkdocsconfig" in ln or "mkdocs " in ln]
    vet = ".venv/bin/python -P -m acp_docs.mkdocsconfig"
    assert [ln.split(" --")[0] for ln in lines] == [
        vet,
        ".venv/bin/mkdocs serve",
        vet,
        ".venv/bin/mkdocs build",
    ], lines
    victim = tmp_path / "victim"
    (tmp_path / "mkdocs.yml").write_text(
        f'site_name: T\nx: !!python/object/apply:os.system ["touch {victim}"]\n'
    )
    vetted = subprocess.run(
        [str(BIN / "python"), *vet.split()[1:]], cwd=tmp_path, capture_output=True, text=True
    )
    assert vetted.returncode == 2
    assert vetted.stderr.startswith("acp-docs: error: mkdocs.yml:2:4: the YAML tag"), vetted.stderr
    assert not victim.exists()
