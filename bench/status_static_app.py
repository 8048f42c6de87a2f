"""The ceiling of bench/status_load.py: a bare ASGI app answering each benchmarked request with the
status, headers and body bytes captured from the real server, doing no other work. Served with the
settings and HTTP edge of `sathub serve` (uvloop, sathub's httptools protocol, no access log, same
workers), so cached req/s / static req/s is the share of the HTTP stack's ceiling the app keeps.

The answers come from the JSON file named by STATUS_STATIC_RESPONSES (status_load.py writes it):
{"GET /api/v1/summary.php?hours=24": {"status": 200, "headers": [[k, v], ...], "body": "..."}}.

    STATUS_STATIC_RESPONSES=bench/out/static_sqlite.json python -m uvicorn --factory bench.status_static_app:create
"""

from __future__ import annotations

import json
import os

NOT_FOUND = (
    {"type": "http.response.start", "status": 404, "headers": [(b"content-length", b"0")]},
    {"type": "http.response.body", "body": b""},
)


def create():
    with open(os.environ["STATUS_STATIC_RESPONSES"], encoding="utf-8") as handle:
        captured = json.load(handle)
    answers = {
        key: (
            {
                "type": "http.response.start",
                "status": value["status"],
                "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in value["headers"]],
            },
            {"type": "http.response.body", "body": value["body"].encode("utf-8")},
        )
        for key, value in captured.items()
    }

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        if scope["method"] == "POST":  # drain the body: the real server must read it too
            while (await receive()).get("more_body"):
                pass
        query = scope["query_string"].decode("latin-1")
        start, body = answers.get(f"{scope['method']} {scope['path']}" + (f"?{query}" if query else ""), NOT_FOUND)
        await send(start)
        await send(body)

    return app
