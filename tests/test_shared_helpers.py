"""The one line counter, marker pattern and located error that every reader shares."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_docs.core.errors import LocatedError, UsageError
from acp_docs.markdown import markers
from acp_docs.sources.lines import LineIndex
from acp_docs.sources.textfile import UnreadableFile, load_json, read_text
from acp_docs.sources.yamlfile import YamlError
from acp_docs.sources.yamlfile import load as load_yaml


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


def test_a_located_error_says_where_in_one_way() -> None:
    full = LocatedError("a.md", 3, 7, "bad")
    assert str(full) == "a.md:3:7: bad" and isinstance(full, UsageError)
    assert (full.path, full.line, full.col, full.message) == ("a.md", 3, 7, "bad")
    assert str(LocatedError("a.md", 3, "bad")) == "a.md:3: bad"
    assert str(LocatedError("a.md", 3, None, "bad")) == "a.md:3: bad"
    whole = LocatedError("a.md", None, None, "bad")
    assert str(whole) == "a.md: bad" and whole.line == 1


def test_file_errors_are_located_errors(tmp_path: Path) -> None:
    with pytest.raises(UnreadableFile) as missing:
        read_text(tmp_path / "none.md", "none.md")
    assert isinstance(missing.value, LocatedError)
    assert str(missing.value) == "none.md: no such file"
    (tmp_path / "bad.md").write_bytes(b"ok\n\xff\n")
    with pytest.raises(LocatedError) as undecodable:
        read_text(tmp_path / "bad.md", "bad.md")
    assert str(undecodable.value).startswith("bad.md:2: ")
    with pytest.raises(YamlError) as yaml_error:
        load_yaml("a: [1\n", "x.yaml", first_line=4)
    assert isinstance(yaml_error.value, LocatedError)
    assert str(yaml_error.value).startswith("x.yaml:5:")
    (tmp_path / "x.json").write_text('{"a": 1,}')
    with pytest.raises(LocatedError) as json_error:
        load_json(tmp_path / "x.json", "x.json")
    assert str(json_error.value).startswith("x.json:1:")


def test_a_backslash_escaped_backtick_opens_no_code_span() -> None:
    from acp_docs.core.escaping import code_spans

    line = "Ticks: \\`{alert(1)}\\` and `real` and \\\\`also real`"
    spans = [line[start:end] for start, end in code_spans(line)]
    assert spans == ["`real`", "`also real`"]
