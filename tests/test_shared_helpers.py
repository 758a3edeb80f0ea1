"""The one line counter and the one marker pattern that every reader of a page shares."""

from __future__ import annotations

from acp_docs.markdown import markers
from acp_docs.sources.lines import LineIndex


def test_offsets_become_lines_and_columns() -> None:
    text = "ab\ncd\n\nef"
    index = LineIndex(text)
    assert index.at(0) == (1, 1)
    assert index.at(text.index("d")) == (2, 2)
    assert index.at(text.index("e")) == (4, 1)
    assert index.line(text.index("c")) == 2
    assert index.start(2) == 3 and index.start(4) == 7 and index.start(99) == 7


def test_a_marker_is_read_the_same_way_by_everyone() -> None:
    text = (
        "x\n   <!-- acp-docs:schema-reference v2 -->\n"
        "    <!-- acp-docs:indented -->\n<!-- acp-docs:open v1"
    )
    found = list(markers.markers(text))
    assert [(m.name, m.args, m.closed) for m in found] == [
        ("schema-reference", "v2", True),
        ("open", "v1", False),
    ]
    assert markers.match_line("<!--acp-docs:fixtures-->") == markers.Marker(
        "fixtures", "", True, 0, 24
    )
    assert markers.match_line("<!-- acp-docs:Upper -->") is None
