"""Standalone JSON payload files, each checked as a definition or as a JSON-RPC message."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp_docs.errors import UsageError
from acp_docs.schema.source import Protocol
from acp_docs.textfile import load_json
from acp_docs.validate import DispatchError, Outcome, SchemaSet


def _shown(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def validate_files(
    schemas: SchemaSet, protocol: Protocol, definition: str | None, files: Sequence[Path]
) -> list[tuple[str, Outcome]]:
    """Check each file; any unreadable or undeclarable file is a UsageError, before any check."""
    if definition is not None and not schemas.has(protocol, definition):
        raise UsageError(
            f"unknown definition {definition!r}: no $defs/{definition} in ACP {protocol}"
        )
    loaded: list[tuple[str, Any, str]] = []
    for path in files:
        shown = _shown(path)
        payload = load_json(path, shown)
        if definition is not None:
            loaded.append((shown, payload, definition))
            continue
        try:
            loaded.append((shown, payload, schemas.dispatch(protocol, payload)))
        except DispatchError as exc:
            raise UsageError(
                f"{shown}: {exc}; pass --def NAME to validate a payload of a definition"
            ) from None
    results = []
    for shown, payload, name in loaded:
        if definition is None:
            results.append((shown, schemas.check_message(protocol, payload)))
        else:
            results.append((shown, schemas.check(protocol, name, payload)))
    return results
