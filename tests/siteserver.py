"""Serve a built site on a loopback port until a process ends: `siteserver.py DIR BASE PID`.

The tests build the session's site once and every xdist worker reads it; the
browser tests load it from one URL. So the server is a process of its own,
not a thread of the worker that built the site: it prints its port, serves
`DIR` under the URL path `BASE` (the path of the published `site_url`), and
exits once process `PID` (the pytest run) is gone.
"""

from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
import time


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the built site under the path of the published `site_url`, quietly."""

    base = "/"

    def translate_path(self, path: str) -> str:
        if path.startswith(self.base):
            path = "/" + path[len(self.base) :]
        return super().translate_path(path)

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(folder: str, base: str) -> http.server.ThreadingHTTPServer:
    """A server of `folder` under the URL path `base` on a free loopback port, not yet started."""
    handler = type("Handler", (SiteHandler,), {"base": base})
    return http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=folder)
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def main(argv: list[str]) -> int:
    """Serve until the watched process ends."""
    folder, base, watched = argv[0], argv[1], int(argv[2])
    server = serve(folder, base)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    while _alive(watched):
        time.sleep(0.5)
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
