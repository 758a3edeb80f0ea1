"""Every RFD's change to one protocol version, rendered as a Markdown schema reference."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from acp_docs.core.escaping import literal, prose
from acp_docs.core.protocols import ProtocolVersion
from acp_docs.schema.changes import Change
from acp_docs.schema.fragments import Contribution
from acp_docs.schema.messages import MESSAGE_UNIONS


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _link(name: str, local: set[str]) -> str:
    return f"[`{name}`](#{name.lower()})" if name in local else f"`{name}`"


def type_of(prop: dict[str, Any], local: set[str]) -> str:
    """A property's type as a reader would say it, linking the page's own types."""
    if not isinstance(prop, dict):
        return "any"
    if "$ref" in prop:
        return _link(_ref_name(str(prop["$ref"])), local)
    if isinstance(prop.get("anyOf"), list):
        return " or ".join(type_of(option, local) for option in prop["anyOf"])
    if "const" in prop:
        return f"`{_code(repr(prop['const']).replace(chr(39), chr(34)))}`"
    kind = prop.get("type")
    if kind == "array":
        return f"array of {type_of(prop.get('items', {}), local)}"
    if kind == "string" and prop.get("minLength"):
        return "non-empty string"
    if isinstance(kind, list):
        return " or ".join(f"`{_code(str(k))}`" for k in kind)
    return f"`{_code(str(kind))}`" if kind else "any"


def _code(text: str) -> str:
    """Text for inside a code span: no backtick, line end or table separator."""
    return text.replace("`", "'").replace("\n", " ").replace("|", "\\|")


def _cell(text: Any) -> str:
    text = prose(str(text or ""))
    return text.replace("|", "\\|").replace("\n\n", "<br><br>").replace("\n", " ")


def _paragraphs(text: Any) -> list[str]:
    return [prose(str(text)), ""] if text else []


def _table(props: dict[str, Any], required: set[str], local: set[str]) -> list[str]:
    rows = ["| Field | Type | Required | Description |", "| --- | --- | --- | --- |"]
    for name, prop in props.items():
        need = "required" if name in required else "optional"
        description = prop.get("description", "") if isinstance(prop, dict) else ""
        rows.append(f"| `{_code(name)}` | {type_of(prop, local)} | {need} | {_cell(description)} |")
    return [*rows, ""]


def _change(change: Change, version: ProtocolVersion, local: set[str], level: str) -> list[str]:
    args = change.args
    if change.op == "add-variant":
        union = version.union(args["union"])
        head = f"{level} `{union.definition}`: the `{_code(args['tag'])}` variant"
        out = [head, ""]
        out.append(
            f'A new branch whose `{union.discriminator}` is `"{_code(args["tag"])}"`, with the'
            f" fields of {_link(args['fields'], local)}."
        )
        out += ["", *_paragraphs(args.get("description"))]
        if union.is_open:
            out.append(
                f"`{union.definition}` is open in ACP {version.name}: its last branch,"
                f" `{union.fallback}`, accepts any tag that is not a known one. The merge inserts"
                f" the new branch before `{union.fallback}` and adds the tag to the ones"
                f" `{union.fallback}` excludes, so a malformed update is rejected instead of"
                " passing as an unknown one."
            )
        else:
            out.append(
                f"`{union.definition}` is a closed `{union.keyword}` in ACP {version.name}: the"
                " branch is appended to it, and a receiver that does not know it rejects it."
            )
        return [*out, ""]
    if change.op in ("add-capability", "add-property"):
        if change.op == "add-capability":
            definition = version.capability_definition(args["scope"])
        else:
            definition = args["definition"]
        head = f"{level} `{definition}`: the `{_code(args['property'])}` field"
        return [head, "", *_table({args["property"]: args["schema"]}, set(), local)]
    if change.op == "add-message":
        members_of = MESSAGE_UNIONS[args["union"]]
        head = f"{level} `{members_of.definition}`: {_link(args['definition'], local)}"
        return [
            head,
            "",
            f"A new member of `{members_of.definition}`, {_code(members_of.says())}: a JSON-RPC"
            f" message with the `x-method` of {_link(args['definition'], local)} is checked"
            " against it.",
            "",
            *_paragraphs(args.get("description")),
        ]
    verb = {"test": "requires", "add": "adds", "replace": "replaces", "remove": "removes"}
    path = _code(args["path"])
    return [
        f"{level} JSON Patch: {change.op} `{path}`",
        "",
        f"The change {verb[change.op]} `{path}`.",
        "",
    ]


def render(
    contributions: Sequence[Contribution],
    version: ProtocolVersion,
    titles: dict[str, str],
    rfd_link: str,
    pages: dict[str, str] | None = None,
) -> str:
    """The reference body for one version: each RFD's changes, then its new definitions.

    `titles` maps an RFD's slug to its title; `rfd_link` is the relative link
    prefix of RFD pages from the page being rendered (`../rfds/`); `pages` maps
    a slug to its page under that prefix when it is not `<slug>.md` (a v2 RFD's
    `v2/<slug>.md`).
    """
    pages = pages or {}

    def page(slug: str) -> str:
        return rfd_link + pages.get(slug, f"{slug}.md")

    if not contributions:
        return f"No RFD changes the ACP {version.name} schema.\n"
    out: list[str] = []
    for made in contributions:
        title = literal(titles.get(made.rfd, made.rfd))
        local = set(made.definitions)
        out += [f"## {title}", "", f"From the RFD [{title}]({page(made.rfd)}).", ""]
        if made.changes:
            out += ["### Changes to published definitions", ""]
            for change in made.changes:
                out += _change(change, version, local, "####")
        if made.definitions:
            out += ["### New definitions", ""]
        for name, definition in made.definitions.items():
            out += [f"#### {name}", "", *_paragraphs(definition.get("description"))]
            out += [f"Type: `{_code(str(definition.get('type', 'any')))}`", ""]
            props = definition.get("properties") or {}
            if props:
                out += _table(props, set(definition.get("required") or []), local)
            else:
                out += ["No fields: the empty object `{}` is the whole value.", ""]
    return _local_rfd_links("\n".join(out).rstrip("\n") + "\n", titles, page)


_UPSTREAM_RFD = re.compile(r"\]\(https://agentclientprotocol\.com/rfds/([a-z0-9-]+)/?\)")


def _local_rfd_links(text: str, titles: dict[str, str], page: Callable[[str], str]) -> str:
    """Links to an RFD's future upstream page point at its page on this site.

    A schema description links `https://agentclientprotocol.com/rfds/<slug>`,
    where the RFD will live once upstream; until then that page does not exist.
    """
    return _UPSTREAM_RFD.sub(lambda m: f"]({page(m[1])})" if m[1] in titles else m[0], text)
