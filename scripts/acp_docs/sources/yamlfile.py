"""YAML from contributors, loaded safely: plain data only, no aliases, errors with a line.

Aliases are refused outright: an RFD's front matter or a schema source has no
need for them, and refusing them rules out alias expansion bombs. What is
loaded is what JSON can hold: a number that is not finite (`.nan`, `.inf`)
and a lone surrogate (`"\\ud800"`, which no UTF-8 text can hold) are errors
at their line, not values that fail later, far from the file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent

from acp_docs.core.errors import LocatedError
from acp_docs.sources import pointer as ptr
from acp_docs.sources.filetree import decodable

_SURROGATE_ESCAPE = re.compile(r"\\(?:u[dD][89a-fA-F]|U0000[dD][89a-fA-F])")
"""The only way YAML text spells a lone surrogate: an escape in a double-quoted scalar."""


class NoAliasLoader(yaml.SafeLoader):
    """`yaml.SafeLoader` that refuses aliases (`*name`), and what JSON cannot hold."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self.surrogates = not isinstance(stream, str) or bool(_SURROGATE_ESCAPE.search(stream))

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        """Compose a node; an alias, or a string holding a lone surrogate, is an error at its
        own line."""
        if self.check_event(AliasEvent):
            # types-PyYAML leaves `peek_event` unannotated (the event is the AliasEvent).
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise ComposerError(
                None, None, "YAML aliases (*name) are not allowed here", event.start_mark
            )
        node = super().compose_node(parent, index)
        if self.surrogates and isinstance(node, yaml.ScalarNode) and not decodable(node.value):
            raise ComposerError(
                None,
                None,
                "a lone surrogate escape (\\uD800 to \\uDFFF) is not a character:"
                " write the character itself",
                node.start_mark,
            )
        return node

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        """A float; one that is not finite (`.nan`, `.inf`, `1e999`) is an error at its line."""
        value: float = super().construct_yaml_float(node)
        if not math.isfinite(value):
            raise ConstructorError(
                None,
                None,
                f"{node.value} is not a finite number, which JSON needs",
                node.start_mark,
            )
        return value

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        """Construct a mapping; a key that appears twice is an error at its line."""
        seen: set[Any] = set()
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:
                continue
            if duplicate:
                raise ConstructorError(
                    None, None, f"duplicate key {key!r}: keep one", key_node.start_mark
                )
        return super().construct_mapping(node, deep=deep)


NoAliasLoader.add_constructor("tag:yaml.org,2002:float", NoAliasLoader.construct_yaml_float)

# Dates stay strings: the checks that need a date parse it and report an
# impossible one (2026-02-31) at its line, instead of failing to load the file.
NoAliasLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class YamlError(LocatedError):
    """Malformed YAML: `line` and `col` are 1-based positions in the file."""

    def __init__(self, shown: str, line: int, col: int, problem: str) -> None:
        super().__init__(shown, line, col, f"malformed YAML: {problem}")
        self.problem = problem


def load(text: str, shown: str, first_line: int = 1) -> Any:
    """Parse `text` (which starts at line `first_line` of the file `shown`)."""
    try:
        return yaml.load(text, Loader=NoAliasLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + (mark.line if mark else 0)
        col = (mark.column + 1) if mark else 1
        problem = exc.problem or exc.context or "cannot parse"
        raise YamlError(shown, line, col, problem) from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise YamlError(shown, first_line, 1, str(exc).splitlines()[0]) from None


def _lines(node: yaml.Node, pointer: str, out: dict[str, int]) -> None:
    out.setdefault(pointer, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            at = ptr.child(pointer, str(key.value))
            out[at] = key.start_mark.line + 1
            _lines(value, at, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _lines(item, f"{pointer}/{index}", out)


def load_with_lines(text: str, shown: str) -> tuple[Any, dict[str, int]]:
    """Parse `text` and map each JSON pointer of the result to its 1-based line."""
    try:
        loader = NoAliasLoader(text)
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, found up front
        line = text.count("\n", 0, max(0, exc.position)) + 1
        raise YamlError(shown, line, 1, f"{exc.reason} (character #x{exc.character:04x})") from None
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise YamlError(shown, line, col, exc.problem or exc.context or "cannot parse") from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise YamlError(shown, 1, 1, str(exc).splitlines()[0]) from None
    finally:
        loader.dispose()
    return data, lines_of(node)


def lines_of(node: yaml.Node | None) -> dict[str, int]:
    """Each JSON pointer of a composed document, mapped to its 1-based line."""
    lines: dict[str, int] = {}
    if node is not None:
        _lines(node, "", lines)
    return lines
