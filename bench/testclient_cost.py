"""What Starlette's TestClient itself adds to an in-process timing (bench/archive_read.py and
bench/status_service_time.py measure through it): a bare Starlette app answering fixed bytes,
timed through the TestClient and called directly as ASGI, median of 200 after 20 warm-ups.

    .venv/bin/python bench/testclient_cost.py [SIZE_BYTES...]     # default 2000 850000
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
import warnings

warnings.simplefilter("ignore")
from importlib.metadata import version  # noqa: E402

from starlette.applications import Starlette  # noqa: E402
from starlette.responses import Response  # noqa: E402
from starlette.routing import Route  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402


def app_answering(size: int) -> Starlette:
    body = b"x" * size

    async def answer(request):
        return Response(body, media_type="application/json")

    return Starlette(routes=[Route("/", answer)])


async def direct(app: Starlette) -> None:
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": "/", "raw_path": b"/", "root_path": "", "query_string": b"", "headers": [(b"host", b"x")],
             "client": ("127.0.0.1", 1), "server": ("x", 80)}

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        pass

    await app(scope, receive, send)


def median_ms(function) -> float:
    for _ in range(20):
        function()
    took = []
    for _ in range(200):
        began = time.perf_counter()
        function()
        took.append((time.perf_counter() - began) * 1000)
    return statistics.median(took)


def main() -> None:
    sizes = [int(size) for size in sys.argv[1:]] or [2000, 850_000]
    print(f"starlette {version('starlette')}, anyio {version('anyio')}; median of 200")
    for size in sizes:
        app = app_answering(size)
        with TestClient(app) as client:
            through = median_ms(lambda: client.get("/"))
        loop = asyncio.new_event_loop()
        called = median_ms(lambda: loop.run_until_complete(direct(app)))
        loop.close()
        print(f"{size:>9,} bytes: {through:6.2f} ms through TestClient, {called:6.3f} ms called as ASGI, "
              f"TestClient adds {through - called:.2f} ms")


if __name__ == "__main__":
    main()
