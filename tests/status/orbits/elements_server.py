"""A local HTTP server for the elements' fetch and refresh tests: it serves the files of data/ at
/<name>, answers /status/<code> with that status, /slow/<name> after `delay` seconds (or when the
test ends), /redirect-ftp with a redirect to ftp:, and counts every request by path."""

from __future__ import annotations

import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DATA = Path(__file__).parent / "data"


class ElementsServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: Counter[str] = Counter()
        self.user_agents: list[str] = []
        self.delay = 0.0
        self.released = threading.Event()  # ends every wait of /slow/ at once
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_port}/{path}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.released.set()
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # the test's output stays quiet
        pass

    def do_GET(self):
        server: ElementsServer = self.server
        server.requests[self.path] += 1
        server.user_agents.append(self.headers.get("User-Agent", ""))
        parts = self.path.strip("/").split("/")
        if parts[0] == "status":
            return self._send(int(parts[1]), b"Internal Server Error\n", "text/plain")
        if parts[0] == "redirect-ftp":
            self.send_response(302)
            self.send_header("Location", "ftp://127.0.0.1/amateur.tle")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if parts[0] == "slow":
            server.released.wait(server.delay)
            parts = parts[1:]
        path = DATA / parts[-1]
        if not path.is_file():
            return self._send(404, b"Not Found\n", "text/plain")
        return self._send(200, path.read_bytes(), "text/html" if path.suffix == ".html" else "text/plain")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
