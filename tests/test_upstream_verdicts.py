"""`--upstream` verdicts a maintainer can gate CI on, each rule on a tree written here.

The trees are the tests' own (the sample of `upstream_tree`, or smaller ones
made on the spot), never upstream's text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acp_docs.core import protocols
from acp_docs.schema.merge import default_base
from acp_docs.upstream import spelling
from acp_docs.upstream import tree as upstream_tree_reader

from conftest import ROOT, acp, no_traceback


@pytest.fixture
def tree(upstream_sample: Path) -> Path:
    """The sample upstream tree; answers cached with the worker's other upstream tests."""
    return upstream_sample


def _run(root: Path, *args: str) -> tuple[int, list[dict], str]:
    result = acp(["check", "--format", "json", "--upstream", str(root), *args])
    no_traceback(result)
    findings = json.loads(result.stdout)["findings"] if result.stdout.strip() else []
    return result.returncode, findings, result.stderr


def _page(root: Path, rel: str, body: str, title: str = "Page") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'---\ntitle: "{title}"\n---\n\n{body}', encoding="utf-8")
    return path


def _line(path: Path, needle: str) -> int:
    text = path.read_text(encoding="utf-8")
    return text[: text.index(needle)].count("\n") + 1


def _list_in_nav(root: Path, *routes: str, redirects: list[dict] | None = None) -> None:
    nav_path = root / "docs" / "docs.json"
    nav = json.loads(nav_path.read_text())
    nav["navigation"]["tabs"][0]["groups"][0]["pages"] += list(routes)
    if redirects is not None:
        nav["redirects"] = redirects
    nav_path.write_text(json.dumps(nav, indent=2) + "\n")


def _tree_schema(root: Path, version: str, change, rel: str | None = None) -> Path:
    """The pinned SDK's stable schema of `version`, changed, as the tree's own (at `rel`)."""
    base = default_base(ROOT, protocols.get(version), "stable")
    schema = json.loads(base.read_text())
    change(schema)
    target = root / (rel or f"schema/{version}/schema.json")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(schema))
    return target


CANCEL = '{"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}'


def _require_reason(schema: dict) -> None:
    definition = schema["$defs"]["CancelNotification"]
    definition["required"] = [*definition.get("required", []), "reason"]


def test_examples_are_judged_by_the_trees_own_schemas_and_the_note_says_so(tree: Path) -> None:
    page = _page(tree, "docs/protocol/v1/cancel.mdx", f"```json\n{CANCEL}\n```\n")
    _list_in_nav(tree, "protocol/v1/cancel")
    _status, found, _ = _run(tree, "--only", "upstream-examples")
    mine = [f for f in found if f["path"] == "docs/protocol/v1/cancel.mdx"]
    assert mine == []
    sdk_note = [f["message"] for f in found if f["rule"] == "upstream/schemas"]
    assert len(sdk_note) == 1, "one line says which schemas judged which version"
    assert sdk_note[0].startswith(f"examples judged: v1 by {protocols.SDK_PACKAGE}")
    _tree_schema(tree, "v1", _require_reason)
    status, found, _ = _run(tree, "--only", "upstream-examples")
    mine = [
        (f["line"], f["level"], f["message"])
        for f in found
        if f["path"] == str(page.relative_to(tree))
    ]
    assert status == 1
    assert mine == [
        (
            _line(page, "{"),
            "error",
            "[v1 CancelNotification] /params: 'reason' is a required property",
        )
    ]
    (note,) = [f["message"] for f in found if f["rule"] == "upstream/schemas"]
    assert note.startswith("examples judged: v1 by schema/v1/schema.json and ")


def test_a_tree_of_the_layout_before_v2_is_judged_by_its_own_schema(tree: Path) -> None:
    # Before v2, upstream kept schema/schema.json and schema/schema.unstable.json.
    page = _page(tree, "docs/protocol/cancel.mdx", f"```json\n{CANCEL}\n```\n")
    _list_in_nav(tree, "protocol/cancel")
    _tree_schema(tree, "v1", _require_reason, "schema/schema.json")
    status, found, _ = _run(tree, "--only", "upstream-examples")
    mine = [(f["line"], f["message"]) for f in found if f["path"] == "docs/protocol/cancel.mdx"]
    assert status == 1
    assert mine == [
        (_line(page, "{"), "[v1 CancelNotification] /params: 'reason' is a required property")
    ]
    (note,) = [f["message"] for f in found if f["rule"] == "upstream/schemas"]
    assert note.startswith("examples judged: v1 by schema/schema.json and ")


def test_a_tree_schema_that_reaches_outside_is_refused_and_the_sdks_stands_in(tree: Path) -> None:
    def remote(schema: dict) -> None:
        schema["$defs"]["CancelNotification"] = {"$ref": "https://example.invalid/cancel.json"}

    _tree_schema(tree, "v1", remote)
    _status, found, _ = _run(tree, "--only", "upstream-examples")
    refused = [f for f in found if f["rule"] == "upstream/schema"]
    assert [f["path"] for f in refused] == ["schema/v1/schema.json"]
    assert "leaves the document" in refused[0]["message"]


def test_a_tree_schema_behind_a_linked_folder_is_never_read(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    _tree_schema(outside, "v1", _require_reason)
    (tree / "schema").symlink_to(outside / "schema")
    _page(tree, "docs/protocol/v1/cancel.mdx", f"```json\n{CANCEL}\n```\n")
    _list_in_nav(tree, "protocol/v1/cancel")
    _status, found, _ = _run(tree, "--only", "upstream-examples")
    assert [f for f in found if f["path"] == "docs/protocol/v1/cancel.mdx"] == []
    assert not any(f["path"].startswith("schema/") for f in found)


def test_links_inside_jsx_attribute_expressions_are_checked(tree: Path) -> None:
    page = _page(
        tree,
        "docs/protocol/v1/cards.mdx",
        '<Card title="Posts" post={[<a href="/protocol/v1/overview">fine</a>,\n'
        '  <a href="/protocol/v1/gone-too">gone</a>]} />\n',
    )
    _list_in_nav(tree, "protocol/v1/cards")
    _status, found, _ = _run(tree, "--only", "upstream-links")
    mine = [(f["line"], f["rule"]) for f in found if f["path"] == "docs/protocol/v1/cards.mdx"]
    assert mine == [(_line(page, "gone-too"), "upstream/broken-link")]


def test_index_routes_and_wildcard_redirects_resolve(tree: Path) -> None:
    _page(tree, "docs/guide/index.mdx", "## Start here\n\nText.\n", "Guide")
    page = _page(
        tree,
        "docs/protocol/v1/links.mdx",
        "[a](/guide/index#start-here), [b](/guide#start-here), [c](/old/a/b),\n"
        "[d](/old/one), [e](/guide/index#nowhere), [f](/older/a)\n",
    )
    _list_in_nav(
        tree,
        "guide/index",
        "protocol/v1/links",
        redirects=[{"source": "/old/:slug*", "destination": "/guide"}],
    )
    _status, found, _ = _run(tree, "--only", "upstream-links", "upstream-nav")
    mine = sorted(
        (f["rule"], f["message"].split(":")[0])
        for f in found
        if f["path"] == "docs/protocol/v1/links.mdx"
        or (f["path"] == "docs/docs.json" and "guide" in f["message"])
    )
    assert mine == [
        ("upstream/broken-anchor", "link '/guide/index#nowhere'"),
        ("upstream/broken-link", "link '/older/a'"),
    ], found
    assert _line(page, "nowhere") == 6


def test_repeated_headings_count_across_tabs_and_custom_ids_are_anchors(tree: Path) -> None:
    _page(
        tree,
        "docs/protocol/v1/tabs.mdx",
        '## Overview\n\n<Tabs>\n<Tab title="Read/write">\n\n## Overview\n\n</Tab>\n'
        '<Tab title="Other">\n\n## Overview\n\n</Tab>\n</Tabs>\n\n'
        "## Fees & billing\n\n## Pinned {#my-anchor}\n\n"
        "[1](#overview-2) [2](#overview-3) [3](#fees-&-billing) [4](#my-anchor)"
        " [5](#read%2Fwrite) [6](#overview-1) [7](#pinned)\n",
    )
    _list_in_nav(tree, "protocol/v1/tabs")
    _status, found, _ = _run(tree, "--only", "upstream-links", "upstream-mdx")
    mine = [f["message"].split(":")[0] for f in found if f["path"] == "docs/protocol/v1/tabs.mdx"]
    assert mine == ["link '#overview-1'", "link '#pinned'"]


def test_svg_resources_and_footnotes_are_not_links(tree: Path) -> None:
    _page(
        tree,
        "docs/protocol/v1/drawing.mdx",
        '<svg viewBox="0 0 1 1"><use href="assets/icons.svg#icon" /></svg>\n\n'
        "A claim.[^note]\n\n[^note]: [a source](https://example.org/x).\n",
    )
    _list_in_nav(tree, "protocol/v1/drawing")
    _status, found, _ = _run(tree, "--only", "upstream-links")
    assert [f for f in found if f["path"] == "docs/protocol/v1/drawing.mdx"] == []


def test_a_misnamed_member_is_one_finding_not_two(tree: Path) -> None:
    bad = '{"jsonrpc": "2.0", "method": "session/cancel", "params": {"sesionId": "s"}}'
    page = _page(tree, "docs/protocol/v1/cancel.mdx", f"```json\n{bad}\n```\n")
    _list_in_nav(tree, "protocol/v1/cancel")
    _status, found, _ = _run(tree, "--only", "upstream-examples")
    mine = [f for f in found if f["path"] == "docs/protocol/v1/cancel.mdx"]
    assert [(f["line"], f["level"]) for f in mine] == [(_line(page, "{"), "error")]
    assert "'sessionId' is a required property" in mine[0]["message"]
    assert "'sesionId'" in mine[0]["message"]


def _other_tree(root: Path) -> Path:
    _page(
        root,
        "docs/index.mdx",
        "## Intro\n\n[gone](/nowhere)\n\n```json\n"
        '{"jsonrpc": "2.0", "method": "tools/call", "id": 1}\n```\n',
        "Home",
    )
    nav = {"name": "Example Protocol", "navigation": {"pages": ["index"]}}
    (root / "docs" / "docs.json").write_text(json.dumps(nav))
    return root


def test_a_mintlify_tree_that_is_not_acps_gets_only_the_generic_checks(tmp_path: Path) -> None:
    root = _other_tree(tmp_path / "other")
    status, found, said = _run(root, "--skip", "upstream-prettier", "upstream-typos")
    assert status == 1
    assert {f["rule"] for f in found} == {"upstream/broken-link", "upstream/not-acp"}
    assert "is a Mintlify tree, but not ACP's (docs/docs.json names 'Example Protocol'" in said
    assert "upstream-examples" not in said and "upstream-template" not in said
    status, _found, said = _run(root, "--only", "upstream-examples")
    assert status == 2 and "only check ACP's tree" in said


def test_one_slow_file_costs_only_its_own_spelling(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = tree / "docs" / "rfds" / "about.mdx"
    slow.write_text(slow.read_text() + "\n" + "1+" * 400_000 + "1\n")
    monkeypatch.setattr(spelling, "PER_FILE", 1.0)
    read = upstream_tree_reader.load(tree)
    found = spelling.check(read)
    timed_out = [f for f in found if f.rule == "upstream/typos-timeout"]
    assert [(f.path, f.line) for f in timed_out] == [("docs/rfds/about.mdx", 7)]
    assert "did not finish this file within 1 s" in timed_out[0].message
    assert any(
        f.rule == "upstream/typo" and f.path == "docs/protocol/v1/overview.mdx" for f in found
    )


def _examples(root: Path, rel: str) -> list[tuple[int, str, str, str]]:
    _status, found, _ = _run(root, "--only", "upstream-examples")
    return [(f["line"], f["level"], f["rule"], f["message"]) for f in found if f["path"] == rel]


def test_a_fragment_of_one_shape_is_checked_against_its_definition_and_noted(tree: Path) -> None:
    page = _page(
        tree,
        "docs/protocol/v1/fragments.mdx",
        '```json\n{"type": "text", "text": "Hello"}\n```\n\n'
        '```json\n{"type": "image", "data": 5, "mimeType": "image/png"}\n```\n',
    )
    _list_in_nav(tree, "protocol/v1/fragments")
    found = _examples(tree, "docs/protocol/v1/fragments.mdx")
    first, second = _line(page, '"Hello"'), _line(page, '"data": 5')
    assert (
        first,
        "note",
        "upstream/inferred",
        "[v1] inferred from its members: ContentBlock",
    ) in found
    assert (second, "error", "upstream/invalid-payload") in [f[:3] for f in found]
    assert not any(f[2] == "upstream/not-a-message" for f in found)


def test_members_of_a_larger_value_are_checked_each_against_its_definition(tree: Path) -> None:
    page = _page(
        tree,
        "docs/protocol/v1/caps.mdx",
        '```json\n{"clientCapabilities": {"fs": {"readTextFile": "yes"}}}\n```\n',
    )
    _list_in_nav(tree, "protocol/v1/caps")
    found = _examples(tree, "docs/protocol/v1/caps.mdx")
    line = _line(page, "clientCapabilities")
    assert (
        line,
        "note",
        "upstream/inferred",
        "[v1] inferred as members of InitializeRequest: clientCapabilities as ClientCapabilities",
    ) in found
    assert [f[:3] for f in found if f[1] != "note"] == [(line, "error", "upstream/invalid-payload")]


def test_a_response_without_its_request_is_paired_by_shape(tree: Path) -> None:
    response = (
        '{"jsonrpc": "2.0", "id": 7, "result": {"protocolVersion": 1,\n'
        '  "clientCapabilities": {"fs": {"readTextFile": true}}}}'
    )
    page = _page(tree, "docs/protocol/v1/reply.mdx", f"```json\n{response}\n```\n")
    _list_in_nav(tree, "protocol/v1/reply")
    found = _examples(tree, "docs/protocol/v1/reply.mdx")
    warned = [f for f in found if f[1] == "warning"]
    assert [(f[0], f[2]) for f in warned] == [
        (_line(page, "clientCapabilities"), "upstream/unknown-property")
    ]
    assert "did you mean 'agentCapabilities'?" in warned[0][3]


def test_a_request_later_on_the_page_pairs_with_its_response(tree: Path) -> None:
    ok = '{"jsonrpc": "2.0", "id": 3, "result": {}}'
    request = (
        '{"jsonrpc": "2.0", "id": 3, "method": "session/cancel", "params": {"sessionId": "s"}}'
    )
    _page(tree, "docs/protocol/v1/order.mdx", f"```json\n{ok}\n```\n\n```json\n{request}\n```\n")
    _list_in_nav(tree, "protocol/v1/order")
    found = _examples(tree, "docs/protocol/v1/order.mdx")
    assert not any(f[2] == "upstream/unpaired-response" for f in found), found


def test_a_fragment_several_definitions_fit_is_left_as_json_with_a_note(tree: Path) -> None:
    page = _page(tree, "docs/protocol/v1/vague.mdx", '```json\n{"sessionId": "s"}\n```\n')
    _list_in_nav(tree, "protocol/v1/vague")
    found = _examples(tree, "docs/protocol/v1/vague.mdx")
    assert [f[:3] for f in found] == [(_line(page, "sessionId"), "note", "upstream/not-a-message")]


def test_a_v2_tag_in_a_v1_block_says_which_fence_to_write(tree: Path) -> None:
    _status, found, _ = _run(tree, "--only", "upstream-examples")
    said = [
        f["message"]
        for f in found
        if f["path"] == "docs/rfds/finished-feature.mdx" and "state_update" in f["message"]
    ]
    assert said == [
        "[v1 SessionUpdate] 'state_update' is a sessionUpdate of v2, not v1: tag the fence"
        " `json v2`, or move the block to a v2 page"
    ]


def test_redirect_sources_match_as_mintlify_reads_them_however_many_there_are() -> None:
    from acp_docs.upstream.nav import Nav

    nav = Nav()
    # Many sources, as a docs.json of a pull request may list: each link is still one walk.
    nav.redirects = {f"r{n}/:slug*" for n in range(20_000)} | {"a/:x/b", "exact/page"}
    assert [nav.redirected(r) for r in ("r7", "r7/z/y", "a/q/b", "exact/page")] == [True] * 4
    assert [nav.redirected(r) for r in ("a/q", "a/q/b/c", "exact", "rr7/z")] == [False] * 4


def test_an_acp_only_check_left_out_of_a_chosen_few_is_said(tmp_path: Path) -> None:
    root = _other_tree(tmp_path / "other")
    status, found, said = _run(root, "--only", "upstream-examples", "upstream-nav")
    assert status == 0, said
    assert [f["rule"] for f in found] == ["upstream/not-acp"]
    assert "is a Mintlify tree, but not ACP's" in said and "upstream-examples" not in said


def _findings_of(tree: Path, page: Path) -> list[tuple[str, str]]:
    _status, found, _ = _run(tree, "--only", "upstream-examples")
    rel = str(page.relative_to(tree))
    return [(f["rule"], f["level"]) for f in found if f["path"] == rel]


def test_a_json_schema_in_a_page_is_not_taken_for_a_payload(tree: Path) -> None:
    schema = {
        "type": "object",
        "properties": {
            "type": {"type": "string", "const": "acp"},
            "_meta": {"type": ["object", "null"]},
        },
        "required": ["type"],
    }
    page = _page(tree, "docs/rfds/transport.mdx", f"```json\n{json.dumps(schema, indent=2)}\n```\n")
    _list_in_nav(tree, "rfds/transport")
    assert _findings_of(tree, page) == [("upstream/json-schema", "note")]


def test_the_words_before_a_block_name_its_version(tree: Path) -> None:
    idle = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": {"sessionUpdate": "state_update", "state": "idle"}},
    }
    block = f"```json\n{json.dumps(idle, indent=2)}\n```\n"
    page = _page(tree, "docs/rfds/usage.mdx", f"For v2, the equivalent carrier is:\n\n{block}")
    _list_in_nav(tree, "rfds/usage")
    assert _findings_of(tree, page) == []
    page = _page(tree, "docs/rfds/usage.mdx", f"The carrier is:\n\n{block}")
    assert ("upstream/invalid-payload", "error") in _findings_of(tree, page)


def test_a_member_a_sibling_branch_of_an_untagged_union_names_is_no_typo(tree: Path) -> None:
    params = {"sessionId": "s", "configId": "mode", "type": "id", "value": "code"}
    request = {"jsonrpc": "2.0", "id": 3, "method": "session/set_config_option", "params": params}
    page = _page(tree, "docs/protocol/v1/config.mdx", f"```json\n{json.dumps(request)}\n```\n")
    _list_in_nav(tree, "protocol/v1/config")
    assert _findings_of(tree, page) == []
    # A typo is still one: no branch names `valeu`.
    params["valeu"] = "code"
    page = _page(tree, "docs/protocol/v1/config.mdx", f"```json\n{json.dumps(request)}\n```\n")
    assert ("upstream/unknown-property", "warning") in _findings_of(tree, page)


def test_a_link_to_a_folder_is_a_note_as_mintlifys_checker_accepts_it(tree: Path) -> None:
    _page(tree, "docs/guides/one.mdx", "One.\n")
    page = _page(tree, "docs/rfds/links.mdx", "See [the guides](/guides) and [none](/nothing).\n")
    _list_in_nav(tree, "rfds/links", "guides/one")
    _status, found, _ = _run(tree, "--only", "upstream-links")
    mine = sorted((f["rule"], f["level"]) for f in found if f["path"] == "docs/rfds/links.mdx")
    assert mine == [("upstream/broken-link", "error"), ("upstream/folder-link", "note")]
    assert page.exists()


def test_a_shiny_future_example_and_a_proposals_new_update_are_proposals_not_errors(
    tree: Path,
) -> None:
    future = {"sessionUpdate": "message_update", "messageId": "m1"}
    block = f"```json\n{json.dumps(future)}\n```\n"
    page = _page(
        tree, "docs/rfds/editing.mdx", f"## Status quo\n\nNow.\n\n## Shiny future\n\n{block}"
    )
    _list_in_nav(tree, "rfds/editing")
    assert _findings_of(tree, page) == [("upstream/not-in-schema", "note")]
    page = _page(tree, "docs/rfds/editing.mdx", f"## Status quo\n\n{block}")
    assert _findings_of(tree, page) == [("upstream/invalid-payload", "error")]


def test_a_tree_before_v2_is_not_told_of_v2(tree: Path) -> None:
    # The tree keeps only the layout before v2: the SDK's v2 is younger than it.
    _tree_schema(tree, "v1", lambda schema: None, "schema/schema.json")
    update = {"sessionUpdate": "state_update", "state": "idle"}
    page = _page(tree, "docs/protocol/updates.mdx", f"```json\n{json.dumps(update)}\n```\n")
    _list_in_nav(tree, "protocol/updates")
    _status, found, _ = _run(tree, "--only", "upstream-examples")
    said = [f["message"] for f in found if f["path"] == "docs/protocol/updates.mdx"]
    assert said and not any("of v2" in m for m in said), said
    assert page.exists()
