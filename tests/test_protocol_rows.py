"""A protocol version is one row of the version table plus its data.

The proof: a fake version one past the newest, made of a row (the newest
row's columns under a new name, with its own base files and RFD folder) and
its data in a checkout the test makes (the SDK's schema files for it). The
schema source with its `$versions`, the checks, the trace and the export all
handle it, with no code changed; and a `$versions` map that gives the new
version no value is reported at its line.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from acp_docs.config.repo import Repo
from acp_docs.core import protocols
from acp_docs.core.protocols import ProtocolVersion

from conftest import ROOT, acp, copy_repo, new_rfd, no_traceback, require_tool

SDK = Path("@agentclientprotocol") / "sdk"


def next_row(table: Any) -> Any:
    """A row one past the newest of `table` (the module `protocols`): its columns, a new name."""
    newest = table.VERSIONS[table.NAMES[-1]]
    name = f"v{max(int(name[1:]) for name in table.NAMES) + 1}"
    return dataclasses.replace(
        newest,
        name=name,
        base_files={
            channel: path.replace(f"/{newest.name}/", f"/{name}/")
            for channel, path in newest.base_files.items()
        },
        rfds_folder=name,
    )


SITECUSTOMIZE = f"""\
import dataclasses
from typing import Any

from acp_docs.core import protocols

{inspect.getsource(next_row)}

row = next_row(protocols)
protocols.VERSIONS = {{**protocols.VERSIONS, row.name: row}}
protocols.NAMES = (*protocols.NAMES, row.name)
"""
"""The same row in a child process (the site build): Python imports `sitecustomize` first."""


@pytest.fixture
def fake_row(monkeypatch: pytest.MonkeyPatch) -> ProtocolVersion:
    """A new row in the version table: the newest version's columns under a new name."""
    row = next_row(protocols)
    monkeypatch.setattr(protocols, "VERSIONS", {**protocols.VERSIONS, row.name: row})
    monkeypatch.setattr(protocols, "NAMES", (*protocols.NAMES, row.name))
    return row


def _with_base_files(repo: Path, row: ProtocolVersion, like: ProtocolVersion) -> None:
    """The row's data: node_modules as installed, plus the SDK's schema files of `row`."""
    (repo / "node_modules").unlink()
    installed = ROOT / "node_modules"
    for entry in installed.iterdir():
        if entry.name != SDK.parts[0]:
            (repo / "node_modules" / entry.name).parent.mkdir(parents=True, exist_ok=True)
            (repo / "node_modules" / entry.name).symlink_to(entry)
    for entry in (installed / SDK.parts[0]).iterdir():
        if entry.name != SDK.parts[1]:
            (repo / "node_modules" / SDK.parts[0] / entry.name).symlink_to(entry)
    package = repo / "node_modules" / SDK
    package.mkdir(parents=True)
    for entry in (installed / SDK).iterdir():
        if entry.name != "schema":
            (package / entry.name).symlink_to(entry)
    for entry in (installed / SDK / "schema").iterdir():
        (package / "schema" / entry.name).parent.mkdir(exist_ok=True)
        (package / "schema" / entry.name).symlink_to(entry)
    for channel, path in row.base_files.items():
        (package / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(installed / SDK / like.base_files[channel], package / path)


@pytest.fixture
def checkout(tmp_path: Path, fake_row: ProtocolVersion) -> Path:
    """A copy of the repository with the fake version's data."""
    repo = copy_repo(tmp_path)
    _with_base_files(repo, fake_row, protocols.VERSIONS[protocols.NAMES[-2]])
    return repo


@pytest.fixture
def child_knows_the_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The site build's child process has the fake row too (through `sitecustomize`)."""
    child = tmp_path / "child"
    child.mkdir()
    (child / "sitecustomize.py").write_text(SITECUSTOMIZE)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(child), os.environ.get("PYTHONPATH", "")])
    )


def _ok(result: Any) -> None:
    no_traceback(result)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_new_row_and_its_schema_files_make_a_version_every_command_knows(
    checkout: Path, fake_row: ProtocolVersion
) -> None:
    name = fake_row.name
    made = new_rfd(checkout, "fake-version-label", "Fake version label", "--schema")
    source = checkout / "schema" / made.slug / "source.yaml"
    text = source.read_text()
    assert f"versions: [{', '.join(protocols.NAMES)}]" in text
    assert f"            {name}: >-" in text  # its own value in the example's `$versions`

    # The schema source generates a fragment for the new version, and the check passes.
    assert (checkout / "schema" / made.slug / f"{name}.json").is_file()
    _ok(acp(["schema", "check"], cwd=checkout))

    # The merged schema of the new version holds the RFD's definitions.
    merged = acp(["schema", "merge", "--protocol", name], cwd=checkout)
    _ok(merged)
    request = next(n for n in json.loads(merged.stdout)["$defs"] if n.endswith("LabelRequest"))

    # Examples declared for the new version are checked against it.
    page = checkout / "docs" / "fake-version-examples.md"
    page.write_text(
        f'```json title="{request} ({name})"\n{{"sessionId": "s", "label": "Work"}}\n```\n\n'
        f'```json title="{request} ({name})"\n{{"sessionId": "s", "label": 7}}\n```\n'
    )
    examples = acp(["examples", str(page), "--format", "json"], cwd=checkout)
    no_traceback(examples)
    assert examples.returncode == 1, examples.stderr
    found = json.loads(examples.stdout)["findings"]
    second = page.read_text().split("\n").index(f'```json title="{request} ({name})"', 1) + 1
    # At the bad member, on the line after the fence.
    assert [(f["line"], f["rule"]) for f in found] == [(second + 1, "examples/invalid-payload")]
    assert found[0]["message"].startswith(f"[{name} {request}]"), found[0]["message"]
    assert f"{name}: 2" in examples.stderr


@pytest.mark.build
def test_the_whole_check_runs_with_the_new_version(
    checkout: Path, fake_row: ProtocolVersion, child_knows_the_row: None
) -> None:
    made = new_rfd(checkout, "fake-version-check", "Fake version check", "--schema")
    _ok(acp(["check", "--only", "schema", "examples", "rfds", "files"], cwd=checkout))

    # An example of the RFD declared for the new version alone is checked in the build.
    merged = json.loads(acp(["schema", "merge", "--protocol", fake_row.name], cwd=checkout).stdout)
    request = next(n for n in merged["$defs"] if n.endswith("CheckRequest"))
    rfd = checkout / made.shown
    before = rfd.read_text()
    block = f'```json title="{request} ({fake_row.name})"\n{{"sessionId": "s", "label": 7}}\n```\n'
    rfd.write_text(before + "\n" + block)
    fence = len((before + "\n").split("\n"))
    result = acp(["check", "--only", "examples", "--format", "json"], cwd=checkout)
    no_traceback(result)
    assert result.returncode == 1, result.stderr
    found = json.loads(result.stdout)["findings"]
    assert [(f["path"], f["line"], f["rule"]) for f in found] == [
        (made.shown, fence + 1, "examples/invalid-payload")  # the member's line
    ], found
    assert found[0]["message"].startswith(f"[{fake_row.name} {request}]"), found[0]["message"]


@pytest.mark.build
def test_an_rfd_of_the_new_version_alone_lives_in_its_folder_and_nav_group(
    checkout: Path, fake_row: ProtocolVersion, child_knows_the_row: None
) -> None:
    made = new_rfd(
        checkout, "fake-version-alone", "Fake version alone", "--protocol", fake_row.name
    )
    assert made.shown == f"rfds/{fake_row.rfds_folder}/{made.slug}.md"
    placed = [e.sections for e in Repo.load(checkout).nav() if e.file == made.shown]
    assert placed == [("RFDs", "Draft", fake_row.rfds_folder)]
    _ok(acp(["check", "--only", "rfds", "links"], cwd=checkout))

    # Listed under another group, the RFD of the folder is told where it belongs.
    config = checkout / "mkdocs.yml"
    text = config.read_text()
    config.write_text(text.replace(f"- {fake_row.rfds_folder}:", "- elsewhere:", 1))
    result = acp(["check", "--only", "rfds", "--format", "json"], cwd=checkout)
    no_traceback(result)
    found = [f for f in json.loads(result.stdout)["findings"] if f["rule"] != "rfds/placeholder"]
    assert [f["rule"] for f in found] == ["rfds/nav-group"], found
    assert f"RFDs > Draft > {fake_row.rfds_folder}" in found[0]["message"]


def test_a_versions_map_without_the_new_version_is_an_error_at_its_line(
    checkout: Path, fake_row: ProtocolVersion
) -> None:
    made = new_rfd(checkout, "fake-version-gap", "Fake version gap", "--schema")
    source = checkout / "schema" / made.slug / "source.yaml"
    lines = source.read_text().split("\n")
    own = next(i for i, line in enumerate(lines) if line == f"            {fake_row.name}: >-")
    end = own + 1
    while end < len(lines) and lines[end].startswith(" " * 14):
        end += 1
    source.write_text("\n".join(lines[:own] + lines[end:]))
    map_line = max(i for i in range(own) if lines[i].strip() == "- $versions:") + 1

    result = acp(["schema", "check"], cwd=checkout)
    no_traceback(result)
    assert result.returncode == 1
    shown = f"schema/{made.slug}/source.yaml"
    assert f"{shown}:{map_line}:" in result.stdout, result.stdout
    assert f"no value for ACP {fake_row.name}, which the source targets" in result.stdout

    # `$omit` leaves the item out of that version alone: no error, the other versions keep it.
    omitted = [*lines[:own], f"            {fake_row.name}: $omit", *lines[end:]]
    source.write_text("\n".join(omitted))
    _ok(acp(["schema", "generate"], cwd=checkout))
    _ok(acp(["schema", "check"], cwd=checkout))
    note = " ".join(line.strip() for line in lines[own + 1 : end])
    newest = protocols.NAMES[-2]
    assert note in _strings(json.loads((source.parent / f"{newest}.json").read_text()))
    assert note not in _strings(json.loads((source.parent / f"{fake_row.name}.json").read_text()))


def _strings(value: Any) -> str:
    """Every string in a JSON value, one a line."""
    if isinstance(value, dict):
        return "\n".join(_strings(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_strings(v) for v in value)
    return value if isinstance(value, str) else ""


def _wrapped(direction: str, message: dict[str, Any]) -> str:
    return json.dumps({"direction": direction, "message": {"jsonrpc": "2.0", **message}})


def test_a_trace_of_the_new_version_runs_the_rules_its_row_selects(
    checkout: Path, fake_row: ProtocolVersion, tmp_path: Path
) -> None:
    from acp_docs.config.repo import Repo
    from acp_docs.requirements.rules import rules as judged_rules
    from acp_docs.rfds.files import requirement_sets

    # The RFD says its requirements of the newest version hold in the new one too.
    newest = protocols.NAMES[-2]
    for path in (checkout / "schema").glob("*/requirements.yaml"):
        text = path.read_text()
        path.write_text(
            re.sub(rf"(versions: \[[^\]]*\b{newest})\]", rf"\1, {fake_row.name}]", text)
        )
    every = judged_rules(requirement_sets(Repo.load(checkout)))
    selected = [r.id for r in every if r.applies(fake_row)]
    assert selected and all(fake_row.name in r.versions for r in every if r.id in selected)
    assert "prompt-suggestions/while-idle" in selected
    prompt = {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]}
    update = {
        "sessionId": "s",
        "update": {"sessionUpdate": "prompt_suggestions", "suggestions": [{"text": "Next"}]},
    }
    trace = tmp_path / "fake.jsonl"
    trace.write_text(
        "\n".join(
            [
                _wrapped(
                    "client-to-agent", {"id": 1, "method": "session/prompt", "params": prompt}
                ),
                _wrapped("agent-to-client", {"method": "session/update", "params": update}),
            ]
        )
        + "\n"
    )
    result = acp(
        ["trace", "--protocol", fake_row.name, str(trace), "--format", "json"], cwd=checkout
    )
    no_traceback(result)
    rules = [f["rule"] for f in json.loads(result.stdout)["findings"]]
    assert "prompt-suggestions/while-idle" in rules, result.stdout
    assert "prompt-suggestions/after-response" not in selected + rules
    held = [rule for rule in every if rule.applies(fake_row)]
    assert f"against the {len(held)} requirement(s) judged on the wire in ACP {fake_row.name}:" in (
        result.stderr
    )
    assert len(held) < len(every)  # one holds only where a turn ends in its response


def test_an_rfd_of_the_new_version_alone_exports_to_its_folder(
    checkout: Path, fake_row: ProtocolVersion, tmp_path: Path
) -> None:
    require_tool("node", "Node.js")
    made = new_rfd(checkout, "fake-version-export", "Fake version export", "--schema")
    source = checkout / "schema" / made.slug / "source.yaml"
    text = source.read_text()
    source.write_text(
        re.sub(r"(?m)^versions: \[.*\]$", f"versions: [{fake_row.name}]", text, count=1)
    )
    _ok(acp(["schema", "generate"], cwd=checkout))
    upstream = tmp_path / "upstream"
    (upstream / "docs").mkdir(parents=True)
    docs = {
        "navigation": {
            "tabs": [
                {
                    "tab": "RFDs",
                    "pages": [
                        {"group": "Draft", "pages": [{"group": fake_row.rfds_folder, "pages": []}]}
                    ],
                }
            ]
        }
    }
    (upstream / "docs" / "docs.json").write_text(json.dumps(docs, indent=2) + "\n")

    result = acp(
        ["export", "upstream", str(upstream), "--rfd", made.slug],
        cwd=checkout,
        env={"ACP_DOCS_SITE_URL": "https://example.org/rfds/"},
    )
    _ok(result)
    page = f"rfds/{fake_row.rfds_folder}/{made.slug}"
    assert (upstream / "docs" / f"{page}.mdx").is_file(), result.stderr
    nav = json.loads((upstream / "docs" / "docs.json").read_text())
    draft = nav["navigation"]["tabs"][0]["pages"][0]
    assert draft["pages"] == [{"group": fake_row.rfds_folder, "pages": [page]}]


def test_omit_is_only_a_value_of_a_version_in_a_versions_map() -> None:
    from acp_docs.schema import source

    first, last = protocols.NAMES[0], protocols.NAMES[-1]
    text = (
        f"title: omit misplaced\nversions: [{first}, {last}]\n"
        "definitions:\n  ZzOmitted:\n    type: object\n    description: $omit\nchanges: []\n"
    )
    made = source.from_text(ROOT, ROOT / "schema" / "zz-omit" / "source.yaml", text)
    assert [(p.line, p.reason) for p in made.problems] == [
        (6, "`$omit` is only the value of a version in a `$versions` map")
    ]
