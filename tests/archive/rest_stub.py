"""A stand-in for Mailman core's REST API: just the resources mailmanclient reads for a list's
settings (`/3.1/lists/<address>` and `/3.1/lists/<address>/config`) and for its owners and
moderators (`/3.1/lists/<address>/roster/owner|moderator`), with basic auth."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

USER, PASSWORD = "restadmin", "restpass"


class MailmanRest(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lists: dict[str, dict] = {}  # address -> config values
        self.rosters: dict[tuple[str, str], list[str]] = {}  # (address, "owner" or "moderator") -> emails
        self.calls: list[str] = []
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}"

    def add(self, address: str, **config) -> None:
        self.lists[address] = {
            "display_name": address.split("@")[0].title(),
            "description": "",
            "subject_prefix": f"[{address.split('@')[0].title()}] ",
            "archive_policy": "public",
            "created_at": "2020-05-01T12:30:00.123456",
            "fqdn_listname": address,
            **config,
        }

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        server: MailmanRest = self.server
        server.calls.append(self.path)
        expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        parts = self.path.strip("/").split("/")
        if self.headers.get("Authorization") != expected:
            return self._send(401, {"title": "401 Unauthorized"})
        if len(parts) >= 3 and parts[:2] == ["3.1", "lists"] and parts[2] in server.lists:
            config = server.lists[parts[2]]
            if parts[3:] == ["config"]:
                return self._send(200, {**config, "http_etag": '"1"'})
            if len(parts) == 5 and parts[3] == "roster":
                emails = server.rosters.get((parts[2], parts[4]), [])
                entries = [
                    {
                        "email": email,
                        "address": f"{server.url}/3.1/addresses/{email}",
                        "self_link": f"{server.url}/3.1/m/{n}",
                    }
                    for n, email in enumerate(emails)
                ]
                return self._send(
                    200,
                    {"entries": entries, "total_size": len(entries), "http_etag": '"1"'}
                    if entries
                    else {"total_size": 0, "http_etag": '"1"'},
                )
            if not parts[3:]:
                return self._send(
                    200,
                    {
                        "fqdn_listname": parts[2],
                        "display_name": config["display_name"],
                        "self_link": f"{server.url}/3.1/lists/{parts[2]}",
                        "http_etag": '"1"',
                    },
                )
        return self._send(404, {"title": "404 Not Found"})

    def _send(self, status: int, payload: dict) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass
