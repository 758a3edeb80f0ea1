"""The engine serves any RFD: a second RFD's schema change is data, conflicts are refused."""

from __future__ import annotations

import json
import re
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, acp, no_traceback, replace_in, run

ENGINE = ROOT / "scripts" / "acp_docs"

SECOND_SOURCE = """\
title: session labels capability
versions: [v1]
definitions:
  SessionLabelsCapabilities:
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
    property: sessionLabels
    schema:
      description: Support for session labels. Omitted or `null` means no support.
      anyOf:
        - $ref: "#/$defs/SessionLabelsCapabilities"
        - type: "null"
"""

SECOND_EXAMPLES = """
## Examples of the capability

```json title="ClientSessionCapabilities (v1)"
{ "sessionLabels": { "maxLabels": 3 } }
```

```json title="Invalid ClientSessionCapabilities (v1): at least one label"
{ "sessionLabels": { "maxLabels": 0 } }
```
"""


def _plant_source(repo: Path, slug: str, text: str) -> Path:
    """Write `schema/<slug>/source.yaml`; return its folder."""
    folder = repo / "schema" / slug
    folder.mkdir()
    (folder / "source.yaml").write_text(text)
    return folder


def _second_rfd(repo: Path, source: str = SECOND_SOURCE) -> Path:
    """Add an RFD with its own schema change, touching only rfds/, schema/ and mkdocs.yml."""
    made = acp(
        ["new", "session-labels", "--title", "Session labels", "--author", "octocat"], cwd=repo
    )
    assert made.returncode == 0, made.stderr
    rfd = repo / "rfds" / "session-labels.md"
    replace_in(rfd, "## Shiny future\n", SECOND_EXAMPLES.lstrip("\n") + "\n## Shiny future\n")
    _plant_source(repo, "session-labels", source)
    generated = acp(["schema", "generate"], cwd=repo)
    assert generated.returncode == 0, generated.stderr
    return rfd


def test_a_second_rfd_with_another_kind_of_change_is_validated_and_published(
    repo_copy: Path, aspell: None
) -> None:
    before = {
        p.relative_to(repo_copy) for p in repo_copy.rglob("*") if "node_modules" not in p.parts
    }
    rfd = _second_rfd(repo_copy)
    after = {
        p.relative_to(repo_copy) for p in repo_copy.rglob("*") if "node_modules" not in p.parts
    }
    added = {p.parts[0] for p in after - before}
    assert added <= {"rfds", "schema"}
    assert (repo_copy / "schema" / "session-labels" / "v1.json").is_file()
    assert not (repo_copy / "schema" / "session-labels" / "v2.json").exists()

    # Every check, spelling included, passes with the new RFD `acp-docs new` started.
    result = run(["acp-docs", "check"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 0, result.stdout + result.stderr

    merged = json.loads(acp(["schema", "merge", "--protocol", "v1"], cwd=repo_copy).stdout)
    assert "SessionLabelsCapabilities" in merged["$defs"]
    assert "PromptSuggestionsCapabilities" in merged["$defs"]
    session = merged["$defs"]["ClientSessionCapabilities"]["properties"]
    assert {"sessionLabels", "promptSuggestions"} <= set(session)
    v2 = json.loads(acp(["schema", "merge", "--protocol", "v2"], cwd=repo_copy).stdout)
    assert "SessionLabelsCapabilities" not in v2["$defs"]

    # The second RFD's example is checked against the merged schema, at its line.
    replace_in(
        rfd, '{ "sessionLabels": { "maxLabels": 3 } }', '{ "sessionLabels": { "maxLabels": "3" } }'
    )
    broken = run(["acp-docs", "check", "--only", "examples"], cwd=repo_copy)
    assert broken.returncode == 1
    (line,) = [ln for ln in broken.stdout.splitlines() if ln]
    assert line.startswith("rfds/session-labels.md:")
    assert (
        "[v1 ClientSessionCapabilities] /sessionLabels/maxLabels: '3' is not of type 'integer'"
        in line
    )
    number = int(line.split(":")[1])
    assert 'title="ClientSessionCapabilities (v1)"' in rfd.read_text().splitlines()[number - 1]


def test_the_reference_and_downloads_list_every_rfd(repo_copy: Path) -> None:
    _second_rfd(repo_copy)
    site = repo_copy / "site"
    result = run(["mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=repo_copy)
    assert result.returncode == 0, result.stderr
    v1 = (site / "schema" / "v1" / "index.html").read_text()
    assert "Session labels</h2>" in v1 or ">Session labels<" in v1
    assert "ClientSessionCapabilities</code>: the <code>sessionLabels</code> field" in v1
    assert "sessionlabelscapabilities" in v1
    v2 = (site / "schema" / "v2" / "index.html").read_text()
    assert "sessionLabels" not in v2
    assert (site / "schema" / "session-labels" / "v1.json").is_file()
    assert "session-labels/v1.json" in (site / "schema" / "index.html").read_text()


def test_two_rfds_that_change_the_same_place_are_refused_naming_both(repo_copy: Path) -> None:
    clash = SECOND_SOURCE.replace("property: sessionLabels", "property: promptSuggestions")
    _plant_source(repo_copy, "session-labels", clash)
    result = acp(["schema", "merge", "--protocol", "v1"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2
    assert "'prompt-suggestions' (schema/prompt-suggestions/source.yaml)" in result.stderr
    assert "'session-labels' (schema/session-labels/source.yaml)" in result.stderr
    assert "$defs/ClientSessionCapabilities/properties/promptSuggestions" in result.stderr
    assert result.stdout == ""
    build = run(
        ["mkdocs", "build", "--strict", "--site-dir", str(repo_copy / "site")], cwd=repo_copy
    )
    assert build.returncode == 1
    assert "both change $defs/ClientSessionCapabilities" in build.stderr


def test_two_rfds_that_add_the_same_variant_are_refused(repo_copy: Path) -> None:
    _plant_source(
        repo_copy,
        "other-suggestions",
        "title: another take\nversions: [v2]\ndefinitions:\n  OtherFields:\n    type: object\n"
        "changes:\n  - op: add-variant\n    union: SessionUpdate\n    tag: prompt_suggestions\n"
        "    fields: OtherFields\n",
    )
    result = acp(["schema", "merge", "--protocol", "v2"], cwd=repo_copy)
    assert result.returncode == 2
    assert "'other-suggestions'" in result.stderr and "'prompt-suggestions'" in result.stderr
    assert "variant 'prompt_suggestions'" in result.stderr


def test_a_json_patch_change_with_a_failing_test_guard_is_refused(repo_copy: Path) -> None:
    folder = _plant_source(
        repo_copy,
        "session-labels",
        "title: guarded\nversions: [v1]\nchanges:\n"
        "  - op: test\n    path: /$defs/SessionNotification/x-method\n    value: session/updated\n"
        "  - op: replace\n    path: /$defs/SessionNotification/description\n    value: new\n",
    )
    result = acp(["schema", "merge", "--protocol", "v1"], cwd=repo_copy)
    assert result.returncode == 2
    assert "schema/session-labels/source.yaml:5:1: test failed" in result.stderr
    replace_in(folder / "source.yaml", "value: session/updated", "value: session/update")
    merged = acp(["schema", "merge", "--protocol", "v1"], cwd=repo_copy)
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout)["$defs"]["SessionNotification"]["description"] == "new"


def test_a_schema_source_without_its_rfd_is_a_finding(repo_copy: Path) -> None:
    _plant_source(repo_copy, "orphan", SECOND_SOURCE)
    assert acp(["schema", "generate"], cwd=repo_copy).returncode == 0
    result = run(["acp-docs", "check", "--only", "schema"], cwd=repo_copy)
    assert result.returncode == 1
    assert (
        "schema/orphan/source.yaml:1:1: no RFD rfds/orphan.md owns this schema source"
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
    assert found.get("acp-docs") == "acp_docs.plugin:AcpDocsPlugin"
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text().replace("!ENV", ""))
    assert "hooks" not in config
    assert "acp-docs" in config["plugins"]


@pytest.mark.parametrize("slug", ["Bad_Slug", "prompt-suggestions", "draft", "a--b"])
def test_new_refuses_bad_or_taken_slugs_and_writes_nothing(repo_copy: Path, slug: str) -> None:
    config = (repo_copy / "mkdocs.yml").read_bytes()
    result = run(
        ["acp-docs", "new", slug, "--title", "A title", "--author", "octocat"], cwd=repo_copy
    )
    no_traceback(result)
    assert result.returncode == 2
    assert slug in result.stderr
    assert (repo_copy / "mkdocs.yml").read_bytes() == config
    assert sorted(p.name for p in (repo_copy / "rfds").iterdir()) == [
        "TEMPLATE.md",
        "prompt-suggestions.md",
    ]


def test_new_lists_the_rfd_under_draft(repo_copy: Path) -> None:
    result = run(
        ["acp-docs", "new", "session-labels", "--title", "Session labels", "--author", "octocat"],
        cwd=repo_copy,
    )
    assert result.returncode == 0, result.stderr
    rfd = (repo_copy / "rfds" / "session-labels.md").read_text()
    assert rfd.startswith('---\ntitle: "Session labels"\nstatus: draft\nauthors:\n  - octocat\n')
    assert "\n# Session labels\n" in rfd
    from acp_docs.repo import Repo

    entries = [e for e in Repo.load(repo_copy).nav() if e.file == "rfds/session-labels.md"]
    assert [(e.sections, e.title) for e in entries] == [(("RFDs", "Draft"), "Session labels")]
