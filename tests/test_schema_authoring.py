"""Writing a schema change: each mistake is a finding at its line that says how to fix it.

A source's own problem is reported first and keeps only that source out of the
merge; every key of source.yaml is documented with its error; members no
schema names and methods no message has are reported with their fix; message
types must be reachable; and the worked example source generates, merges and
validates as it is.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from acp_docs.authoring import schema_example as scaffold
from acp_docs.checks import registry
from acp_docs.core import protocols
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import CheckResult, Finding
from acp_docs.reporters import Report
from acp_docs.reporters import page as page_report
from acp_docs.reporters import text as text_report
from acp_docs.schema import changes, fragments, messages, source
from acp_docs.validation.examples import check_text
from acp_docs.validation.payloads import check_fixtures

from conftest import ROOT, SDK_SCHEMA, acp, no_traceback, replace_in, run

ENGINE_DOC = ROOT / "docs" / "tooling" / "engine.md"
OTHER_SOURCE = "schema/prompt-suggestions/source.yaml"
SLUG = "zz-session-label"
"""A name no RFD of the repository has: the RFD each test adds with `acp-docs new`."""


def _new_rfd(repo: Path, slug: str = SLUG, blocks: str = "") -> Path:
    made = acp(["new", slug, "--title", "Session label", "--author", "octocat"], cwd=repo)
    assert made.returncode == 0, made.stderr
    rfd = repo / "rfds" / f"{slug}.md"
    if blocks:
        replace_in(rfd, "## Shiny future\n", blocks.lstrip("\n") + "\n## Shiny future\n")
    return rfd


def _plant(repo: Path, text: str, slug: str = SLUG) -> Path:
    path = repo / "schema" / slug / "source.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _line_of(text: str, needle: str) -> int:
    return text.split(needle)[0].count("\n") + 1


def _lines(result) -> list[str]:
    return [line for line in result.stdout.splitlines() if line]


# 1. A source's problem: at its line, only that source left out, reported first.

NO_CHANGES = """\
title: session label
versions: [v1, v2]
definitions:
  ZzLabel:
    description: A label.
    type: object
    properties:
      text: { type: string }
    required: [text]
"""

LABEL_EXAMPLE = """
```json title="ZzLabel (v1, v2)"
{ "text": "urgent" }
```
"""


@pytest.mark.build
def test_a_source_without_changes_is_reported_first_and_leaves_other_rfds_merged(
    repo_copy: Path,
) -> None:
    _new_rfd(repo_copy, blocks=LABEL_EXAMPLE)
    _plant(repo_copy, NO_CHANGES)
    shown = f"schema/{SLUG}/source.yaml"
    expected = (
        f"{shown}:1:1: error: missing required key `changes`: the changes to published definitions"
    )

    result = acp(["check", "--only", "schema", "examples", "--min-level", "note"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 1
    lines = _lines(result)
    assert lines[0].startswith(expected), lines
    # What it causes elsewhere comes after it, and only in its own RFD: prompt-suggestions'
    # change is merged, so its examples and fixtures still pass.
    assert lines[1:] and all(line.startswith(f"rfds/{SLUG}.md:") for line in lines[1:]), lines
    # And there it is one note, not an error for each example the source would have judged.
    assert lines[1:] == [lines[1]] and ": note: 2 example problem(s) here not reported" in lines[1]

    checked = acp(["schema", "check"], cwd=repo_copy)
    assert checked.returncode == 1
    assert _lines(checked) == [next(line for line in lines if line.startswith(shown))], (
        checked.stdout
    )

    before = (repo_copy / "schema" / "prompt-suggestions" / "v1.json").read_bytes()
    generated = acp(["schema", "generate"], cwd=repo_copy)
    assert generated.returncode == 2
    assert expected.replace(" error:", "", 1) in generated.stderr
    assert not (repo_copy / "schema" / SLUG / "v1.json").exists()
    assert (repo_copy / "schema" / "prompt-suggestions" / "v1.json").read_bytes() == before

    # Commands that check payloads on their own stop at the cause, before any payload.
    example = repo_copy / "schema" / "examples" / "v1" / "valid" / "SessionUpdate.empty-list.json"
    validated = acp(
        ["validate", "--protocol", "v1", "--def", "SessionUpdate", str(example)], cwd=repo_copy
    )
    assert validated.returncode == 2
    assert expected.replace(" error:", "", 1) in validated.stderr


@pytest.mark.build
def test_the_strict_build_reports_the_source_before_the_examples_it_breaks(
    repo_copy: Path,
) -> None:
    _new_rfd(repo_copy, blocks=LABEL_EXAMPLE)
    _plant(repo_copy, NO_CHANGES)
    result = run(
        ["mkdocs", "build", "--strict", "--site-dir", str(repo_copy / "site")], cwd=repo_copy
    )
    assert result.returncode == 1
    warnings = [line for line in result.stderr.splitlines() if "WARNING" in line]
    assert f"schema/{SLUG}/source.yaml:1:1: error: missing required key `changes`" in warnings[0]
    assert not any("prompt-suggestions" in line for line in warnings), warnings


def test_findings_of_the_schema_check_sort_first_everywhere() -> None:
    cause = Finding("schema/x/source.yaml", 9, 1, "schema", "missing", "schema/source")
    effects = [
        Finding("docs/a.md", 1, 1, "examples", "unknown definition", "examples/x"),
        Finding("rfds/x.md", 3, 1, "examples", "unknown definition", "examples/x"),
        Finding("mkdocs.yml", 1, 1, "links", "broken", "links/x"),
    ]
    assert sorted([*effects, cause])[0] != cause, "a finding sorts by its own fields"
    results = [CheckResult("schema", (cause,), 0.0, cause=True)]
    rendered = text_report.render(Report("check", [*effects, cause], results))
    assert rendered.startswith("schema/x/source.yaml:9:1: error: missing [schema/source]\n")
    many = [Finding("docs/a.md", n, 1, "examples", "bad", "examples/x") for n in range(1, 30)]
    checks = registry.load_checks()
    banner = page_report.annotate("<p>page</p>", "page", [], [*many, cause], {}, checks)
    assert banner.index("schema/x/source.yaml") < banner.index("docs/a.md")
    assert " open>" in banner, "a long list that starts with a cause stays open"


# 2. Every key of source.yaml: documented, enforced, each error at its line.

BASE = """\
title: zz example
versions: [v1, v2]
shared:
  note: A note.
definitions:
  ZzThing:
    description: { $shared: note }
    type: object
    properties:
      text: { type: string }
changes:
  - op: add-property
    definition: SessionInfoUpdate
    property: zzNote
    schema: { type: string }
"""

# (old, new, the text on the reported line (None: line 1), the message, what engine.md says)
MISTAKES = [
    (
        "title: zz example\n",
        "",
        None,
        "missing required key `title`",
        "missing required key `title`",
    ),
    (
        "versions: [v1, v2]\n",
        "",
        None,
        "missing required key `versions`",
        "missing required key `versions`",
    ),
    (
        BASE[BASE.index("changes:") :],
        "",
        None,
        "missing required key `changes`",
        "missing required key `changes`",
    ),
    (
        "title: zz example",
        'title: ""',
        'title: ""',
        "`title` must be a non-empty string",
        "`title` must be a non-empty string",
    ),
    (
        "[v1, v2]",
        "v1",
        "versions: v1",
        "`versions` must be a non-empty list such as [v1, v2]",
        "`versions` must be a non-empty list such as [v1, v2]",
    ),
    (
        "[v1, v2]",
        "[v1, v9]",
        "versions:",
        "unknown ACP protocol version 'v9'",
        "unknown ACP protocol version 'v9'",
    ),
    ("shared:\n", "extra: 1\nshared:\n", "extra: 1", "unknown key 'extra'", "unknown key 'foo'"),
    (
        "shared:\n  note: A note.\n",
        "shared: 3\n",
        "shared: 3",
        "`shared` must be a mapping",
        "`shared` must be a mapping of names",
    ),
    (
        "  ZzThing:",
        "  zzThing:",
        "zzThing:",
        "definition name 'zzThing' is not PascalCase",
        "is not PascalCase",
    ),
    (
        "definitions:\n",
        "definitions:\n  ZzOther: 3\n",
        "ZzOther: 3",
        "definition `ZzOther` must be a JSON Schema object",
        "must be a JSON Schema object (a mapping)",
    ),
    (
        BASE[BASE.index("  - op") :],
        "  3\n",
        "changes:",
        "`changes` must be a list of changes",
        "`changes` must be a list of changes",
    ),
    (
        "  - op: add-property\n",
        "  - \n",
        "definition: SessionInfoUpdate",
        "missing its required key `op`",
        "a change is missing its required key `op`",
    ),
    (
        "op: add-property",
        "op: add-propery",
        "op: add-propery",
        "unknown op 'add-propery'",
        "unknown op '",
    ),
    (
        "    property: zzNote\n",
        "",
        "op: add-property",
        "`add-property` change is missing required key `property`",
        "change is missing required key",
    ),
    (
        "    property: zzNote\n",
        "    property: zzNote\n    tag: x\n",
        "tag: x",
        "does not take `tag`",
        "does not take",
    ),
    (
        "property: zzNote",
        "property: 3",
        "property: 3",
        "`property` must be a string",
        "must be a string",
    ),
    (
        "schema: { type: string }",
        "schema: 3",
        "schema: 3",
        "`schema` must be a JSON Schema object (a mapping)",
        "`schema` must be a JSON Schema object (a mapping)",
    ),
    (
        "$shared: note",
        "$shared: nope",
        "$shared: nope",
        "no shared value 'nope' (shared: note)",
        "no shared value '",
    ),
    (
        "{ $shared: note }",
        "{ $join: 3 }",
        "$join: 3",
        "`$join` takes a list of strings",
        "`$join` takes a list of strings",
    ),
    (
        "{ $shared: note }",
        "{ $versions: 3 }",
        "$versions: 3",
        "`$versions` maps version names",
        "`$versions` maps version names",
    ),
    (
        "{ $shared: note }",
        "{ $shared: note, x: 1 }",
        "$shared: note, x: 1",
        "`$shared` must be the only key of its mapping",
        "must be the only key of its mapping",
    ),
    (
        "  - op: add-property\n    definition: SessionInfoUpdate\n    property: zzNote\n"
        "    schema: { type: string }\n",
        "  - op: remove\n    path: /properties/x\n",
        "path: /properties/x",
        "JSON Patch paths must point under /$defs/",
        "JSON Patch paths must point under /$defs/",
    ),
    (
        "  - op: add-property\n    definition: SessionInfoUpdate\n    property: zzNote\n"
        "    schema: { type: string }\n",
        "  - op: add-variant\n    union: SessionUpdates\n    tag: zz\n    fields: ZzThing\n",
        "union: SessionUpdates",
        "`union: SessionUpdates` names no discriminated union of ACP v1 and v2",
        "names no discriminated union of ACP",
    ),
    (
        "  - op: add-property\n    definition: SessionInfoUpdate\n    property: zzNote\n"
        "    schema: { type: string }\n",
        "  - op: add-capability\n    scope: session\n    property: zz\n    schema: {}\n",
        "scope: session",
        "`scope: 'session'` names no Client capability scope of ACP v2",
        "names no Client capability scope of ACP",
    ),
    (
        "  - op: add-property\n    definition: SessionInfoUpdate\n    property: zzNote\n"
        "    schema: { type: string }\n",
        "  - op: add-message\n    union: ClientRequests\n    definition: ZzThing\n",
        "union: ClientRequests",
        "`union: ClientRequests` names no message union",
        "names no message union",
    ),
]


def test_the_base_of_the_mistakes_is_a_usable_source() -> None:
    made = source.from_text(ROOT, ROOT / "schema" / "zz" / "source.yaml", BASE)
    assert made.problems == () and made.versions == ("v1", "v2")


@pytest.mark.parametrize(
    ("old", "new", "on_line", "message", "said"), MISTAKES, ids=[m[3][:40] for m in MISTAKES]
)
def test_each_mistake_is_an_error_at_its_line_as_the_docs_say(
    old: str, new: str, on_line: str | None, message: str, said: str
) -> None:
    assert old in BASE
    text = BASE.replace(old, new, 1)
    made = source.from_text(ROOT, ROOT / "schema" / "zz" / "source.yaml", text)
    assert made.versions == (), "a source with a problem is merged nowhere"
    first = made.problems[0]
    assert message in first.reason, [p.reason for p in made.problems]
    assert first.path == "schema/zz/source.yaml"
    assert first.line == (1 if on_line is None else _line_of(text, on_line))
    with pytest.raises(UsageError, match=re.escape(message)):
        fragments.contribution(made, "v1")
    assert said in ENGINE_DOC.read_text(encoding="utf-8").replace("\n", " "), said


def _table(doc: str, heading: str) -> list[list[str]]:
    section = doc[doc.index(heading) :]
    rows = []
    for line in section.splitlines()[1:]:
        if line.startswith("#"):
            break
        if line.startswith("| ") and not line.startswith("| ---"):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_the_docs_list_every_key_and_op_with_what_the_code_requires() -> None:
    doc = ENGINE_DOC.read_text(encoding="utf-8")
    keys = {row[0].strip("`"): row[1] for row in _table(doc, "### Every key of")[1:]}
    for key in source.TOP_LEVEL:
        assert keys[key] == ("yes" if key in source.REQUIRED else "no"), key
    ops = _table(doc, "### The changes")[1:]
    documented = {}
    for row in ops:
        for op in re.findall(r"`([a-z-]+)`", row[0]):
            documented[op] = (set(re.findall(r"`([a-z]+)`", row[1])), row[2])
    assert set(documented) == set(changes.SPECS)
    for op, (required, optional) in changes.SPECS.items():
        keys_said, optional_said = documented[op]
        assert set(required) <= keys_said, op
        assert all(f"`{key}`" in optional_said for key in optional), op
    for construct in ("$versions", "$shared", "$join"):
        assert f"{{ {construct}:" in doc


# 3. Members no schema names.


def _findings(text: str, schemas, render, path: str = "page.md") -> list[Finding]:
    return check_text(text, path, schemas, render).findings


def test_a_member_no_schema_names_is_reported_with_the_names_it_may_mean(schemas, render) -> None:
    text = (
        "# Page\n\n"
        '```json title="SessionUpdate (v2)"\n'
        '{ "sessionUpdate": "session_info_update", "name": "Renamed" }\n```\n\n'
        '```json title="JSON-RPC session/prompt (v2)"\n'
        '{ "jsonrpc": "2.0", "id": 1, "method": "session/prompt", "parms": {},'
        ' "params": { "sessionID": "s", "sessionId": "s",'
        ' "prompt": [{ "type": "text", "text": "Hi" }] } }\n```\n'
    )
    found = _findings(text, schemas, render)
    assert [(f.line, f.rule, f.message) for f in found] == [
        (
            4,
            "examples/unknown-property",
            "[v2 SessionUpdate] /name: no property 'name' here (known: sessionUpdate, title,"
            " updatedAt)",
        ),
        (
            8,
            "examples/unknown-property",
            "[v2 PromptRequest] /parms: no property 'parms' here; did you mean 'params'?",
        ),
        (
            8,
            "examples/unknown-property",
            "[v2 PromptRequest] /params/sessionID: no property 'sessionID' here; did you mean"
            " 'sessionId'?",
        ),
    ]


@pytest.mark.parametrize(
    ("version", "name", "payload"),
    [
        # `_meta` and everything in it is free.
        ("v2", "SessionUpdate", {"sessionUpdate": "session_info_update", "_meta": {"x": 1}}),
        # The fallback of an open union holds an update this version does not know.
        ("v2", "SessionUpdate", {"sessionUpdate": "future_update", "anything": 1}),
        # A map: `additionalProperties` says what its members hold.
        ("v2", "SetProviderRequest", {"headers": {"X-Anything": "1"}}),
        # A misspelt tag matches no branch: the members of every branch are known.
        ("v1", "SessionUpdate", {"sessionUpdate": "prompt_suggestion", "suggestions": []}),
    ],
)
def test_what_the_rule_leaves_alone(schemas, version: str, name: str, payload) -> None:
    assert schemas.unknown(version, name, payload) == ()


def test_a_fixture_and_validate_report_unknown_members_too(repo_copy: Path) -> None:
    from acp_docs.validation.schemaset import SchemaSet

    fixture = repo_copy / "schema" / "examples" / "v2" / "valid" / "SessionUpdate.zz-typo.json"
    fixture.write_text('{ "sessionUpdate": "session_info_update", "titel": "x" }\n')
    found = [
        f for f in check_fixtures(repo_copy, SchemaSet.from_repo(repo_copy)) if "zz-typo" in f.path
    ]
    assert [(f.line, f.check, f.rule, f.message) for f in found] == [
        (
            1,
            "examples",
            "examples/fixture-unknown-property",
            "[v2 SessionUpdate] /titel: no property 'titel' here; did you mean 'title'?",
        )
    ]
    result = acp(
        ["validate", "--protocol", "v2", "--def", "SessionUpdate", str(fixture)], cwd=repo_copy
    )
    assert result.returncode == 0, result.stdout
    assert (
        "warning: [v2 SessionUpdate] /titel: no property 'titel' here; did you mean 'title'?"
        " (a receiver ignores it and keeps the message)" in result.stdout
    )


# 4. A method no message has: where to define it.


def _rename(version: str = "v2") -> str:
    return (
        f'```json title="JSON-RPC session/rename ({version})"\n'
        '{ "jsonrpc": "2.0", "id": 1, "method": "session/rename", "params": {} }\n```\n'
    )


@pytest.mark.parametrize(
    ("path", "fix"),
    [
        (
            "rfds/prompt-suggestions.md",
            "define it in schema/prompt-suggestions/source.yaml: a ...Request",
        ),
        (
            f"rfds/{SLUG}.md",
            f"add the method to a schema source: create schema/{SLUG}/source.yaml with a",
        ),
        (
            "docs/protocol/x.md",
            "add the method to a schema source, schema/<slug>/source.yaml: a ...Request",
        ),
    ],
)
def test_an_unknown_method_says_where_to_define_it(schemas, render, path: str, fix: str) -> None:
    (found,) = _findings(_rename(), schemas, render, path)
    assert found.rule == "examples/dispatch"
    assert found.message.startswith(
        f"[v2 JSON-RPC] no ACP v2 request has method 'session/rename': {fix}"
    )
    assert "`x-method: session/rename`" in found.message
    assert "ClientRequest (x-side: agent) or AgentRequest (x-side: client)" in found.message


def test_a_method_of_the_other_kind_says_so(schemas, render) -> None:
    text = (
        '```json title="JSON-RPC session/update (v2)"\n'
        '{ "jsonrpc": "2.0", "id": 3, "method": "session/update", "params": {} }\n```\n'
    )
    (found,) = _findings(text, schemas, render)
    assert found.message == (
        "[v2 JSON-RPC] no ACP v2 request has method 'session/update': it is the method of a"
        " notification, so remove its `id`"
    )


# 5. Message types: `x-method`, `x-side` and their union.


def _example(slug: str = SLUG) -> str:
    return scaffold.example_source(slug, "Session label", list(protocols.NAMES))


NAMES = scaffold.names_of("zz-session-label")
REQUEST = NAMES["request"]
RESPONSE = NAMES["response"]


@pytest.mark.parametrize(
    ("old", "new", "definition", "message"),
    [
        (
            "    required: [sessionId, label]\n    x-side: agent\n",
            "    required: [sessionId, label]\n",
            REQUEST,
            f"`{REQUEST}` is named like a request, so it needs `x-side`",
        ),
        (
            f"  - op: add-message\n    union: AgentResponse\n    definition: {RESPONSE}\n",
            "",
            RESPONSE,
            f"`{RESPONSE}` is in no message union, so no JSON-RPC message reaches it: add the"
            f" change `{{op: add-message, union: AgentResponse, definition: {RESPONSE}}}`",
        ),
        (
            "    union: ClientRequest\n",
            "    union: AgentRequest\n",
            REQUEST,
            f"`{REQUEST}` is in AgentRequest, but its x-side is 'agent': it belongs in"
            " ClientRequest, the requests the Client sends to the Agent, whose x-side is agent",
        ),
        (
            f"    x-method: {NAMES['method']}\n",
            "    x-method: session/new\n",
            REQUEST,
            f"`{REQUEST}` has x-method 'session/new', which NewSessionRequest already has",
        ),
    ],
    ids=["no x-side", "no union", "wrong union", "taken method"],
)
def test_a_message_type_no_message_reaches_is_a_finding_at_its_line(
    repo_copy: Path, old: str, new: str, definition: str, message: str
) -> None:
    _new_rfd(repo_copy, "zz-session-label")
    text = _example("zz-session-label")
    assert old in text
    text = text.replace(old, new, 1)
    _plant(repo_copy, text, "zz-session-label")
    assert acp(["schema", "generate"], cwd=repo_copy).returncode == 0
    result = acp(["schema", "check"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 1
    shown = "schema/zz-session-label/source.yaml"
    line = _line_of(text, f"  {definition}:")
    (found,) = _lines(result)
    assert found.startswith(f"{shown}:{line}:1: error: {message}"), found
    # Only a finding: the source is merged, prompt-suggestions too.
    merged = json.loads(acp(["schema", "merge", "--protocol", "v2"], cwd=repo_copy).stdout)
    assert definition in merged["$defs"] and "PromptSuggestion" in merged["$defs"]


@pytest.mark.parametrize("version", protocols.NAMES)
@pytest.mark.parametrize("channel", protocols.CHANNELS)
def test_the_message_unions_are_where_the_table_says(version: str, channel: str) -> None:
    base = json.loads(
        (SDK_SCHEMA / version / Path(protocols.get(version).base_files[channel]).name).read_text()
    )
    defs = base["$defs"]
    placed: dict[str, str] = {}
    for union in messages.MESSAGE_UNIONS.values():
        members = messages.message_members(defs[union.definition], union)
        assert members, union.definition
        for name in messages.member_refs(members):
            placed[name] = union.definition
            if not name.startswith("Ext"):
                assert name.endswith(union.kind), (union.definition, name)
                assert defs[name]["x-side"] == union.side, (union.definition, name)
    for name, definition in defs.items():
        kind = messages.message_kind(name)
        side = definition.get("x-side")
        expected = messages.message_union(kind, side) if kind and side else None
        if expected is not None:
            assert placed.get(name) == expected.definition, name


# 6. The worked example source.


@pytest.mark.parametrize("versions", [list(protocols.NAMES), *([name] for name in protocols.NAMES)])
def test_the_example_source_has_no_problem_in_any_versions(versions: list[str]) -> None:
    text = scaffold.example_source("session-label", "Session label", versions)
    made = source.from_text(ROOT, ROOT / "schema" / "session-label" / "source.yaml", text)
    assert made.problems == ()
    assert list(made.versions) == versions
    for version in versions:
        built = fragments.build(made, version)
        assert set(built["$defs"]) == {
            "SessionLabelRequest",
            "SessionLabelResponse",
            "SessionLabelUpdate",
        }
        assert built["$defs"]["SessionLabelRequest"]["x-method"] == "session/label"


LABEL = scaffold.names_of("session-label")
EXAMPLE_BLOCKS = f"""
```json title="JSON-RPC {LABEL["method"]} (v1, v2)"
{{
  "jsonrpc": "2.0",
  "id": 1,
  "method": "{LABEL["method"]}",
  "params": {{ "sessionId": "s", "label": "x" }}
}}
```

```json title="SessionUpdate (v1, v2)"
{{ "sessionUpdate": "{LABEL["tag"]}", "label": "urgent" }}
```

```json title="Invalid SessionUpdate (v1, v2): the label is required"
{{ "sessionUpdate": "{LABEL["tag"]}" }}
```
"""


@pytest.mark.build
def test_the_written_example_generates_merges_and_passes_every_check(
    repo_copy: Path, aspell: None
) -> None:
    slug = "session-label"
    _new_rfd(repo_copy, slug, blocks=EXAMPLE_BLOCKS)
    written = scaffold.write_example_source(repo_copy, slug, "Session label", list(protocols.NAMES))
    folder = repo_copy / "schema" / slug
    assert written == [folder / "source.yaml", *(folder / f"{v}.json" for v in protocols.NAMES)]
    generated = acp(["schema", "generate"], cwd=repo_copy)
    assert generated.returncode == 0 and "fragments are up to date" in generated.stderr
    assert acp(["schema", "check"], cwd=repo_copy).returncode == 0
    merged = json.loads(acp(["schema", "merge", "--protocol", "v1"], cwd=repo_copy).stdout)
    requests = merged["$defs"]["ClientRequest"]["properties"]["params"]["anyOf"][0]["anyOf"]
    titles = [m["title"] for m in requests]
    # Other RFDs may add requests too: each goes in before the extension method.
    assert LABEL["request"] in titles[:-1] and titles[-1] == "ExtMethodRequest"
    result = acp(["check"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 0, result.stdout + result.stderr
    answer = repo_copy / "answer.json"
    answer.write_text("{}\n")
    for version in protocols.NAMES:
        valid = acp(
            ["validate", "--protocol", version, "--def", LABEL["response"], str(answer)],
            cwd=repo_copy,
        )
        assert valid.returncode == 0, valid.stdout + valid.stderr

    source_text = (folder / "source.yaml").read_bytes()
    with pytest.raises(UsageError, match="already exists: refusing to overwrite"):
        scaffold.write_example_source(repo_copy, slug, "Session label", list(protocols.NAMES))
    assert (folder / "source.yaml").read_bytes() == source_text


def test_an_example_that_would_not_merge_is_refused_and_nothing_written(
    repo_copy: Path,
) -> None:
    with pytest.raises(UsageError, match="x-method 'session/list', which ListSessionsRequest"):
        scaffold.write_example_source(repo_copy, "session-list", "Session list", ["v2"])
    assert not (repo_copy / "schema" / "session-list").exists()


def _misspell_ops(repo: Path) -> Path:
    """The repository's schema source with two ops misspelt, each an independent mistake."""
    (source,) = sorted((repo / "schema").glob("*/source.yaml"))
    text = source.read_text(encoding="utf-8")
    ops = re.findall(r"op: (add-[a-z]+)", text)
    assert len(set(ops)) >= 2, ops
    first, second = sorted(set(ops))[:2]
    text = text.replace(f"op: {first}", f"op: {first[:-1]}", 1)
    text = text.replace(f"op: {second}", f"op: {second[:-1]}", 1)
    source.write_text(text, encoding="utf-8")
    return source


def test_every_misspelt_op_of_a_source_is_reported_with_what_it_may_mean(
    repo_copy: Path,
) -> None:
    source = _misspell_ops(repo_copy)
    result = acp(["schema", "check"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 1
    lines = [line for line in result.stdout.splitlines() if "unknown op" in line]
    assert len(lines) == 2, result.stdout
    for line in lines:
        assert line.startswith(str(source.relative_to(repo_copy)))
        assert "; did you mean 'add-" in line


@pytest.mark.build
def test_a_source_that_cannot_be_used_is_one_error_not_one_per_example(repo_copy: Path) -> None:
    _misspell_ops(repo_copy)
    result = acp(["check", "--only", "schema", "examples", "--format", "json"], cwd=repo_copy)
    no_traceback(result)
    found = json.loads(result.stdout)["findings"]
    errors = [f for f in found if f["level"] == "error"]
    assert {f["rule"] for f in errors} == {"schema/source"}, errors
    held = [f for f in found if f["rule"] == "examples/held-back"]
    assert held and all(f["level"] == "note" for f in held)
