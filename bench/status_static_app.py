"""The static ceiling for the interface A benchmark: a bare ASGI app that answers each benchmarked
request with the status, headers and body bytes captured from the real server, doing no other work.

Served by the same uvicorn settings as `sathub serve` (uvloop, httptools, no access log, no server
header, same worker count), so real / static req/s is the share of the HTTP stack's ceiling that the
application keeps. Responses come from the JSON file named by STATUS_STATIC_RESPONSES, written by
bench/status_load.py: {"GET /api/v1/summary.php?hours=24": {"status": 200, "headers": [[k, v]...],
"body": "..."}}.

    STATUS_STATIC_RESPONSES=bench/out/static_sqlite.json .venv/bin/uvicorn --app-dir bench \
        status_static_app:app --workers 2 --loop uvloop --http httptools --no-access-log --no-server-header
"""

import json
import os

with open(os.environ["STATUS_STATIC_RESPONSES"], encoding="utf-8") as handle:
    RESPONSES = {
        key: ({"type": "http.response.start", "status": value["status"],
               "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in value["headers"]]},
              {"type": "http.response.body", "body": value["body"].encode("utf-8")})
        for key, value in json.load(handle).items()
    }
NOT_FOUND = ({"type": "http.response.start", "status": 404, "headers": [(b"content-length", b"0")]},
             {"type": "http.response.body", "body": b""})


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    if scope["method"] == "POST":  # drain the body, as the real server must read it too
        while (await receive()).get("more_body"):
            pass
    query = scope["query_string"].decode("latin-1")
    key = f"{scope['method']} {scope['path']}" + (f"?{query}" if query else "")
    start, body = RESPONSES.get(key, NOT_FOUND)
    await send(start)
    await send(body)
