"""A long page parsed as a browser parses it, one piece at a time.

A browser reads a page in one pass, and one Lexbor tree of a page costs about
16 bytes a character: 150 MB for a 9 MB page. A long page is therefore cut
into pieces of about `PIECE` characters, each parsed on its own, and only
where the parser is provably back where it started: in the body, with no
element open but `html` and `body`, no formatting element to reopen, the
tokenizer reading plain data. The next piece is then read exactly as the rest
of the page would have been read.

Where to cut is only guessed (a new line opening a tag when the tags seen so
far are all closed, `_guesses`); what makes a cut safe is the proof: the piece
is parsed with a marker element after it, and the cut is taken only when the
marker is the last child of `body`. Anything still open (an element, a
comment, a tag, a raw-text or foreign element, a table that would move the
marker) puts the marker elsewhere or makes it text. When the proof fails,
the rest of the page is parsed whole, as before this module: never wrong,
only larger.

Each later piece starts with `<body>`: the parser is in the body at once, as
it was at the cut. Two things the parser remembers are not carried over a
cut: whether a `<frameset>` may still replace the body, and a form left open
when its parent closed. A later `<frameset>` is then ignored (as in a real
page, whose header has text before the content) and a later `<form>` is read
as a new one; neither is on the allowlist, and neither is ever published.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from selectolax.lexbor import LexborHTMLParser, LexborNode

from acp_docs.markdown.htmlscan import VOID

PIECE = 256 * 1024
"""Characters of a page parsed at a time, at least; a page this long or shorter is one piece."""
_MARKER = "acp-docs-piece-end"
_OPEN = re.compile(r"<(?:(/?)([A-Za-z][A-Za-z0-9-]*)|!--)")


def _guesses(html: str, size: int) -> Iterator[int]:
    """Places worth trying to cut at, at least `size` apart: after a new line, before a
    start tag, where every tag opened since the last guess looks closed.

    A guess only saves a wasted parse; one pass, each character read at most twice.
    """
    depth, want, at = 0, size, 0
    while (match := _OPEN.search(html, at)) is not None:
        name, start = match.group(2), match.start()
        end = html.find(">" if name else "-->", match.end())
        if end < 0:
            return
        at = end + 1
        if name is None:
            continue  # a comment
        if match.group(1):
            depth = max(depth - 1, 0)
            continue
        if depth == 0 and start >= want and html[start - 1] == "\n":
            yield start
            want = start + size
        if name.lower() not in VOID and html[end - 1] != "/":
            depth += 1


def _proved(tree: LexborHTMLParser) -> LexborNode | None:
    """The marker, when it ended the piece as the body's last child; else None."""
    body = tree.body
    last = body.last_child if body is not None else None
    if last is None or last.tag != _MARKER or last.attributes or last.child is not None:
        return None
    return last


def read(html: str, size: int | None = None) -> Iterator[tuple[str, LexborHTMLParser]]:
    """Each piece of `html` (of `PIECE` characters or more) and its tree, in order: the pieces
    joined are `html`. A tree is dropped when the next one is asked for."""
    size = PIECE if size is None else size
    start, lead = 0, ""
    for cut in _guesses(html, size) if len(html) > size else ():
        piece = html[start:cut]
        tree = LexborHTMLParser(f"{lead}{piece}<{_MARKER}>")
        marker = _proved(tree)
        if marker is None:
            break
        marker.decompose()
        yield piece, tree
        del tree, marker
        start, lead = cut, "<body>"
    piece = html[start:] if start else html
    yield piece, LexborHTMLParser(lead + piece)


def elements_of(tree: LexborHTMLParser) -> Iterator[LexborNode]:
    """Every element of one piece's tree, the parser's own html/head/body included."""
    root = tree.root
    return root.traverse(include_text=False) if root is not None else iter(())


def elements(html: str, size: int | None = None) -> Iterator[LexborNode]:
    """Every element of `html`'s parse, and the parser's own html/head/body of each piece,
    in document order."""
    for _piece, tree in read(html, size):
        yield from elements_of(tree)
        del tree  # before the next piece is parsed
