// Site-wide repairs for readers, applied whenever Material mounts a page.
// Material wraps wide tables in a scrolling box in the browser; a keyboard can
// only scroll such a box when it can take focus (axe: scrollable-region-focusable).
(function () {
  "use strict";

  function focusableTables(root) {
    for (const box of root.querySelectorAll(
      ".md-typeset__scrollwrap:not([tabindex])",
    )) {
      box.tabIndex = 0;
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", "Table (scrolls sideways)");
    }
  }

  // Tables of three columns or more become cards on a phone (acp-site.css):
  // each cell carries its column's name, shown above it.
  function labelledColumns(root) {
    for (const table of root.querySelectorAll(
      ".md-typeset table:not([data-acp-columns])",
    )) {
      const names = Array.from(table.querySelectorAll("thead th"), (th) =>
        th.textContent.trim(),
      );
      if (names.length < 3) continue;
      table.setAttribute("data-acp-columns", String(names.length));
      for (const row of table.querySelectorAll("tbody tr")) {
        Array.from(row.children).forEach((cell, index) => {
          if (names[index]) cell.setAttribute("data-acp-column", names[index]);
        });
      }
    }
  }

  function repair() {
    focusableTables(document);
    labelledColumns(document);
  }

  new MutationObserver(repair).observe(document.body, {
    childList: true,
    subtree: true,
  });
  repair();
})();
