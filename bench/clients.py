"""The clients that time requests: a keep-alive HTTP/1.1 connection on asyncio (cheap on CPU,
exact about timeouts), the ASGI app called directly in this process (the server's own time,
without HTTP or a test client), and one download timed to its first byte and to its end."""

from __future__ import annotations

import asyncio
import time
import urllib.request


class HttpError(Exception):
    pass


class HttpConnection:
    """One keep-alive HTTP/1.1 connection to 127.0.0.1:port; reconnects when the server closed it."""

    def __init__(self, port: int):
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except Exception:  # closed by the server already
                pass
        self.reader = self.writer = None

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: dict | None = None, timeout: float = 10
    ) -> tuple[int, dict, bytes]:
        try:
            return await asyncio.wait_for(self._request(method, path, body, headers or {}), timeout)
        except (OSError, asyncio.IncompleteReadError, TimeoutError, HttpError, ValueError) as error:
            await self.close()
            raise HttpError(f"{type(error).__name__}: {error}") from error

    async def _request(self, method, path, body, headers) -> tuple[int, dict, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
        for name, value in headers.items():
            head += f"{name}: {value}\r\n"
        if body or method == "POST":
            head += f"Content-Length: {len(body)}\r\n"
        self.writer.write(head.encode("latin-1") + b"\r\n" + body)
        await self.writer.drain()
        status = int((await self.reader.readuntil(b"\r\n")).split()[1])
        response_headers = {}
        while (line := await self.reader.readuntil(b"\r\n")) != b"\r\n":
            name, _, value = line.decode("latin-1").partition(":")
            response_headers[name.strip().lower()] = value.strip()
        if "content-length" in response_headers:
            data = await self.reader.readexactly(int(response_headers["content-length"]))
        elif response_headers.get("transfer-encoding", "").lower() == "chunked":
            data = b""
            while size := int((await self.reader.readuntil(b"\r\n")).strip(), 16):
                data += await self.reader.readexactly(size)
                await self.reader.readuntil(b"\r\n")
            await self.reader.readuntil(b"\r\n")
        else:
            data = await self.reader.read()
            await self.close()
        if response_headers.get("connection", "").lower() == "close":
            await self.close()
        return status, response_headers, data


async def asgi_get(app, path: str, headers: list[tuple[bytes, bytes]] = ()) -> tuple[int, bytes]:
    """GET `path` from the ASGI `app`: (status, body)."""
    return await asgi_request(app, "GET", path, headers=headers)


async def asgi_request(
    app, method: str, path: str, body: bytes = b"", headers: list[tuple[bytes, bytes]] = ()
) -> tuple[int, bytes]:
    """One request to the ASGI `app`, called in this process: (status, body)."""
    route, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": route,
        "raw_path": route.encode(),
        "root_path": "",
        "query_string": query.encode(),
        "headers": list(headers) or [(b"host", b"bench.example")],
        "client": ("127.0.0.1", 1),
        "server": ("bench.example", 80),
    }
    status, answer = [], []

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            status.append(message["status"])
        elif message["type"] == "http.response.body":
            answer.append(message.get("body", b""))

    await app(scope, receive, send)
    return status[0], b"".join(answer)


class InProcess:
    """The ASGI app called directly in this process, one request at a time on a loop of its own."""

    def __init__(self, app, host: bytes = b"bench.example"):
        self.app, self.headers = app, [(b"host", host)]
        self.loop = asyncio.new_event_loop()

    def get(self, path: str) -> tuple[int, bytes]:
        return self.loop.run_until_complete(asgi_get(self.app, path, self.headers))

    def request(self, method: str, path: str, body: bytes = b"", headers: list = ()) -> tuple[int, bytes]:
        return self.loop.run_until_complete(asgi_request(self.app, method, path, body, [*self.headers, *headers]))

    def timed(self, path: str, repeat: int) -> tuple[list[float], bytes]:
        """`repeat` GETs of `path` after a tenth as many to warm up: their milliseconds sorted, and
        the body (the answer must be a 200)."""
        for _ in range(max(5, repeat // 10)):
            status, body = self.get(path)
        assert status == 200, (path, status, body[:300])
        samples = []
        for _ in range(repeat):
            started = time.perf_counter()
            self.get(path)
            samples.append((time.perf_counter() - started) * 1000)
        return sorted(samples), body

    def close(self) -> None:
        self.loop.close()


def timed_download(url: str, repeat: int, *, post: bool = False) -> list[tuple[float, float, int]]:
    """(seconds to the first byte, seconds to the last, bytes) of `repeat` downloads of `url`, each
    on a connection of its own; a POST with an empty body when `post` (public-inbox's search export
    is one)."""
    timings = []
    for _ in range(repeat):
        request = urllib.request.Request(url, data=b"" if post else None, method="POST" if post else "GET")
        started = time.monotonic()
        with urllib.request.urlopen(request) as response:
            response.read(1)
            first = time.monotonic() - started
            size = 1 + len(response.read())
            timings.append((first, time.monotonic() - started, size))
    return timings
