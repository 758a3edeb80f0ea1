"""The engine serves any RFD: a second RFD's schema change is data, conflicts are refused.

Each RFD and schema source here is the test's own, under a name no RFD of the
repository has (see `free_name` in conftest).
"""

from __future__ import annotations

import json
import re
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import yaml

from conftest import (
    ROOT,
    Sample,
    acp,
    free_name,
    new_rfd,
    no_traceback,
    replace_in,
    run,
    sample,
)

ENGINE = ROOT / "scripts" / "acp_docs"

SECOND_SOURCE = """\
title: session labels capability
versions: [v1]
definitions:
  @CAPS@:
    description: Client support for showing session labels.
    type: object
    properties:
      maxLabels:
        description: How many labels the Client shows at most.
        type: integer
        minimum: 1
changes:
  - op: add-capability
    scope: session
    property: @PROP@
    schema:
      description: Support for session labels. Omitted or `null` means no support.
      anyOf:
        - $ref: "#/$defs/@CAPS@"
        - type: "null"
"""
"""A schema change adding a Client capability; `Sample.fill` names it after its RFD."""

SECOND_EXAMPLES = """
## Examples of the capability

```json title="ClientSessionCapabilities (v1)"
{ "@PROP@": { "maxLabels": 3 } }
```

```json title="Invalid ClientSessionCapabilities (v1): at least one label"
{ "@PROP@": { "maxLabels": 0 } }
```
"""


def _plant_source(repo: Path, slug: str, text: str) -> Path:
    """Write `schema/<slug>/source.yaml`; return its folder."""
    folder = repo / "schema" / slug
    folder.mkdir()
    (folder / "source.yaml").write_text(text)
    return folder


def _free(repo: Path, slug: str = "session-labels", title: str = "Session labels") -> Sample:
    """The names of an RFD or schema source no RFD of `repo` has yet."""
    return Sample(*free_name(repo, slug, title))


def _second_rfd(repo: Path) -> tuple[Sample, Path]:
    """Add an RFD with its own schema change, touching only rfds/, schema/ and mkdocs.yml."""
    made = new_rfd(repo, "session-labels", "Session labels")
    names = Sample(made.slug, made.title)
    rfd = repo / made.shown
    examples = names.fill(SECOND_EXAMPLES).lstrip("\n")
    replace_in(rfd, "## Shiny future\n", examples + "\n## Shiny future\n")
    _plant_source(repo, names.slug, names.fill(SECOND_SOURCE))
    generated = acp(["schema", "generate"], cwd=repo)
    assert generated.returncode == 0, generated.stderr
    return names, rfd


def _merged(repo: Path, protocol: str) -> dict:
    merged = acp(["schema", "merge", "--protocol", protocol], cwd=repo)
    assert merged.returncode == 0, merged.stderr
    return json.loads(merged.stdout)


@pytest.mark.build
def test_a_second_rfd_with_another_kind_of_change_is_validated_and_published(
    repo_copy: Path, aspell: None
) -> None:
    before = {
        p.relative_to(repo_copy) for p in repo_copy.rglob("*") if "node_modules" not in p.parts
    }
    others = _merged(repo_copy, "v1")
    names, rfd = _second_rfd(repo_copy)
    after = {
        p.relative_to(repo_copy) for p in repo_copy.rglob("*") if "node_modules" not in p.parts
    }
    added = {p.parts[0] for p in after - before}
    assert added <= {"rfds", "schema"}
    assert (repo_copy / "schema" / names.slug / "v1.json").is_file()
    assert not (repo_copy / "schema" / names.slug / "v2.json").exists()

    # Every check, spelling included, passes with the new RFD `acp-docs new` started.
    result = acp(["check"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 0, result.stdout + result.stderr

    # The new RFD's change is merged beside what the other RFDs change, which stays.
    merged = _merged(repo_copy, "v1")
    assert names.capabilities in merged["$defs"]
    assert set(others["$defs"]) | {names.capabilities} == set(merged["$defs"])
    session = merged["$defs"]["ClientSessionCapabilities"]["properties"]
    before_session = others["$defs"]["ClientSessionCapabilities"]["properties"]
    assert set(session) == set(before_session) | {names.prop}
    assert names.capabilities not in _merged(repo_copy, "v2")["$defs"]

    # The second RFD's example is checked against the merged schema, at its line.
    replace_in(
        rfd,
        f'{{ "{names.prop}": {{ "maxLabels": 3 }} }}',
        f'{{ "{names.prop}": {{ "maxLabels": "3" }} }}',
    )
    broken = acp(["check", "--only", "examples"], cwd=repo_copy)
    assert broken.returncode == 1
    (line,) = [ln for ln in broken.stdout.splitlines() if ln]
    assert line.startswith(f"rfds/{names.slug}.md:")
    assert (
        f"[v1 ClientSessionCapabilities] /{names.prop}/maxLabels: '3' is not of type 'integer'"
        in line
    )
    number = int(line.split(":")[1])
    # At the member itself, the line after the fence that declares the block.
    assert '"maxLabels": "3"' in rfd.read_text().splitlines()[number - 1]
    assert 'title="ClientSessionCapabilities (v1)"' in rfd.read_text().splitlines()[number - 2]


@pytest.mark.build
def test_the_reference_and_downloads_list_every_rfd(repo_copy: Path) -> None:
    names, _rfd = _second_rfd(repo_copy)
    site = repo_copy / "site"
    result = run(["mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=repo_copy)
    assert result.returncode == 0, result.stderr
    v1 = (site / "schema" / "v1" / "index.html").read_text()
    assert f"{names.title}</h2>" in v1 or f">{names.title}<" in v1
    assert f"ClientSessionCapabilities</code>: the <code>{names.prop}</code> field" in v1
    assert names.capabilities.lower() in v1
    v2 = (site / "schema" / "v2" / "index.html").read_text()
    assert names.prop not in v2
    assert (site / "schema" / names.slug / "v1.json").is_file()
    assert f"{names.slug}/v1.json" in (site / "schema" / "index.html").read_text()


@pytest.mark.build
def test_two_rfds_that_change_the_same_place_are_refused_naming_both(sample_copy: Path) -> None:
    first = sample()
    second = _free(sample_copy)
    clash = second.fill(SECOND_SOURCE).replace(
        f"property: {second.prop}", f"property: {first.prop}"
    )
    _plant_source(sample_copy, second.slug, clash)
    result = acp(["schema", "merge", "--protocol", "v1"], cwd=sample_copy)
    no_traceback(result)
    assert result.returncode == 2
    assert f"'{first.slug}' ({first.source})" in result.stderr
    assert f"'{second.slug}' ({second.source})" in result.stderr
    assert f"$defs/ClientSessionCapabilities/properties/{first.prop}" in result.stderr
    assert result.stdout == ""
    build = run(
        ["mkdocs", "build", "--strict", "--site-dir", str(sample_copy / "site")], cwd=sample_copy
    )
    assert build.returncode == 1
    assert "both change $defs/ClientSessionCapabilities" in build.stderr


def test_two_rfds_that_add_the_same_variant_are_refused(repo_copy: Path) -> None:
    first = _free(repo_copy, "one-take", "One take")
    tag = first.slug.replace("-", "_")
    for names in (first, _free(repo_copy, "another-take", "Another take")):
        _plant_source(
            repo_copy,
            names.slug,
            f"title: {names.title}\nversions: [v2]\ndefinitions:\n"
            f"  {names.capabilities}:\n    type: object\n"
            f"changes:\n  - op: add-variant\n    union: SessionUpdate\n    tag: {tag}\n"
            f"    fields: {names.capabilities}\n",
        )
        last = names
    result = acp(["schema", "merge", "--protocol", "v2"], cwd=repo_copy)
    assert result.returncode == 2
    assert f"'{first.slug}'" in result.stderr and f"'{last.slug}'" in result.stderr
    assert f"variant '{tag}'" in result.stderr


def test_a_json_patch_change_with_a_failing_test_guard_is_refused(repo_copy: Path) -> None:
    names = _free(repo_copy)
    folder = _plant_source(
        repo_copy,
        names.slug,
        "title: guarded\nversions: [v1]\nchanges:\n"
        "  - op: test\n    path: /$defs/SessionNotification/x-method\n    value: session/updated\n"
        "  - op: replace\n    path: /$defs/SessionNotification/description\n    value: new\n",
    )
    result = acp(["schema", "merge", "--protocol", "v1"], cwd=repo_copy)
    assert result.returncode == 2
    assert f"{names.source}:5:1: test failed" in result.stderr
    replace_in(folder / "source.yaml", "value: session/updated", "value: session/update")
    merged = acp(["schema", "merge", "--protocol", "v1"], cwd=repo_copy)
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout)["$defs"]["SessionNotification"]["description"] == "new"


@pytest.mark.build
def test_a_schema_source_without_its_rfd_is_a_finding(repo_copy: Path) -> None:
    names = _free(repo_copy, "orphan", "Orphan")
    _plant_source(repo_copy, names.slug, names.fill(SECOND_SOURCE))
    assert acp(["schema", "generate"], cwd=repo_copy).returncode == 0
    result = acp(["check", "--only", "schema"], cwd=repo_copy)
    assert result.returncode == 1
    assert (
        f"{names.source}:1:1: error: no RFD rfds/{names.slug}.md owns this schema source"
        in result.stdout
    )


FORBIDDEN = re.compile(r"prompt_suggestions|PromptSuggestion|promptSuggestions|prompt-suggestions")


def test_no_engine_module_names_the_rfd() -> None:
    offenders = []
    for path in sorted(ENGINE.rglob("*.py")):
        if "prompt_suggestions" in path.relative_to(ENGINE).parts:
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if FORBIDDEN.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_plugin_is_registered_by_entry_point_not_a_hook_path() -> None:
    found = {ep.name: ep.value for ep in entry_points(group="mkdocs.plugins")}
    assert found.get("acp-docs") == "acp_docs.mkdocs.plugin:AcpDocsPlugin"
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text().replace("!ENV", ""))
    assert "hooks" not in config
    assert "acp-docs" in config["plugins"]


TAKEN = "taken"
"""Stands for the slug of an RFD the test made first."""


@pytest.mark.parametrize("slug", ["Bad_Slug", TAKEN, "draft", "a--b"])
def test_new_refuses_bad_or_taken_slugs_and_writes_nothing(repo_copy: Path, slug: str) -> None:
    if slug == TAKEN:
        slug = new_rfd(repo_copy, "session-labels", "Session labels").slug
    config = (repo_copy / "mkdocs.yml").read_bytes()
    listing = sorted(p.relative_to(repo_copy) for p in (repo_copy / "rfds").rglob("*"))
    result = acp(["new", slug, "--title", "A title", "--author", "octocat"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2
    assert slug in result.stderr
    assert (repo_copy / "mkdocs.yml").read_bytes() == config
    assert sorted(p.relative_to(repo_copy) for p in (repo_copy / "rfds").rglob("*")) == listing


def test_new_lists_the_rfd_under_draft(repo_copy: Path) -> None:
    slug, title = free_name(repo_copy, "session-labels", "Session labels")
    result = acp(["new", slug, "--title", title, "--author", "octocat"], cwd=repo_copy)
    assert result.returncode == 0, result.stderr
    rfd = (repo_copy / "rfds" / f"{slug}.md").read_text()
    assert rfd.startswith(f'---\ntitle: "{title}"\nstatus: draft\nauthors:\n  - octocat\n')
    assert f"\n# {title}\n" in rfd
    from acp_docs.config.repo import Repo

    entries = [e for e in Repo.load(repo_copy).nav() if e.file == f"rfds/{slug}.md"]
    assert [(e.sections, e.title) for e in entries] == [(("RFDs", "Draft"), title)]
