"""The `format` check: every file Prettier would rewrite, run beside the build (Node).

The work is `acp_docs.checks.prettier`; this module declares the check.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from acp_docs.checks.registry import Check


def _run(repo: Any) -> Iterable[Any]:
    from acp_docs.checks import prettier

    return prettier.check(repo)


CHECK = Check(
    name="format",
    summary="A file Prettier would rewrite, or a Prettier configuration the check ignores.",
    rules={
        "format": "Run `make format` (Prettier), then commit the result.",
        "format/config-file": "Remove the file: the check runs Prettier with the repository's"
        " own settings only.",
        "format/too-complex": "Unnest the lists or quotes, or close what the line opens, as"
        " the build's `build/too-complex` finding says.",
    },
    docs="format",
    build=False,
    order=80,
    run=_run,
)
