"""Every diagram of the built site in Chromium: drawn, named for screen readers, readable in
light and dark, with no script error, no policy violation and no request to another host.

Each page with a diagram is reached from the home page by Material's instant
navigation, as a reader clicking through would, at 1280 px light and 390 px
dark. Screenshots of each diagram go to /tmp/diagram-shots/ for review.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from test_readers_browser import NAVIGATE, RECORD_VIOLATIONS

pytestmark = [pytest.mark.build, pytest.mark.browser]

MODES = [("light", 1280), ("dark", 390)]
SHOTS = Path(os.environ.get("ACP_DOCS_DIAGRAM_SHOTS", "/tmp/diagram-shots"))

REVIEW = """() => {
  const rgba = (text) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(text || "");
    if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map((v) => { v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const bg = rgba(getComputedStyle(document.body).backgroundColor);
  const byId = (id) => document.getElementById(id);
  return [...document.querySelectorAll("figure.acp-diagram svg")].map((svg) => {
    const name = (svg.getAttribute("aria-labelledby") || "").split(/\\s+/)
      .map((id) => byId(id)?.textContent || "").join(" ").trim();
    const description = (svg.getAttribute("aria-describedby") || "").split(/\\s+/)
      .map((id) => byId(id)?.textContent || "").join(" ").trim();
    let worst = 99, texts = 0;
    for (const text of svg.querySelectorAll("text")) {
      if (!text.textContent.trim()) continue;
      const fill = rgba(getComputedStyle(text).fill);
      if (!fill) { worst = 0; continue; }
      const a = fill[3];
      const mixed = [0, 1, 2].map((i) => fill[i] * a + bg[i] * (1 - a));
      const [hi, lo] = [lum(mixed), lum(bg)].sort((x, y) => y - x);
      worst = Math.min(worst, (hi + 0.05) / (lo + 0.05));
      texts += 1;
    }
    const box = svg.getBoundingClientRect();
    return { id: svg.id, name, description, worst, texts, width: box.width };
  });
}"""


def _diagram_pages(site: Path) -> list[str]:
    return sorted(
        p.parent.relative_to(site).as_posix() + "/"
        for p in site.rglob("index.html")
        if "assets" not in p.parts
        and p.parent != site
        and '<figure class="acp-diagram"' in p.read_text(encoding="utf-8")
    )


@pytest.mark.parametrize(("scheme", "width"), MODES, ids=[f"{s}-{w}px" for s, w in MODES])
def test_every_diagram_is_drawn_named_and_readable_and_asks_no_other_host(
    browser, served_site: tuple[Path, str], scheme: str, width: int
) -> None:
    site, url = served_site
    pages = _diagram_pages(site)
    assert pages, "no page of the built site holds a diagram"
    host = urlsplit(url).netloc
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    elsewhere: list[str] = []
    errors: list[str] = []
    problems: list[str] = []
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        page = context.new_page()
        page.add_init_script(RECORD_VIOLATIONS)
        page.on(
            "request",
            lambda r: None if urlsplit(r.url).netloc == host else elsewhere.append(r.url),
        )
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_load_state("networkidle")
        for path in pages:
            page.evaluate(NAVIGATE, url + path)  # instant navigation keeps the first document
            page.wait_for_load_state("networkidle")
            found = page.evaluate(REVIEW)
            assert found, f"{path}: no diagram after instant navigation"
            for index, diagram in enumerate(found):
                where = f"{path} diagram {diagram['id']}"
                if not diagram["name"] or not diagram["description"]:
                    problems.append(f"{where}: no accessible name or description")
                if diagram["texts"] == 0 or diagram["worst"] < 4.5:
                    problems.append(f"{where}: text contrast {diagram['worst']:.2f} below 4.5")
                if diagram["width"] < 200:
                    problems.append(f"{where}: drawn {diagram['width']} px wide")
                shot = SHOTS / f"{path.strip('/').replace('/', '-')}-{index}-{width}-{scheme}.png"
                page.locator(f"#{diagram['id']}").screenshot(path=str(shot))
            violations = page.evaluate("window.__cspViolations")
            problems.extend(f"{path}: policy violation {v}" for v in violations)
    finally:
        context.close()
    assert not elsewhere, f"requests to other hosts: {elsewhere[:5]}"
    assert not errors, f"console errors: {errors[:5]}"
    assert not problems, problems
