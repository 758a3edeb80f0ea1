"""Two costs of the Markdown engine that grow faster than the page, made linear; same HTML.

An RFD of 80,000 lines with 20,000 code blocks spent about half its build in two places:

- pymdownx.superfences puts each fenced block back into the page by copying
  the whole list of lines once per block (`lines[:start] + [block] +
  lines[end:]`), so the time grows with lines times blocks. `reassemble` here
  splices every block in one pass. The blocks it is given never overlap and
  come in page order; when they do not, the original runs.
- Pygments computes a formatter's style sheet (a class and a style per token
  type) each time a formatter is made, and the highlighter makes one per code
  block. It depends only on the formatter's class, style and class prefix, so
  it is computed once per such triple and each formatter gets its own copy.

The plugin applies both for one build (`applied`), and the standalone renderer
of `acp_docs.markdown.blocks` for each page it renders; never for the rest of
the process. Either stands down, with a warning, when a target differs from the
source the patch was written for (`acp_docs.patches.pin`). `ORIGINALS` keeps
the replaced functions, so a test renders with both and compares.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from pygments.formatters.html import HtmlFormatter
from pymdownx.superfences import SuperFencesBlockPreprocessor

from acp_docs.patches.pin import Patch, Target, swapped

PINNED = {"pymdown-extensions": "13.1", "Pygments": "2.21.0"}

PATCH = Patch(
    "renderspeed",
    __name__,
    PINNED,
    (
        Target(
            "pymdownx.superfences.SuperFencesBlockPreprocessor.reassemble",
            lambda: SuperFencesBlockPreprocessor.reassemble,
            "a24dbfe0b6b36d432f96e5bf8ddd7d91253b5ebc5a7770afb5aa3f4a5b56f1ac",
        ),
        Target(
            "pygments.formatters.html.HtmlFormatter._create_stylesheet",
            # A private method: types-Pygments does not declare it.
            lambda: HtmlFormatter._create_stylesheet,  # type: ignore[attr-defined]
            "5cc9789830122cd57caa650be28c4a9934454e2685b298a5d67ec265785fcc83",
        ),
    ),
)

ORIGINALS: dict[str, Callable[..., Any]] = {
    "reassemble": SuperFencesBlockPreprocessor.reassemble,
    "stylesheet": HtmlFormatter._create_stylesheet,  # type: ignore[attr-defined]
}
_sheets: dict[tuple[Any, ...], tuple[dict[Any, str], dict[str, Any]]] = {}


def _reassemble(self: Any, lines: list[str]) -> list[str]:
    stack = self.stack
    in_order = all(start <= end for _block, start, end in stack) and all(
        stack[i][2] <= stack[i + 1][1] for i in range(len(stack) - 1)
    )
    if not in_order:
        return ORIGINALS["reassemble"](self, lines)
    out: list[str] = []
    last = 0
    for block, start, end in stack:
        out += lines[last:start]
        out.append(block)
        last = end
    out += lines[last:]
    stack.clear()
    return out


def _create_stylesheet(self: Any) -> None:
    key = (type(self), self.style, self.classprefix)
    if key not in _sheets:
        ORIGINALS["stylesheet"](self)
        _sheets[key] = (dict(self.ttype2class), dict(self.class2style))
    by_type, by_class = _sheets[key]
    self.ttype2class = dict(by_type)
    self.class2style = dict(by_class)


def fits() -> bool:
    """True when the targets are as pinned (or already ours); otherwise warn and say no."""
    if SuperFencesBlockPreprocessor.reassemble is _reassemble:
        return True  # applied by an enclosing block, which checked the targets then
    return PATCH.usable()


@contextmanager
def applied(fit: bool | None = None) -> Iterator[None]:
    """Inside the block, the linear reassembly and the shared style sheets (when they fit).

    `fit` is what `fits()` said before, for a caller that applies the patch many times.
    """
    with ExitStack() as stack:
        if fits() if fit is None else fit:
            stack.enter_context(swapped(SuperFencesBlockPreprocessor, "reassemble", _reassemble))
            stack.enter_context(swapped(HtmlFormatter, "_create_stylesheet", _create_stylesheet))
        yield
