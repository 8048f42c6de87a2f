"""Server-side time of GET requests: the ASGI app called directly (no TestClient, no HTTP), median of
200 after 30 warm-ups, and the first request alone (interface A computes and caches its answers
then). Usage: asgi_time.py DATABASE_URL PATH..."""
import asyncio, statistics, sys, time, warnings
warnings.simplefilter("ignore")
from sathub.app import create_app
from sathub.config import Settings
from sathub.db import create_engine

url, paths = sys.argv[1], sys.argv[2:]
app = create_app(Settings(database_url=url, base_url="http://x"), engine=create_engine(url))

async def get(path):
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": path.split("?")[0], "raw_path": path.split("?")[0].encode(), "root_path": "",
             "query_string": (path.split("?") + [""])[1].encode(), "headers": [(b"host", b"x")],
             "client": ("127.0.0.1", 1), "server": ("x", 80)}
    body = []
    async def receive(): return {"type": "http.request", "body": b"", "more_body": False}
    async def send(message):
        if message["type"] == "http.response.body": body.append(message.get("body", b""))
    await app(scope, receive, send)
    return sum(map(len, body))

async def main():
    for path in paths:
        t = time.perf_counter(); await get(path); first = (time.perf_counter() - t) * 1000
        for _ in range(29): await get(path)
        times = []
        for _ in range(200):
            t = time.perf_counter(); size = await get(path); times.append((time.perf_counter() - t) * 1000)
        print(f"{statistics.median(times):8.2f} ms median  {first:8.2f} ms first  {size:>9} bytes  {path}")
asyncio.run(main())
