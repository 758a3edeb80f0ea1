"""A worked example of a schema source, for an RFD to start from (`acp-docs new --schema`).

`example_source` returns the text of a `schema/<slug>/source.yaml` that adds,
for the versions asked for:

- a request the Client sends, `session/<name>` (`...Request`, with `x-method`
  and `x-side: agent`), put in `ClientRequest` by an `add-message` change;
- the Agent's response to it (`...Response`), put in `AgentResponse`;
- a session update (`...Update`), a new variant of `SessionUpdate`;

with a comment on every key, and each construct (`$shared`, `$versions`,
`$join`) used once. Names come from the slug: `session-rename` gives
`SessionRenameRequest`, the method `session/rename` and the update
`session_rename`. `write_example_source` writes it with its fragments, after
checking that it merges into the pinned schemas beside the repository's other
sources, so `acp-docs check` passes with it from the start.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from acp_docs.core import protocols
from acp_docs.core.errors import UsageError
from acp_docs.schema import fragments, merge
from acp_docs.schema import source as source_module
from acp_docs.sources import filetree
from acp_docs.sources.textfile import write_atomic

_WORD = re.compile(r"[a-z0-9]+")


def _update_note(version: protocols.ProtocolVersion) -> str:
    """What a Client of `version` does with an update it does not know (the `$versions` example)."""
    if version.gates_unknown_updates:
        return (
            f"ACP {version.name} Clients reject an update they do not know, so an Agent sends it\n"
            "only to a Client that says it supports it."
        )
    return (
        "A Client that does not know it keeps it through the unknown-update\n"
        "fallback and may ignore it."
    )


def names_of(slug: str) -> dict[str, str]:
    """The names the example gives its definitions, method and update tag, from the slug."""
    words = _WORD.findall(slug)
    if not words or not words[0][0].isalpha():
        raise UsageError(
            f"{slug!r}: the example schema source names its definitions after the slug, which"
            " must start with a letter"
        )
    pascal = "".join(word.capitalize() for word in words)
    rest = words[1:] if words[0] == "session" and len(words) > 1 else words
    return {
        "request": f"{pascal}Request",
        "response": f"{pascal}Response",
        "update": f"{pascal}Update",
        "method": f"session/{'_'.join(rest)}",
        "tag": "_".join(words),
    }


def _indent(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line for line in text.split("\n"))


def _versions(versions: list[str]) -> list[str]:
    if not versions:
        raise UsageError("the example schema source needs at least one protocol version")
    for name in versions:
        protocols.get(name)
    return [name for name in protocols.NAMES if name in versions]


def example_source(slug: str, title: str, versions: list[str]) -> str:
    """The text of a schema source that generates, merges and validates, to edit."""
    chosen = _versions(versions)
    n = names_of(slug)
    per_version = "\n".join(
        f"            {v}: >-\n" + _indent(_update_note(protocols.get(v)), 14) for v in chosen
    )
    versions_part = f"        - $versions:\n{per_version}\n"
    return f"""\
# The schema change of the RFD rfds/{slug}.md, written once for every version it
# targets. It starts as a worked example: a request the Client sends, the Agent's
# response and a session update. Rename and rewrite them; every key is described
# in docs/tooling/engine.md (Tooling > Engine layout, "Every key of source.yaml").
# After each edit run `acp-docs schema generate`, then `acp-docs check`.

# Required: a few words naming the change (the fragments' titles use it).
title: {json.dumps(f"{title} (schema change)")}
# Required: the protocol versions the change targets.
versions: [{", ".join(chosen)}]

# Optional: named values, each reused below as `{{ $shared: name }}`.
shared:
  meta:
    description: >-
      The _meta property is reserved by ACP to allow clients and agents to attach
      additional metadata to their interactions. Implementations MUST NOT make
      assumptions about values at these keys.
    type: [object, "null"]
    x-deserialize-default-on-error: true
    additionalProperties: true

# Optional: the new definitions, as JSON Schema 2020-12, by PascalCase name. A
# `$ref` names a definition of the merged schema: "#/$defs/<Name>".
definitions:
  # A request: named ...Request, with its JSON-RPC method (`x-method`) and the side
  # that implements the method (`x-side`: `agent`, as the Client sends it to the
  # Agent). The `add-message` change below puts it in ClientRequest, so that a
  # message with this method is checked against it.
  {n["request"]}:
    description: >-
      Asks the Agent to label a session. The Agent answers with a
      `{n["response"]}` once the label is set.
    type: object
    properties:
      sessionId:
        description: The session to label.
        allOf:
          - $ref: "#/$defs/SessionId"
      label:
        description: The new label, as plain text. Never empty.
        type: string
        minLength: 1
      _meta: {{ $shared: meta }}
    required: [sessionId, label]
    x-side: agent
    x-method: {n["method"]}

  # Its response: named ...Response, with the same `x-method` and `x-side`; the
  # `add-message` change below puts it in AgentResponse.
  {n["response"]}:
    description: The Agent's answer to `{n["method"]}`. An empty object on success.
    type: object
    properties:
      _meta: {{ $shared: meta }}
    x-side: agent
    x-method: {n["method"]}

  # The fields of a new session update; the `add-variant` change below makes it
  # the `{n["tag"]}` variant of SessionUpdate.
  {n["update"]}:
    description:
      # `$join` joins strings; `$versions` gives each version its own text.
      $join:
        - "Tells the Client that the label of a session changed. "
{versions_part}    type: object
    properties:
      label:
        description: The label of the session, as plain text.
        type: string
      _meta: {{ $shared: meta }}
    required: [label]

# Required: the changes to published definitions, in order (`changes: []` for none).
changes:
  - op: add-message
    union: ClientRequest
    definition: {n["request"]}
  - op: add-message
    union: AgentResponse
    definition: {n["response"]}
  - op: add-variant
    union: SessionUpdate
    tag: {n["tag"]}
    fields: {n["update"]}
    description: The label of the session changed.
"""


def write_example_source(repo_root: Path, slug: str, title: str, versions: list[str]) -> list[Path]:
    """Write `schema/<slug>/source.yaml` and its fragments; return the paths written.

    Nothing is written when any of them exists, or when the example would not
    merge beside the repository's other sources (a name, method or tag the
    pinned schemas or another RFD already use): a UsageError says why.
    """
    from acp_docs.config.repo import Repo
    from acp_docs.rfds import model as rfds

    repo = Repo.load(repo_root)
    root = repo.root
    path = repo.schema_dir / slug / source_module.SOURCE_NAME
    text = example_source(slug, title, versions)
    made = source_module.from_text(root, path, text)
    status = next((r.status for r in rfds.load_all(repo) if r.slug == slug), None)
    made = replace(made, channel=protocols.channel_of(status))
    if made.problems:  # the example itself is wrong: a bug of this module
        raise made.problems[0]
    targets = [path, *(fragments.fragment_path(made, v) for v in made.versions)]
    for folder in (repo.schema_dir, path.parent):
        if folder.is_symlink() or not filetree.within(root, folder):
            raise UsageError(
                f"{folder.relative_to(root).as_posix()} is a link or leads out of the checkout:"
                " refusing to write a schema source through it"
            )
    for target in targets:
        if target.exists() or target.is_symlink():
            raise UsageError(f"{repo.relative(target)} already exists: refusing to overwrite it")
    others = [s for s in rfds.schema_sources(repo) if s.slug != slug]
    for problem in merge.assemble(root, [*others, made]).problems:
        if problem.path == made.shown:
            raise UsageError(
                f"the example schema source for {slug!r} would not merge: {problem.message};"
                f" choose another slug, or write schema/{slug}/source.yaml by hand"
            )
    contents = [text, *(fragments.render(made, v) for v in made.versions)]
    written = []
    for target, content in zip(targets, contents, strict=True):
        write_atomic(target, content)
        written.append(target)
    return written
