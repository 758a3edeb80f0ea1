"""A small tree laid out like the upstream ACP repository, written for the tests.

`docs/docs.json` with Protocol and RFDs tabs, MDX pages with CodeGroups and
fence titles, `typos.toml` and `.prettierrc`; `PLANTED` names each problem
planted in it and where the check must find it.
"""

from __future__ import annotations

import json
from pathlib import Path

from acp_docs.sources import jsonfmt

REQUEST = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}
CHUNK = {
    "jsonrpc": "2.0",
    "method": "session/update",
    "params": {
        "sessionId": "sess_1",
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "Hi"},
        },
    },
}
CHUNK_V2 = json.loads(json.dumps(CHUNK))
CHUNK_V2["params"]["update"]["messageId"] = "msg_1"


def _json(value: object) -> str:
    return json.dumps(value, indent=2)


DONE = f"""---
title: "Finished feature"
---

Author(s): [@octocat](https://github.com/octocat)

## Elevator pitch

A request and its response:

```json
{_json(REQUEST)}
```

```json
{_json({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}})}
```

A block that is not JSON:

```json
{{
  "jsonrpc": "2.0"
  "method": "session/cancel"
}}
```

An abridged block:

```json
{{
  "jsonrpc": "2.0",
  "method": "session/update",
  ...
}}
```

With comments:

```jsonc
{{
  // the session
  "jsonrpc": "2.0",
  "method": "session/cancel",
  "params": {{ "sessionId": "sess_1" }},
}}
```

A v2 tag in a v1 notification:

```json
{{
  "jsonrpc": "2.0",
  "method": "session/update",
  "params": {{
    "sessionId": "sess_1",
    "update": {{ "sessionUpdate": "state_update", "state": "idle" }}
  }}
}}
```

A misspelt member:

```json
{{
  "jsonrpc": "2.0",
  "method": "session/cancel",
  "params": {{ "sessionId": "sess_1", "sesionId": "sess_1" }}
}}
```

Declared by hand, as no message:

{{/* acp-docs: ToolCallContent */}}

```json
{_json({"type": "content", "content": {"type": "text", "text": "Hi"}})}
```

{{/* acp-docs: ContentBlock v1 */}}

```json
{_json({"type": "txt", "text": "Hi"})}
```

{{/* acp-docs: Plan v2 */}}

```json
{_json({"entries": []})}
```

{{/* acp-docs: Plan */}}

<CodeGroup>

```json v1
{_json(CHUNK)}
```

```json v2
{_json(CHUNK_V2)}
```

</CodeGroup>

## Frequently asked questions

See [the overview](/protocol/v1/overview#message-flow) and [this part](#elevator-pitch).
"""

DRAFT = f"""---
title: "Proposed feature"
---

## Elevator pitch

A method no schema has yet:

```json
{_json({"jsonrpc": "2.0", "id": 1, "method": "session/frobnicate", "params": {}})}
```

A prompt without its prompt:

```json
{_json({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {"sessionId": "s"}})}
```
"""

OVERVIEW = """---
title: "Overview"
---

## Message flow

Read [the finished RFD](../../rfds/finished-feature), [a missing page](/protocol/v1/gone)
and [a missing heading](/rfds/finished-feature#no-such-heading).

Agents answer teh client.

*  A list item Prettier would write with a dash.

<ParamField path="status" type="string">
  The [status](#param-status).
</ParamField>
"""

TEMPLATE = """---
title: "WRITE THE TITLE HERE"
---

Author(s): [handle](url)

## Elevator pitch

> What would change?

## Status quo

> What is wrong today?

## Shiny future

> How will it be better?

<!-- This section is OPTIONAL while the RFD is a Draft. -->

## Frequently asked questions
"""

UNTITLED = """---
title: "WRITE THE TITLE HERE"
---

Author(s): [@octocat](https://github.com/octocat)

## Elevator pitch

The prompt line above this text was removed.
"""

BROKEN_MDX = """---
title: "Broken"
---

Some text.

<Note>
This note is never closed.
"""

NAV = {
    "navigation": {
        "tabs": [
            {
                "tab": "Protocol",
                "groups": [
                    {"group": "Protocol", "pages": ["protocol/v1/overview", "protocol/v1/broken"]}
                ],
            },
            {
                "tab": "RFDs",
                "pages": [
                    "rfds/about",
                    {"group": "Draft", "pages": ["rfds/proposed-feature", "rfds/untitled"]},
                    {"group": "Completed", "pages": ["rfds/finished-feature", "rfds/gone"]},
                    {"group": "Preview", "root": "rfds/v2/overview", "pages": []},
                ],
            },
        ]
    }
}

PLANTED = {
    "upstream/not-json": (
        "docs/rfds/finished-feature.mdx",
        '"jsonrpc": "2.0"\n  "method"',
        "error",
    ),
    "upstream/abridged": (
        "docs/rfds/finished-feature.mdx",
        '```json\n{\n  "jsonrpc": "2.0",\n  "method": "session/update",\n  ...',
        "note",
    ),
    "upstream/invalid-payload": (
        "docs/rfds/finished-feature.mdx",
        '"sessionUpdate": "state_update"',
        "error",
    ),
    "upstream/unknown-property": ("docs/rfds/finished-feature.mdx", '"sesionId"', "warning"),
    "upstream/not-in-schema": ("docs/rfds/proposed-feature.mdx", "session/frobnicate", "note"),
    "upstream/nav-missing-page": ("docs/docs.json", '"rfds/gone"', "error"),
    "upstream/nav-no-status": ("docs/rfds/orphan.mdx", "---", "error"),
    "upstream/broken-link": ("docs/protocol/v1/overview.mdx", "/protocol/v1/gone", "error"),
    "upstream/broken-anchor": ("docs/protocol/v1/overview.mdx", "#no-such-heading", "error"),
    "upstream/mdx": ("docs/protocol/v1/broken.mdx", "<Note>", "error"),
    "upstream/declaration": ("docs/rfds/finished-feature.mdx", "acp-docs: Plan v2", "error"),
    "upstream/typo": ("docs/protocol/v1/overview.mdx", "teh client", "error"),
    "upstream/prettier": ("docs/protocol/v1/overview.mdx", "*  A list item", "error"),
    "upstream/template-title": ("docs/rfds/untitled.mdx", "WRITE THE TITLE HERE", "error"),
    "upstream/template-practice": ("docs/rfds/TEMPLATE", "---", "note"),
    "upstream/template-section": ("docs/rfds/untitled.mdx", "---", "warning"),
}
"""Each planted problem by rule: its file, text on the line it is found at, and its level."""


def write(root: Path) -> Path:
    """Write the tree into `root`; `root`."""
    pages = {
        "docs/rfds/about.mdx": '---\ntitle: "About"\n---\n\nAbout RFDs.\n',
        "docs/rfds/finished-feature.mdx": DONE,
        "docs/rfds/proposed-feature.mdx": DRAFT,
        "docs/rfds/orphan.mdx": '---\ntitle: "Orphan"\n---\n\nIn no group.\n',
        "docs/protocol/v1/overview.mdx": OVERVIEW,
        "docs/protocol/v1/broken.mdx": BROKEN_MDX,
        "docs/rfds/TEMPLATE": TEMPLATE,
        "docs/rfds/untitled.mdx": UNTITLED,
        "docs/rfds/v2/overview.mdx": '---\ntitle: "v2 RFDs"\n---\n\nThe RFDs of v2.\n',
        "docs/snippets/generated.mdx": "*  Left to the generator, never formatted.\n",
        "docs/docs.json": jsonfmt.dumps(NAV),
        "typos.toml": "[default.extend-words]\n",
        ".prettierrc": "{}\n",
        ".prettierignore": "# made by a generator\ndocs/snippets/\n",
    }
    for rel, text in pages.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
