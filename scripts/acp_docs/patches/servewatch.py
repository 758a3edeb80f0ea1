"""`mkdocs serve` notices a saved file sooner, and a failed rebuild reaches the browser.

MkDocs polls the watched folders every half second (watchdog's polling
observer) and waits 0.1 s for more changes; an author then waits that long
before the build even starts. Its server offers no setting for either, and the
folders are watched before any plugin event, so `apply` sets the observer's
and its emitters' private `_timeout` to the plugin's `serve_poll` (the folders
watched are small) and the server's `build_delay` to `serve_debounce`. It
also wraps the server's `builder` (with `acp_docs.mkdocs.servefail.guard`), so
a rebuild that raises is shown on the pages instead of leaving the browser
waiting. All of this is set on the one server object of this `mkdocs serve`.

The private fields are those of the versions in `PINNED`; when a target
changed, nothing is set and a warning says so (`acp_docs.patches.pin`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mkdocs.livereload import LiveReloadServer
from watchdog.observers.api import BaseObserver, EventEmitter

from acp_docs.patches.pin import Patch, Target

PINNED = {"mkdocs": "1.6.1", "watchdog": "7.1.0"}

PATCH = Patch(
    "servewatch",
    __name__,
    PINNED,
    (
        Target(
            "watchdog.observers.api.BaseObserver.__init__",
            lambda: BaseObserver.__init__,
            "a5c799a579ab2f4dd67b91bda9e829b36491bfa94758bc9bce8727e72a754478",
        ),
        Target(
            "watchdog.observers.api.EventEmitter.__init__",
            lambda: EventEmitter.__init__,
            "7301a02633d3c5f65c1619214b587e6fa8ca19c5df8d9635632fefeebe39de0c",
        ),
        Target(
            "watchdog.observers.api.EventEmitter.timeout",
            lambda: EventEmitter.timeout,
            "16b98ed04dac3bc5da82d86a249db930d1e2f23e6edc437a1b43ce5c873c2488",
        ),
        Target(
            "mkdocs.livereload.LiveReloadServer.__init__",
            lambda: LiveReloadServer.__init__,
            "e79efeb939bfe4b4bbf5d2f11b320778194229b1fd3f9c061e2a5c66e0df43a2",
        ),
        Target(
            "mkdocs.livereload.LiveReloadServer._build_loop",
            lambda: LiveReloadServer._build_loop,
            "0bea1402bb4a41bfd626e0532bc254a1c5e3eafac07b73eef5bceef484852e31",
        ),
    ),
)


def apply(
    server: Any,
    poll: float,
    debounce: float,
    guard: Callable[[Callable[..., Any]], Callable[..., Any]],
) -> Any:
    """The server, polling every `poll` s, waiting `debounce` s, its builder wrapped in `guard`."""
    if not PATCH.usable():
        return server
    observer = server.observer
    observer._timeout = poll
    for emitter in observer.emitters:
        emitter._timeout = poll
    server.build_delay = min(server.build_delay, debounce)
    server.builder = guard(server.builder)
    return server
