"""mkdocs.yml is checked against an allowlist before MkDocs reads it: anything else is
refused at its line, in plain words, before anything runs or is written."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from acp_docs.config import configschema as configpolicy
from acp_docs.config import mkdocsconfig
from acp_docs.config.repo import Repo
from acp_docs.core.errors import UsageError

from conftest import BIN, ROOT, acp, copy_repo, no_traceback

BASE = "site_name: T\n"
MATERIAL = next((BIN.parent / "lib").glob("python3*/site-packages/material/templates"))
VET = ".venv/bin/python -P -m acp_docs.config.mkdocsconfig"


def _refusal(text: str) -> str:
    with pytest.raises(UsageError) as caught:
        Repo.parse(ROOT, BASE + text)
    return str(caught.value)


def _tree(root: Path) -> dict[str, str]:
    out = {}
    for current, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if d != "node_modules"]
        for name in files:
            path = Path(current, name)
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


# --- what the site may set ---------------------------------------------------------------


def test_the_repository_s_own_mkdocs_yml_passes() -> None:
    assert Repo.load(ROOT).config["theme"]["name"] == "material"
    vetted = subprocess.run(
        [str(BIN / "python"), *VET.split()[1:]], cwd=ROOT, capture_output=True, text=True
    )
    assert (vetted.returncode, vetted.stderr) == (0, "")


def _theme(lines: str) -> str:
    return "theme:\n  name: material\n" + lines


ONE_BY_ONE = [
    *(_theme(f"  features: [{name}]\n") for name in configpolicy.MATERIAL_FEATURES),
    *(_theme(f"  palette:\n    - primary: {c}\n") for c in configpolicy.MATERIAL_PRIMARY),
    *(_theme(f"  palette:\n    - accent: {c}\n") for c in configpolicy.MATERIAL_ACCENT),
    *(_theme(f"  language: {name}\n") for name in configpolicy.MATERIAL_LANGUAGES),
    *(f"markdown_extensions:\n  - {name}\n" for name in configpolicy.EXTENSIONS),
    *(f"markdown_extensions:\n  - {name}: {{}}\n" for name in configpolicy.EXTENSIONS),
    *(
        f"plugins:\n  - {name}\n"
        for name in configpolicy.PLUGINS
        if name not in ("mkdocstrings", "llmstxt")  # their options are fixed, not optional
    ),
    *(f"plugins:\n  - search:\n      lang: '{name}'\n" for name in configpolicy.SEARCH_LANGUAGES),
]


@pytest.mark.parametrize("text", ONE_BY_ONE)
def test_each_allowlisted_name_is_accepted(text: str) -> None:
    Repo.parse(ROOT, BASE + text)


def test_every_allowlisted_setting_is_accepted(tmp_path: Path) -> None:
    for name in ("docs/assets/site.css", "docs/assets/site.js", "docs/logo.svg", "rfds/x.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x", encoding="utf-8")
    text = (
        "site_name: ACP & friends, 2026\nsite_description: Plain words.\nsite_author: A. B.\n"
        "site_url: !ENV [ACP_DOCS_NOT_SET_HERE, 'https://example.org:8443/acp/']\n"
        "copyright: Apache-2.0 &copy; 2026\ndocs_dir: docs\nsite_dir: site\n"
        "use_directory_urls: true\nstrict: false\ndev_addr: 127.0.0.1:8000\n"
        "theme:\n  name: material\n  language: pt-BR\n  font: false\n"
        "  features: [navigation.tabs, toc.follow]\n  palette:\n"
        "    - media: (prefers-color-scheme)\n      toggle:\n"
        "        icon: material/brightness-auto\n        name: Follow the system\n"
        "    - media: '(prefers-color-scheme: dark)'\n      scheme: slate\n"
        "      primary: blue grey\n      accent: deep orange\n"
        "  favicon: logo.svg\n  logo: logo.svg\n"
        "  icon:\n    logo: fontawesome/solid/book\n    top: octicons/arrow-up-24\n"
        "extra_css:\n  - assets/site.css\nextra_javascript:\n  - assets/site.js\n"
        "watch:\n  - rfds\n  - .wordlist.txt\n"
        "plugins:\n  - search:\n      lang: [en, de]\n      separator: '[\\s\\-]+'\n"
        "      pipeline: [stemmer, trimmer]\n  - acp-docs\n"
        "markdown_extensions:\n"
        "  - toc:\n      permalink: '#'\n      toc_depth: 2-4\n      baselevel: 2\n"
        "      slugify: !!python/name:markdown.extensions.toc.slugify_unicode\n"
        "  - pymdownx.tabbed:\n      alternate_style: true\n"
        "      slugify: !!python/name:markdown.extensions.toc.slugify\n"
        "  - pymdownx.highlight:\n      linenums_style: pymdownx-inline\n      line_anchors: L\n"
        "  - pymdownx.superfences:\n      custom_fences:\n"
        "        - name: diagram\n          class: diagram\n"
        "          format: !!python/name:pymdownx.superfences.fence_div_format\n"
        "          validator: !!python/name:pymdownx.superfences.highlight_validator\n"
        "validation:\n  nav:\n    absolute_links: relative_to_docs\n"
        "  links:\n    anchors: ignore\n"
        "nav:\n  - index.md\n  - Home page: index.md\n  - A section:\n"
        "      - tooling/index.md\n      - Deeper:\n          - Checks: tooling/checks.md\n"
        "extra:\n  generator: false\n"
    )
    repo = Repo.parse(tmp_path, text)
    assert repo.config["site_url"] == "https://example.org:8443/acp/"
    assert repo.config["theme"]["palette"][1]["primary"] == "blue grey"


FENCE = (
    "  - pymdownx.superfences:\n      custom_fences:\n"
    "        - name: x\n          class: x\n          format: {format}\n"
)
CODE = "pymdownx.superfences.fence_code_format"
PYTHON_NAME_PLACES = {
    "markdown.extensions.toc.slugify": "  - toc:\n      slugify: {name}\n",
    "markdown.extensions.toc.slugify_unicode": "  - pymdownx.tabbed:\n      slugify: {name}\n",
    "pymdownx.superfences.fence_code_format": FENCE.format(format="{name}"),
    "pymdownx.superfences.fence_div_format": FENCE.format(format="{name}"),
    "pymdownx.superfences.default_validator": FENCE.format(format=f"!!python/name:{CODE}")
    + "          validator: {name}\n",
    "pymdownx.superfences.highlight_validator": FENCE.format(format=f"!!python/name:{CODE}")
    + "          validator: {name}\n",
}


@pytest.mark.parametrize("name", sorted(PYTHON_NAME_PLACES))
def test_each_allowlisted_python_name_is_accepted_where_it_belongs(name: str) -> None:
    place = PYTHON_NAME_PLACES[name].format(name=f"!!python/name:{name}")
    Repo.parse(ROOT, BASE + "markdown_extensions:\n" + place)
    # Anywhere else, the same name is refused.
    assert "must be plain text" in _refusal(f"site_description: !!python/name:{name}\n")


def test_the_allowlists_are_what_is_meant() -> None:
    """Neither wider nor narrower: a change to an allowlist is a change to this test."""
    assert set(configpolicy.CONFIG_SCHEMA["properties"]) == {
        "site_name", "site_description", "site_author", "site_url", "copyright", "docs_dir",
        "site_dir", "use_directory_urls", "strict", "dev_addr", "theme", "extra_css",
        "extra_javascript", "watch", "plugins", "markdown_extensions", "validation", "nav",
        "extra",
    }  # fmt: skip
    assert set(configpolicy.PLUGINS) == {"search", "acp-docs", "mkdocstrings", "llmstxt"}
    assert set(configpolicy.EXTENSIONS) == {
        "abbr", "admonition", "attr_list", "def_list", "footnotes", "md_in_html", "tables",
        "toc", "pymdownx.details", "pymdownx.highlight", "pymdownx.inlinehilite",
        "pymdownx.superfences", "pymdownx.tabbed",
    }  # fmt: skip
    assert set(configpolicy.PYTHON_NAMES) == {
        "pymdownx.superfences.fence_code_format", "pymdownx.superfences.fence_div_format",
        "pymdownx.superfences.default_validator", "pymdownx.superfences.highlight_validator",
        "markdown.extensions.toc.slugify", "markdown.extensions.toc.slugify_unicode",
    }  # fmt: skip
    assert set(configpolicy.ENV_PLACES) == {"/site_url"}
    assert set(configpolicy.CONFIG_SCHEMA["properties"]["extra"]["properties"]) == {"generator"}


def test_the_shipped_schemas_are_json_schema_and_name_only_allowed_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The allowlists are data files: each a valid schema whose `pythonName`s are allowed."""
    from jsonschema import Draft202012Validator

    from acp_docs.schemalib import schemacheck

    meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)  # patterns are RE2: below
    for schema in (configpolicy.CONFIG_SCHEMA, configpolicy.PAGE_SCHEMA):
        assert list(meta.iter_errors(schema)) == []
        assert schemacheck.problems(schema) == []
    named = set(configpolicy._python_names(configpolicy.CONFIG_SCHEMA))
    assert named == set(configpolicy.PYTHON_NAMES)
    planted = json.loads(json.dumps(configpolicy.PAGE_SCHEMA))
    planted["properties"]["title"]["pythonName"] = ["os.system"]
    (tmp_path / "page.schema.json").write_text(json.dumps(planted))
    monkeypatch.setattr(configpolicy, "files", lambda package: tmp_path)
    with pytest.raises(RuntimeError, match=r"os\.system is not in PYTHON_NAMES"):
        configpolicy._schema("page.schema.json")


def test_theme_names_are_the_installed_material_s() -> None:
    """Languages are template paths and features are names Material reads: the lists
    match Material 9.8.1 (but content.action.*, which need repo_url)."""
    languages = {p.stem for p in (MATERIAL / "partials" / "languages").glob("*.html")}
    assert set(configpolicy.MATERIAL_LANGUAGES) == languages
    used = set()
    for path in [*MATERIAL.rglob("*.html"), *MATERIAL.glob("assets/javascripts/bundle.*.js")]:
        used |= set(re.findall(r'"((?:announce|content|header|navigation|search|toc)\.[a-z.]+)"',
                               path.read_text(encoding="utf-8")))  # fmt: skip
    # Translation keys, the search plugin's settings and a feature only Material's own
    # plugins set (content.lazy) are not features a site turns on.
    ignored = ("search.result.", "search.config.", "content.action.")
    features = {f for f in used if not f.startswith(ignored)}
    assert set(configpolicy.MATERIAL_FEATURES) == features - {
        "content.lazy",
        "search.placeholder",
        "search.reset",
    }


# --- what is refused, at its line ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "where", "says"),
    [
        # Tags: only plain values, !ENV of ACP_DOCS_* at site_url, !!python/name: by name.
        ("x: !!python/object/new:os.system [id]\n", "2:4", "makes MkDocs run Python code"),
        ("x: !!python/module:pymdownx\n", "2:4", "makes MkDocs run Python code"),
        (
            "markdown_extensions:\n  - toc:\n      slugify: !!python/name:shutil.copyfile\n",
            "4:16",
            "!!python/name:shutil.copyfile makes MkDocs run Python code that is not on",
        ),
        (
            "markdown_extensions:\n  - toc:\n      slugify: !!python/name:pymdownx.slugs.slugify\n",
            "4:16",
            "not on the allowlist",
        ),
        (
            "markdown_extensions:\n  - toc:\n"
            "      slugify: !!python/name:pymdownx.superfences.fence_code_format\n",
            "4:7",
            "markdown_extensions[0].toc.slugify must be !!python/name: of"
            " markdown.extensions.toc.slugify or",
        ),
        ("site_url: !ENV HOME\n", "2:11", "not 'HOME'"),
        ("site_url: !ENV [ACP_DOCS_A, GITHUB_TOKEN, x]\n", "2:29", "not 'GITHUB_TOKEN'"),
        ("copyright: !ENV [ACP_DOCS_A, x]\n", "2:12", "!ENV may stand only at site_url"),
        ("site_url: !ENV [ACP_DOCS_UNSET_HERE, 'javascript:alert(1)']\n", "2:1", "site_url must"),
        ("copyright: !!binary aGk=\n", "2:12", "the YAML tag !!binary is not allowed"),
        ("<<: {copyright: x}\n", "2:1", "a key must be plain text"),
        ("3: x\n", "2:1", "a key must be plain text"),
        ("copyright: '!!python/name:x'\n", "2:12", "may not start with '!'"),
        # Values the theme prints into attributes and inline scripts.
        (
            "theme:\n  name: material\n  palette:\n    - primary: 'indigo\" onmouseover=\"x'\n",
            "5:7",
            "theme.palette[0].primary must be one of red, pink",
        ),
        (
            "theme:\n  name: material\n  palette:\n    - media: '(x)\" onfocus=\"x'\n",
            "5:7",
            "theme.palette[0].media must be (prefers-color-scheme)",
        ),
        (
            "theme:\n  name: material\n  palette:\n    - toggle:\n"
            "        icon: ../../../etc/passwd\n        name: x\n",
            "6:9",
            "theme.palette[0].toggle.icon must be a material/... icon name",
        ),
        (
            "theme:\n  name: material\n  palette:\n    - toggle:\n"
            "        icon: material/x\n        name: '\" onclick=\"x'\n",
            "7:9",
            "theme.palette[0].toggle.name must be plain text",
        ),
        ("theme:\n  name: material\n  icon:\n    logo: ../x\n", "5:5", "an icon name"),
        ("extra:\n  analytics:\n    provider: google\n", "3:3", "extra.analytics is not allowed"),
        ("extra:\n  social: []\n", "3:3", "extra may hold: generator"),
        ("extra:\n  polyfills: [https://x.example/p.js]\n", "3:3", "is not allowed here"),
        ("theme:\n  name: material\n  favicon: https://x.example/f.png\n", "4:3", "an image"),
        ("theme:\n  name: material\n  logo: //x.example/l.svg\n", "4:3", "theme.logo must be"),
        ("theme:\n  name: material\n  logo: assets/x.js\n", "4:3", "theme.logo must be"),
        ("theme:\n  name: material\n  font:\n    text: x\n", "4:3", "theme.font must be false"),
        ("theme:\n  name: mkdocs\n", "3:3", 'theme.name must be "material"'),
        ("theme:\n  name: material\n  custom_dir: docs\n", "4:3", "templates are code"),
        ("theme:\n  name: material\n  features: [content.action.edit]\n", "4:14", "not 'content"),
        ("copyright: <script>alert(1)</script>\n", "2:1", "copyright must be plain text"),
        ('site_description: "a\u202eb"\n', "2:1", "site_description must be plain text"),
        ("nav:\n  - <img src=x onerror=alert(1)>: index.md\n", "3:5", "the key '<img"),
        ("nav:\n  - Home: javascript:alert(1)\n", "3:5", "nav[0].Home must be a relative"),
        ("nav:\n  - Upstream: https://example.org/\n", "3:5", "a relative path to a .md page"),
        ("nav:\n  - ../outside.md\n", "3:5", "nav[0] must be a relative path"),
        # Style sheets and scripts: files inside docs/ only, however spelt.
        ("extra_css:\n  - https://cdn.example/x.css\n", "3:5", "extra_css[0] must be a"),
        ("extra_css:\n  - HTTPS:cdn.example/x.css\n", "3:5", "extra_css[0] must be a"),
        ("extra_css:\n  - //cdn.example/x.css\n", "3:5", "extra_css[0] must be a"),
        ("extra_css:\n  - '\\\\cdn.example\\x.css'\n", "3:5", "extra_css[0] must be a"),
        ("extra_css:\n  - /assets/acp-site.css\n", "3:5", "extra_css[0] must be a"),
        ("extra_css:\n  - assets/../../x.css\n", "3:5", "extra_css[0] must be a"),
        ("extra_css:\n  - assets/missing.css\n", "3:1", "is not a file inside the docs folder"),
        ("extra_javascript:\n  - path: //cdn.example/x.js\n", "3:5", "extra_javascript[0]"),
        ("extra_javascript:\n  - data:text/javascript,alert(1)\n", "3:5", "must be a relative"),
        ("extra_templates:\n  - robots.txt\n", "2:1", "rendered as Jinja templates"),
        ("hooks:\n  - docs/hook.py\n", "2:1", "hooks run Python files"),
        ("INHERIT: ../base.yml\n", "2:1", "INHERIT reads another file"),
        ("repo_url: https://github.com/x/y\n", "2:1", "GitHub API"),
        # Plugins that write files or reach the network; extension options that read files.
        ("plugins:\n  - offline\n", "3:5", "plugins[0] must be one of search, acp-docs"),
        ("plugins:\n  - material/privacy\n", "3:5", "not 'material/privacy'"),
        ("plugins:\n  - tags:\n      export_file: /tmp/x\n", "3:5", "plugins[0].tags is not"),
        ("plugins:\n  - search:\n      jieba_dict: /etc/passwd\n", "4:7", "reads a file by path"),
        (
            "plugins:\n  - llmstxt:\n      full_output: llms-full.txt\n      sections: {}\n"
            "      preprocess: docs/run-me.py\n",
            "3:5",
            "plugins[0].llmstxt must be",
        ),
        ("plugins:\n  - llmstxt\n", "3:5", "plugins[0] must be"),
        ("markdown_extensions:\n  - pymdownx.snippets\n", "3:5", "reads files by path"),
        (
            "markdown_extensions:\n  - pymdownx.snippets:\n      base_path: [/]\n",
            "3:5",
            "markdown_extensions[0].pymdownx.snippets is not allowed here",
        ),
        ("markdown_extensions:\n  - abbr:\n      glossary: x\n", "3:5", "must be empty"),
        ("markdown_extensions:\n  - os.path\n", "3:5", "not 'os.path'"),
        (
            "markdown_extensions:\n  - pymdownx.highlight:\n      pygments_style: x\n",
            "4:7",
            "pymdownx.highlight.pygments_style is not allowed here",
        ),
        (
            "markdown_extensions:\n  - pymdownx.superfences:\n      custom_fences:\n"
            "        - name: diagram\n          class: mermaid\n"
            "          format: !!python/name:pymdownx.superfences.fence_code_format\n",
            "6:11",
            "may not be mermaid: Material would load Mermaid from a CDN",
        ),
        ("markdown_extensions:\n  - toc:\n      permalink: <b>\n", "4:7", "plain text"),
        # Paths out of the checkout.
        ("docs_dir: /etc\n", "2:1", "docs_dir must be a relative folder"),
        ("site_dir: ../../home\n", "2:1", "site_dir must be a relative folder"),
        ("watch:\n  - ../..\n", "3:5", "watch[0] must be a relative path"),
        # Wrong shapes.
        ("theme: 3\n", "2:1", "theme must be a mapping"),
        ("theme:\n  - name: material\n", "2:1", "theme must be a mapping"),
        ("theme:\n  language: en\n", "2:1", "theme must set name"),
        ("nav: {}\n", "2:1", "nav must be a list"),
        ("nav:\n  - 3\n", "3:5", "nav[0] must be a page path, or a mapping"),
        ("nav:\n  - A: index.md\n    B: index.md\n", "3:5", "nav[0] must be a page path"),
        ("plugins:\n  - 3\n", "3:5", "plugins[0] must be a plugin name, or a mapping"),
        ("plugins:\n  search: {}\n", "2:1", "plugins must be a list of plugins"),
        ("markdown_extensions:\n  - toc: [permalink]\n", "3:5", "toc must be a mapping"),
        ("validation: warn\n", "2:1", "validation must be a mapping"),
        ("validation:\n  links:\n    anchors: loud\n", "4:5", "must be one of warn, info"),
        ("copyright: [a]\n", "2:1", "copyright must be plain text"),
        ("copyright: yes\n", "2:1", "copyright must be plain text"),
        ("copyright: T\ncopyright: U\n", "3:1", "duplicate key 'copyright'"),
        ("x: " + "[" * 40 + "]" * 40 + "\n", "2:", "nested deeper than 16 levels"),
    ],
)
def test_what_is_not_allowed_is_refused_at_its_line(text: str, where: str, says: str) -> None:
    message = _refusal(text)
    assert message.startswith(f"mkdocs.yml:{where}"), message
    assert says in message, message


def test_a_document_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(UsageError, match=r"^mkdocs\.yml:1:1: mkdocs\.yml must be a mapping"):
        Repo.parse(ROOT, "- site_name: T\n")


def test_an_alias_bomb_is_refused_at_its_line() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + n)}: &{chr(98 + n)} [*{chr(97 + n)}, *{chr(97 + n)}]\n" for n in range(20)
    )
    with pytest.raises(UsageError, match=r"^mkdocs\.yml:3:\d+: malformed YAML: YAML aliases"):
        Repo.parse(ROOT, BASE + bomb)


# --- end to end: nothing runs, nothing is written --------------------------------------------


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_repo(tmp_path_factory.mktemp("config"))


END_TO_END = {
    "a palette value printed into an attribute": (
        "        name: Switch to dark mode\n",
        "        name: 'Dark\" autofocus onfocus=\"alert(1)'\n",
        "theme.palette[0].toggle.name must be plain text",
    ),
    "analytics printed into an inline script": (
        "copyright:",
        "extra:\n  analytics:\n    provider: google\n    property: \"');alert(1);('\"\ncopyright:",
        "extra.analytics is not allowed here",
    ),
    "a favicon from another host": (
        "  font: false\n",
        "  font: false\n  favicon: https://tracker.example/p.png\n",
        "theme.favicon must be a relative path to an image inside docs/",
    ),
    "a style sheet spelt to dodge a denylist": (
        "extra_css:\n",
        "extra_css:\n  - ' //cdn.example/x.css'\n",
        "extra_css[0] must be a relative path",
    ),
    "a plugin that writes files": (
        "  - acp-docs\n",
        "  - acp-docs\n  - offline\n",
        "not 'offline' (it writes files into the site)",
    ),
    "an extension option that reads files": (
        "  - abbr\n",
        "  - abbr\n  - pymdownx.snippets:\n      base_path: [/]\n"
        "      auto_append: [/etc/passwd]\n",
        "pymdownx.snippets is not allowed here",
    ),
    "a Python name of a helper that copies files": (
        "      permalink: true\n",
        "      permalink: true\n      slugify: !!python/name:shutil.copyfile\n",
        "!!python/name:shutil.copyfile makes MkDocs run Python code",
    ),
    "a number where a plugin name goes": ("  - acp-docs\n", "  - 3\n", "must be a plugin name"),
}


def _vet(cwd: Path) -> subprocess.CompletedProcess[str]:
    """The vetting `make serve` and `make build` run first (`VET`), called in this process.

    The command itself is run by the two tests around this one's cases.
    """
    err = io.StringIO()
    saved = os.getcwd()
    try:
        os.chdir(cwd)
        with contextlib.redirect_stderr(err):
            status = mkdocsconfig.main()
    finally:
        os.chdir(saved)
    return subprocess.CompletedProcess(VET.split(), status, "", err.getvalue())


@pytest.mark.parametrize("case", sorted(END_TO_END))
def test_acp_docs_check_refuses_before_anything_runs(checkout: Path, case: str) -> None:
    old, new, says = END_TO_END[case]
    config = checkout / "mkdocs.yml"
    original = config.read_text(encoding="utf-8")
    assert original.count(old) == 1
    planted = original.replace(old, new)
    pairs = zip(original.splitlines(), planted.splitlines(), strict=False)
    line = next(n for n, (a, b) in enumerate(pairs, 1) if a != b)
    config.write_text(planted, encoding="utf-8")
    before = _tree(checkout)
    try:
        result = acp(["check"], cwd=checkout)
        vetted = _vet(checkout)
    finally:
        after = _tree(checkout)
        config.write_text(original, encoding="utf-8")
    no_traceback(result)
    assert result.returncode == 2, result.stdout + result.stderr
    found = re.search(r"mkdocs\.yml:(\d+):\d+: (.*)", result.stderr)
    assert found, result.stderr
    assert says in found.group(2), result.stderr
    assert line <= int(found.group(1)) <= line + new.count("\n"), result.stderr
    assert (vetted.returncode, vetted.stderr.strip()) == (2, f"acp-docs: error: {found.group(0)}")
    assert after == before


def test_make_serve_and_build_stop_before_mkdocs_reads_a_refused_config(tmp_path: Path) -> None:
    plan = subprocess.run(
        ["make", "-n", "--no-print-directory", "serve", "build"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert plan.returncode == 0, plan.stderr
    lines = [ln for ln in plan.stdout.splitlines() if "mkdocsconfig" in ln or "mkdocs " in ln]
    assert [ln.split(" --")[0] for ln in lines] == [
        VET,
        ".venv/bin/mkdocs serve",
        VET,
        ".venv/bin/mkdocs build",
    ], lines
    victim = tmp_path / "victim"
    (tmp_path / "mkdocs.yml").write_text(
        f'site_name: T\nx: !!python/object/apply:os.system ["touch {victim}"]\n'
    )
    vetted = subprocess.run(
        [str(BIN / "python"), *VET.split()[1:]], cwd=tmp_path, capture_output=True, text=True
    )
    assert vetted.returncode == 2
    assert vetted.stderr.startswith("acp-docs: error: mkdocs.yml:2:4: the YAML tag"), vetted.stderr
    assert not victim.exists()


def test_a_variable_the_text_reads_with_env_gives_each_parse_its_own_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docs").mkdir()
    text = "site_name: x\nsite_url: !ENV [ACP_DOCS_ZZ_URL, 'https://fallback.example/']\n"
    seen = []
    for value in ("https://one.example/", "https://two.example/", None):
        if value is None:
            monkeypatch.delenv("ACP_DOCS_ZZ_URL")
        else:
            monkeypatch.setenv("ACP_DOCS_ZZ_URL", value)
        config = mkdocsconfig.parse_config(tmp_path, text)
        seen.append(config["site_url"])
        config["site_url"] = "changed by a caller"
    assert seen == ["https://one.example/", "https://two.example/", "https://fallback.example/"]
    assert mkdocsconfig.parse_config(tmp_path, text)["site_url"] == "https://fallback.example/"
