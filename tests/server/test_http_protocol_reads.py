"""GuardedHttpToolsProtocol in-process, fed the same bytes cut into reads anywhere: every request
is counted from its own request line to its blank line, whatever came before it in the read
(another request, a body with a Content-Length, a chunked body, empty lines), and whichever read
its blank line ends in. The first request over the limit is answered 431 after the answers owed
to the requests before it."""

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from uvicorn.config import Config
from uvicorn.server import ServerState

from sathub.config import Settings
from sathub.server import http_protocol
from sathub.server.http_protocol import GuardedHttpToolsProtocol

LIMIT = 400


class Transport(asyncio.Transport):
    """A connection's transport that keeps what the server writes."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closed = self.paused = False

    def write(self, data) -> None:
        if not self.closed:
            self.written += data

    def writelines(self, pieces) -> None:
        for piece in pieces:
            self.write(piece)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name, default=None):
        return {"peername": ("192.0.2.1", 40000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def get_write_buffer_size(self) -> int:
        return 0


async def app(scope, receive, send) -> None:
    """Reads the whole body, then answers 200."""
    while (message := await receive())["type"] == "http.request" and message["more_body"]:
        pass
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture(autouse=True)
def limits(monkeypatch):
    monkeypatch.setattr(http_protocol, "_limits", lambda: Settings(max_header_bytes=LIMIT))


def statuses(reads: list[bytes]) -> list[bytes]:
    """The status codes a connection answers to `reads`, delivered as the transport would: not
    while the server has paused reading."""

    async def serve() -> bytes:
        config = Config(app=app, log_config=None, lifespan="off")
        protocol = GuardedHttpToolsProtocol(
            config=config, server_state=ServerState(), app_state={}, _loop=asyncio.get_running_loop()
        )
        transport = Transport()
        protocol.connection_made(transport)
        for data in reads:
            for _ in range(100):
                if not transport.paused:
                    break
                await asyncio.sleep(0)
            if transport.closed:
                break
            protocol.data_received(data)
            for _ in range(10):
                await asyncio.sleep(0)
        for _ in range(100):
            await asyncio.sleep(0)
        protocol.connection_lost(None)
        return bytes(transport.written)

    return [answer[:3] for answer in asyncio.run(serve()).split(b"HTTP/1.1 ")[1:]]


def request(kind: str, header_bytes: int, body: bytes) -> bytes:
    """A request whose request line and header lines, blank line included, are `header_bytes`."""
    framing = {
        "get": b"",
        "length": b"Content-Length: %d\r\n" % len(body),
        "chunked": b"Transfer-Encoding: chunked\r\n",
    }[kind]
    head = (b"POST" if kind != "get" else b"GET") + b" /x HTTP/1.1\r\nHost: x\r\n" + framing + b"X-Pad: "
    head += b"a" * (header_bytes - len(head) - 4) + b"\r\n\r\n"
    if kind == "length":
        return head + body
    if kind == "chunked":
        return head + (b"%x\r\n" % len(body) + body + b"\r\n" if body else b"") + b"0\r\n\r\n"
    return head


requests = st.tuples(
    st.sampled_from(["get", "length", "chunked"]),
    st.one_of(st.integers(60, 120), st.integers(LIMIT - 2, LIMIT + 2)),
    st.binary(min_size=1, max_size=40).map(lambda body: body.replace(b"\r\n\r\n", b"\r\n\r\n" * 2)),
    st.integers(0, 2),  # empty lines before the request line
)


@settings(max_examples=400, deadline=None)
@given(st.lists(requests, min_size=1, max_size=4), st.data())
def test_each_request_is_counted_exactly_however_the_reads_are_cut(stream, data):
    raw = b"".join(b"\r\n" * empty + request(kind, size, body) for kind, size, body, empty in stream)
    cuts = sorted(data.draw(st.sets(st.integers(1, len(raw) - 1), max_size=6)))
    reads = [raw[start:end] for start, end in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    sizes = [size for _, size, _, _ in stream]
    served = next((number for number, size in enumerate(sizes) if size > LIMIT), len(sizes))
    answered = statuses(reads)
    kinds = [kind for kind, _, _, _ in stream]
    if "length" in kinds[kinds.index("chunked") + 1 :] if "chunked" in kinds else False:
        # A request behind a Content-Length body, both behind a chunked body in one read, may be
        # counted with that body's tail: refused early, never late.
        early = answered.count(b"200")
        assert early <= served and answered == [b"200"] * early + [b"431"] * (early < len(sizes))
    else:
        assert answered == [b"200"] * served + [b"431"] * (served < len(sizes))


def test_the_limit_in_one_read_and_in_reads_of_one_byte():
    for size, expected in ((LIMIT, [b"200"]), (LIMIT + 1, [b"431"])):
        raw = request("get", size, b"")
        assert statuses([raw]) == expected
        assert statuses([raw[at : at + 1] for at in range(len(raw))]) == expected
