"""The renderer's own process: one headless Chromium drawing diagrams with the pinned Mermaid.

Started by `acp_docs.diagrams.render` as `python -m acp_docs.diagrams.worker
MERMAID_JS CHROMIUM`. It reads one JSON request a line on standard input
(`{"id": ..., "text": ..., "kinds": [...]}`) and answers each with one JSON
line: `{"svg": ...}` (the drawing as XML), `{"error": ..., "line": N}` (N: the
line of the diagram Mermaid names, or null), or, before anything is drawn,
`{"refused": "config", "settings": [...]}` when Mermaid's own parse of the text
finds configuration in it (an `%%{init}%%` directive, front matter `config:`)
or `{"refused": "kind", "kind": ...}` when the kind Mermaid reads is not one
of `kinds`. The page it draws in is blank and may load
nothing: every request is refused, so no diagram reaches another host. A
diagram that makes Mermaid loop never answers; the parent stops this process.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from acp_docs.diagrams import theme

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]
CHROMIUM_ARGS += ["--disable-background-networking", "--disable-component-update"]

RENDER = """
async ([id, text, kinds]) => {
  try {
    const parsed = await window.mermaid.parse(text);
    const settings = Object.keys((parsed && parsed.config) || {});
    if (settings.length) return { refused: "config", settings };
    if (!kinds.includes(parsed.diagramType)) return { refused: "kind", kind: parsed.diagramType };
    const { svg } = await window.mermaid.render(id, text);
    const doc = new DOMParser().parseFromString(svg, "text/html");
    const root = doc.querySelector("svg");
    if (!root) return { error: "Mermaid drew no SVG", line: null };
    return { svg: new XMLSerializer().serializeToString(root) };
  } catch (e) {
    const loc = e && e.hash && e.hash.loc;
    const found = /on line (\\d+)/.exec(String((e && e.message) || e));
    const line = loc ? loc.first_line : found ? Number(found[1]) : null;
    return { error: String((e && e.message) || e).slice(0, 2000), line };
  } finally {
    for (const left of document.querySelectorAll("body > *")) left.remove();
  }
}
"""


def _answer(result: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    """Serve render requests until standard input ends."""
    mermaid_js, chromium = argv
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.route("**/*", lambda route: route.abort())
        page.set_content("<!doctype html><html><head></head><body></body></html>")
        page.add_script_tag(path=mermaid_js)
        page.evaluate("(c) => window.mermaid.initialize(c)", theme.config())
        version = page.evaluate("() => window.mermaid.version ? window.mermaid.version() : ''")
        _answer({"ready": True, "version": str(version)})
        for line in sys.stdin:
            request = json.loads(line)
            _answer(page.evaluate(RENDER, [request["id"], request["text"], request["kinds"]]))
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
