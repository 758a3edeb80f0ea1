"""The schema source, its fragments and the merge, against the real pinned ACP schemas."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from acp_docs.core import protocols
from acp_docs.schema import fragments, merge, source
from acp_docs.schema.merge import MergeRefused

from conftest import ROOT, SDK_SCHEMA, acp, no_traceback, replace_in, run

SOURCE = "schema/prompt-suggestions/source.yaml"
FRAGMENT = "schema/prompt-suggestions/{}.json"


def _update(suggestions: Any = None, **extra: Any) -> dict[str, Any]:
    update: dict[str, Any] = {"sessionUpdate": "prompt_suggestions", **extra}
    if suggestions is not None:
        update["suggestions"] = suggestions
    return update


def _notification(update: dict[str, Any]) -> dict[str, Any]:
    return {"sessionId": "sess_1", "update": update}


VALID = _update([{"text": "Run the tests"}, {"text": "Explain the diff", "_meta": None}])
MALFORMED = {
    "missing suggestions": _update(),
    "non-array suggestions": _update("Run the tests"),
    "entry without text": _update([{}]),
    "empty text": _update([{"text": ""}]),
    "non-string text": _update([{"text": 42}]),
}


@pytest.fixture(scope="module")
def rfd_source() -> source.SchemaSource:
    return source.load(ROOT, ROOT / SOURCE)


@pytest.fixture(scope="module")
def merged(base_schemas, rfd_source) -> dict[str, dict[str, Any]]:
    """Each version's base with the RFD merged in, built once for the module."""
    return {
        name: merge.merge(
            base_schemas[name],
            [fragments.contribution(rfd_source, name)],
            protocols.get(name),
        )
        for name in protocols.NAMES
    }


def _validator(schema: dict[str, Any], name: str) -> Draft202012Validator:
    return Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{name}"})


def _notification_def(version: str) -> str:
    return protocols.get(version).session_notification


def test_v1_base_rejects_a_valid_update_the_merged_schema_accepts(base_schemas, merged) -> None:
    base = _validator(base_schemas["v1"], "SessionNotification")
    after = _validator(merged["v1"], "SessionNotification")
    assert not base.is_valid(_notification(VALID))
    assert after.is_valid(_notification(VALID))
    assert after.is_valid(_notification(_update([])))


@pytest.mark.parametrize("case", sorted(MALFORMED))
@pytest.mark.parametrize("version", protocols.NAMES)
def test_merged_schema_rejects_malformed_updates(merged, version: str, case: str) -> None:
    after = _validator(merged[version], _notification_def(version))
    assert not after.is_valid(_notification(MALFORMED[case]))


def test_v1_merged_schema_rejects_a_misspelt_tag(merged) -> None:
    misspelt = {**VALID, "sessionUpdate": "prompt_suggestion"}
    assert not _validator(merged["v1"], "SessionUpdate").is_valid(misspelt)


def test_v2_base_accepts_even_a_malformed_update_through_the_fallback(base_schemas) -> None:
    # This is why the merge must add the tag to the `other` exclusion list.
    base = _validator(base_schemas["v2"], "UpdateSessionNotification")
    for payload in MALFORMED.values():
        assert base.is_valid(_notification(payload))


def test_v2_merged_schema_accepts_valid_and_unknown_tags_as_other(merged) -> None:
    after = _validator(merged["v2"], "SessionUpdate")
    assert after.is_valid(VALID)
    assert after.is_valid({"sessionUpdate": "some_future_update", "anything": 1})
    assert after.is_valid({"sessionUpdate": "_vendor_thing"})


def test_v2_merge_keeps_other_last_and_excludes_the_tag(merged) -> None:
    branches = merged["v2"]["$defs"]["SessionUpdate"]["anyOf"]
    assert branches[-1]["title"] == "other"
    assert branches[-2]["properties"]["sessionUpdate"]["const"] == "prompt_suggestions"
    assert branches[-2]["allOf"] == [{"$ref": "#/$defs/PromptSuggestions"}]
    excluded = [b["properties"]["sessionUpdate"]["const"] for b in branches[-1]["not"]["anyOf"]]
    assert excluded[-1] == "prompt_suggestions"


@pytest.mark.parametrize(
    ("capability", "valid"),
    [({}, True), (None, True), ("omitted", True), (True, False), ("yes", False), ([], False)],
)
def test_v1_initialize_capability(merged, capability: Any, valid: bool) -> None:
    session: dict[str, Any] = {} if capability == "omitted" else {"promptSuggestions": capability}
    request = {"protocolVersion": 1, "clientCapabilities": {"session": session}}
    assert _validator(merged["v1"], "InitializeRequest").is_valid(request) is valid


@pytest.mark.parametrize(
    ("version", "touched"),
    [("v1", {"SessionUpdate", "ClientSessionCapabilities"}), ("v2", {"SessionUpdate"})],
)
def test_every_other_base_definition_is_untouched(
    base_schemas, merged, rfd_source, version: str, touched: set[str]
) -> None:
    base = base_schemas[version]
    for name, definition in base["$defs"].items():
        if name not in touched:
            assert merged[version]["$defs"][name] == definition, name
        else:
            assert merged[version]["$defs"][name] != definition, name
    added = set(merged[version]["$defs"]) - set(base["$defs"])
    assert added == set(fragments.build(rfd_source, version)["$defs"])
    assert {k: v for k, v in merged[version].items() if k != "$defs"} == {
        k: v for k, v in base.items() if k != "$defs"
    }


def test_the_merge_leaves_its_base_unchanged(base_schemas, rfd_source) -> None:
    base = copy.deepcopy(base_schemas["v2"])
    merge.merge(base, [fragments.contribution(rfd_source, "v2")], protocols.V2)
    assert base == base_schemas["v2"]


def test_merging_an_already_merged_schema_is_refused(merged, rfd_source) -> None:
    for version in protocols.NAMES:
        with pytest.raises(MergeRefused, match="already"):
            merge.merge(
                merged[version],
                [fragments.contribution(rfd_source, version)],
                protocols.get(version),
            )


def test_unrecognised_bases_are_refused_naming_the_change(base_schemas, rfd_source) -> None:
    def refused(version: str, base: dict[str, Any]) -> str:
        with pytest.raises(MergeRefused) as caught:
            merge.merge(base, [fragments.contribution(rfd_source, version)], protocols.get(version))
        return str(caught.value)

    no_other = copy.deepcopy(base_schemas["v2"])
    no_other["$defs"]["SessionUpdate"]["anyOf"].pop()
    assert "`other` fallback" in refused("v2", no_other)
    no_caps = copy.deepcopy(base_schemas["v1"])
    del no_caps["$defs"]["ClientSessionCapabilities"]
    message = refused("v1", no_caps)
    assert message.startswith(f"{SOURCE}:") and "ClientSessionCapabilities" in message
    closed_as_open = copy.deepcopy(base_schemas["v1"])
    update = closed_as_open["$defs"]["SessionUpdate"]
    update["anyOf"] = update.pop("oneOf")
    assert "has no `oneOf` list" in refused("v1", closed_as_open)


def test_committed_fragments_are_what_the_source_generates(rfd_source) -> None:
    for version in protocols.NAMES:
        committed = (ROOT / FRAGMENT.format(version)).read_text()
        assert committed == fragments.render(rfd_source, version)
        data = json.loads(committed)
        assert data["$comment"].startswith(f"Generated by `acp-docs schema generate` from {SOURCE}")
        Draft202012Validator.check_schema(data)
    v1 = json.loads((ROOT / FRAGMENT.format("v1")).read_text())["x-acp-merge"]
    v2 = json.loads((ROOT / FRAGMENT.format("v2")).read_text())["x-acp-merge"]
    assert [c["op"] for c in v1["changes"]] == ["add-variant", "add-capability"]
    assert [c["op"] for c in v2["changes"]] == ["add-variant"]
    assert (
        "PromptSuggestionsCapabilities"
        not in json.loads((ROOT / FRAGMENT.format("v2")).read_text())["$defs"]
    )


def test_source_constructs_pick_per_version_text(rfd_source) -> None:
    v1 = fragments.build(rfd_source, "v1")["$defs"]["PromptSuggestions"]["description"]
    v2 = fragments.build(rfd_source, "v2")["$defs"]["PromptSuggestions"]["description"]
    assert "`session.promptSuggestions` Client capability" in v1
    assert "unknown-update fallback" in v2 and "promptSuggestions" not in v2


def test_schema_check_fails_on_a_hand_edit_and_writes_nothing(repo_copy: Path) -> None:
    fragment = repo_copy / FRAGMENT.format("v2")
    replace_in(fragment, '"minLength": 1', '"minLength": 0')
    edited = fragment.read_bytes()
    result = acp(["schema", "check"], cwd=repo_copy)
    assert result.returncode == 1
    assert result.stdout.startswith(FRAGMENT.format("v2") + ":")
    assert '-          "minLength": 0' in result.stderr
    assert '+          "minLength": 1' in result.stderr
    assert fragment.read_bytes() == edited


def test_the_source_of_the_checkout_in_use_decides_not_the_installed_one(
    repo_copy: Path,
) -> None:
    # Two checkouts share one environment (the editable install points at ROOT).
    replace_in(repo_copy / SOURCE, "Never empty and never", "Never blank and never")
    copy_result = acp(["schema", "check"], cwd=repo_copy)
    assert copy_result.returncode == 1, copy_result.stderr
    assert FRAGMENT.format("v1") in copy_result.stdout
    assert '+          "description": "The suggested prompt' in copy_result.stderr
    assert acp(["schema", "check"], cwd=ROOT).returncode == 0
    assert acp(["schema", "generate"], cwd=repo_copy).returncode == 0
    assert "Never blank and never" in (repo_copy / FRAGMENT.format("v2")).read_text()
    assert "Never blank and never" not in (ROOT / FRAGMENT.format("v2")).read_text()


def test_schema_generate_restores_a_fragment_and_removes_a_stale_one(repo_copy: Path) -> None:
    fragment = repo_copy / FRAGMENT.format("v1")
    fragment.write_text("{}\n")
    stale = repo_copy / FRAGMENT.format("v9")
    stale.write_text("{}\n")
    check = acp(["schema", "check"], cwd=repo_copy)
    assert check.returncode == 1 and "does not target v9" in check.stdout
    assert acp(["schema", "generate"], cwd=repo_copy).returncode == 0
    assert fragment.read_text() == (ROOT / FRAGMENT.format("v1")).read_text()
    assert not stale.exists()
    assert acp(["schema", "check"], cwd=repo_copy).returncode == 0


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("versions: [v1, v2]", "versions: [v1, v9]", "unknown ACP protocol version 'v9'"),
        ("  - op: add-variant\n", "  - op: add-varient\n", "unknown op 'add-varient'"),
        ("    union: SessionUpdate\n", "    union: SessionUpdates\n", "no discriminated union"),
        (
            "      _meta: { $shared: meta }\n    required: [text]",
            "      _meta: { $shared: mta }\n    required: [text]",
            "no shared value 'mta'",
        ),
        (
            "    fields: PromptSuggestions\n",
            "    fields: PromptSugestions\n",
            "names no definition",
        ),
        (
            "        minLength: 1\n",
            '        minLength: "one"\n',
            'not JSON Schema 2020-12: "one" is not of type "integer"',
        ),
    ],
)
def test_a_broken_source_is_a_clear_error_at_its_line(
    repo_copy: Path, old: str, new: str, message: str
) -> None:
    replace_in(repo_copy / SOURCE, old, new)
    line = (repo_copy / SOURCE).read_text().split(new)[0].count("\n") + 1
    result = acp(["schema", "merge", "--protocol", "v1"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2
    assert message in result.stderr
    assert f"{SOURCE}:" in result.stderr
    reported = int(result.stderr.split(f"{SOURCE}:")[1].split(":")[0])
    assert line <= reported <= line + 1
    # The schema check reports it at the same line, before anything else.
    checked = acp(["schema", "check"], cwd=repo_copy)
    assert checked.returncode == 1
    first = checked.stdout.splitlines()[0]
    assert first.startswith(f"{SOURCE}:{reported}:1: "), checked.stdout
    assert message in first
    # So do the commands that check payloads on their own.
    fixture = ROOT / "schema/examples/v2/valid/message.session-update.json"
    validated = acp(["validate", "--protocol", "v2", str(fixture)], cwd=repo_copy)
    assert validated.returncode == 2
    assert f"{SOURCE}:{reported}:1: " in validated.stderr and message in validated.stderr


def test_merge_command_prints_writes_and_refuses(tmp_path: Path) -> None:
    printed = acp(["schema", "merge", "--protocol", "v1"])
    assert printed.returncode == 0
    merged = json.loads(printed.stdout)
    assert "PromptSuggestion" in merged["$defs"]
    assert merged.pop("x-acp-merged")["base"].endswith("schema/v1/schema.unstable.json")
    out = tmp_path / "v1.json"
    base_file = SDK_SCHEMA / "v1" / "schema.unstable.json"
    base_bytes = base_file.read_bytes()
    written = acp(
        [
            *("schema", "merge", "--protocol", "v1"),
            *("--base", str(base_file), "--output", str(out)),
        ]
    )
    assert written.returncode == 0
    from acp_docs.config.repo import Repo
    from acp_docs.rfds.model import schema_sources

    drafts = [
        s.slug
        for s in schema_sources(Repo.load(ROOT))
        if "v1" in s.versions and s.channel == "unstable"
    ]
    assert merged["title"] == f"Agent Client Protocol v1, unstable + RFDs: {', '.join(drafts)}"
    from_file = json.loads(out.read_text())
    assert {k: v for k, v in from_file.items() if not k.startswith(("$comment", "x-"))} == {
        k: v for k, v in merged.items() if k != "$comment"
    }
    assert from_file["x-acp-merged"]["base"] == base_file.as_posix()
    assert from_file["$comment"].startswith(f"Generated by acp-docs from {base_file.as_posix()}")
    assert base_file.read_bytes() == base_bytes
    again = acp(["schema", "merge", "--protocol", "v1", "--base", str(out)])
    assert again.returncode == 2
    assert "already" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    no_traceback(again)


def test_a_draft_goes_into_the_unstable_base_and_a_completed_rfd_into_the_stable_one(
    repo_copy: Path,
) -> None:
    stable = json.loads(acp(["schema", "merge", "--protocol", "v2", "--channel", "stable"]).stdout)
    assert "PromptSuggestion" not in stable["$defs"]
    assert "prompt-suggestions" not in [r["rfd"] for r in stable["x-acp-merged"]["rfds"]]
    unstable = json.loads(acp(["schema", "merge", "--protocol", "v2"]).stdout)
    description = unstable["$defs"]["PromptSuggestion"]["description"]
    assert description.startswith("**UNSTABLE**\n\nThis capability is not part of the spec yet")
    branch = unstable["$defs"]["SessionUpdate"]["anyOf"][-2]
    assert branch["description"].startswith("**UNSTABLE**")

    replace_in(repo_copy / "rfds" / "prompt-suggestions.md", "status: draft", "status: completed")
    assert acp(["schema", "check"], cwd=repo_copy).returncode == 1, "status drives fragments"
    assert acp(["schema", "generate"], cwd=repo_copy).returncode == 0
    fragment = json.loads((repo_copy / FRAGMENT.format("v1")).read_text())
    assert fragment["x-acp-merge"]["base"] == "schema.json"
    assert "UNSTABLE" not in json.dumps(fragment)
    # Other RFDs may still be Drafts (so the default base stays unstable): ask for stable.
    merge_stable = ["schema", "merge", "--protocol", "v1", "--channel", "stable"]
    completed = json.loads(acp(merge_stable, cwd=repo_copy).stdout)
    assert completed["x-acp-merged"]["base"].endswith("schema/v1/schema.json")
    session = completed["$defs"]["ClientSessionCapabilities"]["properties"]
    assert not session["promptSuggestions"]["description"].startswith("**UNSTABLE**")


def test_merge_without_installed_schemas_says_to_run_make_setup(repo_copy: Path) -> None:
    (repo_copy / "node_modules").unlink()
    result = acp(["schema", "merge", "--protocol", "v2"], cwd=repo_copy)
    assert result.returncode == 2
    assert "make setup" in result.stderr
    no_traceback(result)


def test_commands_act_on_the_repository_in_the_current_directory(repo_copy: Path) -> None:
    (repo_copy / FRAGMENT.format("v1")).write_text("{}\n")
    result = acp(["schema", "check"], cwd=repo_copy / "docs" / "schema")
    assert result.returncode == 1, "check ran against another checkout"


@pytest.mark.build
def test_drifted_fragment_is_a_build_warning(repo_copy: Path) -> None:
    replace_in(repo_copy / FRAGMENT.format("v1"), "Never empty and never", "Empty and never")
    result = run(
        ["mkdocs", "build", "--strict", "--site-dir", str(repo_copy / "site")], cwd=repo_copy
    )
    assert result.returncode == 1
    assert f"{FRAGMENT.format('v1')}:" in result.stderr


@pytest.mark.build
def test_site_publishes_fragments_and_merged_schemas(built_site: Path, rfd_source) -> None:
    for version in protocols.NAMES:
        stable = json.loads((built_site / "schema" / version / "schema.json").read_text())
        assert "PromptSuggestions" not in stable["$defs"], "a Draft is not stable"
        assert stable["x-acp-merged"]["base"].startswith("@agentclientprotocol/sdk@")
        unstable = (built_site / "schema" / version / "schema.unstable.json").read_text()
        published = json.loads(unstable)
        assert "PromptSuggestions" in published["$defs"]
        Draft202012Validator.check_schema(published)
        fragment = (built_site / FRAGMENT.format(version)).read_text()
        assert fragment == (ROOT / FRAGMENT.format(version)).read_text()
        page = (built_site / "schema" / version / "index.html").read_text()
        assert 'id="promptsuggestion"' in page
        assert "non-empty string" in page
    downloads = (built_site / "schema" / "index.html").read_text()
    assert 'href="prompt-suggestions/v1.json"' in downloads
    assert 'href="v2/schema.unstable.json">v2 unstable schema</a>' in downloads
    assert "@agentclientprotocol/sdk@" in downloads


def test_kept_downloads_are_the_fresh_merge_and_a_changed_source_is_merged_again(
    repo_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from acp_docs.config.repo import Repo
    from acp_docs.mkdocs import site
    from acp_docs.rfds import files as rfd_files
    from acp_docs.rfds import model as rfds
    from acp_docs.validation.schemaset import SchemaSet

    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(tmp_path / "cache"))

    def made() -> tuple[list, list]:
        repo = Repo.load(repo_copy)
        sources = rfd_files.schema_sources(repo, rfds.load_all(repo))
        schemas = SchemaSet.from_sources(repo_copy, sources)
        return site.merged_downloads(repo_copy, sources, schemas), site.kept_downloads(
            repo_copy, sources, schemas
        )

    fresh, first = made()
    assert first == fresh and len(list((tmp_path / "cache" / "downloads").glob("*.json"))) == 1
    assert made()[1] == fresh, "read back from the cache folder, the same"
    (kept,) = (tmp_path / "cache" / "downloads").glob("*.json")
    kept.write_text(json.dumps([{"path": 3}]), encoding="utf-8")
    assert made()[1] == fresh, "a damaged cache entry is merged again"
    (source,) = list((repo_copy / "schema").glob("*/source.yaml"))[:1]
    text = source.read_text(encoding="utf-8")
    source.write_text(text.replace("description: ", "description: Changed. ", 1), encoding="utf-8")
    changed, kept = made()
    assert kept == changed != fresh, "a changed source is merged again"


def test_a_suggestions_text_pattern_is_ecmascripts_white_space_as_the_wire_check_reads_it(
    tmp_path: Path,
) -> None:
    """The schema refuses a text of white space alone, the wire check too, with the same
    characters, and they are the ones ECMAScript's `trim` removes (what the adapter does)."""
    from acp_docs.prompt_suggestions.wire import WHITE_SPACE, blank
    from acp_docs.schemalib.schemacheck import compiled

    fragment = json.loads((ROOT / "schema" / "prompt-suggestions" / "v1.json").read_text())
    program = compiled(fragment["$defs"]["PromptSuggestion"]["properties"]["text"]["pattern"])
    # Surrogates are no text a JSON string can hold once decoded.
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    refused = {c for c in chars if program.search(c) is None}
    assert refused == set(WHITE_SPACE)
    assert all(blank(c * 3) for c in refused) and not blank(" x ")
    script = (
        "let out=[];for(let c=0;c<0x110000;c++){if(c>=0xD800&&c<=0xDFFF)continue;"
        "if(String.fromCodePoint(c).trim()==='')out.push(c)}console.log(JSON.stringify(out))"
    )
    trimmed = json.loads(run(["node", "-e", script]).stdout)
    assert {chr(c) for c in trimmed} == refused


@pytest.mark.parametrize("version", protocols.NAMES)
def test_the_merged_schema_refuses_a_suggestion_of_white_space_alone(merged, version) -> None:
    validator = _validator(merged[version], "SessionUpdate")
    for text in (" ", "\u00a0\t\n", "\u3000\ufeff"):
        assert not validator.is_valid(_update([{"text": text}]))
    assert validator.is_valid(_update([{"text": " Run it "}]))
