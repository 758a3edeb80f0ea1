"""Example blocks in Markdown: extraction, declarations, findings, and the strict build."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acp_docs.core import protocols
from acp_docs.markdown.blocks import code_blocks
from acp_docs.validation.examples import check_text
from acp_docs.validation.payloads import check_fixtures, fixture_definition

from conftest import ROOT, acp, replace_in, run

TABBED = """\
# Page

=== "v1"

    ```json title="SessionUpdate (v1)"
    { "sessionUpdate": "prompt_suggestions", "suggestions": [{ "text": "ok" }] }
    ```

=== "v2"

    ```json title="SessionUpdate (v2)"
    { "sessionUpdate": "prompt_suggestions", "suggestions": [{ "text": "" }] }
    ```
"""


def _messages(text: str, schemas, render) -> list[str]:
    findings = check_text(text, "page.md", schemas, render).findings
    return [f"{f.line}:{f.col}: {f.message}" for f in findings]


def test_invalid_payload_inside_a_content_tab_is_reported_at_its_own_line(schemas, render) -> None:
    assert _messages(TABBED, schemas, render) == [
        "12:64: [v2 SessionUpdate] /suggestions/0/text: '' should be non-empty"
    ]


def test_blocks_inside_admonitions_and_nested_tabs_are_found() -> None:
    text = (
        '!!! note "Example"\n\n    === "Tab"\n\n        ```json title="PromptSuggestion (v1)"\n'
        '        { "text": "x" }\n        ```\n'
    )
    (block,) = code_blocks(text)
    assert (block.line, block.col, block.content) == (5, 9, '{ "text": "x" }')
    assert block.title == "PromptSuggestion (v1)"


def test_malformed_json_is_reported_with_its_line_and_column(schemas, render) -> None:
    text = 'Intro\n\n```json title="SessionUpdate (v1)"\n{\n  "sessionUpdate": prompt\n}\n```\n'
    assert _messages(text, schemas, render) == ["5:20: malformed JSON: Expecting value"]


def test_a_duplicate_key_is_reported_at_the_duplicate_not_the_first_copy(schemas, render) -> None:
    text = (
        '# P\n\n```json title="PromptSuggestion (v1)"\n{\n  "text": "a",\n'
        '  "_meta": {},\n  "text": "b"\n}\n```\n'
    )
    assert _messages(text, schemas, render) == [
        "7:3: duplicate key 'text': parsers disagree on which one wins"
    ]


def test_undeclared_block_and_passing_counter_example_are_reported(schemas, render) -> None:
    text = (
        '```json\n{ "a": 1 }\n```\n\n'
        '```json title="Invalid SessionUpdate (v1, v2): not really invalid"\n'
        '{ "sessionUpdate": "prompt_suggestions", "suggestions": [] }\n```\n'
    )
    messages = _messages(text, schemas, render)
    assert messages[0].startswith("1:1: undeclared JSON block")
    assert messages[1].startswith("5:1: [v1 SessionUpdate] counter-example validates")
    assert messages[2].startswith("5:1: [v2 SessionUpdate] counter-example validates")
    assert len(messages) == 3


def test_counter_example_must_say_why_and_titles_must_declare(schemas, render) -> None:
    text = (
        '```json title="Invalid SessionUpdate (v1)"\n{}\n```\n\n'
        '```json title="An example"\n{}\n```\n'
    )
    messages = _messages(text, schemas, render)
    assert "must say why it fails" in messages[0]
    assert "is not a declaration" in messages[1]


def test_unknown_definition_and_unknown_method_are_reported(schemas, render) -> None:
    text = (
        '```json title="SessionUpdat (v1)"\n{}\n```\n\n'
        '```json title="JSON-RPC session/updates (v2)"\n'
        '{ "jsonrpc": "2.0", "method": "session/updates", "params": {} }\n```\n'
    )
    messages = _messages(text, schemas, render)
    assert "unknown definition 'SessionUpdat'" in messages[0]
    assert "no ACP v2 notification has method 'session/updates'" in messages[1]


def test_messages_are_dispatched_by_method_not_the_lax_root(schemas, render) -> None:
    text = (
        '```json title="JSON-RPC session/update (v1)"\n'
        '{"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s",'
        ' "update": {"sessionUpdate": "prompt_suggestions", "suggestions": [{"text": ""}]}}}\n```\n'
    )
    assert _messages(text, schemas, render) == [
        "2:144: [v1 SessionNotification] /params/update/suggestions/0/text: '' should be non-empty"
    ]


def test_not_a_payload_blocks_are_counted_not_checked(schemas, render) -> None:
    report = check_text(
        '```json title="Not a payload: sketch"\n{ ... }\n```\n', "p.md", schemas, render
    )
    assert report.findings == []
    assert report.not_payloads == 1


def test_crlf_and_byte_order_mark_files(schemas, render, tmp_path: Path) -> None:
    from acp_docs.validation.examples import check_files

    path = tmp_path / "page.md"
    path.write_bytes(b"\xef\xbb\xbf" + TABBED.replace("\n", "\r\n").encode())
    report = check_files(tmp_path, [path], schemas, render)
    assert [(f.line, f.col) for f in report.findings] == [(12, 64)]


def test_front_matter_is_skipped_and_lines_stay_the_file_lines(schemas, render) -> None:
    text = '---\ntitle: x\n---\n\n```json title="PromptSuggestion (v1)"\n{"text": 1}\n```\n'
    assert _messages(text, schemas, render) == [
        "6:2: [v1 PromptSuggestion] /text: 1 is not of type 'string'"
    ]


def test_every_repository_example_is_checked_and_clean() -> None:
    result = acp(["examples"])
    assert result.returncode == 0, result.stdout
    assert result.stdout == ""
    summary = result.stderr.strip().splitlines()[-1]
    assert "payload checks v1:" in summary
    counts = {name: int(n) for name, n in re.findall(r"\b(v\d+): (\d+)", summary)}
    assert counts["v1"] >= 10 and counts["v2"] >= 8, summary


def test_examples_command_reports_a_planted_problem(repo_copy: Path) -> None:
    replace_in(
        repo_copy / "rfds" / "prompt-suggestions.md",
        '{ "text": "Add a regression test for the parser fix" }\n          ]\n        }\n'
        '      }\n    }\n    ```\n\n=== "v2"',
        '{ "text": "" }\n          ]\n        }\n      }\n    }\n    ```\n\n=== "v2"',
    )
    result = acp(["examples"], cwd=repo_copy)
    assert result.returncode == 1
    line = next(ln for ln in result.stdout.splitlines() if ln.startswith("rfds/"))
    path, number, col, rest = line.split(":", 3)
    assert path == "rfds/prompt-suggestions.md"
    source = (repo_copy / path).read_text().splitlines()
    # At the member itself, not at the fence: the annotation lands on the bad line.
    assert source[int(number) - 1][int(col) - 1 :].startswith('"text": ""')
    assert (
        "[v1 SessionNotification] /params/update/suggestions/1/text: '' should be non-empty" in rest
    )


def test_examples_command_github_annotations(repo_copy: Path) -> None:
    page = repo_copy / "rfds" / "prompt-suggestions.md"
    replace_in(page, '"suggestions": [{ "text": "Run', '"suggestions": [{ "txt": "Run')
    result = acp(["examples", "rfds"], cwd=repo_copy, env={"GITHUB_ACTIONS": "true"})
    assert result.returncode == 1
    assert "::error file=rfds/prompt-suggestions.md,line=" in result.stdout
    # One mistake, one finding: the required member missing names the misspelt one.
    assert (
        "/suggestions/0: 'text' is a required property; the object has 'txt', which no schema"
        " names here; did you mean 'text'?" in result.stdout
    )
    assert "no property 'txt' here" not in result.stdout


@pytest.mark.build
def test_strict_build_fails_on_a_planted_invalid_example(repo_copy: Path) -> None:
    replace_in(
        repo_copy / "docs" / "protocol" / "prompt-suggestions.md",
        '{ "sessionUpdate": "prompt_suggestions", "suggestions": [] }',
        '{ "sessionUpdate": "prompt_suggestions", "suggestions": {} }',
    )
    result = run(
        ["mkdocs", "build", "--strict", "--site-dir", str(repo_copy / "site")], cwd=repo_copy
    )
    assert result.returncode == 1
    assert "docs/protocol/prompt-suggestions.md:" in result.stderr
    assert "[v1 SessionUpdate] /suggestions: {} is not of type 'array'" in result.stderr


@pytest.mark.parametrize("protocol", protocols.NAMES)
def test_every_fixture_is_classified_as_its_folder_says(schemas, protocol: str) -> None:
    from acp_docs.sources.textfile import load_json

    folder = ROOT / "schema" / "examples" / protocol
    kinds = {
        kind: sorted((folder / kind).glob("*.json")) for kind in ("valid", "lenient", "invalid")
    }
    assert all(len(paths) >= 2 for paths in kinds.values()), kinds
    assert check_fixtures(ROOT, schemas) == []
    for kind, paths in kinds.items():
        for path in paths:
            definition = fixture_definition(path)
            payload = load_json(path)
            outcome = (
                schemas.check_message(protocol, payload)
                if definition is None
                else schemas.check(protocol, definition, payload)
            )
            assert outcome.valid is (kind == "valid"), path.name
            assert outcome.kept is (kind != "invalid"), path.name


def test_a_receiver_drops_annotated_values_and_rejects_the_rest(schemas) -> None:
    def said(payload) -> str:
        outcome = schemas.check("v1", "SessionUpdate", payload)
        return outcome.verdict.say() if outcome.verdict else "valid"

    base = {"sessionUpdate": "prompt_suggestions"}
    good = {"text": "Run it"}
    assert said({**base, "suggestions": [good]}) == "valid"
    # `suggestions` skips no entry: one bad entry, or all, and the update is rejected.
    assert said({**base, "suggestions": [good, {"text": ""}, {}]}) == (
        "a receiver rejects the message"
    )
    assert said({**base, "suggestions": [{"text": ""}]}) == "a receiver rejects the message"
    assert said({**base, "suggestions": [{"text": "a", "_meta": 3}]}) == (
        "a receiver drops /suggestions/0/_meta and keeps the message"
    )
    assert said({**base, "suggestions": [], "_meta": []}) == (
        "a receiver drops /_meta and keeps the message"
    )
    assert said({**base, "suggestions": None}) == "a receiver rejects the message"
    assert said({**base, "suggestions": [], "_meta": [], "extra": 1}) != "valid"
    assert said({**base}) == "a receiver rejects the message"
    request = {"protocolVersion": 1, "clientCapabilities": {"session": {"promptSuggestions": 7}}}
    outcome = schemas.check("v1", "InitializeRequest", request)
    assert outcome.verdict.say() == (
        "a receiver drops /clientCapabilities/session/promptSuggestions and keeps the message"
    )


@pytest.mark.parametrize(
    ("source", "target", "says", "rule"),
    [
        ("lenient/SessionUpdate.meta-not-an-object.json", "valid", "is not of type", "invalid"),
        (
            "lenient/SessionUpdate.meta-not-an-object.json",
            "invalid",
            "move it to lenient/",
            "misfiled",
        ),
        (
            "invalid/SessionUpdate.suggestions-null.json",
            "lenient",
            "move it to invalid/",
            "misfiled",
        ),
    ],
)
def test_a_misfiled_fixture_is_a_finding(
    schemas, repo_copy: Path, source: str, target: str, says: str, rule: str
) -> None:
    folder = repo_copy / "schema" / "examples" / "v2"
    name = source.split("/")[1]
    (folder / target / name).write_bytes((folder / source).read_bytes())
    findings = check_fixtures(repo_copy, schemas)
    assert [f.path for f in findings] == [f"schema/examples/v2/{target}/{name}"]
    assert says in findings[0].message
    # A fixture's finding is the `examples` check's, and so is its rule id.
    assert (findings[0].check, findings[0].rule_id) == ("examples", f"examples/fixture-{rule}")


def test_counter_examples_say_what_a_receiver_does(schemas, render) -> None:
    lenient_as_invalid = (
        '```json title="Invalid SessionUpdate (v1): _meta is an object"\n'
        '{"sessionUpdate": "prompt_suggestions", "suggestions": [], "_meta": 5}\n```\n'
    )
    invalid_as_lenient = (
        '```json title="Lenient SessionUpdate (v1): no list"\n'
        '{"sessionUpdate": "prompt_suggestions", "suggestions": null}\n```\n'
    )
    assert "declare it 'Lenient ...'" in _messages(lenient_as_invalid, schemas, render)[0]
    assert "declare it 'Invalid ...'" in _messages(invalid_as_lenient, schemas, render)[0]
    right = (
        lenient_as_invalid.replace("Invalid", "Lenient")
        + "\n"
        + invalid_as_lenient.replace("Lenient", "Invalid")
    )
    assert _messages(right, schemas, render) == []


@pytest.mark.build
def test_fixtures_are_published_and_listed(built_site: Path) -> None:
    page = (built_site / "schema" / "fixtures" / "index.html").read_text()
    folder = ROOT / "schema" / "examples"
    for fixture in sorted(folder.glob("*/*/*.json")):
        assert fixture.name in page
        assert (built_site / fixture.relative_to(ROOT)).read_bytes() == fixture.read_bytes()


def test_the_plain_renderer_finds_the_blocks_the_site_shows() -> None:
    """`acp-docs examples` renders without highlighting; the blocks are the same ones."""
    from acp_docs.config.repo import Repo
    from acp_docs.markdown.blocks import plain_blocks, rendered_blocks, renderer

    config = Repo.load(ROOT).config
    site, plain = renderer(config), renderer(config, plain_code=True)
    tricky = (
        '<!--\n```json title="Hidden (v1)"\n{}\n```\n-->\n\n    ```json\n    indented\n    ```\n\n'
        '> ```json title="Quoted (v1)"\n> {"a": "<b>&amp;</b>"}\n> ```\n\n'
        '=== "Tab"\n\n    ```JSON title=\'Single "quoted" (v2)\'\n    [1]\n    ```\n\n<!-- unclosed'
    )
    texts = [p.read_text() for p in sorted((ROOT / "docs").rglob("*.md"))]
    texts += [p.read_text() for p in sorted((ROOT / "rfds").glob("*.md"))] + [tricky]
    compared = 0
    for text in texts:
        expected = [b for b in rendered_blocks(site(text)) if b.lang == "json"]
        assert [b for b in plain_blocks(plain(text)) if b.lang == "json"] == expected
        compared += len(expected)
    assert compared > 20
    titles = [b.title for b in plain_blocks(plain(tricky))]
    assert titles == ["Quoted (v1)", 'Single "quoted" (v2)']


def test_an_example_of_another_version_in_a_version_folder_says_where_to_move(
    schemas, render
) -> None:
    folder, only = next(iter(protocols.folders().items()))
    other = next(name for name in protocols.NAMES if name != only)
    text = f'# X\n\n```json title="PromptSuggestion ({other})"\n{{"text": "a"}}\n```\n'
    found = check_text(text, f"rfds/{folder}/x.md", schemas, render).findings
    assert [f.rule for f in found] == ["examples/wrong-version"]
    assert f"move the RFD out of rfds/{folder}/ if it changes {other} too" in found[0].message


def test_a_bad_member_deep_in_a_long_block_is_reported_at_its_own_line(schemas, render) -> None:
    entries = [f'    {{ "text": "Suggestion {n}" }},' for n in range(36)]
    entries[1] = '    { "text": 5 },'  # the fifth line of the block's content
    body = "\n".join([*entries[:-1], entries[-1].rstrip(",")])
    text = (
        '# Page\n\n```json title="SessionUpdate (v1)"\n{\n'
        '  "sessionUpdate": "prompt_suggestions",\n'
        f'  "suggestions": [\n{body}\n  ]\n}}\n```\n'
    )
    lines = text.split("\n")
    bad = next(n for n, line in enumerate(lines, 1) if '"text": 5' in line)
    assert bad == 3 + 5  # the fence is line 3
    (message,) = _messages(text, schemas, render)
    assert message.startswith(f"{bad}:7: [v1 SessionUpdate] /suggestions/1/text: 5 is not")
