"""The fragments and the merge, against the real pinned ACP schemas."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from acp_docs.schema import fragments, merge
from acp_docs.schema.merge import MergeRefused

from conftest import ROOT, SDK_SCHEMA, no_traceback, replace_in, run


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
NOTIFICATION = {"v1": "SessionNotification", "v2": "UpdateSessionNotification"}


def _validator(schema: dict[str, Any], name: str) -> Draft202012Validator:
    return Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{name}"})


def _merged(protocol: str, base: dict[str, Any]) -> dict[str, Any]:
    return merge.merge(base, fragments.build(protocol), protocol)


def test_v1_base_rejects_a_valid_update_the_merged_schema_accepts(base_schemas) -> None:
    base = _validator(base_schemas["v1"], "SessionNotification")
    merged = _validator(_merged("v1", base_schemas["v1"]), "SessionNotification")
    assert not base.is_valid(_notification(VALID))
    assert merged.is_valid(_notification(VALID))
    assert merged.is_valid(_notification(_update([])))


@pytest.mark.parametrize("case", sorted(MALFORMED))
@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_merged_schema_rejects_malformed_updates(base_schemas, protocol: str, case: str) -> None:
    merged = _validator(_merged(protocol, base_schemas[protocol]), NOTIFICATION[protocol])
    assert not merged.is_valid(_notification(MALFORMED[case]))


def test_v1_merged_schema_rejects_a_misspelt_tag(base_schemas) -> None:
    merged = _validator(_merged("v1", base_schemas["v1"]), "SessionUpdate")
    misspelt = {**VALID, "sessionUpdate": "prompt_suggestion"}
    assert not merged.is_valid(misspelt)


def test_v2_base_accepts_even_a_malformed_update_through_the_fallback(base_schemas) -> None:
    # This is why the merge must add the tag to the `other` exclusion list.
    base = _validator(base_schemas["v2"], "UpdateSessionNotification")
    for payload in MALFORMED.values():
        assert base.is_valid(_notification(payload))


def test_v2_merged_schema_accepts_valid_and_unknown_tags_as_other(base_schemas) -> None:
    merged = _validator(_merged("v2", base_schemas["v2"]), "SessionUpdate")
    assert merged.is_valid(VALID)
    assert merged.is_valid({"sessionUpdate": "some_future_update", "anything": 1})
    assert merged.is_valid({"sessionUpdate": "_vendor_thing"})


def test_v2_merge_keeps_other_last_and_excludes_the_tag(base_schemas) -> None:
    branches = _merged("v2", base_schemas["v2"])["$defs"]["SessionUpdate"]["anyOf"]
    assert branches[-1]["title"] == "other"
    assert branches[-2]["properties"]["sessionUpdate"]["const"] == "prompt_suggestions"
    excluded = [b["properties"]["sessionUpdate"]["const"] for b in branches[-1]["not"]["anyOf"]]
    assert excluded[-1] == "prompt_suggestions"


@pytest.mark.parametrize(
    ("capability", "valid"),
    [({}, True), (None, True), ("omitted", True), (True, False), ("yes", False), ([], False)],
)
def test_v1_initialize_capability(base_schemas, capability: Any, valid: bool) -> None:
    session: dict[str, Any] = {} if capability == "omitted" else {"promptSuggestions": capability}
    request = {"protocolVersion": 1, "clientCapabilities": {"session": session}}
    merged = _validator(_merged("v1", base_schemas["v1"]), "InitializeRequest")
    assert merged.is_valid(request) is valid


@pytest.mark.parametrize("protocol", ["v1", "v2"])
def test_every_other_base_definition_is_untouched(base_schemas, protocol: str) -> None:
    base = base_schemas[protocol]
    pristine = copy.deepcopy(base)
    merged = _merged(protocol, base)
    assert base == pristine, "merge changed its input"
    touched = set(merge.TOUCHED[protocol])
    for name, definition in base["$defs"].items():
        if name not in touched:
            assert merged["$defs"][name] == definition, name
    added = set(merged["$defs"]) - set(base["$defs"])
    assert added == set(fragments.build(protocol)["$defs"])
    assert {k: v for k, v in merged.items() if k != "$defs"} == {
        k: v for k, v in base.items() if k != "$defs"
    }
    Draft202012Validator.check_schema(merged)


def test_merging_an_already_merged_schema_is_refused(base_schemas) -> None:
    for protocol in ("v1", "v2"):
        merged = _merged(protocol, base_schemas[protocol])
        with pytest.raises(MergeRefused, match="already"):
            merge.merge(merged, fragments.build(protocol), protocol)


def test_unrecognised_bases_are_refused(base_schemas) -> None:
    no_other = copy.deepcopy(base_schemas["v2"])
    no_other["$defs"]["SessionUpdate"]["anyOf"].pop()
    with pytest.raises(MergeRefused, match="other"):
        merge.merge(no_other, fragments.build("v2"), "v2")
    no_caps = copy.deepcopy(base_schemas["v1"])
    del no_caps["$defs"]["ClientSessionCapabilities"]
    with pytest.raises(MergeRefused, match="ClientSessionCapabilities"):
        merge.merge(no_caps, fragments.build("v1"), "v1")
    no_update = copy.deepcopy(base_schemas["v1"])
    del no_update["$defs"]["SessionUpdate"]
    with pytest.raises(MergeRefused, match="SessionUpdate"):
        merge.merge(no_update, fragments.build("v1"), "v1")


def test_fragments_are_committed_current_and_deterministic() -> None:
    for protocol in ("v1", "v2"):
        committed = (ROOT / "schema" / protocol / "prompt-suggestions.json").read_text()
        assert committed == fragments.render(protocol) == fragments.render(protocol)
        assert "Generated by `acp-docs schema generate`" in committed
        Draft202012Validator.check_schema(json.loads(committed))


def test_schema_check_fails_on_a_hand_edit_and_writes_nothing(repo_copy: Path) -> None:
    fragment = repo_copy / "schema" / "v2" / "prompt-suggestions.json"
    replace_in(fragment, '"minLength": 1', '"minLength": 0')
    edited = fragment.read_bytes()
    result = run(["acp-docs", "schema", "check"], cwd=repo_copy)
    assert result.returncode == 1
    assert "schema/v2/prompt-suggestions.json" in result.stdout
    assert '-          "minLength": 0' in result.stdout
    assert '+          "minLength": 1' in result.stdout
    assert fragment.read_bytes() == edited
    assert run(["acp-docs", "schema", "check"], cwd=ROOT).returncode == 0


def test_schema_generate_restores_the_fragment(repo_copy: Path) -> None:
    fragment = repo_copy / "schema" / "v1" / "prompt-suggestions.json"
    fragment.write_text("{}\n")
    assert run(["acp-docs", "schema", "generate"], cwd=repo_copy).returncode == 0
    assert fragment.read_text() == (ROOT / "schema" / "v1" / "prompt-suggestions.json").read_text()
    assert run(["acp-docs", "schema", "check"], cwd=repo_copy).returncode == 0


def test_merge_command_prints_writes_and_refuses(tmp_path: Path) -> None:
    printed = run(["acp-docs", "schema", "merge", "--protocol", "v1"])
    assert printed.returncode == 0
    merged = json.loads(printed.stdout)
    assert "PromptSuggestion" in merged["$defs"]
    out = tmp_path / "v1.json"
    base_file = SDK_SCHEMA / "v1" / "schema.json"
    base_bytes = base_file.read_bytes()
    written = run(
        [
            "acp-docs",
            "schema",
            "merge",
            "--protocol",
            "v1",
            "--base",
            str(base_file),
            "--output",
            str(out),
        ]
    )
    assert written.returncode == 0
    assert json.loads(out.read_text()) == merged
    assert base_file.read_bytes() == base_bytes
    again = run(["acp-docs", "schema", "merge", "--protocol", "v1", "--base", str(out)])
    assert again.returncode == 2
    assert "already" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    no_traceback(again)


def test_merge_without_installed_schemas_says_to_run_make_setup(repo_copy: Path) -> None:
    (repo_copy / "node_modules").unlink()
    result = run(["acp-docs", "schema", "merge", "--protocol", "v2"], cwd=repo_copy)
    assert result.returncode == 2
    assert "make setup" in result.stderr
    no_traceback(result)


def test_commands_act_on_the_repository_in_the_current_directory(repo_copy: Path) -> None:
    sub = repo_copy / "docs" / "schema"
    (repo_copy / "schema" / "v1" / "prompt-suggestions.json").write_text("{}\n")
    result = run(["acp-docs", "schema", "check"], cwd=sub)
    assert result.returncode == 1, "check ran against another checkout"


def test_drifted_fragment_is_a_build_warning(repo_copy: Path) -> None:
    replace_in(repo_copy / "schema" / "v1" / "prompt-suggestions.json", "Never empty.", "Empty.")
    result = run(
        ["mkdocs", "build", "--strict", "--site-dir", str(repo_copy / "site")], cwd=repo_copy
    )
    assert result.returncode == 1
    assert "schema/v1/prompt-suggestions.json" in result.stderr


def test_site_publishes_fragments_and_merged_schemas(built_site: Path) -> None:
    for protocol in ("v1", "v2"):
        merged = json.loads((built_site / "schema" / protocol / "schema.json").read_text())
        assert "PromptSuggestionsUpdate" in merged["$defs"]
        fragment = (built_site / "schema" / protocol / "prompt-suggestions.json").read_text()
        assert fragment == fragments.render(protocol)
        page = (built_site / "schema" / protocol / "index.html").read_text()
        assert 'id="promptsuggestion"' in page
        assert "non-empty string" in page
