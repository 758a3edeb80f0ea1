"""What every patch of third-party code shares: pinned versions, a fingerprint, a scope.

A patch replaces something a library does not offer to change. It is written
for one version of that library, so each patch module declares:

- `PINNED`: the distributions and versions it was written for;
- `PATCH`: a `Patch` naming each target (the function, class or template it
  replaces or relies on) with the SHA-256 of its source when the patch was
  written (`fingerprint`).

`Patch.usable()` compares the installed targets with the fingerprints. A
target that changed makes the patch stand down: it is not applied, and a
warning names the patch and the target (in `mkdocs build --strict` and
`acp-docs check`, a warning fails the build), so a changed library is never
patched blindly. `tests/test_patches.py` fails on the same comparison, and
when an installed version differs from `PINNED`.

Patches are applied by the plugin for one build (`swapped`, undone after the
build), never at import.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

LOGGER = "mkdocs.plugins.acp_docs.patches"
"""Not the plugin's own logger: the build runner turns its warnings into findings."""
log = logging.getLogger(LOGGER)


def fingerprint(target: Any) -> str:
    """The SHA-256 of a function's, class's or property's source, or of a text."""
    if isinstance(target, property) and target.fget is not None:
        target = target.fget
    source = target if isinstance(target, str) else inspect.getsource(target)
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Target:
    """One thing a patch replaces or relies on, and the fingerprint it was written for."""

    name: str
    """Dotted path (`mkdocs.structure.files.get_files`) or a file's name in its package."""
    find: Callable[[], Any]
    """Returns the target (or its source text); raises if it no longer exists."""
    pinned: str

    def current(self) -> str | None:
        """The installed target's fingerprint, or None when it cannot be found."""
        try:
            return fingerprint(self.find())
        except (AttributeError, ImportError, OSError, TypeError):
            return None


@dataclass
class Patch:
    """A patch of third-party code: its name, its module, the versions and targets it fits."""

    name: str
    module: str
    pinned: Mapping[str, str]
    targets: tuple[Target, ...]
    _changed: list[str] | None = field(default=None, repr=False)

    def changed(self) -> list[str]:
        """The targets that differ from their fingerprint (computed once a process)."""
        if self._changed is None:
            self._changed = [t.name for t in self.targets if t.current() != t.pinned]
        return self._changed

    def versions(self) -> dict[str, str | None]:
        """The installed version of each pinned distribution (None when it is not installed)."""
        found: dict[str, str | None] = {}
        for name in self.pinned:
            try:
                found[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                found[name] = None
        return found

    def usable(self) -> bool:
        """True when every target is as pinned; otherwise warn that the patch stands down."""
        changed = self.changed()
        if not changed:
            return True
        pins = ", ".join(f"{name} {version}" for name, version in self.pinned.items())
        log.warning(
            "acp-docs: the patch %s is not applied: %s changed since it was written for %s;"
            " update %s",
            self.name,
            ", ".join(changed),
            pins,
            self.module,
        )
        return False


@contextmanager
def swapped(owner: Any, attribute: str, replacement: Any) -> Iterator[None]:
    """`owner.attribute` is `replacement` inside the block, and what it was after it."""
    before = getattr(owner, attribute)
    setattr(owner, attribute, replacement)
    try:
        yield
    finally:
        setattr(owner, attribute, before)
