"""Server-side time of GET requests: the ASGI app called directly (no TestClient, no HTTP), median of
200 after 30 warm-ups, and the first request alone (interface A computes and caches its answers
then). With --misses N, also the median of N requests each made with an empty answer cache (what
the first request after a write costs; the status page still reuses the markup of its unchanged
blocks, as it does after a write), and with --cold the block markup is forgotten too. Usage:

    asgi_time.py DATABASE_URL PATH... [--gzip] [--misses N [--cold]]

`asgi_get` is also how bench/archive_live.py reads without HTTP.
"""
import argparse
import asyncio
import statistics
import time
import warnings


async def asgi_get(app, path: str, headers: list[tuple[bytes, bytes]]) -> tuple[int, int]:
    """GET `path` from the ASGI `app`: (status, body bytes)."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": path.split("?")[0], "raw_path": path.split("?")[0].encode(), "root_path": "",
             "query_string": (path.split("?") + [""])[1].encode(), "headers": headers,
             "client": ("127.0.0.1", 1), "server": ("x", 80)}
    status, size = [], 0
    async def receive(): return {"type": "http.request", "body": b"", "more_body": False}
    async def send(message):
        nonlocal size
        if message["type"] == "http.response.start": status.append(message["status"])
        if message["type"] == "http.response.body": size += len(message.get("body", b""))
    await app(scope, receive, send)
    return status[0], size


def main():
    warnings.simplefilter("ignore")
    from sathub.app import create_app
    from sathub.config import Settings
    from sathub.db import create_engine
    from sathub.status.pages import grid_html

    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--gzip", action="store_true", help="send Accept-Encoding: gzip, as browsers do")
    parser.add_argument("--misses", type=int, default=0)
    parser.add_argument("--cold", action="store_true")
    args = parser.parse_args()
    app = create_app(Settings(database_url=args.url, base_url="http://x"), engine=create_engine(args.url))
    headers = [(b"host", b"x")] + ([(b"accept-encoding", b"gzip, deflate, br")] if args.gzip else [])

    async def get(path):
        return (await asgi_get(app, path, headers))[1]

    async def timed(path, clear=False):
        if clear:
            app.state.answers._entries.clear()
            if args.cold:
                grid_html._printed.clear()
        started = time.perf_counter()
        size = await get(path)
        return (time.perf_counter() - started) * 1000, size

    async def run():
        for path in args.paths:
            first, _ = await timed(path)
            misses = [(await timed(path, clear=True))[0] for _ in range(args.misses)]
            for _ in range(29): await get(path)
            hits = [await timed(path) for _ in range(200)]
            size = hits[-1][1]
            missed = f"{statistics.median(misses):8.2f} ms miss  " if misses else ""
            print(f"{statistics.median(t for t, _ in hits):8.2f} ms median  {missed}{first:8.2f} ms first  "
                  f"{size:>9} bytes  {path}")
    asyncio.run(run())


if __name__ == "__main__":
    main()
